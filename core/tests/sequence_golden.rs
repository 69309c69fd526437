#![cfg(not(target_arch = "wasm32"))]
//! The worked examples of "modelagem-de-sequencias" (../shared/spec/2-modelagem-de-sequencias.md)
//! and "prestando-atencao" (../shared/spec/3-prestando-atencao.md), section 3 of each: Markov
//! chains, N-gram matrices, per-document vectors, likelihood ratios, skip-pair votes, masks,
//! attention and the FFN example. Where an article is wrong the test asserts the corrected
//! value and says what the article printed and why. A last part checks that odd inputs
//! (empty, one word, dead ends, NaN, a 1 MB corpus) never panic nor hang.

use std::time::Instant;

use atencao_core::attention::attention_trace;
use atencao_core::executor::block_on_ready;
use atencao_core::rng::Rng;
use atencao_core::sequence::document::{
    compare_documents, likelihood_ratios, nonzero_vector, pair_vector, triples, FlattenMode,
};
use atencao_core::sequence::ffn_example::FfnExample;
use atencao_core::sequence::markov::{normalize_rows, validate_stochastic, MarkovChain};
use atencao_core::sequence::masking::{hadamard, masked_query_attention, masked_softmax, MaskMode};
use atencao_core::sequence::ngram::{NgramModel, NgramOptions, StopReason, END, START};
use atencao_core::sequence::presets::{
    self, masked_embeddings_example, ngram_preset, three_word_attention, vote_preset, ARTICLE_MASKED_SCORES,
};
use atencao_core::sequence::sparsity::{possible_ngrams, possible_ngrams_exact, sparsity_table};
use atencao_core::sequence::votes::{SkipPairModel, VoteTable};
use atencao_core::text::tokenizer::{tokenize, TokenizerOptions};
use atencao_core::{Cpu, Matrix};

/// Golden values are printed with 4 decimals: allow the rounding plus f32 error.
const TOL: f32 = 1e-4;

fn close(name: &str, got: f32, want: f32) {
    assert!((got - want).abs() < TOL, "{name}: got {got}, want {want}");
}

fn close_all(name: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{name}: length\n got  {got:?}\n want {want:?}");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() < TOL, "{name}[{i}]: got {g}, want {w}\n got  {got:?}\n want {want:?}");
    }
}

fn close_matrix(name: &str, got: &Matrix, want: &[&[f32]]) {
    let want = Matrix::from_rows(want).unwrap();
    assert_eq!(got.shape(), want.shape(), "{name}: shape");
    let diff = got.max_abs_diff(&want).unwrap();
    assert!(diff < TOL, "{name}: max |diff| = {diff}\n got  {:?}\n want {:?}", got.to_rows(), want.to_rows());
}

fn p(model: &NgramModel, from: &str, to: &str) -> f32 {
    let row = model.row_of(&[from]).unwrap_or_else(|| panic!("no row {from}"));
    model.probability(row, model.word_index(to).unwrap_or_else(|| panic!("no word {to}")))
}

fn row_distribution(model: &NgramModel, from: &str) -> Vec<(String, f32)> {
    model.next_distribution(model.row_of(&[from]).unwrap())
}

fn ranking(table: &VoteTable, mask: Option<&[f32]>) -> Vec<(String, f32)> {
    table.ranking(mask).unwrap()
}

fn assert_ranking(name: &str, got: &[(String, f32)], want: &[(&str, f32)]) {
    assert_eq!(got.len(), want.len(), "{name}: {got:?}");
    for ((gw, gs), (ww, ws)) in got.iter().zip(want) {
        assert_eq!(gw, ww, "{name}: {got:?}");
        close(&format!("{name} {ww}"), *gs, *ws);
    }
}

fn example_1() -> NgramModel {
    ngram_preset("tres-comandos").unwrap().build().unwrap()
}

fn example_2(lowercase: bool) -> NgramModel {
    let preset = ngram_preset("oito-documentos").unwrap();
    let mut options = preset.options();
    options.tokenizer.lowercase = lowercase;
    NgramModel::build(preset.documents, &options).unwrap()
}

// ---------------------------------------------------------------------------------------
// modelagem-de-sequencias: Markov weather
// ---------------------------------------------------------------------------------------

#[test]
fn weather_chain_steps_and_stationary_distribution() {
    let w = MarkovChain::weather();
    assert_eq!(w.states(), ["sol", "chuva"]);
    close_matrix("P", w.transition(), &[&[0.7, 0.3], &[0.5, 0.5]]);
    let sun = w.one_hot(0).unwrap();
    close_all("π1", &w.step(&sun).unwrap(), &[0.7, 0.3]);
    close_all("π2", &w.distribution_after(&sun, 2).unwrap(), &[0.64, 0.36]);
    close_matrix("P²", &w.power(2), &[&[0.64, 0.36], &[0.6, 0.4]]);
    let path = w.distribution_path(&sun, 30).unwrap();
    assert_eq!(path.len(), 31);
    close_all("π30", &path[30], &[0.625, 0.375]);
    // Not in the article: the stationary distribution (5/8, 3/8).
    let s = w.stationary();
    assert!(s.converged);
    close_all("π", &s.distribution, &[0.625, 0.375]);
}

#[test]
fn weather_sampler_is_seeded_and_visits_approach_the_stationary_distribution() {
    let w = MarkovChain::weather();
    let a = w.sample_path(0, 20_000, &mut Rng::new(42)).unwrap();
    let b = w.sample_path(0, 20_000, &mut Rng::new(42)).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.len(), 20_001);
    let f = w.visit_frequencies(&a);
    assert!((f[0] - 0.625).abs() < 0.02 && (f[1] - 0.375).abs() < 0.02, "{f:?}");
}

// ---------------------------------------------------------------------------------------
// modelagem-de-sequencias, Example 1: three commands
// ---------------------------------------------------------------------------------------

#[test]
fn example_1_transition_matrix_table_1() {
    let m = example_1();
    assert_eq!(
        m.vocabulary(),
        ["mostre", "me", "meus", "minhas", "diretórios", "arquivos", "fotos", "por", "favor"]
    );
    let (t, third) = (2.0 / 3.0, 1.0 / 3.0);
    close_matrix(
        "T",
        &m.probability_matrix().unwrap(),
        &[
            &[0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            &[0.0, 0.0, t, third, 0.0, 0.0, 0.0, 0.0, 0.0],
            &[0.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, 0.0],
            &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
            &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0],
            &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0],
            &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0],
            &[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
            &[0.0; 9],
        ],
    );
    close_matrix(
        "counts of 'me'",
        &m.counts_matrix().unwrap().first_rows(2),
        &[&[0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], &[0.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]],
    );
}

#[test]
fn example_1_one_hot_row_lookup() {
    let m = example_1();
    let row = m.row_of(&["meus"]).unwrap();
    assert_eq!(m.one_hot(row).unwrap().row(0), [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    let r = m.lookup(row).unwrap();
    assert_eq!(r.shape(), (1, 9));
    close_all("h_meus × T", &r.row(0), &[0.0, 0.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, 0.0]);
}

#[test]
fn example_1_with_end_marker_favor_ends() {
    let preset = ngram_preset("tres-comandos").unwrap();
    let options = NgramOptions { end: true, ..preset.options() };
    let m = NgramModel::build(preset.documents, &options).unwrap();
    assert_eq!(m.vocabulary().last().unwrap(), END);
    close("P(<END> | favor)", p(&m, "favor", END), 1.0);
    // Every command has probability 1 · 2/3 · 1/2 · 1 · 1 · 1 = 1/3 from "mostre" on (the
    // article's "1/3 each"), except "minhas fotos": 1 · 1/3 · 1 · 1 · 1 · 1.
    let s = m.sentence_probability("Mostre-me meus diretórios, por favor.").unwrap();
    close("P(doc 1)", s.probability as f32, 1.0 / 3.0);
    let s = m.sentence_probability("Mostre-me minhas fotos, por favor.").unwrap();
    close("P(doc 3)", s.probability as f32, 1.0 / 3.0);
    close("log P(doc 3)", s.log_probability as f32, (1.0f32 / 3.0).ln());
}

#[test]
fn example_1b_per_document_vectors_non_zero_only_vs_full() {
    let m = example_1();
    let t1 = triples(&m, 0);
    let want =
        [("mostre", "me"), ("me", "meus"), ("meus", "diretórios"), ("diretórios", "por"), ("por", "favor")];
    assert_eq!(t1.len(), 5);
    for ((from, to, prob), (wf, wt)) in t1.iter().zip(want) {
        assert_eq!((from.as_str(), to.as_str()), (wf, wt));
        close("T_1", *prob, 1.0);
    }
    close_matrix(
        "T_1 row meus",
        &m.document_matrix(0).unwrap().select_columns(&[4, 5]).first_rows(3),
        &[&[0.0, 0.0], &[0.0, 0.0], &[1.0, 0.0]],
    );
    // The article's code keeps only the non-zero values: every document becomes 1/√5 × 5.
    for d in 0..3 {
        close_all("listing-2 vector", &nonzero_vector(&m, d), &[0.447214; 5]);
    }
    // …so every pair looks identical (erratum E6).
    let c = compare_documents(&m, FlattenMode::NonZeroOnly).unwrap();
    close_matrix("cos non-zero only", &c.cosine, &[&[1.0; 3], &[1.0; 3], &[1.0; 3]]);
    // Flattening the full matrix compares the same cell across documents.
    let c = compare_documents(&m, FlattenMode::Full).unwrap();
    close_matrix("cos full", &c.cosine, &[&[1.0, 0.6, 0.4], &[0.6, 1.0, 0.4], &[0.4, 0.4, 1.0]]);
    close_matrix(
        "euclid full",
        &c.euclidean,
        &[&[0.0, 0.8944, 1.0954], &[0.8944, 0.0, 1.0954], &[1.0954, 1.0954, 0.0]],
    );
    // Approach 2: a fixed list of transitions, the same for every document.
    let pairs = [("meus", "diretórios"), ("meus", "arquivos"), ("minhas", "fotos")];
    assert_eq!(pair_vector(&m, 0, &pairs), [1.0, 0.0, 0.0]);
    assert_eq!(pair_vector(&m, 2, &pairs), [0.0, 0.0, 1.0]);
}

// ---------------------------------------------------------------------------------------
// modelagem-de-sequencias, Example 2: eight documents with <START>
// ---------------------------------------------------------------------------------------

#[test]
fn example_2_vocabulary_and_start_row() {
    let m = example_2(true);
    assert_eq!(
        m.vocabulary(),
        [
            START,
            "mostre",
            "me",
            "meus",
            "documentos",
            "importantes",
            "arquivos",
            "recentes",
            "por",
            "favor",
            "financeiros",
            "minhas",
            "fotos",
            "favoritas",
            "urgentemente",
            "preciso",
            "ver",
            "de",
            "trabalho",
            "projeto",
            "imediatamente",
            "encontre",
            "fiscais",
            "gostaria",
            "pessoais",
            "agora",
        ]
    );
    for (to, want) in [("mostre", 0.5), ("por", 0.25), ("preciso", 0.125), ("gostaria", 0.125)] {
        close(&format!("P({to} | <START>)"), p(&m, START, to), want);
    }
}

#[test]
fn example_2_meus_row_corrected() {
    let m = example_2(true);
    // The article prints documentos 4/8, arquivos 3/8, fotos 1/8: "meus" occurs 7 times and
    // never before "fotos" (doc 4 says "minhas fotos"), erratum E1.
    close("P(documentos | meus)", p(&m, "meus", "documentos"), 4.0 / 7.0);
    close("P(documentos | meus) 4 dp", p(&m, "meus", "documentos"), 0.5714);
    close("P(arquivos | meus)", p(&m, "meus", "arquivos"), 0.4286);
    close("P(fotos | meus)", p(&m, "meus", "fotos"), 0.0);
}

#[test]
fn example_2_full_corpus_matrix() {
    let m = example_2(true);
    for to in ["importantes", "financeiros", "de", "fiscais"] {
        close(&format!("P({to} | documentos)"), p(&m, "documentos", to), 0.25);
    }
    close("P(me | mostre)", p(&m, "mostre", "me"), 0.6);
    close("P(meus | mostre)", p(&m, "mostre", "meus"), 0.4);
    close("P(meus | me)", p(&m, "me", "meus"), 2.0 / 3.0);
    close("P(minhas | me)", p(&m, "me", "minhas"), 1.0 / 3.0);
    for to in ["recentes", "de", "pessoais"] {
        close(&format!("P({to} | arquivos)"), p(&m, "arquivos", to), 1.0 / 3.0);
    }
    for to in ["trabalho", "projeto", "ver"] {
        close(&format!("P({to} | de)"), p(&m, "de", to), 1.0 / 3.0);
    }
    // Divided by the row sum (the article's code). Its formula divides by occurrences and gives
    // 1/3 each, since one of the three "favor" ends a document (erratum E7).
    close("P(mostre | favor)", p(&m, "favor", "mostre"), 0.5);
    close("P(encontre | favor)", p(&m, "favor", "encontre"), 0.5);
    for (from, to) in [
        ("recentes", "por"),
        ("por", "favor"),
        ("minhas", "fotos"),
        ("fotos", "favoritas"),
        ("favoritas", "urgentemente"),
        ("preciso", "ver"),
        ("ver", "meus"),
        ("projeto", "imediatamente"),
        ("encontre", "meus"),
        ("gostaria", "de"),
        ("pessoais", "agora"),
    ] {
        close(&format!("P({to} | {from})"), p(&m, from, to), 1.0);
    }
    for word in
        ["importantes", "financeiros", "urgentemente", "trabalho", "imediatamente", "fiscais", "agora"]
    {
        assert!(row_distribution(&m, word).is_empty(), "{word} has no successor");
    }
    let t = m.probability_matrix().unwrap();
    assert_eq!(t.shape(), (26, 26));
    for r in 0..26 {
        let sum: f32 = t.row(r).iter().sum();
        assert!(sum.abs() < TOL || (sum - 1.0).abs() < TOL, "row {r} sums {sum}");
    }
}

#[test]
fn example_2_document_matrices_t1_and_t3() {
    let m = example_2(true);
    let labels = |d| triples(&m, d);
    let t1 = labels(0);
    let want1 = [
        (START, "mostre"),
        ("mostre", "me"),
        ("me", "meus"),
        ("meus", "documentos"),
        ("documentos", "importantes"),
    ];
    assert_eq!(t1.iter().map(|(f, t, _)| (f.as_str(), t.as_str())).collect::<Vec<_>>(), want1);
    assert!(t1.iter().all(|(_, _, p)| *p == 1.0));
    // The article writes "Por" and "Mostre" here while lowercasing elsewhere: all lowercase.
    let t3 = labels(2);
    let mut got3: Vec<(&str, &str)> = t3.iter().map(|(f, t, _)| (f.as_str(), t.as_str())).collect();
    got3.sort();
    let mut want3 = vec![
        (START, "por"),
        ("por", "favor"),
        ("favor", "mostre"),
        ("mostre", "meus"),
        ("meus", "documentos"),
        ("documentos", "financeiros"),
    ];
    want3.sort();
    assert_eq!(got3, want3);
    assert!(t3.iter().all(|(_, _, p)| *p == 1.0));
}

#[test]
fn example_2_likelihood_ratios_corrected() {
    // The article prints v1* = [1/0.50, 1/0.8, 1/0.50, …] = [2.0, 1.25, 2.0, …]: P_corpus(me | mostre)
    // is 3/5 = 0.6 (never 0.8) and P_corpus(documentos | meus) is 4/7 (erratum E2).
    let m = example_2(true);
    let v = likelihood_ratios(&m, 0);
    let contexts: Vec<(&str, &str)> = v.iter().map(|r| (r.context.as_str(), r.next.as_str())).collect();
    assert_eq!(
        contexts,
        [
            (START, "mostre"),
            ("mostre", "me"),
            ("me", "meus"),
            ("meus", "documentos"),
            ("documentos", "importantes")
        ]
    );
    close_all("v1*", &v.iter().map(|r| r.ratio).collect::<Vec<_>>(), &[2.0, 1.6667, 1.5, 1.75, 4.0]);
    close_all("P_corpus", &v.iter().map(|r| r.corpus).collect::<Vec<_>>(), &[0.5, 0.6, 0.6667, 0.5714, 0.25]);
    // Keeping case, "Mostre" (4×, 3 before "me") and "mostre" are different words.
    let m = example_2(false);
    let v = likelihood_ratios(&m, 0);
    assert_eq!(v[1].context, "Mostre");
    close_all(
        "v1* case kept",
        &v.iter().map(|r| r.ratio).collect::<Vec<_>>(),
        &[2.0, 1.3333, 1.5, 1.75, 4.0],
    );
}

// ---------------------------------------------------------------------------------------
// modelagem-de-sequencias, Example 3: skip pairs (ele foi / ele acabou)
// ---------------------------------------------------------------------------------------

fn example_3() -> SkipPairModel {
    vote_preset("log-programa-bateria").unwrap().train().unwrap()
}

#[test]
fn example_3_tokens_and_features() {
    let preset = vote_preset("log-programa-bateria").unwrap();
    let opts = preset.tokenizer();
    assert_eq!(tokenize(preset.documents[0], &opts).len(), 13);
    assert_eq!(tokenize(preset.documents[1], &opts).len(), 12);
    let m = example_3();
    assert_eq!(m.feature_count(), 93);
    // Shared features split their vote; distinctive ones vote for one word.
    close("Voto(foi | se, ele)", m.vote("se", "ele", "foi"), 0.5);
    close("Voto(acabou | se, ele)", m.vote("se", "ele", "acabou"), 0.5);
    close("Voto(foi | programa, ele)", m.vote("programa", "ele", "foi"), 1.0);
    close("Voto(acabou | programa, ele)", m.vote("programa", "ele", "acabou"), 0.0);
}

#[test]
fn example_3_executado_prefix_and_masks() {
    // The article's code run on s1 up to "executado": every feature votes "por" (E8: the choice
    // is degenerate; the real decision is after "ele").
    let m = example_3();
    let t = m.vote_table("Verifique o log do programa e descubra se ele foi executado").unwrap();
    assert_eq!(t.previous.len(), 10);
    assert_ranking("no mask", &ranking(&t, None), &[("por", 10.0)]);
    let keep = t.mask_keeping(&["programa"]);
    assert_ranking("{programa}", &ranking(&t, Some(&keep)), &[("por", 1.0)]);
    let keep = t.mask_keeping(&["bateria"]);
    assert!(ranking(&t, Some(&keep)).is_empty(), "bateria is not in the prefix: no prediction");
}

#[test]
fn example_3_ele_prefix_dilution_5_vs_3() {
    // The article's Figure 5 hypothetical sums to 5.5 (E4); its code gives these.
    let m = example_3();
    let t1 = m.vote_table("Verifique o log do programa e descubra se ele").unwrap();
    assert_ranking("s1", &ranking(&t1, None), &[("foi", 5.0), ("acabou", 3.0)]);
    let t2 = m.vote_table("Verifique o log da bateria e descubra se ele").unwrap();
    assert_ranking("s2", &ranking(&t2, None), &[("acabou", 5.0), ("foi", 3.0)]);
    let keep = t1.mask_keeping(&["programa", "bateria"]);
    assert_ranking("s1 masked", &ranking(&t1, Some(&keep)), &[("foi", 1.0)]);
    let keep = t2.mask_keeping(&["programa", "bateria"]);
    assert_ranking("s2 masked", &ranking(&t2, Some(&keep)), &[("acabou", 1.0)]);
    // Accumulated votes: after the 3 shared words 1.5/1.5, after "do" and "programa" 3.5/1.5 …
    assert_eq!(t1.columns, ["foi", "acabou"]);
    let acc = t1.cumulative();
    close_all("after verifique o log", &acc.row(2), &[1.5, 1.5]);
    close_all("after do programa", &acc.row(4), &[3.5, 1.5]);
    close_all("total", &acc.row(7), &[5.0, 3.0]);
    // Masking as a Hadamard product: rows of the vote matrix times the mask.
    let masked = t1.masked_votes(&keep).unwrap();
    close_all("masked row programa", &masked.row(4), &[1.0, 0.0]);
    close_all("masked row se", &masked.row(7), &[0.0, 0.0]);
}

// ---------------------------------------------------------------------------------------
// Example 4 (modelagem) = E6 (prestando): the FFN feature detector
// ---------------------------------------------------------------------------------------

#[test]
fn ffn_feature_detector_and_and_neurons() {
    let f = FfnExample::article();
    assert_eq!(f.w1.shape(), (4, 8));
    let t = f.forward().unwrap();
    close_all("pre-ReLU", &t.pre_activation, &[1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0]);
    close_all("post-ReLU", &t.post_activation, &[1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0]);
    assert_eq!(t.active, ["feat_bateria", "feat_executado", "feat_bias", "feat_bat_exec"]);
    // The article's comment says "0+1+1−1" for row 7; it is 1+1−1 (erratum E5).
    let t = f.forward_input(&[0.0, 1.0, 1.0, 1.0]).unwrap();
    close_all("programa+executado", &t.post_activation, &[0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    let t = f.forward_input(&[1.0, 0.0, 0.0, 1.0]).unwrap();
    close("row 7 pre", t.pre_activation[7], -1.0);
    close("row 7 post", t.post_activation[7], 0.0);
    // Truth table: neuron 6 is bateria AND executado, neuron 7 programa AND executado.
    let table = f.truth_table().unwrap();
    assert_eq!(table.len(), 8);
    for (input, trace) in &table {
        let and = |a: f32, b: f32| if a == 1.0 && b == 1.0 { 1.0 } else { 0.0 };
        assert_eq!(trace.post_activation[6], and(input[0], input[2]), "{input:?}");
        assert_eq!(trace.post_activation[7], and(input[1], input[2]), "{input:?}");
    }
}

// ---------------------------------------------------------------------------------------
// prestando-atencao, E1: N-gram explosion
// ---------------------------------------------------------------------------------------

#[test]
fn e1_ngram_explosion_for_50000_words() {
    let v = presets::ARTICLE_VOCABULARY_SIZE;
    for (n, want) in [(2, 2.5e9), (3, 1.25e14), (4, 6.25e18)] {
        let got = possible_ngrams(v, n);
        assert!((got / want - 1.0).abs() < 1e-12, "|V|^{n}: {got}");
    }
    assert_eq!(possible_ngrams_exact(v, 4), Some(6_250_000_000_000_000_000));
    assert_eq!(possible_ngrams_exact(v, 9), None);
    // Observed against possible on the eight documents (lowercase, hyphens split): 25 words.
    let opts = TokenizerOptions::default();
    let docs: Vec<Vec<String>> =
        presets::EIGHT_DOCUMENTS.iter().map(|d| tokenize(&d.replace('-', " "), &opts)).collect();
    let table = sparsity_table(&docs, 3);
    assert_eq!(table[0].observed, 25);
    assert_eq!(table[0].possible, 25.0);
    assert_eq!(table[1].possible, 625.0);
    assert_eq!(table[1].occurrences, 41);
    assert!(table[1].observed < table[1].occurrences && table[2].coverage < table[1].coverage);
}

// ---------------------------------------------------------------------------------------
// prestando-atencao, E2: two documents, weight 0.5
// ---------------------------------------------------------------------------------------

#[test]
fn e2_two_documents_votes() {
    let m = vote_preset("log-ele-ela").unwrap().train().unwrap();
    assert_eq!(m.vocabulary().len(), 17);
    let exec = m.triples_with_current("executado");
    let prev: Vec<&str> = exec.iter().map(|t| t.previous.as_str()).collect();
    assert_eq!(prev, ["verifique", "o", "log", "do", "programa", "e", "descubra", "se", "ele", "foi"]);
    assert!(exec.iter().all(|t| t.next == "por" && (t.count - 0.5).abs() < TOL));
    let acabou = m.triples_with_current("acabou");
    let prev: Vec<&str> = acabou.iter().map(|t| t.previous.as_str()).collect();
    assert_eq!(prev, ["verifique", "o", "log", "da", "bateria", "e", "descubra", "se", "ela"]);
    close("Voto(por | programa, executado)", m.vote("programa", "executado", "por"), 1.0);
    close("Voto(favor | programa, executado)", m.vote("programa", "executado", "favor"), 0.0);
    // (bateria, executado) never occurs: the article's low vote for it is hypothetical.
    assert!(m.votes_of("bateria", "executado").is_empty());
    let t = m.vote_table("Verifique o log do programa e descubra se ele foi executado").unwrap();
    assert_ranking("D1 prefix", &ranking(&t, None), &[("por", 10.0)]);
    let t = m.vote_table("Verifique o log da bateria e descubra se ela acabou").unwrap();
    assert_ranking("D2 prefix", &ranking(&t, None), &[("por", 9.0)]);
}

// ---------------------------------------------------------------------------------------
// prestando-atencao, E3: five documents, weight 0.2 (corrected)
// ---------------------------------------------------------------------------------------

#[test]
fn e3_five_documents_counts_votes_and_tests_corrected() {
    let preset = vote_preset("cinco-documentos").unwrap();
    let opts = preset.tokenizer();
    assert_eq!(
        tokenize(preset.documents[2], &opts),
        [
            "o",
            "programa",
            "foi",
            "executado",
            "com",
            "sucesso",
            "por",
            "isso",
            "nao",
            "precisa",
            "verificar",
            "novamente"
        ]
    );
    assert_eq!(tokenize(preset.documents[3], &opts)[3], "substituida");
    let m = preset.train().unwrap();
    assert_eq!(m.vocabulary().len(), 34);
    assert_eq!(m.feature_count(), 198);
    // The article lists 5 triples for w_t = executado; there are 13 (10 from D1, 3 from D3).
    let exec = m.triples_with_current("executado");
    assert_eq!(exec.len(), 13);
    assert!(exec.iter().all(|t| (t.count - 0.2).abs() < TOL));
    assert_eq!(
        exec.iter().filter(|t| t.next == "com").map(|t| t.previous.as_str()).collect::<Vec<_>>(),
        ["o", "programa", "foi"]
    );
    for w in ["verifique", "log", "do", "e", "descubra", "se", "ele"] {
        close(&format!("Voto(por | {w}, executado)"), m.vote(w, "executado", "por"), 1.0);
    }
    for w in ["o", "programa", "foi"] {
        close(&format!("Voto(por | {w}, executado)"), m.vote(w, "executado", "por"), 0.5);
        close(&format!("Voto(com | {w}, executado)"), m.vote(w, "executado", "com"), 0.5);
    }
    // The article claims por 1.0 / com 1.0 (a tie) and por 1.0 / com 0.0; its own code prints these.
    let a = m.vote_table(preset.prefixes[0]).unwrap();
    assert_ranking("test A", &ranking(&a, None), &[("por", 3.5), ("com", 1.5)]);
    let b = m.vote_table(preset.prefixes[1]).unwrap();
    assert_ranking("test B", &ranking(&b, None), &[("por", 3.5), ("com", 0.5)]);
    // The article's numbers are what a mask gives: the bridge into masking.
    let keep = a.mask_keeping(&["programa", "foi"]);
    assert_ranking("test A masked", &ranking(&a, Some(&keep)), &[("por", 1.0), ("com", 1.0)]);
    let keep = b.mask_keeping(&["ele"]);
    assert_ranking("test B masked", &ranking(&b, Some(&keep)), &[("por", 1.0)]);
    close_all("test B masked scores", &b.scores(Some(&keep)).unwrap(), &[1.0, 0.0]);
}

// ---------------------------------------------------------------------------------------
// prestando-atencao, E4: masking with embeddings (corrected)
// ---------------------------------------------------------------------------------------

#[test]
fn e4_masked_attention_corrected() {
    let e = masked_embeddings_example();
    let run = |mode| masked_query_attention(&e.x, &e.w_q, &e.w_k, &e.w_v, e.t, &e.mask, mode).unwrap();
    let r = run(MaskMode::Additive);
    // The article prints q4 = [0.23, 0.31, 0.21] and k0 = [0.23, 0.05, 0.22]: arithmetic slips.
    close_all("q4", &r.q, &[0.18, 0.31, 0.19]);
    close_matrix(
        "K",
        &r.k,
        &[
            &[0.18, -0.01, 0.21],
            &[0.09, 0.11, 0.16],
            &[0.21, 0.26, 0.33],
            &[0.02, 0.13, 0.05],
            &[0.21, 0.25, 0.16],
        ],
    );
    close_matrix(
        "V",
        &r.v,
        &[
            &[0.08, 0.10, 0.15],
            &[0.19, 0.07, 0.15],
            &[0.27, 0.24, 0.28],
            &[0.19, 0.03, 0.08],
            &[0.21, 0.26, 0.15],
        ],
    );
    close_all("q4·k", &r.dot, &[0.0692, 0.0807, 0.1811, 0.0534, 0.1457]);
    close_all("s4", &r.scores, &[0.03995, 0.04659, 0.10456, 0.03083, 0.08412]);
    close_all("α4, −∞ mask", &r.weights, &[0.32135, 0.0, 0.34279, 0.0, 0.33586]);
    close_all("c4", &r.context, &[0.18879, 0.20173, 0.19456]);
    assert_eq!(r.masked_scores[1], f32::NEG_INFINITY);
    // The article multiplies the scores by the mask: e⁰ = 1 keeps the masked words.
    close_all(
        "α4, ×0 mask",
        &run(MaskMode::Multiplicative).weights,
        &[0.19867, 0.19089, 0.21192, 0.19089, 0.20764],
    );
    close_all(
        "α4, unmasked",
        &run(MaskMode::Unmasked).weights,
        &[0.19571, 0.19702, 0.20878, 0.19394, 0.20455],
    );
    // With the article's own scores: its α sums to 1.2594; the right denominator is 5.3795.
    let s = ARTICLE_MASKED_SCORES;
    close_all(
        "article scores, −∞",
        &masked_softmax(&s, &e.mask, MaskMode::Additive).unwrap(),
        &[0.31828, 0.0, 0.34383, 0.0, 0.33789],
    );
    let times = masked_softmax(&s, &e.mask, MaskMode::Multiplicative).unwrap();
    close_all("article scores, ×0", &times, &[0.1999, 0.1859, 0.2160, 0.1859, 0.2123]);
    let denominator: f32 = s.iter().zip(&e.mask).map(|(s, m)| (s * m).exp()).sum();
    close("denominator", denominator, 5.3795);
}

#[test]
fn hadamard_product_of_features_and_mask() {
    let features = Matrix::from_rows(&[[0.5, 0.5], [1.0, 0.0], [0.3, 0.7]]).unwrap();
    let mask = Matrix::from_rows(&[[1.0, 1.0], [0.0, 0.0], [0.5, 0.5]]).unwrap();
    close_matrix("A∘B", &hadamard(&features, &mask).unwrap(), &[&[0.5, 0.5], &[0.0, 0.0], &[0.15, 0.35]]);
    assert!(hadamard(&features, &Matrix::zeros(2, 2)).is_err());
}

// ---------------------------------------------------------------------------------------
// prestando-atencao, E5: three-word attention
// ---------------------------------------------------------------------------------------

#[test]
fn e5_three_word_attention() {
    let t = block_on_ready(attention_trace(&Cpu, &three_word_attention())).unwrap();
    close_matrix("Q", &t.q, &[&[0.26, 0.24, -0.04], &[-0.08, 0.16, 0.33], &[0.17, 0.08, 0.36]]);
    close_matrix("K", &t.k, &[&[0.03, 0.31, 0.11], &[0.26, -0.11, 0.12], &[0.34, 0.07, 0.03]]);
    close_matrix("V", &t.v, &[&[0.24, 0.04, 0.12], &[0.10, -0.12, 0.35], &[0.45, 0.18, 0.19]]);
    let qkt = atencao_core::ops::matmul_bt(&t.q, &t.k, 1.0).unwrap();
    close_matrix(
        "QKᵀ",
        &qkt,
        &[&[0.0778, 0.0364, 0.1040], &[0.0835, 0.0012, -0.0061], &[0.0695, 0.0786, 0.0742]],
    );
    close_matrix(
        "QKᵀ/√3",
        &t.scores,
        &[&[0.0449, 0.0210, 0.0600], &[0.0482, 0.0007, -0.0035], &[0.0401, 0.0454, 0.0428]],
    );
    close_matrix(
        "A",
        &t.weights,
        &[&[0.334267, 0.326372, 0.339362], &[0.344450, 0.328466, 0.327084], &[0.332448, 0.334200, 0.333352]],
    );
    close_matrix(
        "AV",
        &t.output,
        &[&[0.265574, 0.035291, 0.218821], &[0.262702, 0.033237, 0.218443], &[0.263216, 0.033197, 0.220201]],
    );
    // The heading says "com máscara" but none is applied; with a causal mask:
    let mut inputs = three_word_attention();
    inputs.causal = true;
    let t = block_on_ready(attention_trace(&Cpu, &inputs)).unwrap();
    close_matrix(
        "A causal",
        &t.weights,
        &[&[1.0, 0.0, 0.0], &[0.5119, 0.4881, 0.0], &[0.3324, 0.3342, 0.3334]],
    );
    close_all("output row 2 causal", &t.output.row(1), &[0.1717, -0.0381, 0.2323]);
}

// ---------------------------------------------------------------------------------------
// Robustness: odd inputs never panic nor hang
// ---------------------------------------------------------------------------------------

#[test]
fn empty_corpora_are_errors_in_portuguese() {
    let opts = NgramOptions::default();
    let err = NgramModel::build(&[], &opts).unwrap_err().to_string();
    assert!(err.contains("corpus"), "{err}");
    assert!(NgramModel::build(&["", " ... ", "🙂"], &opts).is_err());
    assert!(NgramModel::build(&["a b"], &NgramOptions { context: 0, ..opts.clone() }).is_err());
    assert!(SkipPairModel::train(&[], &TokenizerOptions::default()).is_err());
    assert!(SkipPairModel::train(&[("a b c", -1.0)], &TokenizerOptions::default()).is_err());
    assert!(SkipPairModel::train(&[("a b c", f32::NAN)], &TokenizerOptions::default()).is_err());
}

#[test]
fn one_word_documents_and_dead_ends() {
    let m = NgramModel::build(&["gato", "cachorro"], &NgramOptions::default()).unwrap();
    assert!(m.transitions().is_empty());
    assert_eq!(m.probability_matrix().unwrap().to_rows(), [[0.0, 0.0], [0.0, 0.0]]);
    let s = m.sample(&mut Rng::new(1), 50);
    assert_eq!((s.words.len(), s.stop), (1, StopReason::DeadEnd));
    // One word and no markers: no transition to score.
    assert!(m.sentence_probability("gato").is_err());
    assert!(m.sentence_probability("...").is_err());
    let with_start = NgramOptions { start: true, ..NgramOptions::default() };
    let m = NgramModel::build(&["gato", "cachorro"], &with_start).unwrap();
    close("P(gato | <START>)", m.sentence_probability("Gato").unwrap().probability as f32, 0.5);
    // "favor" has no successor: sampling stops there.
    let m = example_1();
    for seed in 0..20 {
        let s = m.sample(&mut Rng::new(seed), 100);
        assert_eq!(s.stop, StopReason::DeadEnd);
        assert_eq!(s.words.first().map(String::as_str), Some("mostre"));
        assert_eq!(s.words.last().map(String::as_str), Some("favor"));
    }
    // Compare tables with a document that has no transition: zeros, not NaN.
    let m = NgramModel::build(&["gato", "o gato dorme"], &NgramOptions::default()).unwrap();
    let c = compare_documents(&m, FlattenMode::Full).unwrap();
    assert!(c.cosine.as_slice().iter().chain(c.euclidean.as_slice()).all(|v| v.is_finite()));
    assert_eq!(c.cosine.get(0, 1), 0.0);
}

#[test]
fn sampling_stops_at_end_or_max_length_and_is_seeded() {
    let opts = NgramOptions { start: true, end: true, ..NgramOptions::default() };
    let m = NgramModel::build(presets::EIGHT_DOCUMENTS, &opts).unwrap();
    for seed in 0..50 {
        let s = m.sample(&mut Rng::new(seed), 1000);
        assert_eq!(s.stop, StopReason::End);
        assert!(!s.words.iter().any(|w| w == START || w == END));
        assert_eq!(s, m.sample(&mut Rng::new(seed), 1000), "same seed, same sentence");
        // Every sampled sentence has a positive probability under the model.
        assert!(m.sentence_probability(&s.words.join(" ")).unwrap().probability > 0.0);
    }
    // A cycle with no way out: only the length cap stops it.
    let m =
        NgramModel::build(&["a b a b a"], &NgramOptions { context: 2, ..NgramOptions::default() }).unwrap();
    let s = m.sample(&mut Rng::new(3), 25);
    assert_eq!((s.words.len(), s.stop), (25, StopReason::MaxLength));
    assert_eq!(m.sample(&mut Rng::new(3), 0).words.len(), 0);
}

#[test]
fn unseen_transitions_have_probability_zero_not_nan() {
    let opts = NgramOptions { start: true, end: true, ..NgramOptions::default() };
    let m = NgramModel::build(presets::EIGHT_DOCUMENTS, &opts).unwrap();
    for text in ["meus fotos", "mostre xilofone", "xilofone", "agora mostre"] {
        let s = m.sentence_probability(text).unwrap();
        assert_eq!(s.probability, 0.0, "{text}");
        assert_eq!(s.log_probability, f64::NEG_INFINITY, "{text}");
        assert!(s.steps.iter().all(|st| st.probability.is_finite()));
    }
    let s = m.sentence_probability("Mostre-me meus documentos importantes").unwrap();
    // 4/8 · 3/5 · 2/3 · 4/7 · 1/4 · 1
    close("P(doc 1)", s.probability as f32, 0.5 * 0.6 * (2.0 / 3.0) * (4.0 / 7.0) * 0.25);
    assert_eq!(s.steps.len(), 6);
    assert_eq!(s.steps[0].context, START);
    assert_eq!(s.steps[5].word, END);
}

#[test]
fn bad_markov_matrices_are_errors_and_normalize_rows_never_gives_nan() {
    let m = |rows: &[[f32; 2]]| Matrix::from_rows(rows).unwrap();
    for (bad, what) in [
        (m(&[[0.7, 0.4], [0.5, 0.5]]), "soma"),
        (m(&[[1.5, -0.5], [0.5, 0.5]]), "negativas"),
        (m(&[[f32::NAN, 1.0], [0.5, 0.5]]), "não finito"),
        (m(&[[0.0, 0.0], [0.5, 0.5]]), "soma"),
    ] {
        let err = validate_stochastic(&bad).unwrap_err().to_string();
        assert!(err.contains(what), "{err}");
        assert!(MarkovChain::new(vec!["sol".into(), "chuva".into()], bad.clone()).is_err());
        let fixed = normalize_rows(&bad);
        assert!(fixed.as_slice().iter().all(|v| v.is_finite() && *v >= 0.0), "{:?}", fixed.to_rows());
        validate_stochastic(&fixed).unwrap();
    }
    // An all-zero row becomes a self-loop; counts become probabilities.
    close_matrix("zero row", &normalize_rows(&m(&[[0.0, 0.0], [3.0, 1.0]])), &[&[1.0, 0.0], &[0.75, 0.25]]);
    assert!(validate_stochastic(&Matrix::zeros(2, 3)).is_err());
    assert!(validate_stochastic(&Matrix::zeros(0, 0)).is_err());
    let w = MarkovChain::weather();
    assert!(w.step(&[0.5, 0.6]).is_err());
    assert!(w.step(&[1.0]).is_err());
    assert!(w.sample_path(5, 3, &mut Rng::new(0)).is_err());
    assert!(w.distribution_path(&[1.0, 0.0], usize::MAX).is_err());
}

#[test]
fn bad_masks_and_prefixes_are_errors() {
    let m = example_3();
    assert!(m.vote_table("...").is_err());
    let t = m.vote_table("ele").unwrap();
    assert!(t.previous.is_empty() && ranking(&t, None).is_empty());
    let t = m.vote_table("palavras nunca vistas").unwrap();
    assert!(ranking(&t, None).is_empty());
    assert!(t.scores(Some(&[1.0])).is_err());
    assert!(t.scores(Some(&[1.0, 2.0])).is_err());
    assert!(t.scores(Some(&[1.0, f32::NAN])).is_err());
    let e = masked_embeddings_example();
    assert!(masked_query_attention(&e.x, &e.w_q, &e.w_k, &e.w_v, 9, &e.mask, MaskMode::Additive).is_err());
    assert!(masked_query_attention(&e.x, &e.w_q, &e.w_k, &e.w_v, 4, &[1.0], MaskMode::Additive).is_err());
    // Everything masked out: uniform weights, never NaN.
    let w = masked_softmax(&[0.1, 0.2], &[0.0, 0.0], MaskMode::Additive).unwrap();
    close_all("all masked", &w, &[0.5, 0.5]);
    let f = FfnExample::article();
    assert!(f.forward_input(&[1.0, 0.0]).is_err());
    assert!(f.forward_input(&[1.0, 0.0, f32::INFINITY, 1.0]).is_err());
}

/// About 1 MB of text: words drawn from a 5 000-word vocabulary, one document per line.
fn megabyte_corpus() -> Vec<String> {
    let mut rng = Rng::new(2024);
    let words: Vec<String> = (0..5000).map(|i| format!("palavra{i}")).collect();
    let mut lines = Vec::new();
    let mut size = 0;
    while size < 1_000_000 {
        let n = 5 + rng.below(20) as usize;
        let line = (0..n)
            .map(|_| words[rng.below(words.len() as u64) as usize].as_str())
            .collect::<Vec<_>>()
            .join(" ");
        size += line.len() + 1;
        lines.push(line);
    }
    lines
}

/// Runs `f` and prints how long it took: speed is reported here (and measured in the
/// benchmarks), never asserted, so a slow or busy machine cannot fail the suite.
fn timed<T>(name: &str, f: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = f();
    eprintln!("{name}: {:?}", started.elapsed());
    out
}

#[test]
fn a_megabyte_corpus_is_handled_and_refuses_dense_matrices() {
    let lines = megabyte_corpus();
    let one_text = lines.join("\n");
    let docs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let opts = NgramOptions { start: true, end: true, ..NgramOptions::default() };
    let m = timed("bigram model", || NgramModel::build(&docs, &opts).unwrap());
    assert!(m.vocabulary().len() > 4000);
    // 5000² cells: refused with a message rather than allocated.
    let err = m.probability_matrix().unwrap_err().to_string();
    assert!(err.contains("limite"), "{err}");
    let s = timed("sample", || m.sample(&mut Rng::new(9), 200));
    assert!(!s.words.is_empty());
    assert!(m.sentence_probability(&lines[0]).unwrap().probability > 0.0);
    let ratios = timed("likelihood ratios", || likelihood_ratios(&m, 0));
    assert!(ratios.iter().all(|r| r.ratio.is_finite() && r.ratio >= 1.0));
    assert!(compare_documents(&m, FlattenMode::Full).is_err(), "too many documents for a table");
    // The whole paste as a single document, second order.
    let single = NgramOptions { context: 2, ..NgramOptions::default() };
    let m2 = timed("trigram model", || NgramModel::build(&[one_text.as_str()], &single).unwrap());
    assert!(timed("compare", || compare_documents(&m2, FlattenMode::Full)).is_ok());
    let tokens = vec![tokenize(&one_text, &TokenizerOptions::default())];
    let table = timed("sparsity", || sparsity_table(&tokens, 5));
    assert_eq!(table[0].observed, table[0].possible as usize);
    // Skip pairs are O(T²): a megabyte in one document is refused at once.
    let err = timed("skip pairs", || {
        SkipPairModel::train(&[(one_text.as_str(), 1.0)], &TokenizerOptions::default())
    })
    .unwrap_err();
    assert!(err.to_string().contains("limite"), "{err}");
}

#[test]
fn presets_are_consistent() {
    for p in presets::NGRAM_PRESETS {
        assert!(p.build().is_ok(), "{}", p.id);
        assert_eq!(ngram_preset(p.id), Some(p));
    }
    for p in presets::VOTE_PRESETS {
        assert_eq!(p.documents.len(), p.weights.len(), "{}", p.id);
        let m = p.train().unwrap();
        for prefix in p.prefixes {
            assert!(!m.vote_table(prefix).unwrap().ranking(None).unwrap().is_empty(), "{prefix}");
        }
    }
    assert!(ngram_preset("nenhum").is_none() && vote_preset("nenhum").is_none());
}
