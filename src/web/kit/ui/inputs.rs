//! The one-line fields of the widgets, one of each: a labelled text field (a sentence, a
//! vocabulary, a query) and a labelled number field that takes the reader's decimal comma
//! ("0,5" as well as "0.5"), read as a number (`read_number`) or a count (`read_count`), each
//! with a Portuguese message naming the field. Both carry `data-control`, so the widget tells
//! them apart in its delegated listener (`kit::control_of`) and `kit::state` keeps what the
//! reader typed.

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement};

use crate::core::format::parse_pt;
use crate::web::dom;

/// A labelled one-line text field `data-control=control` holding `value`, without spell-check
/// (the reader types words of a corpus, not prose); returns (label, input).
pub fn text_field(label: &str, control: &str, value: &str) -> (HtmlElement, HtmlInputElement) {
    field(label, control, value, "query-input")
}

/// A labelled number field `data-control=control` holding `value`: typed as text, with a
/// numeric keyboard on phones (digits only when `whole`), so "0,5" is not refused by the
/// browser; read it with `read_number` or `read_count`. Returns (label, input).
pub fn number_field(label: &str, control: &str, value: &str, whole: bool) -> (HtmlElement, HtmlInputElement) {
    let (wrapper, input) = field(label, control, value, "cap");
    dom::set_attr(&input, "inputmode", if whole { "numeric" } else { "decimal" });
    (wrapper, input)
}

/// The number in a field (decimal comma or point), or a Portuguese message naming `what`.
pub fn read_number(input: &HtmlInputElement, what: &str) -> Result<f32, String> {
    let text = input.value();
    parse_pt(&text).ok_or_else(|| format!("{what}: «{}» não é um número. Use, por exemplo, 0,5 ou 2.", text.chars().take(12).collect::<String>()))
}

/// The whole number in a field, or a Portuguese message naming `what`.
pub fn read_count(input: &HtmlInputElement, what: &str) -> Result<usize, String> {
    let text = input.value();
    text.trim().parse::<usize>().map_err(|_| format!("{what}: «{}» não é um número inteiro não negativo.", text.chars().take(12).collect::<String>()))
}

fn field(label: &str, control: &str, value: &str, class: &str) -> (HtmlElement, HtmlInputElement) {
    let wrapper = dom::el("label", "field");
    dom::append(&wrapper, &dom::text("span", "", label));
    let input = dom::el("input", class).unchecked_into::<HtmlInputElement>();
    input.set_type("text");
    dom::set_attrs(&input, &[("data-control", control), ("spellcheck", "false")]);
    input.set_value(value);
    dom::append(&wrapper, &input);
    (wrapper, input)
}
