//! `one-hot`: a vocabulary (in the order typed) and a sentence; each token becomes a row
//! with a single 1 in its word's column, and the tokens' dot products (the Gram matrix
//! E·Eᵀ) show that one-hot vectors only test equality: 1 for the same word, 0 otherwise.
//! Hovering a dot product outlines the two rows it multiplies.
//!
//! Attributes: `data-preset` = telhado (default: the detailed example's 8-word vocabulary) | frutas.

use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::ops::matmul_bt;
use crate::core::text::one_hot;
use crate::core::text::tokenizer::{tokenize, TokenizerOptions};

use crate::web::dom;
use crate::web::kit::ui::{self, text_field};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{numbered, HeatmapData, MatrixView, Scale};
use crate::web::kit::{control_of, on_hover, Ctx, Shell, Widget, WidgetKind};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::ONE_HOT, mount };

/// Longest sentence drawn (tokens); a heatmap row per token.
const MAX_TOKENS: usize = 24;
const MAX_VOCABULARY: usize = 60;

/// (id, label, vocabulary in the article's order, sentence).
const PRESETS: &[(&str, &str, &str, &str)] = &[
    ("telhado", "vocabulário do exemplo detalhado", "dorme é gato no o preto subiu telhado", "o gato preto dorme no telhado"),
    ("frutas", "maçã, banana, encontrar, fruta", "maçã banana encontrar fruta", "encontrar fruta maçã"),
];

pub struct OneHotWidget {
    shell: Shell,
    preset: HtmlSelectElement,
    vocabulary: HtmlInputElement,
    sentence: HtmlInputElement,
    ids: HtmlElement,
    rows: Rc<MatrixView>,
    gram: Rc<MatrixView>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let wanted = attrs.choice("data-preset");
    let (_, _, vocab0, sentence0) = PRESETS.iter().find(|p| p.0 == wanted).unwrap_or(&PRESETS[0]);
    let shell = Shell::new(ctx, host, &KIND);
    // The example comes before the fields it rewrites (a saved state is restored in page order).
    let fields = dom::el("div", "fields");
    let options: Vec<(String, String)> = PRESETS.iter().map(|p| (p.0.to_string(), p.1.to_string())).collect();
    let (preset_label, preset) = ui::select("exemplo ", "preset", &options, wanted);
    let (vocab_label, vocabulary) = text_field("vocabulário (nesta ordem) ", "vocabulary", vocab0);
    let (sentence_label, sentence) = text_field("frase ", "sentence", sentence0);
    dom::append_all(&fields, &[&preset_label, &vocab_label, &sentence_label]);
    dom::append(&shell.inputs, &fields);
    let ids = ui::live("p", "ids wide");
    dom::append(&shell.outputs, &ids);
    let rows = MatrixView::new("one-hot", "Linhas one-hot (tokens × vocabulário)", "");
    let gram = MatrixView::new("gram", "Produtos escalares entre os tokens", " E·Eᵀ");
    dom::append_all(&shell.outputs, &[&rows.root, &gram.root]);

    let widget = Rc::new(OneHotWidget { shell, preset, vocabulary, sentence, ids, rows, gram });
    let shell = &widget.shell;
    shell.on(&widget, &shell.inputs, &["input", "change"], |w, e| match (e.type_().as_str(), control_of(e).as_str()) {
        ("change", "preset") => {
            if let Some((_, _, v, s)) = PRESETS.iter().find(|p| p.0 == w.preset.value()) {
                w.vocabulary.set_value(v);
                w.sentence.set_value(s);
            }
            w.clone().recompute();
        }
        ("input", "vocabulary" | "sentence") => w.clone().recompute(),
        _ => {}
    });
    // E·Eᵀ[i, j] is token i's row times token j's row.
    on_hover(&widget, &widget.gram, |w, cell| w.rows.highlight(&cell.map(|(i, j)| vec![i, j]).unwrap_or_default(), &[]));
    Ok(widget)
}

impl OneHotWidget {
    fn draw(&self) -> Result<(), String> {
        let options = TokenizerOptions::default();
        let mut vocabulary: Vec<String> = Vec::new();
        for word in tokenize(&self.vocabulary.value(), &options) {
            if !vocabulary.contains(&word) {
                vocabulary.push(word);
            }
        }
        let tokens = tokenize(&self.sentence.value(), &options);
        if vocabulary.is_empty() {
            return Err("Escreva pelo menos uma palavra no vocabulário.".into());
        }
        if tokens.is_empty() {
            return Err("Escreva uma frase com pelo menos uma palavra.".into());
        }
        if vocabulary.len() > MAX_VOCABULARY || tokens.len() > MAX_TOKENS {
            return Err(format!("Use até {MAX_VOCABULARY} palavras no vocabulário e {MAX_TOKENS} na frase."));
        }
        let (rows, unknown) = one_hot(&tokens, &vocabulary);
        let gram = matmul_bt(&rows, &rows, 1.0).map_err(|e| e.to_string())?;
        let ids: Vec<String> = tokens
            .iter()
            .map(|w| match vocabulary.iter().position(|v| v == w) {
                Some(i) => format!("{w} → {}", i + 1),
                None => format!("{w} → ?"),
            })
            .collect();
        let mut text = format!("Posições no vocabulário: {}.", ids.join(", "));
        if !unknown.is_empty() {
            let missing: Vec<&str> = unknown.iter().map(|&t| tokens[t].as_str()).collect();
            text.push_str(&format!(" Fora do vocabulário (linha só de zeros): {}.", missing.join(", ")));
        }
        self.ids.set_text_content(Some(&text));
        let token_labels: Vec<String> = tokens.iter().enumerate().map(|(t, w)| format!("{} {w}", t + 1)).collect();
        let short = numbered(tokens.len());
        // Both are indicators: a single 1 per row, and 1 where two tokens are the same word.
        self.rows.update(HeatmapData { matrix: rows, row_labels: token_labels.clone(), col_labels: vocabulary, scale: Scale::Probability, masked: None });
        self.gram.update(HeatmapData { matrix: gram, row_labels: token_labels, col_labels: short, scale: Scale::Probability, masked: None });
        Ok(())
    }
}

impl Widget for OneHotWidget {
    fn recompute(self: Rc<Self>) {
        self.shell.now(|| self.draw());
    }

    /// A restored example fills the vocabulary and the sentence, as choosing it does.
    fn restore(&self, key: &str, value: &str) -> Option<bool> {
        (key == "preset").then(|| {
            PRESETS
                .iter()
                .find(|p| p.0 == value)
                .inspect(|(_, _, v, s)| {
                    self.vocabulary.set_value(v);
                    self.sentence.set_value(s);
                })
                .is_some()
        })
    }
}
