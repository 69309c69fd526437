//! `self-attention-steps`: the textbook's Examples 1 and 2, one query at a time. A table lists,
//! for every key j, q_i·k_j, the score (÷√d_k in Example 2), exp(score), the weight α_ij and
//! α_ij·v_j; bars show the weights; heatmaps show the whole score matrix (future cells hatched
//! under the causal mask), the weights and the outputs. Where the inputs are the chapter's,
//! a note compares the computed values with the ones it prints.
//!
//! Attributes: `data-preset` = exemplo-1 (default) | exemplo-2; `data-causal="sim"` starts with
//! the mask on.

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::format::{format_pt, format_pt_short};
use crate::core::transformer::self_attention::{StepInputs, StepTrace};

use crate::web::dom::{self, Listener};
use crate::web::kit::draw::{BarView, Scale, HeatmapData, MatrixView};
use crate::web::kit::ui::editor::MatrixEditor;
use crate::web::kit::attributes::Attributes;
use crate::web::kit::{show_error, Ctx, Updates, Widget, WidgetKind};
use super::{backend_note, control_of, frame, listen};

pub const KIND: WidgetKind = WidgetKind { name: "self-attention-steps", title: "Autoatenção passo a passo", mount };

const MAX_TOKENS: usize = 8;

fn token(i: usize) -> String {
    format!("x{}", dom::subscript(i + 1))
}

fn weight_row(i: usize) -> String {
    format!("linha {}", i + 1)
}

fn vector(values: &[f32]) -> String {
    let parts: Vec<String> = values.iter().map(|v| format_pt(*v, 4)).collect();
    format!("[{}]", parts.join("; "))
}

/// An input vector, without trailing zeros: [1; 0; 0], [0,9; 0,8; 0,7].
fn short_vector(values: &[f32]) -> String {
    let parts: Vec<String> = values.iter().map(|v| format_pt_short(*v, 4)).collect();
    format!("[{}]", parts.join("; "))
}

/// Replaces the title text of a `MatrixView` (its first text node), keeping the caption span.
fn retitle(view: &MatrixView, title: &str) {
    if let Some(first) = view.root.query_selector(".mv-title").ok().flatten().and_then(|t| t.first_child()) {
        first.set_text_content(Some(title));
    }
}

/// The chapter's printed (wrong) numbers for query x₂ without the mask.
struct Printed {
    weights: &'static str,
    output: &'static str,
}

fn preset(id: &str) -> (StepInputs, Option<Printed>) {
    match id {
        "exemplo-2" => (StepInputs::example_2(), Some(Printed { weights: "0,30; 0,23; 0,47", output: "[0,22; 0,48; 0,77]" })),
        _ => (StepInputs::example_1(), Some(Printed { weights: "0,14; 0,43; 0,43", output: "[0,57; 0,86; 0]" })),
    }
}

pub struct StepsWidget {
    ctx: Rc<Ctx>,
    host: HtmlElement,
    preset: HtmlSelectElement,
    x: RefCell<MatrixEditor>,
    w_q: RefCell<MatrixEditor>,
    w_k: RefCell<MatrixEditor>,
    w_v: RefCell<MatrixEditor>,
    projections: HtmlElement,
    query: HtmlSelectElement,
    causal: HtmlInputElement,
    scaled: HtmlInputElement,
    steps: HtmlElement,
    correction: HtmlElement,
    bars: BarView,
    scores: Rc<MatrixView>,
    weights: Rc<MatrixView>,
    output: Rc<MatrixView>,
    backend_note: HtmlElement,
    updates: Updates,
    listeners: RefCell<Vec<Listener>>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let wanted = attrs.choice("data-preset").to_string();
    let causal0 = attrs.flag("data-causal");
    let (inputs, _) = preset(&wanted);
    frame(host, KIND.title);

    let controls = dom::el("div", "widget-controls");
    let options = [
        ("exemplo-1".to_string(), "Exemplo 1: os próprios vetores".to_string()),
        ("exemplo-2".to_string(), "Exemplo 2: com W^Q, W^K, W^V".to_string()),
    ];
    let (preset_label, preset_select) = dom::select("exemplo ", "preset", &options, &wanted);
    let query_options: Vec<(String, String)> = (0..3).map(|i| (i.to_string(), token(i))).collect();
    let (query_label, query) = dom::select("consulta ", "query", &query_options, "1");
    let (causal_label, causal) = dom::checkbox(" máscara causal (j ≤ i)", "causal", causal0);
    let (scaled_label, scaled) = dom::checkbox(" dividir por √d_k", "scaled", inputs.scaled);
    let add = dom::button("+ token", "add-token");
    let remove = dom::button("− token", "remove-token");
    let (twins, twins_listener) = crate::web::kit::twins_button(host);
    for el in [&preset_label, &query_label, &causal_label, &scaled_label, &add, &remove, &twins] {
        dom::append(&controls, el);
    }
    dom::append(host, &controls);

    let inputs_box = dom::el("div", "widget-inputs");
    let a = &inputs.attention;
    let x = MatrixEditor::new("x", "X (um token por linha)", &a.x, token);
    let projections = dom::el("div", "widget-inputs");
    let w_q = MatrixEditor::new("w_q", "W^Q", &a.w_q, weight_row);
    let w_k = MatrixEditor::new("w_k", "W^K", &a.w_k, weight_row);
    let w_v = MatrixEditor::new("w_v", "W^V", &a.w_v, weight_row);
    for e in [&w_q, &w_k, &w_v] {
        dom::append(&projections, &e.root);
    }
    dom::append(&inputs_box, &x.root);
    dom::append(&inputs_box, &projections);
    dom::append(host, &inputs_box);

    let steps = dom::el("div", "steps");
    dom::append(host, &steps);
    let correction = dom::el("p", "correction");
    dom::set_attr(&correction, "aria-live", "polite");
    dom::append(host, &correction);
    let outputs = dom::el("div", "widget-outputs");
    let bars = BarView::new("weights", "");
    let scores = MatrixView::new("scores", "Scores", "");
    let weights = MatrixView::new("weights", "Pesos α = softmax(scores)", " cada linha soma 1");
    let output = MatrixView::new("output", "Saídas a = α · V", "");
    dom::append(&outputs, &bars.root);
    for v in [&scores, &weights, &output] {
        dom::append(&outputs, &v.root);
    }
    dom::append(host, &outputs);
    let backend_note = backend_note(host);

    let widget = Rc::new(StepsWidget {
        ctx: ctx.clone(),
        host: host.clone(),
        preset: preset_select,
        x: RefCell::new(x),
        w_q: RefCell::new(w_q),
        w_k: RefCell::new(w_k),
        w_v: RefCell::new(w_v),
        projections,
        query,
        causal,
        scaled,
        steps,
        correction,
        bars,
        scores,
        weights,
        output,
        backend_note,
        updates: Updates::default(),
        listeners: RefCell::new(Vec::new()),
    });
    widget.show_projections();
    *widget.listeners.borrow_mut() = vec![
        listen(&widget, &inputs_box, "input", |w, _| w.clone().recompute()),
        listen(&widget, &controls, "change", |w, e| {
            if control_of(e) == "preset" {
                w.load_preset();
            }
            w.clone().recompute();
        }),
        listen(&widget, &add, "click", |w, _| w.resize(true)),
        listen(&widget, &remove, "click", |w, _| w.resize(false)),
        twins_listener,
    ];
    Ok(widget)
}

impl StepsWidget {
    fn is_example_1(&self) -> bool {
        self.preset.value() != "exemplo-2"
    }

    /// Example 1 has no projections: hide the identity matrices and say so.
    fn show_projections(&self) {
        self.projections.set_hidden(self.is_example_1());
    }

    fn load_preset(&self) {
        let (inputs, _) = preset(&self.preset.value());
        let a = &inputs.attention;
        self.x.borrow_mut().set(&a.x);
        self.w_q.borrow_mut().set(&a.w_q);
        self.w_k.borrow_mut().set(&a.w_k);
        self.w_v.borrow_mut().set(&a.w_v);
        self.scaled.set_checked(inputs.scaled);
        self.show_projections();
    }

    fn resize(self: &Rc<Self>, grow: bool) {
        {
            let mut x = self.x.borrow_mut();
            if grow && x.rows() >= MAX_TOKENS {
                drop(x);
                return show_error(&self.host, &format!("No máximo {MAX_TOKENS} tokens neste passo a passo."));
            }
            if grow { x.add_row() } else { x.remove_row() }
        }
        self.clone().recompute();
    }

    fn read(&self) -> Result<StepInputs, String> {
        let read = |e: &RefCell<MatrixEditor>| e.borrow().read().map_err(|err| err.message);
        let x = read(&self.x)?;
        let (w_q, w_k, w_v) = if self.is_example_1() {
            let id = crate::core::transformer::self_attention::identity(x.cols());
            (id.clone(), id.clone(), id)
        } else {
            (read(&self.w_q)?, read(&self.w_k)?, read(&self.w_v)?)
        };
        Ok(StepInputs {
            attention: crate::core::attention::AttentionInputs { x, w_q, w_k, w_v, causal: self.causal.checked() },
            scaled: self.scaled.checked(),
        })
    }

    /// Keeps one query option per token, preserving the choice (x₂ by default, as the chapter).
    fn sync_query(&self, t: usize) -> usize {
        let previous = self.query.value().parse::<usize>().ok();
        if self.query.length() as usize != t {
            self.query.set_text_content(None);
            for i in 0..t {
                let option = dom::text("option", "", &token(i));
                dom::set_attr(&option, "value", &i.to_string());
                dom::append(&self.query, &option);
            }
        }
        let chosen = previous.filter(|&i| i < t).unwrap_or(1.min(t - 1));
        self.query.set_value(&chosen.to_string());
        chosen
    }

    fn draw(&self, inputs: &StepInputs, trace: &StepTrace) {
        let t = trace.q.rows();
        let i = self.sync_query(t);
        let step = trace.query(i);
        let example_1 = self.is_example_1();
        let (key_name, value_name) = if example_1 { ("x", "x") } else { ("k", "v") };

        // The step table: one row per key.
        self.steps.set_text_content(None);
        let table = dom::el("table", "results steps");
        dom::set_attr(&table, "data-results", "steps");
        let score_head = if inputs.scaled { format!("÷√d_k = ÷{}", format_pt(trace.divisor, 4)) } else { "score".to_string() };
        let dot_head = if example_1 { format!("x{}·xⱼ", dom::subscript(i + 1)) } else { format!("q{}·kⱼ", dom::subscript(i + 1)) };
        dom::append(&table, &dom::text("caption", "", &format!("Consulta {}: cada passo para cada chave j", token(i))));
        let head = dom::el("tr", "");
        for h in ["j", &format!("{key_name}ⱼ"), &dot_head, &score_head, "exp", "α", &format!("α·{value_name}ⱼ")] {
            let th = dom::text("th", "", h);
            dom::set_attr(&th, "scope", "col");
            dom::append(&head, &th);
        }
        dom::append(&table, &head);
        for j in 0..t {
            let tr = dom::el("tr", if step.visible[j] { "" } else { "masked" });
            dom::set_attr(&tr, "data-key", &(j + 1).to_string());
            let th = dom::text("th", "", &token(j));
            dom::set_attr(&th, "scope", "row");
            dom::append(&tr, &th);
            let cell = |col: &str, text: String| {
                let td = dom::text("td", "", &text);
                dom::set_attr(&td, "data-col", col);
                td
            };
            let hidden = !step.visible[j];
            dom::append(&tr, &cell("key", short_vector(&trace.k.row(j))));
            dom::append(&tr, &cell("dot", format_pt(step.dots[j], 4)));
            dom::append(&tr, &cell("score", if hidden { "−∞ (futuro)".into() } else { format_pt(step.scores[j], 4) }));
            dom::append(&tr, &cell("exp", format_pt(step.exps[j], 4)));
            dom::append(&tr, &cell("weight", format_pt(step.weights[j], 4)));
            dom::append(&tr, &cell("term", vector(&step.terms[j])));
            dom::append(&table, &tr);
        }
        let total = dom::el("tr", "total");
        let th = dom::text("th", "", "soma");
        dom::set_attr(&th, "scope", "row");
        dom::append(&total, &th);
        for (col, text) in [
            ("key", String::new()),
            ("dot", String::new()),
            ("score", String::new()),
            ("exp", format_pt(step.sum, 4)),
            ("weight", format_pt(step.weights.iter().sum(), 4)),
            ("output", format!("a{} = {}", dom::subscript(i + 1), vector(&step.output))),
        ] {
            let td = dom::text("td", "", &text);
            dom::set_attr(&td, "data-col", col);
            dom::append(&total, &td);
        }
        dom::append(&table, &total);
        dom::append(&self.steps, &table);

        let tokens: Vec<String> = (0..t).map(token).collect();
        self.bars.update(&format!("Pesos da consulta {}", token(i)), &tokens, &step.weights);
        let causal = trace.causal;
        let dims = |n: usize| (1..=n).map(|j| j.to_string()).collect::<Vec<_>>();
        let mask = || causal.then(|| Box::new(|r: usize, c: usize| c > r) as Box<dyn Fn(usize, usize) -> bool>);
        let scores_title = if inputs.scaled { "QKᵀ/√d_k" } else { "X·Xᵀ (produtos escalares)" };
        self.scores.update(HeatmapData { matrix: trace.scores.clone(), row_labels: tokens.clone(), col_labels: tokens.clone(), scale: Scale::Signed, masked: mask() });
        self.weights.update(HeatmapData { matrix: trace.weights.clone(), row_labels: tokens.clone(), col_labels: tokens.clone(), scale: Scale::Probability, masked: None });
        self.output.update(HeatmapData { matrix: trace.output.clone(), row_labels: tokens, col_labels: dims(trace.output.cols()), scale: Scale::Signed, masked: None });
        retitle(&self.scores, &format!("Scores {scores_title}"));
        retitle(&self.output, if example_1 { "Saídas a = α · X" } else { "Saídas a = α · V" });
        self.correction.set_text_content(Some(&self.correction_text(inputs, &step, i)));
    }

    /// Compares with the chapter when the inputs are its own; otherwise explains the mask.
    fn correction_text(&self, inputs: &StepInputs, step: &crate::core::transformer::self_attention::QueryStep, i: usize) -> String {
        let (reference, printed) = preset(&self.preset.value());
        let same = inputs.attention.x == reference.attention.x
            && inputs.attention.w_q == reference.attention.w_q
            && inputs.attention.w_k == reference.attention.w_k
            && inputs.attention.w_v == reference.attention.w_v
            && inputs.scaled == reference.scaled;
        let weights = step.weights.iter().map(|v| format_pt(*v, 4)).collect::<Vec<_>>().join("; ");
        match (same, inputs.attention.causal, i, printed) {
            (true, false, 1, Some(p)) => format!(
                "O capítulo imprime α = [{}] e a₂ = {}. As contas acima dão α = [{weights}] e a₂ = {}. \
                 E x₃ vem depois de x₂: a fórmula do capítulo (só j ≤ i) não o deixaria entrar; ligue a máscara causal para ver.",
                p.weights,
                p.output,
                vector(&step.output)
            ),
            (true, true, 1, _) => format!(
                "Com a máscara, x₃ (posterior a x₂) fica de fora, como a fórmula do capítulo pede: α = [{weights}] e a₂ = {}.",
                vector(&step.output)
            ),
            (_, true, _, _) => "Com a máscara causal, as chaves posteriores à consulta recebem score −∞ e peso 0.".into(),
            _ => "Sem máscara, cada consulta vê todas as chaves, inclusive as posteriores.".into(),
        }
    }
}

impl Widget for StepsWidget {
    fn recompute(self: Rc<Self>) {
        let update = self.updates.begin();
        let inputs = match self.read() {
            Ok(inputs) => inputs,
            Err(message) => return show_error(&self.host, &message),
        };
        let widget = self.clone();
        crate::web::kit::update::compute(&self.ctx, &self.host, update, Some(&self.backend_note), inputs, move |inputs, trace, _| {
            widget.draw(inputs, &trace);
        });
    }
}
