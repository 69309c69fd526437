//! The decoder's hyperparameters: one plain struct, shared by the training command
//! (`train/`), the weights file and the browser.
//!
//! Shape vocabulary used across the decoder: V vocabulary, C = `d_model`, nh heads,
//! hs = C / nh head size, F = `d_ff`, T tokens, L layers, n_kv K/V heads.
//!
//! Two architectures share this struct (issue 41): the 2017 block the shipped model has
//! (`Original`) and today's (`Moderna`: RMSNorm, RoPE, GQA, SwiGLU). The fields the original
//! never needed are left out of its JSON, so the shipped `config.json` reads and writes as before.

use serde::{Deserialize, Serialize};

use crate::error::{ComputeError, Result};
use crate::training::modern_block::ModernBlockShape;

/// Which block the decoder stacks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Architecture {
    /// The 2017 block (GPT-2 style, pre-LN): sinusoidal PE added to x, layer norms, ReLU FFN
    /// with biases, as many K/V heads as query heads. The shipped model's.
    #[default]
    Original,
    /// Today's block: no PE on x (RoPE turns q and k), RMSNorm, K/V shared by groups of query
    /// heads (GQA), a SwiGLU FFN without biases, a final RMSNorm (γ only).
    Moderna,
}

pub use crate::op::moderna_not_built;

impl Architecture {
    /// Whether it is the 2017 one (whose JSON has no architecture field).
    pub fn is_original(&self) -> bool {
        *self == Architecture::Original
    }

    /// Its name, as the train widget's select and the race's words say it (and serde writes it).
    pub fn name(self) -> &'static str {
        match self {
            Architecture::Original => "original",
            Architecture::Moderna => "moderna",
        }
    }

    /// The one a race runs against this one.
    pub fn other(self) -> Architecture {
        match self {
            Architecture::Original => Architecture::Moderna,
            Architecture::Moderna => Architecture::Original,
        }
    }
}

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
    /// F: hidden width of the FFN (4·C, as in the articles; for the moderna, the width that
    /// matches the original's parameter count: `TrainSettings::moderna_ffn_width`).
    pub d_ff: usize,
    /// Longest context the model was trained on (positions 0 … context − 1).
    pub context: usize,
    /// θ of the positions: the sinusoidal encoding's for the original (10000 in the paper),
    /// RoPE's base for the moderna (the same role: the slowest pair turns once in ~2π·θ positions).
    pub pe_theta: f32,
    /// ε of every layer norm (RMSNorm for the moderna).
    pub ln_eps: f32,
    /// The block; absent from JSON: the original. A build without the `moderna` feature (the
    /// page's modules, which only read the shipped model's config) neither reads nor writes
    /// it, nor `n_kv_heads`: a moderna file there reads as the original, whose tensors it
    /// lacks, so loading it still fails with the missing tensor's name.
    #[cfg_attr(feature = "moderna", serde(default, skip_serializing_if = "Architecture::is_original"))]
    #[cfg_attr(not(feature = "moderna"), serde(skip))]
    pub architecture: Architecture,
    /// n_kv: K and V heads (moderna only), dividing nh: nh is plain multi-head attention, fewer
    /// is GQA, 1 is MQA. Absent (`None`): as many as nh.
    #[cfg_attr(feature = "moderna", serde(default, skip_serializing_if = "Option::is_none"))]
    #[cfg_attr(not(feature = "moderna"), serde(skip))]
    pub n_kv_heads: Option<usize>,
}

impl DecoderConfig {
    /// The model shipped with the site (see static/model/MODEL_CARD.md for why this size).
    pub fn shipped() -> Self {
        DecoderConfig { vocab_size: 2048, d_model: 192, n_heads: 6, n_layers: 4, d_ff: 768, context: 128, pe_theta: 10_000.0, ln_eps: 1e-5, architecture: Architecture::Original, n_kv_heads: None }
    }

    /// A tiny model for tests.
    pub fn tiny() -> Self {
        DecoderConfig { vocab_size: 300, d_model: 16, n_heads: 2, n_layers: 2, d_ff: 64, context: 32, pe_theta: 10_000.0, ln_eps: 1e-5, architecture: Architecture::Original, n_kv_heads: None }
    }

    /// A tiny moderna model for tests: `tiny`'s sizes with 4 heads (hs = 4) sharing
    /// `kv_heads` K/V heads.
    pub fn tiny_moderna(kv_heads: usize) -> Self {
        DecoderConfig { n_heads: 4, d_ff: 40, architecture: Architecture::Moderna, n_kv_heads: Some(kv_heads), ..DecoderConfig::tiny() }
    }

    /// Bytes the KV cache holds per layer for `len` positions: a key and a value row of
    /// n_kv·hs f32 each per position (C for the original; less with GQA). The session's cache
    /// reserves `context` positions up front.
    pub fn kv_cache_bytes_per_layer(&self, len: usize) -> usize {
        2 * len * self.kv_width() * std::mem::size_of::<f32>()
    }

    /// hs = C / nh.
    pub fn head_size(&self) -> usize {
        self.d_model / self.n_heads
    }

    /// n_kv: K/V heads (nh unless the config shares them).
    pub fn kv_heads(&self) -> usize {
        self.n_kv_heads.unwrap_or(self.n_heads)
    }

    /// Width of a position's key (and value): n_kv·hs, what the cache keeps per position.
    pub fn kv_width(&self) -> usize {
        self.kv_heads() * self.head_size()
    }

    /// The moderna block's shape: RoPE's θ is `pe_theta`, RMSNorm's ε is `ln_eps`.
    pub fn modern_shape(&self) -> ModernBlockShape {
        ModernBlockShape { heads: self.n_heads, kv_heads: self.kv_heads(), theta: self.pe_theta, eps: self.ln_eps }
    }

    /// Refuses the moderna in a build without it (the page's wasm leaves it out for weight):
    /// the configuration still parses, but no weights are built or run.
    pub fn check_architecture_built(&self) -> Result<()> {
        if self.architecture == Architecture::Moderna && !cfg!(feature = "moderna") {
            return Err(moderna_not_built());
        }
        Ok(())
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
        let (heads, kv_heads) = (self.n_heads, self.kv_heads());
        match self.architecture {
            Architecture::Original if kv_heads != heads => {
                return bad(format!("a arquitetura original não compartilha K e V: {kv_heads} cabeças de K/V para {heads} cabeças"));
            }
            #[cfg(feature = "moderna")]
            Architecture::Moderna if kv_heads == 0 || heads % kv_heads != 0 => {
                return bad(format!("{kv_heads} cabeças de K/V não dividem as {heads} cabeças em grupos iguais"));
            }
            #[cfg(feature = "moderna")]
            Architecture::Moderna if self.head_size() % 2 != 0 => {
                return bad(format!("o RoPE gira q e k em pares: cada cabeça precisa de largura par, não {}", self.head_size()));
            }
            _ => {}
        }
        self.check_architecture_built()
    }

    /// Every weight tensor: (name, shape). The names are the keys of the safetensors file, in
    /// the order `DecoderWeights` holds them (`DecoderWeights::from_tensors` builds in it):
    /// `tok_emb`, each block's (`block_tensor_shapes`, prefixed `blocks.{l}.`), the final norm's
    /// (`ln_f.weight`, `ln_f.bias`; the moderna's RMSNorm: `rms_f.weight` alone).
    pub fn tensor_shapes(&self) -> Vec<(String, Vec<usize>)> {
        let (v, c) = (self.vocab_size, self.d_model);
        let mut out = vec![("tok_emb".to_string(), vec![v, c])];
        for l in 0..self.n_layers {
            out.extend(self.block_tensor_shapes().into_iter().map(|(name, shape)| (format!("blocks.{l}.{name}"), shape)));
        }
        match self.architecture {
            Architecture::Original => out.extend([("ln_f.weight".into(), vec![c]), ("ln_f.bias".into(), vec![c])]),
            Architecture::Moderna => out.push(("rms_f.weight".into(), vec![c])),
        }
        out
    }

    /// One block's tensors, named inside the block, in the order its weights hold them
    /// (`BlockWeights`, `ModernBlockWeights`). The moderna's: `rms1.weight` (C), `attn.w_q`
    /// (C,C), `attn.w_k`, `attn.w_v` (C, n_kv·hs), `attn.w_o` (C,C), `rms2.weight` (C),
    /// `ffn.w_gate`, `ffn.w_up` (C,F), `ffn.w_down` (F,C).
    pub fn block_tensor_shapes(&self) -> Vec<(&'static str, Vec<usize>)> {
        let (c, f) = (self.d_model, self.d_ff);
        match self.architecture {
            Architecture::Original => vec![
                ("ln1.weight", vec![c]),
                ("ln1.bias", vec![c]),
                ("attn.w_q", vec![c, c]),
                ("attn.w_k", vec![c, c]),
                ("attn.w_v", vec![c, c]),
                ("attn.w_o", vec![c, c]),
                ("ln2.weight", vec![c]),
                ("ln2.bias", vec![c]),
                ("ffn.w1", vec![c, f]),
                ("ffn.b1", vec![f]),
                ("ffn.w2", vec![f, c]),
                ("ffn.b2", vec![c]),
            ],
            // A build without the feature refuses a moderna config before it asks for its tensors.
            #[cfg(not(feature = "moderna"))]
            Architecture::Moderna => Vec::new(),
            #[cfg(feature = "moderna")]
            Architecture::Moderna => vec![
                ("rms1.weight", vec![c]),
                ("attn.w_q", vec![c, c]),
                ("attn.w_k", vec![c, self.kv_width()]),
                ("attn.w_v", vec![c, self.kv_width()]),
                ("attn.w_o", vec![c, c]),
                ("rms2.weight", vec![c]),
                ("ffn.w_gate", vec![c, f]),
                ("ffn.w_up", vec![c, f]),
                ("ffn.w_down", vec![f, c]),
            ],
        }
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

    /// The shipped config.json (no architecture field) reads as the original, and an
    /// original's JSON is what it was before issue 41: no new field appears.
    #[cfg(feature = "moderna")]
    #[test]
    fn the_shipped_file_reads_as_the_original_and_writes_as_before() {
        let file: serde_json::Value = serde_json::from_str(include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../static/model/config.json"))).unwrap();
        let config: DecoderConfig = serde_json::from_value(file["config"].clone()).unwrap();
        assert_eq!(config, DecoderConfig::shipped());
        assert_eq!((config.architecture, config.kv_heads(), config.kv_width()), (Architecture::Original, 6, 192));
        let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&serde_json::to_value(&config).unwrap()), keys(&file["config"]), "the same eight fields");
        let moderna = DecoderConfig::tiny_moderna(2);
        let json = serde_json::to_string(&moderna).unwrap();
        assert!(json.contains(r#""architecture":"moderna""#) && json.contains(r#""n_kv_heads":2"#), "{json}");
        assert_eq!(serde_json::from_str::<DecoderConfig>(&json).unwrap(), moderna);
    }

    /// The moderna's rules, each refused with its reason: K/V heads that divide the heads,
    /// heads of even width (RoPE's pairs), and no shared K/V in the original.
    #[cfg(feature = "moderna")]
    #[test]
    fn moderna_sizes_are_checked() {
        DecoderConfig::tiny_moderna(1).validate().unwrap();
        let message = |c: DecoderConfig| c.validate().unwrap_err().to_string();
        assert!(message(DecoderConfig::tiny_moderna(3)).contains("3 cabeças de K/V não dividem as 4 cabeças"));
        assert!(message(DecoderConfig::tiny_moderna(0)).contains("não dividem"));
        let odd = DecoderConfig { d_model: 12, ..DecoderConfig::tiny_moderna(2) };
        assert!(message(odd).contains("largura par, não 3"));
        let shared = DecoderConfig { n_kv_heads: Some(1), ..DecoderConfig::tiny() };
        assert!(message(shared).contains("a arquitetura original não compartilha K e V"));
        // GQA's cache: 2 K/V heads of 4 for 4 heads: half the original's bytes.
        assert_eq!(DecoderConfig::tiny_moderna(2).kv_cache_bytes_per_layer(10), 2 * 10 * 8 * 4);
        assert_eq!(DecoderConfig::tiny().kv_cache_bytes_per_layer(10), 2 * 10 * 16 * 4);
    }

    /// A build without the `moderna` feature (the page's wasm) reads a moderna config but
    /// refuses to build it, with a message (run with `--no-default-features`).
    #[cfg(not(feature = "moderna"))]
    #[test]
    fn without_the_feature_a_moderna_config_is_refused() {
        let config = DecoderConfig::tiny_moderna(2);
        assert!(config.validate().unwrap_err().to_string().contains("não traz a arquitetura moderna"));
        let zeros = config.tensor_shapes().iter().map(|_| crate::Matrix::zeros(1, 1)).collect();
        assert!(crate::decoder::DecoderWeights::from_tensors(&config, zeros).is_err());
        // Such a build does not read the architecture: a moderna file reads as the original,
        // whose tensors (`ln1.weight`, …) it lacks, so loading its weights fails by name.
        let mut json = serde_json::to_value(DecoderConfig::tiny()).unwrap();
        json["architecture"] = "moderna".into();
        json["n_kv_heads"] = 1.into();
        let read: DecoderConfig = serde_json::from_value(json).unwrap();
        assert_eq!(read, DecoderConfig::tiny());
    }
}
