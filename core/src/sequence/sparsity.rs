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

/// Words by decreasing frequency (ties by first appearance): the ranking behind Zipf's law.
pub fn rank_frequencies(documents: &[Vec<String>]) -> Vec<(String, usize)> {
    let mut first_seen: Vec<&str> = Vec::new();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for w in documents.iter().flatten() {
        let c = counts.entry(w.as_str()).or_insert(0);
        if *c == 0 {
            first_seen.push(w.as_str());
        }
        *c += 1;
    }
    let mut ranked: Vec<(String, usize)> = first_seen.into_iter().map(|w| (w.to_string(), counts[w])).collect();
    // A stable sort keeps first appearance among equal counts.
    crate::order::sort_by(&mut ranked, |a, b| b.1.cmp(&a.1));
    ranked
}

/// Zipf's law scaled to the most frequent word: f(k) = f(1) / k^s (rank k from 1).
pub fn zipf_expected(top_frequency: f64, rank: usize, s: f64) -> f64 {
    top_frequency / (rank.max(1) as f64).powf(s)
}

/// The exponent s of the least-squares line through (ln k, ln f(k)) (slope = −s); `None` with
/// fewer than two distinct ranks. How closely a corpus follows Zipf's law with s ≈ 1.
pub fn fit_zipf_exponent(frequencies: &[usize]) -> Option<f64> {
    let points: Vec<(f64, f64)> = frequencies
        .iter()
        .enumerate()
        .filter(|(_, &f)| f > 0)
        .map(|(i, &f)| (((i + 1) as f64).ln(), (f as f64).ln()))
        .collect();
    if points.len() < 2 {
        return None;
    }
    let n = points.len() as f64;
    let (mx, my) = (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| -sxy / sxx)
}

/// A count with Portuguese thousands separators: 2500000000 → "2.500.000.000".
pub fn format_thousands(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push('.');
        }
        out.push(c);
    }
    out
}

/// A number in Portuguese scientific notation with up to `decimals` decimals in the mantissa:
/// 2.5e9 → "2,5 × 10⁹", 6.25e18 → "6,25 × 10¹⁸", 8e-4 → "8 × 10⁻⁴"; from 0,001 to 10 000
/// (and 0) it is written plainly.
pub fn format_scientific(value: f64, decimals: usize) -> String {
    if !value.is_finite() {
        return if value.is_nan() { "indefinido".into() } else { "∞".into() };
    }
    if value == 0.0 || (1e-3..10_000.0).contains(&value.abs()) {
        return crate::format::format_pt_short(value as f32, decimals);
    }
    let mut exponent = value.abs().log10().floor() as i32;
    let mut mantissa = value / 10f64.powi(exponent);
    // Rounding can carry the mantissa to 10 (9,9999 → 10,0): renormalise.
    let scale = 10f64.powi(decimals as i32);
    if (mantissa * scale).round() / scale >= 10.0 {
        mantissa /= 10.0;
        exponent += 1;
    }
    let m = format!("{:.*}", decimals, mantissa);
    let m = if m.contains('.') { m.trim_end_matches('0').trim_end_matches('.').to_string() } else { m };
    format!("{} × {}", m.replace('.', ","), crate::format::power_of_ten(exponent))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_portuguese_notation() {
        assert_eq!(format_thousands(2_500_000_000), "2.500.000.000");
        assert_eq!(format_thousands(999), "999");
        assert_eq!(format_scientific(2.5e9, 3), "2,5 × 10⁹");
        assert_eq!(format_scientific(6.25e18, 3), "6,25 × 10¹⁸");
        assert_eq!(format_scientific(9.99996e5, 3), "1 × 10⁶");
        assert_eq!(format_scientific(50.0, 3), "50");
        assert_eq!(format_scientific(8e-4, 3), "8 × 10⁻⁴");
        assert_eq!(format_scientific(0.0, 3), "0");
        assert_eq!(crate::format::power_of_ten(-12), "10⁻¹²");
    }

    #[test]
    fn zipf_ranking_and_exponent() {
        let doc: Vec<String> = "a b a c a b".split(' ').map(String::from).collect();
        assert_eq!(rank_frequencies(&[doc]), [("a".into(), 3), ("b".into(), 2), ("c".into(), 1)]);
        // Exactly f(k) = 120 / k: s = 1.
        let freqs: Vec<usize> = (1..=6).map(|k| 120 / k).collect();
        assert!((fit_zipf_exponent(&freqs).unwrap() - 1.0).abs() < 0.02);
        assert_eq!(fit_zipf_exponent(&[5]), None);
        assert!((zipf_expected(100.0, 4, 1.0) - 25.0).abs() < 1e-12);
    }
}
