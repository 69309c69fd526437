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
