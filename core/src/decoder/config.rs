//! The decoder's hyperparameters: one plain struct, shared by the training command
//! (`train/`), the weights file and the browser.
//!
//! Shape vocabulary used across the decoder: V vocabulary, C = `d_model`, nh heads,
//! hs = C / nh head size, F = `d_ff`, T tokens, L layers.

use serde::{Deserialize, Serialize};

use crate::error::{ComputeError, Result};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecoderConfig {
    /// V: tokens of the vocabulary: the byte-level BPE's (256 bytes + merges) for the shipped
    /// model, a text's distinct characters for one trained on the page.
    pub vocab_size: usize,
    /// C: width of every token vector.
    pub d_model: usize,
    /// nh: attention heads per layer; C must be a multiple of nh.
    pub n_heads: usize,
    /// L: transformer blocks.
    pub n_layers: usize,
    /// F: hidden width of the FFN (4·C, as in the articles).
    pub d_ff: usize,
    /// Longest context the model was trained on (positions 0 … context − 1).
    pub context: usize,
    /// θ of the sinusoidal positional encoding (10000 in the original paper).
    pub pe_theta: f32,
    /// ε of every layer norm.
    pub ln_eps: f32,
}

impl DecoderConfig {
    /// The model shipped with the site (see static/model/MODEL_CARD.md for why this size).
    pub fn shipped() -> Self {
        DecoderConfig { vocab_size: 2048, d_model: 192, n_heads: 6, n_layers: 4, d_ff: 768, context: 128, pe_theta: 10_000.0, ln_eps: 1e-5 }
    }

    /// A tiny model for tests.
    pub fn tiny() -> Self {
        DecoderConfig { vocab_size: 300, d_model: 16, n_heads: 2, n_layers: 2, d_ff: 64, context: 32, pe_theta: 10_000.0, ln_eps: 1e-5 }
    }

    /// Bytes the KV cache holds per layer for `len` positions: a key and a value row of C
    /// f32 each per position (the session's cache reserves `context` positions up front).
    pub fn kv_cache_bytes_per_layer(&self, len: usize) -> usize {
        2 * len * self.d_model * std::mem::size_of::<f32>()
    }

    /// hs = C / nh.
    pub fn head_size(&self) -> usize {
        self.d_model / self.n_heads
    }

    /// Fails on sizes the forward pass cannot run (0 anywhere, C not divisible by nh, absurd sizes).
    pub fn validate(&self) -> Result<()> {
        let bad = |msg: String| Err(ComputeError::Invalid(format!("Configuração do modelo inválida: {msg}")));
        if self.vocab_size < 2 || self.vocab_size > 1 << 20 {
            return bad(format!("vocabulário de {} tokens", self.vocab_size));
        }
        if self.d_model == 0 || self.n_heads == 0 || self.d_model % self.n_heads != 0 {
            return bad(format!("largura {} não se divide em {} cabeças", self.d_model, self.n_heads));
        }
        if self.n_layers == 0 || self.n_layers > 64 || self.d_ff == 0 || self.context == 0 || self.context > 1 << 16 {
            return bad("tamanhos fora do razoável".into());
        }
        if self.d_model * self.d_ff > 1 << 26 || self.vocab_size * self.d_model > 1 << 26 {
            return bad("matrizes grandes demais para o navegador".into());
        }
        if !(self.pe_theta > 1.0 && self.pe_theta.is_finite() && self.ln_eps > 0.0 && self.ln_eps < 1.0) {
            return bad("θ ou ε inválido".into());
        }
        Ok(())
    }

    /// Every weight tensor: (name, shape). The names are the keys of the safetensors file.
    pub fn tensor_shapes(&self) -> Vec<(String, Vec<usize>)> {
        let (v, c, f) = (self.vocab_size, self.d_model, self.d_ff);
        let mut out = vec![("tok_emb".to_string(), vec![v, c])];
        for l in 0..self.n_layers {
            let p = |name: &str| format!("blocks.{l}.{name}");
            out.extend([
                (p("ln1.weight"), vec![c]),
                (p("ln1.bias"), vec![c]),
                (p("attn.w_q"), vec![c, c]),
                (p("attn.w_k"), vec![c, c]),
                (p("attn.w_v"), vec![c, c]),
                (p("attn.w_o"), vec![c, c]),
                (p("ln2.weight"), vec![c]),
                (p("ln2.bias"), vec![c]),
                (p("ffn.w1"), vec![c, f]),
                (p("ffn.b1"), vec![f]),
                (p("ffn.w2"), vec![f, c]),
                (p("ffn.b2"), vec![c]),
            ]);
        }
        out.push(("ln_f.weight".into(), vec![c]));
        out.push(("ln_f.bias".into(), vec![c]));
        out
    }

    /// Number of parameters (the output head is tied to `tok_emb`, so it adds none).
    pub fn parameter_count(&self) -> usize {
        self.tensor_shapes().iter().map(|(_, s)| s.iter().product::<usize>()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_config_is_valid_and_in_the_issue_range() {
        let c = DecoderConfig::shipped();
        c.validate().unwrap();
        assert_eq!(c.d_ff, 4 * c.d_model);
        let n = c.parameter_count();
        assert!((1_000_000..=4_000_000).contains(&n), "{n} parameters");
        // 2 bytes a parameter in f16: within the 8 MB budget.
        assert!(n * 2 < 8 << 20);
    }

    #[test]
    fn parameter_count_by_hand() {
        let c = DecoderConfig::tiny();
        let (v, d, f) = (300, 16, 64);
        let block = 2 * d + 4 * d * d + 2 * d + d * f + f + f * d + d;
        assert_eq!(c.parameter_count(), v * d + 2 * block + 2 * d);
    }

    #[test]
    fn rejects_heads_that_do_not_divide() {
        let c = DecoderConfig { n_heads: 5, ..DecoderConfig::tiny() };
        assert!(c.validate().unwrap_err().to_string().contains("cabeças"));
    }
}
