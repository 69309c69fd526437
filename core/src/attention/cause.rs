//! How each cell of the attention chain was computed, written out with its numbers (issue 37:
//! causes on hover or focus). A heatmap's tooltip shows the cell's value; this is the line
//! under it: the row and column behind the cell and the formula with the reader's numbers, so
//! "0,5138" reads as e^0,71 / (e^0,12 + e^0,3 + e^0,71). The value itself stays the one the
//! chain computed; the terms are the inputs it was computed from, shortened for display only.

use crate::format::{format_pt_short, subscript};
use crate::matrix::Matrix;
use crate::ops::matmul_cell_terms;

/// A step of the chain X·W → Q, K, V → Q·Kᵀ → softmax → ·V: which matrix a cell is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Q,
    K,
    V,
    Scores,
    Weights,
    Output,
}

impl Step {
    pub const ALL: [Step; 6] = [Step::Q, Step::K, Step::V, Step::Scores, Step::Weights, Step::Output];
}

/// Everything a cell of the chain came from: the inputs and every intermediate, owned, so a
/// tooltip can explain any cell after the computation is done.
#[derive(Clone, Debug)]
pub struct ChainNumbers {
    pub x: Matrix,
    /// W^Q, W^K and W^V; `None` where Q = K = V = X (no projection).
    pub w: Option<[Matrix; 3]>,
    /// Q, K, V, the scores (before the mask), the weights and the output.
    pub q: Matrix,
    pub k: Matrix,
    pub v: Matrix,
    pub scores: Matrix,
    /// What the scores were divided by: √d_k, or 1 when unscaled.
    pub divisor: f32,
    /// Future cells (j > i) hidden from the softmax.
    pub causal: bool,
    pub weights: Matrix,
}

/// Terms a formula writes out before it says "…": a row of 12 products would not fit a phone.
const SHOWN_TERMS: usize = 3;

/// A number inside a formula: up to 3 places, negatives in parentheses, as written by hand.
fn term(v: f32) -> String {
    let s = format_pt_short(v, 3);
    if s.starts_with('−') {
        format!("({s})")
    } else {
        s
    }
}

/// `parts` joined by " + ", the first `SHOWN_TERMS` of a longer list and then "… (n termos)".
fn sum_of(parts: Vec<String>) -> String {
    let n = parts.len();
    if n <= SHOWN_TERMS + 1 {
        return parts.join(" + ");
    }
    format!("{} + … ({n} termos)", parts[..SHOWN_TERMS].join(" + "))
}

/// a₁×b₁ + a₂×b₂ + …: a dot product written out.
fn products(pairs: impl Iterator<Item = (f32, f32)>) -> String {
    sum_of(pairs.map(|(x, y)| format!("{}×{}", term(x), term(y))).collect())
}

/// Cell (i, j) of A·B written out: row i of A times column j of B, term by term (the terms are
/// `ops::matmul_cell_terms`', which the matmul widget writes out too).
fn cell_of_product(a: &Matrix, b: &Matrix, i: usize, j: usize) -> Option<String> {
    let terms = matmul_cell_terms(a, b, i, j).ok()?;
    Some(products(terms.into_iter().map(|(x, y, _)| (x, y))))
}

impl ChainNumbers {
    /// The line that says how cell (i, j) of `step` was computed, or `None` where the cell is
    /// an input copied as it is (Q = X without projection).
    pub fn cause(&self, step: Step, i: usize, j: usize) -> Option<String> {
        let n = |k: usize| subscript(k + 1);
        // The rows' names: q, k and v, or x where Q = K = V = X (then the same numbers).
        let [query_row, key_row, value_row] = if self.w.is_some() { ["q", "k", "v"] } else { ["x"; 3] };
        let masked = |i: usize, j: usize| self.causal && j > i;
        let text = match step {
            Step::Q | Step::K | Step::V => {
                let w = &self.w.as_ref()?[step as usize];
                let name = ["Q", "K", "V"][step as usize];
                format!("x{}·(coluna {} de W^{name}) = {}", n(i), j + 1, cell_of_product(&self.x, w, i, j)?)
            }
            Step::Scores if masked(i, j) => format!("{key_row}{} > {}: a máscara causal põe −∞ (o futuro não conta)", n(j), n(i)),
            Step::Scores => {
                let dot = products(self.q.row(i).into_iter().zip(self.k.row(j)));
                let pair = format!("{query_row}{}·{key_row}{}", n(i), n(j));
                if self.divisor == 1.0 {
                    format!("{pair} = {dot}")
                } else {
                    format!("{pair} / √dₖ = ({dot}) / {}", term(self.divisor))
                }
            }
            Step::Weights if masked(i, j) => "máscara causal: e^(−∞) = 0".to_string(),
            Step::Weights => {
                let row = self.scores.row(i);
                let seen: Vec<String> = (0..row.len()).filter(|&k| !masked(i, k)).map(|k| format!("e^{}", term(row[k]))).collect();
                format!("e^s{}{} / Σ e^s{}ₖ = e^{} / ({})", n(i), n(j), n(i), term(row[j]), sum_of(seen))
            }
            Step::Output => format!("Σⱼ α{}ⱼ·{value_row}[j, {}] = {}", n(i), j + 1, cell_of_product(&self.weights, &self.v, i, j)?),
        };
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(causal: bool) -> ChainNumbers {
        let m = |rows: &[[f32; 2]]| Matrix::from_rows(rows).unwrap();
        let x = m(&[[1.0, 0.0], [0.5, -0.25]]);
        let w = m(&[[2.0, 0.0], [0.0, 1.0]]);
        let q = m(&[[2.0, 0.0], [1.0, -0.25]]);
        ChainNumbers {
            x: x.clone(),
            w: Some([w.clone(), w.clone(), w]),
            k: q.clone(),
            v: q.clone(),
            scores: m(&[[0.1, 0.2], [0.3, -0.4]]),
            divisor: 2f32.sqrt(),
            causal,
            weights: m(&[[0.6, 0.4], [0.7, 0.3]]),
            q,
        }
    }

    #[test]
    fn a_projection_is_a_row_of_x_times_a_column_of_w() {
        let text = numbers(false).cause(Step::K, 1, 0).unwrap();
        assert_eq!(text, "x₂·(coluna 1 de W^K) = 0,5×2 + (−0,25)×0");
    }

    #[test]
    fn a_score_is_a_scaled_dot_product_and_a_weight_a_softmax_share() {
        let n = numbers(false);
        assert_eq!(n.cause(Step::Scores, 0, 1).unwrap(), "q₁·k₂ / √dₖ = (2×1 + 0×(−0,25)) / 1,414");
        assert_eq!(n.cause(Step::Weights, 1, 0).unwrap(), "e^s₂₁ / Σ e^s₂ₖ = e^0,3 / (e^0,3 + e^(−0,4))");
        assert_eq!(n.cause(Step::Output, 0, 1).unwrap(), "Σⱼ α₁ⱼ·v[j, 2] = 0,6×0 + 0,4×(−0,25)");
    }

    #[test]
    fn the_causal_mask_leaves_the_future_out_of_the_sum() {
        let n = numbers(true);
        assert_eq!(n.cause(Step::Weights, 0, 0).unwrap(), "e^s₁₁ / Σ e^s₁ₖ = e^0,1 / (e^0,1)");
        assert!(n.cause(Step::Scores, 0, 1).unwrap().contains("−∞"));
        assert_eq!(n.cause(Step::Weights, 0, 1).unwrap(), "máscara causal: e^(−∞) = 0");
    }

    #[test]
    fn long_sums_are_shortened_and_unprojected_inputs_have_no_cause() {
        let wide = Matrix::from_rows(&[[1.0f32; 6]]).unwrap();
        let one = Matrix::from_rows(&[[1.0f32]]).unwrap();
        let n = ChainNumbers { x: wide.clone(), w: None, q: wide.clone(), k: wide.clone(), v: wide.clone(), scores: one.clone(), divisor: 1.0, causal: false, weights: one };
        assert_eq!(n.cause(Step::Q, 0, 0), None);
        assert_eq!(n.cause(Step::Scores, 0, 0).unwrap(), "x₁·x₁ = 1×1 + 1×1 + 1×1 + … (6 termos)");
        // Without projections the values are X's rows.
        assert!(n.cause(Step::Output, 0, 0).unwrap().starts_with("Σⱼ α₁ⱼ·x[j, 1] = "));
    }
}
