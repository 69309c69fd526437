//! "por dentro": the under-the-hood panel of every widget that computes on the backend.
//!
//! Widgets run their jobs through `kit::update` (instead of `Backend::run`): the job runs
//! traced (`core::trace`), and a closed `<details class="hood">` at the bottom of the widget
//! lists the ops of its last update in order, with shapes, parameters and times, the WGSL
//! source of each kernel (the very string the GPU compiles, highlighted), and a button that
//! reruns the same jobs on both backends and shows both times and the largest difference.
//!
//! The panel renders only while open; an update while closed just refreshes its summary.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use web_sys::{HtmlButtonElement, HtmlDetailsElement, HtmlElement};
use wasm_bindgen::JsCast;

use crate::core::error::{ComputeError, Result};
use crate::core::executor::BackendKind;
#[cfg(feature = "page-compute")]
use crate::core::executor::Job;
use crate::core::format::format_pt;
use crate::core::trace::{compare, format_scientific, OpRecord, Trace};
use crate::gpu::KernelId;
use crate::site::wgsl_highlight::{highlight, without_comments};
use crate::web::backend::{now_ms, Backend};
use crate::web::dom::{self, Listener};
use super::Ctx;

/// The panel of one update of a widget: what `kit::update` records each job's trace into.
pub struct PanelUpdate {
    panel: Rc<Panel>,
    update: u64,
    new_update: bool,
}

/// Begins a new update of the widget at `host` (its ops replace the panel's), or, with
/// `new_update` false, continues the current one (a widget that runs several jobs per update).
pub fn begin(host: &HtmlElement, ctx: &Ctx, new_update: bool) -> PanelUpdate {
    let panel = Panel::of(host, ctx);
    let update = if new_update { panel.begin() } else { panel.update.get() };
    PanelUpdate { panel, update, new_update }
}

impl PanelUpdate {
    #[cfg(feature = "page-compute")]
    /// A job of this update ran: its trace joins the panel (unless a newer update began);
    /// `job` is what "comparar" reruns on both backends.
    pub fn record<J: Job + 'static>(&self, job: Rc<J>, trace: Trace) {
        self.panel.record(self.update, self.new_update, Rc::new(JobRerun(job)), trace);
    }

    /// The same for a pass that reruns itself (one the page's worker ran).
    pub fn record_rerun(&self, rerun: Rc<dyn Rerun>, trace: Trace) {
        self.panel.record(self.update, self.new_update, rerun, trace);
    }

    /// The update failed: the panel says why.
    pub fn failed(&self, error: &ComputeError) {
        self.panel.failed(self.update, error);
    }
}

/// A job kept to be run again for the comparison, whatever its output type (or a pass run in
/// the page's worker, run again there).
pub trait Rerun {
    fn run_on(&self, backend: Rc<Backend>, kind: BackendKind, with_results: bool) -> Pin<Box<dyn Future<Output = Result<Trace>>>>;
}

#[cfg(feature = "page-compute")]
struct JobRerun<J>(Rc<J>);

#[cfg(feature = "page-compute")]
impl<J: Job + 'static> Rerun for JobRerun<J> {
    fn run_on(&self, backend: Rc<Backend>, kind: BackendKind, with_results: bool) -> Pin<Box<dyn Future<Output = Result<Trace>>>> {
        let job = self.0.clone();
        Box::pin(async move { backend.run_traced_on(&*job, kind, with_results).await.map(|(_, trace)| trace) })
    }
}

thread_local! {
    /// The panels of the widgets on the page (pruned when their widget leaves the document).
    static PANELS: RefCell<Vec<Rc<Panel>>> = const { RefCell::new(Vec::new()) };
}

struct Panel {
    host: HtmlElement,
    backend: Rc<Backend>,
    root: HtmlDetailsElement,
    summary: HtmlElement,
    /// The op list and the kernels' sources (rebuilt while open).
    content: HtmlElement,
    compare_button: HtmlButtonElement,
    compare_out: HtmlElement,
    /// Bumped by every new update: results of an older one are dropped.
    update: Cell<u64>,
    /// The last update's jobs and their traces, in order.
    jobs: RefCell<Vec<(Rc<dyn Rerun>, Trace)>>,
    failure: RefCell<Option<String>>,
    /// The content shows an older update (rebuilt when opened).
    stale: Cell<bool>,
    comparing: Cell<bool>,
    /// Timing was just turned on and the update is running again to be timed.
    timing_pending: Cell<bool>,
    /// Each kernel's highlighted source, built once.
    sources: RefCell<HashMap<KernelId, HtmlElement>>,
    /// Where the site serves the kernels' files with their comments (`static/shaders/`).
    shaders_url: String,
    listeners: RefCell<Vec<Listener>>,
}

/// `data-group` / `data-kernel` of the open `<details>` under `root`.
fn open_keys(root: &HtmlElement) -> Vec<String> {
    let Ok(open) = root.query_selector_all("details[open]") else { return Vec::new() };
    (0..open.length())
        .filter_map(|i| open.item(i).and_then(|n| n.dyn_into::<web_sys::Element>().ok()))
        .filter_map(|d| d.get_attribute("data-group").or_else(|| d.get_attribute("data-kernel")))
        .collect()
}

impl Panel {
    /// The panel of the widget at `host`, created at the widget's end on first use.
    fn of(host: &HtmlElement, ctx: &Ctx) -> Rc<Panel> {
        PANELS.with(|panels| {
            let mut panels = panels.borrow_mut();
            panels.retain(|p| p.host.is_connected());
            if let Some(found) = panels.iter().find(|p| p.host.is_same_node(Some(host)) && p.root.is_connected()) {
                return found.clone();
            }
            let panel = Panel::build(host, &ctx.backend, ctx.asset_url(SHADERS));
            panels.push(panel.clone());
            panel
        })
    }

    fn build(host: &HtmlElement, backend: &Rc<Backend>, shaders_url: String) -> Rc<Panel> {
        let root = dom::el("details", "hood").unchecked_into::<HtmlDetailsElement>();
        dom::set_attr(&root, "data-hood", "");
        let summary = dom::text("summary", "", "por dentro");
        dom::append(&root, &summary);
        let content = dom::el("div", "hood-content");
        dom::append(&root, &content);
        let compare_box = dom::el("div", "hood-compare");
        let compare_button = super::ui::button("comparar", "hood-compare").unchecked_into::<HtmlButtonElement>();
        dom::append(&compare_box, &compare_button);
        let compare_out = super::ui::live("div", "hood-compare-out");
        dom::append(&compare_box, &compare_out);
        dom::append(&root, &compare_box);
        dom::append(host, &root);
        let panel = Rc::new(Panel {
            host: host.clone(),
            backend: backend.clone(),
            root,
            summary,
            content,
            compare_button,
            compare_out,
            update: Cell::new(0),
            jobs: RefCell::new(Vec::new()),
            failure: RefCell::new(None),
            stale: Cell::new(true),
            comparing: Cell::new(false),
            timing_pending: Cell::new(false),
            sources: RefCell::new(HashMap::new()),
            shaders_url,
            listeners: RefCell::new(Vec::new()),
        });
        let on_toggle = super::listen(&panel, &panel.root, "toggle", |panel, _| {
            if panel.root.open() && panel.stale.get() {
                panel.render();
            }
            #[cfg(feature = "page-compute")]
            if panel.root.open() {
                wasm_bindgen_futures::spawn_local(panel.clone().retime());
            }
        });
        let on_compare = super::listen(&panel, &panel.compare_button, "click", |panel, _| wasm_bindgen_futures::spawn_local(panel.clone().compare()));
        *panel.listeners.borrow_mut() = vec![on_toggle, on_compare];
        panel
    }

    #[cfg(feature = "page-compute")]
    /// Opened on WebGPU with a device that can time each kernel but is not doing so (timing
    /// costs something, so it starts with the first panel opened): turn timing on and run the
    /// update's jobs again, so the table shows each kernel's device time.
    async fn retime(self: Rc<Self>) {
        let Some(gpu) = self.backend.gpu() else { return };
        if !gpu.can_time_ops() || gpu.times_ops() || self.backend_of_update() != Some(BackendKind::WebGpu) {
            return;
        }
        gpu.set_op_timing(true);
        self.timing_pending.set(true);
        self.changed();
        let update = self.update.get();
        let jobs: Vec<Rc<dyn Rerun>> = self.jobs.borrow().iter().map(|(j, _)| j.clone()).collect();
        let mut traces = Vec::new();
        for job in &jobs {
            match job.run_on(self.backend.clone(), BackendKind::WebGpu, false).await {
                Ok(trace) => traces.push(trace),
                Err(_) => break,
            }
        }
        self.timing_pending.set(false);
        if update == self.update.get() && traces.len() == jobs.len() {
            *self.jobs.borrow_mut() = jobs.into_iter().zip(traces).collect();
        }
        self.changed();
    }

    fn begin(&self) -> u64 {
        let next = self.update.get() + 1;
        self.update.set(next);
        next
    }

    fn record(&self, update: u64, new_update: bool, job: Rc<dyn Rerun>, trace: Trace) {
        if update != self.update.get() {
            return;
        }
        {
            let mut jobs = self.jobs.borrow_mut();
            if new_update {
                jobs.clear();
            }
            jobs.push((job, trace));
        }
        self.failure.borrow_mut().take();
        self.changed();
    }

    fn failed(&self, update: u64, error: &ComputeError) {
        if update != self.update.get() {
            return;
        }
        self.jobs.borrow_mut().clear();
        *self.failure.borrow_mut() = Some(error.to_string());
        self.changed();
    }

    /// A new update arrived: new summary, old comparison gone, content rebuilt if visible.
    fn changed(&self) {
        self.summary.set_text_content(Some(&self.summary_text()));
        if !self.comparing.get() {
            self.compare_out.set_text_content(None);
        }
        self.sync_compare_button();
        self.stale.set(true);
        if self.root.open() {
            self.render();
        }
    }

    fn backend_of_update(&self) -> Option<BackendKind> {
        self.jobs.borrow().first().map(|(_, t)| t.backend)
    }

    fn summary_text(&self) -> String {
        let jobs = self.jobs.borrow();
        let Some(kind) = jobs.first().map(|(_, t)| t.backend) else { return "por dentro".into() };
        let ops: usize = jobs.iter().map(|(_, t)| t.ops.len()).sum();
        let ms: f64 = jobs.iter().map(|(_, t)| t.total_ms()).sum();
        format!("por dentro · {ops} {} em {} · {}", plural(ops, "operação", "operações"), kind.label(), op_ms(ms))
    }

    fn sync_compare_button(&self) {
        let button = &self.compare_button;
        let Some(active) = self.backend_of_update() else {
            button.set_disabled(true);
            button.set_text_content(Some("comparar"));
            return;
        };
        let other = other_backend(active);
        button.set_text_content(Some(&format!("comparar com {}", other.label())));
        dom::set_attr(button, "data-other", other.attr());
        let unavailable = if other == BackendKind::WebGpu { self.backend.webgpu_unavailable() } else { None };
        button.set_disabled(self.comparing.get() || unavailable.is_some());
        match &unavailable {
            Some(why) => dom::set_attr(button, "title", &format!("WebGPU indisponível neste navegador: {why}")),
            None => {
                let _ = button.remove_attribute("title");
            }
        }
        if let Some(why) = unavailable {
            if !self.comparing.get() && self.compare_out.child_element_count() == 0 {
                dom::append(&self.compare_out, &dom::text("p", "hood-unavailable", &format!("Não dá para comparar com WebGPU: {why}.")));
            }
        }
    }

    /// Rebuilds the op list and the kernel sources from the last update.
    fn render(&self) {
        self.stale.set(false);
        let content = &self.content;
        // Groups and sources the reader opened stay open across updates (the decoder's steps).
        let was_open = open_keys(content);
        content.set_text_content(None);
        if let Some(why) = self.failure.borrow().as_ref() {
            dom::append(content, &dom::text("p", "hood-note", &format!("A última atualização não terminou: {why}")));
            return;
        }
        let jobs = self.jobs.borrow();
        let Some(kind) = jobs.first().map(|(_, t)| t.backend) else {
            dom::append(content, &dom::text("p", "hood-note", "Ainda não houve cálculo."));
            return;
        };
        let ops: usize = jobs.iter().map(|(_, t)| t.ops.len()).sum();
        let submissions: usize = jobs.iter().map(|(_, t)| t.submissions).sum();
        let batched: Option<f64> = jobs.iter().map(|(_, t)| t.batched_ms).sum();
        let timed = jobs.iter().all(|(_, t)| t.timed_per_op());
        let note = match (kind, batched) {
            (BackendKind::WebGpu, Some(ms)) => {
                let sent = if submissions == 1 {
                    "num único envio à GPU (um command buffer) e uma só leitura de volta".to_string()
                } else {
                    format!("em {submissions} envios à GPU, cada um com uma leitura de volta")
                };
                let per_op = if self.timing_pending.get() {
                    "Medindo o tempo de cada kernel na GPU (timestamp queries): a atualização roda de novo…"
                } else if timed {
                    "O tempo de cada kernel na tabela foi medido pela própria GPU (timestamp queries);                      o navegador pode arredondá-lo para frações de ms."
                } else {
                    "Este adaptador não mede o tempo de cada kernel (não tem timestamp queries), então a tabela                      não reparte esse total entre as operações."
                };
                format!(
                    "A última atualização rodou {ops} {} em WebGPU {sent}: os dados ficam na memória da GPU de uma                      operação para a seguinte. Do primeiro envio à última leitura: {}. {per_op}",
                    plural(ops, "operação", "operações"),
                    avg_ms(ms)
                )
            }
            (BackendKind::WebGpu, None) => format!("A última atualização rodou {ops} {} em WebGPU.", plural(ops, "operação", "operações")),
            (BackendKind::Cpu, _) => format!(
                "A última atualização rodou {ops} {} na CPU (Rust compilado para WebAssembly), na ordem abaixo. \
                 Em WebGPU, cada uma seria uma chamada do kernel indicado, cujo código está mais abaixo, e todas \
                 iriam num só envio à GPU; o relógio do navegador tem resolução de cerca de 0,1 ms.",
                plural(ops, "operação", "operações")
            ),
        };
        dom::append(content, &dom::text("p", "hood-note", &note));

        let several_jobs = jobs.len() > 1;
        let mut index = 0;
        for (j, (_, trace)) in jobs.iter().enumerate() {
            for (stage, members) in trace.stages() {
                let records: Vec<(usize, &OpRecord)> = members.iter().map(|&i| (index + i, &trace.ops[i])).collect();
                let label = match (several_jobs, stage.as_deref()) {
                    (true, Some(s)) => Some(format!("cálculo {} · {s}", j + 1)),
                    (true, None) => Some(format!("cálculo {}", j + 1)),
                    (false, Some(s)) => Some(s.to_string()),
                    (false, None) => None,
                };
                let table = ops_table(&records, kind);
                match label {
                    Some(label) => {
                        let group = dom::el("details", "hood-stage");
                        dom::set_attr(&group, "data-group", &label);
                        let ms: f64 = records.iter().map(|(_, r)| r.ms).sum();
                        let n = records.len();
                        dom::append(&group, &dom::text("summary", "", &format!("{label} · {n} {} · {}", plural(n, "operação", "operações"), op_ms(ms))));
                        dom::append(&group, &table);
                        dom::append(content, &group);
                    }
                    None => dom::append(content, &table),
                }
            }
            index += trace.ops.len();
        }

        let mut kernels: Vec<KernelId> = Vec::new();
        for (_, trace) in jobs.iter() {
            for record in &trace.ops {
                if let Some(id) = kernel_of(record) {
                    if !kernels.contains(&id) {
                        kernels.push(id);
                    }
                }
            }
        }
        dom::append(content, &dom::text(&super::section_heading_tag(&self.host), "hood-heading", "Os kernels WGSL, exatamente como a GPU os recebe"));
        for id in kernels {
            let details = dom::el("details", "hood-kernel");
            dom::set_attr(&details, "data-kernel", id.name());
            dom::append(&details, &dom::text("summary", "", &kernel_summary(id)));
            let block = self.sources.borrow_mut().entry(id).or_insert_with(|| wgsl_block(id, &self.shaders_url)).clone();
            dom::append(&details, &block);
            dom::append(content, &details);
        }
        for key in was_open {
            if let Ok(Some(details)) = content.query_selector(&format!("details[data-group=\"{key}\"], details[data-kernel=\"{key}\"]")) {
                dom::set_attr(&details, "open", "");
            }
        }
    }

    /// Reruns the update's jobs on both backends (a warm-up, then enough runs to outlast the
    /// clock's resolution) and shows both times and the largest difference of the results.
    async fn compare(self: Rc<Self>) {
        let Some(active) = self.backend_of_update() else { return };
        if self.comparing.get() {
            return;
        }
        let update = self.update.get();
        let jobs: Vec<Rc<dyn Rerun>> = self.jobs.borrow().iter().map(|(j, _)| j.clone()).collect();
        self.comparing.set(true);
        self.compare_button.set_disabled(true);
        self.compare_out.set_text_content(None);
        dom::append(&self.compare_out, &dom::text("p", "hood-note", "Comparando…"));
        let other = other_backend(active);
        let outcome = async {
            let first = measure(&self.backend, &jobs, active).await?;
            let second = measure(&self.backend, &jobs, other).await?;
            let diff = compare(&first.trace, &second.trace)?;
            Ok::<_, ComputeError>((first, second, diff))
        }
        .await;
        self.comparing.set(false);
        self.compare_out.set_text_content(None);
        if self.update.get() != update {
            // The widget recomputed meanwhile: this comparison is of inputs no longer shown.
            self.sync_compare_button();
            return;
        }
        match outcome {
            Ok((first, second, diff)) => self.show_comparison(&first, &second, &diff),
            Err(error) => {
                let text = match (&error, other) {
                    (ComputeError::Gpu(why), BackendKind::WebGpu) => format!("Não dá para comparar com WebGPU: {why}."),
                    _ => format!("A comparação falhou: {error}"),
                };
                dom::append(&self.compare_out, &dom::text("p", "hood-unavailable", &text));
            }
        }
        self.sync_compare_button();
    }

    fn show_comparison(&self, first: &Measured, second: &Measured, diff: &crate::core::trace::Comparison) {
        let out = &self.compare_out;
        let worst = diff.worst.map(|i| {
            let op = first.trace.ops[i].op.name();
            format!(" (operação {}, {op})", i + 1)
        });
        let runs = |m: &Measured| if m.repeats > 1 { format!("média de {} execuções", m.repeats) } else { "uma execução".into() };
        dom::append(
            out,
            &dom::text(
                "p",
                "hood-note",
                &format!(
                    "As mesmas entradas, de novo nos dois backends, depois de uma execução de aquecimento: \
                     {} {} ({}), {} {} ({}). Maior diferença entre os resultados, em todas as operações: {}{}.",
                    first.trace.backend.label(),
                    avg_ms(first.per_run_ms),
                    runs(first),
                    second.trace.backend.label(),
                    avg_ms(second.per_run_ms),
                    runs(second),
                    format_scientific(diff.max_abs),
                    worst.unwrap_or_default()
                ),
            ),
        );
        let table = dom::el("table", "results");
        dom::set_attrs(&table, &[("data-results", "hood-compare"), ("data-max-diff", &diff.max_abs.to_string())]);
        dom::append(&table, &dom::text("caption", "", "Comparação (tempo por execução da atualização inteira)"));
        for m in [first, second] {
            let tr = dom::el("tr", "");
            dom::set_attrs(&tr, &[("data-backend", m.trace.backend.attr()), ("data-ms", &m.per_run_ms.to_string())]);
            dom::append_all(&tr, &[&dom::th(m.trace.backend.label(), "row"), &dom::text("td", "", &avg_ms(m.per_run_ms))]);
            dom::append(&table, &tr);
        }
        let tr = dom::el("tr", "");
        dom::set_attr(&tr, "data-row", "max-diff");
        dom::append_all(&tr, &[&dom::th("maior diferença |Δ|", "row"), &dom::text("td", "", &format_scientific(diff.max_abs))]);
        dom::append(&table, &tr);
        dom::append(out, &table);

        let per_op = dom::el("details", "hood-stage");
        dom::append(&per_op, &dom::text("summary", "", "por operação"));
        let t = dom::el("table", "hood-ops");
        dom::set_attr(&t, "data-hood", "compare-ops");
        let head = dom::el("tr", "");
        for h in ["#", "operação", first.trace.backend.label(), second.trace.backend.label(), "|Δ| máx."] {
            dom::append(&head, &dom::text("th", "", h));
        }
        dom::append(&t, &head);
        for (i, (a, b)) in first.trace.ops.iter().zip(&second.trace.ops).enumerate() {
            let tr = dom::el("tr", "");
            dom::set_attr(&tr, "data-op", a.op.name());
            for text in [(i + 1).to_string(), a.op.name().to_string(), op_ms(a.ms), op_ms(b.ms), format_scientific(diff.per_op[i])] {
                dom::append(&tr, &dom::text("td", "", &text));
            }
            dom::append(&t, &tr);
        }
        dom::append(&per_op, &t);
        dom::append(out, &per_op);
    }
}

/// One backend's rerun of an update.
struct Measured {
    /// Wall time of one run of all the update's jobs, averaged over `repeats`.
    per_run_ms: f64,
    repeats: usize,
    /// The ops of the last run (for the per-op times and the differences).
    trace: Trace,
}

/// Enough runs of the update for at least this long (the clock's resolution is ~0,1 ms).
const COMPARE_MIN_MS: f64 = 20.0;
const COMPARE_MAX_REPEATS: usize = 50;

async fn run_all(backend: &Rc<Backend>, jobs: &[Rc<dyn Rerun>], kind: BackendKind, with_results: bool) -> Result<Trace> {
    let mut all = Trace::new(kind);
    for job in jobs {
        all.extend(job.run_on(backend.clone(), kind, with_results).await?);
    }
    Ok(all)
}

/// A warm-up, timed runs, then one run that also reads every op's results back (for the
/// differences; reading them all would slow the timed runs, so those read only what they show).
async fn measure(backend: &Rc<Backend>, jobs: &[Rc<dyn Rerun>], kind: BackendKind) -> Result<Measured> {
    let start = now_ms();
    run_all(backend, jobs, kind, false).await?;
    let warmup = (now_ms() - start).max(0.01);
    let repeats = ((COMPARE_MIN_MS / warmup).ceil() as usize).clamp(1, COMPARE_MAX_REPEATS);
    let start = now_ms();
    for _ in 0..repeats {
        run_all(backend, jobs, kind, false).await?;
    }
    let per_run_ms = (now_ms() - start) / repeats as f64;
    let trace = run_all(backend, jobs, kind, true).await?;
    Ok(Measured { per_run_ms, repeats, trace })
}

fn other_backend(kind: BackendKind) -> BackendKind {
    match kind {
        BackendKind::WebGpu => BackendKind::Cpu,
        BackendKind::Cpu => BackendKind::WebGpu,
    }
}

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

/// One clock reading: below the browser's resolution it says so; "—" when not measured
/// (an op inside a batch).
pub fn op_ms(ms: f64) -> String {
    if ms.is_nan() {
        "—".into()
    } else if ms < 0.1 {
        "< 0,1 ms".into()
    } else {
        avg_ms(ms)
    }
}

/// An averaged time, with three significant digits or so.
pub fn avg_ms(ms: f64) -> String {
    format!("{} ms", ms_value(ms))
}

/// A time in ms without the unit, to about three significant digits: 288, 4,20, 0,0031.
pub fn ms_value(ms: f64) -> String {
    let decimals = if ms >= 100.0 {
        0
    } else if ms >= 10.0 {
        1
    } else if ms >= 1.0 {
        2
    } else if ms >= 0.01 {
        3
    } else {
        4
    };
    format_pt(ms as f32, decimals)
}

/// The rows of one group of ops.
fn ops_table(records: &[(usize, &OpRecord)], kind: BackendKind) -> HtmlElement {
    let table = dom::el("table", "hood-ops");
    dom::set_attr(&table, "data-hood", "ops");
    let time_header = format!("tempo ({})", kind.label());
    dom::append(&table, &dom::header_row(&["#", "operação", "kernel (GPU)", "função (CPU)", "entradas → saída", "parâmetros", &time_header]));
    for (i, record) in records {
        let kernel = kernel_of(record);
        let tr = dom::el("tr", "");
        dom::set_attrs(&tr, &[("data-op", record.op.name()), ("data-kernel", kernel.map_or("copia", KernelId::name))]);
        let join = |shapes: &[crate::core::trace::Shape]| shapes.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(" · ");
        let shapes = format!("{} → {}", join(&record.inputs), join(&record.outputs));
        dom::append(&tr, &dom::text("td", "", &(i + 1).to_string()));
        let op_cell = dom::el("td", "");
        let code = dom::text("code", "", record.op.name());
        dom::set_attr(&code, "title", record.op.contract());
        dom::append(&op_cell, &code);
        dom::append(&tr, &op_cell);
        for (text, col) in [
            (kernel.map_or_else(|| "cópia de buffer (sem kernel)".to_string(), |k| format!("{}.wgsl", k.name())), "kernel"),
            (record.op.cpu_function().to_string(), "cpu"),
            (shapes, "shapes"),
            (record.params.clone(), "params"),
            (op_ms(record.ms), "ms"),
        ] {
            let td = dom::text("td", "", &text);
            dom::set_attr(&td, "data-col", col);
            dom::append(&tr, &td);
        }
        dom::append(&table, &tr);
    }
    table
}

/// "softmax.wgsl · src/gpu/shaders/softmax.wgsl + shared_softmax.wgsl + shared_reductions.wgsl":
/// the file, then the shared files its source is composed with (after its `Params`), in order.
fn kernel_summary(id: KernelId) -> String {
    let mut text = format!("{}.wgsl · {}", id.name(), id.path());
    for shared in id.row().shared {
        text.push_str(" + ");
        text.push_str(shared.name);
        text.push_str(".wgsl");
    }
    text
}

/// Where the built site keeps the kernels' files as the repository has them (index.html copies
/// src/gpu/shaders/ there), relative to its root.
pub const SHADERS: &str = "static/shaders/";

/// The kernel's composed source, highlighted with spans of text:
/// `<pre class="wgsl" data-kernel=… data-shared=… data-source=…><code>`. At first the very
/// string the GPU compiles (its file, its `Params`, the shared files, without comments:
/// `data-source="compilado"`); then, once downloaded from `shaders_url` (the site's
/// `static/shaders/`, only when a reader opens a panel), the repository's files with their
/// comments, if each, stripped, gives exactly what was compiled (`data-source="arquivos"`).
pub fn wgsl_block(id: KernelId, shaders_url: &str) -> HtmlElement {
    let pre = dom::el("pre", "wgsl");
    let shared: Vec<&str> = id.row().shared.iter().map(|shared| shared.name).collect();
    // A build that compiles no kernel (`COMPILES_KERNELS`) has only the files to show.
    let compiled = crate::gpu::kernels::COMPILES_KERNELS;
    dom::set_attrs(&pre, &[("data-kernel", id.name()), ("data-shared", &shared.join(" ")), ("data-source", if compiled { "compilado" } else { "baixando" })]);
    let code = dom::el("code", "");
    if compiled {
        highlight_into(&code, &id.source());
    } else {
        code.set_text_content(Some("baixando os arquivos do kernel…"));
    }
    dom::append(&pre, &code);
    let (shown, base) = (pre.clone(), shaders_url.to_string());
    wasm_bindgen_futures::spawn_local(async move {
        match commented_source(id, &base).await {
            Some(commented) => {
                code.set_text_content(None);
                highlight_into(&code, &commented);
                dom::set_attr(&shown, "data-source", "arquivos");
            }
            None if !compiled => code.set_text_content(Some("Os arquivos deste kernel não puderam ser baixados (sem rede?).")),
            None => {}
        }
    });
    pre
}

/// The three kernels a product runs, each a `<details>` with when it runs and its source
/// (`KernelId::for_product`'s choice by size), for the compute page's benchmark: the widget
/// reads them here rather than from the GPU layer.
pub fn product_kernels(shaders_url: &str) -> Vec<HtmlElement> {
    let (small_to, blocked_from) = (crate::gpu::kernels::SMALL_MAX, crate::gpu::kernels::BLOCKED_MIN);
    [
        (KernelId::MatmulSmall, format!("n ≤ {small_to}")),
        (KernelId::Matmul, format!("{small_to} < n < {blocked_from}")),
        (KernelId::MatmulBlocked, format!("n ≥ {blocked_from}")),
    ]
    .into_iter()
    .map(|(id, when)| {
        let kernel = dom::el("details", "hood-kernel");
        dom::set_attr(&kernel, "data-kernel", id.name());
        dom::append_all(&kernel, &[&dom::text("summary", "", &format!("o kernel medido para {when}: {}", id.path())), &wgsl_block(id, shaders_url)]);
        kernel
    })
    .collect()
}

/// `source` as highlighted spans and text nodes in `code`.
fn highlight_into(code: &HtmlElement, source: &str) {
    let Some(document) = dom::document() else { return };
    for (class, piece) in highlight(source) {
        match class.css() {
            Some(css) => dom::append(code, &dom::text("span", css, piece)),
            None => {
                let _ = code.append_child(&document.create_text_node(piece));
            }
        }
    }
}

/// The kernel's source composed from the repository's files, comments included, as the site
/// serves them; None if one is missing or is not, stripped, what the GPU compiled (a build
/// that compiles no kernel has nothing to compare them with). Composed
/// as `KernelId::source` composes the stripped files (file, Params, shared files, a newline
/// apart; e2e `hood.mjs` compares the two): one generic composer for both cost 0,4 KB of wasm.
async fn commented_source(id: KernelId, base: &str) -> Option<String> {
    let row = id.row();
    let file = |name: &str| format!("{base}{name}.wgsl");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).ok();
    let own = text(crate::web::model_store::fetch_bytes(&file(id.name()), 0.0, &|_, _| {}).await.ok()?)?;
    let compiled = crate::gpu::kernels::COMPILES_KERNELS;
    if compiled && without_comments(&own) != row.file {
        return None;
    }
    let mut composed = format!("{own}\n{}", row.params_wgsl);
    for shared in row.shared {
        let piece = text(crate::web::model_store::fetch_bytes(&file(shared.name), 0.0, &|_, _| {}).await.ok()?)?;
        if compiled && without_comments(&piece) != shared.text {
            return None;
        }
        composed.push('\n');
        composed.push_str(&piece);
    }
    Some(composed)
}

/// The WGSL kernel that runs a recorded op on the GPU (a product's depends on its size; a
/// copy or a view has none).
fn kernel_of(record: &OpRecord) -> Option<KernelId> {
    KernelId::for_op(record.op, record.outputs.first().and_then(|s| s.matrix()))
}
