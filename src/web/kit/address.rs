//! Where widget state lives in this document's address, and in this browser: on the site the
//! page's query string (a page is a file of its own, `slug.html?w2=…`); on a page embedding
//! widgets its hash (`post.html#?w2=…`: the query string belongs to the post and its server);
//! localStorage for what an address cannot hold. Used by `state`, and by the pages that read
//! a parameter of their own (`?medir=`, `?preset=`).

use wasm_bindgen::JsValue;

use crate::core::widget_state::{parse_hash, HashQuery};
use crate::web::dom;

pub fn storage() -> Option<web_sys::Storage> {
    dom::window().and_then(|w| w.local_storage().ok().flatten())
}

/// Whether this document is the site (the address is ours) rather than a page embedding widgets.
pub fn on_site() -> bool {
    dom::document().is_some_and(|d| d.query_selector("#app[data-site]").ok().flatten().is_some())
}

fn location_hash() -> String {
    dom::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

pub fn location_pathname() -> String {
    dom::window().and_then(|w| w.location().pathname().ok()).unwrap_or_default()
}

/// The parameters widget states live in (see the module's comment).
pub fn address_query(site: bool) -> Result<HashQuery, String> {
    if site {
        let search = dom::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
        parse_hash(&format!("#{search}"))
    } else {
        parse_hash(&location_hash())
    }
}

/// A parameter of this document's address where widget states live (see `address_query`): on
/// the site `slug.html?name=…`, on an embedding page `post.html#?name=…`.
pub fn address_param(name: &str) -> Option<String> {
    address_query(on_site()).ok().and_then(|q| q.get(name).map(str::to_string))
}

/// This document's address with `query` in place of the parameters `address_query` read.
pub fn address_with(site: bool, query: &HashQuery) -> String {
    let Some(location) = dom::window().map(|w| w.location()) else { return String::new() };
    let href = location.href().unwrap_or_default();
    let before_hash = href.split('#').next().unwrap_or_default();
    if site {
        let page = before_hash.split('?').next().unwrap_or_default();
        format!("{page}{}{}", query.to_hash().trim_start_matches('#'), location.hash().unwrap_or_default())
    } else {
        format!("{before_hash}{}", query.to_hash())
    }
}

pub fn replace_address(url: &str) {
    let Some(window) = dom::window() else { return };
    if window.location().href().ok().as_deref() == Some(url) {
        return;
    }
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(url));
    }
}

