//! The decoder's weights as matrices, checked against its config.
//!
//! Row-vector convention, as in the articles: a token is a row x (1,C) and a layer is
//! x W with W (C,out). Biases and layer-norm γ, β are single rows (1,C) so `add` broadcasts them.

use std::collections::HashMap;

use crate::error::{ComputeError, Result};
use crate::Matrix;

use super::config::DecoderConfig;
use super::safetensors::{self, Tensor};

/// One transformer block (pre-LN). `T` is where the tensors live: host matrices, or a
/// backend's tensors once uploaded (`DecoderWeights::upload`).
#[derive(Clone, Debug)]
pub struct BlockWeights<T = Matrix> {
    /// γ, β (1,C) of the layer norm before attention.
    pub ln1_gamma: T,
    pub ln1_beta: T,
    /// W^Q, W^K, W^V, W^O (C,C), no biases (as in the articles); the nh heads are the column
    /// blocks of W^Q, W^K, W^V: head h uses columns h·hs … (h+1)·hs − 1.
    pub w_q: T,
    pub w_k: T,
    pub w_v: T,
    pub w_o: T,
    /// γ, β (1,C) of the layer norm before the FFN.
    pub ln2_gamma: T,
    pub ln2_beta: T,
    /// FFN: W1 (C,F), b1 (1,F), W2 (F,C), b2 (1,C).
    pub w1: T,
    pub b1: T,
    pub w2: T,
    pub b2: T,
}

#[derive(Clone, Debug)]
pub struct DecoderWeights<T = Matrix> {
    pub config: DecoderConfig,
    /// Token embeddings (V,C); also the output head (logits = h · tok_embᵀ, weights tied).
    pub tok_emb: T,
    pub blocks: Vec<BlockWeights<T>>,
    /// Final layer norm γ, β (1,C).
    pub ln_f_gamma: T,
    pub ln_f_beta: T,
}

impl<T> DecoderWeights<T> {
    /// The same weights with every tensor passed through `f` (e.g. uploaded to a backend).
    pub fn try_map<U>(&self, mut f: impl FnMut(&T) -> Result<U>) -> Result<DecoderWeights<U>> {
        let blocks = self
            .blocks
            .iter()
            .map(|b| {
                Ok(BlockWeights {
                    ln1_gamma: f(&b.ln1_gamma)?,
                    ln1_beta: f(&b.ln1_beta)?,
                    w_q: f(&b.w_q)?,
                    w_k: f(&b.w_k)?,
                    w_v: f(&b.w_v)?,
                    w_o: f(&b.w_o)?,
                    ln2_gamma: f(&b.ln2_gamma)?,
                    ln2_beta: f(&b.ln2_beta)?,
                    w1: f(&b.w1)?,
                    b1: f(&b.b1)?,
                    w2: f(&b.w2)?,
                    b2: f(&b.b2)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(DecoderWeights {
            config: self.config.clone(),
            tok_emb: f(&self.tok_emb)?,
            blocks,
            ln_f_gamma: f(&self.ln_f_gamma)?,
            ln_f_beta: f(&self.ln_f_beta)?,
        })
    }
}

impl DecoderWeights {
    /// The weights on `e`'s backend, uploaded once (a GPU keeps them in its memory).
    pub fn upload<E: crate::executor::Executor>(&self, e: &E) -> Result<DecoderWeights<E::Tensor>> {
        self.try_map(|m| e.upload(m))
    }

    /// Builds the weights from a safetensors file, refusing missing tensors, wrong shapes
    /// and non-finite values, each with a message naming the tensor.
    pub fn from_safetensors(config: &DecoderConfig, bytes: &[u8]) -> Result<DecoderWeights> {
        config.validate()?;
        let mut tensors = safetensors::parse(bytes)?;
        for (name, shape) in config.tensor_shapes() {
            match tensors.get(&name) {
                None => return Err(ComputeError::Invalid(format!("O arquivo de pesos não tem o tensor «{name}»."))),
                Some(t) if t.shape != shape => {
                    return Err(ComputeError::Invalid(format!(
                        "O tensor «{name}» tem forma {:?}; o modelo espera {:?}.",
                        t.shape, shape
                    )))
                }
                Some(t) if t.values.iter().any(|v| !v.is_finite()) => {
                    return Err(ComputeError::Invalid(format!("O tensor «{name}» tem valores não finitos.")))
                }
                Some(_) => {}
            }
        }
        let mut take = |name: &str| -> Matrix {
            let Tensor { shape, values } = tensors.remove(name).expect("checked above");
            let (rows, cols) = if shape.len() == 1 { (1, shape[0]) } else { (shape[0], shape[1]) };
            Matrix::from_vec(rows, cols, values).expect("shape checked above")
        };
        let tok_emb = take("tok_emb");
        let blocks = (0..config.n_layers)
            .map(|l| {
                let mut t = |n: &str| take(&format!("blocks.{l}.{n}"));
                BlockWeights {
                    ln1_gamma: t("ln1.weight"),
                    ln1_beta: t("ln1.bias"),
                    w_q: t("attn.w_q"),
                    w_k: t("attn.w_k"),
                    w_v: t("attn.w_v"),
                    w_o: t("attn.w_o"),
                    ln2_gamma: t("ln2.weight"),
                    ln2_beta: t("ln2.bias"),
                    w1: t("ffn.w1"),
                    b1: t("ffn.b1"),
                    w2: t("ffn.w2"),
                    b2: t("ffn.b2"),
                }
            })
            .collect();
        let ln_f_gamma = take("ln_f.weight");
        let ln_f_beta = take("ln_f.bias");
        Ok(DecoderWeights { config: config.clone(), tok_emb, blocks, ln_f_gamma, ln_f_beta })
    }

    /// Random weights (N(0, 0.02²)-like uniform, γ = 1, β = 0) for tests.
    pub fn random(config: &DecoderConfig, seed: u64) -> DecoderWeights {
        let mut rng = crate::rng::Rng::new(seed);
        let mut values: HashMap<String, Vec<f32>> = HashMap::new();
        for (name, shape) in config.tensor_shapes() {
            let n: usize = shape.iter().product();
            let v = if name.ends_with("ln1.weight") || name.ends_with("ln2.weight") || name == "ln_f.weight" {
                vec![1.0; n]
            } else {
                (0..n).map(|_| rng.uniform(-0.1, 0.1)).collect()
            };
            values.insert(name, v);
        }
        let shapes = config.tensor_shapes();
        let entries: Vec<(&str, &[usize], &[f32])> =
            shapes.iter().map(|(n, s)| (n.as_str(), s.as_slice(), values[n].as_slice())).collect();
        let bytes = safetensors::write_f32(&entries);
        DecoderWeights::from_safetensors(config, &bytes).expect("random weights are well formed")
    }
}
