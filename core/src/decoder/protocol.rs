//! The messages between a decoder playground (on the page) and its session in the page's Web
//! Worker (issue 36): commands in, reports out, as JSON text wrapped as `{"decoder": …}` so
//! that they never read as the `train` widget's (`train_run::protocol`), which share the worker.
//! The worker owns the model, the session and the lens, and computes what the widget draws
//! (`view`); the widget keeps the reader's inputs, so a crashed worker loses nothing typed.
//!
//! Every computing command carries an `action` number: a view says which it finished, so the
//! widget knows when the worker has caught up with everything it asked.

use serde::{Deserialize, Serialize};

use crate::error::{ComputeError, Result};
use crate::executor::BackendKind;
use crate::trace::Trace;

use super::sampling::SamplingOptions;
use super::view::{Chip, LensView, Predictions, PushView};

/// What the widget draws with, besides the session: the temperature of the bars, the pinned
/// words, the head enlarged, the lens's position (none: the last) and token (none: the
/// model's first choice).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Look {
    pub temperature: f32,
    pub pins: String,
    pub selected: (usize, usize),
    pub lens_position: Option<usize>,
    pub lens_token: Option<u32>,
}

/// The shipped model's files as the page downloaded and checked them. The weights
/// (safetensors) and then the bigram travel as the envelope's bytes, split at `weights_len`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShippedFiles {
    pub manifest_json: String,
    pub tokenizer_json: String,
    pub weights_len: usize,
}

/// Which model a playground runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Which {
    Shipped,
    /// The one the `train` widget of this page last handed over ("usar no decodificador").
    Trained,
}

/// What a playground asks. `widget` tells the page's playgrounds apart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum DecoderCommand {
    /// The shipped model's files (sent once per worker, before the first reading).
    Shipped { files: ShippedFiles },
    /// Reads `prompt` from scratch with `which` model, on the GPU when `gpu` (the site
    /// computes on WebGPU).
    Read { widget: u32, action: u64, which: Which, prompt: String, seed: u64, look: Look, gpu: bool },
    /// Samples and runs `n` tokens after `prompt` (read first, from `seed`, if the session has
    /// another), the generator started again from `seed` when `reseed` ("Gerar"); `n` = 0 only
    /// brings the session up to date (after a change of backend).
    Generate { widget: u32, action: u64, prompt: String, n: usize, seed: u64, reseed: bool, options: SamplingOptions, look: Look, gpu: bool },
    /// The same session drawn with another look (the lens is read again if its position moved).
    Look { widget: u32, action: u64, look: Look },
    /// The generation in flight stops at its next token; actions waiting are dropped.
    Stop { widget: u32 },
    /// "por dentro"'s comparison: the window `ids` run again on `kind`, traced (with the lens
    /// at `lens_at` when given).
    Rerun { widget: u32, request: u64, ids: Vec<u32>, lens_at: Option<usize>, kind: BackendKind, with_results: bool },
}

/// What the playground draws, for one state of its session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecoderView {
    /// The last action finished (or, while `generating`, the one in flight).
    pub action: u64,
    pub generating: bool,
    pub layers: usize,
    pub heads: usize,
    pub context: usize,
    /// `Some(label)`: a model trained on this page; and its tokenizer's name.
    pub trained: Option<String>,
    pub tokenizer_kind: String,
    /// The window's ids, and the chips from `chips_from` on (the ones before are the page's).
    pub ids: Vec<u32>,
    pub chips_from: usize,
    pub chips: Vec<Chip>,
    pub prompt_text: String,
    pub generated_text: String,
    pub predictions: Option<Predictions>,
    /// Left out while generating (the parts that cost most to draw).
    pub lens_positions: Vec<(String, String)>,
    /// The lens's position read (a window index); none while generating.
    pub lens_position: Option<usize>,
    pub lens: Option<LensView>,
    /// The token the pushes are of, and the pushes (or why not).
    pub lens_token: Option<u32>,
    pub pushes: Option<std::result::Result<PushView, String>>,
    pub status: String,
    pub on: BackendKind,
}

/// What the worker says about a playground.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum DecoderReport {
    /// A state to draw; the attention maps travel as the envelope's bytes (`attention_bytes`).
    View { widget: u32, view: DecoderView },
    /// The trained model could not read the reader's prompt: it started from this one.
    Prompt { widget: u32, prompt: String },
    /// An action's last pass, for "por dentro": the window it ran (and the lens's position).
    /// `also`: it joins the update of the action's step.
    Trace { widget: u32, trace: Trace, ids: Vec<u32>, lens_at: Option<usize>, also: bool },
    Reran { widget: u32, request: u64, outcome: std::result::Result<Trace, String> },
    /// The GPU failed: the session went on on the CPU, where it stays until the backend changes.
    GpuFailed { widget: u32, error: String },
    /// An action failed (`needs_model`: the worker has no shipped model: a new worker).
    Failed { widget: u32, action: u64, message: String, needs_model: bool },
}

/// The wrapper that keeps the decoder's messages apart from the train widget's.
#[derive(Serialize, Deserialize)]
struct Wrapped<T> {
    decoder: T,
}

fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(&Wrapped { decoder: value }).unwrap_or_default()
}

fn from_json<T: for<'de> Deserialize<'de>>(text: &str) -> Result<T> {
    serde_json::from_str::<Wrapped<T>>(text).map(|w| w.decoder).map_err(|e| ComputeError::Invalid(format!("Mensagem do decodificador ilegível: {e}")))
}

impl DecoderCommand {
    pub fn to_json(&self) -> String {
        to_json(self)
    }

    pub fn from_json(text: &str) -> Result<DecoderCommand> {
        from_json(text)
    }

    /// The playground it is from (the shipped model's files are every playground's: 0).
    pub fn widget(&self) -> u32 {
        match self {
            DecoderCommand::Read { widget, .. }
            | DecoderCommand::Generate { widget, .. }
            | DecoderCommand::Look { widget, .. }
            | DecoderCommand::Stop { widget }
            | DecoderCommand::Rerun { widget, .. } => *widget,
            DecoderCommand::Shipped { .. } => 0,
        }
    }

    /// The action number of a command that computes (0 for the others).
    pub fn action(&self) -> u64 {
        match self {
            DecoderCommand::Read { action, .. } | DecoderCommand::Generate { action, .. } | DecoderCommand::Look { action, .. } => *action,
            _ => 0,
        }
    }
}

impl DecoderReport {
    pub fn to_json(&self) -> String {
        to_json(self)
    }

    pub fn from_json(text: &str) -> Result<DecoderReport> {
        from_json(text)
    }

    /// The playground it is about.
    pub fn widget(&self) -> u32 {
        match self {
            DecoderReport::View { widget, .. }
            | DecoderReport::Prompt { widget, .. }
            | DecoderReport::Trace { widget, .. }
            | DecoderReport::Reran { widget, .. }
            | DecoderReport::GpuFailed { widget, .. }
            | DecoderReport::Failed { widget, .. } => *widget,
        }
    }
}

/// Every head's attention (index layer·nh + head) as little-endian f32 bytes, map after map,
/// row i as its i + 1 weights over positions 0..=i (the future's are 0, and a session's rows may
/// be kept longer): the view's maps without JSON's text, and half their size.
pub fn attention_bytes(attention: &[Vec<Vec<f32>>]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for map in attention {
        for (i, row) in map.iter().enumerate() {
            bytes.extend((0..=i).flat_map(|c| row.get(c).copied().unwrap_or(0.0).to_le_bytes()));
        }
    }
    bytes
}

/// `attention_bytes` read back: `maps` maps of `positions` rows.
pub fn attention_from_bytes(bytes: &[u8], maps: usize, positions: usize) -> Result<Vec<Vec<Vec<f32>>>> {
    let per_map = positions * (positions + 1) / 2;
    if bytes.len() != maps * per_map * 4 {
        return Err(ComputeError::Invalid(format!("Mapas de atenção com {} bytes; esperava {}.", bytes.len(), maps * per_map * 4)));
    }
    let mut values = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    Ok((0..maps).map(|_| (0..positions).map(|row| values.by_ref().take(row + 1).collect()).collect()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train_run::protocol::TrainReport;

    fn look() -> Look {
        Look { temperature: 0.8, pins: "eram, era".into(), selected: (1, 2), lens_position: Some(3), lens_token: None }
    }

    #[test]
    fn commands_and_reports_round_trip_and_never_read_as_the_train_widgets() {
        let commands = [
            DecoderCommand::Read { widget: 2, action: 7, which: Which::Trained, prompt: "Os meninos".into(), seed: 42, look: look(), gpu: true },
            DecoderCommand::Generate { widget: 1, action: 8, prompt: "<b>x</b> «ç»".into(), n: 40, seed: 9, reseed: true, options: SamplingOptions::greedy(), look: look(), gpu: false },
            DecoderCommand::Stop { widget: 3 },
        ];
        for c in commands {
            assert_eq!(DecoderCommand::from_json(&c.to_json()).unwrap(), c);
        }
        let report = DecoderReport::Failed { widget: 4, action: 9, message: "sem modelo".into(), needs_model: true };
        let json = report.to_json();
        assert_eq!(DecoderReport::from_json(&json).unwrap().to_json(), json);
        assert!(TrainReport::from_json(&json).is_err());
        assert!(DecoderReport::from_json(&TrainReport::Failed { build: 1, message: "x".into() }.to_json()).is_err());
    }

    #[test]
    fn attention_maps_cross_as_bytes_exactly() {
        let maps: Vec<Vec<Vec<f32>>> = (0..3).map(|m| (0..4).map(|r| (0..=r).map(|c| (m * 100 + r * 10 + c) as f32 / 7.0).collect()).collect()).collect();
        let bytes = attention_bytes(&maps);
        assert_eq!(attention_from_bytes(&bytes, 3, 4).unwrap(), maps);
        assert!(attention_from_bytes(&bytes[1..], 3, 4).is_err());
        assert_eq!(attention_from_bytes(&[], 6, 0).unwrap().len(), 6);
        // Rows kept as long as the window (the future's weights 0) cross as their causal part.
        let padded: Vec<Vec<Vec<f32>>> = maps.iter().map(|m| m.iter().map(|r| { let mut r = r.clone(); r.resize(4, 0.0); r }).collect()).collect();
        assert_eq!(attention_from_bytes(&attention_bytes(&padded), 3, 4).unwrap(), maps);
    }
}
