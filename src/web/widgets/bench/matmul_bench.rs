//! `matmul-bench`: times C = A·B for n×n matrices on the CPU (Rust → WebAssembly) and on
//! WebGPU (`matmul_small.wgsl` up to n = 16, the tiled `matmul.wgsl`, `matmul_blocked.wgsl`
//! from 64), on the reader's own machine, and plots the time per product against n for both
//! (log–log, with the table twin). The size slider measures one more size; "medir até 512"
//! sweeps every size. Each time is the median of a few samples after a warm-up
//! (`core::trace::time_matmul`); both products are compared (largest |Δ|).
//!
//! The WebGPU series uses the site's device, or one opened just for this while the reader
//! forces the CPU; where the browser has none, the plot shows the CPU alone and says why.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement};

use crate::core::executor::BackendKind;
use crate::core::format::format_pt;
use crate::core::trace::{format_scientific, matmul_inputs, time_matmul, MatmulTiming};

use crate::web::backend::{now_ms, runtime};
use crate::web::dom;
use crate::web::kit::ui;
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::line_plot::{Axes, LinePlot, Series};
use crate::web::kit::hood::{avg_ms, ms_value, product_kernels, SHADERS};
use crate::web::kit::{Ctx, Shell, Widget, WidgetKind};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::MATMUL_BENCH, mount };

/// The sizes n the slider steps through.
const SIZES: [usize; 11] = [8, 16, 32, 48, 64, 96, 128, 192, 256, 384, 512];
/// Measured when the page opens (fast everywhere, software GPUs included).
const FIRST_SWEEP_MAX: usize = 128;
/// The slider starts here.
const DEFAULT_SIZE: usize = 64;
/// Timed samples per size and backend (the median is kept).
const SAMPLES: usize = 5;
/// Each sample repeats the product to last at least this long (clock resolution ~0,1 ms).
const MIN_SAMPLE_MS: f64 = 2.0;

/// One size's measurements.
#[derive(Clone, Default)]
struct Point {
    cpu: Option<MatmulTiming>,
    gpu: Option<MatmulTiming>,
}

pub struct BenchWidget {
    /// Its note says what is being measured, then how the times were taken.
    shell: Shell,
    slider: HtmlInputElement,
    readout: HtmlElement,
    last: HtmlElement,
    plot: LinePlot,
    points: RefCell<BTreeMap<usize, Point>>,
    /// Why WebGPU could not be measured (shown once), if it could not.
    gpu_missing: RefCell<Option<String>>,
}

fn slider_size(slider: &HtmlInputElement) -> usize {
    let index = slider.value().parse::<usize>().unwrap_or(0).min(SIZES.len() - 1);
    SIZES[index]
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, _attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let shell = Shell::new(ctx, host, &KIND);
    let default_index = SIZES.iter().position(|&n| n == DEFAULT_SIZE).unwrap_or(0);
    let (slider_label, slider) = ui::slider("tamanho n ", "size", 0.0, (SIZES.len() - 1) as f64, 1.0, default_index as f64);
    dom::set_attr(&slider, "aria-valuetext", &format!("n = {DEFAULT_SIZE}"));
    let readout = dom::text("output", "", &format!("n = {DEFAULT_SIZE}"));
    dom::append(&slider_label, &readout);
    let sweep = ui::button(&format!("medir de {} a {}", SIZES[0], SIZES[SIZES.len() - 1]), "sweep");
    shell.control(&[&slider_label, &sweep]);

    let plot = LinePlot::new("bench", "Tempo de uma multiplicação n×n · n×n (ms, mediana)");
    dom::append(&shell.outputs, &plot.root);
    let last = dom::el("div", "bench-last");
    dom::append(&shell.outputs, &last);

    for kernel in product_kernels(&ctx.asset_url(SHADERS)) {
        dom::append(host, &kernel);
    }

    let widget = Rc::new(BenchWidget {
        shell,
        slider,
        readout,
        last,
        plot,
        points: RefCell::new(BTreeMap::new()),
        gpu_missing: RefCell::new(None),
    });
    let shell = &widget.shell;
    // Moving the slider updates the readout; letting go measures that size.
    shell.on(&widget, &shell.controls, &["input"], |w, _| w.show_size());
    shell.on(&widget, &shell.controls, &["change"], |w, _| {
        let n = slider_size(&w.slider);
        w.clone().measure(vec![n]);
    });
    shell.on_action(&widget, |w, action| if action == "sweep" { w.clone().measure(SIZES.to_vec()) });
    Ok(widget)
}

impl BenchWidget {
    fn show_size(&self) {
        let n = slider_size(&self.slider);
        self.readout.set_text_content(Some(&format!("n = {n}")));
        dom::set_attr(&self.slider, "aria-valuetext", &format!("n = {n}"));
    }

    /// Measures `sizes` in order on both backends, redrawing after each; a newer request
    /// stops an older sweep at its next size.
    fn measure(self: Rc<Self>, sizes: Vec<usize>) {
        self.show_size();
        let widget = self.clone();
        self.shell.steps(false, move |update| async move {
            let gpu = match widget.shell.ctx.backend.comparison_gpu().await {
                Ok(gpu) => Some(gpu),
                Err(why) => {
                    *widget.gpu_missing.borrow_mut() = Some(why);
                    None
                }
            };
            for &n in &sizes {
                if !update.is_current() {
                    return Ok(());
                }
                widget.shell.note.set_text_content(Some(&format!("Medindo n = {n}…")));
                // Let the browser paint the status before the CPU is busy.
                dom::sleep(0).await;
                let (a, b) = matmul_inputs(n);
                let cpu = time_matmul(&runtime(None), &a, &b, SAMPLES, MIN_SAMPLE_MS, &now_ms).await.ok();
                let gpu_timing = match &gpu {
                    Some(gpu) => match time_matmul(&runtime(Some(gpu)), &a, &b, SAMPLES, MIN_SAMPLE_MS, &now_ms).await {
                        Ok(t) => Some(t),
                        Err(e) => {
                            *widget.gpu_missing.borrow_mut() = Some(e.to_string());
                            None
                        }
                    },
                    None => None,
                };
                if !update.is_current() {
                    return Ok(());
                }
                widget.points.borrow_mut().insert(n, Point { cpu, gpu: gpu_timing });
                widget.draw(n);
            }
            widget.shell.note.set_text_content(Some(&widget.status_text()));
            Ok(())
        });
    }

    fn status_text(&self) -> String {
        let base = format!(
            "Cada ponto é a mediana de {SAMPLES} amostras, depois de uma execução de aquecimento (que compila o kernel e \
             reserva os buffers). Em WebGPU o tempo inclui enviar A e B à GPU e ler C de volta."
        );
        match self.gpu_missing.borrow().as_ref() {
            Some(why) => format!("{base} WebGPU indisponível aqui ({why}): só a CPU foi medida."),
            None => base,
        }
    }

    /// Redraws the plot and the results of size `n`.
    fn draw(&self, n: usize) {
        let points = self.points.borrow();
        let xs: Vec<f64> = points.keys().map(|&n| n as f64).collect();
        let series_of = |pick: fn(&Point) -> Option<&MatmulTiming>| points.values().map(|p| pick(p).map_or(f64::NAN, |t| t.median_ms)).collect::<Vec<_>>();
        let series = [
            Series { label: BackendKind::Cpu.label().into(), values: series_of(|p| p.cpu.as_ref()), dashed: false, dots: true },
            Series { label: BackendKind::WebGpu.label().into(), values: series_of(|p| p.gpu.as_ref()), dashed: false, dots: true },
        ];
        let axes = Axes { x_label: "n".into(), y_label: "ms".into(), log_x: true, log_y: true, y_range: None };
        let ms_text = |v: f64| if v.is_finite() { ms_value(v) } else { "—".into() };
        self.plot.update(&xs, &series, &axes, |x| format!("{}", x as usize), ms_text);

        let Some(point) = points.get(&n) else { return };
        let ms = |t: &Option<MatmulTiming>| t.as_ref().map_or("—".to_string(), |t| avg_ms(t.median_ms));
        let mut rows = vec![
            ("n".to_string(), n.to_string()),
            ("multiplicações e somas (n³)".to_string(), format_pt((n * n * n) as f32, 0)),
            (format!("{} (mediana)", BackendKind::Cpu.label()), ms(&point.cpu)),
            (format!("{} (mediana)", BackendKind::WebGpu.label()), ms(&point.gpu)),
        ];
        let mut max_diff = None;
        if let (Some(cpu), Some(gpu)) = (&point.cpu, &point.gpu) {
            let (faster, ratio) = if gpu.median_ms < cpu.median_ms {
                (BackendKind::WebGpu, cpu.median_ms / gpu.median_ms.max(1e-6))
            } else {
                (BackendKind::Cpu, gpu.median_ms / cpu.median_ms.max(1e-6))
            };
            rows.push(("mais rápido".into(), format!("{} ({}×)", faster.label(), format_pt(ratio as f32, 1))));
            let diff = cpu.product.max_abs_diff(&gpu.product).unwrap_or(f32::INFINITY);
            rows.push(("maior diferença |Δ| entre os produtos".into(), format_scientific(diff)));
            max_diff = Some(diff);
        }
        self.last.set_text_content(None);
        let table = dom::results_table("bench-last", &format!("Último tamanho medido: n = {n}"), &rows);
        dom::set_attr(&table, "data-n", &n.to_string());
        if let Some(diff) = max_diff {
            dom::set_attr(&table, "data-max-diff", &diff.to_string());
        }
        dom::append(&self.last, &table);
    }
}

impl Widget for BenchWidget {
    /// First visit: the small sizes and the slider's; later (a backend switch): the slider's.
    fn recompute(self: Rc<Self>) {
        let n = slider_size(&self.slider);
        let mut sizes: Vec<usize> = if self.points.borrow().is_empty() {
            SIZES.iter().copied().filter(|&s| s <= FIRST_SWEEP_MAX).collect()
        } else {
            Vec::new()
        };
        if !sizes.contains(&n) {
            sizes.push(n);
        }
        self.gpu_missing.borrow_mut().take();
        self.measure(sizes);
    }

    /// A restored size moves the slider and its readout; the first computation measures it.
    fn restore(&self, key: &str, _: &str) -> Option<bool> {
        (key == "size").then(|| {
            self.show_size();
            true
        })
    }
}
