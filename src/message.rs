//! A message between the page and its Web Worker as JavaScript carries it, on both sides (the
//! page's `web::resident`, the worker's `host`): the protocol's bytes (`core::wire`) as a
//! `Uint8Array`, or `[Uint8Array, Uint8Array]` when a file or attention maps travel with it.
//! Copies, not transfers: neither side keeps what it sent.

use wasm_bindgen::{JsCast, JsValue};

/// The message and the bytes that travel with it, as one value for `postMessage`.
pub fn to_js(message: &[u8], bytes: Option<&[u8]>) -> JsValue {
    let message = js_sys::Uint8Array::from(message);
    match bytes {
        None => message.into(),
        Some(b) => js_sys::Array::of2(&message, &js_sys::Uint8Array::from(b)).into(),
    }
}

/// What `to_js` wrote, or None for anything else (the start-up handshake's strings).
pub fn from_js(data: &JsValue) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
    if let Some(message) = data.dyn_ref::<js_sys::Uint8Array>() {
        return Some((message.to_vec(), None));
    }
    let pair = data.dyn_ref::<js_sys::Array>()?;
    let message = pair.get(0).dyn_into::<js_sys::Uint8Array>().ok()?.to_vec();
    Some((message, pair.get(1).dyn_into::<js_sys::Uint8Array>().ok().map(|b| b.to_vec())))
}
