//! Training the decoder, written once over `Executor`: the CPU runs it with these functions,
//! WebGPU with their WGSL twins (issue 23), each a training op of the op table (`core::op`).
//!
//! - `backward`: the gradient of every op the decoder's forward pass uses, the CPU twin of
//!   each training kernel (`matmul_at`, `sum_rows`, `relu_backward`, `gelu_backward`,
//!   `layer_norm_backward`, `embedding_backward`, `attention_batch`, `attention_backward`,
//!   `cross_entropy`; `softmax_rows_backward` is the part of `attention_backward` the
//!   attention kernels fuse);
//! - `optim`: AdamW with global-norm clipping and the warm-up + cosine schedule, as `train/`
//!   trains the shipped model;
//! - `model`: the forward pass over a batch that keeps its activations, the backward pass
//!   through the whole decoder, the seeded initialisation and the safetensors export;
//! - `data`: a character tokenizer, batches from a text with a held-out tail, the uniform
//!   and bigram baselines;
//! - `trainer`: a run (weights + AdamW's moments) stepping batch by batch on any backend
//!   (`TrainerOn`), and its snapshot back to the host (`Trainer`, the run on the CPU);
//! - `model_check`: the reader's gradient check of a whole tiny decoder.

pub mod backward;
pub mod data;
pub mod model;
pub mod model_check;
pub mod optim;
pub mod trainer;

pub use data::{bigram_loss, uniform_loss, Batch, CharTokenizer, Corpus};
pub use model::{gradient_check, GradientProbe};
pub use optim::{AdamW, AdamWOptions};
pub use trainer::{char_config, evaluate, Trainer, TrainerOn};
