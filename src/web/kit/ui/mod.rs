//! The inputs of the widgets: the matrix editor, the controls (buttons, checkboxes, selects,
//! sliders, text and number fields), and the corpus text box.

pub mod editor;
pub mod inputs;

pub use editor::{numbered_row, MatrixEditor};
pub use inputs::{button, checkbox, number_field, read_count, read_number, readout, select, set_options, slider, text_field, NO_OPTIONS};

use web_sys::HtmlElement;

use crate::web::dom;
use crate::web::kit::controls;

/// A corpus panel (`div.corpus-panel`): the preset menu `data-control=preset` under
/// `preset_label`, the corpus textarea under `text_label`, and a row for the settings
/// (`div.widget-controls`), in that order. Returns (panel, preset menu, textarea, settings row).
pub fn corpus_panel(
    preset_label: &str,
    presets: &[(impl AsRef<str>, impl AsRef<str>)],
    preset_id: &str,
    text_label: &str,
) -> (HtmlElement, web_sys::HtmlSelectElement, web_sys::HtmlTextAreaElement, HtmlElement) {
    let panel = dom::el("div", "corpus-panel");
    let (label, preset) = select(preset_label, "preset", presets, preset_id);
    dom::append(&panel, &label);
    let text = corpus_textarea(&panel, text_label);
    let settings = dom::el("div", "widget-controls");
    dom::append(&panel, &settings);
    (panel, preset, text, settings)
}

/// The corpus textarea of the corpus panels (`data-control=corpus`) under its label, appended
/// to `panel`: one document per line, shown unwrapped (also cheaper to lay out for long
/// pastes), no spell-check.
pub fn corpus_textarea(panel: &HtmlElement, label: &str) -> web_sys::HtmlTextAreaElement {
    use wasm_bindgen::JsCast;
    let text_label = dom::el("label", "corpus-label");
    dom::append(&text_label, &dom::text("span", "", label));
    let text = dom::el("textarea", "corpus-text").unchecked_into::<web_sys::HtmlTextAreaElement>();
    dom::set_attrs(&text, &[("data-control", "corpus"), ("spellcheck", "false"), ("wrap", "off")]);
    dom::append(&text_label, &text);
    dom::append(panel, &text_label);
    text
}

/// Gives `select` one option per label (values 0, 1, …) when their number changed, keeping
/// the choice while it exists, else `default` (or the last); returns the index chosen.
pub fn sync_choices(select: &web_sys::HtmlSelectElement, labels: &[String], default: usize) -> usize {
    // A restored state's choice among options it did not have yet comes first (`kit::state`).
    let previous = controls::take_pending(select).unwrap_or_else(|| select.value()).parse::<usize>().ok();
    let chosen = previous.filter(|&i| i < labels.len()).unwrap_or(default.min(labels.len().saturating_sub(1)));
    if select.length() as usize != labels.len() {
        let options: Vec<(String, &String)> = labels.iter().enumerate().map(|(i, label)| (i.to_string(), label)).collect();
        set_options(select, &options, "");
    }
    select.set_value(&chosen.to_string());
    chosen
}

/// A note among the outputs (a correction, what is clipped, why a sampler stopped), announced
/// when it changes.
pub fn live_note(class: &str) -> HtmlElement {
    live("p", class)
}

/// A `<tag class>` whose changes screen readers announce (`aria-live=polite`): a step
/// explained in words, a sample, a status.
pub fn live(tag: &str, class: &str) -> HtmlElement {
    let element = dom::el(tag, class);
    dom::set_attr(&element, "aria-live", "polite");
    element
}

/// Replaces what `slot` shows with a results table (label, value) `data-results=key`, the
/// notation of its caption and row labels typeset (`P_d`, `|V|^N`, `d_{ff}`): the widget's own
/// words, never the reader's, go here (`dom::results_table` keeps labels as written).
pub fn show_results(slot: &HtmlElement, key: &str, caption: &str, rows: &[(String, String)]) {
    slot.set_text_content(None);
    let table = dom::results_table(key, "", rows);
    if let Ok(heads) = table.query_selector_all("caption, th") {
        let texts = std::iter::once(caption).chain(rows.iter().map(|(label, _)| label.as_str()));
        for (i, text) in texts.enumerate() {
            if let Some(head) = heads.item(i as u32).and_then(|n| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(n).ok()) {
                dom::set_notation(&head, text);
            }
        }
    }
    dom::append(slot, &table);
}
