//! The small pretrained decoder shipped with the site: a GPT-style, decoder-only
//! Transformer trained by `train/` on Machado de Assis, run here on any `Executor`.
//!
//! - `config`: hyperparameters (one struct, shared with the training command);
//! - `safetensors`: the weights file format (F16/F32), checked before use;
//! - `weights`: the tensors as matrices, by block;
//! - `model`: the forward pass (the only one) with a KV cache written in place;
//! - `lens`: the logit lens (the prediction read after each block) and each head's push;
//! - `settle`: where each position's prediction settles, from the lens at every position;
//! - `pins`: words the reader follows in the distribution and the lens (their first token);
//! - `playable`: the models a playground runs (the shipped one, one trained on the page);
//! - `view`: what the playground draws, computed from a session (the widget only draws it);
//! - `protocol`: the messages between a playground and its session in the page's worker;
//! - `session`: a generation: window rule, cache, sampling; movable between backends;
//! - `branches`: each generated token's alternatives, a branch's choices and log-probability;
//! - `tree`: the branches a reader made, each kept whole, and the link of one;
//! - `sampling`: greedy, temperature, top-k, top-p;
//! - `tokenizer`: the BPE or a trained model's characters, behind one interface;
//! - `prose`: the corpus's hard-wrapped lines joined into paragraphs before training.

pub mod bigram;
pub mod branches;
pub mod config;
pub mod fixture;
pub mod lens;
pub mod presets;
pub mod protocol;
pub mod load;
pub mod manifest;
pub mod model;
pub mod pins;
pub mod playable;
pub mod prose;
pub mod safetensors;
pub mod sampling;
pub mod session;
pub mod settle;
pub mod tokenizer;
pub mod tree;
pub mod view;
pub mod weights;

pub use config::{Architecture, DecoderConfig};
pub use lens::{forward_with_lens, forward_with_strip, LensPass, LensReading, LensTaps, LogitParts};
pub use model::{forward, forward_tapped, read_forward, DecoderPass, Forward, ForwardOutput, KvCache, Taps};
pub use session::{History, Session};
pub use tokenizer::{TokenCodec, Tokenizer};
pub use sampling::SamplingOptions;
pub use weights::DecoderWeights;
