//! `Faulty`: an `Executor` that runs every op on `inner` and loses its device at a chosen
//! read, built like the tracer (`trace::Traced`). Native tests put it under a `Runtime` as the
//! "device" to drive the fallback policy (`runtime`) at every step: it reports itself as a
//! deferred WebGPU, so the resident work keeps the host copies it keeps on a real GPU.

use std::cell::Cell;

use crate::error::{ComputeError, Result};
use crate::executor::{BackendKind, Executor};
use crate::matrix::{Dims, Matrix};
use crate::op::Op;
use crate::ops::adamw::AdamWStep;

pub struct Faulty<'a, E> {
    inner: &'a E,
    /// The read (1 for the first) from which the device is lost; every op after fails too.
    fails_at: usize,
    reads: Cell<usize>,
}

impl<'a, E: Executor> Faulty<'a, E> {
    /// A device that is lost at its `fails_at`-th read (`usize::MAX`: never).
    pub fn new(inner: &'a E, fails_at: usize) -> Self {
        Faulty { inner, fails_at, reads: Cell::new(0) }
    }

    /// Reads asked of it so far (the failed ones included).
    pub fn reads(&self) -> usize {
        self.reads.get()
    }

    pub fn lost(&self) -> bool {
        self.reads.get() >= self.fails_at
    }

    fn check(&self) -> Result<()> {
        if self.lost() {
            Err(ComputeError::DeviceLost(format!("perdida de propósito na leitura {}", self.fails_at)))
        } else {
            Ok(())
        }
    }
}

impl<E: Executor> Executor for Faulty<'_, E> {
    type Tensor = E::Tensor;

    fn kind(&self) -> BackendKind {
        BackendKind::WebGpu
    }

    fn deferred(&self) -> bool {
        true
    }

    fn upload(&self, m: &Matrix) -> Result<E::Tensor> {
        self.check()?;
        self.inner.upload(m)
    }

    fn upload_ids(&self, ids: &[u32]) -> Result<E::Tensor> {
        self.check()?;
        self.inner.upload_ids(ids)
    }

    fn dims(&self, t: &E::Tensor) -> Dims {
        self.inner.dims(t)
    }

    fn apply(&self, op: Op, inputs: &[&E::Tensor]) -> Result<Vec<E::Tensor>> {
        self.check()?;
        self.inner.apply(op, inputs)
    }

    fn write_rows(&self, dst: &mut E::Tensor, at: usize, src: &E::Tensor) -> Result<()> {
        self.check()?;
        self.inner.write_rows(dst, at, src)
    }

    fn adamw(&self, step: AdamWStep, theta: &mut E::Tensor, m: &mut E::Tensor, v: &mut E::Tensor, grad: &E::Tensor, norm2: &E::Tensor) -> Result<()> {
        self.check()?;
        self.inner.adamw(step, theta, m, v, grad, norm2)
    }

    async fn read(&self, tensors: &[&E::Tensor]) -> Result<Vec<Matrix>> {
        self.reads.set(self.reads.get() + 1);
        self.check()?;
        self.inner.read(tensors).await
    }
}
