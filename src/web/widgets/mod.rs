//! The widget contract and registry.
//!
//! Any element with `data-widget="KIND"` is mounted by the widget registered under KIND.
//! While it computes it carries `data-state="loading"`; then `data-state="ready"`, or
//! `data-state="error"` with a visible Portuguese message (`.widget-error`). Every matrix
//! drawn has a `<table>` twin with the same numbers ("ver números"). A data attribute out of
//! range or unknown shows a `.widget-warning` and the widget still works (`attributes`); the
//! reader's inputs survive a reload and travel in a link ("copiar link", `state`).

pub mod attention;
pub mod attributes;
pub mod bpe;
pub mod decoder;
pub mod dot_product;
pub mod editor;
pub mod hood;
pub mod masked_softmax;
pub mod matmul;
pub mod matmul_bench;
pub mod one_hot;
pub mod sequence;
pub mod state;
pub mod text;
pub mod transformer;
pub mod vectors;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};

use crate::core::executor::BackendKind;

use super::backend::Backend;
use super::dom::{self, Listener};

/// What every widget shares: the backend, and the list of widgets alive on the page.
pub struct Ctx {
    pub backend: Rc<Backend>,
    live: RefCell<Vec<Rc<dyn Widget>>>,
    /// Listeners of the header, footer and system theme: they live as long as the document.
    document_listeners: RefCell<Vec<Listener>>,
    /// Listeners of the page now shown (a retry button, the bench's "rodar de novo"): they go
    /// with it, so visiting pages again and again does not pile up handlers.
    route_listeners: RefCell<Vec<Listener>>,
    /// Absolute URL of the built site's folder when embedded in another page (the site's
    /// files, e.g. the model, are found from there); empty on the site (page-relative).
    assets: String,
}

impl Ctx {
    pub fn new(backend: Rc<Backend>) -> Ctx {
        Ctx::with_assets(backend, String::new())
    }

    /// The context of widgets embedded in another page; `assets` is the site folder's URL.
    pub fn with_assets(backend: Rc<Backend>, assets: String) -> Ctx {
        Ctx {
            backend,
            live: RefCell::new(Vec::new()),
            document_listeners: RefCell::new(Vec::new()),
            route_listeners: RefCell::new(Vec::new()),
            assets,
        }
    }

    /// `path` (relative to the built site's root) as a URL this page can fetch.
    pub fn asset_url(&self, path: &str) -> String {
        if self.assets.is_empty() {
            return path.to_string();
        }
        web_sys::Url::new_with_base(path, &self.assets).map_or_else(|_| format!("{}{path}", self.assets), |u| u.href())
    }

    /// Keeps a mounted widget alive with the page and runs its first computation.
    pub fn adopt(&self, widget: Rc<dyn Widget>) {
        self.live.borrow_mut().push(widget.clone());
        widget.recompute();
    }

    /// Drops the widgets and route listeners of the previous page (the widgets' own listeners
    /// go with them). Safe from inside one of those listeners: wasm-bindgen frees a closure
    /// only once its running call has returned.
    pub fn leave_page(&self) {
        self.live.borrow_mut().clear();
        // `take` releases the list's borrow before the handlers are dropped.
        drop(self.route_listeners.take());
    }

    /// Reruns every live widget, e.g. after the backend changed.
    pub fn recompute_all(&self) {
        let widgets: Vec<_> = self.live.borrow().clone();
        for widget in widgets {
            widget.recompute();
        }
    }

    /// Keeps a listener that lives as long as the document (header, footer, theme).
    pub fn keep_document_listener(&self, listener: Listener) {
        self.document_listeners.borrow_mut().push(listener);
    }

    /// Keeps a listener until the reader leaves the page now shown (`leave_page`).
    pub fn keep_route_listener(&self, listener: Listener) {
        self.route_listeners.borrow_mut().push(listener);
    }
}

/// A mounted widget.
pub trait Widget {
    /// Recomputes from the current inputs and redraws (async; sets `data-state`).
    fn recompute(self: Rc<Self>);
}

/// Builds a widget inside its host element, or says in Portuguese why it cannot.
pub type MountFn = fn(&Rc<Ctx>, &HtmlElement) -> Result<Rc<dyn Widget>, String>;

/// One registered kind of widget.
pub struct WidgetKind {
    /// The `data-widget` value.
    pub name: &'static str,
    /// Shown in headings and in the catalogue.
    pub title: &'static str,
    pub mount: MountFn,
}

/// Every widget kind. The site, the embedding entry point and the catalogue read this list;
/// each kind's documentation (summary, attributes, catalogue example) is in `site::widgets`.
pub const REGISTRY: &[WidgetKind] = &[
    attention::KIND,
    masked_softmax::KIND,
    // The pretrained decoder (issue 6)
    decoder::KIND,
    bpe::KIND,
    vectors::KIND,
    dot_product::KIND,
    matmul::KIND,
    one_hot::KIND,
    text::BOW,
    text::TF,
    text::IDF,
    text::TFIDF,
    text::SEARCH,
    // Sequence modelling (issue 4)
    sequence::markov::KIND,
    sequence::transitions::KIND,
    sequence::sparsity::KIND,
    sequence::doc_vectors::KIND,
    sequence::likelihood::KIND,
    sequence::votes::KIND,
    sequence::vote_mask::KIND,
    sequence::mask_embeddings::KIND,
    sequence::ffn_detector::KIND,
    sequence::softmax_lab::KIND,
    // Transformer articles (issue 5)
    transformer::char_tokenizer::KIND,
    transformer::embedding::KIND,
    transformer::self_attention::KIND,
    transformer::scaling::KIND,
    transformer::multi_head::KIND,
    transformer::positional::KIND,
    transformer::shift::KIND,
    transformer::block::KIND,
    transformer::cross_attention::KIND,
    transformer::output_head::KIND,
    // Under the hood: the compute layer (issue 10)
    matmul_bench::KIND,
];

pub fn find(name: &str) -> Option<&'static WidgetKind> {
    REGISTRY.iter().find(|k| k.name == name)
}

/// Mounts every `[data-widget]` under `root` that is not mounted yet.
pub fn mount_all(root: &Element, ctx: &Rc<Ctx>) {
    let Ok(nodes) = root.query_selector_all("[data-widget]") else { return };
    for slot in 0..nodes.length() {
        let Some(host) = nodes.item(slot).and_then(|n| wasm_bindgen::JsCast::dyn_into::<HtmlElement>(n).ok()) else { continue };
        if host.has_attribute("data-state") {
            continue;
        }
        if let Some(widget) = mount_one(&host, ctx, slot as usize) {
            ctx.adopt(widget);
        }
    }
}

/// Builds the widget named by `host`'s `data-widget`, not yet computed (see `Ctx::adopt`),
/// with the warnings its settings raised and the reader's saved or linked inputs (`slot`:
/// its index among the page's widgets, which names its state); on failure `host` shows the
/// reason and None is returned.
pub fn mount_one(host: &HtmlElement, ctx: &Rc<Ctx>, slot: usize) -> Option<Rc<dyn Widget>> {
    let name = host.get_attribute("data-widget").unwrap_or_default();
    attributes::take_warnings();
    let mounted = match find(&name) {
        Some(kind) => (kind.mount)(ctx, host),
        None => Err(format!("Não existe widget chamado «{name}».")),
    };
    let warnings = attributes::take_warnings();
    match mounted {
        Ok(widget) => {
            attributes::show_warnings(host, &warnings);
            Some(state::keep(host, &name, slot, widget))
        }
        Err(message) => {
            show_error(host, &message);
            None
        }
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

/// The element an event came from, if it is one.
fn event_element(event: &web_sys::Event) -> Option<Element> {
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

/// Whether an event came from a cell of a matrix editor.
pub fn from_editor_cell(event: &web_sys::Event) -> bool {
    event_element(event).is_some_and(|e| e.class_list().contains("editor-cell"))
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

/// Counts a widget's updates. Every edit begins a new one; a result that arrives after a
/// newer edit is stale and is dropped (the newer update draws instead), so a slow backend
/// never paints an old answer over a new one.
#[derive(Clone, Default)]
pub struct Updates(Rc<Cell<u32>>);

impl Updates {
    /// Begins an update: any earlier one still computing becomes stale.
    pub fn begin(&self) -> Update {
        let number = self.0.get().wrapping_add(1);
        self.0.set(number);
        Update { counter: self.0.clone(), number }
    }
}

/// One update of a widget, to check after each await.
pub struct Update {
    counter: Rc<Cell<u32>>,
    number: u32,
}

impl Update {
    /// No newer update has begun since this one.
    pub fn is_current(&self) -> bool {
        self.counter.get() == self.number
    }

    /// Yields to the browser (so it paints "loading"), waiting 250 ms first if `debounce`
    /// (a large text: wait for a pause in typing); says whether the update is still current.
    pub async fn settle(&self, debounce: bool) -> bool {
        dom::sleep(if debounce { 250 } else { 0 }).await;
        self.is_current()
    }
}

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
    let button = dom::button("ver números", "twins");
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
