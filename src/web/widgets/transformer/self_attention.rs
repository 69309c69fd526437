//! `self-attention-steps`: the textbook's Examples 1 and 2, one query at a time. A table lists,
//! for every key j, q_i·k_j, the score (÷√d_k in Example 2), exp(score), the weight α_ij and
//! α_ij·v_j; bars show the weights; heatmaps show Q, K, V, the whole score matrix (future cells
//! hatched under the causal mask), the weights and the outputs, and hovering a cell outlines
//! the rows and columns it was computed from. Where the inputs are the chapter's, a note
//! compares the computed values with the ones it prints.
//!
//! Attributes: `data-preset` = exemplo-1 (default) | exemplo-2; `data-causal="sim"` starts with
//! the mask on.

use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::attention::AttentionInputs;
use crate::core::format::{format_pt, format_pt_short};
use crate::core::transformer::self_attention::{identity, QueryStep, StepInputs, StepTrace};

use crate::web::dom;
use crate::web::kit::ui::{self, live_note, sync_choices};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::BarView;
use crate::web::kit::{control_of, controls, Ctx, Shell, Widget, WidgetKind};
use crate::web::kit::chain::{self, Chain, Editors, Queries, Step, Views};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::SELF_ATTENTION_STEPS, mount };

const MAX_TOKENS: usize = 8;

fn token(i: usize) -> String {
    format!("x{}", dom::subscript(i + 1))
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

/// The example a preset names. (What the original article prints for them is in the pages'
/// correction notes, not in the widget.)
fn preset(id: &str) -> StepInputs {
    match id {
        "exemplo-2" => StepInputs::example_2(),
        _ => StepInputs::example_1(),
    }
}

pub struct StepsWidget {
    shell: Shell,
    preset: HtmlSelectElement,
    editors: Editors,
    query: HtmlSelectElement,
    causal: HtmlInputElement,
    scaled: HtmlInputElement,
    steps: HtmlElement,
    correction: HtmlElement,
    bars: BarView,
    views: Views,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let wanted = attrs.choice("data-preset");
    let causal0 = attrs.flag("data-causal");
    let inputs = preset(wanted);
    let shell = Shell::new(ctx, host, &KIND);
    let a = &inputs.attention;
    let editors = Editors::new(&shell.inputs, ("x", "X (um token por linha)"), token, [&a.x, &a.w_q, &a.w_k, &a.w_v]);
    editors.x.borrow().resized_by("add-token", "remove-token");

    let options = [
        ("exemplo-1", "Exemplo 1: os próprios vetores"),
        ("exemplo-2", "Exemplo 2: com projeções para Q, K e V"),
    ];
    let (preset_label, preset_select) = ui::select("exemplo ", "preset", &options, wanted);
    let query_options: Vec<(String, String)> = (0..3).map(|i| (i.to_string(), token(i))).collect();
    let (query_label, query) = ui::select("consulta ", "query", &query_options, "1");
    controls::offered_later(&query);
    let (causal_label, causal) = ui::checkbox(" máscara causal (j ≤ i)", "causal", causal0);
    let (scaled_label, scaled) = ui::checkbox("", "scaled", inputs.scaled);
    dom::append(&scaled_label, &dom::notation("span", "", " dividir por √d_k"));
    let add = ui::button("+ token", "add-token");
    let remove = ui::button("− token", "remove-token");
    shell.control(&[&preset_label, &query_label, &causal_label, &scaled_label, &add, &remove]);

    let steps = dom::el("div", "steps wide");
    let correction = live_note("correction wide");
    let bars = BarView::new("weights", "").probabilities();
    let views = Views::new([
        ("q", "Q = X·W^Q", ""),
        ("k", "K = X·W^K", ""),
        ("v", "V = X·W^V", ""),
        ("scores", "Scores", ""),
        ("weights", "Pesos α = softmax(scores)", " cada linha soma 1"),
        ("output", "Saídas a = α · V", ""),
    ]);
    dom::append_all(&shell.outputs, &[&steps, &correction, &bars.root]);
    for view in views.all() {
        dom::append(&shell.outputs, &view.root);
    }

    let widget = Rc::new(StepsWidget {
        shell,
        preset: preset_select,
        editors,
        query,
        causal,
        scaled,
        steps,
        correction,
        bars,
        views,
    });
    widget.show_projections();
    let shell = &widget.shell;
    shell.on(&widget, &shell.inputs, &["input"], |w, _| w.clone().recompute());
    shell.on(&widget, &shell.controls, &["change"], |w, e| {
        if control_of(e) == "preset" {
            w.load_preset();
        }
        w.clone().recompute();
    });
    shell.on_action(&widget, |w, action| match action {
        "add-token" => w.resize(true),
        "remove-token" => w.resize(false),
        _ => {}
    });
    chain::on_hover(&widget, &widget.views, StepsWidget::link);
    Ok(widget)
}

impl StepsWidget {
    fn is_example_1(&self) -> bool {
        self.preset.value() != "exemplo-2"
    }

    /// Example 1 has no projections: the identity matrices are hidden, and Q, K and V are X
    /// itself, drawn once.
    fn show_projections(&self) {
        let example_1 = self.is_example_1();
        self.editors.hide_w(example_1);
        self.views.k.root.set_hidden(example_1);
        self.views.v.root.set_hidden(example_1);
        self.views.q.set_title(if example_1 { "Q = K = V = X" } else { "Q = X·W^Q" });
    }

    fn load_preset(&self) {
        let inputs = preset(&self.preset.value());
        let a = &inputs.attention;
        self.editors.set([&a.x, &a.w_q, &a.w_k, &a.w_v]);
        self.scaled.set_checked(inputs.scaled);
        self.show_projections();
    }

    fn resize(self: &Rc<Self>, grow: bool) {
        if grow && self.editors.x.borrow().rows() >= MAX_TOKENS {
            self.shell.begin();
            return self.shell.fail(&format!("No máximo {MAX_TOKENS} tokens neste passo a passo."));
        }
        let mut x = self.editors.x.borrow_mut();
        if grow { x.add_row() } else { x.remove_row() }
        drop(x);
        self.clone().recompute();
    }

    fn read(&self) -> Result<StepInputs, String> {
        let x = self.editors.read_x()?;
        let [w_q, w_k, w_v] = if self.is_example_1() { [(); 3].map(|_| identity(x.cols())) } else { self.editors.read_w()? };
        Ok(StepInputs { attention: AttentionInputs { x, w_q, w_k, w_v, causal: self.causal.checked() }, scaled: self.scaled.checked() })
    }

    /// Outlines where a cell came from (`kit::chain`; in Example 1, Q = K = V = X); at rest,
    /// the chosen query's row.
    fn link(&self, step: Step, cell: Option<(usize, usize)>) {
        let chosen = self.query.value().parse::<usize>().ok();
        let identity = self.is_example_1();
        Chain { editors: &self.editors, views: &self.views, identity, queries: Queries::All { chosen } }.link(step, cell);
    }

    /// The step table: one row per key j, then the sums.
    fn step_table(&self, trace: &StepTrace, step: &QueryStep, i: usize, scaled: bool) -> HtmlElement {
        let example_1 = self.is_example_1();
        let (key_name, value_name) = if example_1 { ("x", "x") } else { ("k", "v") };
        let table = dom::el("table", "results steps");
        dom::set_attr(&table, "data-results", "steps");
        let score_head = if scaled { format!("÷√d_k = ÷{}", format_pt(trace.divisor, 4)) } else { "score".to_string() };
        let dot_head = format!("{}{}·{key_name}ⱼ", if example_1 { "x" } else { "q" }, dom::subscript(i + 1));
        dom::append(&table, &dom::text("caption", "", &format!("Consulta {}: cada passo para cada chave j", token(i))));
        dom::append(&table, &dom::header_row(&["j", &format!("{key_name}ⱼ"), &dot_head, &score_head, "exp", "α", &format!("α·{value_name}ⱼ")]));
        let row = |class: &str, label: &str, cells: [(&str, String); 6]| {
            let tr = dom::el("tr", class);
            dom::append(&tr, &dom::th(label, "row"));
            for (col, text) in cells {
                let td = dom::text("td", "", &text);
                dom::set_attr(&td, "data-col", col);
                dom::append(&tr, &td);
            }
            tr
        };
        for j in 0..trace.q.rows() {
            let hidden = !step.visible[j];
            let tr = row(
                if hidden { "masked" } else { "" },
                &token(j),
                [
                    ("key", short_vector(&trace.k.row(j))),
                    ("dot", format_pt(step.dots[j], 4)),
                    ("score", if hidden { "−∞ (futuro)".into() } else { format_pt(step.scores[j], 4) }),
                    ("exp", format_pt(step.exps[j], 4)),
                    ("weight", format_pt(step.weights[j], 4)),
                    ("term", vector(&step.terms[j])),
                ],
            );
            dom::set_attr(&tr, "data-key", &(j + 1).to_string());
            dom::append(&table, &tr);
        }
        let total = row(
            "total",
            "soma",
            [
                ("key", String::new()),
                ("dot", String::new()),
                ("score", String::new()),
                ("exp", format_pt(step.sum, 4)),
                ("weight", format_pt(step.weights.iter().sum(), 4)),
                ("output", format!("a{} = {}", dom::subscript(i + 1), vector(&step.output))),
            ],
        );
        dom::append(&table, &total);
        table
    }

    fn draw(&self, inputs: &StepInputs, trace: &StepTrace) {
        let tokens: Vec<String> = (0..trace.q.rows()).map(token).collect();
        // One query option per token; x₂ by default, as the chapter.
        let i = sync_choices(&self.query, &tokens, 1);
        let step = trace.query(i);
        self.steps.set_text_content(None);
        dom::append(&self.steps, &self.step_table(trace, &step, i, inputs.scaled));

        self.bars.update(&format!("Pesos da consulta {}", token(i)), &tokens, &step.weights);
        let example_1 = self.is_example_1();
        self.views.explain(trace.chain_numbers(inputs, !example_1));
        self.views.scores.set_title(match (example_1, inputs.scaled) {
            (true, true) => "Scores X·Xᵀ/√d_k",
            (true, false) => "Scores X·Xᵀ (produtos escalares)",
            (false, true) => "Scores QKᵀ/√d_k",
            (false, false) => "Scores QKᵀ (sem dividir por √d_k)",
        });
        self.views.output.set_title(if example_1 { "Saídas a = α · X" } else { "Saídas a = α · V" });
        // After the titles: the twin tables' captions and the tooltips name the matrices by them.
        self.views.show_all(&tokens, [&trace.q, &trace.k, &trace.v, &trace.scores, &trace.weights, &trace.output], trace.causal);
        self.correction.set_text_content(Some(&self.correction_text(inputs, &step, i)));
        self.link(Step::Scores, None);
    }

    /// What the mask does to query x₂ of the example when the inputs are its own (the values
    /// the original article prints are in the page's correction notes); otherwise explains the mask.
    fn correction_text(&self, inputs: &StepInputs, step: &QueryStep, i: usize) -> String {
        let reference = preset(&self.preset.value());
        let (a, r) = (&inputs.attention, &reference.attention);
        let same = a.x == r.x && a.w_q == r.w_q && a.w_k == r.w_k && a.w_v == r.w_v && inputs.scaled == reference.scaled;
        let weights = step.weights.iter().map(|v| format_pt(*v, 4)).collect::<Vec<_>>().join("; ");
        match (same, a.causal, i) {
            (true, false, 1) => format!(
                "As contas acima dão α = [{weights}] e a₂ = {}. Sem a máscara, x₃, que vem depois de x₂, também entra na soma; \
                 a fórmula com j ≤ i o deixa de fora: ligue a máscara causal para ver.",
                vector(&step.output)
            ),
            (true, true, 1) => format!(
                "Com a máscara, x₃ (posterior a x₂) fica de fora, como pede a fórmula com j ≤ i: α = [{weights}] e a₂ = {}.",
                vector(&step.output)
            ),
            (_, true, _) => "Com a máscara causal, as chaves posteriores à consulta recebem score −∞ e peso 0.".into(),
            _ => "Sem máscara, cada consulta vê todas as chaves, inclusive as posteriores.".into(),
        }
    }
}

impl Widget for StepsWidget {
    fn recompute(self: Rc<Self>) {
        let widget = self.clone();
        self.shell.compute_or(self.read(), move |inputs, trace, _| widget.draw(inputs, &trace));
    }

    /// A restored number of tokens (`x@size`) adds or removes rows of X; a restored example
    /// fills the editors, as choosing it does.
    fn restore(&self, key: &str, value: &str) -> Option<bool> {
        match key {
            "x@size" => {
                let mut x = self.editors.x.borrow_mut();
                let rows = x.rows_for(value).filter(|n| (1..=MAX_TOKENS).contains(n));
                Some(rows.inspect(|&n| x.set_rows(n)).is_some())
            }
            "preset" => {
                self.load_preset();
                Some(true)
            }
            _ => None,
        }
    }
}
