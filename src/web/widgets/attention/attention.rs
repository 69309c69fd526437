//! `attention`: single-head self-attention with editable X, W^Q, W^K, W^V (default: the
//! textbook chapter's Example 2). Shows Q, K, V, the scores QKᵀ/√d_k (with the causal mask
//! when on), the softmax weights and the output, computed on the active backend.
//!
//! Attributes: `data-preset` (`prestando-e5`: the three-word example of "prestando-atencao";
//! default: the textbook's Example 2), `data-causal` ("true" starts with the mask on),
//! `data-matrices` (JSON: any of x, w_q, w_k, w_v replacing the preset's).

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::attention::{AttentionInputs, AttentionTrace};
use crate::core::examples::textbook_example_2;
use crate::core::sequence::presets::three_word_attention;

use crate::web::dom;
use crate::web::kit::ui::{self, sync_choices};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::chain::{self, Chain, Editors, Queries, Step, Views};
use crate::web::kit::draw::BarView;
use crate::web::kit::{controls, Ctx, Shell, Widget, WidgetKind};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::ATTENTION, mount };

/// More tokens than this would make the heatmaps unreadable on a phone.
const MAX_TOKENS: usize = 12;

fn token_label(i: usize) -> String {
    format!("x{}", dom::subscript(i + 1))
}

/// The example named by `data-preset`.
fn preset_inputs(id: &str) -> AttentionInputs {
    match id {
        "prestando-e5" => three_word_attention(),
        _ => textbook_example_2(),
    }
}

pub struct AttentionWidget {
    shell: Shell,
    editors: Editors,
    causal: HtmlInputElement,
    /// Which token's weights the bar chart shows.
    query: HtmlSelectElement,
    /// The `data-preset` example ("restaurar exemplo" brings it back).
    example: AttentionInputs,
    /// The `data-causal` setting of the example.
    causal_default: bool,
    bars: BarView,
    views: Views,
    /// The query the step-through explains: its scores, weights and output, in numbers.
    step: HtmlElement,
    /// The last result, for the step-through and the linked highlighting.
    last: RefCell<Option<AttentionTrace>>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let mut example = preset_inputs(attrs.choice("data-preset"));
    for (name, matrix) in attrs.matrices(&["x", "w_q", "w_k", "w_v"])? {
        match name.as_str() {
            "x" => example.x = matrix,
            "w_q" => example.w_q = matrix,
            "w_k" => example.w_k = matrix,
            _ => example.w_v = matrix,
        }
    }
    if example.x.rows() > MAX_TOKENS {
        return Err(format!("data-matrices: X tem {} tokens; este widget mostra no máximo {MAX_TOKENS}.", example.x.rows()));
    }
    let causal_default = attrs.flag("data-causal");
    let shell = Shell::new(ctx, host, &KIND);
    let editors = Editors::new(&shell.inputs, ("x", "X (tokens)"), token_label, [&example.x, &example.w_q, &example.w_k, &example.w_v]);
    editors.x.borrow().resized_by("add-token", "remove-token");

    let (causal_label, causal) = ui::checkbox(" máscara causal (cada token só vê os anteriores)", "causal", causal_default);
    // The step-through: one query at a time (its scores, weights and output below).
    let stepper = dom::el("span", "query-step");
    let previous = ui::button("◀", "previous-query");
    dom::set_attr(&previous, "aria-label", "consulta anterior");
    let next = ui::button("▶", "next-query");
    dom::set_attr(&next, "aria-label", "próxima consulta");
    let query_label = dom::el("label", "toggle");
    dom::append(&query_label, &dom::text("span", "", "consulta "));
    let query = dom::el("select", "").unchecked_into::<HtmlSelectElement>();
    dom::set_attr(&query, "data-control", "query");
    // One option per token, set when drawn: a restored query among added tokens waits for it.
    controls::offered_later(&query);
    dom::append(&query_label, &query);
    dom::append_all(&stepper, &[&previous, &query_label, &next]);
    let add = ui::button("+ token", "add-token");
    let remove = ui::button("− token", "remove-token");
    let reset = ui::button("restaurar exemplo", "reset");
    shell.control(&[&causal_label, &stepper, &add, &remove, &reset]);

    let views = Views::new([
        ("q", "Q = X·W^Q", ""),
        ("k", "K = X·W^K", ""),
        ("v", "V = X·W^V", ""),
        ("scores", "S = Q·Kᵀ/√d_k", ""),
        ("weights", "A = softmax(S)", " cada linha soma 1"),
        ("output", "Saída = A·V", ""),
    ]);
    for view in views.all() {
        dom::append(&shell.outputs, &view.root);
    }
    let bars = BarView::new("query-weights", "").probabilities();
    dom::append(&shell.outputs, &bars.root);
    let step = ui::live("div", "attention-step wide");
    dom::append(&shell.outputs, &step);

    let widget = Rc::new(AttentionWidget {
        shell,
        editors,
        causal,
        query,
        example,
        causal_default,
        bars,
        views,
        step,
        last: RefCell::new(None),
    });
    let shell = &widget.shell;
    // Any cell edit, the mask or the query recomputes; the buttons say what they do.
    shell.recompute_on(&widget, &["change"]);
    shell.on_action(&widget, |w, action| match action {
        "add-token" => w.resize_tokens(true),
        "remove-token" => w.resize_tokens(false),
        "reset" => w.reset(),
        "previous-query" => w.move_query(-1),
        "next-query" => w.move_query(1),
        _ => {}
    });
    // Hovering or focusing a result's cell outlines where it came from.
    chain::on_hover(&widget, &widget.views, AttentionWidget::link);
    // The query menu has its options from the start, so the value the state keeper records
    // as the mount's (to tell edits apart) is the example's query, on either backend.
    let tokens: Vec<String> = (0..widget.example.x.rows()).map(token_label).collect();
    sync_choices(&widget.query, &tokens, 1);
    Ok(widget)
}

impl AttentionWidget {
    /// Outlines where a cell came from (`kit::chain`); at rest, the step-through's query.
    fn link(&self, step: Step, cell: Option<(usize, usize)>) {
        let chosen = self.query.value().parse::<usize>().ok();
        Chain { editors: &self.editors, views: &self.views, identity: false, queries: Queries::All { chosen } }.link(step, cell);
    }

    /// The previous or next query of the step-through.
    fn move_query(self: &Rc<Self>, delta: i32) {
        let n = self.query.length() as i32;
        if n == 0 {
            return;
        }
        let current = self.query.value().parse::<i32>().unwrap_or(0);
        self.query.set_value(&((current + delta).rem_euclid(n)).to_string());
        if let Some(trace) = self.last.borrow().as_ref() {
            self.draw_query(trace);
        }
    }

    /// One query step by step: its scores, its weights, its output; and its row outlined.
    fn draw_query(&self, trace: &AttentionTrace) {
        let tokens: Vec<String> = (0..trace.q.rows()).map(token_label).collect();
        // One option per token; x₂ by default, the textbook's query.
        let i = sync_choices(&self.query, &tokens, 1);
        let title = format!("Pesos de atenção da consulta {} (linha {} de A)", tokens[i], i + 1);
        self.bars.update(&title, &tokens, &trace.weights.row(i));
        let list = |values: Vec<f32>| values.iter().map(|&v| crate::core::format::format_pt(v, 4)).collect::<Vec<_>>().join("; ");
        let d_k = trace.q.cols();
        let q = &tokens[i];
        self.step.set_text_content(None);
        for (label, text) in [
            (format!("1. Scores da consulta {q}"), format!("s = q·kⱼ / √{d_k} = [{}]", list(trace.scores.row(i)))),
            ("2. Pesos".to_string(), format!("a = softmax(s) = [{}] (somam 1)", list(trace.weights.row(i)))),
            ("3. Saída".to_string(), format!("o = Σⱼ aⱼ·vⱼ = [{}]", list(trace.output.row(i)))),
        ] {
            let line = dom::el("p", "step-line");
            dom::append_all(&line, &[&dom::text("strong", "", &label), &dom::text("span", "", &format!(": {text}"))]);
            dom::append(&self.step, &line);
        }
        self.link(Step::Scores, None);
    }

    fn resize_tokens(self: &Rc<Self>, grow: bool) {
        {
            let mut x = self.editors.x.borrow_mut();
            if grow {
                if x.rows() >= MAX_TOKENS {
                    self.shell.fail(&format!("No máximo {MAX_TOKENS} tokens neste widget."));
                    return;
                }
                x.add_row();
            } else {
                x.remove_row();
            }
        }
        self.clone().recompute();
    }

    fn reset(self: &Rc<Self>) {
        let example = &self.example;
        self.editors.set([&example.x, &example.w_q, &example.w_k, &example.w_v]);
        self.causal.set_checked(self.causal_default);
        self.clone().recompute();
    }

    fn read_inputs(&self) -> Result<AttentionInputs, String> {
        let x = self.editors.read_x()?;
        let [w_q, w_k, w_v] = self.editors.read_w()?;
        Ok(AttentionInputs { x, w_q, w_k, w_v, causal: self.causal.checked() })
    }

    fn draw(&self, inputs: &AttentionInputs, trace: &AttentionTrace) {
        let tokens: Vec<String> = (0..trace.q.rows()).map(token_label).collect();
        self.views.show_all(&tokens, [&trace.q, &trace.k, &trace.v, &trace.scores, &trace.weights, &trace.output], inputs.causal);
        self.views.explain(trace.chain_numbers(inputs));
        self.draw_query(trace);
        *self.last.borrow_mut() = Some(trace.clone());
    }
}

impl Widget for AttentionWidget {
    fn recompute(self: Rc<Self>) {
        let widget = self.clone();
        self.shell.compute_or(self.read_inputs(), move |inputs, trace, _| widget.draw(inputs, &trace));
    }

    /// A restored number of tokens (`x@size`) adds or removes rows of X, within the limit.
    fn restore(&self, key: &str, value: &str) -> Option<bool> {
        (key == "x@size").then(|| {
            let mut x = self.editors.x.borrow_mut();
            let rows = x.rows_for(value).filter(|n| (1..=MAX_TOKENS).contains(n));
            rows.inspect(|&n| x.set_rows(n)).is_some()
        })
    }
}
