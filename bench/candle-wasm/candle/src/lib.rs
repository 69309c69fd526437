//! The decoder in candle as the benchmark page sees it: the training crate's model
//! (`atencao_train::model::Gpt`, the same code the native comparison `train/benches/vs_candle.rs`
//! measures) with its KV cache (`Gpt::forward_cached`), weights read by candle's own safetensors
//! loader from the same file.

use atencao_core::decoder::manifest::Manifest;
use atencao_train::model::Gpt;
use candle_core::{Device, Tensor};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct Candle {
    gpt: Gpt,
    /// Keys and values per layer after `prime`; each `step` starts from (a copy of) them.
    primed: Vec<(Tensor, Tensor)>,
}

fn js(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

#[wasm_bindgen]
impl Candle {
    /// The model from static/model's config.json and model.safetensors.
    #[wasm_bindgen(constructor)]
    pub fn new(config_json: &str, weights: &[u8]) -> Result<Candle, JsError> {
        let manifest = Manifest::from_json(config_json).map_err(js)?;
        let device = Device::Cpu;
        let tensors = candle_core::safetensors::load_buffer(weights, &device).map_err(js)?;
        let gpt = Gpt::from_tensors(&manifest.config, tensors.into_iter().collect(), &device).map_err(js)?;
        Ok(Candle { gpt, primed: Vec::new() })
    }

    /// Prefill: `ids` from an empty cache; the logits of the last position.
    pub fn prefill(&mut self, ids: &[u32]) -> Result<Vec<f32>, JsError> {
        let logits = self.gpt.forward_cached(ids, &mut Vec::new()).map_err(js)?;
        logits.to_vec1::<f32>().map_err(js)
    }

    /// Fills the cache with `ids`; each `step` then runs one token after them.
    pub fn prime(&mut self, ids: &[u32]) -> Result<(), JsError> {
        self.primed.clear();
        self.gpt.forward_cached(ids, &mut self.primed).map_err(js)?;
        Ok(())
    }

    /// The next token: `id` after the primed positions; the logits of that token.
    pub fn step(&mut self, id: u32) -> Result<Vec<f32>, JsError> {
        let mut cache = self.primed.clone();
        let logits = self.gpt.forward_cached(&[id], &mut cache).map_err(js)?;
        logits.to_vec1::<f32>().map_err(js)
    }

    /// Timed loops (the page times the call): `runs` prefills of `ids`, then the first logit of
    /// the last.
    pub fn prefill_runs(&mut self, ids: &[u32], runs: u32) -> Result<f32, JsError> {
        let mut first = 0.0;
        for _ in 0..runs {
            let logits = self.gpt.forward_cached(ids, &mut Vec::new()).map_err(js)?;
            first = logits.get(0).and_then(|v| v.to_scalar::<f32>()).map_err(js)?;
        }
        Ok(first)
    }

    /// `runs` next tokens, each `id` after the primed positions.
    pub fn step_runs(&mut self, id: u32, runs: u32) -> Result<f32, JsError> {
        let mut first = 0.0;
        for _ in 0..runs {
            let mut cache = self.primed.clone();
            let logits = self.gpt.forward_cached(&[id], &mut cache).map_err(js)?;
            first = logits.get(0).and_then(|v| v.to_scalar::<f32>()).map_err(js)?;
        }
        Ok(first)
    }
}
