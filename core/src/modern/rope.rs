//! RoPE against the sinusoidal encoding (issue 41). The reader's q and k are placed at every
//! position 0 … P−1 twice: turned by RoPE (pair i by m·ω_i, ω_i = θ^(−2i/d)), and with the 2017
//! encoding PE(m) added (as the 2017 model adds it to x, here with W^Q = W^K = I). The score
//! q_m·k_n of each pair of positions shows what each scheme tells attention: RoPE's is the same
//! along every diagonal (it depends on m − n only), the added encoding's is not.

use crate::error::Result;
use crate::executor::{Executor, Job};
use crate::matrix::Matrix;
use crate::ops::modern::{rope_angle, RopePositions};
use crate::transformer::positional::sinusoidal;

/// The widest q and k the demonstration draws (an even width: RoPE turns pairs).
pub const MAX_WIDTH: usize = 16;
/// The most positions drawn.
pub const MAX_POSITIONS: usize = 24;

#[derive(Clone, Debug, PartialEq)]
pub struct RopeJob {
    pub q: Vec<f32>,
    pub k: Vec<f32>,
    /// P: positions 0 … P−1 for both q and k.
    pub positions: usize,
    /// The base θ of both schemes' frequencies.
    pub theta: f32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RopeScores {
    /// q turned to position m (row) · k turned to position n (column), P × P.
    pub rotated: Matrix,
    /// (q + PE(m)) · (k + PE(n)), P × P.
    pub added: Matrix,
    /// q turned to each position (P × d): each pair keeps its length and turns.
    pub q_turned: Matrix,
    /// ω_i, the angle pair i turns per position.
    pub frequencies: Vec<f32>,
    /// RoPE's score at each offset m − n = 0 … P−1 (read on the first column).
    pub by_offset: Vec<f32>,
    /// The largest spread (max − min) of the scores along one diagonal m − n = const: near 0
    /// for RoPE (f32 rounding), large for the added encoding.
    pub spread_rotated: f32,
    pub spread_added: f32,
}

/// The largest max − min over the diagonals of a square matrix.
pub fn diagonal_spread(m: &Matrix) -> f32 {
    let p = m.rows() as isize;
    (1 - p..p)
        .map(|offset| {
            let along: Vec<f32> = (0..p).filter(|&r| (0..p).contains(&(r - offset))).map(|r| m.get(r as usize, (r - offset) as usize)).collect();
            along.iter().fold(f32::MIN, |a, &b| a.max(b)) - along.iter().fold(f32::MAX, |a, &b| a.min(b))
        })
        .fold(0.0, f32::max)
}

impl RopeJob {
    fn check(&self) -> Result<usize> {
        super::check_vector("q", &self.q, MAX_WIDTH)?;
        super::check_vector("k", &self.k, MAX_WIDTH)?;
        let d = self.q.len();
        if self.k.len() != d {
            return Err(crate::ComputeError::Invalid(format!("q tem {d} números e k tem {}: precisam ter a mesma largura.", self.k.len())));
        }
        if d % 2 != 0 {
            return Err(crate::ComputeError::Invalid(format!("A RoPE gira pares de números: a largura precisa ser par, não {d}.")));
        }
        if self.positions < 2 {
            return Err(crate::ComputeError::Invalid("São precisas pelo menos 2 posições.".into()));
        }
        crate::transformer::check_cap("posições", self.positions, MAX_POSITIONS)?;
        Ok(d)
    }
}

impl Job for RopeJob {
    type Output = RopeScores;
    async fn run<E: Executor>(&self, e: &E) -> Result<RopeScores> {
        let d = self.check()?;
        let p = self.positions;
        let repeated = |v: &[f32]| Matrix::from_vec(p, d, v.iter().copied().cycle().take(p * d).collect());
        let (q, k) = (e.upload(&repeated(&self.q)?)?, e.upload(&repeated(&self.k)?)?);
        let q_turned = e.rope(&q, 1, self.theta, RopePositions::from(0))?;
        let k_turned = e.rope(&k, 1, self.theta, RopePositions::from(0))?;
        let rotated = e.matmul_bt(&q_turned, &k_turned, 1.0)?;
        let pe = e.upload(&sinusoidal(0, p, d, self.theta))?;
        let added = e.matmul_bt(&e.add(&q, &pe)?, &e.add(&k, &pe)?, 1.0)?;
        let [rotated, added, q_turned] = e.read_n([&rotated, &added, &q_turned]).await?;
        Ok(RopeScores {
            frequencies: (0..d / 2).map(|i| rope_angle(1, i, d, self.theta)).collect(),
            by_offset: (0..p.min(rotated.rows())).map(|m| rotated.get(m, 0)).collect(),
            spread_rotated: diagonal_spread(&rotated),
            spread_added: diagonal_spread(&added),
            rotated,
            added,
            q_turned,
        })
    }
}
