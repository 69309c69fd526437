//! The compute core: pure Rust over `ndarray`, with no web-sys and no wgpu.
//!
//! Everything a widget shows is computed here (or by a GPU kernel that mirrors an op
//! here one for one). Shapes use one vocabulary throughout:
//! `t` tokens (rows), `d` model width, `d_k` query/key width, `h` heads, `d_h = d / h`.

pub mod attention;
pub mod bench;
pub mod bpe;
#[cfg(feature = "checkpoints")]
pub mod checkpoints;
pub mod checksum;
pub mod decimal;
pub mod decoder;
pub mod error;
pub mod examples;
pub mod exact_float;
pub mod executor;
pub mod fault;
pub mod format;
pub mod lanes;
pub mod matrix;
pub mod modern;
pub mod op;
pub mod ops;
pub mod order;
pub mod rng;
pub mod runtime;
pub mod sequence;
pub mod small_matmul;
pub mod text;
pub mod trace;
pub mod train_run;
pub mod training;
pub mod transformer;
pub mod vectors;
pub mod widget_input;
pub mod widget_state;
pub mod wire;

pub use error::ComputeError;
pub use executor::{Cpu, Executor, Job};
pub use matrix::Matrix;
