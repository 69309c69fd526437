//! The controls of the widgets, one of each: a button (`data-action`), a checkbox, a select,
//! a range slider, a labelled text field (a sentence, a vocabulary, a query) and a labelled
//! number field that takes the reader's decimal comma ("0,5" as well as "0.5"), read as a
//! number (`read_number`) or a count (`read_count`), each with a Portuguese message naming the
//! field. The inputs carry `data-control`, so the widget tells them apart in its delegated
//! listener (`kit::control_of`) and `kit::state` keeps what the reader set.

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement};

use crate::core::format::parse_pt;
use crate::web::dom;

/// A `<button type=button data-action=…>`.
pub fn button(label: &str, action: &str) -> HtmlElement {
    let b = dom::text("button", "btn", label);
    dom::set_attr(&b, "type", "button");
    dom::set_attr(&b, "data-action", action);
    b
}

/// A labelled checkbox `data-control=…`; returns (label wrapper, input).
pub fn checkbox(label: &str, control: &str, checked: bool) -> (HtmlElement, web_sys::HtmlInputElement) {
    let wrapper = dom::el("label", "toggle");
    let input = dom::el("input", "").unchecked_into::<web_sys::HtmlInputElement>();
    input.set_type("checkbox");
    input.set_checked(checked);
    dom::set_attr(&input, "data-control", control);
    dom::append_all(&wrapper, &[&input, &dom::text("span", "", label)]);
    (wrapper, input)
}

/// A labelled `<select data-control=…>` with (value, label) options.
pub fn select(label: &str, control: &str, options: &[(impl AsRef<str>, impl AsRef<str>)], selected: &str) -> (HtmlElement, web_sys::HtmlSelectElement) {
    let wrapper = dom::el("label", "toggle");
    dom::append(&wrapper, &dom::text("span", "", label));
    let select = dom::el("select", "").unchecked_into::<web_sys::HtmlSelectElement>();
    dom::set_attr(&select, "data-control", control);
    set_options(&select, options, selected);
    dom::append(&wrapper, &select);
    (wrapper, select)
}

/// No (value, label) options yet: a select filled once there is something to choose.
pub const NO_OPTIONS: &[(&str, &str)] = &[];

/// Replaces a `<select>`'s (value, label) options and selects `selected`, or the value a
/// restored state left for options it did not have yet (`kit::controls::PENDING`), if one is it.
pub fn set_options(select: &web_sys::HtmlSelectElement, options: &[(impl AsRef<str>, impl AsRef<str>)], selected: &str) {
    select.set_text_content(None);
    for (value, text_label) in options {
        let option = dom::text("option", "", text_label.as_ref());
        dom::set_attr(&option, "value", value.as_ref());
        dom::append(select, &option);
    }
    select.set_value(selected);
    if let Some(restored) = crate::web::kit::controls::take_pending(select) {
        select.set_value(&restored);
        if select.value() != restored {
            select.set_value(selected);
        }
    }
}

/// A labelled range slider `data-control=…`; `readout` gives its label a place for the value.
pub fn slider(label: &str, control: &str, min: f64, max: f64, step: f64, value: f64) -> (HtmlElement, web_sys::HtmlInputElement) {
    let wrapper = dom::el("label", "toggle slider");
    dom::append(&wrapper, &dom::text("span", "", label));
    let input = dom::el("input", "").unchecked_into::<web_sys::HtmlInputElement>();
    input.set_type("range");
    dom::set_attr(&input, "min", &min.to_string());
    dom::set_attr(&input, "max", &max.to_string());
    dom::set_attr(&input, "step", &step.to_string());
    input.set_value(&value.to_string());
    dom::set_attr(&input, "data-control", control);
    dom::append(&wrapper, &input);
    (wrapper, input)
}

/// An `<output>` for the value of a slider (or any control) at the end of its `label`,
/// showing `initial`; the widget writes it as the value changes.
pub fn readout(label: &HtmlElement, initial: &str) -> HtmlElement {
    let output = dom::text("output", "readout", initial);
    dom::append(label, &output);
    output
}

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
