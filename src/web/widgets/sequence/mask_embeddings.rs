//! `mask-embeddings`: the third article's masking example step by step. Editable embeddings
//! E (one row per token), W^Q, W^K, W^V and a mask (one weight per token); for the chosen
//! query position t: q_t, K, V, the dot products q_t·k_i, the scores ÷ √d_k, the scores after
//! the mask, the weights α_t and the context c_t = Σ α_ti v_i, on the active backend.
//! The mode switch shows the article's bug: multiplying a score by 0 leaves e⁰ = 1, so a
//! "masked" token still gets weight; adding −∞ removes it.
//!
//! Attributes: `data-mode` (`additive`, the default; `multiplicative`; `none`).

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlSelectElement};

use crate::core::format::format_pt;
use crate::core::sequence::masking::{MaskMode, MaskedQuery, MaskedQueryJob};
use crate::core::sequence::presets::masked_embeddings_example;
use crate::core::Matrix;

use crate::web::dom;
use crate::web::kit::ui::{self, live_note, MatrixEditor};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::chain::{self, Chain, Editors, Queries, Step, Views};
use crate::web::kit::draw::{numbered, BarView, MatrixView, Scale};
use crate::web::kit::{Ctx, Shell, Widget, WidgetKind};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::MASK_EMBEDDINGS, mount };

fn token_label(i: usize) -> String {
    format!("e{}", dom::subscript(i))
}

fn mask_row(_: usize) -> String {
    "M".into()
}

fn mode_of(id: &str) -> MaskMode {
    match id {
        "multiplicative" => MaskMode::Multiplicative,
        "none" => MaskMode::Unmasked,
        _ => MaskMode::Additive,
    }
}

/// The row of the scores view that holds the scores after the mask.
const MASKED_ROW: usize = 2;

pub struct MaskEmbeddingsWidget {
    shell: Shell,
    /// E (the chain's X), W^Q, W^K, W^V.
    editors: Editors,
    mask: RefCell<MatrixEditor>,
    query: HtmlSelectElement,
    mode: HtmlSelectElement,
    notice: HtmlElement,
    /// Q, K, V, the scores, the weights and the context c_t (the chain's output).
    views: Views,
    bars: BarView,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let example = masked_embeddings_example();
    let mode0 = attrs.choice("data-mode");
    let shell = Shell::new(ctx, host, &KIND);
    let editors = Editors::new(&shell.inputs, ("e", "E (embeddings, uma linha por token)"), token_label, [&example.x, &example.w_q, &example.w_k, &example.w_v]);
    let mask_m = Matrix::from_vec(1, example.mask.len(), example.mask.clone()).map_err(|e| e.to_string())?;
    let mask = MatrixEditor::new("mask", "máscara M (um peso de 0 a 1 por token)", &mask_m, mask_row);
    dom::append(&shell.inputs, &mask.root);
    let positions: Vec<(String, String)> = (0..example.x.rows()).map(|i| (i.to_string(), format!("posição {i}"))).collect();
    let (query_label, query) = ui::select("consulta t = ", "query", &positions, &example.t.to_string());
    let modes = vec![
        ("additive", "aditiva: score + ln m (0 → −∞)"),
        ("multiplicative", "multiplicativa: score × m (como no artigo original)"),
        ("none", "sem máscara"),
    ];
    let (mode_label, mode) = ui::select("máscara ", "mode", &modes, mode0);
    let reset = ui::button("restaurar exemplo", "reset");
    shell.control(&[&query_label, &mode_label, &reset]);
    let notice = live_note("note wide");
    let views = Views::new([
        ("q", "q_i = e_i · W^Q", ""),
        ("k", "K = E · W^K", ""),
        ("v", "V = E · W^V", ""),
        ("scores", "Scores de q_i", " produto, ÷ √dₖ, depois da máscara"),
        ("weights", "α_i = softmax", " soma 1"),
        ("context", "a_i = Σ_j α_{ij} v_j", ""),
    ]);
    let bars = BarView::new("alpha", "").probabilities();
    let [q, k, v, scores, weights, context] = views.all();
    dom::append_all(&shell.outputs, &[&notice, &q.root, &k.root, &v.root, &scores.root, &weights.root, &bars.root, &context.root]);
    let widget = Rc::new(MaskEmbeddingsWidget {
        shell,
        editors,
        mask: RefCell::new(mask),
        query,
        mode,
        notice,
        views,
        bars,
    });
    let shell = &widget.shell;
    shell.recompute_on(&widget, &["change"]);
    shell.on_action(&widget, |w, action| if action == "reset" { w.reset() });
    // Hovering or focusing a result's cell outlines where it came from.
    chain::on_hover(&widget, &widget.views, MaskEmbeddingsWidget::link);
    Ok(widget)
}

impl MaskEmbeddingsWidget {
    /// Outlines where a cell came from (`kit::chain`, for query t alone: q_t = e_t·W^Q, the
    /// weights α_t from the masked scores, c_t = α_t·V), and M's weight i for a masked score.
    fn link(&self, step: Step, cell: Option<(usize, usize)>) {
        let queries = Queries::One { token: self.query.value().parse().unwrap_or(0), scores_row: MASKED_ROW };
        Chain { editors: &self.editors, views: &self.views, identity: false, queries }.link(step, cell);
        let mask_weight = match (step, cell) {
            (Step::Scores, Some((MASKED_ROW, c))) => Some(c),
            _ => None,
        };
        self.mask.borrow().highlight(None, mask_weight);
    }

    fn reset(self: &Rc<Self>) {
        let example = masked_embeddings_example();
        self.editors.set([&example.x, &example.w_q, &example.w_k, &example.w_v]);
        if let Ok(m) = Matrix::from_vec(1, example.mask.len(), example.mask) {
            self.mask.borrow_mut().set(&m);
        }
        self.query.set_value(&example.t.to_string());
        self.mode.set_value("additive");
        self.clone().recompute();
    }

    fn job(&self) -> Result<MaskedQueryJob, String> {
        let x = self.editors.read_x()?;
        let mask = self.mask.borrow().read()?;
        if mask.cols() != x.rows() {
            return Err(format!("A máscara tem {} pesos para {} tokens.", mask.cols(), x.rows()));
        }
        let [w_q, w_k, w_v] = self.editors.read_w()?;
        Ok(MaskedQueryJob {
            x,
            w_q,
            w_k,
            w_v,
            t: self.query.value().parse().unwrap_or(0),
            mask: mask.row(0),
            mode: mode_of(&self.mode.value()),
        })
    }

    fn draw(&self, job: &MaskedQueryJob, out: &MaskedQuery) {
        let n = out.scores.len();
        let tokens: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        let row = |v: &[f32]| Matrix::from_vec(1, v.len(), v.to_vec()).unwrap_or_else(|_| Matrix::zeros(1, 0));
        let t = job.t;
        let show = |view: &MatrixView, m: Matrix, rows: Vec<String>, cols: Vec<String>, scale| view.show(&m, rows, cols, scale);
        show(&self.views.q, row(&out.q), vec![format!("q{}", dom::subscript(t))], numbered(out.q.len()), Scale::Signed);
        let keys: Vec<String> = (0..n).map(|i| format!("k{}", dom::subscript(i))).collect();
        let values: Vec<String> = (0..n).map(|i| format!("v{}", dom::subscript(i))).collect();
        show(&self.views.k, out.k.clone(), keys, numbered(out.k.cols()), Scale::Signed);
        show(&self.views.v, out.v.clone(), values, numbered(out.v.cols()), Scale::Signed);
        let mut scores = Matrix::zeros(MASKED_ROW + 1, n);
        for i in 0..n {
            scores.set(0, i, out.dot[i]);
            scores.set(1, i, out.scores[i]);
            scores.set(MASKED_ROW, i, out.masked_scores[i]);
        }
        let d_k = out.q.len();
        self.views.scores.show(&scores, vec!["q·k".into(), format!("÷ √{d_k}"), "com máscara".into()], tokens.clone(), Scale::Signed);
        show(&self.views.weights, row(&out.weights), vec![format!("α{}", dom::subscript(t))], tokens.clone(), Scale::Probability);
        let bar_labels: Vec<String> = (0..n).map(|i| format!("posição {i} (m = {})", format_pt(job.mask[i], 2))).collect();
        self.bars.update(&format!("Pesos de atenção da posição {t}"), &bar_labels, &out.weights);
        show(&self.views.output, row(&out.context), vec![format!("c{}", dom::subscript(t))], numbered(out.context.len()), Scale::Signed);
        let leaked: f32 = job.mask.iter().zip(&out.weights).filter(|(m, _)| **m == 0.0).map(|(_, a)| *a).sum();
        let note = match job.mode {
            MaskMode::Multiplicative if leaked > 0.0 => format!(
                "Multiplicar por 0 zera o score, mas e⁰ = 1: as posições com m = 0 ainda ficam com {} do peso no total. Para excluí-las, some −∞ (modo aditivo).",
                format_pt(leaked, 4)
            ),
            MaskMode::Additive => "Somar −∞ dá e^−∞ = 0: as posições com m = 0 ficam com peso exatamente 0, e as demais dividem o total.".into(),
            _ => String::new(),
        };
        self.notice.set_text_content(Some(&note));
    }
}

impl Widget for MaskEmbeddingsWidget {
    fn recompute(self: Rc<Self>) {
        let widget = self.clone();
        self.shell.compute_or(self.job(), move |job, out, _| widget.draw(job, &out));
    }
}
