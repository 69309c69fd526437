//! What turns a prompt into ids and ids back into text, for any model the playground runs:
//! the shipped model's byte-level BPE, or the character vocabulary of a model the reader
//! trained on the page (`training::CharTokenizer`). The session and the playground only
//! need these four operations, so they take either.

use crate::bpe::Bpe;
use crate::error::{ComputeError, Result};
use crate::training::CharTokenizer;

/// The four operations a generation needs from a tokenizer.
pub trait TokenCodec {
    fn vocab_size(&self) -> usize;
    /// The ids of `text`; fails (with a message for the reader) when the vocabulary cannot
    /// spell it (a character vocabulary meets a character it never saw).
    fn encode_checked(&self, text: &str) -> Result<Vec<u32>>;
    fn decode_ids(&self, ids: &[u32]) -> String;
    /// How token `id` reads on a chip (spaces and line breaks made visible).
    fn label(&self, id: u32) -> String;
}

impl TokenCodec for Bpe {
    fn vocab_size(&self) -> usize {
        Bpe::vocab_size(self)
    }

    /// Byte-level: every text has ids.
    fn encode_checked(&self, text: &str) -> Result<Vec<u32>> {
        Ok(self.encode(text))
    }

    fn decode_ids(&self, ids: &[u32]) -> String {
        self.decode(ids)
    }

    fn label(&self, id: u32) -> String {
        self.token_label(id)
    }
}

/// A character made visible on a chip the way `Bpe::token_label` shows the same characters.
fn visible(ch: char) -> String {
    match ch {
        ' ' => "·".into(),
        '\n' => "↵".into(),
        '\t' => "⇥".into(),
        c => c.to_string(),
    }
}

impl TokenCodec for CharTokenizer {
    fn vocab_size(&self) -> usize {
        CharTokenizer::vocab_size(self)
    }

    fn encode_checked(&self, text: &str) -> Result<Vec<u32>> {
        self.encode(text).map_err(|e| ComputeError::Invalid(format!("{e} O modelo treinado só conhece os caracteres do texto em que treinou.")))
    }

    fn decode_ids(&self, ids: &[u32]) -> String {
        self.decode(ids)
    }

    fn label(&self, id: u32) -> String {
        self.decode(&[id]).chars().map(visible).collect()
    }
}

/// Either tokenizer, owned (what a playable model carries).
#[derive(Clone, Debug)]
pub enum Tokenizer {
    Bpe(Bpe),
    Chars(CharTokenizer),
}

impl Tokenizer {
    fn codec(&self) -> &dyn TokenCodec {
        match self {
            Tokenizer::Bpe(b) => b,
            Tokenizer::Chars(c) => c,
        }
    }

    /// "BPE" or "caracteres", for the playground's note.
    pub fn kind_label(&self) -> &'static str {
        match self {
            Tokenizer::Bpe(_) => "BPE",
            Tokenizer::Chars(_) => "caracteres",
        }
    }
}

impl TokenCodec for Tokenizer {
    fn vocab_size(&self) -> usize {
        self.codec().vocab_size()
    }

    fn encode_checked(&self, text: &str) -> Result<Vec<u32>> {
        self.codec().encode_checked(text)
    }

    fn decode_ids(&self, ids: &[u32]) -> String {
        self.codec().decode_ids(ids)
    }

    fn label(&self, id: u32) -> String {
        self.codec().label(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_round_trip_and_read_like_bpe_chips() {
        let chars = Tokenizer::Chars(CharTokenizer::from_text("a casa\ne a asa"));
        let ids = chars.encode_checked("casa a").unwrap();
        assert_eq!(chars.decode_ids(&ids), "casa a");
        let space = chars.encode_checked(" ").unwrap()[0];
        let newline = chars.encode_checked("\n").unwrap()[0];
        let bpe = Bpe::from_merges(Vec::new()).unwrap();
        assert_eq!(chars.label(space), bpe.token_label(b' ' as u32));
        assert_eq!(chars.label(newline), bpe.token_label(b'\n' as u32));
    }

    #[test]
    fn an_unseen_character_is_a_message() {
        let chars = Tokenizer::Chars(CharTokenizer::from_text("abc"));
        let err = chars.encode_checked("abz").unwrap_err().to_string();
        assert!(err.contains("«z»") && err.contains("modelo treinado"), "{err}");
        let bpe = Tokenizer::Bpe(Bpe::from_merges(Vec::new()).unwrap());
        assert_eq!(bpe.encode_checked("abz").unwrap().len(), 3);
    }
}
