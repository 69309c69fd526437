//! The inputs of the widgets: the matrix editor and the corpus text box.

pub mod editor;

pub use editor::MatrixEditor;

use web_sys::HtmlElement;

use crate::web::dom;

/// The corpus textarea of the corpus panels (`data-control=corpus`) under its label, appended
/// to `panel`: one document per line, shown unwrapped (also cheaper to lay out for long
/// pastes), no spell-check.
pub fn corpus_textarea(panel: &HtmlElement, label: &str) -> web_sys::HtmlTextAreaElement {
    use wasm_bindgen::JsCast;
    let text_label = dom::el("label", "corpus-label");
    dom::append(&text_label, &dom::text("span", "", label));
    let text = dom::el("textarea", "corpus-text").unchecked_into::<web_sys::HtmlTextAreaElement>();
    dom::set_attr(&text, "data-control", "corpus");
    dom::set_attr(&text, "spellcheck", "false");
    dom::set_attr(&text, "wrap", "off");
    dom::append(&text_label, &text);
    dom::append(panel, &text_label);
    text
}

