//! What the browser trainer learns from: a text cut into characters, a training part and a
//! held-out validation tail, random windows of it as batches, and the two levels a model
//! must beat to have learnt anything: guessing uniformly, and a character bigram.

use crate::error::{ComputeError, Result};
use crate::rng::Rng;

/// A character-level tokenizer: the text's distinct characters, sorted, are the vocabulary.
/// Small enough to train in a browser in minutes (V = 99 to 117 for the tutorial's Markdown pages), at the
/// cost of longer sequences than the shipped BPE.
#[derive(Clone, Debug, PartialEq)]
pub struct CharTokenizer {
    chars: Vec<char>,
}

impl CharTokenizer {
    /// The vocabulary of `text`.
    pub fn from_text(text: &str) -> CharTokenizer {
        let mut chars: Vec<char> = text.chars().collect();
        crate::order::sort(&mut chars);
        chars.dedup();
        CharTokenizer { chars }
    }

    pub fn vocab_size(&self) -> usize {
        self.chars.len()
    }

    /// The ids of `text`; fails on a character outside the vocabulary.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>> {
        text.chars()
            .map(|ch| {
                self.chars
                    .binary_search(&ch)
                    .map(|i| i as u32)
                    .map_err(|_| ComputeError::Invalid(format!("O caractere «{ch}» não está no vocabulário.")))
            })
            .collect()
    }

    /// The text of `ids` (ids outside the vocabulary become U+FFFD).
    pub fn decode(&self, ids: &[u32]) -> String {
        ids.iter().map(|&i| self.chars.get(i as usize).copied().unwrap_or('\u{FFFD}')).collect()
    }
}

/// B sequences of T tokens, sequence after sequence, and the same windows shifted by one:
/// position i of `targets` is the token that follows position i of `inputs`.
#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    pub inputs: Vec<u32>,
    pub targets: Vec<u32>,
    /// B.
    pub sequences: usize,
    /// T.
    pub len: usize,
}

/// A tokenized text split into a training part and a validation tail.
#[derive(Clone, Debug)]
pub struct Corpus {
    pub tokenizer: CharTokenizer,
    pub train: Vec<u32>,
    /// The last `validation_fraction` of the text: never sampled for training.
    pub validation: Vec<u32>,
}

impl Corpus {
    /// Tokenizes `text` (its own characters are the vocabulary) and holds out its tail.
    pub fn new(text: &str, validation_fraction: f64) -> Result<Corpus> {
        if !(0.0..1.0).contains(&validation_fraction) {
            return Err(ComputeError::Invalid("A fração de validação fica em [0, 1).".into()));
        }
        let tokenizer = CharTokenizer::from_text(text);
        let mut train = tokenizer.encode(text)?;
        let cut = train.len() - (train.len() as f64 * validation_fraction).round() as usize;
        let validation = train.split_off(cut);
        Ok(Corpus { tokenizer, train, validation })
    }

    /// `sequences` random windows of `len` + 1 training tokens.
    pub fn sample_batch(&self, rng: &mut Rng, sequences: usize, len: usize) -> Result<Batch> {
        sample_windows(&self.train, rng, sequences, len, "caracteres")
    }

    /// The validation tail as consecutive windows of `len` (one sequence each), so every
    /// validation token but the first is predicted once; the remainder shorter than a window
    /// is left out. Their targets are `validation[1..=windows·len]`, which `bigram_loss`
    /// scores too.
    pub fn validation_batches(&self, len: usize) -> Vec<Batch> {
        validation_windows(&self.validation, len, usize::MAX)
    }
}

/// `validation` as consecutive windows of `len` (one sequence each), at most `max` of them.
pub fn validation_windows(validation: &[u32], len: usize, max: usize) -> Vec<Batch> {
    if len == 0 || validation.len() < 2 {
        return Vec::new();
    }
    let windows = ((validation.len() - 1) / len).min(max);
    (0..windows)
        .map(|w| Batch {
            inputs: validation[w * len..(w + 1) * len].to_vec(),
            targets: validation[w * len + 1..(w + 1) * len + 1].to_vec(),
            sequences: 1,
            len,
        })
        .collect()
}

/// `sequences` random windows of `len` + 1 tokens of `train` (`unit` names them in the
/// message when the text is too short): the draws of every training batch.
pub fn sample_windows(train: &[u32], rng: &mut Rng, sequences: usize, len: usize, unit: &str) -> Result<Batch> {
    if train.len() < len + 1 || len == 0 || sequences == 0 {
        return Err(ComputeError::Invalid(format!("O texto de treino tem {} {unit}: pouco para janelas de {len}.", train.len())));
    }
    let mut batch = Batch { inputs: Vec::with_capacity(sequences * len), targets: Vec::with_capacity(sequences * len), sequences, len };
    for _ in 0..sequences {
        let start = rng.below((train.len() - len) as u64) as usize;
        batch.inputs.extend_from_slice(&train[start..start + len]);
        batch.targets.extend_from_slice(&train[start + 1..start + len + 1]);
    }
    Ok(batch)
}

/// The loss of guessing uniformly over V tokens: ln V nats per token.
pub fn uniform_loss(vocab: usize) -> f64 {
    (vocab as f64).ln()
}

/// Mean cross-entropy of the tokens of `batches` (their targets) under a character bigram
/// counted on `train` with add-α smoothing: P(b | a) = (n(a→b) + α) / (n(a→·) + α·V).
/// Counted here rather than with `decoder::bigram::TokenBigram`, which keeps only each
/// token's 48 most frequent successors (enough to show, not to score every pair).
pub fn bigram_loss(train: &[u32], batches: &[Batch], vocab: usize, alpha: f64) -> f64 {
    let mut counts = vec![0u32; vocab * vocab];
    let mut totals = vec![0u32; vocab];
    for pair in train.windows(2) {
        counts[pair[0] as usize * vocab + pair[1] as usize] += 1;
        totals[pair[0] as usize] += 1;
    }
    let (mut sum, mut n) = (0.0f64, 0usize);
    for b in batches {
        for (&a, &next) in b.inputs.iter().zip(&b.targets) {
            let p = (counts[a as usize * vocab + next as usize] as f64 + alpha) / (totals[a as usize] as f64 + alpha * vocab as f64);
            sum -= p.ln();
            n += 1;
        }
    }
    sum / n.max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenizer_round_trips_and_refuses_unknown_characters() {
        let t = CharTokenizer::from_text("atenção é tudo");
        assert_eq!(t.vocab_size(), 11, "a t e n ç ã o, space, é u d");
        let ids = t.encode("tão").unwrap();
        assert_eq!(t.decode(&ids), "tão");
        assert_eq!(t.encode(" ").unwrap(), vec![0], "sorted: the space first");
        assert!(t.encode("x").is_err());
    }

    #[test]
    fn batches_are_windows_shifted_by_one_and_validation_is_held_out() {
        let text: String = (0..200).map(|i| (b'a' + (i % 26) as u8) as char).collect();
        let corpus = Corpus::new(&text, 0.1).unwrap();
        assert_eq!((corpus.train.len(), corpus.validation.len()), (180, 20));
        let mut rng = Rng::new(1);
        let b = corpus.sample_batch(&mut rng, 3, 10).unwrap();
        assert_eq!(b.inputs.len(), 30);
        for (x, y) in b.inputs.iter().zip(&b.targets) {
            assert_eq!((x + 1) % 26, *y, "the alphabet: each target follows its input");
        }
        let val = corpus.validation_batches(6);
        assert_eq!(val.len(), 3);
        assert_eq!(val[1].inputs[0], corpus.validation[6]);
        assert_eq!(val[2].targets[5], corpus.validation[18]);
        // A deterministic text: each letter was followed 6 or 7 times by the next, so the
        // smoothed bigram gives it ≥ 6.01 / 6.26 (a loss under 0.041); uniform is ln 26.
        let loss = bigram_loss(&corpus.train, &val, 26, 0.01);
        assert!(loss > 0.0 && loss < 0.041, "{loss}");
        assert!((uniform_loss(26) - 26f64.ln()).abs() < 1e-12);
        assert!(Corpus::new("ab", 0.0).unwrap().sample_batch(&mut rng, 1, 2).is_err());
    }
}
