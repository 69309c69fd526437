//! Which backend computes, and why: the one place that decides.
//!
//! Automatic choice: WebGPU when the browser gives an adapter and a device that are real
//! hardware; a software adapter (SwiftShader, llvmpipe: `isFallbackAdapter` or its name) is
//! slower than the site's own CPU path, so the site computes on the CPU and the footer says why
//! ("WebGPU por software: a CPU é mais rápida aqui"). The reader can choose (the footer's
//! select, remembered in localStorage) and `?backend=cpu|webgpu` in the URL chooses too; a
//! chosen WebGPU is used even when it is software. A lost GPU device switches the site to the
//! CPU and the job reruns there, without a reload. `<html data-backend>`, the footer badge and
//! its note follow.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::HtmlSelectElement;

use crate::core::error::ComputeError;
use crate::core::executor::BackendKind;
#[cfg(feature = "page-compute")]
use crate::core::{
    error::Result,
    executor::Job,
    runtime::{run_job, Placed, Runtime},
    trace::{run_traced, run_traced_with_results, Trace},
};
#[cfg(feature = "page-compute")]
use crate::gpu::GpuTensor;

/// What the page holds of WebGPU: a device its widgets compute on where they compute on the
/// page (article and model widgets), else only what the browser said of its adapter (the
/// resident build's pages, whose models run in their worker: `gpu::probe`).
#[cfg(feature = "page-compute")]
pub type GpuContext = crate::gpu::GpuContext;
#[cfg(not(feature = "page-compute"))]
pub type GpuContext = crate::gpu::probe::AdapterProbe;

use crate::web::dom;
use super::kit::Ctx;

const STORAGE_KEY: &str = "atencao.backend";

/// The site's GPU (a widget that keeps work on it holds one).
pub type Gpu = Rc<GpuContext>;
/// A tensor of the site's runtime: on the CPU or on its GPU (`core::runtime`).
#[cfg(feature = "page-compute")]
pub type Tensor = Placed<GpuTensor>;

/// The runtime over `gpu`, or the CPU: what the page's jobs compute on.
#[cfg(feature = "page-compute")]
pub fn runtime(gpu: Option<&Gpu>) -> Runtime<'_, GpuContext> {
    gpu.map_or(Runtime::Cpu, |g| Runtime::Device(&**g))
}

thread_local! {
    /// The page's backend, for the memory readout (`web::memory_report`); one per page.
    static CURRENT: RefCell<std::rc::Weak<Backend>> = const { RefCell::new(std::rc::Weak::new()) };
}

/// The page's backend, if one was started.
pub fn current() -> Option<Rc<Backend>> {
    CURRENT.with(|c| c.borrow().upgrade())
}

/// What the reader (or the URL) asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preference {
    /// WebGPU on real hardware, the CPU otherwise.
    Auto,
    Cpu,
    /// WebGPU whenever there is an adapter, software included.
    WebGpu,
}

impl Preference {
    fn parse(value: &str) -> Option<Preference> {
        match value {
            "cpu" => Some(Preference::Cpu),
            "webgpu" => Some(Preference::WebGpu),
            "auto" => Some(Preference::Auto),
            _ => None,
        }
    }

    fn attr(self) -> &'static str {
        match self {
            Preference::Auto => "auto",
            Preference::Cpu => "cpu",
            Preference::WebGpu => "webgpu",
        }
    }
}

pub struct Backend {
    gpu: RefCell<Option<Rc<GpuContext>>>,
    preference: std::cell::Cell<Preference>,
    /// Set by `?backend=`: the address decides, and the choice is not stored.
    from_url: bool,
    /// Why we compute where we do (shown beside the badge), or the adapter's name.
    note: RefCell<String>,
    /// Whether the note is a reason to show in the footer (not just the adapter's name).
    note_visible: std::cell::Cell<bool>,
    /// The site shows the backend on `<html>` and in its footer; a page that embeds widgets
    /// is not ours to touch (each widget says where it computed).
    publish_to_page: bool,
    /// A device opened but not used by the site (a software adapter, or one opened only to
    /// compare with while the CPU computes), or why none could be opened.
    spare_gpu: RefCell<Option<std::result::Result<Rc<GpuContext>, String>>>,
}

/// `performance.now()` in ms (the tracer's clock), 0 where there is none.
pub fn now_ms() -> f64 {
    dom::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

fn url_preference() -> Option<Preference> {
    dom::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|search| web_sys::UrlSearchParams::new_with_str(&search).ok())
        .and_then(|params| params.get("backend"))
        .and_then(|v| Preference::parse(&v))
}

fn stored_preference() -> Option<Preference> {
    dom::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
        .and_then(|v| Preference::parse(&v))
}

/// The footer's reason for a software adapter left aside.
pub const SOFTWARE_NOTE: &str = "WebGPU por software: a CPU é mais rápida aqui";

impl Backend {
    pub async fn init() -> Rc<Backend> {
        Backend::init_with(true, None).await
    }

    /// The backend of widgets embedded in another page: same choice, nothing written to the page.
    pub async fn init_embedded() -> Rc<Backend> {
        Backend::init_with(false, None).await
    }

    /// The site's backend with `preference` decided in advance, as `?backend=` does (tests that
    /// exercise WebGPU on a software adapter force it this way).
    pub async fn init_choosing(preference: Preference) -> Rc<Backend> {
        Backend::init_with(true, Some(preference)).await
    }

    async fn init_with(publish_to_page: bool, forced: Option<Preference>) -> Rc<Backend> {
        let from_url = forced.or_else(url_preference);
        let backend = Rc::new(Backend {
            gpu: RefCell::new(None),
            preference: std::cell::Cell::new(from_url.or_else(stored_preference).unwrap_or(Preference::Auto)),
            from_url: from_url.is_some(),
            note: RefCell::new(String::new()),
            note_visible: std::cell::Cell::new(false),
            publish_to_page,
            spare_gpu: RefCell::new(None),
        });
        backend.refresh().await;
        CURRENT.with(|c| *c.borrow_mut() = Rc::downgrade(&backend));
        backend
    }

    fn set_note(&self, text: String, visible: bool) {
        *self.note.borrow_mut() = text;
        self.note_visible.set(visible);
    }

    /// A device: the one kept aside if any, else a new one (remembered either way).
    async fn open_gpu(&self) -> std::result::Result<Rc<GpuContext>, String> {
        if let Some(known) = self.spare_gpu.borrow_mut().take() {
            if known.as_ref().map_or(true, |g| g.lost_reason().is_none()) {
                return known;
            }
        }
        GpuContext::acquire().await.map(Rc::new).map_err(|why| why.to_string())
    }

    /// Opens or drops the GPU according to the preference, then publishes.
    async fn refresh(&self) {
        let preference = self.preference.get();
        if preference == Preference::Cpu {
            if let Some(gpu) = self.gpu.borrow_mut().take() {
                *self.spare_gpu.borrow_mut() = Some(Ok(gpu));
            }
            self.set_note("CPU escolhida pelo leitor".into(), true);
            self.publish();
            return;
        }
        let current = self.gpu.borrow().clone();
        let opened = match current {
            Some(gpu) => Ok(gpu),
            None => self.open_gpu().await,
        };
        match opened {
            Ok(gpu) if gpu.facts().software && preference == Preference::Auto => {
                self.gpu.borrow_mut().take();
                self.set_note(format!("{SOFTWARE_NOTE} ({})", gpu.adapter_name()), true);
                *self.spare_gpu.borrow_mut() = Some(Ok(gpu));
            }
            Ok(gpu) => {
                let chosen = preference == Preference::WebGpu;
                let name = gpu.adapter_name().to_string();
                self.set_note(if chosen { format!("WebGPU escolhido pelo leitor ({name})") } else { name }, chosen);
                *self.gpu.borrow_mut() = Some(gpu);
            }
            Err(why) => {
                self.set_note(format!("WebGPU indisponível: {why}"), preference == Preference::WebGpu);
                *self.spare_gpu.borrow_mut() = Some(Err(why));
            }
        }
        self.publish();
    }

    pub fn kind(&self) -> BackendKind {
        if self.gpu.borrow().is_some() {
            BackendKind::WebGpu
        } else {
            BackendKind::Cpu
        }
    }

    pub fn preference(&self) -> Preference {
        self.preference.get()
    }

    /// Why the site computes where it does (the badge's tooltip and the footer's note).
    pub fn note(&self) -> String {
        self.note.borrow().clone()
    }

    /// Sets the preference, remembers it (unless the URL decides), and reacquires the GPU if needed.
    pub async fn set_preference(&self, preference: Preference) {
        self.preference.set(preference);
        if !self.from_url {
            if let Some(storage) = dom::window().and_then(|w| w.local_storage().ok().flatten()) {
                let _ = match preference {
                    Preference::Auto => storage.remove_item(STORAGE_KEY),
                    other => storage.set_item(STORAGE_KEY, other.attr()),
                };
            }
        }
        self.refresh().await;
    }

    #[cfg(feature = "page-compute")]
    /// Runs `job` on the active backend. A GPU failure reruns it on the CPU; a lost
    /// device also switches the whole site to the CPU.
    pub async fn run<J: Job>(&self, job: &J) -> Result<(J::Output, BackendKind)> {
        let (out, trace) = self.run_traced(job).await?;
        Ok((out, trace.backend))
    }

    #[cfg(feature = "page-compute")]
    /// `run`, with every op the job ran recorded (the "por dentro" panel shows them). Jobs run
    /// on the site's runtime, so each is compiled once for both sides, under core's fallback.
    pub async fn run_traced<J: Job>(&self, job: &J) -> Result<(J::Output, Trace)> {
        let gpu = self.gpu.borrow().clone();
        run_job(job, &runtime(gpu.as_ref()), &now_ms, &self.on_gpu_failure()).await
    }

    #[cfg(feature = "page-compute")]
    /// Runs `job` on exactly `kind`, with no fallback (to compare backends), with every op's
    /// results when `with_results`. WebGPU uses the site's device, or one kept aside (a software
    /// adapter, or one opened for comparing while the CPU computes).
    pub async fn run_traced_on<J: Job>(&self, job: &J, kind: BackendKind, with_results: bool) -> Result<(J::Output, Trace)> {
        let run = |gpu: Option<Rc<GpuContext>>| async move {
            let rt = runtime(gpu.as_ref());
            match with_results {
                false => run_traced(job, &rt, &now_ms).await,
                true => run_traced_with_results(job, &rt, &now_ms).await,
            }
        };
        match kind {
            BackendKind::Cpu => run(None).await,
            BackendKind::WebGpu => {
                let gpu = self.comparison_gpu().await.map_err(ComputeError::Gpu)?;
                let result = run(Some(gpu.clone())).await;
                if gpu.lost_reason().is_some() {
                    self.spare_gpu.borrow_mut().take();
                }
                result
            }
        }
    }

    #[cfg(feature = "page-compute")]
    /// The device to compare on: the site's, else one kept aside or opened now (remembered,
    /// as is the reason when none can be opened).
    pub async fn comparison_gpu(&self) -> std::result::Result<Rc<GpuContext>, String> {
        if let Some(gpu) = self.gpu() {
            return Ok(gpu);
        }
        let known = self.spare_gpu.borrow().clone();
        if let Some(known) = known {
            return known;
        }
        let opened = GpuContext::acquire().await.map(Rc::new).map_err(|why| why.to_string());
        *self.spare_gpu.borrow_mut() = Some(opened.clone());
        opened
    }

    /// Why no WebGPU device can be had, once an attempt failed (`None` if one may still open).
    pub fn webgpu_unavailable(&self) -> Option<String> {
        if self.gpu.borrow().is_some() {
            return None;
        }
        match &*self.spare_gpu.borrow() {
            Some(Err(why)) => Some(why.clone()),
            _ => None,
        }
    }

    #[cfg(feature = "page-compute")]
    /// `gpu_failed` as one callback type for every job (a closure per job type would be
    /// compiled once per job).
    fn on_gpu_failure(&self) -> impl Fn(&ComputeError) + '_ {
        move |e| self.gpu_failed(e)
    }

    /// Takes note of a GPU failure the caller will redo on the CPU: a lost device switches
    /// the whole site to the CPU (badge included); other GPU errors only skip this computation.
    pub fn gpu_failed(&self, error: &ComputeError) {
        match error {
            ComputeError::DeviceLost(why) => {
                dom::log_warn(&format!("atencao: GPU perdida ({why}); passando para a CPU"));
                self.gpu.borrow_mut().take();
                self.set_note(format!("a GPU foi perdida: {why}"), true);
                self.publish();
            }
            e => dom::log_warn(&format!("atencao: {e}; este cálculo vai para a CPU")),
        }
    }

    /// The GPU context, if any (tests and the device-loss drill use it).
    pub fn gpu(&self) -> Option<Rc<GpuContext>> {
        self.gpu.borrow().clone()
    }

    /// Reflects the state on `<html data-backend>`, the badge, its note and the select.
    fn publish(&self) {
        if !self.publish_to_page {
            return;
        }
        let Some(document) = dom::document() else { return };
        let kind = self.kind();
        if let Some(root) = document.document_element() {
            dom::set_attr(&root, "data-backend", kind.attr());
        }
        if let Some(badge) = document.get_element_by_id("backend-badge") {
            badge.set_text_content(Some(kind.label()));
            dom::set_attrs(&badge, &[("title", &self.note.borrow()), ("data-kind", kind.attr())]);
        }
        if let Some(note) = document.get_element_by_id("backend-note") {
            let text = if self.note_visible.get() { self.note.borrow().clone() } else { String::new() };
            note.set_text_content(Some(&text));
        }
        if let Some(select) = document.get_element_by_id("backend-choice").and_then(|e| e.dyn_into::<HtmlSelectElement>().ok()) {
            select.set_value(self.preference.get().attr());
        }
    }
}

/// Wires the footer's backend select: sets the preference and recomputes every widget.
pub fn attach_switch(ctx: &Rc<Ctx>) {
    let Some(select) = dom::document().and_then(|d| d.get_element_by_id("backend-choice")) else { return };
    let ctx_for_handler = ctx.clone();
    let listener = dom::Listener::new(&select, "change", move |event| {
        let Some(select) = event.target().and_then(|t| t.dyn_into::<HtmlSelectElement>().ok()) else { return };
        let Some(preference) = Preference::parse(&select.value()) else { return };
        let ctx = ctx_for_handler.clone();
        wasm_bindgen_futures::spawn_local(async move {
            ctx.backend.set_preference(preference).await;
            ctx.recompute_all();
        });
    });
    ctx.keep_document_listener(listener);
}
