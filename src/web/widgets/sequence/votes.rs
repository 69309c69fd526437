//! `votes`: pairwise skip features. A weighted corpus trains the votes; a test sentence,
//! cut by a prefix slider, picks w_t (its last word) and the features (w_i, w_t) of every
//! earlier word. Shows the triple counts for w_t, the vote table (rows (w_i, w_t), columns the
//! candidate next words), a checkbox per earlier word, the stacked bars of accumulated votes
//! (how shared features dilute the decisive ones: foi 5 × acabou 3 after "ele") and the scores.
//! The masked votes diag(m)·V and the scores m·V run on the active backend.
//!
//! The `vote-mask` widget (vote_mask.rs) is this widget in its Hadamard-playground mode: a
//! weight in [0, 1] per earlier word and the three panels V, m and V ∘ m.
//!
//! Attributes: `data-preset` (`log-programa-bateria`, the default; `log-ele-ela`;
//! `cinco-documentos`: ids of `core::sequence::presets::VOTE_PRESETS`), `data-sentence`
//! (index of the preset's test sentence, default 0), `data-keep` (space-separated words whose
//! features start enabled; the others start at 0; default: all enabled).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{HtmlCanvasElement, HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

use crate::core::executor::{Executor, Job};
use crate::core::format::{format_pt, format_pt_short, parse_pt};
use crate::core::sequence::presets::{vote_preset, VOTE_PRESETS};
use crate::core::sequence::votes::{cumulative_rows, winning_margin, MaskedScores, SkipPairModel, VoteScoresJob, VoteTable};
use crate::core::text::tokenizer::TokenizerOptions;
use crate::core::Matrix;

use crate::web::dom;
use crate::web::kit::ui::{self, show_results, text_field};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::twin::{twin_table, twins_visible};
use crate::web::kit::draw::{available_width, canvas_figure, prepare_canvas, BarView, HeatmapData, MatrixView, Scale};
use crate::web::kit::{control_of, on_hover, Ctx, Shell, Widget, WidgetKind};
use super::{documents_of, DEBOUNCE_BYTES};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::VOTES, mount: |c, h, a| mount_mode(c, h, a, Mode::Votes, &KIND) };

/// Rows of the triple-count table shown before it summarises.
const MAX_TRIPLES_SHOWN: usize = 60;
/// Earlier words a prefix may have (one feature each): beyond, the tables stop being readable.
const MAX_PREFIX_WORDS: usize = 60;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Checkboxes per earlier word, stacked bars, triple counts.
    Votes,
    /// A weight in [0, 1] per earlier word and the three Hadamard panels.
    Mask,
}

/// diag(m)·V and m·V on the backend, with what they were computed from (for the drawing).
struct ScoresJob {
    scores: VoteScoresJob,
    model: SkipPairModel,
    table: VoteTable,
    mask: Vec<f32>,
}

impl Job for ScoresJob {
    type Output = MaskedScores;
    async fn run<E: Executor>(&self, e: &E) -> crate::core::error::Result<MaskedScores> {
        self.scores.run(e).await
    }
}

pub struct VotesWidget {
    shell: Shell,
    mode: Mode,
    preset: HtmlSelectElement,
    text: HtmlTextAreaElement,
    weights: HtmlInputElement,
    accents: HtmlInputElement,
    sentence: HtmlInputElement,
    prefix: HtmlInputElement,
    prefix_readout: HtmlElement,
    model_info: HtmlElement,
    toggles: HtmlElement,
    triples_slot: HtmlElement,
    votes: Rc<MatrixView>,
    mask_view: Option<Rc<MatrixView>>,
    masked_view: Option<Rc<MatrixView>>,
    stacked: Option<(HtmlElement, HtmlCanvasElement)>,
    scores: BarView,
    prediction: HtmlElement,
    /// Weight per earlier word (all positions holding the word share it, as the article's
    /// mask is a set of words); words not listed weigh `default_weight`.
    word_weights: RefCell<HashMap<String, f32>>,
    /// A restored state's pair toggles or weights (row, weight): their words are known once
    /// the pairs are, at the next computation.
    restored_rows: RefCell<Vec<(usize, f32)>>,
    default_weight: Cell<f32>,
}

/// Mounts the widget in `mode` under `kind` (`votes`, or `vote-mask`, which names itself).
pub fn mount_mode(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes, mode: Mode, kind: &'static WidgetKind) -> Result<Rc<dyn Widget>, String> {
    let preset_id = attrs.choice("data-preset").to_string();
    let sentences = vote_preset(&preset_id).map_or(1, |p| p.prefixes.len().max(1));
    let range = crate::core::widget_input::NumberRange::integer(0.0, sentences as f64 - 1.0, 0.0);
    let sentence_index = attrs.index("data-sentence", &range) as usize;
    let keep = attrs.text("data-keep");
    let shell = Shell::new(ctx, host, kind);

    let options: Vec<(&str, &str)> = VOTE_PRESETS.iter().map(|p| (p.id, p.label)).collect();
    let (panel, preset, text, settings) = ui::corpus_panel("corpus do artigo original ", &options, &preset_id, "Documentos de treino (um por linha)");
    let (weights_label, weights) = text_field("pesos (um por documento) ", "weights", "");
    let (accents_label, accents) = ui::checkbox(" remover acentos", "accents", false);
    dom::append_all(&settings, &[&weights_label, &accents_label]);
    dom::append(&shell.inputs, &panel);

    let (sentence_label, sentence) = text_field("frase de teste ", "sentence", "");
    let (prefix_label, prefix) = ui::slider(" palavras do prefixo ", "prefix", 1.0, 2.0, 1.0, 2.0);
    let prefix_readout = ui::readout(&prefix_label, "");
    // The pairs of the test sentence, switched on and off (or weighed) beside the results.
    let toggles = dom::el("fieldset", "row-toggles");
    shell.control(&[&sentence_label, &prefix_label, &toggles]);

    let model_info = dom::el("div", "text-info wide");
    let triples_slot = dom::el("div", "explain");
    let votes = MatrixView::new("votes", "Votos V", " linha = par (wᵢ, wₜ), coluna = próxima palavra");
    let (mask_view, masked_view, stacked) = if mode == Mode::Mask {
        (Some(MatrixView::new("mask", "Máscara m", " um peso por par")), Some(MatrixView::new("masked", "V ∘ m", " cada linha vezes o seu peso")), None)
    } else {
        let (figure, _, canvas) = canvas_figure("mv stacked", Some(("data-plot", "accumulated")), "Votos acumulados por candidata (um segmento por par)");
        (None, None, Some((figure, canvas)))
    };
    let scores = BarView::new("scores", "");
    let prediction = dom::el("div", "");
    let outputs = &shell.outputs;
    dom::append(outputs, &model_info);
    if mode == Mode::Votes {
        dom::append(outputs, &triples_slot);
    }
    dom::append(outputs, &votes.root);
    for view in [&mask_view, &masked_view].into_iter().flatten() {
        dom::append(outputs, &view.root);
    }
    if let Some((figure, _)) = &stacked {
        dom::append(outputs, figure);
    }
    let score_box = dom::el("div", "explain");
    dom::append_all(&score_box, &[&scores.root, &prediction]);
    dom::append(outputs, &score_box);

    let widget = Rc::new(VotesWidget {
        shell,
        mode,
        preset,
        text,
        weights,
        accents,
        sentence,
        prefix,
        prefix_readout,
        model_info,
        toggles,
        triples_slot,
        votes,
        mask_view,
        masked_view,
        stacked,
        scores,
        prediction,
        word_weights: RefCell::new(HashMap::new()),
        restored_rows: RefCell::new(Vec::new()),
        default_weight: Cell::new(1.0),
    });
    widget.apply_preset(&preset_id, sentence_index);
    widget.set_keep(keep.as_deref());
    // A masked vote comes from its vote and its pair's weight.
    if let Some(masked) = &widget.masked_view {
        on_hover(&widget, masked, |w, cell| {
            let (rows, cols) = cell.map_or((vec![], vec![]), |(r, c)| (vec![r], vec![c]));
            w.votes.highlight(&rows, &cols);
            if let Some(mask) = &w.mask_view {
                mask.highlight(&rows, &[]);
            }
        });
    }
    let shell = &widget.shell;
    shell.on(&widget, &shell.host, &["input", "change"], VotesWidget::on_event);
    Ok(widget)
}

impl VotesWidget {
    fn on_event(self: &Rc<Self>, event: &web_sys::Event) {
        let control = control_of(event);
        match (event.type_().as_str(), control.as_str()) {
            ("change", "preset") => {
                self.preset_chosen();
                self.clone().recompute();
            }
            ("input", "sentence") => {
                self.sync_prefix(true);
                self.clone().recompute();
            }
            ("input", "corpus" | "weights" | "prefix") | ("change", "accents") => self.clone().recompute(),
            ("change", "row") | ("input", "weight") => {
                if let Some(input) = event.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) {
                    let word = input.get_attribute("data-word").unwrap_or_default();
                    let value = if control == "row" {
                        if input.checked() { 1.0 } else { 0.0 }
                    } else {
                        parse_pt(&input.value()).unwrap_or(1.0)
                    };
                    // Every control of the same word follows (a word may occur twice).
                    if let Ok(same) = self.toggles.query_selector_all("input[data-word]") {
                        for i in 0..same.length() {
                            let Some(other) = same.item(i).and_then(|n| n.dyn_into::<HtmlInputElement>().ok()) else { continue };
                            if other.get_attribute("data-word").as_deref() == Some(word.as_str()) {
                                other.set_checked(value > 0.0);
                                other.set_value(&value.to_string());
                                if let Some(out) = other.parent_element().and_then(|p| p.query_selector("output").ok().flatten()) {
                                    out.set_text_content(Some(&format_pt_short(value, 2)));
                                }
                            }
                        }
                    }
                    self.word_weights.borrow_mut().insert(word, value);
                }
                self.clone().recompute();
            }
            _ => {}
        }
    }

    /// A preset chosen: its corpus, weights and first sentence, every pair on.
    fn preset_chosen(&self) {
        self.apply_preset(&self.preset.value(), 0);
        self.set_keep(None);
    }

    fn apply_preset(&self, id: &str, sentence_index: usize) {
        let Some(preset) = vote_preset(id) else { return };
        self.preset.set_value(id);
        self.text.set_value(&preset.documents.join("\n"));
        dom::set_attr(&self.text, "rows", &(preset.documents.len() + 1).clamp(3, 8).to_string());
        let weights: Vec<String> = preset.weights.iter().map(|w| format_pt_short(*w, 4)).collect();
        self.weights.set_value(&weights.join(" "));
        self.accents.set_checked(preset.strip_accents);
        self.sentence.set_value(preset.prefixes.get(sentence_index).or(preset.prefixes.first()).copied().unwrap_or(""));
        self.sync_prefix(true);
    }

    /// `data-keep`: only these words start enabled (None: every word).
    fn set_keep(&self, keep: Option<&str>) {
        let mut weights = self.word_weights.borrow_mut();
        weights.clear();
        match keep {
            Some(words) => {
                self.default_weight.set(0.0);
                for w in words.split_whitespace() {
                    weights.insert(w.to_string(), 1.0);
                }
            }
            None => self.default_weight.set(1.0),
        }
    }

    fn tokenizer(&self) -> TokenizerOptions {
        TokenizerOptions { strip_accents: self.accents.checked(), ..TokenizerOptions::default() }
    }

    /// The slider runs over the test sentence's words; `to_end` moves it to the last one.
    fn sync_prefix(&self, to_end: bool) -> usize {
        let words = crate::core::text::tokenizer::tokenize(&self.sentence.value(), &self.tokenizer()).len().clamp(1, MAX_PREFIX_WORDS + 1);
        dom::set_attr(&self.prefix, "max", &words.to_string());
        let current = self.prefix.value().parse::<usize>().unwrap_or(words);
        let value = if to_end { words } else { current.clamp(1, words) };
        self.prefix.set_value(&value.to_string());
        self.prefix_readout.set_text_content(Some(&format!("{value} de {words}")));
        value
    }

    fn train(&self) -> Result<SkipPairModel, String> {
        let raw = self.text.value();
        let docs = documents_of(&raw)?;
        let typed = self.weights.value();
        let parts: Vec<&str> = typed.split(|c: char| c.is_whitespace() || c == ';').filter(|p| !p.is_empty()).collect();
        let weights: Vec<f32> = if parts.is_empty() {
            vec![1.0 / docs.len() as f32; docs.len()]
        } else {
            let parsed: Option<Vec<f32>> = parts.iter().map(|p| parse_pt(p)).collect();
            let parsed = parsed.ok_or_else(|| format!("Os pesos precisam ser números, como 0,5 (você escreveu «{}»).", typed.chars().take(30).collect::<String>()))?;
            if parsed.len() != docs.len() {
                return Err(format!("São {} documentos e {} pesos: escreva um peso por documento, ou apague os pesos para usar 1/{}.", docs.len(), parsed.len(), docs.len()));
            }
            parsed
        };
        let pairs: Vec<(&str, f32)> = docs.into_iter().zip(weights).collect();
        SkipPairModel::train(&pairs, &self.tokenizer()).map_err(|e| e.to_string())
    }

    /// The model, the vote table of the current prefix and its mask, or a message.
    fn prepare(&self) -> Result<(SkipPairModel, VoteTable, Vec<f32>), String> {
        let model = self.train()?;
        let tokens = model.tokens(&self.sentence.value());
        if tokens.is_empty() {
            return Err("Escreva uma frase de teste: a última palavra do prefixo é wₜ, e as anteriores formam os pares.".into());
        }
        if tokens.len() > MAX_PREFIX_WORDS + 1 {
            return Err(format!("A frase de teste tem {} palavras; use até {}.", tokens.len(), MAX_PREFIX_WORDS + 1));
        }
        let cut = self.sync_prefix(false).min(tokens.len());
        let table = model.vote_table_for(&tokens[..cut]).map_err(|e| e.to_string())?;
        for (row, weight) in self.restored_rows.take() {
            if let Some(word) = table.previous.get(row) {
                self.word_weights.borrow_mut().insert(word.clone(), weight);
            }
        }
        let weights = self.word_weights.borrow();
        let mask: Vec<f32> = table.previous.iter().map(|w| weights.get(w).copied().unwrap_or(self.default_weight.get())).collect();
        Ok((model, table, mask))
    }

    /// One checkbox (or slider) per earlier word; rebuilt only when the pairs change, so the
    /// control being used keeps its focus.
    fn draw_toggles(&self, table: &VoteTable, mask: &[f32]) {
        let key = format!("{}|{}", table.previous.join(" "), table.current);
        if self.toggles.get_attribute("data-key").as_deref() == Some(key.as_str()) {
            return;
        }
        dom::set_attr(&self.toggles, "data-key", &key);
        self.toggles.set_text_content(None);
        let legend = if self.mode == Mode::Votes { "Pares ativos (desmarque para mascarar)" } else { "Peso de cada palavra anterior na máscara" };
        dom::append(&self.toggles, &dom::text("legend", "", legend));
        if table.previous.is_empty() {
            dom::append(&self.toggles, &dom::text("span", "note", "Com uma palavra só não há pares: avance o prefixo."));
        }
        for (i, (word, &m)) in table.previous.iter().zip(mask).enumerate() {
            let label = format!("({word}, {})", table.current);
            let wrapper = if self.mode == Mode::Votes {
                let (wrapper, input) = ui::checkbox(&format!(" {label}"), "row", m > 0.0);
                dom::set_attrs(&input, &[("data-word", word), ("data-row", &i.to_string())]);
                wrapper
            } else {
                let (wrapper, input) = ui::slider(&format!("{label} "), "weight", 0.0, 1.0, 0.05, m as f64);
                dom::set_attrs(&input, &[("data-word", word), ("data-row", &i.to_string()), ("aria-label", &format!("peso de {word}"))]);
                dom::append(&wrapper, &dom::text("output", "readout", &format_pt_short(m, 2)));
                wrapper
            };
            dom::append(&self.toggles, &wrapper);
        }
    }

    fn draw_triples(&self, model: &SkipPairModel, current: &str) {
        self.triples_slot.set_text_content(None);
        let triples = model.triples_with_current(current);
        let rows: Vec<(String, String)> = triples
            .iter()
            .take(MAX_TRIPLES_SHOWN)
            .map(|t| (format!("({}, {current}) → {}", t.previous, t.next), format_pt(t.count, 4)))
            .collect();
        let more = if triples.len() > rows.len() { format!(" (mostrando {})", rows.len()) } else { String::new() };
        let caption = format!("Contagens C(wᵢ, «{current}», próxima): {} triplas{more}", triples.len());
        dom::append(&self.triples_slot, &dom::results_table("triples", &caption, &rows));
        if triples.is_empty() {
            dom::append(&self.triples_slot, &dom::text("p", "note", &format!("«{current}» nunca é seguida de nada no treino: nenhum par vota.")));
        }
    }

    fn draw(&self, model: &SkipPairModel, table: &VoteTable, mask: &[f32], out: &MaskedScores) {
        let row_labels: Vec<String> = table.previous.iter().map(|w| format!("({w}, {})", table.current)).collect();
        let info = vec![
            ("palavras no vocabulário".to_string(), model.vocabulary().len().to_string()),
            ("pares (wᵢ, wₜ) distintos no treino".to_string(), model.feature_count().to_string()),
            ("wₜ (última palavra do prefixo)".to_string(), table.current.clone()),
        ];
        show_results(&self.model_info, "model", "Modelo treinado", &info);
        self.draw_toggles(table, mask);
        if self.mode == Mode::Votes {
            self.draw_triples(model, &table.current);
        }
        self.votes.update(HeatmapData { matrix: table.votes.clone(), row_labels: row_labels.clone(), col_labels: table.columns.clone(), scale: Scale::Count, masked: None });
        if let (Some(mask_view), Some(masked_view)) = (&self.mask_view, &self.masked_view) {
            let m = Matrix::from_vec(mask.len(), 1, mask.to_vec()).unwrap_or_else(|_| Matrix::zeros(0, 1));
            mask_view.update(HeatmapData { matrix: m, row_labels: row_labels.clone(), col_labels: vec!["m".into()], scale: Scale::Probability, masked: None });
            masked_view.update(HeatmapData { matrix: out.masked.clone(), row_labels: row_labels.clone(), col_labels: table.columns.clone(), scale: Scale::Count, masked: None });
        }
        if let Some((figure, canvas)) = &self.stacked {
            let cumulative = cumulative_rows(&out.masked);
            let labels: Vec<String> = table.previous.iter().map(|w| format!("até {w}")).collect();
            if let Some(old) = figure.query_selector("table.twin").ok().flatten() {
                old.remove();
            }
            let twin = twin_table("cumulative", "Votos acumulados, par a par", &labels, &table.columns, &cumulative, |v| format_pt(v, 4));
            twin.set_hidden(!twins_visible(&self.shell.host));
            dom::append(figure, &twin);
            draw_stacked(canvas, table, &out.masked);
        }
        let ranking: Vec<(String, f32)> = {
            let mut r: Vec<(String, f32)> = table.columns.iter().cloned().zip(out.scores.iter().copied()).filter(|(_, s)| *s > 0.0).collect();
            crate::core::order::sort_by_score_desc(&mut r);
            r
        };
        let (names, values): (Vec<String>, Vec<f32>) = ranking.iter().cloned().unzip();
        let title = format!("Score(w) = Σᵢ mᵢ · Voto(w | wᵢ, {}) — não é uma probabilidade", table.current);
        self.scores.update(&title, &names, &values);
        let prediction = match ranking.first() {
            Some((w, s)) if ranking.get(1).is_some_and(|r| (r.1 - s).abs() < 1e-6) => format!("empate em {} entre {w} e {}", format_pt_short(*s, 4), ranking[1].0),
            Some((w, _)) => w.clone(),
            None => "nenhuma: nenhum par ativo vota".into(),
        };
        let margin = winning_margin(&ranking).map_or_else(|| "—".to_string(), |m| format_pt(m, 4));
        let rows = vec![("previsão".to_string(), prediction), ("margem (1ª − 2ª)".to_string(), margin)];
        show_results(&self.prediction, "prediction", "Decisão", &rows);
    }
}

/// One horizontal bar per candidate, made of one segment per pair (its masked vote), so the
/// share of uninformative pairs in each total is visible.
fn draw_stacked(canvas: &HtmlCanvasElement, table: &VoteTable, masked: &Matrix) {
    let candidates = table.columns.len();
    let totals: Vec<f32> = (0..candidates).map(|c| (0..masked.rows()).map(|r| masked.get(r, c)).sum()).collect();
    let max = totals.iter().copied().fold(0.0f32, f32::max).max(1e-6) as f64;
    let w = canvas.parent_element().map_or(360.0, |figure| available_width(&figure.unchecked_into()));
    let longest = table.columns.iter().map(|c| c.chars().count()).max().unwrap_or(4) as f64;
    let (label_w, value_w, bar_h, gap) = ((longest * 7.5 + 12.0).max(50.0), 56.0, 30.0, 10.0);
    let plot_w = (w - label_w - value_w).max(120.0);
    let h = gap + candidates.max(1) as f64 * (bar_h + gap);
    let Some(ctx) = prepare_canvas(canvas, label_w + plot_w + value_w, h) else { return };
    dom::set_attr(canvas, "aria-label", "Barras empilhadas: cada candidata recebe um segmento de voto de cada par ativo");
    let dark = dom::dark_at(canvas);
    let ink = if dark { "#c9d1d9" } else { "#24292f" };
    ctx.set_font("12px system-ui, sans-serif");
    ctx.set_text_baseline("middle");
    if candidates == 0 {
        ctx.set_fill_style_str(ink);
        let _ = ctx.fill_text("Nenhuma candidata: nenhum par vota.", 8.0, h / 2.0);
        return;
    }
    for (c, name) in table.columns.iter().enumerate() {
        let y = gap + c as f64 * (bar_h + gap);
        ctx.set_fill_style_str(ink);
        ctx.set_text_align("right");
        let _ = ctx.fill_text(name, label_w - 6.0, y + bar_h / 2.0);
        let mut x = label_w;
        for r in 0..masked.rows() {
            let v = masked.get(r, c) as f64;
            if v <= 0.0 {
                continue;
            }
            let seg = plot_w * v / max;
            // Alternating shades so neighbouring segments stay apart; a full vote is darker.
            let strength = if table.votes.get(r, c) >= 0.999 { 0.95 } else { 0.45 + 0.15 * (r % 2) as f32 };
            let shade = crate::site::palette::rgb(false, strength, dark);
            ctx.set_fill_style_str(&crate::site::palette::css(shade));
            ctx.fill_rect(x, y, (seg - 1.0).max(1.0), bar_h);
            let word = &table.previous[r];
            let text_w = ctx.measure_text(word).map_or(99.0, |m| m.width());
            if text_w + 4.0 < seg {
                ctx.set_fill_style_str(crate::site::palette::text_on(shade));
                ctx.set_text_align("center");
                let _ = ctx.fill_text(word, x + seg / 2.0, y + bar_h / 2.0);
            }
            x += seg;
        }
        ctx.set_fill_style_str(ink);
        ctx.set_text_align("left");
        let _ = ctx.fill_text(&format_pt_short(totals[c], 2), x + 6.0, y + bar_h / 2.0);
    }
}

impl Widget for VotesWidget {
    fn recompute(self: Rc<Self>) {
        let (widget, source) = (self.clone(), self.clone());
        let prepare = move || {
            let (model, table, mask) = source.prepare()?;
            Ok(ScoresJob { scores: VoteScoresJob { votes: table.votes.clone(), mask: mask.clone() }, model, table, mask })
        };
        self.shell.compute_after(self.text.value().len() > DEBOUNCE_BYTES, prepare, move |job, out, _| widget.draw(&job.model, &job.table, &job.mask, &out));
    }

    /// A restored preset or sentence does what choosing or typing it does; a pair's toggle or
    /// weight (`row`, `row~2`, … or `weight`, …: the pairs in order) waits for the pairs.
    fn restore(&self, key: &str, value: &str) -> Option<bool> {
        match key {
            "preset" => {
                self.preset_chosen();
                Some(true)
            }
            "sentence" => {
                self.sync_prefix(true);
                Some(true)
            }
            _ => {
                let (name, n) = key.split_once('~').map_or((key, Some(1)), |(name, n)| (name, n.parse::<usize>().ok()));
                if name != "row" && name != "weight" {
                    return None;
                }
                let weight = if name == "row" { Some(if value == "1" { 1.0 } else { 0.0 }) } else { parse_pt(value).filter(|w| (0.0..=1.0).contains(w)) };
                let row = n.filter(|&n| n >= 1).map(|n| n - 1);
                Some(row.zip(weight).inspect(|&entry| self.restored_rows.borrow_mut().push(entry)).is_some())
            }
        }
    }
}
