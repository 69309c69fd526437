//! SwiGLU against the 2017 FFN (issue 41). The same tokens (seeded, the same for every
//! reader) go through ReLU(x·W₁)·W₂ with d_ff hidden units and through
//! (SiLU(x·W_gate) ⊙ x·W_up)·W_down with h hidden units, h = ⅔·d_ff rounded (the rule that
//! keeps three matrices at the parameter count of two). The hidden activations show the
//! difference: ReLU cuts every negative pre-activation to an exact 0, the gate scales each
//! value unit by a smooth, signed amount. The activation curves (ReLU, GELU, SiLU) come from
//! the same ops.

use crate::error::{ComputeError, Result};
use crate::executor::{Executor, Job};
use crate::matrix::Matrix;
use crate::rng::Rng;
use crate::transformer::block::params;

/// The largest d and d_ff whose activations are drawn.
pub const MAX_WIDTH: usize = 64;
pub const MAX_HIDDEN: usize = 256;
/// The curves' inputs: −4 … 4 in steps of ¼.
pub const CURVE_POINTS: usize = 33;

#[derive(Clone, Debug, PartialEq)]
pub struct SwigluJob {
    pub d: usize,
    pub d_ff: usize,
    pub tokens: usize,
    pub seed: u64,
}

impl SwigluJob {
    pub fn new(d: usize, d_ff: usize) -> SwigluJob {
        SwigluJob { d, d_ff, tokens: 4, seed: 41 }
    }
}

/// Parameter counts of one FFN of width d.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FfnCounts {
    /// 2017: W₁, b₁, W₂, b₂.
    pub relu: u64,
    /// SwiGLU with the same hidden width d_ff (three matrices, no biases).
    pub swiglu_same_width: u64,
    /// SwiGLU with h = ⅔·d_ff hidden units.
    pub swiglu_two_thirds: u64,
    pub hidden: usize,
}

/// h = ⅔·d_ff, rounded to the nearest unit (at least 1).
pub fn two_thirds(d_ff: usize) -> usize {
    ((2 * d_ff + 1) / 3).max(1)
}

pub fn ffn_counts(d: usize, d_ff: usize) -> FfnCounts {
    let (d64, f64_, h) = (d as u64, d_ff as u64, two_thirds(d_ff));
    FfnCounts { relu: params::ffn(d64, f64_), swiglu_same_width: 3 * d64 * f64_, swiglu_two_thirds: 3 * d64 * h as u64, hidden: h }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Swiglu {
    pub counts: FfnCounts,
    /// ReLU(x·W₁ + b₁): tokens × d_ff.
    pub relu_hidden: Matrix,
    /// SiLU(x·W_gate) ⊙ x·W_up: tokens × h.
    pub swiglu_hidden: Matrix,
    /// The share of exact zeros in each.
    pub relu_zeros: f32,
    pub swiglu_zeros: f32,
    /// Both outputs (tokens × d), each with its own seeded weights.
    pub relu_output: Matrix,
    pub swiglu_output: Matrix,
    /// x = −4 … 4 and ReLU(x), GELU(x), SiLU(x).
    pub curve_x: Vec<f32>,
    pub curves: [Vec<f32>; 3],
}

fn zeros_share(m: &Matrix) -> f32 {
    m.as_slice().iter().filter(|&&v| v == 0.0).count() as f32 / m.as_slice().len().max(1) as f32
}

impl Job for SwigluJob {
    type Output = Swiglu;
    async fn run<E: Executor>(&self, e: &E) -> Result<Swiglu> {
        if self.d == 0 || self.d_ff == 0 || self.tokens == 0 {
            return Err(ComputeError::Invalid("d e d_ff precisam ser pelo menos 1.".into()));
        }
        crate::transformer::check_cap("d", self.d, MAX_WIDTH)?;
        crate::transformer::check_cap("d_ff", self.d_ff, MAX_HIDDEN)?;
        let counts = ffn_counts(self.d, self.d_ff);
        let h = counts.hidden;
        let mut rng = Rng::new(self.seed);
        // Weights of the scale a trained block's are near: uniform with variance 1/fan-in.
        let mut weights = |rows: usize, cols: usize| {
            let a = (3.0 / rows as f32).sqrt();
            rng.matrix(rows, cols, -a, a)
        };
        // Tokens of variance 1 (fan-in 1: uniform in ±√3), so each pre-activation has variance near 1.
        let x = e.upload(&Matrix::from_vec(self.tokens, self.d, weights(1, self.tokens * self.d).as_slice().to_vec())?)?;
        let (w1, b1, w2) = (e.upload(&weights(self.d, self.d_ff))?, weights(1, self.d_ff), e.upload(&weights(self.d_ff, self.d))?);
        let (w_gate, w_up, w_down) = (e.upload(&weights(self.d, h))?, e.upload(&weights(self.d, h))?, e.upload(&weights(h, self.d))?);
        let bias = e.upload(&Matrix::from_vec(self.tokens, self.d_ff, b1.as_slice().iter().copied().cycle().take(self.tokens * self.d_ff).collect())?)?;
        let relu_hidden = e.relu(&e.add(&e.matmul(&x, &w1)?, &bias)?)?;
        let relu_output = e.matmul(&relu_hidden, &w2)?;
        let swiglu_hidden = e.swiglu(&e.matmul(&x, &w_gate)?, &e.matmul(&x, &w_up)?)?;
        let swiglu_output = e.matmul(&swiglu_hidden, &w_down)?;
        let curve_x: Vec<f32> = (0..CURVE_POINTS).map(|i| -4.0 + 0.25 * i as f32).collect();
        let xs = e.upload(&Matrix::from_vec(1, CURVE_POINTS, curve_x.clone())?)?;
        let ones = e.upload(&Matrix::from_vec(1, CURVE_POINTS, vec![1.0; CURVE_POINTS])?)?;
        let (relu, gelu, silu) = (e.relu(&xs)?, e.gelu(&xs)?, e.swiglu(&xs, &ones)?);
        let [relu_hidden, swiglu_hidden, relu_output, swiglu_output, relu, gelu, silu] =
            e.read_n([&relu_hidden, &swiglu_hidden, &relu_output, &swiglu_output, &relu, &gelu, &silu]).await?;
        Ok(Swiglu {
            counts,
            relu_zeros: zeros_share(&relu_hidden),
            swiglu_zeros: zeros_share(&swiglu_hidden),
            relu_hidden,
            swiglu_hidden,
            relu_output,
            swiglu_output,
            curve_x,
            curves: [relu.row(0), gelu.row(0), silu.row(0)],
        })
    }
}
