//! Small DOM helpers. User-controlled text only ever goes through `set_text_content`
//! (`text`), never `innerHTML`.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Document, Element, Event, HtmlElement, Window};

pub fn window() -> Option<Window> {
    web_sys::window()
}

pub fn document() -> Option<Document> {
    window()?.document()
}

/// A new element `tag` with the given class (empty for none).
pub fn el(tag: &str, class: &str) -> HtmlElement {
    let document = document().expect("widgets run in a document");
    let element = document.create_element(tag).expect("valid tag name").unchecked_into::<HtmlElement>();
    if !class.is_empty() {
        element.set_class_name(class);
    }
    element
}

/// A new element with text content (escaped by the browser, never parsed as HTML).
pub fn text(tag: &str, class: &str, content: &str) -> HtmlElement {
    let element = el(tag, class);
    element.set_text_content(Some(content));
    element
}

pub fn append(parent: &Element, child: &Element) {
    parent.append_child(child).expect("append to a live element");
}

pub fn set_attr(element: &Element, name: &str, value: &str) {
    element.set_attribute(name, value).expect("valid attribute name");
}

/// An event listener kept alive as long as the returned `Listener` (removed on drop).
pub struct Listener {
    target: web_sys::EventTarget,
    kind: &'static str,
    closure: Closure<dyn FnMut(Event)>,
}

impl Listener {
    pub fn new(target: &web_sys::EventTarget, kind: &'static str, handler: impl FnMut(Event) + 'static) -> Listener {
        let closure = Closure::<dyn FnMut(Event)>::new(handler);
        target
            .add_event_listener_with_callback(kind, closure.as_ref().unchecked_ref())
            .expect("addEventListener");
        Listener { target: target.clone(), kind, closure }
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.target.remove_event_listener_with_callback(self.kind, self.closure.as_ref().unchecked_ref());
    }
}

/// Whether the reader's system asks for a dark theme (canvas colours follow it).
pub fn prefers_dark() -> bool {
    window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches())
}

/// Subscript digits for labels such as x₁₂.
pub fn subscript(n: usize) -> String {
    n.to_string()
        .chars()
        .map(|c| char::from_u32(0x2080 + c.to_digit(10).unwrap_or(0)).unwrap_or(c))
        .collect()
}

pub fn log_warn(message: &str) {
    web_sys::console::warn_1(&message.into());
}
