//! The modern block's ops in the core (`atencao_core::ops::modern`, issue 41) against candle on
//! the same random inputs: forwards against candle-nn's own kernels (`rotary_emb::rope_i`, the
//! interleaved pairs; `ops::rms_norm`; `ops::silu`), gradients against candle's autograd through
//! the same maths written in tensor ops (`rope_i_slow`, `rms_norm_slow`: the fast kernels have
//! no backward), and GQA's shared heads against a broadcast of K and V.
//!
//!   cargo test -p atencao-train --profile train --test modern_ops_vs_candle

use atencao_core::ops::modern::{repeat_kv, repeat_kv_backward, rms_norm, rms_norm_backward, rope, rope_backward, swiglu, swiglu_backward, RopePositions, ROPE_THETA};
use atencao_core::rng::Rng;
use atencao_core::Matrix;
use candle_core::{Device, Tensor, Var, D};

const FORWARD: f32 = 1e-5;
const GRADIENT: f32 = 1e-4;

fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

fn flat(t: &Tensor) -> Vec<f32> {
    t.flatten_all().unwrap().to_vec1::<f32>().unwrap()
}

fn tensor(m: &Matrix) -> Tensor {
    Tensor::from_vec(m.as_slice().to_vec(), m.shape(), &Device::Cpu).unwrap()
}

/// candle's cos and sin tables (t, d_h/2), from θ in candle's own arithmetic.
fn cos_sin(positions: usize, first: usize, head_width: usize) -> (Tensor, Tensor) {
    let inverse: Vec<f32> = (0..head_width / 2).map(|i| 1.0 / ROPE_THETA.powf(2.0 * i as f32 / head_width as f32)).collect();
    let inverse = Tensor::from_vec(inverse, (1, head_width / 2), &Device::Cpu).unwrap();
    let positions = Tensor::arange(first as u32, (first + positions) as u32, &Device::Cpu).unwrap().to_dtype(candle_core::DType::F32).unwrap().reshape((positions, 1)).unwrap();
    let angles = positions.broadcast_mul(&inverse).unwrap();
    (angles.cos().unwrap(), angles.sin().unwrap())
}

/// (t, h·d_h), head-contiguous columns, as candle's (1, h, t, d_h).
fn heads_first(x: &Tensor, heads: usize) -> Tensor {
    let (t, c) = x.dims2().unwrap();
    x.reshape((1, t, heads, c / heads)).unwrap().transpose(1, 2).unwrap().contiguous().unwrap()
}

fn heads_back(x: &Tensor) -> Tensor {
    let (_, h, t, w) = x.dims4().unwrap();
    x.transpose(1, 2).unwrap().contiguous().unwrap().reshape((t, h * w)).unwrap()
}

#[test]
fn rope_matches_candles_interleaved_rotation_and_its_gradient() {
    let mut rng = Rng::new(7);
    let (heads, width, t, first) = (4, 16, 9, 3);
    let (x, dy) = (rng.matrix(t, heads * width, -1.0, 1.0), rng.matrix(t, heads * width, -1.0, 1.0));
    let (cos, sin) = cos_sin(t, first, width);
    let ours = rope(&x, heads, ROPE_THETA, RopePositions::from(first)).unwrap();
    let theirs = heads_back(&candle_nn::rotary_emb::rope_i(&heads_first(&tensor(&x), heads), &cos, &sin).unwrap());
    assert!(max_diff(ours.as_slice(), &flat(&theirs)) < FORWARD, "RoPE forward {}", max_diff(ours.as_slice(), &flat(&theirs)));

    let var = Var::from_tensor(&tensor(&x)).unwrap();
    let y = heads_back(&candle_nn::rotary_emb::rope_i_slow(&heads_first(var.as_tensor(), heads), &cos, &sin).unwrap());
    let grads = (y * tensor(&dy)).unwrap().sum_all().unwrap().backward().unwrap();
    let dx = rope_backward(&dy, heads, ROPE_THETA, RopePositions::from(first)).unwrap();
    let candle_dx = flat(grads.get(var.as_tensor()).unwrap());
    assert!(max_diff(dx.as_slice(), &candle_dx) < GRADIENT, "RoPE dX {}", max_diff(dx.as_slice(), &candle_dx));
}

#[test]
fn rms_norm_matches_candle_and_its_gradients() {
    let mut rng = Rng::new(8);
    let (x, gamma, dy) = (rng.matrix(6, 32, -2.0, 2.0), rng.matrix(1, 32, 0.5, 1.5), rng.matrix(6, 32, -1.0, 1.0));
    let eps = 1e-5;
    let alpha = Tensor::from_vec(gamma.as_slice().to_vec(), 32, &Device::Cpu).unwrap();
    let ours = rms_norm(&x, &gamma, eps).unwrap();
    let theirs = candle_nn::ops::rms_norm(&tensor(&x), &alpha, eps).unwrap();
    assert!(max_diff(ours.as_slice(), &flat(&theirs)) < FORWARD, "RMSNorm forward {}", max_diff(ours.as_slice(), &flat(&theirs)));

    let (xv, gv) = (Var::from_tensor(&tensor(&x)).unwrap(), Var::from_tensor(&alpha).unwrap());
    let y = candle_nn::ops::rms_norm_slow(xv.as_tensor(), gv.as_tensor(), eps).unwrap();
    let grads = (y * tensor(&dy)).unwrap().sum_all().unwrap().backward().unwrap();
    let ours = rms_norm_backward(&x, &gamma, &dy, eps).unwrap();
    let (dx, dgamma) = (flat(grads.get(xv.as_tensor()).unwrap()), flat(grads.get(gv.as_tensor()).unwrap()));
    assert!(max_diff(ours.dx.as_slice(), &dx) < GRADIENT, "RMSNorm dX {}", max_diff(ours.dx.as_slice(), &dx));
    assert!(max_diff(ours.dgamma.as_slice(), &dgamma) < GRADIENT, "RMSNorm dγ {}", max_diff(ours.dgamma.as_slice(), &dgamma));
}

#[test]
fn swiglu_matches_candles_silu_gate_and_its_gradients() {
    let mut rng = Rng::new(9);
    let (gate, up, dh) = (rng.matrix(5, 24, -4.0, 4.0), rng.matrix(5, 24, -2.0, 2.0), rng.matrix(5, 24, -1.0, 1.0));
    let (gv, uv) = (Var::from_tensor(&tensor(&gate)).unwrap(), Var::from_tensor(&tensor(&up)).unwrap());
    let theirs = (candle_nn::ops::silu(gv.as_tensor()).unwrap() * uv.as_tensor()).unwrap();
    let ours = swiglu(&gate, &up).unwrap();
    assert!(max_diff(ours.as_slice(), &flat(&theirs)) < FORWARD, "SwiGLU forward {}", max_diff(ours.as_slice(), &flat(&theirs)));

    let grads = (theirs * tensor(&dh)).unwrap().sum_all().unwrap().backward().unwrap();
    let ours = swiglu_backward(&gate, &up, &dh).unwrap();
    let (dgate, dup) = (flat(grads.get(gv.as_tensor()).unwrap()), flat(grads.get(uv.as_tensor()).unwrap()));
    assert!(max_diff(ours.dgate.as_slice(), &dgate) < GRADIENT, "SwiGLU dgate {}", max_diff(ours.dgate.as_slice(), &dgate));
    assert!(max_diff(ours.dup.as_slice(), &dup) < GRADIENT, "SwiGLU dup {}", max_diff(ours.dup.as_slice(), &dup));
}

#[test]
fn shared_kv_heads_match_a_broadcast_and_its_gradient() {
    let mut rng = Rng::new(10);
    let (t, width, heads) = (4, 8, 6);
    for kv_heads in [1, 2, 3, 6] {
        let (kv, dy) = (rng.matrix(t, kv_heads * width, -1.0, 1.0), rng.matrix(t, heads * width, -1.0, 1.0));
        let var = Var::from_tensor(&tensor(&kv)).unwrap();
        let group = heads / kv_heads;
        let theirs = var.as_tensor().reshape((t, kv_heads, 1, width)).unwrap().broadcast_as((t, kv_heads, group, width)).unwrap().reshape((t, heads * width)).unwrap();
        let ours = repeat_kv(&kv, heads, kv_heads).unwrap();
        assert_eq!(ours.as_slice(), flat(&theirs).as_slice(), "{kv_heads} kv heads");
        let grads = (theirs * tensor(&dy)).unwrap().sum(D::Minus1).unwrap().sum_all().unwrap().backward().unwrap();
        let dkv = repeat_kv_backward(&dy, heads, kv_heads).unwrap();
        let candle_dkv = flat(grads.get(var.as_tensor()).unwrap());
        assert!(max_diff(dkv.as_slice(), &candle_dkv) < GRADIENT, "repeat_kv dKV ({kv_heads}) {}", max_diff(dkv.as_slice(), &candle_dkv));
    }
}

/// The whole of today's block (`atencao_core::training::modern_block`: RMSNorm, RoPE on q and
/// on the shared k, GQA, causal attention, SwiGLU, both residuals) against the same block
/// written in candle's tensor ops (candle-nn's `rms_norm_slow`, `rope_i_slow`, `silu`,
/// `softmax`), forward and every gradient through candle's autograd, on one sequence, for GQA
/// and MQA.
#[test]
fn the_modern_block_matches_candle_forward_and_gradients() {
    use atencao_core::executor::Cpu;
    use atencao_core::training::modern_block::{backward_on, forward_on, ModernBlockShape, ModernBlockWeights};
    for kv_heads in [2, 1] {
        let mut rng = Rng::new(41 + kv_heads as u64);
        let (heads, width, ffn, t, eps) = (4, 16, 24, 7, 1e-5);
        let head_width = width / heads;
        let shape = ModernBlockShape { heads, kv_heads, theta: ROPE_THETA, eps };
        let w = ModernBlockWeights::uniform(&shape, width, ffn, 0.3, &mut rng).unwrap();
        let (x, dy) = (rng.matrix(t, width, -1.0, 1.0), rng.matrix(t, width, -1.0, 1.0));
        let (out, act) = forward_on(&Cpu, &w, &shape, &x, 1).unwrap();
        let (dx, grads) = backward_on(&Cpu, &w, &shape, &act, &dy, 1).unwrap();

        // candle: every weight a variable; γ as candle's 1-D scale.
        let var = |m: &Matrix| Var::from_tensor(&tensor(m)).unwrap();
        let scale = |m: &Matrix| Var::from_tensor(&Tensor::from_vec(m.as_slice().to_vec(), m.cols(), &Device::Cpu).unwrap()).unwrap();
        let xv = var(&x);
        let (g1, wq, wk, wv, wo) = (scale(&w.rms1_gamma), var(&w.w_q), var(&w.w_k), var(&w.w_v), var(&w.w_o));
        let (g2, wg, wu, wd) = (scale(&w.rms2_gamma), var(&w.w_gate), var(&w.w_up), var(&w.w_down));
        let (cos, sin) = cos_sin(t, 0, head_width);
        // K/V heads (1, n_kv, t, d_h) repeated to every query head: head h reads K/V head h / group.
        let shared = |kv: &Tensor| {
            let group = heads / kv_heads;
            kv.reshape((1, kv_heads, 1, t, head_width)).unwrap().broadcast_as((1, kv_heads, group, t, head_width)).unwrap().reshape((1, heads, t, head_width)).unwrap()
        };
        let h1 = candle_nn::ops::rms_norm_slow(xv.as_tensor(), g1.as_tensor(), eps).unwrap();
        let q = candle_nn::rotary_emb::rope_i_slow(&heads_first(&h1.matmul(wq.as_tensor()).unwrap(), heads), &cos, &sin).unwrap();
        let k = shared(&candle_nn::rotary_emb::rope_i_slow(&heads_first(&h1.matmul(wk.as_tensor()).unwrap(), kv_heads), &cos, &sin).unwrap());
        let v = shared(&heads_first(&h1.matmul(wv.as_tensor()).unwrap(), kv_heads));
        // Causal: a large negative above the diagonal (−∞ would put NaN in the max's gradient).
        let mask: Vec<f32> = (0..t * t).map(|i| if i % t > i / t { -1e9 } else { 0.0 }).collect();
        let mask = Tensor::from_vec(mask, (t, t), &Device::Cpu).unwrap();
        let scores = (q.matmul(&k.t().unwrap()).unwrap() / (head_width as f64).sqrt()).unwrap().broadcast_add(&mask).unwrap();
        let attention = heads_back(&candle_nn::ops::softmax(&scores, D::Minus1).unwrap().matmul(&v).unwrap());
        let x_mid = (xv.as_tensor() + attention.matmul(wo.as_tensor()).unwrap()).unwrap();
        let h2 = candle_nn::ops::rms_norm_slow(&x_mid, g2.as_tensor(), eps).unwrap();
        let hidden = (candle_nn::ops::silu(&h2.matmul(wg.as_tensor()).unwrap()).unwrap() * h2.matmul(wu.as_tensor()).unwrap()).unwrap();
        let theirs = (&x_mid + hidden.matmul(wd.as_tensor()).unwrap()).unwrap();
        let forward = max_diff(out.as_slice(), &flat(&theirs));
        assert!(forward < FORWARD, "{kv_heads} K/V heads: block forward {forward}");

        let g = (theirs * tensor(&dy)).unwrap().sum_all().unwrap().backward().unwrap();
        let mut worst = ("dx", max_diff(dx.as_slice(), &flat(g.get(xv.as_tensor()).unwrap())));
        let pairs = [(&g1, &grads.rms1_gamma), (&wq, &grads.w_q), (&wk, &grads.w_k), (&wv, &grads.w_v), (&wo, &grads.w_o), (&g2, &grads.rms2_gamma), (&wg, &grads.w_gate), (&wu, &grads.w_up), (&wd, &grads.w_down)];
        for ((name, _), (theirs, ours)) in grads.named().into_iter().zip(pairs) {
            let diff = max_diff(ours.as_slice(), &flat(g.get(theirs.as_tensor()).unwrap()));
            if diff > worst.1 {
                worst = (name, diff);
            }
        }
        println!("modern block vs candle, {kv_heads} K/V heads: forward {forward:.2e}, worst gradient {:.2e} ({})", worst.1, worst.0);
        assert!(worst.1 < GRADIENT, "{kv_heads} K/V heads: {worst:?}");
    }
}
