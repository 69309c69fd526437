//! Property tests of the core: invariants that must hold for every input, not just the
//! articles' examples. proptest shrinks any failure to a minimal case and prints it.
#![cfg(not(target_arch = "wasm32"))]

use atencao_core::attention::feed_forward;
use atencao_core::bpe::Bpe;
use atencao_core::decoder::safetensors;
use atencao_core::executor::Cpu;
use atencao_core::ops::{attention, matmul, softmax_rows, SoftmaxOptions};
use atencao_core::text::idf::{idf, IdfValue, IdfVariant};
use atencao_core::text::tf::{tf_matrix, LogBase, TfVariant};
use atencao_core::text::tokenizer::{tokenize, TokenizerOptions};
use atencao_core::text::Corpus;
use atencao_core::transformer::char_tokenizer;
use atencao_core::Matrix;
use proptest::prelude::*;
use std::sync::OnceLock;

/// A finite f32, biased towards the extremes that break naive softmax code.
fn score() -> impl Strategy<Value = f32> {
    prop_oneof![
        4 => -50.0f32..50.0,
        1 => Just(1e30f32),
        1 => Just(-1e30f32),
        1 => Just(f32::MAX / 2.0),
        1 => Just(f32::MIN / 2.0),
        1 => Just(0.0f32),
    ]
}

fn matrix(rows: std::ops::Range<usize>, cols: std::ops::Range<usize>) -> impl Strategy<Value = Matrix> {
    (rows, cols).prop_flat_map(|(r, c)| {
        proptest::collection::vec(score(), r * c).prop_map(move |v| Matrix::from_vec(r, c, v).expect("sizes match"))
    })
}

/// The decoder's tokenizer, trained once on a small Portuguese text.
fn bpe() -> &'static Bpe {
    static BPE: OnceLock<Bpe> = OnceLock::new();
    BPE.get_or_init(|| {
        let text = "Não desejo ao meu maior inimigo o que me aconteceu no mês de abril. A casa, a casada, o casamento; \
                    ele disse que não, e ela respondeu que sim. Capitu olhou para Bentinho. ".repeat(20);
        Bpe::train([text.as_str()], 400).expect("trains")
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// A · B equals the textbook triple loop (in f64) for every shape up to 40, whichever path
    /// `ops::matmul` takes: few rows, the unpacked SIMD blocks with every kind of leftover row
    /// and column, or matrixmultiply.
    #[test]
    fn matmul_is_the_textbook_product((m, k, n) in (0usize..40, 0usize..40, 0usize..40), seed in any::<u64>()) {
        let mut rng = atencao_core::rng::Rng::new(seed);
        let (a, b) = (rng.matrix(m, k, -1.0, 1.0), rng.matrix(k, n, -1.0, 1.0));
        let c = matmul(&a, &b).unwrap();
        prop_assert_eq!(c.shape(), (m, n));
        for i in 0..m {
            for j in 0..n {
                let want: f64 = (0..k).map(|p| a.get(i, p) as f64 * b.get(p, j) as f64).sum();
                prop_assert!((c.get(i, j) as f64 - want).abs() < 1e-4, "({}, {}) of {}×{}·{}×{}", i, j, m, k, k, n);
            }
        }
    }

    /// Every row of a softmax is a distribution: finite, in [0, 1], summing to 1, with masked
    /// cells exactly 0, whatever the scores (±1e30 included), the mask and the temperature.
    #[test]
    fn softmax_rows_are_distributions(m in matrix(1..8, 1..8), causal in any::<bool>(), offset in 0usize..4, t in 0.05f32..10.0) {
        let opts = SoftmaxOptions { causal, causal_offset: offset, temperature: t };
        let s = softmax_rows(&m, opts).unwrap();
        for i in 0..s.rows() {
            let row = s.row(i);
            prop_assert!(row.iter().all(|v| v.is_finite() && (0.0..=1.0).contains(v)), "row {i}: {row:?}");
            let sum: f32 = row.iter().sum();
            prop_assert!((sum - 1.0).abs() < 1e-4, "row {i} sums to {sum}");
            for (j, v) in row.iter().enumerate() {
                if !opts.visible(i, j) {
                    prop_assert_eq!(*v, 0.0);
                }
            }
        }
    }

    /// Scores that overflowed to +∞ take all the weight (split evenly), never NaN.
    #[test]
    fn infinite_scores_take_the_weight(cols in 2usize..8, at in 0usize..8) {
        let mut v = vec![1.0f32; cols];
        v[at % cols] = f32::INFINITY;
        let s = softmax_rows(&Matrix::from_vec(1, cols, v).unwrap(), SoftmaxOptions::default()).unwrap();
        prop_assert_eq!(s.get(0, at % cols), 1.0);
        prop_assert!((s.row(0).iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }

    /// A row whose every score is −∞ (fully masked) is still a distribution (uniform), never NaN.
    #[test]
    fn fully_masked_rows_stay_finite(cols in 1usize..10) {
        let m = Matrix::from_vec(1, cols, vec![f32::NEG_INFINITY; cols]).unwrap();
        let s = softmax_rows(&m, SoftmaxOptions::default()).unwrap();
        prop_assert!(s.row(0).iter().all(|&v| (v - 1.0 / cols as f32).abs() < 1e-6));
    }

    /// Attention: (t_q, d) output and (h·t_q, t_k) weights, finite, rows of weights sum to 1.
    #[test]
    fn attention_shapes_and_rows(t_q in 1usize..6, t_k in 1usize..8, heads in 1usize..4, d_h in 1usize..5, causal in any::<bool>(), seed in any::<u64>()) {
        let d = heads * d_h;
        let mut rng = atencao_core::rng::Rng::new(seed);
        let (q, k, v) = (rng.matrix(t_q, d, -3.0, 3.0), rng.matrix(t_k, d, -3.0, 3.0), rng.matrix(t_k, d, -3.0, 3.0));
        let offset = t_k.saturating_sub(t_q);
        let out = attention(&q, &k, &v, heads, causal, offset).unwrap();
        prop_assert_eq!(out.output.shape(), (t_q, d));
        prop_assert_eq!(out.weights.shape(), (heads * t_q, t_k));
        prop_assert!(out.output.as_slice().iter().all(|x| x.is_finite()));
        for r in 0..out.weights.rows() {
            let sum: f32 = out.weights.row(r).iter().sum();
            prop_assert!((sum - 1.0).abs() < 1e-4);
        }
    }

    /// FFN: (t, d) in, (t, d) out, finite for finite inputs.
    #[test]
    fn ffn_keeps_the_shape(t in 1usize..6, d in 1usize..6, f in 1usize..12, seed in any::<u64>()) {
        let mut rng = atencao_core::rng::Rng::new(seed);
        let x = rng.matrix(t, d, -2.0, 2.0);
        let (w1, b1, w2, b2) = (rng.matrix(d, f, -1.0, 1.0), rng.matrix(1, f, -1.0, 1.0), rng.matrix(f, d, -1.0, 1.0), rng.matrix(1, d, -1.0, 1.0));
        let y = feed_forward(&Cpu, &x, &w1, &b1, &w2, &b2).unwrap();
        prop_assert_eq!(y.shape(), (t, d));
        prop_assert!(y.as_slice().iter().all(|v| v.is_finite()));
    }

    /// IDF is a real number, −∞ or explicitly undefined for every count and variant, never NaN.
    #[test]
    fn idf_is_never_nan(n in 0usize..50, df in 0usize..60, cap in -5.0f32..5.0, base in 0usize..3) {
        let base = [LogBase::E, LogBase::Ten, LogBase::Two][base];
        for variant in [IdfVariant::Basic, IdfVariant::PlusOne, IdfVariant::Probabilistic, IdfVariant::Max { cap }, IdfVariant::Smooth] {
            match idf(n, df, variant, base) {
                IdfValue::Finite(x) => prop_assert!(x.is_finite(), "{variant:?}: {x}"),
                IdfValue::NegInfinity | IdfValue::Undefined => {}
            }
        }
    }

    /// Every TF variant of any count matrix is finite.
    #[test]
    fn tf_is_finite(counts in proptest::collection::vec(0u8..6, 1..30), cols in 1usize..6) {
        let rows = counts.len().div_ceil(cols);
        let mut values: Vec<f32> = counts.iter().map(|&c| c as f32).collect();
        values.resize(rows * cols, 0.0);
        let m = Matrix::from_vec(rows, cols, values).unwrap();
        for variant in TfVariant::ALL {
            let tf = tf_matrix(&m, variant, LogBase::E);
            prop_assert!(tf.as_slice().iter().all(|v| v.is_finite()), "{variant:?}");
        }
    }

    /// The corpus tokenizer takes any text (emoji, scripts, controls) without panicking, and
    /// every token is a non-empty word without whitespace; a corpus builds or says why not.
    #[test]
    fn corpus_tokenizer_takes_anything(text in "\\PC{0,80}", strip in any::<bool>()) {
        let opts = TokenizerOptions { strip_accents: strip, ..TokenizerOptions::default() };
        for token in tokenize(&text, &opts) {
            prop_assert!(!token.is_empty() && !token.chars().any(char::is_whitespace), "{token:?}");
        }
        let _ = Corpus::build(&[text.as_str(), "o gato"], &opts);
    }

    /// BPE is lossless for any string, and never produces an id outside its vocabulary.
    #[test]
    fn bpe_round_trips_any_text(text in "\\PC{0,120}|[ -~\\n\\t]{0,120}") {
        let ids = bpe().encode(&text);
        prop_assert!(ids.iter().all(|&id| (id as usize) < bpe().vocab_size()));
        prop_assert_eq!(bpe().decode(&ids), text);
    }

    /// The character tokenizer: every id decodes, and text made of table characters comes back.
    #[test]
    fn char_tokenizer_round_trips_its_alphabet(text in "[a-zçãõáéíóúâêô ,.]{0,40}") {
        let encoded = char_tokenizer::encode(&text, false);
        prop_assert!(encoded.unknown.is_empty());
        prop_assert_eq!(char_tokenizer::decode(&encoded.ids()).unwrap(), text);
    }

    /// Parsers of outside files never panic on garbage: a message, not a crash.
    #[test]
    fn parsers_reject_garbage(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = safetensors::parse(&bytes);
        let text = String::from_utf8_lossy(&bytes);
        let _ = Bpe::from_json(&text);
        let _ = atencao_core::decoder::manifest::Manifest::from_json(&text);
        let _ = atencao_core::decoder::bigram::TokenBigram::from_bytes(&bytes);
    }
}
