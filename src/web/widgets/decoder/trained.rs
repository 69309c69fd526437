//! The models the decoder playground can run, and the hand-over from the `train` widget:
//! "usar no decodificador" offers the weights the reader just trained to every playground on
//! the page, which then runs them exactly as it runs the shipped model (same forward pass,
//! same session, same lens), with the training text's characters as its tokenizer and a
//! character bigram of that text beside it.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use crate::core::decoder::bigram::TokenBigram;
use crate::core::decoder::load::Model;
use crate::core::decoder::tokenizer::{TokenCodec, Tokenizer};
use crate::core::decoder::DecoderWeights;

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

/// Whatever takes a trained model: the decoder playgrounds mounted on the page.
pub trait TakesTrainedModel {
    fn take_trained(self: Rc<Self>, model: Rc<Playable>, prompt: String);
}

thread_local! {
    static PLAYGROUNDS: RefCell<Vec<Weak<dyn TakesTrainedModel>>> = const { RefCell::new(Vec::new()) };
}

/// Called by each playground when it mounts.
pub fn register(playground: Weak<dyn TakesTrainedModel>) {
    PLAYGROUNDS.with(|p| p.borrow_mut().push(playground));
}

/// Hands `model` to every playground on the page; returns how many took it (0: the page has
/// none, and the caller says so).
pub fn offer(model: TrainedModel) -> usize {
    let prompt = model.sample_prompt(40);
    let playable = Rc::new(model.into_playable());
    let live: Vec<Rc<dyn TakesTrainedModel>> = PLAYGROUNDS.with(|p| {
        let mut p = p.borrow_mut();
        p.retain(|w| w.strong_count() > 0);
        p.iter().filter_map(Weak::upgrade).collect()
    });
    for playground in &live {
        playground.clone().take_trained(playable.clone(), prompt.clone());
    }
    live.len()
}
