//! Why attention divides the scores by √d_k: with query and key components independent,
//! of mean 0 and variance 1, the dot product q·k is a sum of d_k such products, so its
//! variance is d_k. Large scores saturate the softmax (one weight near 1, the others near 0,
//! their gradients near 0); dividing by √d_k brings the variance back to 1 for every d_k.
//!
//! The experiment: n random queries against t random keys (components uniform in [−√3, √3),
//! variance 1, from a seeded generator so every reader sees the same numbers), scored with
//! and without the division, on the backend.

use crate::error::{ComputeError, Result};
use crate::executor::{Executor, Job};
use crate::matrix::Matrix;
use crate::ops::SoftmaxOptions;
use crate::rng::Rng;

/// Largest d_k the demonstration computes.
pub const MAX_DIM: usize = 4096;
/// The dimensions of the saturation curve: 1, 2, 4, …, 1024.
pub const CURVE_DIMS: [usize; 11] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];

#[derive(Clone, Debug, PartialEq)]
pub struct ScalingJob {
    /// d_k: the width of queries and keys.
    pub d: usize,
    /// Queries (rows of the score matrix).
    pub queries: usize,
    /// Keys (columns: the positions one softmax spreads its weight over).
    pub keys: usize,
    pub seed: u64,
    /// Also compute the mean largest weight for every d in `CURVE_DIMS`.
    pub with_curve: bool,
}

impl ScalingJob {
    pub fn new(d: usize) -> ScalingJob {
        ScalingJob { d, queries: 64, keys: 8, seed: 7, with_curve: true }
    }
}

/// Statistics of one d.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalingStats {
    pub d: usize,
    /// Sample variance of q·k.
    pub var_raw: f32,
    /// Sample variance of q·k/√d.
    pub var_scaled: f32,
    /// Mean over queries of the largest softmax weight, without and with the division
    /// (1/keys = spread evenly, 1 = all on one key).
    pub max_weight_raw: f32,
    pub max_weight_scaled: f32,
    /// The first query's weights, without and with the division.
    pub example_raw: Vec<f32>,
    pub example_scaled: Vec<f32>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Scaling {
    pub stats: ScalingStats,
    /// (d, max_weight_raw, max_weight_scaled) for `CURVE_DIMS`, if asked.
    pub curve: Vec<(usize, f32, f32)>,
}

/// Mean and variance (population) of all entries.
pub fn variance(m: &Matrix) -> f32 {
    let n = m.as_slice().len().max(1) as f64;
    let mean = m.as_slice().iter().map(|&v| v as f64).sum::<f64>() / n;
    (m.as_slice().iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / n) as f32
}

/// Mean over rows of the row maximum.
pub fn mean_row_max(m: &Matrix) -> f32 {
    let rows = m.rows().max(1) as f32;
    (0..m.rows()).map(|r| m.row(r).into_iter().fold(f32::MIN, f32::max)).sum::<f32>() / rows
}

/// The scores and weights of seeded queries and keys of width d, on the backend:
/// [QKᵀ, QKᵀ/√d, softmax(QKᵀ), softmax(QKᵀ/√d)].
fn scores_for<E: Executor>(e: &E, d: usize, job: &ScalingJob) -> Result<[E::Tensor; 4]> {
    let half_width = 3f32.sqrt();
    // The same seed for every d: the curve changes only because d does.
    let mut rng = Rng::new(job.seed);
    let q = e.upload(&rng.matrix(job.queries, d, -half_width, half_width))?;
    let k = e.upload(&rng.matrix(job.keys, d, -half_width, half_width))?;
    let raw = e.matmul_bt(&q, &k, 1.0)?;
    let scaled = e.scale(&raw, 1.0 / (d as f32).sqrt())?;
    let w_raw = e.softmax_rows(&raw, SoftmaxOptions::default())?;
    let w_scaled = e.softmax_rows(&scaled, SoftmaxOptions::default())?;
    Ok([raw, scaled, w_raw, w_scaled])
}

fn stats_of(d: usize, [raw, scaled, w_raw, w_scaled]: &[Matrix; 4]) -> ScalingStats {
    ScalingStats {
        d,
        var_raw: variance(raw),
        var_scaled: variance(scaled),
        max_weight_raw: mean_row_max(w_raw),
        max_weight_scaled: mean_row_max(w_scaled),
        example_raw: w_raw.row(0),
        example_scaled: w_scaled.row(0),
    }
}

impl Job for ScalingJob {
    type Output = Scaling;
    async fn run<E: Executor>(&self, e: &E) -> Result<Scaling> {
        if self.d == 0 {
            return Err(ComputeError::Invalid("A dimensão d precisa ser pelo menos 1.".into()));
        }
        super::check_cap("d", self.d, MAX_DIM)?;
        if self.queries == 0 || self.keys == 0 {
            return Err(ComputeError::Invalid("São precisas pelo menos uma query e uma key.".into()));
        }
        // The chosen d and every d of the curve, all in one readback.
        let mut dims = vec![self.d];
        if self.with_curve {
            dims.extend(CURVE_DIMS);
        }
        let tensors = dims.iter().map(|&d| scores_for(e, d, self)).collect::<Result<Vec<_>>>()?;
        let values = e.read(&tensors.iter().flatten().collect::<Vec<_>>()).await?;
        let mut all = values.chunks_exact(4).zip(&dims).map(|(m, &d)| {
            let four: &[Matrix; 4] = m.try_into().expect("four matrices per d");
            stats_of(d, four)
        });
        let stats = all.next().ok_or(ComputeError::Empty { what: "A lista de dimensões" })?;
        let curve = all.map(|s| (s.d, s.max_weight_raw, s.max_weight_scaled)).collect();
        Ok(Scaling { stats, curve })
    }
}
