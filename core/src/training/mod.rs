//! Training the decoder, written once over `Executor`: the CPU runs it with these functions,
//! WebGPU with their WGSL twins (issue 23), each a training op of the op table (`core::op`).
//!
//! The op-level pieces (each op's gradient, one AdamW step, the squared global norm) are ops
//! like any other, in `ops::backward` and `ops::adamw`, below the op table; this module
//! builds training out of them:
//! - `optim`: AdamW with global-norm clipping and the warm-up + cosine schedule, as `train/`
//!   trains the shipped model;
//! - `model`: the forward pass over a batch that keeps its activations, the backward pass
//!   through the whole decoder, the seeded initialisation and the safetensors export;
//! - `data`: a character tokenizer, batches from a text with a held-out tail, the uniform
//!   and bigram baselines;
//! - `trainer`: a run (weights + AdamW's moments) stepping batch by batch on any backend
//!   (`TrainerOn`), and its snapshot back to the host (`Trainer`, the run on the CPU);
//! - `model_check`: the reader's gradient check of a whole tiny decoder;
//! - `modern_block`: today's block (RMSNorm, RoPE, GQA, SwiGLU; issue 41), forward and
//!   backward over a batch, for the "moderna" architecture.

pub mod data;
pub mod model;
pub mod model_check;
pub mod modern_block;
pub mod optim;
pub mod trainer;

pub use data::{bigram_loss, uniform_loss, Batch, CharTokenizer, Corpus};
pub use model::{gradient_check, GradientProbe};
pub use optim::{AdamW, AdamWOptions};
pub use trainer::{char_config, evaluate, Trainer, TrainerOn};
