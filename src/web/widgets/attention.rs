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

use super::super::draw::{BarView, ColorScale, HeatmapData, MatrixView};
use super::super::dom::{self, Listener};
use super::editor::MatrixEditor;
use super::{show_error, Ctx, Updates, Widget, WidgetKind};
use crate::web::widgets::hood;

pub const KIND: WidgetKind = WidgetKind { name: "attention", title: "Atenção com Q, K e V", mount };

/// More tokens than this would make the heatmaps unreadable on a phone.
const MAX_TOKENS: usize = 12;

fn token_label(i: usize) -> String {
    format!("x{}", dom::subscript(i + 1))
}

/// `data-preset` values: the textbook's Example 2 (default) and the three words of "prestando-atencao".
const PRESETS: &[&str] = &["exemplo-2", "prestando-e5"];

/// The example named by `data-preset`.
fn preset_inputs(id: &str) -> AttentionInputs {
    match id {
        "prestando-e5" => three_word_attention(),
        _ => textbook_example_2(),
    }
}

fn weight_row_label(i: usize) -> String {
    format!("linha {}", i + 1)
}

struct Views {
    q: Rc<MatrixView>,
    k: Rc<MatrixView>,
    v: Rc<MatrixView>,
    scores: Rc<MatrixView>,
    weights: Rc<MatrixView>,
    output: Rc<MatrixView>,
}

impl Views {
    fn all(&self) -> [&Rc<MatrixView>; 6] {
        [&self.q, &self.k, &self.v, &self.scores, &self.weights, &self.output]
    }
}

pub struct AttentionWidget {
    ctx: Rc<Ctx>,
    host: HtmlElement,
    x: RefCell<MatrixEditor>,
    w_q: RefCell<MatrixEditor>,
    w_k: RefCell<MatrixEditor>,
    w_v: RefCell<MatrixEditor>,
    causal: HtmlInputElement,
    /// Which token's weights the bar chart shows.
    query: HtmlSelectElement,
    /// The `data-preset` example ("restaurar exemplo" brings it back).
    example: AttentionInputs,
    /// The `data-causal` setting of the example.
    causal_default: bool,
    bars: BarView,
    views: Views,
    backend_note: HtmlElement,
    /// Only the newest computation may draw: edits can outrun a GPU round trip.
    updates: Updates,
    listeners: RefCell<Vec<Listener>>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement) -> Result<Rc<dyn Widget>, String> {
    let mut example = preset_inputs(super::attributes::choice(host, "data-preset", PRESETS, PRESETS[0]));
    for (name, matrix) in super::attributes::matrices(host, &["x", "w_q", "w_k", "w_v"])? {
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
    let causal_default = super::attributes::flag(host, "data-causal");
    dom::set_attr(host, "data-state", "loading");
    host.class_list().add_1("widget").map_err(|_| "classList indisponível".to_string())?;
    host.set_text_content(None);

    dom::append(host, &dom::text("h3", "widget-title", KIND.title));
    let inputs = dom::el("div", "widget-inputs");
    let x = MatrixEditor::new("x", "X (tokens)", &example.x, token_label);
    let w_q = MatrixEditor::new("w_q", "W^Q", &example.w_q, weight_row_label);
    let w_k = MatrixEditor::new("w_k", "W^K", &example.w_k, weight_row_label);
    let w_v = MatrixEditor::new("w_v", "W^V", &example.w_v, weight_row_label);
    for editor in [&x, &w_q, &w_k, &w_v] {
        dom::append(&inputs, &editor.root);
    }
    dom::append(host, &inputs);

    let controls = dom::el("div", "widget-controls");
    let (causal_label, causal) = dom::checkbox(" máscara causal (cada token só vê os anteriores)", "causal", causal_default);
    let query_label = dom::el("label", "toggle");
    dom::append(&query_label, &dom::text("span", "", "pesos da consulta "));
    let query = dom::el("select", "").unchecked_into::<HtmlSelectElement>();
    dom::set_attr(&query, "data-control", "query");
    dom::append(&query_label, &query);
    let add = dom::button("+ token", "add-token");
    let remove = dom::button("− token", "remove-token");
    let reset = dom::button("restaurar exemplo", "reset");
    let (twins, twins_listener) = super::twins_button(host);
    for el in [causal_label.clone(), query_label, add.clone(), remove.clone(), reset.clone(), twins.clone()] {
        dom::append(&controls, &el);
    }
    dom::append(host, &controls);

    let outputs = dom::el("div", "widget-outputs");
    let views = Views {
        q: MatrixView::new("q", "Q = X·W^Q", ""),
        k: MatrixView::new("k", "K = X·W^K", ""),
        v: MatrixView::new("v", "V = X·W^V", ""),
        scores: MatrixView::new("scores", "S = Q·Kᵀ/√d_k", ""),
        weights: MatrixView::new("weights", "A = softmax(S)", " cada linha soma 1"),
        output: MatrixView::new("output", "Saída = A·V", ""),
    };
    for view in views.all() {
        dom::append(&outputs, &view.root);
    }
    let bars = BarView::new("query-weights", "");
    dom::append(&outputs, &bars.root);
    dom::append(host, &outputs);
    let backend_note = dom::el("p", "widget-backend");
    dom::set_attr(&backend_note, "aria-live", "polite");
    dom::append(host, &backend_note);

    let widget = Rc::new(AttentionWidget {
        ctx: ctx.clone(),
        host: host.clone(),
        x: RefCell::new(x),
        w_q: RefCell::new(w_q),
        w_k: RefCell::new(w_k),
        w_v: RefCell::new(w_v),
        causal,
        query,
        example,
        causal_default,
        bars,
        views,
        backend_note,
        updates: Updates::default(),
        listeners: RefCell::new(Vec::new()),
    });

    let on = |target: &HtmlElement, kind: &'static str, action: fn(&Rc<AttentionWidget>)| crate::web::widgets::listen(&widget, target, kind, move |w, _| action(w));
    let listeners = vec![
        // One delegated listener: any cell edit or the checkbox recomputes.
        on(&inputs, "input", |w| w.clone().recompute()),
        on(&controls, "change", |w| w.clone().recompute()),
        on(&add, "click", |w| w.resize_tokens(true)),
        on(&remove, "click", |w| w.resize_tokens(false)),
        on(&reset, "click", |w| w.reset()),
        twins_listener,
    ];
    *widget.listeners.borrow_mut() = listeners;
    Ok(widget)
}

impl AttentionWidget {
    fn resize_tokens(self: &Rc<Self>, grow: bool) {
        {
            let mut x = self.x.borrow_mut();
            if grow {
                if x.rows() >= MAX_TOKENS {
                    show_error(&self.host, &format!("No máximo {MAX_TOKENS} tokens neste widget."));
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
        self.x.borrow_mut().set(&example.x);
        self.w_q.borrow_mut().set(&example.w_q);
        self.w_k.borrow_mut().set(&example.w_k);
        self.w_v.borrow_mut().set(&example.w_v);
        self.causal.set_checked(self.causal_default);
        self.clone().recompute();
    }


    /// Keeps one option per token, preserving the choice (default x₂, the textbook's query).
    fn sync_query_options(&self, tokens: &[String]) -> usize {
        let previous = self.query.value().parse::<usize>().ok();
        if self.query.length() as usize != tokens.len() {
            self.query.set_text_content(None);
            for (i, label) in tokens.iter().enumerate() {
                let option = dom::text("option", "", label);
                dom::set_attr(&option, "value", &i.to_string());
                dom::append(&self.query, &option);
            }
        }
        let chosen = previous.filter(|&i| i < tokens.len()).unwrap_or(1.min(tokens.len().saturating_sub(1)));
        self.query.set_value(&chosen.to_string());
        chosen
    }

    fn read_inputs(&self) -> Result<AttentionInputs, String> {
        let read = |e: &RefCell<MatrixEditor>| e.borrow().read().map_err(|err| err.message);
        Ok(AttentionInputs {
            x: read(&self.x)?,
            w_q: read(&self.w_q)?,
            w_k: read(&self.w_k)?,
            w_v: read(&self.w_v)?,
            causal: self.causal.checked(),
        })
    }

    fn draw(&self, trace: &AttentionTrace, causal: bool) {
        let tokens: Vec<String> = (0..trace.q.rows()).map(token_label).collect();
        let dims = |n: usize| (0..n).map(|j| format!("{}", j + 1)).collect::<Vec<_>>();
        let show = |view: &MatrixView, m: &crate::core::Matrix, cols: Vec<String>, scale, masked: bool| {
            view.update(HeatmapData {
                matrix: m.clone(),
                row_labels: tokens.clone(),
                col_labels: cols,
                scale,
                masked: masked.then(|| Box::new(|r: usize, c: usize| c > r) as Box<dyn Fn(usize, usize) -> bool>),
            });
        };
        show(&self.views.q, &trace.q, dims(trace.q.cols()), ColorScale::Diverging, false);
        show(&self.views.k, &trace.k, dims(trace.k.cols()), ColorScale::Diverging, false);
        show(&self.views.v, &trace.v, dims(trace.v.cols()), ColorScale::Diverging, false);
        show(&self.views.scores, &trace.scores, tokens.clone(), ColorScale::Diverging, causal);
        show(&self.views.weights, &trace.weights, tokens.clone(), ColorScale::Sequential, false);
        show(&self.views.output, &trace.output, dims(trace.output.cols()), ColorScale::Diverging, false);
        let query = self.sync_query_options(&tokens);
        let title = format!("Pesos de atenção da consulta {} (linha {} de A)", tokens[query], query + 1);
        self.bars.update(&title, &tokens, &trace.weights.row(query));
    }
}

impl Widget for AttentionWidget {
    fn recompute(self: Rc<Self>) {
        let update = self.updates.begin();
        let inputs = match self.read_inputs() {
            Ok(inputs) => inputs,
            Err(message) => return show_error(&self.host, &message),
        };
        let widget = self.clone();
        hood::compute(&self.ctx, &self.host, update, Some(&self.backend_note), inputs, move |inputs, trace, _| {
            widget.draw(&trace, inputs.causal);
        });
    }
}
