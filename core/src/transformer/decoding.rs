//! The output head and one greedy step: logits = h W + b over the vocabulary, probabilities
//! = softmax(logits / T), the token = argmax (greedy decoding; T changes the probabilities but
//! never the argmax).
//!
//! The article's code returns argmax + 2, which shifts every prediction and can name ids past
//! the vocabulary (103 and 104 of 103); `article_token` reproduces that bug for the widget.

use crate::error::{ComputeError, Result};
use crate::executor::{Executor, Job};
use crate::matrix::Matrix;
use crate::ops::SoftmaxOptions;

/// Temperatures the widget accepts.
pub const MIN_TEMPERATURE: f32 = 0.05;
pub const MAX_TEMPERATURE: f32 = 10.0;

#[derive(Clone, Debug, PartialEq)]
pub struct HeadJob {
    /// The last position's hidden state h (1, d).
    pub hidden: Matrix,
    /// W (d, |V|) and b (1, |V|).
    pub w_out: Matrix,
    pub bias: Matrix,
    /// T > 0.
    pub temperature: f32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct HeadOutput {
    /// (1, |V|)
    pub logits: Matrix,
    /// softmax(logits / T) (1, |V|).
    pub probs: Matrix,
    /// The greedy choice.
    pub argmax: usize,
}

impl HeadOutput {
    /// What the article's code would return: argmax + 2, possibly outside the vocabulary.
    pub fn article_token(&self) -> usize {
        self.argmax + 2
    }
}

/// An output layer tied to an embedding table, for a demonstration without training:
/// W = s · Êᵀ (d, |V|), Ê = E with each row scaled to length 1 (zero rows stay zero). The logit
/// of a token is then s · cos(h, its embedding) · ‖h‖, so h equal to a token's unit embedding
/// makes that token the argmax (every other cosine is below 1).
pub fn tied_output_weights(table: &Matrix, scale: f32) -> Matrix {
    let mut w = Matrix::zeros(table.cols(), table.rows());
    for r in 0..table.rows() {
        let row = table.row(r);
        let norm = row.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm > 0.0 {
            for (c, v) in row.iter().enumerate() {
                w.set(c, r, scale * v / norm);
            }
        }
    }
    w
}

/// Row `id` of `table` scaled to length 1 (1, d): the h that picks token `id`.
pub fn unit_embedding(table: &Matrix, id: usize) -> Matrix {
    let row = table.row(id.min(table.rows().saturating_sub(1)));
    let norm = row.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
    Matrix::from_rows(&[row.iter().map(|v| v / norm).collect::<Vec<f32>>()]).expect("one row")
}

/// Index of the largest value (the first one on ties); `None` for an empty slice.
pub fn argmax(values: &[f32]) -> Option<usize> {
    values
        .iter()
        .enumerate()
        .fold(None, |best: Option<(usize, f32)>, (i, &v)| match best {
            Some((_, b)) if b >= v => best,
            _ => Some((i, v)),
        })
        .map(|(i, _)| i)
}

/// The `k` largest (index, value) pairs, largest first (ties by lower index).
pub fn top_k(values: &[f32], k: usize) -> Vec<(usize, f32)> {
    crate::order::top_desc(values, k).into_iter().map(|i| (i, values[i])).collect()
}

impl Job for HeadJob {
    type Output = HeadOutput;
    async fn run<E: Executor>(&self, e: &E) -> Result<HeadOutput> {
        if !(MIN_TEMPERATURE..=MAX_TEMPERATURE).contains(&self.temperature) {
            return Err(ComputeError::Invalid(format!(
                "A temperatura precisa estar entre {} e {}.",
                crate::format::format_pt_short(MIN_TEMPERATURE, 2),
                crate::format::format_pt_short(MAX_TEMPERATURE, 2)
            )));
        }
        self.hidden.check_finite("h")?;
        let logits = e.add(&e.matmul(&e.upload(&self.hidden)?, &e.upload(&self.w_out)?)?, &e.upload(&self.bias)?)?;
        let opts = SoftmaxOptions { temperature: self.temperature, ..Default::default() };
        let probs = e.softmax_rows(&logits, opts)?;
        let [logits, probs] = e.read_n([&logits, &probs]).await?;
        let argmax = argmax(&logits.row(0)).ok_or(ComputeError::Empty { what: "O vocabulário" })?;
        Ok(HeadOutput { logits, probs, argmax })
    }
}
