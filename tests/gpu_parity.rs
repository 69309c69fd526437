//! Every WGSL kernel against its CPU twin on random inputs, natively through wgpu/Vulkan
//! (llvmpipe on machines without a GPU). Relative error ‖gpu − cpu‖/‖cpu‖ < 1e-4.
//!
//! The seed is fresh each run and printed; `ATENCAO_SEED=n` replays one. Without a Vulkan
//! adapter the tests print why and pass, unless `ATENCAO_REQUIRE_GPU=1` (set by
//! scripts/test.sh), where a missing adapter fails them.
#![cfg(not(target_arch = "wasm32"))]

use atencao::core::ops::{self, SoftmaxOptions};
use atencao::core::rng::Rng;
use atencao::core::{Executor, Matrix};
use atencao::gpu::GpuContext;

const MAX_REL_ERR: f32 = 1e-4;

fn gpu() -> Option<GpuContext> {
    match pollster::block_on(GpuContext::acquire()) {
        Ok(ctx) => {
            eprintln!("GPU: {}", ctx.adapter_name());
            Some(ctx)
        }
        Err(why) if std::env::var("ATENCAO_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("ATENCAO_REQUIRE_GPU=1 but no GPU adapter: {why}")
        }
        Err(why) => {
            eprintln!("skipped: no GPU adapter ({why}); install mesa-vulkan-drivers for llvmpipe");
            None
        }
    }
}

fn rng(test: &str) -> Rng {
    let seed = std::env::var("ATENCAO_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
    });
    eprintln!("{test}: seed {seed} (replay with ATENCAO_SEED={seed})");
    Rng::new(seed)
}

fn check(what: &str, gpu: &Matrix, cpu: &Matrix) {
    let err = gpu.relative_error(cpu).unwrap_or_else(|| panic!("{what}: shape {:?} vs {:?}", gpu.shape(), cpu.shape()));
    assert!(err < MAX_REL_ERR, "{what}: relative error {err:e}");
}

/// (m, k, n) including 1×1, sizes that are not multiples of the 16-wide tile, and 512.
const MATMUL_SHAPES: &[(usize, usize, usize)] =
    &[(1, 1, 1), (3, 3, 3), (17, 5, 33), (31, 47, 15), (64, 64, 64), (100, 1, 7), (512, 512, 512)];

#[test]
fn matmul_matches_cpu() {
    let Some(gpu) = gpu() else { return };
    let mut rng = rng("matmul");
    for &(m, k, n) in MATMUL_SHAPES {
        let (a, b) = (rng.matrix(m, k, -1.0, 1.0), rng.matrix(k, n, -1.0, 1.0));
        check(&format!("matmul {m}×{k}·{k}×{n}"), &pollster::block_on(gpu.matmul(&a, &b)).unwrap(), &ops::matmul(&a, &b).unwrap());
        let bt = rng.matrix(n, k, -1.0, 1.0);
        let alpha = rng.uniform(0.1, 2.0);
        check(
            &format!("matmul_bt {m}×{k}·({n}×{k})ᵀ"),
            &pollster::block_on(gpu.matmul_bt(&a, &bt, alpha)).unwrap(),
            &ops::matmul_bt(&a, &bt, alpha).unwrap(),
        );
    }
}

#[test]
fn elementwise_kernels_match_cpu() {
    let Some(gpu) = gpu() else { return };
    let mut rng = rng("elementwise");
    for &(m, n) in &[(1, 1), (7, 13), (33, 65), (512, 512)] {
        let a = rng.matrix(m, n, -4.0, 4.0);
        let b = rng.matrix(m, n, -4.0, 4.0);
        let bias = rng.matrix(1, n, -1.0, 1.0);
        check("relu", &pollster::block_on(gpu.relu(&a)).unwrap(), &ops::relu(&a));
        check("gelu", &pollster::block_on(gpu.gelu(&a)).unwrap(), &ops::gelu(&a));
        check("scale", &pollster::block_on(gpu.scale(&a, -0.37)).unwrap(), &ops::scale(&a, -0.37));
        check("add", &pollster::block_on(gpu.add(&a, &b)).unwrap(), &ops::add(&a, &b).unwrap());
        check("add bias", &pollster::block_on(gpu.add(&a, &bias)).unwrap(), &ops::add(&a, &bias).unwrap());
        check("transpose", &pollster::block_on(gpu.transpose(&a)).unwrap(), &ops::transpose(&a));
    }
}

#[test]
fn softmax_matches_cpu() {
    let Some(gpu) = gpu() else { return };
    let mut rng = rng("softmax");
    for &(m, n) in &[(1, 1), (3, 3), (5, 130), (70, 70), (512, 512)] {
        let a = rng.matrix(m, n, -8.0, 8.0);
        for opts in [
            SoftmaxOptions::default(),
            SoftmaxOptions::causal(),
            SoftmaxOptions { causal: true, causal_offset: 2, temperature: 0.7 },
            SoftmaxOptions { temperature: 3.0, ..Default::default() },
        ] {
            check(&format!("softmax {m}×{n} {opts:?}"), &pollster::block_on(gpu.softmax_rows(&a, opts)).unwrap(), &ops::softmax_rows(&a, opts).unwrap());
        }
    }
    // Huge scores stay finite on the GPU too.
    let extreme = Matrix::from_rows(&[[1e30, -1e30, 0.0]]).unwrap();
    assert_eq!(pollster::block_on(gpu.softmax_rows(&extreme, SoftmaxOptions::default())).unwrap().row(0), vec![1.0, 0.0, 0.0]);
}

#[test]
fn layer_norm_matches_cpu() {
    let Some(gpu) = gpu() else { return };
    let mut rng = rng("layer_norm");
    for &(m, n) in &[(1, 1), (4, 3), (9, 100), (512, 512)] {
        let x = rng.matrix(m, n, -3.0, 5.0);
        let (g, b) = (rng.matrix(1, n, 0.5, 1.5), rng.matrix(1, n, -0.5, 0.5));
        check(&format!("layer_norm {m}×{n}"), &pollster::block_on(gpu.layer_norm(&x, &g, &b, 1e-5)).unwrap(), &ops::layer_norm(&x, &g, &b, 1e-5).unwrap());
    }
}

#[test]
fn embedding_matches_cpu() {
    let Some(gpu) = gpu() else { return };
    let mut rng = rng("embedding");
    let table = rng.matrix(103, 17, -1.0, 1.0);
    let ids: Vec<u32> = (0..300).map(|_| rng.below(103) as u32).collect();
    check("embedding", &pollster::block_on(gpu.embedding(&table, &ids)).unwrap(), &ops::embedding(&table, &ids).unwrap());
    assert!(pollster::block_on(gpu.embedding(&table, &[103])).is_err(), "out-of-vocabulary id must be rejected");
}

#[test]
fn fused_attention_matches_cpu() {
    let Some(gpu) = gpu() else { return };
    let mut rng = rng("attention");
    for &(t_q, t_k, d, heads, causal, offset) in &[
        (1, 1, 1, 1, false, 0),
        (3, 3, 3, 1, true, 0),
        (5, 5, 8, 2, false, 0),
        (17, 17, 32, 4, true, 0),
        (1, 9, 16, 4, true, 8),
        (70, 70, 64, 4, true, 0),
        (256, 256, 128, 4, true, 0),
    ] {
        let (q, k, v) = (rng.matrix(t_q, d, -1.0, 1.0), rng.matrix(t_k, d, -1.0, 1.0), rng.matrix(t_k, d, -1.0, 1.0));
        let got = pollster::block_on(gpu.attention(&q, &k, &v, heads, causal, offset)).unwrap();
        let want = ops::attention(&q, &k, &v, heads, causal, offset).unwrap();
        let what = format!("attention t_q={t_q} t_k={t_k} d={d} h={heads} causal={causal}");
        check(&format!("{what} output"), &got.output, &want.output);
        check(&format!("{what} weights"), &got.weights, &want.weights);
    }
}

#[test]
fn golden_example_on_gpu() {
    use atencao::core::attention::{attention_trace, AttentionInputs};
    use atencao::core::examples::textbook_example_2;
    let Some(gpu) = gpu() else { return };
    for causal in [false, true] {
        let inputs = AttentionInputs { causal, ..textbook_example_2() };
        let on_gpu = pollster::block_on(attention_trace(&gpu, &inputs)).unwrap();
        let on_cpu = atencao::core::executor::block_on_ready(attention_trace(&atencao::core::Cpu, &inputs)).unwrap();
        assert!(on_gpu.output.max_abs_diff(&on_cpu.output).unwrap() < 1e-5);
        assert!(on_gpu.weights.max_abs_diff(&on_cpu.weights).unwrap() < 1e-5);
        // Row 2 of the unmasked weights: the corrected 0.3035, 0.2340, 0.4625.
        if !causal {
            let row = on_gpu.weights.row(1);
            for (got, want) in row.iter().zip([0.3035, 0.2340, 0.4625]) {
                assert!((got - want).abs() < 1e-4, "{row:?}");
            }
        }
    }
}

#[test]
fn lost_device_fails_cleanly_and_pool_stays_bounded() {
    let Some(gpu) = gpu() else { return };
    let a = Matrix::from_rows(&[[1.0, 2.0], [3.0, 4.0]]).unwrap();
    for _ in 0..50 {
        pollster::block_on(gpu.matmul(&a, &a)).unwrap();
    }
    // 50 identical runs reuse one set of buffers (uniform, 2 inputs, output, staging)
    // instead of growing the pool.
    assert_eq!(gpu.pooled_buffers(), 5, "pool should hold exactly one matmul's buffers");
    gpu.destroy();
    let err = pollster::block_on(gpu.matmul(&a, &a)).unwrap_err();
    assert!(err.is_gpu_failure(), "{err:?}");
}
