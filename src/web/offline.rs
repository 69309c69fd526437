//! Offline: registers the service worker (`sw.js`, copied next to index.html by trunk and
//! stamped per build by scripts/sw-precache.sh), which keeps the whole built site, the model
//! included, for visits without network. Registered from here because the site allows no
//! inline scripts. The relative URL resolves against the page, so a site under a sub-path
//! gets a worker scoped to that sub-path.

use wasm_bindgen_futures::JsFuture;

use crate::web::dom;

pub fn register() {
    let Some(window) = dom::window() else { return };
    // Service workers exist only in secure contexts (https, localhost, 127.0.0.1).
    if !window.is_secure_context() {
        return;
    }
    let navigator = window.navigator();
    if !js_sys::Reflect::has(&navigator, &"serviceWorker".into()).unwrap_or(false) {
        return;
    }
    let registering = navigator.service_worker().register("sw.js");
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(error) = JsFuture::from(registering).await {
            // Without it the site works as before, online only: a warning, not an error.
            dom::log_warn(&format!("atencao: o service worker não foi registrado; sem modo offline ({error:?})"));
        }
    });
}
