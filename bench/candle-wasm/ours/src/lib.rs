//! The site's decoder as the benchmark page sees it: `atencao_core::decoder`'s one forward pass
//! on the CPU executor, with its KV cache written in place, exactly what the site's CPU path
//! runs (`src/web/bench.rs`, the playground), compiled with the site's profile.

use atencao_core::decoder::load::Model;
use atencao_core::decoder::manifest::Manifest;
use atencao_core::decoder::model::{forward, KvCache};
use atencao_core::executor::Cpu;
use atencao_core::Matrix;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
pub struct Ours {
    model: Model,
    cache: KvCache<Matrix>,
    /// Positions kept by `prime`, to which `step` returns before each token.
    primed: usize,
}

fn js(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

#[wasm_bindgen]
impl Ours {
    /// The model from static/model's config.json, tokenizer.json and model.safetensors
    /// (both checked against the manifest's SHA-256, as the site does).
    #[wasm_bindgen(constructor)]
    pub fn new(config_json: &str, tokenizer_json: &[u8], weights: &[u8]) -> Result<Ours, JsError> {
        let manifest = Manifest::from_json(config_json).map_err(js)?;
        let model = Model::load(manifest, tokenizer_json, weights).map_err(js)?;
        let cache = KvCache::new(&Cpu, &model.weights.config).map_err(js)?;
        Ok(Ours { model, cache, primed: 0 })
    }

    /// The site's BPE tokenizer: both engines get these ids.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        self.model.bpe.encode(text)
    }

    /// Prefill: `ids` from an empty cache; the logits of the last position.
    pub fn prefill(&mut self, ids: &[u32]) -> Result<Vec<f32>, JsError> {
        self.cache.clear();
        let pass = forward(&Cpu, &self.model.weights, ids, &mut self.cache).map_err(js)?;
        Ok(pass.logits.as_slice().to_vec())
    }

    /// Fills the cache with `ids`; each `step` then runs one token after them.
    pub fn prime(&mut self, ids: &[u32]) -> Result<(), JsError> {
        self.cache.clear();
        forward(&Cpu, &self.model.weights, ids, &mut self.cache).map_err(js)?;
        self.primed = ids.len();
        Ok(())
    }

    /// The next token: `id` after the primed positions (the cache is cut back to them first);
    /// the logits of that token.
    pub fn step(&mut self, id: u32) -> Result<Vec<f32>, JsError> {
        self.cache.truncate(self.primed);
        let pass = forward(&Cpu, &self.model.weights, &[id], &mut self.cache).map_err(js)?;
        Ok(pass.logits.as_slice().to_vec())
    }

    /// Timed loops (the page times the call): `runs` prefills of `ids`, then the first logit of
    /// the last, so nothing is optimised away and no logits are copied out per run.
    pub fn prefill_runs(&mut self, ids: &[u32], runs: u32) -> Result<f32, JsError> {
        let mut first = 0.0;
        for _ in 0..runs {
            self.cache.clear();
            let pass = forward(&Cpu, &self.model.weights, ids, &mut self.cache).map_err(js)?;
            first = pass.logits.as_slice()[0];
        }
        Ok(first)
    }

    /// `runs` next tokens, each `id` after the primed positions.
    pub fn step_runs(&mut self, id: u32, runs: u32) -> Result<f32, JsError> {
        let mut first = 0.0;
        for _ in 0..runs {
            self.cache.truncate(self.primed);
            let pass = forward(&Cpu, &self.model.weights, &[id], &mut self.cache).map_err(js)?;
            first = pass.logits.as_slice()[0];
        }
        Ok(first)
    }
}

/// `reps` products of two (m,k)·(k,n) matrices of fixed values, by the core's `ops::matmul`
/// (what the decoder runs) or, with `reference`, by ndarray's `dot` (matrixmultiply): for
/// choosing which sizes the core's simd128 blocks take (BENCHMARKS.md). The page times the call.
#[wasm_bindgen]
pub fn matmul_runs(m: usize, k: usize, n: usize, reps: u32, reference: bool) -> f32 {
    let a = Matrix::from_vec(m, k, (0..m * k).map(|i| (i % 7) as f32 * 0.25 - 0.5).collect()).expect("m·k");
    let b = Matrix::from_vec(k, n, (0..k * n).map(|i| (i % 5) as f32 * 0.25 - 0.5).collect()).expect("k·n");
    let mut first = 0.0;
    for _ in 0..reps {
        first = if reference {
            a.array().dot(b.array())[(0, 0)]
        } else {
            atencao_core::ops::matmul(&a, &b).expect("shapes").as_slice()[0]
        };
    }
    first
}

/// The core's simd128 kernels against their plain twins, bit for bit, on ragged shapes (what
/// `tests/web.rs` checks in the test suite; the page checks it again on the build it times).
/// An empty string when they agree, else the first difference.
#[wasm_bindgen]
pub fn lanes_check(seed: u32) -> String {
    use atencao_core::lanes::{self, plain};
    let mut rng = atencao_core::rng::Rng::new(seed as u64);
    let mut values = |n: usize| (0..n).map(|_| rng.next_f32() * 20.0 - 10.0).collect::<Vec<f32>>();
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    for (m, k, n) in [(1, 1, 1), (4, 3, 8), (5, 7, 9), (7, 16, 33), (9, 32, 40), (64, 192, 192), (13, 5, 70), (3, 0, 4), (8, 9, 0)] {
        let (a, b) = (values(m * k), values(k * n));
        if bits(&lanes::matmul(&a, &b, m, k, n)) != bits(&plain::matmul(&a, &b, m, k, n)) {
            return format!("matmul {m}×{k}·{k}×{n}");
        }
    }
    for (rows, n, stride) in [(0, 5, 5), (1, 3, 3), (5, 32, 40), (7, 37, 64), (127, 32, 192), (3, 64, 64)] {
        let (scales, data, start) = (values(rows), values(rows * stride + n), values(n));
        let (mut simd, mut twin) = (start.clone(), start);
        lanes::axpy_rows(&mut simd, &scales, &data, stride);
        plain::axpy_rows(&mut twin, &scales, &data, stride);
        if bits(&simd) != bits(&twin) {
            return format!("axpy_rows {rows} rows × {n}, stride {stride}");
        }
    }
    String::new()
}
