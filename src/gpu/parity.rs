//! The parity suite: every kernel against its CPU twin on random inputs. One body, run by
//! the native tests (Vulkan / llvmpipe) and by the browser tests (WebGPU / SwiftShader).

use crate::core::executor::Executor;
use crate::core::ops::{self, SoftmaxOptions};
use crate::core::rng::Rng;
use crate::core::Matrix;

use super::GpuContext;

/// Largest allowed ‖gpu − cpu‖ / ‖cpu‖.
pub const MAX_REL_ERR: f32 = 1e-4;

/// One comparison: what ran, and its relative error.
#[derive(Debug, Clone)]
pub struct Check {
    pub what: String,
    pub rel_err: f32,
}

#[derive(Default)]
struct Report {
    checks: Vec<Check>,
    failures: Vec<String>,
}

impl Report {
    fn compare(&mut self, what: String, gpu: crate::core::error::Result<Matrix>, cpu: &Matrix) {
        match gpu {
            Ok(g) => match g.relative_error(cpu) {
                Some(rel_err) => {
                    if rel_err.is_nan() || rel_err >= MAX_REL_ERR {
                        self.failures.push(format!("{what}: relative error {rel_err:e}"));
                    }
                    self.checks.push(Check { what, rel_err });
                }
                None => self.failures.push(format!("{what}: shape {:?} vs {:?}", g.shape(), cpu.shape())),
            },
            Err(e) => self.failures.push(format!("{what}: GPU error {e}")),
        }
    }
}

/// Runs every kernel on random inputs. `large` adds 512×512 and t = 256 cases (slow on
/// software rasterisers in the browser). Returns every check, or the failures.
pub async fn run_suite(gpu: &GpuContext, rng: &mut Rng, large: bool) -> Result<Vec<Check>, Vec<String>> {
    let mut r = Report::default();

    // From (64, _, 64) on, products run the register-blocked kernel: full tiles, ragged edges, k not a multiple of 16.
    let mut matmul_shapes = vec![(1, 1, 1), (3, 3, 3), (17, 5, 33), (31, 47, 15), (64, 64, 64), (100, 1, 7), (65, 17, 130), (130, 200, 97), (64, 3, 200)];
    let mut square_shapes = vec![(1, 1), (3, 3), (7, 13), (33, 65)];
    if large {
        matmul_shapes.push((512, 512, 512));
        square_shapes.push((512, 512));
    }
    for &(m, k, n) in &matmul_shapes {
        let (a, b) = (rng.matrix(m, k, -1.0, 1.0), rng.matrix(k, n, -1.0, 1.0));
        r.compare(format!("matmul {m}×{k}·{k}×{n}"), gpu.matmul(&a, &b).await, &ops::matmul(&a, &b).unwrap());
        let bt = rng.matrix(n, k, -1.0, 1.0);
        let alpha = rng.uniform(0.1, 2.0);
        r.compare(format!("matmul_bt {m}×{k}·({n}×{k})ᵀ"), gpu.matmul_bt(&a, &bt, alpha).await, &ops::matmul_bt(&a, &bt, alpha).unwrap());
    }

    for &(m, n) in &square_shapes {
        let a = rng.matrix(m, n, -4.0, 4.0);
        let b = rng.matrix(m, n, -4.0, 4.0);
        let bias = rng.matrix(1, n, -1.0, 1.0);
        let shape = format!("{m}×{n}");
        r.compare(format!("relu {shape}"), gpu.relu(&a).await, &ops::relu(&a));
        r.compare(format!("gelu {shape}"), gpu.gelu(&a).await, &ops::gelu(&a));
        r.compare(format!("scale {shape}"), gpu.scale(&a, -0.37).await, &ops::scale(&a, -0.37));
        r.compare(format!("add {shape}"), gpu.add(&a, &b).await, &ops::add(&a, &b).unwrap());
        r.compare(format!("add bias {shape}"), gpu.add(&a, &bias).await, &ops::add(&a, &bias).unwrap());
        r.compare(format!("transpose {shape}"), gpu.transpose(&a).await, &ops::transpose(&a));
        for opts in [
            SoftmaxOptions::default(),
            SoftmaxOptions::causal(),
            SoftmaxOptions { causal: true, causal_offset: 2, temperature: 0.7 },
            SoftmaxOptions { temperature: 3.0, ..Default::default() },
        ] {
            let s = rng.matrix(m, n, -8.0, 8.0);
            r.compare(format!("softmax {shape} {opts:?}"), gpu.softmax_rows(&s, opts).await, &ops::softmax_rows(&s, opts).unwrap());
        }
        let (g, be) = (rng.matrix(1, n, 0.5, 1.5), rng.matrix(1, n, -0.5, 0.5));
        r.compare(format!("layer_norm {shape}"), gpu.layer_norm(&a, &g, &be, 1e-5).await, &ops::layer_norm(&a, &g, &be, 1e-5).unwrap());
    }

    let table = rng.matrix(103, 17, -1.0, 1.0);
    let ids: Vec<u32> = (0..300).map(|_| rng.below(103) as u32).collect();
    r.compare("embedding 103×17, 300 ids".into(), gpu.embedding(&table, &ids).await, &ops::embedding(&table, &ids).unwrap());

    let mut attention_cases = vec![
        (1, 1, 1, 1, false, 0),
        (3, 3, 3, 1, true, 0),
        (5, 5, 8, 2, false, 0),
        (17, 17, 32, 4, true, 0),
        (1, 9, 16, 4, true, 8),
        (70, 70, 64, 4, true, 0),
    ];
    if large {
        attention_cases.push((256, 256, 128, 4, true, 0));
    }
    for (t_q, t_k, d, heads, causal, offset) in attention_cases {
        let (q, k, v) = (rng.matrix(t_q, d, -1.0, 1.0), rng.matrix(t_k, d, -1.0, 1.0), rng.matrix(t_k, d, -1.0, 1.0));
        let want = ops::attention(&q, &k, &v, heads, causal, offset).unwrap();
        let got = gpu.attention(&q, &k, &v, heads, causal, offset).await;
        let what = format!("attention t_q={t_q} t_k={t_k} d={d} h={heads} causal={causal} offset={offset}");
        let (out, weights) = match got {
            Ok(g) => (Ok(g.output), Ok(g.weights)),
            Err(e) => (Err(e.clone()), Err(e)),
        };
        r.compare(format!("{what} output"), out, &want.output);
        r.compare(format!("{what} weights"), weights, &want.weights);
    }

    if r.failures.is_empty() {
        Ok(r.checks)
    } else {
        Err(r.failures)
    }
}
