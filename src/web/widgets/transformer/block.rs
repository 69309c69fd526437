//! `transformer-block`: one block on a short text (embeddings + positional encoding, d = 8,
//! 2 heads, d_ff = 32, untrained seeded weights), as the article builds it (post-LN: add, then
//! normalise) or in the pre-LN form (normalise inside each branch). A diagram follows the
//! choice; heatmaps show the input, the attention output, x₁, the 4× wider ReLU layer and the
//! output; histograms show the values entering and leaving the first layer norm. Every step
//! runs on the backend.
//!
//! Attributes: `data-text` (default "gato").

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::format::{format_pt, format_pt_short};
use crate::core::transformer::block::{self, params, BlockConfig, BlockJob, BlockTrace, BlockWeights, Norm};
use crate::core::transformer::char_tokenizer::{encode, VOCAB_SIZE};
use crate::core::transformer::embedding::seeded_table;
use crate::core::transformer::format_count;
use crate::core::Matrix;

use crate::web::dom::{self, Listener};
use crate::web::kit::draw::{Scale, HeatmapData, MatrixView};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::{show_error, Ctx, Updates, Widget, WidgetKind};
use crate::web::kit::draw::transformer_plot::Histogram;
use super::{backend_note, chip_label, fill_results, frame, listen, text_input};

pub const KIND: WidgetKind = WidgetKind { name: "transformer-block", title: "Bloco Transformer", mount };

const WEIGHT_SEED: u64 = 11;
const TABLE_SEED: u64 = 5;
const MAX_CHARS: usize = block::MAX_TOKENS - 2;

/// The diagram's steps for each form: (label, kind) with kind "sub" (a sublayer), "add"
/// (a residual sum) or "norm".
fn diagram_steps(norm: Norm) -> &'static [(&'static str, &'static str)] {
    match norm {
        Norm::Post => &[
            ("entrada x", "io"),
            ("atenção multicabeça", "sub"),
            ("x + MHA(x)  (residual)", "add"),
            ("LayerNorm → x₁", "norm"),
            ("FFN: linear d→4d, ReLU, linear 4d→d", "sub"),
            ("x₁ + FFN(x₁)  (residual)", "add"),
            ("LayerNorm → saída", "norm"),
        ],
        Norm::Pre => &[
            ("entrada x", "io"),
            ("LayerNorm", "norm"),
            ("atenção multicabeça", "sub"),
            ("x + MHA(LN(x)) → x₁  (residual)", "add"),
            ("LayerNorm", "norm"),
            ("FFN: linear d→4d, ReLU, linear 4d→d", "sub"),
            ("x₁ + FFN(LN(x₁)) → saída  (residual)", "add"),
            ("(LayerNorm final, uma vez no topo da pilha)", "norm"),
        ],
    }
}

pub struct BlockWidget {
    ctx: Rc<Ctx>,
    host: HtmlElement,
    text: HtmlInputElement,
    norm: HtmlSelectElement,
    causal: HtmlInputElement,
    diagram: HtmlElement,
    views: [Rc<MatrixView>; 5],
    before: Histogram,
    after: Histogram,
    /// μ and σ of every row, before and after the first layer norm.
    row_stats: Rc<MatrixView>,
    results: HtmlElement,
    backend_note: HtmlElement,
    table: Matrix,
    weights: BlockWeights,
    updates: Updates,
    listeners: RefCell<Vec<Listener>>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let text0 = attrs.text("data-text").unwrap_or_else(|| "gato".into());
    let config = BlockConfig::tiny();
    let weights = BlockWeights::seeded(config, WEIGHT_SEED).map_err(|e| e.to_string())?;
    frame(host, KIND.title);
    let fields = dom::el("div", "fields");
    let (text_label, text) = text_input("texto ", "text", &text0);
    dom::append(&fields, &text_label);
    dom::append(host, &fields);
    let controls = dom::el("div", "widget-controls");
    let options = [
        ("post".to_string(), "post-LN (como no artigo)".to_string()),
        ("pre".to_string(), "pre-LN (modelos atuais)".to_string()),
    ];
    let (norm_label, norm) = dom::select("normalização ", "norm", &options, "post");
    let (causal_label, causal) = dom::checkbox(" máscara causal", "causal", false);
    let (twins, twins_listener) = crate::web::kit::twins_button(host);
    for el in [&norm_label, &causal_label, &twins] {
        dom::append(&controls, el);
    }
    dom::append(host, &controls);

    let layout = dom::el("div", "widget-outputs");
    let diagram = dom::el("ol", "block-diagram");
    dom::set_attr(&diagram, "aria-label", "Diagrama do bloco");
    dom::append(&layout, &diagram);
    let views = [
        MatrixView::new("input", "x = embedding + PE", " (t × d)"),
        MatrixView::new("attention", "Saída da atenção", " (t × d)"),
        MatrixView::new("x1", "x₁", " (t × d)"),
        MatrixView::new("hidden", "ReLU(· W₁ + b₁)", " (t × 4d): zeros onde a ReLU corta"),
        MatrixView::new("output", "Saída do bloco", " (t × d)"),
    ];
    for v in &views {
        dom::append(&layout, &v.root);
    }
    dom::append(host, &layout);
    let histograms = dom::el("div", "widget-outputs");
    let before = Histogram::new("ln-before");
    let after = Histogram::new("ln-after");
    let row_stats = MatrixView::new("ln-rows", "Média e desvio de cada linha", " antes e depois da LayerNorm");
    dom::append(&histograms, &before.root);
    dom::append(&histograms, &after.root);
    dom::append(&histograms, &row_stats.root);
    dom::append(host, &histograms);
    let results = dom::el("div", "");
    dom::append(host, &results);
    let backend_note = backend_note(host);
    let widget = Rc::new(BlockWidget {
        ctx: ctx.clone(),
        host: host.clone(),
        text,
        norm,
        causal,
        diagram,
        views,
        before,
        after,
        row_stats,
        results,
        backend_note,
        table: seeded_table(VOCAB_SIZE, config.d, TABLE_SEED),
        weights,
        updates: Updates::default(),
        listeners: RefCell::new(Vec::new()),
    });
    *widget.listeners.borrow_mut() = vec![
        listen(&widget, &fields, "input", |w, _| w.clone().recompute()),
        listen(&widget, &controls, "change", |w, _| w.clone().recompute()),
        twins_listener,
    ];
    Ok(widget)
}

/// Bins of the LN histograms: fixed, so the before/after shapes compare at a glance.
const BINS: usize = 16;
const RANGE: (f32, f32) = (-4.0, 4.0);

impl BlockWidget {
    fn norm(&self) -> Norm {
        if self.norm.value() == "pre" { Norm::Pre } else { Norm::Post }
    }

    fn draw_diagram(&self, norm: Norm) {
        self.diagram.set_text_content(None);
        dom::set_attr(&self.diagram, "data-norm", if norm == Norm::Post { "post" } else { "pre" });
        for (label, kind) in diagram_steps(norm) {
            let li = dom::text("li", &format!("step {kind}"), label);
            dom::append(&self.diagram, &li);
        }
    }

    fn draw(&self, ids: &[u32], trace: &BlockTrace, norm: Norm) {
        self.draw_diagram(norm);
        let tokens: Vec<String> = ids.iter().map(|&id| chip_label(id)).collect();
        let dims = |n: usize| (1..=n).map(|j| j.to_string()).collect::<Vec<_>>();
        let show = |view: &MatrixView, m: &Matrix, scale| {
            view.update(HeatmapData { matrix: m.clone(), row_labels: tokens.clone(), col_labels: dims(m.cols()), scale, masked: None })
        };
        show(&self.views[0], &trace.input, Scale::Signed);
        show(&self.views[1], &trace.attention, Scale::Signed);
        show(&self.views[2], &trace.x1, Scale::Signed);
        show(&self.views[3], &trace.hidden, Scale::Count);
        show(&self.views[4], &trace.output, Scale::Signed);

        let width = (RANGE.1 - RANGE.0) / BINS as f32;
        let labels: Vec<String> = (0..BINS)
            .map(|i| {
                let lo = RANGE.0 + width * i as f32;
                format!("{} a {}", format_pt_short(lo, 2), format_pt_short(lo + width, 2))
            })
            .collect();
        let (what_in, what_out) = match norm {
            Norm::Post => ("x + MHA(x)", "x₁ = LN(x + MHA(x))"),
            Norm::Pre => ("x", "LN(x)"),
        };
        let ends = (format_pt_short(RANGE.0, 0), format_pt_short(RANGE.1, 0));
        let ends = (ends.0.as_str(), ends.1.as_str());
        self.before.update(&format!("Antes da primeira LayerNorm: {what_in}"), &labels, &block::histogram(&trace.norm_in, RANGE.0, RANGE.1, BINS), ends);
        self.after.update(&format!("Depois: {what_out}"), &labels, &block::histogram(&trace.norm_out, RANGE.0, RANGE.1, BINS), ends);
        let mut stats = Matrix::zeros(ids.len(), 4);
        for r in 0..ids.len() {
            let (mu_in, sd_in) = block::row_stats(&trace.norm_in, r);
            let (mu_out, sd_out) = block::row_stats(&trace.norm_out, r);
            for (c, v) in [mu_in, sd_in, mu_out, sd_out].into_iter().enumerate() {
                stats.set(r, c, v);
            }
        }
        let heads = ["μ antes", "σ antes", "μ depois", "σ depois"].map(String::from).to_vec();
        self.row_stats.update(HeatmapData { matrix: stats, row_labels: tokens.clone(), col_labels: heads, scale: Scale::Signed, masked: None });

        let (mu_in, sd_in) = block::row_stats(&trace.norm_in, 0);
        let (mu_out, sd_out) = block::row_stats(&trace.norm_out, 0);
        let a = BlockConfig::article();
        let (d, ff) = (a.d as u64, a.d_ff as u64);
        let rows = vec![
            ("média e desvio da 1ª linha, antes da LN".to_string(), format!("{} e {}", format_pt(mu_in, 4), format_pt(sd_in, 4))),
            ("média e desvio da 1ª linha, depois da LN".to_string(), format!("{} e {}", format_pt(mu_out, 4), format_pt(sd_out, 4))),
            ("fração de zeros depois da ReLU".to_string(), format_pt(block::zero_fraction(&trace.hidden), 4)),
            ("parâmetros da atenção (d = 512)".to_string(), format_count(params::mha(d))),
            ("parâmetros da FFN (d = 512, d_ff = 2048)".to_string(), format_count(params::ffn(d, ff))),
            ("parâmetros do bloco".to_string(), format_count(params::block(d, ff))),
        ];
        fill_results(&self.results, "block", "O bloco em números", &rows);
    }
}

impl Widget for BlockWidget {
    fn recompute(self: Rc<Self>) {
        let update = self.updates.begin();
        let text = self.text.value();
        if text.is_empty() {
            return show_error(&self.host, "Escreva um texto curto (por exemplo, gato).");
        }
        let count = text.chars().count();
        if count > MAX_CHARS {
            return show_error(&self.host, &format!("Use até {MAX_CHARS} caracteres aqui; o texto tem {count}."));
        }
        let ids = encode(&text, true).ids();
        let norm = self.norm();
        let job = BlockJob { ids: ids.clone(), table: self.table.clone(), weights: self.weights.clone(), norm, causal: self.causal.checked() };
        let widget = self.clone();
        crate::web::kit::update::compute(&self.ctx, &self.host, update, Some(&self.backend_note), job, move |_, trace, _| {
            widget.draw(&ids, &trace, norm);
        });
    }
}
