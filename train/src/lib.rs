//! The training side of the decoder: the model in candle (`model`) and its optimiser
//! (`optim`). A library so the training command (`src/main.rs`) and the benchmarks against
//! the site's own forward pass (`benches/vs_candle.rs`) share one implementation.

pub mod model;
pub mod optim;
