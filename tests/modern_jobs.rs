#![cfg(not(target_arch = "wasm32"))]
//! The jobs behind the widgets of "Do Transformer de 2017 aos modelos de hoje" (issue 41,
//! `core::modern`): each against numbers derived by hand or in f64 here, and, where a Vulkan
//! adapter exists (llvmpipe in CI), the same jobs on the GPU against the CPU.

use atencao::core::executor::block_on_ready;
use atencao::core::modern::gqa::{bytes_text, sharings, GqaJob, TOKENS};
use atencao::core::modern::rms_norm::NormsJob;
use atencao::core::modern::rope::{RopeJob, RopeScores};
use atencao::core::modern::swiglu::{ffn_counts, SwigluJob};
use atencao::core::ops::modern::ROPE_THETA;
use atencao::core::{Cpu, Job, Matrix};
use atencao::gpu::GpuContext;

fn cpu<J: Job>(job: &J) -> J::Output {
    block_on_ready(job.run(&Cpu)).unwrap_or_else(|e| panic!("{e}"))
}

fn refused<J: Job>(job: &J) -> String {
    match block_on_ready(job.run(&Cpu)) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

/// The native GPU, or `None` (printed) where no Vulkan adapter exists.
fn gpu() -> Option<GpuContext> {
    match pollster::block_on(GpuContext::acquire()) {
        Ok(ctx) => Some(ctx),
        Err(why) if std::env::var("ATENCAO_REQUIRE_GPU").as_deref() == Ok("1") => panic!("ATENCAO_REQUIRE_GPU=1 but no GPU adapter: {why}"),
        Err(why) => {
            eprintln!("GPU part skipped: no adapter ({why})");
            None
        }
    }
}

fn assert_same(name: &str, gpu: &Matrix, cpu: &Matrix, tolerance: f32) {
    let diff = gpu.max_abs_diff(cpu).unwrap_or_else(|| panic!("{name}: shapes {:?} vs {:?}", gpu.shape(), cpu.shape()));
    assert!(diff < tolerance, "{name}: GPU and CPU differ by {diff}");
}

fn rope_job() -> RopeJob {
    RopeJob { q: vec![1.0, 0.5, -0.3, 0.8], k: vec![0.6, -0.2, 0.9, 0.4], positions: 8, theta: ROPE_THETA }
}

/// qᵀ R(−δ·ω) k summed over pairs, in f64: the score RoPE gives q at m and k at n, δ = m − n.
fn rope_score_by_hand(q: &[f32], k: &[f32], offset: f64, theta: f64) -> f64 {
    let d = q.len();
    (0..d / 2)
        .map(|i| {
            let (q0, q1, k0, k1) = (q[2 * i] as f64, q[2 * i + 1] as f64, k[2 * i] as f64, k[2 * i + 1] as f64);
            let angle = offset * theta.powf(-2.0 * i as f64 / d as f64);
            (q0 * k0 + q1 * k1) * angle.cos() + (q0 * k1 - q1 * k0) * angle.sin()
        })
        .sum()
}

#[test]
fn rope_scores_depend_on_the_offset_only_and_the_added_encoding_s_do_not() {
    let job = rope_job();
    let s: RopeScores = cpu(&job);
    for m in 0..8 {
        for n in 0..8 {
            let want = rope_score_by_hand(&job.q, &job.k, m as f64 - n as f64, ROPE_THETA as f64);
            assert!((s.rotated.get(m, n) as f64 - want).abs() < 1e-5, "q_{m}·k_{n}: {} vs {want}", s.rotated.get(m, n));
        }
    }
    assert!(s.spread_rotated < 1e-5, "RoPE's diagonals spread by {}", s.spread_rotated);
    assert!(s.spread_added > 0.5, "the added encoding's diagonals spread by only {}", s.spread_added);
    // The added encoding's score, by hand: (q + PE(m))·(k + PE(n)).
    let pe = |p: usize, j: usize| {
        let angle = p as f64 / (ROPE_THETA as f64).powf((2 * (j / 2)) as f64 / 4.0);
        if j % 2 == 0 { angle.sin() } else { angle.cos() }
    };
    let added: f64 = (0..4).map(|j| (job.q[j] as f64 + pe(3, j)) * (job.k[j] as f64 + pe(5, j))).sum();
    assert!((s.added.get(3, 5) as f64 - added).abs() < 1e-5, "{} vs {added}", s.added.get(3, 5));
    // A rotation keeps each pair's length; ω₀ = 1, ω₁ = θ^(−1/2).
    for m in 0..8 {
        for i in 0..2 {
            let (a, b) = (s.q_turned.get(m, 2 * i), s.q_turned.get(m, 2 * i + 1));
            let (q0, q1) = (job.q[2 * i], job.q[2 * i + 1]);
            assert!(((a * a + b * b) - (q0 * q0 + q1 * q1)).abs() < 1e-5);
        }
    }
    assert!((s.frequencies[0] - 1.0).abs() < 1e-7 && (s.frequencies[1] - 0.01).abs() < 1e-7, "{:?}", s.frequencies);
    assert_eq!(s.by_offset.len(), 8);
    assert!((s.by_offset[2] - s.rotated.get(7, 5)).abs() < 1e-5);
}

#[test]
fn rope_refuses_what_it_cannot_turn() {
    assert!(refused(&RopeJob { q: vec![1.0, 2.0, 3.0], k: vec![1.0, 2.0, 3.0], ..rope_job() }).contains("par"));
    assert!(refused(&RopeJob { k: vec![1.0, 2.0], ..rope_job() }).contains("mesma largura"));
    assert!(refused(&RopeJob { q: vec![1.0, f32::NAN, 0.0, 1.0], ..rope_job() }).contains("finito"));
    assert!(refused(&RopeJob { q: vec![], ..rope_job() }).contains("pelo menos um"));
    assert!(refused(&RopeJob { positions: 1000, ..rope_job() }).contains("1000"));
}

#[test]
fn layer_norm_forgets_shift_and_scale_rms_norm_only_the_scale() {
    let x = vec![2.0f32, -1.0, 0.5, 3.0, 1.5];
    let n = cpu(&NormsJob { x: x.clone(), shift: 1.0, factor: 2.0 });
    let (mean, square_mean) = (6.0 / 5.0, (4.0 + 1.0 + 0.25 + 9.0 + 2.25) / 5.0);
    let variance: f64 = x.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / 5.0;
    assert!((n.mean as f64 - mean).abs() < 1e-6 && (n.deviation as f64 - variance.sqrt()).abs() < 1e-6);
    assert!((n.root_mean_square as f64 - f64::sqrt(square_mean)).abs() < 1e-6);
    for (j, &v) in x.iter().enumerate() {
        let layer = (v as f64 - mean) / (variance + 1e-5).sqrt();
        let rms = v as f64 / (square_mean + 1e-5).sqrt();
        assert!((n.layer.get(0, j) as f64 - layer).abs() < 1e-5, "LN[{j}]");
        assert!((n.rms.get(0, j) as f64 - rms).abs() < 1e-5, "RMS[{j}]");
    }
    assert!(n.layer_after_shift < 1e-5, "{}", n.layer_after_shift);
    assert!(n.rms_after_shift > 0.1, "{}", n.rms_after_shift);
    assert!(n.layer_after_scale < 1e-5 && n.rms_after_scale < 1e-5, "{} {}", n.layer_after_scale, n.rms_after_scale);
    assert!(n.layer_output_mean.abs() < 1e-6);
    assert!((n.rms_output_mean as f64 - mean / square_mean.sqrt()).abs() < 1e-5);
    assert!(refused(&NormsJob { x: x.clone(), shift: 0.0, factor: 0.0 }).contains("maior que 0"));
    assert!(refused(&NormsJob { x: vec![1.0; 100], shift: 0.0, factor: 1.0 }).contains("até 32"));
}

#[test]
fn swiglu_counts_and_activations() {
    // The article's FFN (d = 512, d_ff = 2048): 2 099 712 parameters with its biases.
    let c = ffn_counts(512, 2048);
    assert_eq!((c.relu, c.swiglu_same_width, c.hidden, c.swiglu_two_thirds), (2_099_712, 3_145_728, 1365, 2_096_640));
    let s = cpu(&SwigluJob::new(8, 32));
    assert_eq!((s.relu_hidden.shape(), s.swiglu_hidden.shape(), s.counts.hidden), ((4, 32), (4, 21), 21));
    assert!(s.relu_zeros > 0.2 && s.relu_zeros < 0.8, "ReLU's zeros: {}", s.relu_zeros);
    assert_eq!(s.swiglu_zeros, 0.0);
    for (i, &x) in s.curve_x.iter().enumerate() {
        assert_eq!(s.curves[0][i], x.max(0.0));
        let silu = x as f64 / (1.0 + (-x as f64).exp());
        assert!((s.curves[2][i] as f64 - silu).abs() < 1e-6, "SiLU({x})");
    }
    assert_eq!((s.curve_x[0], s.curve_x[32]), (-4.0, 4.0));
    assert!(refused(&SwigluJob::new(8, 1000)).contains("1000"));
}

#[test]
fn gqa_shares_keys_within_a_group_and_its_cache_shrinks_by_h_over_g() {
    let g = cpu(&GqaJob::new(8, 2));
    assert_eq!(g.group, 4);
    assert_eq!((g.keys.shape(), g.keys_lent.shape()), ((TOKENS, 8), (TOKENS, 32)));
    // Query head j reads K/V head j / 4: its columns of the lent K are that head's.
    for head in 0..8 {
        for t in 0..TOKENS {
            for c in 0..4 {
                assert_eq!(g.keys_lent.get(t, head * 4 + c), g.keys.get(t, (head / 4) * 4 + c));
            }
        }
    }
    for w in &g.weights {
        for r in 0..TOKENS {
            let row = w.row(r);
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            assert!(row[r + 1..].iter().all(|&v| v == 0.0), "causal");
        }
    }
    assert_ne!(g.weights[0], g.weights[1], "heads of a group differ through their queries");
    // A Llama-sized cache: 32 heads, 8 of K/V, 32 layers, 8 192 tokens, d_h 128, 2 bytes.
    let s = sharings(32, 8, 32, 8192);
    let bytes: Vec<u64> = s.iter().map(|s| s.cache_bytes).collect();
    assert_eq!(bytes, vec![4 << 30, 1 << 30, 128 << 20]);
    assert_eq!(s.iter().map(|s| s.name).collect::<Vec<_>>(), vec!["MHA", "GQA", "MQA"]);
    assert_eq!(s[1].kv_parameters, 2 * 4096 * 1024);
    assert_eq!((bytes_text(4 << 30), bytes_text(128 << 20), bytes_text(1536), bytes_text(12)), ("4 GiB".into(), "128 MiB".into(), "1,5 KiB".into(), "12 bytes".into()));
    assert!(refused(&GqaJob::new(8, 3)).contains("não dividem"));
    assert!(refused(&GqaJob::new(64, 1)).contains("64"));
}

#[test]
fn modern_jobs_agree_on_gpu_and_cpu() {
    let Some(gpu) = gpu() else { return };
    let on_gpu = |job: &RopeJob| pollster::block_on(job.run(&gpu)).unwrap();
    let (g, c) = (on_gpu(&rope_job()), cpu(&rope_job()));
    assert_same("rope: rotated", &g.rotated, &c.rotated, 1e-5);
    assert_same("rope: added", &g.added, &c.added, 1e-5);
    let job = NormsJob { x: vec![2.0, -1.0, 0.5, 3.0, 1.5], shift: 1.0, factor: 2.0 };
    let (g, c) = (pollster::block_on(job.run(&gpu)).unwrap(), cpu(&job));
    assert_same("norms: layer", &g.layer, &c.layer, 1e-5);
    assert_same("norms: rms", &g.rms, &c.rms, 1e-5);
    let job = SwigluJob::new(8, 32);
    let (g, c) = (pollster::block_on(job.run(&gpu)).unwrap(), cpu(&job));
    assert_same("swiglu: hidden", &g.swiglu_hidden, &c.swiglu_hidden, 1e-5);
    assert_same("swiglu: relu hidden", &g.relu_hidden, &c.relu_hidden, 1e-5);
    assert_eq!(g.relu_zeros, c.relu_zeros);
    let job = GqaJob::new(8, 2);
    let (g, c) = (pollster::block_on(job.run(&gpu)).unwrap(), cpu(&job));
    assert_same("gqa: lent keys", &g.keys_lent, &c.keys_lent, 1e-5);
    for (h, (a, b)) in g.weights.iter().zip(&c.weights).enumerate() {
        assert_same(&format!("gqa: head {h}"), a, b, 1e-5);
    }
}
