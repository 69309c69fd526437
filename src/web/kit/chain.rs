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
    /// Clears every outline, then outlines what `cell` of `step` was computed from.
    pub fn link(&self, step: Step, cell: Option<(usize, usize)>) {
        for view in self.views.all() {
            view.highlight(&[], &[]);
        }
        for editor in [self.x].iter().chain(&self.w) {
            editor.borrow().highlight(None, None);
        }
        let [q, k, v, scores, weights, output] = self.views.all();
        let Some((i, j)) = cell else {
            if let Queries::All { chosen: Some(t) } = self.queries {
                for view in [scores, weights, output] {
                    view.highlight(&[t], &[]);
                }
            }
            return;
        };
        // The cell's query: its token (a row of X), its row in Q and the weights, in the scores.
        let (token, row, scores_row) = match self.queries {
            Queries::All { .. } => (i, i, i),
            Queries::One { token, scores_row } => (token, 0, scores_row),
        };
        // Where the keys' and values' rows are drawn: K and V, or X's single picture.
        let (keys, values) = if self.identity { (q, q) } else { (k, v) };
        match step {
            Step::Q | Step::K | Step::V => {
                self.x.borrow().highlight(Some(if step == Step::Q { token } else { i }), None);
                if !self.identity {
                    self.w[step as usize].borrow().highlight(None, Some(j));
                }
            }
            Step::Scores if self.identity => q.highlight(&[row, j], &[]),
            Step::Scores => {
                q.highlight(&[row], &[]);
                keys.highlight(&[j], &[]);
            }
            Step::Weights => scores.highlight(&[scores_row], &[]),
            Step::Output => {
                weights.highlight(&[row], &[]);
                values.highlight(&[], &[j]);
            }
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
