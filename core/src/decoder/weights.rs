//! The decoder's weights as matrices, checked against its config.
//!
//! Row-vector convention, as in the articles: a token is a row x (1,C) and a layer is
//! x W with W (C,out). Biases and layer-norm γ, β are single rows (1,C) so `add` broadcasts them.
//!
//! A block is the 2017 one (`BlockWeights`) or today's (`ModernBlockWeights`, issue 41), as
//! the config's architecture says; every tensor is built, listed and mapped in the file's order.

use std::collections::HashMap;

use crate::error::{ComputeError, Result};
use crate::Matrix;

use crate::executor::Executor;
#[cfg(feature = "moderna")]
use crate::training::modern_block::ModernBlockWeights;

use super::config::{Architecture, DecoderConfig};
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

impl<T> BlockWeights<T> {
    /// Every tensor, in the file's order (`DecoderConfig::block_tensor_shapes`).
    pub fn tensors(&self) -> [&T; 12] {
        [
            &self.ln1_gamma, &self.ln1_beta, &self.w_q, &self.w_k, &self.w_v, &self.w_o,
            &self.ln2_gamma, &self.ln2_beta, &self.w1, &self.b1, &self.w2, &self.b2,
        ]
    }

    /// The same, writable.
    pub fn tensors_mut(&mut self) -> [&mut T; 12] {
        [
            &mut self.ln1_gamma, &mut self.ln1_beta, &mut self.w_q, &mut self.w_k, &mut self.w_v, &mut self.w_o,
            &mut self.ln2_gamma, &mut self.ln2_beta, &mut self.w1, &mut self.b1, &mut self.w2, &mut self.b2,
        ]
    }
}

/// One block of either architecture (`DecoderConfig::architecture`). Without the crate's
/// `moderna` feature (the page's wasm) only the 2017 block exists, and none of today's
/// block's code is linked.
#[derive(Clone, Debug)]
pub enum Block<T = Matrix> {
    Original(BlockWeights<T>),
    #[cfg(feature = "moderna")]
    Moderna(ModernBlockWeights<T>),
}

impl<T> Block<T> {
    /// Builds a block of `architecture` from its tensors in the file's order, each from `next`
    /// (the caller counted them: `DecoderWeights::from_tensors`). Infallible, so the wasm has
    /// no unwinding path per field, once per tensor type.
    fn build(architecture: Architecture, mut next: impl FnMut() -> T) -> Block<T> {
        match architecture {
            Architecture::Original => Block::Original(BlockWeights {
                ln1_gamma: next(),
                ln1_beta: next(),
                w_q: next(),
                w_k: next(),
                w_v: next(),
                w_o: next(),
                ln2_gamma: next(),
                ln2_beta: next(),
                w1: next(),
                b1: next(),
                w2: next(),
                b2: next(),
            }),
            #[cfg(feature = "moderna")]
            Architecture::Moderna => Block::Moderna(ModernBlockWeights {
                rms1_gamma: next(),
                w_q: next(),
                w_k: next(),
                w_v: next(),
                w_o: next(),
                rms2_gamma: next(),
                w_gate: next(),
                w_up: next(),
                w_down: next(),
            }),
            // `from_tensors` refuses a moderna config first in a build without it.
            #[cfg(not(feature = "moderna"))]
            Architecture::Moderna => unreachable!("moderna refused before its blocks are built"),
        }
    }

    /// Every tensor, in the file's order.
    pub fn tensors(&self) -> Vec<&T> {
        match self {
            Block::Original(b) => b.tensors().to_vec(),
            #[cfg(feature = "moderna")]
            Block::Moderna(b) => b.named().map(|(_, t)| t).to_vec(),
        }
    }

    /// The same, writable.
    pub fn tensors_mut(&mut self) -> Vec<&mut T> {
        match self {
            Block::Original(b) => b.tensors_mut().into_iter().collect(),
            #[cfg(feature = "moderna")]
            Block::Moderna(b) => b.tensors_mut().into_iter().collect(),
        }
    }

    /// W^O (C,C): both blocks project the heads' concatenation back to the stream with it.
    pub fn w_o(&self) -> &T {
        match self {
            Block::Original(b) => &b.w_o,
            #[cfg(feature = "moderna")]
            Block::Moderna(b) => &b.w_o,
        }
    }

    /// The 2017 block's weights, if it is one (tests that rebuild its arithmetic by hand).
    pub fn original(&self) -> Option<&BlockWeights<T>> {
        match self {
            Block::Original(b) => Some(b),
            #[cfg(feature = "moderna")]
            Block::Moderna(_) => None,
        }
    }

    /// The same for today's block.
    #[cfg(feature = "moderna")]
    pub fn moderna(&self) -> Option<&ModernBlockWeights<T>> {
        match self {
            Block::Moderna(b) => Some(b),
            Block::Original(_) => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct DecoderWeights<T = Matrix> {
    pub config: DecoderConfig,
    /// Token embeddings (V,C); also the output head (logits = h · tok_embᵀ, weights tied).
    pub tok_emb: T,
    pub blocks: Vec<Block<T>>,
    /// Final norm's γ (1,C), and β (1,C) for the original's layer norm; the moderna's final
    /// norm is an RMSNorm (`None`: no β).
    pub ln_f_gamma: T,
    pub ln_f_beta: Option<T>,
}

impl<T> DecoderWeights<T> {
    /// Builds the weights of `config` from `tensors` in the file's order
    /// (`DecoderConfig::tensor_shapes`): the one place that knows which tensor goes where
    /// (loading, zeros, uploads all come through it). Refuses a wrong count (and a moderna
    /// config in a build without it) before anything moves.
    pub fn from_tensors(config: &DecoderConfig, tensors: Vec<T>) -> Result<DecoderWeights<T>> {
        config.check_architecture_built()?;
        let want = config.tensor_shapes().len();
        if tensors.len() != want {
            return Err(ComputeError::Invalid(format!("O modelo tem {want} tensores; vieram {}.", tensors.len())));
        }
        let mut tensors = tensors.into_iter();
        let mut next = || tensors.next().expect("counted above");
        let tok_emb = next();
        let blocks = (0..config.n_layers).map(|_| Block::build(config.architecture, &mut next)).collect();
        let ln_f_gamma = next();
        let ln_f_beta = config.architecture.is_original().then(next);
        Ok(DecoderWeights { config: config.clone(), tok_emb, blocks, ln_f_gamma, ln_f_beta })
    }

    /// Every tensor, in the file's order (`DecoderConfig::tensor_shapes`).
    pub fn tensors(&self) -> Vec<&T> {
        let mut out = vec![&self.tok_emb];
        out.extend(self.blocks.iter().flat_map(|b| b.tensors()));
        out.push(&self.ln_f_gamma);
        out.extend(self.ln_f_beta.as_ref());
        out
    }

    /// The same, writable.
    pub fn tensors_mut(&mut self) -> Vec<&mut T> {
        let mut out = vec![&mut self.tok_emb];
        out.extend(self.blocks.iter_mut().flat_map(|b| b.tensors_mut()));
        out.push(&mut self.ln_f_gamma);
        out.extend(self.ln_f_beta.as_mut());
        out
    }

    /// The same weights with every tensor passed through `f` (e.g. uploaded to a backend).
    pub fn try_map<U>(&self, f: impl FnMut(&T) -> Result<U>) -> Result<DecoderWeights<U>> {
        DecoderWeights::from_tensors(&self.config, self.tensors().into_iter().map(f).collect::<Result<Vec<U>>>()?)
    }

    /// The final norm of rows x (n,C) before the tied head: the original's layer norm, the
    /// moderna's RMSNorm (no β).
    pub fn final_norm<E: Executor<Tensor = T>>(&self, e: &E, x: &T) -> Result<T> {
        match &self.ln_f_beta {
            Some(beta) => e.layer_norm(x, &self.ln_f_gamma, beta, self.config.ln_eps),
            None => self.final_rms_norm(e, x),
        }
    }

    #[cfg(feature = "moderna")]
    fn final_rms_norm<E: Executor<Tensor = T>>(&self, e: &E, x: &T) -> Result<T> {
        e.rms_norm(x, &self.ln_f_gamma, self.config.ln_eps)
    }

    /// Never reached: weights without β are moderna ones, which this build cannot make.
    #[cfg(not(feature = "moderna"))]
    fn final_rms_norm<E: Executor<Tensor = T>>(&self, _e: &E, _x: &T) -> Result<T> {
        Err(super::config::moderna_not_built())
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
        let shapes = config.tensor_shapes();
        let list = shapes.iter().map(|(name, _)| {
            let Tensor { shape, values } = tensors.remove(name).expect("checked above");
            let (rows, cols) = if shape.len() == 1 { (1, shape[0]) } else { (shape[0], shape[1]) };
            Matrix::from_vec(rows, cols, values)
        });
        DecoderWeights::from_tensors(config, list.collect::<Result<Vec<_>>>()?)
    }

    /// Random weights (N(0, 0.02²)-like uniform, γ = 1, β = 0) for tests.
    pub fn random(config: &DecoderConfig, seed: u64) -> DecoderWeights {
        let mut rng = crate::rng::Rng::new(seed);
        let mut values: HashMap<String, Vec<f32>> = HashMap::new();
        for (name, shape) in config.tensor_shapes() {
            let n: usize = shape.iter().product();
            // The norms' γ (every 1-D `.weight`: ln1, ln2, ln_f; rms1, rms2, rms_f).
            let v = if name.ends_with(".weight") {
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
