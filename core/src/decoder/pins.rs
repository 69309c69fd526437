//! Pinned candidates: words the reader types to follow in the next-token distribution and
//! across the lens's stages, even outside the top 10 (a preset pins the words its claim is
//! about).
//!
//! The model predicts one token at a time, so a word is followed by its first token: the
//! probability of "armário" after a prompt is the probability of the token that starts it
//! (its remaining tokens would need more passes, one per token, and depend on the first). The
//! word is written as it would come next: after a context that does not end in a space, a word
//! that starts with a letter or a digit gets the space that separates words (" eram": the
//! byte-level BPE puts that space in the word's first token); punctuation and a word typed with
//! its own leading space are taken as typed. `Pin::tokens` keeps every token of the word, so a
//! reader sees when the first one is only part of it.

use serde::{Deserialize, Serialize};

use crate::error::{ComputeError, Result};

use super::lens::LensReading;
use super::sampling::rank;
use super::tokenizer::TokenCodec;

/// The most words followed at once.
pub const MAX_PINS: usize = 8;

/// A typed word in the model's distributions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pin {
    /// What the reader typed.
    pub text: String,
    /// The token followed: the word's first, as it would come next.
    pub token: u32,
    /// How that token reads on a chip.
    pub label: String,
    /// Every token of the word as it would come next (`token` is the first).
    pub tokens: Vec<u32>,
    /// Its probability in the next-token distribution given, and its rank there (1 = first).
    pub probability: f32,
    pub rank: usize,
    /// Its probability at every stage of the lens (empty without a lens).
    pub stages: Vec<f32>,
}

/// The words in what the reader typed: separated by commas, semicolons or spaces, repeats
/// dropped, at most `MAX_PINS`.
pub fn parse_words(input: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in input.split(|c: char| c == ',' || c == ';' || c.is_whitespace()).filter(|w| !w.is_empty()) {
        if !words.iter().any(|w| w == word) && words.len() < MAX_PINS {
            words.push(word.to_string());
        }
    }
    words
}

/// The tokens of `word` written as it would come right after `context` (see the module's rule).
pub fn word_tokens(codec: &(impl TokenCodec + ?Sized), context: &str, word: &str) -> Result<Vec<u32>> {
    let word = word.trim_end();
    let starts_word = word.chars().next().is_some_and(char::is_alphanumeric);
    let spaced = !context.is_empty() && !context.ends_with(char::is_whitespace);
    let written = if starts_word && spaced { format!(" {word}") } else { word.to_string() };
    let ids = codec.encode_checked(&written)?;
    if ids.is_empty() {
        return Err(ComputeError::Invalid("Digite uma palavra para acompanhar.".into()));
    }
    Ok(ids)
}

/// Each word of `input` after `context`: its first token's probability in `distribution`
/// (the next-token distribution after `context`) and, with `lens` (read at the same
/// position), at every stage. Words that start with the same token are followed once.
pub fn pin(
    codec: &(impl TokenCodec + ?Sized),
    context: &str,
    input: &str,
    distribution: &[f32],
    lens: Option<&LensReading>,
) -> Result<Vec<Pin>> {
    let mut pins: Vec<Pin> = Vec::new();
    for text in parse_words(input) {
        let tokens = word_tokens(codec, context, &text)?;
        let token = tokens[0];
        if pins.iter().any(|p| p.token == token) {
            continue;
        }
        pins.push(Pin {
            label: codec.label(token),
            probability: distribution.get(token as usize).copied().unwrap_or(0.0),
            rank: rank(distribution, token),
            stages: lens.map(|l| l.trajectory(token)).unwrap_or_default(),
            text,
            token,
            tokens,
        });
    }
    Ok(pins)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bpe::Bpe;

    #[test]
    fn words_are_split_deduplicated_and_capped() {
        assert_eq!(parse_words(" eram, era;eram\nfoi "), vec!["eram", "era", "foi"]);
        assert_eq!(parse_words("a b c d e f g h i j").len(), MAX_PINS);
        assert!(parse_words(" , ").is_empty());
    }

    #[test]
    fn a_word_gets_the_space_that_separates_it_unless_the_context_has_one() {
        let bpe = Bpe::from_merges(Vec::new()).unwrap(); // one token per byte
        assert_eq!(word_tokens(&bpe, "Os meninos", "eram").unwrap(), bpe.encode(" eram"));
        assert_eq!(word_tokens(&bpe, "Os meninos ", "eram").unwrap(), bpe.encode("eram"));
        assert_eq!(word_tokens(&bpe, "Os meninos", ",").unwrap(), bpe.encode(","));
        assert_eq!(word_tokens(&bpe, "", "eram").unwrap(), bpe.encode("eram"));
        assert_eq!(word_tokens(&bpe, "Os", " eram").unwrap(), bpe.encode(" eram"));
    }

    #[test]
    fn a_pin_reads_its_first_token_in_the_distribution() {
        let bpe = Bpe::from_merges(Vec::new()).unwrap();
        let mut distribution = vec![0.0f32; 256];
        distribution[b' ' as usize] = 0.5;
        distribution[b'x' as usize] = 0.3;
        distribution[b'e' as usize] = 0.2;
        // Both words start with the space: followed once.
        let pins = pin(&bpe, "a", "eram era", &distribution, None).unwrap();
        assert_eq!(pins.len(), 1);
        assert_eq!((pins[0].token, pins[0].probability, pins[0].rank, pins[0].tokens.len()), (b' ' as u32, 0.5, 1, 5));
        let pins = pin(&bpe, "a ", "eram, x", &distribution, None).unwrap();
        assert_eq!(pins.iter().map(|p| (p.token, p.rank)).collect::<Vec<_>>(), vec![(b'e' as u32, 3), (b'x' as u32, 2)]);
    }
}
