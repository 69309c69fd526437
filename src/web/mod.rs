//! The browser layer: page shell, routing, backend badge and widgets. It draws what the
//! core computes and never computes itself.
//!
//! Entry: `start` runs when the wasm module loads. On the site (`<main id="app" data-site>`,
//! a page prerendered at build time and loaded by static/site.js) it picks the backend and
//! takes over the page (`pages`); elsewhere it does nothing, so test pages that load the
//! module, and pages that embed widgets (a blog with its own `#app`), stay untouched.
//! Embedding enters through `embed::embed`, called by embed.js. The offline service worker
//! is registered by static/site.js, wasm or not.

pub mod backend;
#[cfg(feature = "bench-page")]
pub mod bench;
#[cfg(feature = "catalogue-page")]
pub mod catalogue;
pub mod dom;
pub mod embed;
pub mod kit;
pub mod model_store;
pub mod pages;
#[cfg(feature = "resident")]
pub mod resident;
pub mod widgets;

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use backend::Backend;
use kit::Ctx;

/// Memory in use, for the load tests (and anyone curious, from the console):
/// `{ wasmBytes, gpuPooledBuffers, gpuPooledBytes }`. The wasm linear memory grows and never
/// shrinks, so a leak shows as growth across many recomputations; the GPU figures are the
/// buffer pool's idle buffers (0 on the CPU).
#[wasm_bindgen(js_name = memoryReport)]
pub fn memory_report() -> js_sys::Object {
    use wasm_bindgen::JsCast;
    let wasm_bytes = wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .ok()
        .and_then(|m| m.buffer().dyn_into::<js_sys::ArrayBuffer>().ok())
        .map_or(0.0, |b| b.byte_length() as f64);
    #[cfg(feature = "page-compute")]
    let gpu = backend::current().and_then(|b| b.gpu());
    // A page without page-compute holds no device, so no pooled buffers (its worker's are its own).
    #[cfg(not(feature = "page-compute"))]
    let gpu: Option<std::rc::Rc<crate::gpu::GpuContext>> = None;
    let report = js_sys::Object::new();
    let set = |name: &str, value: f64| {
        let _ = js_sys::Reflect::set(&report, &name.into(), &value.into());
    };
    set("wasmBytes", wasm_bytes);
    set("gpuPooledBuffers", gpu.as_ref().map_or(0.0, |g| g.pooled_buffers() as f64));
    set("gpuPooledBytes", gpu.as_ref().map_or(0.0, |g| g.pooled_bytes() as f64));
    report
}

#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
    let Some(document) = dom::document() else { return };
    if !document.query_selector("#app[data-site]").is_ok_and(|app| app.is_some()) {
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        let backend = Backend::init().await;
        let ctx = Rc::new(Ctx::new(backend.clone()));
        backend::attach_switch(&ctx);
        pages::start(ctx);
    });
}
