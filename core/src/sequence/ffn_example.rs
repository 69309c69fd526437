//! The articles' first FFN layer as a feature detector: ReLU(C_t W1 + b1) with neurons that
//! copy single inputs and two AND neurons (x + y − 1, then ReLU: 1 only when both are on).
//!
//! Convention: row vectors, as in the prose and in `attention::feed_forward`: the hidden layer
//! is C_t W1 with W1 of shape d_in × d_ff, so column j holds neuron j's weights. The article's
//! code stores the transpose (8 × 4, one row per neuron) and computes W1 · C_t.

use crate::error::{ComputeError, Result};
use crate::executor::{Executor, Job};
use crate::matrix::Matrix;
use crate::ops;

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
        let inputs = self.truth_table_inputs()?;
        (0..inputs.rows())
            .map(|r| {
                let input = inputs.row(r);
                let trace = self.forward_input(&input)?;
                Ok((input, trace))
            })
            .collect()
    }

    /// The inputs of `truth_table` as one matrix (2ⁿ × d_in, the bias column all 1), so the
    /// whole table is a single batched `FfnLayerJob`.
    pub fn truth_table_inputs(&self) -> Result<Matrix> {
        let toggles = self.w1.rows().saturating_sub(1);
        if toggles > MAX_TRUTH_TABLE_INPUTS {
            return Err(ComputeError::Invalid(format!(
                "São {toggles} entradas; a tabela-verdade vai até {MAX_TRUTH_TABLE_INPUTS}."
            )));
        }
        let rows = 1usize << toggles;
        let mut m = Matrix::zeros(rows, toggles + 1);
        for bits in 0..rows {
            for i in 0..toggles {
                m.set(bits, i, ((bits >> (toggles - 1 - i)) & 1) as f32);
            }
            m.set(bits, toggles, 1.0);
        }
        Ok(m)
    }

    /// The same layer with W1 given as the article's code writes it, one row per neuron
    /// (d_ff × d_in): what the widget's grid edits. The shape must stay the same.
    pub fn with_neuron_rows(&self, rows: &Matrix) -> Result<FfnExample> {
        if rows.shape() != (self.w1.cols(), self.w1.rows()) {
            return Err(ComputeError::Invalid(format!(
                "W1 precisa ter {} linhas (neurônios) de {} pesos.",
                self.w1.cols(),
                self.w1.rows()
            )));
        }
        rows.check_finite("W1")?;
        Ok(FfnExample { w1: ops::transpose(rows), ..self.clone() })
    }

    /// W1 as the article's code writes it: one row per neuron (d_ff × d_in), i.e. W1ᵀ.
    pub fn neuron_rows(&self) -> Matrix {
        ops::transpose(&self.w1)
    }

    /// The layer on a batch of inputs (one per row) with `activation`, as a `Job`.
    pub fn layer_job(&self, inputs: Matrix, activation: Activation) -> Result<FfnLayerJob> {
        let b1 = Matrix::from_vec(1, self.b1.len(), self.b1.clone())?;
        Ok(FfnLayerJob { inputs, w1: self.w1.clone(), b1, activation })
    }
}

/// The non-linearity between the two layers of an FFN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// max(0, x): the articles' choice, and what makes x + y − 1 an AND gate.
    Relu,
    /// x Φ(x) (tanh approximation), as in BERT and GPT: negative inputs leak a little.
    Gelu,
}

/// act(X W1 + b1) for a batch X (k × d_in), on any backend: the widget's pre- and
/// post-activation bars (k = 1) and its truth table (k = 2ⁿ) in one product.
#[derive(Clone, Debug, PartialEq)]
pub struct FfnLayerJob {
    /// X (k × d_in), one input per row.
    pub inputs: Matrix,
    /// W1 (d_in × d_ff).
    pub w1: Matrix,
    /// b1 (1 × d_ff), added to every row.
    pub b1: Matrix,
    /// The non-linearity.
    pub activation: Activation,
}

/// What `FfnLayerJob` returns.
#[derive(Clone, Debug, PartialEq)]
pub struct FfnLayerOutput {
    /// X W1 + b1 (k × d_ff).
    pub pre_activation: Matrix,
    /// act(X W1 + b1) (k × d_ff).
    pub post_activation: Matrix,
}

impl Job for FfnLayerJob {
    type Output = FfnLayerOutput;
    async fn run<E: Executor>(&self, e: &E) -> Result<FfnLayerOutput> {
        for (name, m) in [("A entrada", &self.inputs), ("W1", &self.w1), ("b1", &self.b1)] {
            m.check_finite(name)?;
        }
        if self.inputs.cols() != self.w1.rows() || self.b1.shape() != (1, self.w1.cols()) || self.inputs.rows() == 0 {
            return Err(ComputeError::Invalid(format!(
                "W1 é {}×{}: cada entrada precisa de {} valores e b1 de {}.",
                self.w1.rows(),
                self.w1.cols(),
                self.w1.rows(),
                self.w1.cols()
            )));
        }
        let pre = e.add(&e.matmul(&e.upload(&self.inputs)?, &e.upload(&self.w1)?)?, &e.upload(&self.b1)?)?;
        let post = match self.activation {
            Activation::Relu => e.relu(&pre)?,
            Activation::Gelu => e.gelu(&pre)?,
        };
        let [pre_activation, post_activation] = e.read_n([&pre, &post]).await?;
        Ok(FfnLayerOutput { pre_activation, post_activation })
    }
}

/// ReLU and GeLU of the same inputs, side by side (the activation plot), on any backend.
#[derive(Clone, Debug, PartialEq)]
pub struct ActivationCurveJob {
    /// The x values (1 × n).
    pub xs: Matrix,
}

impl ActivationCurveJob {
    /// `points` evenly spaced x values from `from` to `to` (at least 2).
    pub fn evenly_spaced(from: f32, to: f32, points: usize) -> Result<ActivationCurveJob> {
        let n = points.max(2);
        let xs: Vec<f32> = (0..n).map(|i| from + (to - from) * i as f32 / (n - 1) as f32).collect();
        Ok(ActivationCurveJob { xs: Matrix::from_vec(1, n, xs)? })
    }
}

impl Job for ActivationCurveJob {
    /// (ReLU(x), GeLU(x)), each 1 × n.
    type Output = (Matrix, Matrix);
    async fn run<E: Executor>(&self, e: &E) -> Result<(Matrix, Matrix)> {
        self.xs.check_finite("x")?;
        let xs = e.upload(&self.xs)?;
        let [relu, gelu] = e.read_n([&e.relu(&xs)?, &e.gelu(&xs)?]).await?;
        Ok((relu, gelu))
    }
}
