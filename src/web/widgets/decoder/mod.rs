//! Widgets of the pretrained decoder (core::decoder, core::bpe): the playground, the
//! tokenizer step by step, and the hand-over of a model trained on the page (`trained`).

#[cfg(feature = "models")]
pub mod bpe;
#[cfg(feature = "resident")]
pub mod decoder;
#[cfg(feature = "resident")]
pub mod trained;
