#![cfg(not(target_arch = "wasm32"))]
// The golden values are the article's 4-decimal printouts (e.g. ln 2 = 0.6931), compared with a
// tolerance on purpose, not stand-ins for std's constants.
#![allow(clippy::approx_constant)]
//! The worked examples of "matematica-e-vetorizacao" (../shared/spec/1-matematica-e-vetorizacao.md,
//! section 3): vectors, counts, bag of words, TF, IDF, TF-IDF, cosine and search, computed by
//! the core and compared with the inventory's values. Where the article is wrong, the test
//! asserts the corrected value and says what the article printed and why it differs.
//! A second part checks that odd inputs (empty, emoji, mixed scripts, huge) never panic.

use atencao_core::text::idf::{idf, idf_vector, IdfValue, IdfVariant};
use atencao_core::text::tf::{tf_matrix, LogBase, TfVariant};
use atencao_core::text::tfidf::{cosine_matrix, rank, tf_idf};
use atencao_core::text::tokenizer::{tokenize, TokenizerOptions};
use atencao_core::text::Corpus;
use atencao_core::vectors;

/// Golden values are printed with 4 decimals: allow the rounding plus f32 error.
const TOL: f32 = 1e-4;

fn close(name: &str, got: f32, want: f32) {
    assert!((got - want).abs() < TOL, "{name}: got {got}, want {want}");
}

fn close_all(name: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{name}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() < TOL, "{name}[{i}]: got {g}, want {w}\n got  {got:?}\n want {want:?}");
    }
}

fn corpus(texts: &[&str]) -> Corpus {
    Corpus::build(texts, &TokenizerOptions::default()).unwrap()
}

/// The value of `term` in document `doc` of a documents × vocabulary matrix.
fn cell(c: &Corpus, m: &atencao_core::Matrix, doc: usize, term: &str) -> f32 {
    m.get(doc, c.term_index(term).unwrap_or_else(|| panic!("{term} not in vocabulary")))
}

fn finite(v: IdfValue) -> f32 {
    match v {
        IdfValue::Finite(x) => x,
        other => panic!("expected a finite IDF, got {other:?}"),
    }
}

fn cos(a: &[f32], b: &[f32]) -> f32 {
    vectors::cosine(a, b).unwrap().expect("both vectors are non-zero")
}

// ---------------------------------------------------------------------------------------
// Vectors and the dot product
// ---------------------------------------------------------------------------------------

#[test]
fn vector_operations() {
    assert_eq!(vectors::add(&[1.0, 2.0], &[3.0, -1.0]).unwrap(), [4.0, 1.0]);
    assert_eq!(vectors::negate(&[1.0, 2.0]), [-1.0, -2.0]);
    assert_eq!(vectors::scale(&[1.0, 2.0], 2.0), [2.0, 4.0]);
}

#[test]
fn dot_products_and_norm() {
    assert_eq!(vectors::dot(&[2.0, 5.0, 1.0], &[3.0, 1.0, 4.0]).unwrap(), 15.0);
    assert_eq!(vectors::dot(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap(), 32.0);
    close("[0,1,0]·[0.2,0.7,0.1]", vectors::dot(&[0.0, 1.0, 0.0], &[0.2, 0.7, 0.1]).unwrap(), 0.7);
    close("‖[0.2,0.7,0.1]‖ = √0.54", vectors::norm(&[0.2, 0.7, 0.1]), 0.7348);
    // One-hot vectors: equal → 1, different → 0.
    assert_eq!(vectors::dot(&[0.0, 1.0, 0.0], &[0.0, 1.0, 0.0]).unwrap(), 1.0);
    assert_eq!(vectors::dot(&[0.0, 1.0, 0.0], &[1.0, 0.0, 0.0]).unwrap(), 0.0);
}

// ---------------------------------------------------------------------------------------
// Counts and bag of words
// ---------------------------------------------------------------------------------------

#[test]
fn term_frequency_gato_preto_telhado() {
    let c = corpus(&["O gato preto subiu no telhado. O gato dorme no telhado"]);
    assert_eq!(c.documents[0].len(), 11);
    assert_eq!(c.vocabulary, ["dorme", "gato", "no", "o", "preto", "subiu", "telhado"]);
    assert_eq!(c.counts.row(0), [1.0, 2.0, 2.0, 2.0, 1.0, 1.0, 2.0]);
}

#[test]
fn word_order_is_lost() {
    let c = corpus(&["João ama Maria", "Maria ama João"]);
    assert_eq!(c.vocabulary, ["ama", "joão", "maria"]);
    assert_eq!(c.counts.row(0), [1.0, 1.0, 1.0]);
    assert_eq!(c.counts.row(1), [1.0, 1.0, 1.0]);
    close("cos", cos(&c.counts.row(0), &c.counts.row(1)), 1.0);
}

#[test]
fn carro_automovel_share_only_function_words() {
    let c = corpus(&["O carro é veloz", "O automóvel é rápido"]);
    assert_eq!(c.vocabulary, ["automóvel", "carro", "é", "o", "rápido", "veloz"]);
    let (d1, d2) = (c.counts.row(0), c.counts.row(1));
    assert_eq!(d1, [0.0, 1.0, 1.0, 1.0, 0.0, 1.0]);
    assert_eq!(d2, [1.0, 0.0, 1.0, 1.0, 1.0, 0.0]);
    assert_eq!(vectors::dot(&d1, &d2).unwrap(), 2.0);
    // The prose (L389) calls these vectors orthogonal; their cosine is 0.5, not 0.
    close("cos", cos(&d1, &d2), 0.5);
}

#[test]
fn filme_nao_negation_barely_moves_the_cosine() {
    let c = corpus(&["O filme é bom", "O filme não é bom"]);
    assert_eq!(c.vocabulary, ["bom", "é", "filme", "não", "o"]);
    let (d1, d2) = (c.counts.row(0), c.counts.row(1));
    assert_eq!(d1, [1.0, 1.0, 1.0, 0.0, 1.0]);
    assert_eq!(d2, [1.0, 1.0, 1.0, 1.0, 1.0]);
    assert_eq!(vectors::dot(&d1, &d2).unwrap(), 4.0);
    close("‖D1‖", vectors::norm(&d1), 2.0);
    close("‖D2‖", vectors::norm(&d2), 5f32.sqrt());
    close("cos", cos(&d1, &d2), 0.8944);
}

#[test]
fn bag_of_words_pair() {
    let c = corpus(&["O gato preto subiu no telhado", "O cachorro correu no gramado"]);
    assert_eq!(
        c.vocabulary,
        ["cachorro", "correu", "gato", "gramado", "no", "o", "preto", "subiu", "telhado"]
    );
    assert_eq!(c.counts.row(0), [0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0]);
    assert_eq!(c.counts.row(1), [1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]);
}

// ---------------------------------------------------------------------------------------
// TF variants
// ---------------------------------------------------------------------------------------

#[test]
fn tf_raw_and_normalized_pequeno_gato() {
    let c = corpus(&["O pequeno gato preto viu outro gato preto", "Gato"]);
    assert_eq!(c.documents[0].len(), 8);
    assert_eq!(cell(&c, &c.counts, 0, "gato"), 2.0);
    assert_eq!(cell(&c, &c.counts, 1, "gato"), 1.0);
    let tf = tf_matrix(&c.counts, TfVariant::Normalized, LogBase::E);
    close("TF(gato,D1)", cell(&c, &tf, 0, "gato"), 0.25);
    close("TF(gato,D2)", cell(&c, &tf, 1, "gato"), 1.0);
}

const THREE_DOCS: [&str; 3] = [
    "O gato preto caça o rato preto",
    "O rato branco corre do gato",
    "O cachorro late para o gato preto",
];

#[test]
fn three_documents_counts_and_tf() {
    let c = corpus(&THREE_DOCS);
    let lengths: Vec<usize> = c.documents.iter().map(Vec::len).collect();
    assert_eq!(lengths, [7, 6, 7]);
    let raw = |t: &str| (0..3).map(|d| cell(&c, &c.counts, d, t)).collect::<Vec<_>>();
    assert_eq!(raw("gato"), [1.0, 1.0, 1.0]);
    assert_eq!(raw("preto"), [2.0, 0.0, 1.0]);

    let norm = tf_matrix(&c.counts, TfVariant::Normalized, LogBase::E);
    // The article divides by 8 for D1 (2/8 = 0.25), but D1 has 7 tokens: 2/7.
    close("TF(preto,D1)", cell(&c, &norm, 0, "preto"), 0.2857);
    // The article divides by 7 for D2 (1/7 ≈ 0.143), but D2 has 6 tokens: 1/6.
    close("TF(gato,D2)", cell(&c, &norm, 1, "gato"), 0.1667);
    close("TF(preto,D3)", cell(&c, &norm, 2, "preto"), 0.1429);

    // The article's 1 + log 2 ≈ 1.301 is base 10; with ln, the base its text names, it is 1.6931.
    let log_e = tf_matrix(&c.counts, TfVariant::Log, LogBase::E);
    let log_10 = tf_matrix(&c.counts, TfVariant::Log, LogBase::Ten);
    close("log TF(preto,D1) ln", cell(&c, &log_e, 0, "preto"), 1.6931);
    close("log TF(preto,D1) log10", cell(&c, &log_10, 0, "preto"), 1.3010);

    let binary = tf_matrix(&c.counts, TfVariant::Binary, LogBase::E);
    let rato: Vec<f32> = (0..3).map(|d| cell(&c, &binary, d, "rato")).collect();
    assert_eq!(rato, [1.0, 1.0, 0.0]);

    let aug = tf_matrix(&c.counts, TfVariant::Augmented, LogBase::E);
    close("aug(gato,D1)", cell(&c, &aug, 0, "gato"), 0.75);
    close("aug(preto,D1)", cell(&c, &aug, 0, "preto"), 1.0);
}

#[test]
fn three_documents_idf_variants() {
    let c = corpus(&THREE_DOCS);
    let at = |v: &[IdfValue], t: &str| v[c.term_index(t).unwrap()];
    let basic = idf_vector(&c, IdfVariant::Basic, LogBase::E);
    close("IDF(gato)", finite(at(&basic, "gato")), 0.0);
    close("IDF(preto) = ln 1.5", finite(at(&basic, "preto")), 0.4055);
    close("IDF(cachorro) = ln 3", finite(at(&basic, "cachorro")), 1.0986);

    // The article's IDF+1 example repeats the basic values (0, 0.405, 1.099); by its own
    // formula log(N/(1+df)) they are ln(3/4), ln(3/3) and ln(3/2).
    let plus_one = idf_vector(&c, IdfVariant::PlusOne, LogBase::E);
    close("IDF+1(gato)", finite(at(&plus_one, "gato")), -0.2877);
    close("IDF+1(preto)", finite(at(&plus_one, "preto")), 0.0);
    close("IDF+1(cachorro)", finite(at(&plus_one, "cachorro")), 0.4055);

    // gato is in every document: log((3−3)/3) = log 0. The article says "indefinido"; log 0 is
    // not a real number but its limit is −∞, which is what the core returns and the UI shows.
    let prob = idf_vector(&c, IdfVariant::Probabilistic, LogBase::E);
    assert_eq!(at(&prob, "gato"), IdfValue::NegInfinity);
    assert_eq!(at(&prob, "gato").label(), "−∞");
    // The article's log(0.5) ≈ −0.301 is base 10; ln gives −0.6931.
    close("prob(preto) ln", finite(at(&prob, "preto")), -0.6931);
    let prob_10 = idf_vector(&c, IdfVariant::Probabilistic, LogBase::Ten);
    close("prob(preto) log10", finite(at(&prob_10, "preto")), -0.3010);
    close("prob(cachorro) = ln 2", finite(at(&prob, "cachorro")), 0.6931);
}

#[test]
fn three_documents_tfidf_table() {
    let c = corpus(&THREE_DOCS);
    assert_eq!(
        c.vocabulary,
        ["branco", "caça", "cachorro", "corre", "do", "gato", "late", "o", "para", "preto", "rato"]
    );
    // term, f(D1,D2,D3), df, IDF ln, IDF log10, TF-IDF (normalized TF, ln)
    type Row = (&'static str, [f32; 3], usize, f32, f32, [f32; 3]);
    #[rustfmt::skip]
    let table: [Row; 11] = [
        ("branco",   [0.0, 1.0, 0.0], 1, 1.0986, 0.4771, [0.0, 0.1831, 0.0]),
        ("caça",     [1.0, 0.0, 0.0], 1, 1.0986, 0.4771, [0.1569, 0.0, 0.0]),
        ("cachorro", [0.0, 0.0, 1.0], 1, 1.0986, 0.4771, [0.0, 0.0, 0.1569]),
        ("corre",    [0.0, 1.0, 0.0], 1, 1.0986, 0.4771, [0.0, 0.1831, 0.0]),
        ("do",       [0.0, 1.0, 0.0], 1, 1.0986, 0.4771, [0.0, 0.1831, 0.0]),
        ("gato",     [1.0, 1.0, 1.0], 3, 0.0,    0.0,    [0.0, 0.0, 0.0]),
        ("late",     [0.0, 0.0, 1.0], 1, 1.0986, 0.4771, [0.0, 0.0, 0.1569]),
        ("o",        [2.0, 1.0, 2.0], 3, 0.0,    0.0,    [0.0, 0.0, 0.0]),
        ("para",     [0.0, 0.0, 1.0], 1, 1.0986, 0.4771, [0.0, 0.0, 0.1569]),
        ("preto",    [2.0, 0.0, 1.0], 2, 0.4055, 0.1761, [0.1158, 0.0, 0.0579]),
        ("rato",     [1.0, 1.0, 0.0], 2, 0.4055, 0.1761, [0.0579, 0.0676, 0.0]),
    ];
    let df = c.document_frequency();
    let ln = tf_idf(&c, TfVariant::Normalized, IdfVariant::Basic, LogBase::E, false);
    let log10 = idf_vector(&c, IdfVariant::Basic, LogBase::Ten);
    for (j, (term, f, want_df, idf_ln, idf_10, tfidf)) in table.into_iter().enumerate() {
        assert_eq!(c.vocabulary[j], term);
        let column = |m: &atencao_core::Matrix| (0..3).map(|d| m.get(d, j)).collect::<Vec<_>>();
        assert_eq!(column(&c.counts), f, "{term}: counts");
        assert_eq!(df[j], want_df, "{term}: df");
        close(&format!("{term}: IDF ln"), finite(ln.idf[j]), idf_ln);
        close(&format!("{term}: IDF log10"), finite(log10[j]), idf_10);
        close_all(&format!("{term}: TF-IDF"), &column(&ln.tfidf), &tfidf);
    }
}

#[test]
fn log_tf_cachorro() {
    let c = corpus(&["O cachorro late. O cachorro corre. O cachorro pula. O gato dorme."]);
    assert_eq!(cell(&c, &c.counts, 0, "cachorro"), 3.0);
    // The article rounds 1 + log₁₀ 3 to 1.48.
    let log_10 = tf_matrix(&c.counts, TfVariant::Log, LogBase::Ten);
    let log_e = tf_matrix(&c.counts, TfVariant::Log, LogBase::E);
    close("cachorro log10", cell(&c, &log_10, 0, "cachorro"), 1.4771);
    close("cachorro ln", cell(&c, &log_e, 0, "cachorro"), 2.0986);
    close("gato log10", cell(&c, &log_10, 0, "gato"), 1.0);
    close("gato ln", cell(&c, &log_e, 0, "gato"), 1.0);
}

#[test]
fn binary_tf_python_java() {
    let c = corpus(&[
        "Python é uma linguagem de programação. Python é versátil. Python é popular",
        "Java é uma linguagem de programação",
    ]);
    let binary = tf_matrix(&c.counts, TfVariant::Binary, LogBase::E);
    let both = |m: &atencao_core::Matrix, t: &str| [cell(&c, m, 0, t), cell(&c, m, 1, t)];
    assert_eq!(both(&c.counts, "linguagem"), [1.0, 1.0]);
    assert_eq!(both(&binary, "linguagem"), [1.0, 1.0]);
    assert_eq!(both(&c.counts, "python"), [3.0, 0.0]);
    assert_eq!(both(&binary, "python"), [1.0, 0.0]);
}

#[test]
fn augmented_tf_gato_dormiu() {
    let c = corpus(&["O gato preto viu outro gato preto. O gato dormiu."]);
    assert_eq!(cell(&c, &c.counts, 0, "gato"), 3.0);
    let aug = tf_matrix(&c.counts, TfVariant::Augmented, LogBase::E);
    close("gato", cell(&c, &aug, 0, "gato"), 1.0);
    close("preto", cell(&c, &aug, 0, "preto"), 0.8333);
    close("dormiu", cell(&c, &aug, 0, "dormiu"), 0.6667);
    // K = 0.5 is the augmented case.
    let k = tf_matrix(&c.counts, TfVariant::KModified(0.5), LogBase::E);
    assert_eq!(k, aug);
}

// ---------------------------------------------------------------------------------------
// Cosine similarity
// ---------------------------------------------------------------------------------------

// Terms [gato, rato, caça, dorme, come, queijo], vectors as the article gives them.
const EX1_D1: [f32; 6] = [0.4, 0.4, 0.5, 0.0, 0.0, 0.0];
const EX1_D2: [f32; 6] = [0.4, 0.0, 0.0, 0.5, 0.0, 0.0];
const EX1_D3: [f32; 6] = [0.0, 0.4, 0.0, 0.0, 0.5, 0.4];

#[test]
fn cosine_example_1() {
    // The article prints ≈0.45: 0.16 / (√0.57 · √0.41) = 0.3310.
    close("sim(D1,D2)", cos(&EX1_D1, &EX1_D2), 0.3310);
    // The article prints ≈0.25: 0.16 / (√0.57 · √0.57) = 0.2807.
    close("sim(D1,D3)", cos(&EX1_D1, &EX1_D3), 0.2807);
    let m = atencao_core::Matrix::from_rows(&[EX1_D1, EX1_D2, EX1_D3]).unwrap();
    let all = cosine_matrix(&m);
    close("matrix (0,1)", all.get(0, 1), 0.3310);
    close("matrix (2,0)", all.get(2, 0), 0.2807);
    close("matrix (1,2)", all.get(1, 2), 0.0);
    assert_eq!(all.get(1, 1), 1.0);
}

#[test]
fn cosine_example_2_query() {
    // "gato caçador" with "caçador" counted on the "caça" column, as the article does.
    let q = [0.6, 0.0, 0.4, 0.0, 0.0, 0.0];
    // The article prints ≈0.78: 0.44 / (√0.52 · √0.57) = 0.8082.
    close("sim(Q,D1)", cos(&q, &EX1_D1), 0.8082);
    // The article prints ≈0.41: 0.24 / (√0.52 · √0.41) = 0.5198.
    close("sim(Q,D2)", cos(&q, &EX1_D2), 0.5198);
    assert_eq!(cos(&q, &EX1_D3), 0.0);
}

// ---------------------------------------------------------------------------------------
// Detailed TF-IDF and search
// ---------------------------------------------------------------------------------------

#[test]
fn detailed_tfidf() {
    let c = corpus(&["O gato preto subiu no telhado. O gato dorme no telhado", "O telhado é preto"]);
    assert_eq!(c.vocabulary, ["dorme", "é", "gato", "no", "o", "preto", "subiu", "telhado"]);
    let ln = tf_idf(&c, TfVariant::Normalized, IdfVariant::Basic, LogBase::E, false);
    let log10 = tf_idf(&c, TfVariant::Normalized, IdfVariant::Basic, LogBase::Ten, false);
    // The article uses TF = 2/10, but D1 has 11 tokens: 2/11.
    close("TF(gato,D1)", cell(&c, &ln.tf, 0, "gato"), 0.1818);
    // The article's IDF log 2 ≈ 0.301 is base 10; the product is 0.1260 with ln, 0.0547 with log₁₀.
    close("TF-IDF(gato,D1) ln", cell(&c, &ln.tfidf, 0, "gato"), 0.1260);
    close("TF-IDF(gato,D1) log10", cell(&c, &log10.tfidf, 0, "gato"), 0.0547);
    let telhado = c.term_index("telhado").unwrap();
    close("TF(telhado,D2)", ln.tf.get(1, telhado), 0.25);
    assert_eq!(c.document_frequency()[telhado], 2);
    close("IDF(telhado)", finite(ln.idf[telhado]), 0.0);
    close_all("D1", &ln.tfidf.row(0), &[0.0630, 0.0, 0.1260, 0.1260, 0.0, 0.0, 0.0630, 0.0]);
    close_all("D2", &ln.tfidf.row(1), &[0.0, 0.1733, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    // L2 normalisation makes each row a unit vector and leaves the cosines unchanged.
    let unit = tf_idf(&c, TfVariant::Normalized, IdfVariant::Basic, LogBase::E, true);
    for d in 0..2 {
        close("‖row‖", vectors::norm(&unit.tfidf.row(d)), 1.0);
    }
    close("cos D1,D2", cosine_matrix(&unit.tfidf).get(0, 1), 0.0);
}

const SEARCH_DOCS: [&str; 3] = [
    "O gato caçador pula no telhado",
    "Cachorro late para o gato no quintal",
    "Pássaro voa alto no céu azul",
];

fn search_setup() -> (Corpus, TokenizerOptions) {
    let opts = TokenizerOptions {
        stopwords: ["o", "no", "para"].map(String::from).to_vec(),
        ..TokenizerOptions::default()
    };
    let vocabulary = [
        "gato", "caçador", "pula", "telhado", "cachorro", "late", "quintal", "pássaro", "voa",
        "alto", "céu", "azul",
    ]
    .map(String::from)
    .to_vec();
    (Corpus::with_vocabulary(&SEARCH_DOCS, &opts, vocabulary).unwrap(), opts)
}

#[test]
fn search_example() {
    let (c, opts) = search_setup();
    assert!(c.counts.as_slice().iter().all(|&f| f == 0.0 || f == 1.0), "raw TF all 1");
    // "o", "no" and "para" are dropped: 4, 4 and 5 vocabulary words.
    assert_eq!(c.counts.as_slice().iter().sum::<f32>(), 4.0 + 4.0 + 5.0);
    let idf10 = idf_vector(&c, IdfVariant::Basic, LogBase::Ten);
    let idf_e = idf_vector(&c, IdfVariant::Basic, LogBase::E);
    // The article rounds these to 0.18 and 0.48.
    close("IDF(gato) log10", finite(idf10[0]), 0.1761);
    close("IDF(telhado) log10", finite(idf10[3]), 0.4771);
    close("IDF(gato) ln", finite(idf_e[0]), 0.4055);
    close("IDF(telhado) ln", finite(idf_e[3]), 1.0986);

    // The article prints ≈0.92 and ≈0.16; computed from its own vectors they are 0.6019 and
    // 0.0722. The ranking D1, D2, D3 holds, and the cosine does not depend on the log base.
    for base in [LogBase::Ten, LogBase::E] {
        let ranked = rank(&c, "gato no telhado", &opts, TfVariant::Raw, IdfVariant::Basic, base);
        let order: Vec<usize> = ranked.iter().map(|r| r.0).collect();
        assert_eq!(order, [0, 1, 2], "{base:?}");
        close("doc1", ranked[0].1, 0.6019);
        close("doc2", ranked[1].1, 0.0722);
        assert_eq!(ranked[2].1, 0.0);
    }

    // With the article's rounded weights (0.18, 0.48) the cosines are 0.6026 and 0.0743,
    // which is where the inventory's footnote values come from.
    let q = [0.18, 0.0, 0.0, 0.48, 0.0, 0.0, 0.0];
    let d1 = [0.18, 0.48, 0.48, 0.48, 0.0, 0.0, 0.0];
    let d2 = [0.18, 0.0, 0.0, 0.0, 0.48, 0.48, 0.48];
    close("rounded doc1", cos(&q, &d1), 0.6026);
    close("rounded doc2", cos(&q, &d2), 0.0743);
}

// ---------------------------------------------------------------------------------------
// Robustness: odd inputs give sensible results and never panic
// ---------------------------------------------------------------------------------------

mod robustness {
    use super::*;
    use std::time::{Duration, Instant};

    /// Every TF and IDF combination on `c`, checking shapes and the product convention.
    fn exercise(c: &Corpus) {
        let idfs = [
            IdfVariant::Basic,
            IdfVariant::PlusOne,
            IdfVariant::Probabilistic,
            IdfVariant::Max { cap: 1.0 },
            IdfVariant::Smooth,
        ];
        for tf in TfVariant::ALL {
            for idf_variant in idfs {
                let r = tf_idf(c, tf, idf_variant, LogBase::E, true);
                assert_eq!(r.tfidf.shape(), c.counts.shape());
                for (&t, &f) in r.tf.as_slice().iter().zip(c.counts.as_slice()) {
                    assert!(t.is_finite());
                    assert_eq!(t == 0.0, f == 0.0, "TF is zero exactly where the count is");
                }
            }
        }
    }

    #[test]
    fn empty_strings() {
        let opts = TokenizerOptions::default();
        assert!(tokenize("", &opts).is_empty());
        assert!(tokenize("  \n\t ", &opts).is_empty());
        assert!(Corpus::build(&[""], &opts).is_err());
        assert!(Corpus::build(&["", "   "], &opts).is_err());
        let c = Corpus::build(&["", "gato"], &opts).unwrap();
        assert_eq!(c.counts.to_rows(), [[0.0], [1.0]]);
        exercise(&c);
        let cosines = cosine_matrix(&c.counts);
        assert!(cosines.get(0, 0).is_nan() && cosines.get(0, 1).is_nan());
        assert_eq!(cosines.get(1, 1), 1.0);
        // An empty query matches nothing: undefined cosines, documents in their own order.
        let ranked = rank(&c, "", &opts, TfVariant::Raw, IdfVariant::Smooth, LogBase::E);
        assert_eq!(ranked.iter().map(|r| r.0).collect::<Vec<_>>(), [0, 1]);
        assert!(ranked.iter().all(|r| r.1.is_nan()));
        // A query that matches the only non-empty document.
        let ranked = rank(&c, "Gato!", &opts, TfVariant::Raw, IdfVariant::Smooth, LogBase::E);
        assert_eq!(ranked[0], (1, 1.0));
        assert!(ranked[1].1.is_nan());
    }

    #[test]
    fn emoji_are_symbols() {
        // Emoji are symbols, like punctuation: dropped by default, one token per run otherwise
        // (so modifiers and zero-width joiners stay with their emoji).
        let text = "gato 🙂 preto👍🏽 👨\u{200D}👩\u{200D}👧 fim";
        assert_eq!(tokenize(text, &TokenizerOptions::default()), ["gato", "preto", "fim"]);
        let keep = TokenizerOptions { strip_punctuation: false, ..Default::default() };
        assert_eq!(
            tokenize(text, &keep),
            ["gato", "🙂", "preto", "👍🏽", "👨\u{200D}👩\u{200D}👧", "fim"]
        );
        assert!(Corpus::build(&["🙂 🙂", "👍"], &TokenizerOptions::default()).is_err());
        let c = Corpus::build(&["🙂 🙂", "👍"], &keep).unwrap();
        assert_eq!(c.vocabulary, ["👍", "🙂"]);
        assert_eq!(c.counts.to_rows(), [[0.0, 2.0], [1.0, 0.0]]);
        exercise(&c);
    }

    #[test]
    fn mixed_scripts() {
        let text = "日本語 café 🙂 Ελληνικά, Привет!";
        let opts = TokenizerOptions::default();
        assert_eq!(tokenize(text, &opts), ["日本語", "café", "ελληνικά", "привет"]);
        let plain = TokenizerOptions { strip_accents: true, ..Default::default() };
        assert_eq!(tokenize("日本語 café 🙂", &plain), ["日本語", "cafe"]);
        let c = Corpus::build(&[text, "café com leite"], &opts).unwrap();
        // Latin words in accent-insensitive order, then other scripts by code point.
        assert_eq!(c.vocabulary, ["café", "com", "leite", "ελληνικά", "привет", "日本語"]);
        assert_eq!(c, Corpus::build(&[text, "café com leite"], &opts).unwrap(), "deterministic");
        exercise(&c);
        let ranked = rank(&c, "CAFÉ", &opts, TfVariant::Log, IdfVariant::Smooth, LogBase::Two);
        // Both documents hold "café"; the shorter one ranks first.
        assert_eq!(ranked.iter().map(|r| r.0).collect::<Vec<_>>(), [1, 0]);
        assert!(ranked[1].1 > 0.0);
    }

    #[test]
    fn ten_thousand_documents() {
        let start = Instant::now();
        let words = ["gato", "preto", "rato", "cachorro", "telhado", "caça", "é", "não", "céu", "azul"];
        // A deterministic mix: document i holds 3 to 8 words picked by a simple LCG.
        let mut state = 12345u32;
        let texts: Vec<String> = (0..10_000)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                let len = 3 + (state >> 16) as usize % 6;
                (0..len)
                    .map(|k| words[((state >> (k % 16)) as usize + k * 7) % words.len()])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let c = Corpus::build(&refs, &TokenizerOptions::default()).unwrap();
        assert_eq!(c.counts.shape(), (10_000, c.vocabulary.len()));
        for (d, tokens) in c.documents.iter().enumerate() {
            assert_eq!(c.counts.row(d).iter().sum::<f32>() as usize, tokens.len());
        }
        assert!(c.document_frequency().iter().all(|df| (1..=10_000).contains(df)));
        exercise(&c);
        let ranked = rank(&c, "gato preto", &TokenizerOptions::default(), TfVariant::Log, IdfVariant::Smooth, LogBase::E);
        assert_eq!(ranked.len(), 10_000);
        assert!(ranked.windows(2).all(|w| w[0].1 >= w[1].1));
        assert!(ranked[0].1 > 0.0);
        assert!(start.elapsed() < Duration::from_secs(10), "took {:?}", start.elapsed());

        // 10,000 documents of distinct words would need 10⁸ cells: refused, not allocated.
        let distinct: Vec<String> = (0..10_000).map(|i| format!("palavra{i}")).collect();
        let refs: Vec<&str> = distinct.iter().map(String::as_str).collect();
        let err = Corpus::build(&refs, &TokenizerOptions::default()).unwrap_err();
        assert!(err.to_string().contains("grande demais"), "{err}");
    }

    #[test]
    fn one_megabyte_string() {
        let start = Instant::now();
        let mut text = String::new();
        let mut i = 0;
        while text.len() < 1 << 20 {
            text.push_str(&format!("Palavra{} é, çá! ", i % 1000));
            i += 1;
        }
        let opts = TokenizerOptions::default();
        let tokens = tokenize(&text, &opts);
        assert_eq!(tokens.len(), 3 * i);
        let c = Corpus::build(&[&text, "é"], &opts).unwrap();
        assert_eq!(c.vocabulary.len(), 1002);
        assert_eq!(cell(&c, &c.counts, 0, "é"), i as f32);
        exercise(&c);
        let ranked = rank(&c, &text, &opts, TfVariant::Normalized, IdfVariant::Basic, LogBase::E);
        close("self-similarity", ranked[0].1, 1.0);
        // One 1 MB word without spaces is a single token.
        let long = "a".repeat(1 << 20);
        assert_eq!(tokenize(&long, &opts).len(), 1);
        assert!(start.elapsed() < Duration::from_secs(10), "took {:?}", start.elapsed());
    }

    #[test]
    fn idf_curves_cover_every_df() {
        // The IDF widget draws df = 0..N: every value is finite, −∞ or undefined, never a panic.
        for n in 0..6 {
            for df in 0..=n + 1 {
                for base in [LogBase::E, LogBase::Ten, LogBase::Two] {
                    let v = idf(n, df, IdfVariant::Probabilistic, base);
                    let expected = if df == 0 || df > n {
                        IdfValue::Undefined
                    } else if df == n {
                        IdfValue::NegInfinity
                    } else {
                        v
                    };
                    assert_eq!(v, expected);
                }
            }
        }
    }
}

#[test]
fn one_hot_rows_follow_the_vocabulary_order() {
    use atencao_core::text::one_hot;
    // Translated part: maçã=1, banana=2, encontrar=3, fruta=4; "encontrar fruta maçã" → [3, 4, 1].
    let vocabulary: Vec<String> = ["maçã", "banana", "encontrar", "fruta"].iter().map(|s| s.to_string()).collect();
    let tokens = tokenize("Encontrar fruta maçã", &TokenizerOptions::default());
    let (rows, unknown) = one_hot(&tokens, &vocabulary);
    assert_eq!(rows.to_rows(), vec![vec![0.0, 0.0, 1.0, 0.0], vec![0.0, 0.0, 0.0, 1.0], vec![1.0, 0.0, 0.0, 0.0]]);
    assert!(unknown.is_empty());
    // The one-hot Gram matrix is an equality test: e_i · e_j = 1 exactly when the words match.
    let tokens = tokenize("fruta banana fruta kiwi", &TokenizerOptions::default());
    let (rows, unknown) = one_hot(&tokens, &vocabulary);
    assert_eq!(unknown, vec![3]);
    let gram = atencao_core::ops::matmul_bt(&rows, &rows, 1.0).unwrap();
    assert_eq!(gram.row(0), vec![1.0, 0.0, 1.0, 0.0]);
}

#[test]
fn article_matrix_products() {
    // [1,2,3]·[4,5,6]ᵀ = 32; [[1,2],[3,4]]·[5,6]ᵀ = [17,39]; [1,2,3]·[[4,7],[5,8],[6,9]] = [32,50];
    // the 3×2 · 2×2 product; and the one-hot lookup of rows 1, 4, 3 of B.
    let want: &[(&str, Vec<Vec<f32>>)] = &[
        ("linhas", vec![vec![25.0, 28.0], vec![57.0, 64.0], vec![89.0, 100.0]]),
        ("vetores", vec![vec![32.0]]),
        ("matriz-vetor", vec![vec![17.0], vec![39.0]]),
        ("vetor-matriz", vec![vec![32.0, 50.0]]),
        ("consulta", vec![vec![10.0, 11.0], vec![40.0, 41.0], vec![30.0, 31.0]]),
    ];
    let products = atencao_core::examples::article_matrix_products();
    for (id, expected) in want {
        let (_, _, a, b) = products.iter().find(|p| p.0 == *id).unwrap();
        assert_eq!(&atencao_core::ops::matmul(a, b).unwrap().to_rows(), expected, "{id}");
    }
    let (_, _, a, _) = products.iter().find(|p| p.0 == "consulta").unwrap();
    assert_eq!(atencao_core::ops::one_hot_rows(a), Some(vec![0, 3, 2]));
    let terms = atencao_core::ops::matmul_cell_terms(&products[0].2, &products[0].3, 1, 0).unwrap();
    assert_eq!(terms, vec![(3.0, 7.0, 21.0), (4.0, 9.0, 36.0)]);
}
