//! One AdamW step and the squared global norm it clips by: the CPU twins of the `sum_squares`
//! and `adamw` ops (the optimiser that drives them over a model is `training::optim`).
//!
//! The scalar arithmetic follows candle's step for step (f64 scalars cast to f32 where
//! candle's `affine` casts them), so a run here and a run there stay within rounding.

use crate::error::{ComputeError, Result};
use crate::matrix::Matrix;

/// acc + Σ g² (both (1,1)): one gradient's share of the squared global norm, added to the
/// running total. An op (`sum_squares`) so that the total stays on the backend: the GPU reads
/// it inside the AdamW kernel and a step never waits for a readback. Each tensor's sum is in
/// f32 (as candle's `sum_all`), the running total added in f64 then stored as f32.
pub fn sum_squares(acc: &Matrix, g: &Matrix) -> Result<Matrix> {
    if acc.shape() != (1, 1) {
        return Err(ComputeError::Shape { op: "Σ g²: acumulado", left: acc.shape(), right: (1, 1) });
    }
    let sum = g.as_slice().iter().map(|v| v * v).sum::<f32>();
    Matrix::from_vec(1, 1, vec![(acc.get(0, 0) as f64 + sum as f64) as f32])
}

/// The factor that brings the global norm √(Σ g²) down to `clip`; 1 when it is already below.
pub fn clip_scale(sum_squares: f64, clip: f64) -> f64 {
    let norm = sum_squares.sqrt();
    if norm > clip {
        clip / norm
    } else {
        1.0
    }
}

/// The per-step scalars of one tensor's update. The clipping factor is not among them: it
/// comes from the squared global norm, a tensor on the backend (see `adamw`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamWStep {
    pub lr: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    /// This tensor's decay (0 for vectors).
    pub weight_decay: f64,
    /// Steps taken, this one included (≥ 1).
    pub step: usize,
    /// Largest global gradient norm.
    pub clip: f64,
}

/// The f32 constants of one update, computed once on the host from the f64 scalars (as
/// candle's affine ops cast them), so the CPU and the GPU kernel multiply by the same bits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamWConstants {
    pub b1: f32,
    pub one_minus_b1: f32,
    pub b2: f32,
    pub one_minus_b2: f32,
    /// 1/(1−β₁ᵗ), 1/(1−β₂ᵗ): the bias corrections.
    pub inv_c1: f32,
    pub inv_c2: f32,
    pub eps: f32,
    /// 1 − lr·λ: the decoupled decay.
    pub keep: f32,
    pub lr: f32,
    pub clip: f32,
}

impl AdamWStep {
    pub fn constants(&self) -> AdamWConstants {
        let t = self.step as i32;
        let (c1, c2) = (1.0 - self.beta1.powi(t), 1.0 - self.beta2.powi(t));
        AdamWConstants {
            b1: self.beta1 as f32,
            one_minus_b1: (1.0 - self.beta1) as f32,
            b2: self.beta2 as f32,
            one_minus_b2: (1.0 - self.beta2) as f32,
            inv_c1: (1.0 / c1) as f32,
            inv_c2: (1.0 / c2) as f32,
            eps: self.eps as f32,
            keep: (1.0 - self.lr * self.weight_decay) as f32,
            lr: self.lr as f32,
            clip: self.clip as f32,
        }
    }
}

/// One AdamW update of θ in place, with its moments m, v (the `adamw` kernel's twin), the
/// gradient scaled by s = `clip_scale`(norm2) where norm2 (1,1) is the squared global norm:
/// g ← s·g; m ← β₁m + (1−β₁)g; v ← β₂v + (1−β₂)g²;
/// θ ← θ(1 − lr·λ) − lr · (m/(1−β₁ᵗ)) / (√(v/(1−β₂ᵗ)) + ε).
pub fn adamw(theta: &mut Matrix, grad: &Matrix, m: &mut Matrix, v: &mut Matrix, norm2: &Matrix, s: AdamWStep) -> Result<()> {
    for other in [grad.shape(), m.shape(), v.shape()] {
        if other != theta.shape() {
            return Err(ComputeError::Shape { op: "AdamW", left: theta.shape(), right: other });
        }
    }
    if norm2.shape() != (1, 1) {
        return Err(ComputeError::Shape { op: "AdamW: Σ g²", left: norm2.shape(), right: (1, 1) });
    }
    let k = s.constants();
    let scale = clip_scale(norm2.get(0, 0) as f64, s.clip) as f32;
    let values = theta.as_mut_slice().iter_mut().zip(grad.as_slice()).zip(m.as_mut_slice().iter_mut().zip(v.as_mut_slice()));
    for ((th, &g), (mi, vi)) in values {
        let g = g * scale;
        *mi = *mi * k.b1 + g * k.one_minus_b1;
        *vi = *vi * k.b2 + g * g * k.one_minus_b2;
        let update = (*mi * k.inv_c1) / ((*vi * k.inv_c2).sqrt() + k.eps);
        *th = *th * k.keep - update * k.lr;
    }
    Ok(())
}
