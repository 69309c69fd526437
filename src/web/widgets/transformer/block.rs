//! `transformer-block`: one block on a short text (embeddings + positional encoding, d = 8,
//! 2 heads, d_ff = 32, untrained seeded weights), as the article builds it (post-LN: add, then
//! normalise) or in the pre-LN form (normalise inside each branch). A diagram follows the
//! choice; heatmaps show the input, the attention output, x₁, the 4× wider ReLU layer and the
//! output, and hovering a row outlines the rows of the stages it was computed from;
//! histograms show the values entering and leaving the first layer norm. Every step runs on
//! the backend.
//!
//! Attributes: `data-text` (default "gato").

use std::cell::Cell;
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::format::{format_pt, format_pt_short};
use crate::core::transformer::block::{self, params, BlockConfig, BlockJob, BlockTrace, BlockWeights, Norm};
use crate::core::transformer::char_tokenizer::{encode, VOCAB_SIZE};
use crate::core::transformer::embedding::seeded_table;
use crate::core::transformer::format_count;
use crate::core::Matrix;

use crate::web::dom;
use crate::web::kit::ui::{self, show_results, text_field};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::figures::Histogram;
use crate::web::kit::draw::{MatrixView, Scale};
use crate::web::kit::{Ctx, Shell, Widget, WidgetKind};
use crate::web::kit::on_hover;
use super::{chip_label, numbered, results_slot};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::TRANSFORMER_BLOCK, mount };

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

/// The stages drawn, in order (indices into `BlockWidget::views`).
const INPUT: usize = 0;
const ATTENTION: usize = 1;
const X1: usize = 2;
const HIDDEN: usize = 3;
const OUTPUT: usize = 4;
/// The row statistics, a sixth "stage" for linked highlighting.
const STATS: usize = 5;

/// Each stage's title, in the post-LN and the pre-LN form.
const TITLES: [(&str, &str); 5] = [
    ("x = embedding + PE", "x = embedding + PE"),
    ("Saída da atenção: MHA(x)", "Saída da atenção: MHA(LN(x))"),
    ("x₁ = LN(x + MHA(x))", "x₁ = x + MHA(LN(x))"),
    ("ReLU(x₁·W_1 + b_1)", "ReLU(LN(x₁)·W_1 + b_1)"),
    ("Saída do bloco: LN(x₁ + FFN(x₁))", "Saída do bloco: x₁ + FFN(LN(x₁))"),
];

pub struct BlockWidget {
    shell: Shell,
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
    table: Matrix,
    weights: BlockWeights,
    /// The form, the mask and the number of tokens of the block drawn (what a row came from
    /// depends on them).
    drawn: Cell<(Norm, bool, usize)>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let text0 = attrs.text("data-text").unwrap_or_else(|| "gato".into());
    let config = BlockConfig::tiny();
    let weights = BlockWeights::seeded(config, WEIGHT_SEED).map_err(|e| e.to_string())?;
    let shell = Shell::new(ctx, host, &KIND);
    let (text_label, text) = text_field("texto ", "text", &text0);
    dom::append(&shell.inputs, &text_label);
    let options = [
        ("post", "post-LN (como no artigo original)"),
        ("pre", "pre-LN (modelos atuais)"),
    ];
    let (norm_label, norm) = ui::select("normalização ", "norm", &options, "post");
    let (causal_label, causal) = ui::checkbox(" máscara causal", "causal", false);
    shell.control(&[&norm_label, &causal_label]);

    let diagram = dom::el("ol", "block-diagram");
    dom::set_attr(&diagram, "aria-label", "Diagrama do bloco");
    let keys = ["input", "attention", "x1", "hidden", "output"];
    let captions = [" (t × d)", " (t × d)", " (t × d)", " (t × 4d): zeros onde a ReLU corta", " (t × d)"];
    let views: [Rc<MatrixView>; 5] = std::array::from_fn(|i| MatrixView::new(keys[i], TITLES[i].0, captions[i]));
    let before = Histogram::new("ln-before");
    let after = Histogram::new("ln-after");
    let row_stats = MatrixView::new("ln-rows", "Média e desvio de cada linha", " antes e depois da LayerNorm");
    let results = results_slot();
    dom::append(&shell.outputs, &diagram);
    for v in &views {
        dom::append(&shell.outputs, &v.root);
    }
    dom::append_all(&shell.outputs, &[&before.root, &after.root, &row_stats.root, &results]);
    let widget = Rc::new(BlockWidget {
        shell,
        text,
        norm,
        causal,
        diagram,
        views,
        before,
        after,
        row_stats,
        results,
        table: seeded_table(VOCAB_SIZE, config.d, TABLE_SEED),
        weights,
        drawn: Cell::new((Norm::Post, false, 0)),
    });
    let shell = &widget.shell;
    shell.recompute_on(&widget, &["change"]);
    for stage in [ATTENTION, X1, HIDDEN, OUTPUT] {
        on_hover(&widget, &widget.views[stage], move |w, cell| w.link(stage, cell.map(|(r, _)| r)));
    }
    on_hover(&widget, &widget.row_stats, |w, cell| w.link(STATS, cell.map(|(r, _)| r)));
    Ok(widget)
}

/// Bins of the LN histograms: fixed, so the before/after shapes compare at a glance.
const BINS: usize = 16;
const RANGE: (f32, f32) = (-4.0, 4.0);

impl BlockWidget {
    fn norm(&self) -> Norm {
        if self.norm.value() == "pre" { Norm::Pre } else { Norm::Post }
    }

    /// Outlines, for row `row` of `stage`, the rows of the stages it was computed from. Both
    /// forms wire the rows alike, only the layer norms move: the attention's row i mixes the
    /// input's rows (those up to i under the mask); x₁ = [LN](x + attention) row by row; the
    /// ReLU layer's row i comes from x₁'s row i; the output's row i from x₁'s and the ReLU
    /// layer's row i (the FFN ends in a linear of it). The statistics are of what the first
    /// layer norm receives and returns: x + attention and x₁ (post-LN), or x (pre-LN).
    fn link(&self, stage: usize, row: Option<usize>) {
        for view in &self.views {
            view.highlight(&[], &[]);
        }
        let Some(i) = row else { return };
        let (norm, causal, t) = self.drawn.get();
        let sources: &[(usize, Vec<usize>)] = &match stage {
            ATTENTION => vec![(INPUT, (0..if causal { i + 1 } else { t }).collect())],
            X1 => vec![(INPUT, vec![i]), (ATTENTION, vec![i])],
            HIDDEN => vec![(X1, vec![i])],
            OUTPUT => vec![(X1, vec![i]), (HIDDEN, vec![i])],
            _ if norm == Norm::Post => vec![(INPUT, vec![i]), (ATTENTION, vec![i]), (X1, vec![i])],
            _ => vec![(INPUT, vec![i])],
        };
        for (source, rows) in sources {
            self.views[*source].highlight(rows, &[]);
        }
    }

    fn draw_diagram(&self, norm: Norm) {
        self.diagram.set_text_content(None);
        dom::set_attr(&self.diagram, "data-norm", if norm == Norm::Post { "post" } else { "pre" });
        for (label, kind) in diagram_steps(norm) {
            dom::append(&self.diagram, &dom::text("li", &format!("step {kind}"), label));
        }
    }

    fn draw(&self, ids: &[u32], trace: &BlockTrace, norm: Norm, causal: bool) {
        self.drawn.set((norm, causal, ids.len()));
        self.draw_diagram(norm);
        let tokens: Vec<String> = ids.iter().map(|&id| chip_label(id)).collect();
        let stages = [&trace.input, &trace.attention, &trace.x1, &trace.hidden, &trace.output];
        for (i, (view, m)) in self.views.iter().zip(stages).enumerate() {
            view.show(m, tokens.clone(), numbered(m.cols()), if i == HIDDEN { Scale::Count } else { Scale::Signed });
            view.set_title(if norm == Norm::Post { TITLES[i].0 } else { TITLES[i].1 });
        }

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
        let (lo, hi) = (format_pt_short(RANGE.0, 0), format_pt_short(RANGE.1, 0));
        self.before.update(&format!("Antes da primeira LayerNorm: {what_in}"), &labels, &block::histogram(&trace.norm_in, RANGE.0, RANGE.1, BINS), (&lo, &hi));
        self.after.update(&format!("Depois: {what_out}"), &labels, &block::histogram(&trace.norm_out, RANGE.0, RANGE.1, BINS), (&lo, &hi));
        let mut stats = Matrix::zeros(ids.len(), 4);
        for r in 0..ids.len() {
            let (mu_in, sd_in) = block::row_stats(&trace.norm_in, r);
            let (mu_out, sd_out) = block::row_stats(&trace.norm_out, r);
            for (c, v) in [mu_in, sd_in, mu_out, sd_out].into_iter().enumerate() {
                stats.set(r, c, v);
            }
        }
        let heads = ["μ antes", "σ antes", "μ depois", "σ depois"].map(String::from).to_vec();
        self.row_stats.show(&stats, tokens, heads, Scale::Signed);

        let (mu_in, sd_in) = block::row_stats(&trace.norm_in, 0);
        let (mu_out, sd_out) = block::row_stats(&trace.norm_out, 0);
        let a = BlockConfig::article();
        let (d, ff) = (a.d as u64, a.d_ff as u64);
        let rows = vec![
            ("média e desvio da 1ª linha, antes da LN".to_string(), format!("{} e {}", format_pt(mu_in, 4), format_pt(sd_in, 4))),
            ("média e desvio da 1ª linha, depois da LN".to_string(), format!("{} e {}", format_pt(mu_out, 4), format_pt(sd_out, 4))),
            ("fração de zeros depois da ReLU".to_string(), format_pt(block::zero_fraction(&trace.hidden), 4)),
            ("parâmetros da atenção (d = 512)".to_string(), format_count(params::mha(d))),
            ("parâmetros da FFN (d = 512, d_{ff} = 2048)".to_string(), format_count(params::ffn(d, ff))),
            ("parâmetros do bloco".to_string(), format_count(params::block(d, ff))),
        ];
        show_results(&self.results, "block", "O bloco em números", &rows);
    }

    fn job(&self) -> Result<BlockJob, String> {
        let text = self.text.value();
        if text.is_empty() {
            return Err("Escreva um texto curto (por exemplo, gato).".into());
        }
        let count = text.chars().count();
        if count > MAX_CHARS {
            return Err(format!("Use até {MAX_CHARS} caracteres aqui; o texto tem {count}."));
        }
        let ids = encode(&text, true).ids();
        Ok(BlockJob { ids, table: self.table.clone(), weights: self.weights.clone(), norm: self.norm(), causal: self.causal.checked() })
    }
}

impl Widget for BlockWidget {
    fn recompute(self: Rc<Self>) {
        let widget = self.clone();
        self.shell.compute_or(self.job(), move |job, trace, _| widget.draw(&job.ids, &trace, job.norm, job.causal));
    }
}
