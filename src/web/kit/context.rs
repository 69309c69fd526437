//! `Ctx`: what every widget of a page shares: the backend, the widgets alive on the page, and
//! the listeners that live as long as the document or as the page shown.

use std::cell::RefCell;
use std::rc::Rc;

use crate::web::backend::Backend;
use crate::web::dom::Listener;

use super::Widget;

/// A widget with what must live as long as it does (its state keeper, the observer that
/// mirrors an embedded widget's state): it computes as the widget does.
pub struct Holding<T> {
    pub widget: Rc<dyn Widget>,
    pub _kept: T,
}

impl<T> Widget for Holding<T> {
    fn recompute(self: Rc<Self>) {
        self.widget.clone().recompute();
    }

    fn restore(&self, key: &str, value: &str) -> Option<bool> {
        self.widget.restore(key, value)
    }
}

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

    /// Canvases take their colours from the theme: every widget redraws when the reader's
    /// system switches it.
    pub fn redraw_on_theme_change(self: &Rc<Self>) {
        let Some(query) = crate::web::dom::window().and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten()) else { return };
        let ctx = self.clone();
        self.keep_document_listener(Listener::new(&query, "change", move |_| ctx.recompute_all()));
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

