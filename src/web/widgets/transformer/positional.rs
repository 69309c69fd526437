//! `positional-encoding`: the sinusoidal table PE (position × dimension) as a heatmap, with
//! sliders for t, d and θ; the article's t = 5, d = 4 table; and the dot product
//! PE(p)·PE(p + k) against the offset k, which depends on k only (while each PE(p) is a fixed,
//! absolute vector). The Gram matrix PE·PEᵀ behind the plot is computed on the backend.
//!
//! Attributes: `data-t` (positions, 4 to 128; default 64), `data-d` (dimensions, even, 2 to
//! 128; default 32); θ starts at 10000.

use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement};

use crate::core::format::{format_pt, format_pt_short, parse_pt};
use crate::core::transformer::positional::{rotate_by_offset, Positional, PositionalJob, THETA};
use crate::core::{Executor, Job};

use crate::web::dom;
use crate::web::kit::ui::{self, show_results};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::line_plot::{Axes, LinePlot, Series};
use crate::web::kit::draw::figures::DenseHeatmap;
use crate::web::kit::draw::{MatrixView, Scale};
use crate::web::kit::{Ctx, Shell, Widget, WidgetKind};
use super::results_slot;

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::POSITIONAL_ENCODING, mount };

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
    shell: Shell,
    t: HtmlInputElement,
    d: HtmlInputElement,
    log_theta: HtmlInputElement,
    readout: HtmlElement,
    small: Rc<MatrixView>,
    heatmap: DenseHeatmap,
    offsets: LinePlot,
    results: HtmlElement,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    // The sliders' ranges; d is even (sine/cosine pairs). Out of range: clamped, with a warning.
    let t0 = attrs.number("data-t");
    let d0 = attrs.number("data-d");
    let shell = Shell::new(ctx, host, &KIND);
    let (t_label, t) = ui::slider("t ", "t", 4.0, 128.0, 1.0, t0);
    let (d_label, d) = ui::slider("d ", "d", 2.0, 128.0, 2.0, d0);
    let (theta_label, log_theta) = ui::slider("log₁₀ θ ", "log-theta", 1.0, 6.0, 0.5, 4.0);
    let readout = ui::live("span", "readout");
    shell.control(&[&t_label, &d_label, &theta_label, &readout]);
    let small = MatrixView::new("pe-small", "PE com t = 5, d = 4, θ = 10000", " (o exemplo do artigo original)");
    let heatmap = DenseHeatmap::new("pe", Scale::UnitSigned);
    let offsets = LinePlot::new("offset", "PE(0)·PE(k): produto escalar contra a distância k");
    let results = results_slot();
    dom::append_all(&shell.outputs, &[&small.root, &heatmap.root, &offsets.root, &results]);
    let widget = Rc::new(PositionalWidget { shell, t, d, log_theta, readout, small, heatmap, offsets, results });
    let shell = &widget.shell;
    shell.on(&widget, &shell.controls, &["input"], |w, _| w.clone().recompute());
    Ok(widget)
}

impl PositionalWidget {
    fn job(&self) -> PositionalJob {
        let t = self.t.value().parse::<usize>().unwrap_or(64);
        let d = self.d.value().parse::<usize>().unwrap_or(32);
        let log_theta = parse_pt(&self.log_theta.value()).unwrap_or(4.0);
        PositionalJob { t, d, theta: 10f32.powf(log_theta) }
    }

    fn draw(&self, job: &PositionalJob, main: &Positional, small: &Positional) {
        let theta_text = format_pt_short(job.theta.round(), 0);
        self.readout.set_text_content(Some(&format!("t = {}, d = {}, θ = {theta_text}", job.t, job.d)));
        let rows: Vec<String> = (0..5).map(|p| format!("p = {p}")).collect();
        let cols: Vec<String> = (0..4).map(|j| format!("j = {j}")).collect();
        self.small.show(&small.pe, rows, cols, Scale::UnitSigned);
        self.heatmap.update(&format!("PE (posição × dimensão), θ = {theta_text}"), &main.pe, "posição p", "dimensão j");
        let by_offset: Vec<f64> = main.dot_by_offset().into_iter().map(f64::from).collect();
        let ks: Vec<f64> = (0..by_offset.len()).map(|k| k as f64).collect();
        self.offsets.update(
            &ks,
            &[Series { label: "PE(0)·PE(k)".into(), values: by_offset, dashed: false, dots: true }],
            &Axes { x_label: "distância k".into(), y_label: "PE(0)·PE(k)".into(), log_x: false, log_y: false, y_range: None },
            |k| format!("k = {k}"),
            |v| format_pt(v as f32, 4),
        );
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
        show_results(&self.results, "positional", "A propriedade do deslocamento, nesta tabela", &rows);
    }
}

impl Widget for PositionalWidget {
    fn recompute(self: Rc<Self>) {
        let widget = self.clone();
        self.shell.compute(BothJob { main: self.job() }, move |job, (main, small), _| widget.draw(&job.main, &main, &small));
    }
}
