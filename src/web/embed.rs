//! Embedding: any widget in any page (a blog post), run by the same code as on the site.
//!
//! `embed.js` (dist/embed.js, a name without hash) loads this module once per page and calls
//! [`embed`] with the folder it was served from. Every `[data-widget]` element of the page,
//! also one added later, then
//! - gets an open shadow root holding a copy of its data attributes, where the widget
//!   mounts, and one constructable stylesheet (the site's main.css, from embed.js's
//!   `embed-css.js`, and styles/embed.css, built into the wasm) shared by every root: the host page's CSS does not reach the widget, the
//!   widget's CSS does not reach the page, and no inline `<style>` is needed, so a strict
//!   Content-Security-Policy allows it;
//! - mounts when it comes near the viewport (an IntersectionObserver): a long post pays only
//!   for the widgets the reader scrolls to, and the model's weights are fetched only when a
//!   widget that needs them mounts;
//! - mirrors its inner element's `data-state` (waiting → loading → ready | error) and
//!   `data-computed-on`, so the page, and the tests, can follow it from outside.
//!
//! Every widget of the page shares one `Ctx`: one wasm instance, one backend, one GPU device.
//! What the author writes inside the element (a fallback text) stops showing once the shadow
//! root exists. The site's catalogue page shows its live examples through [`attach`] too.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{
    CssStyleSheet, Element, HtmlElement, IntersectionObserver, IntersectionObserverEntry, IntersectionObserverInit,
    MutationObserver, MutationObserverInit, MutationRecord, ShadowRootInit, ShadowRootMode,
};

use crate::web::backend::Backend;
use crate::web::dom;
use super::kit::context::Holding;
use super::kit::Ctx;
use super::widgets;

/// The embedding rules, compiled in (without their comments, by the page generator). The site's
/// stylesheet comes from the page: embed.js hands over its module's text (`embed-css.js`,
/// written by the generator from the same sheet), and on the site's own pages (the
/// catalogue's live examples) the rules of the `main.css` the page loaded are copied.
const EMBED_CSS: &str = include_str!(concat!(env!("OUT_DIR"), "/embed.css"));

/// How far outside the viewport a widget starts mounting (so it is ready when it arrives).
const LAZY_MARGIN: &str = "300px 0px";

/// What the page's element mirrors from the widget's element inside the shadow root.
const MIRRORED: &[&str] = &["data-state", "data-computed-on"];

/// Elements not yet mounted, and the observer that mounts them when they come into view.
struct Lazy {
    observer: IntersectionObserver,
    _on_intersect: Closure<dyn FnMut(Array, IntersectionObserver)>,
    pending: RefCell<Vec<Pending>>,
}

struct Pending {
    /// The page's `[data-widget]` element (observed, and mirroring the state).
    outer: HtmlElement,
    /// Its copy inside the shadow root, where the widget mounts.
    inner: HtmlElement,
    ctx: Rc<Ctx>,
    /// Its index among the page's widgets when attached (names its saved state).
    slot: usize,
}

/// The embedding of this page: its context and the observer of widgets added later.
struct Embedding {
    _ctx: Rc<Ctx>,
    _additions: Option<Observer>,
}

thread_local! {
    static LAZY: RefCell<Option<Rc<Lazy>>> = const { RefCell::new(None) };
    static SHEET: RefCell<Option<CssStyleSheet>> = const { RefCell::new(None) };
    /// The site's stylesheet as embed.js handed it over (none on the site's own pages).
    static SITE_CSS: RefCell<Option<String>> = const { RefCell::new(None) };
    static EMBEDDING: RefCell<Option<Embedding>> = const { RefCell::new(None) };
}

/// Called by embed.js once the module is loaded; `assets` is the URL of the built site's
/// folder (where embed.js lives). Mounts every `[data-widget]` of the page as it nears the
/// viewport, and the ones added to the page later.
#[wasm_bindgen]
pub fn embed(assets: String, css: String) {
    console_error_panic_hook::set_once();
    if EMBEDDING.with(|e| e.borrow().is_some()) {
        return;
    }
    SITE_CSS.with(|c| *c.borrow_mut() = Some(css));
    wasm_bindgen_futures::spawn_local(async move {
        let backend = Backend::init_embedded().await;
        let ctx = Rc::new(Ctx::with_assets(backend, assets));
        ctx.redraw_on_theme_change();
        if let Some(document) = dom::document() {
            attach_under(&document.into(), &ctx);
        }
        let additions = watch_additions(&ctx);
        EMBEDDING.with(|e| *e.borrow_mut() = Some(Embedding { _ctx: ctx, _additions: additions }));
    });
}

/// Attaches every `[data-widget]` element under `root` (itself included) not yet attached.
fn attach_under(root: &web_sys::Node, ctx: &Rc<Ctx>) {
    const SELECTOR: &str = "[data-widget]:not([data-state])";
    if let Some(element) = root.dyn_ref::<HtmlElement>() {
        if element.matches(SELECTOR).unwrap_or(false) {
            attach(ctx, element);
        }
    }
    let found = if let Some(element) = root.dyn_ref::<Element>() {
        element.query_selector_all(SELECTOR).ok()
    } else if let Some(document) = root.dyn_ref::<web_sys::Document>() {
        document.query_selector_all(SELECTOR).ok()
    } else {
        None
    };
    let Some(found) = found else { return };
    for i in 0..found.length() {
        if let Some(element) = found.item(i).and_then(|n| n.dyn_into::<HtmlElement>().ok()) {
            attach(ctx, &element);
        }
    }
}

/// Widgets a page adds after loading (a comment thread, a client-side router) are attached too.
fn watch_additions(ctx: &Rc<Ctx>) -> Option<Observer> {
    let document = dom::document()?;
    let ctx = ctx.clone();
    let options = MutationObserverInit::new();
    options.set_child_list(true);
    options.set_subtree(true);
    Observer::new(&document, &options, move |records| {
        for record in records.iter().filter_map(|r| r.dyn_into::<MutationRecord>().ok()) {
            let added = record.added_nodes();
            for i in 0..added.length() {
                if let Some(node) = added.item(i) {
                    attach_under(&node, &ctx);
                }
            }
        }
    })
}

/// Gives `outer` (a `[data-widget]` element) its shadow root with the widget's copy and a
/// placeholder, marks it `data-state="waiting"`, and mounts it when it nears the viewport.
pub fn attach(ctx: &Rc<Ctx>, outer: &HtmlElement) {
    let name = outer.get_attribute("data-widget").unwrap_or_default();
    let Ok(root) = outer.attach_shadow(&ShadowRootInit::new(ShadowRootMode::Open)) else {
        // <a>, <ul>, <table>, … cannot hold a shadow root; the element itself says so.
        dom::set_attr(outer, "data-state", "error");
        outer.set_text_content(Some(&format!(
            "O widget «{name}» precisa de um elemento <div> (um <{}> não serve).",
            outer.tag_name().to_ascii_lowercase()
        )));
        return;
    };
    if let Some(sheet) = shared_sheet() {
        root.set_adopted_style_sheets(&Array::of1(&sheet));
    }
    let wrapper = dom::el("div", "atencao-root");
    dom::set_attr(&wrapper, "lang", "pt-BR");
    let inner = dom::el("div", "");
    for attribute in outer.get_attribute_names().iter().filter_map(|a| a.as_string()) {
        if attribute.starts_with("data-") && !MIRRORED.contains(&attribute.as_str()) {
            if let Some(value) = outer.get_attribute(&attribute) {
                dom::set_attr(&inner, &attribute, &value);
            }
        }
    }
    let title = widgets::find(&name).map_or(name.as_str(), |kind| kind.title());
    dom::append(&inner, &dom::text("p", "embed-waiting", &format!("«{title}» calcula quando chegar à tela.")));
    dom::append(&wrapper, &inner);
    let _ = root.append_child(&wrapper);
    dom::set_attr(outer, "data-state", "waiting");
    let slot = slot_of(outer);

    let Some(lazy) = lazy() else {
        // No IntersectionObserver: mount right away.
        return mount(Pending { outer: outer.clone(), inner, ctx: ctx.clone(), slot });
    };
    lazy.observer.observe(outer);
    lazy.pending.borrow_mut().push(Pending { outer: outer.clone(), inner, ctx: ctx.clone(), slot });
}

/// `outer`'s index among the page's `[data-widget]` elements.
fn slot_of(outer: &HtmlElement) -> usize {
    let Some(all) = dom::document().and_then(|d| d.query_selector_all("[data-widget]").ok()) else { return 0 };
    (0..all.length()).find(|&i| all.item(i).is_some_and(|n| n.is_same_node(Some(outer)))).unwrap_or(0) as usize
}

/// One stylesheet object for every shadow root of the page.
fn shared_sheet() -> Option<CssStyleSheet> {
    SHEET.with(|slot| {
        if slot.borrow().is_none() {
            let sheet = CssStyleSheet::new().ok()?;
            let site = SITE_CSS.with(|c| c.borrow().clone()).unwrap_or_else(page_css);
            sheet.replace_sync(&format!("{site}\n{EMBED_CSS}")).ok()?;
            *slot.borrow_mut() = Some(sheet);
        }
        slot.borrow().clone()
    })
}

/// The rules of the `main.css` this page loaded (a page of the site: same origin, readable).
fn page_css() -> String {
    let mut css = String::new();
    let Some(sheets) = dom::document().map(|d| d.style_sheets()) else { return css };
    for sheet in (0..sheets.length()).filter_map(|i| sheets.item(i)).filter_map(|s| s.dyn_into::<CssStyleSheet>().ok()) {
        if !sheet.href().ok().flatten().is_some_and(|href| href.split(['?', '#']).next().is_some_and(|path| path.ends_with("main.css"))) {
            continue;
        }
        let Ok(rules) = sheet.css_rules() else { continue };
        for rule in (0..rules.length()).filter_map(|i| rules.item(i)) {
            css.push_str(&rule.css_text());
            css.push('\n');
        }
    }
    css
}

/// The page's lazy mounter, created on first use.
fn lazy() -> Option<Rc<Lazy>> {
    if let Some(existing) = LAZY.with(|l| l.borrow().clone()) {
        return Some(existing);
    }
    let on_intersect = Closure::<dyn FnMut(Array, IntersectionObserver)>::new(|entries: Array, _| {
        let arrived: Vec<Element> = entries
            .iter()
            .filter_map(|e| e.dyn_into::<IntersectionObserverEntry>().ok())
            .filter(|e| e.is_intersecting())
            .map(|e| e.target())
            .collect();
        let Some(lazy) = LAZY.with(|l| l.borrow().clone()) else { return };
        let due: Vec<Pending> = {
            let mut pending = lazy.pending.borrow_mut();
            // Elements the page removed (a route change on the site) are forgotten.
            pending.retain(|p| p.outer.is_connected() || { lazy.observer.unobserve(&p.outer); false });
            let (due, waiting): (Vec<Pending>, Vec<Pending>) =
                pending.drain(..).partition(|p| arrived.iter().any(|a| a == p.outer.unchecked_ref::<Element>()));
            *pending = waiting;
            due
        };
        for p in due {
            lazy.observer.unobserve(&p.outer);
            mount(p);
        }
    });
    let options = IntersectionObserverInit::new();
    options.set_root_margin(LAZY_MARGIN);
    let observer = IntersectionObserver::new_with_options(on_intersect.as_ref().unchecked_ref(), &options).ok()?;
    let lazy = Rc::new(Lazy { observer, _on_intersect: on_intersect, pending: RefCell::new(Vec::new()) });
    LAZY.with(|l| *l.borrow_mut() = Some(lazy.clone()));
    Some(lazy)
}

/// Mounts the widget inside the shadow root and keeps the page's element in step with it:
/// `MIRRORED` is copied from the inner element to the page's whenever it changes.
fn mount(p: Pending) {
    let options = MutationObserverInit::new();
    options.set_attributes(true);
    options.set_attribute_filter(&MIRRORED.iter().map(|a| JsValue::from_str(a)).collect::<Array>());
    let (from, to) = (p.inner.clone(), p.outer.clone());
    let mirror = Observer::new(&p.inner, &options, move |_| copy_mirrored(&from, &to));
    match widgets::mount_one(&p.inner, &p.ctx, p.slot) {
        Some(widget) => p.ctx.adopt(Rc::new(Holding { widget, _kept: mirror })),
        None => copy_mirrored(&p.inner, &p.outer),
    }
}

/// A MutationObserver with the closure it calls; disconnected when dropped.
struct Observer {
    observer: MutationObserver,
    _callback: Closure<dyn FnMut(Array, MutationObserver)>,
}

impl Observer {
    fn new(target: &web_sys::Node, options: &MutationObserverInit, mut on_change: impl FnMut(Array) + 'static) -> Option<Observer> {
        let callback = Closure::<dyn FnMut(Array, MutationObserver)>::new(move |records: Array, _| on_change(records));
        let observer = MutationObserver::new(callback.as_ref().unchecked_ref()).ok()?;
        observer.observe_with_options(target, options).ok()?;
        Some(Observer { observer, _callback: callback })
    }
}

impl Drop for Observer {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

fn copy_mirrored(inner: &HtmlElement, outer: &HtmlElement) {
    for name in MIRRORED {
        match inner.get_attribute(name) {
            Some(value) if outer.get_attribute(name).as_deref() != Some(value.as_str()) => dom::set_attr(outer, name, &value),
            Some(_) => {}
            None => {
                let _ = outer.remove_attribute(name);
            }
        }
    }
}
