//! The wasm's part of the site's pages.
//!
//! Every page is a static file, prerendered at build time (the page generator writes the parts,
//! scripts/pages.sh assembles `slug.html` from trunk's index.html): its heading, prose with
//! MathML, table of contents and neighbouring pages are in the document, readable with no
//! JavaScript and before the wasm arrives. The page's script (`static/site.js`) opens the menu,
//! sends old `#/slug` links to their page and runs the offline control; it loads the wasm once
//! the page has been painted. The wasm then
//! - mounts each widget in place of its placeholder when it comes within a screen of the
//!   viewport (as embedded widgets do), one per task: a page computes only what the reader is
//!   about to see, the decoder's model is downloaded only when the reader reaches the decoder,
//!   and a page with many widgets never blocks the reader for long. A widget marked
//!   `data-on-demand` (the home page's) waits for the reader instead: static/site.js takes the
//!   mark off when the reader asks for it, before loading the wasm, or, if the wasm already
//!   runs, sends the widget an `atencao:mount` event;
//! - draws the two pages made by the widgets' code: the catalogue and the benchmark;
//! - says that an old `#/slug` link names no page;
//! - redraws the canvases when the system's theme changes.
//!
//! Nothing here parses HTML: the prose arrives as part of the document, and what comes from
//! the URL is set as text.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use js_sys::Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, IntersectionObserver, IntersectionObserverEntry, IntersectionObserverInit};

use crate::site::{self, Route, BENCH_SLUG, CATALOGUE_SLUG};

use crate::web::dom::{self, Listener};
use super::kit::Ctx;
use super::widgets;

/// Takes over the page the document holds (`<main id="app" data-page="…">`).
pub fn start(ctx: Rc<Ctx>) {
    let Some(window) = dom::window() else { return };
    let Some(app) = dom::document().and_then(|d| d.get_element_by_id("app")) else { return };
    ctx.redraw_on_theme_change();
    // An old link typed or pasted into this page (`#/slug`): static/site.js opens the pages that
    // exist; one that does not gets the message here.
    let app_for_hash = app.clone();
    ctx.keep_document_listener(Listener::new(&window, "hashchange", move |_| {
        show_not_found(&app_for_hash);
    }));
    match app.get_attribute("data-page").unwrap_or_default().as_str() {
        // Each page the wasm draws is in the build its page loads (`<main data-module>`): the
        // catalogue in the full one, the benchmark in the models' (features `catalogue-page`,
        // `bench-page`); another build says so instead of leaving the page blank.
        CATALOGUE_SLUG => {
            // Prerendered whole: the full build mounts its examples; another says it cannot.
            #[cfg(feature = "catalogue-page")]
            super::catalogue::render(&app, &ctx);
            #[cfg(not(feature = "catalogue-page"))]
            {
                app.set_text_content(None);
                page_not_in_this_build(&app);
            }
        }
        BENCH_SLUG => {
            app.set_text_content(None);
            #[cfg(feature = "bench-page")]
            super::bench::render(&app, &ctx);
            #[cfg(not(feature = "bench-page"))]
            page_not_in_this_build(&app);
        }
        _ => {
            if !show_not_found(&app) {
                mount_widgets(&app, &ctx);
            }
        }
    }
}

/// What a page drawn by the wasm says when the build that loaded lacks it (a page kept from an
/// older version of the site, say).
#[cfg(not(all(feature = "catalogue-page", feature = "bench-page")))]
fn page_not_in_this_build(app: &Element) {
    dom::append(app, &dom::text("p", "note", "O módulo que esta página carregou não desenha esta página: recarregue-a."));
}

/// How far beyond the viewport a widget starts mounting: a screen's height above and below,
/// so that it is ready by the time the reader scrolls to it.
const LAZY_MARGIN: &str = "100% 0px";

/// The page's widgets not mounted yet, watched until they near the viewport.
struct Lazy {
    /// Each widget of the page with its index among them, which names its saved state (as
    /// `widgets::mount_all` numbers them).
    hosts: Vec<(usize, HtmlElement)>,
    /// Widgets that came near, waiting for their turn.
    due: RefCell<VecDeque<(usize, HtmlElement)>>,
    mounting: Cell<bool>,
    observer: RefCell<Option<IntersectionObserver>>,
    _callback: RefCell<Option<Closure<dyn FnMut(Array, IntersectionObserver)>>>,
    /// The `atencao:mount` listeners of the widgets that wait for the reader.
    _on_demand: RefCell<Vec<Listener>>,
}

thread_local! {
    static LAZY: RefCell<Option<Rc<Lazy>>> = const { RefCell::new(None) };
}

/// Mounts the page's widgets as they come near the viewport (all at once where the browser has
/// no IntersectionObserver), each in place of its placeholder and in a task of its own.
fn mount_widgets(app: &Element, ctx: &Rc<Ctx>) {
    let Ok(nodes) = app.query_selector_all("[data-widget]") else { return };
    let hosts: Vec<(usize, HtmlElement)> =
        (0..nodes.length()).filter_map(|i| nodes.item(i).and_then(|n| n.dyn_into::<HtmlElement>().ok()).map(|h| (i as usize, h))).collect();
    if hosts.is_empty() {
        return;
    }
    let lazy = Rc::new(Lazy {
        hosts,
        due: RefCell::new(VecDeque::new()),
        mounting: Cell::new(false),
        observer: RefCell::new(None),
        _callback: RefCell::new(None),
        _on_demand: RefCell::new(Vec::new()),
    });
    // Widgets that wait for the reader (`data-on-demand`): mounted when static/site.js asks.
    let waits = |host: &HtmlElement| host.has_attribute("data-on-demand");
    for (slot, host) in lazy.hosts.iter().filter(|(_, h)| waits(h)) {
        let weak = Rc::downgrade(&lazy);
        let (slot, host_for_event, ctx) = (*slot, host.clone(), ctx.clone());
        lazy._on_demand.borrow_mut().push(Listener::new(host, "atencao:mount", move |_| {
            let Some(lazy) = weak.upgrade() else { return };
            lazy.due.borrow_mut().push_back((slot, host_for_event.clone()));
            drain(&lazy, &ctx);
        }));
    }
    let weak = Rc::downgrade(&lazy);
    let ctx_for_callback = ctx.clone();
    let callback = Closure::<dyn FnMut(Array, IntersectionObserver)>::new(move |entries: Array, observer: IntersectionObserver| {
        let Some(lazy) = weak.upgrade() else { return };
        for entry in entries.iter().filter_map(|e| e.dyn_into::<IntersectionObserverEntry>().ok()).filter(|e| e.is_intersecting()) {
            let target = entry.target();
            observer.unobserve(&target);
            if let Some(found) = lazy.hosts.iter().find(|(_, h)| h.unchecked_ref::<Element>() == &target) {
                lazy.due.borrow_mut().push_back(found.clone());
            }
        }
        drain(&lazy, &ctx_for_callback);
    });
    let options = IntersectionObserverInit::new();
    options.set_root_margin(LAZY_MARGIN);
    match IntersectionObserver::new_with_options(callback.as_ref().unchecked_ref(), &options) {
        Ok(observer) => {
            for (_, host) in lazy.hosts.iter().filter(|(_, h)| !waits(h)) {
                observer.observe(host);
            }
            *lazy.observer.borrow_mut() = Some(observer);
            *lazy._callback.borrow_mut() = Some(callback);
        }
        Err(_) => {
            lazy.due.borrow_mut().extend(lazy.hosts.iter().filter(|(_, h)| !waits(h)).cloned());
            drain(&lazy, ctx);
        }
    }
    LAZY.with(|l| *l.borrow_mut() = Some(lazy));
}

/// Mounts the widgets that came near, one per task, unless already at it.
fn drain(lazy: &Rc<Lazy>, ctx: &Rc<Ctx>) {
    if lazy.mounting.replace(true) {
        return;
    }
    let (lazy, ctx) = (lazy.clone(), ctx.clone());
    wasm_bindgen_futures::spawn_local(async move {
        loop {
            let next = lazy.due.borrow_mut().pop_front();
            let Some((slot, host)) = next else { break };
            if host.has_attribute("data-state") || !host.is_connected() {
                continue;
            }
            if let Ok(Some(placeholder)) = host.query_selector(":scope > .widget-placeholder") {
                placeholder.remove();
            }
            if let Some(widget) = widgets::mount_one(&host, &ctx, slot) {
                ctx.adopt(widget);
            }
            // Let the browser paint and answer the reader before the next widget.
            dom::sleep(0).await;
        }
        lazy.mounting.set(false);
    });
}

/// If the address holds an old link (`#/slug`) to a page that does not exist, puts the message
/// in place of the page's content and returns true.
fn show_not_found(app: &Element) -> bool {
    let hash = dom::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    if !hash.starts_with("#/") {
        return false;
    }
    let Route::NotFound(slug) = site::resolve(&hash) else { return false };
    app.set_text_content(None);
    dom::append(app, &dom::text("h1", "", "Página não encontrada"));
    // The slug comes from the URL: text only.
    let message = dom::el("p", "");
    dom::append(&message, &dom::text("span", "", &format!("Não há página chamada «{slug}». Escolha uma seção no sumário ou volte ao ")));
    let home = dom::text("a", "", "início");
    dom::set_attr(&home, "href", &site::page_href(""));
    dom::append_all(&message, &[&home, &dom::text("span", "", ".")]);
    dom::append(app, &message);
    if let Some(document) = dom::document() {
        document.set_title("Página não encontrada · atenção");
    }
    true
}
