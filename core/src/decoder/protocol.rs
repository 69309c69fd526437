//! The messages between a decoder playground (on the page) and its session in the page's Web
//! Worker (issue 36): commands in, reports out, as bytes (`crate::wire`) whose tag keeps them
//! from ever reading as the `train` widget's (`train_run::protocol`), which share the worker.
//! The worker owns the model, the session and the lens, and computes what the widget draws
//! (`view`); the widget keeps the reader's inputs, so a crashed worker loses nothing typed.
//!
//! Every computing command carries an `action` number: a view says which it finished, so the
//! widget knows when the worker has caught up with everything it asked.

use serde::{Deserialize, Serialize};

use crate::error::{ComputeError, Result};
use crate::executor::BackendKind;
use crate::trace::Trace;
use crate::wire::{self, Tag};

use super::branches::Choice;
use super::sampling::SamplingOptions;
use super::tree::BranchRow;
use super::view::{AlternativesView, CacheView, Chip, LensView, Predictions, PushView, SideView, Sides, StripView};

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
    /// Generate with the KV cache (the default) or recompute the window at every pass.
    pub kv_cache: bool,
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
    /// `choices`: the reader's tokens at those steps (counted from the prompt) instead of the
    /// drawn ones, as a branch's link gives them.
    Generate { widget: u32, action: u64, prompt: String, n: usize, seed: u64, reseed: bool, options: SamplingOptions, choices: Vec<Choice>, look: Look, gpu: bool },
    /// A branch: back to generated step `step`, `token` there instead, and as many tokens after
    /// it as the text had, with the settings of its last generation.
    Branch { widget: u32, action: u64, step: usize, token: u32, look: Look, gpu: bool },
    /// Two generations of `n` tokens from `prompt`, side by side (`Sides`), apart from the
    /// playground's own text.
    Sides { widget: u32, action: u64, prompt: String, n: usize, seed: u64, options: SamplingOptions, sides: Sides },
    /// Back to branch `branch` of the tree, exactly as it was.
    Return { widget: u32, action: u64, branch: usize, look: Look, gpu: bool },
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
    /// Where each prediction of the window settles (read with the lens); none while generating.
    pub strip: Option<StripView>,
    /// What the model offered at the generated token the lens reads; none while generating.
    pub alternatives: Option<AlternativesView>,
    /// The tree of branches (empty until tokens are generated; left out while generating), and
    /// the address parameters of the current branch's link when one run made it
    /// (`BranchSpec::to_params`; empty: none).
    pub branches: Vec<BranchRow>,
    pub link: Vec<(String, String)>,
    /// The KV cache's step-through (none before the first pass).
    pub cache: Option<CacheView>,
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
    /// The two sides of a `Sides` command.
    Sides { widget: u32, sides: Vec<SideView> },
    /// The GPU failed: the session went on on the CPU, where it stays until the backend changes.
    GpuFailed { widget: u32, error: String },
    /// An action failed (`needs_model`: the worker has no shipped model: a new worker).
    Failed { widget: u32, action: u64, message: String, needs_model: bool },
}

fn unreadable(e: String) -> ComputeError {
    ComputeError::Invalid(format!("Mensagem do decodificador ilegível: {e}"))
}

impl DecoderCommand {
    pub fn encode(&self) -> Vec<u8> {
        wire::encode(Tag::DecoderCommand, self)
    }

    pub fn decode(bytes: &[u8]) -> Result<DecoderCommand> {
        wire::decode(Tag::DecoderCommand, bytes).map_err(unreadable)
    }

    /// The playground it is from (the shipped model's files are every playground's: 0).
    pub fn widget(&self) -> u32 {
        match self {
            DecoderCommand::Read { widget, .. }
            | DecoderCommand::Generate { widget, .. }
            | DecoderCommand::Branch { widget, .. }
            | DecoderCommand::Sides { widget, .. }
            | DecoderCommand::Return { widget, .. }
            | DecoderCommand::Look { widget, .. }
            | DecoderCommand::Stop { widget }
            | DecoderCommand::Rerun { widget, .. } => *widget,
            DecoderCommand::Shipped { .. } => 0,
        }
    }

    /// The action number of a command that computes (0 for the others).
    pub fn action(&self) -> u64 {
        match self {
            DecoderCommand::Read { action, .. }
            | DecoderCommand::Generate { action, .. }
            | DecoderCommand::Branch { action, .. }
            | DecoderCommand::Sides { action, .. }
            | DecoderCommand::Return { action, .. }
            | DecoderCommand::Look { action, .. } => *action,
            _ => 0,
        }
    }
}

impl DecoderReport {
    pub fn encode(&self) -> Vec<u8> {
        wire::encode(Tag::DecoderReport, self)
    }

    pub fn decode(bytes: &[u8]) -> Result<DecoderReport> {
        wire::decode(Tag::DecoderReport, bytes).map_err(unreadable)
    }

    /// The playground it is about.
    pub fn widget(&self) -> u32 {
        match self {
            DecoderReport::View { widget, .. }
            | DecoderReport::Prompt { widget, .. }
            | DecoderReport::Trace { widget, .. }
            | DecoderReport::Reran { widget, .. }
            | DecoderReport::Sides { widget, .. }
            | DecoderReport::GpuFailed { widget, .. }
            | DecoderReport::Failed { widget, .. } => *widget,
        }
    }
}

/// Every head's attention (index layer·nh + head) as little-endian f32 bytes, map after map,
/// row i as its i + 1 weights over positions 0..=i (the future's are 0, and a session's rows may
/// be kept longer): the view's maps without the message's lists of lists.
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
///
/// The counts come from a message, so the size is computed without overflow and the list of
/// maps is reserved fallibly, both an `Err` when too big: `positions · (positions + 1) / 2 · 4
/// · maps` overflowed (a panic in a debug build; in a release one it wrapped, and could match
/// the bytes' length), and with no positions any count of maps matched empty bytes, its list
/// of empty maps then an impossible allocation (an abort; in the page, a trap that ends its
/// wasm). Found by `reading_arbitrary_bytes_as_attention_maps_never_panics`.
pub fn attention_from_bytes(bytes: &[u8], maps: usize, positions: usize) -> Result<Vec<Vec<Vec<f32>>>> {
    let too_big = || ComputeError::Invalid(format!("Mapas de atenção grandes demais: {maps} mapas de {positions} posições."));
    let per_map = positions.checked_add(1).and_then(|p| p.checked_mul(positions)).map(|p| p / 2).ok_or_else(too_big)?;
    let expected = per_map.checked_mul(maps).and_then(|n| n.checked_mul(4)).ok_or_else(too_big)?;
    if bytes.len() != expected {
        return Err(ComputeError::Invalid(format!("Mapas de atenção com {} bytes; esperava {expected}.", bytes.len())));
    }
    // With positions > 0, `maps` is bounded by the bytes; with none, only by this reservation.
    let mut out = Vec::new();
    out.try_reserve_exact(maps).map_err(|_| too_big())?;
    let mut values = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    out.extend((0..maps).map(|_| (0..positions).map(|row| values.by_ref().take(row + 1).collect()).collect()));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train_run::protocol::TrainReport;

    fn look() -> Look {
        Look { temperature: 0.8, pins: "eram, era".into(), selected: (1, 2), lens_position: Some(3), lens_token: None, kv_cache: false }
    }

    #[test]
    fn commands_and_reports_round_trip_and_never_read_as_the_train_widgets() {
        let commands = [
            DecoderCommand::Read { widget: 2, action: 7, which: Which::Trained, prompt: "Os meninos".into(), seed: 42, look: look(), gpu: true },
            DecoderCommand::Generate { widget: 1, action: 8, prompt: "<b>x</b> «ç»".into(), n: 40, seed: 9, reseed: true, choices: vec![Choice { step: 3, token: 17 }], options: SamplingOptions::greedy(), look: look(), gpu: false },
            DecoderCommand::Stop { widget: 3 },
        ];
        for c in commands {
            assert_eq!(DecoderCommand::decode(&c.encode()).unwrap(), c);
        }
        let report = DecoderReport::Failed { widget: 4, action: 9, message: "sem modelo".into(), needs_model: true };
        let bytes = report.encode();
        assert_eq!(DecoderReport::decode(&bytes).unwrap().encode(), bytes);
        assert!(TrainReport::decode(&bytes).is_err());
        assert!(DecoderReport::decode(&TrainReport::Failed { build: 1, message: "x".into() }.encode()).is_err());
        // Cut short, or with bytes after the message: refused, with the decoder's words.
        assert!(DecoderReport::decode(&bytes[..bytes.len() - 1]).unwrap_err().to_string().starts_with("Mensagem do decodificador ilegível"));
        assert!(DecoderReport::decode(&[&bytes[..], &[0]].concat()).is_err());
        assert!(DecoderReport::decode(&[]).is_err());
    }

    #[test]
    fn attention_maps_cross_as_bytes_exactly() {
        let maps: Vec<Vec<Vec<f32>>> = (0..3).map(|m| (0..4).map(|r| (0..=r).map(|c| (m * 100 + r * 10 + c) as f32 / 7.0).collect()).collect()).collect();
        let bytes = attention_bytes(&maps);
        assert_eq!(attention_from_bytes(&bytes, 3, 4).unwrap(), maps);
        assert!(attention_from_bytes(&bytes[1..], 3, 4).is_err());
        assert_eq!(attention_from_bytes(&[], 6, 0).unwrap().len(), 6);
        // Counts whose size overflowed: 2⁶² maps of 1 position wrapped to 0 bytes; no positions
        // matched any count of maps; and a size past usize.
        assert!(attention_from_bytes(&[], 1 << 62, 1).is_err());
        assert!(attention_from_bytes(&[], usize::MAX, 0).is_err());
        assert!(attention_from_bytes(&[], 1, usize::MAX).is_err());
        // Rows kept as long as the window (the future's weights 0) cross as their causal part.
        let padded: Vec<Vec<Vec<f32>>> = maps.iter().map(|m| m.iter().map(|r| { let mut r = r.clone(); r.resize(4, 0.0); r }).collect()).collect();
        assert_eq!(attention_from_bytes(&attention_bytes(&padded), 3, 4).unwrap(), maps);
    }

    // Property tests: every message, with arbitrary contents, crosses as bytes exactly and only as
    // itself. Strategies are small (a few items per list) so that a case stays cheap.

    mod arbitrary {
        use std::rc::Rc;

        use proptest::collection::vec;
        use proptest::option::of;
        use proptest::prelude::*;

        use super::super::*;
        use crate::decoder::view::{Bars, PinRows, SettleCell, SideView, Sides};
        use crate::matrix::Matrix;
        use crate::op::OpKind;
        use crate::trace::{OpRecord, Shape};
        
        /// Arbitrary Unicode, with what a text format escapes or a decoder may trip on made frequent:
        /// quotes, backslashes, NUL and other controls, the line separators JavaScript once
        /// choked on, a BOM, a replacement character, emoji and their joiner.
        pub fn text() -> impl Strategy<Value = String> {
            let tricky = prop::sample::select(vec!['"', '\\', '/', '\0', '\n', '\r', '\t', '\u{8}', '\u{1f}', '\u{7f}', '\u{2028}', '\u{2029}', '\u{feff}', '\u{fffd}', '\u{200d}', '😀', '👩', '🏳', 'ç', '«', '»', ' ']);
            vec(prop_oneof![any::<char>(), tricky], 0..12).prop_map(|chars| chars.into_iter().collect())
        }

        /// Every finite f32 (its bits drawn uniformly: every exponent, subnormals included),
        /// and the edges: finite, so that `PartialEq` can compare them (NaN and ∞ cross as their
        /// bits too: see `a_non_finite_temperature_crosses_exactly_and_is_refused`).
        pub fn finite() -> impl Strategy<Value = f32> {
            prop_oneof![
                3 => any::<u32>().prop_map(f32::from_bits).prop_filter("finite", |x| x.is_finite()),
                1 => prop::sample::select(vec![0.0, -0.0, 1.0, -1.0, 0.1, f32::MAX, f32::MIN, f32::MIN_POSITIVE, f32::EPSILON, f32::from_bits(1), -f32::from_bits(1), f32::from_bits(0x007f_ffff)]),
            ]
        }

        /// Every f64, NaN included: the protocol's f64 cross as their bits.
        fn any_f64() -> impl Strategy<Value = f64> {
            prop_oneof![any::<u64>().prop_map(f64::from_bits), prop::sample::select(vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0])]
        }

        fn backend() -> impl Strategy<Value = BackendKind> {
            prop_oneof![Just(BackendKind::Cpu), Just(BackendKind::WebGpu)]
        }

        fn pairs() -> impl Strategy<Value = Vec<(String, String)>> {
            vec((text(), text()), 0..4)
        }

        fn matrix() -> impl Strategy<Value = Matrix> {
            (0usize..4, 0usize..4).prop_flat_map(|(rows, cols)| vec(finite(), rows * cols).prop_map(move |values| Matrix::from_vec(rows, cols, values).unwrap()))
        }

        fn look() -> impl Strategy<Value = Look> {
            (finite(), text(), any::<(usize, usize)>(), of(any::<usize>()), of(any::<u32>()), any::<bool>())
                .prop_map(|(temperature, pins, selected, lens_position, lens_token, kv_cache)| Look { temperature, pins, selected, lens_position, lens_token, kv_cache })
        }

        fn choices() -> impl Strategy<Value = Vec<Choice>> {
            vec(any::<(usize, u32)>().prop_map(|(step, token)| Choice { step, token }), 0..3)
        }

        fn alternatives() -> impl Strategy<Value = AlternativesView> {
            (any::<(usize, usize, u32)>(), text(), pairs(), of(text()))
                .prop_map(|((step, position, taken), title, options, refused)| AlternativesView { step, position, title, options, taken, refused })
        }

        fn cache() -> impl Strategy<Value = CacheView> {
            (any::<(bool, usize, usize, usize)>(), text(), text(), text())
                .prop_map(|((on, layers, positions, computed), pass, size, rates)| CacheView { on, layers, positions, computed, pass, size, rates })
        }

        fn branch_rows() -> impl Strategy<Value = Vec<BranchRow>> {
            vec((any::<(usize, bool, usize)>(), text(), text()).prop_map(|((index, current, depth), label, detail)| BranchRow { index, label, detail, current, depth }), 0..3)
        }

        fn options() -> impl Strategy<Value = SamplingOptions> {
            (finite(), any::<usize>(), finite()).prop_map(|(temperature, top_k, top_p)| SamplingOptions { temperature, top_k, top_p })
        }

        pub fn command() -> impl Strategy<Value = DecoderCommand> {
            prop_oneof![
                (text(), text(), any::<usize>()).prop_map(|(manifest_json, tokenizer_json, weights_len)| DecoderCommand::Shipped { files: ShippedFiles { manifest_json, tokenizer_json, weights_len } }),
                (any::<(u32, u64, u64)>(), prop_oneof![Just(Which::Shipped), Just(Which::Trained)], text(), look(), any::<bool>())
                    .prop_map(|((widget, action, seed), which, prompt, look, gpu)| DecoderCommand::Read { widget, action, which, prompt, seed, look, gpu }),
                (any::<(u32, u64, usize, u64)>(), text(), any::<(bool, bool)>(), options(), choices(), look())
                    .prop_map(|((widget, action, n, seed), prompt, (reseed, gpu), options, choices, look)| DecoderCommand::Generate { widget, action, prompt, n, seed, reseed, options, choices, look, gpu }),
                (any::<(u32, u64, usize, u32, bool)>(), look()).prop_map(|((widget, action, step, token, gpu), look)| DecoderCommand::Branch { widget, action, step, token, look, gpu }),
                (any::<(u32, u64, usize, bool)>(), look()).prop_map(|((widget, action, branch, gpu), look)| DecoderCommand::Return { widget, action, branch, look, gpu }),
                (any::<(u32, u64, usize, u64)>(), text(), options(), prop_oneof![Just(Sides::GreedyAndT1), Just(Sides::TwoSeeds)])
                    .prop_map(|((widget, action, n, seed), prompt, options, sides)| DecoderCommand::Sides { widget, action, prompt, n, seed, options, sides }),
                (any::<(u32, u64)>(), look()).prop_map(|((widget, action), look)| DecoderCommand::Look { widget, action, look }),
                any::<u32>().prop_map(|widget| DecoderCommand::Stop { widget }),
                (any::<(u32, u64)>(), vec(any::<u32>(), 0..8), of(any::<usize>()), backend(), any::<bool>())
                    .prop_map(|((widget, request), ids, lens_at, kind, with_results)| DecoderCommand::Rerun { widget, request, ids, lens_at, kind, with_results }),
            ]
        }

        fn bars() -> impl Strategy<Value = Bars> {
            (text(), vec(text(), 0..4), vec(finite(), 0..4), of(any::<usize>())).prop_map(|(title, labels, values, marked)| Bars { title, labels, values, marked })
        }

        fn predictions() -> impl Strategy<Value = Predictions> {
            let pins = prop_oneof![Just(PinRows::None), pairs().prop_map(PinRows::Rows), text().prop_map(PinRows::Error)];
            (bars(), bars(), of((bars(), any::<u32>())), pins, pairs()).prop_map(|(model, bigram, drawn, pins, readout)| Predictions { model, bigram, drawn, pins, readout })
        }

        fn chip() -> impl Strategy<Value = Chip> {
            (any::<u32>(), text(), any::<bool>(), of((finite(), any::<usize>())), text()).prop_map(|(id, label, generated, drawn, title)| Chip { id, label, generated, drawn, title })
        }

        fn lens() -> impl Strategy<Value = LensView> {
            (matrix(), vec(text(), 0..3), vec(text(), 0..3), text(), pairs(), text(), pairs())
                .prop_map(|(trajectories, stages, candidates, title, tops, tops_caption, tokens)| LensView { trajectories, stages, candidates, title, tops, tops_caption, tokens })
        }

        fn pushes() -> impl Strategy<Value = PushView> {
            (matrix(), vec(text(), 0..3), vec(text(), 0..3), text(), text()).prop_map(|(pushes, layers, columns, title, sum)| PushView { pushes, layers, columns, title, sum })
        }

        fn strip() -> impl Strategy<Value = StripView> {
            let cell = (any::<(usize, usize)>(), text()).prop_map(|((position, settle), title)| SettleCell { position, settle, title });
            (vec(cell, 0..4), vec(text(), 0..3), text()).prop_map(|(cells, stages, summary)| StripView { cells, stages, summary })
        }

        fn view() -> impl Strategy<Value = DecoderView> {
            (
                (any::<(u64, bool, usize, usize, usize)>(), of(text()), text()),
                (vec(any::<u32>(), 0..6), any::<usize>(), vec(chip(), 0..3), text(), text()),
                (of(predictions()), pairs(), of(any::<usize>()), of(lens()), of(strip())),
                (of(any::<u32>()), of(prop_oneof![pushes().prop_map(Ok), text().prop_map(Err)]), text(), backend()),
                (of(alternatives()), branch_rows(), pairs(), of(cache())),
            )
                .prop_map(|(((action, generating, layers, heads, context), trained, tokenizer_kind), (ids, chips_from, chips, prompt_text, generated_text), (predictions, lens_positions, lens_position, lens, strip), (lens_token, pushes, status, on), (alternatives, branches, link, cache))| DecoderView {
                    action,
                    generating,
                    layers,
                    heads,
                    context,
                    trained,
                    tokenizer_kind,
                    ids,
                    chips_from,
                    chips,
                    prompt_text,
                    generated_text,
                    predictions,
                    lens_positions,
                    lens_position,
                    lens,
                    strip,
                    alternatives,
                    branches,
                    link,
                    cache,
                    lens_token,
                    pushes,
                    status,
                    on,
                })
        }

        fn shape() -> impl Strategy<Value = Shape> {
            prop_oneof![any::<(usize, usize)>().prop_map(|(r, c)| Shape::Matrix(r, c)), any::<usize>().prop_map(Shape::Ids)]
        }

        /// A few ops of any kind, their times NaN too (an op not measured inside a GPU submission).
        fn trace() -> impl Strategy<Value = Trace> {
            let record = (prop::sample::select(OpKind::ALL.to_vec()), of(text()), vec(shape(), 0..3), vec(shape(), 0..3), text(), any_f64(), vec(matrix(), 0..2))
                .prop_map(|(op, stage, inputs, outputs, params, ms, results)| OpRecord { op, stage: stage.map(Rc::from), inputs, outputs, params, ms, results });
            (backend(), vec(record, 0..4), of(any_f64()), any::<usize>()).prop_map(|(backend, ops, batched_ms, submissions)| Trace { backend, ops, batched_ms, submissions })
        }

        pub fn report() -> impl Strategy<Value = DecoderReport> {
            prop_oneof![
                (any::<u32>(), view()).prop_map(|(widget, view)| DecoderReport::View { widget, view }),
                (any::<u32>(), text()).prop_map(|(widget, prompt)| DecoderReport::Prompt { widget, prompt }),
                (any::<u32>(), trace(), vec(any::<u32>(), 0..6), of(any::<usize>()), any::<bool>()).prop_map(|(widget, trace, ids, lens_at, also)| DecoderReport::Trace { widget, trace, ids, lens_at, also }),
                (any::<(u32, u64)>(), prop_oneof![trace().prop_map(Ok), text().prop_map(Err)]).prop_map(|((widget, request), outcome)| DecoderReport::Reran { widget, request, outcome }),
                (any::<u32>(), text()).prop_map(|(widget, error)| DecoderReport::GpuFailed { widget, error }),
                (any::<u32>(), vec((text(), pairs(), text(), text()).prop_map(|(title, tokens, text, summary)| SideView { title, tokens, text, summary }), 0..3))
                    .prop_map(|(widget, sides)| DecoderReport::Sides { widget, sides }),
                (any::<(u32, u64)>(), text(), any::<bool>()).prop_map(|((widget, action), message, needs_model)| DecoderReport::Failed { widget, action, message, needs_model }),
            ]
        }

        /// Causal maps: `maps` maps of `positions` rows, row i with its i + 1 weights, any f32
        /// (NaN too: the bytes carry bits, and the maps are compared bit for bit).
        pub fn attention_maps() -> impl Strategy<Value = Vec<Vec<Vec<f32>>>> {
            (0usize..5, 0usize..7).prop_flat_map(|(maps, positions)| {
                let map: Vec<_> = (0..positions).map(|i| vec(any::<u32>().prop_map(f32::from_bits), i + 1)).collect();
                vec(map, maps)
            })
        }
    }

    use arbitrary::*;
    use proptest::prelude::*;
    use crate::train_run::protocol::TrainCommand;

    fn bits(maps: &[Vec<Vec<f32>>]) -> Vec<Vec<Vec<u32>>> {
        maps.iter().map(|m| m.iter().map(|r| r.iter().map(|v| v.to_bits()).collect()).collect()).collect()
    }

    proptest! {
        #[test]
        fn every_command_round_trips_and_never_reads_as_a_report_or_the_train_widgets(c in command()) {
            let bytes = c.encode();
            let back = DecoderCommand::decode(&bytes).unwrap();
            // Also written again the same: PartialEq alone would take -0.0 for 0.0.
            prop_assert_eq!(back.encode(), bytes.clone());
            prop_assert_eq!((back.widget(), back.action()), (c.widget(), c.action()));
            prop_assert_eq!(back, c);
            prop_assert!(TrainCommand::decode(&bytes).is_err());
            prop_assert!(TrainReport::decode(&bytes).is_err());
            prop_assert!(DecoderReport::decode(&bytes).is_err());
        }

        #[test]
        fn every_report_round_trips_and_never_reads_as_a_command_or_the_train_widgets(r in report()) {
            let bytes = r.encode();
            let back = DecoderReport::decode(&bytes).unwrap();
            prop_assert_eq!(back.widget(), r.widget());
            prop_assert_eq!(back.encode(), bytes.clone());
            if let (DecoderReport::View { view: a, .. }, DecoderReport::View { view: b, .. }) = (&back, &r) {
                prop_assert_eq!(a, b);
            }
            prop_assert!(TrainReport::decode(&bytes).is_err());
            prop_assert!(TrainCommand::decode(&bytes).is_err());
            prop_assert!(DecoderCommand::decode(&bytes).is_err());
        }

        #[test]
        fn attention_maps_round_trip_bit_for_bit_through_bytes(maps in attention_maps()) {
            let positions = maps.first().map_or(0, Vec::len);
            let bytes = attention_bytes(&maps);
            prop_assert_eq!(bytes.len(), maps.len() * positions * (positions + 1) / 2 * 4);
            prop_assert_eq!(bits(&attention_from_bytes(&bytes, maps.len(), positions).unwrap()), bits(&maps));
        }

        #[test]
        fn reading_arbitrary_bytes_as_attention_maps_never_panics(
            bytes in proptest::collection::vec(any::<u8>(), 0..200),
            // Few maps, or more than any memory holds (never the counts between: with no
            // positions, a count of 2³⁰ would really allocate its empty maps).
            maps in prop_oneof![0usize..8, (1usize << 48)..=usize::MAX],
            positions in prop_oneof![0usize..8, any::<usize>(), Just(usize::MAX)],
        ) {
            match attention_from_bytes(&bytes, maps, positions) {
                Ok(read) => {
                    prop_assert_eq!(read.len(), maps);
                    prop_assert!(read.iter().all(|m| m.len() == positions && m.iter().enumerate().all(|(i, r)| r.len() == i + 1)));
                    prop_assert_eq!(attention_bytes(&read), bytes);
                }
                // Refused only when the length is not the maps' or they would not fit in memory.
                Err(_) => {
                    let expected = positions.checked_add(1).and_then(|p| p.checked_mul(positions)).and_then(|p| (p / 2).checked_mul(4)).and_then(|p| p.checked_mul(maps));
                    prop_assert!(expected != Some(bytes.len()) || maps >= 1 << 48);
                }
            }
        }
    }

    /// The page never sends a NaN temperature (it reads 0 to 2 and validates), but if one were
    /// sent, it crosses as its bits (no guess on the way), and the worker's check refuses it.
    #[test]
    fn a_non_finite_temperature_crosses_exactly_and_is_refused() {
        for t in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let look = Look { temperature: t, ..look() };
            let DecoderCommand::Look { look: back, .. } = DecoderCommand::decode(&DecoderCommand::Look { widget: 1, action: 2, look }.encode()).unwrap() else { panic!("not a Look") };
            assert_eq!(back.temperature.to_bits(), t.to_bits());
            let options = SamplingOptions { temperature: t, ..SamplingOptions::default() };
            let bytes = DecoderCommand::Generate { widget: 1, action: 2, prompt: "x".into(), n: 1, seed: 0, reseed: false, options, choices: Vec::new(), look: self::look(), gpu: false }.encode();
            let DecoderCommand::Generate { options, .. } = DecoderCommand::decode(&bytes).unwrap() else { panic!("not a Generate") };
            assert!(options.validate().is_err());
        }
    }
}
