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
use atencao::web::backend::Backend;
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
    let backend = Backend::init().await;
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

mod decoder {
    use super::*;
    use atencao::core::decoder::fixture;
    use atencao::core::decoder::load::Model;
    use atencao::core::decoder::manifest::Manifest;
    use atencao::core::decoder::model::{forward, KvCache};

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

    /// The shipped model's logits equal candle's fixture within 1e-3, on the CPU (wasm)
    /// and, when the browser has one, on WebGPU.
    #[wasm_bindgen_test]
    async fn decoder_logits_equal_candle_on_every_available_backend() {
        let m = model();
        let cases = fixture::parse(FIXTURE).unwrap();
        assert_passed("CPU", fixture::check(&Cpu, &m.weights, &m.bpe, &cases).await.unwrap());
        if let Ok(gpu) = GpuContext::acquire().await {
            assert_passed("WebGPU", fixture::check(&gpu, &m.weights, &m.bpe, &cases).await.unwrap());
        }
    }

    /// The GPU-resident decoder (one command buffer per pass) gives candle's logits in the browser.
    #[wasm_bindgen_test]
    async fn resident_gpu_decoder_equals_candle() {
        let Ok(gpu) = GpuContext::acquire().await else { return };
        let m = model();
        let decoder = atencao::gpu::decoder::GpuDecoder::new(std::rc::Rc::new(gpu), &m.weights).unwrap();
        for case in fixture::parse(FIXTURE).unwrap() {
            decoder.reset();
            let out = decoder.forward(&case.ids).await.unwrap();
            let diff = out.logits.row(0).iter().zip(&case.logits).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
            console_log!("resident WebGPU: {:?} max |Δ| = {diff:e}", case.prompt);
            assert!(diff <= fixture::MAX_ABS_DIFF, "{:?}: {diff}", case.prompt);
        }
    }

    /// One token at a time through the KV cache gives the logits of a full recompute.
    #[wasm_bindgen_test]
    async fn decoder_incremental_equals_full_recompute() {
        let m = model();
        let ids = m.bpe.encode("Uma noite destas, vindo da cidade");
        let full = forward(&Cpu, &m.weights, &ids, &KvCache::default()).await.unwrap();
        let backend = Backend::init().await;
        let mut cache = KvCache::default();
        let mut last = None;
        for id in &ids {
            let job = atencao::core::decoder::model::DecoderStep { weights: &m.weights, ids: std::slice::from_ref(id), cache: &cache };
            let (out, _) = backend.run(&job).await.unwrap();
            cache.append(out.new_cache.clone());
            last = Some(out);
        }
        let diff = last.unwrap().logits.max_abs_diff(&full.logits).unwrap();
        assert!(diff < 1e-3, "incremental vs full: {diff}");
    }
}

/// A widget's updates: only the newest may draw, even when an older one finishes later (a
/// slow GPU round trip overtaken by an edit), and the debounce says so after its pause.
#[wasm_bindgen_test]
async fn only_the_newest_update_draws() {
    use atencao::web::widgets::Updates;
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
    use atencao::web::dom::{self, Listener};
    use atencao::web::widgets::Ctx;
    use std::cell::Cell;
    use std::rc::Rc;

    let ctx = Rc::new(Ctx::new(Backend::init_embedded().await));
    let (header, page, retry) = (dom::button("h", "h"), dom::button("p", "p"), dom::button("r", "r"));
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
