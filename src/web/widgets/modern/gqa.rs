//! `gqa`: h query heads sharing g heads of K and V. The keys as the cache keeps them (g heads)
//! and as each query head reads them (`repeat_kv`: each group's columns repeated), on one
//! colour scale; every head's causal attention weights; and the KV cache of MHA, this GQA and
//! MQA side by side for a decoder of today's size (the reader's layers and context).
//!
//! Attributes: `data-heads` (1 to 16; default 8), `data-kv-heads` (must divide the heads;
//! default 2).

use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::format::format_pt;
use crate::core::modern::gqa::{bytes_text, Gqa, GqaJob, CACHE_HEAD_WIDTH, HEAD_WIDTH, MAX_HEADS, TOKENS};
use crate::core::transformer::format_count;
use crate::core::Matrix;
use crate::site::palette::Scale;

use crate::web::dom;
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{BarView, MatrixView};
use crate::web::kit::ui::{self, number_field, read_count, show_results};
use crate::web::kit::{control_of, Ctx, Shell, Widget, WidgetKind};
use super::{results_slot, shared_extent};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::GQA, mount };

pub struct GqaWidget {
    shell: Shell,
    heads: HtmlInputElement,
    kv_heads: HtmlSelectElement,
    layers: HtmlInputElement,
    context: HtmlInputElement,
    cached: Rc<MatrixView>,
    lent: Rc<MatrixView>,
    weights: Rc<MatrixView>,
    cache: BarView,
    results: HtmlElement,
}

/// The choices of g for h heads: its divisors, largest first, named MHA, GQA or MQA.
fn kv_choices(heads: usize) -> Vec<(String, String)> {
    (1..=heads)
        .rev()
        .filter(|g| heads % g == 0)
        .map(|g| {
            let name = if g == heads { "MHA" } else if g == 1 { "MQA" } else { "GQA" };
            (g.to_string(), format!("g = {g} ({name})"))
        })
        .collect()
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let shell = Shell::new(ctx, host, &KIND);
    let h0 = attrs.number("data-heads") as usize;
    let g0 = attrs.number("data-kv-heads") as usize;
    let g0 = if g0 > 0 && h0 % g0 == 0 { g0 } else { 1 };
    let (heads_label, heads) = number_field("cabeças de Q, h = ", "heads", &h0.to_string(), true);
    let (kv_label, kv_heads) = ui::select("cabeças de K e V ", "kv-heads", &kv_choices(h0), &g0.to_string());
    let (layers_label, layers) = number_field("camadas = ", "layers", "32", true);
    let (context_label, context) = number_field("contexto = ", "context", "8192", true);
    shell.control(&[&heads_label, &kv_label, &layers_label, &context_label]);
    let cached = MatrixView::new("keys-cached", "K guardado no cache", " (g cabeças)");
    let lent = MatrixView::new("keys-lent", "K lido por cada cabeça de Q", " (repeat_kv; a mesma escala de cores)");
    let weights = MatrixView::new("gqa-weights", "pesos de atenção de cada cabeça", " (causal: cada linha soma 1)");
    let cache = BarView::new("kv-cache", "");
    let results = results_slot();
    dom::append_all(&shell.outputs, &[&cached.root, &lent.root, &weights.root, &cache.root, &results]);
    let widget = Rc::new(GqaWidget { shell, heads, kv_heads, layers, context, cached, lent, weights, cache, results });
    let shell = &widget.shell;
    shell.on(&widget, &shell.controls, &["input", "change"], |w, e| {
        // A new h offers its own divisors, keeping g where it still divides.
        if control_of(e) == "heads" {
            if let Ok(h) = read_count(&w.heads, "h") {
                if (1..=MAX_HEADS).contains(&h) {
                    let g = w.kv_heads.value().parse::<usize>().ok().filter(|g| h % g == 0).unwrap_or(1);
                    ui::set_options(&w.kv_heads, &kv_choices(h), &g.to_string());
                }
            }
        }
        if e.type_() == "input" || control_of(e) == "kv-heads" {
            w.clone().recompute();
        }
    });
    Ok(widget)
}

impl GqaWidget {
    fn job(&self) -> Result<GqaJob, String> {
        let heads = read_count(&self.heads, "h")?;
        let kv_heads = self.kv_heads.value().parse::<usize>().unwrap_or(1);
        Ok(GqaJob { layers: read_count(&self.layers, "camadas")?, context: read_count(&self.context, "contexto")?, ..GqaJob::new(heads, kv_heads) })
    }

    fn draw(&self, job: &GqaJob, g: &Gqa) {
        let tokens: Vec<String> = (1..=TOKENS).map(|t| format!("t{}", dom::subscript(t))).collect();
        let head_columns = |heads: usize| (0..heads * HEAD_WIDTH).map(|c| format!("{}.{}", c / HEAD_WIDTH + 1, c % HEAD_WIDTH + 1)).collect::<Vec<_>>();
        let extent = shared_extent(&[&g.keys]);
        self.cached.show_canvas(&g.keys, tokens.clone(), head_columns(job.kv_heads), Scale::SignedUpTo(extent));
        self.cached.fill_twin();
        self.lent.show_canvas(&g.keys_lent, tokens.clone(), head_columns(job.heads), Scale::SignedUpTo(extent));
        self.lent.fill_twin();
        // Every head's weights stacked: rows "cabeça j · t_i".
        let stacked: Vec<f32> = g.weights.iter().flat_map(|w| w.as_slice().iter().copied()).collect();
        let rows: Vec<String> = (0..job.heads).flat_map(|h| (1..=TOKENS).map(move |t| format!("c{} t{}", h + 1, dom::subscript(t)))).collect();
        let groups: Vec<String> = (0..job.kv_heads).map(|j| match g.group {
            1 => format!("c{} lê K{}", j + 1, dom::subscript(j + 1)),
            n => format!("c{}–c{} leem K{}", j * n + 1, (j + 1) * n, dom::subscript(j + 1)),
        }).collect();
        self.weights.set_title(&format!("pesos de atenção de cada cabeça ({})", groups.join("; ")));
        if let Ok(stacked) = Matrix::from_vec(job.heads * TOKENS, TOKENS, stacked) {
            self.weights.show_canvas(&stacked, rows, tokens, Scale::Probability);
            self.weights.fill_twin();
        }
        let labels: Vec<String> = g.sharings.iter().map(|s| format!("{} (g = {})", s.name, s.kv_heads)).collect();
        let gib: Vec<f32> = g.sharings.iter().map(|s| s.cache_bytes as f32 / (1u64 << 30) as f32).collect();
        self.cache.update(&format!("cache KV em GiB: {} camadas, {} tokens, d_h = {CACHE_HEAD_WIDTH}, 2 bytes por número", job.layers, format_count(job.context as u64)), &labels, &gib);
        let mha = g.sharings[0].cache_bytes.max(1) as f64;
        let mut rows = vec![("cabeças de Q por cabeça de K e V (h/g)".to_string(), g.group.to_string())];
        for s in &g.sharings {
            rows.push((format!("{} (g = {}): cache KV", s.name, s.kv_heads), format!("{} ({} % do MHA)", bytes_text(s.cache_bytes), format_pt((100.0 * s.cache_bytes as f64 / mha) as f32, 1))));
            rows.push((format!("{}: parâmetros de W^K e W^V por camada", s.name), format_count(s.kv_parameters)));
        }
        show_results(&self.results, "gqa", "O que o compartilhamento economiza", &rows);
    }
}

impl Widget for GqaWidget {
    fn recompute(self: Rc<Self>) {
        let widget = self.clone();
        self.shell.compute_or(self.job(), move |job, gqa, _| widget.draw(&job, &gqa));
    }
}
