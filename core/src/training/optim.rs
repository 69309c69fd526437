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

    /// The scalars of step `step` (1-based) at rate `lr` for a tensor that is decayed or not.
    pub fn step_for(&self, lr: f64, step: usize, decayed: bool) -> AdamWStep {
        let weight_decay = if decayed { self.weight_decay } else { 0.0 };
        AdamWStep { lr, beta1: self.beta1, beta2: self.beta2, eps: self.eps, weight_decay, step, clip: self.clip }
    }

    pub fn validate(&self) -> Result<()> {
        let unit = |b: f64| (0.0..1.0).contains(&b);
        if !(unit(self.beta1) && unit(self.beta2) && self.eps > 0.0 && self.learning_rate >= 0.0 && self.weight_decay >= 0.0 && self.clip > 0.0) {
            return Err(ComputeError::Invalid("AdamW: β em [0, 1), ε, limite e taxas positivos.".into()));
        }
        Ok(())
    }
}

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
        let mut norm2 = Matrix::zeros(1, 1);
        for g in grads {
            norm2 = sum_squares(&norm2, g)?;
        }
        for (i, theta) in params.iter_mut().enumerate() {
            let s = o.step_for(lr, self.step, decays[i]);
            adamw(theta, grads[i], &mut self.m[i], &mut self.v[i], &norm2, s)?;
        }
        Ok((norm2.get(0, 0) as f64).sqrt())
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
        let n2 = sum_squares(&sum_squares(&Matrix::zeros(1, 1), &g1).unwrap(), &g2).unwrap().get(0, 0) as f64;
        assert_eq!(n2, 25.0);
        assert!(sum_squares(&g1, &g2).is_ok() && sum_squares(&Matrix::zeros(1, 2), &g2).is_err());
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
