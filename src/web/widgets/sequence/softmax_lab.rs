//! `softmax-lab`: what the softmax does to a row of scores. Adding a constant c to every score
//! changes nothing (shift invariance: the site's correction of the article, which calls it
//! scale invariant); multiplying by k does (sharper for k > 1, flatter for k < 1, which is why
//! attention divides by √d_k); and the Jacobian ∂s_i/∂z_j = s_i(δ_ij − s_j) as a heatmap.
//! The three softmaxes and the outer product run on the active backend.
//!
//! Attributes: none (default scores 2; 1; 0,1).

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement};

use crate::core::format::{format_pt, format_pt_short};
use crate::core::sequence::softmax_lab::{SoftmaxLab, SoftmaxLabJob, MAX_SCORES};
use crate::core::Matrix;

use crate::web::dom::{self, Listener};
use crate::web::kit::draw::{BarView, Scale, HeatmapData, MatrixView};
use crate::web::kit::ui::editor::MatrixEditor;
use crate::web::kit::attributes::Attributes;
use crate::web::kit::{show_error, twins_button, Ctx, Updates, Widget, WidgetKind};

pub const KIND: WidgetKind = WidgetKind { name: "softmax-lab", title: "Laboratório de softmax: somar não muda, multiplicar muda", mount };

fn scores_row(_: usize) -> String {
    "z".into()
}

fn default_scores() -> Matrix {
    Matrix::from_rows(&[[2.0, 1.0, 0.1]]).expect("1×3 literal")
}

pub struct SoftmaxLabWidget {
    ctx: Rc<Ctx>,
    host: HtmlElement,
    scores: RefCell<MatrixEditor>,
    shift: HtmlInputElement,
    scale: HtmlInputElement,
    readouts: (HtmlElement, HtmlElement),
    plain: BarView,
    shifted: BarView,
    scaled: BarView,
    jacobian: Rc<MatrixView>,
    summary: HtmlElement,
    backend_note: HtmlElement,
    updates: Updates,
    listeners: RefCell<Vec<Listener>>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, _attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    super::scaffold(host, KIND.title);
    let inputs = dom::el("div", "widget-inputs");
    let scores = MatrixEditor::new("z", "scores z", &default_scores(), scores_row);
    dom::append(&inputs, &scores.root);
    dom::append(host, &inputs);
    let controls = dom::el("div", "widget-controls");
    let (shift_label, shift) = dom::slider(" somar c = ", "shift", -5.0, 5.0, 0.5, 3.0);
    let shift_out = dom::text("output", "readout", "3");
    dom::append(&shift_label, &shift_out);
    let (scale_label, scale) = dom::slider(" multiplicar por k = ", "scale", 0.1, 5.0, 0.1, 2.0);
    let scale_out = dom::text("output", "readout", "2");
    dom::append(&scale_label, &scale_out);
    let more = dom::button("+ score", "add");
    let fewer = dom::button("− score", "remove");
    let (twins, twins_listener) = twins_button(host);
    for el in [&shift_label, &scale_label, &more, &fewer, &twins] {
        dom::append(&controls, el);
    }
    dom::append(host, &controls);
    let outputs = dom::el("div", "widget-outputs");
    let plain = BarView::new("plain", "");
    let shifted = BarView::new("shifted", "");
    let scaled = BarView::new("scaled", "");
    let jacobian = MatrixView::new("jacobian", "Jacobiana ∂sᵢ/∂z_j", " = sᵢ(δᵢⱼ − s_j); cada linha soma 0");
    let summary = dom::el("div", "explain");
    for el in [&plain.root, &shifted.root, &scaled.root, &jacobian.root, &summary] {
        dom::append(&outputs, el);
    }
    dom::append(host, &outputs);
    let backend_note = dom::el("p", "widget-backend");
    dom::append(host, &backend_note);
    let widget = Rc::new(SoftmaxLabWidget {
        ctx: ctx.clone(),
        host: host.clone(),
        scores: RefCell::new(scores),
        shift,
        scale,
        readouts: (shift_out, scale_out),
        plain,
        shifted,
        scaled,
        jacobian,
        summary,
        backend_note,
        updates: Updates::default(),
        listeners: RefCell::new(Vec::new()),
    });
    let on = |target: &HtmlElement, kind: &'static str, action: fn(&Rc<SoftmaxLabWidget>)| crate::web::kit::listen(&widget, target, kind, move |w, _| action(w));
    *widget.listeners.borrow_mut() = vec![
        on(&inputs, "input", |w| w.clone().recompute()),
        on(&controls, "input", |w| w.clone().recompute()),
        on(&more, "click", |w| w.resize(1)),
        on(&fewer, "click", |w| w.resize(-1)),
        twins_listener,
    ];
    Ok(widget)
}

impl SoftmaxLabWidget {
    fn resize(self: &Rc<Self>, delta: i32) {
        let n = self.scores.borrow().cols() as i32 + delta;
        if !(1..=MAX_SCORES as i32).contains(&n) {
            return show_error(&self.host, &format!("Use de 1 a {MAX_SCORES} scores."));
        }
        self.scores.borrow_mut().resize(1, n as usize);
        self.clone().recompute();
    }

    fn draw(&self, job: &SoftmaxLabJob, lab: &SoftmaxLab) {
        let labels: Vec<String> = (1..=lab.plain.len()).map(|i| format!("s{}", dom::subscript(i))).collect();
        let c = format_pt_short(job.shift, 2);
        let k = format_pt_short(job.scale, 2);
        self.plain.update("softmax(z)", &labels, &lab.plain);
        self.shifted.update(&format!("softmax(z + {c}): igual"), &labels, &lab.shifted);
        self.scaled.update(&format!("softmax({k}·z): {}", if job.scale > 1.0 { "mais concentrado" } else if job.scale < 1.0 { "mais espalhado" } else { "igual" }), &labels, &lab.scaled);
        self.jacobian.update(HeatmapData { matrix: lab.jacobian.clone(), row_labels: labels.clone(), col_labels: labels, scale: Scale::Signed, masked: None });
        let diff = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
        let rows = vec![
            ("maior diferença: somar c".to_string(), format_pt(diff(&lab.plain, &lab.shifted), 4)),
            ("maior diferença: multiplicar por k".to_string(), format_pt(diff(&lab.plain, &lab.scaled), 4)),
        ];
        self.summary.set_text_content(None);
        dom::append(&self.summary, &dom::results_table("invariance", "softmax(z) comparado", &rows));
    }
}

impl Widget for SoftmaxLabWidget {
    fn recompute(self: Rc<Self>) {
        let update = self.updates.begin();
        let scores = match self.scores.borrow().read() {
            Ok(m) => m.row(0),
            Err(e) => return show_error(&self.host, &e.message),
        };
        let shift = self.shift.value().parse::<f32>().unwrap_or(0.0);
        let scale = self.scale.value().parse::<f32>().unwrap_or(1.0);
        self.readouts.0.set_text_content(Some(&format_pt_short(shift, 2)));
        self.readouts.1.set_text_content(Some(&format_pt_short(scale, 2)));
        let job = SoftmaxLabJob { scores, shift, scale };
        let widget = self.clone();
        crate::web::kit::update::compute(&self.ctx, &self.host, update, Some(&self.backend_note), job, move |job, lab, _| {
            widget.draw(job, &lab);
        });
    }
}
