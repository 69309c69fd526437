//! Where the worker meets the page: `connect` (the function replies go to: the worker's
//! `postMessage`, or the page's handler when this module runs on the main thread) and
//! `receive` (a command's bytes: the protocols' `encode`). A reply is the report's bytes (a
//! `Uint8Array`), or `[bytes, bytes]` when a file or attention maps travel with it.

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

/// One command from the page: a `Uint8Array`, or `[Uint8Array, Uint8Array]` when a file
/// travels with it; a decoder playground's or the train widget's (anything else is ignored).
#[wasm_bindgen]
pub fn receive(data: JsValue) {
    let Some((message, bytes)) = atencao::message::from_js(&data) else { return };
    match atencao::core::decoder::protocol::DecoderCommand::decode(&message) {
        Ok(command) => crate::decoder::receive(command, bytes),
        Err(_) => crate::train_run::receive(&message),
    }
}

/// Sends a report (its encoded bytes) to the page, with a file's bytes when there is one.
pub fn reply(message: Vec<u8>, bytes: Option<Vec<u8>>) {
    let value = atencao::message::to_js(&message, bytes.as_deref());
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
