//! TF × IDF, cosine similarity between the resulting document vectors, and search (a query
//! vectorised like one more document and compared with every document by cosine).
//!
//! Product convention, so the heatmaps never show a weight for a missing word:
//! tf = 0 → 0 whatever the IDF; tf > 0 × −∞ → −∞; tf > 0 × undefined → NaN ("indefinido").

use ndarray::{Array2, ArrayView1, Axis};

use crate::matrix::Matrix;

use super::idf::{idf_vector, IdfValue, IdfVariant};
use super::tf::{tf_matrix, LogBase, TfVariant};
use super::tokenizer::{tokenize, TokenizerOptions};
use super::{index_of, Corpus};

/// The three matrices a TF-IDF widget shows side by side (documents × vocabulary).
#[derive(Clone, Debug)]
pub struct TfIdf {
    pub tf: Matrix,
    pub idf: Vec<IdfValue>,
    /// TF × IDF per cell, L2-normalised per row when asked.
    pub tfidf: Matrix,
}

/// TF-IDF of `corpus`; with `l2_normalize` each row is divided by its L2 norm, except zero
/// rows (kept zero) and rows with a non-finite value (kept as they are).
pub fn tf_idf(corpus: &Corpus, tf: TfVariant, idf: IdfVariant, base: LogBase, l2_normalize: bool) -> TfIdf {
    let tf = tf_matrix(&corpus.counts, tf, base);
    let idf = idf_vector(corpus, idf, base);
    let mut weights = weigh(tf.array(), &idf);
    if l2_normalize {
        for mut row in weights.axis_iter_mut(Axis(0)) {
            if let Some(n) = finite_norm(row.view()).filter(|&n| n > 0.0) {
                row.mapv_inplace(|x| (x as f64 / n) as f32);
            }
        }
    }
    TfIdf { tf, idf, tfidf: Matrix::from_array(weights) }
}

/// Pairwise cosine of the rows (documents × documents, 1 on the diagonal); NaN wherever a row
/// is zero or has a non-finite value, since such a row has no direction.
pub fn cosine_matrix(vectors: &Matrix) -> Matrix {
    let (units, valid) = unit_rows(vectors.array());
    let mut cos = units.dot(&units.t()).mapv(|c| c.clamp(-1.0, 1.0));
    for ((i, j), c) in cos.indexed_iter_mut() {
        *c = match (valid[i], valid[j]) {
            (true, true) if i == j => 1.0,
            (true, true) => *c,
            _ => f32::NAN,
        };
    }
    Matrix::from_array(cos)
}

/// Ranks the documents of `corpus` against `query`: the query is tokenised with `opts`,
/// counted over the corpus vocabulary (other words ignored) and weighted with the same TF
/// variant and the corpus's IDF. Returns (document index, cosine), highest first, ties by
/// index; an undefined cosine stays NaN in the value and sorts as 0.
pub fn rank(
    corpus: &Corpus,
    query: &str,
    opts: &TokenizerOptions,
    tf: TfVariant,
    idf: IdfVariant,
    base: LogBase,
) -> Vec<(usize, f32)> {
    let docs = tf_idf(corpus, tf, idf, base, false);
    let column = index_of(&corpus.vocabulary);
    let mut counts = Array2::<f32>::zeros((1, corpus.vocabulary.len()));
    for token in tokenize(query, opts) {
        if let Some(&j) = column.get(token.as_str()) {
            counts[[0, j]] += 1.0;
        }
    }
    let query_tf = tf_matrix(&Matrix::from_array(counts), tf, base);
    let (query_unit, query_valid) = unit_rows(&weigh(query_tf.array(), &docs.idf));
    let (doc_units, doc_valid) = unit_rows(docs.tfidf.array());
    let sims = doc_units.dot(&query_unit.row(0));

    let cosines: Vec<f32> = sims
        .iter()
        .enumerate()
        .map(|(d, &c)| if doc_valid[d] && query_valid[0] { c.clamp(-1.0, 1.0) } else { f32::NAN })
        .collect();
    // Ranked as 0 when undefined; `+ 0.0` turns −0 into +0 so that total_cmp sees one zero.
    let keys: Vec<f32> = cosines.iter().map(|&c| if c.is_nan() { 0.0 } else { c + 0.0 }).collect();
    crate::order::rank_desc(&keys).into_iter().map(|d| (d, cosines[d])).collect()
}

/// Multiplies each column of `tf` by its IDF with the product convention of this module.
fn weigh(tf: &Array2<f32>, idf: &[IdfValue]) -> Array2<f32> {
    let mut out = tf.clone();
    for mut row in out.axis_iter_mut(Axis(0)) {
        for (t, v) in row.iter_mut().zip(idf) {
            if *t != 0.0 {
                *t = match v {
                    IdfValue::Finite(x) => *t * x,
                    IdfValue::NegInfinity => *t * f32::NEG_INFINITY,
                    IdfValue::Undefined => f32::NAN,
                };
            }
        }
    }
    out
}

/// ‖row‖ in f64 (no overflow for large f32 values), or None if a value is not finite.
fn finite_norm(row: ArrayView1<f32>) -> Option<f64> {
    if row.iter().all(|x| x.is_finite()) {
        Some(row.iter().map(|&x| x as f64 * x as f64).sum::<f64>().sqrt())
    } else {
        None
    }
}

/// Each row scaled to unit length, and whether it had a direction; rows without one (zero or
/// non-finite) become zeros so that products with them stay finite.
fn unit_rows(a: &Array2<f32>) -> (Array2<f32>, Vec<bool>) {
    let mut units = Array2::<f32>::zeros(a.raw_dim());
    let mut valid = Vec::with_capacity(a.nrows());
    for (row, mut unit) in a.axis_iter(Axis(0)).zip(units.axis_iter_mut(Axis(0))) {
        match finite_norm(row).filter(|&n| n > 0.0) {
            Some(n) => {
                unit.assign(&row.mapv(|x| (x as f64 / n) as f32));
                valid.push(true);
            }
            None => valid.push(false),
        }
    }
    (units, valid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_convention() {
        let tf = Array2::from_shape_vec((2, 3), vec![0.0, 2.0, 1.0, 1.0, 0.0, 0.0]).unwrap();
        let idf = [IdfValue::NegInfinity, IdfValue::Finite(0.5), IdfValue::Undefined];
        let w = weigh(&tf, &idf);
        assert_eq!(w[[0, 0]], 0.0);
        assert_eq!(w[[0, 1]], 1.0);
        assert!(w[[0, 2]].is_nan());
        assert_eq!(w[[1, 0]], f32::NEG_INFINITY);
    }

    #[test]
    fn cosine_matrix_marks_rows_without_direction() {
        let m = Matrix::from_rows(&[[1.0, 0.0], [1.0, 1.0], [0.0, 0.0], [f32::INFINITY, 1.0]]).unwrap();
        let c = cosine_matrix(&m);
        assert_eq!(c.get(0, 0), 1.0);
        assert!((c.get(0, 1) - 0.5f32.sqrt()).abs() < 1e-6);
        assert_eq!(c.get(0, 1), c.get(1, 0));
        assert!(c.get(2, 2).is_nan() && c.get(0, 2).is_nan() && c.get(3, 1).is_nan());
        let big = Matrix::from_rows(&[[3e30f32, 4e30], [4e30, 3e30]]).unwrap();
        assert!((cosine_matrix(&big).get(0, 1) - 0.96).abs() < 1e-6);
    }
}
