//! Text vectorisation for the first article: tokens → vocabulary → counts (bag of words),
//! then TF, IDF, TF-IDF, cosine similarity and search.
//!
//! `Corpus` holds the raw counts as a documents × vocabulary `Matrix`; the variants of TF
//! (`tf`) and IDF (`idf`) are applied to it and combined in `tfidf`.

pub mod idf;
pub mod tf;
pub mod tfidf;
pub mod tokenizer;

use std::collections::{BTreeSet, HashMap, HashSet};

use super::error::{ComputeError, Result};
use super::matrix::Matrix;
use tokenizer::{collation_key, tokenize, TokenizerOptions};

/// Largest documents × vocabulary matrix a corpus may have (8 MB of f32). The matrix is
/// dense: measured in Chromium, allocating and filling 7.5 M cells blocked the page for
/// 110 ms, so beyond this `build` refuses with a message instead of freezing the page.
pub const MAX_COUNT_CELLS: usize = 2_000_000;

/// A tokenised corpus and its bag-of-words count matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Corpus {
    /// Tokens per document, after normalisation and stopwords (with a fixed vocabulary, words
    /// outside it are still listed here).
    pub documents: Vec<Vec<String>>,
    /// Column labels of `counts`: sorted by `collation_key`, or the order given to `with_vocabulary`.
    pub vocabulary: Vec<String>,
    /// Raw counts f(w, D): one row per document, one column per vocabulary word.
    pub counts: Matrix,
}

impl Corpus {
    /// Tokenises `texts` and counts every word over the sorted union vocabulary; fails if there
    /// are no documents or no document has a token (an empty document among others is fine).
    pub fn build(texts: &[&str], opts: &TokenizerOptions) -> Result<Corpus> {
        Corpus::from_tokens(tokenize_all(texts, opts)?)
    }

    /// Like `build`, from documents already tokenised (the page tokenises a large paste in
    /// chunks, yielding to the browser between them, then calls this).
    pub fn from_tokens(documents: Vec<Vec<String>>) -> Result<Corpus> {
        check_documents(&documents)?;
        let distinct: HashSet<&str> = documents.iter().flatten().map(String::as_str).collect();
        check_size(documents.len(), distinct.len())?;
        let mut vocabulary: Vec<String> = distinct.into_iter().map(str::to_string).collect();
        crate::order::sort_by_cached_key(&mut vocabulary, |w| collation_key(w));
        Corpus::count(documents, vocabulary)
    }

    /// Like `build`, but the columns are exactly `vocabulary`, in its order (written as the
    /// tokenizer outputs words); tokens outside it are not counted. Fails on an empty or
    /// repeated vocabulary.
    pub fn with_vocabulary(
        texts: &[&str],
        opts: &TokenizerOptions,
        vocabulary: Vec<String>,
    ) -> Result<Corpus> {
        if vocabulary.is_empty() {
            return Err(ComputeError::Invalid("O vocabulário está vazio.".into()));
        }
        let mut seen = BTreeSet::new();
        if let Some(repeated) = vocabulary.iter().find(|w| !seen.insert(w.as_str())) {
            return Err(ComputeError::Invalid(format!(
                "A palavra «{repeated}» aparece duas vezes no vocabulário."
            )));
        }
        Corpus::count(tokenize_all(texts, opts)?, vocabulary)
    }

    fn count(documents: Vec<Vec<String>>, vocabulary: Vec<String>) -> Result<Corpus> {
        let (rows, cols) = (documents.len(), vocabulary.len());
        check_size(rows, cols)?;
        let column = index_of(&vocabulary);
        let mut counts = Matrix::zeros(rows, cols);
        for (d, tokens) in documents.iter().enumerate() {
            for token in tokens {
                if let Some(&w) = column.get(token.as_str()) {
                    counts.set(d, w, counts.get(d, w) + 1.0);
                }
            }
        }
        Ok(Corpus { documents, vocabulary, counts })
    }

    /// The column of `term` in the vocabulary (exact match), if present.
    pub fn term_index(&self, term: &str) -> Option<usize> {
        self.vocabulary.iter().position(|w| w == term)
    }

    /// df(w): for each vocabulary word, how many documents contain it at least once.
    pub fn document_frequency(&self) -> Vec<usize> {
        let counts = self.counts.array();
        counts.columns().into_iter().map(|c| c.iter().filter(|&&f| f > 0.0).count()).collect()
    }

    /// N, the number of documents.
    pub fn n_docs(&self) -> usize {
        self.documents.len()
    }
}

/// One-hot rows (tokens × vocabulary): row t has a single 1 in the column of token t. Tokens
/// outside the vocabulary get an all-zero row; their positions are returned as well.
pub fn one_hot(tokens: &[String], vocabulary: &[String]) -> (Matrix, Vec<usize>) {
    let column = index_of(vocabulary);
    let mut rows = Matrix::zeros(tokens.len(), vocabulary.len());
    let mut unknown = Vec::new();
    for (t, token) in tokens.iter().enumerate() {
        match column.get(token.as_str()) {
            Some(&j) => rows.set(t, j, 1.0),
            None => unknown.push(t),
        }
    }
    (rows, unknown)
}

/// Word → column, for linear-time counting and query vectorisation.
pub(crate) fn index_of(vocabulary: &[String]) -> HashMap<&str, usize> {
    vocabulary.iter().enumerate().map(|(i, w)| (w.as_str(), i)).collect()
}

fn tokenize_all(texts: &[&str], opts: &TokenizerOptions) -> Result<Vec<Vec<String>>> {
    let documents: Vec<Vec<String>> = texts.iter().map(|t| tokenize(t, opts)).collect();
    check_documents(&documents)?;
    Ok(documents)
}

/// Refuses a count matrix beyond `MAX_COUNT_CELLS`, before allocating it.
fn check_size(rows: usize, cols: usize) -> Result<()> {
    if rows.saturating_mul(cols) > MAX_COUNT_CELLS {
        return Err(ComputeError::Invalid(format!(
            "O corpus é grande demais para esta página: {rows} documentos × {cols} palavras \
             passam de {MAX_COUNT_CELLS} células. Junte documentos ou use um trecho menor."
        )));
    }
    Ok(())
}

/// At least one document, and at least one token somewhere.
fn check_documents(documents: &[Vec<String>]) -> Result<()> {
    if documents.is_empty() {
        return Err(ComputeError::Invalid(
            "O corpus está vazio: escreva pelo menos um documento.".into(),
        ));
    }
    if documents.iter().all(Vec::is_empty) {
        return Err(ComputeError::Invalid(
            "Nenhum documento tem palavras depois da tokenização (a pontuação e as stopwords \
             são removidas): escreva pelo menos uma palavra."
                .into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_the_sorted_vocabulary() {
        let c = Corpus::build(&["b a a", "", "c"], &TokenizerOptions::default()).unwrap();
        assert_eq!(c.vocabulary, ["a", "b", "c"]);
        assert_eq!(c.counts.to_rows(), [[2.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0]]);
        assert_eq!(c.document_frequency(), [1, 1, 1]);
        assert_eq!(c.term_index("c"), Some(2));
        assert_eq!(c.term_index("z"), None);
    }

    #[test]
    fn empty_inputs_are_errors_in_portuguese() {
        let opts = TokenizerOptions::default();
        let err = Corpus::build(&[], &opts).unwrap_err().to_string();
        assert!(err.contains("corpus está vazio"), "{err}");
        assert!(Corpus::build(&["", " ... ", "🙂"], &opts).is_err());
        assert!(Corpus::with_vocabulary(&["a"], &opts, vec![]).is_err());
        let err = Corpus::with_vocabulary(&["a"], &opts, vec!["a".into(), "a".into()]).unwrap_err();
        assert!(err.to_string().contains("duas vezes"));
    }

    #[test]
    fn fixed_vocabulary_ignores_other_words() {
        let c = Corpus::with_vocabulary(&["z a y a"], &TokenizerOptions::default(), vec!["y".into(), "a".into()])
            .unwrap();
        assert_eq!(c.counts.to_rows(), [[1.0, 2.0]]);
        assert_eq!(c.documents[0].len(), 4);
    }
}
