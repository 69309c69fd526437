//! The run's tokens: the text cut by one of two tokenizers, and the token stream split into a
//! training part and a held-out tail.
//!
//! - one token per character, the text's distinct characters as the vocabulary
//!   (`training::CharTokenizer`): small (V ≈ 75 for the preset story), long sequences;
//! - the shipped decoder's byte-level BPE (`static/model/tokenizer.json`, V = 2 048): about
//!   three characters a token, so a window of T tokens sees three times as much text, at the
//!   price of a larger embedding and output head.
//!
//! Either is a `decoder::tokenizer::Tokenizer`, the type the playground runs a model with, so a
//! trained model goes there as it is. `Tokens` draws batches as `training::Corpus` does (the
//! same draws from the same generator), for either tokenizer: `Corpus` owns a `CharTokenizer`.

use crate::decoder::tokenizer::Tokenizer;
use crate::error::{ComputeError, Result};
use crate::rng::Rng;
use crate::training::Batch;

/// The unit of the losses (nats per …) and of the counts the widget shows.
pub fn token_unit(tokenizer: &Tokenizer) -> &'static str {
    match tokenizer {
        Tokenizer::Chars(_) => "caractere",
        Tokenizer::Bpe(_) => "token",
    }
}

/// A token stream split into a training part and a validation tail.
#[derive(Clone, Debug)]
pub struct Tokens {
    pub train: Vec<u32>,
    /// The last tokens: never sampled for training.
    pub validation: Vec<u32>,
}

impl Tokens {
    /// Holds out the last `fraction` of `ids` (rounded as `training::Corpus::new` does), and at
    /// least `window + 1` tokens; the training part keeps at least `2·(window + 1)`.
    pub fn split(mut ids: Vec<u32>, fraction: f64, window: usize, unit: &str) -> Result<Tokens> {
        let need = 3 * (window + 1);
        if ids.len() < need {
            return Err(ComputeError::Invalid(format!(
                "O texto tem {} {unit}s; com contexto {window} são precisos pelo menos {need}.",
                ids.len()
            )));
        }
        let held = ((ids.len() as f64 * fraction).round() as usize).max(window + 1);
        let validation = ids.split_off(ids.len() - held);
        Ok(Tokens { train: ids, validation })
    }

    /// `sequences` random windows of `len` + 1 training tokens (`training::Corpus::sample_batch`'s draws).
    pub fn sample_batch(&self, rng: &mut Rng, sequences: usize, len: usize) -> Result<Batch> {
        crate::training::data::sample_windows(&self.train, rng, sequences, len, "tokens")
    }

    /// The validation tail as consecutive windows of `len`, at most `max` of them.
    pub fn validation_batches(&self, len: usize, max: usize) -> Vec<Batch> {
        crate::training::data::validation_windows(&self.validation, len, max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bpe::Bpe;
    use crate::decoder::tokenizer::TokenCodec;
    use crate::training::Corpus;

    #[test]
    fn the_same_batches_as_the_corpus() {
        let text: String = (0..500).map(|i| (b'a' + (i * 7 % 26) as u8) as char).collect();
        let corpus = Corpus::new(&text, 0.1).unwrap();
        let tokenizer = Tokenizer::Chars(corpus.tokenizer.clone());
        let tokens = Tokens::split(tokenizer.encode_checked(&text).unwrap(), 0.1, 16, "caractere").unwrap();
        assert_eq!((&tokens.train, &tokens.validation), (&corpus.train, &corpus.validation));
        let (mut a, mut b) = (Rng::new(4), Rng::new(4));
        assert_eq!(tokens.sample_batch(&mut a, 3, 16).unwrap(), corpus.sample_batch(&mut b, 3, 16).unwrap());
        assert_eq!(tokens.validation_batches(16, 99), corpus.validation_batches(16));
        assert_eq!(tokens.validation_batches(16, 1).len(), 1);
        assert!(Tokens::split(vec![1; 20], 0.1, 16, "token").unwrap_err().to_string().contains("51"));
    }

    #[test]
    fn the_bpe_cuts_the_text_in_fewer_tokens() {
        let text = "a casa de pedra e a casa de barro, ".repeat(40);
        let t = Tokenizer::Bpe(Bpe::train([text.as_str()], 300).unwrap());
        let ids = t.encode_checked(&text).unwrap();
        assert!(ids.len() * 2 < text.len());
        assert_eq!(t.decode_ids(&ids), text);
        assert_eq!(token_unit(&t), "token");
    }
}
