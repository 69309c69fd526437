//! `positional-encoding`: the sinusoidal table PE (position × dimension) as a heatmap, with
//! sliders for t, d and θ; the article's t = 5, d = 4 table; and the dot product
//! PE(p)·PE(p + k) against the offset k, which depends on k only (while each PE(p) is a fixed,
//! absolute vector). The Gram matrix PE·PEᵀ behind the plot is computed on the backend.
//!
//! Attributes: `data-t` (positions, 4 to 128; default 64), `data-d` (dimensions, even, 2 to
//! 128; default 32); θ starts at 10000.

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement};

use crate::core::format::{format_pt, format_pt_short};
use crate::core::transformer::positional::{rotate_by_offset, Positional, PositionalJob, THETA};
use crate::core::{Executor, Job};

use crate::web::dom::{self, Listener};
use crate::web::kit::draw::{Scale, HeatmapData, MatrixView};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::{Ctx, Updates, Widget, WidgetKind};
use crate::web::kit::draw::transformer_plot::{DenseHeatmap, LinePlot, Series};
use super::{backend_note, fill_results, frame, listen};

pub const KIND: WidgetKind = WidgetKind { name: "positional-encoding", title: "Codificação posicional senoidal", mount };

/// The reader's table and the article's t = 5, d = 4 one, in one backend run.
struct BothJob {
    main: PositionalJob,
}

impl Job for BothJob {
    type Output = (Positional, Positional);
    async fn run<E: Executor>(&self, e: &E) -> crate::core::error::Result<Self::Output> {
        let small = PositionalJob { t: 5, d: 4, theta: THETA }.run(e).await?;
        Ok((self.main.run(e).await?, small))
    }
}

pub struct PositionalWidget {
    ctx: Rc<Ctx>,
    host: HtmlElement,
    t: HtmlInputElement,
    d: HtmlInputElement,
    log_theta: HtmlInputElement,
    readout: HtmlElement,
    small: Rc<MatrixView>,
    heatmap: DenseHeatmap,
    offsets: LinePlot,
    results: HtmlElement,
    backend_note: HtmlElement,
    updates: Updates,
    listeners: RefCell<Vec<Listener>>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    // The sliders' ranges; d is even (sine/cosine pairs). Out of range: clamped, with a warning.
    let t0 = attrs.number("data-t");
    let d0 = attrs.number("data-d");
    frame(host, KIND.title);
    let controls = dom::el("div", "widget-controls");
    let (t_label, t) = dom::slider("t ", "t", 4.0, 128.0, 1.0, t0);
    let (d_label, d) = dom::slider("d ", "d", 2.0, 128.0, 2.0, d0);
    let (theta_label, log_theta) = dom::slider("log₁₀ θ ", "log-theta", 1.0, 6.0, 0.5, 4.0);
    let readout = dom::el("span", "readout");
    dom::set_attr(&readout, "aria-live", "polite");
    let (twins, twins_listener) = crate::web::kit::twins_button(host);
    for el in [&t_label, &d_label, &theta_label, &readout, &twins] {
        dom::append(&controls, el);
    }
    dom::append(host, &controls);
    let outputs = dom::el("div", "widget-outputs");
    let small = MatrixView::new("pe-small", "PE com t = 5, d = 4, θ = 10000", " (o exemplo do artigo)");
    let heatmap = DenseHeatmap::new("pe", Scale::UnitSigned);
    let offsets = LinePlot::new("offset");
    dom::append(&outputs, &small.root);
    dom::append(&outputs, &heatmap.root);
    dom::append(&outputs, &offsets.root);
    dom::append(host, &outputs);
    let results = dom::el("div", "");
    dom::append(host, &results);
    let backend_note = backend_note(host);
    let widget = Rc::new(PositionalWidget {
        ctx: ctx.clone(),
        host: host.clone(),
        t,
        d,
        log_theta,
        readout,
        small,
        heatmap,
        offsets,
        results,
        backend_note,
        updates: Updates::default(),
        listeners: RefCell::new(Vec::new()),
    });
    *widget.listeners.borrow_mut() = vec![listen(&widget, &controls, "input", |w, _| w.clone().recompute()), twins_listener];
    Ok(widget)
}

impl PositionalWidget {
    fn job(&self) -> PositionalJob {
        let t = self.t.value().parse::<usize>().unwrap_or(64);
        let d = self.d.value().parse::<usize>().unwrap_or(32);
        let log_theta = self.log_theta.value().parse::<f32>().unwrap_or(4.0);
        PositionalJob { t, d, theta: 10f32.powf(log_theta) }
    }

    fn draw(&self, job: &PositionalJob, main: &Positional, small: &Positional) {
        let theta_text = format_pt_short(job.theta.round(), 0);
        self.readout.set_text_content(Some(&format!("t = {}, d = {}, θ = {theta_text}", job.t, job.d)));
        let rows: Vec<String> = (0..5).map(|p| format!("p = {p}")).collect();
        let cols: Vec<String> = (0..4).map(|j| format!("j = {j}")).collect();
        self.small.update(HeatmapData { matrix: small.pe.clone(), row_labels: rows, col_labels: cols, scale: Scale::UnitSigned, masked: None });
        self.heatmap.update(&format!("PE (posição × dimensão), θ = {theta_text}"), &main.pe, "posição p", "dimensão j");
        let by_offset = main.dot_by_offset();
        let labels: Vec<String> = (0..by_offset.len()).map(|k| k.to_string()).collect();
        self.offsets.update("PE(0)·PE(k): produto escalar contra a distância k", "k", &labels, &[Series { name: "PE(0)·PE(k)", values: &by_offset }], None);
        // The offset property, checked on this very table.
        let rotation_error = (0..job.t.saturating_sub(1))
            .filter_map(|p| {
                let rotated = rotate_by_offset(&main.pe.row(p), 1, job.theta)?;
                Some(rotated.iter().zip(main.pe.row(p + 1)).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max))
            })
            .fold(0.0f32, f32::max);
        let rows = vec![
            ("PE(p)·PE(p) = d/2".to_string(), format_pt(main.gram.get(0, 0), 4)),
            ("maior |PE(p)·PE(p+k) − PE(0)·PE(k)|".to_string(), format_pt(main.offset_dependence(), 4)),
            ("maior |R(1)·PE(p) − PE(p+1)|".to_string(), format_pt(rotation_error, 4)),
        ];
        fill_results(&self.results, "positional", "A propriedade do deslocamento, nesta tabela", &rows);
    }
}

impl Widget for PositionalWidget {
    fn recompute(self: Rc<Self>) {
        let update = self.updates.begin();
        let job = BothJob { main: self.job() };
        let widget = self.clone();
        crate::web::kit::update::compute(&self.ctx, &self.host, update, Some(&self.backend_note), job, move |job, (main, small), _| {
            widget.draw(&job.main, &main, &small);
        });
    }
}
