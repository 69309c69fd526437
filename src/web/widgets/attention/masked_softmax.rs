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
use crate::core::executor::SoftmaxJob;
use crate::core::ops::SoftmaxOptions;

use crate::web::dom;
use crate::web::kit::ui::{self, MatrixEditor};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{numbered, HeatmapData, MatrixView, Scale};
use crate::web::kit::{on_hover, Ctx, Shell, Widget, WidgetKind};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::MASKED_SOFTMAX, mount };

const MAX_TOKENS: usize = 10;

fn position(i: usize) -> String {
    format!("posição {}", i + 1)
}

pub struct MaskedSoftmaxWidget {
    shell: Shell,
    scores: RefCell<MatrixEditor>,
    causal: HtmlInputElement,
    masked: Rc<MatrixView>,
    weights: Rc<MatrixView>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let initial = attrs.matrices(&["scores"])?.remove("scores").unwrap_or_else(explicando_mask_scores);
    let t = initial.rows();
    if initial.cols() != t || t > MAX_TOKENS {
        return Err(format!(
            "data-matrices: «scores» deve ser quadrada (linha = consulta, coluna = chave) e ter no máximo {MAX_TOKENS} posições; tem {t} × {}.",
            initial.cols()
        ));
    }
    let shell = Shell::new(ctx, host, &KIND);
    let scores = MatrixEditor::new("scores", "scores (linha = consulta, coluna = chave)", &initial, position);
    scores.resized_by("add-token", "remove-token");
    dom::append(&shell.inputs, &scores.root);
    let (causal_label, causal) = ui::checkbox(" máscara causal", "causal", true);
    let more = ui::button("+ posição", "add-token");
    let fewer = ui::button("− posição", "remove-token");
    shell.control(&[&causal_label, &more, &fewer]);
    let masked = MatrixView::new("masked", "S + M", " (−∞ acima da diagonal)");
    let weights = MatrixView::new("weights", "softmax(S + M)", " cada linha soma 1");
    dom::append_all(&shell.outputs, &[&masked.root, &weights.root]);

    let widget = Rc::new(MaskedSoftmaxWidget { shell, scores: RefCell::new(scores), causal, masked, weights });
    let shell = &widget.shell;
    shell.recompute_on(&widget, &["change"]);
    shell.on_action(&widget, |w, action| match action {
        "add-token" => w.resize(1),
        "remove-token" => w.resize(-1),
        _ => {}
    });
    // A weight comes from its row of the masked scores; a masked score from its score.
    on_hover(&widget, &widget.weights, |w, cell| w.masked.highlight(&cell.map(|(r, _)| vec![r]).unwrap_or_default(), &[]));
    on_hover(&widget, &widget.masked, |w, cell| w.scores.borrow().highlight(cell.map(|(r, _)| r), cell.map(|(_, c)| c)));
    Ok(widget)
}

impl MaskedSoftmaxWidget {
    /// Scores are square (t queries × t keys): adds or removes a position on both sides.
    fn resize(self: &Rc<Self>, delta: i32) {
        let t = self.scores.borrow().rows() as i32 + delta;
        if !(1..=MAX_TOKENS as i32).contains(&t) {
            return self.shell.fail(&format!("Use entre 1 e {MAX_TOKENS} posições."));
        }
        self.scores.borrow_mut().resize(t as usize, t as usize);
        self.clone().recompute();
    }
}

impl Widget for MaskedSoftmaxWidget {
    fn recompute(self: Rc<Self>) {
        let causal = self.causal.checked();
        let job = self.scores.borrow().read().map(|scores| SoftmaxJob { scores, options: SoftmaxOptions { causal, ..Default::default() } });
        let widget = self.clone();
        self.shell.compute_or(job, move |job, weights, _| {
            let labels = numbered(weights.rows());
            let mask = |on: bool| on.then(|| Box::new(|r: usize, c: usize| c > r) as Box<dyn Fn(usize, usize) -> bool>);
            widget.masked.update(HeatmapData { matrix: job.scores.clone(), row_labels: labels.clone(), col_labels: labels.clone(), scale: Scale::Signed, masked: mask(causal) });
            widget.weights.update(HeatmapData { matrix: weights, row_labels: labels.clone(), col_labels: labels, scale: Scale::Probability, masked: None });
        });
    }

    /// A restored size (`scores@size`, t × t cells) makes the scores t × t.
    fn restore(&self, key: &str, value: &str) -> Option<bool> {
        (key == "scores@size").then(|| {
            let cells = value.parse::<usize>().unwrap_or(0);
            let t = (1..=MAX_TOKENS).find(|t| t * t == cells);
            t.inspect(|&t| self.scores.borrow_mut().resize(t, t)).is_some()
        })
    }
}
