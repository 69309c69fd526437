//! Pairwise skip features: every earlier word w_i paired with the current word w_t votes for
//! the next word, reaching back past the N-gram window.
//!
//! Training (the articles' code): for each document of weight ω and each position t with a
//! next word, every i < t adds ω to C(w_i, w_t, w_{t+1}). Votes normalise each feature:
//! Voto(w | w_i, w_t) = C(w_i, w_t, w) / Σ_w' C(w_i, w_t, w'). Prediction sums the votes of
//! the features (w_i, w_t) of every earlier position i (a repeated word votes twice); the
//! score ranks words, it is not a probability. Training is O(T²) per document, so it is
//! capped by `MAX_TRAINING_TRIPLES`.

use std::collections::HashMap;

use crate::error::{ComputeError, Result};
use crate::executor::{Executor, Job};
use crate::matrix::Matrix;
use crate::ops;
use crate::text::tokenizer::{tokenize, TokenizerOptions};

use super::masking::{check_mask, mask_rows};

/// Most (w_i, w_t, w_{t+1}) triples a training corpus may produce (T²/2 for a T-word document).
pub const MAX_TRAINING_TRIPLES: usize = 500_000;

/// One row of the triple-count table for a chosen w_t.
#[derive(Clone, Debug, PartialEq)]
pub struct TripleCount {
    /// w_i.
    pub previous: String,
    /// w_{t+1}.
    pub next: String,
    /// Σ of the weights of the documents where the triple occurs (once per occurrence).
    pub count: f32,
}

/// A trained skip-pair model.
#[derive(Clone, Debug, PartialEq)]
pub struct SkipPairModel {
    tokenizer: TokenizerOptions,
    vocabulary: Vec<String>,
    index: HashMap<String, usize>,
    /// (w_i, w_t) of each feature, in order of first appearance.
    features: Vec<(usize, usize)>,
    feature_index: HashMap<(usize, usize), usize>,
    /// (next, weighted count) per feature, sorted by next id.
    counts: Vec<Vec<(usize, f32)>>,
    totals: Vec<f32>,
}

impl SkipPairModel {
    /// Trains on (text, weight) documents tokenized with `tokenizer`. Fails on an empty corpus,
    /// a negative or non-finite weight, or more than `MAX_TRAINING_TRIPLES` triples.
    pub fn train(documents: &[(&str, f32)], tokenizer: &TokenizerOptions) -> Result<SkipPairModel> {
        if let Some(i) = documents.iter().position(|(_, w)| !(w.is_finite() && *w >= 0.0)) {
            return Err(ComputeError::Invalid(format!(
                "O peso do documento {} precisa ser um número não negativo.",
                i + 1
            )));
        }
        let tokens: Vec<Vec<String>> = documents.iter().map(|(t, _)| tokenize(t, tokenizer)).collect();
        if tokens.iter().all(Vec::is_empty) {
            return Err(ComputeError::Invalid(
                "O corpus não tem palavras depois da tokenização: escreva pelo menos uma.".into(),
            ));
        }
        let triples: usize =
            tokens.iter().map(|d| d.len().saturating_sub(1) * d.len().saturating_sub(2) / 2).sum();
        if triples > MAX_TRAINING_TRIPLES {
            return Err(ComputeError::Invalid(format!(
                "O corpus gera {triples} triplas (w_i, w_t, w_t+1), mais que o limite de \
                 {MAX_TRAINING_TRIPLES}: o custo cresce com o quadrado do tamanho de cada \
                 documento. Divida o texto em documentos menores."
            )));
        }
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut vocabulary = Vec::new();
        let ids: Vec<Vec<usize>> = tokens
            .iter()
            .map(|doc| {
                doc.iter()
                    .map(|w| {
                        *index.entry(w.clone()).or_insert_with(|| {
                            vocabulary.push(w.clone());
                            vocabulary.len() - 1
                        })
                    })
                    .collect()
            })
            .collect();
        let mut features = Vec::new();
        let mut feature_index: HashMap<(usize, usize), usize> = HashMap::new();
        let mut cells: HashMap<(usize, usize), f32> = HashMap::new();
        for (doc, &(_, weight)) in ids.iter().zip(documents) {
            for t in 1..doc.len().saturating_sub(1) {
                for i in 0..t {
                    let key = (doc[i], doc[t]);
                    let f = *feature_index.entry(key).or_insert_with(|| {
                        features.push(key);
                        features.len() - 1
                    });
                    *cells.entry((f, doc[t + 1])).or_insert(0.0) += weight;
                }
            }
        }
        let mut counts = vec![Vec::new(); features.len()];
        for ((f, next), c) in cells {
            counts[f].push((next, c));
        }
        for list in &mut counts {
            crate::order::sort_by(list, |a, b| a.0.cmp(&b.0));
        }
        let totals = counts.iter().map(|l| l.iter().map(|p| p.1).sum()).collect();
        Ok(SkipPairModel {
            tokenizer: tokenizer.clone(),
            vocabulary,
            index,
            features,
            feature_index,
            counts,
            totals,
        })
    }

    /// `text` tokenized as the training corpus was (test sentences, prefixes).
    pub fn tokens(&self, text: &str) -> Vec<String> {
        tokenize(text, &self.tokenizer)
    }

    /// Every word seen in training, by first appearance.
    pub fn vocabulary(&self) -> &[String] {
        &self.vocabulary
    }

    /// Number of distinct (w_i, w_t) features.
    pub fn feature_count(&self) -> usize {
        self.features.len()
    }

    fn feature(&self, previous: &str, current: &str) -> Option<usize> {
        let key = (*self.index.get(previous)?, *self.index.get(current)?);
        self.feature_index.get(&key).copied()
    }

    /// The normalised votes of feature (previous, current): (next word, vote), vocabulary order;
    /// empty for an unseen feature.
    pub fn votes_of(&self, previous: &str, current: &str) -> Vec<(String, f32)> {
        self.feature(previous, current).map_or(Vec::new(), |f| self.feature_votes(f))
    }

    fn feature_votes(&self, f: usize) -> Vec<(String, f32)> {
        let total = self.totals[f];
        self.counts[f]
            .iter()
            .map(|&(next, c)| (self.vocabulary[next].clone(), if total > 0.0 { c / total } else { 0.0 }))
            .collect()
    }

    /// Voto(next | previous, current); 0 when the feature or the word was never seen.
    pub fn vote(&self, previous: &str, current: &str, next: &str) -> f32 {
        self.votes_of(previous, current).into_iter().find(|(w, _)| w == next).map_or(0.0, |(_, v)| v)
    }

    /// The triple-count table for w_t = `current`: every (w_i, current, next) with its weighted
    /// count, features in order of first appearance.
    pub fn triples_with_current(&self, current: &str) -> Vec<TripleCount> {
        let Some(&cur) = self.index.get(current) else { return Vec::new() };
        self.features
            .iter()
            .enumerate()
            .filter(|(_, &(_, c))| c == cur)
            .flat_map(|(f, &(prev, _))| {
                self.counts[f].iter().map(move |&(next, count)| TripleCount {
                    previous: self.vocabulary[prev].clone(),
                    next: self.vocabulary[next].clone(),
                    count,
                })
            })
            .collect()
    }

    /// The vote table of a typed prefix (tokenized like the training corpus): its last word is
    /// w_t. Fails if the prefix has no word.
    pub fn vote_table(&self, prefix: &str) -> Result<VoteTable> {
        self.vote_table_for(&tokenize(prefix, &self.tokenizer))
    }

    /// The vote table of an already tokenized prefix: one row per earlier position i (feature
    /// (w_i, w_t)), one column per word some row votes for (vocabulary order). Unknown words
    /// and unseen features give all-zero rows.
    pub fn vote_table_for(&self, tokens: &[String]) -> Result<VoteTable> {
        let Some((current, previous)) = tokens.split_last() else {
            return Err(ComputeError::Invalid(
                "Escreva pelo menos uma palavra para prever a seguinte.".into(),
            ));
        };
        let rows: Vec<Option<usize>> = previous.iter().map(|p| self.feature(p, current)).collect();
        let mut column_ids: Vec<usize> =
            rows.iter().flatten().flat_map(|&f| self.counts[f].iter().map(|p| p.0)).collect();
        crate::order::sort_usize(&mut column_ids);
        column_ids.dedup();
        let mut votes = Matrix::zeros(rows.len(), column_ids.len());
        for (r, f) in rows.iter().enumerate() {
            let Some(f) = *f else { continue };
            let total = self.totals[f];
            for &(next, c) in &self.counts[f] {
                let col = column_ids.binary_search(&next).expect("column collected above");
                votes.set(r, col, if total > 0.0 { c / total } else { 0.0 });
            }
        }
        Ok(VoteTable {
            current: current.clone(),
            previous: previous.to_vec(),
            columns: column_ids.iter().map(|&i| self.vocabulary[i].clone()).collect(),
            votes,
        })
    }
}

/// The votes behind one prediction.
#[derive(Clone, Debug, PartialEq)]
pub struct VoteTable {
    /// w_t, the word whose successor is predicted.
    pub current: String,
    /// w_i of each earlier position: row i is the feature (w_i, w_t).
    pub previous: Vec<String>,
    /// The words that receive any vote.
    pub columns: Vec<String>,
    /// previous.len() × columns.len() votes; each seen row sums to 1.
    pub votes: Matrix,
}

impl VoteTable {
    /// A binary mask over the rows: 1 where w_i is one of `words`, 0 elsewhere.
    pub fn mask_keeping(&self, words: &[&str]) -> Vec<f32> {
        self.previous.iter().map(|w| if words.contains(&w.as_str()) { 1.0 } else { 0.0 }).collect()
    }

    /// votes ∘ mask: each row scaled by its weight in [0, 1] (the masked vote matrix).
    pub fn masked_votes(&self, mask: &[f32]) -> Result<Matrix> {
        mask_rows(&self.votes, mask)
    }

    /// Score(w) = Σ_i m_i · Voto(w | w_i, w_t), computed as the product m (1 × rows) · votes;
    /// no mask means every m_i = 1.
    pub fn scores(&self, mask: Option<&[f32]>) -> Result<Vec<f32>> {
        let ones = vec![1.0; self.previous.len()];
        let mask = mask.unwrap_or(&ones);
        check_mask(mask, self.previous.len())?;
        let m = Matrix::from_vec(1, mask.len(), mask.to_vec())?;
        Ok(ops::matmul(&m, &self.votes)?.row(0))
    }

    /// Running totals: row i holds the scores after adding the votes of rows 0..=i (the
    /// stacked bars showing how shared features dilute the decisive ones).
    pub fn cumulative(&self) -> Matrix {
        cumulative_rows(&self.votes)
    }

    /// Words with a positive score, best first (ties in column order): the prediction.
    pub fn ranking(&self, mask: Option<&[f32]>) -> Result<Vec<(String, f32)>> {
        let scores = self.scores(mask)?;
        let mut out: Vec<(String, f32)> =
            self.columns.iter().cloned().zip(scores).filter(|&(_, s)| s > 0.0).collect();
        crate::order::sort_by_score_desc(&mut out);
        Ok(out)
    }
}

/// Running sums down the rows: row i of the result = rows 0..=i of `m` added up.
pub fn cumulative_rows(m: &Matrix) -> Matrix {
    let mut acc = m.array().clone();
    for r in 1..acc.nrows() {
        let previous = acc.row(r - 1).to_owned();
        let mut row = acc.row_mut(r);
        row += &previous;
    }
    Matrix::from_array(acc)
}

/// Best score minus the runner-up in a ranking (best first): how clearly the prediction
/// wins. `None` with no candidate; the best score itself when there is a single one.
pub fn winning_margin(ranking: &[(String, f32)]) -> Option<f32> {
    let best = ranking.first()?.1;
    Some(best - ranking.get(1).map_or(0.0, |r| r.1))
}

/// The masked votes and the scores of a vote table, as matrix products so that the widget
/// runs them on the active backend: V ∘ m = diag(m) V (each row scaled by its weight) and
/// score = m V (1 × columns). Mirrors `VoteTable::masked_votes` and `VoteTable::scores`.
#[derive(Clone, Debug, PartialEq)]
pub struct VoteScoresJob {
    /// rows × columns votes.
    pub votes: Matrix,
    /// One weight in [0, 1] per row.
    pub mask: Vec<f32>,
}

/// What `VoteScoresJob` returns.
#[derive(Clone, Debug, PartialEq)]
pub struct MaskedScores {
    /// diag(m) V (rows × columns).
    pub masked: Matrix,
    /// m V, one score per column.
    pub scores: Vec<f32>,
}

impl Job for VoteScoresJob {
    type Output = MaskedScores;
    async fn run<E: Executor>(&self, e: &E) -> Result<MaskedScores> {
        check_mask(&self.mask, self.votes.rows())?;
        let (rows, cols) = self.votes.shape();
        // No earlier word or no candidate: nothing to multiply (and GPUs reject empty buffers).
        if rows == 0 || cols == 0 {
            return Ok(MaskedScores { masked: self.votes.clone(), scores: vec![0.0; cols] });
        }
        let mut diagonal = Matrix::zeros(rows, rows);
        for (i, &m) in self.mask.iter().enumerate() {
            diagonal.set(i, i, m);
        }
        let votes = e.upload(&self.votes)?;
        let masked = e.matmul(&e.upload(&diagonal)?, &votes)?;
        let m = e.upload(&Matrix::from_vec(1, rows, self.mask.clone())?)?;
        let scores = e.matmul(&m, &votes)?;
        let [masked, scores] = e.read_n([&masked, &scores]).await?;
        Ok(MaskedScores { masked, scores: scores.row(0) })
    }
}
