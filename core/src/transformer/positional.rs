//! Sinusoidal positional encoding: PE(p, j) = sin(p / θ^(2i/d)) for even j and
//! cos(p / θ^(2i/d)) for odd j, with i = ⌊j/2⌋, θ = 10000 and p counted from 0.
//!
//! The encoding is absolute: position p always gets the same vector. The article calls it
//! "relative" and "a rotation matrix"; what holds is weaker: PE(p + k) is PE(p) with each pair
//! (2i, 2i+1) rotated by the angle k·ω_i, ω_i = θ^(−2i/d), which depends on k only. Hence the
//! dot product PE(p)·PE(p + k) = Σ_i cos(k·ω_i) depends on the offset k and not on p.

use crate::error::{ComputeError, Result};
use crate::executor::{Executor, Job};
use crate::matrix::Matrix;

/// Largest table the widget computes and draws.
pub const MAX_POSITIONS: usize = 128;
pub const MAX_DIM: usize = 128;
/// The article's base.
pub const THETA: f32 = 10_000.0;

/// ω_i = θ^(−2i/d), the angular speed of pair i.
pub fn frequency(pair: usize, d: usize, theta: f32) -> f32 {
    (theta as f64).powf(-(2.0 * pair as f64) / d as f64) as f32
}

/// The (t, d) table. Computed in f64 and rounded once, so large p·ω stay accurate.
pub fn positional_encoding(t: usize, d: usize, theta: f32) -> Result<Matrix> {
    if t == 0 || d == 0 {
        return Err(ComputeError::Invalid("t e d precisam ser pelo menos 1.".into()));
    }
    super::check_cap("t", t, MAX_POSITIONS)?;
    super::check_cap("d", d, MAX_DIM)?;
    if !(theta.is_finite() && theta > 1.0) {
        return Err(ComputeError::Invalid("θ precisa ser um número maior que 1.".into()));
    }
    Ok(sinusoidal(0, t, d, theta))
}

/// Rows `start … start + count − 1` of the table, width `d`, without the widget's caps: the
/// one implementation, shared by the widgets and the pretrained decoder (which trained with it).
/// Angles in f64 and rounded once, so large p·ω stay accurate.
pub fn sinusoidal(start: usize, count: usize, d: usize, theta: f32) -> Matrix {
    let mut pe = Matrix::zeros(count, d);
    // θ^(2i/d) once per column, not once per position too (the same values: a decoder's
    // 64-token prompt spent more time in `powf` than in its layer norms).
    let denominators: Vec<f64> = (0..d).map(|j| (theta as f64).powf(2.0 * (j / 2) as f64 / d as f64)).collect();
    for r in 0..count {
        let p = (start + r) as f64;
        for (j, denominator) in denominators.iter().enumerate() {
            let angle = p / denominator;
            pe.set(r, j, if j % 2 == 0 { angle.sin() } else { angle.cos() } as f32);
        }
    }
    pe
}

/// PE(p) rotated pair by pair by k·ω_i, which equals PE(p + k) (the offset property).
/// `None` for odd d: the last component then has no partner to rotate with.
pub fn rotate_by_offset(row: &[f32], k: usize, theta: f32) -> Option<Vec<f32>> {
    let d = row.len();
    if d % 2 != 0 {
        return None;
    }
    let mut out = vec![0.0; d];
    for pair in 0..d / 2 {
        let (s, c) = (k as f64 * frequency(pair, d, theta) as f64).sin_cos();
        let (sin_p, cos_p) = (row[2 * pair] as f64, row[2 * pair + 1] as f64);
        // sin(a + b) = sin a cos b + cos a sin b; cos(a + b) = cos a cos b − sin a sin b.
        out[2 * pair] = (sin_p * c + cos_p * s) as f32;
        out[2 * pair + 1] = (cos_p * c - sin_p * s) as f32;
    }
    Some(out)
}

/// The table and its Gram matrix PE·PEᵀ (t, t): entry (p, q) = PE(p)·PE(q).
#[derive(Clone, Debug, PartialEq)]
pub struct PositionalJob {
    pub t: usize,
    pub d: usize,
    pub theta: f32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Positional {
    /// (t, d)
    pub pe: Matrix,
    /// (t, t), on the backend.
    pub gram: Matrix,
}

impl Positional {
    /// PE(0)·PE(k) for k = 0 … t−1: the curve against the offset.
    pub fn dot_by_offset(&self) -> Vec<f32> {
        self.gram.row(0)
    }

    /// The largest |PE(p)·PE(p+k) − PE(0)·PE(k)| over all p and k: ≈ 0, the dot product
    /// depends on the offset only.
    pub fn offset_dependence(&self) -> f32 {
        let t = self.gram.rows();
        let mut worst = 0.0f32;
        for p in 0..t {
            for k in 0..t - p {
                worst = worst.max((self.gram.get(p, p + k) - self.gram.get(0, k)).abs());
            }
        }
        worst
    }
}

impl Job for PositionalJob {
    type Output = Positional;
    async fn run<E: Executor>(&self, e: &E) -> Result<Positional> {
        let pe = positional_encoding(self.t, self.d, self.theta)?;
        let on_backend = e.upload(&pe)?;
        let gram = e.read_one(&e.matmul_bt(&on_backend, &on_backend, 1.0)?).await?;
        Ok(Positional { pe, gram })
    }
}
