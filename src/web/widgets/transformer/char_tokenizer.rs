//! `char-tokenizer`: texts (one per line) → character tokens as id chips, with the fixed table
//! (`<pad>`=0, `<bos>`=1, `<eos>`=2, a=3 …); the batch matrix b×t with padding on the left or
//! right, t = the longest text or a fixed value, and optional truncation. Characters outside
//! the table become `<unk>` and are listed; nothing typed is ever lost.
//!
//! Attributes: `data-preset` = frase (default: "gato") | lote (the article's five animals).

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

use crate::core::transformer::char_tokenizer::{
    encode, pad_batch, vocabulary, BatchLength, PadOptions, PadSide, MAX_BATCH, MAX_TEXT_CHARS, VOCAB_SIZE,
};

use crate::web::dom::{self, Listener};
use crate::web::kit::draw::{Scale, HeatmapData, MatrixView};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::{show_error, show_ready, Ctx, Widget, WidgetKind};
use super::{chips, frame, listen, number_input, read_count};

pub const KIND: WidgetKind = WidgetKind { name: "char-tokenizer", title: "Tokenizador de caracteres", mount };

const PRESETS: &[(&str, &str)] = &[("frase", "gato"), ("lote", "gato\nelefante\npeixe\npássaro\ncão")];

pub struct CharTokenizerWidget {
    host: HtmlElement,
    texts: HtmlTextAreaElement,
    specials: HtmlInputElement,
    side: HtmlSelectElement,
    length: HtmlSelectElement,
    width: HtmlInputElement,
    truncate: HtmlInputElement,
    rows: HtmlElement,
    note: HtmlElement,
    batch: Rc<MatrixView>,
    listeners: RefCell<Vec<Listener>>,
}

fn mount(_ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let preset = attrs.choice("data-preset");
    let initial = PRESETS.iter().find(|p| p.0 == preset).unwrap_or(&PRESETS[0]).1;
    frame(host, KIND.title);

    let label = dom::el("label", "corpus-label");
    dom::append(&label, &dom::text("span", "", "textos (um por linha)"));
    let texts = dom::el("textarea", "corpus-text").unchecked_into::<HtmlTextAreaElement>();
    dom::set_attr(&texts, "data-control", "texts");
    dom::set_attr(&texts, "rows", &initial.lines().count().max(2).to_string());
    dom::set_attr(&texts, "spellcheck", "false");
    texts.set_value(initial);
    dom::append(&label, &texts);
    dom::append(host, &label);

    let controls = dom::el("div", "widget-controls");
    let (specials_label, specials) = dom::checkbox(" <bos> e <eos>", "specials", true);
    let side_options = [("direita".to_string(), "à direita".to_string()), ("esquerda".to_string(), "à esquerda".to_string())];
    let (side_label, side) = dom::select("padding ", "side", &side_options, "direita");
    let length_options = [("maior".to_string(), "t = maior texto".to_string()), ("fixo".to_string(), "t fixo".to_string())];
    let (length_label, length) = dom::select("comprimento ", "length", &length_options, "maior");
    let (width_label, width) = number_input("t = ", "width", 12);
    let (truncate_label, truncate) = dom::checkbox(" truncar em t", "truncate", false);
    let (twins, twins_listener) = crate::web::kit::twins_button(host);
    for el in [&specials_label, &side_label, &length_label, &width_label, &truncate_label, &twins] {
        dom::append(&controls, el);
    }
    dom::append(host, &controls);

    let rows = dom::el("div", "token-rows");
    dom::append(host, &rows);
    let note = dom::el("p", "note");
    dom::set_attr(&note, "aria-live", "polite");
    dom::append(host, &note);
    let outputs = dom::el("div", "widget-outputs");
    let batch = MatrixView::new("batch", "Lote de ids (b × t)", " 0 = <pad>");
    dom::append(&outputs, &batch.root);
    dom::append(host, &outputs);

    let details = dom::el("details", "vocab");
    dom::append(&details, &dom::text("summary", "", &format!("tabela de tokens ({VOCAB_SIZE} ids)")));
    let pairs: Vec<(String, String)> = vocabulary().into_iter().map(|(id, label)| (label, id.to_string())).collect();
    dom::append(&details, &dom::results_table("vocabulary", "token → id", &pairs));
    dom::append(host, &details);

    let widget = Rc::new(CharTokenizerWidget {
        host: host.clone(),
        texts,
        specials,
        side,
        length,
        width,
        truncate,
        rows,
        note,
        batch,
        listeners: RefCell::new(Vec::new()),
    });
    *widget.listeners.borrow_mut() = vec![
        listen(&widget, &label, "input", |w, _| w.clone().recompute()),
        listen(&widget, &controls, "change", |w, _| w.clone().recompute()),
        listen(&widget, &controls, "input", |w, _| w.clone().recompute()),
        twins_listener,
    ];
    Ok(widget)
}

impl CharTokenizerWidget {
    fn options(&self) -> Result<PadOptions, String> {
        let t = read_count(&self.width, "t")?;
        if t == 0 {
            return Err("t precisa ser pelo menos 1.".into());
        }
        let side = if self.side.value() == "esquerda" { PadSide::Left } else { PadSide::Right };
        let length = if self.length.value() == "fixo" { BatchLength::Fixed(t) } else { BatchLength::Longest };
        Ok(PadOptions { side, length, truncate_to: self.truncate.checked().then_some(t) })
    }

    fn render(&self) -> Result<(), String> {
        let text = self.texts.value();
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        if lines.is_empty() {
            return Err("Escreva pelo menos um texto (um por linha).".into());
        }
        if lines.len() > MAX_BATCH {
            return Err(format!("Use até {MAX_BATCH} textos por lote; há {}.", lines.len()));
        }
        if let Some((i, long)) = lines.iter().enumerate().find(|(_, l)| l.chars().count() > MAX_TEXT_CHARS) {
            return Err(format!("O texto {} tem {} caracteres; o limite aqui é {MAX_TEXT_CHARS}.", i + 1, long.chars().count()));
        }
        let encoded: Vec<_> = lines.iter().map(|l| encode(l, self.specials.checked())).collect();
        let opts = self.options()?;
        let sequences: Vec<Vec<u32>> = encoded.iter().map(|e| e.ids()).collect();
        let batch = pad_batch(&sequences, opts).map_err(|e| e.to_string())?;

        self.rows.set_text_content(None);
        for (i, (line, e)) in lines.iter().zip(&encoded).enumerate() {
            let row = dom::el("div", "token-row");
            dom::set_attr(&row, "data-row", &i.to_string());
            let shown: String = line.chars().take(24).collect();
            dom::append(&row, &dom::text("span", "token-row-label", &format!("«{shown}» ({} tokens)", e.tokens.len())));
            let sources: Vec<String> = e.tokens.iter().map(|t| t.source.clone()).collect();
            dom::append(&row, &chips(&e.ids(), Some(&sources)));
            dom::append(&self.rows, &row);
        }

        let mut notes = vec![format!("Lote: b × t = {} × {}.", batch.ids.len(), batch.width())];
        let unknown: Vec<String> = encoded.iter().flat_map(|e| e.unknown.iter().cloned()).fold(Vec::new(), |mut acc, u| {
            if !acc.contains(&u) {
                acc.push(u);
            }
            acc
        });
        if !unknown.is_empty() {
            let listed: Vec<String> = unknown.iter().map(|u| format!("«{u}»")).collect();
            notes.push(format!("Fora da tabela (viraram <unk>): {}.", listed.join(", ")));
        }
        if let Some(fixed) = batch.widened_from {
            notes.push(format!("Sem truncamento, o lote ficou com a largura do maior texto ({}), maior que t = {fixed}.", batch.width()));
        }
        let cut: usize = batch.truncated.iter().sum();
        if cut > 0 {
            notes.push(format!("O truncamento descartou {cut} tokens do final das sequências longas."));
        }
        self.note.set_text_content(Some(&notes.join(" ")));

        let row_labels: Vec<String> = lines.iter().map(|l| l.chars().take(10).collect()).collect();
        let col_labels: Vec<String> = (1..=batch.width()).map(|p| p.to_string()).collect();
        self.batch.update(HeatmapData { matrix: batch.to_matrix(), row_labels, col_labels, scale: Scale::Count, masked: None });
        Ok(())
    }
}

impl Widget for CharTokenizerWidget {
    fn recompute(self: Rc<Self>) {
        match self.render() {
            Ok(()) => show_ready(&self.host),
            Err(message) => show_error(&self.host, &message),
        }
    }
}
