//! The widget kit: what every widget is made of, so that each widget is its computation, its
//! job and its drawing, and how widgets look and behave is decided here once.
//!
//! - `context`: `Ctx`, what the widgets of a page share;
//! - `update`: the update lifecycle (a job on the backend, a newer edit wins, ready or error);
//! - `hood`: the "por dentro" panel; `chain`: linked highlighting along Q·Kᵀ → softmax → ·V;
//! - `attributes`: data attributes read with warnings; `state`: inputs kept in the address
//!   (`address`) and set back without events (`controls`, `Widget::restore`);
//! - `ui`: inputs (the matrix editor, buttons, checkboxes, selects, sliders, text and number
//!   fields, corpora);
//! - `draw`: heatmaps, bars, plots, graphs and their table twins.
//!
//! The widget contract: any element with `data-widget="KIND"` is mounted by the widget
//! registered under KIND (`widgets::registry()`). While it computes it carries
//! `data-state="loading"`; then `data-state="ready"`, or `data-state="error"` with a visible
//! Portuguese message (`.widget-error`). Every matrix drawn has a `<table>` twin with the
//! same numbers ("ver números").

pub mod address;
pub mod attributes;
pub mod chain;
pub mod context;
pub mod controls;
pub mod draw;
pub mod frames;
pub mod hood;
pub mod shell;
pub mod state;
pub mod ui;
pub mod update;

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};

use crate::core::executor::BackendKind;
use crate::site::widgets::WidgetDoc;
use crate::web::dom::{self, Listener};

pub use context::Ctx;
pub use shell::Shell;
pub use update::{Update, Updates};

/// A mounted widget.
pub trait Widget {
    /// Recomputes from the current inputs and redraws (async; sets `data-state`).
    fn recompute(self: Rc<Self>);

    /// One value of a restored state (`kit::state`), once the kit has set it on its control
    /// (without events): where the reader's edit of that control does more than change its
    /// value (a preset fills the fields after it), the widget does the rest here, without
    /// drawing (a restore ends in one computation), and says whether it took the value. Values
    /// the kit cannot set are the widget's alone: an editor's size (`editor@size`, its number
    /// of cells), controls drawn later (a pair's toggle). `None`: nothing more to do.
    fn restore(&self, _key: &str, _value: &str) -> Option<bool> {
        None
    }
}

/// Builds a widget inside its host element, or says in Portuguese why it cannot.
pub type MountFn = fn(&Rc<Ctx>, &HtmlElement, &attributes::Attributes) -> Result<Rc<dyn Widget>, String>;

/// One registered kind of widget: its documentation (name, title, attributes: declared once,
/// in `site::widgets`) and the code that mounts it.
pub struct WidgetKind {
    pub doc: &'static WidgetDoc,
    pub mount: MountFn,
}

impl WidgetKind {
    /// The `data-widget` value.
    pub fn name(&self) -> &'static str {
        self.doc.name
    }

    /// Shown in headings and in the catalogue.
    pub fn title(&self) -> &'static str {
        self.doc.title
    }
}

/// A listener that runs `action` on the widget while the widget is alive. It holds the
/// widget weakly, so the listeners a widget owns do not keep it alive after its page is gone.
pub fn listen<W: 'static>(
    widget: &Rc<W>,
    target: &web_sys::EventTarget,
    kind: &'static str,
    action: impl Fn(&Rc<W>, &web_sys::Event) + 'static,
) -> Listener {
    let weak = Rc::downgrade(widget);
    Listener::new(target, kind, move |event| {
        if let Some(w) = weak.upgrade() {
            action(&w, &event);
        }
    })
}

/// Linked highlighting: the cell of `view` under the pointer or the keyboard (or `None`) is
/// handed to `link`, which outlines where it came from. Holds the widget weakly.
pub fn on_hover<W: 'static>(widget: &Rc<W>, view: &draw::MatrixView, link: impl Fn(&W, Option<(usize, usize)>) + 'static) {
    let weak = Rc::downgrade(widget);
    view.set_on_hover(move |cell| {
        if let Some(w) = weak.upgrade() {
            link(&w, cell);
        }
    });
}

/// The element an event came from, if it is one.
pub(crate) fn event_element(event: &web_sys::Event) -> Option<Element> {
    event.target().and_then(|t| t.dyn_into::<Element>().ok())
}

/// The `data-control` of the element an event came from ("" if none). Widgets listen once on
/// their host or a group of inputs and tell the inputs apart by it.
pub fn control_of(event: &web_sys::Event) -> String {
    event_element(event).and_then(|e| e.get_attribute("data-control")).unwrap_or_default()
}

/// The `data-action` of the element an event came from ("" if none): which button was clicked.
pub fn action_of(event: &web_sys::Event) -> String {
    event_element(event).and_then(|e| e.get_attribute("data-action")).unwrap_or_default()
}

/// Puts `host` in the error state with a visible message (as text, never HTML).
pub fn show_error(host: &HtmlElement, message: &str) {
    dom::set_attr(host, "data-state", "error");
    let existing = host.query_selector(":scope > .widget-error").ok().flatten();
    let slot = existing.unwrap_or_else(|| {
        let p = dom::el("p", "widget-error");
        dom::set_attr(&p, "role", "alert");
        let _ = host.prepend_with_node_1(&p);
        p.into()
    });
    slot.set_text_content(Some(message));
}

/// "Calculado em WebGPU." in the widget's note and `data-computed-on` on its host: the
/// contract the e2e tests read.
pub fn mark_backend(host: &HtmlElement, note: &HtmlElement, kind: BackendKind) {
    note.set_text_content(Some(&format!("Calculado em {}.", kind.label())));
    dom::set_attr(host, "data-computed-on", kind.attr());
}

/// Clears the error message and marks the widget ready.
pub fn show_ready(host: &HtmlElement) {
    if let Ok(Some(slot)) = host.query_selector(":scope > .widget-error") {
        slot.remove();
    }
    dom::set_attr(host, "data-state", "ready");
}

/// The "ver números" button: shows or hides every table twin inside `host` (the numbers
/// behind each canvas). Returns the button and the listener the widget must keep.
pub fn twins_button(host: &HtmlElement) -> (HtmlElement, Listener) {
    let button = ui::button("ver números", "twins");
    dom::set_attr(&button, "aria-expanded", "false");
    let host = host.clone();
    let listener = Listener::new(&button, "click", move |event| {
        let Some(button) = event.current_target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<Element>(t).ok()) else { return };
        let visible = button.get_attribute("aria-expanded").as_deref() != Some("true");
        dom::set_attr(&button, "aria-expanded", if visible { "true" } else { "false" });
        button.set_text_content(Some(if visible { "esconder números" } else { "ver números" }));
        let Ok(tables) = host.query_selector_all("table.twin") else { return };
        for i in 0..tables.length() {
            if let Some(table) = tables.item(i).and_then(|n| wasm_bindgen::JsCast::dyn_into::<HtmlElement>(n).ok()) {
                table.set_hidden(!visible);
            }
        }
    });
    (button, listener)
}

/// The level of a widget's heading: `data-heading-level` (1–6) when the page says, else one
/// below the heading the widget sits under in the page (h2 under an h1, …; the headings inside
/// an earlier widget do not count), else 3.
pub fn heading_level(host: &HtmlElement) -> u8 {
    if let Some(level) = host.get_attribute("data-heading-level").and_then(|v| v.trim().parse::<u8>().ok()) {
        return level.clamp(1, 6);
    }
    // Walk back through the page (previous siblings, then the parent's) to the last heading.
    let mut node: Option<Element> = Some(host.clone().into());
    while let Some(current) = node {
        let mut sibling = current.previous_element_sibling();
        while let Some(s) = sibling {
            if let Some(level) = heading_of(&s) {
                return (level + 1).min(6);
            }
            // Another widget's headings are its own: two widgets in a row are siblings.
            let inner = if s.has_attribute("data-widget") { Ok(None) } else { s.query_selector_all("h1, h2, h3, h4, h5, h6").map(|l| l.item(l.length().wrapping_sub(1))) };
            if let Ok(Some(inner)) = inner {
                if let Some(level) = inner.dyn_ref::<Element>().and_then(heading_of) {
                    return (level + 1).min(6);
                }
            }
            sibling = s.previous_element_sibling();
        }
        node = current.parent_element();
    }
    3
}

fn heading_of(element: &Element) -> Option<u8> {
    let tag = element.tag_name();
    let bytes = tag.as_bytes();
    (bytes.len() == 2 && matches!(bytes[0], b'H' | b'h') && (b'1'..=b'6').contains(&bytes[1])).then(|| bytes[1] - b'0')
}

/// The tag for a section heading of the widget at `host`: one level below its title (`h4`
/// under the usual h3), for the headings built after mounting (`fit_title` has moved the rest).
pub fn section_heading_tag(host: &HtmlElement) -> String {
    let title = host.query_selector(":scope > .widget-title").ok().flatten();
    let level = title.as_ref().and_then(heading_of).unwrap_or(3);
    format!("h{}", (level + 1).min(6))
}

/// Gives the widget's title (`.widget-title`) the level that fits the page's outline, with its
/// notation typeset (`W^Q` → W<sup>Q</sup>). Widgets write their title as an h3 and their own
/// sections' headings as h4: those move with the title, so none skips a level.
pub fn fit_title(host: &HtmlElement) {
    let Ok(Some(old)) = host.query_selector(":scope > .widget-title") else { return };
    let text = old.text_content().unwrap_or_default();
    let level = heading_level(host);
    let heading = dom::notation(&format!("h{level}"), "widget-title", &text);
    let _ = old.replace_with_with_node_1(&heading);
    if level == 3 {
        return;
    }
    let Ok(inner) = host.query_selector_all("h4:not(.widget-title)") else { return };
    let tag = section_heading_tag(host);
    for i in 0..inner.length() {
        let Some(section) = inner.item(i).and_then(|n| n.dyn_into::<Element>().ok()) else { continue };
        let moved = dom::el(&tag, &section.class_name());
        while let Some(child) = section.first_child() {
            let _ = moved.append_child(&child);
        }
        let _ = section.replace_with_with_node_1(&moved);
    }
}
