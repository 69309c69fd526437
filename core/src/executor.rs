//! `Executor`: the one interface every backend implements (the CPU here, WebGPU in
//! `atencao::gpu`).
//!
//! A computation uploads its inputs once, applies ops to tensors that stay on the backend,
//! and reads back only what it shows. On the CPU a tensor is a `Matrix` and each op runs when
//! applied; on the GPU a tensor is a buffer, ops are recorded into one command buffer, and
//! `read` submits them all and brings every requested tensor back in one readback. Composite
//! computations (attention traces, blocks, the decoder) are written once, generic over
//! `Executor`, so both backends run the very same sequence of ops.

use crate::error::Result;
use crate::matrix::{Dims, Matrix};
use crate::op::{ids_tensor, Op};
use crate::ops::adamw::{self, AdamWStep};
use crate::ops::modern::RopePositions;
use crate::ops::{self, SoftmaxOptions};

/// Which hardware ran a computation; shown in the footer badge and on `<html data-backend>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

/// A backend. Ops are synchronous (on the GPU they are only recorded); reading is the one
/// `async` step, where a GPU waits for its results.
// Futures are not `Send` on the web (wgpu's WebGPU types are not), so no `Send` bound here.
#[allow(async_fn_in_trait)]
pub trait Executor {
    /// A matrix that lives on this backend: the CPU's `Matrix`, or a GPU buffer.
    type Tensor: Clone;

    fn kind(&self) -> BackendKind;

    /// Names the part of a job the next ops belong to ("bloco 2"). Backends ignore it; the
    /// tracer (`core::trace::Traced`) groups the ops it records by it.
    fn stage(&self, _name: &str) {}

    /// Whether ops run when something is read (a GPU's command buffer) rather than when applied.
    fn deferred(&self) -> bool {
        false
    }

    /// Puts a host matrix on the backend.
    fn upload(&self, m: &Matrix) -> Result<Self::Tensor>;

    /// Token ids as a (1, t) tensor, for `Op::Embedding`. The caller checks them against the
    /// vocabulary (see `embedding`).
    fn upload_ids(&self, ids: &[u32]) -> Result<Self::Tensor>;

    /// Rows and columns of a tensor.
    fn dims(&self, t: &Self::Tensor) -> Dims;

    /// Runs one op (on a deferred backend: records it) and returns its outputs.
    fn apply(&self, op: Op, inputs: &[&Self::Tensor]) -> Result<Vec<Self::Tensor>>;

    /// Copies `src` into rows `at..` of `dst`, in place (a KV cache's append).
    fn write_rows(&self, dst: &mut Self::Tensor, at: usize, src: &Self::Tensor) -> Result<()>;

    /// One AdamW step of θ with its moments m, v, all three updated in place, from the
    /// gradient and the squared global norm (1,1) that sets the clipping (`ops::adamw::adamw`).
    /// In place rather than an op returning new tensors: a step updates every weight and both
    /// moments, and fresh buffers for all of them each step would churn the GPU's pool (it
    /// keeps a few buffers per size) for no gain, since the old values are never read again.
    fn adamw(
        &self,
        step: AdamWStep,
        theta: &mut Self::Tensor,
        m: &mut Self::Tensor,
        v: &mut Self::Tensor,
        grad: &Self::Tensor,
        norm2: &Self::Tensor,
    ) -> Result<()>;

    /// Brings tensors back to the host, in order. On a deferred backend every op recorded so
    /// far runs first, as one submission, and all the tensors come back in one readback.
    async fn read(&self, tensors: &[&Self::Tensor]) -> Result<Vec<Matrix>>;

    /// After a read: how long each op applied since the previous read ran on the device, in
    /// ms and in the order applied (NaN for an op the device did not time), where the backend
    /// measures that (GPU timestamp queries). `None` when it does not.
    fn take_op_times(&self) -> Option<Vec<f64>> {
        None
    }

    // The ops by name, so computations read like the formulas.

    /// A (m,k) · B (k,n) → (m,n).
    fn matmul(&self, a: &Self::Tensor, b: &Self::Tensor) -> Result<Self::Tensor> {
        single(self.apply(Op::Matmul, &[a, b]))
    }
    /// α · A (m,k) · Bᵀ, B (n,k) → (m,n).
    fn matmul_bt(&self, a: &Self::Tensor, b: &Self::Tensor, alpha: f32) -> Result<Self::Tensor> {
        single(self.apply(Op::MatmulBt { alpha }, &[a, b]))
    }
    /// A (m,n) → (n,m).
    fn transpose(&self, a: &Self::Tensor) -> Result<Self::Tensor> {
        single(self.apply(Op::Transpose, &[a]))
    }
    /// A + B, B the same shape or one row broadcast.
    fn add(&self, a: &Self::Tensor, b: &Self::Tensor) -> Result<Self::Tensor> {
        single(self.apply(Op::Add, &[a, b]))
    }
    /// α · A.
    fn scale(&self, a: &Self::Tensor, alpha: f32) -> Result<Self::Tensor> {
        single(self.apply(Op::Scale { alpha }, &[a]))
    }
    /// Row softmax with optional causal mask and temperature.
    fn softmax_rows(&self, a: &Self::Tensor, opts: SoftmaxOptions) -> Result<Self::Tensor> {
        single(self.apply(Op::SoftmaxRows(opts), &[a]))
    }
    /// Row layer norm with γ, β (1,d).
    fn layer_norm(&self, x: &Self::Tensor, gamma: &Self::Tensor, beta: &Self::Tensor, eps: f32) -> Result<Self::Tensor> {
        single(self.apply(Op::LayerNorm { eps }, &[x, gamma, beta]))
    }
    fn relu(&self, a: &Self::Tensor) -> Result<Self::Tensor> {
        single(self.apply(Op::Relu, &[a]))
    }
    fn gelu(&self, a: &Self::Tensor) -> Result<Self::Tensor> {
        single(self.apply(Op::Gelu, &[a]))
    }
    /// table (vocab,d), ids (t) → (t,d). The ids are checked here, on the host.
    fn embedding(&self, table: &Self::Tensor, ids: &[u32]) -> Result<Self::Tensor> {
        ops::check_vocab(self.dims(table).0, ids)?;
        let ids = self.upload_ids(ids)?;
        single(self.apply(Op::Embedding, &[table, &ids]))
    }
    /// Fused multi-head attention core (no projections): (output (t_q,d), weights (h·t_q, t_k)).
    fn attention(
        &self,
        q: &Self::Tensor,
        k: &Self::Tensor,
        v: &Self::Tensor,
        heads: usize,
        causal: bool,
        causal_offset: usize,
    ) -> Result<(Self::Tensor, Self::Tensor)> {
        let mut outs = self.apply(Op::Attention { heads, causal, causal_offset }, &[q, k, v])?;
        let weights = outs.pop();
        match (outs.pop(), weights) {
            (Some(output), Some(weights)) => Ok((output, weights)),
            _ => Err(crate::error::ComputeError::Invalid("attention devolveu menos de duas matrizes.".into())),
        }
    }
    /// Rows `start..end` of A.
    fn rows(&self, a: &Self::Tensor, start: usize, end: usize) -> Result<Self::Tensor> {
        single(self.apply(Op::Rows { start, end }, &[a]))
    }

    // The training ops (gradients, loss, optimiser): see `core::ops::backward`.

    /// Aᵀ (m,k) · B, A (k,m), B (k,n) → (m,n).
    fn matmul_at(&self, a: &Self::Tensor, b: &Self::Tensor) -> Result<Self::Tensor> {
        single(self.apply(Op::MatmulAt, &[a, b]))
    }
    /// Column sums of A (m,n) → (1,n).
    fn sum_rows(&self, a: &Self::Tensor) -> Result<Self::Tensor> {
        single(self.apply(Op::SumRows, &[a]))
    }
    /// dX of Y = ReLU(X).
    fn relu_backward(&self, x: &Self::Tensor, dy: &Self::Tensor) -> Result<Self::Tensor> {
        single(self.apply(Op::ReluBackward, &[x, dy]))
    }
    /// dX of Y = GELU(X).
    fn gelu_backward(&self, x: &Self::Tensor, dy: &Self::Tensor) -> Result<Self::Tensor> {
        single(self.apply(Op::GeluBackward, &[x, dy]))
    }
    /// (dX, dγ, dβ) of a row layer norm.
    fn layer_norm_backward(&self, x: &Self::Tensor, gamma: &Self::Tensor, dy: &Self::Tensor, eps: f32) -> Result<(Self::Tensor, Self::Tensor, Self::Tensor)> {
        let outs = self.apply(Op::LayerNormBackward { eps }, &[x, gamma, dy])?;
        three(outs)
    }
    /// The table's gradient (vocab,d) from dY (t,d): rows scatter-added by id. The ids are
    /// checked here, on the host.
    fn embedding_backward(&self, dy: &Self::Tensor, ids: &[u32], vocab: usize) -> Result<Self::Tensor> {
        ops::check_vocab(vocab, ids)?;
        let ids = self.upload_ids(ids)?;
        single(self.apply(Op::EmbeddingBackward { vocab }, &[dy, &ids]))
    }
    /// Causal attention of B sequences stacked in the rows: (output (B·t,d), weights (B·h·t,t)).
    fn attention_batch(&self, q: &Self::Tensor, k: &Self::Tensor, v: &Self::Tensor, heads: usize, sequences: usize) -> Result<(Self::Tensor, Self::Tensor)> {
        let mut outs = self.apply(Op::AttentionBatch { heads, sequences }, &[q, k, v])?.into_iter();
        match (outs.next(), outs.next()) {
            (Some(output), Some(weights)) => Ok((output, weights)),
            _ => Err(crate::error::ComputeError::Invalid("attention_batch devolveu menos de duas matrizes.".into())),
        }
    }
    /// (dQ, dK, dV) of `attention_batch`, from its weights and dO.
    #[allow(clippy::too_many_arguments)]
    fn attention_backward(
        &self,
        q: &Self::Tensor,
        k: &Self::Tensor,
        v: &Self::Tensor,
        weights: &Self::Tensor,
        d_out: &Self::Tensor,
        heads: usize,
        sequences: usize,
    ) -> Result<(Self::Tensor, Self::Tensor, Self::Tensor)> {
        three(self.apply(Op::AttentionBackward { heads, sequences }, &[q, k, v, weights, d_out])?)
    }
    /// (mean loss (1,1), dlogits (N,V)) of `targets` under `logits`. The targets are checked
    /// here, on the host.
    fn cross_entropy(&self, logits: &Self::Tensor, targets: &[u32]) -> Result<(Self::Tensor, Self::Tensor)> {
        ops::check_vocab(self.dims(logits).1, targets)?;
        let targets = self.upload_ids(targets)?;
        let mut outs = self.apply(Op::CrossEntropy, &[logits, &targets])?.into_iter();
        match (outs.next(), outs.next()) {
            (Some(loss), Some(dlogits)) => Ok((loss, dlogits)),
            _ => Err(crate::error::ComputeError::Invalid("cross_entropy devolveu menos de duas matrizes.".into())),
        }
    }
    /// acc (1,1) + Σ g² of G.
    fn sum_squares(&self, acc: &Self::Tensor, g: &Self::Tensor) -> Result<Self::Tensor> {
        single(self.apply(Op::SumSquares, &[acc, g]))
    }

    // The modern block (issue 41): `core::ops::modern`'s ops and their gradients.

    /// RoPE on Q or K (B·t, heads·d_h), a sequence's row r at position `at.first` + r.
    fn rope(&self, x: &Self::Tensor, heads: usize, theta: f32, at: RopePositions) -> Result<Self::Tensor> {
        single(self.apply(Op::Rope { heads, theta, at }, &[x]))
    }
    /// dX of `rope` with the same parameters: dY turned back.
    fn rope_backward(&self, dy: &Self::Tensor, heads: usize, theta: f32, at: RopePositions) -> Result<Self::Tensor> {
        single(self.apply(Op::RopeBackward { heads, theta, at }, &[dy]))
    }
    /// γ ⊙ x / √(mean(x²) + ε), row by row.
    fn rms_norm(&self, x: &Self::Tensor, gamma: &Self::Tensor, eps: f32) -> Result<Self::Tensor> {
        single(self.apply(Op::RmsNorm { eps }, &[x, gamma]))
    }
    /// (dX, dγ) of `rms_norm`.
    fn rms_norm_backward(&self, x: &Self::Tensor, gamma: &Self::Tensor, dy: &Self::Tensor, eps: f32) -> Result<(Self::Tensor, Self::Tensor)> {
        two(self.apply(Op::RmsNormBackward { eps }, &[x, gamma, dy])?)
    }
    /// SiLU(gate) ⊙ up.
    fn swiglu(&self, gate: &Self::Tensor, up: &Self::Tensor) -> Result<Self::Tensor> {
        single(self.apply(Op::Swiglu, &[gate, up]))
    }
    /// (dgate, dup) of `swiglu`.
    fn swiglu_backward(&self, gate: &Self::Tensor, up: &Self::Tensor, dh: &Self::Tensor) -> Result<(Self::Tensor, Self::Tensor)> {
        two(self.apply(Op::SwigluBackward, &[gate, up, dh])?)
    }
    /// K or V (t, kv_heads·d_h) widened to (t, heads·d_h) for GQA.
    fn repeat_kv(&self, x: &Self::Tensor, heads: usize, kv_heads: usize) -> Result<Self::Tensor> {
        single(self.apply(Op::RepeatKv { heads, kv_heads }, &[x]))
    }
    /// dX of `repeat_kv`: each group's sum.
    fn repeat_kv_backward(&self, dy: &Self::Tensor, heads: usize, kv_heads: usize) -> Result<Self::Tensor> {
        single(self.apply(Op::RepeatKvBackward { heads, kv_heads }, &[dy]))
    }

    /// Reads one tensor.
    async fn read_one(&self, t: &Self::Tensor) -> Result<Matrix> {
        let mut out = self.read(&[t]).await?;
        out.pop().ok_or_else(|| crate::error::ComputeError::Invalid("leitura vazia".into()))
    }

    /// Reads N tensors in one readback.
    async fn read_n<const N: usize>(&self, tensors: [&Self::Tensor; N]) -> Result<[Matrix; N]> {
        let out = self.read(&tensors).await?;
        out.try_into().map_err(|_| crate::error::ComputeError::Invalid("leitura incompleta".into()))
    }

    /// Runs one op on host matrices: upload, apply, read (tests, one-off products).
    async fn run_op(&self, op: Op, inputs: &[&Matrix]) -> Result<Vec<Matrix>> {
        let uploaded = inputs.iter().map(|m| self.upload(m)).collect::<Result<Vec<_>>>()?;
        let refs: Vec<&Self::Tensor> = uploaded.iter().collect();
        let outs = self.apply(op, &refs)?;
        self.read(&outs.iter().collect::<Vec<_>>()).await
    }
}

fn two<T>(outs: Vec<T>) -> Result<(T, T)> {
    let mut outs = outs.into_iter();
    match (outs.next(), outs.next()) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err(crate::error::ComputeError::Invalid("a operação devolveu menos de duas matrizes.".into())),
    }
}

fn three<T>(outs: Vec<T>) -> Result<(T, T, T)> {
    let mut outs = outs.into_iter();
    match (outs.next(), outs.next(), outs.next()) {
        (Some(a), Some(b), Some(c)) => Ok((a, b, c)),
        _ => Err(crate::error::ComputeError::Invalid("a operação devolveu menos de três matrizes.".into())),
    }
}

fn single<T>(outs: Result<Vec<T>>) -> Result<T> {
    outs?.pop().ok_or_else(|| crate::error::ComputeError::Invalid("a operação não devolveu nada".into()))
}

/// The CPU backend: `core::ops` behind the `Executor` interface. Its tensors are matrices and
/// every op runs when applied.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cpu;

impl Executor for Cpu {
    type Tensor = Matrix;

    fn kind(&self) -> BackendKind {
        BackendKind::Cpu
    }
    fn upload(&self, m: &Matrix) -> Result<Matrix> {
        Ok(m.clone())
    }
    fn upload_ids(&self, ids: &[u32]) -> Result<Matrix> {
        Ok(ids_tensor(ids))
    }
    fn dims(&self, t: &Matrix) -> Dims {
        t.shape()
    }
    fn apply(&self, op: Op, inputs: &[&Matrix]) -> Result<Vec<Matrix>> {
        op.run_cpu(inputs)
    }
    fn write_rows(&self, dst: &mut Matrix, at: usize, src: &Matrix) -> Result<()> {
        ops::write_rows(dst, at, src)
    }
    fn adamw(&self, step: AdamWStep, theta: &mut Matrix, m: &mut Matrix, v: &mut Matrix, grad: &Matrix, norm2: &Matrix) -> Result<()> {
        adamw::adamw(theta, grad, m, v, norm2, step)
    }
    async fn read(&self, tensors: &[&Matrix]) -> Result<Vec<Matrix>> {
        Ok(tensors.iter().map(|t| (*t).clone()).collect())
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
/// there is one, and reruns it on the CPU if the GPU fails. It uploads what it needs, applies
/// its ops and reads back what it returns (one readback on the GPU).
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

/// A·B as a `Job`, so widgets run it on the active backend.
#[derive(Clone, Debug)]
pub struct MatmulJob {
    pub a: Matrix,
    pub b: Matrix,
}

impl Job for MatmulJob {
    type Output = Matrix;
    async fn run<E: Executor>(&self, e: &E) -> Result<Matrix> {
        let product = e.matmul(&e.upload(&self.a)?, &e.upload(&self.b)?)?;
        e.read_one(&product).await
    }
}

/// Row softmax as a `Job` (the masked-softmax widget runs it on the active backend).
#[derive(Clone, Debug)]
pub struct SoftmaxJob {
    pub scores: Matrix,
    pub options: SoftmaxOptions,
}

impl Job for SoftmaxJob {
    type Output = Matrix;
    async fn run<E: Executor>(&self, e: &E) -> Result<Matrix> {
        e.read_one(&e.softmax_rows(&e.upload(&self.scores)?, self.options)?).await
    }
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_ops_are_the_core_functions() {
        let a = Matrix::from_rows(&[[1.0, 2.0], [3.0, 4.0]]).unwrap();
        let e = Cpu;
        let t = e.upload(&a).unwrap();
        let p = e.matmul(&t, &t).unwrap();
        assert_eq!(block_on_ready(e.read_one(&p)).unwrap(), ops::matmul(&a, &a).unwrap());
        let emb = e.embedding(&t, &[1, 1, 0]).unwrap();
        assert_eq!(emb.to_rows(), vec![vec![3.0, 4.0], vec![3.0, 4.0], vec![1.0, 2.0]]);
        assert!(e.embedding(&t, &[2]).is_err(), "id outside the table");
    }

    #[test]
    fn write_rows_appends_in_place() {
        let e = Cpu;
        let mut cache = Matrix::zeros(4, 2);
        e.write_rows(&mut cache, 1, &Matrix::from_rows(&[[5.0, 6.0], [7.0, 8.0]]).unwrap()).unwrap();
        assert_eq!(cache.to_rows(), vec![vec![0.0, 0.0], vec![5.0, 6.0], vec![7.0, 8.0], vec![0.0, 0.0]]);
        assert!(e.write_rows(&mut cache, 3, &Matrix::zeros(2, 2)).is_err(), "past the end");
        assert_eq!(e.rows(&cache, 1, 3).unwrap().to_rows(), vec![vec![5.0, 6.0], vec![7.0, 8.0]]);
    }
}
