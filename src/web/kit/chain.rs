//! The attention chain X·W → Q, K, V → Q·Kᵀ → softmax → ·V, shared by the widgets that draw
//! it (`attention`, `self-attention-steps`, `mask-embeddings`): its four editors (`Editors`),
//! its six heatmaps (`Views`), and the linked highlighting (`Chain`), where a cell of any step
//! outlines the rows and columns it was computed from: Q = X·W^Q (row i of X, column j of
//! W^Q; likewise K and V), scores = Q·Kᵀ (row i of Q, row j of K), weights = softmax(scores)
//! (row i of the scores), output = weights·V (row i of the weights, column j of V).

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::HtmlElement;

use crate::core::attention::cause::ChainNumbers;
use crate::core::Matrix;
use crate::web::dom;

use super::draw::{numbered, HeatmapData, MatrixView, Scale};
use super::ui::{numbered_row, MatrixEditor};

pub use crate::core::attention::cause::Step;

/// Whose rows the results have.
#[derive(Clone, Copy)]
pub enum Queries {
    /// Every token's: row i of Q, the scores, the weights and the output is query i. At rest,
    /// the chosen query's row (if any) is outlined in the scores, the weights and the output.
    All { chosen: Option<usize> },
    /// Token `token`'s alone: Q, the weights and the output have its single row; the scores view
    /// stacks steps of it, of which the weights come from row `scores_row`. Nothing at rest.
    One { token: usize, scores_row: usize },
}

/// The chain's six heatmaps.
pub struct Views {
    pub q: Rc<MatrixView>,
    pub k: Rc<MatrixView>,
    pub v: Rc<MatrixView>,
    pub scores: Rc<MatrixView>,
    pub weights: Rc<MatrixView>,
    pub output: Rc<MatrixView>,
}

impl Views {
    /// The six heatmaps, in `Step` order, each from its (key, title, subtitle).
    pub fn new(made: [(&str, &str, &str); 6]) -> Views {
        let [q, k, v, scores, weights, output] = made.map(|(key, title, subtitle)| MatrixView::new(key, title, subtitle));
        Views { q, k, v, scores, weights, output }
    }

    /// The six, in `Step` order.
    pub fn all(&self) -> [&MatrixView; 6] {
        [&self.q, &self.k, &self.v, &self.scores, &self.weights, &self.output]
    }

    /// Draws the chain of every token's query, `[q, k, v, scores, weights, output]`: a row
    /// per token; Q, K, V and the output's columns numbered, on one shared scale; the scores' future cells hatched
    /// when `causal`.
    pub fn show_all(&self, tokens: &[String], matrices: [&Matrix; 6], causal: bool) {
        let [q, k, v, scores, weights, output] = matrices;
        // Q, K, V and the output (a weighted average of V's rows) are read side by side: one
        // colour domain for the four, so a colour is the same number in each.
        let shared = [q, k, v, output].iter().flat_map(|m| m.as_slice()).filter(|x| x.is_finite()).fold(0.0f32, |a, x| a.max(x.abs()));
        for (view, m) in [(&self.q, q), (&self.k, k), (&self.v, v), (&self.output, output)] {
            view.show(m, tokens.to_vec(), numbered(m.cols()), Scale::SignedUpTo(shared));
        }
        let masked = causal.then(|| Box::new(|r: usize, c: usize| c > r) as Box<dyn Fn(usize, usize) -> bool>);
        self.scores.update(HeatmapData { matrix: scores.clone(), row_labels: tokens.to_vec(), col_labels: tokens.to_vec(), scale: Scale::Signed, masked });
        self.weights.show(weights, tokens.to_vec(), tokens.to_vec(), Scale::Probability);
    }

    /// Each cell's tooltip says how it was computed, with these numbers (`ChainNumbers::cause`).
    pub fn explain(&self, numbers: ChainNumbers) {
        let numbers = Rc::new(numbers);
        for (view, step) in self.all().into_iter().zip(Step::ALL) {
            let numbers = numbers.clone();
            view.set_cause(move |i, j| numbers.cause(step, i, j));
        }
    }
}

/// The chain's inputs, one editor each: X (a token per row) and W^Q, W^K, W^V.
pub struct Editors {
    pub x: RefCell<MatrixEditor>,
    /// W^Q, W^K, W^V.
    pub w: [RefCell<MatrixEditor>; 3],
}

impl Editors {
    /// X as editor `x_key` named `x_name` (its rows named by `token`), then `w_q`, `w_k` and
    /// `w_v`, holding `[x, w_q, w_k, w_v]`, appended to `parent` in that order.
    pub fn new(parent: &HtmlElement, (x_key, x_name): (&str, &str), token: fn(usize) -> String, values: [&Matrix; 4]) -> Editors {
        let [x, w_q, w_k, w_v] = values;
        let x = MatrixEditor::new(x_key, x_name, x, token);
        let w = [("w_q", "W^Q", w_q), ("w_k", "W^K", w_k), ("w_v", "W^V", w_v)].map(|(key, name, m)| MatrixEditor::new(key, name, m, numbered_row));
        dom::append(parent, &x.root);
        for editor in &w {
            dom::append(parent, &editor.root);
        }
        Editors { x: RefCell::new(x), w: w.map(RefCell::new) }
    }

    /// Shows `[x, w_q, w_k, w_v]` ("restaurar exemplo", another preset).
    pub fn set(&self, values: [&Matrix; 4]) {
        for (editor, m) in std::iter::once(&self.x).chain(&self.w).zip(values) {
            editor.borrow_mut().set(m);
        }
    }

    /// X as typed, or the message naming its first bad cell.
    pub fn read_x(&self) -> Result<Matrix, String> {
        self.x.borrow().read()
    }

    /// W^Q, W^K and W^V as typed, or the message naming the first bad cell.
    pub fn read_w(&self) -> Result<[Matrix; 3], String> {
        let [q, k, v] = self.w.each_ref().map(|e| e.borrow().read());
        Ok([q?, k?, v?])
    }

    /// Hides or shows the three W's (a preset without projections).
    pub fn hide_w(&self, hidden: bool) {
        for editor in &self.w {
            editor.borrow().root.set_hidden(hidden);
        }
    }
}

/// Where a widget draws the chain.
pub struct Chain<'a> {
    pub editors: &'a Editors,
    pub views: &'a Views,
    /// Q = K = V = X, drawn once in Q's view: no projection to outline.
    pub identity: bool,
    pub queries: Queries,
}

impl Chain<'_> {
    /// Outlines what `cell` of `step` was computed from, and nothing else. Each view and editor
    /// is set once, to its final outline: a view redraws when its outline changes, and clearing
    /// everything first redrew the chosen query's three views twice on every edit.
    pub fn link(&self, step: Step, cell: Option<(usize, usize)>) {
        // Rows and columns to outline, per view in `Step` order; X's row; each W's column.
        let mut marks: [(Vec<usize>, Vec<usize>); 6] = Default::default();
        let mut x_row = None;
        let mut w_col = [None; 3];
        match cell {
            None => {
                if let Queries::All { chosen: Some(t) } = self.queries {
                    for s in [Step::Scores, Step::Weights, Step::Output] {
                        marks[s as usize].0 = vec![t];
                    }
                }
            }
            Some((i, j)) => {
                // The cell's query: its token (a row of X), its row in Q and the weights, in the scores.
                let (token, row, scores_row) = match self.queries {
                    Queries::All { .. } => (i, i, i),
                    Queries::One { token, scores_row } => (token, 0, scores_row),
                };
                // Where the keys' and values' rows are drawn: K and V, or X's single picture.
                let (keys, values) = if self.identity { (Step::Q, Step::Q) } else { (Step::K, Step::V) };
                match step {
                    Step::Q | Step::K | Step::V => {
                        x_row = Some(if step == Step::Q { token } else { i });
                        if !self.identity {
                            w_col[step as usize] = Some(j);
                        }
                    }
                    Step::Scores if self.identity => marks[Step::Q as usize].0 = vec![row, j],
                    Step::Scores => {
                        marks[Step::Q as usize].0 = vec![row];
                        marks[keys as usize].0 = vec![j];
                    }
                    Step::Weights => marks[Step::Scores as usize].0 = vec![scores_row],
                    Step::Output => {
                        marks[Step::Weights as usize].0 = vec![row];
                        marks[values as usize].1 = vec![j];
                    }
                }
            }
        }
        for (view, (rows, cols)) in self.views.all().into_iter().zip(&marks) {
            view.highlight(rows, cols);
        }
        self.editors.x.borrow().highlight(x_row, None);
        for (editor, col) in self.editors.w.iter().zip(w_col) {
            editor.borrow().highlight(None, col);
        }
    }
}

/// Hovering or focusing a cell of any of the six views hands its step and the cell (or `None`)
/// to `link`. Holds the widget weakly.
pub fn on_hover<W: 'static>(widget: &Rc<W>, views: &Views, link: fn(&W, Step, Option<(usize, usize)>)) {
    for (view, step) in views.all().into_iter().zip(Step::ALL) {
        super::on_hover(widget, view, move |w, cell| link(w, step, cell));
    }
}
