//! Training the decoder, on the CPU: the reference the browser's training (issue 23) will
//! mirror on WebGPU kernel for kernel.
//!
//! - `backward`: the gradient of every op the decoder's forward pass uses, one function per
//!   future WGSL kernel (`matmul_at`, `sum_rows`, `relu_backward`, `gelu_backward`,
//!   `layer_norm_backward`, `embedding_backward`, `softmax_rows_backward`,
//!   `attention_backward`, `cross_entropy`);
//! - `optim`: AdamW with global-norm clipping and the warm-up + cosine schedule, as `train/`
//!   trains the shipped model;
//! - `model`: the forward pass over a batch that keeps its activations, the backward pass
//!   through the whole decoder, the seeded initialisation and the safetensors export;
//! - `data`: a character tokenizer, batches from a text with a held-out tail, the uniform
//!   and bigram baselines;
//! - `trainer`: a run (weights + optimiser) stepping batch by batch.

pub mod backward;
pub mod data;
pub mod model;
pub mod optim;
pub mod trainer;

pub use data::{bigram_loss, uniform_loss, Batch, CharTokenizer, Corpus};
pub use model::{gradient_check, GradientProbe};
pub use optim::{AdamW, AdamWOptions};
pub use trainer::{char_config, evaluate, Trainer, TrainerOn};
