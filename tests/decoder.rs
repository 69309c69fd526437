//! The shipped decoder (static/model/) against the training command's fixture
//! (tests/fixtures/decoder_fixture.json): candle's last-position logits within 1e-3 on the
//! CPU and on the GPU (llvmpipe), incremental decoding equal to a full recompute, the same
//! text from the same seed on both backends, the greedy golden text on both, the settle strip and
//! a branch with and without the KV cache on both (issue 39), and corrupt files refused with a message.
#![cfg(not(target_arch = "wasm32"))]

use atencao::core::decoder::bigram::TokenBigram;
use atencao::core::decoder::fixture::{self, MAX_ABS_DIFF};
use atencao::core::decoder::load::{load_bigram, parse_bigram, parse_tokenizer, Model};
use atencao::core::decoder::manifest::Manifest;
use atencao::core::decoder::model::{forward, read_forward, DecoderPass, KvCache};
use atencao::core::decoder::sampling::SamplingOptions;
use atencao::core::decoder::session::{tokens_to_drop, Session};
use atencao::core::decoder::DecoderWeights;
use atencao::core::executor::{block_on_ready, Cpu, Executor, Job};
use atencao::core::Matrix;
use atencao::gpu::{GpuContext, GpuTensor};

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

const OPTS: SamplingOptions = SamplingOptions { temperature: 0.9, top_k: 40, top_p: 0.95 };

/// Feeds the prompt, then samples `steps` tokens through the session (one pass per token).
async fn generate<E: Executor>(e: &E, weights: std::rc::Rc<DecoderWeights<E::Tensor>>, m: &Model, prompt: &str, steps: usize, seed: u64) -> (Vec<u32>, Vec<f32>) {
    generate_with(e, weights, m, prompt, steps, seed, &OPTS).await
}

async fn generate_with<E: Executor>(
    e: &E,
    weights: std::rc::Rc<DecoderWeights<E::Tensor>>,
    m: &Model,
    prompt: &str,
    steps: usize,
    seed: u64,
    options: &SamplingOptions,
) -> (Vec<u32>, Vec<f32>) {
    let mut session = Session::start(e, weights, &m.bpe, prompt, seed).unwrap();
    for _ in 0..steps {
        session.step(e, options).await.unwrap();
    }
    (session.history().ids.clone(), session.history().logits.clone())
}

/// The greedy golden text (tests/fixtures/greedy_golden.json): the shipped model, from a fixed
/// prompt, 40 tokens, always the most likely one. Whatever moves one of the model's choices (an
/// op, the tokenizer, the weights, the session) shows here as a different text, on either
/// backend; the browser's playground is held to the same text (tests/e2e/suites/decoder.mjs).
#[derive(serde::Deserialize)]
struct GreedyGolden {
    prompt: String,
    tokens: usize,
    text: String,
}

fn greedy_golden() -> GreedyGolden {
    serde_json::from_str(include_str!("fixtures/greedy_golden.json")).unwrap()
}

#[test]
fn greedy_golden_text_on_the_cpu_and_the_gpu() {
    let (m, golden, greedy) = (model(), greedy_golden(), SamplingOptions::greedy());
    let (ids, _) = block_on_ready(generate_with(&Cpu, on_cpu(&m), &m, &golden.prompt, golden.tokens, 1, &greedy));
    assert_eq!(m.bpe.decode(&ids), golden.text, "the CPU");
    let Some(gpu) = gpu() else { return };
    let (ids, _) = pollster::block_on(generate_with(&gpu, on_gpu(&gpu, &m), &m, &golden.prompt, golden.tokens, 1, &greedy));
    assert_eq!(m.bpe.decode(&ids), golden.text, "the GPU (llvmpipe in the tests)");
}

fn on_cpu(m: &Model) -> std::rc::Rc<DecoderWeights> {
    std::rc::Rc::new(m.weights.clone())
}

fn on_gpu(gpu: &GpuContext, m: &Model) -> std::rc::Rc<DecoderWeights<GpuTensor>> {
    std::rc::Rc::new(m.weights.upload(gpu).unwrap())
}

#[test]
fn incremental_decoding_equals_full_recompute_on_the_real_model() {
    let m = model();
    let (ids, incremental) = block_on_ready(generate(&Cpu, on_cpu(&m), &m, "Capitu", 24, 7));
    // The whole window at once, from an empty cache: the same next-token logits.
    let full = block_on_ready(DecoderPass { weights: &m.weights, ids: &ids }.run(&Cpu)).unwrap();
    let diff = full.logits.row(0).iter().zip(&incremental).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
    assert!(diff < 1e-4, "incremental vs full recompute: {diff}");
}

#[test]
fn same_seed_same_text_on_cpu_and_gpu() {
    let m = model();
    let (cpu_ids, _) = block_on_ready(generate(&Cpu, on_cpu(&m), &m, "Era uma vez", 20, 42));
    let (again, _) = block_on_ready(generate(&Cpu, on_cpu(&m), &m, "Era uma vez", 20, 42));
    assert_eq!(cpu_ids, again);
    let Some(gpu) = gpu() else { return };
    let (gpu_ids, _) = pollster::block_on(generate(&gpu, on_gpu(&gpu, &m), &m, "Era uma vez", 20, 42));
    assert_eq!(m.bpe.decode(&cpu_ids), m.bpe.decode(&gpu_ids));
}

/// Generation that starts on the GPU and moves to the CPU halfway (as after a lost device)
/// goes on with the same generator: the same text as on the CPU alone.
#[test]
fn a_backend_switch_mid_generation_keeps_the_text() {
    let Some(gpu) = gpu() else { return };
    let m = model();
    let (cpu_ids, _) = block_on_ready(generate(&Cpu, on_cpu(&m), &m, "A galinha atravessou a rua", 16, 9));
    let mut session = Session::start(&gpu, on_gpu(&gpu, &m), &m.bpe, "A galinha atravessou a rua", 9).unwrap();
    for _ in 0..8 {
        pollster::block_on(session.step(&gpu, &OPTS)).unwrap();
    }
    let mut session = Session::resume(&Cpu, on_cpu(&m), session.into_history()).unwrap();
    for _ in 0..8 {
        block_on_ready(session.step(&Cpu, &OPTS)).unwrap();
    }
    assert_eq!(m.bpe.decode(&session.history().ids), m.bpe.decode(&cpu_ids));
}

/// The widget's path on a real device: the session on the site's runtime over the GPU, core's
/// generation loop, then the device destroyed mid-generation (as a lost WebGPU device): core
/// goes on on the CPU from the history, says so, and the text is the CPU's from the same seed.
#[test]
fn the_runtime_generates_on_the_gpu_and_a_lost_device_keeps_the_text() {
    use atencao::core::runtime::{Placed, Runtime};
    let Some(gpu) = gpu() else { return };
    let m = model();
    let prompt = "A galinha atravessou a rua";
    let (cpu_ids, _) = block_on_ready(generate(&Cpu, on_cpu(&m), &m, prompt, 16, 9));
    let rt = Runtime::Device(&gpu);
    let weights = std::rc::Rc::new(m.weights.upload(&rt).unwrap());
    let mut session: Session<Placed<GpuTensor>> = Session::start(&rt, weights, &m.bpe, prompt, 9).unwrap().keep_host_copy(on_cpu(&m));
    let first = pollster::block_on(session.generate(&rt, 8, &OPTS, None, |_, _| true)).unwrap();
    assert!(first.fallback.is_none() && first.made == 8);
    gpu.destroy();
    let rest = pollster::block_on(session.generate(&rt, 8, &OPTS, None, |_, _| true)).unwrap();
    let fallback = rest.fallback.expect("the lost device is reported");
    assert!(matches!(fallback.error, atencao::core::ComputeError::DeviceLost(_)), "{:?}", fallback.error);
    assert_eq!((rest.made, session.on()), (8, atencao::core::executor::BackendKind::Cpu));
    assert_eq!(m.bpe.decode(&session.history().ids), m.bpe.decode(&cpu_ids));
}

/// Generating past the context on the real model: the window slides by the one rule, and what
/// the session predicts is what a fresh pass over the window predicts.
#[test]
fn context_overflow_on_the_real_model() {
    let m = model();
    let context = m.weights.config.context;
    let mut session = Session::start(&Cpu, on_cpu(&m), &m.bpe, "Uma noite destas, vindo da cidade", 3).unwrap();
    let start = session.history().ids.len();
    for _ in 0..(context + 5 - start) {
        block_on_ready(session.step(&Cpu, &OPTS)).unwrap();
    }
    let h = session.history();
    assert!(h.ids.len() <= context);
    assert_eq!(h.dropped, tokens_to_drop(context + 1, context), "slid once");
    let fresh = block_on_ready(DecoderPass { weights: &m.weights, ids: &h.ids }.run(&Cpu)).unwrap();
    let diff = fresh.logits.row(0).iter().zip(&h.logits).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
    assert!(diff < 1e-4, "{diff}");
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
    // What the worker parses the page has checked; parsing alone still refuses wrong shapes.
    let bpe = parse_tokenizer(&manifest, TOKENIZER).unwrap();
    let short = Model::from_checked(manifest.clone(), bpe.clone(), &WEIGHTS[..WEIGHTS.len() / 2]).unwrap_err();
    assert!(!short.to_string().is_empty());
    let parsed = Model::from_checked(manifest.clone(), bpe, WEIGHTS).unwrap();
    assert_eq!(parsed.weights.config, model().weights.config);
    assert!(parse_bigram(&manifest, &BIGRAM[..10]).is_err());
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

/// The forward pass resident on the GPU (weights uploaded once, the cache in GPU buffers, one
/// submission per pass) gives candle's logits, and decoding through its cache equals the CPU's,
/// attention included.
#[test]
fn resident_gpu_decoder_equals_candle_and_the_cpu() {
    let Some(gpu) = gpu() else { return };
    let m = model();
    let weights = m.weights.upload(&gpu).unwrap();
    let run = |e_gpu: bool, ids: &[u32], cache_gpu: &mut KvCache<GpuTensor>, cache_cpu: &mut KvCache<Matrix>| {
        if e_gpu {
            let pass = forward(&gpu, &weights, ids, cache_gpu).unwrap();
            pollster::block_on(read_forward(&gpu, &pass)).unwrap()
        } else {
            let pass = forward(&Cpu, &m.weights, ids, cache_cpu).unwrap();
            block_on_ready(read_forward(&Cpu, &pass)).unwrap()
        }
    };
    for case in fixture::parse(FIXTURE).unwrap() {
        let mut cache = KvCache::new(&gpu, &m.weights.config).unwrap();
        let before = gpu.submissions();
        let out = run(true, &case.ids, &mut cache, &mut KvCache::new(&Cpu, &m.weights.config).unwrap());
        assert_eq!(gpu.submissions() - before, 1, "one pass, one submission");
        let diff = out.logits.row(0).iter().zip(&case.logits).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        eprintln!("resident GPU: {:?}, max |Δ| = {diff:e}", case.prompt);
        assert!(diff <= MAX_ABS_DIFF, "{:?}: {diff}", case.prompt);
    }
    let ids = m.bpe.encode("Uma noite destas, vindo da cidade para o Engenho Novo");
    let mut gpu_cache = KvCache::new(&gpu, &m.weights.config).unwrap();
    let mut cpu_cache = KvCache::new(&Cpu, &m.weights.config).unwrap();
    for chunk in [&ids[..4], &ids[4..5], &ids[5..]] {
        let gpu_out = run(true, chunk, &mut gpu_cache, &mut cpu_cache);
        let cpu_out = run(false, chunk, &mut gpu_cache, &mut cpu_cache);
        assert!(gpu_out.logits.max_abs_diff(&cpu_out.logits).unwrap() < 1e-3);
        for (g, c) in gpu_out.attention.iter().zip(&cpu_out.attention) {
            assert!(g.max_abs_diff(c).unwrap() < 1e-4, "attention differs");
        }
    }
    assert_eq!(gpu_cache.len(), ids.len());
    // A prompt of 64 tokens or more: its products run the blocked kernel.
    let mut prompt = m.bpe.encode("Uma noite destas, vindo da cidade para o Engenho Novo, encontrei no trem da Central um rapaz aqui do bairro, que eu conheço de vista e de chapéu.");
    while prompt.len() < 80 {
        prompt.extend_from_within(..prompt.len().min(80 - prompt.len()));
    }
    let gpu_out = run(true, &prompt, &mut KvCache::new(&gpu, &m.weights.config).unwrap(), &mut cpu_cache);
    let cpu_out = run(false, &prompt, &mut gpu_cache, &mut KvCache::new(&Cpu, &m.weights.config).unwrap());
    let diff = gpu_out.logits.max_abs_diff(&cpu_out.logits).unwrap();
    assert!(diff < 1e-3, "a prompt of {} tokens: {diff}", prompt.len());
    let long = vec![1u32; m.weights.config.context];
    assert!(forward(&gpu, &weights, &long, &mut gpu_cache).is_err(), "past the context: refused");
    assert_eq!(gpu_cache.len(), ids.len(), "a refused pass leaves the cache as it was");
}

/// The logit lens on the shipped model: the same readings and head pushes on both backends,
/// in one submission on the GPU, and its last stage is the model's next-token distribution.
#[test]
fn logit_lens_on_both_backends() {
    let m = model();
    let prompt = "Capitu tinha os olhos de ressaca, e";
    let cpu = Session::start(&Cpu, on_cpu(&m), &m.bpe, prompt, 1).unwrap();
    let last = cpu.history().ids.len() - 1;
    let cpu_lens = block_on_ready(cpu.lens(&Cpu, last)).unwrap();
    let mut synced = Session::start(&Cpu, on_cpu(&m), &m.bpe, prompt, 1).unwrap();
    block_on_ready(synced.sync(&Cpu)).unwrap();
    let model_probs = synced.history().distribution(1.0);
    let final_stage = &cpu_lens.readings[m.weights.config.n_layers];
    let diff = model_probs.iter().zip(final_stage).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
    assert!(diff < 1e-5, "last stage vs the model's distribution: {diff}");
    let Some(gpu) = gpu() else { return };
    let on_gpu_session = Session::start(&gpu, on_gpu(&gpu, &m), &m.bpe, prompt, 1).unwrap();
    let before = gpu.submissions();
    let gpu_lens = pollster::block_on(on_gpu_session.lens(&gpu, last)).unwrap();
    assert_eq!(gpu.submissions() - before, 1, "the lens is one pass, one submission");
    for (stage, (g, c)) in gpu_lens.readings.iter().zip(&cpu_lens.readings).enumerate() {
        let diff = g.iter().zip(c).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        assert!(diff < 1e-4, "stage {stage}: {diff}");
    }
    let token = cpu_lens.top(m.weights.config.n_layers, 1)[0].0;
    let (g, c) = (gpu_lens.head_pushes(&m.weights, token).unwrap(), cpu_lens.head_pushes(&m.weights, token).unwrap());
    assert!(g.max_abs_diff(&c).unwrap() < 1e-3, "head pushes differ");
    // Where each prediction settles (issue 39): the whole window from one pass with taps, one
    // submission, the CPU's top-1 and settle stages where the top two are clear by 1e-3.
    let cpu_strip = block_on_ready(cpu.lens_window(&Cpu, last)).unwrap().strip;
    let before = gpu.submissions();
    let gpu_strip = pollster::block_on(on_gpu_session.lens_window(&gpu, last)).unwrap().strip;
    assert_eq!(gpu.submissions() - before, 1, "the strip is one pass, one submission");
    assert_eq!(gpu_strip.len(), cpu_strip.len());
    for (g, c) in gpu_strip.iter().zip(&cpu_strip) {
        for stage in 0..c.tops.len() {
            assert!((g.tops[stage][0].1 - c.tops[stage][0].1).abs() < 1e-4, "position {}, stage {stage}", c.position);
            if c.margin(stage) > 1e-3 {
                assert_eq!(g.tops[stage][0].0, c.tops[stage][0].0, "position {}, stage {stage}", c.position);
            }
        }
        if (0..c.tops.len()).all(|stage| c.margin(stage) > 1e-3) {
            assert_eq!(g.settle, c.settle, "position {}", c.position);
        }
    }
}

/// Issue 39: a branch, with the KV cache or without it, writes the same text on the CPU and
/// the GPU.
#[test]
fn a_branch_with_and_without_the_cache_on_both_backends() {
    let m = model();
    let expected = block_on_ready(branched(&Cpu, on_cpu(&m), &m, true));
    assert_eq!(block_on_ready(branched(&Cpu, on_cpu(&m), &m, false)), expected, "the CPU without the cache");
    let Some(gpu) = gpu() else { return };
    for cache in [true, false] {
        assert_eq!(pollster::block_on(branched(&gpu, on_gpu(&gpu, &m), &m, cache)), expected, "the GPU, cache {cache}");
    }
}

/// Twelve tokens from "Capitu", then another token at step 5 and six more after it.
async fn branched<E: Executor>(e: &E, weights: std::rc::Rc<DecoderWeights<E::Tensor>>, m: &Model, kv_cache: bool) -> Vec<u32> {
    let mut s = Session::start(e, weights, &m.bpe, "Capitu", 8).unwrap();
    s.set_kv_cache(kv_cache);
    for _ in 0..12 {
        s.step(e, &OPTS).await.unwrap();
    }
    let other = s.history().steps[5].alternatives.iter().map(|a| a.0).find(|&t| t != s.history().steps[5].token).unwrap();
    s.branch_and_generate(e, 5, other, &OPTS, 6).await.unwrap();
    s.history().ids.clone()
}

/// What the decoder page says about the lens, on the shipped weights: right after the
/// embedding (the output head reuses E) the reading points at the token just read, at most
/// positions of a Machado sentence; after the last block it no longer does.
#[test]
fn the_lens_after_the_embedding_names_the_token_just_read() {
    let m = model();
    let session = Session::start(&Cpu, on_cpu(&m), &m.bpe, "Uma noite destas, vindo da cidade para o Engenho Novo, encontrei no trem", 1).unwrap();
    let ids = session.history().ids.clone();
    let (mut itself_first, mut itself_last) = (0, 0);
    for (position, &id) in ids.iter().enumerate() {
        let lens = block_on_ready(session.lens(&Cpu, position)).unwrap();
        itself_first += usize::from(lens.top(0, 1)[0].0 == id);
        itself_last += usize::from(lens.top(lens.stages() - 1, 1)[0].0 == id);
    }
    eprintln!("{} positions: the token itself is the top reading after the embedding at {itself_first}, after the last block at {itself_last}", ids.len());
    assert!(itself_first * 10 >= ids.len() * 8, "after the embedding: {itself_first} of {}", ids.len());
    assert!(itself_last * 10 <= ids.len() * 2, "after the last block: {itself_last} of {}", ids.len());
}

/// Not a test: prints the top next tokens of candidate prompts, to choose presets whose claims
/// the shipped model really bears out (`cargo test --test decoder probe -- --ignored --nocapture`).
#[test]
#[ignore]
fn probe_presets() {
    let m = model();
    let prompts = std::env::var("PROBE").unwrap_or_default();
    for prompt in prompts.split('|').filter(|p| !p.is_empty()) {
        let mut s = Session::start(&Cpu, on_cpu(&m), &m.bpe, prompt, 1).unwrap();
        block_on_ready(s.sync(&Cpu)).unwrap();
        let probs = s.history().distribution(1.0);
        let top = atencao::core::decoder::sampling::top_n(&probs, 12);
        let shown: Vec<String> = top.iter().map(|(id, p)| format!("{:?} {:.3}", m.bpe.decode(&[*id]), p)).collect();
        println!("{prompt:?}\n    {}", shown.join(" | "));
        let words = std::env::var("WORDS").unwrap_or_default();
        let pairs: Vec<String> = words
            .split('|')
            .filter(|w| !w.is_empty())
            .map(|w| {
                let ids = m.bpe.encode(w);
                format!("{w:?}→{:?} {:.4}", ids.iter().map(|&i| m.bpe.decode(&[i])).collect::<Vec<_>>(), probs[ids[0] as usize])
            })
            .collect();
        if !pairs.is_empty() {
            println!("    {}", pairs.join(" | "));
        }
    }
}

/// Every preset's claim, on the shipped weights (the label in the menu states it): a preset
/// that promises the model prefers a word must show the model preferring it.
#[test]
fn preset_claims_hold_on_the_shipped_model() {
    use atencao::core::decoder::presets::{check, Claim, PRESETS};
    let m = model();
    let mut failures = Vec::new();
    for preset in PRESETS {
        let mut s = Session::start(&Cpu, on_cpu(&m), &m.bpe, preset.prompt, 1).unwrap();
        block_on_ready(s.sync(&Cpu)).unwrap();
        let (holds, evidence) = check(&m, s.history(), preset.claim);
        eprintln!("{} ({:?}): {evidence}", preset.id, preset.claim);
        if !holds {
            failures.push(format!("{}: {:?} does not hold: {evidence}", preset.id, preset.claim));
        }
        if let Claim::Prefers { likely, .. } = preset.claim {
            assert!(preset.label.contains(likely.trim()), "{}: the label names the word it promises", preset.id);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
