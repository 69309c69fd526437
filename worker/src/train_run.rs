//! The `train` widget's run, in the worker: built from the reader's text and sizes, stepped in
//! slices of `SLICE_MS` (core's `steps_for`) with the worker's inbox read between them, on the
//! CPU or the worker's own WebGPU device, and reported as `TrainView`s at most every
//! `VIEW_EVERY_MS` (and whenever a point of the curve or a sample is added). A device failure
//! is core's to recover from (the run goes on on the CPU from its last host copy); the worker
//! says so and keeps the run on the CPU until it is built again.

use std::cell::RefCell;
use std::rc::Rc;

use atencao::core::decoder::load::parse_tokenizer;
use atencao::core::decoder::manifest::Manifest;
use atencao::core::decoder::playable::TrainedModel;
use atencao::core::decoder::DecoderWeights;
use atencao::core::error::ComputeError;
use atencao::core::executor::{block_on_ready, BackendKind};
use atencao::core::runtime::{Placed, Runtime};
use atencao::core::train_run::protocol::{BpeFiles, BuildInfo, Export, ExportPurpose, Placement, TrainCommand, TrainReport, TrainView};
use atencao::core::train_run::race::RaceView;
use atencao::core::train_run::{prepare_text, Pace, TrainRun, TrainSettings};
use atencao::gpu::{GpuContext, GpuTensor};

use crate::host::{now_ms, reply, yield_now};

/// Longest stretch of training between two looks at the inbox, in ms: a pause or another
/// head waits at most this (and one step). Nothing on the page waits on it.
const SLICE_MS: f64 = 40.0;
/// A view is sent at most this often while training (and when the curve or the samples grow).
const VIEW_EVERY_MS: f64 = 250.0;
/// Steps/s is measured over this much recent wall-clock time.
const RATE_WINDOW_MS: f64 = 2000.0;

type Run = TrainRun<Placed<GpuTensor>>;

struct State {
    /// The run the page asked for last; commands about another are stale.
    build: u64,
    /// The run (out of the cell while a slice is in flight).
    run: Option<Run>,
    /// The race's other architecture (issue 41), stepped after each slice up to the run's
    /// steps: both are measured at the same steps, on the same batches.
    rival: Option<Run>,
    in_flight: bool,
    /// Commands that arrived while a slice was in flight, handled after it.
    waiting: Vec<TrainCommand>,
    running: bool,
    /// Bumped to stop a training loop (a newer one, or none, takes over).
    epoch: u64,
    placement: Placement,
    gpu_allowed: bool,
    /// The GPU failed in this run: it stays on the CPU until it is built again.
    gpu_failed: bool,
    pace: Pace,
    look: (usize, usize),
    /// The history and sample counts last sent, and when.
    sent: (usize, usize),
    sent_at: f64,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State {
        build: 0,
        run: None,
        rival: None,
        in_flight: false,
        waiting: Vec::new(),
        running: false,
        epoch: 0,
        placement: Placement::Auto,
        gpu_allowed: false,
        gpu_failed: false,
        pace: Pace::new(RATE_WINDOW_MS),
        look: (0, 0),
        sent: (usize::MAX, usize::MAX),
        sent_at: f64::NEG_INFINITY,
    });
}

fn with<R>(f: impl FnOnce(&mut State) -> R) -> R {
    STATE.with(|s| f(&mut s.borrow_mut()))
}

fn send(report: TrainReport, bytes: Option<Vec<u8>>) {
    reply(report.encode(), bytes);
}

/// A command from the page (its bytes).
pub fn receive(message: &[u8]) {
    match TrainCommand::decode(message) {
        Ok(command) => handle(command),
        Err(e) => send(TrainReport::Failed { build: with(|s| s.build), message: e.to_string() }, None),
    }
}

fn handle(command: TrainCommand) {
    if let TrainCommand::Build { build, text, preset, bpe, settings, race } = command {
        return start_build(build, &text, preset, bpe.as_ref(), settings, race);
    }
    if command.build() != with(|s| s.build) {
        return;
    }
    // The run is out for a slice: the command waits for it.
    if with(|s| s.in_flight) {
        return with(|s| s.waiting.push(command));
    }
    match command {
        TrainCommand::Train { placement, gpu_allowed, .. } => {
            let epoch = with(|s| {
                s.placement = placement;
                s.gpu_allowed = gpu_allowed;
                if s.running || s.run.is_none() {
                    return None;
                }
                s.running = true;
                s.epoch += 1;
                Some(s.epoch)
            });
            if let Some(epoch) = epoch {
                wasm_bindgen_futures::spawn_local(train_loop(epoch));
            }
        }
        TrainCommand::Pause { .. } => {
            with(|s| {
                s.running = false;
                s.epoch += 1;
            });
            send_view(true);
        }
        TrainCommand::Place { placement, gpu_allowed, .. } => {
            with(|s| {
                s.placement = placement;
                s.gpu_allowed = gpu_allowed;
                s.gpu_failed = false;
            });
            send_view(true);
        }
        TrainCommand::Look { layer, head, .. } => {
            with(|s| s.look = (layer, head));
            send_view(true);
        }
        TrainCommand::Export { build, purpose } => export(build, purpose),
        TrainCommand::Build { .. } => {}
    }
}

/// A fresh run from the page's text and sizes (the one before, and its loop, are dropped);
/// with `race`, the other architecture's beside it.
fn start_build(build: u64, raw: &str, preset: bool, bpe: Option<&BpeFiles>, settings: TrainSettings, race: bool) {
    with(|s| {
        s.build = build;
        s.running = false;
        s.epoch += 1;
        s.run = None;
        s.rival = None;
        s.in_flight = false;
        s.waiting.clear();
        s.gpu_failed = false;
        s.pace.clear();
        s.sent = (usize::MAX, usize::MAX);
    });
    let built = (|| {
        let bpe = match bpe {
            Some(files) => Some(parse_tokenizer(&Manifest::from_json(&files.manifest_json)?, files.tokenizer_json.as_bytes())?),
            None => None,
        };
        let prepared = prepare_text(raw, preset, settings.min_chars())?;
        let cpu = Runtime::<GpuContext>::Cpu;
        let rival = match race {
            true => Some(TrainRun::new(&cpu, &prepared, bpe.as_ref(), TrainSettings { architecture: settings.architecture.other(), ..settings.clone() })?),
            false => None,
        };
        let run = TrainRun::new(&cpu, &prepared, bpe.as_ref(), settings)?;
        Ok::<_, ComputeError>((BuildInfo::of(&run, &prepared), run, rival))
    })();
    match built {
        Ok((info, run, rival)) => {
            let (layers, heads) = (run.settings.n_layers, run.settings.n_heads);
            with(|s| {
                s.look = (s.look.0.min(layers - 1), s.look.1.min(heads - 1));
                s.run = Some(run);
                s.rival = rival;
            });
            send(TrainReport::Built { build, info }, None);
            send_view(true);
        }
        Err(e) => send(TrainReport::Failed { build, message: e.to_string() }, None),
    }
}

/// The run's state, when the page should see it: `now`, or when the curve or the samples grew,
/// or `VIEW_EVERY_MS` after the last one.
fn send_view(now: bool) {
    let view = with(|s| {
        let run = s.run.as_ref()?;
        let counts = (run.history.len(), run.samples.len());
        // The attention map (and its table twin, thousands of cells to draw) travels only with
        // a new point of the curve or when asked, as the curve and the samples do; the views
        // in between carry the status.
        let fresh = now || counts != s.sent;
        if !fresh && now_ms() - s.sent_at < VIEW_EVERY_MS {
            return None;
        }
        s.sent = counts;
        s.sent_at = now_ms();
        let mut view = TrainView::of(run, fresh.then_some(s.look), s.running, s.pace.rates());
        view.race = s.rival.as_ref().map(|rival| RaceView::of(run, rival));
        view.gpu_failed = s.gpu_failed;
        view.software_gpu = crate::device::software();
        Some((s.build, view))
    });
    if let Some((build, view)) = view {
        send(TrainReport::View { build, view }, None);
    }
}

/// The device the next slice should run on: "WebGPU" forced, or automatically one that is
/// hardware; none when the page computes on the CPU, the reader chose the CPU, or the GPU
/// failed in this run. Opens the worker's device the first time one is wanted.
async fn wanted_device() -> Option<Rc<GpuContext>> {
    let (placement, allowed, failed) = with(|s| (s.placement, s.gpu_allowed, s.gpu_failed));
    if failed || !allowed || placement == Placement::Cpu {
        return None;
    }
    let gpu = crate::device::device().await?;
    (placement == Placement::WebGpu || !gpu.facts().software).then_some(gpu)
}

/// The training loop: a slice, the waiting commands, a view when due, a yield; until paused,
/// rebuilt or failed.
async fn train_loop(epoch: u64) {
    loop {
        if with(|s| !s.running || s.epoch != epoch) {
            return;
        }
        let gpu = wanted_device().await;
        let Some(mut run) = with(|s| s.run.take()) else { return };
        let mut rival = with(|s| s.rival.take());
        let build = with(|s| s.build);
        with(|s| s.in_flight = true);
        let rt = gpu.as_deref().map_or(Runtime::Cpu, Runtime::Device);
        let outcome = async {
            run.place(&rt).await?;
            // In a race each side gets half the slice: the run steps, then the rival catches up.
            let budget = if rival.is_some() { SLICE_MS / 2.0 } else { SLICE_MS };
            let fallback = run.steps_for(&rt, budget, &now_ms, |report, ms| with(|s| s.pace.record(report, now_ms(), ms))).await?;
            let Some(rival) = rival.as_mut() else { return Ok(fallback) };
            rival.place(&rt).await?;
            let rival_fallback = rival.steps_to(&rt, run.steps_taken(), &now_ms, |_, _| {}).await?;
            Ok::<_, ComputeError>(fallback.or(rival_fallback))
        }
        .await;
        if with(|s| s.build != build) {
            // Rebuilt meanwhile: this run is gone.
            return;
        }
        let failed = match outcome {
            Ok(fallback) => fallback.map(|f| (f.error, f.at, f.resumed_from)),
            // The run could not go up to the GPU: it stays on the CPU, where it was.
            Err(e) if e.is_gpu_failure() => Some((e, run.steps_taken(), run.steps_taken())),
            Err(e) => {
                with(|s| {
                    s.running = false;
                    s.run = Some(run);
                    s.rival = rival;
                    s.in_flight = false;
                });
                send(TrainReport::Failed { build, message: e.to_string() }, None);
                send_view(true);
                return;
            }
        };
        // A fallback is shown at once: the page reads "a GPU falhou" from the view.
        let fell_back = failed.is_some();
        if let Some((error, at, resumed_from)) = failed {
            with(|s| s.gpu_failed = true);
            send(TrainReport::GpuFailed { build, error: error.to_string(), at, resumed_from }, None);
        }
        let waiting = with(|s| {
            s.run = Some(run);
            s.rival = rival;
            s.in_flight = false;
            std::mem::take(&mut s.waiting)
        });
        for command in waiting {
            handle(command);
        }
        send_view(fell_back);
        yield_now().await;
    }
}

/// The current weights and what goes with them (on the CPU the host copy is refreshed first;
/// on the GPU it is the last evaluation's).
fn export(build: u64, purpose: ExportPurpose) {
    let file = with(|s| {
        let run = s.run.as_mut()?;
        if run.on() == BackendKind::Cpu {
            if let Err(e) = block_on_ready(run.refresh_host(&Runtime::<GpuContext>::Cpu)) {
                return Some(Err(e.to_string()));
            }
        }
        let bytes = match purpose {
            ExportPurpose::Decoder | ExportPurpose::Weights => run.safetensors(),
            ExportPurpose::Config => run.config_json().into_bytes(),
        };
        let export = Export::of(run);
        if purpose == ExportPurpose::Decoder {
            // The playgrounds run in this worker: the model stays here, the page only hears of it.
            let Some(config) = export.config.clone() else { return Some(Err("O modelo treinado veio sem configuração.".into())) };
            let weights = match DecoderWeights::from_safetensors(&config, &bytes) {
                Ok(w) => w,
                Err(e) => return Some(Err(e.to_string())),
            };
            let label = TrainedModel::label(export.step, export.validation_loss);
            crate::decoder::hand_over(TrainedModel { weights, tokenizer: run.tokenizer.clone(), training_ids: export.training_ids.clone(), label });
            return Some(Ok((export, Vec::new())));
        }
        Some(Ok((export, bytes)))
    });
    match file {
        Some(Ok((export, bytes))) => send(TrainReport::Exported { build, purpose, export }, Some(bytes)),
        Some(Err(message)) => send(TrainReport::Failed { build, message }, None),
        None => {}
    }
}
