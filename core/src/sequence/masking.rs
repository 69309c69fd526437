//! Masks: choosing which earlier words count. The Hadamard product (A ∘ B)_ij = A_ij B_ij
//! applies a mask to votes or features; in attention the mask must act on the scores before
//! the softmax, and there multiplying by 0 is a bug (e⁰ = 1 keeps the word) while adding −∞
//! removes it (e^−∞ = 0). Both are here, so the widget can show the difference.

use crate::error::{ComputeError, Result};
use crate::executor::{block_on_ready, Cpu, Executor, Job};
use crate::matrix::Matrix;
use crate::ops::{self, SoftmaxOptions};

/// Fails unless `mask` has `len` weights, each finite and in [0, 1].
pub fn check_mask(mask: &[f32], len: usize) -> Result<()> {
    if mask.len() != len {
        return Err(ComputeError::Invalid(format!(
            "A máscara tem {} pesos, mas há {len} posições.",
            mask.len()
        )));
    }
    if let Some(i) = mask.iter().position(|m| !(m.is_finite() && (0.0..=1.0).contains(m))) {
        return Err(ComputeError::Invalid(format!("O peso {} da máscara precisa estar entre 0 e 1.", i + 1)));
    }
    Ok(())
}

/// A ∘ B, elementwise; fails unless the shapes are equal.
pub fn hadamard(a: &Matrix, b: &Matrix) -> Result<Matrix> {
    if a.shape() != b.shape() {
        return Err(ComputeError::Shape { op: "A∘B", left: a.shape(), right: b.shape() });
    }
    Ok(Matrix::from_array(a.array() * b.array()))
}

/// M ∘ (m broadcast along the columns): row i scaled by mask[i] (mask in [0, 1]).
pub fn mask_rows(m: &Matrix, mask: &[f32]) -> Result<Matrix> {
    check_mask(mask, m.rows())?;
    let column = ndarray::Array2::from_shape_vec((mask.len(), 1), mask.to_vec())
        .map_err(|e| ComputeError::Invalid(e.to_string()))?;
    Ok(Matrix::from_array(m.array() * &column))
}

/// How a mask reaches attention scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskMode {
    /// The mask is ignored.
    Unmasked,
    /// s + ln m: a 0 becomes −∞ (weight exactly 0), a 1 leaves s unchanged, and a weight in
    /// between scales e^s by m. The correct way.
    Additive,
    /// s · m, as the article does: a masked score becomes 0, and e⁰ = 1 still gets weight.
    Multiplicative,
}

/// The scores after the mask, ready for the softmax (−∞ where `Additive` masks out).
pub fn apply_mask(scores: &[f32], mask: &[f32], mode: MaskMode) -> Result<Vec<f32>> {
    check_mask(mask, scores.len())?;
    Ok(scores
        .iter()
        .zip(mask)
        .map(|(&s, &m)| match mode {
            MaskMode::Unmasked => s,
            MaskMode::Additive if m == 0.0 => f32::NEG_INFINITY,
            MaskMode::Additive => s + m.ln(),
            MaskMode::Multiplicative => s * m,
        })
        .collect())
}

/// softmax(apply_mask(scores)); if every position is masked out the weights are uniform
/// (the convention of `ops::softmax_rows`: always a distribution, never NaN).
pub fn masked_softmax(scores: &[f32], mask: &[f32], mode: MaskMode) -> Result<Vec<f32>> {
    softmax(&apply_mask(scores, mask, mode)?)
}

/// The stable softmax of one row (−∞ → 0).
fn softmax(scores: &[f32]) -> Result<Vec<f32>> {
    if scores.is_empty() {
        return Err(ComputeError::Empty { what: "A lista de scores" });
    }
    let row = Matrix::from_vec(1, scores.len(), scores.to_vec())?;
    Ok(ops::softmax_rows(&row, SoftmaxOptions::default())?.row(0))
}

/// Every intermediate of one query attending over a masked sequence.
#[derive(Clone, Debug, PartialEq)]
pub struct MaskedQuery {
    /// q_t = x_t W^Q.
    pub q: Vec<f32>,
    /// K = X W^K (tokens × d_k).
    pub k: Matrix,
    /// V = X W^V (tokens × d_v).
    pub v: Matrix,
    /// q_t · k_i.
    pub dot: Vec<f32>,
    /// q_t · k_i / √d_k.
    pub scores: Vec<f32>,
    /// The scores after the mask.
    pub masked_scores: Vec<f32>,
    /// α_t = softmax of the masked scores.
    pub weights: Vec<f32>,
    /// c_t = Σ_i α_ti v_i.
    pub context: Vec<f32>,
}

/// Attention of token `t` of X (tokens × d) over all tokens, with `mask` (one weight per token)
/// applied by `mode`. Row-vector convention: Q = X W^Q. The CPU run of `MaskedQueryJob`.
pub fn masked_query_attention(
    x: &Matrix,
    w_q: &Matrix,
    w_k: &Matrix,
    w_v: &Matrix,
    t: usize,
    mask: &[f32],
    mode: MaskMode,
) -> Result<MaskedQuery> {
    let job = MaskedQueryJob {
        x: x.clone(),
        w_q: w_q.clone(),
        w_k: w_k.clone(),
        w_v: w_v.clone(),
        t,
        mask: mask.to_vec(),
        mode,
    };
    block_on_ready(job.run(&Cpu))
}

/// One query attending over a masked sequence, written once over any `Executor` so the
/// widget runs the products and the softmax on the active backend. The mask itself is applied
/// on the CPU (`apply_mask`: elementwise, and the point of the lesson); the softmax kernel
/// gives −∞ exactly weight 0.
#[derive(Clone, Debug, PartialEq)]
pub struct MaskedQueryJob {
    /// X (tokens × d), one row per token.
    pub x: Matrix,
    /// W^Q (d × d_k).
    pub w_q: Matrix,
    /// W^K (d × d_k).
    pub w_k: Matrix,
    /// W^V (d × d_v).
    pub w_v: Matrix,
    /// The query position (0-based).
    pub t: usize,
    /// One weight in [0, 1] per token.
    pub mask: Vec<f32>,
    /// How the mask reaches the scores.
    pub mode: MaskMode,
}

impl MaskedQueryJob {
    fn validate(&self) -> Result<()> {
        for (name, m) in [("X", &self.x), ("W^Q", &self.w_q), ("W^K", &self.w_k), ("W^V", &self.w_v)] {
            m.check_finite(name)?;
        }
        if self.x.rows() == 0 || self.x.cols() == 0 {
            return Err(ComputeError::Empty { what: "A matriz X" });
        }
        if self.t >= self.x.rows() {
            return Err(ComputeError::Invalid(format!(
                "A posição {} não existe: a sequência tem {} tokens.",
                self.t + 1,
                self.x.rows()
            )));
        }
        for (name, w) in [("W^Q", &self.w_q), ("W^K", &self.w_k), ("W^V", &self.w_v)] {
            if w.rows() != self.x.cols() || w.cols() == 0 {
                return Err(ComputeError::Invalid(format!(
                    "{name} precisa ter {} linhas (a largura dos embeddings), mas é {}×{}.",
                    self.x.cols(),
                    w.rows(),
                    w.cols()
                )));
            }
        }
        if self.w_q.cols() != self.w_k.cols() {
            return Err(ComputeError::Shape { op: "W^Q e W^K", left: self.w_q.shape(), right: self.w_k.shape() });
        }
        check_mask(&self.mask, self.x.rows())
    }
}

impl Job for MaskedQueryJob {
    type Output = MaskedQuery;
    async fn run<E: Executor>(&self, e: &E) -> Result<MaskedQuery> {
        self.validate()?;
        // q_t = x_t W^Q (1 × d_k); K = X W^K, V = X W^V (tokens × d_k, tokens × d_v).
        let x = e.upload(&self.x)?;
        let x_t = e.rows(&x, self.t, self.t + 1)?;
        let q = e.matmul(&x_t, &e.upload(&self.w_q)?)?;
        let k = e.matmul(&x, &e.upload(&self.w_k)?)?;
        let v = e.matmul(&x, &e.upload(&self.w_v)?)?;
        // q_t · k_i, then the same divided by √d_k (1 × tokens).
        let dot = e.matmul_bt(&q, &k, 1.0)?;
        let scores = e.matmul_bt(&q, &k, 1.0 / (self.w_q.cols() as f32).sqrt())?;
        // The mask is applied on the host (the lesson's point), so the scores come back first.
        let [q_host, k_host, dot, scores] = e.read_n([&q, &k, &dot, &scores]).await?;
        let (dot, scores) = (dot.row(0), scores.row(0));
        let masked_scores = apply_mask(&scores, &self.mask, self.mode)?;
        // α_t = softmax(masked scores); c_t = α_t V.
        let row = e.upload(&Matrix::from_vec(1, masked_scores.len(), masked_scores.clone())?)?;
        let alpha = e.softmax_rows(&row, SoftmaxOptions::default())?;
        let context = e.matmul(&alpha, &v)?;
        let [v, alpha, context] = e.read_n([&v, &alpha, &context]).await?;
        Ok(MaskedQuery { q: q_host.row(0), k: k_host, v, dot, scores, masked_scores, weights: alpha.row(0), context: context.row(0) })
    }
}
