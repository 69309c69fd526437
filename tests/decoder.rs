//! The shipped decoder (static/model/) against the training command's fixture
//! (tests/fixtures/decoder_fixture.json): candle's last-position logits within 1e-3 on the
//! CPU and on the GPU (llvmpipe), incremental decoding equal to a full recompute, the same
//! text from the same seed on both backends, and corrupt files refused with a message.
#![cfg(not(target_arch = "wasm32"))]

use atencao::core::decoder::bigram::TokenBigram;
use atencao::core::decoder::fixture::{self, MAX_ABS_DIFF};
use atencao::core::decoder::load::{load_bigram, Model};
use atencao::core::decoder::manifest::Manifest;
use atencao::core::decoder::model::{forward, KvCache};
use atencao::core::decoder::sampling::{sample, SamplingOptions};
use atencao::core::executor::{block_on_ready, Cpu, Executor};
use atencao::core::rng::Rng;
use atencao::gpu::GpuContext;

const CONFIG: &str = include_str!("../static/model/config.json");
const TOKENIZER: &[u8] = include_bytes!("../static/model/tokenizer.json");
const WEIGHTS: &[u8] = include_bytes!("../static/model/model.safetensors");
const BIGRAM: &[u8] = include_bytes!("../static/model/bigram.bin");
const FIXTURE: &str = include_str!("fixtures/decoder_fixture.json");

fn model() -> Model {
    Model::load(Manifest::from_json(CONFIG).unwrap(), TOKENIZER, WEIGHTS).unwrap()
}

fn gpu() -> Option<GpuContext> {
    match pollster::block_on(GpuContext::acquire()) {
        Ok(ctx) => Some(ctx),
        Err(why) if std::env::var("ATENCAO_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("ATENCAO_REQUIRE_GPU=1 but no GPU adapter: {why}")
        }
        Err(why) => {
            eprintln!("skipped: no GPU adapter ({why})");
            None
        }
    }
}

fn assert_passed(backend: &str, results: Vec<fixture::CaseResult>) {
    assert!(!results.is_empty());
    for r in &results {
        eprintln!("{backend}: {:?}, max |Δ| = {:e}", r.prompt, r.max_abs_diff);
        assert!(r.passed(), "{backend} on {:?}: {r:?} (tolerance {MAX_ABS_DIFF})", r.prompt);
    }
}

#[test]
fn cpu_logits_equal_candle() {
    let m = model();
    let cases = fixture::parse(FIXTURE).unwrap();
    assert_passed("CPU", block_on_ready(fixture::check(&Cpu, &m.weights, &m.bpe, &cases)).unwrap());
}

#[test]
fn gpu_logits_equal_candle() {
    let Some(gpu) = gpu() else { return };
    let m = model();
    let cases = fixture::parse(FIXTURE).unwrap();
    assert_passed("GPU", pollster::block_on(fixture::check(&gpu, &m.weights, &m.bpe, &cases)).unwrap());
}

/// Feeds the prompt, then `steps` sampled tokens one at a time through the KV cache.
async fn generate<E: Executor>(e: &E, m: &Model, prompt: &str, steps: usize, seed: u64) -> (Vec<u32>, Vec<f32>) {
    let mut ids = m.bpe.encode(prompt);
    let mut cache = KvCache::default();
    let mut rng = Rng::new(seed);
    let opts = SamplingOptions { temperature: 0.9, top_k: 40, top_p: 0.95 };
    let mut pending = ids.clone();
    let mut last_logits = Vec::new();
    for _ in 0..steps {
        let out = forward(e, &m.weights, &pending, &cache).await.unwrap();
        cache.append(out.new_cache);
        last_logits = out.logits.row(0);
        let next = sample(&last_logits, &opts, &mut rng).unwrap();
        ids.push(next);
        pending = vec![next];
    }
    (ids, last_logits)
}

#[test]
fn incremental_decoding_equals_full_recompute_on_the_real_model() {
    let m = model();
    let (ids, incremental) = block_on_ready(generate(&Cpu, &m, "Capitu", 24, 7));
    // Recompute the logits of the last fed position (ids without the last sampled token) at once.
    let full = block_on_ready(forward(&Cpu, &m.weights, &ids[..ids.len() - 1], &KvCache::default())).unwrap();
    let diff = full.logits.row(0).iter().zip(&incremental).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
    assert!(diff < 1e-4, "incremental vs full recompute: {diff}");
}

#[test]
fn same_seed_same_text_on_cpu_and_gpu() {
    let m = model();
    let (cpu_ids, _) = block_on_ready(generate(&Cpu, &m, "Era uma vez", 20, 42));
    let (again, _) = block_on_ready(generate(&Cpu, &m, "Era uma vez", 20, 42));
    assert_eq!(cpu_ids, again);
    let Some(gpu) = gpu() else { return };
    let (gpu_ids, _) = pollster::block_on(generate(&gpu, &m, "Era uma vez", 20, 42));
    assert_eq!(m.bpe.decode(&cpu_ids), m.bpe.decode(&gpu_ids));
}

#[test]
fn corrupt_or_truncated_files_are_refused_with_a_message() {
    let manifest = Manifest::from_json(CONFIG).unwrap();
    let truncated = Model::load(manifest.clone(), TOKENIZER, &WEIGHTS[..WEIGHTS.len() / 2]).unwrap_err();
    assert!(truncated.to_string().contains("corrompido"), "{truncated}");
    let mut flipped = WEIGHTS.to_vec();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    assert!(Model::load(manifest.clone(), TOKENIZER, &flipped).is_err());
    assert!(Model::load(manifest.clone(), b"{}", WEIGHTS).is_err());
    assert!(Manifest::from_json("{\"config\": 3}").is_err());
    assert!(load_bigram(&manifest, &BIGRAM[..10]).is_err());
}

#[test]
fn bigram_baseline_is_a_distribution_over_the_same_tokens() {
    let manifest = Manifest::from_json(CONFIG).unwrap();
    let bigram: TokenBigram = load_bigram(&manifest, BIGRAM).unwrap();
    let m = model();
    let space_a = m.bpe.encode(" a");
    assert_eq!(space_a.len(), 1, "\" a\" is one token");
    let dist = bigram.next_distribution(space_a[0]);
    assert!(!dist.is_empty());
    let mass: f32 = dist.iter().map(|(_, p)| p).sum();
    assert!(mass > 0.3 && mass <= 1.0 + 1e-5, "stored mass {mass}");
    assert!(dist.windows(2).all(|w| w[0].1 >= w[1].1));
}

#[test]
fn tokenizer_round_trips_the_corpus_style_and_anything_else() {
    let m = model();
    for text in ["Não desejo ao meu maior inimigo o que me aconteceu no mês de\nabril de 1839.", "日本語 🙂 <img src=x>", ""] {
        assert_eq!(m.bpe.decode(&m.bpe.encode(text)), text);
    }
    let ids = m.bpe.encode("Capitu olhou para Bentinho");
    assert!(ids.len() <= 12, "{} tokens", ids.len());
}

/// The resident GPU decoder (one command buffer per pass, cache on the GPU) gives candle's
/// logits, and decoding through its cache equals the CPU's forward pass, attention included.
#[test]
fn resident_gpu_decoder_equals_candle_and_the_cpu() {
    use atencao::gpu::decoder::GpuDecoder;
    let Some(gpu) = gpu() else { return };
    let m = model();
    let decoder = GpuDecoder::new(std::rc::Rc::new(gpu), &m.weights).unwrap();
    for case in fixture::parse(FIXTURE).unwrap() {
        decoder.reset();
        let out = pollster::block_on(decoder.forward(&case.ids)).unwrap();
        let diff = out.logits.row(0).iter().zip(&case.logits).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        eprintln!("resident GPU: {:?}, max |Δ| = {diff:e}", case.prompt);
        assert!(diff <= MAX_ABS_DIFF, "{:?}: {diff}", case.prompt);
    }
    let ids = m.bpe.encode("Uma noite destas, vindo da cidade para o Engenho Novo");
    decoder.reset();
    let mut cache = KvCache::default();
    for chunk in [&ids[..4], &ids[4..5], &ids[5..]] {
        let gpu_out = pollster::block_on(decoder.forward(chunk)).unwrap();
        let cpu_out = block_on_ready(forward(&Cpu, &m.weights, chunk, &cache)).unwrap();
        cache.append(cpu_out.new_cache);
        assert!(gpu_out.logits.max_abs_diff(&cpu_out.logits).unwrap() < 1e-3);
        for (g, c) in gpu_out.attention.iter().zip(&cpu_out.attention) {
            assert!(g.max_abs_diff(c).unwrap() < 1e-4, "attention differs");
        }
    }
    assert_eq!(decoder.cached(), ids.len());
    // A prompt of 64 tokens or more: its products run the blocked kernel.
    let mut prompt = m.bpe.encode("Uma noite destas, vindo da cidade para o Engenho Novo, encontrei no trem da Central um rapaz aqui do bairro, que eu conheço de vista e de chapéu.");
    while prompt.len() < 80 {
        prompt.extend_from_within(..prompt.len().min(80 - prompt.len()));
    }
    decoder.reset();
    let gpu_out = pollster::block_on(decoder.forward(&prompt)).unwrap();
    let cpu_out = block_on_ready(forward(&Cpu, &m.weights, &prompt, &KvCache::default())).unwrap();
    let diff = gpu_out.logits.max_abs_diff(&cpu_out.logits).unwrap();
    assert!(diff < 1e-3, "a prompt of {} tokens: {diff}", prompt.len());
    decoder.reset();
    for chunk in [&ids[..4], &ids[4..5], &ids[5..]] {
        pollster::block_on(decoder.forward(chunk)).unwrap();
    }
    let long = vec![1u32; m.weights.config.context];
    assert!(pollster::block_on(decoder.forward(&long)).is_err(), "past the context: refused");
    assert_eq!(decoder.cached(), ids.len(), "a refused pass leaves the cache as it was");
}
