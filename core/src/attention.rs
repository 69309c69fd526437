//! Self-attention as the Transformer articles teach it, written once over any `Executor`.
//!
//! Row-vector convention of the textbook chapter: q_i = x_i W^Q, so Q = X W^Q (t,d_k).

pub mod cause;
pub mod gradient_check;
pub mod soft_dictionary;

use super::error::{ComputeError, Result};
use super::executor::Executor;
use super::matrix::Matrix;
use super::ops::SoftmaxOptions;

/// What the attention widget edits.
#[derive(Clone, Debug, PartialEq)]
pub struct AttentionInputs {
    /// X (t,d): one row per token.
    pub x: Matrix,
    /// W^Q (d,d_k).
    pub w_q: Matrix,
    /// W^K (d,d_k).
    pub w_k: Matrix,
    /// W^V (d,d_v).
    pub w_v: Matrix,
    /// Hide future tokens (j > i).
    pub causal: bool,
}

/// Every intermediate of single-head attention, in the order it is computed.
#[derive(Clone, Debug, PartialEq)]
pub struct AttentionTrace {
    /// Q = X W^Q (t,d_k)
    pub q: Matrix,
    /// K = X W^K (t,d_k)
    pub k: Matrix,
    /// V = X W^V (t,d_v)
    pub v: Matrix,
    /// S = Q Kᵀ / √d_k (t,t), before masking.
    pub scores: Matrix,
    /// A = softmax(S [+ mask]) (t,t), rows sum to 1.
    pub weights: Matrix,
    /// O = A V (t,d_v)
    pub output: Matrix,
}

impl AttentionInputs {
    pub fn validate(&self) -> Result<()> {
        self.x.check_finite("X")?;
        self.w_q.check_finite("W^Q")?;
        self.w_k.check_finite("W^K")?;
        self.w_v.check_finite("W^V")?;
        if self.x.rows() == 0 || self.x.cols() == 0 {
            return Err(ComputeError::Empty { what: "A matriz X" });
        }
        for (name, w) in [("W^Q", &self.w_q), ("W^K", &self.w_k), ("W^V", &self.w_v)] {
            if w.rows() != self.x.cols() {
                return Err(ComputeError::Invalid(format!(
                    "{name} precisa ter {} linhas (a largura de X), mas tem {}.",
                    self.x.cols(),
                    w.rows()
                )));
            }
        }
        if self.w_q.cols() != self.w_k.cols() {
            return Err(ComputeError::Invalid(
                "W^Q e W^K precisam ter o mesmo número de colunas (d_k).".into(),
            ));
        }
        Ok(())
    }
}

impl AttentionTrace {
    /// What each cell was computed from, for the tooltips' causes (`cause::ChainNumbers`):
    /// these inputs, these intermediates, the scores divided by √d_k as `attention_trace` does.
    pub fn chain_numbers(&self, inputs: &AttentionInputs) -> cause::ChainNumbers {
        cause::ChainNumbers {
            x: inputs.x.clone(),
            w: Some([inputs.w_q.clone(), inputs.w_k.clone(), inputs.w_v.clone()]),
            q: self.q.clone(),
            k: self.k.clone(),
            v: self.v.clone(),
            scores: self.scores.clone(),
            divisor: (inputs.w_q.cols() as f32).sqrt(),
            causal: inputs.causal,
            weights: self.weights.clone(),
        }
    }
}

/// Q, K, V, S = QKᵀ/√d_k, A = softmax(S), O = AV: six ops, one readback.
pub async fn attention_trace<E: Executor>(e: &E, inputs: &AttentionInputs) -> Result<AttentionTrace> {
    inputs.validate()?;
    let x = e.upload(&inputs.x)?;
    let q = e.matmul(&x, &e.upload(&inputs.w_q)?)?;
    let k = e.matmul(&x, &e.upload(&inputs.w_k)?)?;
    let v = e.matmul(&x, &e.upload(&inputs.w_v)?)?;
    let d_k = inputs.w_q.cols() as f32;
    let scores = e.matmul_bt(&q, &k, 1.0 / d_k.sqrt())?;
    let opts = SoftmaxOptions { causal: inputs.causal, ..Default::default() };
    let weights = e.softmax_rows(&scores, opts)?;
    let output = e.matmul(&weights, &v)?;
    let [q, k, v, scores, weights, output] = e.read_n([&q, &k, &v, &scores, &weights, &output]).await?;
    // Finite inputs can still overflow f32 in the products: say so instead of drawing NaN.
    scores.check_finite("S = QKᵀ/√d_k (os valores estouraram o limite do f32)")?;
    Ok(AttentionTrace { q, k, v, scores, weights, output })
}

/// MultiHead(X) = Concat(head_1..head_h) W^O with head_i = Attention(X W_i^Q, X W_i^K, X W_i^V),
/// the per-head projections stored side by side as the columns of W^Q, W^K, W^V (d,d).
/// Tensors in, a tensor out: callers compose it and read once.
#[allow(clippy::too_many_arguments)]
pub fn multi_head_attention<E: Executor>(
    e: &E,
    x: &E::Tensor,
    w_q: &E::Tensor,
    w_k: &E::Tensor,
    w_v: &E::Tensor,
    w_o: &E::Tensor,
    heads: usize,
    causal: bool,
) -> Result<E::Tensor> {
    let q = e.matmul(x, w_q)?;
    let k = e.matmul(x, w_k)?;
    let v = e.matmul(x, w_v)?;
    let (attended, _) = e.attention(&q, &k, &v, heads, causal, 0)?;
    e.matmul(&attended, w_o)
}

/// FFN(x) = ReLU(x W1 + b1) W2 + b2, applied to every row.
pub fn feed_forward<E: Executor>(
    e: &E,
    x: &E::Tensor,
    w1: &E::Tensor,
    b1: &E::Tensor,
    w2: &E::Tensor,
    b2: &E::Tensor,
) -> Result<E::Tensor> {
    let hidden = e.add(&e.matmul(x, w1)?, b1)?;
    let hidden = e.relu(&hidden)?;
    e.add(&e.matmul(&hidden, w2)?, b2)
}

impl super::executor::Job for AttentionInputs {
    type Output = AttentionTrace;
    async fn run<E: Executor>(&self, e: &E) -> Result<AttentionTrace> {
        attention_trace(e, self).await
    }
}
