//! Which backend computes: WebGPU when an adapter and a device are obtained, else the CPU.
//!
//! The reader can force the CPU (footer switch, remembered in localStorage; `?backend=cpu`
//! in the URL forces it too). A lost GPU device switches to the CPU and the job reruns
//! there, without a reload. `<html data-backend>` and the footer badge follow.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;

use crate::core::error::{ComputeError, Result};
use crate::core::executor::{BackendKind, Cpu, Job};
use crate::core::trace::{run_traced, Trace};
use crate::gpu::GpuContext;

use super::dom;
use super::widgets::Ctx;

const STORAGE_KEY: &str = "atencao.backend";

thread_local! {
    /// The page's backend, for the memory readout (`web::memory_report`); one per page.
    static CURRENT: RefCell<std::rc::Weak<Backend>> = const { RefCell::new(std::rc::Weak::new()) };
}

/// The page's backend, if one was started.
pub fn current() -> Option<Rc<Backend>> {
    CURRENT.with(|c| c.borrow().upgrade())
}

pub struct Backend {
    gpu: RefCell<Option<Rc<GpuContext>>>,
    forced_cpu: Cell<bool>,
    /// Why we are on the CPU (shown as the badge's tooltip), or the adapter's name.
    note: RefCell<String>,
    /// The site shows the backend on `<html>` and in its footer; a page that embeds widgets
    /// is not ours to touch (each widget says where it computed).
    publish_to_page: bool,
    /// A device opened only to compare with ("comparar com WebGPU" while the CPU is forced),
    /// or why none could be opened.
    spare_gpu: RefCell<Option<std::result::Result<Rc<GpuContext>, String>>>,
}

/// `performance.now()` in ms (the tracer's clock), 0 where there is none.
pub fn now_ms() -> f64 {
    dom::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

fn url_forces_cpu() -> bool {
    dom::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|search| web_sys::UrlSearchParams::new_with_str(&search).ok())
        .and_then(|params| params.get("backend"))
        .is_some_and(|v| v == "cpu")
}

fn stored_forces_cpu() -> bool {
    dom::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item(STORAGE_KEY).ok().flatten())
        .is_some_and(|v| v == "cpu")
}

impl Backend {
    pub async fn init() -> Rc<Backend> {
        Backend::init_with(true).await
    }

    /// The backend of widgets embedded in another page: same choice, nothing written to the page.
    pub async fn init_embedded() -> Rc<Backend> {
        Backend::init_with(false).await
    }

    async fn init_with(publish_to_page: bool) -> Rc<Backend> {
        let backend = Rc::new(Backend {
            gpu: RefCell::new(None),
            forced_cpu: Cell::new(url_forces_cpu() || stored_forces_cpu()),
            note: RefCell::new(String::new()),
            publish_to_page,
            spare_gpu: RefCell::new(None),
        });
        backend.refresh().await;
        CURRENT.with(|c| *c.borrow_mut() = Rc::downgrade(&backend));
        backend
    }

    /// Opens or drops the GPU according to the forced-CPU setting, then publishes.
    async fn refresh(&self) {
        if self.forced_cpu.get() {
            self.gpu.borrow_mut().take();
            *self.note.borrow_mut() = "CPU escolhida pelo leitor".into();
        } else if self.gpu.borrow().is_none() {
            // A device opened for a comparison serves as the site's device.
            if let Some(Ok(spare)) = self.spare_gpu.borrow_mut().take() {
                *self.note.borrow_mut() = spare.adapter_name().to_string();
                *self.gpu.borrow_mut() = Some(spare);
                self.publish();
                return;
            }
            match GpuContext::acquire().await {
                Ok(gpu) => {
                    *self.note.borrow_mut() = gpu.adapter_name().to_string();
                    *self.gpu.borrow_mut() = Some(Rc::new(gpu));
                }
                Err(why) => {
                    *self.note.borrow_mut() = format!("WebGPU indisponível: {why}");
                    *self.spare_gpu.borrow_mut() = Some(Err(why.to_string()));
                }
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

    pub fn forced_cpu(&self) -> bool {
        self.forced_cpu.get()
    }

    /// Switches the forced-CPU setting, remembers it, and reacquires the GPU if released.
    pub async fn set_forced_cpu(&self, forced: bool) {
        self.forced_cpu.set(forced);
        if let Some(storage) = dom::window().and_then(|w| w.local_storage().ok().flatten()) {
            let _ = if forced { storage.set_item(STORAGE_KEY, "cpu") } else { storage.remove_item(STORAGE_KEY) };
        }
        self.refresh().await;
    }

    /// Runs `job` on the active backend. A GPU failure reruns it on the CPU; a lost
    /// device also switches the whole site to the CPU.
    pub async fn run<J: Job>(&self, job: &J) -> Result<(J::Output, BackendKind)> {
        let (out, trace) = self.run_traced(job).await?;
        Ok((out, trace.backend))
    }

    /// `run`, with every op the job ran recorded (the "por dentro" panel shows them).
    pub async fn run_traced<J: Job>(&self, job: &J) -> Result<(J::Output, Trace)> {
        let gpu = self.gpu.borrow().clone();
        if let Some(gpu) = gpu {
            match run_traced(job, &*gpu, &now_ms).await {
                Ok(done) => return Ok(done),
                Err(e) if e.is_gpu_failure() => self.gpu_failed(&e),
                Err(e) => return Err(e),
            }
        }
        run_traced(job, &Cpu, &now_ms).await
    }

    /// Runs `job` on exactly `kind`, with no fallback (to compare backends). WebGPU uses the
    /// site's device, or one opened for comparing while the reader forces the CPU.
    pub async fn run_traced_on<J: Job>(&self, job: &J, kind: BackendKind) -> Result<(J::Output, Trace)> {
        match kind {
            BackendKind::Cpu => run_traced(job, &Cpu, &now_ms).await,
            BackendKind::WebGpu => {
                let gpu = self.comparison_gpu().await.map_err(ComputeError::Gpu)?;
                let result = run_traced(job, &*gpu, &now_ms).await;
                if gpu.lost_reason().is_some() {
                    self.spare_gpu.borrow_mut().take();
                }
                result
            }
        }
    }

    /// The device to compare on: the site's, else one opened now (remembered, as is the
    /// reason when none can be opened).
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

    /// Takes note of a GPU failure the caller will redo on the CPU: a lost device switches
    /// the whole site to the CPU (badge included); other GPU errors only skip this computation.
    pub fn gpu_failed(&self, error: &ComputeError) {
        match error {
            ComputeError::DeviceLost(why) => {
                dom::log_warn(&format!("atencao: GPU perdida ({why}); passando para a CPU"));
                self.gpu.borrow_mut().take();
                *self.note.borrow_mut() = format!("a GPU foi perdida: {why}");
                self.publish();
            }
            e => dom::log_warn(&format!("atencao: {e}; este cálculo vai para a CPU")),
        }
    }

    /// The GPU context, if any (tests and the device-loss drill use it).
    pub fn gpu(&self) -> Option<Rc<GpuContext>> {
        self.gpu.borrow().clone()
    }

    /// Reflects the state on `<html data-backend>`, the badge and the switch.
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
            dom::set_attr(&badge, "title", &self.note.borrow());
            dom::set_attr(&badge, "data-kind", kind.attr());
        }
        if let Some(switch) = document.get_element_by_id("force-cpu").and_then(|e| e.dyn_into::<HtmlInputElement>().ok()) {
            switch.set_checked(self.forced_cpu.get());
        }
    }
}

/// Wires the footer's "forçar CPU" switch: flips the backend and recomputes every widget.
pub fn attach_switch(ctx: &Rc<Ctx>) {
    let Some(switch) = dom::document().and_then(|d| d.get_element_by_id("force-cpu")) else { return };
    let ctx_for_handler = ctx.clone();
    let listener = dom::Listener::new(&switch, "change", move |event| {
        let Some(input) = event.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else { return };
        let ctx = ctx_for_handler.clone();
        wasm_bindgen_futures::spawn_local(async move {
            ctx.backend.set_forced_cpu(input.checked()).await;
            ctx.recompute_all();
        });
    });
    ctx.keep_document_listener(listener);
}
