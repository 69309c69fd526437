//! The decoder in candle, for training: the same architecture, weight names and shapes as
//! `atencao_core::decoder` (which runs it in the browser), op for op.
//!
//! Shapes: B batch, T tokens, C width, nh heads, hs = C/nh, F = 4C, V vocabulary.

use std::collections::HashMap;

use atencao_core::decoder::DecoderConfig;
use atencao_core::transformer::positional::sinusoidal;
use atencao_core::rng::Rng;
use candle_core::{DType, Device, Result, Tensor, Var, D};

/// Trainable weights by name (the safetensors keys of the shipped file).
pub struct Gpt {
    pub config: DecoderConfig,
    pub vars: Vec<(String, Var)>,
    index: HashMap<String, usize>,
    /// PE (context, C), not trained.
    pe: Tensor,
    /// Causal mask (context, context): 0 on and below the diagonal, −∞ above.
    mask: Tensor,
}

/// A standard normal draw (Box–Muller) from the core's seeded generator.
fn normal(rng: &mut Rng) -> f32 {
    let u1 = (rng.next_f32() as f64).max(1e-12);
    let u2 = rng.next_f32() as f64;
    ((-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()) as f32
}

impl Gpt {
    /// Fresh weights: N(0, 0.02²) for matrices, the residual projections (W^O, W2) scaled by
    /// 1/√(2L) as in GPT-2 so the residual stream does not grow with depth; γ = 1, β = b = 0.
    pub fn init(config: &DecoderConfig, seed: u64, device: &Device) -> Result<Gpt> {
        let mut rng = Rng::new(seed);
        let residual_scale = 1.0 / (2.0 * config.n_layers as f32).sqrt();
        let mut tensors = Vec::new();
        for (name, shape) in config.tensor_shapes() {
            let n: usize = shape.iter().product();
            let values: Vec<f32> = if name.ends_with(".weight") && shape.len() == 1 {
                vec![1.0; n]
            } else if shape.len() == 1 {
                vec![0.0; n]
            } else {
                let std = if name.ends_with("w_o") || name.ends_with("w2") { 0.02 * residual_scale } else { 0.02 };
                (0..n).map(|_| std * normal(&mut rng)).collect()
            };
            tensors.push((name, Tensor::from_vec(values, shape, device)?));
        }
        Gpt::from_tensors(config, tensors, device)
    }

    pub fn from_tensors(config: &DecoderConfig, tensors: Vec<(String, Tensor)>, device: &Device) -> Result<Gpt> {
        let mut vars = Vec::new();
        let mut index = HashMap::new();
        for (name, t) in tensors {
            index.insert(name.clone(), vars.len());
            vars.push((name, Var::from_tensor(&t.to_dtype(DType::F32)?)?));
        }
        for (name, _) in config.tensor_shapes() {
            if !index.contains_key(&name) {
                candle_core::bail!("missing tensor {name}");
            }
        }
        let (t, c) = (config.context, config.d_model);
        let pe = sinusoidal(0, t, c, config.pe_theta);
        let pe = Tensor::from_vec(pe.as_slice().to_vec(), (t, c), device)?;
        let mask: Vec<f32> = (0..t * t).map(|i| if i % t > i / t { f32::NEG_INFINITY } else { 0.0 }).collect();
        let mask = Tensor::from_vec(mask, (t, t), device)?;
        Ok(Gpt { config: config.clone(), vars, index, pe, mask })
    }

    fn w(&self, name: &str) -> &Tensor {
        self.vars[self.index[name]].1.as_tensor()
    }

    /// Row-wise layer norm over the last dim, from basic ops so it has a gradient.
    fn layer_norm(&self, x: &Tensor, prefix: &str) -> Result<Tensor> {
        let mean = x.mean_keepdim(D::Minus1)?;
        let centred = x.broadcast_sub(&mean)?;
        let var = centred.sqr()?.mean_keepdim(D::Minus1)?;
        let normed = centred.broadcast_div(&(var + self.config.ln_eps as f64)?.sqrt()?)?;
        normed.broadcast_mul(self.w(&format!("{prefix}.weight")))?.broadcast_add(self.w(&format!("{prefix}.bias")))
    }

    /// ids (B,T) u32 → logits (B,T,V).
    pub fn forward(&self, ids: &Tensor) -> Result<Tensor> {
        let cfg = &self.config;
        let (b, t) = ids.dims2()?;
        let (c, nh) = (cfg.d_model, cfg.n_heads);
        let hs = c / nh;
        let tok_emb = self.w("tok_emb");
        // x (B,T,C) = E[ids]·√C + PE
        let x = tok_emb.index_select(&ids.flatten_all()?, 0)?.reshape((b, t, c))?;
        let mut x = (x * (c as f64).sqrt())?.broadcast_add(&self.pe.narrow(0, 0, t)?)?;
        let mask = self.mask.narrow(0, 0, t)?.narrow(1, 0, t)?;
        for l in 0..cfg.n_layers {
            let p = |n: &str| format!("blocks.{l}.{n}");
            // Attention: q, k, v (B,T,C) → (B,nh,T,hs); scores (B,nh,T,T).
            let h = self.layer_norm(&x, &p("ln1"))?;
            let heads = |w: &str| -> Result<Tensor> {
                h.broadcast_matmul(self.w(&p(w)))?.reshape((b, t, nh, hs))?.transpose(1, 2)?.contiguous()
            };
            let (q, k, v) = (heads("attn.w_q")?, heads("attn.w_k")?, heads("attn.w_v")?);
            let scores = (q.matmul(&k.t()?)? * (1.0 / (hs as f64).sqrt()))?.broadcast_add(&mask)?;
            // `softmax_last_dim` is a fused op without a backward pass; this one is made of basic ops.
            let weights = candle_nn::ops::softmax(&scores, D::Minus1)?;
            let y = weights.matmul(&v)?.transpose(1, 2)?.reshape((b, t, c))?;
            x = (x + y.broadcast_matmul(self.w(&p("attn.w_o")))?)?;
            // FFN: x + ReLU(LN2(x) W1 + b1) W2 + b2
            let h = self.layer_norm(&x, &p("ln2"))?;
            let hidden = h.broadcast_matmul(self.w(&p("ffn.w1")))?.broadcast_add(self.w(&p("ffn.b1")))?.relu()?;
            let out = hidden.broadcast_matmul(self.w(&p("ffn.w2")))?.broadcast_add(self.w(&p("ffn.b2")))?;
            x = (x + out)?;
        }
        let x = self.layer_norm(&x, "ln_f")?;
        // Output head tied to the embeddings: logits = x Eᵀ.
        x.broadcast_matmul(&tok_emb.t()?)
    }

    /// Inference with a KV cache, for comparing speed with the site's forward pass: runs `ids`
    /// (1,T) after the positions in `cache` (per layer, keys and values (1,nh,P,hs)) and
    /// returns the logits of the last position (V).
    pub fn forward_cached(&self, ids: &[u32], cache: &mut Vec<(Tensor, Tensor)>) -> Result<Tensor> {
        let cfg = &self.config;
        let (t, c, nh) = (ids.len(), cfg.d_model, cfg.n_heads);
        let hs = c / nh;
        let p = cache.first().map_or(Ok(0), |(k, _)| k.dim(2))?;
        let device = self.pe.device();
        let ids = Tensor::from_vec(ids.to_vec(), t, device)?;
        let tok_emb = self.w("tok_emb");
        let x = tok_emb.index_select(&ids, 0)?.reshape((1, t, c))?;
        let mut x = (x * (c as f64).sqrt())?.broadcast_add(&self.pe.narrow(0, p, t)?)?;
        // Row i (position p + i) sees keys 0 … p + i.
        let mask = self.mask.narrow(0, p, t)?.narrow(1, 0, p + t)?;
        for l in 0..cfg.n_layers {
            let pre = |n: &str| format!("blocks.{l}.{n}");
            let h = self.layer_norm(&x, &pre("ln1"))?;
            let heads = |w: &str| -> Result<Tensor> {
                h.broadcast_matmul(self.w(&pre(w)))?.reshape((1, t, nh, hs))?.transpose(1, 2)?.contiguous()
            };
            let (q, mut k, mut v) = (heads("attn.w_q")?, heads("attn.w_k")?, heads("attn.w_v")?);
            if let Some((pk, pv)) = cache.get(l) {
                k = Tensor::cat(&[pk, &k], 2)?;
                v = Tensor::cat(&[pv, &v], 2)?;
            }
            let scores = (q.matmul(&k.t()?)? * (1.0 / (hs as f64).sqrt()))?.broadcast_add(&mask)?;
            let weights = candle_nn::ops::softmax_last_dim(&scores)?;
            let y = weights.matmul(&v)?.transpose(1, 2)?.reshape((1, t, c))?;
            if l < cache.len() {
                cache[l] = (k, v);
            } else {
                cache.push((k, v));
            }
            x = (x + y.broadcast_matmul(self.w(&pre("attn.w_o")))?)?;
            let h = self.layer_norm(&x, &pre("ln2"))?;
            let hidden = h.broadcast_matmul(self.w(&pre("ffn.w1")))?.broadcast_add(self.w(&pre("ffn.b1")))?.relu()?;
            x = (x + hidden.broadcast_matmul(self.w(&pre("ffn.w2")))?.broadcast_add(self.w(&pre("ffn.b2")))?)?;
        }
        let last = self.layer_norm(&x.narrow(1, t - 1, 1)?, "ln_f")?;
        last.broadcast_matmul(&tok_emb.t()?)?.flatten_all()
    }

    /// Mean cross-entropy (nats per token) of predicting `targets` (B,T) from `ids` (B,T).
    pub fn loss(&self, ids: &Tensor, targets: &Tensor) -> Result<Tensor> {
        let logits = self.forward(ids)?;
        let (b, t, v) = logits.dims3()?;
        candle_nn::loss::cross_entropy(&logits.reshape((b * t, v))?, &targets.reshape(b * t)?)
    }

    /// The weights as named tensors (for saving).
    pub fn tensors(&self) -> Vec<(String, Tensor)> {
        self.vars.iter().map(|(n, v)| (n.clone(), v.as_tensor().clone())).collect()
    }
}
