//! A training run: the weights, AdamW's moments and a step that takes a batch to a loss and
//! an update, written once over any `Executor`. `Trainer` is the run on the CPU (host
//! matrices); `TrainerOn<GpuTensor>` the same run with every tensor resident on the GPU, where
//! a step is one submission that reads back only the loss (and the gradients' norm).
//! `snapshot` brings a run back to the host, weights and moments, so it can go on on the CPU
//! (a lost device) and give the numbers an uninterrupted run would have given.

use crate::decoder::config::Architecture;
use crate::decoder::{DecoderConfig, DecoderWeights};
use crate::error::{ComputeError, Result};
use crate::executor::{block_on_ready, Cpu, Executor};
use crate::matrix::Matrix;

use super::data::Batch;
use super::model::{init, loss, loss_and_gradients_on, tensors, tensors_mut, zeros_like};
use super::optim::AdamWOptions;

/// The model the browser trains on a character vocabulary of `vocab` tokens: 2 blocks of
/// width 64 with 4 heads (hs = 16), FFN 256, a context of 64 characters: 106 k parameters at
/// V = 99; a step of 16 × 64 characters took 44–76 ms natively on one loaded core
/// (BENCHMARKS.md, "Training steps").
pub fn char_config(vocab: usize) -> DecoderConfig {
    DecoderConfig { vocab_size: vocab, d_model: 64, n_heads: 4, n_layers: 2, d_ff: 256, context: 64, pe_theta: 10_000.0, ln_eps: 1e-5, architecture: Architecture::Original, n_kv_heads: None }
}

/// `DecoderConfig::validate`, but for a vocabulary of any size ≥ 2: the shipped decoder's
/// lower bound (256) is for its byte-level BPE, not for a character vocabulary.
pub fn check_config(config: &DecoderConfig) -> Result<()> {
    if config.vocab_size < 2 {
        return Err(ComputeError::Invalid("O vocabulário precisa de ao menos 2 tokens.".into()));
    }
    DecoderConfig { vocab_size: config.vocab_size.max(256), ..config.clone() }.validate()
}

/// A training run whose tensors are `T`: host matrices (`Trainer`) or a backend's tensors.
/// AdamW's moments m, v are laid out like the weights (one pair per tensor, same names).
pub struct TrainerOn<T = Matrix> {
    pub weights: DecoderWeights<T>,
    m: DecoderWeights<T>,
    v: DecoderWeights<T>,
    pub options: AdamWOptions,
    /// Steps taken.
    step: usize,
    /// Per tensor (file order): whether AdamW decays it (the matrices, as `train/` does).
    decays: Vec<bool>,
    /// The gradients' global norm at the last step, before clipping.
    pub last_grad_norm: f64,
}

/// The run on the CPU.
pub type Trainer = TrainerOn<Matrix>;

impl Trainer {
    /// Fresh weights from `seed` (`model::init`, the training command's initialisation).
    pub fn new(config: &DecoderConfig, seed: u64, options: AdamWOptions) -> Result<Trainer> {
        check_config(config)?;
        Trainer::from_weights(init(config, seed), options)
    }

    /// Continues from given weights with fresh optimiser moments.
    pub fn from_weights(weights: DecoderWeights, options: AdamWOptions) -> Result<Trainer> {
        let (m, v) = (zeros_like(&weights.config), zeros_like(&weights.config));
        Trainer::from_state(weights, m, v, 0, options)
    }

    /// Continues a run from its weights, AdamW's moments and its step count (a saved run).
    pub fn from_state(weights: DecoderWeights, m: DecoderWeights, v: DecoderWeights, steps_taken: usize, options: AdamWOptions) -> Result<Trainer> {
        check_config(&weights.config)?;
        options.validate()?;
        for (w, (m, v)) in tensors(&weights).into_iter().zip(tensors(&m).into_iter().zip(tensors(&v))) {
            if m.shape() != w.shape() || v.shape() != w.shape() {
                return Err(ComputeError::Shape { op: "momentos do AdamW", left: w.shape(), right: m.shape() });
            }
        }
        let decays = weights.config.tensor_shapes().iter().map(|(_, shape)| shape.len() >= 2).collect();
        Ok(Trainer { weights, m, v, options, step: steps_taken, decays, last_grad_norm: 0.0 })
    }

    /// One step on the CPU (`step_on(&Cpu, …)`): the batch's loss (before the update, as
    /// training logs report it), its gradients, and an AdamW update of every weight.
    pub fn step(&mut self, batch: &Batch) -> Result<f32> {
        block_on_ready(self.step_on(&Cpu, batch))
    }

    /// Mean loss per token over `batches` (e.g. `Corpus::validation_batches`), without
    /// updating anything. Windows of equal length run 16 at a time.
    pub fn evaluate(&self, batches: &[Batch]) -> Result<f64> {
        evaluate(&self.weights, batches)
    }

    /// AdamW's first and second moments, laid out like the weights.
    pub fn moments(&self) -> (&DecoderWeights, &DecoderWeights) {
        (&self.m, &self.v)
    }
}

impl<T> TrainerOn<T> {
    /// The run `from` (weights, moments, steps) with every tensor put on `e`.
    pub fn upload<E: Executor<Tensor = T>>(e: &E, from: &Trainer) -> Result<TrainerOn<T>> {
        Ok(TrainerOn {
            weights: from.weights.try_map(|t| e.upload(t))?,
            m: from.m.try_map(|t| e.upload(t))?,
            v: from.v.try_map(|t| e.upload(t))?,
            options: from.options,
            step: from.step,
            decays: from.decays.clone(),
            last_grad_norm: from.last_grad_norm,
        })
    }

    /// Steps taken so far.
    pub fn steps_taken(&self) -> usize {
        self.step
    }

    /// The learning rate the next step will use.
    pub fn next_learning_rate(&self) -> f64 {
        self.options.learning_rate_at(self.step)
    }

    /// One step on `e`: forward, loss, backward, the squared global norm, and AdamW on every
    /// weight in place. On a deferred backend (the GPU) all of it is one submission, and only
    /// the loss and the norm come back. Returns the batch's loss before the update.
    ///
    /// A non-finite loss is an error. On the CPU it is caught before the update; on the GPU
    /// the update has already run with it (catching it first would cost a readback mid-step),
    /// so a caller that wants to go on takes the last `snapshot` instead.
    pub async fn step_on<E: Executor<Tensor = T>>(&mut self, e: &E, batch: &Batch) -> Result<f32> {
        let (loss, grads) = loss_and_gradients_on(e, &self.weights, batch)?;
        if !e.deferred() {
            check_finite(e.read_one(&loss).await?.get(0, 0))?;
        }
        e.stage("AdamW");
        let mut norm2 = e.upload(&Matrix::zeros(1, 1))?;
        for g in tensors(&grads) {
            norm2 = e.sum_squares(&norm2, g)?;
        }
        let lr = self.options.learning_rate_at(self.step);
        let params = tensors_mut(&mut self.weights).into_iter().zip(tensors_mut(&mut self.m).into_iter().zip(tensors_mut(&mut self.v)));
        for (((theta, (m, v)), g), &decayed) in params.zip(tensors(&grads)).zip(&self.decays) {
            e.adamw(self.options.step_for(lr, self.step + 1, decayed), theta, m, v, g, &norm2)?;
        }
        self.step += 1;
        let [loss, norm2] = e.read_n([&loss, &norm2]).await?;
        self.last_grad_norm = (norm2.get(0, 0) as f64).sqrt();
        let loss = loss.get(0, 0);
        check_finite(loss)?;
        Ok(loss)
    }

    /// The run read back to the host, weights and moments in one readback: a `Trainer` that
    /// continues it on the CPU, or goes back to a device with `TrainerOn::upload`. Take one
    /// every few steps while training on a GPU: a lost device can no longer be read.
    pub async fn snapshot<E: Executor<Tensor = T>>(&self, e: &E) -> Result<Trainer> {
        let all: Vec<&T> = tensors(&self.weights).into_iter().chain(tensors(&self.m)).chain(tensors(&self.v)).collect();
        let mut values = e.read(&all).await?.into_iter();
        let cfg = &self.weights.config;
        let mut take = || -> Result<DecoderWeights> {
            let mut w = zeros_like(cfg);
            for t in tensors_mut(&mut w) {
                *t = values.next().ok_or_else(|| ComputeError::Invalid("leitura incompleta".into()))?;
            }
            Ok(w)
        };
        let (weights, m, v) = (take()?, take()?, take()?);
        let mut cpu = Trainer::from_state(weights, m, v, self.step, self.options)?;
        cpu.last_grad_norm = self.last_grad_norm;
        Ok(cpu)
    }
}

fn check_finite(loss: f32) -> Result<()> {
    if loss.is_finite() {
        Ok(())
    } else {
        Err(ComputeError::Invalid("A perda deixou de ser finita.".into()))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::training::Corpus;

    /// A run saved after 3 steps (weights, moments, step) and continued gives the very numbers
    /// of the uninterrupted run: what a lost GPU's fallback relies on.
    #[test]
    fn a_snapshot_continues_the_run_exactly() {
        let corpus = Corpus::new("o rato roeu a roupa do rei de roma; a rainha riu. ".repeat(20).as_str(), 0.1).unwrap();
        let config = DecoderConfig { context: 16, ..char_config(corpus.tokenizer.vocab_size()) };
        let options = AdamWOptions { warmup: 2, steps: 6, ..Default::default() };
        let mut rng = crate::rng::Rng::new(3);
        let batches: Vec<Batch> = (0..6).map(|_| corpus.sample_batch(&mut rng, 4, 16)).collect::<Result<_>>().unwrap();
        let mut straight = Trainer::new(&config, 7, options).unwrap();
        let losses: Vec<f32> = batches.iter().map(|b| straight.step(b).unwrap()).collect();
        let mut first = Trainer::new(&config, 7, options).unwrap();
        for b in &batches[..3] {
            first.step(b).unwrap();
        }
        let mut resumed = block_on_ready(first.snapshot(&Cpu)).unwrap();
        assert_eq!(resumed.steps_taken(), 3);
        let (m, v) = first.moments();
        let (m, v) = (m.clone(), v.clone());
        let mut rebuilt = Trainer::from_state(first.weights.clone(), m, v, 3, options).unwrap();
        for (b, &want) in batches[3..].iter().zip(&losses[3..]) {
            assert_eq!(resumed.step(b).unwrap(), want);
            assert_eq!(rebuilt.step(b).unwrap(), want);
        }
        for (a, b) in tensors(&straight.weights).into_iter().zip(tensors(&resumed.weights)) {
            assert_eq!(a, b);
        }
        assert!(Trainer::from_state(straight.weights.clone(), zeros_like(&config), zeros_like(&char_config(5)), 0, options).is_err());
    }
}
