//! AdamW (Loshchilov & Hutter, 2019), as the training command runs it (`train/src/optim.rs`):
//! gradients clipped to a global norm, moments with bias correction, decoupled weight decay
//! on the matrices only (the embeddings and the projections; not biases or layer-norm γ, β),
//! and the learning-rate schedule of `train/src/main.rs` (linear warm-up, cosine to 10 %).
//!
//! One tensor's step and the squared global norm are ops (`ops::adamw`, the twins of the
//! `adamw` and `sum_squares` kernels); this module drives them over a model's tensors.

use crate::error::{ComputeError, Result};
use crate::matrix::Matrix;
use crate::ops::adamw::{adamw, sum_squares, AdamWStep};

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
    use crate::ops::adamw::clip_scale;

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
