//! `Runtime`: where resident work computes, the CPU or a device, as one executor (candle's
//! `Device`, here over the `Executor` trait, since the core knows no wgpu). Its tensors are
//! `Placed`: a host matrix or the device's tensor, and each op matches the two once, so a
//! decoder `Session` or a `TrainRun` is one type whichever side it is on, and moves between
//! the sides without changing type.
//!
//! The one fallback policy for everything resident: on a device failure, the work goes on on
//! the CPU from its last host copy (a job's inputs: `run_job`; the decoder's history, a
//! training run's last snapshot) and says so with a `Fallback`; nothing the reader saw is lost
//! (a token already sampled is kept; training steps after the copy are redone on the same
//! batches).

use crate::error::{ComputeError, Result};
use crate::executor::{BackendKind, Cpu, Executor, Job};
use crate::matrix::{Dims, Matrix};
use crate::op::Op;
use crate::ops::adamw::AdamWStep;
use crate::trace::{run_traced, Clock, Trace};

/// A runtime's tensor: on the host (the CPU side) or on the device.
#[derive(Clone, Debug)]
pub enum Placed<T> {
    Host(Matrix),
    Device(T),
}

/// The CPU, or a device `D` (the site's WebGPU context; a fault-injecting wrapper in tests).
pub enum Runtime<'a, D> {
    Cpu,
    Device(&'a D),
}

impl<D> Clone for Runtime<'_, D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<D> Copy for Runtime<'_, D> {}

/// What a resident computation reports when a device failure sent it to the CPU.
#[derive(Clone, Debug, PartialEq)]
pub struct Fallback {
    /// The device's error.
    pub error: ComputeError,
    /// Where it failed: the training step, or the decoder's tokens in the window.
    pub at: usize,
    /// Where the CPU went on from (the last host copy): `at` when nothing had to be redone.
    pub resumed_from: usize,
}

/// Runs `job` on `rt` with its ops traced; after a device failure, again on the CPU (a job's
/// host copy is its inputs), telling `fell_back` (a callback rather than a returned
/// `Fallback`: this is compiled once per job, and the smaller result weighs less wasm).
pub async fn run_job<J: Job, D: Executor>(job: &J, rt: &Runtime<'_, D>, clock: Clock<'_>, fell_back: &dyn Fn(&ComputeError)) -> Result<(J::Output, Trace)> {
    let mut rt = *rt;
    // One call site for the job, whichever side it runs on.
    loop {
        match run_traced(job, &rt, clock).await {
            Err(error) if error.is_gpu_failure() && rt.kind() != BackendKind::Cpu => {
                fell_back(&error);
                rt = Runtime::Cpu;
            }
            done => return done,
        }
    }
}

fn misplaced() -> ComputeError {
    ComputeError::Invalid("Um tensor está do outro lado (CPU ou GPU) do cálculo.".into())
}

fn on_host<'t, T>(ts: &[&'t Placed<T>]) -> Result<Vec<&'t Matrix>> {
    ts.iter().map(|t| if let Placed::Host(m) = t { Ok(m) } else { Err(misplaced()) }).collect()
}

fn on_device<'t, T>(ts: &[&'t Placed<T>]) -> Result<Vec<&'t T>> {
    ts.iter().map(|t| if let Placed::Device(d) = t { Ok(d) } else { Err(misplaced()) }).collect()
}

impl<D: Executor> Executor for Runtime<'_, D> {
    type Tensor = Placed<D::Tensor>;

    fn kind(&self) -> BackendKind {
        match self {
            Runtime::Cpu => BackendKind::Cpu,
            Runtime::Device(d) => d.kind(),
        }
    }

    fn stage(&self, name: &str) {
        if let Runtime::Device(d) = self {
            d.stage(name);
        }
    }

    fn deferred(&self) -> bool {
        matches!(self, Runtime::Device(d) if d.deferred())
    }

    fn upload(&self, m: &Matrix) -> Result<Self::Tensor> {
        match self {
            Runtime::Cpu => Ok(Placed::Host(m.clone())),
            Runtime::Device(d) => d.upload(m).map(Placed::Device),
        }
    }

    fn upload_ids(&self, ids: &[u32]) -> Result<Self::Tensor> {
        match self {
            Runtime::Cpu => Cpu.upload_ids(ids).map(Placed::Host),
            Runtime::Device(d) => d.upload_ids(ids).map(Placed::Device),
        }
    }

    fn dims(&self, t: &Self::Tensor) -> Dims {
        match (self, t) {
            (Runtime::Device(d), Placed::Device(t)) => d.dims(t),
            (_, Placed::Host(m)) => m.shape(),
            (Runtime::Cpu, Placed::Device(_)) => (0, 0),
        }
    }

    fn apply(&self, op: Op, inputs: &[&Self::Tensor]) -> Result<Vec<Self::Tensor>> {
        match self {
            Runtime::Cpu => Ok(op.run_cpu(&on_host(inputs)?)?.into_iter().map(Placed::Host).collect()),
            Runtime::Device(d) => Ok(d.apply(op, &on_device(inputs)?)?.into_iter().map(Placed::Device).collect()),
        }
    }

    fn write_rows(&self, dst: &mut Self::Tensor, at: usize, src: &Self::Tensor) -> Result<()> {
        match (self, dst, src) {
            (Runtime::Cpu, Placed::Host(dst), Placed::Host(src)) => Cpu.write_rows(dst, at, src),
            (Runtime::Device(d), Placed::Device(dst), Placed::Device(src)) => d.write_rows(dst, at, src),
            _ => Err(misplaced()),
        }
    }

    fn adamw(&self, step: AdamWStep, theta: &mut Self::Tensor, m: &mut Self::Tensor, v: &mut Self::Tensor, grad: &Self::Tensor, norm2: &Self::Tensor) -> Result<()> {
        match (self, theta, m, v) {
            (Runtime::Cpu, Placed::Host(theta), Placed::Host(m), Placed::Host(v)) => {
                let [grad, norm2] = on_host(&[grad, norm2])?[..] else { return Err(misplaced()) };
                Cpu.adamw(step, theta, m, v, grad, norm2)
            }
            (Runtime::Device(d), Placed::Device(theta), Placed::Device(m), Placed::Device(v)) => {
                let [grad, norm2] = on_device(&[grad, norm2])?[..] else { return Err(misplaced()) };
                d.adamw(step, theta, m, v, grad, norm2)
            }
            _ => Err(misplaced()),
        }
    }

    async fn read(&self, tensors: &[&Self::Tensor]) -> Result<Vec<Matrix>> {
        match self {
            Runtime::Cpu => Ok(on_host(tensors)?.into_iter().cloned().collect()),
            Runtime::Device(d) => d.read(&on_device(tensors)?).await,
        }
    }

    fn take_op_times(&self) -> Option<Vec<f64>> {
        match self {
            Runtime::Cpu => None,
            Runtime::Device(d) => d.take_op_times(),
        }
    }
}
