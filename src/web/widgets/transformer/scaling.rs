//! `scaling`: why the scores are divided by √d_k. For the chosen d, 64 random queries meet 8
//! random keys (seeded, the same for every reader): the variance of q·k grows like d while
//! that of q·k/√d stays near 1; the softmax of the raw scores saturates (one weight near 1)
//! while the scaled one stays spread. A curve shows the mean largest weight for d = 1 … 1024.
//!
//! Attributes: `data-d` (default 64).

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement};

use crate::core::executor::BackendKind;
use crate::core::format::format_pt;
use crate::core::transformer::scaling::{Scaling, ScalingJob, CURVE_DIMS, MAX_DIM};

use crate::web::dom;
use crate::web::kit::ui::{self, number_field, read_count, show_results};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::line_plot::{Axes, LinePlot, Series};
use crate::web::kit::draw::BarView;
use crate::web::kit::{control_of, Ctx, Shell, Widget, WidgetKind};
use super::results_slot;

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::SCALING, mount };

/// (d, mean largest weight without ÷√d, with ÷√d) for each d of `CURVE_DIMS`.
type Curve = Vec<(usize, f32, f32)>;

pub struct ScalingWidget {
    shell: Shell,
    slider: HtmlInputElement,
    d: HtmlInputElement,
    results: HtmlElement,
    raw: BarView,
    scaled: BarView,
    curve: LinePlot,
    /// The curve does not depend on d: computed once per backend, then reused.
    curve_cache: RefCell<Option<(BackendKind, Curve)>>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let d0 = attrs.number("data-d") as usize;
    let shell = Shell::new(ctx, host, &KIND);
    let (slider_label, slider) = ui::slider("log₂ d ", "log-d", 0.0, 12.0, 1.0, (d0 as f64).log2().round());
    let (d_label, d) = number_field("d = ", "d", &d0.to_string(), true);
    shell.control(&[&slider_label, &d_label]);
    let results = results_slot();
    let raw = BarView::new("raw", "").probabilities();
    let scaled = BarView::new("scaled", "").probabilities();
    let curve = LinePlot::new("saturation", "Maior peso do softmax (média) conforme d cresce");
    dom::append_all(&shell.outputs, &[&results, &raw.root, &scaled.root, &curve.root]);
    let widget = Rc::new(ScalingWidget { shell, slider, d, results, raw, scaled, curve, curve_cache: RefCell::new(None) });
    let shell = &widget.shell;
    shell.on(&widget, &shell.controls, &["input"], |w, e| {
        if control_of(e) == "log-d" {
            w.set_d_from_slider();
        }
        w.clone().recompute();
    });
    Ok(widget)
}

impl ScalingWidget {
    /// d = 2^(the slider's value).
    fn set_d_from_slider(&self) {
        let exponent = self.slider.value().parse::<u32>().unwrap_or(6).min(12);
        self.d.set_value(&(1usize << exponent).to_string());
    }
}

impl ScalingWidget {
    fn d(&self) -> Result<usize, String> {
        match read_count(&self.d, "d")? {
            0 => Err("d precisa ser pelo menos 1.".into()),
            d if d > MAX_DIM => Err(format!(
                "d = {d} é grande demais para esta demonstração: o limite é {MAX_DIM}. Com d assim o efeito já é total: o softmax sem escala põe quase todo o peso numa só key."
            )),
            d => Ok(d),
        }
    }

    fn draw(&self, s: &Scaling, curve: &[(usize, f32, f32)]) {
        let st = &s.stats;
        let rows = vec![
            ("d".to_string(), st.d.to_string()),
            ("variância de q·k".to_string(), format_pt(st.var_raw, 4)),
            ("variância de q·k/√d".to_string(), format_pt(st.var_scaled, 4)),
            ("maior peso médio, sem escala".to_string(), format_pt(st.max_weight_raw, 4)),
            ("maior peso médio, com escala".to_string(), format_pt(st.max_weight_scaled, 4)),
        ];
        show_results(&self.results, "scaling", "64 queries × 8 keys aleatórias (componentes de variância 1)", &rows);
        let keys: Vec<String> = (1..=st.example_raw.len()).map(|j| format!("k{}", dom::subscript(j))).collect();
        self.raw.update("softmax(q₁·k) — sem dividir", &keys, &st.example_raw);
        self.scaled.update("softmax(q₁·k/√d) — dividindo por √d", &keys, &st.example_scaled);
        // d doubles from point to point: the x axis is log₂ d, so the points are evenly spaced.
        let xs: Vec<f64> = curve.iter().map(|c| (c.0 as f64).log2()).collect();
        let series = |label: &str, dashed: bool, values: Vec<f64>| Series { label: label.to_string(), values, dashed, dots: true };
        self.curve.update(
            &xs,
            &[
                series("sem escala", false, curve.iter().map(|c| c.1 as f64).collect()),
                series("com ÷√d", true, curve.iter().map(|c| c.2 as f64).collect()),
            ],
            &Axes { x_label: "log₂ d".into(), y_label: "maior peso".into(), log_x: false, log_y: false, y_range: Some((0.0, 1.0)) },
            |x| format!("d = {}", x.exp2().round()),
            |y| format_pt(y as f32, 4),
        );
    }
}

impl Widget for ScalingWidget {
    fn recompute(self: Rc<Self>) {
        let backend = self.shell.ctx.backend.kind();
        let cached = self.curve_cache.borrow().clone().filter(|(kind, _)| *kind == backend).map(|(_, c)| c);
        let job = self.d().map(|d| ScalingJob { with_curve: cached.is_none(), ..ScalingJob::new(d) });
        let widget = self.clone();
        self.shell.compute_or(job, move |_, scaling, kind| {
            let curve = cached.unwrap_or_else(|| scaling.curve.clone());
            if curve.len() == CURVE_DIMS.len() {
                *widget.curve_cache.borrow_mut() = Some((kind, curve.clone()));
            }
            widget.draw(&scaling, &curve);
        });
    }

    /// A restored log₂ d sets d, as moving the slider does.
    fn restore(&self, key: &str, _: &str) -> Option<bool> {
        (key == "log-d").then(|| {
            self.set_d_from_slider();
            true
        })
    }
}
