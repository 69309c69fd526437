//! The Transformer block, in the article's post-LN form and in the pre-LN form most current
//! models use, with the input processing in front (embedding + positional encoding) and the
//! parameter counts of the article's sizes.
//!
//! Post-LN (the article and the 2017 paper):
//!   x₁ = LN₁(x + MHA(x))          out = LN₂(x₁ + FFN(x₁))
//! Pre-LN (GPT-2 and later; a stack of them ends with one final LN):
//!   x₁ = x + MHA(LN₁(x))          out = x₁ + FFN(LN₂(x₁))
//! with FFN(x) = ReLU(x W₁ + b₁) W₂ + b₂, d_ff = 4d, and LN(x) = γ ⊙ (x − μ)/√(σ² + ε) + β.
//! Here Q, K and V are the same sequence x, so the article's residual "from the values" is
//! the block's input.

use crate::error::{ComputeError, Result};
use crate::executor::{Executor, Job};
use crate::matrix::Matrix;
use crate::rng::Rng;

use super::positional::positional_encoding;

/// The article's ε.
pub const LN_EPS: f32 = 1e-5;
/// Longest input the widget runs through a block, in tokens.
pub const MAX_TOKENS: usize = 24;

/// Where the layer norms sit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Norm {
    /// After each residual sum (the article).
    Post,
    /// Before each sublayer, inside the residual branch.
    Pre,
}

/// Sizes of one block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockConfig {
    /// Model width d.
    pub d: usize,
    /// Attention heads h (d divisible by h).
    pub heads: usize,
    /// FFN hidden width d_ff (4d in the article).
    pub d_ff: usize,
}

impl BlockConfig {
    /// The widget's block: d = 8, 2 heads of 4, d_ff = 32.
    pub fn tiny() -> BlockConfig {
        BlockConfig { d: 8, heads: 2, d_ff: 32 }
    }

    /// The article's sizes: d = 512, h = 8, d_ff = 2048.
    pub fn article() -> BlockConfig {
        BlockConfig { d: 512, heads: 8, d_ff: 2048 }
    }
}

/// One layer norm's learned scale and shift (1, d).
#[derive(Clone, Debug, PartialEq)]
pub struct LayerNormWeights {
    pub gamma: Matrix,
    pub beta: Matrix,
}

impl LayerNormWeights {
    /// γ = 1, β = 0: the usual start of training.
    pub fn identity(d: usize) -> LayerNormWeights {
        let mut gamma = Matrix::zeros(1, d);
        for c in 0..d {
            gamma.set(0, c, 1.0);
        }
        LayerNormWeights { gamma, beta: Matrix::zeros(1, d) }
    }
}

/// The weights of one block.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockWeights {
    pub config: BlockConfig,
    /// W^Q, W^K, W^V, W^O (d, d), no bias; head n uses columns [n·d_h, (n+1)·d_h).
    pub w_q: Matrix,
    pub w_k: Matrix,
    pub w_v: Matrix,
    pub w_o: Matrix,
    /// W₁ (d, d_ff), b₁ (1, d_ff), W₂ (d_ff, d), b₂ (1, d).
    pub w1: Matrix,
    pub b1: Matrix,
    pub w2: Matrix,
    pub b2: Matrix,
    pub ln1: LayerNormWeights,
    pub ln2: LayerNormWeights,
}

impl BlockWeights {
    /// An untrained block: weights uniform with variance 1/fan_in (outputs keep the scale of
    /// their inputs), biases 0, γ = 1, β = 0. The same seed gives the same block.
    pub fn seeded(config: BlockConfig, seed: u64) -> Result<BlockWeights> {
        super::multi_head::check_heads(config.d, config.heads)?;
        let mut rng = Rng::new(seed);
        let mut init = |rows: usize, cols: usize| {
            let a = (3.0 / rows as f32).sqrt();
            rng.matrix(rows, cols, -a, a)
        };
        let (d, d_ff) = (config.d, config.d_ff);
        Ok(BlockWeights {
            config,
            w_q: init(d, d),
            w_k: init(d, d),
            w_v: init(d, d),
            w_o: init(d, d),
            w1: init(d, d_ff),
            b1: Matrix::zeros(1, d_ff),
            w2: init(d_ff, d),
            b2: Matrix::zeros(1, d),
            ln1: LayerNormWeights::identity(d),
            ln2: LayerNormWeights::identity(d),
        })
    }
}

/// X = E[ids] + PE (t, d): the article's input processing, on the backend.
pub fn embed_with_positions<E: Executor>(e: &E, table: &E::Tensor, ids: &[u32], theta: f32) -> Result<E::Tensor> {
    if ids.is_empty() {
        return Err(ComputeError::Empty { what: "A sequência de tokens" });
    }
    let embedded = e.embedding(table, ids)?;
    let pe = positional_encoding(ids.len(), e.dims(table).1, theta)?;
    e.add(&embedded, &e.upload(&pe)?)
}

/// The block's weights on the backend.
struct Uploaded<T> {
    w_q: T,
    w_k: T,
    w_v: T,
    w_o: T,
    w1: T,
    b1: T,
    w2: T,
    b2: T,
    ln1: (T, T),
    ln2: (T, T),
}

impl<T> Uploaded<T> {
    fn new<E: Executor<Tensor = T>>(e: &E, w: &BlockWeights) -> Result<Self> {
        Ok(Uploaded {
            w_q: e.upload(&w.w_q)?,
            w_k: e.upload(&w.w_k)?,
            w_v: e.upload(&w.w_v)?,
            w_o: e.upload(&w.w_o)?,
            w1: e.upload(&w.w1)?,
            b1: e.upload(&w.b1)?,
            w2: e.upload(&w.w2)?,
            b2: e.upload(&w.b2)?,
            ln1: (e.upload(&w.ln1.gamma)?, e.upload(&w.ln1.beta)?),
            ln2: (e.upload(&w.ln2.gamma)?, e.upload(&w.ln2.beta)?),
        })
    }
}

/// One block over `x`.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockJob {
    /// The token ids; X = E[ids] + PE is computed first.
    pub ids: Vec<u32>,
    /// E (|V|, d).
    pub table: Matrix,
    pub weights: BlockWeights,
    pub norm: Norm,
    pub causal: bool,
}

/// Every intermediate, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockTrace {
    /// X = E[ids] + PE (t, d).
    pub input: Matrix,
    /// MHA output (t, d): of x (post-LN) or of LN₁(x) (pre-LN).
    pub attention: Matrix,
    /// x + MHA(…) (t, d).
    pub residual1: Matrix,
    /// x₁: LN₁(residual1) (post) or residual1 itself (pre).
    pub x1: Matrix,
    /// ReLU(· W₁ + b₁) (t, d_ff): the 4× wider hidden layer.
    pub hidden: Matrix,
    /// FFN output (t, d).
    pub ffn: Matrix,
    /// x₁ + FFN(…) (t, d).
    pub residual2: Matrix,
    /// The block's output: LN₂(residual2) (post) or residual2 (pre).
    pub output: Matrix,
    /// What the first layer norm receives and returns: the distributions the widget plots.
    pub norm_in: Matrix,
    pub norm_out: Matrix,
}

impl Job for BlockJob {
    type Output = BlockTrace;
    async fn run<E: Executor>(&self, e: &E) -> Result<BlockTrace> {
        super::check_cap("O número de tokens", self.ids.len(), MAX_TOKENS)?;
        if self.table.cols() != self.weights.config.d {
            return Err(ComputeError::Invalid("A tabela de embeddings precisa ter largura d.".into()));
        }
        let w = Uploaded::new(e, &self.weights)?;
        let heads = self.weights.config.heads;
        let input = embed_with_positions(e, &e.upload(&self.table)?, &self.ids, super::positional::THETA)?;
        let layer_norm = |x: &E::Tensor, (gamma, beta): &(E::Tensor, E::Tensor)| e.layer_norm(x, gamma, beta, LN_EPS);
        let self_attention = |x: &E::Tensor| crate::attention::multi_head_attention(e, x, &w.w_q, &w.w_k, &w.w_v, &w.w_o, heads, self.causal);
        let ffn_of = |x: &E::Tensor| -> Result<(E::Tensor, E::Tensor)> {
            let hidden = e.relu(&e.add(&e.matmul(x, &w.w1)?, &w.b1)?)?;
            let out = e.add(&e.matmul(&hidden, &w.w2)?, &w.b2)?;
            Ok((hidden, out))
        };
        // Both orders compute the same ten matrices; only where the layer norms sit differs.
        let (attention, residual1, x1, norm_in, norm_out, hidden, ffn, residual2, output) = match self.norm {
            Norm::Post => {
                let attention = self_attention(&input)?;
                let residual1 = e.add(&input, &attention)?;
                let x1 = layer_norm(&residual1, &w.ln1)?;
                let (hidden, ffn) = ffn_of(&x1)?;
                let residual2 = e.add(&x1, &ffn)?;
                let output = layer_norm(&residual2, &w.ln2)?;
                (attention, residual1.clone(), x1.clone(), residual1, x1, hidden, ffn, residual2, output)
            }
            Norm::Pre => {
                let normed = layer_norm(&input, &w.ln1)?;
                let attention = self_attention(&normed)?;
                let residual1 = e.add(&input, &attention)?;
                let (hidden, ffn) = ffn_of(&layer_norm(&residual1, &w.ln2)?)?;
                let residual2 = e.add(&residual1, &ffn)?;
                (attention, residual1.clone(), residual1, input.clone(), normed, hidden, ffn, residual2.clone(), residual2)
            }
        };
        let [input, attention, residual1, x1, hidden, ffn, residual2, output, norm_in, norm_out] =
            e.read_n([&input, &attention, &residual1, &x1, &hidden, &ffn, &residual2, &output, &norm_in, &norm_out]).await?;
        Ok(BlockTrace { input, attention, residual1, x1, hidden, ffn, residual2, output, norm_in, norm_out })
    }
}

/// Mean and (population) standard deviation of one row.
pub fn row_stats(m: &Matrix, row: usize) -> (f32, f32) {
    let values = m.row(row);
    let n = values.len().max(1) as f32;
    let mean = values.iter().sum::<f32>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / n;
    (mean, var.sqrt())
}

/// Share of exact zeros (ReLU's cut) in `m`.
pub fn zero_fraction(m: &Matrix) -> f32 {
    let n = m.as_slice().len().max(1) as f32;
    m.as_slice().iter().filter(|&&v| v == 0.0).count() as f32 / n
}

/// Counts of `m`'s entries in `bins` equal bins over [lo, hi] (values outside go to the ends).
pub fn histogram(m: &Matrix, lo: f32, hi: f32, bins: usize) -> Vec<usize> {
    let mut counts = vec![0; bins.max(1)];
    let last = counts.len() - 1;
    let width = (hi - lo) / counts.len() as f32;
    for &v in m.as_slice() {
        let i = if width > 0.0 { ((v - lo) / width).floor() } else { 0.0 };
        counts[(i.max(0.0) as usize).min(last)] += 1;
    }
    counts
}

/// Parameter counts of the article's layers (weights and biases as the code declares them).
pub mod params {
    /// Q, K, V, O: four bias-free (d, d) linears.
    pub fn mha(d: u64) -> u64 {
        super::super::multi_head::mha_parameters(d)
    }
    /// W₁ (d, d_ff) + b₁ + W₂ (d_ff, d) + b₂.
    pub fn ffn(d: u64, d_ff: u64) -> u64 {
        2 * d * d_ff + d_ff + d
    }
    /// γ and β.
    pub fn layer_norm(d: u64) -> u64 {
        2 * d
    }
    /// MHA + FFN + two layer norms.
    pub fn block(d: u64, d_ff: u64) -> u64 {
        mha(d) + ffn(d, d_ff) + 2 * layer_norm(d)
    }
    /// The article's decoder block: a masked self-MHA (no residual, no LN) then a block.
    pub fn decoder_block(d: u64, d_ff: u64) -> u64 {
        mha(d) + block(d, d_ff)
    }
    /// Embedding (shared by both inputs) + m encoder blocks + n decoder blocks + the output
    /// linear (d, |V|) with bias.
    pub fn encoder_decoder(vocab: u64, d: u64, d_ff: u64, m: u64, n: u64) -> u64 {
        vocab * d + m * block(d, d_ff) + n * decoder_block(d, d_ff) + d * vocab + vocab
    }
}
