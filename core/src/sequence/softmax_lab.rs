//! Properties of the softmax the third article discusses: adding a constant to every score
//! changes nothing (shift invariance), multiplying them does (it is *not* scale invariant,
//! which is why attention divides by √d_k), and its Jacobian ∂s_i/∂z_j = s_i(δ_ij − s_j).

use crate::error::{ComputeError, Result};
use crate::executor::{Executor, Job};
use crate::matrix::Matrix;
use crate::ops::SoftmaxOptions;

/// Most scores the lab accepts (its Jacobian is n × n).
pub const MAX_SCORES: usize = 12;

/// softmax(z), softmax(z + c) and softmax(k·z) in one batched softmax, and the Jacobian of
/// softmax(z), on any backend.
#[derive(Clone, Debug, PartialEq)]
pub struct SoftmaxLabJob {
    /// The scores z.
    pub scores: Vec<f32>,
    /// The constant added to every score.
    pub shift: f32,
    /// The factor every score is multiplied by.
    pub scale: f32,
}

/// What `SoftmaxLabJob` returns.
#[derive(Clone, Debug, PartialEq)]
pub struct SoftmaxLab {
    /// softmax(z).
    pub plain: Vec<f32>,
    /// softmax(z + c): equal to `plain` up to rounding.
    pub shifted: Vec<f32>,
    /// softmax(k·z): sharper for k > 1, flatter for k < 1.
    pub scaled: Vec<f32>,
    /// J_ij = s_i(δ_ij − s_j) (n × n): diagonal s_i(1 − s_i), off it −s_i s_j.
    pub jacobian: Matrix,
}

impl Job for SoftmaxLabJob {
    type Output = SoftmaxLab;
    async fn run<E: Executor>(&self, e: &E) -> Result<SoftmaxLab> {
        let n = self.scores.len();
        if n == 0 || n > MAX_SCORES {
            return Err(ComputeError::Invalid(format!("Use de 1 a {MAX_SCORES} scores.")));
        }
        if !(self.shift.is_finite() && self.scale.is_finite()) || self.scores.iter().any(|z| !z.is_finite()) {
            return Err(ComputeError::Invalid("Os scores, c e k precisam ser números finitos.".into()));
        }
        // Three rows: z, z + c, k·z (3 × n), one softmax for all.
        let rows: Vec<f32> = self
            .scores
            .iter()
            .copied()
            .chain(self.scores.iter().map(|z| z + self.shift))
            .chain(self.scores.iter().map(|z| z * self.scale))
            .collect();
        let s = e.softmax_rows(&e.upload(&Matrix::from_vec(3, n, rows)?)?, SoftmaxOptions::default())?;
        // J = diag(s) − sᵀ s: the outer product on the backend, the diagonal added here.
        let row = e.rows(&s, 0, 1)?;
        let outer = e.scale(&e.matmul(&e.transpose(&row)?, &row)?, -1.0)?;
        let [s, mut jacobian] = e.read_n([&s, &outer]).await?;
        let plain = s.row(0);
        for (i, &si) in plain.iter().enumerate() {
            jacobian.set(i, i, jacobian.get(i, i) + si);
        }
        Ok(SoftmaxLab { plain, shifted: s.row(1), scaled: s.row(2), jacobian })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::{block_on_ready, Cpu};

    #[test]
    fn shift_changes_nothing_scale_does_and_jacobian_rows_sum_to_zero() {
        let job = SoftmaxLabJob { scores: vec![2.0, 1.0, 0.1], shift: 5.0, scale: 2.0 };
        let lab = block_on_ready(job.run(&Cpu)).unwrap();
        for (a, b) in lab.plain.iter().zip(&lab.shifted) {
            assert!((a - b).abs() < 1e-6);
        }
        assert!((lab.plain[0] - 0.6590).abs() < 1e-4, "{:?}", lab.plain);
        assert!(lab.scaled[0] > lab.plain[0], "k = 2 sharpens");
        for i in 0..3 {
            let sum: f32 = lab.jacobian.row(i).iter().sum();
            assert!(sum.abs() < 1e-6);
            let s = lab.plain[i];
            assert!((lab.jacobian.get(i, i) - s * (1.0 - s)).abs() < 1e-6);
        }
        assert!((lab.jacobian.get(0, 1) + lab.plain[0] * lab.plain[1]).abs() < 1e-6);
        assert!(block_on_ready(SoftmaxLabJob { scores: vec![], shift: 0.0, scale: 1.0 }.run(&Cpu)).is_err());
    }
}
