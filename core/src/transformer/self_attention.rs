//! Self-attention step by step, as the textbook chapter works it: for one query i, the dot
//! products with every key, the optional division by √d_k, the exponentials, the softmax
//! weights and the weighted sum of the values.
//!
//! Example 1 uses the vectors themselves (no projections, no scaling); Example 2 projects
//! them with W^Q, W^K, W^V and divides by √d_k. Both examples, as printed, let x₂ attend to
//! x₃, a later token, although the chapter's own formula sums over j ≤ i only: `causal`
//! applies that restriction.

use crate::attention::cause::ChainNumbers;
use crate::attention::AttentionInputs;
use crate::error::Result;
use crate::examples::textbook_example_2;
use crate::executor::{Executor, Job};
use crate::matrix::Matrix;
use crate::ops::SoftmaxOptions;

/// What the step-by-step widget edits.
#[derive(Clone, Debug, PartialEq)]
pub struct StepInputs {
    /// X (t, d), W^Q, W^K, W^V (d, d_k) and the causal switch, as in `AttentionInputs`.
    pub attention: AttentionInputs,
    /// Divide the dot products by √d_k (Example 2) or not (Example 1).
    pub scaled: bool,
}

/// Every matrix of the computation.
#[derive(Clone, Debug, PartialEq)]
pub struct StepTrace {
    /// Q = X W^Q, K = X W^K, V = X W^V.
    pub q: Matrix,
    pub k: Matrix,
    pub v: Matrix,
    /// Q Kᵀ (t, t): the raw dot products q_i·k_j.
    pub dots: Matrix,
    /// The scores the softmax sees: Q Kᵀ/√d_k when scaled, else Q Kᵀ.
    pub scores: Matrix,
    /// softmax by rows (masked cells exactly 0 when causal).
    pub weights: Matrix,
    /// weights · V (t, d_v).
    pub output: Matrix,
    /// √d_k when scaled, else 1.
    pub divisor: f32,
    pub causal: bool,
}

/// One query's computation, spelled out for the reader.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryStep {
    /// q_i·k_j for every j.
    pub dots: Vec<f32>,
    /// score_ij = q_i·k_j / divisor.
    pub scores: Vec<f32>,
    /// Whether key j is visible to query i (j ≤ i under the causal mask).
    pub visible: Vec<bool>,
    /// exp(score_ij) for the visible keys, 0 for hidden ones.
    pub exps: Vec<f32>,
    /// Σ_j exp(score_ij) over the visible keys.
    pub sum: f32,
    /// α_ij, from the backend's softmax.
    pub weights: Vec<f32>,
    /// α_ij · v_j (one row per key).
    pub terms: Vec<Vec<f32>>,
    /// a_i = Σ_j α_ij v_j.
    pub output: Vec<f32>,
}

impl StepInputs {
    /// Example 1: x₁ = [1,0,0], x₂ = [0,1,0], x₃ = [1,1,0], the vectors themselves as queries,
    /// keys and values (identity projections), raw dot products.
    pub fn example_1() -> StepInputs {
        let x = textbook_example_2().x;
        let identity = identity(x.cols());
        StepInputs {
            attention: AttentionInputs { x, w_q: identity.clone(), w_k: identity.clone(), w_v: identity, causal: false },
            scaled: false,
        }
    }

    /// Example 2: the same vectors, the chapter's W^Q, W^K, W^V, scores divided by √3.
    pub fn example_2() -> StepInputs {
        StepInputs { attention: textbook_example_2(), scaled: true }
    }
}

/// The (n, n) identity: "no projection".
pub fn identity(n: usize) -> Matrix {
    let mut m = Matrix::zeros(n, n);
    for i in 0..n {
        m.set(i, i, 1.0);
    }
    m
}

/// Runs the whole computation on `e`.
pub async fn step_trace<E: Executor>(e: &E, inputs: &StepInputs) -> Result<StepTrace> {
    let a = &inputs.attention;
    a.validate()?;
    let x = e.upload(&a.x)?;
    let q = e.matmul(&x, &e.upload(&a.w_q)?)?;
    let k = e.matmul(&x, &e.upload(&a.w_k)?)?;
    let v = e.matmul(&x, &e.upload(&a.w_v)?)?;
    let dots = e.matmul_bt(&q, &k, 1.0)?;
    let divisor = if inputs.scaled { (a.w_q.cols() as f32).sqrt() } else { 1.0 };
    let scores = if inputs.scaled { e.scale(&dots, 1.0 / divisor)? } else { dots.clone() };
    let opts = SoftmaxOptions { causal: a.causal, ..Default::default() };
    let weights = e.softmax_rows(&scores, opts)?;
    let output = e.matmul(&weights, &v)?;
    let [q, k, v, dots, scores, weights, output] = e.read_n([&q, &k, &v, &dots, &scores, &weights, &output]).await?;
    Ok(StepTrace { q, k, v, dots, scores, weights, output, divisor, causal: a.causal })
}

impl Job for StepInputs {
    type Output = StepTrace;
    async fn run<E: Executor>(&self, e: &E) -> Result<StepTrace> {
        step_trace(e, self).await
    }
}

impl StepTrace {
    /// What each cell was computed from, for the tooltips' causes; `projected` false where
    /// Q = K = V = X (Example 1: the W's are identities, not shown).
    pub fn chain_numbers(&self, inputs: &StepInputs, projected: bool) -> ChainNumbers {
        let a = &inputs.attention;
        ChainNumbers {
            x: a.x.clone(),
            w: projected.then(|| [a.w_q.clone(), a.w_k.clone(), a.w_v.clone()]),
            q: self.q.clone(),
            k: self.k.clone(),
            v: self.v.clone(),
            scores: self.scores.clone(),
            divisor: self.divisor,
            causal: self.causal,
            weights: self.weights.clone(),
        }
    }

    /// The computation of query `i` (clamped to the last token), for the step table.
    pub fn query(&self, i: usize) -> QueryStep {
        let i = i.min(self.q.rows().saturating_sub(1));
        let t = self.k.rows();
        let visible: Vec<bool> = (0..t).map(|j| !self.causal || j <= i).collect();
        let scores = self.scores.row(i);
        let exps: Vec<f32> = scores.iter().zip(&visible).map(|(s, &on)| if on { s.exp() } else { 0.0 }).collect();
        let weights = self.weights.row(i);
        let terms: Vec<Vec<f32>> =
            (0..t).map(|j| self.v.row(j).iter().map(|x| x * weights[j]).collect()).collect();
        QueryStep {
            dots: self.dots.row(i),
            scores,
            visible,
            sum: exps.iter().sum(),
            exps,
            weights,
            terms,
            output: self.output.row(i),
        }
    }
}
