//! The browser benchmark's kernels (`bench.html`): each op of the compute core on shapes the
//! site uses, timed on any `Executor` with an injected clock, reported as milliseconds and
//! GFLOP/s. Timings are measured and shown, never asserted.

use super::attention::feed_forward;
use super::error::Result;
use super::executor::Executor;
use super::ops::SoftmaxOptions;
use super::rng::Rng;
use super::trace::{median, Clock};
use super::Matrix;

/// One benchmark: an op and its shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kernel {
    /// n×n · n×n.
    Matmul(usize),
    /// Row softmax of n×n, causal.
    Softmax(usize),
    /// Layer norm of t×d.
    LayerNorm(usize, usize),
    /// Multi-head attention core: t queries and keys, d wide, h heads, causal.
    Attention { t: usize, d: usize, heads: usize },
    /// FFN t×d → t×4d → t×d (the shipped model's block at d = 192).
    Ffn { t: usize, d: usize },
}

impl Kernel {
    /// What the benchmark page runs, small to large.
    pub const SUITE: [Kernel; 10] = [
        Kernel::Matmul(64),
        Kernel::Matmul(256),
        Kernel::Matmul(512),
        Kernel::Softmax(256),
        Kernel::LayerNorm(128, 192),
        Kernel::Attention { t: 16, d: 192, heads: 6 },
        Kernel::Attention { t: 64, d: 192, heads: 6 },
        Kernel::Attention { t: 256, d: 192, heads: 6 },
        Kernel::Ffn { t: 1, d: 192 },
        Kernel::Ffn { t: 128, d: 192 },
    ];

    pub fn name(&self) -> String {
        match *self {
            Kernel::Matmul(n) => format!("matmul {n}×{n} · {n}×{n}"),
            Kernel::Softmax(n) => format!("softmax {n}×{n}, causal"),
            Kernel::LayerNorm(t, d) => format!("layer norm {t}×{d}"),
            Kernel::Attention { t, d, heads } => format!("atenção t = {t}, d = {d}, {heads} cabeças, causal"),
            Kernel::Ffn { t, d } => format!("FFN {t}×{d} → {t}×{} → {t}×{d}", 4 * d),
        }
    }

    /// Floating-point operations of one run (multiply and add counted apart).
    pub fn flops(&self) -> f64 {
        let f = |x: usize| x as f64;
        match *self {
            Kernel::Matmul(n) => 2.0 * f(n).powi(3),
            Kernel::Softmax(n) => 3.0 * f(n) * f(n),
            Kernel::LayerNorm(t, d) => 8.0 * f(t) * f(d),
            // QKᵀ and AV: 2·t²·d each; the softmax, ~3·h·t².
            Kernel::Attention { t, d, heads } => 4.0 * f(t) * f(t) * f(d) + 3.0 * f(heads) * f(t) * f(t),
            Kernel::Ffn { t, d } => 2.0 * 2.0 * f(t) * f(d) * f(4 * d) + 3.0 * f(t) * f(4 * d) + f(t) * f(d),
        }
    }

    /// The inputs, the same on every backend and every visit (seeded).
    fn inputs(&self) -> Vec<Matrix> {
        let mut rng = Rng::new(0xbe_4c);
        match *self {
            Kernel::Matmul(n) => vec![rng.matrix(n, n, -1.0, 1.0), rng.matrix(n, n, -1.0, 1.0)],
            Kernel::Softmax(n) => vec![rng.matrix(n, n, -4.0, 4.0)],
            Kernel::LayerNorm(t, d) => vec![rng.matrix(t, d, -2.0, 2.0), rng.matrix(1, d, 0.5, 1.5), rng.matrix(1, d, -0.1, 0.1)],
            Kernel::Attention { t, d, .. } => (0..3).map(|_| rng.matrix(t, d, -1.0, 1.0)).collect(),
            Kernel::Ffn { t, d } => vec![
                rng.matrix(t, d, -1.0, 1.0),
                rng.matrix(d, 4 * d, -0.1, 0.1),
                rng.matrix(1, 4 * d, -0.1, 0.1),
                rng.matrix(4 * d, d, -0.1, 0.1),
                rng.matrix(1, d, -0.1, 0.1),
            ],
        }
    }

    /// Records one run on inputs already on the backend (read nothing).
    fn apply<E: Executor>(&self, e: &E, m: &[E::Tensor]) -> Result<E::Tensor> {
        match *self {
            Kernel::Matmul(_) => e.matmul(&m[0], &m[1]),
            Kernel::Softmax(_) => e.softmax_rows(&m[0], SoftmaxOptions::causal()),
            Kernel::LayerNorm(..) => e.layer_norm(&m[0], &m[1], &m[2], 1e-5),
            Kernel::Attention { heads, .. } => Ok(e.attention(&m[0], &m[1], &m[2], heads, true, 0)?.0),
            Kernel::Ffn { .. } => feed_forward(e, &m[0], &m[1], &m[2], &m[3], &m[4]),
        }
    }
}

/// One kernel's result.
#[derive(Clone, Debug)]
pub struct Timing {
    pub kernel: Kernel,
    /// Median over the samples of the time of one run.
    pub median_ms: f64,
    pub gflops: f64,
    /// The output, to check backends against each other.
    pub output: Matrix,
}

/// Times `kernel` on `e` with its inputs on the backend: one warm-up run (compiles GPU
/// pipelines), then `samples` samples of enough runs each to last `min_sample_ms` (the browser
/// clock's resolution is ~0,1 ms), the last run of each sample read back (on a GPU: one
/// submission per sample).
pub async fn time<E: Executor>(e: &E, kernel: Kernel, samples: usize, min_sample_ms: f64, clock: Clock<'_>) -> Result<Timing> {
    let inputs = kernel.inputs().iter().map(|m| e.upload(m)).collect::<Result<Vec<_>>>()?;
    let start = clock();
    let mut output = e.read_one(&kernel.apply(e, &inputs)?).await?;
    let first = (clock() - start).max(1e-3);
    let repeats = ((min_sample_ms / first).ceil() as usize).clamp(1, 200);
    let mut samples_ms = Vec::with_capacity(samples.max(1));
    for _ in 0..samples.max(1) {
        let start = clock();
        let mut last = kernel.apply(e, &inputs)?;
        for _ in 1..repeats {
            last = kernel.apply(e, &inputs)?;
        }
        output = e.read_one(&last).await?;
        samples_ms.push((clock() - start).max(0.0) / repeats as f64);
    }
    let median_ms = median(&samples_ms).unwrap_or(0.0);
    let gflops = if median_ms > 0.0 { kernel.flops() / (median_ms * 1e6) } else { 0.0 };
    Ok(Timing { kernel, median_ms, gflops, output })
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::executor::{block_on_ready, Cpu};

    thread_local! {
        static NOW: Cell<f64> = const { Cell::new(0.0) };
    }

    /// Advances 1 ms per reading.
    fn ticking() -> f64 {
        NOW.with(|n| {
            n.set(n.get() + 1.0);
            n.get()
        })
    }

    #[test]
    fn every_kernel_runs_and_flops_are_counted() {
        for kernel in Kernel::SUITE {
            let t = block_on_ready(time(&Cpu, kernel, 2, 1.0, &ticking)).unwrap();
            assert!(t.output.as_slice().iter().all(|v| v.is_finite()), "{}", kernel.name());
            assert!(t.gflops > 0.0);
        }
        assert_eq!(Kernel::Matmul(2).flops(), 16.0);
    }
}
