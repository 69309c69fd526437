//! Self-attention as the Transformer articles teach it, written once over any `Executor`.
//!
//! Row-vector convention of the textbook chapter: q_i = x_i W^Q, so Q = X W^Q (t,d_k).

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

/// Q, K, V, S = QKᵀ/√d_k, A = softmax(S), O = AV.
pub async fn attention_trace<E: Executor>(e: &E, inputs: &AttentionInputs) -> Result<AttentionTrace> {
    inputs.validate()?;
    let q = e.matmul(&inputs.x, &inputs.w_q).await?;
    let k = e.matmul(&inputs.x, &inputs.w_k).await?;
    let v = e.matmul(&inputs.x, &inputs.w_v).await?;
    let d_k = q.cols() as f32;
    let scores = e.matmul_bt(&q, &k, 1.0 / d_k.sqrt()).await?;
    // Finite inputs can still overflow f32 in the products: say so instead of drawing NaN.
    scores.check_finite("S = QKᵀ/√d_k (os valores estouraram o limite do f32)")?;
    let opts = SoftmaxOptions { causal: inputs.causal, ..Default::default() };
    let weights = e.softmax_rows(&scores, opts).await?;
    let output = e.matmul(&weights, &v).await?;
    Ok(AttentionTrace { q, k, v, scores, weights, output })
}

/// MultiHead(X) = Concat(head_1..head_h) W^O with head_i = Attention(X W_i^Q, X W_i^K, X W_i^V),
/// the per-head projections stored side by side as the columns of W^Q, W^K, W^V (d,d).
pub async fn multi_head_attention<E: Executor>(
    e: &E,
    x: &Matrix,
    w_q: &Matrix,
    w_k: &Matrix,
    w_v: &Matrix,
    w_o: &Matrix,
    heads: usize,
    causal: bool,
) -> Result<Matrix> {
    let q = e.matmul(x, w_q).await?;
    let k = e.matmul(x, w_k).await?;
    let v = e.matmul(x, w_v).await?;
    let attended = e.attention(&q, &k, &v, heads, causal, 0).await?;
    e.matmul(&attended.output, w_o).await
}

/// FFN(x) = ReLU(x W1 + b1) W2 + b2, applied to every row.
pub async fn feed_forward<E: Executor>(
    e: &E,
    x: &Matrix,
    w1: &Matrix,
    b1: &Matrix,
    w2: &Matrix,
    b2: &Matrix,
) -> Result<Matrix> {
    let hidden = e.add(&e.matmul(x, w1).await?, b1).await?;
    let hidden = e.relu(&hidden).await?;
    e.add(&e.matmul(&hidden, w2).await?, b2).await
}

impl super::executor::Job for AttentionInputs {
    type Output = AttentionTrace;
    async fn run<E: Executor>(&self, e: &E) -> Result<AttentionTrace> {
        attention_trace(e, self).await
    }
}
