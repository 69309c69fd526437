//! The decoder's forward pass: the only one, written once over any `Executor`. On the CPU it
//! runs op by op; on WebGPU its ops go into one command buffer with the weights and the KV
//! cache resident in GPU memory, and the caller's read brings back the logits and the
//! attention weights in one readback.
//!
//! Pre-LN GPT-style block, as the model card describes:
//!   x = E[ids]·√C + PE(positions)
//!   for each block:  x = x + MHA(LN1(x)) W^O ;  x = x + FFN(LN2(x))
//!   logits = LN_f(x) · Eᵀ            (output head tied to the embeddings)
//! or today's block (the "moderna" architecture, issue 41), in the same loop:
//!   x = E[ids]·√C                   (no PE: RoPE turns q and k at their positions)
//!   for each block:  x = x + MHA(RoPE(q), RoPE(k), v) W^O over RMSNorm(x), K/V shared by
//!                    groups of heads (GQA);  x = x + SwiGLU(RMSNorm(x))
//!   logits = RMSNorm(x) · Eᵀ
//! Shapes: T new tokens, P cached positions, C width, nh heads, n_kv K/V heads, V vocabulary.

use crate::error::{ComputeError, Result};
use crate::executor::{Executor, Job};
use crate::transformer::positional::sinusoidal;
use crate::Matrix;

#[cfg(feature = "moderna")]
use crate::ops::modern::RopePositions;

use super::config::{Architecture, DecoderConfig};
use super::weights::{Block, DecoderWeights};

/// Keys and values of the positions processed so far, one (context, n_kv·hs) tensor per layer
/// (C for the original; the moderna's K/V heads only, before they are shared), written in
/// place as positions arrive: rows 0 … len − 1 hold data. Keys are kept turned by RoPE.
#[derive(Clone, Debug)]
pub struct KvCache<T> {
    pub keys: Vec<T>,
    pub values: Vec<T>,
    len: usize,
}

impl<T> KvCache<T> {
    /// An empty cache with room for the model's whole context, on `e`'s backend.
    pub fn new<E: Executor<Tensor = T>>(e: &E, config: &DecoderConfig) -> Result<KvCache<T>> {
        let zeros = Matrix::zeros(config.context, config.kv_width());
        let room = || (0..config.n_layers).map(|_| e.upload(&zeros)).collect::<Result<Vec<_>>>();
        Ok(KvCache { keys: room()?, values: room()?, len: 0 })
    }

    /// P: positions cached so far.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Forgets every position (the next pass starts at position 0).
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Keeps the first `len` positions (the next pass starts at position `len`).
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }
}

/// What one forward pass leaves on the backend, to read.
#[derive(Clone, Debug)]
pub struct Forward<T> {
    /// Logits (1,V) at the last new position: the scores of the next token.
    pub logits: T,
    /// Per layer, the attention weights (nh·T, P+T): head after head, row i = new token i.
    pub attention: Vec<T>,
}

/// Runs `ids` (T tokens) after the P positions in `cache`, whose keys and values it writes
/// in place at rows P … P+T−1 (the cache then holds P+T). It only applies ops: reading the
/// returned tensors runs them. If that read fails (a lost GPU), clear the cache.
pub fn forward<E: Executor>(
    e: &E,
    w: &DecoderWeights<E::Tensor>,
    ids: &[u32],
    cache: &mut KvCache<E::Tensor>,
) -> Result<Forward<E::Tensor>> {
    forward_tapped(e, w, ids, cache, &mut ())
}

/// What a pass may observe at its last new position without changing it: the logit lens
/// (`lens::LensTaps`) reads the residual stream there; `()` observes nothing, so the plain
/// forward pass applies no extra op. Each hook gets the whole tensor and the number of new
/// positions `t`, and takes the rows it wants itself.
pub trait Taps<E: Executor> {
    /// After x = E[ids]·√C + PE, x (T,C).
    fn after_embedding(&mut self, _e: &E, _w: &DecoderWeights<E::Tensor>, _x: &E::Tensor, _t: usize) -> Result<()> {
        Ok(())
    }
    /// After attention, its output `att` (T,C) before W^O, split over `heads`.
    fn after_attention(&mut self, _e: &E, _att: &E::Tensor, _w_o: &E::Tensor, _heads: usize, _t: usize) -> Result<()> {
        Ok(())
    }
    /// After a block: what its FFN added (T,C) and the residual x (T,C) it leaves.
    fn after_block(&mut self, _e: &E, _w: &DecoderWeights<E::Tensor>, _ffn: &E::Tensor, _x: &E::Tensor, _t: usize) -> Result<()> {
        Ok(())
    }
}

/// The plain pass observes nothing.
impl<E: Executor> Taps<E> for () {}

/// The pass itself, with `taps` observing the last new position (`()` for none). A trait
/// object, not a generic: one copy of the pass per backend in the wasm, whatever observes it.
pub fn forward_tapped<E: Executor>(
    e: &E,
    w: &DecoderWeights<E::Tensor>,
    ids: &[u32],
    cache: &mut KvCache<E::Tensor>,
    taps: &mut dyn Taps<E>,
) -> Result<Forward<E::Tensor>> {
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
    // x (T,C) = E[ids]·√C + PE(P … P+T−1) (the moderna adds no PE: RoPE turns q and k).
    e.stage("embeddings");
    let emb = e.embedding(&w.tok_emb, ids)?;
    let emb = e.scale(&emb, (c as f32).sqrt())?;
    let mut x = match cfg.architecture {
        Architecture::Original => e.add(&emb, &e.upload(&sinusoidal(p, t, c, cfg.pe_theta))?)?,
        Architecture::Moderna => emb,
    };
    taps.after_embedding(e, w, &x, t)?;

    let mut attention = Vec::with_capacity(cfg.n_layers);
    for (l, b) in w.blocks.iter().enumerate() {
        e.stage(&format!("bloco {}", l + 1));
        // Attention sub-layer: q, k, v of the new rows; the new keys and values join the
        // cache in place; each head attends over the P+T cached positions.
        let (q, k, v) = project(e, b, cfg, &x, p)?;
        e.write_rows(&mut cache.keys[l], p, &k)?;
        e.write_rows(&mut cache.values[l], p, &v)?;
        let keys = share_kv(e, b, cfg, e.rows(&cache.keys[l], 0, p + t)?)?;
        let values = share_kv(e, b, cfg, e.rows(&cache.values[l], 0, p + t)?)?;
        let (att, weights) = e.attention(&q, &keys, &values, cfg.n_heads, true, p)?;
        let projected = e.matmul(&att, b.w_o())?;
        x = e.add(&x, &projected)?;
        attention.push(weights);
        taps.after_attention(e, &att, b.w_o(), cfg.n_heads, t)?;

        // FFN sub-layer: x = x + FFN(norm₂(x)).
        let out = feed_forward(e, b, cfg, &x)?;
        x = e.add(&x, &out)?;
        taps.after_block(e, w, &out, &x, t)?;
    }
    cache.len = p + t;
    // Only the last position's logits are needed to choose the next token.
    e.stage("saída");
    let last = e.rows(&x, t - 1, t)?;
    let last = w.final_norm(e, &last)?;
    let logits = e.matmul_bt(&last, &w.tok_emb, 1.0)?;
    Ok(Forward { logits, attention })
}

/// A block's q (T,C), k and v (T, n_kv·hs) of the new rows x at positions P … P+T−1: through
/// LN1 for the original; through RMSNorm, q and k turned by RoPE there, for the moderna.
#[cfg_attr(not(feature = "moderna"), allow(unused_variables))]
fn project<E: Executor>(e: &E, b: &Block<E::Tensor>, cfg: &DecoderConfig, x: &E::Tensor, p: usize) -> Result<(E::Tensor, E::Tensor, E::Tensor)> {
    match b {
        Block::Original(b) => {
            let h = e.layer_norm(x, &b.ln1_gamma, &b.ln1_beta, cfg.ln_eps)?;
            Ok((e.matmul(&h, &b.w_q)?, e.matmul(&h, &b.w_k)?, e.matmul(&h, &b.w_v)?))
        }
        #[cfg(feature = "moderna")]
        Block::Moderna(b) => {
            let h = e.rms_norm(x, &b.rms1_gamma, cfg.ln_eps)?;
            let at = RopePositions::from(p);
            let q = e.rope(&e.matmul(&h, &b.w_q)?, cfg.n_heads, cfg.pe_theta, at)?;
            let k = e.rope(&e.matmul(&h, &b.w_k)?, cfg.kv_heads(), cfg.pe_theta, at)?;
            Ok((q, k, e.matmul(&h, &b.w_v)?))
        }
    }
}

/// Cached keys or values (P+T, n_kv·hs) as every query head reads them: as they are for the
/// original, each K/V head repeated to its group for the moderna (`repeat_kv`).
#[cfg_attr(not(feature = "moderna"), allow(unused_variables))]
fn share_kv<E: Executor>(e: &E, b: &Block<E::Tensor>, cfg: &DecoderConfig, kv: E::Tensor) -> Result<E::Tensor> {
    match b {
        Block::Original(_) => Ok(kv),
        #[cfg(feature = "moderna")]
        Block::Moderna(_) => e.repeat_kv(&kv, cfg.n_heads, cfg.kv_heads()),
    }
}

/// What a block's FFN adds to the stream x (T,C): ReLU(LN2(x)·W1 + b1)·W2 + b2 for the
/// original, (SiLU(h·W_gate) ⊙ h·W_up)·W_down with h = RMSNorm(x) for the moderna.
fn feed_forward<E: Executor>(e: &E, b: &Block<E::Tensor>, cfg: &DecoderConfig, x: &E::Tensor) -> Result<E::Tensor> {
    match b {
        Block::Original(b) => {
            let h = e.layer_norm(x, &b.ln2_gamma, &b.ln2_beta, cfg.ln_eps)?;
            let hidden = e.relu(&e.add(&e.matmul(&h, &b.w1)?, &b.b1)?)?;
            e.add(&e.matmul(&hidden, &b.w2)?, &b.b2)
        }
        #[cfg(feature = "moderna")]
        Block::Moderna(b) => {
            let h = e.rms_norm(x, &b.rms2_gamma, cfg.ln_eps)?;
            let hidden = e.swiglu(&e.matmul(&h, &b.w_gate)?, &e.matmul(&h, &b.w_up)?)?;
            e.matmul(&hidden, &b.w_down)
        }
    }
}

/// A forward pass read back to the host.
#[derive(Clone, Debug)]
pub struct ForwardOutput {
    /// Logits (1,V) of the next token.
    pub logits: Matrix,
    /// Per layer, the attention weights (nh·T, P+T).
    pub attention: Vec<Matrix>,
}

/// Reads a pass's logits and attention in one readback.
pub async fn read_forward<E: Executor>(e: &E, f: &Forward<E::Tensor>) -> Result<ForwardOutput> {
    let mut wanted = vec![&f.logits];
    wanted.extend(f.attention.iter());
    let mut values = e.read(&wanted).await?;
    let attention = values.split_off(1);
    let logits = values.pop().ok_or_else(|| ComputeError::Invalid("leitura incompleta".into()))?;
    Ok(ForwardOutput { logits, attention })
}

/// A whole context in one pass from an empty cache, as a `Job`: what the "por dentro" panel
/// reruns on both backends (weights uploaded by the job itself).
pub struct DecoderPass<'a> {
    pub weights: &'a DecoderWeights,
    pub ids: &'a [u32],
}

impl Job for DecoderPass<'_> {
    type Output = ForwardOutput;
    async fn run<E: Executor>(&self, e: &E) -> Result<ForwardOutput> {
        let weights = self.weights.upload(e)?;
        let mut cache = KvCache::new(e, &self.weights.config)?;
        let pass = forward(e, &weights, self.ids, &mut cache)?;
        read_forward(e, &pass).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decoder::config::DecoderConfig;
    use crate::executor::{block_on_ready, Cpu};

    fn run(w: &DecoderWeights, ids: &[u32], cache: &mut KvCache<Matrix>) -> Result<ForwardOutput> {
        let pass = forward(&Cpu, w, ids, cache)?;
        block_on_ready(read_forward(&Cpu, &pass))
    }

    #[test]
    fn incremental_decoding_equals_full_recompute() {
        let cfg = DecoderConfig::tiny();
        let w = DecoderWeights::random(&cfg, 3);
        let ids = [5u32, 77, 290, 12, 12, 0, 255];
        let full = run(&w, &ids, &mut KvCache::new(&Cpu, &cfg).unwrap()).unwrap();
        let mut cache = KvCache::new(&Cpu, &cfg).unwrap();
        let mut last = None;
        for chunk in [&ids[..3], &ids[3..4], &ids[4..]] {
            last = Some(run(&w, chunk, &mut cache).unwrap());
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

    /// The same for the moderna (RoPE at the cache's positions, the K/V heads cached and shared),
    /// for GQA and MQA; and the cache sized for the K/V heads.
    #[cfg(feature = "moderna")]
    #[test]
    fn moderna_incremental_decoding_equals_full_recompute() {
        let ids = [5u32, 77, 290, 12, 12, 0, 255];
        for kv_heads in [2, 1] {
            let cfg = DecoderConfig::tiny_moderna(kv_heads);
            let w = DecoderWeights::random(&cfg, 3);
            let full = run(&w, &ids, &mut KvCache::new(&Cpu, &cfg).unwrap()).unwrap();
            let mut cache = KvCache::new(&Cpu, &cfg).unwrap();
            assert_eq!(cache.values[1].shape(), (cfg.context, kv_heads * cfg.head_size()));
            let mut last = None;
            for chunk in [&ids[..3], &ids[3..4], &ids[4..]] {
                last = Some(run(&w, chunk, &mut cache).unwrap());
            }
            let last = last.unwrap();
            let diff = last.logits.max_abs_diff(&full.logits).unwrap();
            println!("moderna, {kv_heads} K/V heads: incremental vs full {diff:.2e}");
            assert!(diff < 1e-5, "{kv_heads} K/V heads: incremental vs full: {diff}");
            let a = &last.attention[1];
            assert_eq!(a.shape(), (cfg.n_heads * 3, 7), "every query head attends");
            assert_eq!(a.get(0, 5), 0.0);
            // A different position changes the logits: RoPE does turn q and k.
            let shifted = run(&w, &ids[1..], &mut KvCache::new(&Cpu, &cfg).unwrap()).unwrap();
            let mut cache = KvCache::new(&Cpu, &cfg).unwrap();
            run(&w, &[9], &mut cache).unwrap();
            let later = run(&w, &ids[1..], &mut cache).unwrap();
            assert!(later.logits.max_abs_diff(&shifted.logits).unwrap() > 1e-4);
        }
    }

    #[test]
    fn refuses_empty_input_and_overflowing_context() {
        let cfg = DecoderConfig::tiny();
        let w = DecoderWeights::random(&cfg, 1);
        let mut cache = KvCache::new(&Cpu, &cfg).unwrap();
        assert!(run(&w, &[], &mut cache).is_err());
        let long = vec![1u32; cfg.context + 1];
        let err = run(&w, &long, &mut cache).unwrap_err();
        assert!(err.to_string().contains("contexto"));
        assert!(run(&w, &[9999], &mut cache).is_err());
        assert_eq!(cache.len(), 0, "a refused pass caches nothing");
    }

    #[test]
    fn traced_forward_groups_its_ops_by_block() {
        use crate::op::OpKind;
        use crate::trace::run_traced;
        let cfg = DecoderConfig::tiny();
        let w = DecoderWeights::random(&cfg, 2);
        let job = DecoderPass { weights: &w, ids: &[5, 6] };
        let clock = || 0.0;
        let (_, trace) = block_on_ready(run_traced(&job, &Cpu, &clock)).unwrap();
        let stages: Vec<String> = trace.stages().into_iter().map(|(s, _)| s.map(|s| s.to_string()).unwrap_or_default()).collect();
        let mut want = vec!["embeddings".to_string()];
        want.extend((1..=cfg.n_layers).map(|l| format!("bloco {l}")));
        want.push("saída".into());
        assert_eq!(stages, want);
        // Per block: 2 layer norms, 6 matmuls, 1 attention, 4 adds, 1 ReLU, and the cache's
        // two writes and two reads.
        let block_ops = trace.ops.iter().filter(|r| r.stage.as_deref() == Some("bloco 1")).count();
        assert_eq!(block_ops, 18);
        assert_eq!(trace.ops.last().map(|r| r.op), Some(OpKind::MatmulBt));
    }
}
