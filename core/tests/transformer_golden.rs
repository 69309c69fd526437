//! The Transformer articles' worked examples (../shared/spec/4-transformer.md), computed by
//! `core::transformer` and compared with the spec's golden values, corrected where the spec
//! marks the articles wrong.
#![cfg(not(target_arch = "wasm32"))]

use atencao_core::executor::{block_on_ready, Job};
use atencao_core::ops::{softmax_rows, SoftmaxOptions};
use atencao_core::transformer::block::{self, params, BlockConfig, BlockJob, BlockWeights, Norm};
use atencao_core::transformer::char_tokenizer::{self as tok, BatchLength, PadOptions, PadSide};
use atencao_core::transformer::cross_attention::CrossJob;
use atencao_core::transformer::decoding::{argmax, tied_output_weights, top_k, unit_embedding, HeadJob};
use atencao_core::transformer::embedding::{seeded_table, LookupJob};
use atencao_core::transformer::multi_head::{self, ConcatJob, ReshapeShape};
use atencao_core::transformer::positional::{positional_encoding, rotate_by_offset, PositionalJob, THETA};
use atencao_core::transformer::scaling::ScalingJob;
use atencao_core::transformer::self_attention::StepInputs;
use atencao_core::transformer::shift::{shift_trace, Stop};
use atencao_core::{Cpu, Matrix};

const TOL: f32 = 1e-4;

fn run<J: Job>(job: &J) -> J::Output {
    block_on_ready(job.run(&Cpu)).expect("the job runs on the CPU")
}

fn assert_row(name: &str, got: &[f32], want: &[f32], tol: f32) {
    assert_eq!(got.len(), want.len(), "{name}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol, "{name}[{i}] = {g}, want {w}\n got  {got:?}\n want {want:?}");
    }
}

fn assert_matrix(name: &str, got: &Matrix, want: &[&[f32]]) {
    assert_eq!(got.rows(), want.len(), "{name}: rows");
    for (r, row) in want.iter().enumerate() {
        assert_row(&format!("{name} row {r}"), &got.row(r), row, TOL);
    }
}

// ---- Character tokenizer -------------------------------------------------------------

#[test]
fn tokenizer_ids_of_the_recommended_table() {
    assert_eq!(tok::encode("gato", true).ids(), vec![1, 9, 3, 22, 17, 2]);
    assert_eq!(tok::encode("baba", true).ids(), vec![1, 4, 3, 4, 3, 2]);
    assert_eq!(tok::encode("elefante", true).ids(), vec![1, 7, 14, 7, 8, 3, 16, 22, 7, 2]);
    assert_eq!(tok::encode(" .,", false).ids(), vec![29, 30, 31]);
    // Accented letters have fixed ids of their own, after the comma.
    let cao = tok::encode("cão", false).ids();
    assert_eq!(cao[0], 5);
    assert!(cao[1] > 31 && cao[1] < tok::UNK, "ã has a fixed id past 31: {cao:?}");
    assert_eq!(tok::decode(&tok::encode("Gato, cão.", true).ids()).unwrap(), "<bos>gato, cão.<eos>");
}

#[test]
fn tokenizer_sequence_with_input_and_output_has_15_tokens() {
    let mut ids = tok::encode("cachorro", true).ids();
    ids.extend(tok::encode("dog", true).ids());
    assert_eq!(ids.len(), 15);
    assert_eq!(tok::decode(&ids).unwrap(), "<bos>cachorro<eos><bos>dog<eos>");
}

#[test]
fn tokenizer_bad_input_never_panics() {
    assert_eq!(tok::encode("", true).ids(), vec![tok::BOS, tok::EOS]);
    let odd = tok::encode("ñ 😀\u{301}x\u{0}", true);
    assert!(odd.ids().iter().all(|&id| (id as usize) < tok::VOCAB_SIZE));
    assert!(odd.unknown.contains(&"ñ".to_string()) && odd.unknown.contains(&"😀".to_string()));
    assert!(tok::decode(&[103]).is_err(), "ids past the vocabulary are an error, not a panic");
}

#[test]
fn padding_right_left_fixed_and_truncation() {
    let texts = ["gato", "elefante", "peixe", "pássaro", "cão"];
    let seqs: Vec<Vec<u32>> = texts.iter().map(|t| tok::encode(t, true).ids()).collect();
    let batch = tok::pad_batch(&seqs, PadOptions::default()).unwrap();
    assert_eq!(batch.width(), 10, "elefante + <bos>/<eos> sets the width");
    assert_eq!(batch.ids[0], vec![1, 9, 3, 22, 17, 2, 0, 0, 0, 0]);
    assert_eq!(batch.ids[1], vec![1, 7, 14, 7, 8, 3, 16, 22, 7, 2]);
    let left = tok::pad_batch(&seqs, PadOptions { side: PadSide::Left, ..Default::default() }).unwrap();
    assert_eq!(left.ids[0], vec![0, 0, 0, 0, 1, 9, 3, 22, 17, 2]);
    let fixed = tok::pad_batch(&seqs, PadOptions { length: BatchLength::Fixed(12), ..Default::default() }).unwrap();
    assert_eq!(fixed.width(), 12);
    // Fixed but too short, without truncation: the batch widens (the article's batch_encode).
    let widened = tok::pad_batch(&seqs, PadOptions { length: BatchLength::Fixed(6), ..Default::default() }).unwrap();
    assert_eq!((widened.width(), widened.widened_from), (10, Some(6)));
    let cut = tok::pad_batch(&seqs, PadOptions { length: BatchLength::Fixed(6), truncate_to: Some(6), ..Default::default() }).unwrap();
    assert_eq!(cut.width(), 6);
    assert_eq!(cut.ids[1], vec![1, 7, 14, 7, 8, 3], "truncation drops the last tokens");
    assert_eq!(cut.truncated, vec![0, 4, 1, 3, 0]);
    assert!(tok::pad_batch(&[], PadOptions::default()).is_err());
}

// ---- Embeddings ------------------------------------------------------------------------

#[test]
fn one_hot_times_lookup_equals_gather() {
    let table = seeded_table(tok::VOCAB_SIZE, 4, 5);
    let ids = tok::encode("baba", true).ids();
    let lookup = run(&LookupJob { table: table.clone(), ids: ids.clone() });
    assert_eq!(lookup.columns, vec![1, 2, 3, 4]);
    assert_eq!(lookup.one_hot.shape(), (6, 4));
    assert_eq!(lookup.one_hot.row(1), vec![0.0, 0.0, 0.0, 1.0], "b (id 4) is the 4th distinct id");
    assert_eq!(lookup.product, lookup.gathered);
    assert_eq!(lookup.product.row(1), lookup.product.row(3), "repeated tokens get identical rows");
    assert_eq!(lookup.product.row(1), table.row(4));
    assert!(table.row(0).iter().all(|&v| v == 0.0), "<pad> row is zero");
}

// ---- Self-attention, Examples 1 and 2 ------------------------------------------------

#[test]
fn example_1_as_printed_and_corrected() {
    let trace = run(&StepInputs::example_1());
    let step = trace.query(1);
    assert_row("scores", &step.scores, &[0.0, 1.0, 1.0], 0.0);
    // The article prints [0.14, 0.43, 0.43] and [0.57, 0.86, 0].
    assert_row("α₂", &step.weights, &[0.1554, 0.4223, 0.4223], TOL);
    assert_row("a₂", &step.output, &[0.5777, 0.8446, 0.0], TOL);
    assert!((step.sum - (1.0 + 2.0 * std::f32::consts::E)).abs() < 1e-4, "Σ exp = 1 + 2e ≈ 6.4366");
    // Its own formula sums over j ≤ i only: with the causal mask x₃ drops out.
    let mut causal = StepInputs::example_1();
    causal.attention.causal = true;
    let step = run(&causal).query(1);
    assert_row("causal α₂", &step.weights, &[0.2689, 0.7311, 0.0], TOL);
    assert_row("causal a₂", &step.output, &[0.2689, 0.7311, 0.0], TOL);
    assert!(!step.visible[2] && step.exps[2] == 0.0);
}

#[test]
fn example_2_step_by_step() {
    let trace = run(&StepInputs::example_2());
    assert_matrix("Q", &trace.q, &[&[0.1, 0.2, 0.3], &[0.4, 0.5, 0.6], &[0.5, 0.7, 0.9]]);
    assert_matrix("K", &trace.k, &[&[0.9, 0.8, 0.7], &[0.6, 0.5, 0.4], &[1.5, 1.3, 1.1]]);
    assert_matrix("V", &trace.v, &[&[0.2, 0.4, 0.6], &[0.1, 0.3, 0.5], &[0.3, 0.7, 1.1]]);
    let step = trace.query(1);
    assert_row("q₂·k", &step.dots, &[1.18, 0.73, 1.91], TOL);
    assert_row("÷√3", &step.scores, &[0.6813, 0.4215, 1.1027], TOL);
    assert_row("exp", &step.exps, &[1.9765, 1.5242, 3.0123], 1e-3);
    // The article prints 0.30, 0.23, 0.47 and a₂ = [0.22, 0.48, 0.77].
    assert_row("α₂", &step.weights, &[0.3035, 0.2340, 0.4625], TOL);
    assert_row("a₂", &step.output, &[0.2228, 0.5154, 0.8079], TOL);
    assert_matrix("S", &trace.scores, &[&[0.2656, 0.1617, 0.4272], &[0.6813, 0.4215, 1.1027], &[0.9469, 0.5831, 1.5300]]);
    assert_matrix("AV", &trace.output, &[&[0.2089, 0.4853, 0.7617], &[0.2228, 0.5154, 0.8079], &[0.2314, 0.5342, 0.8370]]);
    let mut causal = StepInputs::example_2();
    causal.attention.causal = true;
    let trace = run(&causal);
    assert_matrix("causal A", &trace.weights, &[&[1.0, 0.0, 0.0], &[0.5646, 0.4354, 0.0], &[0.2868, 0.1994, 0.5138]]);
    assert_matrix("causal AV", &trace.output, &[&[0.2, 0.4, 0.6], &[0.1565, 0.3565, 0.5565], &[0.2314, 0.5342, 0.8370]]);
}

// ---- Scaling ---------------------------------------------------------------------------

#[test]
fn scaling_keeps_score_variance_near_one() {
    let small = run(&ScalingJob { with_curve: false, ..ScalingJob::new(4) }).stats;
    let big = run(&ScalingJob::new(512));
    let s = &big.stats;
    assert!((s.var_raw / 512.0 - 1.0).abs() < 0.2, "var(q·k) ≈ d: {}", s.var_raw);
    assert!((s.var_scaled - 1.0).abs() < 0.2, "var(q·k/√d) ≈ 1: {}", s.var_scaled);
    assert!(s.max_weight_raw > 0.9, "unscaled softmax saturates at d = 512: {}", s.max_weight_raw);
    assert!(s.max_weight_scaled < 0.6, "scaled softmax stays spread: {}", s.max_weight_scaled);
    assert!(small.max_weight_raw < s.max_weight_raw);
    assert_eq!(big.curve.len(), 11);
    assert!(big.curve.windows(2).all(|w| w[1].1 >= w[0].1 - 0.02), "saturation grows with d: {:?}", big.curve);
}

#[test]
fn scaling_rejects_huge_and_zero_d() {
    assert!(block_on_ready(ScalingJob::new(100_000).run(&Cpu)).is_err());
    assert!(block_on_ready(ScalingJob::new(0).run(&Cpu)).is_err());
}

// ---- Multi-head, Example 3 ----------------------------------------------------------------

#[test]
fn example_3_concat_times_w_o() {
    let w_o = multi_head::example_3_w_o();
    let printed = run(&ConcatJob { heads: vec![multi_head::example_3_head_1_as_printed(), multi_head::example_3_head_2()], w_o: w_o.clone() });
    assert_row("concat", &printed.concat.row(0), &[0.22, 0.48, 0.77, 0.5, 0.2, 0.9], 0.0);
    // The article prints [0.914, 0.79, 0.761] for this product.
    assert_row("as printed · W^O", &printed.output.row(0), &[1.593, 1.580, 1.567], 1e-3);
    let head_1 = block_on_ready(multi_head::example_3_head_1(&Cpu)).unwrap();
    assert_row("head₁ = a₂ of Example 2", &head_1.row(0), &[0.2228, 0.5154, 0.8079], TOL);
    let corrected = run(&ConcatJob { heads: vec![head_1, multi_head::example_3_head_2()], w_o });
    assert_row("corrected · W^O", &corrected.output.row(0), &[1.6339, 1.6285, 1.6231], TOL);
}

#[test]
fn heads_split_and_merge_and_refuse_uneven_widths() {
    let x = Matrix::from_vec(2, 6, (0..12).map(|v| v as f32).collect()).unwrap();
    let heads = multi_head::split_heads(&x, 3).unwrap();
    assert_eq!(heads.len(), 3);
    assert_eq!(heads[1].row(0), vec![2.0, 3.0]);
    assert_eq!(multi_head::merge_heads(&heads).unwrap(), x);
    let err = multi_head::split_heads(&x, 4).unwrap_err().to_string();
    assert!(err.contains("1, 2, 3, 6"), "{err}");
    let shape = ReshapeShape { b: 2, t: 4, d: 8, h: 2 };
    assert_eq!(shape.validate().unwrap(), 4);
    assert_eq!(shape.source_column(1, 2), 6);
    assert!(ReshapeShape { b: 1, t: 1, d: 1000, h: 1 }.validate().is_err());
}

// ---- Positional encoding ------------------------------------------------------------------

#[test]
fn positional_encoding_table_t5_d4() {
    let pe = positional_encoding(5, 4, THETA).unwrap();
    assert_matrix(
        "PE",
        &pe,
        &[
            &[0.0, 1.0, 0.0, 1.0],
            &[0.8415, 0.5403, 0.0100, 0.99995],
            &[0.9093, -0.4161, 0.0200, 0.9998],
            &[0.1411, -0.98999, 0.0300, 0.9996],
            &[-0.7568, -0.6536, 0.0400, 0.9992],
        ],
    );
}

#[test]
fn positional_encoding_is_absolute_with_an_offset_rotation() {
    let pe = positional_encoding(64, 16, THETA).unwrap();
    for k in [1, 5, 20] {
        for p in [0, 3, 40] {
            let rotated = rotate_by_offset(&pe.row(p), k, THETA).unwrap();
            assert_row(&format!("R({k})·PE({p})"), &rotated, &pe.row(p + k), 1e-4);
        }
    }
    let job = run(&PositionalJob { t: 64, d: 16, theta: THETA });
    assert!(job.offset_dependence() < 1e-3, "PE(p)·PE(p+k) depends on k only");
    assert!((job.dot_by_offset()[0] - 8.0).abs() < 1e-4, "PE(p)·PE(p) = d/2");
    assert!(positional_encoding(0, 4, THETA).is_err());
    assert!(positional_encoding(10_000, 4, THETA).is_err());
    assert!(rotate_by_offset(&[0.0, 1.0, 0.0], 1, THETA).is_none());
}

// ---- Masks ---------------------------------------------------------------------------------

#[test]
fn mask_example_of_explicando_transformers() {
    let scores = atencao_core::examples::explicando_mask_scores();
    let w = softmax_rows(&scores, SoftmaxOptions::causal()).unwrap();
    assert_matrix("masked softmax", &w, &[&[1.0, 0.0, 0.0], &[0.0590, 0.9410, 0.0], &[0.1232, 0.7991, 0.0777]]);
}

// ---- Autoregression ---------------------------------------------------------------------

#[test]
fn shift_table_cachorro_dog() {
    let trace = shift_trace("cachorro", "dog", 16).unwrap();
    let text = |ids: &[u32]| tok::decode(ids).unwrap();
    assert_eq!(trace.windows[0].len(), 10);
    assert_eq!(text(&trace.windows[0]), "<bos>cachorro<eos>");
    assert_eq!(text(&trace.windows[1]), "cachorro<eos><bos>");
    // The article (L831) prints "cachorro<eos><bos>d", 11 tokens: the first "c" has left the window.
    assert_eq!(text(&trace.windows[2]), "achorro<eos><bos>d");
    assert_eq!(text(&trace.windows[5]), "orro<eos><bos>dog<eos>");
    assert_eq!(trace.windows.len(), 6);
    assert_eq!(trace.stop, Stop::EndOfSequence);
    assert!(trace.windows.iter().all(|w| w.len() == 10), "the window keeps its size");
    let limited = shift_trace("cachorro", "dog", 3).unwrap();
    assert_eq!((limited.windows.len(), limited.stop), (4, Stop::StepLimit));
    assert!(shift_trace("  ", "dog", 16).is_err());
}

// ---- Transformer block -------------------------------------------------------------------

#[test]
fn parameter_counts_of_the_article() {
    assert_eq!(params::mha(512), 1_048_576);
    assert_eq!(params::ffn(512, 2048), 2_099_712);
    assert_eq!(params::block(512, 2048), 3_150_336);
    assert_eq!(params::decoder_block(512, 2048), 4_198_912);
    assert_eq!(params::encoder_decoder(103, 512, 2048, 6, 6), 44_201_063);
}

#[test]
fn post_ln_and_pre_ln_blocks() {
    let config = BlockConfig::tiny();
    let weights = BlockWeights::seeded(config, 11).unwrap();
    let table = seeded_table(tok::VOCAB_SIZE, config.d, 5);
    let ids = tok::encode("gato", true).ids();
    let job = |norm| BlockJob { ids: ids.clone(), table: table.clone(), weights: weights.clone(), norm, causal: true };
    let post = run(&job(Norm::Post));
    assert_eq!(post.hidden.shape(), (6, 32), "FFN expands 4×");
    assert!(post.hidden.as_slice().iter().all(|&v| v >= 0.0), "ReLU");
    assert!(block::zero_fraction(&post.hidden) > 0.1, "ReLU cuts some units");
    for r in 0..6 {
        let (mean, std) = block::row_stats(&post.output, r);
        assert!(mean.abs() < 1e-4 && (std - 1.0).abs() < 1e-3, "post-LN output row {r}: μ {mean}, σ {std}");
        let (mean, std) = block::row_stats(&post.norm_out, r);
        assert!(mean.abs() < 1e-4 && (std - 1.0).abs() < 1e-3, "LN₁ output row {r}");
    }
    // Residuals: x₁ = LN(x + MHA(x)) uses the sum.
    let sum = atencao_core::ops::add(&post.input, &post.attention).unwrap();
    assert!(sum.max_abs_diff(&post.residual1).unwrap() < 1e-6);
    let pre = run(&job(Norm::Pre));
    assert_eq!(pre.norm_in, pre.input, "pre-LN normalises the block's input first");
    let back = atencao_core::ops::add(&pre.x1, &pre.ffn).unwrap();
    assert!(back.max_abs_diff(&pre.output).unwrap() < 1e-6, "pre-LN output = x₁ + FFN(LN(x₁)), no LN after");
    // Causal: the first position's output does not depend on later tokens.
    let other = tok::encode("gaxx", true).ids();
    let changed = run(&BlockJob { ids: other, ..job(Norm::Post) });
    assert!(changed.output.first_rows(2).max_abs_diff(&post.output.first_rows(2)).unwrap() < 1e-5);
    assert!(BlockWeights::seeded(BlockConfig { d: 6, heads: 4, d_ff: 24 }, 1).is_err());
}

// ---- Cross-attention ------------------------------------------------------------------------

#[test]
fn cross_attention_article_wiring_leaks_the_future() {
    let d = 8;
    let (w_q, w_k, w_v) = CrossJob::seeded_projections(d, 3);
    let trace = shift_trace("cachorro", "dog", 16).unwrap();
    let job = CrossJob {
        encoder_ids: trace.windows[0].clone(),
        decoder_ids: trace.windows[1].clone(),
        table: seeded_table(tok::VOCAB_SIZE, d, 5),
        w_q,
        w_k,
        w_v,
        probe_id: tok::char_id('x').unwrap(),
    };
    let cross = run(&job);
    let paper = &cross.paper;
    assert_eq!(paper.weights.shape(), (10, 10));
    assert!(paper.change_on_probe[..9].iter().all(|&c| c == 0.0), "paper: only the changed position's own output moves");
    assert!(paper.change_on_probe[9] > 0.0);
    let article = cross.article.as_ref().unwrap();
    assert!(article.future_weight[0] > 0.5, "position 1 takes most of its value from later decoder positions");
    assert!(article.change_on_probe[0] > 1e-3, "article: changing the last decoder token changes the first output");
    for i in 0..10 {
        let s: f32 = article.weights.row(i).iter().sum();
        assert!((s - 1.0).abs() < 1e-5);
    }
    let uneven = run(&CrossJob { decoder_ids: vec![1, 3, 2], ..job });
    assert!(uneven.article.is_err(), "the article's wiring needs equal lengths");
    assert_eq!(uneven.paper.weights.shape(), (3, 10));
}

// ---- Output head --------------------------------------------------------------------------

#[test]
fn output_head_greedy_and_temperature() {
    let hidden = Matrix::from_rows(&[[1.0, 0.0]]).unwrap();
    let w_out = Matrix::from_rows(&[[2.0, 1.0, 0.0, -1.0], [0.0, 0.0, 3.0, 0.0]]).unwrap();
    let bias = Matrix::zeros(1, 4);
    let at = |temperature| run(&HeadJob { hidden: hidden.clone(), w_out: w_out.clone(), bias: bias.clone(), temperature });
    let one = at(1.0);
    assert_eq!(one.argmax, 0);
    assert_eq!(one.article_token(), 2, "the article's argmax + 2 names another token");
    let z: f32 = [2f32, 1.0, 0.0, -1.0].iter().map(|v| v.exp()).sum();
    assert_row("softmax", &one.probs.row(0), &[2f32.exp() / z, 1f32.exp() / z, 1.0 / z, (-1f32).exp() / z], 1e-5);
    let cold = at(0.1);
    let hot = at(5.0);
    assert_eq!((cold.argmax, hot.argmax), (0, 0), "temperature never moves the argmax");
    assert!(cold.probs.get(0, 0) > 0.99 && hot.probs.get(0, 0) < one.probs.get(0, 0));
    assert!(block_on_ready(HeadJob { temperature: 0.0, ..HeadJob { hidden, w_out, bias, temperature: 1.0 } }.run(&Cpu)).is_err());
    assert_eq!(argmax(&[1.0, 3.0, 3.0]), Some(1));
    assert_eq!(top_k(&[0.1, 0.5, 0.2], 2), vec![(1, 0.5), (2, 0.2)]);
}

#[test]
fn tied_head_picks_the_token_whose_embedding_h_copies() {
    let table = seeded_table(tok::VOCAB_SIZE, 8, 5);
    let w_out = tied_output_weights(&table, 4.0);
    for id in [3usize, 17, 30, 45] {
        let out = run(&HeadJob { hidden: unit_embedding(&table, id), w_out: w_out.clone(), bias: Matrix::zeros(1, tok::VOCAB_SIZE), temperature: 1.0 });
        assert_eq!(out.argmax, id);
        assert!((out.logits.get(0, id) - 4.0).abs() < 1e-4, "logit of the copied token = scale");
        assert_eq!(out.logits.get(0, 0), 0.0, "<pad> (zero row) has logit 0");
    }
}
