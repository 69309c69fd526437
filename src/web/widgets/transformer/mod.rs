//! Widgets of the two Transformer articles (issue 5). Each file is one widget built on the
//! kit's `Shell`; the tensor math runs in `core::transformer` on the backend, so WebGPU and the
//! CPU show the same numbers. This module holds what they share: token chips, heatmap rows
//! and columns, results tables .

pub mod block;
pub mod char_tokenizer;
pub mod cross_attention;
pub mod embedding;
pub mod multi_head;
pub mod output_head;
pub mod positional;
pub mod scaling;
pub mod self_attention;
pub mod shift;

use web_sys::HtmlElement;

use crate::core::transformer::char_tokenizer::{token_label, EOS, PAD, UNK};

use crate::web::dom;

/// How a token is shown on a chip: `<bos>`, `a`, `␣`.
fn chip_label(id: u32) -> String {
    token_label(id).unwrap_or_else(|| "?".into())
}

/// A row of token chips (`<ol class="chips">`), each with its character and id.
/// `sources` (the typed characters) label `<unk>` chips with what the reader typed.
fn chips(ids: &[u32], sources: Option<&[String]>) -> HtmlElement {
    let list = dom::el("ol", "chips");
    for (i, &id) in ids.iter().enumerate() {
        let class = match id {
            PAD => "chip pad",
            UNK => "chip unk",
            _ if id <= EOS => "chip special",
            _ => "chip",
        };
        let chip = dom::el("li", class);
        dom::set_attr(&chip, "data-id", &id.to_string());
        let shown = match (id, sources.and_then(|s| s.get(i))) {
            (UNK, Some(typed)) => format!("<unk> {typed}"),
            _ => chip_label(id),
        };
        dom::append_all(&chip, &[&dom::text("span", "chip-text", &shown), &dom::text("span", "chip-id", &id.to_string())]);
        dom::append(&list, &chip);
    }
    list
}

pub use crate::web::kit::draw::numbered;

/// Each token with its position: "1 <bos>", "2 g", …
fn positions(ids: &[u32]) -> Vec<String> {
    ids.iter().enumerate().map(|(p, &id)| format!("{} {}", p + 1, chip_label(id))).collect()
}


/// Replaces the row labels of a `MatrixEditor` (its constructor only takes a plain `fn`, and
/// these labels depend on the text): sets the `.editor-row-label` spans in order.
fn relabel_editor_rows(editor_root: &HtmlElement, labels: &[String]) {
    let Ok(spans) = editor_root.query_selector_all(".editor-row-label") else { return };
    for (i, label) in labels.iter().enumerate() {
        if let Some(span) = spans.item(i as u32) {
            span.set_text_content(Some(label));
        }
    }
}

/// An empty slot for a results table, the width of the outputs.
fn results_slot() -> HtmlElement {
    dom::el("div", "wide")
}


