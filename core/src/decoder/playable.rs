//! The models a decoder playground can run: the shipped one with its BPE and its bigram, or
//! one trained on the page (`train_run`), with the training text's characters (or the shipped
//! BPE) as its tokenizer and a bigram counted on that text. Both run the same forward pass,
//! session and lens; only the label and the prompt presets differ.

use std::rc::Rc;

use super::bigram::TokenBigram;
use super::load::Model;
use super::tokenizer::{TokenCodec, Tokenizer};
use super::weights::DecoderWeights;

/// A model ready for the playground.
pub struct Playable {
    pub weights: Rc<DecoderWeights>,
    pub tokenizer: Tokenizer,
    /// The bigram baseline drawn beside the model's prediction, over the same tokens.
    pub bigram: Option<Rc<TokenBigram>>,
    /// `None`: the shipped model; `Some(label)`: one trained on this page.
    pub trained: Option<String>,
}

impl Playable {
    pub fn shipped(model: &Model, bigram: Rc<TokenBigram>) -> Playable {
        Playable { weights: Rc::new(model.weights.clone()), tokenizer: Tokenizer::Bpe(model.bpe.clone()), bigram: Some(bigram), trained: None }
    }
}

/// What the `train` widget hands over.
pub struct TrainedModel {
    pub weights: DecoderWeights,
    pub tokenizer: Tokenizer,
    /// The training text's ids: the bigram baseline is counted on them, and a prompt the
    /// model can read is taken from them when the current one has characters it never saw.
    pub training_ids: Vec<u32>,
    /// How the playground names it ("treinado nesta página: 300 passos, …").
    pub label: String,
}

impl TrainedModel {
    /// How a playground names a model trained on the page for `step` steps.
    pub fn label(step: usize, validation_loss: Option<f64>) -> String {
        let loss = validation_loss.map_or("—".to_string(), |l| crate::format::format_pt(l as f32, 4));
        format!("treinado nesta página ({step} passos, perda de validação {loss})")
    }

    pub fn into_playable(self) -> Playable {
        let bigram = TokenBigram::count(&self.training_ids, self.tokenizer.vocab_size());
        Playable { weights: Rc::new(self.weights), tokenizer: self.tokenizer, bigram: Some(Rc::new(bigram)), trained: Some(self.label) }
    }

    /// The first words of the training text (about `chars` characters, cut at a space): a
    /// prompt the trained model can read.
    pub fn sample_prompt(&self, chars: usize) -> String {
        let text = self.tokenizer.decode_ids(&self.training_ids[..self.training_ids.len().min(chars * 2)]);
        let cut: String = text.chars().take(chars).collect();
        let words = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
        words.trim().to_string()
    }
}
