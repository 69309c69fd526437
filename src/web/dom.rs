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

/// A header cell `<th scope="col|row">` with `content` as its text.
pub fn th(content: &str, scope: &str) -> HtmlElement {
    let th = text("th", "", content);
    set_attr(&th, "scope", scope);
    th
}

/// A table's header row: one column header (`scope="col"`) per label, notation typeset.
pub fn header_row(labels: &[&str]) -> HtmlElement {
    let head = el("tr", "");
    for label in labels {
        let th = notation("th", "", label);
        set_attr(&th, "scope", "col");
        append(&head, &th);
    }
    head
}

pub fn append(parent: &Element, child: &Element) {
    parent.append_child(child).expect("append to a live element");
}

/// Appends `children` to `parent`, in order.
pub fn append_all(parent: &Element, children: &[&Element]) {
    for child in children {
        append(parent, child);
    }
}

pub fn set_attr(element: &Element, name: &str, value: &str) {
    element.set_attribute(name, value).expect("valid attribute name");
}

/// Sets each (name, value) on `element`, in order.
pub fn set_attrs(element: &Element, attributes: &[(&str, &str)]) {
    for (name, value) in attributes {
        set_attr(element, name, value);
    }
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
/// Whether `element` is drawn dark: the theme an embedder pinned on it or an ancestor
/// (`data-theme="light|dark"`), else the reader's system preference.
pub fn dark_at(element: &Element) -> bool {
    let pinned = element.closest("[data-theme]").ok().flatten().or_else(|| {
        // Inside an embedded widget's shadow root: the host element carries the theme.
        let root = element.get_root_node();
        root.dyn_ref::<web_sys::ShadowRoot>().map(|shadow| shadow.host()).filter(|h| h.has_attribute("data-theme"))
    });
    match pinned.and_then(|e| e.get_attribute("data-theme")).as_deref() {
        Some("dark") => true,
        Some("light") => false,
        _ => prefers_dark(),
    }
}

pub fn prefers_dark() -> bool {
    window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches())
}

/// Subscript digits for labels such as x₁₂.
pub use crate::core::format::subscript;

pub fn log_warn(message: &str) {
    web_sys::console::warn_1(&message.into());
}

/// A small results table (label, value) used as the twin of scalar readouts.
pub fn results_table(key: &str, caption: &str, rows: &[(String, String)]) -> HtmlElement {
    let table = el("table", "results");
    set_attr(&table, "data-results", key);
    append(&table, &text("caption", "", caption));
    for (label, value) in rows {
        let tr = el("tr", "");
        append_all(&tr, &[&th(label, "row"), &text("td", "", value)]);
        append(&table, &tr);
    }
    table
}

/// Resolves after `ms` milliseconds (lets the browser paint between chunks of work).
pub async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Yields to the browser's event loop without the 4 ms floor of nested timeouts: a message
/// posted to ourselves (what `scheduler.yield()` does where it exists). Clicks and paints
/// queued meanwhile run before this resolves.
pub async fn yield_now() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        match web_sys::MessageChannel::new() {
            Ok(channel) => {
                channel.port1().set_onmessage(Some(resolve.unchecked_ref()));
                let _ = channel.port2().post_message(&wasm_bindgen::JsValue::NULL);
            }
            Err(_) => {
                if let Some(w) = window() {
                    let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
                }
            }
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Calls `f` once, after a turn of the event loop (a timeout of 0: what the page queued meanwhile,
/// its timers included, runs first).
pub fn after_a_turn(f: impl FnOnce() + 'static) {
    let Some(w) = window() else { return };
    let callback = wasm_bindgen::closure::Closure::once_into_js(f);
    let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(callback.unchecked_ref(), 0);
}

/// Calls `f` once, at the next animation frame (drawing at most once per frame).
pub fn on_next_frame(f: impl FnOnce() + 'static) {
    let Some(w) = window() else { return };
    let callback = wasm_bindgen::closure::Closure::once_into_js(f);
    if w.request_animation_frame(callback.unchecked_ref()).is_err() {
        let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(callback.unchecked_ref(), 16);
    }
}

/// Appends `text` to `parent` with its notation typeset: `W^Q` as W<sup>Q</sup>, `d_k` as
/// d<sub>k</sub> (`site::notation`); every piece is a text node.
pub fn append_notation(parent: &Element, text: &str) {
    use crate::site::notation::{pieces, Piece};
    let Some(document) = document() else { return };
    for piece in pieces(text) {
        match piece {
            Piece::Text(t) => {
                let _ = parent.append_child(&document.create_text_node(t));
            }
            Piece::Sup(t) => append(parent, &self::text("sup", "", t)),
            Piece::Sub(t) => append(parent, &self::text("sub", "", t)),
        }
    }
}

/// A page's `h1` and its lead paragraph, appended to `app`.
pub fn page_heading(app: &Element, title: &str, lead: &str) {
    append(app, &text("h1", "", title));
    append(app, &text("p", "lead", lead));
}

/// An element whose content is `text` with its notation typeset.
pub fn notation(tag: &str, class: &str, text: &str) -> HtmlElement {
    let element = el(tag, class);
    append_notation(&element, text);
    element
}

/// Replaces `element`'s content with `text`, its notation typeset.
pub fn set_notation(element: &Element, text: &str) {
    element.set_text_content(None);
    append_notation(element, text);
}

/// Offers `bytes` to the reader as a file named `name` (a download the browser saves).
pub fn save_file(bytes: &[u8], name: &str, mime: &str) -> Result<(), String> {
    let fail = |_| "O navegador não deixou salvar o arquivo.".to_string();
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options).map_err(fail)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(fail)?;
    let link = el("a", "").unchecked_into::<web_sys::HtmlAnchorElement>();
    link.set_href(&url);
    link.set_download(name);
    link.click();
    // Revoked once the download has started (at once, some browsers would cancel it).
    wasm_bindgen_futures::spawn_local(async move {
        sleep(10_000).await;
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    Ok(())
}
