//! Today's decoder block (issue 41) for training, written once over `Executor` like `model`'s
//! 2017 block: its forward pass over a batch, keeping what the backward pass reads, and that
//! backward pass, giving every weight's gradient and the stream's.
//!
//!   x_mid = x + Attn(RoPE(h₁·W^Q), RoPE(h₁·W^K), h₁·W^V)·W^O,   h₁ = RMSNorm(x)·γ₁
//!   x_out = x_mid + (SiLU(h₂·W_gate) ⊙ h₂·W_up)·W_down,       h₂ = RMSNorm(x_mid)·γ₂
//!
//! against the 2017 block: RMSNorm instead of layer norm (no β), positions as rotations of q
//! and k (no PE added to x), a gated FFN without biases, and K, V of `kv_heads` heads, each
//! shared by `heads / kv_heads` query heads (GQA; MQA with one). The attention itself is the
//! batch attention of the op table, on K and V repeated to every head (`repeat_kv`), so its
//! backward pass gives each repeated head's gradient and `repeat_kv_backward` sums a group's.
//!
//! Shapes: B sequences of T rows stacked (N = B·T), C width, nh heads of hs = C / nh, n_kv
//! K/V heads, F the FFN's width.

use crate::error::{ComputeError, Result};
use crate::executor::Executor;
use crate::matrix::Matrix;
use crate::ops::modern::{group_size, RopePositions};
use crate::rng::Rng;

/// What a modern block's shape is beyond its weights' sizes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ModernBlockShape {
    /// nh: query heads.
    pub heads: usize,
    /// n_kv: K and V heads, dividing nh (nh: multi-head; 1: MQA).
    pub kv_heads: usize,
    /// RoPE's base θ.
    pub theta: f32,
    /// ε of both RMSNorms.
    pub eps: f32,
}

impl ModernBlockShape {
    /// Checks the heads against the width C: returns hs.
    pub fn head_size(&self, width: usize) -> Result<usize> {
        group_size(self.heads, self.kv_heads)?;
        if width % self.heads != 0 || (width / self.heads) % 2 != 0 {
            return Err(ComputeError::Invalid(format!("A largura {width} não se divide em {} cabeças de largura par.", self.heads)));
        }
        Ok(width / self.heads)
    }
}

/// A modern block's weights, or their gradients (same names, same shapes).
#[derive(Clone, Debug, PartialEq)]
pub struct ModernBlockWeights<T = Matrix> {
    /// γ₁ (1,C).
    pub rms1_gamma: T,
    /// (C,C), (C, n_kv·hs), (C, n_kv·hs), (C,C).
    pub w_q: T,
    pub w_k: T,
    pub w_v: T,
    pub w_o: T,
    /// γ₂ (1,C).
    pub rms2_gamma: T,
    /// (C,F), (C,F), (F,C).
    pub w_gate: T,
    pub w_up: T,
    pub w_down: T,
}

impl<T> ModernBlockWeights<T> {
    /// Every tensor with its name, in one order.
    pub fn named(&self) -> [(&'static str, &T); 9] {
        [
            ("rms1.weight", &self.rms1_gamma),
            ("attn.w_q", &self.w_q),
            ("attn.w_k", &self.w_k),
            ("attn.w_v", &self.w_v),
            ("attn.w_o", &self.w_o),
            ("rms2.weight", &self.rms2_gamma),
            ("ffn.w_gate", &self.w_gate),
            ("ffn.w_up", &self.w_up),
            ("ffn.w_down", &self.w_down),
        ]
    }

    /// The same, writable.
    pub fn tensors_mut(&mut self) -> [&mut T; 9] {
        [
            &mut self.rms1_gamma,
            &mut self.w_q,
            &mut self.w_k,
            &mut self.w_v,
            &mut self.w_o,
            &mut self.rms2_gamma,
            &mut self.w_gate,
            &mut self.w_up,
            &mut self.w_down,
        ]
    }
}

impl ModernBlockWeights {
    /// Weights uniform in ±`spread` (γ around 1) from `rng`, for a block of width `width`, FFN
    /// width `ffn`.
    pub fn uniform(shape: &ModernBlockShape, width: usize, ffn: usize, spread: f32, rng: &mut Rng) -> Result<Self> {
        let kv = shape.kv_heads * shape.head_size(width)?;
        let mut draw = |rows: usize, cols: usize, around: f32| {
            let values = (0..rows * cols).map(|_| around + rng.uniform(-spread, spread)).collect();
            Matrix::from_vec(rows, cols, values)
        };
        Ok(ModernBlockWeights {
            rms1_gamma: draw(1, width, 1.0)?,
            w_q: draw(width, width, 0.0)?,
            w_k: draw(width, kv, 0.0)?,
            w_v: draw(width, kv, 0.0)?,
            w_o: draw(width, width, 0.0)?,
            rms2_gamma: draw(1, width, 1.0)?,
            w_gate: draw(width, ffn, 0.0)?,
            w_up: draw(width, ffn, 0.0)?,
            w_down: draw(ffn, width, 0.0)?,
        })
    }
}

/// What the forward pass keeps for the backward pass.
#[derive(Clone, Debug)]
pub struct ModernBlockActivations<T = Matrix> {
    /// The stream entering the block (N,C) and RMSNorm₁ of it.
    pub x_in: T,
    pub h1: T,
    /// Q turned by RoPE (N,C); K turned and V, repeated to every head (N,C).
    pub q: T,
    pub k: T,
    pub v: T,
    /// Attention weights (B·nh·T, T) and the heads' output (N,C).
    pub weights: T,
    pub att: T,
    /// The stream after attention (N,C) and RMSNorm₂ of it.
    pub x_mid: T,
    pub h2: T,
    /// h₂·W_gate, h₂·W_up and SiLU(gate) ⊙ up (N,F).
    pub gate: T,
    pub up: T,
    pub hidden: T,
}

/// The block's forward pass over B = `sequences` sequences stacked in the rows of `x` (N,C),
/// each from position 0: the stream after the block and the activations.
pub fn forward_on<E: Executor>(
    e: &E,
    w: &ModernBlockWeights<E::Tensor>,
    shape: &ModernBlockShape,
    x: &E::Tensor,
    sequences: usize,
) -> Result<(E::Tensor, ModernBlockActivations<E::Tensor>)> {
    shape.head_size(e.dims(x).1)?;
    let (heads, kv_heads, theta, at) = (shape.heads, shape.kv_heads, shape.theta, RopePositions::batch(sequences));
    let h1 = e.rms_norm(x, &w.rms1_gamma, shape.eps)?;
    let q = e.rope(&e.matmul(&h1, &w.w_q)?, heads, theta, at)?;
    // K is turned per K/V head before it is shared: the same rotation every head of the group gets.
    let k = e.repeat_kv(&e.rope(&e.matmul(&h1, &w.w_k)?, kv_heads, theta, at)?, heads, kv_heads)?;
    let v = e.repeat_kv(&e.matmul(&h1, &w.w_v)?, heads, kv_heads)?;
    let (att, weights) = e.attention_batch(&q, &k, &v, heads, sequences)?;
    let x_mid = e.add(x, &e.matmul(&att, &w.w_o)?)?;
    let h2 = e.rms_norm(&x_mid, &w.rms2_gamma, shape.eps)?;
    let (gate, up) = (e.matmul(&h2, &w.w_gate)?, e.matmul(&h2, &w.w_up)?);
    let hidden = e.swiglu(&gate, &up)?;
    let x_out = e.add(&x_mid, &e.matmul(&hidden, &w.w_down)?)?;
    Ok((x_out, ModernBlockActivations { x_in: x.clone(), h1, q, k, v, weights, att, x_mid, h2, gate, up, hidden }))
}

/// The block's backward pass from dL/dx_out: (dL/dx_in, every weight's gradient).
pub fn backward_on<E: Executor>(
    e: &E,
    w: &ModernBlockWeights<E::Tensor>,
    shape: &ModernBlockShape,
    a: &ModernBlockActivations<E::Tensor>,
    dx: &E::Tensor,
    sequences: usize,
) -> Result<(E::Tensor, ModernBlockWeights<E::Tensor>)> {
    let (heads, kv_heads, theta, at) = (shape.heads, shape.kv_heads, shape.theta, RopePositions::batch(sequences));
    // x_out = x_mid + (SiLU(h₂·W_gate) ⊙ h₂·W_up)·W_down.
    let w_down = e.matmul_at(&a.hidden, dx)?;
    let (dgate, dup) = e.swiglu_backward(&a.gate, &a.up, &e.matmul_bt(dx, &w.w_down, 1.0)?)?;
    let (w_gate, w_up) = (e.matmul_at(&a.h2, &dgate)?, e.matmul_at(&a.h2, &dup)?);
    let dh2 = e.add(&e.matmul_bt(&dgate, &w.w_gate, 1.0)?, &e.matmul_bt(&dup, &w.w_up, 1.0)?)?;
    let (dx2, rms2_gamma) = e.rms_norm_backward(&a.x_mid, &w.rms2_gamma, &dh2, shape.eps)?;
    let dx_mid = e.add(dx, &dx2)?;
    // x_mid = x_in + Attn(q, k, v)·W^O, q and k turned, k and v shared by groups.
    let w_o = e.matmul_at(&a.att, &dx_mid)?;
    let datt = e.matmul_bt(&dx_mid, &w.w_o, 1.0)?;
    let (dq, dk, dv) = e.attention_backward(&a.q, &a.k, &a.v, &a.weights, &datt, heads, sequences)?;
    let dq = e.rope_backward(&dq, heads, theta, at)?;
    let dk = e.rope_backward(&e.repeat_kv_backward(&dk, heads, kv_heads)?, kv_heads, theta, at)?;
    let dv = e.repeat_kv_backward(&dv, heads, kv_heads)?;
    let (w_q, w_k, w_v) = (e.matmul_at(&a.h1, &dq)?, e.matmul_at(&a.h1, &dk)?, e.matmul_at(&a.h1, &dv)?);
    let dh1 = e.add(&e.add(&e.matmul_bt(&dq, &w.w_q, 1.0)?, &e.matmul_bt(&dk, &w.w_k, 1.0)?)?, &e.matmul_bt(&dv, &w.w_v, 1.0)?)?;
    let (dx1, rms1_gamma) = e.rms_norm_backward(&a.x_in, &w.rms1_gamma, &dh1, shape.eps)?;
    let dx_in = e.add(&dx_mid, &dx1)?;
    Ok((dx_in, ModernBlockWeights { rms1_gamma, w_q, w_k, w_v, w_o, rms2_gamma, w_gate, w_up, w_down }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::Cpu;

    /// Σ dY ⊙ block(x): a scalar whose gradient the backward pass returns, in f64.
    fn weighted(w: &ModernBlockWeights, shape: &ModernBlockShape, x: &Matrix, dy: &Matrix, sequences: usize) -> f64 {
        let (y, _) = forward_on(&Cpu, w, shape, x, sequences).unwrap();
        y.as_slice().iter().zip(dy.as_slice()).map(|(a, b)| *a as f64 * *b as f64).sum()
    }

    /// Every weight's gradient and the stream's against central differences, for GQA (4
    /// query heads sharing 2 K/V heads) and MQA, over two sequences.
    #[test]
    fn modern_block_gradients_match_central_differences() {
        for kv_heads in [2, 1] {
            let shape = ModernBlockShape { heads: 4, kv_heads, theta: 100.0, eps: 1e-5 };
            let (width, ffn, sequences, t) = (8, 12, 2, 5);
            let mut rng = Rng::new(41 + kv_heads as u64);
            let w = ModernBlockWeights::uniform(&shape, width, ffn, 0.5, &mut rng).unwrap();
            let x = rng.matrix(sequences * t, width, -1.0, 1.0);
            let dy = rng.matrix(sequences * t, width, -1.0, 1.0);
            let (_, act) = forward_on(&Cpu, &w, &shape, &x, sequences).unwrap();
            assert_eq!((act.k.shape(), act.weights.shape()), ((10, 8), (2 * 4 * 5, 5)), "K repeated to every head");
            let (dx, grads) = backward_on(&Cpu, &w, &shape, &act, &dy, sequences).unwrap();
            let h = 1e-2f32;
            let mut worst = (0.0f64, "");
            // The stream's gradient, every entry.
            let scale = dx.as_slice().iter().fold(0.0f32, |m, v| m.max(v.abs())) as f64;
            for i in 0..x.as_slice().len() {
                let at = |d: f32| {
                    let mut moved = x.clone();
                    moved.as_mut_slice()[i] += d;
                    weighted(&w, &shape, &moved, &dy, sequences)
                };
                let numeric = (at(h) - at(-h)) / (2.0 * h as f64);
                let err = (numeric - dx.as_slice()[i] as f64).abs() / scale;
                if err > worst.0 {
                    worst = (err, "dx");
                }
            }
            // Every weight: its largest-gradient entry and five random ones.
            for (index, (name, g)) in grads.named().into_iter().enumerate() {
                let g = g.as_slice();
                let largest = (0..g.len()).max_by(|&i, &j| g[i].abs().total_cmp(&g[j].abs())).unwrap();
                let scale = g[largest].abs() as f64;
                assert!(scale > 1e-3, "{name} gets a gradient");
                let entries: Vec<usize> = std::iter::once(largest).chain((0..5).map(|_| rng.below(g.len() as u64) as usize)).collect();
                for entry in entries {
                    let at = |d: f32| {
                        let mut moved = w.clone();
                        moved.tensors_mut()[index].as_mut_slice()[entry] += d;
                        weighted(&moved, &shape, &x, &dy, sequences)
                    };
                    let numeric = (at(h) - at(-h)) / (2.0 * h as f64);
                    let err = (numeric - g[entry] as f64).abs() / scale;
                    if err > worst.0 {
                        worst = (err, name);
                    }
                }
            }
            println!("modern block, {kv_heads} K/V heads: worst gradient error {:.2e} ({})", worst.0, worst.1);
            // f32 forward, step 1e-2: measured 1,1·10⁻⁴ (GQA) and 2,9·10⁻⁴ (MQA) of each tensor's
            // largest gradient; a wrong term is off by its whole size.
            assert!(worst.0 < 2e-3, "{kv_heads} K/V heads: {worst:?}");
        }
    }

    #[test]
    fn refuses_heads_that_do_not_fit() {
        let shape = ModernBlockShape { heads: 4, kv_heads: 3, theta: 100.0, eps: 1e-5 };
        assert!(shape.head_size(8).is_err(), "3 K/V heads do not divide 4");
        assert!(ModernBlockShape { kv_heads: 2, ..shape }.head_size(12).is_err(), "heads of odd width 3");
        assert_eq!(ModernBlockShape { kv_heads: 2, ..shape }.head_size(16).unwrap(), 4);
    }
}
