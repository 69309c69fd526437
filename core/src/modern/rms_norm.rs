//! RMSNorm against layer norm (issue 41), on the reader's vector x and on two changes of it:
//! x + c (every entry shifted by the same c) and s·x (every entry scaled by s > 0). Layer
//! norm subtracts the mean and divides by the standard deviation, so it forgets both; RMSNorm
//! only divides by the root mean square, so it forgets the scale but keeps the shift, and its
//! output keeps x's mean direction. Both with γ = 1 (and β = 0 for layer norm): each norm's
//! own rule, before what it learns.

use crate::error::{ComputeError, Result};
use crate::executor::{Executor, Job};
use crate::matrix::Matrix;
use crate::transformer::block::LN_EPS;
use crate::transformer::scaling::variance;

/// The longest x drawn.
pub const MAX_WIDTH: usize = 32;

#[derive(Clone, Debug, PartialEq)]
pub struct NormsJob {
    pub x: Vec<f32>,
    /// c, added to every entry.
    pub shift: f32,
    /// s, multiplying every entry.
    pub factor: f32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Norms {
    /// Rows x, x + c, s·x.
    pub inputs: Matrix,
    /// Layer norm of each row.
    pub layer: Matrix,
    /// RMSNorm of each row.
    pub rms: Matrix,
    /// x's mean, standard deviation (population) and root mean square.
    pub mean: f32,
    pub deviation: f32,
    pub root_mean_square: f32,
    /// How far each norm's output moves when x is shifted, and when it is scaled (largest
    /// |difference| of an entry).
    pub layer_after_shift: f32,
    pub rms_after_shift: f32,
    pub layer_after_scale: f32,
    pub rms_after_scale: f32,
    /// The mean of each norm's output for x: 0 for layer norm, x's mean / RMS for RMSNorm.
    pub layer_output_mean: f32,
    pub rms_output_mean: f32,
}

fn mean(values: &[f32]) -> f32 {
    (values.iter().map(|&v| v as f64).sum::<f64>() / values.len().max(1) as f64) as f32
}

impl Job for NormsJob {
    type Output = Norms;
    async fn run<E: Executor>(&self, e: &E) -> Result<Norms> {
        super::check_vector("x", &self.x, MAX_WIDTH)?;
        if !(self.shift.is_finite() && self.factor.is_finite() && self.factor > 0.0) {
            return Err(ComputeError::Invalid("O deslocamento c precisa ser um número e o fator s, um número maior que 0.".into()));
        }
        let d = self.x.len();
        let rows: Vec<f32> = self.x.iter().copied().chain(self.x.iter().map(|v| v + self.shift)).chain(self.x.iter().map(|v| v * self.factor)).collect();
        let inputs = Matrix::from_vec(3, d, rows)?;
        let x = e.upload(&inputs)?;
        let ones = e.upload(&Matrix::from_vec(1, d, vec![1.0; d])?)?;
        let zeros = e.upload(&Matrix::zeros(1, d))?;
        let layer = e.layer_norm(&x, &ones, &zeros, LN_EPS)?;
        let rms = e.rms_norm(&x, &ones, LN_EPS)?;
        let [layer, rms] = e.read_n([&layer, &rms]).await?;
        let square_mean = self.x.iter().map(|&v| (v as f64).powi(2)).sum::<f64>() / d as f64;
        let gap = |n: &Matrix, row: usize| super::largest_gap(&n.row(0), &n.row(row));
        Ok(Norms {
            mean: mean(&self.x),
            deviation: variance(&Matrix::from_vec(1, d, self.x.clone())?).sqrt(),
            root_mean_square: square_mean.sqrt() as f32,
            layer_after_shift: gap(&layer, 1),
            rms_after_shift: gap(&rms, 1),
            layer_after_scale: gap(&layer, 2),
            rms_after_scale: gap(&rms, 2),
            layer_output_mean: mean(&layer.row(0)),
            rms_output_mean: mean(&rms.row(0)),
            inputs,
            layer,
            rms,
        })
    }
}
