//! The browser layer: page shell, routing, backend badge and widgets. It draws what the
//! core computes and never computes itself.
//!
//! Entry: `start` runs when the wasm module loads. On the site (`<main id="app" data-site>`)
//! it builds the shell and routes; elsewhere it does nothing, so test pages that load the
//! module, and pages that embed widgets (a blog with its own `#app`), stay untouched.
//! Embedding enters through `embed::embed`, called by embed.js.

pub mod backend;
pub mod bench;
pub mod catalogue;
pub mod dom;
pub mod draw;
pub mod embed;
pub mod model_store;
pub mod offline;
pub mod pages;
pub mod widgets;

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use backend::Backend;
use widgets::Ctx;

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
    let Some(document) = dom::document() else { return };
    if !document.query_selector("#app[data-site]").is_ok_and(|app| app.is_some()) {
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        pages::build_shell();
        offline::register();
        let backend = Backend::init().await;
        let ctx = Rc::new(Ctx::new(backend.clone()));
        backend::attach_switch(&ctx);
        pages::start_router(ctx);
    });
}
