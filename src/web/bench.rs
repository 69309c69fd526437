//! `bench.html`: how fast this browser runs the compute core. Every kernel of `core::bench` on the
//! active backend (ms and GFLOP/s), then the pretrained decoder (prompt processing and
//! one-token decoding, in tokens per second: the one forward pass, with its weights and KV
//! cache on the active backend, one submission per token on WebGPU). The results are also
//! written as JSON in a collapsed `<pre data-bench-json>` for the headless script
//! `tests/e2e/bench.mjs`, which runs this page in both modes.

use std::rc::Rc;

use web_sys::{Element, HtmlElement};

use crate::core::bench::{self, Kernel, Timing};
use crate::core::decoder::load::Model;
use crate::core::decoder::model::{forward, read_forward, KvCache};
use crate::core::error::Result;
use crate::core::executor::{BackendKind, Executor};
use crate::core::format::format_pt;
use crate::core::trace::median;

use crate::web::backend::{now_ms, runtime};
use crate::web::dom;
use crate::web::kit::ui;
use crate::web::model_store::{self, DEFAULT_BASE};
use super::kit::draw::twin;
use super::kit::Ctx;

/// The decoder benchmark's text: its first `PROMPT_TOKENS` tokens are the prompt.
const TEXT: &str = "Uma noite destas, vindo da cidade para o Engenho Novo, encontrei no trem da Central um rapaz \
                    aqui do bairro, que eu conheço de vista e de chapéu. Cumprimentou-me, sentou-se ao pé de mim, \
                    falou da lua e dos ministros, e acabou recitando-me versos.";
const PROMPT_TOKENS: usize = 64;
const DECODE_STEPS: usize = 16;
/// Repetitions of the decoder's prompt-and-16-tokens run; the median one is shown.
const DECODER_RUNS: usize = 7;

pub fn render(app: &Element, ctx: &Rc<Ctx>) -> String {
    let title = "Desempenho neste navegador";
    dom::page_heading(
        app,
        title,
        "Cada kernel do núcleo de cálculo roda aqui, no backend ativo (veja o rodapé), em tamanhos que o site usa; \
         depois, o decodificador pré-treinado lê um texto e gera tokens. Os tempos são medianas de várias \
         execuções depois de uma de aquecimento. Para comparar, escolha outro backend no rodapé (\u{201c}calcular em\u{201d}) e rode de novo.",
    );
    let root = dom::el("div", "bench");
    dom::set_attr(&root, "data-bench-state", "running");
    let again = ui::button("rodar de novo", "bench-run");
    let status = ui::live("p", "widget-backend");
    let table = dom::el("table", "results bench-table");
    dom::set_attr(&table, "data-results", "bench");
    let json = dom::el("pre", "bench-json");
    dom::set_attr(&json, "data-bench-json", "");
    // The same numbers for scripts, out of the reader's way.
    let json_box = dom::el("details", "bench-json-box");
    dom::append_all(&json_box, &[&dom::text("summary", "", "os mesmos números em JSON (para scripts)"), &json]);
    dom::append_all(&root, &[&again, &status, &table, &json_box]);
    dom::append(app, &root);
    let listener = {
        let (ctx, root, status, table, json) = (ctx.clone(), root.clone(), status.clone(), table.clone(), json.clone());
        dom::Listener::new(&again, "click", move |_| {
            if root.get_attribute("data-bench-state").as_deref() != Some("running") {
                wasm_bindgen_futures::spawn_local(run(ctx.clone(), root.clone(), status.clone(), table.clone(), json.clone()));
            }
        })
    };
    ctx.keep_route_listener(listener);
    wasm_bindgen_futures::spawn_local(run(ctx.clone(), root, status, table, json));
    title.to_string()
}

/// What a rate counts: each has its own column, headed by its unit.
#[derive(Clone, Copy, PartialEq)]
enum Unit {
    Gflops,
    TokensPerSecond,
}

/// One line of the results.
struct Row {
    name: String,
    ms: f64,
    rate: f64,
    unit: Unit,
}

/// One row per measurement under a header per column, each with its unit; a rate that does not
/// apply to a row is "—" (kernels count GFLOP/s, the decoder tokens/s).
fn draw(table: &HtmlElement, backend: BackendKind, rows: &[Row]) {
    let cols = ["mediana (ms)", "GFLOP/s", "tokens/s"].map(String::from);
    let rate = |row: &Row, unit| if row.unit == unit { format_pt(row.rate as f32, 2) } else { "—".into() };
    let lines = rows.iter().map(|row| (row.name.clone(), vec![format_pt(row.ms as f32, 3), rate(row, Unit::Gflops), rate(row, Unit::TokensPerSecond)]));
    twin::fill(table, &format!("Resultados em {}", backend.label()), "medida", &cols, lines);
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

async fn time_kernel(ctx: &Ctx, kernel: Kernel) -> Result<Timing> {
    bench::time(&runtime(ctx.backend.gpu().as_ref()), kernel, 5, 20.0, &now_ms).await
}

/// (prompt ms, ms per generated token) of the decoder on the active backend.
async fn time_decoder(ctx: &Ctx, model: &Model) -> Result<(f64, f64)> {
    time_decoder_on(&runtime(ctx.backend.gpu().as_ref()), model).await
}

/// The prompt in one pass, then one token per pass through the KV cache, each pass read back
/// (logits and attention) as the playground reads it. The whole run is repeated `DECODER_RUNS`
/// times from an empty cache, after one untimed, and the median run is reported: one run
/// of 16 tokens swung from 260 to 480 tokens/s on the same build, too noisy to be the reference
/// the playground is held to.
async fn time_decoder_on<E: Executor>(e: &E, model: &Model) -> Result<(f64, f64)> {
    let ids: Vec<u32> = model.bpe.encode(TEXT).into_iter().take(PROMPT_TOKENS + DECODE_STEPS).collect();
    let (prompt, next) = ids.split_at(PROMPT_TOKENS.min(ids.len()));
    let config = &model.weights.config;
    let weights = model.weights.upload(e)?;
    let (mut prompt_times, mut token_times) = (Vec::new(), Vec::new());
    // Run 0 is a warm-up, not counted: pipelines compile, and the browser optimises the wasm
    // it has run most (the first run after a load measured 190-340 tokens/s, the next ones 450).
    for run in 0..=DECODER_RUNS {
        if run == 1 {
            (prompt_times, token_times) = (Vec::new(), Vec::new());
        }
        let mut cache = KvCache::new(e, config)?;
        let start = now_ms();
        read_forward(e, &forward(e, &weights, prompt, &mut cache)?).await?;
        prompt_times.push(now_ms() - start);
        let start = now_ms();
        for id in next {
            read_forward(e, &forward(e, &weights, std::slice::from_ref(id), &mut cache)?).await?;
        }
        token_times.push((now_ms() - start) / next.len().max(1) as f64);
        dom::sleep(0).await; // the page stays responsive between runs
    }
    Ok((median(&prompt_times).unwrap_or(f64::NAN), median(&token_times).unwrap_or(f64::NAN)))
}

async fn run(ctx: Rc<Ctx>, root: HtmlElement, status: HtmlElement, table: HtmlElement, json: HtmlElement) {
    dom::set_attr(&root, "data-bench-state", "running");
    json.set_text_content(None);
    let backend = ctx.backend.kind();
    let mut rows = Vec::new();
    let mut kernels_json = Vec::new();
    // `bench.html?medir=decodificador` skips the kernels: the script that holds the playground
    // to this page's next-token rate takes the two in turns, under the same load.
    let kernels = if crate::web::kit::address::address_param("medir").as_deref() == Some("decodificador") { &[][..] } else { &Kernel::SUITE[..] };
    for (i, kernel) in kernels.iter().enumerate() {
        status.set_text_content(Some(&format!("Medindo {} ({} de {})…", kernel.name(), i + 1, kernels.len())));
        dom::sleep(0).await;
        match time_kernel(&ctx, *kernel).await {
            Ok(t) => {
                kernels_json.push(format!(
                    "{{\"name\": {}, \"ms\": {:.4}, \"gflops\": {:.3}}}",
                    json_string(&kernel.name()),
                    t.median_ms,
                    t.gflops
                ));
                rows.push(Row { name: kernel.name(), ms: t.median_ms, rate: t.gflops, unit: Unit::Gflops });
            }
            Err(e) => {
                status.set_text_content(Some(&format!("{} falhou: {e}", kernel.name())));
                dom::set_attr(&root, "data-bench-state", "error");
                return;
            }
        }
        draw(&table, backend, &rows);
    }
    status.set_text_content(Some("Carregando o decodificador…"));
    let no_progress: model_store::Progress = Rc::new(|_, _| {});
    let decoder_json = match model_store::model(&ctx.asset_url(DEFAULT_BASE), no_progress).await {
        Ok(model) => {
            status.set_text_content(Some("Medindo o decodificador…"));
            dom::sleep(0).await;
            match time_decoder(&ctx, &model).await {
                Ok((prompt_ms, token_ms)) => {
                    let prompt_rate = PROMPT_TOKENS as f64 / (prompt_ms / 1000.0).max(1e-9);
                    let token_rate = 1000.0 / token_ms.max(1e-9);
                    rows.push(Row { name: format!("decodificador: ler {PROMPT_TOKENS} tokens"), ms: prompt_ms, rate: prompt_rate, unit: Unit::TokensPerSecond });
                    rows.push(Row { name: "decodificador: gerar 1 token (cache KV)".into(), ms: token_ms, rate: token_rate, unit: Unit::TokensPerSecond });
                    format!("{{\"prompt_tokens\": {PROMPT_TOKENS}, \"prompt_ms\": {prompt_ms:.3}, \"prompt_tokens_per_s\": {prompt_rate:.2}, \"token_ms\": {token_ms:.3}, \"decode_tokens_per_s\": {token_rate:.2}}}")
                }
                Err(e) => format!("{{\"error\": {}}}", json_string(&e.to_string())),
            }
        }
        Err(e) => format!("{{\"error\": {}}}", json_string(&e)),
    };
    draw(&table, backend, &rows);
    let agent = dom::window().and_then(|w| w.navigator().user_agent().ok()).unwrap_or_default();
    json.set_text_content(Some(&format!(
        "{{\n  \"backend\": \"{}\",\n  \"user_agent\": {},\n  \"kernels\": [\n    {}\n  ],\n  \"decoder\": {}\n}}\n",
        backend.attr(),
        json_string(&agent),
        kernels_json.join(",\n    "),
        decoder_json
    )));
    status.set_text_content(Some(&format!("Pronto: {} medidas em {}.", rows.len(), backend.label())));
    dom::set_attr(&root, "data-bench-state", "done");
}
