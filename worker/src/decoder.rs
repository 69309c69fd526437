//! The decoder playgrounds' sessions, in the worker: each playground on the page (`widget`)
//! has its model, its `Session` and its lens here, and gets back what it draws
//! (`core::decoder::view`, as `DecoderView`s). Actions run in the order asked; generation goes
//! in slices of `SLICE_MS` with the worker's inbox read between them (a "Parar" stops it at
//! the next token) and a view at most every `VIEW_EVERY_MS`. A device failure is core's to
//! recover from (the session goes on on the CPU, keeping every token); the worker says so and
//! keeps the playground on the CPU until the page's backend changes.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use atencao::core::decoder::lens::{LensPass, LensReading};
use atencao::core::decoder::load::{parse_bigram, parse_tokenizer, Model};
use atencao::core::decoder::manifest::Manifest;
use atencao::core::decoder::model::DecoderPass;
use atencao::core::decoder::playable::{Playable, TrainedModel};
use atencao::core::decoder::protocol::{attention_bytes, DecoderCommand, DecoderReport, DecoderView, Look, ShippedFiles, Which};
use atencao::core::decoder::branches::Choice;
use atencao::core::decoder::sampling::SamplingOptions;
use atencao::core::decoder::session::{History, Session};
use atencao::core::decoder::tree::{BranchBook, Run};
use atencao::core::decoder::tokenizer::TokenCodec;
use atencao::core::decoder::view;
use atencao::core::decoder::DecoderWeights;
use atencao::core::error::{ComputeError, Result};
use atencao::core::executor::{BackendKind, Job};
use atencao::core::runtime::{Fallback, Placed, Runtime};
use atencao::core::trace::{run_traced, run_traced_with_results, Trace};
use atencao::gpu::{GpuContext, GpuTensor};

use crate::host::{now_ms, reply, yield_now};

/// Longest stretch of generation between two looks at the inbox, in ms.
const SLICE_MS: f64 = 40.0;
/// While generating, a view is sent at most this often (the page draws each one it gets).
const VIEW_EVERY_MS: f64 = 200.0;

type Tensor = Placed<GpuTensor>;

/// One playground's state.
#[derive(Default)]
struct Playground {
    model: Option<Rc<Playable>>,
    /// The session (out of the map while it computes).
    session: Option<Session<Tensor>>,
    prompt_used: String,
    /// The weights where the session runs, uploaded once per model and place (true: the GPU).
    placed: Option<(bool, Rc<DecoderWeights>, Rc<DecoderWeights<Tensor>>)>,
    look: Option<Look>,
    lens: Option<(usize, LensReading)>,
    rate: Option<f64>,
    /// Tokens per second of the last generation with the KV cache, and without it.
    rates: [Option<f64>; 2],
    /// The site computes on WebGPU.
    gpu: bool,
    /// The GPU failed this session: it stays on the CPU until the page's backend changes.
    cpu_only: bool,
    queue: VecDeque<DecoderCommand>,
    running: bool,
    stop: bool,
    /// The last action a "Parar" dropped before it ran: the page waits for it, so the view
    /// that ends the queue says it is done.
    dropped: u64,
    /// The ids whose chips the page has.
    sent_ids: Vec<u32>,
    /// The reader's branches (`core::decoder::tree`); how the current text was made, when one
    /// run from the prompt made it; and the settings of its last generation (a branch goes on
    /// with them).
    book: BranchBook,
    run: Option<Run>,
    options: Option<SamplingOptions>,
}

thread_local! {
    /// The shipped model, or why its files could not be read.
    static SHIPPED: RefCell<Option<std::result::Result<Rc<Playable>, String>>> = const { RefCell::new(None) };
    static TRAINED: RefCell<Option<Rc<Playable>>> = const { RefCell::new(None) };
    /// The prompt a trained model can read (the first words of its training text).
    static TRAINED_PROMPT: RefCell<String> = const { RefCell::new(String::new()) };
    static PLAYGROUNDS: RefCell<HashMap<u32, Playground>> = RefCell::new(HashMap::new());
}

impl Playground {
    /// A command's look and the page's backend: the GPU is worth another try when the backend
    /// changed.
    fn take(&mut self, look: Look, gpu: bool) {
        self.look = Some(look);
        self.cpu_only &= self.gpu == gpu;
        self.gpu = gpu;
    }
}

/// The playground's model, or the shipped one before its first reading.
fn model_or_shipped(widget: u32) -> std::result::Result<Rc<Playable>, Missing> {
    match with(widget, |p| p.model.clone()) {
        Some(model) => Ok(model),
        None => shipped(),
    }
}

fn with<R>(widget: u32, f: impl FnOnce(&mut Playground) -> R) -> R {
    PLAYGROUNDS.with(|p| f(p.borrow_mut().entry(widget).or_default()))
}

fn send(report: DecoderReport, bytes: Option<Vec<u8>>) {
    reply(report.encode(), bytes);
}

/// The model the `train` widget handed over ("usar no decodificador"): the next playground
/// that asks for `Which::Trained` runs it.
pub fn hand_over(model: TrainedModel) {
    TRAINED_PROMPT.with(|p| *p.borrow_mut() = model.sample_prompt(40));
    TRAINED.with(|t| *t.borrow_mut() = Some(Rc::new(model.into_playable())));
}

/// A command from a playground (`bytes`: the shipped model's files).
pub fn receive(command: DecoderCommand, bytes: Option<Vec<u8>>) {
    match command {
        DecoderCommand::Shipped { files } => {
            let model = load_shipped(&files, bytes.as_deref().unwrap_or_default()).map_err(|e| e.to_string());
            SHIPPED.with(|s| *s.borrow_mut() = Some(model));
        }
        DecoderCommand::Stop { widget } => with(widget, |p| {
            let last = p.queue.iter().map(DecoderCommand::action).max().unwrap_or(0);
            p.dropped = p.dropped.max(last);
            p.queue.clear();
            p.stop = true;
        }),
        DecoderCommand::Rerun { widget, request, ids, lens_at, kind, with_results } => {
            wasm_bindgen_futures::spawn_local(rerun(widget, request, ids, lens_at, kind, with_results));
        }
        command => {
            let widget = command.widget();
            let start = with(widget, |p| {
                p.queue.push_back(command);
                !std::mem::replace(&mut p.running, true)
            });
            if start {
                wasm_bindgen_futures::spawn_local(run_queue(widget));
            }
        }
    }
}

/// The shipped model from the page's files, which the page checked against the manifest's
/// SHA-256 as it downloaded them (`model_store::verified_file`): here they are only parsed,
/// once per worker.
fn load_shipped(files: &ShippedFiles, bytes: &[u8]) -> Result<Rc<Playable>> {
    let manifest = Manifest::from_json(&files.manifest_json)?;
    let (weights, bigram) = bytes.split_at(files.weights_len.min(bytes.len()));
    let bpe = parse_tokenizer(&manifest, files.tokenizer_json.as_bytes())?;
    let bigram = parse_bigram(&manifest, bigram)?;
    let model = Model::from_checked(manifest, bpe, weights)?;
    Ok(Rc::new(Playable::shipped(&model, Rc::new(bigram))))
}

/// Runs the playground's actions in order until none is left.
async fn run_queue(widget: u32) {
    loop {
        let Some(command) = with(widget, |p| {
            let next = p.queue.pop_front();
            if next.is_none() {
                p.running = false;
            }
            p.stop = false;
            next
        }) else {
            let dropped = with(widget, |p| std::mem::take(&mut p.dropped));
            if dropped > 0 {
                send_view(widget, dropped, false);
            }
            return;
        };
        let action = command.action();
        if let Err(e) = perform(widget, command).await {
            let needs_model = matches!(e, Missing::Shipped);
            with(widget, |p| p.queue.clear());
            send(DecoderReport::Failed { widget, action, message: e.message(), needs_model }, None);
        }
    }
}

/// Why an action could not run.
enum Missing {
    /// This worker has no shipped model yet (a new worker): the page sends it and asks again.
    Shipped,
    Error(String),
}

impl Missing {
    fn message(&self) -> String {
        match self {
            Missing::Shipped => "O modelo ainda não chegou ao worker.".into(),
            Missing::Error(e) => e.clone(),
        }
    }
}

impl From<ComputeError> for Missing {
    fn from(e: ComputeError) -> Missing {
        Missing::Error(e.to_string())
    }
}

fn shipped() -> std::result::Result<Rc<Playable>, Missing> {
    match SHIPPED.with(|s| s.borrow().clone()) {
        Some(Ok(model)) => Ok(model),
        Some(Err(why)) => Err(Missing::Error(why)),
        None => Err(Missing::Shipped),
    }
}

async fn perform(widget: u32, command: DecoderCommand) -> std::result::Result<(), Missing> {
    match command {
        DecoderCommand::Read { action, which, prompt, seed, look, gpu, .. } => {
            let model = match which {
                Which::Shipped => shipped()?,
                Which::Trained => TRAINED.with(|t| t.borrow().clone()).ok_or_else(|| Missing::Error("Não há modelo treinado nesta página.".into()))?,
            };
            let changed = with(widget, |p| !p.model.as_ref().is_some_and(|m| Rc::ptr_eq(m, &model)));
            let mut prompt = prompt;
            if changed && which == Which::Trained && (prompt.trim().is_empty() || model.tokenizer.encode_checked(&prompt).is_err()) {
                prompt = TRAINED_PROMPT.with(|p| p.borrow().clone());
                send(DecoderReport::Prompt { widget, prompt: prompt.clone() }, None);
            }
            with(widget, |p| {
                if changed {
                    p.placed = None;
                    p.lens = None;
                }
                p.model = Some(model.clone());
                p.take(look, gpu);
            });
            start_session(widget, &model, &prompt, seed)?;
            let traced = sync(widget, &model).await?;
            finish(widget, action, traced).await
        }
        DecoderCommand::Generate { action, prompt, n, seed, reseed, options, choices, look, gpu, .. } => {
            let model = model_or_shipped(widget)?;
            let fresh = with(widget, |p| {
                p.model = Some(model.clone());
                p.take(look, gpu);
                p.session.is_none() || p.prompt_used != prompt
            });
            if fresh {
                start_session(widget, &model, &prompt, seed)?;
            }
            let mut traced = sync(widget, &model).await?;
            if reseed {
                with(widget, |p| p.session.as_mut().map(|s| s.reseed(seed)));
            }
            if n > 0 {
                with(widget, |p| {
                    if let Some(h) = p.session.as_ref().map(Session::history) {
                        p.run = Run::after(p.run, h.steps.len(), reseed, h.seed, options);
                    }
                    p.options = Some(options);
                });
                traced = generate(widget, action, &model, n, &options, &choices).await?.or(traced);
            }
            finish(widget, action, traced).await
        }
        DecoderCommand::Branch { action, step, token, look, gpu, .. } => {
            let (model, after) = with(widget, |p| {
                p.take(look, gpu);
                let steps = p.session.as_ref().map_or(0, |s| s.history().steps.len());
                (p.model.clone().filter(|_| p.session.is_some()), steps.saturating_sub(step + 1))
            });
            let Some(model) = model else {
                return Err(Missing::Error("Gere um texto antes de escolher outro token.".into()));
            };
            let options = with(widget, |p| -> Result<SamplingOptions> {
                let session = p.session.as_mut().ok_or_else(|| ComputeError::Invalid("Sem sessão.".into()))?;
                // Checked before the book records a branch that could not be made.
                session.history().check_rewind(step)?;
                p.book.depart(Choice { step, token })?;
                session.branch(step, token)?;
                p.lens = None;
                Ok(p.options.unwrap_or_default())
            })?;
            let traced = generate(widget, action, &model, after + 1, &options, &[]).await?;
            finish(widget, action, traced).await
        }
        DecoderCommand::Sides { action, prompt, n, seed, options, sides, .. } => {
            let model = model_or_shipped(widget)?;
            // Apart from the playground's session, on the CPU: two short runs through the
            // generation the playground uses; its text and cache stay as they are.
            // (Host weights of their own: the playground's placed ones stay where they are.)
            let cpu = Runtime::<GpuContext>::Cpu;
            let weights = Rc::new(model.weights.upload(&cpu)?);
            let mut views = Vec::new();
            for (title, seed, options) in sides.settings(seed, options) {
                let history = History::new(&model.weights.config, &model.tokenizer, &prompt, seed)?;
                let mut session = Session::resume(&cpu, weights.clone(), history)?;
                session.generate(&cpu, n, &options, None, |_, _| true).await?;
                views.push(view::side(&model, session.history(), title));
            }
            send(DecoderReport::Sides { widget, sides: views }, None);
            send_view(widget, action, false);
            Ok(())
        }
        DecoderCommand::Return { action, branch, look, gpu, .. } => {
            let model = with(widget, |p| {
                p.take(look, gpu);
                p.model.clone()
            });
            let Some(model) = model else {
                return Err(Missing::Error("Gere um texto antes de voltar a um ramo.".into()));
            };
            let history = with(widget, |p| p.book.go_to(branch))?;
            let session = session_for(widget, &model, history, None)?;
            with(widget, |p| {
                p.session = Some(session);
                p.run = p.book.run();
                p.options = p.run.map(|r| r.options).or(p.options);
                p.lens = None;
                p.rate = None;
            });
            let traced = sync(widget, &model).await?;
            finish(widget, action, traced).await
        }
        DecoderCommand::Look { action, look, .. } => {
            let (moved, cache_switched) = with(widget, |p| {
                let moved = p.lens.is_none() || p.look.as_ref().map(|l| l.lens_position) != Some(look.lens_position);
                let switched = p.look.as_ref().is_some_and(|l| l.kv_cache != look.kv_cache);
                p.look = Some(look);
                (moved, switched)
            });
            let Some(model) = with(widget, |p| p.model.clone().filter(|_| p.session.is_some())) else {
                return Err(Missing::Error("Escreva um texto inicial: o modelo continua a partir dele.".into()));
            };
            if cache_switched {
                // The window again, with the cache or without it: what the step-through shows.
                if let Some((trace, ids)) = sync(widget, &model).await? {
                    send(DecoderReport::Trace { widget, trace, ids, lens_at: None, also: false }, None);
                }
            }
            if moved {
                read_lens(widget, &model, false).await?;
            }
            send_view(widget, action, false);
            Ok(())
        }
        DecoderCommand::Shipped { .. } | DecoderCommand::Stop { .. } | DecoderCommand::Rerun { .. } => Ok(()),
    }
}

/// The end of an action: its last pass for "por dentro", the lens, the whole view.
async fn finish(widget: u32, action: u64, traced: Option<(Trace, Vec<u32>)>) -> std::result::Result<(), Missing> {
    let Some(model) = with(widget, |p| p.model.clone()) else { return Ok(()) };
    with(widget, |p| {
        if let Some(h) = p.session.as_ref().map(Session::history) {
            p.book.keep(h, p.run);
        }
    });
    let stepped = traced.is_some();
    if let Some((trace, ids)) = traced {
        send(DecoderReport::Trace { widget, trace, ids, lens_at: None, also: false }, None);
    }
    if with(widget, |p| p.queue.is_empty()) {
        read_lens(widget, &model, stepped).await?;
    } else {
        // The next action reads it, on the window it leaves.
        with(widget, |p| p.lens = None);
    }
    send_view(widget, action, false);
    Ok(())
}

/// A new session on `prompt`.
fn start_session(widget: u32, model: &Rc<Playable>, prompt: &str, seed: u64) -> Result<()> {
    let history = History::new(&model.weights.config, &model.tokenizer, prompt, seed)?;
    with(widget, |p| {
        p.session = None;
        p.prompt_used = prompt.to_string();
        p.rate = None;
        p.lens = None;
        // A new text: its branches start again.
        p.book.clear();
        p.run = None;
    });
    let session = session_for(widget, model, history, None)?;
    with(widget, |p| p.session = Some(session));
    Ok(())
}

/// The weights on `gpu` (none: the CPU), kept for the next session there.
fn weights_on(widget: u32, model: &Rc<Playable>, gpu: Option<&GpuContext>) -> Result<Rc<DecoderWeights<Tensor>>> {
    let kept = with(widget, |p| match &p.placed {
        Some((on_gpu, of, w)) if Rc::ptr_eq(of, &model.weights) && *on_gpu == gpu.is_some() => Some(w.clone()),
        _ => None,
    });
    if let Some(w) = kept {
        return Ok(w);
    }
    let rt = gpu.map_or(Runtime::Cpu, Runtime::Device);
    let w = Rc::new(model.weights.upload(&rt)?);
    with(widget, |p| p.placed = Some((gpu.is_some(), model.weights.clone(), w.clone())));
    Ok(w)
}

/// `history` as a session on `gpu` (on the CPU if the model does not fit there), keeping the
/// host weights for core's fallback.
fn session_for(widget: u32, model: &Rc<Playable>, history: History, gpu: Option<&GpuContext>) -> Result<Session<Tensor>> {
    let (weights, on) = match gpu.map(|g| (weights_on(widget, model, Some(g)), g)) {
        Some((Ok(w), g)) => (w, Some(g)),
        _ => (weights_on(widget, model, None)?, None),
    };
    let rt = on.map_or(Runtime::Cpu, Runtime::Device);
    Ok(Session::resume(&rt, weights, history)?.keep_host_copy(model.weights.clone()))
}

/// The device the playground should compute on: the worker's, when the site computes on
/// WebGPU and the GPU has not failed this session.
async fn wanted_gpu(widget: u32) -> Option<Rc<GpuContext>> {
    if with(widget, |p| !p.gpu || p.cpu_only) {
        return None;
    }
    crate::device::device().await
}

/// The session, out of the map and on the backend it should be on.
async fn placed_session(widget: u32, model: &Rc<Playable>) -> Result<Option<(Session<Tensor>, Option<Rc<GpuContext>>)>> {
    let gpu = wanted_gpu(widget).await;
    let Some(session) = with(widget, |p| p.session.take()) else { return Ok(None) };
    let wanted = if gpu.is_some() { BackendKind::WebGpu } else { BackendKind::Cpu };
    let mut session = if session.on() == wanted { session } else { session_for(widget, model, session.into_history(), gpu.as_deref())? };
    session.set_kv_cache(with(widget, |p| p.look.as_ref().is_none_or(|l| l.kv_cache)));
    let gpu = gpu.filter(|_| session.on() == BackendKind::WebGpu);
    Ok(Some((session, gpu)))
}

/// Puts the session back after it computed; after a GPU failure (core went on on the CPU)
/// the page is told and the playground stays on the CPU.
fn keep_session(widget: u32, session: Session<Tensor>, fallback: Option<Fallback>) {
    if let Some(f) = fallback {
        send(DecoderReport::GpuFailed { widget, error: f.error.to_string() }, None);
        with(widget, |p| {
            p.placed = None;
            p.cpu_only = true;
        });
    }
    with(widget, |p| p.session = Some(session));
}

/// Brings the session up to date (traced). Its trace and window when the model ran.
async fn sync(widget: u32, model: &Rc<Playable>) -> Result<Option<(Trace, Vec<u32>)>> {
    let Some((mut session, gpu)) = placed_session(widget, model).await? else { return Ok(None) };
    let rt = gpu.as_deref().map_or(Runtime::Cpu, Runtime::Device);
    let done = session.advance(&rt, None, Some(&now_ms)).await;
    let ids = session.history().ids.clone();
    match done {
        Ok(d) => {
            keep_session(widget, session, d.fallback);
            Ok(d.trace.filter(|t| !t.ops.is_empty()).map(|t| (t, ids)))
        }
        Err(e) => {
            keep_session(widget, session, None);
            Err(e)
        }
    }
}

/// `n` tokens, in slices with the inbox read between them; views while it goes; `choices`
/// (steps counted from the prompt) taken instead of the drawn tokens. The last token's trace,
/// for "por dentro".
async fn generate(widget: u32, action: u64, model: &Rc<Playable>, n: usize, options: &SamplingOptions, choices: &[Choice]) -> Result<Option<(Trace, Vec<u32>)>> {
    let started = now_ms();
    let mut made = 0;
    let mut traced = None;
    let mut last_view = started;
    while made < n && !with(widget, |p| p.stop) {
        let Some((mut session, gpu)) = placed_session(widget, model).await? else { break };
        let rt = gpu.as_deref().map_or(Runtime::Cpu, Runtime::Device);
        // A slice ends before a step the reader chose, which is taken at the next one.
        let next = session.history().steps.len();
        let chosen_at = |step: usize| choices.iter().find(|c| c.step == step).map(|c| c.token);
        if let Some(token) = chosen_at(next) {
            if let Err(e) = session.choose(token) {
                keep_session(widget, session, None);
                return Err(e);
            }
        }
        let slice = now_ms();
        let go_on = |_: u32, made: usize| now_ms() - slice <= SLICE_MS && chosen_at(next + made).is_none();
        let done = session.generate(&rt, n - made, options, Some(&now_ms), go_on).await;
        let ids = session.history().ids.clone();
        match done {
            Ok(g) => {
                made += g.made;
                keep_session(widget, session, g.fallback);
                if let Some(trace) = g.trace.filter(|t| !t.ops.is_empty()) {
                    traced = Some((trace, ids));
                }
            }
            Err(e) => {
                keep_session(widget, session, None);
                return Err(e);
            }
        }
        with(widget, |p| {
            let rate = made as f64 / ((now_ms() - started) / 1000.0).max(1e-6);
            p.rate = Some(rate);
            let cached = p.session.as_ref().is_none_or(Session::kv_cache);
            p.rates[usize::from(!cached)] = Some(rate);
        });
        if now_ms() - last_view >= VIEW_EVERY_MS && made < n {
            send_view(widget, action, true);
            last_view = now_ms();
        }
        yield_now().await;
    }
    Ok(traced)
}

/// The lens at the look's position and the strip of where every position settles, on the
/// session's backend: a pass of its own over the window, traced for "por dentro" (`also`:
/// after the action's step).
async fn read_lens(widget: u32, model: &Rc<Playable>, also: bool) -> Result<()> {
    let Some((mut session, gpu)) = placed_session(widget, model).await? else { return Ok(()) };
    let n = session.history().ids.len();
    let wanted = with(widget, |p| p.look.as_ref().and_then(|l| l.lens_position));
    let position = wanted.filter(|&p| p < n).unwrap_or(n.saturating_sub(1));
    let ids = session.history().ids.clone();
    let rt = gpu.as_deref().map_or(Runtime::Cpu, Runtime::Device);
    match session.lens_window_on(&rt, position, Some(&now_ms)).await {
        Ok((reading, done)) => {
            keep_session(widget, session, done.fallback);
            if let Some(trace) = done.trace.filter(|t| !t.ops.is_empty()) {
                send(DecoderReport::Trace { widget, trace, ids, lens_at: Some(position), also }, None);
            }
            with(widget, |p| p.lens = Some((position, reading)));
            Ok(())
        }
        Err(e) => {
            keep_session(widget, session, None);
            Err(e)
        }
    }
}

/// What the page draws now (`generating`: without the enlarged map, the readout and the lens).
fn send_view(widget: u32, action: u64, generating: bool) {
    let view = with(widget, |p| {
        let model = p.model.clone()?;
        let session = p.session.as_ref()?;
        let h = session.history();
        let look = p.look.clone().unwrap_or(Look { temperature: 1.0, pins: String::new(), selected: (0, 0), lens_position: None, lens_token: None, kv_cache: true });
        let cfg = &model.weights.config;
        let chips_from = p.sent_ids.iter().zip(&h.ids).take_while(|(a, b)| a == b).count();
        p.sent_ids = h.ids.clone();
        let (prompt_text, generated_text) = h.texts(&model.tokenizer);
        let temperature = if look.temperature > 0.0 { look.temperature } else { 1.0 };
        let mut predictions = view::predictions(&model, h, temperature, &look.pins);
        if generating {
            if let Some(p) = predictions.as_mut() {
                p.readout.clear();
            }
        }
        let lens = p.lens.as_ref().filter(|_| !generating).filter(|(position, _)| *position < h.ids.len());
        let lens_view = lens.map(|(position, reading)| view::lens(&model, h, *position, reading, &look.pins));
        let lens_token = lens_view.as_ref().and_then(|v| {
            let chosen = look.lens_token.filter(|t| v.tokens.iter().any(|(value, _)| *value == t.to_string()));
            chosen.or_else(|| v.tokens.first().and_then(|(value, _)| value.parse().ok()))
        });
        let pushes = lens.zip(lens_token).map(|((_, reading), token)| view::pushes(&model, reading, token).map_err(|e| e.to_string()));
        let view = DecoderView {
            action,
            generating,
            layers: cfg.n_layers,
            heads: cfg.n_heads,
            context: cfg.context,
            trained: model.trained.clone(),
            tokenizer_kind: model.tokenizer.kind_label().to_string(),
            ids: h.ids.clone(),
            chips_from,
            chips: view::chips(&model, h, chips_from),
            prompt_text,
            generated_text,
            predictions,
            lens_positions: view::lens_positions(&model, h),
            lens_position: lens.map(|(position, _)| *position),
            lens: lens_view,
            strip: lens.and_then(|(_, reading)| view::strip(&model, h, reading)),
            alternatives: look.lens_position.filter(|_| !generating).and_then(|position| view::alternatives(&model, h, position)),
            branches: if generating { Vec::new() } else { p.book.rows(&model.tokenizer) },
            link: p.book.link(&p.prompt_used).filter(|_| !generating).map_or_else(Vec::new, |spec| spec.to_params().into_iter().map(|(name, value)| (name.to_string(), value)).collect()),
            cache: (!h.logits.is_empty()).then(|| view::cache(&session.cache_state(), h.ids.len(), h.last_pass == h.ids.len(), p.rates)),
            lens_token,
            pushes,
            status: view::status(&model, h, session.on(), p.cpu_only, p.rate),
            on: session.on(),
        };
        Some((view, attention_bytes(&h.attention)))
    });
    if let Some((view, bytes)) = view {
        send(DecoderReport::View { widget, view }, Some(bytes));
    }
}

/// "por dentro"'s comparison: the window run again on `kind`, traced.
async fn rerun(widget: u32, request: u64, ids: Vec<u32>, lens_at: Option<usize>, kind: BackendKind, with_results: bool) {
    let outcome = async {
        let model = with(widget, |p| p.model.clone()).ok_or_else(|| ComputeError::Invalid("Sem modelo.".into()))?;
        let gpu = match kind {
            BackendKind::Cpu => None,
            BackendKind::WebGpu => Some(crate::device::device().await.ok_or_else(|| ComputeError::Gpu("este navegador não abriu a GPU no worker".into()))?),
        };
        let rt = gpu.as_deref().map_or(Runtime::Cpu, Runtime::Device);
        match lens_at {
            Some(at) => traced(&LensPass { weights: &model.weights, ids: &ids, at }, &rt, with_results).await,
            None => traced(&DecoderPass { weights: &model.weights, ids: &ids }, &rt, with_results).await,
        }
    }
    .await;
    send(DecoderReport::Reran { widget, request, outcome: outcome.map_err(|e| e.to_string()) }, None);
}

/// `job`'s trace on `rt`, with every op's results when asked (the comparison's last run).
async fn traced<J: Job>(job: &J, rt: &Runtime<'_, GpuContext>, with_results: bool) -> Result<Trace> {
    let run = if with_results { run_traced_with_results(job, rt, &now_ms).await } else { run_traced(job, rt, &now_ms).await };
    run.map(|(_, trace)| trace)
}
