//! The pretrained decoder's files, fetched once per page and shared by every widget that
//! needs them (the playground, the BPE page). Only widgets that ask for the weights load
//! them; the tokenizer alone is a few KB.
//!
//! Each file is checked against the SHA-256 in `config.json` before use. Verified downloads
//! go to the Cache API (keyed by URL and hash), so a second visit, or an offline one,
//! reads them from disk; a new model build has new hashes and so new keys. `config.json` is
//! asked of the network every time and kept too, for visits without one. This cache is the
//! only copy of the model on the reader's disk: the site's service worker (sw.js) leaves these
//! files to it, and its "salvar para ler offline" fills it with the same keys
//! (`{base}{file}?sha256={first 16 hex digits}`, `{base}config.json`).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use js_sys::{Promise, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Cache, HtmlElement, ReadableStreamDefaultReader, Response};

use crate::core::bpe::Bpe;
use crate::core::decoder::load::{self, Model};
use crate::core::decoder::manifest::Manifest;
use crate::core::decoder::protocol::ShippedFiles;

use crate::web::dom;
use super::kit::Ctx;

/// Where the site keeps the model (dist/static/model/), relative to the site's root.
pub const DEFAULT_BASE: &str = "static/model/";

/// The model folder of a widget: its `data-model` (a URL relative to the page that holds the
/// widget), else the site's own model (relative to the site's root, which for an embedded
/// widget is where embed.js was loaded from: another folder or another origin). Ends in "/".
pub fn base_for(ctx: &Ctx, host: &HtmlElement) -> String {
    let mut base = match host.get_attribute("data-model").filter(|m| !m.trim().is_empty()) {
        Some(own) => {
            let page = dom::document().and_then(|d| d.base_uri().ok().flatten()).unwrap_or_default();
            web_sys::Url::new_with_base(own.trim(), &page).map_or(own, |u| u.href())
        }
        None => ctx.asset_url(DEFAULT_BASE),
    };
    if !base.ends_with('/') {
        base.push('/');
    }
    base
}
const CACHE_NAME: &str = "atencao-modelo";

/// Bytes received so far and the expected total (0 if unknown).
pub type Progress = Rc<dyn Fn(f64, f64)>;

/// Where a load leaves its outcome for every waiter: nothing yet, the value or the message.
type Outcome<T> = Rc<RefCell<Option<Result<Rc<T>, String>>>>;

/// One file being loaded or loaded: a promise every waiter awaits, and its result.
struct Slot<T> {
    promise: Promise,
    result: Outcome<T>,
}

thread_local! {
    static MANIFESTS: RefCell<HashMap<String, Slot<Manifest>>> = RefCell::new(HashMap::new());
    static TOKENIZERS: RefCell<HashMap<String, Slot<Bpe>>> = RefCell::new(HashMap::new());
    static MODELS: RefCell<HashMap<String, Slot<Model>>> = RefCell::new(HashMap::new());
    static SHIPPED_FILES: RefCell<HashMap<String, Slot<(ShippedFiles, Vec<u8>)>>> = RefCell::new(HashMap::new());
    /// Progress listeners of the weights download, by base URL.
    static LISTENERS: RefCell<HashMap<String, Vec<Progress>>> = RefCell::new(HashMap::new());
}

type Registry<T> = std::thread::LocalKey<RefCell<HashMap<String, Slot<T>>>>;

/// Runs `load` once per `key` (concurrent callers share it) and returns its result. A
/// failure is not remembered: the next call (the "tentar de novo" button) loads again.
async fn once<T: 'static, F>(registry: &'static Registry<T>, key: &str, load: F) -> Result<Rc<T>, String>
where
    F: std::future::Future<Output = Result<T, String>> + 'static,
{
    let existing = registry.with(|r| r.borrow().get(key).map(|s| (s.promise.clone(), s.result.clone())));
    let (promise, result) = match existing {
        Some(found) => found,
        None => {
            let result: Outcome<T> = Rc::new(RefCell::new(None));
            let sink = result.clone();
            let promise = wasm_bindgen_futures::future_to_promise(async move {
                let value = load.await.map(Rc::new);
                *sink.borrow_mut() = Some(value);
                Ok(JsValue::UNDEFINED)
            });
            registry.with(|r| {
                r.borrow_mut().insert(key.to_string(), Slot { promise: promise.clone(), result: result.clone() })
            });
            (promise, result)
        }
    };
    let _ = JsFuture::from(promise).await;
    let value = result.borrow().clone().unwrap_or_else(|| Err("O carregamento foi interrompido.".into()));
    if value.is_err() {
        registry.with(|r| r.borrow_mut().remove(key));
    }
    value
}

fn js_error(what: &str, e: JsValue) -> String {
    let detail = e.as_string().or_else(|| Reflect::get(&e, &"message".into()).ok().and_then(|m| m.as_string()));
    format!("{what}: {}", detail.unwrap_or_else(|| "erro de rede".into()))
}

/// The Cache API store, where the browser offers one (secure contexts only).
async fn open_cache() -> Option<Cache> {
    let caches = dom::window()?.caches().ok()?;
    JsFuture::from(caches.open(CACHE_NAME)).await.ok()?.dyn_into::<Cache>().ok()
}

/// Fetches `url` whole, reporting progress; `expected` is the size from the manifest (for
/// the progress bar when the server sends no length). Also the pages' prose (`pages`).
pub(crate) async fn fetch_bytes(url: &str, expected: f64, progress: &dyn Fn(f64, f64)) -> Result<Vec<u8>, String> {
    let window = dom::window().ok_or("sem janela")?;
    let response: Response = JsFuture::from(window.fetch_with_str(url))
        .await
        .map_err(|e| js_error(&format!("Não consegui baixar {url}"), e))?
        .dyn_into()
        .map_err(|_| "resposta inesperada".to_string())?;
    if !response.ok() {
        return Err(format!("Não consegui baixar {url}: o servidor respondeu {}.", response.status()));
    }
    let Some(body) = response.body() else {
        let buffer = JsFuture::from(response.array_buffer().map_err(|e| js_error("leitura", e))?)
            .await
            .map_err(|e| js_error("leitura", e))?;
        return Ok(Uint8Array::new(&buffer).to_vec());
    };
    let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let mut bytes = Vec::with_capacity(expected as usize);
    loop {
        let chunk = JsFuture::from(reader.read()).await.map_err(|e| js_error(&format!("O download de {url} parou"), e))?;
        if Reflect::get(&chunk, &"done".into()).ok().and_then(|d| d.as_bool()).unwrap_or(true) {
            break;
        }
        if let Ok(value) = Reflect::get(&chunk, &"value".into()) {
            bytes.extend(Uint8Array::new(&value).to_vec());
        }
        progress(bytes.len() as f64, expected);
    }
    Ok(bytes)
}

/// A file checked against `sha256`: from the Cache API if it holds a copy, otherwise
/// downloaded, verified, and then stored there.
async fn verified_file(base: &str, file: &str, sha256: &str, expected: f64, progress: &dyn Fn(f64, f64)) -> Result<Vec<u8>, String> {
    // The hash in the key: a new model never reads an old cached file.
    let url = format!("{base}{file}?sha256={}", &sha256[..sha256.len().min(16)]);
    let cache = open_cache().await;
    if let Some(cache) = &cache {
        if let Some(bytes) = cached_bytes(cache, &url).await {
            if load::verify(file, &bytes, sha256).is_ok() {
                progress(bytes.len() as f64, bytes.len() as f64);
                return Ok(bytes);
            }
            // A damaged cached copy: drop it and download again.
            let _ = JsFuture::from(cache.delete_with_str(&url)).await;
        }
    }
    let bytes = fetch_bytes(&url, expected, progress).await?;
    load::verify(file, &bytes, sha256).map_err(|e| e.to_string())?;
    keep(cache.as_ref(), &url, &bytes).await;
    Ok(bytes)
}

/// Stores a copy of `bytes` as the body of `url` in the model's cache (when there is one).
async fn keep(cache: Option<&Cache>, url: &str, bytes: &[u8]) {
    let Some(cache) = cache else { return };
    if let Ok(response) = Response::new_with_opt_u8_array(Some(&mut bytes.to_vec())) {
        let _ = JsFuture::from(cache.put_with_str(url, &response)).await;
    }
}

/// The body of `url` in the model's cache, if it holds one.
async fn cached_bytes(cache: &Cache, url: &str) -> Option<Vec<u8>> {
    let response = JsFuture::from(cache.match_with_str(url)).await.ok()?.dyn_into::<Response>().ok()?;
    let buffer = JsFuture::from(response.array_buffer().ok()?).await.ok()?;
    Some(Uint8Array::new(&buffer).to_vec())
}

/// `config.json`'s text: from the network (it names the current files and hashes), kept in
/// the model's cache; without a network, the kept copy (the decoder opened once works offline).
async fn manifest_text(base: &str) -> Result<String, String> {
    let url = format!("{base}config.json");
    let cache = open_cache().await;
    let bytes = match fetch_bytes(&url, 0.0, &|_, _| {}).await {
        Ok(bytes) => {
            keep(cache.as_ref(), &url, &bytes).await;
            bytes
        }
        Err(why) => match &cache {
            Some(cache) => cached_bytes(cache, &url).await.ok_or(why)?,
            None => return Err(why),
        },
    };
    String::from_utf8(bytes).map_err(|_| "config.json não é UTF-8.".to_string())
}

pub async fn manifest(base: &str) -> Result<Rc<Manifest>, String> {
    let base_owned = base.to_string();
    once(&MANIFESTS, base, async move { Manifest::from_json(&manifest_text(&base_owned).await?).map_err(|e| e.to_string()) }).await
}

/// The BPE's two files as the page checked them, for the worker to parse (issue 36).
pub async fn bpe_files(base: &str) -> Result<crate::core::train_run::protocol::BpeFiles, String> {
    let m = manifest(base).await?;
    let tokenizer = verified_file(base, &m.tokenizer_file, &m.tokenizer_sha256, 0.0, &|_, _| {}).await?;
    Ok(crate::core::train_run::protocol::BpeFiles {
        manifest_json: manifest_text(base).await?,
        tokenizer_json: String::from_utf8(tokenizer).map_err(|_| "tokenizer.json não é UTF-8.".to_string())?,
    })
}

pub async fn tokenizer(base: &str) -> Result<Rc<Bpe>, String> {
    let m = manifest(base).await?;
    let base_owned = base.to_string();
    once(&TOKENIZERS, base, async move {
        let bytes = verified_file(&base_owned, &m.tokenizer_file, &m.tokenizer_sha256, 0.0, &|_, _| {}).await?;
        load::parse_tokenizer(&m, &bytes).map_err(|e| e.to_string())
    })
    .await
}

/// The shipped model's files as checked here, for the page's worker to parse (issue 36): the
/// manifest and the tokenizer as text, the weights and then the bigram as bytes (split at
/// `weights_len`). `progress` hears about the weights download, as `model`'s listeners do.
pub async fn shipped_files(base: &str, progress: Progress) -> Result<Rc<(ShippedFiles, Vec<u8>)>, String> {
    LISTENERS.with(|l| l.borrow_mut().entry(base.to_string()).or_default().push(progress));
    let m = manifest(base).await?;
    let base_owned = base.to_string();
    let result = once(&SHIPPED_FILES, base, async move {
        let base = base_owned;
        let notify = weights_progress(&base);
        let tokenizer = verified_file(&base, &m.tokenizer_file, &m.tokenizer_sha256, 0.0, &|_, _| {}).await?;
        let mut bytes = verified_file(&base, &m.weights_file, &m.weights_sha256, m.weights_bytes as f64, &notify).await?;
        let weights_len = bytes.len();
        bytes.extend(verified_file(&base, &m.bigram_file, &m.bigram_sha256, 0.0, &|_, _| {}).await?);
        let files = ShippedFiles {
            manifest_json: manifest_text(&base).await?,
            tokenizer_json: String::from_utf8(tokenizer).map_err(|_| "tokenizer.json não é UTF-8.".to_string())?,
            weights_len,
        };
        Ok((files, bytes))
    })
    .await;
    LISTENERS.with(|l| l.borrow_mut().remove(base));
    result
}

/// Tells every listener of `base`'s weights download how far it got.
fn weights_progress(base: &str) -> impl Fn(f64, f64) {
    let base = base.to_string();
    move |done: f64, total: f64| {
        let listeners = LISTENERS.with(|l| l.borrow().get(&base).cloned().unwrap_or_default());
        for listener in listeners {
            listener(done, total);
        }
    }
}

/// The whole model; `progress` hears about the weights download (every caller's listener
/// does, also when another widget started it).
pub async fn model(base: &str, progress: Progress) -> Result<Rc<Model>, String> {
    LISTENERS.with(|l| l.borrow_mut().entry(base.to_string()).or_default().push(progress));
    let m = manifest(base).await?;
    let bpe = tokenizer(base).await?;
    let base_owned = base.to_string();
    let result = once(&MODELS, base, async move {
        let notify = weights_progress(&base_owned);
        let weights = verified_file(&base_owned, &m.weights_file, &m.weights_sha256, m.weights_bytes as f64, &notify).await?;
        Model::from_checked((*m).clone(), (*bpe).clone(), &weights).map_err(|e| e.to_string())
    })
    .await;
    LISTENERS.with(|l| l.borrow_mut().remove(base));
    result
}
