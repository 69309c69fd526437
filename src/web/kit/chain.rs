//! Linked highlighting along the attention chain X·W → Q, K, V → Q·Kᵀ → softmax → ·V: a cell of
//! any step outlines the rows and columns it was computed from. Described once here for every
//! widget that draws the chain (`attention`, `self-attention-steps`, `mask-embeddings`):
//! Q = X·W^Q (row i of X, column j of W^Q; likewise K and V), scores = Q·Kᵀ (row i of Q, row j
//! of K), weights = softmax(scores) (row i of the scores), output = weights·V (row i of the
//! weights, column j of V).

use std::cell::RefCell;
use std::rc::Rc;

use super::draw::MatrixView;
use super::ui::MatrixEditor;

/// A step of the chain: which heatmap a cell is in.
#[derive(Clone, Copy, PartialEq)]
pub enum Step {
    Q,
    K,
    V,
    Scores,
    Weights,
    Output,
}

const STEPS: [Step; 6] = [Step::Q, Step::K, Step::V, Step::Scores, Step::Weights, Step::Output];

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
}

/// Where a widget draws the chain.
pub struct Chain<'a> {
    pub x: &'a RefCell<MatrixEditor>,
    /// W^Q, W^K, W^V.
    pub w: [&'a RefCell<MatrixEditor>; 3],
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
        self.x.borrow().highlight(x_row, None);
        for (editor, col) in self.w.iter().zip(w_col) {
            editor.borrow().highlight(None, col);
        }
    }
}

/// Hovering or focusing a cell of any of the six views hands its step and the cell (or `None`)
/// to `link`. Holds the widget weakly.
pub fn on_hover<W: 'static>(widget: &Rc<W>, views: &Views, link: fn(&W, Step, Option<(usize, usize)>)) {
    for (view, step) in views.all().into_iter().zip(STEPS) {
        super::on_hover(widget, view, move |w, cell| link(w, step, cell));
    }
}
