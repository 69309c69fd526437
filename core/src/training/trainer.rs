//! A training run on the CPU: the weights, AdamW's state, and a step that takes a batch to
//! a loss and an update. What the browser's `train` widget will drive (on WebGPU, with these
//! functions as the kernels' reference).

use crate::decoder::{DecoderConfig, DecoderWeights};
use crate::error::{ComputeError, Result};

use super::data::Batch;
use super::model::{init, loss, loss_and_gradients, tensors, tensors_mut};
use super::optim::{AdamW, AdamWOptions};

/// The model the browser trains on a character vocabulary of `vocab` tokens: 2 blocks of
/// width 64 with 4 heads (hs = 16), FFN 256, a context of 64 characters: 106 k parameters at
/// V = 99; a step of 16 × 64 characters took 44–76 ms natively on one loaded core
/// (BENCHMARKS.md, "Training steps").
pub fn char_config(vocab: usize) -> DecoderConfig {
    DecoderConfig { vocab_size: vocab, d_model: 64, n_heads: 4, n_layers: 2, d_ff: 256, context: 64, pe_theta: 10_000.0, ln_eps: 1e-5 }
}

/// `DecoderConfig::validate`, but for a vocabulary of any size ≥ 2: the shipped decoder's
/// lower bound (256) is for its byte-level BPE, not for a character vocabulary.
pub fn check_config(config: &DecoderConfig) -> Result<()> {
    if config.vocab_size < 2 {
        return Err(ComputeError::Invalid("O vocabulário precisa de ao menos 2 tokens.".into()));
    }
    DecoderConfig { vocab_size: config.vocab_size.max(256), ..config.clone() }.validate()
}

pub struct Trainer {
    pub weights: DecoderWeights,
    optimizer: AdamW,
    /// Per tensor (file order): whether AdamW decays it (the matrices, as `train/` does).
    decays: Vec<bool>,
    /// The gradients' global norm at the last step, before clipping.
    pub last_grad_norm: f64,
}

impl Trainer {
    /// Fresh weights from `seed` (`model::init`, the training command's initialisation).
    pub fn new(config: &DecoderConfig, seed: u64, options: AdamWOptions) -> Result<Trainer> {
        check_config(config)?;
        Trainer::from_weights(init(config, seed), options)
    }

    /// Continues from given weights with fresh optimiser moments.
    pub fn from_weights(weights: DecoderWeights, options: AdamWOptions) -> Result<Trainer> {
        check_config(&weights.config)?;
        let shapes: Vec<(usize, usize)> = tensors(&weights).iter().map(|t| t.shape()).collect();
        let decays = weights.config.tensor_shapes().iter().map(|(_, shape)| shape.len() >= 2).collect();
        Ok(Trainer { optimizer: AdamW::new(options, &shapes)?, weights, decays, last_grad_norm: 0.0 })
    }

    /// Steps taken so far.
    pub fn steps_taken(&self) -> usize {
        self.optimizer.step
    }

    /// The learning rate the next step will use.
    pub fn next_learning_rate(&self) -> f64 {
        self.optimizer.options.learning_rate_at(self.optimizer.step)
    }

    /// One step: the batch's loss (before the update, as training logs report it), its
    /// gradients, and an AdamW update of every weight.
    pub fn step(&mut self, batch: &Batch) -> Result<f32> {
        let (value, grads) = loss_and_gradients(&self.weights, batch)?;
        if !value.is_finite() {
            return Err(ComputeError::Invalid("A perda deixou de ser finita.".into()));
        }
        let grads = tensors(&grads);
        self.last_grad_norm = self.optimizer.update(&mut tensors_mut(&mut self.weights), &grads, &self.decays)?;
        Ok(value)
    }

    /// Mean loss per token over `batches` (e.g. `Corpus::validation_batches`), without
    /// updating anything. Windows of equal length run 16 at a time.
    pub fn evaluate(&self, batches: &[Batch]) -> Result<f64> {
        evaluate(&self.weights, batches)
    }
}

/// Mean loss per token of `weights` over `batches`.
pub fn evaluate(weights: &DecoderWeights, batches: &[Batch]) -> Result<f64> {
    let (mut sum, mut tokens) = (0.0f64, 0usize);
    for group in batches.chunks(16) {
        let len = group[0].len;
        if group.iter().any(|b| b.len != len) {
            // Unequal windows: one at a time.
            for b in group {
                sum += loss(weights, b)? as f64 * b.targets.len() as f64;
                tokens += b.targets.len();
            }
            continue;
        }
        let joined = Batch {
            inputs: group.iter().flat_map(|b| b.inputs.iter().copied()).collect(),
            targets: group.iter().flat_map(|b| b.targets.iter().copied()).collect(),
            sequences: group.iter().map(|b| b.sequences).sum(),
            len,
        };
        sum += loss(weights, &joined)? as f64 * joined.targets.len() as f64;
        tokens += joined.targets.len();
    }
    if tokens == 0 {
        return Err(ComputeError::Invalid("Não há tokens para avaliar.".into()));
    }
    Ok(sum / tokens as f64)
}
