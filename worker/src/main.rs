//! The page's Web Worker (issue 36): resident work off the main thread, so a reader who
//! scrolls, types or clicks while a model trains never waits on it. One worker per page,
//! started by the page (`src/web/resident.rs`) from a small module bootstrap that imports this
//! module (wasm-bindgen's ES-module output), calls `connect` with the way back and hands every
//! message to `receive`. Where the browser refuses a worker, the page imports this same module
//! on the main thread and wires the same two functions: one code path, a note in the widget.
//!
//! - `host`: the two entry points, the replies, the clock and the yield, in a worker or not;
//! - `decoder`: the decoder playgrounds' sessions (generation, the lens, "por dentro");
//! - `device`: the worker's WebGPU device, shared by both;
//! - `train_run`: the `train` widget's run (`core::train_run`), stepped in slices between which
//!   the worker reads its messages (pause, another head, an export).

#[cfg(target_arch = "wasm32")]
mod decoder;
#[cfg(target_arch = "wasm32")]
mod device;
#[cfg(target_arch = "wasm32")]
mod host;
#[cfg(target_arch = "wasm32")]
mod train_run;

/// The module's work starts in `host::connect`; natively there is nothing to run (the binary
/// exists so `cargo test --workspace` checks that it compiles).
fn main() {}
