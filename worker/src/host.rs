//! Where the worker meets the page: `connect` (the function replies go to: the worker's
//! `postMessage`, or the page's handler when this module runs on the main thread) and
//! `receive` (a command as JSON text). A reply is the report's JSON text, or `[json, bytes]`
//! when a file travels with it.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

thread_local! {
    static REPLY: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
}

/// Sets where replies go; the page calls it once, before the first message.
#[wasm_bindgen]
pub fn connect(reply: js_sys::Function) {
    console_error_panic_hook::set_once();
    REPLY.with(|r| *r.borrow_mut() = Some(reply));
}

/// One command from the page: JSON text, or `[text, bytes]` when a file travels with it; a
/// decoder playground's or the train widget's (anything else is ignored).
#[wasm_bindgen]
pub fn receive(message: JsValue) {
    let (text, bytes) = match message.as_string() {
        Some(text) => (text, None),
        None => {
            let Some(pair) = message.dyn_ref::<js_sys::Array>() else { return };
            let Some(text) = pair.get(0).as_string() else { return };
            (text, pair.get(1).dyn_into::<js_sys::Uint8Array>().ok().map(|b| b.to_vec()))
        }
    };
    match atencao::core::decoder::protocol::DecoderCommand::from_json(&text) {
        Ok(command) => crate::decoder::receive(command, bytes),
        Err(_) => crate::train_run::receive(&text),
    }
}

/// Sends a report to the page, with a file's bytes when there is one.
pub fn reply(json: String, bytes: Option<Vec<u8>>) {
    let value: JsValue = match bytes {
        None => json.into(),
        Some(b) => js_sys::Array::of2(&json.into(), &js_sys::Uint8Array::from(&b[..])).into(),
    };
    REPLY.with(|r| {
        if let Some(f) = r.borrow().as_ref() {
            let _ = f.call1(&JsValue::NULL, &value);
        }
    });
}

/// Milliseconds of this global's clock (a worker's or the page's `performance`).
pub fn now_ms() -> f64 {
    js_sys::Reflect::get(&js_sys::global(), &"performance".into())
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

/// Lets the global's event loop run (messages waiting are delivered) before going on: a
/// message posted to ourselves, without the timeout's 4 ms floor.
pub async fn yield_now() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Ok(channel) = web_sys::MessageChannel::new() {
            channel.port1().set_onmessage(Some(resolve.unchecked_ref()));
            let _ = channel.port2().post_message(&JsValue::NULL);
        } else {
            let _ = resolve.call0(&JsValue::NULL);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}
