//! Whether the browser has WebGPU, asked without wgpu: what a page whose models run in its
//! worker (the decoder's and the training page, the home) needs to know to tell the worker
//! where to compute and to show the footer's badge. Opening a wgpu device there only to learn
//! this cost those pages about 7 KB of wgpu's code; the worker opens the device it computes on.

use js_sys::{Function, Object, Promise, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::{AdapterFacts, GpuUnavailable};

/// An adapter that gave a device: its facts (the device itself is closed at once).
pub struct AdapterProbe {
    facts: AdapterFacts,
}

/// `target.name`, or undefined.
fn field(target: &JsValue, name: &str) -> JsValue {
    Reflect::get(target, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

/// Calls `target.name(arg)` and awaits the promise it returns.
async fn call_async(target: &JsValue, name: &str, arg: &JsValue) -> Result<JsValue, String> {
    let function: Function = field(target, name).dyn_into().map_err(|_| format!("sem {name}"))?;
    let promise: Promise = function.call1(target, arg).map_err(describe)?.dyn_into().map_err(|_| format!("{name} não devolveu uma promessa"))?;
    JsFuture::from(promise).await.map_err(describe)
}

/// An exception's message (a DOMException's, an Error's) or its text.
fn describe(error: JsValue) -> String {
    field(&error, "message").as_string().or_else(|| error.as_string()).unwrap_or_else(|| "erro sem mensagem".into())
}

impl AdapterProbe {
    /// As `GpuContext::acquire` asks: a high-performance adapter and a device from it; any
    /// failure means "use the CPU", with the reason.
    pub async fn acquire() -> Result<AdapterProbe, GpuUnavailable> {
        let gpu = field(&field(&js_sys::global(), "navigator"), "gpu");
        if gpu.is_undefined() || gpu.is_null() {
            return Err(GpuUnavailable("nenhum adaptador WebGPU: o navegador não oferece WebGPU".into()));
        }
        let options = Object::new();
        let _ = Reflect::set(&options, &"powerPreference".into(), &"high-performance".into());
        let adapter = call_async(&gpu, "requestAdapter", &options).await.map_err(|why| GpuUnavailable(format!("nenhum adaptador WebGPU: {why}")))?;
        if adapter.is_null() || adapter.is_undefined() {
            return Err(GpuUnavailable("nenhum adaptador WebGPU: o navegador não deu nenhum".into()));
        }
        let device = call_async(&adapter, "requestDevice", &Object::new()).await.map_err(|why| GpuUnavailable(format!("o dispositivo não abriu: {why}")))?;
        if let Ok(destroy) = field(&device, "destroy").dyn_into::<Function>() {
            let _ = destroy.call0(&device);
        }
        // `adapter.info` (older browsers: `isFallbackAdapter` on the adapter itself), as wgpu reads it.
        let info = field(&adapter, "info");
        let name = field(&info, "description").as_string().unwrap_or_default();
        let fallback = field(&info, "isFallbackAdapter").as_bool().or_else(|| field(&adapter, "isFallbackAdapter").as_bool()).unwrap_or(false);
        Ok(AdapterProbe { facts: AdapterFacts::named(&name, "BrowserWebGpu", fallback) })
    }

    pub fn facts(&self) -> &AdapterFacts {
        &self.facts
    }

    pub fn adapter_name(&self) -> &str {
        &self.facts.name
    }

    /// The probe keeps no device, so none is lost on the page (the worker reports its own).
    pub fn lost_reason(&self) -> Option<String> {
        None
    }
}
