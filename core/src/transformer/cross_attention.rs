//! Encoder–decoder ("cross") attention, wired two ways.
//!
//! Paper (2017): queries from the decoder, keys and values from the encoder. Output row i is
//! a mix of encoder rows chosen by decoder position i; it never sees another decoder position.
//! Article's code: queries and keys from the encoder, values from the decoder stream. Output
//! row i mixes *decoder* rows j with weights from the encoder, with no mask, so position i
//! receives the decoder's later positions (j > i): under teacher forcing those hold the answer.
//! It also needs both sequences to have the same length.
//!
//! The job measures the leak two ways: the weight each output row puts on later decoder
//! positions, and how much each output row changes when the decoder's last token changes.

use crate::error::{ComputeError, Result};
use crate::executor::{Executor, Job};
use crate::matrix::Matrix;
use crate::rng::Rng;

use super::block::embed_with_positions;
use super::positional::THETA;

/// Longest sequences the widget runs.
pub const MAX_TOKENS: usize = 24;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wiring {
    /// Q from the decoder; K, V from the encoder.
    Paper,
    /// Q, K from the encoder; V from the decoder (the article's `DecoderBlock`).
    Article,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CrossJob {
    /// Encoder input ids (t_e) and decoder input ids (t_d).
    pub encoder_ids: Vec<u32>,
    pub decoder_ids: Vec<u32>,
    /// E (|V|, d), shared by both inputs.
    pub table: Matrix,
    /// W^Q, W^K, W^V (d, d).
    pub w_q: Matrix,
    pub w_k: Matrix,
    pub w_v: Matrix,
    /// A token that replaces the decoder's last one in the leak test.
    pub probe_id: u32,
}

impl CrossJob {
    /// Seeded (d, d) projections with variance 1/d.
    pub fn seeded_projections(d: usize, seed: u64) -> (Matrix, Matrix, Matrix) {
        let mut rng = Rng::new(seed);
        let a = (3.0 / d as f32).sqrt();
        (rng.matrix(d, d, -a, a), rng.matrix(d, d, -a, a), rng.matrix(d, d, -a, a))
    }
}

/// One wiring's result.
#[derive(Clone, Debug, PartialEq)]
pub struct CrossTrace {
    /// (t_q, t_k): rows are output positions.
    pub weights: Matrix,
    /// (t_q, d)
    pub output: Matrix,
    /// Per output row i: Σ_{j>i} weight on decoder positions after i (0 for the paper's wiring,
    /// whose keys are encoder positions).
    pub future_weight: Vec<f32>,
    /// Per output row: max |Δ| when the decoder's last token is replaced.
    pub change_on_probe: Vec<f32>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Cross {
    pub encoder: Matrix,
    pub decoder: Matrix,
    pub paper: CrossTrace,
    /// `Err` with the reason when the lengths differ (the article's wiring cannot run).
    pub article: std::result::Result<CrossTrace, String>,
}

/// The encoder's, decoder's and probed decoder's inputs and the projections, on the backend.
struct Inputs<T> {
    encoder: T,
    decoder: T,
    probed: T,
    w_q: T,
    w_k: T,
    w_v: T,
}

/// (weights, output) of one wiring over `dec` (the decoder's inputs, or the probed ones).
fn attend<E: Executor>(e: &E, x: &Inputs<E::Tensor>, wiring: Wiring, dec: &E::Tensor) -> Result<(E::Tensor, E::Tensor)> {
    let enc = &x.encoder;
    let (q_src, k_src, v_src) = match wiring {
        Wiring::Paper => (dec, enc, enc),
        Wiring::Article => (enc, enc, dec),
    };
    let q = e.matmul(q_src, &x.w_q)?;
    let k = e.matmul(k_src, &x.w_k)?;
    let v = e.matmul(v_src, &x.w_v)?;
    let (output, weights) = e.attention(&q, &k, &v, 1, false, 0)?;
    Ok((weights, output))
}

fn row_changes(a: &Matrix, b: &Matrix) -> Vec<f32> {
    (0..a.rows()).map(|r| a.row(r).iter().zip(b.row(r)).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)).collect()
}

/// A wiring's three tensors: weights and output, and the output with the probe.
type Wired<T> = [T; 3];

fn wire<E: Executor>(e: &E, x: &Inputs<E::Tensor>, wiring: Wiring) -> Result<Wired<E::Tensor>> {
    let (weights, output) = attend(e, x, wiring, &x.decoder)?;
    let (_, probed_output) = attend(e, x, wiring, &x.probed)?;
    Ok([weights, output, probed_output])
}

fn trace_of(wiring: Wiring, [weights, output, probed_output]: [Matrix; 3]) -> CrossTrace {
    let future_weight = match wiring {
        Wiring::Paper => vec![0.0; weights.rows()],
        Wiring::Article => (0..weights.rows()).map(|i| weights.row(i).iter().skip(i + 1).sum()).collect(),
    };
    CrossTrace { change_on_probe: row_changes(&output, &probed_output), weights, output, future_weight }
}

impl Job for CrossJob {
    type Output = Cross;
    async fn run<E: Executor>(&self, e: &E) -> Result<Cross> {
        for (what, ids) in [("A sequência do codificador", &self.encoder_ids), ("A sequência do decodificador", &self.decoder_ids)] {
            if ids.is_empty() {
                return Err(ComputeError::Invalid(format!("{what} está vazia.")));
            }
            super::check_cap(what, ids.len(), MAX_TOKENS)?;
        }
        let table = e.upload(&self.table)?;
        let mut probe_ids = self.decoder_ids.clone();
        if let Some(last) = probe_ids.last_mut() {
            *last = self.probe_id;
        }
        let x = Inputs {
            encoder: embed_with_positions(e, &table, &self.encoder_ids, THETA)?,
            decoder: embed_with_positions(e, &table, &self.decoder_ids, THETA)?,
            probed: embed_with_positions(e, &table, &probe_ids, THETA)?,
            w_q: e.upload(&self.w_q)?,
            w_k: e.upload(&self.w_k)?,
            w_v: e.upload(&self.w_v)?,
        };
        let paper = wire(e, &x, Wiring::Paper)?;
        let same_length = self.encoder_ids.len() == self.decoder_ids.len();
        // Both wirings in one readback (the article's only when the lengths allow it).
        let mut wanted: Vec<&E::Tensor> = vec![&x.encoder, &x.decoder];
        wanted.extend(paper.iter());
        let article = if same_length { Some(wire(e, &x, Wiring::Article)?) } else { None };
        if let Some(article) = &article {
            wanted.extend(article.iter());
        }
        let mut values = e.read(&wanted).await?.into_iter();
        let mut next = || values.next().ok_or_else(|| ComputeError::Invalid("leitura incompleta".into()));
        let (encoder, decoder) = (next()?, next()?);
        let paper = trace_of(Wiring::Paper, [next()?, next()?, next()?]);
        let article = match article {
            Some(_) => Ok(trace_of(Wiring::Article, [next()?, next()?, next()?])),
            None => Err(format!(
                "Com a ligação do artigo, as values vêm do decodificador ({} posições) e os pesos do codificador \
                 ({} posições): as duas sequências precisam ter o mesmo comprimento, e aqui não têm.",
                decoder.rows(),
                encoder.rows()
            )),
        };
        Ok(Cross { encoder, decoder, paper, article })
    }
}
