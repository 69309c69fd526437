//! The articles' first FFN layer as a feature detector: ReLU(C_t W1 + b1) with neurons that
//! copy single inputs and two AND neurons (x + y − 1, then ReLU: 1 only when both are on).
//!
//! Convention: row vectors, as in the prose and in `attention::feed_forward`: the hidden layer
//! is C_t W1 with W1 of shape d_in × d_ff, so column j holds neuron j's weights. The article's
//! code stores the transpose (8 × 4, one row per neuron) and computes W1 · C_t.

use crate::core::error::{ComputeError, Result};
use crate::core::matrix::Matrix;
use crate::core::ops;

/// Most on/off inputs `truth_table` enumerates (2ⁿ rows).
pub const MAX_TRUTH_TABLE_INPUTS: usize = 10;

/// Inputs, weights and names of the feature-detector layer.
#[derive(Clone, Debug, PartialEq)]
pub struct FfnExample {
    /// One label per input; the last input is the constant 1 that acts as a bias.
    pub input_labels: Vec<String>,
    /// One label per hidden neuron.
    pub neuron_labels: Vec<String>,
    /// C_t, the context vector.
    pub input: Vec<f32>,
    /// W1 (d_in × d_ff): column j = weights of neuron j.
    pub w1: Matrix,
    /// b1 (d_ff).
    pub b1: Vec<f32>,
}

/// The layer's values for one input.
#[derive(Clone, Debug, PartialEq)]
pub struct FfnTrace {
    /// C_t W1 + b1.
    pub pre_activation: Vec<f32>,
    /// ReLU of it.
    pub post_activation: Vec<f32>,
    /// Labels of the neurons with a positive output.
    pub active: Vec<String>,
}

impl FfnExample {
    /// The articles' example: C_t = [bateria 1, programa 0, executado 1, bias 1]; neurons 0–3
    /// copy the inputs, 4–5 are unused, 6 = bateria AND executado, 7 = programa AND executado.
    pub fn article() -> FfnExample {
        // The article's rows (one per neuron), transposed into the row-vector convention.
        let neurons = Matrix::from_rows(&[
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
            [0.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 1.0, -1.0],
            [0.0, 1.0, 1.0, -1.0],
        ])
        .expect("8×4 literal");
        let labels = |l: &[&str]| l.iter().map(|s| s.to_string()).collect();
        FfnExample {
            input_labels: labels(&["bateria", "programa", "executado", "viés (1)"]),
            neuron_labels: labels(&[
                "feat_bateria",
                "feat_programa",
                "feat_executado",
                "feat_bias",
                "(sem uso)",
                "(sem uso)",
                "feat_bat_exec",
                "feat_prog_exec",
            ]),
            input: vec![1.0, 0.0, 1.0, 1.0],
            w1: ops::transpose(&neurons),
            b1: vec![0.0; 8],
        }
    }

    /// The layer on `self.input`.
    pub fn forward(&self) -> Result<FfnTrace> {
        self.forward_input(&self.input)
    }

    /// ReLU(input · W1 + b1); fails on mismatched sizes or non-finite values.
    pub fn forward_input(&self, input: &[f32]) -> Result<FfnTrace> {
        self.w1.check_finite("W1")?;
        if input.len() != self.w1.rows() || self.b1.len() != self.w1.cols() {
            return Err(ComputeError::Invalid(format!(
                "W1 é {}×{}: a entrada precisa de {} valores e b1 de {}.",
                self.w1.rows(),
                self.w1.cols(),
                self.w1.rows(),
                self.w1.cols()
            )));
        }
        if input.iter().chain(&self.b1).any(|v| !v.is_finite()) {
            return Err(ComputeError::Invalid("A entrada e b1 precisam ter só valores finitos.".into()));
        }
        let x = Matrix::from_vec(1, input.len(), input.to_vec())?;
        let b = Matrix::from_vec(1, self.b1.len(), self.b1.clone())?;
        let pre = ops::add(&ops::matmul(&x, &self.w1)?, &b)?;
        let post = ops::relu(&pre);
        let active = post
            .row(0)
            .iter()
            .zip(&self.neuron_labels)
            .filter(|(&v, _)| v > 0.0)
            .map(|(_, l)| l.clone())
            .collect();
        Ok(FfnTrace { pre_activation: pre.row(0), post_activation: post.row(0), active })
    }

    /// Every on/off combination of the inputs but the last (the bias, kept at 1), with the
    /// layer's output: the truth table of the AND neurons. Rows count up in binary, first
    /// input as the most significant bit.
    pub fn truth_table(&self) -> Result<Vec<(Vec<f32>, FfnTrace)>> {
        let toggles = self.w1.rows().saturating_sub(1);
        if toggles > MAX_TRUTH_TABLE_INPUTS {
            return Err(ComputeError::Invalid(format!(
                "São {toggles} entradas; a tabela-verdade vai até {MAX_TRUTH_TABLE_INPUTS}."
            )));
        }
        (0..1u32 << toggles)
            .map(|bits| {
                let mut input: Vec<f32> =
                    (0..toggles).map(|i| ((bits >> (toggles - 1 - i)) & 1) as f32).collect();
                input.push(1.0);
                let trace = self.forward_input(&input)?;
                Ok((input, trace))
            })
            .collect()
    }
}
