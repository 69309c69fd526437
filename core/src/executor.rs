//! `Executor`: the one interface every backend implements (CPU here, WebGPU in `crate::gpu`).
//!
//! Composite computations (attention traces, FFNs, later the decoder) are written once,
//! generic over `Executor`, so the CPU and the GPU run the very same sequence of ops.

use super::error::Result;
use super::matrix::Matrix;
use super::ops::{self, AttentionOutput, SoftmaxOptions};

/// Which hardware ran a computation; shown in the footer badge and on `<html data-backend>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    Cpu,
    WebGpu,
}

impl BackendKind {
    /// Label shown to readers.
    pub fn label(self) -> &'static str {
        match self {
            BackendKind::Cpu => "CPU",
            BackendKind::WebGpu => "WebGPU",
        }
    }

    /// Value of the `data-backend` attribute and of `?backend=`.
    pub fn attr(self) -> &'static str {
        match self {
            BackendKind::Cpu => "cpu",
            BackendKind::WebGpu => "webgpu",
        }
    }
}

/// The ops of the compute core. Each mirrors the function of the same name in `core::ops`.
// Futures are not `Send` on the web (wgpu's WebGPU types are not), so no `Send` bound here.
#[allow(async_fn_in_trait)]
pub trait Executor {
    fn kind(&self) -> BackendKind;
    /// Names the part of a job the next ops belong to ("bloco 2"). Backends ignore it; the
    /// tracer (`core::trace::Traced`) groups the ops it records by it.
    fn stage(&self, _name: &str) {}
    /// A (m,k) @ B (k,n) → (m,n).
    async fn matmul(&self, a: &Matrix, b: &Matrix) -> Result<Matrix>;
    /// alpha · A (m,k) @ Bᵀ, B (n,k) → (m,n).
    async fn matmul_bt(&self, a: &Matrix, b: &Matrix, alpha: f32) -> Result<Matrix>;
    /// A (m,n) → (n,m).
    async fn transpose(&self, a: &Matrix) -> Result<Matrix>;
    /// A + B, B the same shape or one row broadcast.
    async fn add(&self, a: &Matrix, b: &Matrix) -> Result<Matrix>;
    /// alpha · A.
    async fn scale(&self, a: &Matrix, alpha: f32) -> Result<Matrix>;
    /// Row softmax with optional causal mask and temperature.
    async fn softmax_rows(&self, a: &Matrix, opts: SoftmaxOptions) -> Result<Matrix>;
    /// Row layer norm with γ, β (1,d).
    async fn layer_norm(&self, x: &Matrix, gamma: &Matrix, beta: &Matrix, eps: f32) -> Result<Matrix>;
    async fn relu(&self, a: &Matrix) -> Result<Matrix>;
    async fn gelu(&self, a: &Matrix) -> Result<Matrix>;
    /// table (vocab,d), ids (t) → (t,d).
    async fn embedding(&self, table: &Matrix, ids: &[u32]) -> Result<Matrix>;
    /// Fused multi-head attention core (no projections).
    async fn attention(
        &self,
        q: &Matrix,
        k: &Matrix,
        v: &Matrix,
        heads: usize,
        causal: bool,
        causal_offset: usize,
    ) -> Result<AttentionOutput>;
}

/// The CPU backend: `core::ops` behind the `Executor` interface.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cpu;

impl Executor for Cpu {
    fn kind(&self) -> BackendKind {
        BackendKind::Cpu
    }
    async fn matmul(&self, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        ops::matmul(a, b)
    }
    async fn matmul_bt(&self, a: &Matrix, b: &Matrix, alpha: f32) -> Result<Matrix> {
        ops::matmul_bt(a, b, alpha)
    }
    async fn transpose(&self, a: &Matrix) -> Result<Matrix> {
        Ok(ops::transpose(a))
    }
    async fn add(&self, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        ops::add(a, b)
    }
    async fn scale(&self, a: &Matrix, alpha: f32) -> Result<Matrix> {
        Ok(ops::scale(a, alpha))
    }
    async fn softmax_rows(&self, a: &Matrix, opts: SoftmaxOptions) -> Result<Matrix> {
        ops::softmax_rows(a, opts)
    }
    async fn layer_norm(&self, x: &Matrix, gamma: &Matrix, beta: &Matrix, eps: f32) -> Result<Matrix> {
        ops::layer_norm(x, gamma, beta, eps)
    }
    async fn relu(&self, a: &Matrix) -> Result<Matrix> {
        Ok(ops::relu(a))
    }
    async fn gelu(&self, a: &Matrix) -> Result<Matrix> {
        Ok(ops::gelu(a))
    }
    async fn embedding(&self, table: &Matrix, ids: &[u32]) -> Result<Matrix> {
        ops::embedding(table, ids)
    }
    async fn attention(
        &self,
        q: &Matrix,
        k: &Matrix,
        v: &Matrix,
        heads: usize,
        causal: bool,
        causal_offset: usize,
    ) -> Result<AttentionOutput> {
        ops::attention(q, k, v, heads, causal, causal_offset)
    }
}

/// Runs a future to completion on the current thread. Only for the CPU backend, whose
/// futures are ready at once (used by native tests and benchmarks).
pub fn block_on_ready<F: std::future::Future>(fut: F) -> F::Output {
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};
    let mut fut = pin!(fut);
    match fut.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => panic!("block_on_ready: future was not ready (not a CPU computation?)"),
    }
}

/// A computation written once over any backend: the web layer runs it on the GPU when
/// there is one, and reruns it on the CPU if the GPU fails.
#[allow(async_fn_in_trait)]
pub trait Job {
    type Output;
    async fn run<E: Executor>(&self, e: &E) -> Result<Self::Output>;
}

/// A shared job runs as the job itself (widgets keep their inputs while the "por dentro"
/// panel keeps the job to run it again).
impl<J: Job> Job for std::rc::Rc<J> {
    type Output = J::Output;
    async fn run<E: Executor>(&self, e: &E) -> Result<Self::Output> {
        (**self).run(e).await
    }
}
