//! The messages between the `train` widget (on the page) and the run it drives in the page's
//! Web Worker (issue 36): commands in, reports out, as bytes (`crate::wire`). The worker owns the
//! `TrainRun` and does the stepping; the widget keeps the reader's inputs and draws what comes
//! back, so a crashed worker loses nothing the reader typed (the widget builds the run again).
//!
//! Every report is plain data computed by core in the worker (`TrainView::of`); the widget
//! formats it. Numbers that may be undefined (a loss before any point, a rate before two
//! steps) are `Option`s.

use serde::{Deserialize, Serialize};

use crate::decoder::tokenizer::Tokenizer;
use crate::decoder::DecoderConfig;
use crate::wire::{self, Tag};

use super::race::RaceView;
use super::run::{EvalPoint, SamplePoint, TrainRun};
use super::settings::TrainSettings;
use super::tokens::token_unit;

/// Where the reader wants the run to compute (`treinar em`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Placement {
    /// The GPU when the site computes on WebGPU and the adapter is real hardware.
    Auto,
    Cpu,
    WebGpu,
}

/// The shipped BPE, as the page downloaded and checked it: the worker parses the same bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BpeFiles {
    pub manifest_json: String,
    pub tokenizer_json: String,
}

/// What the widget asks. `build` numbers each run: reports about an older run are ignored.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TrainCommand {
    /// A fresh run (the one before is dropped): the raw text, whether it is the preset story,
    /// the BPE when the reader chose it, the sizes. With `race`, a second run of the other
    /// architecture beside it, on the same text and batches (issue 41's "comparar").
    Build {
        build: u64,
        text: String,
        preset: bool,
        bpe: Option<BpeFiles>,
        settings: TrainSettings,
        #[serde(default)]
        race: bool,
    },
    /// Trains until `Pause` (or a failure). `gpu_allowed`: the site computes on WebGPU.
    Train { build: u64, placement: Placement, gpu_allowed: bool },
    Pause { build: u64 },
    /// Where to compute from the next slice on (a change of `treinar em` or of the site's backend).
    Place { build: u64, placement: Placement, gpu_allowed: bool },
    /// The head whose attention the views carry.
    Look { build: u64, layer: usize, head: usize },
    /// The current weights and what goes with them (see `Exported`).
    Export { build: u64, purpose: ExportPurpose },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ExportPurpose {
    /// Handed to the decoder playgrounds of the page.
    Decoder,
    /// Saved by the reader: the safetensors file.
    Weights,
    /// Saved by the reader: the configuration file.
    Config,
}

/// What the worker says.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TrainReport {
    /// The run exists: what the text and the model are.
    Built { build: u64, info: BuildInfo },
    /// The run's state now (sent after a build, while training at a rate the page can draw,
    /// and when training stops).
    View { build: u64, view: TrainView },
    /// The GPU failed: the run went on on the CPU from its last host copy.
    GpuFailed { build: u64, error: String, at: usize, resumed_from: usize },
    /// The run could not be built, or training stopped on an error.
    Failed { build: u64, message: String },
    /// An export; the file's bytes travel beside this message (see the worker's envelope).
    Exported { build: u64, purpose: ExportPurpose, export: Export },
}

/// What the widget shows about a fresh run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BuildInfo {
    /// Characters of the prepared text, and what was cut or replaced (`PreparedText::notes`).
    pub chars: usize,
    pub notes: Vec<String>,
    pub cut: bool,
    pub parameters: usize,
    pub vocab: usize,
    pub train_tokens: usize,
    pub validation_tokens: usize,
    /// "caractere" or "token".
    pub unit: String,
}

/// A head's attention on the probe: (T, T) row by row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AttentionView {
    pub layer: usize,
    pub head: usize,
    pub size: usize,
    pub weights: Vec<f32>,
}

/// The run as the widget draws it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainView {
    pub steps: usize,
    pub running: bool,
    pub on_gpu: bool,
    /// The GPU failed in this run (it stays on the CPU until it is built again).
    pub gpu_failed: bool,
    /// The worker's adapter is software (why "automático" trains on the CPU).
    pub software_gpu: bool,
    pub history: Vec<EvalPoint>,
    pub samples: Vec<SamplePoint>,
    #[serde(with = "crate::exact_float::option")]
    pub validation_loss: Option<f64>,
    #[serde(with = "crate::exact_float")]
    pub bigram: f64,
    #[serde(with = "crate::exact_float")]
    pub uniform: f64,
    pub parameters: usize,
    pub unit: String,
    /// Steps per second, and a plain step's ms (`Pace::rates`).
    #[serde(with = "crate::exact_float::option")]
    pub rate: Option<f64>,
    #[serde(with = "crate::exact_float::option")]
    pub step_ms: Option<f64>,
    /// Sent with a new point of the curve, a new head or a stop; `None` in the views between
    /// (the widget keeps the last one).
    pub attention: Option<AttentionView>,
    /// The probe's length in tokens, and its text.
    pub probe_len: usize,
    pub probe_text: String,
    /// The race with the other architecture, when the run was built with one.
    #[serde(default)]
    pub race: Option<RaceView>,
}

/// What a decoder needs to run the trained weights (their bytes travel beside it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Export {
    #[serde(with = "every_field")]
    pub config: Option<DecoderConfig>,
    /// The characters, token i first (`None`: the shipped BPE).
    pub chars: Option<String>,
    pub training_ids: Vec<u32>,
    /// The step of the weights (on the GPU, the last evaluation's copy) and their validation loss.
    pub step: usize,
    #[serde(with = "crate::exact_float::option")]
    pub validation_loss: Option<f64>,
}

/// `Export::config` with every field, whatever the build. `DecoderConfig`'s own serde (JSON
/// files) leaves the moderna's fields out when they are the original's, and a build without
/// `moderna` (the page's) neither reads nor writes them: in a binary format, where a field is
/// read by its place, the worker's and the page's layouts would disagree.
mod every_field {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::decoder::config::Architecture;
    use crate::decoder::DecoderConfig;

    #[derive(Serialize, Deserialize)]
    struct Fields(usize, usize, usize, usize, usize, usize, f32, f32, Architecture, Option<usize>);

    pub fn serialize<S: Serializer>(config: &Option<DecoderConfig>, s: S) -> Result<S::Ok, S::Error> {
        config.as_ref().map(|c| Fields(c.vocab_size, c.d_model, c.n_heads, c.n_layers, c.d_ff, c.context, c.pe_theta, c.ln_eps, c.architecture, c.n_kv_heads)).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DecoderConfig>, D::Error> {
        Ok(Option::<Fields>::deserialize(d)?.map(|Fields(vocab_size, d_model, n_heads, n_layers, d_ff, context, pe_theta, ln_eps, architecture, n_kv_heads)| DecoderConfig {
            vocab_size,
            d_model,
            n_heads,
            n_layers,
            d_ff,
            context,
            pe_theta,
            ln_eps,
            architecture,
            n_kv_heads,
        }))
    }
}

impl BuildInfo {
    pub fn of<T>(run: &TrainRun<T>, text: &super::text::PreparedText) -> BuildInfo {
        BuildInfo {
            chars: text.text.chars().count(),
            notes: text.notes(),
            cut: text.cut_from.is_some(),
            parameters: run.parameter_count(),
            vocab: run.vocab_size(),
            train_tokens: run.tokens.train.len(),
            validation_tokens: run.tokens.validation.len(),
            unit: token_unit(&run.tokenizer).to_string(),
        }
    }
}

impl TrainView {
    /// The run's state, with the attention of `look` (layer, head) when asked and it exists.
    pub fn of<T>(run: &TrainRun<T>, look: Option<(usize, usize)>, running: bool, rates: (Option<f64>, Option<f64>)) -> TrainView {
        let attention = look.and_then(|(layer, head)| run.attention(layer, head).ok().map(|m| AttentionView { layer, head, size: m.rows(), weights: m.as_slice().to_vec() }));
        let validation = run.validation_loss();
        TrainView {
            steps: run.steps_taken(),
            running,
            on_gpu: run.on() != crate::executor::BackendKind::Cpu,
            gpu_failed: false,
            software_gpu: false,
            history: run.history.clone(),
            samples: run.samples.clone(),
            validation_loss: validation.is_finite().then_some(validation),
            bigram: run.bigram,
            uniform: run.uniform,
            parameters: run.parameter_count(),
            unit: token_unit(&run.tokenizer).to_string(),
            rate: rates.0,
            step_ms: rates.1,
            attention,
            probe_len: run.probe_labels().len(),
            probe_text: run.probe_text(),
            race: None,
        }
    }
}

impl Export {
    pub fn of<T>(run: &TrainRun<T>) -> Export {
        let validation = run.validation_loss();
        Export {
            config: Some(run.weights().config.clone()),
            chars: match &run.tokenizer {
                Tokenizer::Chars(t) => Some((0..t.vocab_size() as u32).map(|i| t.decode(&[i])).collect()),
                Tokenizer::Bpe(_) => None,
            },
            training_ids: run.tokens.train.clone(),
            step: run.host_step(),
            validation_loss: validation.is_finite().then_some(validation),
        }
    }
}

impl TrainCommand {
    /// The run the command is about.
    pub fn build(&self) -> u64 {
        match self {
            TrainCommand::Build { build, .. }
            | TrainCommand::Train { build, .. }
            | TrainCommand::Pause { build }
            | TrainCommand::Place { build, .. }
            | TrainCommand::Look { build, .. }
            | TrainCommand::Export { build, .. } => *build,
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        wire::encode(Tag::TrainCommand, self)
    }

    pub fn decode(bytes: &[u8]) -> crate::error::Result<TrainCommand> {
        wire::decode(Tag::TrainCommand, bytes).map_err(|e| crate::error::ComputeError::Invalid(format!("mensagem inválida para o treino: {e}")))
    }
}

impl TrainReport {
    pub fn encode(&self) -> Vec<u8> {
        wire::encode(Tag::TrainReport, self)
    }

    pub fn decode(bytes: &[u8]) -> crate::error::Result<TrainReport> {
        wire::decode(Tag::TrainReport, bytes).map_err(|e| crate::error::ComputeError::Invalid(format!("resposta inválida do treino: {e}")))
    }

    /// The run the report is about.
    pub fn build(&self) -> u64 {
        match self {
            TrainReport::Built { build, .. }
            | TrainReport::View { build, .. }
            | TrainReport::GpuFailed { build, .. }
            | TrainReport::Failed { build, .. }
            | TrainReport::Exported { build, .. } => *build,
        }
    }
}
