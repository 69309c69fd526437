//! `masked-softmax`: editable attention scores, the causal mask added as −∞ above the
//! diagonal (hatched), and the row softmax computed on the active backend: masked cells get
//! weight exactly 0 and each row still sums to 1. Default: the mask example of
//! "Explicando Transformers".
//!
//! Attributes: `data-matrices` (JSON: `scores`, square, at most 10 × 10).

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement};

use crate::core::examples::explicando_mask_scores;
use crate::core::ops::{SoftmaxJob, SoftmaxOptions};

use super::super::dom::{self, Listener};
use super::super::draw::{ColorScale, HeatmapData, MatrixView};
use super::editor::MatrixEditor;
use super::{show_error, Ctx, Updates, Widget, WidgetKind};
use crate::web::widgets::hood;

pub const KIND: WidgetKind = WidgetKind { name: "masked-softmax", title: "Máscara causal e softmax", mount };

const MAX_TOKENS: usize = 10;

fn position(i: usize) -> String {
    format!("posição {}", i + 1)
}

pub struct MaskedSoftmaxWidget {
    ctx: Rc<Ctx>,
    host: HtmlElement,
    scores: RefCell<MatrixEditor>,
    causal: HtmlInputElement,
    masked: Rc<MatrixView>,
    weights: Rc<MatrixView>,
    backend_note: HtmlElement,
    updates: Updates,
    listeners: RefCell<Vec<Listener>>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement) -> Result<Rc<dyn Widget>, String> {
    let initial = super::attributes::matrices(host, &["scores"])?.remove("scores").unwrap_or_else(explicando_mask_scores);
    let t = initial.rows();
    if initial.cols() != t || t > MAX_TOKENS {
        return Err(format!(
            "data-matrices: «scores» deve ser quadrada (linha = consulta, coluna = chave) e ter no máximo {MAX_TOKENS} posições; tem {t} × {}.",
            initial.cols()
        ));
    }
    dom::set_attr(host, "data-state", "loading");
    let _ = host.class_list().add_1("widget");
    host.set_text_content(None);
    dom::append(host, &dom::text("h3", "widget-title", KIND.title));
    let scores = MatrixEditor::new("scores", "scores (linha = consulta, coluna = chave)", &initial, position);
    dom::append(host, &scores.root);
    let controls = dom::el("div", "widget-controls");
    let (causal_label, causal) = dom::checkbox(" máscara causal", "causal", true);
    let more = dom::button("+ posição", "add-token");
    let fewer = dom::button("− posição", "remove-token");
    let (twins, twins_listener) = super::twins_button(host);
    for el in [&causal_label, &more, &fewer, &twins] {
        dom::append(&controls, el);
    }
    dom::append(host, &controls);
    let outputs = dom::el("div", "widget-outputs");
    let masked = MatrixView::new("masked", "S + M", " (−∞ acima da diagonal)");
    let weights = MatrixView::new("weights", "softmax(S + M)", " cada linha soma 1");
    dom::append(&outputs, &masked.root);
    dom::append(&outputs, &weights.root);
    dom::append(host, &outputs);
    let backend_note = dom::el("p", "widget-backend");
    dom::append(host, &backend_note);

    let widget = Rc::new(MaskedSoftmaxWidget {
        ctx: ctx.clone(),
        host: host.clone(),
        scores: RefCell::new(scores),
        causal,
        masked,
        weights,
        backend_note,
        updates: Updates::default(),
        listeners: RefCell::new(Vec::new()),
    });
    let on = |target: &HtmlElement, kind: &'static str, action: fn(&Rc<MaskedSoftmaxWidget>)| crate::web::widgets::listen(&widget, target, kind, move |w, _| action(w));
    let editor_root = widget.scores.borrow().root.clone();
    *widget.listeners.borrow_mut() = vec![
        on(&editor_root, "input", |w| w.clone().recompute()),
        on(&causal_label, "change", |w| w.clone().recompute()),
        on(&more, "click", |w| w.resize(1)),
        on(&fewer, "click", |w| w.resize(-1)),
        twins_listener,
    ];
    Ok(widget)
}

impl MaskedSoftmaxWidget {
    /// Scores are square (t queries × t keys): adds or removes a position on both sides.
    fn resize(self: &Rc<Self>, delta: i32) {
        let t = self.scores.borrow().rows() as i32 + delta;
        if !(1..=MAX_TOKENS as i32).contains(&t) {
            return show_error(&self.host, &format!("Use entre 1 e {MAX_TOKENS} posições."));
        }
        self.scores.borrow_mut().resize(t as usize, t as usize);
        self.clone().recompute();
    }
}

impl Widget for MaskedSoftmaxWidget {
    fn recompute(self: Rc<Self>) {
        let update = self.updates.begin();
        let scores = match self.scores.borrow().read() {
            Ok(m) => m,
            Err(e) => return show_error(&self.host, &e.message),
        };
        let causal = self.causal.checked();
        let job = SoftmaxJob { scores, options: SoftmaxOptions { causal, ..Default::default() } };
        let widget = self.clone();
        hood::compute(&self.ctx, &self.host, update, Some(&self.backend_note), job, move |job, weights, _| {
            let labels: Vec<String> = (1..=weights.rows()).map(|i| i.to_string()).collect();
            let mask = |on: bool| on.then(|| Box::new(|r: usize, c: usize| c > r) as Box<dyn Fn(usize, usize) -> bool>);
            widget.masked.update(HeatmapData { matrix: job.scores.clone(), row_labels: labels.clone(), col_labels: labels.clone(), scale: ColorScale::Diverging, masked: mask(causal) });
            widget.weights.update(HeatmapData { matrix: weights, row_labels: labels.clone(), col_labels: labels, scale: ColorScale::Sequential, masked: None });
        });
    }
}
