//! `train`: a tiny decoder trained in the reader's browser, live. The text is the preset story
//! ("Missa do galo", fetched when the widget mounts, never part of the wasm) or the reader's
//! own, cut into characters; the sizes are the reader's, with the parameter count shown.
//! "treinar" / "pausar" / "recomeçar"; the loss curve (training, and validation on the
//! held-out tail) against the uniform and bigram levels; samples every few steps, side by
//! side; the attention of a chosen layer and head on a fixed probe; the weights saved
//! ("baixar") or handed to the decoder playground on the same page ("usar no decodificador").
//!
//! The widget only schedules and draws: the run (corpus, trainer, batches, history, samples)
//! is `core::train_run::TrainRun`, on the site's runtime (`core::runtime`). Training runs on
//! the main thread in slices of about `SLICE_MS` (core's `steps_for`: one step when a step is
//! longer), yielding to the browser between slices, and draws at most once per animation frame. A hidden tab pauses it; it resumes when the tab
//! shows again if the reader had it running.
//!
//! "treinar em": automatically, the run goes to the GPU when the site computes on WebGPU and
//! the adapter is real hardware (a software adapter trains far slower than the CPU: 3 s a
//! step on llvmpipe against 50 ms); the reader can force either. On the GPU a step is one
//! submission; the host copy the page reads (curve, samples, attention, downloads) is taken
//! at each evaluation. A lost device moves the run to the CPU from that copy (core's fallback:
//! the steps since it are redone on the same batches), and the widget says so.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

use crate::core::executor::{block_on_ready, BackendKind};
use crate::core::format::format_pt;
use crate::core::train_run::{prepare_text, token_unit, Pace, TrainRun, TrainSettings, MAX_CHARS};
use crate::core::transformer::format_count;
use crate::web::backend::{now_ms, runtime, Gpu, Tensor};
use crate::web::dom;
use crate::web::kit::ui::{self, live_note, number_field, read_count, show_results};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::figures::DenseHeatmap;
use crate::web::kit::draw::line_plot::{Axes, LinePlot, Series};
use crate::web::kit::draw::Scale;
use crate::web::kit::{control_of, controls, listen, Ctx, Shell, Widget, WidgetKind};
use crate::web::model_store;
use crate::web::widgets::decoder::trained::{self, TrainedModel};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::TRAIN, mount };

/// The preset story, relative to the site's root (fetched on mount; kept offline by the
/// service worker once fetched, as the other extra files).
const PRESET_PATH: &str = "static/train/missa-do-galo.txt";
/// Longest stretch of training between two yields to the browser, in ms.
const SLICE_MS: f64 = 12.0;
/// The status (steps, steps/s) is redrawn at most this often while training.
const STATUS_EVERY_MS: f64 = 250.0;
/// Steps/s is measured over this much recent wall-clock time.
const RATE_WINDOW_MS: f64 = 2000.0;
/// Samples shown side by side: the first (fresh weights) and the most recent ones.
const SAMPLES_SHOWN: usize = 4;

/// What the run was built from: a change rebuilds it.
#[derive(Clone, PartialEq)]
struct Inputs {
    own: bool,
    /// Cut by the shipped decoder's BPE rather than into characters.
    bpe: bool,
    /// The reader's text (empty for the preset).
    text: String,
    settings: TrainSettings,
}

pub struct TrainWidget {
    shell: Shell,
    source: HtmlSelectElement,
    text_label: HtmlElement,
    text: HtmlTextAreaElement,
    /// Notes on the text: its size, what was cut or replaced.
    text_info: HtmlElement,
    tokenizer: HtmlSelectElement,
    /// "treinar em": auto, cpu, webgpu.
    placement: HtmlSelectElement,
    layers: HtmlInputElement,
    width: HtmlInputElement,
    heads: HtmlInputElement,
    context: HtmlInputElement,
    batch: HtmlInputElement,
    /// The parameter count and the vocabulary.
    model_info: HtmlElement,
    train: HtmlElement,
    pause: HtmlElement,
    layer: HtmlSelectElement,
    head: HtmlSelectElement,
    status: HtmlElement,
    /// Pauses, resumes, downloads: announced.
    message: HtmlElement,
    plot: LinePlot,
    samples: HtmlElement,
    attention: DenseHeatmap,
    probe: HtmlElement,
    preset: RefCell<Option<Rc<String>>>,
    /// The run (out of the cell while a slice is in flight).
    run: RefCell<Option<TrainRun<Tensor>>>,
    /// The GPU failed during this run: it stays on the CPU until it is rebuilt.
    gpu_failed: Cell<bool>,
    built_from: RefCell<Option<Inputs>>,
    running: Cell<bool>,
    /// Paused because the tab was hidden while running: resume when it shows.
    resume_on_visible: Cell<bool>,
    /// Bumped to stop a training loop (a newer one, or none, takes over).
    generation: Cell<u64>,
    /// Steps per second and a plain step's duration.
    pace: RefCell<Pace>,
    draw_booked: Cell<bool>,
    status_drawn_at: Cell<f64>,
    /// The history and sample counts last drawn.
    drawn: Cell<(usize, usize)>,
}

fn labelled_count(label: &str, control: &str, value: usize) -> (HtmlElement, HtmlInputElement) {
    let (wrapper, input) = number_field("", control, &value.to_string(), true);
    // The label's notation typeset (d_model → d with "model" below).
    if let Ok(Some(span)) = wrapper.query_selector("span") {
        dom::set_notation(&span, label);
    }
    (wrapper, input)
}

fn index_options(n: usize) -> Vec<(String, String)> {
    (0..n).map(|i| (i.to_string(), (i + 1).to_string())).collect()
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, _attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let shell = Shell::new(ctx, host, &KIND);
    let _ = host.class_list().add_1("train");
    let defaults = TrainSettings::tiny();

    // The text.
    let sources = [("preset", "“Missa do galo”, de Machado"), ("own", "o seu texto")];
    let (source_label, source) = ui::select("texto ", "source", &sources, "preset");
    let text_label = dom::el("label", "corpus-label");
    dom::append(&text_label, &dom::text("span", "", &format!("O seu texto (até {} caracteres)", format_count(MAX_CHARS as u64))));
    let text = dom::el("textarea", "corpus-text").unchecked_into::<HtmlTextAreaElement>();
    dom::set_attrs(&text, &[("data-control", "text"), ("spellcheck", "false"), ("rows", "6"), ("placeholder", "Cole ou escreva aqui um texto: um conto, poemas, código…")]);
    dom::append(&text_label, &text);
    text_label.set_hidden(true);
    let text_info = live_note("train-text-info");
    let tokenizers = [
        ("chars", "um por caractere"),
        ("bpe", "o BPE do decodificador"),
    ];
    let (tokenizer_label, tokenizer) = ui::select("tokens ", "tokenizer", &tokenizers, "chars");
    let placements = [
        ("auto", "automático"),
        ("cpu", "CPU"),
        ("webgpu", "WebGPU"),
    ];
    let (placement_label, placement) = ui::select("treinar em ", "placement", &placements, "auto");

    // The sizes.
    let sizes = dom::el("div", "train-sizes");
    let (layers_label, layers) = labelled_count("camadas", "layers", defaults.n_layers);
    let (width_label, width) = labelled_count("d_{model}", "width", defaults.d_model);
    let (heads_label, heads) = labelled_count("cabeças", "heads", defaults.n_heads);
    let (context_label, context) = labelled_count("contexto", "context", defaults.context);
    let (batch_label, batch) = labelled_count("sequências por passo", "batch", defaults.batch);
    dom::append_all(&sizes, &[&layers_label, &width_label, &heads_label, &context_label, &batch_label]);
    let model_info = live_note("train-model-info");
    dom::append_all(&shell.inputs, &[&source_label, &text_label, &text_info, &tokenizer_label, &placement_label, &sizes, &model_info]);

    // The controls.
    let train = ui::button("treinar", "train");
    let pause = ui::button("pausar", "pause");
    pause.set_hidden(true);
    let restart = ui::button("recomeçar", "restart");
    let use_it = ui::button("usar no decodificador", "use");
    let download = ui::button("baixar pesos", "download");
    let download_config = ui::button("baixar config", "download-config");
    let (layer_label, layer) = ui::select("camada ", "layer", &index_options(defaults.n_layers), "0");
    let (head_label, head) = ui::select("cabeça ", "head", &index_options(defaults.n_heads), "0");
    controls::offered_later(&layer);
    controls::offered_later(&head);
    shell.control(&[&train, &pause, &restart, &use_it, &download, &download_config, &layer_label, &head_label]);

    // The outputs.
    let message = live_note("train-message wide");
    let status = dom::el("div", "train-status");
    let plot = LinePlot::new("loss", "Perda de treino e de validação, passo a passo");
    let samples_heading = dom::text("h4", "wide", "Amostras do modelo: a primeira e as mais recentes");
    let samples = dom::el("div", "train-samples wide");
    let attention = DenseHeatmap::new("train-attention", Scale::Probability);
    let probe = dom::el("p", "train-probe wide");
    dom::append_all(&shell.outputs, &[&message, &status, &plot.root, &samples_heading, &samples, &attention.root, &probe]);

    let widget = Rc::new(TrainWidget {
        shell,
        source,
        text_label,
        text,
        text_info,
        tokenizer,
        placement,
        layers,
        width,
        heads,
        context,
        batch,
        model_info,
        train,
        pause,
        layer,
        head,
        status,
        message,
        plot,
        samples,
        attention,
        probe,
        preset: RefCell::new(None),
        run: RefCell::new(None),
        gpu_failed: Cell::new(false),
        built_from: RefCell::new(None),
        running: Cell::new(false),
        resume_on_visible: Cell::new(false),
        generation: Cell::new(0),
        pace: RefCell::new(Pace::new(RATE_WINDOW_MS)),
        draw_booked: Cell::new(false),
        status_drawn_at: Cell::new(f64::NEG_INFINITY),
        drawn: Cell::new((usize::MAX, usize::MAX)),
    });
    let shell = &widget.shell;
    shell.on(&widget, &shell.inputs, &["input"], |w, e| {
        if control_of(e) == "placement" {
            // Where it trains is not what it trains: the run moves at its next slice.
            w.gpu_failed.set(false);
            w.draw_status();
            return;
        }
        if control_of(e) == "source" {
            w.text_label.set_hidden(w.source.value() != "own");
        }
        w.clone().rebuild(true);
    });
    shell.on(&widget, &shell.controls, &["change"], |w, e| {
        if matches!(control_of(e).as_str(), "layer" | "head") {
            w.draw_attention();
        }
    });
    shell.on_action(&widget, |w, action| match action {
        "train" => w.start(),
        "pause" => w.stop("Treino pausado. «treinar» continua do mesmo ponto."),
        "restart" => w.restart(),
        "use" => w.use_in_decoder(),
        "download" => w.download(true),
        "download-config" => w.download(false),
        _ => {}
    });
    if let Some(document) = dom::document() {
        shell.keep(listen(&widget, &document, "visibilitychange", |w, _| w.visibility_changed()));
    }
    Ok(widget)
}

impl TrainWidget {
    fn read_inputs(&self) -> Result<Inputs, String> {
        let settings = TrainSettings {
            n_layers: read_count(&self.layers, "Camadas")?,
            d_model: read_count(&self.width, "Largura do modelo")?,
            n_heads: read_count(&self.heads, "Cabeças")?,
            context: read_count(&self.context, "Contexto")?,
            batch: read_count(&self.batch, "Sequências por passo")?,
            ..TrainSettings::tiny()
        };
        settings.validate().map_err(|e| e.to_string())?;
        let own = self.source.value() == "own";
        Ok(Inputs { own, bpe: self.tokenizer.value() == "bpe", text: if own { self.text.value() } else { String::new() }, settings })
    }

    /// The preset story, fetched once.
    async fn preset_text(&self) -> Result<Rc<String>, String> {
        if let Some(text) = self.preset.borrow().clone() {
            return Ok(text);
        }
        let url = self.shell.ctx.asset_url(PRESET_PATH);
        let bytes = model_store::fetch_bytes(&url, 0.0, &|_, _| {}).await?;
        let text = Rc::new(String::from_utf8_lossy(&bytes).into_owned());
        *self.preset.borrow_mut() = Some(text.clone());
        Ok(text)
    }

    /// Builds a fresh run from the inputs, unless the current run was built from the same
    /// ones (and `force` is off). Stops the training in progress when it rebuilds.
    fn rebuild(self: Rc<Self>, debounce: bool) {
        self.rebuild_then(debounce, false, false);
    }

    fn rebuild_then(self: Rc<Self>, debounce: bool, force: bool, then_train: bool) {
        let widget = self.clone();
        self.shell.steps(debounce, move |update| async move {
            let inputs = match widget.read_inputs() {
                Ok(inputs) => inputs,
                Err(message) => {
                    widget.discard();
                    return Err(message);
                }
            };
            if !force && widget.run.borrow().is_some() && widget.built_from.borrow().as_ref() == Some(&inputs) {
                widget.draw_now();
                return Ok(());
            }
            widget.discard();
            let raw = if inputs.own { Rc::new(inputs.text.clone()) } else { widget.preset_text().await? };
            if !update.is_current() {
                return Ok(());
            }
            let prepared = prepare_text(&raw, !inputs.own, inputs.settings.min_chars()).map_err(|e| e.to_string())?;
            let chars = prepared.text.chars().count();
            let mut info = vec![format!("{} caracteres.", format_count(chars as u64))];
            info.extend(prepared.notes());
            widget.text_info.set_text_content(Some(&info.join(" ")));
            dom::set_attr(&widget.text_info, "data-cut", if prepared.cut_from.is_some() { "true" } else { "false" });
            let bpe = if inputs.bpe { Some(model_store::tokenizer(&model_store::base_for(&widget.shell.ctx, &widget.shell.host)).await?) } else { None };
            if !update.is_current() {
                return Ok(());
            }
            let run = TrainRun::new(&runtime(None), &prepared, bpe.as_deref(), inputs.settings.clone()).map_err(|e| e.to_string())?;
            let unit = token_unit(&run.tokenizer);
            widget.model_info.set_text_content(Some(&format!(
                "{} parâmetros, com um vocabulário de {} {unit}s; {} {unit}s para treinar, {} guardados para validação.",
                format_count(run.parameter_count() as u64),
                format_count(run.vocab_size() as u64),
                format_count(run.tokens.train.len() as u64),
                format_count(run.tokens.validation.len() as u64)
            )));
            dom::set_attr(&widget.model_info, "data-parameters", &run.parameter_count().to_string());
            let selected = |s: &HtmlSelectElement, n: usize| s.value().parse::<usize>().ok().filter(|&i| i < n).unwrap_or(0).to_string();
            let (layer, head) = (selected(&widget.layer, inputs.settings.n_layers), selected(&widget.head, inputs.settings.n_heads));
            ui::set_options(&widget.layer, &index_options(inputs.settings.n_layers), &layer);
            ui::set_options(&widget.head, &index_options(inputs.settings.n_heads), &head);
            *widget.run.borrow_mut() = Some(run);
            *widget.built_from.borrow_mut() = Some(inputs);
            widget.pace.borrow_mut().clear();
            widget.shell.mark(BackendKind::Cpu);
            widget.drawn.set((usize::MAX, usize::MAX));
            widget.draw_now();
            if then_train {
                widget.start();
            }
            Ok(())
        });
    }

    /// Forgets the run (bad inputs, or new ones): training stops, nothing stale is shown.
    fn discard(&self) {
        self.halt();
        self.gpu_failed.set(false);
        *self.run.borrow_mut() = None;
        *self.built_from.borrow_mut() = None;
        self.model_info.set_text_content(None);
    }

    /// Stops the loop, without a message.
    fn halt(&self) {
        self.running.set(false);
        self.resume_on_visible.set(false);
        self.generation.set(self.generation.get() + 1);
        self.show_running();
    }

    fn show_running(&self) {
        let running = self.running.get();
        self.train.set_hidden(running);
        self.pause.set_hidden(!running);
        dom::set_attr(&self.shell.host, "data-training", if running { "true" } else { "false" });
        dom::set_attr(&self.shell.host, "aria-busy", if running { "true" } else { "false" });
    }

    fn say(&self, text: &str) {
        self.message.set_text_content(Some(text));
    }

    /// "treinar": continues the run (or starts it at step 0).
    fn start(self: &Rc<Self>) {
        if self.running.get() {
            return;
        }
        if self.run.borrow().is_none() {
            // Nothing to train yet (inputs being read, or wrong): read them, then train.
            self.clone().rebuild_then(false, false, true);
            return;
        }
        self.running.set(true);
        self.resume_on_visible.set(false);
        let generation = self.generation.get() + 1;
        self.generation.set(generation);
        self.show_running();
        self.say("Treinando…");
        wasm_bindgen_futures::spawn_local(train_loop(Rc::downgrade(self), generation));
    }

    /// "pausar" (and anything that stops training with a reason).
    fn stop(self: &Rc<Self>, why: &str) {
        if !self.running.get() {
            return;
        }
        self.halt();
        self.say(why);
        self.draw_now();
    }

    /// "recomeçar": fresh weights from the same seed and inputs, training at once.
    fn restart(self: &Rc<Self>) {
        self.halt();
        self.say("O treino recomeçou do zero.");
        self.clone().rebuild_then(false, true, true);
    }

    fn visibility_changed(self: &Rc<Self>) {
        let hidden = dom::document().is_some_and(|d| d.hidden());
        if hidden && self.running.get() {
            self.stop("Treino pausado: a aba ficou escondida. Ele continua quando você voltar.");
            self.resume_on_visible.set(true);
            dom::set_attr(&self.shell.host, "data-paused", "hidden");
        } else if !hidden && self.resume_on_visible.replace(false) {
            let _ = self.shell.host.remove_attribute("data-paused");
            self.start();
            self.say("A aba voltou: o treino continua.");
        }
    }

    /// The GPU the run should be on now: "WebGPU" forced, or automatically one that is
    /// hardware; none when the site computes on the CPU or the GPU failed in this run.
    fn wanted_device(&self) -> Option<Gpu> {
        if self.gpu_failed.get() {
            return None;
        }
        let gpu = self.shell.ctx.backend.gpu()?;
        match self.placement.value().as_str() {
            "cpu" => None,
            "webgpu" => Some(gpu),
            _ => (!gpu.facts().software).then_some(gpu),
        }
    }

    /// One slice of training: core's `steps_for`, on the runtime the run should be on (it
    /// moves first if it is not there). A GPU failure is core's to recover from; the widget
    /// tells the site and the reader, and keeps the run on the CPU.
    async fn slice(self: &Rc<Self>) -> Result<(), String> {
        let Some(mut run) = self.run.borrow_mut().take() else { return Ok(()) };
        let gpu = self.wanted_device();
        let rt = runtime(gpu.as_ref());
        let outcome = async {
            run.place(&rt).await?;
            run.steps_for(&rt, SLICE_MS, &now_ms, |report, ms| self.pace.borrow_mut().record(report, now_ms(), ms)).await
        }
        .await;
        let failed = match outcome {
            Ok(fallback) => fallback.map(|f| (f.error, f.at, f.resumed_from)),
            // The run could not go up to the GPU: it stays on the CPU, where it was.
            Err(e) if e.is_gpu_failure() => Some((e, run.steps_taken(), run.steps_taken())),
            Err(e) => {
                *self.run.borrow_mut() = Some(run);
                return Err(e.to_string());
            }
        };
        if let Some((e, at, from)) = failed {
            self.shell.ctx.backend.gpu_failed(&e);
            self.gpu_failed.set(true);
            self.say(&format!(
                "A GPU falhou no passo {at} ({e}). O treino continua na CPU, com os mesmos pesos, a partir do passo {from} (a última cópia vinda da GPU; {} passos refeitos com os mesmos lotes).",
                at - from
            ));
        }
        self.shell.mark(run.on());
        *self.run.borrow_mut() = Some(run);
        Ok(())
    }

    /// Books a draw for the next animation frame (at most one per frame).
    fn book_draw(self: &Rc<Self>) {
        if self.draw_booked.replace(true) {
            return;
        }
        let weak = Rc::downgrade(self);
        dom::on_next_frame(move || {
            if let Some(w) = weak.upgrade() {
                w.draw_booked.set(false);
                w.draw();
            }
        });
    }

    /// Draws what changed: the status at most every `STATUS_EVERY_MS`, the curve and the
    /// attention when a point was added, the samples when one was.
    fn draw(&self) {
        let (points, samples) = match self.run.borrow().as_ref() {
            Some(run) => (run.history.len(), run.samples.len()),
            None => return,
        };
        let changed = self.drawn.get() != (points, samples);
        if changed || !self.running.get() || now_ms() - self.status_drawn_at.get() >= STATUS_EVERY_MS {
            self.draw_status();
        }
        if changed {
            self.draw_curve();
            self.draw_attention();
            self.draw_samples();
            self.drawn.set((points, samples));
        }
    }

    fn draw_now(&self) {
        self.drawn.set((usize::MAX, usize::MAX));
        self.draw();
    }

    /// Where the run computes, and why not on the GPU when the reader might expect it.
    fn placement_text(&self, kind: BackendKind) -> String {
        let software = self.shell.ctx.backend.gpu().is_some_and(|g| g.facts().software);
        let on = kind.label();
        if self.gpu_failed.get() {
            format!("{on} (a GPU falhou)")
        } else if kind == BackendKind::Cpu && software && self.placement.value() == "auto" {
            format!("{on} (a WebGPU daqui é por software, mais lenta para treinar)")
        } else {
            on.to_string()
        }
    }

    fn draw_status(&self) {
        self.status_drawn_at.set(now_ms());
        let run = self.run.borrow();
        let Some(run) = run.as_ref() else { return };
        let (rate, step_ms) = self.pace.borrow().rates();
        let or_dash = |v: Option<f64>, decimals: usize| v.map_or("—".to_string(), |v| format_pt(v as f32, decimals));
        let last = run.history.last();
        let rows = vec![
            ("passos".to_string(), run.steps_taken().to_string()),
            ("passos por segundo".to_string(), or_dash(rate, 1)),
            ("ms por passo".to_string(), or_dash(step_ms, 1)),
            ("calculado em".to_string(), self.placement_text(run.on())),
            ("perda de treino".to_string(), or_dash(last.and_then(|p| p.train), 4)),
            ("perda de validação".to_string(), or_dash(last.map(|p| p.validation), 4)),
            ("bigrama (validação)".to_string(), format_pt(run.bigram as f32, 4)),
            ("chute uniforme, ln V".to_string(), format_pt(run.uniform as f32, 4)),
            ("parâmetros".to_string(), format_count(run.parameter_count() as u64)),
        ];
        show_results(&self.status, "train-status", "O treino", &rows);
        // The unrounded numbers, for tests and embedders.
        let host = &self.shell.host;
        dom::set_attr(host, "data-steps", &run.steps_taken().to_string());
        dom::set_attr(host, "data-validation-loss", &run.validation_loss().to_string());
        dom::set_attr(host, "data-bigram-loss", &run.bigram.to_string());
        dom::set_attr(host, "data-uniform-loss", &run.uniform.to_string());
        dom::set_attr(host, "data-points", &run.history.len().to_string());
        if let Some(rate) = rate {
            dom::set_attr(host, "data-steps-per-second", &rate.to_string());
        }
        if let Some(ms) = step_ms {
            dom::set_attr(host, "data-step-ms", &ms.to_string());
        }
    }

    fn draw_curve(&self) {
        let run = self.run.borrow();
        let Some(run) = run.as_ref() else { return };
        let xs: Vec<f64> = run.history.iter().map(|p| p.step as f64).collect();
        let level = |v: f64| vec![v; xs.len()];
        let series = [
            Series::line("treino (média desde o ponto anterior)", run.history.iter().map(|p| p.train.unwrap_or(f64::NAN)).collect()),
            Series::line("validação (o fim do texto)", run.history.iter().map(|p| p.validation).collect()).dots(),
            Series::line("uniforme: ln V", level(run.uniform)).dashed(),
            Series::line("bigrama", level(run.bigram)).dashed(),
        ];
        let axes = Axes::new("passo", format!("perda (nats por {})", token_unit(&run.tokenizer)));
        self.plot.update(&xs, &series, &axes, |x| format!("passo {x}"), |y| if y.is_finite() { format_pt(y as f32, 4) } else { "—".into() });
    }

    fn draw_attention(&self) {
        let run = self.run.borrow();
        let Some(run) = run.as_ref() else { return };
        let pick = |s: &HtmlSelectElement| s.value().parse::<usize>().unwrap_or(0);
        let (layer, head) = (pick(&self.layer), pick(&self.head));
        match run.attention(layer, head) {
            Ok(m) => {
                let title = format!("Atenção da camada {}, cabeça {}, no passo {}", layer + 1, head + 1, run.steps_taken());
                self.attention.update(&title, &m, "i, que olha", "j, olhada");
                self.probe.set_text_content(Some(&format!(
                    "As posições são os {} primeiros {}s da validação: «{}».",
                    run.probe_labels().len(),
                    token_unit(&run.tokenizer),
                    run.probe_text().replace('\n', "↵")
                )));
            }
            Err(e) => self.say(&e.to_string()),
        }
    }

    fn draw_samples(&self) {
        let run = self.run.borrow();
        let Some(run) = run.as_ref() else { return };
        self.samples.set_text_content(None);
        let all = &run.samples;
        let recent = all.len().saturating_sub(SAMPLES_SHOWN - 1).max(1);
        let shown = all.iter().take(1).chain(all.iter().skip(recent));
        for sample in shown {
            let card = dom::el("figure", "train-sample");
            dom::set_attr(&card, "data-step", &sample.step.to_string());
            dom::append(&card, &dom::text("figcaption", "", &format!("passo {}", sample.step)));
            dom::append(&card, &dom::text("p", "train-sample-text", &sample.text));
            dom::append(&self.samples, &card);
        }
    }

    /// "usar no decodificador": the weights of this step go to every decoder playground on
    /// the page (a copy: training may go on), with the tokenizer and the training text's ids.
    fn use_in_decoder(self: &Rc<Self>) {
        self.refresh_host();
        let model = match self.run.borrow().as_ref() {
            Some(run) => TrainedModel {
                weights: run.weights().clone(),
                tokenizer: run.tokenizer.clone(),
                training_ids: run.tokens.train.clone(),
                label: format!(
                    "treinado nesta página ({} passos, perda de validação {})",
                    // On the GPU, the host copy's step (taken at the last evaluation).
                    run.host_step(),
                    format_pt(run.validation_loss() as f32, 4)
                ),
            },
            None => return self.say("Ainda não há modelo: clique em «treinar»."),
        };
        match trained::offer(model) {
            0 => self.say("Não há um decodificador nesta página para receber o modelo; use «baixar pesos»."),
            1 => self.say("O decodificador desta página agora roda o modelo treinado aqui (os pesos deste passo)."),
            n => self.say(&format!("{n} decodificadores desta página agora rodam o modelo treinado aqui.")),
        }
    }

    /// On the CPU, the current weights to the host copy (a copy, at once); on the GPU the copy
    /// stays the last evaluation's (its step is named).
    fn refresh_host(&self) {
        if let Some(run) = self.run.borrow_mut().as_mut().filter(|r| r.on() == BackendKind::Cpu) {
            if let Err(e) = block_on_ready(run.refresh_host(&runtime(None))) {
                self.say(&e.to_string());
            }
        }
    }

    /// Offers the model's `weights`, or else its configuration, as a file.
    fn download(self: &Rc<Self>, weights: bool) {
        self.refresh_host();
        let file = self.run.borrow().as_ref().map(|run| match weights {
            true => (run.safetensors(), "treinado.safetensors", "application/octet-stream"),
            false => (run.config_json().into_bytes(), "treinado-config.json", "application/json"),
        });
        let Some((bytes, name, mime)) = file else { return self.say("Ainda não há modelo para baixar.") };
        match save_file(&bytes, name, mime) {
            Ok(()) if weights => self.say(&format!("Pesos salvos: {name} ({} bytes).", format_count(bytes.len() as u64))),
            Ok(()) => self.say(&format!("Configuração salva: {name} (tamanhos, vocabulário e perdas).")),
            Err(e) => self.say(&e),
        }
    }
}

/// The training loop: a slice, a draw booked, a yield; until stopped or the widget is gone.
async fn train_loop(weak: Weak<TrainWidget>, generation: u64) {
    loop {
        let Some(w) = weak.upgrade() else { return };
        if !w.running.get() || w.generation.get() != generation {
            return;
        }
        if let Err(message) = w.slice().await {
            w.halt();
            w.say(&format!("O treino parou: {message}"));
            w.draw_now();
            return;
        }
        w.book_draw();
        drop(w);
        dom::yield_now().await;
    }
}

/// Offers `bytes` to the reader as a file named `name`.
fn save_file(bytes: &[u8], name: &str, mime: &str) -> Result<(), String> {
    let fail = |_| "O navegador não deixou salvar o arquivo.".to_string();
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options).map_err(fail)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(fail)?;
    let link = dom::el("a", "").unchecked_into::<web_sys::HtmlAnchorElement>();
    link.set_href(&url);
    link.set_download(name);
    link.click();
    // Revoked once the download has started (at once, some browsers would cancel it).
    wasm_bindgen_futures::spawn_local(async move {
        dom::sleep(10_000).await;
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    Ok(())
}

impl Widget for TrainWidget {
    /// The first computation, and a backend switch: the run is kept when its inputs did not
    /// change (a switch does not restart training).
    fn recompute(self: Rc<Self>) {
        self.rebuild(false);
    }

    /// A restored source shows the text box when it is the reader's own text, as choosing it does.
    fn restore(&self, key: &str, value: &str) -> Option<bool> {
        (key == "source").then(|| {
            self.text_label.set_hidden(value != "own");
            true
        })
    }
}
