//! `transitions`: a corpus becomes a bigram transition matrix. Shows the heatmap (counts or
//! probabilities), the state graph with edge widths from the probabilities, the one-hot lookup
//! R = h × T (run on the active backend, with a step-through of R_j = Σ_i h_i T_ij), the bars of
//! what follows the chosen word, a sentence sampler (stops at `<END>`, at a dead end or at a
//! length limit, never hangs) and the probability of a typed sentence.
//!
//! Attributes: `data-preset` (`tres-comandos`, the default, or `oito-documentos`; ids of
//! `core::sequence::presets::NGRAM_PRESETS`), `data-word` (the one-hot word, default "meus").

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::error::Result;
use crate::core::executor::{Executor, Job, MatmulJob};
use crate::core::format::{format_pt, format_pt_short};
use crate::core::rng::Rng;
use crate::core::sequence::ngram::{NgramModel, StopReason};
use crate::core::sequence::presets::ngram_preset;
use crate::core::Matrix;

use crate::web::dom;
use crate::web::kit::ui::{self, live_note, text_field};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::graph::{GraphStyle, StateGraph};
use crate::web::kit::draw::{BarView, HeatmapData, MatrixView, Scale};
use crate::web::kit::{action_of, control_of, controls, Ctx, Shell, Widget, WidgetKind};

use super::{NgramPanel, MAX_WORDS_SHOWN};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::TRANSITIONS, mount };

const DEFAULT_WORD: &str = "meus";
/// Words a sampled sentence may have before the sampler stops it.
const MAX_SAMPLED_WORDS: usize = 30;
/// Milliseconds between two steps of the h × T animation.
const STEP_MS: i32 = 450;

/// What one computation produced, kept for the sampler and the step-through.
struct Computed {
    model: NgramModel,
    /// Vocabulary ids of the words shown (rows and columns of the heatmap).
    shown: Vec<usize>,
    /// The words shown.
    labels: Vec<String>,
    /// The probabilities shown (shown × shown).
    probabilities: Matrix,
    /// Index (into `shown`) of the one-hot word.
    chosen: usize,
}

/// R = h × T on the backend, with what it was computed from (for the drawing).
struct LookupJob {
    computed: Rc<Computed>,
    product: MatmulJob,
}

impl Job for LookupJob {
    type Output = Matrix;
    async fn run<E: Executor>(&self, e: &E) -> Result<Matrix> {
        self.product.run(e).await
    }
}

pub struct TransitionsWidget {
    shell: Shell,
    panel: NgramPanel,
    view: HtmlSelectElement,
    word: HtmlSelectElement,
    sentence: HtmlInputElement,
    info: HtmlElement,
    notice: HtmlElement,
    matrix: Rc<MatrixView>,
    graph: StateGraph,
    one_hot: Rc<MatrixView>,
    lookup: Rc<MatrixView>,
    step: HtmlElement,
    bars: BarView,
    sample_out: HtmlElement,
    sentence_out: HtmlElement,
    computed: RefCell<Option<Rc<Computed>>>,
    seed: Cell<u64>,
    animation: Cell<u32>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> std::result::Result<Rc<dyn Widget>, String> {
    let preset_id = attrs.choice("data-preset").to_string();
    let word = attrs.text("data-word").unwrap_or_else(|| DEFAULT_WORD.into());
    let shell = Shell::new(ctx, host, &KIND);
    let panel = NgramPanel::new(&preset_id, true);
    dom::append(&shell.inputs, &panel.root);

    let views = vec![("prob", "probabilidades"), ("count", "contagens")];
    let (view_label, view) = ui::select("mostrar ", "view", &views, "prob");
    let (word_label, word_select) = ui::select("vetor one-hot de ", "word", ui::NO_OPTIONS, "");
    dom::set_attr(&word_select, "data-wanted", &word);
    controls::offered_later(&word_select);
    let animate = ui::button("animar h × T", "animate");
    let sample = ui::button("sortear frase", "sample");
    let first_doc = ngram_preset(&preset_id).map_or("", |p| p.documents[0]);
    let (sentence_label, sentence) = text_field("probabilidade da frase ", "sentence", first_doc);
    shell.control(&[&view_label, &word_label, &animate, &sample, &sentence_label]);

    let info = dom::el("p", "text-info wide");
    let notice = live_note("note wide");
    let matrix = MatrixView::new("transitions", "T", " linha = palavra atual, coluna = próxima");
    let graph = StateGraph::new("graph", "Grafo de estados");
    let one_hot = MatrixView::new("h", "h (one-hot)", "");
    one_hot.typeset_row_labels();
    let lookup = MatrixView::new("lookup", "R = h × T", " = a linha escolhida de T");
    let step = ui::live("p", "matmul-step lookup-step");
    let lookup_box = dom::el("div", "wide");
    dom::append_all(&lookup_box, &[&one_hot.root, &lookup.root, &step]);
    let bars = BarView::new("next", "").probabilities();
    let sample_out = ui::live("p", "sample");
    let sentence_out = dom::el("div", "");
    let text_box = dom::el("div", "explain");
    dom::append_all(&text_box, &[&dom::text("p", "mv-title", "Frase sorteada"), &sample_out, &sentence_out]);
    dom::append_all(&shell.outputs, &[&info, &notice, &matrix.root, &graph.root, &lookup_box, &bars.root, &text_box]);

    let widget = Rc::new(TransitionsWidget {
        shell,
        panel,
        view,
        word: word_select,
        sentence,
        info,
        notice,
        matrix,
        graph,
        one_hot,
        lookup,
        step,
        bars,
        sample_out,
        sentence_out,
        computed: RefCell::new(None),
        seed: Cell::new(1),
        animation: Cell::new(0),
    });
    let weak = Rc::downgrade(&widget);
    widget.matrix.set_on_select(move |row, _| {
        if let Some(w) = weak.upgrade() {
            w.choose_row(row);
        }
    });
    // A cell of R is the cell of T in the chosen word's row: outline that row and column, and
    // the 1 of h that picks it.
    let weak = Rc::downgrade(&widget);
    widget.lookup.set_on_hover(move |cell| {
        let Some(w) = weak.upgrade() else { return };
        let chosen = w.computed.borrow().as_ref().map(|c| c.chosen);
        match (cell, chosen) {
            (Some((_, j)), Some(chosen)) => {
                w.matrix.highlight(&[chosen], &[j]);
                w.one_hot.highlight(&[], &[chosen]);
            }
            _ => {
                w.matrix.highlight(&[], &[]);
                w.one_hot.highlight(&[], &[]);
            }
        }
    });
    let shell = &widget.shell;
    shell.on(&widget, &shell.host, &["input", "change", "click"], TransitionsWidget::on_event);
    Ok(widget)
}

impl TransitionsWidget {
    fn on_event(self: &Rc<Self>, event: &web_sys::Event) {
        if self.panel.edited(event) {
            if control_of(event) == "preset" {
                self.preset_chosen();
            }
            return self.clone().recompute();
        }
        match (event.type_().as_str(), control_of(event).as_str(), action_of(event).as_str()) {
            ("click", _, "animate") => self.animate(),
            ("click", _, "sample") => self.sample(),
            ("input", "sentence", _) | ("change", "view" | "word", _) => self.clone().recompute(),
            _ => {}
        }
    }

    /// A preset was chosen (the panel has filled in its corpus): its first document is the
    /// sentence whose probability is shown.
    fn preset_chosen(&self) {
        if let Some(p) = ngram_preset(&self.panel.preset.value()) {
            self.sentence.set_value(p.documents[0]);
        }
    }

    /// The reader clicked row `row` of the heatmap: make it the one-hot word.
    fn choose_row(self: &Rc<Self>, row: usize) {
        let word = {
            let computed = self.computed.borrow();
            let Some(c) = computed.as_ref() else { return };
            let Some(&id) = c.shown.get(row) else { return };
            c.model.vocabulary()[id].clone()
        };
        dom::set_attr(&self.word, "data-wanted", &word);
        self.word.set_value(&word);
        self.clone().recompute();
    }

    fn sample(self: &Rc<Self>) {
        let computed = self.computed.borrow();
        let Some(c) = computed.as_ref() else { return };
        let seed = self.seed.get();
        self.seed.set(seed + 1);
        let sampled = c.model.sample(&mut Rng::new(seed), MAX_SAMPLED_WORDS);
        let last = sampled.words.last().cloned().unwrap_or_default();
        let (stop, why) = match sampled.stop {
            StopReason::End => ("end", "terminou ao sortear <END>.".to_string()),
            StopReason::DeadEnd if last.is_empty() => ("dead-end", "nenhum documento tem palavras suficientes para começar.".to_string()),
            StopReason::DeadEnd => (
                "dead-end",
                format!("parou em «{last}», que nunca é seguida de nada no corpus (a linha dela é só de zeros). Ligue <END> para que o fim de um documento vire uma transição."),
            ),
            StopReason::MaxLength => ("max-length", format!("parou no limite de {MAX_SAMPLED_WORDS} palavras.")),
        };
        dom::set_attrs(&self.sample_out, &[("data-stop", stop), ("data-words", &sampled.words.join(" "))]);
        self.sample_out.set_text_content(Some(&format!("«{}» — {why}", sampled.words.join(" "))));
    }

    /// Steps through R_j = Σ_i h_i T_ij, one column at a time, lighting the cell of T it copies.
    fn animate(self: &Rc<Self>) {
        let token = self.animation.get().wrapping_add(1);
        self.animation.set(token);
        let widget = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let (labels, row, values) = {
                let computed = widget.computed.borrow();
                let Some(c) = computed.as_ref() else { return };
                (c.labels.clone(), c.chosen, c.probabilities.row(c.chosen))
            };
            dom::set_attr(&widget.shell.host, "data-animating", "true");
            for (j, value) in values.iter().enumerate() {
                if widget.animation.get() != token {
                    return;
                }
                widget.matrix.select(row, j);
                widget.lookup.select(0, j);
                dom::set_notation(&widget.step, &step_text(&labels, row, j, *value));
                dom::sleep(STEP_MS).await;
            }
            if widget.animation.get() == token {
                let _ = widget.shell.host.remove_attribute("data-animating");
            }
        });
    }

    /// Keeps one option per shown word, preserving the choice; returns the chosen index.
    fn sync_words(&self, labels: &[String]) -> usize {
        let wanted = self.word.get_attribute("data-wanted").unwrap_or_default();
        // A restored state's word comes first (`kit::state`: the select had no options yet).
        let restored = controls::take_pending(&self.word).unwrap_or_default();
        let current = self.word.value();
        self.word.set_text_content(None);
        for label in labels {
            let option = dom::text("option", "", label);
            dom::set_attr(&option, "value", label);
            dom::append(&self.word, &option);
        }
        let pick = [restored, current, wanted]
            .iter()
            .find_map(|w| labels.iter().position(|l| l == w))
            .unwrap_or_else(|| labels.iter().position(|l| !l.starts_with('<')).unwrap_or(0));
        if let Some(label) = labels.get(pick) {
            self.word.set_value(label);
            dom::set_attr(&self.word, "data-wanted", label);
        }
        pick
    }

    fn draw_sentence(&self, model: &NgramModel) {
        self.sentence_out.set_text_content(None);
        let text = self.sentence.value();
        if text.trim().is_empty() {
            return;
        }
        match model.sentence_probability(&text) {
            Ok(p) => {
                let mut rows: Vec<(String, String)> = p
                    .steps
                    .iter()
                    .map(|s| (format!("P({} | {})", s.word, s.context), format_pt(s.probability as f32, 4)))
                    .collect();
                rows.push(("P(frase)".into(), format_probability(p.probability)));
                rows.push(("ln P(frase)".into(), if p.log_probability.is_finite() { format_pt(p.log_probability as f32, 4) } else { "−∞".into() }));
                dom::append(&self.sentence_out, &dom::results_table("sentence", "Probabilidade da frase: o produto das transições", &rows));
                if let Some(zero) = p.steps.iter().find(|s| s.probability == 0.0) {
                    let why = if model.word_index(&zero.word).is_none() {
                        format!("«{}» não está no vocabulário do corpus", zero.word)
                    } else {
                        format!("a transição {} → {} nunca aparece no corpus", zero.context, zero.word)
                    };
                    dom::append(&self.sentence_out, &dom::text("p", "note", &format!("Probabilidade 0: {why}.")));
                }
            }
            Err(e) => dom::append(&self.sentence_out, &dom::text("p", "note", &e.to_string())),
        }
    }

    /// The model of the current text and settings and the one-hot lookup to run, or a message.
    fn prepare(&self) -> std::result::Result<LookupJob, String> {
        let model = self.panel.build()?;
        let shown = model.frequent_words(MAX_WORDS_SHOWN);
        let probabilities = model.submatrix(&shown, &shown, true).map_err(|e| e.to_string())?;
        let labels: Vec<String> = shown.iter().map(|&i| model.vocabulary()[i].clone()).collect();
        let chosen = self.sync_words(&labels);
        let mut h = Matrix::zeros(1, shown.len());
        h.set(0, chosen, 1.0);
        let product = MatmulJob { a: h, b: probabilities.clone() };
        Ok(LookupJob { computed: Rc::new(Computed { model, shown, labels, probabilities, chosen }), product })
    }

    fn draw(&self, c: &Computed, lookup: &Matrix) {
        let (model, labels) = (&c.model, &c.labels);
        let counts = self.view.value() == "count";
        let shown_matrix = if counts { model.submatrix(&c.shown, &c.shown, false).unwrap_or_else(|_| c.probabilities.clone()) } else { c.probabilities.clone() };
        self.matrix.update(HeatmapData { matrix: shown_matrix, row_labels: labels.clone(), col_labels: labels.clone(), scale: if counts { Scale::Count } else { Scale::Probability }, masked: None });
        self.graph.update(labels, &c.probabilities, &GraphStyle { highlight: Some(c.chosen), focus_edges: labels.len() > 4 });
        let mut h = Matrix::zeros(1, labels.len());
        h.set(0, c.chosen, 1.0);
        let word = &labels[c.chosen];
        let row_label = vec![format!("h_{{{word}}}")];
        self.one_hot.update(HeatmapData { matrix: h, row_labels: row_label, col_labels: labels.clone(), scale: Scale::Probability, masked: None });
        self.lookup.update(HeatmapData { matrix: lookup.clone(), row_labels: vec!["R".into()], col_labels: labels.clone(), scale: Scale::Probability, masked: None });
        dom::set_notation(&self.step, &format!(
            "h_{{{word}}} tem um único 1, na posição de «{word}»: em R_j = Σᵢ hᵢ·T_{{ij}} só sobra o termo T[{word}, j], então R é a linha de «{word}». Use «animar» para ver coluna a coluna."
        ));
        let next = model.next_distribution(c.shown[c.chosen]);
        let (names, values): (Vec<String>, Vec<f32>) = next.into_iter().take(20).unzip();
        let title = if names.is_empty() {
            format!("Nada vem depois de «{word}» no corpus: a linha é só de zeros")
        } else {
            format!("O que vem depois de «{word}»")
        };
        self.bars.update(&title, &names, &values);
        let v = model.vocabulary().len();
        let documents = model.n_documents();
        self.info.set_text_content(Some(&format!(
            "{documents} documento(s), vocabulário de {v} símbolos: {}{}",
            labels.iter().take(40).cloned().collect::<Vec<_>>().join(", "),
            if v > labels.len() { ", …" } else { "" }
        )));
        let mut notes = Vec::new();
        if labels.len() < v {
            notes.push(format!("A matriz e o grafo mostram as {} palavras mais frequentes de {v}; as probabilidades continuam divididas pela linha inteira.", labels.len()));
        }
        let dead: Vec<&str> = c.shown.iter().filter(|&&i| model.next_distribution(i).is_empty()).map(|&i| model.vocabulary()[i].as_str()).take(8).collect();
        if !dead.is_empty() {
            notes.push(format!("Sem sucessor (linha só de zeros): {}.", dead.join(", ")));
        }
        self.notice.set_text_content(Some(&notes.join(" ")));
        self.draw_sentence(model);
    }
}

/// The probability of a sentence: 4 decimals, or (when that shows 0) the site's scientific
/// notation, 1,25 × 10⁻⁵ (not a program's 1.25e-5).
fn format_probability(p: f64) -> String {
    if p > 0.0 && p < 1e-4 {
        crate::core::sequence::sparsity::format_scientific(p, 3)
    } else {
        format_pt(p as f32, 4)
    }
}

fn step_text(labels: &[String], row: usize, j: usize, value: f32) -> String {
    let word = &labels[row];
    format!(
        "R[{}] = Σᵢ h_{{{word},i}} · T[i, {}] = 1 · T[{word}, {}] + (zeros) = {}",
        labels[j],
        labels[j],
        labels[j],
        format_pt_short(value, 4)
    )
}

impl Widget for TransitionsWidget {
    fn recompute(self: Rc<Self>) {
        // An edit stops the step-through animation.
        self.animation.set(self.animation.get().wrapping_add(1));
        let _ = self.shell.host.remove_attribute("data-animating");
        let (widget, source) = (self.clone(), self.clone());
        self.shell.compute_after(self.panel.debounce(), move || source.prepare(), move |job, lookup, _| {
            widget.draw(&job.computed, &lookup);
            if widget.computed.replace(Some(job.computed.clone())).is_none() {
                widget.sample();
            }
        });
    }

    fn restore(&self, key: &str, value: &str) -> Option<bool> {
        let took = self.panel.restore(key, value)?;
        if took {
            self.preset_chosen();
        }
        Some(took)
    }
}
