//! The decoder for training: its forward pass over a batch, keeping the activations the
//! backward pass needs, and that backward pass, giving one gradient per weight.
//!
//! Parameters and gradients are both `DecoderWeights` (the layout and names of the shipped
//! safetensors file), so trained weights go to the playground as they are, and a gradient is
//! addressed like the weight it belongs to.
//!
//! Written once over any `Executor` (`forward_on`, `backward_on`, `loss_and_gradients_on`): the
//! CPU and WebGPU run the very same sequence of ops, the GPU as one submission per step; the
//! plain `forward`, `backward`, `loss_and_gradients` are those on the CPU.
//!
//! Why a second forward pass beside `core::decoder::forward`: that one is built for
//! generation (one sequence, a KV cache written in place, only the last position's logits,
//! no intermediate tensors kept); training needs every position's logits, B sequences at once
//! and the activations. This one applies the same ops in the same order (attention over the
//! batch's sequences at once), and `forward_logits_equal_the_decoders` checks that both give
//! the same logits at every position on the same weights.
//!
//! Shapes: B sequences of T tokens stacked in the rows (N = B·T), C width, nh heads, F FFN
//! width, V vocabulary.

use crate::decoder::config::Architecture;
use crate::decoder::safetensors;
use crate::decoder::weights::{Block, BlockWeights};
use crate::decoder::{DecoderConfig, DecoderWeights};
use crate::error::{ComputeError, Result};
use crate::executor::{block_on_ready, Cpu, Executor};
use crate::matrix::Matrix;
use crate::ops;
use crate::rng::Rng;
use crate::transformer::positional::sinusoidal;

use super::data::Batch;
#[cfg(feature = "moderna")]
use super::modern_block::{self, ModernBlockActivations};

/// Every tensor of `w`, in `DecoderConfig::tensor_shapes` order (the file's names).
pub fn tensors<T>(w: &DecoderWeights<T>) -> Vec<&T> {
    w.tensors()
}

/// The same, writable.
pub fn tensors_mut<T>(w: &mut DecoderWeights<T>) -> Vec<&mut T> {
    w.tensors_mut()
}

/// Zeros of every weight's shape (a gradient accumulator, or the shape of one). Panics only on
/// a moderna config in a build without the `moderna` feature, which every way in refuses first
/// (`DecoderConfig::validate`).
pub fn zeros_like(config: &DecoderConfig) -> DecoderWeights {
    let zeros = config.tensor_shapes().iter().map(|(_, shape)| if shape.len() == 1 { Matrix::zeros(1, shape[0]) } else { Matrix::zeros(shape[0], shape[1]) }).collect();
    DecoderWeights::from_tensors(config, zeros).unwrap_or_else(|e| panic!("{e}"))
}

/// A standard normal draw (Box–Muller, the cosine branch only) from the seeded generator:
/// the same draws as the training command's initialisation (`train/src/model.rs`).
fn normal(rng: &mut Rng) -> f32 {
    let u1 = (rng.next_f32() as f64).max(1e-12);
    let u2 = rng.next_f32() as f64;
    ((-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()) as f32
}

/// Fresh weights, as `train/src/model.rs`'s `Gpt::init` draws them from the same seed:
/// N(0, 0.02²) for matrices, the residual projections (W^O, W2; the moderna's W^O, W_down)
/// scaled by 1/√(2L) as in GPT-2 so the residual stream does not grow with depth; γ = 1,
/// β = b = 0.
pub fn init(config: &DecoderConfig, seed: u64) -> DecoderWeights {
    let mut rng = Rng::new(seed);
    let residual_scale = 1.0 / (2.0 * config.n_layers as f32).sqrt();
    let mut w = zeros_like(config);
    for ((name, shape), tensor) in config.tensor_shapes().into_iter().zip(tensors_mut(&mut w)) {
        let values = tensor.as_mut_slice();
        if shape.len() == 1 {
            values.fill(if name.ends_with(".weight") { 1.0 } else { 0.0 });
        } else {
            let std = if name.ends_with("w_o") || name.ends_with("w2") || name.ends_with("w_down") { 0.02 * residual_scale } else { 0.02 };
            values.iter_mut().for_each(|v| *v = std * normal(&mut rng));
        }
    }
    w
}

/// The weights as an F32 safetensors file with the shipped file's names and shapes (vectors
/// 1-D), which `DecoderWeights::from_safetensors` reads back.
pub fn to_safetensors(w: &DecoderWeights) -> Vec<u8> {
    let shapes = w.config.tensor_shapes();
    let entries: Vec<(&str, &[usize], &[f32])> =
        shapes.iter().zip(tensors(w)).map(|((name, shape), t)| (name.as_str(), shape.as_slice(), t.as_slice())).collect();
    safetensors::write_f32(&entries)
}

/// What one block's forward pass keeps for its backward pass.
#[derive(Clone, Debug)]
pub struct BlockActivations<T = Matrix> {
    /// The residual stream entering the block, (N,C).
    pub x_in: T,
    /// LN1(x_in), and its projections Q, K, V (N,C).
    pub h1: T,
    pub q: T,
    pub k: T,
    pub v: T,
    /// Attention weights (B·nh·T, T) and the heads' concatenated output (N,C).
    pub weights: T,
    pub att: T,
    /// The stream after attention, x_in + att·W^O (N,C), and LN2 of it.
    pub x_mid: T,
    pub h2: T,
    /// h2·W1 + b1 before the ReLU, and after it (N,F).
    pub pre: T,
    pub hidden: T,
}

/// What a block of either architecture keeps for its backward pass.
#[derive(Clone, Debug)]
pub enum LayerActivations<T = Matrix> {
    Original(BlockActivations<T>),
    #[cfg(feature = "moderna")]
    Moderna(ModernBlockActivations<T>),
}

impl<T> LayerActivations<T> {
    /// The attention weights (B·nh·T, T), head after head within each sequence.
    pub fn attention_weights(&self) -> &T {
        match self {
            LayerActivations::Original(a) => &a.weights,
            #[cfg(feature = "moderna")]
            LayerActivations::Moderna(a) => &a.weights,
        }
    }
}

/// A batch's forward pass: the logits and everything the backward pass reads.
#[derive(Clone, Debug)]
pub struct Activations<T = Matrix> {
    pub sequences: usize,
    pub ids: Vec<u32>,
    pub blocks: Vec<LayerActivations<T>>,
    /// The stream after the last block (N,C), the final norm of it, and the logits (N,V).
    pub x_final: T,
    pub h_final: T,
    pub logits: T,
}

/// Checks a batch on the host (before anything is recorded on a backend): returns T.
pub fn check_batch(config: &DecoderConfig, ids: &[u32], sequences: usize) -> Result<usize> {
    if sequences == 0 || ids.is_empty() || ids.len() % sequences != 0 {
        return Err(ComputeError::Invalid(format!("{} tokens não se dividem em {sequences} sequências.", ids.len())));
    }
    let t = ids.len() / sequences;
    if t > config.context {
        return Err(ComputeError::Invalid(format!("O contexto do modelo é de {} tokens; as sequências têm {t}.", config.context)));
    }
    ops::check_vocab(config.vocab_size, ids)?;
    Ok(t)
}

/// The forward pass of B = `sequences` sequences of T tokens, `ids` sequence after sequence:
/// x = E[ids]·√C (+ PE for the original: the moderna turns q and k instead); per block
/// x += MHA(norm₁(x))·W^O, x += FFN(norm₂(x)); logits = norm_f(x)·Eᵀ.
pub fn forward_on<E: Executor>(e: &E, w: &DecoderWeights<E::Tensor>, ids: &[u32], sequences: usize) -> Result<Activations<E::Tensor>> {
    let cfg = &w.config;
    let t = check_batch(cfg, ids, sequences)?;
    let c = cfg.d_model;
    e.stage("embeddings");
    let emb = e.scale(&e.embedding(&w.tok_emb, ids)?, (c as f32).sqrt())?;
    let mut x = match cfg.architecture {
        Architecture::Original => {
            // The positional table of one sequence, repeated for each (built on the host: it
            // depends only on the shape).
            let pe_one = sinusoidal(0, t, c, cfg.pe_theta);
            let mut pe = Matrix::zeros(sequences * t, c);
            for s in 0..sequences {
                ops::write_rows(&mut pe, s * t, &pe_one)?;
            }
            e.add(&emb, &e.upload(&pe)?)?
        }
        Architecture::Moderna => emb,
    };
    let mut blocks = Vec::with_capacity(cfg.n_layers);
    for (l, b) in w.blocks.iter().enumerate() {
        e.stage(&format!("bloco {}", l + 1));
        let (x_out, kept) = match b {
            Block::Original(b) => {
                let (x_out, kept) = original_block_forward(e, b, cfg, &x, sequences)?;
                (x_out, LayerActivations::Original(kept))
            }
            #[cfg(feature = "moderna")]
            Block::Moderna(b) => {
                let (x_out, kept) = modern_block::forward_on(e, b, &cfg.modern_shape(), &x, sequences)?;
                (x_out, LayerActivations::Moderna(kept))
            }
        };
        x = x_out;
        blocks.push(kept);
    }
    e.stage("saída");
    let h_final = w.final_norm(e, &x)?;
    let logits = e.matmul_bt(&h_final, &w.tok_emb, 1.0)?;
    Ok(Activations { sequences, ids: ids.to_vec(), blocks, x_final: x, h_final, logits })
}

/// The 2017 block over a batch: x_mid = x + MHA(LN1(x))·W^O; x_out = x_mid + FFN(LN2(x_mid)).
fn original_block_forward<E: Executor>(
    e: &E,
    b: &BlockWeights<E::Tensor>,
    cfg: &DecoderConfig,
    x: &E::Tensor,
    sequences: usize,
) -> Result<(E::Tensor, BlockActivations<E::Tensor>)> {
    let h1 = e.layer_norm(x, &b.ln1_gamma, &b.ln1_beta, cfg.ln_eps)?;
    let (q, k, v) = (e.matmul(&h1, &b.w_q)?, e.matmul(&h1, &b.w_k)?, e.matmul(&h1, &b.w_v)?);
    let (att, weights) = e.attention_batch(&q, &k, &v, cfg.n_heads, sequences)?;
    let x_mid = e.add(x, &e.matmul(&att, &b.w_o)?)?;
    let h2 = e.layer_norm(&x_mid, &b.ln2_gamma, &b.ln2_beta, cfg.ln_eps)?;
    let pre = e.add(&e.matmul(&h2, &b.w1)?, &b.b1)?;
    let hidden = e.relu(&pre)?;
    let out = e.add(&e.matmul(&hidden, &b.w2)?, &b.b2)?;
    let x_out = e.add(&x_mid, &out)?;
    Ok((x_out, BlockActivations { x_in: x.clone(), h1, q, k, v, weights, att, x_mid, h2, pre, hidden }))
}

/// `forward_on` the CPU.
pub fn forward(w: &DecoderWeights, ids: &[u32], sequences: usize) -> Result<Activations> {
    forward_on(&Cpu, w, ids, sequences)
}

/// The gradient of every weight, given the forward's activations and ∂L/∂logits (N,V).
pub fn backward_on<E: Executor>(
    e: &E,
    w: &DecoderWeights<E::Tensor>,
    a: &Activations<E::Tensor>,
    dlogits: &E::Tensor,
) -> Result<DecoderWeights<E::Tensor>> {
    let cfg = &w.config;
    e.stage("gradientes: saída");
    // logits = h_final·Eᵀ (the tied head).
    let head_demb = e.matmul_at(dlogits, &a.h_final)?;
    let dh = e.matmul(dlogits, &w.tok_emb)?;
    let (mut dx, ln_f_gamma, ln_f_beta) = final_norm_backward(e, w, &a.x_final, &dh)?;
    // dx: the gradient of the residual stream, flowing back block by block.
    let mut blocks = Vec::with_capacity(cfg.n_layers);
    for (l, (b, kept)) in w.blocks.iter().zip(&a.blocks).enumerate().rev() {
        e.stage(&format!("gradientes: bloco {}", l + 1));
        let (dx_in, grads) = match (b, kept) {
            (Block::Original(b), LayerActivations::Original(kept)) => {
                let (dx_in, grads) = original_block_backward(e, b, cfg, kept, &dx, a.sequences)?;
                (dx_in, Block::Original(grads))
            }
            #[cfg(feature = "moderna")]
            (Block::Moderna(b), LayerActivations::Moderna(kept)) => {
                let (dx_in, grads) = modern_block::backward_on(e, b, &cfg.modern_shape(), kept, &dx, a.sequences)?;
                (dx_in, Block::Moderna(grads))
            }
            #[cfg(feature = "moderna")]
            _ => return Err(ComputeError::Invalid("As ativações não são do bloco destes pesos.".into())),
        };
        dx = dx_in;
        blocks.push(grads);
    }
    blocks.reverse();
    // x = E[ids]·√C (+ PE): the embedding rows get √C·dx, scattered by id, plus the head's share.
    e.stage("gradientes: embeddings");
    let demb = e.embedding_backward(&e.scale(&dx, (cfg.d_model as f32).sqrt())?, &a.ids, cfg.vocab_size)?;
    let tok_emb = e.add(&head_demb, &demb)?;
    Ok(DecoderWeights { config: cfg.clone(), tok_emb, blocks, ln_f_gamma, ln_f_beta })
}

/// dL/dx through a norm, with its γ's gradient and its β's (`None`: an RMSNorm, no β).
type NormGradients<T> = (T, T, Option<T>);

/// Through the final norm: (dL/dx, dγ, dβ) for the original's layer norm, (dL/dx, dγ, None)
/// for the moderna's RMSNorm.
fn final_norm_backward<E: Executor>(e: &E, w: &DecoderWeights<E::Tensor>, x: &E::Tensor, dh: &E::Tensor) -> Result<NormGradients<E::Tensor>> {
    match &w.ln_f_beta {
        Some(_) => {
            let (dx, dgamma, dbeta) = e.layer_norm_backward(x, &w.ln_f_gamma, dh, w.config.ln_eps)?;
            Ok((dx, dgamma, Some(dbeta)))
        }
        #[cfg(feature = "moderna")]
        None => {
            let (dx, dgamma) = e.rms_norm_backward(x, &w.ln_f_gamma, dh, w.config.ln_eps)?;
            Ok((dx, dgamma, None))
        }
        // Never reached: weights without β are moderna ones, which this build cannot make.
        #[cfg(not(feature = "moderna"))]
        None => Err(crate::decoder::config::moderna_not_built()),
    }
}

/// The 2017 block's backward pass from dL/dx_out: (dL/dx_in, its weights' gradients).
fn original_block_backward<E: Executor>(
    e: &E,
    b: &BlockWeights<E::Tensor>,
    cfg: &DecoderConfig,
    act: &BlockActivations<E::Tensor>,
    dx: &E::Tensor,
    sequences: usize,
) -> Result<(E::Tensor, BlockWeights<E::Tensor>)> {
    // x_out = x_mid + ReLU(h2·W1 + b1)·W2 + b2.
    let w2 = e.matmul_at(&act.hidden, dx)?;
    let b2 = e.sum_rows(dx)?;
    let dpre = e.relu_backward(&act.pre, &e.matmul_bt(dx, &b.w2, 1.0)?)?;
    let w1 = e.matmul_at(&act.h2, &dpre)?;
    let b1 = e.sum_rows(&dpre)?;
    let (dx2, ln2_gamma, ln2_beta) = e.layer_norm_backward(&act.x_mid, &b.ln2_gamma, &e.matmul_bt(&dpre, &b.w1, 1.0)?, cfg.ln_eps)?;
    let dx = e.add(dx, &dx2)?;
    // x_mid = x_in + attention(h1·W^Q, h1·W^K, h1·W^V)·W^O.
    let w_o = e.matmul_at(&act.att, &dx)?;
    let datt = e.matmul_bt(&dx, &b.w_o, 1.0)?;
    let (dq, dk, dv) = e.attention_backward(&act.q, &act.k, &act.v, &act.weights, &datt, cfg.n_heads, sequences)?;
    let (w_q, w_k, w_v) = (e.matmul_at(&act.h1, &dq)?, e.matmul_at(&act.h1, &dk)?, e.matmul_at(&act.h1, &dv)?);
    let dh1 = e.add(&e.add(&e.matmul_bt(&dq, &b.w_q, 1.0)?, &e.matmul_bt(&dk, &b.w_k, 1.0)?)?, &e.matmul_bt(&dv, &b.w_v, 1.0)?)?;
    let (dx1, ln1_gamma, ln1_beta) = e.layer_norm_backward(&act.x_in, &b.ln1_gamma, &dh1, cfg.ln_eps)?;
    let dx_in = e.add(&dx, &dx1)?;
    Ok((dx_in, BlockWeights { ln1_gamma, ln1_beta, w_q, w_k, w_v, w_o, ln2_gamma, ln2_beta, w1, b1, w2, b2 }))
}

/// `backward_on` the CPU.
pub fn backward(w: &DecoderWeights, a: &Activations, dlogits: &Matrix) -> Result<DecoderWeights> {
    backward_on(&Cpu, w, a, dlogits)
}

/// The batch's mean cross-entropy (a (1,1) tensor, nats per token) and the gradient of every
/// weight, applied on `e` and not read.
pub fn loss_and_gradients_on<E: Executor>(e: &E, w: &DecoderWeights<E::Tensor>, batch: &Batch) -> Result<(E::Tensor, DecoderWeights<E::Tensor>)> {
    check_targets(&w.config, batch)?;
    let a = forward_on(e, w, &batch.inputs, batch.sequences)?;
    e.stage("perda");
    let (loss, dlogits) = e.cross_entropy(&a.logits, &batch.targets)?;
    Ok((loss, backward_on(e, w, &a, &dlogits)?))
}

/// One target per input, inside the vocabulary: checked before anything is recorded.
fn check_targets(config: &DecoderConfig, batch: &Batch) -> Result<()> {
    if batch.targets.len() != batch.inputs.len() {
        return Err(ComputeError::Invalid(format!("{} entradas para {} alvos.", batch.inputs.len(), batch.targets.len())));
    }
    ops::check_vocab(config.vocab_size, &batch.targets)
}

/// The batch's mean cross-entropy (nats per token) and the gradient of every weight.
pub fn loss_and_gradients(w: &DecoderWeights, batch: &Batch) -> Result<(f32, DecoderWeights)> {
    let (loss, grads) = loss_and_gradients_on(&Cpu, w, batch)?;
    Ok((loss.get(0, 0), grads))
}

/// The batch's mean cross-entropy alone (no gradient), applied on `e` and not read.
pub fn loss_on<E: Executor>(e: &E, w: &DecoderWeights<E::Tensor>, batch: &Batch) -> Result<E::Tensor> {
    check_targets(&w.config, batch)?;
    let a = forward_on(e, w, &batch.inputs, batch.sequences)?;
    Ok(e.cross_entropy(&a.logits, &batch.targets)?.0)
}

/// The batch's mean cross-entropy alone (no gradient).
pub fn loss(w: &DecoderWeights, batch: &Batch) -> Result<f32> {
    block_on_ready(Cpu.read_one(&loss_on(&Cpu, w, batch)?)).map(|m| m.get(0, 0))
}

/// One weight entry's gradient, from the backward pass and from central differences of the
/// batch's loss: what a gradient check shows.
#[derive(Clone, Debug, PartialEq)]
pub struct GradientProbe {
    /// The tensor's name in the weights file, and the entry (row-major).
    pub tensor: String,
    pub index: usize,
    pub analytic: f32,
    /// (L(θ + ε) − L(θ − ε)) / 2ε, the losses in f32 as the forward computes them.
    pub numeric: f32,
    /// The tensor's largest |gradient|: an entry whose gradient is ~0 is judged on its
    /// tensor's scale, not against 0.
    pub scale: f32,
}

impl GradientProbe {
    /// |numeric − analytic| relative to the tensor's scale.
    pub fn error(&self) -> f32 {
        (self.numeric - self.analytic).abs() / self.scale.max(1e-6)
    }
}

/// Checks the backward pass on `batch`: for every tensor, its largest-gradient entry and
/// `random_entries` more drawn from `rng`, each against central differences with step `eps`
/// (1e-3 suits f32: small enough that few ReLU inputs cross 0 within ±ε, large enough for
/// the loss's rounding; at 1e-2 an entry of W1 was 3 % off for the first reason).
pub fn gradient_check(w: &DecoderWeights, batch: &Batch, random_entries: usize, eps: f32, rng: &mut Rng) -> Result<Vec<GradientProbe>> {
    let (_, grads) = loss_and_gradients(w, batch)?;
    let mut probes = Vec::new();
    for ((name, _), (index, g)) in w.config.tensor_shapes().into_iter().zip(tensors(&grads).into_iter().enumerate()) {
        let g = g.as_slice();
        let largest = (0..g.len()).max_by(|&i, &j| g[i].abs().total_cmp(&g[j].abs())).unwrap_or(0);
        let entries = std::iter::once(largest).chain((0..random_entries).map(|_| rng.below(g.len() as u64) as usize));
        for entry in entries.collect::<Vec<_>>() {
            let at = |delta: f32| -> Result<f64> {
                let mut moved = w.clone();
                tensors_mut(&mut moved)[index].as_mut_slice()[entry] += delta;
                Ok(loss(&moved, batch)? as f64)
            };
            let numeric = ((at(eps)? - at(-eps)?) / (2.0 * eps as f64)) as f32;
            probes.push(GradientProbe { tensor: name.clone(), index: entry, analytic: g[entry], numeric, scale: g[largest].abs() });
        }
    }
    Ok(probes)
}

/// Weights uniform in ±0,5 (γ around 1) from `seed`: larger than a fresh model's N(0; 0,02²),
/// so that every gradient stands well above f32 rounding and the check measures the formulas.
pub(crate) fn lively(config: &DecoderConfig, seed: u64) -> DecoderWeights {
    let mut rng = Rng::new(seed);
    let mut w = zeros_like(config);
    for ((name, _), t) in config.tensor_shapes().into_iter().zip(tensors_mut(&mut w)) {
        let around = if name.ends_with(".weight") { 1.0 } else { 0.0 };
        t.as_mut_slice().iter_mut().for_each(|v| *v = around + rng.uniform(-0.5, 0.5));
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decoder::model::{forward as decoder_forward, read_forward, KvCache};

    /// √(mean(m²)): a draw's standard deviation around 0.
    fn std(m: &Matrix) -> f64 {
        (m.as_slice().iter().map(|v| (v * v) as f64).sum::<f64>() / m.as_slice().len() as f64).sqrt()
    }

    fn small_config() -> DecoderConfig {
        DecoderConfig { vocab_size: 11, d_model: 8, n_heads: 2, n_layers: 2, d_ff: 32, context: 8, pe_theta: 10_000.0, ln_eps: 1e-5, architecture: Architecture::Original, n_kv_heads: None }
    }

    /// Weights large enough that every gradient is well above f32 noise: uniform in ±0.5,
    /// γ around 1.
    fn lively_weights(config: &DecoderConfig, seed: u64) -> DecoderWeights {
        lively(config, seed)
    }

    #[test]
    fn tensors_follow_the_files_names_and_shapes() {
        let cfg = small_config();
        let w = init(&cfg, 1);
        let shapes = cfg.tensor_shapes();
        assert_eq!(tensors(&w).len(), shapes.len());
        for ((name, shape), t) in shapes.iter().zip(tensors(&w)) {
            let want = if shape.len() == 1 { (1, shape[0]) } else { (shape[0], shape[1]) };
            assert_eq!(t.shape(), want, "{name}");
        }
        // γ = 1, β = 0, matrices with a standard deviation near 0.02 (W^O, W2 by 1/√(2L) = ½).
        let original = |w: &DecoderWeights, l: usize| w.blocks[l].original().unwrap().clone();
        assert_eq!(original(&w, 1).ln2_gamma.as_slice(), &[1.0; 8]);
        assert_eq!(original(&w, 0).b1.as_slice(), &[0.0; 32]);
        let big = init(&DecoderConfig { d_model: 64, d_ff: 256, n_heads: 4, ..cfg.clone() }, 2);
        assert!((std(&original(&big, 0).w1) - 0.02).abs() < 1e-3, "{}", std(&original(&big, 0).w1));
        assert!((std(&original(&big, 0).w2) - 0.01).abs() < 1e-3, "{}", std(&original(&big, 0).w2));
        // The file round trip: the playground's loader reads back the very same tensors.
        let shipped_like = init(&DecoderConfig { vocab_size: 300, ..cfg.clone() }, 3);
        let back = DecoderWeights::from_safetensors(&shipped_like.config, &to_safetensors(&shipped_like)).unwrap();
        for (a, b) in tensors(&shipped_like).into_iter().zip(tensors(&back)) {
            assert_eq!(a, b);
        }
    }

    /// One source of truth: at every position of every sequence, the training forward's
    /// logits equal `core::decoder::forward`'s, fed one token at a time through its KV cache.
    #[test]
    fn forward_logits_equal_the_decoders() {
        let cfg = DecoderConfig::tiny();
        let w = DecoderWeights::random(&cfg, 9);
        let ids: Vec<u32> = vec![5, 77, 290, 12, 12, 0, 255, 1, /* second sequence */ 3, 3, 299, 40, 41, 7, 8, 100];
        let a = forward(&w, &ids, 2).unwrap();
        assert_eq!(a.logits.shape(), (16, cfg.vocab_size));
        let mut worst = 0.0f32;
        for s in 0..2 {
            let mut cache = KvCache::new(&Cpu, &cfg).unwrap();
            for i in 0..8 {
                let pass = decoder_forward(&Cpu, &w, &ids[s * 8 + i..s * 8 + i + 1], &mut cache).unwrap();
                let out = block_on_ready(read_forward(&Cpu, &pass)).unwrap();
                let row = ops::rows(&a.logits, s * 8 + i, s * 8 + i + 1);
                worst = worst.max(row.max_abs_diff(&out.logits).unwrap());
            }
        }
        assert!(worst < 1e-5, "training vs decoder logits: {worst}");
    }

    /// The whole model's gradient against central differences of the loss, for three entries
    /// of every tensor (the largest-gradient one and two random ones), on `cfg`.
    fn check_model_gradients(cfg: &DecoderConfig, label: &str) {
        let w = lively_weights(cfg, 4);
        let mut rng = Rng::new(5);
        let (sequences, t) = (2, 6);
        let ids: Vec<u32> = (0..sequences * t + 1).map(|_| rng.below(cfg.vocab_size as u64) as u32).collect();
        let batch = Batch { inputs: ids[..sequences * t].to_vec(), targets: ids[1..].to_vec(), sequences, len: t };
        let probes = gradient_check(&w, &batch, 2, 1e-3, &mut rng).unwrap();
        assert_eq!(probes.len(), 3 * cfg.tensor_shapes().len());
        let worst = probes.iter().max_by(|a, b| a.error().total_cmp(&b.error())).unwrap();
        println!("{label} gradients vs central differences: worst {:.2e} ({worst:?})", worst.error());
        // f32 losses differ by multiples of ~2.4e-7: over 2ε = 2e-3 that is ~1e-4 absolute.
        assert!(worst.error() < 1e-2, "{label}: worst gradient: {worst:?}");
        assert!(probes.iter().all(|p| p.scale > 1e-3), "{label}: every tensor gets a gradient");
    }

    #[test]
    fn model_gradients_match_finite_differences() {
        check_model_gradients(&small_config(), "model");
    }

    /// The moderna's tensors, in the file's order and shapes; `init`'s γ = 1 and its draws'
    /// spreads (W_down and W^O by 1/√(2L)); the file round trip; and the count by hand.
    #[cfg(feature = "moderna")]
    #[test]
    fn moderna_tensors_init_and_file_round_trip() {
        let cfg = DecoderConfig { d_model: 64, d_ff: 96, n_heads: 4, ..DecoderConfig::tiny_moderna(2) };
        let w = init(&cfg, 7);
        let shapes = cfg.tensor_shapes();
        assert_eq!(tensors(&w).len(), shapes.len());
        assert_eq!(shapes.len(), 1 + 9 * cfg.n_layers + 1, "no β anywhere, and one final γ");
        for ((name, shape), t) in shapes.iter().zip(tensors(&w)) {
            let want = if shape.len() == 1 { (1, shape[0]) } else { (shape[0], shape[1]) };
            assert_eq!(t.shape(), want, "{name}");
        }
        assert_eq!((shapes[4].0.as_str(), shapes[4].1.as_slice()), ("blocks.0.attn.w_v", &[64, 32][..]), "GQA: K, V of 2 heads of 16");
        assert_eq!(shapes.last().unwrap().0, "rms_f.weight");
        let b = w.blocks[0].moderna().unwrap();
        assert_eq!((b.rms1_gamma.as_slice(), w.ln_f_gamma.as_slice(), w.ln_f_beta.is_none()), (&[1.0; 64][..], &[1.0; 64][..], true));
        assert!((std(&b.w_gate) - 0.02).abs() < 1e-3, "{}", std(&b.w_gate));
        assert!((std(&b.w_down) - 0.01).abs() < 1e-3, "{}", std(&b.w_down));
        assert!((std(&b.w_o) - 0.01).abs() < 1e-3, "{}", std(&b.w_o));
        let back = DecoderWeights::from_safetensors(&cfg, &to_safetensors(&w)).unwrap();
        for (a, b) in tensors(&w).into_iter().zip(tensors(&back)) {
            assert_eq!(a, b);
        }
        // By hand: V·C; per block γ₁, W^Q, W^K, W^V (C × n_kv·hs), W^O, γ₂, W_gate, W_up, W_down;
        // the final γ.
        let (v, c, kv, f) = (300, 64, 32, 96);
        let block = c + c * c + 2 * c * kv + c * c + c + 3 * c * f;
        assert_eq!(cfg.parameter_count(), v * c + 2 * block + c);
    }

    /// The moderna's training forward against `core::decoder::forward` fed one token at a time
    /// through its KV cache, at every position of two sequences: plain multi-head (4 K/V
    /// heads), GQA (2 for 4 heads) and MQA (1).
    #[cfg(feature = "moderna")]
    #[test]
    fn moderna_forward_logits_equal_the_decoders() {
        let ids: Vec<u32> = vec![5, 77, 290, 12, 12, 0, 255, 1, /* second sequence */ 3, 3, 299, 40, 41, 7, 8, 100];
        for kv_heads in [4, 2, 1] {
            let cfg = DecoderConfig::tiny_moderna(kv_heads);
            let w = DecoderWeights::random(&cfg, 9 + kv_heads as u64);
            let a = forward(&w, &ids, 2).unwrap();
            let mut worst = 0.0f32;
            for s in 0..2 {
                let mut cache = KvCache::new(&Cpu, &cfg).unwrap();
                assert_eq!(cache.keys[0].shape(), (cfg.context, kv_heads * 4), "the cache keeps the K/V heads only");
                for i in 0..8 {
                    let pass = decoder_forward(&Cpu, &w, &ids[s * 8 + i..s * 8 + i + 1], &mut cache).unwrap();
                    let out = block_on_ready(read_forward(&Cpu, &pass)).unwrap();
                    let row = ops::rows(&a.logits, s * 8 + i, s * 8 + i + 1);
                    worst = worst.max(row.max_abs_diff(&out.logits).unwrap());
                }
            }
            let scale = a.logits.as_slice().iter().fold(0.0f32, |m, v| m.max(v.abs()));
            println!("moderna, {kv_heads} K/V heads: training vs decoder logits {worst:.2e} (logits up to {scale:.2})");
            assert!(scale > 0.1, "logits that say something");
            assert!(worst < 1e-5, "{kv_heads} K/V heads: training vs decoder logits: {worst}");
        }
    }

    /// The whole moderna model's gradient (RoPE, GQA, SwiGLU, both RMSNorms, the final one,
    /// the tied head) against central differences of the loss, three entries of every tensor.
    #[cfg(feature = "moderna")]
    #[test]
    fn moderna_gradients_match_finite_differences() {
        for kv_heads in [2, 1] {
            let cfg = DecoderConfig { vocab_size: 11, d_model: 16, n_layers: 2, d_ff: 24, context: 8, ..DecoderConfig::tiny_moderna(kv_heads) };
            check_model_gradients(&cfg, &format!("moderna ({kv_heads} K/V heads)"));
        }
    }

    #[test]
    fn refuses_batches_that_do_not_fit() {
        let cfg = small_config();
        let w = init(&cfg, 1);
        assert!(forward(&w, &[1, 2, 3], 2).is_err());
        assert!(forward(&w, &[1; 9], 1).is_err(), "longer than the context");
        assert!(forward(&w, &[1, 11], 1).is_err(), "outside the vocabulary");
        assert!(forward(&w, &[], 1).is_err());
    }
}
