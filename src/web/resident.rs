//! The page's Web Worker (issue 36): one per page, shared by its model widgets, started the
//! first time one sends it a command. It runs the worker's own wasm module
//! (`worker/`: `atencao-worker.js` and `atencao-worker_bg.wasm`, ES modules that only pages that
//! use them load) from a module bootstrap made here as a Blob, so it loads relative to the
//! site's files on the site, under a sub-path and in an embed on another origin alike (a CSP
//! needs `worker-src 'self' blob:`, and the site's origin when it is another: a module worker's
//! imports are checked against `worker-src`).
//!
//! Where the browser refuses a (module) worker, or the worker cannot load, the same module is
//! imported on the main thread behind the same two functions, and `on_main_thread` says so for
//! the widget's note. A worker that crashes is dropped and reported to the widgets (`Reply::Crashed`); the
//! next command starts a fresh one, so a widget that keeps the reader's inputs loses nothing.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::dom;
use super::kit::Ctx;

/// What comes back.
pub enum Reply {
    /// A report's bytes (the protocol's `decode` reads them), and the bytes that travel with it.
    Report { message: Vec<u8>, bytes: Option<Vec<u8>> },
    /// The worker stopped (a panic, or its module would not load): the run it held is gone.
    Crashed(String),
}

pub type Listener = Rc<dyn Fn(&Reply)>;

/// A command: its bytes (the protocol's `encode`), and the bytes of a file that travels with it.
type Command = (Vec<u8>, Option<Vec<u8>>);

enum Link {
    Down,
    /// Commands wait until the module is ready.
    Starting(Vec<Command>),
    Worker(web_sys::Worker),
    /// The module's `receive`, on this thread.
    MainThread(js_sys::Function),
}

struct Resident {
    link: Link,
    on_main_thread: bool,
    listeners: Vec<Weak<dyn Fn(&Reply)>>,
    /// The handlers of the module's link, kept as long as it lives, and those of links that
    /// ended (never dropped: one may be the handler running when its link ends).
    handlers: Vec<Closure<dyn FnMut(JsValue)>>,
    retired: Vec<Closure<dyn FnMut(JsValue)>>,
}

/// The handlers of a new link; the old ones retire.
fn keep_handlers(handlers: Vec<Closure<dyn FnMut(JsValue)>>) {
    RESIDENT.with(|r| {
        let mut r = r.borrow_mut();
        let old = std::mem::replace(&mut r.handlers, handlers);
        r.retired.extend(old);
    });
}

thread_local! {
    static RESIDENT: RefCell<Resident> = RefCell::new(Resident { link: Link::Down, on_main_thread: false, listeners: Vec::new(), handlers: Vec::new(), retired: Vec::new() });
}

const WORKER_JS: &str = "atencao-worker.js";
const WORKER_WASM: &str = "atencao-worker_bg.wasm";

/// `widget`'s `on_reply` hears every reply while the listener returned lives (the widget keeps
/// it, made with `Rc::new_cyclic`, so a widget that goes stops hearing).
pub fn listen<W: 'static>(widget: Weak<W>, on_reply: fn(&Rc<W>, &Reply)) -> Listener {
    let listener: Listener = Rc::new(move |reply: &Reply| {
        if let Some(w) = widget.upgrade() {
            on_reply(&w, reply);
        }
    });
    RESIDENT.with(|r| r.borrow_mut().listeners.push(Rc::downgrade(&listener)));
    listener
}

/// Answers awaited by number: a command carries the number, and the report that answers it
/// wakes its waiter (a pass run again for "comparar", a training run's first view).
pub struct Awaited<T> {
    waiting: RefCell<Vec<(u64, Rc<RefCell<Answer<T>>>)>>,
}

/// A waiter's answer (once given) and how to wake it.
struct Answer<T> {
    given: Option<Option<T>>,
    waker: Option<std::task::Waker>,
}

/// The future `Awaited::wait` returns.
struct Waiting<T>(Rc<RefCell<Answer<T>>>);

impl<T> std::future::Future for Waiting<T> {
    type Output = Option<T>;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<T>> {
        let mut answer = self.0.borrow_mut();
        match answer.given.take() {
            Some(value) => std::task::Poll::Ready(value),
            None => {
                answer.waker = Some(cx.waker().clone());
                std::task::Poll::Pending
            }
        }
    }
}

impl<T: 'static> Awaited<T> {
    pub const fn new() -> Self {
        Awaited { waiting: RefCell::new(Vec::new()) }
    }

    /// The answer to `number`, once `answer` or `answer_all` gives it (`None`: it no longer
    /// matters). Waiting starts now, before the command is sent, so an answer that comes at
    /// once is not missed.
    pub fn wait(&self, number: u64) -> impl std::future::Future<Output = Option<T>> + 'static {
        let answer = Rc::new(RefCell::new(Answer { given: None, waker: None }));
        self.waiting.borrow_mut().push((number, answer.clone()));
        Waiting(answer)
    }

    /// Wakes `number`'s waiter with `value`; false when none was waiting.
    pub fn answer(&self, number: u64, value: T) -> bool {
        let at = self.waiting.borrow().iter().position(|(n, _)| *n == number);
        let Some(at) = at else { return false };
        let (_, answer) = self.waiting.borrow_mut().remove(at);
        give(&answer, Some(value));
        true
    }

    /// Wakes every waiter with a `value()` (the worker stopped), or with nothing (`None`) for a
    /// waiter whose answer no longer matters; false when none was waiting.
    pub fn answer_all(&self, value: impl Fn() -> Option<T>) -> bool {
        let waiting = std::mem::take(&mut *self.waiting.borrow_mut());
        for (_, answer) in &waiting {
            give(answer, value());
        }
        !waiting.is_empty()
    }
}

fn give<T>(answer: &RefCell<Answer<T>>, value: Option<T>) {
    let waker = {
        let mut answer = answer.borrow_mut();
        answer.given = Some(value);
        answer.waker.take()
    };
    if let Some(waker) = waker {
        waker.wake();
    }
}

/// The work runs on the page's thread: the browser refused a worker.
pub fn on_main_thread() -> bool {
    RESIDENT.with(|r| r.borrow().on_main_thread)
}

/// Sends a command (its encoded bytes), starting the worker if needed.
pub fn send(ctx: &Ctx, message: Vec<u8>) {
    send_with(ctx, message, None);
}

/// Sends a command with a file's bytes (`[message, bytes]`), starting the worker if needed.
pub fn send_with(ctx: &Ctx, message: Vec<u8>, bytes: Option<Vec<u8>>) {
    let command = (message, bytes);
    let start = RESIDENT.with(|r| {
        let mut r = r.borrow_mut();
        match &mut r.link {
            Link::Down => {
                r.link = Link::Starting(vec![command]);
                true
            }
            Link::Starting(queue) => {
                queue.push(command);
                false
            }
            link => {
                post(link, command);
                false
            }
        }
    });
    if start {
        let (js, wasm) = (absolute(&ctx.asset_url(WORKER_JS)), absolute(&ctx.asset_url(WORKER_WASM)));
        if start_worker(&js, &wasm).is_err() {
            start_on_main_thread(&js, &wasm);
        }
    }
}

/// A command as the module reads it (`crate::message`).
fn message_of((message, bytes): Command) -> JsValue {
    crate::message::to_js(&message, bytes.as_deref())
}

/// A command to a link that is up (a link still starting or down takes none).
fn post(link: &Link, command: Command) {
    match link {
        Link::Worker(w) => {
            let _ = w.post_message(&message_of(command));
        }
        Link::MainThread(receive) => {
            let receive = receive.clone();
            // Later, never inside the caller's own handler (it may hold its state borrowed).
            wasm_bindgen_futures::spawn_local(async move {
                let _ = receive.call1(&JsValue::NULL, &message_of(command));
            });
        }
        Link::Down | Link::Starting(_) => {}
    }
}

/// `url` against the page's address (a Blob's worker has no base of its own).
fn absolute(url: &str) -> String {
    let page = dom::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    web_sys::Url::new_with_base(url, &page).map_or_else(|_| url.to_string(), |u| u.href())
}

fn deliver(reply: Reply) {
    let listeners: Vec<Listener> = RESIDENT.with(|r| {
        let mut r = r.borrow_mut();
        r.listeners.retain(|l| l.strong_count() > 0);
        r.listeners.iter().filter_map(Weak::upgrade).collect()
    });
    for listener in listeners {
        listener(&reply);
    }
}

/// A report from the module (`crate::message`).
fn report_of(data: &JsValue) -> Option<Reply> {
    crate::message::from_js(data).map(|(message, bytes)| Reply::Report { message, bytes })
}

/// The module is up: `link` replaces the starting one and takes the commands that waited, in order.
fn flush(link: Link) {
    let queue = RESIDENT.with(|r| match std::mem::replace(&mut r.borrow_mut().link, link) {
        Link::Starting(queue) => queue,
        _ => Vec::new(),
    });
    for command in queue {
        RESIDENT.with(|r| post(&r.borrow().link, command));
    }
}

#[wasm_bindgen(inline_js = "export function import_module(url) { return import(url); }")]
extern "C" {
    /// `import(url)`: the worker's module, on this thread.
    fn import_module(url: &str) -> js_sys::Promise;
}

/// The module worker, from a Blob bootstrap: it imports the module, wires `connect` and
/// `receive`, and says "ready" (or why it could not).
fn start_worker(js: &str, wasm: &str) -> Result<(), JsValue> {
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let boot = format!(
        "import init,{{connect,receive}} from {js};\
         init({{module_or_path:{wasm}}}).then(()=>{{connect((d)=>postMessage(d));onmessage=(e)=>receive(e.data);postMessage('ready');}},(e)=>postMessage('failed:'+e));",
        js = quote(js),
        wasm = quote(wasm)
    );
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("text/javascript");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&js_sys::Array::of1(&boot.into()), &options)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(&url, &options)?;
    let (js_owned, wasm_owned) = (js.to_string(), wasm.to_string());
    let worker_for_messages = worker.clone();
    let on_message = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
        let Ok(event) = event.dyn_into::<web_sys::MessageEvent>() else { return };
        let data = event.data();
        match data.as_string().as_deref() {
            Some("ready") => flush(Link::Worker(worker_for_messages.clone())),
            Some(s) if s.starts_with("failed:") => {
                worker_for_messages.terminate();
                start_on_main_thread(&js_owned, &wasm_owned);
            }
            _ => {
                if let Some(reply) = report_of(&data) {
                    deliver(reply);
                }
            }
        }
    });
    let worker_for_errors = worker.clone();
    let (js_owned, wasm_owned) = (js.to_string(), wasm.to_string());
    let on_error = Closure::<dyn FnMut(JsValue)>::new(move |event: JsValue| {
        let message = event.dyn_ref::<web_sys::ErrorEvent>().map(|e| e.message()).unwrap_or_default();
        worker_for_errors.terminate();
        let starting = RESIDENT.with(|r| matches!(r.borrow().link, Link::Starting(_)));
        if starting {
            // It never ran: the module goes to the main thread.
            start_on_main_thread(&js_owned, &wasm_owned);
        } else {
            dom::log_warn(&format!("atencao: o worker da página parou ({message}); um novo começa no próximo pedido"));
            RESIDENT.with(|r| r.borrow_mut().link = Link::Down);
            deliver(Reply::Crashed(message));
        }
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    keep_handlers(vec![on_message, on_error]);
    Ok(())
}

/// The module on this thread: imported, then the same `connect` and `receive`.
fn start_on_main_thread(js: &str, wasm: &str) {
    RESIDENT.with(|r| r.borrow_mut().on_main_thread = true);
    let (js, wasm) = (js.to_string(), wasm.to_string());
    wasm_bindgen_futures::spawn_local(async move {
        let failed = |why: String| {
            RESIDENT.with(|r| r.borrow_mut().link = Link::Down);
            deliver(Reply::Crashed(why));
        };
        let module = match wasm_bindgen_futures::JsFuture::from(import_module(&js)).await {
            Ok(module) => module,
            Err(e) => return failed(format!("o módulo do worker não carregou: {}", js_sys::JSON::stringify(&e).ok().and_then(|s| s.as_string()).unwrap_or_default())),
        };
        let get = |name: &str| js_sys::Reflect::get(&module, &name.into()).ok().and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        let (Some(init), Some(connect), Some(receive)) = (get("default"), get("connect"), get("receive")) else { return failed("o módulo do worker está incompleto".into()) };
        let options = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&options, &"module_or_path".into(), &wasm.into());
        let ready = init.call1(&JsValue::NULL, &options).ok().and_then(|p| p.dyn_into::<js_sys::Promise>().ok());
        let Some(ready) = ready else { return failed("o módulo do worker não iniciou".into()) };
        if wasm_bindgen_futures::JsFuture::from(ready).await.is_err() {
            return failed("o módulo do worker não iniciou".into());
        }
        // Replies arrive later, never inside the module's own call.
        let reply = Closure::<dyn FnMut(JsValue)>::new(move |data: JsValue| {
            wasm_bindgen_futures::spawn_local(async move {
                if let Some(reply) = report_of(&data) {
                    deliver(reply);
                }
            });
        });
        let _ = connect.call1(&JsValue::NULL, reply.as_ref());
        keep_handlers(vec![reply]);
        flush(Link::MainThread(receive));
    });
}
