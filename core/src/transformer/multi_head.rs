//! Multi-head attention: Example 3 of the textbook chapter (two heads' outputs concatenated
//! and projected by W^O), the reshape that runs all heads as one batched tensor, and the
//! layer's parameter count.
//!
//! Reshape, with b batch, t positions, d width and h heads (d_h = d/h):
//! (b, t, d) → view (b, t, h, d_h) → transpose (b, h, t, d_h): head n of position p holds
//! columns [n·d_h, (n+1)·d_h) of row p. Merging undoes both steps. It moves no number; it only
//! regroups them, which is why the width must divide evenly.

use crate::error::{ComputeError, Result};
use crate::executor::{Executor, Job};
use crate::matrix::Matrix;

use super::concat_columns;
use super::self_attention::step_trace;
use super::self_attention::StepInputs;

/// Largest sizes the reshape visualiser draws.
pub const MAX_BATCH: usize = 4;
pub const MAX_POSITIONS: usize = 16;
pub const MAX_WIDTH: usize = 64;
pub const MAX_HEADS: usize = 16;

/// Example 3's W^O (6, 3).
pub fn example_3_w_o() -> Matrix {
    Matrix::from_rows(&[
        [0.1, 0.2, 0.3],
        [0.4, 0.5, 0.6],
        [0.7, 0.8, 0.9],
        [0.9, 0.8, 0.7],
        [0.6, 0.5, 0.4],
        [0.3, 0.2, 0.1],
    ])
    .expect("6×3 literal")
}

/// Example 3's second head, an arbitrary vector chosen by the chapter (1, 3).
pub fn example_3_head_2() -> Matrix {
    Matrix::from_rows(&[[0.5, 0.2, 0.9]]).expect("1×3 literal")
}

/// The first head as the chapter prints it, rounded and miscalculated: [0.22, 0.48, 0.77].
pub fn example_3_head_1_as_printed() -> Matrix {
    Matrix::from_rows(&[[0.22, 0.48, 0.77]]).expect("1×3 literal")
}

/// The first head as it should be: a₂ of Example 2, computed on `e`.
pub async fn example_3_head_1<E: Executor>(e: &E) -> Result<Matrix> {
    let trace = step_trace(e, &StepInputs::example_2()).await?;
    Matrix::from_rows(&[trace.output.row(1)])
}

/// concat(head₁, …) · W^O for one position.
#[derive(Clone, Debug, PartialEq)]
pub struct ConcatJob {
    /// Each head's output (1, d_h).
    pub heads: Vec<Matrix>,
    /// W^O (Σ d_h, d).
    pub w_o: Matrix,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ConcatOutput {
    /// [head₁ | head₂ | …] (1, Σ d_h).
    pub concat: Matrix,
    /// concat · W^O (1, d).
    pub output: Matrix,
}

impl Job for ConcatJob {
    type Output = ConcatOutput;
    async fn run<E: Executor>(&self, e: &E) -> Result<ConcatOutput> {
        let parts: Vec<&Matrix> = self.heads.iter().collect();
        let concat = concat_columns(&parts)?;
        concat.check_finite("A concatenação")?;
        self.w_o.check_finite("W^O")?;
        if concat.cols() != self.w_o.rows() {
            return Err(ComputeError::Invalid(format!(
                "W^O precisa ter {} linhas (uma por componente da concatenação), mas tem {}.",
                concat.cols(),
                self.w_o.rows()
            )));
        }
        let output = e.read_one(&e.matmul(&e.upload(&concat)?, &e.upload(&self.w_o)?)?).await?;
        Ok(ConcatOutput { concat, output })
    }
}

/// Fails with an explanation (the divisors of d) when d does not split into h equal heads.
pub fn check_heads(d: usize, h: usize) -> Result<usize> {
    if h == 0 || d == 0 {
        return Err(ComputeError::Invalid("d e h precisam ser pelo menos 1.".into()));
    }
    if d % h != 0 {
        let divisors: Vec<String> = (1..=d).filter(|k| d % k == 0).map(|k| k.to_string()).collect();
        return Err(ComputeError::Invalid(format!(
            "d = {d} não se divide em h = {h} cabeças iguais: cada cabeça ficaria com {d}/{h} dimensões, \
             que não é um número inteiro, e o remodelamento não tem como repartir as colunas. \
             Escolha h entre os divisores de {d}: {}.",
            divisors.join(", ")
        )));
    }
    Ok(d / h)
}

/// (t, d) → h matrices (t, d_h): head n takes columns [n·d_h, (n+1)·d_h).
pub fn split_heads(x: &Matrix, h: usize) -> Result<Vec<Matrix>> {
    let d_h = check_heads(x.cols(), h)?;
    Ok((0..h).map(|n| x.columns(n * d_h, d_h)).collect())
}

/// h matrices (t, d_h) → (t, h·d_h): the inverse of `split_heads`.
pub fn merge_heads(heads: &[Matrix]) -> Result<Matrix> {
    let parts: Vec<&Matrix> = heads.iter().collect();
    concat_columns(&parts)
}

/// The shapes of the batched reshape, validated against the visualiser's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReshapeShape {
    pub b: usize,
    pub t: usize,
    pub d: usize,
    pub h: usize,
}

impl ReshapeShape {
    /// d_h, or the reason there is none.
    pub fn validate(&self) -> Result<usize> {
        for (what, v) in [("b", self.b), ("t", self.t), ("d", self.d), ("h", self.h)] {
            if v == 0 {
                return Err(ComputeError::Invalid(format!("{what} precisa ser pelo menos 1.")));
            }
        }
        super::check_cap("b", self.b, MAX_BATCH)?;
        super::check_cap("t", self.t, MAX_POSITIONS)?;
        super::check_cap("d", self.d, MAX_WIDTH)?;
        super::check_cap("h", self.h, MAX_HEADS)?;
        check_heads(self.d, self.h)
    }

    /// For element (batch i, head n, position p, column c) of the (b, h, t, d_h) tensor,
    /// the column of the (b, t, d) tensor it came from (same i and p).
    pub fn source_column(&self, head: usize, column: usize) -> usize {
        head * (self.d / self.h) + column
    }
}

/// Parameters of one multi-head attention layer: four bias-free (d, d) matrices.
pub fn mha_parameters(d: u64) -> u64 {
    4 * d * d
}
