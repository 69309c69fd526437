//! `char-tokenizer`: texts (one per line) → character tokens as id chips, with the fixed table
//! (`<pad>`=0, `<bos>`=1, `<eos>`=2, a=3 …); the batch matrix b×t with padding on the left or
//! right, t = the longest text or a fixed value, and optional truncation. Characters outside
//! the table become `<unk>` and are listed; nothing typed is ever lost.
//!
//! Attributes: `data-preset` = frase (default: "gato") | lote (the article's five animals);
//! `data-text` (texts to start with, one per line; instead of the preset's).

use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

use crate::core::transformer::char_tokenizer::{
    encode, pad_batch, vocabulary, BatchLength, PadOptions, PadSide, MAX_BATCH, MAX_TEXT_CHARS, VOCAB_SIZE,
};

use crate::web::dom;
use crate::web::kit::ui::{self, corpus_textarea, live_note, number_field, read_count};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{MatrixView, Scale};
use crate::web::kit::{Ctx, Shell, Widget, WidgetKind};
use super::{chips, numbered};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::CHAR_TOKENIZER, mount };

const PRESETS: &[(&str, &str)] = &[("frase", "gato"), ("lote", "gato\nelefante\npeixe\npássaro\ncão")];

pub struct CharTokenizerWidget {
    shell: Shell,
    texts: HtmlTextAreaElement,
    specials: HtmlInputElement,
    side: HtmlSelectElement,
    length: HtmlSelectElement,
    width: HtmlInputElement,
    truncate: HtmlInputElement,
    /// One row of chips per text.
    rows: HtmlElement,
    note: HtmlElement,
    batch: Rc<MatrixView>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let preset = attrs.choice("data-preset");
    let written = attrs.text("data-text");
    let initial = written.as_deref().unwrap_or(PRESETS.iter().find(|p| p.0 == preset).unwrap_or(&PRESETS[0]).1);
    let shell = Shell::new(ctx, host, &KIND);
    let texts = corpus_textarea(&shell.inputs, "textos (um por linha)");
    dom::set_attrs(&texts, &[("data-control", "texts"), ("rows", &initial.lines().count().max(2).to_string())]);
    texts.set_value(initial);

    let (specials_label, specials) = ui::checkbox(" <bos> e <eos>", "specials", true);
    let side_options = [("direita", "à direita"), ("esquerda", "à esquerda")];
    let (side_label, side) = ui::select("padding ", "side", &side_options, "direita");
    let length_options = [("maior", "t = maior texto"), ("fixo", "t fixo")];
    let (length_label, length) = ui::select("comprimento ", "length", &length_options, "maior");
    let (width_label, width) = number_field("t = ", "width", "12", true);
    let (truncate_label, truncate) = ui::checkbox(" truncar em t", "truncate", false);
    shell.control(&[&specials_label, &side_label, &length_label, &width_label, &truncate_label]);

    let rows = dom::el("div", "token-rows wide");
    let note = live_note("note wide");
    let batch = MatrixView::new("batch", "Lote de ids (b × t)", " 0 = <pad>");
    let vocab = dom::el("details", "vocab wide");
    dom::append(&vocab, &dom::text("summary", "", &format!("tabela de tokens ({VOCAB_SIZE} ids)")));
    let pairs: Vec<(String, String)> = vocabulary().into_iter().map(|(id, label)| (label, id.to_string())).collect();
    dom::append(&vocab, &dom::results_table("vocabulary", "token → id", &pairs));
    dom::append_all(&shell.outputs, &[&rows, &note, &batch.root, &vocab]);

    let widget = Rc::new(CharTokenizerWidget { shell, texts, specials, side, length, width, truncate, rows, note, batch });
    let shell = &widget.shell;
    shell.recompute_on(&widget, &["input", "change"]);
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
        let mut unknown: Vec<String> = Vec::new();
        for u in encoded.iter().flat_map(|e| e.unknown.iter()) {
            if !unknown.contains(u) {
                unknown.push(u.clone());
            }
        }
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
        self.batch.show(&batch.to_matrix(), row_labels, numbered(batch.width()), Scale::Count);
        Ok(())
    }
}

impl Widget for CharTokenizerWidget {
    fn recompute(self: Rc<Self>) {
        self.shell.now(|| self.render());
    }
}
