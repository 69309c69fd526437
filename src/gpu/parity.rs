//! The parity suite: every kernel against its CPU twin on random inputs, and random chains of
//! ops run as one submission against the same chain on the CPU. One body, run by the native
//! tests (Vulkan / llvmpipe) and by the browser tests (WebGPU / SwiftShader).

use crate::core::executor::{Cpu, Executor};
use crate::core::op::{Op, OpKind};
use crate::core::ops::adamw as optim;
use crate::core::ops::modern::{self, RopePositions};
use crate::core::ops::{self, backward, SoftmaxOptions};
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
                        self.failures.push(format!("{what}: relative error {rel_err}"));
                    }
                    self.checks.push(Check { what, rel_err });
                }
                None => self.failures.push(format!("{what}: shape {:?} vs {:?}", g.shape(), cpu.shape())),
            },
            Err(e) => self.failures.push(format!("{what}: GPU error {e}")),
        }
    }

    /// Every output of one op, by name.
    fn compare_all(&mut self, what: &str, names: &[&str], gpu: crate::core::error::Result<Vec<Matrix>>, cpu: &[Matrix]) {
        match gpu {
            Ok(values) if values.len() == cpu.len() => {
                for ((name, g), c) in names.iter().zip(values).zip(cpu) {
                    self.compare(format!("{what} {name}"), Ok(g), c);
                }
            }
            Ok(values) => self.failures.push(format!("{what}: {} results instead of {}", values.len(), cpu.len())),
            Err(e) => self.failures.push(format!("{what}: GPU error {e}")),
        }
    }
}

/// One op on the GPU (upload, apply, read: one submission), its first output.
async fn on_gpu(gpu: &GpuContext, op: Op, inputs: &[&Matrix]) -> crate::core::error::Result<Matrix> {
    let mut outs = gpu.run_op(op, inputs).await?;
    Ok(outs.remove(0))
}

/// Runs every kernel on random inputs. `large` adds 512×512 and t = 256 cases (slow on
/// software rasterisers in the browser). Returns every check, or the failures.
pub async fn run_suite(gpu: &GpuContext, rng: &mut Rng, large: bool) -> Result<Vec<Check>, Vec<String>> {
    let mut r = Report::default();

    // Up to (16, _, 16) products run the barrier-free kernel (a long k included); up to 4 rows of
    // C wider than that, the k-splitting one (a decoder's token: k of 192 and 768, ragged
    // columns, k shorter than its 16 lanes); from (64, _, 64) on, the register-blocked one:
    // full tiles, ragged edges, k not a multiple of 16.
    let mut matmul_shapes = vec![
        (1, 1, 1), (3, 3, 3), (16, 70, 16), (2, 9, 11), (1, 192, 200), (1, 768, 192), (4, 5, 33), (3, 37, 17),
        (17, 5, 33), (31, 47, 15), (64, 64, 64), (100, 1, 7), (65, 17, 130), (130, 200, 97), (64, 3, 200),
    ];
    // Rows of up to 64 columns run softmax_small.wgsl (70 rows: two of its workgroups), wider ones softmax.wgsl.
    let mut square_shapes = vec![(1, 1), (3, 3), (7, 13), (70, 64), (33, 65)];
    if large {
        matmul_shapes.push((512, 512, 512));
        square_shapes.push((512, 512));
    }
    for &(m, k, n) in &matmul_shapes {
        let (a, b) = (rng.matrix(m, k, -1.0, 1.0), rng.matrix(k, n, -1.0, 1.0));
        r.compare(format!("matmul {m}×{k}·{k}×{n}"), on_gpu(gpu, Op::Matmul, &[&a, &b]).await, &ops::matmul(&a, &b).unwrap());
        let bt = rng.matrix(n, k, -1.0, 1.0);
        let alpha = rng.uniform(0.1, 2.0);
        r.compare(
            format!("matmul_bt {m}×{k}·({n}×{k})ᵀ"),
            on_gpu(gpu, Op::MatmulBt { alpha }, &[&a, &bt]).await,
            &ops::matmul_bt(&a, &bt, alpha).unwrap(),
        );
    }

    for &(m, n) in &square_shapes {
        let a = rng.matrix(m, n, -4.0, 4.0);
        let b = rng.matrix(m, n, -4.0, 4.0);
        let bias = rng.matrix(1, n, -1.0, 1.0);
        let shape = format!("{m}×{n}");
        r.compare(format!("relu {shape}"), on_gpu(gpu, Op::Relu, &[&a]).await, &ops::relu(&a));
        r.compare(format!("gelu {shape}"), on_gpu(gpu, Op::Gelu, &[&a]).await, &ops::gelu(&a));
        r.compare(format!("scale {shape}"), on_gpu(gpu, Op::Scale { alpha: -0.37 }, &[&a]).await, &ops::scale(&a, -0.37));
        r.compare(format!("add {shape}"), on_gpu(gpu, Op::Add, &[&a, &b]).await, &ops::add(&a, &b).unwrap());
        r.compare(format!("add bias {shape}"), on_gpu(gpu, Op::Add, &[&a, &bias]).await, &ops::add(&a, &bias).unwrap());
        r.compare(format!("transpose {shape}"), on_gpu(gpu, Op::Transpose, &[&a]).await, &ops::transpose(&a));
        for opts in [
            SoftmaxOptions::default(),
            SoftmaxOptions::causal(),
            SoftmaxOptions { causal: true, causal_offset: 2, temperature: 0.7 },
            SoftmaxOptions { temperature: 3.0, ..Default::default() },
        ] {
            let s = rng.matrix(m, n, -8.0, 8.0);
            r.compare(format!("softmax_rows {shape} {opts:?}"), on_gpu(gpu, Op::SoftmaxRows(opts), &[&s]).await, &ops::softmax_rows(&s, opts).unwrap());
        }
        let (g, be) = (rng.matrix(1, n, 0.5, 1.5), rng.matrix(1, n, -0.5, 0.5));
        r.compare(
            format!("layer_norm {shape}"),
            on_gpu(gpu, Op::LayerNorm { eps: 1e-5 }, &[&a, &g, &be]).await,
            &ops::layer_norm(&a, &g, &be, 1e-5).unwrap(),
        );
        let start = rng.below(m as u64) as usize;
        r.compare(format!("rows {start}..{m} of {shape}"), on_gpu(gpu, Op::Rows { start, end: m }, &[&a]).await, &ops::rows(&a, start, m));
    }

    let table = rng.matrix(103, 17, -1.0, 1.0);
    let ids: Vec<u32> = (0..300).map(|_| rng.below(103) as u32).collect();
    let gathered = async {
        let t = gpu.upload(&table)?;
        let out = gpu.embedding(&t, &ids)?;
        gpu.read_one(&out).await
    };
    r.compare("embedding 103×17, 300 ids".into(), gathered.await, &ops::embedding(&table, &ids).unwrap());

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
        let got = gpu.run_op(Op::Attention { heads, causal, causal_offset: offset }, &[&q, &k, &v]).await;
        let what = format!("attention t_q={t_q} t_k={t_k} d={d} h={heads} causal={causal} offset={offset}");
        let (out, weights) = match got {
            Ok(mut g) if g.len() == 2 => {
                let w = g.pop().unwrap_or_else(|| Matrix::zeros(0, 0));
                (Ok(g.pop().unwrap_or_else(|| Matrix::zeros(0, 0))), Ok(w))
            }
            Ok(_) => (Err(crate::core::ComputeError::Invalid("attention devolveu outra coisa".into())), Err(crate::core::ComputeError::Invalid(String::new()))),
            Err(e) => (Err(e.clone()), Err(e)),
        };
        r.compare(format!("{what} output"), out, &want.output);
        r.compare(format!("{what} weights"), weights, &want.weights);
    }

    training_kernels(gpu, rng, &mut r).await;
    modern_kernels(gpu, rng, &mut r, large).await;

    for chain in 0..4 {
        let (what, gpu_values, cpu_values) = random_chain(gpu, rng, chain).await;
        match gpu_values {
            Ok(values) => {
                for (i, (g, c)) in values.into_iter().zip(&cpu_values).enumerate() {
                    r.compare(format!("{what}, resultado {}", i + 1), Ok(g), c);
                }
            }
            Err(e) => r.failures.push(format!("{what}: GPU error {e}")),
        }
    }

    // Every op that runs a kernel is checked by name (a check's first word), so a new op
    // without its case here fails the suite.
    for op in OpKind::ALL.into_iter().filter(|op| !op.is_copy()) {
        if !r.checks.iter().any(|c| c.what.split(' ').next() == Some(op.name())) {
            r.failures.push(format!("{}: nenhuma comparação com a CPU", op.name()));
        }
    }

    if r.failures.is_empty() {
        Ok(r.checks)
    } else {
        Err(r.failures)
    }
}

/// The training kernels (gradients, loss, optimiser) against their CPU twins.
async fn training_kernels(gpu: &GpuContext, rng: &mut Rng, r: &mut Report) {
    // Up to (_, 16, 16) the barrier-free kernel, (_, 2, 33) the k-splitting one, from (_, 64, 64) on
    // the register-blocked one, read A transposed (ragged edges included).
    for &(k, m, n) in &[(1, 1, 1), (5, 3, 7), (40, 16, 5), (70, 2, 33), (33, 17, 65), (130, 64, 64), (257, 100, 31), (70, 65, 130), (1024, 256, 64)] {
        let (a, b) = (rng.matrix(k, m, -1.0, 1.0), rng.matrix(k, n, -1.0, 1.0));
        r.compare(format!("matmul_at ({k}×{m})ᵀ·{k}×{n}"), on_gpu(gpu, Op::MatmulAt, &[&a, &b]).await, &backward::matmul_at(&a, &b).unwrap());
    }
    // (1024, 192): a training batch's column sums (1 024 rows, the model's width).
    for &(m, n) in &[(1, 1), (3, 5), (70, 33), (300, 64), (1024, 192)] {
        let shape = format!("{m}×{n}");
        let (x, dy) = (rng.matrix(m, n, -3.0, 3.0), rng.matrix(m, n, -1.0, 1.0));
        r.compare(format!("sum_rows {shape}"), on_gpu(gpu, Op::SumRows, &[&x]).await, &backward::sum_rows(&x));
        r.compare(format!("relu_backward {shape}"), on_gpu(gpu, Op::ReluBackward, &[&x, &dy]).await, &backward::relu_backward(&x, &dy).unwrap());
        r.compare(format!("gelu_backward {shape}"), on_gpu(gpu, Op::GeluBackward, &[&x, &dy]).await, &backward::gelu_backward(&x, &dy).unwrap());
        let gamma = rng.matrix(1, n, 0.5, 1.5);
        let g = backward::layer_norm_backward(&x, &gamma, &dy, 1e-5).unwrap();
        r.compare_all(
            &format!("layer_norm_backward {shape}"),
            &["dX", "dγ", "dβ"],
            gpu.run_op(Op::LayerNormBackward { eps: 1e-5 }, &[&x, &gamma, &dy]).await,
            &[g.dx, g.dgamma, g.dbeta],
        );
        let acc = rng.matrix(1, 1, 0.0, 2.0);
        r.compare(format!("sum_squares {shape}"), on_gpu(gpu, Op::SumSquares, &[&acc, &x]).await, &optim::sum_squares(&acc, &x).unwrap());
    }

    for &(vocab, d, t) in &[(1, 1, 1), (11, 5, 40), (99, 64, 512)] {
        let dy = rng.matrix(t, d, -1.0, 1.0);
        let ids: Vec<u32> = (0..t).map(|_| rng.below(vocab as u64) as u32).collect();
        let got = async {
            let dy = gpu.upload(&dy)?;
            let out = gpu.embedding_backward(&dy, &ids, vocab)?;
            gpu.read_one(&out).await
        };
        r.compare(format!("embedding_backward V={vocab} d={d} t={t}"), got.await, &backward::embedding_backward(&dy, &ids, vocab).unwrap());

        // Cross-entropy over the same shapes: logits (t, vocab + 1), including one huge row.
        let v = vocab + 1;
        let mut logits = rng.matrix(t, v, -4.0, 4.0);
        logits.set(0, 0, 80.0);
        let targets: Vec<u32> = (0..t).map(|_| rng.below(v as u64) as u32).collect();
        let want = backward::cross_entropy(&logits, &targets).unwrap();
        let got = async {
            let l = gpu.upload(&logits)?;
            let (loss, dlogits) = gpu.cross_entropy(&l, &targets)?;
            gpu.read(&[&loss, &dlogits]).await
        };
        let loss = Matrix::from_vec(1, 1, vec![want.loss]).unwrap_or_else(|_| Matrix::zeros(1, 1));
        r.compare_all(&format!("cross_entropy N={t} V={v}"), &["perda", "dlogits"], got.await, &[loss, want.dlogits]);
    }

    for &(sequences, t, d, heads) in &[(1, 1, 1, 1), (1, 5, 8, 2), (3, 7, 12, 3), (4, 64, 64, 4), (2, 70, 32, 2)] {
        let n = sequences * t;
        let (q, k, v) = (rng.matrix(n, d, -1.0, 1.0), rng.matrix(n, d, -1.0, 1.0), rng.matrix(n, d, -1.0, 1.0));
        let d_out = rng.matrix(n, d, -1.0, 1.0);
        let what = format!("B={sequences} t={t} d={d} h={heads}");
        let fwd = backward::attention_batch(&q, &k, &v, heads, sequences).unwrap();
        r.compare_all(
            &format!("attention_batch {what}"),
            &["saída", "pesos"],
            gpu.run_op(Op::AttentionBatch { heads, sequences }, &[&q, &k, &v]).await,
            &[fwd.output.clone(), fwd.weights.clone()],
        );
        let g = backward::attention_backward(&q, &k, &v, &fwd.weights, &d_out, heads, sequences).unwrap();
        r.compare_all(
            &format!("attention_backward {what}"),
            &["dQ", "dK", "dV"],
            gpu.run_op(Op::AttentionBackward { heads, sequences }, &[&q, &k, &v, &fwd.weights, &d_out]).await,
            &[g.dq, g.dk, g.dv],
        );
    }

    // AdamW in place, once below the clipping norm and once above it, with decay and without.
    for (step, clip, decay) in [(1, 1e9, 0.1), (7, 0.5, 0.0)] {
        let (theta, grad) = (rng.matrix(33, 17, -1.0, 1.0), rng.matrix(33, 17, -0.1, 0.1));
        let (m, v) = (rng.matrix(33, 17, -0.01, 0.01), rng.matrix(33, 17, 0.0, 1e-4));
        let norm2 = rng.matrix(1, 1, 0.5, 2.0);
        let s = optim::AdamWStep { lr: 3e-3, beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: decay, step, clip };
        let (mut want_theta, mut want_m, mut want_v) = (theta.clone(), m.clone(), v.clone());
        optim::adamw(&mut want_theta, &grad, &mut want_m, &mut want_v, &norm2, s).expect("same shapes");
        let got = async {
            let (mut t, mut mm, mut vv) = (gpu.upload(&theta)?, gpu.upload(&m)?, gpu.upload(&v)?);
            gpu.adamw(s, &mut t, &mut mm, &mut vv, &gpu.upload(&grad)?, &gpu.upload(&norm2)?)?;
            gpu.read(&[&t, &mm, &vv]).await
        };
        r.compare_all(&format!("adamw passo {step}, limite {clip}"), &["θ", "m", "v"], got.await, &[want_theta, want_m, want_v]);
    }
}

/// The modern block's kernels (RoPE, RMSNorm, SwiGLU, GQA's repeated K and V), forward and
/// backward, against their CPU twins in `core::ops::modern`.
async fn modern_kernels(gpu: &GpuContext, rng: &mut Rng, r: &mut Report, large: bool) {
    // (rows, heads, d_h, first position, sequences): one pair, several heads, a cache's later
    // rows, more pairs than a workgroup has invocations, and training batches.
    let mut rope_cases = vec![(1, 1, 2, 0, 1), (5, 2, 4, 3, 1), (17, 3, 8, 0, 1), (70, 4, 16, 9, 1), (33, 2, 64, 120, 1), (64, 2, 8, 0, 8)];
    if large {
        rope_cases.push((256, 4, 32, 0, 1));
        rope_cases.push((1024, 6, 32, 0, 16));
    }
    for (rows, heads, width, first, sequences) in rope_cases {
        let theta = if rows == 17 { 500.0 } else { modern::ROPE_THETA };
        let at = RopePositions { first, sequences };
        let (x, dy) = (rng.matrix(rows, heads * width, -1.0, 1.0), rng.matrix(rows, heads * width, -1.0, 1.0));
        let what = format!("{rows} linhas em {sequences} sequências, h={heads} d_h={width} θ={theta} da posição {first}");
        r.compare(format!("rope {what}"), on_gpu(gpu, Op::Rope { heads, theta, at }, &[&x]).await, &modern::rope(&x, heads, theta, at).unwrap());
        r.compare(
            format!("rope_backward {what}"),
            on_gpu(gpu, Op::RopeBackward { heads, theta, at }, &[&dy]).await,
            &modern::rope_backward(&dy, heads, theta, at).unwrap(),
        );
    }

    // Rows narrower and wider than a workgroup of 64, and a training batch's (1 024, 192). Not
    // one column: there RMSNorm's dX is ε/(x² + ε) of dY, the difference of two nearly equal
    // terms on either side, so only rounding would be compared.
    for &(m, n) in &[(1, 2), (3, 5), (70, 33), (300, 64), (1024, 192)] {
        let shape = format!("{m}×{n}");
        let (x, dy, gamma) = (rng.matrix(m, n, -3.0, 3.0), rng.matrix(m, n, -1.0, 1.0), rng.matrix(1, n, 0.5, 1.5));
        r.compare(
            format!("rms_norm {shape}"),
            on_gpu(gpu, Op::RmsNorm { eps: 1e-5 }, &[&x, &gamma]).await,
            &modern::rms_norm(&x, &gamma, 1e-5).unwrap(),
        );
        let g = modern::rms_norm_backward(&x, &gamma, &dy, 1e-5).unwrap();
        r.compare_all(
            &format!("rms_norm_backward {shape}"),
            &["dX", "dγ"],
            gpu.run_op(Op::RmsNormBackward { eps: 1e-5 }, &[&x, &gamma, &dy]).await,
            &[g.dx, g.dgamma],
        );
        // Gates far into both tails of the SiLU.
        let (gate, up) = (rng.matrix(m, n, -12.0, 12.0), rng.matrix(m, n, -2.0, 2.0));
        r.compare(format!("swiglu {shape}"), on_gpu(gpu, Op::Swiglu, &[&gate, &up]).await, &modern::swiglu(&gate, &up).unwrap());
        let g = modern::swiglu_backward(&gate, &up, &dy).unwrap();
        r.compare_all(&format!("swiglu_backward {shape}"), &["dporta", "dvalor"], gpu.run_op(Op::SwigluBackward, &[&gate, &up, &dy]).await, &[g.dgate, g.dup]);
    }

    // (rows, Q heads, K/V heads, d_h): multi-head (a copy), GQA, MQA.
    for (t, heads, kv_heads, width) in [(1, 1, 1, 1), (5, 4, 2, 3), (17, 6, 3, 8), (70, 8, 1, 16), (33, 4, 4, 8), (300, 12, 4, 16)] {
        let what = format!("t={t} h={heads} n_kv={kv_heads} d_h={width}");
        let (x, dy) = (rng.matrix(t, kv_heads * width, -1.0, 1.0), rng.matrix(t, heads * width, -1.0, 1.0));
        r.compare(
            format!("repeat_kv {what}"),
            on_gpu(gpu, Op::RepeatKv { heads, kv_heads }, &[&x]).await,
            &modern::repeat_kv(&x, heads, kv_heads).unwrap(),
        );
        r.compare(
            format!("repeat_kv_backward {what}"),
            on_gpu(gpu, Op::RepeatKvBackward { heads, kv_heads }, &[&dy]).await,
            &modern::repeat_kv_backward(&dy, heads, kv_heads).unwrap(),
        );
    }
}

/// A random chain of ops (products, bias, activation, softmax, layer norm, attention, a cache
/// written in place and read back by rows), the same on both backends: the GPU records it
/// all and runs it as one submission, every intermediate read back at once.
async fn random_chain(gpu: &GpuContext, rng: &mut Rng, seed: u64) -> (String, crate::core::error::Result<Vec<Matrix>>, Vec<Matrix>) {
    let t = 1 + rng.below(12) as usize;
    let heads = 1 + rng.below(3) as usize;
    let d = heads * (1 + rng.below(6) as usize);
    let steps = 3 + rng.below(6) as usize;
    let inputs = Chain::inputs(rng, t, d);
    let choices: Vec<u64> = (0..steps).map(|_| rng.below(6)).collect();
    let what = format!("cadeia {seed}: t={t} d={d} h={heads}, {steps} passos {choices:?}");
    let cpu = Chain { t, d, heads, choices: &choices }.run(&Cpu, &inputs).expect("the chain's shapes fit");
    let cpu = crate::core::executor::block_on_ready(Cpu.read(&cpu.iter().collect::<Vec<_>>())).expect("CPU read");
    let before = gpu.submissions();
    let on_gpu = async {
        let tensors = Chain { t, d, heads, choices: &choices }.run(gpu, &inputs)?;
        let values = gpu.read(&tensors.iter().collect::<Vec<_>>()).await?;
        if gpu.submissions() != before + 1 {
            return Err(crate::core::ComputeError::Invalid(format!("{} envios em vez de um", gpu.submissions() - before)));
        }
        Ok(values)
    };
    (what, on_gpu.await, cpu)
}

struct Chain<'a> {
    t: usize,
    d: usize,
    heads: usize,
    choices: &'a [u64],
}

impl Chain<'_> {
    /// x (t,d), w (d,d), bias (1,d), γ, β (1,d).
    fn inputs(rng: &mut Rng, t: usize, d: usize) -> Vec<Matrix> {
        vec![rng.matrix(t, d, -1.0, 1.0), rng.matrix(d, d, -0.5, 0.5), rng.matrix(1, d, -0.2, 0.2), rng.matrix(1, d, 0.5, 1.5), rng.matrix(1, d, -0.2, 0.2)]
    }

    /// Every intermediate of the chain, unread.
    fn run<E: Executor>(&self, e: &E, inputs: &[Matrix]) -> crate::core::error::Result<Vec<E::Tensor>> {
        let up = inputs.iter().map(|m| e.upload(m)).collect::<crate::core::error::Result<Vec<_>>>()?;
        let (w, bias, gamma, beta) = (&up[1], &up[2], &up[3], &up[4]);
        let mut cache = e.upload(&Matrix::zeros(2 * self.t, self.d))?;
        let mut x = up[0].clone();
        let mut all = Vec::new();
        for &choice in self.choices {
            x = match choice {
                0 => e.add(&e.matmul(&x, w)?, bias)?,
                1 => e.gelu(&e.relu(&e.scale(&x, 1.5)?)?)?,
                2 => e.layer_norm(&x, gamma, beta, 1e-5)?,
                3 => e.matmul(&e.softmax_rows(&e.matmul_bt(&x, &x, 0.5)?, SoftmaxOptions::causal())?, &x)?,
                4 => e.attention(&x, &x, &x, self.heads, true, 0)?.0,
                _ => {
                    // Into the second half of a cache, then back out by rows.
                    e.write_rows(&mut cache, self.t, &x)?;
                    e.add(&e.rows(&cache, self.t, 2 * self.t)?, &e.transpose(&e.transpose(&x)?)?)?
                }
            };
            all.push(x.clone());
        }
        Ok(all)
    }
}
