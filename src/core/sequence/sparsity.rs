//! Why N cannot grow: |V|^N possible N-grams against the few a corpus actually contains.

use std::collections::{HashMap, HashSet};

/// Largest N the observed-vs-possible table goes to.
pub const MAX_N: usize = 10;

/// |V|^N, the number of possible N-grams over a vocabulary of |V| words, as f64 (50 000⁵
/// overflows u64; the widget shows it in scientific notation anyway).
pub fn possible_ngrams(vocabulary_size: usize, n: u32) -> f64 {
    (vocabulary_size as f64).powi(n as i32)
}

/// |V|^N exactly, when it fits in a u128 (for a widget that prints every digit).
pub fn possible_ngrams_exact(vocabulary_size: usize, n: u32) -> Option<u128> {
    (vocabulary_size as u128).checked_pow(n)
}

/// One line of the observed-vs-possible table.
#[derive(Clone, Debug, PartialEq)]
pub struct SparsityRow {
    /// N, the length of the N-grams.
    pub n: usize,
    /// |V|^N.
    pub possible: f64,
    /// Distinct N-grams seen in the corpus.
    pub observed: usize,
    /// N-gram occurrences (windows of N words inside a document).
    pub occurrences: usize,
    /// observed / possible: the share of the table that is not zero.
    pub coverage: f64,
}

/// For N = 1..=max_n (at most `MAX_N`): possible, observed and covered N-grams of tokenized
/// documents (windows never cross a document boundary). Linear in the corpus for each N.
pub fn sparsity_table(documents: &[Vec<String>], max_n: usize) -> Vec<SparsityRow> {
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let docs: Vec<Vec<usize>> = documents
        .iter()
        .map(|d| {
            d.iter()
                .map(|w| {
                    let next = ids.len();
                    *ids.entry(w.as_str()).or_insert(next)
                })
                .collect()
        })
        .collect();
    let v = ids.len();
    (1..=max_n.min(MAX_N))
        .map(|n| {
            let windows = docs.iter().flat_map(|d| d.windows(n));
            let occurrences = windows.clone().count();
            let observed = windows.collect::<HashSet<&[usize]>>().len();
            let possible = possible_ngrams(v, n as u32);
            let coverage = if possible > 0.0 { observed as f64 / possible } else { 0.0 };
            SparsityRow { n, possible, observed, occurrences, coverage }
        })
        .collect()
}
