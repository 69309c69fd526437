//! `one-hot`: a vocabulary (in the order typed) and a sentence; each token becomes a row
//! with a single 1 in its word's column, and the tokens' dot products (the Gram matrix
//! E·Eᵀ) show that one-hot vectors only test equality: 1 for the same word, 0 otherwise.
//!
//! Attributes: `data-preset` = telhado (default: the detailed example's 8-word vocabulary) | frutas.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::ops::matmul_bt;
use crate::core::text::one_hot;
use crate::core::text::tokenizer::{tokenize, TokenizerOptions};

use crate::web::dom::{self, Listener};
use crate::web::kit::draw::{Scale, HeatmapData, MatrixView};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::{listen, show_error, show_ready, Ctx, Widget, WidgetKind};

pub const KIND: WidgetKind = WidgetKind { name: "one-hot", title: "Codificação one-hot de uma frase", mount };

/// Longest sentence drawn (tokens); a heatmap row per token.
const MAX_TOKENS: usize = 24;
const MAX_VOCABULARY: usize = 60;

/// (id, label, vocabulary in the article's order, sentence).
const PRESETS: &[(&str, &str, &str, &str)] = &[
    ("telhado", "vocabulário do exemplo detalhado", "dorme é gato no o preto subiu telhado", "o gato preto dorme no telhado"),
    ("frutas", "maçã, banana, encontrar, fruta", "maçã banana encontrar fruta", "encontrar fruta maçã"),
];

pub struct OneHotWidget {
    host: HtmlElement,
    preset: HtmlSelectElement,
    vocabulary: HtmlInputElement,
    sentence: HtmlInputElement,
    ids: HtmlElement,
    rows: Rc<MatrixView>,
    gram: Rc<MatrixView>,
    listeners: RefCell<Vec<Listener>>,
}

fn text_input(label: &str, control: &str, value: &str) -> (HtmlElement, HtmlInputElement) {
    let wrapper = dom::el("label", "field");
    dom::append(&wrapper, &dom::text("span", "", label));
    let input = dom::el("input", "query-input").unchecked_into::<HtmlInputElement>();
    input.set_type("text");
    dom::set_attr(&input, "data-control", control);
    input.set_value(value);
    dom::append(&wrapper, &input);
    (wrapper, input)
}

fn mount(_ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let wanted = attrs.choice("data-preset");
    let (_, _, vocab0, sentence0) = PRESETS.iter().find(|p| p.0 == wanted).unwrap_or(&PRESETS[0]);
    dom::set_attr(host, "data-state", "loading");
    let _ = host.class_list().add_1("widget");
    host.set_text_content(None);
    dom::append(host, &dom::text("h3", "widget-title", KIND.title));
    let controls = dom::el("div", "widget-controls");
    let options: Vec<(String, String)> = PRESETS.iter().map(|p| (p.0.to_string(), p.1.to_string())).collect();
    let (preset_label, preset) = dom::select("exemplo ", "preset", &options, wanted);
    dom::append(&controls, &preset_label);
    let (twins, twins_listener) = crate::web::kit::twins_button(host);
    dom::append(&controls, &twins);
    dom::append(host, &controls);
    let fields = dom::el("div", "fields");
    let (vocab_label, vocabulary) = text_input("vocabulário (nesta ordem) ", "vocabulary", vocab0);
    let (sentence_label, sentence) = text_input("frase ", "sentence", sentence0);
    dom::append(&fields, &vocab_label);
    dom::append(&fields, &sentence_label);
    dom::append(host, &fields);
    let ids = dom::el("p", "ids");
    dom::set_attr(&ids, "aria-live", "polite");
    dom::append(host, &ids);
    let outputs = dom::el("div", "widget-outputs");
    let rows = MatrixView::new("one-hot", "Linhas one-hot (tokens × vocabulário)", "");
    let gram = MatrixView::new("gram", "Produtos escalares entre os tokens", " E·Eᵀ");
    dom::append(&outputs, &rows.root);
    dom::append(&outputs, &gram.root);
    dom::append(host, &outputs);

    let widget = Rc::new(OneHotWidget { host: host.clone(), preset, vocabulary, sentence, ids, rows, gram, listeners: RefCell::new(Vec::new()) });
    let on_input = listen(&widget, &fields, "input", |w, _| w.clone().recompute());
    let on_preset = listen(&widget, &controls, "change", |w, _| {
        if let Some((_, _, v, s)) = PRESETS.iter().find(|p| p.0 == w.preset.value()) {
            w.vocabulary.set_value(v);
            w.sentence.set_value(s);
        }
        w.clone().recompute();
    });
    *widget.listeners.borrow_mut() = vec![on_input, on_preset, twins_listener];
    Ok(widget)
}

impl Widget for OneHotWidget {
    fn recompute(self: Rc<Self>) {
        let options = TokenizerOptions::default();
        let mut vocabulary: Vec<String> = Vec::new();
        for word in tokenize(&self.vocabulary.value(), &options) {
            if !vocabulary.contains(&word) {
                vocabulary.push(word);
            }
        }
        let tokens = tokenize(&self.sentence.value(), &options);
        if vocabulary.is_empty() {
            return show_error(&self.host, "Escreva pelo menos uma palavra no vocabulário.");
        }
        if tokens.is_empty() {
            return show_error(&self.host, "Escreva uma frase com pelo menos uma palavra.");
        }
        if vocabulary.len() > MAX_VOCABULARY || tokens.len() > MAX_TOKENS {
            return show_error(&self.host, &format!("Use até {MAX_VOCABULARY} palavras no vocabulário e {MAX_TOKENS} na frase."));
        }
        let (rows, unknown) = one_hot(&tokens, &vocabulary);
        let Ok(gram) = matmul_bt(&rows, &rows, 1.0) else { return };
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
        self.rows.update(HeatmapData { matrix: rows, row_labels: token_labels.clone(), col_labels: vocabulary, scale: Scale::Probability, masked: None });
        let short: Vec<String> = (1..=tokens.len()).map(|t| t.to_string()).collect();
        self.gram.update(HeatmapData { matrix: gram, row_labels: token_labels, col_labels: short, scale: Scale::Count, masked: None });
        show_ready(&self.host);
    }
}
