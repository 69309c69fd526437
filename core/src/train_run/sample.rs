//! What the weights of a run say, read without training: text they generate, and where one
//! head of one block looks on a fixed stretch of text.
//!
//! Generation is the decoder's own forward pass (`decoder::forward`, with its KV cache, on
//! the CPU executor): the weights being trained have the shipped model's layout, so the
//! same pass runs them. When the context fills, the oldest quarter is dropped and the rest
//! read again (`decoder::session::tokens_to_drop`, the playground's window rule).

use crate::decoder::sampling::{sample, SamplingOptions};
use crate::decoder::session::tokens_to_drop;
use crate::decoder::{self, DecoderWeights, KvCache};
use crate::error::{ComputeError, Result};
use crate::executor::{block_on_ready, Cpu, Executor};
use crate::rng::Rng;
use crate::training::model;
use crate::Matrix;

/// The sampler of the samples: temperature 0,8 over the whole vocabulary (a character
/// vocabulary is small; top-k would hide how the distribution sharpens).
pub fn sample_options() -> SamplingOptions {
    SamplingOptions { temperature: 0.8, top_k: 0, top_p: 1.0 }
}

/// `n` token ids generated after `prompt` (≥ 1 id) by `weights`, drawn with `seed`.
pub fn generate(weights: &DecoderWeights, prompt: &[u32], n: usize, seed: u64) -> Result<Vec<u32>> {
    if prompt.is_empty() {
        return Err(ComputeError::Invalid("A amostra precisa de ao menos um caractere inicial.".into()));
    }
    let (e, context) = (Cpu, weights.config.context);
    let mut rng = Rng::new(seed);
    let mut ids: Vec<u32> = prompt[prompt.len().saturating_sub(context)..].to_vec();
    let mut cache = KvCache::new(&e, &weights.config)?;
    let mut pending: Vec<u32> = ids.clone();
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let pass = decoder::forward(&e, weights, &pending, &mut cache)?;
        let logits = block_on_ready(e.read_one(&pass.logits))?;
        let next = sample(logits.as_slice(), &sample_options(), &mut rng)?;
        out.push(next);
        ids.push(next);
        if cache.len() + 1 > context {
            // The window is full: keep the most recent positions and read them again.
            let drop = tokens_to_drop(ids.len(), context).max(1);
            ids.drain(..drop.min(ids.len() - 1));
            cache.clear();
            pending = ids.clone();
        } else {
            pending = vec![next];
        }
    }
    Ok(out)
}

/// The attention weights of head `head` of block `layer` on `ids` (T ≤ context): (T, T),
/// row i the position that looks, column j the one looked at; the upper triangle is 0.
pub fn attention_map(weights: &DecoderWeights, ids: &[u32], layer: usize, head: usize) -> Result<Matrix> {
    let cfg = &weights.config;
    if layer >= cfg.n_layers || head >= cfg.n_heads {
        return Err(ComputeError::Invalid(format!(
            "O modelo tem {} camadas e {} cabeças; não há a camada {} cabeça {}.",
            cfg.n_layers,
            cfg.n_heads,
            layer + 1,
            head + 1
        )));
    }
    let acts = model::forward(weights, ids, 1)?;
    // One sequence: the block's weights are (nh·T, T), head after head.
    let t = ids.len();
    Ok(crate::ops::rows(acts.blocks[layer].attention_weights(), head * t, (head + 1) * t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::training::{char_config, model::init};

    #[test]
    fn generation_is_seeded_and_outlives_the_context() {
        let cfg = crate::decoder::DecoderConfig { context: 16, ..char_config(12) };
        let w = init(&cfg, 3);
        let a = generate(&w, &[1, 2, 3], 40, 9).unwrap();
        assert_eq!(a.len(), 40);
        assert!(a.iter().all(|&i| i < 12));
        assert_eq!(a, generate(&w, &[1, 2, 3], 40, 9).unwrap());
        assert_ne!(a, generate(&w, &[1, 2, 3], 40, 10).unwrap());
        assert!(generate(&w, &[], 4, 1).is_err());
    }

    #[test]
    fn attention_rows_are_causal_distributions() {
        let w = init(&char_config(10), 1);
        let ids: Vec<u32> = (0..12).map(|i| i % 10).collect();
        let m = attention_map(&w, &ids, 1, 3).unwrap();
        assert_eq!(m.shape(), (12, 12));
        for r in 0..12 {
            let sum: f32 = (0..12).map(|c| m.get(r, c)).sum();
            assert!((sum - 1.0).abs() < 1e-4);
            assert!((r + 1..12).all(|c| m.get(r, c) == 0.0));
        }
        assert!(attention_map(&w, &ids, 2, 0).is_err());
    }
}
