//! Widgets of the two Transformer articles (issue 5). Each file is one widget; the tensor
//! math runs in `core::transformer` through `ctx.backend.run`, so WebGPU and the CPU show the
//! same numbers. This module holds what they share: the widget frame, token chips, small
//! inputs, listener wiring and integer formatting.

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

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement};

use crate::core::transformer::char_tokenizer::{token_label, EOS, PAD, UNK};

use crate::web::dom;

/// Empties `host`, marks it loading and gives it the widget frame and title.
fn frame(host: &HtmlElement, title: &str) {
    dom::set_attr(host, "data-state", "loading");
    let _ = host.class_list().add_1("widget");
    host.set_text_content(None);
    dom::append(host, &dom::text("h3", "widget-title", title));
}

/// The shared widget listener (holds the widget weakly) and event helper, for the submodules.
use crate::web::kit::{control_of, listen};

fn backend_note(host: &HtmlElement) -> HtmlElement {
    let note = dom::el("p", "widget-backend");
    dom::set_attr(&note, "aria-live", "polite");
    dom::append(host, &note);
    note
}

/// A labelled one-line text input `data-control=…`.
fn text_input(label: &str, control: &str, value: &str) -> (HtmlElement, HtmlInputElement) {
    let wrapper = dom::el("label", "field");
    dom::append(&wrapper, &dom::text("span", "", label));
    let input = dom::el("input", "query-input").unchecked_into::<HtmlInputElement>();
    input.set_type("text");
    dom::set_attr(&input, "data-control", control);
    dom::set_attr(&input, "spellcheck", "false");
    input.set_value(value);
    dom::append(&wrapper, &input);
    (wrapper, input)
}

/// A labelled number input `data-control=…` (the reader may type any value; widgets check it).
fn number_input(label: &str, control: &str, value: usize) -> (HtmlElement, HtmlInputElement) {
    let wrapper = dom::el("label", "toggle");
    dom::append(&wrapper, &dom::text("span", "", label));
    let input = dom::el("input", "cap").unchecked_into::<HtmlInputElement>();
    input.set_type("number");
    dom::set_attr(&input, "min", "0");
    dom::set_attr(&input, "step", "1");
    dom::set_attr(&input, "data-control", control);
    input.set_value(&value.to_string());
    dom::append(&wrapper, &input);
    (wrapper, input)
}

/// The whole number in `input`, or a Portuguese message naming `what`.
fn read_count(input: &HtmlInputElement, what: &str) -> Result<usize, String> {
    let text = input.value();
    text.trim().parse::<usize>().map_err(|_| format!("{what}: «{}» não é um número inteiro não negativo.", text.chars().take(12).collect::<String>()))
}

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
        dom::append(&chip, &dom::text("span", "chip-text", &shown));
        dom::append(&chip, &dom::text("span", "chip-id", &id.to_string()));
        dom::append(&list, &chip);
    }
    list
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

/// Replaces `slot`'s content with a results table (label → value).
fn fill_results(slot: &HtmlElement, key: &str, caption: &str, rows: &[(String, String)]) {
    slot.set_text_content(None);
    dom::append(slot, &dom::results_table(key, caption, rows));
}
