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

use crate::web::dom::{self, Listener};
use crate::web::kit::draw::BarView;
use crate::web::kit::attributes::Attributes;
use crate::web::kit::{show_error, Ctx, Updates, Widget, WidgetKind};
use crate::web::kit::draw::transformer_plot::{LinePlot, Series};
use super::{backend_note, control_of, fill_results, frame, listen, number_input, read_count};

pub const KIND: WidgetKind = WidgetKind { name: "scaling", title: "Por que dividir por √d", mount };

/// (d, mean largest weight without ÷√d, with ÷√d) for each d of `CURVE_DIMS`.
type Curve = Vec<(usize, f32, f32)>;

pub struct ScalingWidget {
    ctx: Rc<Ctx>,
    host: HtmlElement,
    slider: HtmlInputElement,
    d: HtmlInputElement,
    results: HtmlElement,
    raw: BarView,
    scaled: BarView,
    curve: LinePlot,
    backend_note: HtmlElement,
    /// The curve does not depend on d: computed once per backend, then reused.
    curve_cache: RefCell<Option<(BackendKind, Curve)>>,
    updates: Updates,
    listeners: RefCell<Vec<Listener>>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let d0 = attrs.number("data-d") as usize;
    frame(host, KIND.title);
    let controls = dom::el("div", "widget-controls");
    let (slider_label, slider) = dom::slider("log₂ d ", "log-d", 0.0, 12.0, 1.0, (d0 as f64).log2().round());
    let (d_label, d) = number_input("d = ", "d", d0);
    let (twins, twins_listener) = crate::web::kit::twins_button(host);
    for el in [&slider_label, &d_label, &twins] {
        dom::append(&controls, el);
    }
    dom::append(host, &controls);
    let results = dom::el("div", "");
    dom::append(host, &results);
    let outputs = dom::el("div", "widget-outputs");
    let raw = BarView::new("raw", "");
    let scaled = BarView::new("scaled", "");
    let curve = LinePlot::new("saturation");
    dom::append(&outputs, &raw.root);
    dom::append(&outputs, &scaled.root);
    dom::append(&outputs, &curve.root);
    dom::append(host, &outputs);
    let backend_note = backend_note(host);
    let widget = Rc::new(ScalingWidget {
        ctx: ctx.clone(),
        host: host.clone(),
        slider,
        d,
        results,
        raw,
        scaled,
        curve,
        backend_note,
        curve_cache: RefCell::new(None),
        updates: Updates::default(),
        listeners: RefCell::new(Vec::new()),
    });
    *widget.listeners.borrow_mut() = vec![
        listen(&widget, &controls, "input", |w, e| {
            if control_of(e) == "log-d" {
                let exponent = w.slider.value().parse::<u32>().unwrap_or(6).min(12);
                w.d.set_value(&(1usize << exponent).to_string());
            }
            w.clone().recompute();
        }),
        twins_listener,
    ];
    Ok(widget)
}

impl ScalingWidget {
    fn draw(&self, s: &Scaling, curve: &[(usize, f32, f32)]) {
        let st = &s.stats;
        let rows = vec![
            ("d".to_string(), st.d.to_string()),
            ("variância de q·k".to_string(), format_pt(st.var_raw, 4)),
            ("variância de q·k/√d".to_string(), format_pt(st.var_scaled, 4)),
            ("maior peso médio, sem escala".to_string(), format_pt(st.max_weight_raw, 4)),
            ("maior peso médio, com escala".to_string(), format_pt(st.max_weight_scaled, 4)),
        ];
        fill_results(&self.results, "scaling", "64 queries × 8 keys aleatórias (componentes de variância 1)", &rows);
        let keys: Vec<String> = (1..=st.example_raw.len()).map(|j| format!("k{}", dom::subscript(j))).collect();
        self.raw.update("softmax(q₁·k) — sem dividir", &keys, &st.example_raw);
        self.scaled.update("softmax(q₁·k/√d) — dividindo por √d", &keys, &st.example_scaled);
        let labels: Vec<String> = curve.iter().map(|(d, _, _)| d.to_string()).collect();
        let raw: Vec<f32> = curve.iter().map(|c| c.1).collect();
        let scaled: Vec<f32> = curve.iter().map(|c| c.2).collect();
        self.curve.update(
            "Maior peso do softmax (média) conforme d cresce",
            "d",
            &labels,
            &[Series { name: "sem escala", values: &raw }, Series { name: "com ÷√d", values: &scaled }],
            Some((0.0, 1.0)),
        );
    }
}

impl Widget for ScalingWidget {
    fn recompute(self: Rc<Self>) {
        let update = self.updates.begin();
        let d = match read_count(&self.d, "d") {
            Ok(0) => return show_error(&self.host, "d precisa ser pelo menos 1."),
            Ok(d) if d > MAX_DIM => {
                return show_error(&self.host, &format!("d = {d} é grande demais para esta demonstração: o limite é {MAX_DIM}. Com d assim o efeito já é total: o softmax sem escala põe quase todo o peso numa só key."))
            }
            Ok(d) => d,
            Err(message) => return show_error(&self.host, &message),
        };
        let backend = self.ctx.backend.kind();
        let cached = self.curve_cache.borrow().clone().filter(|(kind, _)| *kind == backend).map(|(_, c)| c);
        let job = ScalingJob { with_curve: cached.is_none(), ..ScalingJob::new(d) };
        let widget = self.clone();
        crate::web::kit::update::compute(&self.ctx, &self.host, update, Some(&self.backend_note), job, move |_, scaling, kind| {
            let curve = cached.unwrap_or_else(|| scaling.curve.clone());
            if curve.len() == CURVE_DIMS.len() {
                *widget.curve_cache.borrow_mut() = Some((kind, curve.clone()));
            }
            widget.draw(&scaling, &curve);
        });
    }
}
