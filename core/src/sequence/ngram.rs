//! N-gram transition models estimated from a corpus: T(i, j) = P(next = v_j | context i).
//!
//! `context` words of history make an N-gram with N = context + 1: 1 is the article's
//! bigram (first-order Markov, rows are the vocabulary), 2 a trigram (second order, rows are
//! the observed word pairs). Counts are kept sparse (successor lists per row), so building
//! is linear in the corpus; dense matrices are built on request.
//!
//! Probabilities divide by the row sum (how often the context is *followed* by something),
//! as the article's code does. Its prose divides by occurrences instead; the two differ only
//! for a word that ends a document, and agree once `<END>` is on (erratum E7).

use std::collections::{HashMap, HashSet};

use crate::error::{ComputeError, Result};
use crate::matrix::Matrix;
use crate::ops;
use crate::rng::Rng;
use crate::text::tokenizer::{collation_key, TokenizerOptions};

use super::{check_dense, tokenize_words, weighted_draw};

/// The marker placed before each document (and as padding for longer contexts).
pub const START: &str = "<START>";
/// The marker placed after each document, so "the sentence ends here" is a transition.
pub const END: &str = "<END>";

/// Order of the vocabulary, i.e. of the matrix rows and columns.
#[derive(Clone, Debug, PartialEq)]
pub enum VocabularyOrder {
    /// As words first appear in the corpus (the 8-document example).
    FirstAppearance,
    /// Portuguese alphabetical order, as the vectorization widgets sort.
    Sorted,
    /// These words first (as the tokenizer writes them, e.g. Example 1's order), then any
    /// other corpus word by first appearance, so editing the corpus never fails.
    Given(Vec<String>),
}

/// How a corpus becomes an N-gram model.
#[derive(Clone, Debug, PartialEq)]
pub struct NgramOptions {
    /// Lowercase, punctuation, accents (the second article keeps accents, the third strips them).
    pub tokenizer: TokenizerOptions,
    /// Split "Mostre-me" into "mostre", "me" (the second article does).
    pub split_hyphens: bool,
    /// Put `<START>` before each document.
    pub start: bool,
    /// Put `<END>` after each document.
    pub end: bool,
    /// Words of history: 1 = bigram (first order), 2 = trigram, …
    pub context: usize,
    /// Order of the rows and columns.
    pub order: VocabularyOrder,
}

impl Default for NgramOptions {
    /// Bigrams, lowercase, punctuation removed, accents kept, hyphens split, no markers.
    fn default() -> Self {
        NgramOptions {
            tokenizer: TokenizerOptions::default(),
            split_hyphens: true,
            start: false,
            end: false,
            context: 1,
            order: VocabularyOrder::FirstAppearance,
        }
    }
}

/// Largest context a model accepts: beyond it every window is unique and the table says nothing.
pub const MAX_CONTEXT: usize = 5;

/// One non-zero cell of a transition matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Transition {
    /// Row (context) index.
    pub row: usize,
    /// Column (next word) index in the vocabulary.
    pub next: usize,
    /// How many times the transition occurs.
    pub count: f32,
    /// count / row sum.
    pub probability: f32,
}

/// One factor of a sentence's probability.
#[derive(Clone, Debug, PartialEq)]
pub struct SentenceStep {
    /// The context words, space-separated.
    pub context: String,
    /// The word predicted from the context.
    pub word: String,
    /// P(word | context); 0 for an unseen transition or an unknown word.
    pub probability: f64,
}

/// P(sentence) as the product of its transitions.
#[derive(Clone, Debug, PartialEq)]
pub struct SentenceProbability {
    /// One factor per transition, in sentence order.
    pub steps: Vec<SentenceStep>,
    /// Π of the steps (f64: long sentences underflow f32).
    pub probability: f64,
    /// Σ ln of the steps; −∞ when a step is 0 (never NaN).
    pub log_probability: f64,
}

/// Why sampling stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// `<END>` was drawn.
    End,
    /// The current context was never followed by anything in the corpus.
    DeadEnd,
    /// `max_words` was reached.
    MaxLength,
}

/// A sampled sentence, markers left out.
#[derive(Clone, Debug, PartialEq)]
pub struct SampledSentence {
    /// The sampled words.
    pub words: Vec<String>,
    /// Why sampling stopped.
    pub stop: StopReason,
}

/// Transition counts of a corpus, with everything needed to show, query and sample them.
#[derive(Clone, Debug, PartialEq)]
pub struct NgramModel {
    options: NgramOptions,
    vocabulary: Vec<String>,
    index: HashMap<String, usize>,
    /// Word ids per document, markers included (`context` copies of `<START>`).
    documents: Vec<Vec<usize>>,
    /// Word ids of each row's context.
    contexts: Vec<Vec<usize>>,
    context_index: HashMap<Vec<usize>, usize>,
    /// (next, count) per row, sorted by next id, so iteration (and sampling) is deterministic.
    successors: Vec<Vec<(usize, f32)>>,
    totals: Vec<f32>,
}

impl NgramModel {
    /// Tokenizes `texts` (one per document) and counts every transition. Fails on an empty
    /// corpus, a corpus with no words, a repeated `Given` word or a context outside 1..=MAX_CONTEXT.
    pub fn build(texts: &[&str], options: &NgramOptions) -> Result<NgramModel> {
        if !(1..=MAX_CONTEXT).contains(&options.context) {
            return Err(ComputeError::Invalid(format!(
                "O contexto precisa ter de 1 a {MAX_CONTEXT} palavras."
            )));
        }
        let tokens: Vec<Vec<String>> =
            texts.iter().map(|t| tokenize_words(t, &options.tokenizer, options.split_hyphens)).collect();
        if tokens.iter().all(Vec::is_empty) {
            return Err(ComputeError::Invalid(
                "O corpus não tem palavras depois da tokenização: escreva pelo menos uma.".into(),
            ));
        }
        let vocabulary = vocabulary(&tokens, options)?;
        let index: HashMap<String, usize> =
            vocabulary.iter().enumerate().map(|(i, w)| (w.clone(), i)).collect();
        let (start, end) = (index.get(START).copied(), index.get(END).copied());
        let documents: Vec<Vec<usize>> = tokens
            .iter()
            .map(|doc| {
                let mut ids = Vec::with_capacity(doc.len() + options.context + 1);
                ids.extend(start.iter().flat_map(|&s| std::iter::repeat_n(s, options.context)));
                ids.extend(doc.iter().map(|w| index[w.as_str()]));
                ids.extend(end);
                ids
            })
            .collect();
        let mut model = NgramModel {
            options: options.clone(),
            vocabulary,
            index,
            documents,
            contexts: Vec::new(),
            context_index: HashMap::new(),
            successors: Vec::new(),
            totals: Vec::new(),
        };
        model.count_transitions();
        Ok(model)
    }

    fn count_transitions(&mut self) {
        let c = self.options.context;
        if c == 1 {
            // Rows are the vocabulary itself, words never followed included (zero rows).
            self.contexts = (0..self.vocabulary.len()).map(|i| vec![i]).collect();
            self.context_index = self.contexts.iter().enumerate().map(|(r, k)| (k.clone(), r)).collect();
        }
        let end = self.index.get(END).copied();
        let mut counts: HashMap<(usize, usize), f32> = HashMap::new();
        for d in 0..self.documents.len() {
            let doc = &self.documents[d];
            for k in c..=doc.len() {
                let window = &doc[k - c..k];
                // The final window has no successor: a row only if it does not end in <END>.
                if k == doc.len() && (window.last().copied() == end || c == 1) {
                    continue;
                }
                let row = match self.context_index.get(window) {
                    Some(&r) => r,
                    None => {
                        self.contexts.push(window.to_vec());
                        self.context_index.insert(window.to_vec(), self.contexts.len() - 1);
                        self.contexts.len() - 1
                    }
                };
                if k < doc.len() {
                    *counts.entry((row, doc[k])).or_insert(0.0) += 1.0;
                }
            }
        }
        self.successors = vec![Vec::new(); self.contexts.len()];
        for ((row, next), n) in counts {
            self.successors[row].push((next, n));
        }
        for list in &mut self.successors {
            crate::order::sort_by(list, |a, b| a.0.cmp(&b.0));
        }
        self.totals = self.successors.iter().map(|l| l.iter().map(|&(_, n)| n).sum()).collect();
    }

    /// The options the model was built with (sentences are tokenized the same way).
    pub fn options(&self) -> &NgramOptions {
        &self.options
    }

    /// Column labels (and, for bigrams, row labels), markers included when on.
    pub fn vocabulary(&self) -> &[String] {
        &self.vocabulary
    }

    /// The column of `word` (as the tokenizer writes it, or a marker).
    pub fn word_index(&self, word: &str) -> Option<usize> {
        self.index.get(word).copied()
    }

    /// Number of documents, empty ones included.
    pub fn n_documents(&self) -> usize {
        self.documents.len()
    }

    /// Document `d` as the model sees it, markers included (empty if `d` is out of range).
    pub fn document_tokens(&self, d: usize) -> Vec<&str> {
        self.documents
            .get(d)
            .map_or(Vec::new(), |doc| doc.iter().map(|&i| self.vocabulary[i].as_str()).collect())
    }

    /// Number of rows (contexts): |V| for bigrams, the observed contexts otherwise.
    pub fn n_rows(&self) -> usize {
        self.contexts.len()
    }

    /// Row labels: the context words joined by a space ("meus", "o programa").
    pub fn row_labels(&self) -> Vec<String> {
        (0..self.n_rows()).map(|r| self.row_label(r)).collect()
    }

    /// The label of one row ("" if out of range).
    pub fn row_label(&self, row: usize) -> String {
        self.contexts.get(row).map_or(String::new(), |ids| self.words_of(ids))
    }

    /// The row whose context is `words` (tokenizer spelling or markers).
    pub fn row_of(&self, words: &[&str]) -> Option<usize> {
        let ids: Option<Vec<usize>> = words.iter().map(|w| self.word_index(w)).collect();
        self.context_index.get(&ids?).copied()
    }

    /// count(context → next); 0 when unseen or out of range.
    pub fn count(&self, row: usize, next: usize) -> f32 {
        self.successors
            .get(row)
            .and_then(|l| l.binary_search_by_key(&next, |&(n, _)| n).ok().map(|i| l[i].1))
            .unwrap_or(0.0)
    }

    /// P(next | context) = count / row sum; 0 for an unseen transition or a row with no successor.
    pub fn probability(&self, row: usize, next: usize) -> f32 {
        match self.totals.get(row) {
            Some(&total) if total > 0.0 => self.count(row, next) / total,
            _ => 0.0,
        }
    }

    /// The non-zero cells of a row, most probable first (ties in vocabulary order): the bar chart
    /// of "what follows meus".
    pub fn next_distribution(&self, row: usize) -> Vec<(String, f32)> {
        let mut out: Vec<(String, f32)> = self
            .successors
            .get(row)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .map(|&(next, _)| (self.vocabulary[next].clone(), self.probability(row, next)))
            .collect();
        crate::order::sort_by_score_desc(&mut out);
        out
    }

    /// Every non-zero cell, row-major (rows in order, then columns in vocabulary order).
    pub fn transitions(&self) -> Vec<Transition> {
        self.transitions_of(&self.successors, &self.totals)
    }

    /// The non-zero cells of T_d, the matrix of document `d` alone, over this model's rows and
    /// columns (so documents are comparable cell by cell); empty if `d` is out of range.
    pub fn document_transitions(&self, d: usize) -> Vec<Transition> {
        let Some(doc) = self.documents.get(d) else { return Vec::new() };
        let c = self.options.context;
        let mut counts: HashMap<(usize, usize), f32> = HashMap::new();
        for k in c..doc.len() {
            let row = self.context_index[&doc[k - c..k]];
            *counts.entry((row, doc[k])).or_insert(0.0) += 1.0;
        }
        let mut successors = vec![Vec::new(); self.n_rows()];
        let mut cells: Vec<_> = counts.into_iter().collect();
        crate::order::sort_by(&mut cells, |a, b| a.0.cmp(&b.0));
        for ((row, next), n) in cells {
            successors[row].push((next, n));
        }
        let totals: Vec<f32> =
            successors.iter().map(|l: &Vec<(usize, f32)>| l.iter().map(|p| p.1).sum()).collect();
        self.transitions_of(&successors, &totals)
    }

    fn transitions_of(&self, successors: &[Vec<(usize, f32)>], totals: &[f32]) -> Vec<Transition> {
        successors
            .iter()
            .enumerate()
            .flat_map(|(row, list)| {
                list.iter().map(move |&(next, count)| Transition {
                    row,
                    next,
                    count,
                    probability: if totals[row] > 0.0 { count / totals[row] } else { 0.0 },
                })
            })
            .collect()
    }

    /// How often each vocabulary word occurs in the documents, markers included.
    pub fn word_counts(&self) -> Vec<f32> {
        let mut counts = vec![0.0f32; self.vocabulary.len()];
        for &id in self.documents.iter().flatten() {
            counts[id] += 1.0;
        }
        // `context` copies of <START> pad each document; count the marker once per document.
        if let Some(s) = self.word_index(START) {
            counts[s] /= self.options.context as f32;
        }
        counts
    }

    /// The `k` most frequent words (ties by vocabulary order), returned in vocabulary order:
    /// what a heatmap or a graph shows of a corpus too large to draw whole.
    pub fn frequent_words(&self, k: usize) -> Vec<usize> {
        let counts = self.word_counts();
        if self.vocabulary.len() <= k {
            return (0..self.vocabulary.len()).collect();
        }
        let mut order = crate::order::top_desc(&counts, k);
        crate::order::sort_usize(&mut order);
        order
    }

    /// The cells (rows × cols) of the count or probability matrix, built from the sparse
    /// counts: a window onto a matrix too large to build densely. Probabilities keep the whole
    /// row's total as denominator, so a cell shows the same value as in the full matrix.
    pub fn submatrix(&self, rows: &[usize], cols: &[usize], probabilities: bool) -> Result<Matrix> {
        check_dense(rows.len(), cols.len())?;
        let mut m = Matrix::zeros(rows.len(), cols.len());
        for (i, &row) in rows.iter().enumerate() {
            for (j, &col) in cols.iter().enumerate() {
                let v = if probabilities { self.probability(row, col) } else { self.count(row, col) };
                m.set(i, j, v);
            }
        }
        Ok(m)
    }

    /// The cells (rows × cols) of T_d, the probability matrix of document `d` alone (zeros if
    /// `d` is out of range): `submatrix` for one document.
    pub fn document_submatrix(&self, d: usize, rows: &[usize], cols: &[usize]) -> Result<Matrix> {
        check_dense(rows.len(), cols.len())?;
        let mut m = Matrix::zeros(rows.len(), cols.len());
        for t in self.document_transitions(d) {
            if let (Some(i), Some(j)) = (rows.iter().position(|&r| r == t.row), cols.iter().position(|&c| c == t.next)) {
                m.set(i, j, t.probability);
            }
        }
        Ok(m)
    }

    /// Dense rows × |V| matrix of counts (refused beyond `MAX_DENSE_CELLS`).
    pub fn counts_matrix(&self) -> Result<Matrix> {
        self.dense(&self.transitions(), |t| t.count)
    }

    /// Dense rows × |V| matrix of probabilities T; a row with no successor stays all zero
    /// (the article's "favor" row).
    pub fn probability_matrix(&self) -> Result<Matrix> {
        self.dense(&self.transitions(), |t| t.probability)
    }

    /// Dense T_d of document `d` (probabilities), same shape as `probability_matrix`.
    pub fn document_matrix(&self, d: usize) -> Result<Matrix> {
        self.dense(&self.document_transitions(d), |t| t.probability)
    }

    fn dense(&self, cells: &[Transition], value: impl Fn(&Transition) -> f32) -> Result<Matrix> {
        check_dense(self.n_rows(), self.vocabulary.len())?;
        let mut m = Matrix::zeros(self.n_rows(), self.vocabulary.len());
        for t in cells {
            m.set(t.row, t.next, value(t));
        }
        Ok(m)
    }

    /// h, the 1 × rows one-hot vector selecting `row`.
    pub fn one_hot(&self, row: usize) -> Result<Matrix> {
        if row >= self.n_rows() {
            return Err(ComputeError::Invalid(format!("A linha {} não existe na matriz.", row + 1)));
        }
        let mut h = Matrix::zeros(1, self.n_rows());
        h.set(0, row, 1.0);
        Ok(h)
    }

    /// h × T: the product that picks `row` out of the probability matrix (1 × |V|).
    pub fn lookup(&self, row: usize) -> Result<Matrix> {
        ops::matmul(&self.one_hot(row)?, &self.probability_matrix()?)
    }

    /// P(sentence) under this model, tokenized with the model's options. With `<START>` the
    /// first word is scored too (P(w₁ | <START>)); without it the first `context` words are
    /// given. With `<END>`, ending there is a step as well. An unknown word or an unseen
    /// transition makes its step (and the product) 0, the log −∞: never NaN.
    pub fn sentence_probability(&self, text: &str) -> Result<SentenceProbability> {
        let words = tokenize_words(text, &self.options.tokenizer, self.options.split_hyphens);
        if words.is_empty() {
            return Err(ComputeError::Invalid("A frase não tem palavras depois da tokenização.".into()));
        }
        let c = self.options.context;
        let mut seq: Vec<(String, Option<usize>)> = Vec::new();
        if self.options.start {
            seq.extend(std::iter::repeat_n((START.to_string(), self.word_index(START)), c));
        }
        seq.extend(words.into_iter().map(|w| {
            let id = self.word_index(&w);
            (w, id)
        }));
        if self.options.end {
            seq.push((END.to_string(), self.word_index(END)));
        }
        if seq.len() <= c {
            return Err(ComputeError::Invalid(format!(
                "A frase precisa de pelo menos {} palavras (ou ative <START>/<END>) para ter uma transição.",
                c + 1
            )));
        }
        let steps: Vec<SentenceStep> = (c..seq.len())
            .map(|k| {
                let window = &seq[k - c..k];
                let ids: Option<Vec<usize>> = window.iter().map(|(_, id)| *id).collect();
                let row = ids.and_then(|ids| self.context_index.get(&ids).copied());
                let p = match (row, seq[k].1) {
                    (Some(r), Some(next)) => self.probability(r, next) as f64,
                    _ => 0.0,
                };
                let context = window.iter().map(|(w, _)| w.as_str()).collect::<Vec<_>>().join(" ");
                SentenceStep { context, word: seq[k].0.clone(), probability: p }
            })
            .collect();
        let probability = steps.iter().map(|s| s.probability).product();
        let log_probability = steps
            .iter()
            .map(|s| if s.probability > 0.0 { s.probability.ln() } else { f64::NEG_INFINITY })
            .sum();
        Ok(SentenceProbability { steps, probability, log_probability })
    }

    /// Samples a sentence: from `<START>` if on, else from the opening words of a random
    /// document; each next word drawn with the row's probabilities. Stops at `<END>`, at a
    /// context never followed (dead end) or at `max_words`: it always terminates.
    pub fn sample(&self, rng: &mut Rng, max_words: usize) -> SampledSentence {
        let c = self.options.context;
        let start = self.word_index(START);
        let end = self.word_index(END);
        let mut window: Vec<usize> = match start {
            Some(s) => vec![s; c],
            None => {
                let openings: Vec<&[usize]> = self
                    .documents
                    .iter()
                    .map(|d| &d[..d.len() - usize::from(end.is_some())])
                    .filter(|d| d.len() >= c)
                    .map(|d| &d[..c])
                    .collect();
                if openings.is_empty() {
                    return SampledSentence { words: Vec::new(), stop: StopReason::DeadEnd };
                }
                openings[rng.below(openings.len() as u64) as usize].to_vec()
            }
        };
        let mut words: Vec<String> =
            window.iter().filter(|&&id| Some(id) != start).map(|&id| self.vocabulary[id].clone()).collect();
        if words.len() >= max_words {
            words.truncate(max_words);
            return SampledSentence { words, stop: StopReason::MaxLength };
        }
        loop {
            let Some(&row) = self.context_index.get(&window) else {
                return SampledSentence { words, stop: StopReason::DeadEnd };
            };
            let list = &self.successors[row];
            let weights: Vec<f32> = list.iter().map(|&(_, n)| n).collect();
            let Some(pick) = weighted_draw(&weights, rng) else {
                return SampledSentence { words, stop: StopReason::DeadEnd };
            };
            let next = list[pick].0;
            if Some(next) == end {
                return SampledSentence { words, stop: StopReason::End };
            }
            words.push(self.vocabulary[next].clone());
            if words.len() >= max_words {
                return SampledSentence { words, stop: StopReason::MaxLength };
            }
            window.remove(0);
            window.push(next);
        }
    }

    fn words_of(&self, ids: &[usize]) -> String {
        ids.iter().map(|&i| self.vocabulary[i].as_str()).collect::<Vec<_>>().join(" ")
    }
}

/// The vocabulary in the requested order, `<START>` first and `<END>` last when on.
fn vocabulary<'a>(tokens: &'a [Vec<String>], options: &'a NgramOptions) -> Result<Vec<String>> {
    let mut seen: HashSet<&'a str> = HashSet::new();
    let mut words: Vec<&'a str> = Vec::new();
    let mut push = |w: &'a str, words: &mut Vec<&'a str>| {
        if seen.insert(w) {
            words.push(w);
        }
    };
    if options.start {
        push(START, &mut words);
    }
    if let VocabularyOrder::Given(given) = &options.order {
        let mut distinct = HashSet::new();
        if let Some(w) = given.iter().find(|w| !distinct.insert(w.as_str())) {
            return Err(ComputeError::Invalid(format!("A palavra «{w}» aparece duas vezes no vocabulário.")));
        }
        for w in given.iter().filter(|w| w.as_str() != START && w.as_str() != END) {
            push(w, &mut words);
        }
    }
    let first_corpus_word = words.len();
    for w in tokens.iter().flatten() {
        push(w, &mut words);
    }
    if options.order == VocabularyOrder::Sorted {
        crate::order::sort_by_cached_key(&mut words[first_corpus_word..], |w| collation_key(w));
    }
    if options.end {
        push(END, &mut words);
    }
    Ok(words.into_iter().map(str::to_string).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(start: bool, end: bool, context: usize) -> NgramOptions {
        NgramOptions { start, end, context, ..Default::default() }
    }

    #[test]
    fn end_marker_makes_rows_stochastic() {
        let m = NgramModel::build(&["a b", "a c"], &opts(true, true, 1)).unwrap();
        assert_eq!(m.vocabulary(), [START, "a", "b", "c", END]);
        let t = m.probability_matrix().unwrap();
        for r in 0..4 {
            let sum: f32 = t.row(r).iter().sum();
            assert!((sum - 1.0).abs() < 1e-6, "row {r}");
        }
        assert_eq!(t.row(4), [0.0; 5]);
    }

    #[test]
    fn second_order_rows_are_observed_pairs() {
        let m = NgramModel::build(&["a b c", "a b d"], &opts(true, false, 2)).unwrap();
        let row = m.row_of(&["a", "b"]).unwrap();
        assert_eq!(m.next_distribution(row), [("c".to_string(), 0.5), ("d".to_string(), 0.5)]);
        assert!(m.row_of(&[START, START]).is_some());
        // The final windows are dead ends.
        let dead = m.row_of(&["b", "c"]).unwrap();
        assert!(m.next_distribution(dead).is_empty());
    }

    #[test]
    fn given_order_rejects_duplicates_and_appends_new_words() {
        let given = |w: &[&str]| VocabularyOrder::Given(w.iter().map(|s| s.to_string()).collect());
        let o = NgramOptions { order: given(&["b", "b"]), ..Default::default() };
        assert!(NgramModel::build(&["a b"], &o).is_err());
        let o = NgramOptions { order: given(&["b", "z"]), ..Default::default() };
        assert_eq!(NgramModel::build(&["a b"], &o).unwrap().vocabulary(), ["b", "z", "a"]);
    }
}
