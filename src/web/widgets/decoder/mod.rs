//! Widgets of the pretrained decoder (core::decoder, core::bpe): the playground, the
//! tokenizer step by step, and the hand-over of a model trained on the page (`trained`).

pub mod bpe;
pub mod decoder;
pub mod trained;
