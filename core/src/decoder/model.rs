//! The decoder's forward pass, written once over any `Executor` (CPU or WebGPU), with a
//! KV cache for incremental decoding.
//!
//! Pre-LN GPT-style block, as the model card describes:
//!   x = E[ids]·√C + PE(positions)
//!   for each block:  x = x + MHA(LN1(x)) W^O ;  x = x + FFN(LN2(x))
//!   logits = LN_f(x) · Eᵀ            (output head tied to the embeddings)
//! Shapes: T new tokens, P cached positions, C width, nh heads, V vocabulary.

use crate::error::{ComputeError, Result};
use crate::executor::Executor;
use crate::Matrix;

use crate::transformer::positional::sinusoidal;
use super::weights::DecoderWeights;

/// Keys and values of the positions already processed, one (P,C) pair per layer.
#[derive(Clone, Debug, Default)]
pub struct KvCache {
    pub keys: Vec<Matrix>,
    pub values: Vec<Matrix>,
}

impl KvCache {
    /// P: positions cached so far.
    pub fn len(&self) -> usize {
        self.keys.first().map_or(0, Matrix::rows)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends the keys and values a successful forward pass produced.
    pub fn append(&mut self, new: KvCache) {
        if self.keys.is_empty() {
            *self = new;
            return;
        }
        for (old, add) in self.keys.iter_mut().zip(new.keys) {
            *old = concat_rows(old, &add);
        }
        for (old, add) in self.values.iter_mut().zip(new.values) {
            *old = concat_rows(old, &add);
        }
    }
}

/// What one forward pass returns.
#[derive(Clone, Debug)]
pub struct ForwardOutput {
    /// Logits (1,V) at the last new position: the scores of the next token.
    pub logits: Matrix,
    /// Per layer, the attention weights (nh·T, P+T): head after head, row i = new token i.
    pub attention: Vec<Matrix>,
    /// Keys and values of the new positions (T,C) per layer, to append to the cache.
    pub new_cache: KvCache,
}

/// Stacks the rows of `b` under those of `a` (same width).
fn concat_rows(a: &Matrix, b: &Matrix) -> Matrix {
    let stacked = ndarray::concatenate(ndarray::Axis(0), &[a.array().view(), b.array().view()])
        .expect("cache and new rows have the model's width");
    Matrix::from_array(stacked)
}

/// Runs `ids` (T tokens) after the P positions in `cache`. The cache itself is not changed:
/// on success the caller appends `new_cache`, so a computation that fails on the GPU can be
/// rerun on the CPU from the same state.
pub async fn forward<E: Executor>(e: &E, w: &DecoderWeights, ids: &[u32], cache: &KvCache) -> Result<ForwardOutput> {
    let cfg = &w.config;
    let (t, p, c) = (ids.len(), cache.len(), cfg.d_model);
    if t == 0 {
        return Err(ComputeError::Invalid("Não há tokens para processar.".into()));
    }
    if p + t > cfg.context {
        return Err(ComputeError::Invalid(format!(
            "O contexto do modelo é de {} tokens; esta entrada teria {}.",
            cfg.context,
            p + t
        )));
    }
    // x (T,C) = E[ids]·√C + PE(P … P+T−1)
    e.stage("embeddings");
    let emb = e.embedding(&w.tok_emb, ids).await?;
    let emb = e.scale(&emb, (c as f32).sqrt()).await?;
    let mut x = e.add(&emb, &sinusoidal(p, t, c, cfg.pe_theta)).await?;

    let mut attention = Vec::with_capacity(cfg.n_layers);
    let mut new_cache = KvCache::default();
    for (l, b) in w.blocks.iter().enumerate() {
        e.stage(&format!("bloco {}", l + 1));
        // Attention sub-layer: h = LN1(x); q, k, v (T,C); each head attends over P+T keys.
        let h = e.layer_norm(&x, &b.ln1_gamma, &b.ln1_beta, cfg.ln_eps).await?;
        let q = e.matmul(&h, &b.w_q).await?;
        let k = e.matmul(&h, &b.w_k).await?;
        let v = e.matmul(&h, &b.w_v).await?;
        let (k_all, v_all) = match (cache.keys.get(l), cache.values.get(l)) {
            (Some(pk), Some(pv)) => (concat_rows(pk, &k), concat_rows(pv, &v)),
            _ => (k.clone(), v.clone()),
        };
        let att = e.attention(&q, &k_all, &v_all, cfg.n_heads, true, p).await?;
        let projected = e.matmul(&att.output, &b.w_o).await?;
        x = e.add(&x, &projected).await?;
        attention.push(att.weights);
        new_cache.keys.push(k);
        new_cache.values.push(v);

        // FFN sub-layer: x = x + ReLU(LN2(x) W1 + b1) W2 + b2.
        let h = e.layer_norm(&x, &b.ln2_gamma, &b.ln2_beta, cfg.ln_eps).await?;
        let hidden = e.relu(&e.add(&e.matmul(&h, &b.w1).await?, &b.b1).await?).await?;
        let out = e.add(&e.matmul(&hidden, &b.w2).await?, &b.b2).await?;
        x = e.add(&x, &out).await?;
    }
    // Only the last position's logits are needed to choose the next token.
    e.stage("saída");
    let last = x.array().slice(ndarray::s![t - 1.., ..]).to_owned();
    let last = e.layer_norm(&Matrix::from_array(last), &w.ln_f_gamma, &w.ln_f_beta, cfg.ln_eps).await?;
    let logits = e.matmul_bt(&last, &w.tok_emb, 1.0).await?;
    Ok(ForwardOutput { logits, attention, new_cache })
}

/// One forward pass as a `Job`, so the web layer runs it on WebGPU and, if the GPU fails,
/// reruns it on the CPU from the same (unchanged) cache.
pub struct DecoderStep<'a> {
    pub weights: &'a DecoderWeights,
    pub ids: &'a [u32],
    pub cache: &'a KvCache,
}

impl crate::executor::Job for DecoderStep<'_> {
    type Output = ForwardOutput;
    async fn run<E: Executor>(&self, e: &E) -> Result<ForwardOutput> {
        forward(e, self.weights, self.ids, self.cache).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decoder::config::DecoderConfig;
    use crate::executor::{block_on_ready, Cpu};

    #[test]
    fn incremental_decoding_equals_full_recompute() {
        let cfg = DecoderConfig::tiny();
        let w = DecoderWeights::random(&cfg, 3);
        let ids = [5u32, 77, 290, 12, 12, 0, 255];
        let full = block_on_ready(forward(&Cpu, &w, &ids, &KvCache::default())).unwrap();
        let mut cache = KvCache::default();
        let mut last = None;
        for chunk in [&ids[..3], &ids[3..4], &ids[4..]] {
            let out = block_on_ready(forward(&Cpu, &w, chunk, &cache)).unwrap();
            cache.append(out.new_cache.clone());
            last = Some(out);
        }
        let last = last.unwrap();
        assert_eq!(cache.len(), ids.len());
        let diff = last.logits.max_abs_diff(&full.logits).unwrap();
        assert!(diff < 1e-5, "incremental vs full: {diff}");
        // The last step saw 3 new tokens over 7 keys; causal: row 0 of it sees keys 0..=4.
        let a = &last.attention[0];
        assert_eq!(a.shape(), (cfg.n_heads * 3, 7));
        assert_eq!(a.get(0, 5), 0.0);
        assert!((a.row(0).iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn refuses_empty_input_and_overflowing_context() {
        let cfg = DecoderConfig::tiny();
        let w = DecoderWeights::random(&cfg, 1);
        assert!(block_on_ready(forward(&Cpu, &w, &[], &KvCache::default())).is_err());
        let long = vec![1u32; cfg.context + 1];
        let err = block_on_ready(forward(&Cpu, &w, &long, &KvCache::default())).unwrap_err();
        assert!(err.to_string().contains("contexto"));
        assert!(block_on_ready(forward(&Cpu, &w, &[9999], &KvCache::default())).is_err());
    }

    #[test]
    fn traced_forward_groups_its_ops_by_block() {
        use crate::trace::{run_traced, Op};
        let cfg = DecoderConfig::tiny();
        let w = DecoderWeights::random(&cfg, 2);
        let job = DecoderStep { weights: &w, ids: &[5, 6], cache: &KvCache::default() };
        let clock = || 0.0;
        let (_, trace) = block_on_ready(run_traced(&job, &Cpu, &clock)).unwrap();
        let stages: Vec<String> = trace.stages().into_iter().map(|(s, _)| s.map(|s| s.to_string()).unwrap_or_default()).collect();
        let mut want = vec!["embeddings".to_string()];
        want.extend((1..=cfg.n_layers).map(|l| format!("bloco {l}")));
        want.push("saída".into());
        assert_eq!(stages, want);
        // Per block: 2 layer norms, 6 matmuls, 1 attention, 4 adds, 1 ReLU.
        let block_ops = trace.ops.iter().filter(|r| r.stage.as_deref() == Some("bloco 1")).count();
        assert_eq!(block_ops, 14);
        assert_eq!(trace.ops.last().map(|r| r.op), Some(Op::MatmulBt));
    }
}
