//! AdamW (Loshchilov & Hutter, 2019), as the training command runs it (`train/src/optim.rs`):
//! gradients clipped to a global norm, moments with bias correction, decoupled weight decay
//! on the matrices only (the embeddings and the projections; not biases or layer-norm γ, β),
//! and the learning-rate schedule of `train/src/main.rs` (linear warm-up, cosine to 10 %).
//!
//! The scalar arithmetic follows the candle version step for step (f64 scalars cast to f32
//! where candle's `affine` casts them), so a run here and a run there stay within rounding.

use crate::error::{ComputeError, Result};
use crate::matrix::Matrix;

/// The optimiser's settings; the defaults are the shipped model's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdamWOptions {
    /// Peak learning rate (after the warm-up).
    pub learning_rate: f64,
    /// Steps of linear warm-up from lr/warmup to lr.
    pub warmup: usize,
    /// Total steps: the cosine reaches 10 % of the peak at the last one.
    pub steps: usize,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    /// Decoupled weight decay of the matrices.
    pub weight_decay: f64,
    /// Largest global gradient norm; larger gradients are scaled down to it.
    pub clip: f64,
}

impl Default for AdamWOptions {
    fn default() -> Self {
        AdamWOptions { learning_rate: 2e-3, warmup: 100, steps: 1000, beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: 0.1, clip: 1.0 }
    }
}

impl AdamWOptions {
    /// The rate of step `step` (0-based): `train/src/main.rs`'s `learning_rate`.
    pub fn learning_rate_at(&self, step: usize) -> f64 {
        if step < self.warmup {
            return self.learning_rate * (step + 1) as f64 / self.warmup as f64;
        }
        let progress = (step - self.warmup) as f64 / (self.steps.saturating_sub(self.warmup)).max(1) as f64;
        let cosine = 0.5 * (1.0 + (std::f64::consts::PI * progress.min(1.0)).cos());
        self.learning_rate * (0.1 + 0.9 * cosine)
    }

    pub fn validate(&self) -> Result<()> {
        let unit = |b: f64| (0.0..1.0).contains(&b);
        if !(unit(self.beta1) && unit(self.beta2) && self.eps > 0.0 && self.learning_rate >= 0.0 && self.weight_decay >= 0.0 && self.clip > 0.0) {
            return Err(ComputeError::Invalid("AdamW: β em [0, 1), ε, limite e taxas positivos.".into()));
        }
        Ok(())
    }
}

/// Σ g² over every gradient, in f64 (each tensor's sum in f32 first, as candle's `sum_all`).
pub fn sum_squares(grads: &[&Matrix]) -> f64 {
    grads.iter().map(|g| g.as_slice().iter().map(|v| v * v).sum::<f32>() as f64).sum()
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

/// The per-step scalars of one tensor's update.
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
    /// The clipping factor of this step's gradients.
    pub grad_scale: f64,
}

/// One AdamW update of θ in place, with its moments m, v (the future `adamw` kernel):
/// g ← s·g; m ← β₁m + (1−β₁)g; v ← β₂v + (1−β₂)g²;
/// θ ← θ(1 − lr·λ) − lr · (m/(1−β₁ᵗ)) / (√(v/(1−β₂ᵗ)) + ε).
pub fn adamw(theta: &mut Matrix, grad: &Matrix, m: &mut Matrix, v: &mut Matrix, s: AdamWStep) -> Result<()> {
    for other in [grad.shape(), m.shape(), v.shape()] {
        if other != theta.shape() {
            return Err(ComputeError::Shape { op: "AdamW", left: theta.shape(), right: other });
        }
    }
    let t = s.step as i32;
    let (c1, c2) = (1.0 - s.beta1.powi(t), 1.0 - s.beta2.powi(t));
    // The f32 constants candle's affine ops use for these f64 scalars.
    let (scale, b1, one_b1, b2, one_b2) = (s.grad_scale as f32, s.beta1 as f32, (1.0 - s.beta1) as f32, s.beta2 as f32, (1.0 - s.beta2) as f32);
    let (inv_c1, inv_c2, eps) = ((1.0 / c1) as f32, (1.0 / c2) as f32, s.eps as f32);
    let (keep, lr) = ((1.0 - s.lr * s.weight_decay) as f32, s.lr as f32);
    let values = theta.as_mut_slice().iter_mut().zip(grad.as_slice()).zip(m.as_mut_slice().iter_mut().zip(v.as_mut_slice()));
    for ((th, &g), (mi, vi)) in values {
        let g = g * scale;
        *mi = *mi * b1 + g * one_b1;
        *vi = *vi * b2 + g * g * one_b2;
        let update = (*mi * inv_c1) / ((*vi * inv_c2).sqrt() + eps);
        *th = *th * keep - update * lr;
    }
    Ok(())
}

/// AdamW's state over a list of tensors (one moment pair per tensor, in the same order).
#[derive(Clone, Debug)]
pub struct AdamW {
    pub options: AdamWOptions,
    /// Steps taken.
    pub step: usize,
    m: Vec<Matrix>,
    v: Vec<Matrix>,
}

impl AdamW {
    /// Zero moments for tensors of these shapes.
    pub fn new(options: AdamWOptions, shapes: &[(usize, usize)]) -> Result<AdamW> {
        options.validate()?;
        let zeros = || shapes.iter().map(|&(r, c)| Matrix::zeros(r, c)).collect();
        Ok(AdamW { options, step: 0, m: zeros(), v: zeros() })
    }

    /// One step over `params` with their `grads` (same order and shapes as at `new`);
    /// `decays[i]` says whether tensor i gets the weight decay. Returns the gradients' global
    /// norm before clipping.
    pub fn update(&mut self, params: &mut [&mut Matrix], grads: &[&Matrix], decays: &[bool]) -> Result<f64> {
        if params.len() != self.m.len() || grads.len() != self.m.len() || decays.len() != self.m.len() {
            return Err(ComputeError::Invalid("AdamW: parâmetros e gradientes em número diferente.".into()));
        }
        let o = self.options;
        let lr = o.learning_rate_at(self.step);
        self.step += 1;
        let norm2 = sum_squares(grads);
        let grad_scale = clip_scale(norm2, o.clip);
        for (i, theta) in params.iter_mut().enumerate() {
            let weight_decay = if decays[i] { o.weight_decay } else { 0.0 };
            let s = AdamWStep { lr, beta1: o.beta1, beta2: o.beta2, eps: o.eps, weight_decay, step: self.step, grad_scale };
            adamw(theta, grads[i], &mut self.m[i], &mut self.v[i], s)?;
        }
        Ok(norm2.sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_warms_up_then_follows_the_cosine_to_a_tenth() {
        let o = AdamWOptions { learning_rate: 1e-2, warmup: 10, steps: 110, ..Default::default() };
        assert!((o.learning_rate_at(0) - 1e-3).abs() < 1e-12);
        assert!((o.learning_rate_at(9) - 1e-2).abs() < 1e-12);
        assert!((o.learning_rate_at(10) - 1e-2).abs() < 1e-12);
        assert!((o.learning_rate_at(60) - 0.55e-2).abs() < 1e-12, "half way: 0.1 + 0.9·0.5");
        assert!((o.learning_rate_at(110) - 1e-3).abs() < 1e-12);
        assert!((o.learning_rate_at(500) - 1e-3).abs() < 1e-12, "past the end it stays at 10 %");
    }

    /// The first step of Adam moves each weight by ≈ lr·sign(g) (m̂ = g, v̂ = g²), plus the decay.
    #[test]
    fn first_step_moves_by_the_learning_rate_against_the_gradient() {
        let o = AdamWOptions { learning_rate: 0.01, warmup: 0, steps: 1, weight_decay: 0.5, clip: 1e9, ..Default::default() };
        let mut w = Matrix::from_rows(&[[1.0f32, -2.0], [0.5, 3.0]]).unwrap();
        let mut b = Matrix::from_rows(&[[1.0f32, 1.0]]).unwrap();
        let gw = Matrix::from_rows(&[[0.3f32, -4.0], [1e-3, 0.0]]).unwrap();
        let gb = Matrix::from_rows(&[[-2.0f32, 0.1]]).unwrap();
        let mut opt = AdamW::new(o, &[(2, 2), (1, 2)]).unwrap();
        opt.update(&mut [&mut w, &mut b], &[&gw, &gb], &[true, false]).unwrap();
        let keep = 1.0 - 0.01 * 0.5;
        let want_w = [1.0 * keep - 0.01, -2.0 * keep + 0.01, 0.5 * keep - 0.01, 3.0 * keep];
        for (got, want) in w.as_slice().iter().zip(want_w) {
            assert!((got - want).abs() < 1e-5, "{got} vs {want}");
        }
        assert!((b.get(0, 0) - 1.01).abs() < 1e-6 && (b.get(0, 1) - 0.99).abs() < 1e-6, "no decay on vectors: {:?}", b.as_slice());
    }

    #[test]
    fn clipping_scales_the_global_norm_down() {
        let g1 = Matrix::from_rows(&[[3.0f32]]).unwrap();
        let g2 = Matrix::from_rows(&[[4.0f32]]).unwrap();
        let n2 = sum_squares(&[&g1, &g2]);
        assert_eq!(n2, 25.0);
        assert!((clip_scale(n2, 1.0) - 0.2).abs() < 1e-12);
        assert_eq!(clip_scale(n2, 10.0), 1.0);
        // With clipping, Adam's first step is unchanged (m̂/√v̂ is scale-free) but for ε.
        let o = AdamWOptions { learning_rate: 0.1, warmup: 0, steps: 1, weight_decay: 0.0, clip: 1.0, ..Default::default() };
        let mut w = Matrix::from_rows(&[[0.0f32, 0.0]]).unwrap();
        let g = Matrix::from_rows(&[[3.0f32, -4.0]]).unwrap();
        let norm = AdamW::new(o, &[(1, 2)]).unwrap().update(&mut [&mut w], &[&g], &[false]).unwrap();
        assert_eq!(norm, 5.0);
        assert!((w.get(0, 0) + 0.1).abs() < 1e-6 && (w.get(0, 1) - 0.1).abs() < 1e-6);
    }
}
