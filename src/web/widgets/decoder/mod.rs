//! Widgets of the pretrained decoder (core::decoder, core::bpe): the playground and the
//! tokenizer step by step.

pub mod bpe;
pub mod decoder;
