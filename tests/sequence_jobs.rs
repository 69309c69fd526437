#![cfg(not(target_arch = "wasm32"))]
//! The computations behind the sequence-modelling widgets (issue 4), beyond the worked
//! examples of `sequence_golden.rs`: every `Job` a widget runs on the active backend gives,
//! on the CPU, exactly what the core's reference functions give, and the articles' golden
//! numbers; where a Vulkan adapter exists (llvmpipe in CI) the same jobs run on the GPU and
//! agree with the CPU. Also the helpers the widgets draw from (windows onto large transition
//! matrices, Zipf's law, the repaired weather chain).

use atencao::core::executor::block_on_ready;
use atencao::core::sequence::ffn_example::{Activation, FfnExample};
use atencao::core::sequence::markov::{ConvergenceJob, MarkovChain};
use atencao::core::sequence::masking::{masked_query_attention, MaskMode, MaskedQueryJob};
use atencao::core::sequence::presets::{masked_embeddings_example, ngram_preset, vote_preset};
use atencao::core::sequence::sparsity::{fit_zipf_exponent, format_scientific, possible_ngrams, rank_frequencies};
use atencao::core::sequence::votes::{winning_margin, VoteScoresJob};
use atencao::core::{Cpu, Job, Matrix};
use atencao::gpu::GpuContext;

const TOL: f32 = 1e-4;

fn close_all(name: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{name}: {got:?} vs {want:?}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() < TOL, "{name}[{i}]: got {g}, want {w}\n got {got:?}");
    }
}

fn cpu<J: Job>(job: &J) -> J::Output {
    block_on_ready(job.run(&Cpu)).unwrap_or_else(|e| panic!("{e}"))
}

/// The native GPU, or `None` (printed) where no Vulkan adapter exists.
fn gpu() -> Option<GpuContext> {
    match pollster::block_on(GpuContext::acquire()) {
        Ok(ctx) => Some(ctx),
        Err(why) if std::env::var("ATENCAO_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("ATENCAO_REQUIRE_GPU=1 but no GPU adapter: {why}")
        }
        Err(why) => {
            eprintln!("GPU part skipped: no adapter ({why})");
            None
        }
    }
}

fn assert_same(name: &str, gpu: &Matrix, cpu: &Matrix) {
    let diff = gpu.max_abs_diff(cpu).unwrap_or_else(|| panic!("{name}: shapes {:?} vs {:?}", gpu.shape(), cpu.shape()));
    assert!(diff < 1e-5, "{name}: GPU and CPU differ by {diff}");
}

// ---------------------------------------------------------------------------------------
// markov: convergence from every start, and matrices a reader types
// ---------------------------------------------------------------------------------------

#[test]
fn convergence_job_matches_distribution_path_from_each_state() {
    let chain = MarkovChain::weather();
    let path = cpu(&ConvergenceJob { chain: chain.clone(), steps: 30 });
    assert_eq!(path.len(), 31);
    for start in 0..2 {
        let reference = chain.distribution_path(&chain.one_hot(start).unwrap(), 30).unwrap();
        for (k, d) in path.iter().enumerate() {
            close_all(&format!("start {start}, step {k}"), &d.row(start), &reference[k]);
        }
    }
    close_all("from sol, day 30", &path[30].row(0), &[0.625, 0.375]);
    close_all("from chuva, day 30", &path[30].row(1), &[0.625, 0.375]);
    assert!(block_on_ready(ConvergenceJob { chain, steps: 10_000 }.run(&Cpu)).is_err());
}

#[test]
fn typed_weather_matrices_are_repaired_or_refused_never_nan() {
    let names = || vec!["sol".to_string(), "chuva".to_string()];
    let (chain, note) = MarkovChain::from_weights(names(), &Matrix::from_rows(&[[0.7, 0.3], [0.5, 0.5]]).unwrap()).unwrap();
    assert!(note.is_none());
    close_all("weather", &chain.stationary().distribution, &[0.625, 0.375]);
    // 0,7 + 0,4 = 1,1: divided by the sum, and said so.
    let (chain, note) = MarkovChain::from_weights(names(), &Matrix::from_rows(&[[0.7, 0.4], [0.5, 0.5]]).unwrap()).unwrap();
    let note = note.unwrap();
    assert!(note.contains("«sol» soma 1,1"), "{note}");
    close_all("row sol", &chain.transition().row(0), &[0.7 / 1.1, 0.4 / 1.1]);
    // A dead end: the zero row becomes a self-loop (chuva forever), no NaN.
    let (chain, note) = MarkovChain::from_weights(names(), &Matrix::from_rows(&[[0.7, 0.3], [0.0, 0.0]]).unwrap()).unwrap();
    assert!(note.unwrap().contains("só tem zeros"));
    let pi = chain.stationary().distribution;
    assert!(pi.iter().all(|v| v.is_finite()), "{pi:?}");
    close_all("absorbed in chuva", &pi, &[0.0, 1.0]);
    // Negative and non-finite weights, and mismatched shapes, are refused with a message.
    let err = MarkovChain::from_weights(names(), &Matrix::from_rows(&[[0.7, -0.3], [0.5, 0.5]]).unwrap()).unwrap_err();
    assert!(err.to_string().contains("negativas"), "{err}");
    assert!(MarkovChain::from_weights(names(), &Matrix::from_rows(&[[f32::NAN, 0.3], [0.5, 0.5]]).unwrap()).is_err());
    assert!(MarkovChain::from_weights(names(), &Matrix::from_rows(&[[1.0]]).unwrap()).is_err());
}

// ---------------------------------------------------------------------------------------
// ngram: windows onto large matrices
// ---------------------------------------------------------------------------------------

#[test]
fn submatrix_equals_the_dense_matrix_and_frequent_words_pick_the_common_ones() {
    let model = ngram_preset("oito-documentos").unwrap().build().unwrap();
    let all: Vec<usize> = (0..model.vocabulary().len()).collect();
    let dense = model.probability_matrix().unwrap();
    assert_eq!(model.submatrix(&all, &all, true).unwrap(), dense);
    assert_eq!(model.submatrix(&all, &all, false).unwrap(), model.counts_matrix().unwrap());
    // A window keeps the full row's denominator: P(documentos | meus) stays 4/7.
    let meus = model.word_index("meus").unwrap();
    let documentos = model.word_index("documentos").unwrap();
    let window = model.submatrix(&[meus], &[documentos], true).unwrap();
    close_all("meus → documentos", &window.row(0), &[4.0 / 7.0]);
    let counts = model.word_counts();
    assert_eq!(counts[model.word_index("<START>").unwrap()], 8.0);
    assert_eq!(counts[meus], 7.0);
    let top = model.frequent_words(3);
    let words: Vec<&str> = top.iter().map(|&i| model.vocabulary()[i].as_str()).collect();
    assert_eq!(words, ["<START>", "mostre", "meus"], "in vocabulary order");
    assert_eq!(model.frequent_words(100).len(), 26);
}

#[test]
fn one_hot_lookup_as_a_matrix_product_gives_the_meus_row() {
    let model = ngram_preset("tres-comandos").unwrap().build().unwrap();
    let meus = model.row_of(&["meus"]).unwrap();
    let job = atencao::core::executor::MatmulJob { a: model.one_hot(meus).unwrap(), b: model.probability_matrix().unwrap() };
    close_all("h_meus · T", &cpu(&job).row(0), &[0.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, 0.0]);
}

// ---------------------------------------------------------------------------------------
// sparsity: |V|^N and Zipf
// ---------------------------------------------------------------------------------------

#[test]
fn explosion_in_portuguese_notation_and_zipf_on_the_eight_documents() {
    let v = 50_000;
    let shown: Vec<String> = (2..=4).map(|n| format_scientific(possible_ngrams(v, n), 3)).collect();
    assert_eq!(shown, ["2,5 × 10⁹", "1,25 × 10¹⁴", "6,25 × 10¹⁸"]);
    let preset = ngram_preset("oito-documentos").unwrap();
    let opts = preset.options();
    let docs: Vec<Vec<String>> = preset
        .documents
        .iter()
        .map(|d| atencao::core::sequence::tokenize_words(d, &opts.tokenizer, true))
        .collect();
    let ranked = rank_frequencies(&docs);
    assert_eq!(ranked[0], ("meus".to_string(), 7));
    assert_eq!(ranked.iter().map(|r| r.1).sum::<usize>(), docs.iter().map(Vec::len).sum::<usize>());
    let freqs: Vec<usize> = ranked.iter().map(|r| r.1).collect();
    let s = fit_zipf_exponent(&freqs).unwrap();
    assert!(s > 0.3 && s < 1.5, "s = {s}");
}

// ---------------------------------------------------------------------------------------
// votes: masked votes and scores as products
// ---------------------------------------------------------------------------------------

#[test]
fn vote_scores_job_matches_the_vote_table_and_the_golden_scores() {
    let model = vote_preset("log-programa-bateria").unwrap().train().unwrap();
    let table = model.vote_table("Verifique o log do programa e descubra se ele").unwrap();
    let ones = vec![1.0; table.previous.len()];
    let out = cpu(&VoteScoresJob { votes: table.votes.clone(), mask: ones.clone() });
    assert_eq!(table.columns, ["foi", "acabou"]);
    close_all("foi 5, acabou 3", &out.scores, &[5.0, 3.0]);
    let keep = table.mask_keeping(&["programa", "bateria"]);
    let out = cpu(&VoteScoresJob { votes: table.votes.clone(), mask: keep.clone() });
    close_all("masked scores", &out.scores, &table.scores(Some(&keep)).unwrap());
    assert_eq!(out.masked, table.masked_votes(&keep).unwrap());
    // Continuous weights: half of every shared feature.
    let half: Vec<f32> = table.previous.iter().map(|w| if w == "programa" || w == "do" { 1.0 } else { 0.5 }).collect();
    let out = cpu(&VoteScoresJob { votes: table.votes.clone(), mask: half });
    close_all("half-weighted", &out.scores, &[2.0 + 1.5, 1.5]);
    // The dilution meter: 5 − 3 = 2 without a mask, 1 − 0 with it.
    let ranking = table.ranking(None).unwrap();
    assert_eq!(winning_margin(&ranking), Some(2.0));
    assert_eq!(winning_margin(&table.ranking(Some(&keep)).unwrap()), Some(1.0));
    assert_eq!(winning_margin(&[]), None);
    // A one-word prefix has no earlier word: an empty table, no product, no panic.
    let empty = model.vote_table("ele").unwrap();
    let out = cpu(&VoteScoresJob { votes: empty.votes.clone(), mask: vec![] });
    assert!(out.scores.is_empty());
    assert!(block_on_ready(VoteScoresJob { votes: table.votes.clone(), mask: vec![2.0; ones.len()] }.run(&Cpu)).is_err());
}

#[test]
fn prestando_e3_test_a_with_the_article_mask_gives_its_one_to_one() {
    // The article's 1,0 / 1,0 is test A with only {programa, foi} enabled; 3,5 / 1,5 without.
    let model = vote_preset("cinco-documentos").unwrap().train().unwrap();
    let table = model.vote_table("Verifique se o programa foi executado").unwrap();
    let col = |w: &str| table.columns.iter().position(|c| c == w).unwrap();
    let all = cpu(&VoteScoresJob { votes: table.votes.clone(), mask: vec![1.0; table.previous.len()] });
    assert!((all.scores[col("por")] - 3.5).abs() < TOL && (all.scores[col("com")] - 1.5).abs() < TOL, "{:?}", all.scores);
    let keep = table.mask_keeping(&["programa", "foi"]);
    let masked = cpu(&VoteScoresJob { votes: table.votes.clone(), mask: keep });
    assert!((masked.scores[col("por")] - 1.0).abs() < TOL && (masked.scores[col("com")] - 1.0).abs() < TOL);
}

// ---------------------------------------------------------------------------------------
// masking with embeddings (E4) and the FFN detector (E6) as jobs
// ---------------------------------------------------------------------------------------

fn e4_job(mode: MaskMode) -> MaskedQueryJob {
    let p = masked_embeddings_example();
    MaskedQueryJob { x: p.x, w_q: p.w_q, w_k: p.w_k, w_v: p.w_v, t: p.t, mask: p.mask, mode }
}

#[test]
fn masked_query_job_gives_the_corrected_e4_numbers() {
    let out = cpu(&e4_job(MaskMode::Additive));
    close_all("q4", &out.q, &[0.18, 0.31, 0.19]);
    close_all("s4", &out.scores, &[0.03995, 0.04659, 0.10456, 0.03083, 0.08412]);
    close_all("α additive", &out.weights, &[0.32135, 0.0, 0.34279, 0.0, 0.33586]);
    close_all("c4", &out.context, &[0.18879, 0.20173, 0.19456]);
    assert_eq!(out.masked_scores[1], f32::NEG_INFINITY);
    close_all("α multiplicative", &cpu(&e4_job(MaskMode::Multiplicative)).weights, &[0.19867, 0.19089, 0.21192, 0.19089, 0.20764]);
    close_all("α unmasked", &cpu(&e4_job(MaskMode::Unmasked)).weights, &[0.19571, 0.19702, 0.20878, 0.19394, 0.20455]);
    let p = masked_embeddings_example();
    let reference = masked_query_attention(&p.x, &p.w_q, &p.w_k, &p.w_v, p.t, &p.mask, MaskMode::Additive).unwrap();
    assert_eq!(reference, out);
    let mut bad = e4_job(MaskMode::Additive);
    bad.t = 5;
    assert!(block_on_ready(bad.run(&Cpu)).unwrap_err().to_string().contains("não existe"));
    let mut bad = e4_job(MaskMode::Additive);
    bad.w_v = Matrix::zeros(3, 3);
    assert!(block_on_ready(bad.run(&Cpu)).is_err());
}

#[test]
fn ffn_layer_job_matches_forward_and_the_truth_table() {
    let f = FfnExample::article();
    let one = Matrix::from_rows(&[[1.0, 0.0, 1.0, 1.0]]).unwrap();
    let out = cpu(&f.layer_job(one, Activation::Relu).unwrap());
    close_all("pre", &out.pre_activation.row(0), &[1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0]);
    close_all("post", &out.post_activation.row(0), &f.forward().unwrap().post_activation);
    let inputs = f.truth_table_inputs().unwrap();
    assert_eq!(inputs.shape(), (8, 4));
    let table = cpu(&f.layer_job(inputs, Activation::Relu).unwrap());
    for (r, (input, trace)) in f.truth_table().unwrap().iter().enumerate() {
        assert_eq!(table.post_activation.row(r), trace.post_activation, "{input:?}");
    }
    // GeLU leaks a little below zero: [1, 0, 0, 1] puts −1 into neuron 7, GeLU(−1) ≈ −0,1588.
    let leak = cpu(&f.layer_job(Matrix::from_rows(&[[1.0, 0.0, 0.0, 1.0]]).unwrap(), Activation::Gelu).unwrap());
    assert!((leak.post_activation.get(0, 7) + 0.1588).abs() < 1e-3, "{:?}", leak.post_activation.row(0));
    // The grid edits W1 as the article's rows (8 × 4).
    assert_eq!(f.with_neuron_rows(&f.neuron_rows()).unwrap(), f);
    assert!(f.with_neuron_rows(&Matrix::zeros(4, 8)).is_err());
}

// ---------------------------------------------------------------------------------------
// The same jobs on the GPU (skipped without an adapter)
// ---------------------------------------------------------------------------------------

#[test]
fn widget_jobs_agree_on_gpu_and_cpu() {
    let Some(gpu) = gpu() else { return };
    let run = |job: &ConvergenceJob| pollster::block_on(job.run(&gpu)).unwrap();
    let job = ConvergenceJob { chain: MarkovChain::weather(), steps: 12 };
    for (g, c) in run(&job).iter().zip(cpu(&job)) {
        assert_same("convergence", g, &c);
    }
    let model = vote_preset("log-programa-bateria").unwrap().train().unwrap();
    let table = model.vote_table("Verifique o log da bateria e descubra se ele").unwrap();
    let job = VoteScoresJob { votes: table.votes.clone(), mask: table.mask_keeping(&["bateria", "o"]) };
    let (g, c) = (pollster::block_on(job.run(&gpu)).unwrap(), cpu(&job));
    assert_same("masked votes", &g.masked, &c.masked);
    close_all("scores", &g.scores, &c.scores);
    for mode in [MaskMode::Additive, MaskMode::Multiplicative, MaskMode::Unmasked] {
        let job = e4_job(mode);
        let (g, c) = (pollster::block_on(job.run(&gpu)).unwrap(), cpu(&job));
        close_all(&format!("{mode:?} weights"), &g.weights, &c.weights);
        close_all(&format!("{mode:?} context"), &g.context, &c.context);
    }
    let f = FfnExample::article();
    for activation in [Activation::Relu, Activation::Gelu] {
        let job = f.layer_job(f.truth_table_inputs().unwrap(), activation).unwrap();
        let (g, c) = (pollster::block_on(job.run(&gpu)).unwrap(), cpu(&job));
        assert_same("ffn post", &g.post_activation, &c.post_activation);
    }
}
