//! Grouped-query attention (issue 41): h query heads share g K/V heads, each K/V head serving a
//! group of h/g query heads (MHA: g = h; MQA: g = 1). On seeded tokens, Q is projected to h
//! heads and K, V to g heads; `repeat_kv` lends each K/V head to its group, and causal
//! attention runs per query head. Heads of one group read the same keys, so their weights
//! differ only through their queries. What it saves is the KV cache: a decoder keeps K and V
//! of every past token, g heads of them per layer, not h.

use crate::error::{ComputeError, Result};
use crate::executor::{Executor, Job};
use crate::matrix::Matrix;
use crate::ops::modern::{group_size, kv_cache_bytes};
use crate::rng::Rng;

/// The most query heads drawn.
pub const MAX_HEADS: usize = 16;
/// Tokens and head width of the live part.
pub const TOKENS: usize = 6;
pub const HEAD_WIDTH: usize = 4;
/// The KV cache's model, unless the reader changes it: a decoder of today's size (32 layers,
/// heads 128 wide, 16-bit numbers) over a context of 8 192 tokens.
pub const CACHE_LAYERS: usize = 32;
pub const CACHE_CONTEXT: usize = 8192;
pub const CACHE_HEAD_WIDTH: usize = 128;
pub const CACHE_BYTES_PER_VALUE: usize = 2;
/// Bounds of the cache's inputs (the product stays far from overflow).
pub const MAX_LAYERS: usize = 256;
pub const MAX_CONTEXT: usize = 1 << 20;

#[derive(Clone, Debug, PartialEq)]
pub struct GqaJob {
    pub heads: usize,
    pub kv_heads: usize,
    pub layers: usize,
    pub context: usize,
    pub seed: u64,
}

impl GqaJob {
    pub fn new(heads: usize, kv_heads: usize) -> GqaJob {
        GqaJob { heads, kv_heads, layers: CACHE_LAYERS, context: CACHE_CONTEXT, seed: 41 }
    }
}

/// One way of sharing: its name, K/V heads and KV cache bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Sharing {
    pub name: &'static str,
    pub kv_heads: usize,
    pub cache_bytes: u64,
    /// Parameters of W^K and W^V together for a model width h·d_h (d_h = `CACHE_HEAD_WIDTH`).
    pub kv_parameters: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Gqa {
    /// h / g.
    pub group: usize,
    /// K after `repeat_kv`: tokens × h·d_h, each K/V head's columns repeated for its group.
    pub keys_lent: Matrix,
    /// K as the cache keeps it: tokens × g·d_h.
    pub keys: Matrix,
    /// Each query head's causal attention weights, tokens × tokens.
    pub weights: Vec<Matrix>,
    /// MHA (g = h), this GQA (g), MQA (g = 1), in that order.
    pub sharings: Vec<Sharing>,
}

/// The sharings side by side for h query heads, g of K/V, at the cache's sizes.
pub fn sharings(heads: usize, kv_heads: usize, layers: usize, context: usize) -> Vec<Sharing> {
    let width = heads * CACHE_HEAD_WIDTH;
    let one = |name, g: usize| Sharing {
        name,
        kv_heads: g,
        cache_bytes: kv_cache_bytes(layers, context, g, CACHE_HEAD_WIDTH, CACHE_BYTES_PER_VALUE) as u64,
        kv_parameters: 2 * (width * g * CACHE_HEAD_WIDTH) as u64,
    };
    vec![one("MHA", heads), one("GQA", kv_heads), one("MQA", 1)]
}

impl GqaJob {
    fn check(&self) -> Result<usize> {
        if self.heads == 0 {
            return Err(ComputeError::Invalid("São precisas pelo menos 1 cabeça de Q.".into()));
        }
        crate::transformer::check_cap("cabeças", self.heads, MAX_HEADS)?;
        crate::transformer::check_cap("camadas", self.layers, MAX_LAYERS)?;
        crate::transformer::check_cap("contexto", self.context, MAX_CONTEXT)?;
        if self.layers == 0 || self.context == 0 {
            return Err(ComputeError::Invalid("Camadas e contexto precisam ser pelo menos 1.".into()));
        }
        group_size(self.heads, self.kv_heads)
    }
}

impl Job for GqaJob {
    type Output = Gqa;
    async fn run<E: Executor>(&self, e: &E) -> Result<Gqa> {
        let group = self.check()?;
        let (h, g) = (self.heads, self.kv_heads);
        let width = h * HEAD_WIDTH;
        let mut rng = Rng::new(self.seed);
        let a = 3f32.sqrt();
        let x = e.upload(&rng.matrix(TOKENS, width, -a, a))?;
        let mut projection = |cols: usize| {
            let s = (3.0 / width as f32).sqrt();
            e.upload(&rng.matrix(width, cols, -s, s))
        };
        let (w_q, w_k, w_v) = (projection(width)?, projection(g * HEAD_WIDTH)?, projection(g * HEAD_WIDTH)?);
        let q = e.matmul(&x, &w_q)?;
        let (k, v) = (e.matmul(&x, &w_k)?, e.matmul(&x, &w_v)?);
        let keys_lent = e.repeat_kv(&k, h, g)?;
        let values_lent = e.repeat_kv(&v, h, g)?;
        let (_, weights) = e.attention(&q, &keys_lent, &values_lent, h, true, 0)?;
        let [keys_lent, keys, weights] = e.read_n([&keys_lent, &k, &weights]).await?;
        let per_head = (0..h)
            .map(|head| Matrix::from_vec(TOKENS, TOKENS, weights.as_slice()[head * TOKENS * TOKENS..(head + 1) * TOKENS * TOKENS].to_vec()))
            .collect::<Result<Vec<_>>>()?;
        Ok(Gqa { group, keys_lent, keys, weights: per_head, sharings: sharings(h, g, self.layers, self.context) })
    }
}

/// Bytes in binary units, Portuguese format: "4 GiB", "256 MiB", "1,5 KiB", "12 bytes".
pub fn bytes_text(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = None;
    for name in UNITS {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = Some(name);
    }
    match unit {
        None => format!("{bytes} bytes"),
        Some(name) => format!("{} {name}", crate::format::format_pt_short(value as f32, 2)),
    }
}
