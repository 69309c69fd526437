//! Documents as vectors of their own transition probabilities T_d, compared by cosine and
//! Euclidean distance, and against the corpus model through likelihood ratios.
//!
//! Every T_d uses the corpus model's rows and columns, so cell (i, j) means the same
//! transition in every document. Vectors are sparse (only non-zero cells are stored):
//! flattening a |V| × |V| matrix densely would be quadratic in the vocabulary.

use crate::error::{ComputeError, Result};
use crate::matrix::Matrix;

use super::ngram::NgramModel;

/// Most documents `compare_documents` accepts (its tables are documents × documents).
pub const MAX_COMPARED_DOCUMENTS: usize = 500;

/// How a transition matrix becomes a vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlattenMode {
    /// The article's code: the non-zero probabilities in row-major order, positions dropped.
    /// Position k of two documents may be different transitions, so the three commands of
    /// Example 1 all become [1/√5 × 5] and look identical (erratum E6).
    NonZeroOnly,
    /// Every cell of the matrix (zeros included), so position (i, j) is the same transition in
    /// every document: the comparison the article means.
    Full,
}

/// Approach 1: document `d` as (context, next word, probability) triples, row-major.
pub fn triples(model: &NgramModel, d: usize) -> Vec<(String, String, f32)> {
    let vocab = model.vocabulary();
    model
        .document_transitions(d)
        .into_iter()
        .map(|t| (model.row_label(t.row), vocab[t.next].clone(), t.probability))
        .collect()
}

/// Approach 2: P(next | context, d) for a fixed list of (context, next) pairs, the same list for
/// every document (context words space-separated for longer contexts); 0 where d lacks a pair.
pub fn pair_vector(model: &NgramModel, d: usize, pairs: &[(&str, &str)]) -> Vec<f32> {
    let cells = model.document_transitions(d);
    pairs
        .iter()
        .map(|(context, next)| {
            let words: Vec<&str> = context.split_whitespace().collect();
            let (Some(row), Some(next)) = (model.row_of(&words), model.word_index(next)) else { return 0.0 };
            cells.iter().find(|t| t.row == row && t.next == next).map_or(0.0, |t| t.probability)
        })
        .collect()
}

/// v / ‖v‖₂; the zero vector stays zero (it has no direction, and NaN would reach the table).
pub fn l2_normalize(v: &[f32]) -> Vec<f32> {
    let norm = v.iter().map(|&x| x as f64 * x as f64).sum::<f64>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        v.iter().map(|&x| (x as f64 / norm) as f32).collect()
    } else {
        vec![0.0; v.len()]
    }
}

/// The article's listing-2 vector of document `d`: non-zero probabilities, row-major, L2-normalised.
pub fn nonzero_vector(model: &NgramModel, d: usize) -> Vec<f32> {
    let values: Vec<f32> = model.document_transitions(d).iter().map(|t| t.probability).collect();
    l2_normalize(&values)
}

/// Document `d` as a sparse normalised vector: (position, value) sorted by position.
fn sparse_vector(model: &NgramModel, d: usize, mode: FlattenMode) -> Vec<(u64, f32)> {
    let cells = model.document_transitions(d);
    let width = model.vocabulary().len() as u64;
    let keys: Vec<u64> = match mode {
        FlattenMode::NonZeroOnly => (0..cells.len() as u64).collect(),
        FlattenMode::Full => cells.iter().map(|t| t.row as u64 * width + t.next as u64).collect(),
    };
    let values = l2_normalize(&cells.iter().map(|t| t.probability).collect::<Vec<_>>());
    keys.into_iter().zip(values).collect()
}

/// Σ over the union of positions of f(a_k, b_k), missing positions being 0.
fn merge(a: &[(u64, f32)], b: &[(u64, f32)], f: impl Fn(f64, f64) -> f64) -> f64 {
    let (mut i, mut j, mut sum) = (0, 0, 0.0);
    while i < a.len() || j < b.len() {
        let (ka, kb) = (a.get(i).map_or(u64::MAX, |p| p.0), b.get(j).map_or(u64::MAX, |p| p.0));
        let (x, y) = match ka.cmp(&kb) {
            std::cmp::Ordering::Less => (a[i].1, 0.0),
            std::cmp::Ordering::Greater => (0.0, b[j].1),
            std::cmp::Ordering::Equal => (a[i].1, b[j].1),
        };
        sum += f(x as f64, y as f64);
        i += usize::from(ka <= kb);
        j += usize::from(kb <= ka);
    }
    sum
}

/// Pairwise tables between the documents' normalised vectors.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Cosine similarity (documents × documents); 0 where a document has no transition, as in
    /// the article's code.
    pub cosine: Matrix,
    /// Euclidean distance between the normalised vectors (√(2 − 2 cos) when both are non-zero).
    pub euclidean: Matrix,
}

/// Cosine and Euclidean tables of every pair of documents, their vectors flattened by `mode`.
/// With `NonZeroOnly`, vectors of different lengths are compared position by position, the
/// shorter padded with zeros. Fails beyond `MAX_COMPARED_DOCUMENTS` documents.
pub fn compare_documents(model: &NgramModel, mode: FlattenMode) -> Result<Comparison> {
    let n = model.n_documents();
    if n > MAX_COMPARED_DOCUMENTS {
        return Err(ComputeError::Invalid(format!(
            "São {n} documentos; a tabela de comparação aceita até {MAX_COMPARED_DOCUMENTS}."
        )));
    }
    let vectors: Vec<Vec<(u64, f32)>> = (0..n).map(|d| sparse_vector(model, d, mode)).collect();
    let (mut cosine, mut euclidean) = (Matrix::zeros(n, n), Matrix::zeros(n, n));
    for a in 0..n {
        for b in a..n {
            // Both vectors have norm 1 or are zero, so the dot product is the cosine.
            let cos = merge(&vectors[a], &vectors[b], |x, y| x * y) as f32;
            let dist = merge(&vectors[a], &vectors[b], |x, y| (x - y) * (x - y)).sqrt() as f32;
            for (i, j) in [(a, b), (b, a)] {
                cosine.set(i, j, cos);
                euclidean.set(i, j, dist);
            }
        }
    }
    Ok(Comparison { cosine, euclidean })
}

/// One entry of v*: how much more often document d makes a transition than the corpus does.
#[derive(Clone, Debug, PartialEq)]
pub struct LikelihoodRatio {
    /// The row's context words.
    pub context: String,
    /// The next word.
    pub next: String,
    /// P_d(next | context).
    pub document: f32,
    /// P_corpus(next | context).
    pub corpus: f32,
    /// document / corpus: > 1 means more typical of this document than of the corpus.
    pub ratio: f32,
}

/// v* of document `d`: P_d / P_corpus over the document's own transitions, row-major.
/// `model` is the corpus model; every transition of d occurs in the corpus, so the corpus
/// probability is never 0 and the ratio is always finite.
pub fn likelihood_ratios(model: &NgramModel, d: usize) -> Vec<LikelihoodRatio> {
    let vocab = model.vocabulary();
    model
        .document_transitions(d)
        .into_iter()
        .map(|t| {
            let corpus = model.probability(t.row, t.next);
            let ratio = if corpus > 0.0 { t.probability / corpus } else { 0.0 };
            LikelihoodRatio {
                context: model.row_label(t.row),
                next: vocab[t.next].clone(),
                document: t.probability,
                corpus,
                ratio,
            }
        })
        .collect()
}
