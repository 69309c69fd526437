//! The logit lens: the prediction taking shape layer by layer.
//!
//! The residual stream at one position is read as if the model stopped there: after the
//! embedding and after each block it goes through the final layer norm and the tied output
//! head, and a softmax turns the scores into probabilities. After the last block that reading
//! IS the model's output. The forward pass records these readings on its own backend
//! (`forward_with_lens`: the pass of `model` with these taps), in the same submission as the pass;
//! `forward_with_strip` also reads every position, for where each prediction settles (`settle`).
//!
//! Each head's push towards a token is its direct contribution to that token's logit. The
//! residual at the end is a sum of parts (the embedding, every head's output through its slice
//! of W^O, every FFN's output); with the final layer norm's scale σ held at its value, the
//! norm is linear, so the logit of token j splits exactly into
//!   Σ_parts  γ ⊙ (part − mean(part)) / σ · E_j   +   β · E_j.
//! The moderna's final norm is an RMSNorm: no centring and no β, σ = √(mean(x²) + ε), so
//!   Σ_parts  γ ⊙ part / σ · E_j.
//! `LensReading::push` gives one part's term; the tests below check the parts add up.

use crate::error::{ComputeError, Result};
use crate::executor::{Executor, Job};
use crate::ops::SoftmaxOptions;
use crate::Matrix;

use serde::{Deserialize, Serialize};

use super::model::{forward_tapped, Forward, ForwardOutput, KvCache, Taps};
use super::sampling::top_n;
use super::settle::{self, PositionSettle};
use super::weights::DecoderWeights;

/// The lens's tensors, left on the backend by the pass: one position read in detail (the last
/// new one unless `at` says otherwise) and, for the settle strip, every position's reading.
#[derive(Debug)]
pub struct LensTaps<T> {
    /// The new position read in detail (row of the pass's new tokens); `None`: the last.
    pub at: Option<usize>,
    /// Also read every new position at every stage (`grid`): the strip of where each
    /// prediction settles, from the same pass.
    pub every_position: bool,
    /// L+1 readings (1,V) as probabilities: after the embedding, after each block.
    pub readings: Vec<T>,
    /// The residual row (1,C) after the last block (gives σ of the final layer norm).
    pub residual: Option<T>,
    /// The embedding's part of the residual (1,C): E[id]·√C + PE.
    pub embedding: Option<T>,
    /// Each head's part (1,C), layer after layer: its output times its rows of W^O.
    pub heads: Vec<T>,
    /// Each FFN's part (1,C).
    pub ffn: Vec<T>,
    /// With `every_position`: L+1 readings (T,V), one row per new position.
    pub grid: Vec<T>,
}

impl<T> Default for LensTaps<T> {
    fn default() -> Self {
        LensTaps { at: None, every_position: false, readings: Vec::new(), residual: None, embedding: None, heads: Vec::new(), ffn: Vec::new(), grid: Vec::new() }
    }
}

impl<T> LensTaps<T> {
    /// Taps that read every position, position `at` in detail.
    pub fn every_position(at: usize) -> Self {
        LensTaps { at: Some(at), every_position: true, ..LensTaps::default() }
    }

    /// The row read in detail among `t` new positions.
    fn row(&self, t: usize) -> usize {
        self.at.unwrap_or(t - 1)
    }

    /// Rows (n,C) of the residual through the final layer norm, the tied head and a softmax.
    fn read_rows<E: Executor<Tensor = T>>(e: &E, w: &DecoderWeights<T>, rows: &T) -> Result<T> {
        let normed = w.final_norm(e, rows)?;
        let logits = e.matmul_bt(&normed, &w.tok_emb, 1.0)?;
        e.softmax_rows(&logits, SoftmaxOptions::default())
    }

    /// Reads the residual x (T,C) at one stage: the detailed row, and every row for the strip.
    fn read_residual<E: Executor<Tensor = T>>(&mut self, e: &E, w: &DecoderWeights<T>, x: &T, t: usize) -> Result<()> {
        let at = self.row(t);
        let row = e.rows(x, at, at + 1)?;
        if self.every_position {
            // One reading of every row; the detailed one is its row `at`, not a second reading.
            let all = Self::read_rows(e, w, x)?;
            self.readings.push(e.rows(&all, at, at + 1)?);
            self.grid.push(all);
        } else {
            self.readings.push(Self::read_rows(e, w, &row)?);
        }
        self.residual = Some(row);
        Ok(())
    }

    /// Splits the attention output row (1,C) into its heads' parts: head h's columns times
    /// rows h·hs … (h+1)·hs of W^O, which is what the concatenation times W^O adds up.
    fn split_heads<E: Executor<Tensor = T>>(&mut self, e: &E, att_row: &T, w_o: &T, heads: usize) -> Result<()> {
        let c = e.dims(att_row).1;
        let hs = c / heads;
        let column = e.transpose(att_row)?;
        for h in 0..heads {
            let own = e.transpose(&e.rows(&column, h * hs, (h + 1) * hs)?)?;
            self.heads.push(e.matmul(&own, &e.rows(w_o, h * hs, (h + 1) * hs)?)?);
        }
        Ok(())
    }
}

/// The lens's hooks into the pass: the detailed readings at row `at` (t−1 by default).
impl<E: Executor> Taps<E> for LensTaps<E::Tensor> {
    fn after_embedding(&mut self, e: &E, w: &DecoderWeights<E::Tensor>, x: &E::Tensor, t: usize) -> Result<()> {
        let at = self.row(t);
        self.embedding = Some(e.rows(x, at, at + 1)?);
        self.read_residual(e, w, x, t)
    }

    fn after_attention(&mut self, e: &E, att: &E::Tensor, w_o: &E::Tensor, heads: usize, t: usize) -> Result<()> {
        let at = self.row(t);
        self.split_heads(e, &e.rows(att, at, at + 1)?, w_o, heads)
    }

    fn after_block(&mut self, e: &E, w: &DecoderWeights<E::Tensor>, ffn: &E::Tensor, x: &E::Tensor, t: usize) -> Result<()> {
        let at = self.row(t);
        self.ffn.push(e.rows(ffn, at, at + 1)?);
        self.read_residual(e, w, x, t)
    }
}

/// The forward pass, also tapping the last new position for the logit lens: the residual
/// stream after the embedding and after each block read through the final layer norm and
/// the tied head, and what each head, each FFN and the embedding added to that position.
pub fn forward_with_lens<E: Executor>(
    e: &E,
    w: &DecoderWeights<E::Tensor>,
    ids: &[u32],
    cache: &mut KvCache<E::Tensor>,
) -> Result<(Forward<E::Tensor>, LensTaps<E::Tensor>)> {
    let mut taps = LensTaps::default();
    let pass = forward_tapped(e, w, ids, cache, &mut taps)?;
    Ok((pass, taps))
}

/// The same pass tapping every new position for the settle strip, and position `at` (a row
/// of `ids`) in detail: one pass, read back at once by `read_forward_with_lens`.
pub fn forward_with_strip<E: Executor>(
    e: &E,
    w: &DecoderWeights<E::Tensor>,
    ids: &[u32],
    cache: &mut KvCache<E::Tensor>,
    at: usize,
) -> Result<(Forward<E::Tensor>, LensTaps<E::Tensor>)> {
    if at >= ids.len() {
        return Err(ComputeError::Invalid(format!("A posição {} não está no contexto.", at + 1)));
    }
    let mut taps = LensTaps::every_position(at);
    let pass = forward_tapped(e, w, ids, cache, &mut taps)?;
    Ok((pass, taps))
}

/// The lens read back: probabilities per stage and the parts of the residual at the position
/// read in detail, and (from `forward_with_strip`) where every position's prediction settles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LensReading {
    /// L+1 rows of V probabilities: stage 0 after the embedding, stage l after block l.
    pub readings: Vec<Vec<f32>>,
    pub residual: Vec<f32>,
    pub embedding: Vec<f32>,
    /// L·nh parts, layer after layer, head after head.
    pub heads: Vec<Vec<f32>>,
    pub ffn: Vec<Vec<f32>>,
    pub n_heads: usize,
    /// Every position of the pass, with its lens's top tokens per stage and its settle stage
    /// (empty unless the pass tapped every position).
    pub strip: Vec<PositionSettle>,
}

/// One token's logit as the sum of what wrote it.
#[derive(Clone, Debug)]
pub struct LogitParts {
    pub embedding: f32,
    /// (L, nh): row = layer.
    pub heads: Matrix,
    /// One per layer.
    pub ffn: Vec<f32>,
    /// β·E_token from the final norm (0 without β).
    pub bias: f32,
}

impl LogitParts {
    pub fn total(&self) -> f32 {
        self.embedding + self.heads.as_slice().iter().sum::<f32>() + self.ffn.iter().sum::<f32>() + self.bias
    }

    /// Layer by layer, each head's push and then the FFN's: (L, nh + 1), the playground's map.
    pub fn by_layer(&self) -> Matrix {
        let (layers, heads) = self.heads.shape();
        let mut m = Matrix::zeros(layers, heads + 1);
        for l in 0..layers {
            for h in 0..heads {
                m.set(l, h, self.heads.get(l, h));
            }
            m.set(l, heads, self.ffn.get(l).copied().unwrap_or(0.0));
        }
        m
    }
}

/// A whole window run with the lens at its last position (weights uploaded to the backend
/// first): what the playground's "por dentro" panel reruns on both backends.
pub struct LensPass<'a> {
    pub weights: &'a DecoderWeights,
    pub ids: &'a [u32],
    /// The position read in detail; every position is read for the settle strip.
    pub at: usize,
}

impl Job for LensPass<'_> {
    type Output = LensReading;
    async fn run<E: Executor>(&self, e: &E) -> Result<LensReading> {
        let weights = self.weights.upload(e)?;
        let mut cache = KvCache::new(e, &self.weights.config)?;
        let (pass, taps) = forward_with_strip(e, &weights, self.ids, &mut cache, self.at)?;
        Ok(read_forward_with_lens(e, &pass, &taps).await?.1)
    }
}

/// Reads a pass and its lens in one readback.
pub async fn read_forward_with_lens<E: Executor>(
    e: &E,
    pass: &Forward<E::Tensor>,
    taps: &LensTaps<E::Tensor>,
) -> Result<(ForwardOutput, LensReading)> {
    let missing = || ComputeError::Invalid("A lente não recebeu o fluxo residual.".into());
    let (residual, embedding) = (taps.residual.as_ref().ok_or_else(missing)?, taps.embedding.as_ref().ok_or_else(missing)?);
    let mut wanted = vec![&pass.logits, residual, embedding];
    wanted.extend(pass.attention.iter());
    wanted.extend(taps.readings.iter());
    wanted.extend(taps.heads.iter());
    wanted.extend(taps.ffn.iter());
    wanted.extend(taps.grid.iter());
    let mut values = e.read(&wanted).await?.into_iter();
    let mut next = |n: usize| -> Vec<Matrix> { values.by_ref().take(n).collect() };
    let mut fixed = next(3).into_iter();
    let (logits, residual, embedding) = match (fixed.next(), fixed.next(), fixed.next()) {
        (Some(a), Some(b), Some(c)) => (a, b, c),
        _ => return Err(ComputeError::Invalid("leitura incompleta".into())),
    };
    let attention = next(pass.attention.len());
    let flat = |ms: Vec<Matrix>| ms.into_iter().map(|m| m.as_slice().to_vec()).collect::<Vec<_>>();
    let readings = flat(next(taps.readings.len()));
    let heads = flat(next(taps.heads.len()));
    let ffn = flat(next(taps.ffn.len()));
    let grid = next(taps.grid.len());
    if ffn.len() != taps.ffn.len() || attention.len() != pass.attention.len() || grid.len() != taps.grid.len() {
        return Err(ComputeError::Invalid("leitura incompleta".into()));
    }
    let n_heads = if ffn.is_empty() { 0 } else { heads.len() / ffn.len() };
    let lens = LensReading {
        readings,
        residual: residual.as_slice().to_vec(),
        embedding: embedding.as_slice().to_vec(),
        heads,
        ffn,
        n_heads,
        strip: settle::strip(&grid),
    };
    Ok((ForwardOutput { logits, attention }, lens))
}

impl LensReading {
    /// Stages read: the embedding, then one per block.
    pub fn stages(&self) -> usize {
        self.readings.len()
    }

    /// The `k` most probable tokens at `stage`, most probable first (ties: lower id first).
    pub fn top(&self, stage: usize, k: usize) -> Vec<(u32, f32)> {
        self.readings.get(stage).map_or_else(Vec::new, |probs| top_n(probs, k))
    }

    /// The probability of `token` at every stage.
    pub fn trajectory(&self, token: u32) -> Vec<f32> {
        self.readings.iter().map(|p| p.get(token as usize).copied().unwrap_or(0.0)).collect()
    }

    /// The tokens the playground follows: the `k` most probable at the last stage, and `next`
    /// (the token that came after the position) when it is not among them.
    pub fn candidates(&self, k: usize, next: Option<u32>) -> Vec<u32> {
        let mut candidates: Vec<u32> = self.top(self.stages().saturating_sub(1), k).into_iter().map(|(t, _)| t).collect();
        if let Some(next) = next.filter(|t| !candidates.contains(t)) {
            candidates.push(next);
        }
        candidates
    }

    /// Each of `tokens`' trajectories as a column: (stages, tokens).
    pub fn trajectories(&self, tokens: &[u32]) -> Matrix {
        let mut m = Matrix::zeros(self.stages(), tokens.len());
        for (c, &token) in tokens.iter().enumerate() {
            for (s, p) in self.trajectory(token).into_iter().enumerate() {
                m.set(s, c, p);
            }
        }
        m
    }

    /// σ of the final norm at this position: √(var(residual) + ε) for a layer norm (which
    /// centres), √(mean(residual²) + ε) for an RMSNorm (which does not).
    fn sigma(&self, eps: f32, centred: bool) -> f32 {
        let c = self.residual.len().max(1) as f32;
        let mean = if centred { self.residual.iter().sum::<f32>() / c } else { 0.0 };
        let var = self.residual.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / c;
        (var + eps).sqrt()
    }

    /// One part's direct push on `token`'s logit: γ ⊙ (part − mean)/σ · E_token through a
    /// layer norm, γ ⊙ part/σ · E_token through the moderna's RMSNorm.
    pub fn push(&self, w: &DecoderWeights, part: &[f32], token: u32) -> f32 {
        let c = part.len().max(1) as f32;
        let centred = w.ln_f_beta.is_some();
        let mean = if centred { part.iter().sum::<f32>() / c } else { 0.0 };
        let sigma = self.sigma(w.config.ln_eps, centred);
        let gamma = w.ln_f_gamma.as_slice();
        let e = w.tok_emb.row(token as usize);
        part.iter().zip(gamma).zip(&e).map(|((p, g), e)| g * (p - mean) / sigma * e).sum()
    }

    /// The final norm's shift β·E_token: the part of the logit no layer wrote (0 for the
    /// moderna's RMSNorm, which has no β).
    pub fn bias_push(&self, w: &DecoderWeights, token: u32) -> f32 {
        w.ln_f_beta.as_ref().map_or(0.0, |beta| beta.as_slice().iter().zip(w.tok_emb.row(token as usize)).map(|(b, e)| b * e).sum())
    }

    /// `token`'s logit split into its parts: (embedding, heads (L, nh), FFN per layer, β·E).
    /// Their sum is the logit.
    pub fn logit_parts(&self, w: &DecoderWeights, token: u32) -> Result<LogitParts> {
        Ok(LogitParts {
            embedding: self.push(w, &self.embedding, token),
            heads: self.head_pushes(w, token)?,
            ffn: self.ffn.iter().map(|part| self.push(w, part, token)).collect(),
            bias: self.bias_push(w, token),
        })
    }

    /// Each head's push on `token`'s logit, as an (L, nh) matrix (row = layer).
    pub fn head_pushes(&self, w: &DecoderWeights, token: u32) -> Result<Matrix> {
        let values: Vec<f32> = self.heads.iter().map(|part| self.push(w, part, token)).collect();
        let layers = if self.n_heads == 0 { 0 } else { values.len() / self.n_heads };
        Matrix::from_vec(layers, self.n_heads, values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decoder::config::DecoderConfig;
    use crate::decoder::model::{forward, read_forward, KvCache};
    use crate::executor::{block_on_ready, Cpu};
    use crate::ops;

    fn lens(w: &DecoderWeights, ids: &[u32]) -> (ForwardOutput, LensReading) {
        let mut cache = KvCache::new(&Cpu, &w.config).unwrap();
        let (pass, taps) = forward_with_lens(&Cpu, w, ids, &mut cache).unwrap();
        block_on_ready(read_forward_with_lens(&Cpu, &pass, &taps)).unwrap()
    }

    #[test]
    fn last_stage_is_the_models_output_and_the_pass_is_unchanged() {
        let cfg = DecoderConfig::tiny();
        let w = DecoderWeights::random(&cfg, 11);
        let ids = [3u32, 40, 299, 7, 7];
        let (out, reading) = lens(&w, &ids);
        let plain = {
            let mut cache = KvCache::new(&Cpu, &cfg).unwrap();
            block_on_ready(read_forward(&Cpu, &forward(&Cpu, &w, &ids, &mut cache).unwrap())).unwrap()
        };
        assert_eq!(out.logits.as_slice(), plain.logits.as_slice(), "taps change nothing");
        assert_eq!(reading.stages(), cfg.n_layers + 1);
        assert_eq!(reading.heads.len(), cfg.n_layers * cfg.n_heads);
        let model = ops::softmax_rows(&plain.logits, SoftmaxOptions::default()).unwrap();
        let last = &reading.readings[cfg.n_layers];
        let diff = model.as_slice().iter().zip(last).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        assert!(diff < 1e-5, "lens after the last block vs output: {diff}");
        for stage in &reading.readings {
            assert!((stage.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        }
        let top = reading.top(cfg.n_layers, 3);
        assert!(top[0].1 >= top[1].1 && top[1].1 >= top[2].1);
        assert_eq!(reading.trajectory(top[0].0)[cfg.n_layers], top[0].1);
    }

    /// Each stage against a reference computed here from the weights, block by block.
    #[test]
    fn every_stage_matches_a_reference_read_of_the_residual() {
        let cfg = DecoderConfig::tiny();
        let w = DecoderWeights::random(&cfg, 5);
        let ids = [10u32, 20, 30];
        let (_, reading) = lens(&w, &ids);
        let read = |x: &Matrix| {
            let last = Matrix::from_vec(1, cfg.d_model, x.row(x.rows() - 1)).unwrap();
            let normed = ops::layer_norm(&last, &w.ln_f_gamma, w.ln_f_beta.as_ref().unwrap(), cfg.ln_eps).unwrap();
            let logits = ops::matmul_bt(&normed, &w.tok_emb, 1.0).unwrap();
            ops::softmax_rows(&logits, SoftmaxOptions::default()).unwrap()
        };
        let c = cfg.d_model;
        let emb = ops::embedding(&w.tok_emb, &ids).unwrap();
        let pe = crate::transformer::positional::sinusoidal(0, ids.len(), c, cfg.pe_theta);
        let mut x = ops::add(&ops::scale(&emb, (c as f32).sqrt()), &pe).unwrap();
        let mut expected = vec![read(&x)];
        for b in w.blocks.iter().map(|b| b.original().unwrap()) {
            let h = ops::layer_norm(&x, &b.ln1_gamma, &b.ln1_beta, cfg.ln_eps).unwrap();
            let (q, k, v) = (ops::matmul(&h, &b.w_q).unwrap(), ops::matmul(&h, &b.w_k).unwrap(), ops::matmul(&h, &b.w_v).unwrap());
            let att = ops::attention(&q, &k, &v, cfg.n_heads, true, 0).unwrap().output;
            x = ops::add(&x, &ops::matmul(&att, &b.w_o).unwrap()).unwrap();
            let h = ops::layer_norm(&x, &b.ln2_gamma, &b.ln2_beta, cfg.ln_eps).unwrap();
            let hidden = ops::relu(&ops::add(&ops::matmul(&h, &b.w1).unwrap(), &b.b1).unwrap());
            x = ops::add(&x, &ops::add(&ops::matmul(&hidden, &b.w2).unwrap(), &b.b2).unwrap()).unwrap();
            expected.push(read(&x));
        }
        for (stage, (got, want)) in reading.readings.iter().zip(&expected).enumerate() {
            let diff = got.iter().zip(want.as_slice()).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
            assert!(diff < 1e-5, "stage {stage}: {diff}");
        }
    }

    /// The parts' pushes plus β·E_j add up to the logit of j: the split is exact.
    #[test]
    fn pushes_of_all_parts_add_up_to_the_logit() {
        let cfg = DecoderConfig::tiny();
        let w = DecoderWeights::random(&cfg, 8);
        let (out, reading) = lens(&w, &[1, 2, 3, 4]);
        for token in [0u32, 17, 299] {
            let parts = std::iter::once(&reading.embedding).chain(&reading.heads).chain(&reading.ffn);
            let beta: f32 = w.ln_f_beta.as_ref().unwrap().as_slice().iter().zip(w.tok_emb.row(token as usize)).map(|(b, e)| b * e).sum();
            let total: f32 = parts.map(|p| reading.push(&w, p, token)).sum::<f32>() + beta;
            let logit = out.logits.get(0, token as usize);
            assert!((total - logit).abs() < 1e-3 * logit.abs().max(1.0), "token {token}: {total} vs {logit}");
            let split = reading.logit_parts(&w, token).unwrap();
            assert!((split.total() - logit).abs() < 1e-3 * logit.abs().max(1.0), "token {token}: parts {} vs {logit}", split.total());
        }
        let pushes = reading.head_pushes(&w, 17).unwrap();
        assert_eq!(pushes.shape(), (cfg.n_layers, cfg.n_heads));
        // The playground's map: the heads, then the FFN's column; its sum is the layers' part.
        let split = reading.logit_parts(&w, 17).unwrap();
        let map = split.by_layer();
        assert_eq!((map.shape(), map.get(1, cfg.n_heads), map.get(0, 1)), ((cfg.n_layers, cfg.n_heads + 1), split.ffn[1], pushes.get(0, 1)));
    }

    /// On a moderna model (final RMSNorm, no β): the last stage is the model's output, and the
    /// parts' pushes (no centring, σ the root mean square) add up to the logit with no β term.
    #[cfg(feature = "moderna")]
    #[test]
    fn the_lens_reads_a_moderna_model() {
        let cfg = DecoderConfig::tiny_moderna(2);
        let w = DecoderWeights::random(&cfg, 12);
        let ids = [3u32, 40, 299, 7, 7];
        let (out, reading) = lens(&w, &ids);
        assert_eq!((reading.stages(), reading.heads.len()), (cfg.n_layers + 1, cfg.n_layers * cfg.n_heads));
        let model = ops::softmax_rows(&out.logits, SoftmaxOptions::default()).unwrap();
        let diff = model.as_slice().iter().zip(&reading.readings[cfg.n_layers]).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        println!("moderna lens: last stage vs output {diff:.2e}");
        assert!(diff < 1e-5, "lens after the last block vs output: {diff}");
        for token in [0u32, 17, 299] {
            let split = reading.logit_parts(&w, token).unwrap();
            let logit = out.logits.get(0, token as usize);
            assert_eq!(split.bias, 0.0);
            println!("moderna lens: token {token}: parts {} vs logit {logit}", split.total());
            assert!((split.total() - logit).abs() < 1e-4 * logit.abs().max(1.0), "token {token}: parts {} vs {logit}", split.total());
        }
    }

    /// The candidates: the last stage's top ones, the token that came added when it is not
    /// among them; their columns are their trajectories.
    #[test]
    fn candidates_and_their_trajectories() {
        let w = DecoderWeights::random(&DecoderConfig::tiny(), 8);
        let (_, reading) = lens(&w, &[1, 2, 3, 4]);
        let top: Vec<u32> = reading.top(reading.stages() - 1, 3).into_iter().map(|(t, _)| t).collect();
        assert_eq!(reading.candidates(3, Some(top[1])), top);
        let outsider = (0..300).find(|t| !top.contains(t)).unwrap();
        let with = reading.candidates(3, Some(outsider));
        assert_eq!((with.len(), with[3]), (4, outsider));
        let m = reading.trajectories(&with);
        assert_eq!(m.shape(), (reading.stages(), 4));
        assert_eq!((0..reading.stages()).map(|s| m.get(s, 3)).collect::<Vec<_>>(), reading.trajectory(outsider));
    }
}
