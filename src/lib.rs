//! atencao: an interactive, visual tutorial about Transformers, compiled to WebAssembly.
//!
//! Layers, each depending only on the ones above it in this list:
//! - `core` (the `atencao-core` crate, in `core/`): pure-Rust computation (ndarray), tested
//!   natively; the single source of truth. It has no wgpu and no web-sys.
//! - `gpu`: the same ops as WGSL compute shaders through wgpu (WebGPU / Vulkan).
//! - `site`: the table of contents and page prose, generated at build time from `content/`.
//! - `message` (wasm only): a page ↔ worker message as JavaScript carries it, for both sides.
//! - `web` (wasm only): the page shell, widgets and canvas drawing; it draws, never computes.

pub use atencao_core as core;
pub mod gpu;
#[cfg(target_arch = "wasm32")]
pub mod message;
pub mod site;

#[cfg(all(target_arch = "wasm32", feature = "page"))]
pub mod web;
