//! `train`: a tiny decoder trained in the reader's browser, live. The text is the preset story
//! ("Missa do galo", fetched when the widget mounts, never part of the wasm) or the reader's
//! own, cut into characters; the sizes are the reader's, with the parameter count shown.
//! "treinar" / "pausar" / "recomeçar"; the loss curve (training, and validation on the
//! held-out tail) against the uniform and bigram levels; samples every few steps, side by
//! side; the attention of a chosen layer and head on a fixed probe; the weights saved
//! ("baixar") or handed to the decoder playground on the same page ("usar no decodificador").
//! "arquitetura": the 2017 block or today's (issue 41); "comparar as duas arquiteturas" trains
//! both from step 0 on the same batches at a matched parameter count, their validation curves
//! overlaid, each one's loss and the race in words as core computes them (`train_run::race`).
//!
//! The run (`core::train_run::TrainRun`) lives in the page's Web Worker (`web::resident`,
//! `worker/`), so training never holds the page's thread: the widget keeps the reader's inputs,
//! sends commands (`core::train_run::protocol`) and draws the views that come back, numbered by
//! build so a reply about an older run is ignored. A worker that crashes loses nothing the
//! reader typed: the widget says so and builds the run again. A hidden tab pauses it; it
//! resumes when the tab shows again if the reader had it running.
//!
//! "treinar em": automatically, the run goes to the worker's GPU when the site computes on
//! WebGPU and the adapter is real hardware (a software adapter trains far slower than the CPU);
//! the reader can force either. A lost device moves the run to the CPU from its last host copy
//! (core's fallback: the steps since it are redone on the same batches), and the widget says so.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

use crate::core::executor::BackendKind;
use crate::core::format::format_pt;
use crate::core::decoder::Architecture;
use crate::core::train_run::protocol::{BuildInfo, ExportPurpose, Placement, TrainCommand, TrainReport, TrainView};
use crate::core::train_run::{TrainSettings, MAX_CHARS};
use crate::core::transformer::format_count;
use crate::web::dom;
use crate::web::kit::ui::{self, live_note, number_field, read_count, show_results};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::figures::DenseHeatmap;
use crate::web::kit::draw::line_plot::{Axes, LinePlot, Series};
use crate::web::kit::draw::Scale;
use crate::web::kit::{control_of, controls, listen, Ctx, Shell, Widget, WidgetKind};
use crate::web::model_store;
use crate::web::resident::{self, Reply};
use crate::web::widgets::decoder::trained;

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::TRAIN, mount };

/// The preset story, relative to the site's root (fetched on mount; kept offline by the
/// service worker once fetched, as the other extra files).
const PRESET_PATH: &str = "static/train/missa-do-galo.txt";
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
    /// The other architecture trained beside it ("comparar", issue 41).
    race: bool,
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
    /// original (2017) or moderna (RoPE, RMSNorm, SwiGLU, GQA).
    architecture: HtmlSelectElement,
    /// "comparar as duas": pressed while the race is on.
    compare: HtmlElement,
    racing: Cell<bool>,
    /// Each architecture's validation loss and the race in words (hidden outside a race).
    race: HtmlElement,
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
    /// The run the worker holds: its number (commands and replies carry it), what it was built
    /// from, and its last view.
    build: Cell<u64>,
    built_from: RefCell<Option<Inputs>>,
    view: RefCell<Option<TrainView>>,
    /// The build being waited for: woken by its first view, or with why it failed.
    built: resident::Awaited<Result<(), String>>,
    running: Cell<bool>,
    /// Paused by the reader, until the worker's own view says it stopped (a slice in flight
    /// still reports steps): views until then are not drawn.
    pausing: Cell<bool>,
    /// Paused because the tab was hidden while running: resume when it shows.
    resume_on_visible: Cell<bool>,
    /// The history and sample counts last drawn.
    drawn: Cell<(usize, usize)>,
    /// Keeps the worker's replies coming to this widget.
    _listener: resident::Listener,
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
    let architectures = [
        (Architecture::Original.name(), "original (2017)"),
        (Architecture::Moderna.name(), "moderna (RoPE, RMSNorm, SwiGLU, GQA)"),
    ];
    let (architecture_label, architecture) = ui::select("arquitetura ", "architecture", &architectures, Architecture::Original.name());

    // The sizes.
    let sizes = dom::el("div", "train-sizes");
    let (layers_label, layers) = labelled_count("camadas", "layers", defaults.n_layers);
    let (width_label, width) = labelled_count("d_{model}", "width", defaults.d_model);
    let (heads_label, heads) = labelled_count("cabeças", "heads", defaults.n_heads);
    let (context_label, context) = labelled_count("contexto", "context", defaults.context);
    let (batch_label, batch) = labelled_count("sequências por passo", "batch", defaults.batch);
    dom::append_all(&sizes, &[&layers_label, &width_label, &heads_label, &context_label, &batch_label]);
    let model_info = live_note("train-model-info");
    dom::append_all(&shell.inputs, &[&source_label, &text_label, &text_info, &tokenizer_label, &architecture_label, &placement_label, &sizes, &model_info]);

    // The controls.
    let train = ui::button("treinar", "train");
    let pause = ui::button("pausar", "pause");
    pause.set_hidden(true);
    let restart = ui::button("recomeçar", "restart");
    let compare = ui::button("comparar as duas arquiteturas", "compare");
    dom::set_attr(&compare, "aria-pressed", "false");
    let use_it = ui::button("usar no decodificador", "use");
    let download = ui::button("baixar pesos", "download");
    let download_config = ui::button("baixar config", "download-config");
    let (layer_label, layer) = ui::select("camada ", "layer", &index_options(defaults.n_layers), "0");
    let (head_label, head) = ui::select("cabeça ", "head", &index_options(defaults.n_heads), "0");
    controls::offered_later(&layer);
    controls::offered_later(&head);
    shell.control(&[&train, &pause, &restart, &compare, &use_it, &download, &download_config, &layer_label, &head_label]);

    // The outputs.
    let message = live_note("train-message wide");
    let status = dom::el("div", "train-status");
    let race = dom::el("div", "train-race wide");
    race.set_hidden(true);
    let plot = LinePlot::new("loss", "Perda de treino e de validação, passo a passo");
    let samples_heading = dom::text("h4", "wide", "Amostras do modelo: a primeira e as mais recentes");
    let samples = dom::el("div", "train-samples wide");
    let attention = DenseHeatmap::new("train-attention", Scale::Probability);
    let probe = dom::el("p", "train-probe wide");
    dom::append_all(&shell.outputs, &[&message, &status, &race, &plot.root, &samples_heading, &samples, &attention.root, &probe]);

    let widget = Rc::new_cyclic(|weak| TrainWidget {
        shell,
        source,
        text_label,
        text,
        text_info,
        tokenizer,
        placement,
        architecture,
        compare,
        racing: Cell::new(false),
        race,
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
        build: Cell::new(0),
        built_from: RefCell::new(None),
        view: RefCell::new(None),
        built: resident::Awaited::new(),
        running: Cell::new(false),
        pausing: Cell::new(false),
        resume_on_visible: Cell::new(false),
        drawn: Cell::new((usize::MAX, usize::MAX)),
        _listener: resident::listen(weak.clone(), TrainWidget::on_reply),
    });
    let shell = &widget.shell;
    shell.on(&widget, &shell.inputs, &["input"], |w, e| {
        if control_of(e) == "placement" {
            // Where it trains is not what it trains: the run moves at its next slice.
            let (placement, gpu_allowed) = w.placement();
            w.send(TrainCommand::Place { build: w.build.get(), placement, gpu_allowed });
            return;
        }
        if control_of(e) == "source" {
            w.text_label.set_hidden(w.source.value() != "own");
        }
        w.clone().rebuild(true);
    });
    shell.on(&widget, &shell.controls, &["change"], |w, e| {
        if matches!(control_of(e).as_str(), "layer" | "head") {
            w.look();
        }
    });
    shell.on_action(&widget, |w, action| match action {
        "train" => w.start(),
        "pause" => w.stop("Treino pausado. «treinar» continua do mesmo ponto."),
        "restart" => w.restart(),
        "compare" => w.toggle_race(),
        "use" => w.ask_export(ExportPurpose::Decoder),
        "download" => w.ask_export(ExportPurpose::Weights),
        "download-config" => w.ask_export(ExportPurpose::Config),
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
            architecture: if self.architecture.value() == Architecture::Moderna.name() { Architecture::Moderna } else { Architecture::Original },
            ..TrainSettings::tiny()
        };
        settings.validate().map_err(|e| e.to_string())?;
        let own = self.source.value() == "own";
        Ok(Inputs { own, bpe: self.tokenizer.value() == "bpe", text: if own { self.text.value() } else { String::new() }, settings, race: self.racing.get() })
    }

    fn send(&self, command: TrainCommand) {
        resident::send(&self.shell.ctx, command.encode());
    }

    /// "treinar em", and whether the site computes on WebGPU at all.
    fn placement(&self) -> (Placement, bool) {
        let placement = match self.placement.value().as_str() {
            "cpu" => Placement::Cpu,
            "webgpu" => Placement::WebGpu,
            _ => Placement::Auto,
        };
        (placement, self.shell.ctx.backend.gpu().is_some())
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
            if !force && widget.view.borrow().is_some() && widget.built_from.borrow().as_ref() == Some(&inputs) {
                widget.draw_now();
                return Ok(());
            }
            widget.discard();
            let raw = if inputs.own { Rc::new(inputs.text.clone()) } else { widget.preset_text().await? };
            let bpe = if inputs.bpe { Some(model_store::bpe_files(&model_store::base_for(&widget.shell.ctx, &widget.shell.host)).await?) } else { None };
            if !update.is_current() {
                return Ok(());
            }
            let build = widget.build.get() + 1;
            widget.build.set(build);
            *widget.built_from.borrow_mut() = Some(inputs.clone());
            // Wait for the worker's first view of this run (or its failure).
            let built = widget.built.wait(build);
            widget.send(TrainCommand::Build { build, text: raw.to_string(), preset: !inputs.own, bpe, settings: inputs.settings.clone(), race: inputs.race });
            match built.await {
                Some(Ok(())) => {}
                Some(Err(message)) => {
                    *widget.built_from.borrow_mut() = None;
                    return Err(message);
                }
                // Another build replaced this one.
                None => return Ok(()),
            }
            if then_train && update.is_current() {
                widget.start();
            }
            Ok(())
        });
    }

    /// Forgets the run (bad inputs, or new ones): training stops, nothing stale is shown.
    fn discard(&self) {
        self.halt();
        self.built.answer_all(|| None);
        self.build.set(self.build.get() + 1);
        *self.view.borrow_mut() = None;
        *self.built_from.borrow_mut() = None;
        self.model_info.set_text_content(None);
    }

    /// Stops training, without a message.
    fn halt(&self) {
        if self.running.replace(false) {
            self.pausing.set(true);
            self.send(TrainCommand::Pause { build: self.build.get() });
        }
        self.resume_on_visible.set(false);
        self.show_running();
    }

    fn show_running(&self) {
        let running = self.running.get();
        self.train.set_hidden(running);
        self.pause.set_hidden(!running);
        // "Training" until the worker confirms the pause (its last slice's steps are still coming).
        let training = running || self.pausing.get();
        dom::set_attr(&self.shell.host, "data-training", if training { "true" } else { "false" });
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
        if self.view.borrow().is_none() {
            // Nothing to train yet (inputs being read, or wrong): read them, then train.
            self.clone().rebuild_then(false, false, true);
            return;
        }
        self.running.set(true);
        self.pausing.set(false);
        self.resume_on_visible.set(false);
        self.show_running();
        let (placement, gpu_allowed) = self.placement();
        self.send(TrainCommand::Train { build: self.build.get(), placement, gpu_allowed });
        let on_page = if resident::on_main_thread() { " (neste navegador, na própria página: ele não deixou criar um worker)" } else { "" };
        self.say(&format!("Treinando…{on_page}"));
    }

    /// "pausar" (and anything that stops training with a reason).
    fn stop(self: &Rc<Self>, why: &str) {
        if !self.running.get() {
            return;
        }
        self.halt();
        self.say(why);
    }

    /// "recomeçar": fresh weights from the same seed and inputs, training at once.
    fn restart(self: &Rc<Self>) {
        self.halt();
        self.say("O treino recomeçou do zero.");
        self.clone().rebuild_then(false, true, true);
    }

    /// "comparar as duas arquiteturas": both train from step 0 on the same batches, the reader's
    /// architecture and the other; pressed again, back to the reader's alone.
    fn toggle_race(self: &Rc<Self>) {
        let racing = !self.racing.get();
        self.racing.set(racing);
        dom::set_attr(&self.compare, "aria-pressed", if racing { "true" } else { "false" });
        self.halt();
        self.say(if racing { "As duas arquiteturas treinam do zero, lado a lado, com os mesmos lotes." } else { "Só a arquitetura escolhida, do zero." });
        self.clone().rebuild_then(false, true, racing);
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

    /// A reply from the worker about this widget's run.
    fn on_reply(self: &Rc<Self>, reply: &Reply) {
        let report = match reply {
            Reply::Report { message, bytes } => match TrainReport::decode(message) {
                Ok(report) if report.build() == self.build.get() => (report, bytes.clone()),
                _ => return,
            },
            Reply::Crashed(why) => {
                let waited = self.built.answer_all(|| Some(Err(format!("O treino em segundo plano parou ({why})."))));
                if waited || self.view.borrow().is_some() {
                    self.discard();
                    self.say(&format!("O treino em segundo plano parou ({why}). O modelo foi refeito do passo 0, com o seu texto e os seus tamanhos."));
                    self.clone().rebuild(false);
                }
                return;
            }
        };
        match report {
            (TrainReport::Built { info, .. }, _) => self.show_info(info),
            (TrainReport::View { view, .. }, _) => {
                if self.pausing.get() && view.running {
                    return;
                }
                if !view.running {
                    self.pausing.set(false);
                }
                let fresh_attention = view.attention.is_some();
                let mut view = view;
                if !fresh_attention {
                    // The map is sent with new points only: keep the last one.
                    view.attention = self.view.borrow_mut().as_mut().and_then(|v| v.attention.take());
                }
                *self.view.borrow_mut() = Some(view);
                self.show_running();
                self.draw(fresh_attention);
                self.built.answer(self.build.get(), Ok(()));
            }
            (TrainReport::GpuFailed { error, at, resumed_from, .. }, _) => {
                self.say(&format!(
                    "A GPU falhou no passo {at} ({error}). O treino continua na CPU, com os mesmos pesos, a partir do passo {resumed_from} (a última cópia vinda da GPU; {} passos refeitos com os mesmos lotes).",
                    at - resumed_from
                ));
            }
            (TrainReport::Failed { message, .. }, _) => {
                if self.built.answer(self.build.get(), Err(message.clone())) {
                    return;
                }
                self.running.set(false);
                self.pausing.set(false);
                self.show_running();
                self.say(&format!("O treino parou: {message}"));
            }
            (TrainReport::Exported { purpose, .. }, bytes) => self.exported(purpose, bytes.unwrap_or_default()),
        }
    }

    /// What the new run is: the text's notes, the model's size, the head menus.
    fn show_info(&self, info: BuildInfo) {
        let mut notes = vec![format!("{} caracteres.", format_count(info.chars as u64))];
        notes.extend(info.notes.iter().cloned());
        self.text_info.set_text_content(Some(&notes.join(" ")));
        dom::set_attr(&self.text_info, "data-cut", if info.cut { "true" } else { "false" });
        let unit = &info.unit;
        self.model_info.set_text_content(Some(&format!(
            "{} parâmetros, com um vocabulário de {} {unit}s; {} {unit}s para treinar, {} guardados para validação.",
            format_count(info.parameters as u64),
            format_count(info.vocab as u64),
            format_count(info.train_tokens as u64),
            format_count(info.validation_tokens as u64)
        )));
        dom::set_attr(&self.model_info, "data-parameters", &info.parameters.to_string());
        if let Some(inputs) = self.built_from.borrow().as_ref() {
            let selected = |s: &HtmlSelectElement, n: usize| s.value().parse::<usize>().ok().filter(|&i| i < n).unwrap_or(0).to_string();
            let (layer, head) = (selected(&self.layer, inputs.settings.n_layers), selected(&self.head, inputs.settings.n_heads));
            ui::set_options(&self.layer, &index_options(inputs.settings.n_layers), &layer);
            ui::set_options(&self.head, &index_options(inputs.settings.n_heads), &head);
            self.look();
        }
        self.drawn.set((usize::MAX, usize::MAX));
    }

    /// The head whose attention the views carry.
    fn look(&self) {
        let pick = |s: &HtmlSelectElement| s.value().parse::<usize>().unwrap_or(0);
        self.send(TrainCommand::Look { build: self.build.get(), layer: pick(&self.layer), head: pick(&self.head) });
    }

    /// Draws what changed: the status, the curve and samples when a point or a sample was
    /// added, the attention when the view brought a new map (the worker sends views at most
    /// every 250 ms, and the map only with a new point, a new head or a stop).
    fn draw(&self, attention: bool) {
        let counts = match self.view.borrow().as_ref() {
            Some(v) => (v.history.len(), v.samples.len()),
            None => return,
        };
        self.draw_status();
        if self.drawn.get() != counts {
            self.draw_curve();
            self.draw_samples();
            self.drawn.set(counts);
        }
        if attention {
            self.draw_attention();
        }
    }

    fn draw_now(&self) {
        self.drawn.set((usize::MAX, usize::MAX));
        self.draw(true);
    }

    /// Where the run computes, and why not on the GPU when the reader might expect it.
    fn placement_text(&self, view: &TrainView) -> String {
        let on = if view.on_gpu { BackendKind::WebGpu } else { BackendKind::Cpu }.label();
        let software = view.software_gpu || self.shell.ctx.backend.gpu().is_some_and(|g| g.facts().software);
        if view.gpu_failed {
            format!("{on} (a GPU falhou)")
        } else if !view.on_gpu && software && self.placement.value() == "auto" {
            format!("{on} (a WebGPU daqui é por software, mais lenta para treinar)")
        } else {
            on.to_string()
        }
    }

    fn draw_status(&self) {
        let view = self.view.borrow();
        let Some(v) = view.as_ref() else { return };
        let or_dash = |value: Option<f64>, decimals: usize| value.map_or("—".to_string(), |x| format_pt(x as f32, decimals));
        let last = v.history.last();
        let rows = vec![
            ("passos".to_string(), v.steps.to_string()),
            ("passos por segundo".to_string(), or_dash(v.rate, 1)),
            ("ms por passo".to_string(), or_dash(v.step_ms, 1)),
            ("calculado em".to_string(), self.placement_text(v)),
            ("perda de treino".to_string(), or_dash(last.and_then(|p| p.train), 4)),
            ("perda de validação".to_string(), or_dash(last.map(|p| p.validation), 4)),
            ("bigrama (validação)".to_string(), format_pt(v.bigram as f32, 4)),
            ("chute uniforme, ln V".to_string(), format_pt(v.uniform as f32, 4)),
            ("parâmetros".to_string(), format_count(v.parameters as u64)),
        ];
        show_results(&self.status, "train-status", "O treino", &rows);
        self.shell.mark(if v.on_gpu { BackendKind::WebGpu } else { BackendKind::Cpu });
        // The unrounded numbers, for tests and embedders.
        let host = &self.shell.host;
        dom::set_attr(host, "data-steps", &v.steps.to_string());
        dom::set_attr(host, "data-validation-loss", &v.validation_loss.unwrap_or(f64::NAN).to_string());
        dom::set_attr(host, "data-bigram-loss", &v.bigram.to_string());
        dom::set_attr(host, "data-uniform-loss", &v.uniform.to_string());
        dom::set_attr(host, "data-points", &v.history.len().to_string());
        if let Some(rate) = v.rate {
            dom::set_attr(host, "data-steps-per-second", &rate.to_string());
        }
        if let Some(ms) = v.step_ms {
            dom::set_attr(host, "data-step-ms", &ms.to_string());
        }
        self.draw_race(v);
    }

    /// Each architecture's last validation loss (`data-arch-loss`, unrounded in `data-value`)
    /// and what the race shows, as core words it.
    fn draw_race(&self, v: &TrainView) {
        self.race.set_hidden(v.race.is_none());
        let Some(race) = v.race.as_ref() else { return };
        self.race.set_text_content(None);
        let losses = dom::el("p", "train-race-losses");
        for side in &race.sides {
            let name = side.architecture.name();
            let last = side.history.last().map(|p| p.validation);
            let item = dom::text("span", "", &format!(
                "{name}: {} na validação, {} parâmetros",
                last.map_or("—".to_string(), |x| format_pt(x as f32, 4)),
                format_count(side.parameters as u64)
            ));
            dom::set_attrs(&item, &[("data-arch-loss", name), ("data-value", &last.unwrap_or(f64::NAN).to_string()), ("data-step", &side.history.last().map_or(0, |p| p.step).to_string())]);
            dom::append(&losses, &item);
        }
        let summary = dom::text("p", "train-race-summary", &race.summary);
        dom::set_attr(&summary, "data-race", "");
        dom::append_all(&self.race, &[&losses, &summary]);
    }

    fn draw_curve(&self) {
        let view = self.view.borrow();
        let Some(v) = view.as_ref() else { return };
        let xs: Vec<f64> = v.history.iter().map(|p| p.step as f64).collect();
        let level = |value: f64| vec![value; xs.len()];
        let mut series = vec![
            Series::line("treino (média desde o ponto anterior)", v.history.iter().map(|p| p.train.unwrap_or(f64::NAN)).collect()),
            Series::line("validação (o fim do texto)", v.history.iter().map(|p| p.validation).collect()).dots(),
            Series::line("uniforme: ln V", level(v.uniform)).dashed(),
            Series::line("bigrama", level(v.bigram)).dashed(),
        ];
        // In a race the other architecture's validation joins, at the same steps (its points
        // not measured yet are gaps).
        if let Some(race) = v.race.as_ref() {
            let name = |i: usize| race.sides[i].architecture.name();
            series[1].label = format!("validação: {}", name(0));
            let rival = &race.sides[1].history;
            let at = |step: usize| rival.iter().find(|p| p.step == step).map_or(f64::NAN, |p| p.validation);
            series.push(Series::line(format!("validação: {}", name(1)), v.history.iter().map(|p| at(p.step)).collect()).dots());
        }
        let axes = Axes::new("passo", format!("perda (nats por {})", v.unit));
        self.plot.update(&xs, &series, &axes, |x| format!("passo {x}"), |y| if y.is_finite() { format_pt(y as f32, 4) } else { "—".into() });
    }

    fn draw_attention(&self) {
        let view = self.view.borrow();
        let Some(v) = view.as_ref() else { return };
        let Some(a) = v.attention.as_ref() else { return };
        let Ok(m) = crate::core::Matrix::from_vec(a.size, a.size, a.weights.clone()) else { return };
        let title = format!("Atenção da camada {}, cabeça {}, no passo {}", a.layer + 1, a.head + 1, v.steps);
        // While training, the map's table twin waits for the pause (the worker then sends the map).
        self.attention.update_with(&title, &m, "i, que olha", "j, olhada", !v.running);
        self.probe.set_text_content(Some(&format!("As posições são os {} primeiros {}s da validação: «{}».", v.probe_len, v.unit, v.probe_text.replace('\n', "↵"))));
    }

    fn draw_samples(&self) {
        let view = self.view.borrow();
        let Some(v) = view.as_ref() else { return };
        self.samples.set_text_content(None);
        let all = &v.samples;
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

    /// "usar no decodificador", "baixar pesos", "baixar config": the worker sends the current
    /// weights (on the GPU, the last evaluation's copy) and what goes with them.
    fn ask_export(&self, purpose: ExportPurpose) {
        if self.view.borrow().is_none() {
            return self.say(match purpose {
                ExportPurpose::Decoder => "Ainda não há modelo: clique em «treinar».",
                _ => "Ainda não há modelo para baixar.",
            });
        }
        self.send(TrainCommand::Export { build: self.build.get(), purpose });
    }

    fn exported(self: &Rc<Self>, purpose: ExportPurpose, bytes: Vec<u8>) {
        match purpose {
            // The weights stay in the worker, where the playgrounds run.
            ExportPurpose::Decoder => self.say(match trained::offer() {
                0 => "Não há um decodificador nesta página para receber o modelo; use «baixar pesos».".to_string(),
                1 => "O decodificador desta página agora roda o modelo treinado aqui (os pesos deste passo).".to_string(),
                n => format!("{n} decodificadores desta página agora rodam o modelo treinado aqui."),
            }
            .as_str()),
            ExportPurpose::Weights => match dom::save_file(&bytes, "treinado.safetensors", "application/octet-stream") {
                Ok(()) => self.say(&format!("Pesos salvos: treinado.safetensors ({} bytes).", format_count(bytes.len() as u64))),
                Err(e) => self.say(&e),
            },
            ExportPurpose::Config => match dom::save_file(&bytes, "treinado-config.json", "application/json") {
                Ok(()) => self.say("Configuração salva: treinado-config.json (tamanhos, vocabulário e perdas)."),
                Err(e) => self.say(&e),
            },
        }
    }
}

impl Widget for TrainWidget {
    /// The first computation, and a backend switch: the run is kept when its inputs did not
    /// change (a switch does not restart training; the run moves at its next slice).
    fn recompute(self: Rc<Self>) {
        let (placement, gpu_allowed) = self.placement();
        if self.view.borrow().is_some() {
            self.send(TrainCommand::Place { build: self.build.get(), placement, gpu_allowed });
        }
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
