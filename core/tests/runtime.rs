//! The one fallback policy, natively: a device (`fault::Faulty` over the CPU executor, a
//! deferred "WebGPU") is lost at read k, for several k, under generation and training on a
//! `Runtime`; the work goes on on the CPU from its last host copy and ends exactly where a
//! CPU-only run with the same seed ends: the same tokens, the same losses, samples and weights.

use std::cell::Cell;
use std::rc::Rc;

use atencao_core::bpe::Bpe;
use atencao_core::decoder::{DecoderConfig, DecoderWeights, SamplingOptions, Session};
use atencao_core::executor::{block_on_ready, BackendKind, Cpu};
use atencao_core::fault::Faulty;
use atencao_core::rng::Rng;
use atencao_core::runtime::{Placed, Runtime};
use atencao_core::train_run::{prepare_text, StepReport, TrainRun, TrainSettings};
use atencao_core::Matrix;

const PROMPT: &str = "a casa";
const SEED: u64 = 42;
/// Long enough for the window (32 tokens in the tiny config) to slide once.
const TOKENS: usize = 40;

fn model() -> (Rc<DecoderWeights>, Bpe) {
    (Rc::new(DecoderWeights::random(&DecoderConfig::tiny(), 11)), Bpe::from_merges(Vec::new()).unwrap())
}

fn sampling() -> SamplingOptions {
    SamplingOptions { temperature: 0.9, top_k: 0, top_p: 1.0 }
}

/// The window a CPU-only session ends with, and the tokens it sampled.
fn cpu_only(weights: &Rc<DecoderWeights>, bpe: &Bpe) -> (Vec<u32>, Vec<u32>) {
    let mut s = Session::start(&Cpu, weights.clone(), bpe, PROMPT, SEED).unwrap();
    let tokens = (0..TOKENS).map(|_| block_on_ready(s.step(&Cpu, &sampling())).unwrap()).collect();
    (s.history().ids.clone(), tokens)
}

/// A session on `rt` with the host copy of the weights kept.
fn session_on(rt: &Runtime<Faulty<Cpu>>, weights: &Rc<DecoderWeights>, bpe: &Bpe) -> Session<Placed<Matrix>> {
    let on_rt = Rc::new(weights.upload(rt).unwrap());
    Session::start(rt, on_rt, bpe, PROMPT, SEED).unwrap().keep_host_copy(weights.clone())
}

#[test]
fn generation_that_loses_its_device_at_any_read_writes_the_cpu_text() {
    let (weights, bpe) = model();
    let (expected, tokens) = cpu_only(&weights, &bpe);
    let never = Faulty::new(&Cpu, usize::MAX);
    let mut s = session_on(&Runtime::Device(&never), &weights, &bpe);
    let done = block_on_ready(s.generate(&Runtime::Device(&never), TOKENS, &sampling(), None, |_, _| true)).unwrap();
    assert_eq!((done.made, done.fallback.is_none(), s.history().ids.clone()), (TOKENS, true, expected.clone()));
    // One read per token, and one for the prompt (a slide of the window recomputes in the same read).
    let reads = never.reads();
    assert_eq!(reads, TOKENS + 1);
    for k in [1, 2, 3, 10, 27, reads] {
        let device = Faulty::new(&Cpu, k);
        let rt = Runtime::Device(&device);
        let mut s = session_on(&rt, &weights, &bpe);
        let mut seen = Vec::new();
        let done = block_on_ready(s.generate(&rt, TOKENS, &sampling(), None, |token, _| {
            seen.push(token);
            true
        }))
        .unwrap();
        let fallback = done.fallback.unwrap_or_else(|| panic!("k = {k}: no fallback"));
        assert_eq!(s.history().ids, expected, "k = {k}: the CPU-only text");
        assert_eq!(seen, tokens, "k = {k}: each token reported once");
        assert_eq!((s.on(), done.made), (BackendKind::Cpu, TOKENS));
        // The first read is the prompt's (no token yet); read k ≥ 2 is the pass of a token
        // already sampled, which is kept: the window then held the prompt and k − 1 tokens.
        if k < 27 {
            assert_eq!(fallback.at, PROMPT.len() + k - 1, "k = {k}");
        }
        assert_eq!(fallback.resumed_from, fallback.at);
    }
}

#[test]
fn generation_stops_when_asked_and_goes_on_from_there() {
    let (weights, bpe) = model();
    let (expected, _) = cpu_only(&weights, &bpe);
    let device = Faulty::new(&Cpu, 5);
    let rt = Runtime::Device(&device);
    let mut s = session_on(&rt, &weights, &bpe);
    let first = block_on_ready(s.generate(&rt, TOKENS, &sampling(), None, |_, made| made < 3)).unwrap();
    assert_eq!((first.made, first.fallback.is_none(), s.on()), (3, true, BackendKind::WebGpu));
    // The rest, traced at the last token: the device is lost at the next read but one.
    let clock = || 0.0;
    let rest = block_on_ready(s.generate(&rt, TOKENS - 3, &sampling(), Some(&clock), |_, _| true)).unwrap();
    assert_eq!(rest.made, TOKENS - 3);
    assert!(rest.fallback.is_some() && rest.trace.as_ref().is_some_and(|t| t.backend == BackendKind::Cpu && !t.ops.is_empty()));
    assert_eq!(s.history().ids, expected);
}

#[test]
fn the_lens_falls_back_too_and_reads_the_same() {
    let (weights, bpe) = model();
    let mut on_cpu = Session::start(&Cpu, weights.clone(), &bpe, PROMPT, SEED).unwrap();
    block_on_ready(on_cpu.sync(&Cpu)).unwrap();
    let expected = block_on_ready(on_cpu.lens(&Cpu, 3)).unwrap();
    let device = Faulty::new(&Cpu, 2);
    let rt = Runtime::Device(&device);
    let mut s = session_on(&rt, &weights, &bpe);
    block_on_ready(s.advance(&rt, None, None)).unwrap();
    let (reading, done) = block_on_ready(s.lens_on(&rt, 3, None)).unwrap();
    assert!(done.fallback.is_some());
    assert_eq!(reading.readings, expected.readings);
    assert_eq!(s.on(), BackendKind::Cpu);
    // Without a host copy there is nothing to go on from: the device's error comes back.
    let device = Faulty::new(&Cpu, 1);
    let rt = Runtime::Device(&device);
    let mut bare = Session::start(&rt, Rc::new(weights.upload(&rt).unwrap()), &bpe, PROMPT, SEED).unwrap();
    assert!(block_on_ready(bare.advance(&rt, None, None)).unwrap_err().is_gpu_failure());
}

/// A small text with structure (as the run's own tests use).
/// A branch (issue 39) on a runtime that loses its device: the text of the same branch made on
/// the CPU alone; and the settle strip falls back like the lens.
#[test]
fn a_branch_and_the_strip_fall_back_too() {
    let (weights, bpe) = model();
    let mut on_cpu = Session::start(&Cpu, weights.clone(), &bpe, PROMPT, SEED).unwrap();
    for _ in 0..10 {
        block_on_ready(on_cpu.step(&Cpu, &sampling())).unwrap();
    }
    block_on_ready(on_cpu.branch_and_generate(&Cpu, 3, 7, &sampling(), 6)).unwrap();
    let expected = on_cpu.history();
    for k in [1, 4, 11, 13, 16, usize::MAX] {
        let device = Faulty::new(&Cpu, k);
        let rt = Runtime::Device(&device);
        let mut s = session_on(&rt, &weights, &bpe);
        block_on_ready(s.generate(&rt, 10, &sampling(), None, |_, _| true)).unwrap();
        s.branch(3, 7).unwrap();
        block_on_ready(s.generate(&rt, 7, &sampling(), None, |_, _| true)).unwrap();
        assert_eq!(s.history().ids, expected.ids, "k = {k}");
        let tokens = |h: &atencao_core::decoder::History| h.steps.iter().map(|st| (st.token, st.chosen)).collect::<Vec<_>>();
        assert_eq!(tokens(s.history()), tokens(expected), "k = {k}");
        assert!((s.history().log_probability() - expected.log_probability()).abs() < 1e-4, "k = {k}");
    }
    let strip = block_on_ready(on_cpu.lens_window(&Cpu, 5)).unwrap();
    let device = Faulty::new(&Cpu, 2);
    let rt = Runtime::Device(&device);
    let mut s = session_on(&rt, &weights, &bpe);
    block_on_ready(s.generate(&rt, 10, &sampling(), None, |_, _| true)).unwrap();
    s.branch(3, 7).unwrap();
    block_on_ready(s.generate(&rt, 7, &sampling(), None, |_, _| true)).unwrap();
    let (reading, _) = block_on_ready(s.lens_window_on(&rt, 5, None)).unwrap();
    assert_eq!(s.on(), BackendKind::Cpu);
    assert_eq!(reading.strip.len(), strip.strip.len());
    for (a, b) in reading.strip.iter().zip(&strip.strip) {
        assert_eq!((a.position, a.settle, a.top1()), (b.position, b.settle, b.top1()));
    }
    let device = Faulty::new(&Cpu, 1);
    let rt = Runtime::Device(&device);
    let mut s = session_on(&rt, &weights, &bpe);
    let (reading, done) = block_on_ready(s.lens_window_on(&rt, 2, None)).unwrap();
    assert!(done.fallback.is_some());
    assert_eq!(reading.strip.len(), PROMPT.len());
}

fn text() -> atencao_core::train_run::PreparedText {
    let words = ["a casa", "o gato", "a missa", "do galo", "era noite", "de natal", "o livro", "a sala"];
    let mut rng = Rng::new(5);
    let raw = (0..700).map(|_| words[rng.below(words.len() as u64) as usize]).collect::<Vec<_>>().join(" ");
    prepare_text(&raw, false, 10).unwrap()
}

fn settings() -> TrainSettings {
    TrainSettings { d_model: 16, n_heads: 2, context: 16, batch: 4, eval_every: 5, sample_every: 10, sample_chars: 12, ..TrainSettings::tiny() }
}

/// A multiple of the evaluations' period: the host copy is then the last step's.
const STEPS: usize = 25;

/// One step per call (a budget of 0 ms), until `STEPS`; the fallbacks seen.
fn train_on(run: &mut TrainRun<Placed<Matrix>>, rt: &Runtime<Faulty<Cpu>>) -> Vec<atencao_core::runtime::Fallback> {
    let clock = || 0.0;
    let mut fallbacks = Vec::new();
    while run.steps_taken() < STEPS {
        // As the widget does: after a failure, the CPU.
        let now = if fallbacks.is_empty() { *rt } else { Runtime::Cpu };
        block_on_ready(run.place(&now)).unwrap();
        fallbacks.extend(block_on_ready(run.steps_for(&now, 0.0, &clock, |_, _| {})).unwrap());
    }
    fallbacks
}

#[test]
fn training_that_loses_its_device_at_any_read_is_the_cpu_run() {
    let text = text();
    let mut expected = TrainRun::<Matrix>::new(&Cpu, &text, None, settings()).unwrap();
    for _ in 0..STEPS {
        expected.step().unwrap();
    }
    let never = Faulty::new(&Cpu, usize::MAX);
    let mut run = TrainRun::new(&Runtime::Device(&never), &text, None, settings()).unwrap();
    assert!(train_on(&mut run, &Runtime::Device(&never)).is_empty());
    assert!(run.safetensors() == expected.safetensors());
    assert_eq!((&run.history, &run.samples), (&expected.history, &expected.samples));
    // A step is one read; an evaluation or a sample adds the host copy's.
    let reads = never.reads();
    assert_eq!(reads, STEPS + STEPS / 5);
    for k in [1, 2, 5, 6, 7, 12, 19, 26, reads] {
        let device = Faulty::new(&Cpu, k);
        let rt = Runtime::Device(&device);
        let mut run = TrainRun::new(&rt, &text, None, settings()).unwrap();
        let fallbacks = train_on(&mut run, &rt);
        assert_eq!(fallbacks.len(), 1, "k = {k}");
        let f = &fallbacks[0];
        assert!(f.resumed_from <= f.at && f.resumed_from % 5 == 0 && f.at - f.resumed_from <= 5, "k = {k}: {f:?}");
        assert_eq!((run.on(), run.steps_taken()), (BackendKind::Cpu, STEPS));
        assert!(run.safetensors() == expected.safetensors(), "k = {k}: the same weights, bit for bit");
        assert_eq!(run.history, expected.history, "k = {k}");
        assert_eq!(run.samples, expected.samples, "k = {k}");
    }
}

#[test]
fn training_by_budget_steps_until_the_clock_says_so() {
    let text = text();
    let now = Cell::new(0.0);
    let clock = || now.get();
    let mut run = TrainRun::new(&Runtime::<Faulty<Cpu>>::Cpu, &text, None, settings()).unwrap();
    let mut reports: Vec<StepReport> = Vec::new();
    // Each step "takes" 5 ms: a 12-ms budget holds three steps (5, 10, 15 ≥ 12).
    let step_ms = |report: &StepReport, _ms: f64| {
        now.set(now.get() + 5.0);
        reports.push(report.clone());
    };
    let fallback = block_on_ready(run.steps_for(&Runtime::<Faulty<Cpu>>::Cpu, 12.0, &clock, step_ms)).unwrap();
    assert!(fallback.is_none());
    assert_eq!(reports.iter().map(|r| r.step).collect::<Vec<_>>(), vec![1, 2, 3]);
    // A budget already spent still takes one step.
    block_on_ready(run.steps_for(&Runtime::<Faulty<Cpu>>::Cpu, 0.0, &clock, |_, _| {})).unwrap();
    assert_eq!(run.steps_taken(), 4);
    // The host copy is the last evaluation's until it is refreshed (before a download).
    assert_eq!(run.host_step(), 0);
    block_on_ready(run.refresh_host(&Runtime::<Faulty<Cpu>>::Cpu)).unwrap();
    assert_eq!(run.host_step(), 4);
    // Moving to a device and back keeps the run: the same as straight on the CPU.
    let device = Faulty::new(&Cpu, usize::MAX);
    block_on_ready(run.place(&Runtime::Device(&device))).unwrap();
    assert_eq!(run.on(), BackendKind::WebGpu);
    block_on_ready(run.steps_for(&Runtime::Device(&device), 0.0, &clock, |_, _| {})).unwrap();
    block_on_ready(run.steps_for(&Runtime::Device(&device), 0.0, &clock, |_, _| {})).unwrap();
    block_on_ready(run.place(&Runtime::<Faulty<Cpu>>::Cpu)).unwrap();
    // The host copy was at step 5 (an evaluation): step 6 is redone on the CPU, on its batch.
    assert_eq!((run.on(), run.steps_taken()), (BackendKind::Cpu, 5));
    let mut straight = TrainRun::<Matrix>::new(&Cpu, &text, None, settings()).unwrap();
    for _ in 0..7 {
        straight.step().unwrap();
    }
    block_on_ready(run.steps_for(&Runtime::<Faulty<Cpu>>::Cpu, 0.0, &clock, |_, _| {})).unwrap();
    block_on_ready(run.steps_for(&Runtime::<Faulty<Cpu>>::Cpu, 0.0, &clock, |_, _| {})).unwrap();
    block_on_ready(run.refresh_host(&Runtime::<Faulty<Cpu>>::Cpu)).unwrap();
    assert_eq!(run.host_step(), 7);
    assert!(run.safetensors() == straight.safetensors());
    assert_eq!(run.history, straight.history);
}

/// A job (a widget's update) on a device lost at its read: run again on the CPU, the same
/// numbers, and the fallback reported.
#[test]
fn a_job_on_a_lost_device_runs_again_on_the_cpu() {
    use atencao_core::executor::MatmulJob;
    use atencao_core::runtime::run_job;
    let job = MatmulJob { a: Matrix::from_rows(&[[1.0, 2.0], [3.0, 4.0]]).unwrap(), b: Matrix::from_rows(&[[0.5], [-1.0]]).unwrap() };
    let clock = || 0.0;
    let failures = Cell::new(0);
    let fell_back = |e: &atencao_core::ComputeError| {
        assert!(e.is_gpu_failure());
        failures.set(failures.get() + 1);
    };
    let never = Faulty::new(&Cpu, usize::MAX);
    let (on_device, trace) = block_on_ready(run_job(&job, &Runtime::Device(&never), &clock, &fell_back)).unwrap();
    assert!(failures.get() == 0 && trace.backend == BackendKind::WebGpu);
    let lost = Faulty::new(&Cpu, 1);
    let (again, trace) = block_on_ready(run_job(&job, &Runtime::Device(&lost), &clock, &fell_back)).unwrap();
    assert_eq!((again.to_rows(), on_device.to_rows()), (vec![vec![-1.5], vec![-2.5]], vec![vec![-1.5], vec![-2.5]]));
    assert!(failures.get() == 1 && trace.backend == BackendKind::Cpu && trace.ops.len() == 1);
}

/// A device lost with the budget already spent: the failed step is still taken again on the
/// CPU, from the last host copy (the wasm test on WebGPU relies on it). And the race's catching
/// up (`steps_to`): none when already there, else exactly up to the target, on its own batches.
#[test]
fn a_fallback_takes_its_step_again_and_steps_to_stops_at_its_target() {
    let text = text();
    let clock = || 0.0;
    let mut run = TrainRun::new(&Runtime::<Faulty<Cpu>>::Cpu, &text, None, settings()).unwrap();
    let device = Faulty::new(&Cpu, 3);
    block_on_ready(run.place(&Runtime::Device(&device))).unwrap();
    let mut fallbacks = Vec::new();
    while fallbacks.is_empty() {
        fallbacks.extend(block_on_ready(run.steps_for(&Runtime::Device(&device), 0.0, &clock, |_, _| {})).unwrap());
    }
    let fallback = &fallbacks[0];
    assert_eq!(run.on(), BackendKind::Cpu);
    assert_eq!(run.steps_taken(), fallback.resumed_from + 1, "{fallback:?}");
    let before = run.steps_taken();
    block_on_ready(run.steps_to(&Runtime::<Faulty<Cpu>>::Cpu, before, &clock, |_, _| {})).unwrap();
    assert_eq!(run.steps_taken(), before, "already there: no step");
    block_on_ready(run.steps_to(&Runtime::<Faulty<Cpu>>::Cpu, before + 3, &clock, |_, _| {})).unwrap();
    assert_eq!(run.steps_taken(), before + 3);
    let mut straight = TrainRun::<Matrix>::new(&Cpu, &text, None, settings()).unwrap();
    for _ in 0..before + 3 {
        straight.step().unwrap();
    }
    block_on_ready(run.refresh_host(&Runtime::<Faulty<Cpu>>::Cpu)).unwrap();
    assert!(run.safetensors() == straight.safetensors(), "the same run as straight on the CPU");
}
