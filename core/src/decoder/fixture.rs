//! The inference fixture written by the training command: for fixed prompts, candle's
//! logits at the last position with the shipped weights. One checking body, run by the
//! native tests (CPU and Vulkan) and by the browser tests (CPU and WebGPU).

use serde::Deserialize;

use crate::bpe::Bpe;
use crate::error::{ComputeError, Result};
use crate::executor::Executor;

use super::model::{forward, KvCache};
use super::sampling::top_n;
use super::weights::DecoderWeights;

/// Largest allowed |ours − candle| over a prompt's logits.
pub const MAX_ABS_DIFF: f32 = 1e-3;

#[derive(Clone, Debug, Deserialize)]
pub struct FixtureCase {
    pub prompt: String,
    pub ids: Vec<u32>,
    pub top10: Vec<u32>,
    pub logits: Vec<f32>,
}

#[derive(Deserialize)]
struct File {
    cases: Vec<FixtureCase>,
}

pub fn parse(json: &str) -> Result<Vec<FixtureCase>> {
    let file: File = serde_json::from_str(json).map_err(|e| ComputeError::Invalid(format!("fixture: {e}")))?;
    Ok(file.cases)
}

/// Outcome of one prompt.
#[derive(Clone, Debug)]
pub struct CaseResult {
    pub prompt: String,
    /// Our tokenizer gave candle's ids.
    pub same_ids: bool,
    /// max |ours − candle| over the V logits.
    pub max_abs_diff: f32,
    /// Our ten most likely ids are candle's ten.
    pub same_top10: bool,
}

impl CaseResult {
    pub fn passed(&self) -> bool {
        self.same_ids && self.max_abs_diff <= MAX_ABS_DIFF && self.same_top10
    }
}

/// Runs every prompt through `forward` on `e` and compares with the fixture.
pub async fn check<E: Executor>(e: &E, w: &DecoderWeights, bpe: &Bpe, cases: &[FixtureCase]) -> Result<Vec<CaseResult>> {
    let mut out = Vec::new();
    let resident = w.upload(e)?;
    for case in cases {
        let mut ids = bpe.encode(&case.prompt);
        ids.drain(..ids.len().saturating_sub(w.config.context));
        let mut cache = KvCache::new(e, &w.config)?;
        let pass = forward(e, &resident, &case.ids, &mut cache)?;
        let ours = e.read_one(&pass.logits).await?.row(0);
        let max_abs_diff = if ours.len() == case.logits.len() {
            ours.iter().zip(&case.logits).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max)
        } else {
            f32::INFINITY
        };
        // Compared as sets: two logits within rounding of each other may swap places.
        let mut top: Vec<u32> = top_n(&ours, 10).into_iter().map(|(i, _)| i).collect();
        let mut want = case.top10.clone();
        crate::order::sort(&mut top);
        crate::order::sort(&mut want);
        out.push(CaseResult { prompt: case.prompt.clone(), same_ids: ids == case.ids, max_abs_diff, same_top10: top == want });
    }
    Ok(out)
}
