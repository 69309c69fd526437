//! Browser tests (wasm-bindgen-test in headless Chromium), run twice by scripts/test.sh:
//! with WebGPU (SwiftShader) and with `--disable-gpu` (no adapter, CPU fallback).
//! `ATENCAO_EXPECT_BACKEND` (read at compile time) says which of the two this run is.
#![cfg(target_arch = "wasm32")]

use atencao::core::attention::{attention_trace, AttentionInputs, AttentionTrace};
use atencao::core::examples::textbook_example_2;
use atencao::core::executor::BackendKind;
use atencao::core::rng::Rng;
use atencao::core::{Cpu, Matrix};
use atencao::gpu::{parity, GpuContext};
use atencao::web::backend::{now_ms, Backend, Preference, SOFTWARE_NOTE};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const EXPECTED_BACKEND: Option<&str> = option_env!("ATENCAO_EXPECT_BACKEND");

/// Row 2 of Example 2, corrected: weights and output (spec 4-transformer.md).
fn assert_golden(trace: &AttentionTrace, on: &str) {
    let want_w = [0.3035, 0.2340, 0.4625];
    let want_o = [0.2228, 0.5154, 0.8079];
    for (got, want) in trace.weights.row(1).iter().zip(want_w).chain(trace.output.row(1).iter().zip(want_o)) {
        assert!((got - want).abs() < 1e-4, "{on}: {got} vs {want}");
    }
    let s = Matrix::from_rows(&[[0.2656, 0.1617, 0.4272], [0.6813, 0.4215, 1.1027], [0.9469, 0.5831, 1.5300]]).unwrap();
    assert!(trace.scores.max_abs_diff(&s).unwrap() < 1e-4, "{on}: scores {:?}", trace.scores.to_rows());
}

/// Every widget kind is declared once (`site::widgets`) and registered once, with its mount
/// function: no documented kind without code, no name twice.
#[wasm_bindgen_test]
fn every_documented_widget_kind_is_registered_once() {
    use atencao::site::widgets::{ATTENTION_WIDGETS, MODEL_WIDGETS, MODERN_WIDGETS, RESIDENT_WIDGETS, SHARED_WIDGETS, WIDGETS};
    use atencao::web::widgets::{find, registry, ATTENTION, MODELS, MODERN, RESIDENT, SHARED};
    assert_eq!(registry().count(), WIDGETS.len(), "registered kinds vs documented kinds");
    for doc in WIDGETS {
        assert_eq!(registry().filter(|k| k.name() == doc.name).count(), 1, "«{}» registered once", doc.name);
        assert_eq!(find(doc.name).map(|k| k.title()), Some(doc.title));
    }
    // The model widgets' build (feature `models`) holds exactly the kinds the page generator
    // sends to it (`module_for`), so no page loads a build without one of its widgets.
    let built: Vec<&str> = MODELS.iter().map(|k| k.name()).collect();
    let listed: Vec<&str> = MODEL_WIDGETS.iter().map(|d| d.name).collect();
    assert_eq!(built, listed, "the models build's kinds vs site::widgets::MODEL_WIDGETS");
    let built: Vec<&str> = RESIDENT.iter().map(|k| k.name()).collect();
    let listed: Vec<&str> = RESIDENT_WIDGETS.iter().map(|d| d.name).collect();
    assert_eq!(built, listed, "the resident build's kinds vs site::widgets::RESIDENT_WIDGETS");
    let built: Vec<&str> = MODERN.iter().map(|k| k.name()).collect();
    let listed: Vec<&str> = MODERN_WIDGETS.iter().map(|d| d.name).collect();
    assert_eq!(built, listed, "the modern build's kinds vs site::widgets::MODERN_WIDGETS");
    let built: Vec<&str> = ATTENTION.iter().map(|k| k.name()).collect();
    let listed: Vec<&str> = ATTENTION_WIDGETS.iter().map(|d| d.name).collect();
    assert_eq!(built, listed, "the attention articles' build's kinds vs site::widgets::ATTENTION_WIDGETS");
    let built: Vec<&str> = SHARED.iter().map(|k| k.name()).collect();
    let listed: Vec<&str> = SHARED_WIDGETS.iter().map(|d| d.name).collect();
    assert_eq!(built, listed, "the kinds of both builds vs site::widgets::SHARED_WIDGETS");
}

/// The simd128 loops of `core::lanes` (what the site's wasm runs) give their plain twin's bits.
#[wasm_bindgen_test]
fn simd_lanes_equal_their_plain_twin() {
    use atencao::core::lanes::{axpy, dot, plain};
    let mut rng = Rng::new(js_sys::Date::now() as u64);
    for n in [0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 32, 192, 769] {
        let x: Vec<f32> = (0..n).map(|_| rng.next_f32() * 20.0 - 10.0).collect();
        let y: Vec<f32> = (0..n).map(|_| rng.next_f32() * 20.0 - 10.0).collect();
        assert_eq!(dot(&x, &y).to_bits(), plain::dot(&x, &y).to_bits(), "dot, n = {n}");
        let (mut simd, mut twin) = (y.clone(), y.clone());
        axpy(&mut simd, 0.37, &x);
        plain::axpy(&mut twin, 0.37, &x);
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&simd), bits(&twin), "axpy, n = {n}");
    }
    // The products' blocks (`lanes::matmul`, 4 × 8 sums in registers) and `axpy_rows` (the
    // next token's products and the attention's weighted sum), on ragged shapes.
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    let mut values = |n: usize| (0..n).map(|_| rng.next_f32() * 20.0 - 10.0).collect::<Vec<f32>>();
    for (m, k, n) in [(1, 1, 1), (4, 3, 8), (5, 7, 9), (7, 16, 33), (9, 32, 40), (64, 192, 192), (3, 0, 4), (8, 9, 0)] {
        let (a, b) = (values(m * k), values(k * n));
        assert_eq!(bits(&atencao::core::lanes::matmul(&a, &b, m, k, n)), bits(&plain::matmul(&a, &b, m, k, n)), "matmul {m}×{k}·{k}×{n}");
    }
    for (rows, n, stride) in [(0, 5, 5), (1, 3, 3), (5, 32, 40), (7, 37, 64), (127, 32, 192)] {
        let (scales, data, start) = (values(rows), values(rows * stride + n), values(n));
        let (mut simd, mut twin) = (start.clone(), start);
        atencao::core::lanes::axpy_rows(&mut simd, &scales, &data, stride);
        plain::axpy_rows(&mut twin, &scales, &data, stride);
        assert_eq!(bits(&simd), bits(&twin), "axpy_rows {rows} rows × {n}, stride {stride}");
    }
}

#[wasm_bindgen_test]
async fn the_expected_backend_is_found() {
    let gpu = GpuContext::acquire().await;
    match EXPECTED_BACKEND {
        Some("webgpu") => assert!(gpu.is_ok(), "expected WebGPU: {:?}", gpu.err()),
        Some("cpu") => assert!(gpu.is_err(), "expected no adapter with --disable-gpu"),
        _ => {}
    }
}

#[wasm_bindgen_test]
async fn golden_attention_on_every_available_backend() {
    let inputs = textbook_example_2();
    let on_cpu = attention_trace(&Cpu, &inputs).await.unwrap();
    assert_golden(&on_cpu, "CPU");
    if let Ok(gpu) = GpuContext::acquire().await {
        let on_gpu = attention_trace(&gpu, &inputs).await.unwrap();
        assert_golden(&on_gpu, "WebGPU");
        assert!(on_gpu.output.max_abs_diff(&on_cpu.output).unwrap() < 1e-5);
        let causal = AttentionInputs { causal: true, ..inputs };
        let (g, c) = (attention_trace(&gpu, &causal).await.unwrap(), attention_trace(&Cpu, &causal).await.unwrap());
        assert!(g.weights.max_abs_diff(&c.weights).unwrap() < 1e-5);
    }
}

#[wasm_bindgen_test]
async fn every_kernel_matches_its_cpu_twin_in_the_browser() {
    let Ok(gpu) = GpuContext::acquire().await else { return };
    let seed = js_sys::Date::now() as u64;
    console_log!("parity seed {seed}");
    let mut rng = Rng::new(seed);
    if let Err(failures) = parity::run_suite(&gpu, &mut rng, false).await {
        panic!("seed {seed}: {} kernel checks failed:\n{}", failures.len(), failures.join("\n"));
    }
}

#[wasm_bindgen_test]
async fn a_lost_device_falls_back_to_the_cpu_with_the_same_numbers() {
    // The site's footer badge (as in index.html): the backend keeps it and <html data-backend>
    // in step with the device it computes on.
    let document = web_sys::window().and_then(|w| w.document()).unwrap();
    let badge = document.create_element("span").unwrap();
    badge.set_id("backend-badge");
    document.body().unwrap().append_child(&badge).unwrap();
    let shows = |kind: BackendKind| {
        let root = document.document_element().unwrap();
        badge.text_content().as_deref() == Some(kind.label())
            && badge.get_attribute("data-kind").as_deref() == Some(kind.attr())
            && root.get_attribute("data-backend").as_deref() == Some(kind.attr())
    };
    let backend = Backend::init_choosing(Preference::WebGpu).await;
    let Some(gpu) = backend.gpu() else {
        assert_eq!(backend.kind(), BackendKind::Cpu);
        assert!(shows(BackendKind::Cpu), "the badge should say CPU: {:?}", badge.text_content());
        let (trace, kind) = backend.run(&textbook_example_2()).await.unwrap();
        assert_eq!(kind, BackendKind::Cpu);
        badge.remove();
        return assert_golden(&trace, "CPU fallback");
    };
    assert_eq!(backend.kind(), BackendKind::WebGpu);
    assert!(shows(BackendKind::WebGpu), "the badge should say WebGPU: {:?}", badge.text_content());
    // Mid-computation: the job starts on the device and waits for its first result; the device
    // is destroyed then, and the whole job reruns on the CPU.
    let result = std::rc::Rc::new(std::cell::RefCell::new(None));
    {
        let (backend, result) = (backend.clone(), result.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let out = backend.run(&textbook_example_2()).await;
            *result.borrow_mut() = Some(out);
        });
    }
    // One turn of the microtask queue: the spawned job runs up to its first GPU readback.
    wasm_bindgen_futures::JsFuture::from(js_sys::Promise::resolve(&wasm_bindgen::JsValue::NULL)).await.unwrap();
    assert!(result.borrow().is_none(), "the job finished before the device could be lost");
    gpu.destroy();
    while result.borrow().is_none() {
        let tick = js_sys::Promise::new(&mut |resolve, _| {
            web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 10).unwrap();
        });
        wasm_bindgen_futures::JsFuture::from(tick).await.unwrap();
    }
    let (trace, kind) = result.borrow_mut().take().unwrap().unwrap();
    assert_eq!(kind, BackendKind::Cpu, "the job should have been rerun on the CPU");
    assert_eq!(backend.kind(), BackendKind::Cpu, "the backend should have switched to the CPU");
    assert!(shows(BackendKind::Cpu), "the badge should say CPU after the loss: {:?}", badge.text_content());
    assert!(badge.get_attribute("title").unwrap_or_default().contains("a GPU foi perdida"), "the badge should say why");
    assert_golden(&trace, "after device loss");
    badge.remove();
}

/// The automatic choice leaves a software adapter aside, and the footer says why; choosing
/// WebGPU uses it all the same. With no adapter at all, the CPU and the reason.
/// The train widget's run on the browser's WebGPU (through the site's runtime): the same
/// losses as the CPU run from the same seed, one submission per step; then the device is
/// destroyed, and core's fallback goes on on the CPU from the last host copy.
#[wasm_bindgen_test]
async fn training_on_webgpu_matches_the_cpu_and_survives_a_lost_device() {
    use atencao::core::train_run::{prepare_text, TrainRun, TrainSettings};
    use atencao::web::backend::runtime;
    let Ok(gpu) = GpuContext::acquire().await else {
        assert_ne!(EXPECTED_BACKEND, Some("webgpu"), "expected WebGPU");
        return;
    };
    let gpu = std::rc::Rc::new(gpu);
    let words = ["a casa", "o gato", "a missa", "do galo", "era noite"];
    let mut rng = Rng::new(5);
    let raw = (0..300).map(|_| words[rng.below(words.len() as u64) as usize]).collect::<Vec<_>>().join(" ");
    // Small enough for SwiftShader: 1 block of width 16, windows of 16.
    let settings = TrainSettings { n_layers: 1, d_model: 16, n_heads: 2, context: 16, batch: 4, eval_every: 4, sample_every: 8, sample_chars: 8, ..TrainSettings::tiny() };
    let text = prepare_text(&raw, false, settings.min_chars()).unwrap();
    let mut on_cpu = TrainRun::<Matrix>::new(&Cpu, &text, None, settings.clone()).unwrap();
    let rt = runtime(Some(&gpu));
    let mut on_gpu = TrainRun::new(&runtime(None), &text, None, settings).unwrap();
    on_gpu.place(&rt).await.unwrap();
    for _ in 0..10 {
        let want = on_cpu.step_on(&Cpu).await.unwrap();
        let got = on_gpu.step_on(&rt).await.unwrap();
        assert_eq!(got.step, want.step);
        assert!((got.loss - want.loss).abs() < 1e-3, "step {}: GPU {} vs CPU {}", got.step, got.loss, want.loss);
    }
    let (a, b) = (on_gpu.history.last().unwrap().validation, on_cpu.history.last().unwrap().validation);
    assert!((a - b).abs() < 1e-3, "validation: GPU {a} vs CPU {b}");
    // Step 10: the last host copy is step 8's (an evaluation and a sample).
    gpu.destroy();
    let fallback = on_gpu.steps_for(&rt, 0.0, &now_ms, |_, _| {}).await.unwrap().expect("a fallback");
    assert!(fallback.error.is_gpu_failure(), "{:?}", fallback.error);
    // Steps 9 and 10 (and the failed 11th) are redone on the CPU, from step 8.
    assert_eq!((fallback.resumed_from, on_gpu.on()), (8, BackendKind::Cpu));
    assert!(fallback.at >= 10, "{fallback:?}");
    assert_eq!(on_gpu.steps_taken(), 9);
}

#[wasm_bindgen_test]
async fn a_software_adapter_is_not_chosen_automatically() {
    let document = web_sys::window().and_then(|w| w.document()).unwrap();
    let note = document.create_element("span").unwrap();
    note.set_id("backend-note");
    document.body().unwrap().append_child(&note).unwrap();
    let auto = Backend::init_choosing(Preference::Auto).await;
    match GpuContext::acquire().await {
        Ok(gpu) if gpu.facts().software => {
            assert_eq!(auto.kind(), BackendKind::Cpu, "{} is software", gpu.adapter_name());
            let shown = note.text_content().unwrap_or_default();
            assert!(shown.starts_with(SOFTWARE_NOTE), "the footer says why: {shown:?}");
            let chosen = Backend::init_choosing(Preference::WebGpu).await;
            assert_eq!(chosen.kind(), BackendKind::WebGpu, "a reader who chooses WebGPU gets it");
        }
        Ok(gpu) => assert_eq!(auto.kind(), BackendKind::WebGpu, "{} is hardware", gpu.adapter_name()),
        Err(_) => {
            assert_eq!(auto.kind(), BackendKind::Cpu);
            assert!(auto.note().contains("WebGPU indisponível"), "{}", auto.note());
        }
    }
    if EXPECTED_BACKEND == Some("webgpu") {
        // Headless Chromium's WebGPU is SwiftShader: the site must see it as software.
        let gpu = GpuContext::acquire().await.unwrap();
        assert!(gpu.facts().software, "SwiftShader not recognised: {}", gpu.adapter_name());
    }
    note.remove();
}

mod decoder {
    use super::*;
    use atencao::core::decoder::fixture;
    use atencao::core::decoder::load::Model;
    use atencao::core::decoder::manifest::Manifest;
    use atencao::core::decoder::model::DecoderPass;
    use atencao::core::decoder::sampling::SamplingOptions;
    use atencao::core::decoder::session::Session;
    use atencao::core::executor::Job;

    const CONFIG: &str = include_str!("../static/model/config.json");
    const TOKENIZER: &[u8] = include_bytes!("../static/model/tokenizer.json");
    const WEIGHTS: &[u8] = include_bytes!("../static/model/model.safetensors");
    const FIXTURE: &str = include_str!("fixtures/decoder_fixture.json");

    fn model() -> Model {
        Model::load(Manifest::from_json(CONFIG).unwrap(), TOKENIZER, WEIGHTS).unwrap()
    }

    fn assert_passed(on: &str, results: Vec<fixture::CaseResult>) {
        for r in &results {
            console_log!("{on}: {:?} max |Δ| = {:e}", r.prompt, r.max_abs_diff);
            assert!(r.passed(), "{on}: {r:?}");
        }
    }

    /// The shipped model's logits equal candle's fixture within 1e-3, on the CPU (wasm) and,
    /// when the browser has one, on WebGPU (weights and cache resident, one submission a pass).
    #[wasm_bindgen_test]
    async fn decoder_logits_equal_candle_on_every_available_backend() {
        let m = model();
        let cases = fixture::parse(FIXTURE).unwrap();
        assert_passed("CPU", fixture::check(&Cpu, &m.weights, &m.bpe, &cases).await.unwrap());
        if let Ok(gpu) = GpuContext::acquire().await {
            assert_passed("WebGPU", fixture::check(&gpu, &m.weights, &m.bpe, &cases).await.unwrap());
        }
    }

    /// A session one token at a time through its cache predicts what a full pass over the
    /// same window predicts, on each backend; with a fixed seed both backends write the same text.
    #[wasm_bindgen_test]
    async fn a_session_matches_a_full_pass_and_the_other_backend() {
        let m = model();
        let opts = SamplingOptions { temperature: 0.9, top_k: 40, top_p: 0.95 };
        let cpu_weights = std::rc::Rc::new(m.weights.clone());
        let mut on_cpu = Session::start(&Cpu, cpu_weights, &m.bpe, "Uma noite destas, vindo da cidade", 5).unwrap();
        for _ in 0..10 {
            on_cpu.step(&Cpu, &opts).await.unwrap();
        }
        let full = DecoderPass { weights: &m.weights, ids: &on_cpu.history().ids }.run(&Cpu).await.unwrap();
        let diff = full.logits.row(0).iter().zip(&on_cpu.history().logits).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        assert!(diff < 1e-3, "incremental vs full: {diff}");
        let Ok(gpu) = GpuContext::acquire().await else { return };
        let gpu_weights = std::rc::Rc::new(m.weights.upload(&gpu).unwrap());
        let mut on_gpu = Session::start(&gpu, gpu_weights, &m.bpe, "Uma noite destas, vindo da cidade", 5).unwrap();
        for _ in 0..10 {
            on_gpu.step(&gpu, &opts).await.unwrap();
        }
        assert_eq!(m.bpe.decode(&on_gpu.history().ids), m.bpe.decode(&on_cpu.history().ids));
    }
}

/// A widget's updates: only the newest may draw, even when an older one finishes later (a
/// slow GPU round trip overtaken by an edit), and the debounce says so after its pause.
#[wasm_bindgen_test]
async fn only_the_newest_update_draws() {
    use atencao::web::kit::Updates;
    let updates = Updates::default();
    let first = updates.begin();
    assert!(first.is_current());
    let second = updates.begin();
    assert!(!first.is_current(), "an edit makes the update in flight stale");
    assert!(second.is_current());
    assert!(second.settle(false).await, "nothing newer began during the pause");
    let third = updates.clone().begin();
    assert!(!second.settle(false).await, "a clone shares the count: the third update wins");
    assert!(third.is_current());
}

/// A page's own listeners (a retry button, the bench's "rodar de novo") go with the page, so
/// visiting it again and again piles up no handlers; the header's stay. Leaving the page from
/// inside one of its listeners (the retry button re-renders) is safe.
#[wasm_bindgen_test]
async fn route_listeners_go_with_the_page() {
    use atencao::web::dom::Listener;
    use atencao::web::kit::{ui, Ctx};
    use std::cell::Cell;
    use std::rc::Rc;

    let ctx = Rc::new(Ctx::new(Backend::init_embedded().await));
    let (header, page, retry) = (ui::button("h", "h"), ui::button("p", "p"), ui::button("r", "r"));
    let counts = Rc::new([Cell::new(0), Cell::new(0), Cell::new(0)]);
    let count = |i: usize| {
        let counts = counts.clone();
        move |_| counts[i].set(counts[i].get() + 1)
    };
    ctx.keep_document_listener(Listener::new(&header, "click", count(0)));
    ctx.keep_route_listener(Listener::new(&page, "click", count(1)));
    let (ctx_in_retry, bump) = (ctx.clone(), count(2));
    ctx.keep_route_listener(Listener::new(&retry, "click", move |event| {
        bump(event);
        ctx_in_retry.leave_page();
    }));
    for button in [&header, &page] {
        button.click();
    }
    retry.click();
    assert_eq!(counts.iter().map(Cell::get).collect::<Vec<_>>(), [1, 1, 1]);
    for button in [&header, &page, &retry] {
        button.click();
    }
    assert_eq!(counts.iter().map(Cell::get).collect::<Vec<_>>(), [2, 1, 1], "after leaving, only the header listens");
}
