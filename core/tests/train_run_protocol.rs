//! The messages between the `train` widget and its run in the page's worker (issue 36): every
//! command and report survives its trip as bytes unchanged (a property test over arbitrary
//! contents, odd Unicode and extreme numbers, NaN and ∞ included) and never reads as a decoder
//! message nor as the other direction's,
//! and a view built from a real run says what the run says.

use atencao_core::decoder::protocol::{DecoderCommand, DecoderReport};
use atencao_core::decoder::Architecture;
use atencao_core::train_run::race::{RaceSide, RaceView};
use atencao_core::train_run::protocol::{AttentionView, BpeFiles, BuildInfo, Export, ExportPurpose, Placement, TrainCommand, TrainReport, TrainView};
use atencao_core::train_run::{prepare_text, EvalPoint, SamplePoint, TrainRun, TrainSettings};
use atencao_core::{executor::Cpu, Matrix};
use proptest::prelude::*;

fn placement() -> impl Strategy<Value = Placement> {
    prop_oneof![Just(Placement::Auto), Just(Placement::Cpu), Just(Placement::WebGpu)]
}

fn purpose() -> impl Strategy<Value = ExportPurpose> {
    prop_oneof![Just(ExportPurpose::Decoder), Just(ExportPurpose::Weights), Just(ExportPurpose::Config)]
}

/// Numbers of every size, 17-digit ones included, and the non-finite: they cross as their
/// bits (`PartialEq` cannot check a NaN: the tests compare the bytes written again too).
fn number() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |x| x.is_finite()),
        any::<u64>().prop_map(f64::from_bits),
        Just(0.0),
        Just(-0.0),
        Just(1e-300),
        Just(f64::MAX),
        Just(0.1 + 0.2),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY)
    ]
}

fn architecture() -> impl Strategy<Value = Architecture> {
    prop_oneof![Just(Architecture::Original), Just(Architecture::Moderna)]
}

fn settings() -> impl Strategy<Value = TrainSettings> {
    (1usize..5, 1usize..9, any::<u64>(), number(), architecture()).prop_map(|(layers, heads, seed, rate, architecture)| TrainSettings {
        n_layers: layers,
        n_heads: heads,
        d_model: 8 * heads,
        seed,
        learning_rate: rate,
        architecture,
        ..TrainSettings::tiny()
    })
}

fn command() -> impl Strategy<Value = TrainCommand> {
    prop_oneof![
        (any::<u64>(), ".*", any::<[bool; 2]>(), proptest::option::of((".*", ".*")), settings()).prop_map(|(build, text, flags, bpe, settings)| TrainCommand::Build {
            build,
            text,
            preset: flags[0],
            bpe: bpe.map(|(manifest_json, tokenizer_json)| BpeFiles { manifest_json, tokenizer_json }),
            settings,
            race: flags[1],
        }),
        (any::<u64>(), placement(), any::<bool>()).prop_map(|(build, placement, gpu_allowed)| TrainCommand::Train { build, placement, gpu_allowed }),
        any::<u64>().prop_map(|build| TrainCommand::Pause { build }),
        (any::<u64>(), placement(), any::<bool>()).prop_map(|(build, placement, gpu_allowed)| TrainCommand::Place { build, placement, gpu_allowed }),
        (any::<u64>(), any::<usize>(), any::<usize>()).prop_map(|(build, layer, head)| TrainCommand::Look { build, layer, head }),
        (any::<u64>(), purpose()).prop_map(|(build, purpose)| TrainCommand::Export { build, purpose }),
    ]
}

fn view() -> impl Strategy<Value = TrainView> {
    (
        any::<usize>(),
        any::<[bool; 4]>(),
        proptest::collection::vec((any::<usize>(), proptest::option::of(number()), number()), 0..8),
        proptest::collection::vec((any::<usize>(), ".*"), 0..4),
        (proptest::option::of(number()), number(), number(), proptest::option::of(number()), proptest::option::of(number())),
        proptest::option::of((0usize..4, 0usize..4, proptest::collection::vec(-1e30f32..1e30, 0..16))),
        ".*",
        proptest::option::of((architecture(), proptest::option::of(any::<usize>()), ".*")),
    )
        .prop_map(|(steps, flags, history, samples, (validation, bigram, uniform, rate, step_ms), attention, text, race)| TrainView {
            steps,
            running: flags[0],
            on_gpu: flags[1],
            gpu_failed: flags[2],
            software_gpu: flags[3],
            history: history.iter().map(|&(step, train, validation)| EvalPoint { step, train, validation }).collect(),
            samples: samples.into_iter().map(|(step, text)| SamplePoint { step, text }).collect(),
            validation_loss: validation,
            bigram,
            uniform,
            parameters: steps / 3,
            unit: "caractere".into(),
            rate,
            step_ms,
            attention: attention.map(|(layer, head, weights)| AttentionView { layer, head, size: weights.len(), weights }),
            probe_len: text.chars().count(),
            probe_text: text,
            race: race.map(|(architecture, bigram_step, summary)| {
                let side = |architecture| RaceSide {
                    architecture,
                    parameters: steps / 5,
                    history: history.iter().map(|&(step, train, validation)| EvalPoint { step, train, validation }).collect(),
                    bigram_step,
                };
                RaceView { sides: vec![side(architecture), side(Architecture::Moderna)], summary }
            }),
        })
}

fn report() -> impl Strategy<Value = TrainReport> {
    prop_oneof![
        (any::<u64>(), any::<[usize; 5]>(), proptest::collection::vec(".*", 0..3), any::<bool>()).prop_map(|(build, n, notes, cut)| TrainReport::Built {
            build,
            info: BuildInfo { chars: n[0], notes, cut, parameters: n[1], vocab: n[2], train_tokens: n[3], validation_tokens: n[4], unit: "token".into() }
        }),
        (any::<u64>(), view()).prop_map(|(build, view)| TrainReport::View { build, view }),
        (any::<u64>(), ".*", any::<usize>(), any::<usize>()).prop_map(|(build, error, at, resumed_from)| TrainReport::GpuFailed { build, error, at, resumed_from }),
        (any::<u64>(), ".*").prop_map(|(build, message)| TrainReport::Failed { build, message }),
        (
            any::<u64>(),
            purpose(),
            proptest::option::of((settings(), 2usize..3000)),
            proptest::option::of(".*"),
            proptest::collection::vec(any::<u32>(), 0..16),
            any::<usize>(),
            proptest::option::of(number())
        )
            .prop_map(|(build, purpose, model, chars, training_ids, step, validation_loss)| TrainReport::Exported {
                build,
                purpose,
                export: Export { config: model.map(|(settings, vocab)| settings.config(vocab)), chars, training_ids, step, validation_loss }
            }),
    ]
}

proptest! {
    #[test]
    fn commands_round_trip(c in command()) {
        let bytes = c.encode();
        let back = TrainCommand::decode(&bytes).unwrap();
        // Written again the same: exact to the bit, NaN and -0.0 included.
        prop_assert_eq!(back.encode(), bytes.clone());
        if !format!("{c:?}").contains("NaN") {
            prop_assert_eq!(back, c);
        }
        // The decoder's messages share the worker: a train command never reads as one.
        prop_assert!(DecoderCommand::decode(&bytes).is_err() && DecoderReport::decode(&bytes).is_err() && TrainReport::decode(&bytes).is_err());
    }

    #[test]
    fn reports_round_trip(r in report()) {
        let bytes = r.encode();
        let back = TrainReport::decode(&bytes).unwrap();
        prop_assert!(DecoderCommand::decode(&bytes).is_err() && DecoderReport::decode(&bytes).is_err() && TrainCommand::decode(&bytes).is_err());
        prop_assert_eq!(back.build(), r.build());
        prop_assert_eq!(back.encode(), bytes);
        if !format!("{r:?}").contains("NaN") {
            prop_assert_eq!(back, r);
        }
    }
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    let pause = TrainCommand::Pause { build: 3 }.encode();
    // Empty, only a tag, an unknown variant, a varint that never ends, a cut or padded message.
    let padded = [&pause[..], &[0u8]].concat();
    let cases: [&[u8]; 6] = [&[], &[1], &[1, 200], &[1, 2, 0xff, 0xff], &pause[..pause.len() - 1], &padded];
    for bytes in cases {
        assert!(TrainCommand::decode(bytes).is_err(), "{bytes:?}");
        assert!(TrainReport::decode(bytes).is_err(), "{bytes:?}");
    }
    assert!(TrainCommand::decode(b"garbage").unwrap_err().to_string().contains("mensagem inválida para o treino"));
}

/// A view of a real run carries its numbers, and an export rebuilds the same model.
#[test]
fn a_view_and_an_export_say_what_the_run_says() {
    let settings = TrainSettings { n_layers: 1, d_model: 16, n_heads: 2, context: 16, batch: 2, ..TrainSettings::tiny() };
    let text = prepare_text(&"Era uma vez um gato que dormia. ".repeat(40), false, settings.min_chars()).unwrap();
    let mut run: TrainRun = TrainRun::new(&Cpu, &text, None, settings).unwrap();
    for _ in 0..3 {
        run.step().unwrap();
    }
    let view = TrainView::of(&run, Some((0, 1)), true, (Some(2.0), None));
    assert!(TrainView::of(&run, None, true, (None, None)).attention.is_none());
    assert_eq!((view.steps, view.parameters, view.history.len()), (3, run.parameter_count(), run.history.len()));
    assert_eq!(view.validation_loss, Some(run.validation_loss()));
    let a = view.attention.as_ref().unwrap();
    let m = Matrix::from_vec(a.size, a.size, a.weights.clone()).unwrap();
    assert_eq!(m, run.attention(0, 1).unwrap());
    let back = TrainReport::decode(&TrainReport::View { build: 7, view: view.clone() }.encode()).unwrap();
    assert_eq!(back, TrainReport::View { build: 7, view });

    let export = Export::of(&run);
    let weights = atencao_core::decoder::DecoderWeights::from_safetensors(export.config.as_ref().unwrap(), &run.safetensors()).unwrap();
    // Written again, the rebuilt weights are the same file: every tensor, bit for bit.
    assert_eq!(atencao_core::training::model::to_safetensors(&weights), run.safetensors());
    let chars = atencao_core::training::CharTokenizer::from_text(export.chars.as_ref().unwrap());
    assert_eq!(chars.vocab_size(), run.vocab_size());
    assert_eq!(export.training_ids, run.tokens.train);
}
