//! A widget's form controls as (key, value) pairs, the picture of its state (`kit::state`):
//! read from the widget's own element (so it works inside an embedded widget's shadow root),
//! and set without events: plain controls take their values (as text, never HTML), what is
//! more than a value (a preset, an editor's size) the widget sets (`Widget::restore`), and a
//! value a control cannot take yet waits on it (`PENDING`) until the widget offers it.

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

use crate::core::widget_state::valid_key;
use crate::web::dom;

use super::Widget;

/// The attribute that keeps a restored value a control cannot take yet; the widget hands it
/// over with `take_pending` when it sets the control's options or range.
pub const PENDING: &str = "data-restore";
/// Marks a control whose options or range the widget sets once it has computed (a token's
/// select, a step's slider): only there does a value it does not offer yet wait (`PENDING`);
/// anywhere else such a value is refused, and the reader told.
const LATE: &str = "data-late";

/// Marks `element` as offered later (see `LATE`).
pub fn offered_later(element: &Element) {
    dom::set_attr(element, LATE, "");
}

/// The restored value `element` waits to take, forgotten once read.
pub fn take_pending(element: &Element) -> Option<String> {
    let value = element.get_attribute(PENDING);
    let _ = element.remove_attribute(PENDING);
    value
}

/// One form control of a widget; `Size`: a resizable matrix editor, its value its cells.
pub enum Control {
    Input(HtmlInputElement),
    Area(HtmlTextAreaElement),
    Select(HtmlSelectElement),
    Size(Element),
}

impl Control {
    fn from(element: Element) -> Option<Control> {
        if element.has_attribute("data-grow") {
            return Some(Control::Size(element));
        }
        if let Some(input) = element.dyn_ref::<HtmlInputElement>() {
            let plain = !matches!(input.type_().as_str(), "button" | "submit" | "reset" | "file" | "hidden" | "image");
            return plain.then(|| Control::Input(input.clone()));
        }
        match element.dyn_into::<HtmlTextAreaElement>() {
            Ok(area) => Some(Control::Area(area)),
            Err(element) => element.dyn_into::<HtmlSelectElement>().ok().map(Control::Select),
        }
    }

    fn is_toggle(&self) -> bool {
        matches!(self, Control::Input(i) if matches!(i.type_().as_str(), "checkbox" | "radio"))
    }

    /// Selects, toggles and sliders: short values that may rewrite others, always kept.
    pub fn is_choice(&self) -> bool {
        match self {
            Control::Input(i) => matches!(i.type_().as_str(), "checkbox" | "radio" | "range"),
            Control::Select(_) => true,
            Control::Area(_) | Control::Size(_) => false,
        }
    }

    /// The value as text (a pending one while it waits).
    pub fn value(&self) -> String {
        match self {
            Control::Input(i) if self.is_toggle() => if i.checked() { "1" } else { "0" }.to_string(),
            Control::Input(i) => i.get_attribute(PENDING).unwrap_or_else(|| i.value()),
            Control::Area(a) => a.value(),
            Control::Select(s) => s.get_attribute(PENDING).unwrap_or_else(|| s.value()),
            Control::Size(e) => e.query_selector_all(".editor-cell").map_or(0, |cells| cells.length()).to_string(),
        }
    }

    /// Sets the value as text, without events; false when the control would not take it. A
    /// select without that option yet, or a slider without that range yet, keeps it pending.
    fn set(&self, value: &str) -> bool {
        match self {
            Control::Input(i) if self.is_toggle() => i.set_checked(value == "1"),
            Control::Input(i) => i.set_value(value),
            Control::Area(a) => a.set_value(value),
            Control::Select(s) => s.set_value(value),
            // A size is the widget's to set (`Widget::restore`).
            Control::Size(_) => return false,
        }
        let element = self.element();
        if self.value() != value && element.has_attribute(LATE) {
            dom::set_attr(element, PENDING, value);
        }
        self.value() == value
    }

    fn element(&self) -> &Element {
        match self {
            Control::Input(e) => e,
            Control::Area(e) => e,
            Control::Select(e) => e,
            Control::Size(e) => e,
        }
    }
}

/// The widget's controls and their keys, in page order: `data-control` (`~2`, `~3`, … for
/// repeats), `editor@row.col` for a matrix cell, `editor@size` for a resizable editor (before
/// its cells). The "por dentro" panel is not an input.
pub fn controls(host: &HtmlElement) -> Vec<(String, Control)> {
    let Ok(nodes) = host.query_selector_all("[data-control], input.editor-cell, [data-grow]") else { return Vec::new() };
    let mut seen: Vec<(String, usize)> = Vec::new();
    let mut out = Vec::new();
    for element in (0..nodes.length()).filter_map(|i| nodes.item(i)?.dyn_into::<Element>().ok()) {
        if element.closest(".hood").ok().flatten().is_some() {
            continue;
        }
        let editor = |e: &Element| e.closest("[data-editor]").ok().flatten().and_then(|e| e.get_attribute("data-editor")).unwrap_or_default();
        let key = if let Some(cell) = element.get_attribute("data-cell").filter(|_| element.class_list().contains("editor-cell")) {
            format!("{}@{cell}", editor(&element))
        } else if element.has_attribute("data-grow") {
            format!("{}@size", editor(&element))
        } else {
            let Some(name) = element.get_attribute("data-control") else { continue };
            let n = match seen.iter_mut().find(|(k, _)| *k == name) {
                Some((_, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    seen.push((name.clone(), 1));
                    1
                }
            };
            if n == 1 { name } else { format!("{name}~{n}") }
        };
        if let Some(control) = Control::from(element).filter(|_| valid_key(&key)) {
            out.push((key, control));
        }
    }
    out
}

/// Sets a state on the widget without events: what is more than a value (a preset, a size)
/// through `Widget::restore`, the rest on the controls. The example menu (`preset`) goes first,
/// wherever the widget shows it, since it rewrites the fields whose values the state then sets;
/// the rest in page order. Returns the keys nothing took.
pub fn set_state(host: &HtmlElement, widget: &dyn Widget, entries: &[(String, String)]) -> Vec<String> {
    let mut current = controls(host);
    let mut refused = Vec::new();
    let (preset, rest): (Vec<_>, Vec<_>) = entries.iter().partition(|(key, _)| key == "preset");
    for (key, value) in preset.into_iter().chain(rest) {
        // What already holds the value is left alone (a preset chosen again would rewrite the
        // fields set before it).
        if current.iter().any(|(k, control)| k == key && control.value() == *value) {
            continue;
        }
        // The control takes the value first (a size is the widget's), then the widget does
        // what more the edit does.
        let control = current.iter().find(|(k, _)| k == key).map(|(_, c)| c);
        let (exists, size) = (control.is_some(), matches!(control, Some(Control::Size(_))));
        let took = (size || control.is_none_or(|c| c.set(value)))
            && match widget.restore(key, value) {
                Some(took) => {
                    // A preset or a size rewrites or rebuilds controls: look them up again.
                    current = controls(host);
                    took
                }
                None => exists && !size,
            };
        if !took {
            refused.push(format!("«{key}»"));
        }
    }
    refused
}

