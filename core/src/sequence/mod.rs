//! Sequence models for the second and third articles: Markov chains, N-gram transition
//! matrices, per-document transition vectors, skip-pair votes, masking and the FFN example.
//!
//! One concept per file:
//! - `markov`: row-stochastic matrices, n-step and stationary distributions, sampling;
//! - `ngram`: transition counts/probabilities from a corpus, one-hot lookup, sentence
//!   probability and sampling, with optional `<START>`/`<END>`;
//! - `sparsity`: |V|^N possible N-grams against those observed;
//! - `document`: per-document matrices T_d as vectors, their comparison, likelihood ratios;
//! - `votes`: pairwise skip features (w_i, w_t) voting for the next word;
//! - `masking`: the Hadamard product and masked softmax (additive vs multiplicative);
//! - `ffn_example`: the feature-detector layer with AND neurons;
//! - `softmax_lab`: shift invariance, scale and the Jacobian of the softmax;
//! - `presets`: the articles' corpora and matrices with the settings that reproduce them.
//!
//! Corpora are stored sparsely (successor lists), so a large paste stays linear; dense
//! matrices are only built on request and refused beyond `MAX_DENSE_CELLS`.

pub mod document;
pub mod ffn_example;
pub mod markov;
pub mod masking;
pub mod ngram;
pub mod presets;
pub mod softmax_lab;
pub mod sparsity;
pub mod votes;

use super::error::{ComputeError, Result};
use super::rng::Rng;
use super::text::tokenizer::{tokenize, TokenizerOptions};

/// Largest dense matrix built from a corpus (8 MB of f32), as in `text::MAX_COUNT_CELLS`:
/// beyond it a widget gets a message instead of a frozen page.
pub const MAX_DENSE_CELLS: usize = 2_000_000;

/// Fails before allocating a `rows × cols` dense matrix larger than `MAX_DENSE_CELLS`.
pub(crate) fn check_dense(rows: usize, cols: usize) -> Result<()> {
    if rows.saturating_mul(cols) > MAX_DENSE_CELLS {
        return Err(ComputeError::Invalid(format!(
            "A matriz teria {rows} × {cols} células, mais que o limite de {MAX_DENSE_CELLS}: \
             use um corpus menor para vê-la inteira."
        )));
    }
    Ok(())
}

/// Tokenizes with the shared tokenizer; with `split_hyphens` a hyphen separates words first
/// ("Mostre-me" → mostre, me), as the second article does, while the shared tokenizer alone
/// keeps Portuguese compounds whole ("guarda-chuva").
pub fn tokenize_words(text: &str, opts: &TokenizerOptions, split_hyphens: bool) -> Vec<String> {
    if split_hyphens {
        let spaced: String =
            text.chars().map(|c| if matches!(c, '-' | '\u{2010}' | '\u{2011}') { ' ' } else { c }).collect();
        tokenize(&spaced, opts)
    } else {
        tokenize(text, opts)
    }
}

/// Index drawn with probability proportional to `weights` (negative and non-finite weights
/// count as 0); `None` when nothing has positive weight. Sums in f64 so long rows do not drift.
pub(crate) fn weighted_draw(weights: &[f32], rng: &mut Rng) -> Option<usize> {
    let valid = |w: f32| if w.is_finite() && w > 0.0 { w as f64 } else { 0.0 };
    let total: f64 = weights.iter().map(|&w| valid(w)).sum();
    if !(total > 0.0 && total.is_finite()) {
        return None;
    }
    let target = rng.next_f32() as f64 * total;
    let mut acc = 0.0;
    let mut last = None;
    for (i, &w) in weights.iter().enumerate() {
        if valid(w) > 0.0 {
            acc += valid(w);
            last = Some(i);
            if target < acc {
                return Some(i);
            }
        }
    }
    // Rounding can leave `target` a hair above the last cumulative sum.
    last
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighted_draw_skips_zero_and_invalid_weights() {
        let mut rng = Rng::new(7);
        for _ in 0..200 {
            let i = weighted_draw(&[0.0, f32::NAN, 2.0, -1.0, 1.0], &mut rng).unwrap();
            assert!(i == 2 || i == 4);
        }
        assert_eq!(weighted_draw(&[0.0, -1.0], &mut rng), None);
        assert_eq!(weighted_draw(&[], &mut rng), None);
    }

    #[test]
    fn hyphens_split_only_on_request() {
        let opts = TokenizerOptions::default();
        assert_eq!(tokenize_words("Mostre-me", &opts, true), ["mostre", "me"]);
        assert_eq!(tokenize_words("Mostre-me", &opts, false), ["mostre-me"]);
        assert!(check_dense(2000, 2000).is_err());
        assert!(check_dense(1000, 2000).is_ok());
    }
}
