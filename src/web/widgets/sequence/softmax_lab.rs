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

use crate::core::format::{format_pt, format_pt_short, parse_pt};
use crate::core::sequence::softmax_lab::{SoftmaxLab, SoftmaxLabJob, MAX_SCORES};
use crate::core::Matrix;

use crate::web::dom;
use crate::web::kit::ui::{self, show_results, MatrixEditor};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{BarView, HeatmapData, MatrixView, Scale};
use crate::web::kit::{Ctx, Shell, Widget, WidgetKind};


pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::SOFTMAX_LAB, mount };

fn scores_row(_: usize) -> String {
    "z".into()
}

fn default_scores() -> Matrix {
    Matrix::from_rows(&[[2.0, 1.0, 0.1]]).expect("1×3 literal")
}

pub struct SoftmaxLabWidget {
    shell: Shell,
    scores: RefCell<MatrixEditor>,
    shift: HtmlInputElement,
    scale: HtmlInputElement,
    readouts: (HtmlElement, HtmlElement),
    plain: BarView,
    shifted: BarView,
    scaled: BarView,
    jacobian: Rc<MatrixView>,
    summary: HtmlElement,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, _attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let shell = Shell::new(ctx, host, &KIND);
    let scores = MatrixEditor::new("z", "scores z", &default_scores(), scores_row);
    scores.resized_by("add", "remove");
    dom::append(&shell.inputs, &scores.root);
    let (shift_label, shift) = ui::slider(" somar c = ", "shift", -5.0, 5.0, 0.5, 3.0);
    let shift_out = ui::readout(&shift_label, "3");
    let (scale_label, scale) = ui::slider(" multiplicar por k = ", "scale", 0.1, 5.0, 0.1, 2.0);
    let scale_out = ui::readout(&scale_label, "2");
    let more = ui::button("+ score", "add");
    let fewer = ui::button("− score", "remove");
    shell.control(&[&shift_label, &scale_label, &more, &fewer]);
    let plain = BarView::new("plain", "").probabilities();
    let shifted = BarView::new("shifted", "").probabilities();
    let scaled = BarView::new("scaled", "").probabilities();
    let jacobian = MatrixView::new("jacobian", "Jacobiana ∂s_i/∂z_j", " = sᵢ(δᵢⱼ − sⱼ); cada linha soma 0");
    let summary = dom::el("div", "explain");
    dom::append_all(&shell.outputs, &[&plain.root, &shifted.root, &scaled.root, &jacobian.root, &summary]);
    let widget = Rc::new(SoftmaxLabWidget {
        shell,
        scores: RefCell::new(scores),
        shift,
        scale,
        readouts: (shift_out, scale_out),
        plain,
        shifted,
        scaled,
        jacobian,
        summary,
    });
    let shell = &widget.shell;
    shell.recompute_on(&widget, &["input"]);
    shell.on_action(&widget, |w, action| match action {
        "add" => w.resize(1),
        "remove" => w.resize(-1),
        _ => {}
    });
    Ok(widget)
}

impl SoftmaxLabWidget {
    fn resize(self: &Rc<Self>, delta: i32) {
        let n = self.scores.borrow().cols() as i32 + delta;
        if !(1..=MAX_SCORES as i32).contains(&n) {
            return self.shell.fail(&format!("Use de 1 a {MAX_SCORES} scores."));
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
        show_results(&self.summary, "invariance", "softmax(z) comparado", &rows);
    }
}

impl Widget for SoftmaxLabWidget {
    fn recompute(self: Rc<Self>) {
        let scores = match self.scores.borrow().read() {
            Ok(m) => m.row(0),
            Err(e) => return self.shell.now(|| Err(e)),
        };
        let shift = parse_pt(&self.shift.value()).unwrap_or(0.0);
        let scale = parse_pt(&self.scale.value()).unwrap_or(1.0);
        self.readouts.0.set_text_content(Some(&format_pt_short(shift, 2)));
        self.readouts.1.set_text_content(Some(&format_pt_short(scale, 2)));
        let job = SoftmaxLabJob { scores, shift, scale };
        let widget = self.clone();
        self.shell.compute(job, move |job, lab, _| widget.draw(job, &lab));
    }

    /// A restored number of scores (`z@size`, one row) resizes the row.
    fn restore(&self, key: &str, value: &str) -> Option<bool> {
        (key == "z@size").then(|| {
            let n = value.parse::<usize>().ok().filter(|n| (1..=MAX_SCORES).contains(n));
            n.inspect(|&n| self.scores.borrow_mut().resize(1, n)).is_some()
        })
    }
}
