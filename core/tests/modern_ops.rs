//! The modern block's ops (issue 41: RoPE, RMSNorm, SwiGLU, GQA's shared K and V): the property
//! that makes RoPE relative, and every gradient against central differences of its forward.
//! (Against candle: `train/tests/modern_ops_vs_candle.rs`.)
#![cfg(not(target_arch = "wasm32"))]

use atencao_core::ops::modern::{repeat_kv, repeat_kv_backward, rms_norm, rms_norm_backward, rope, rope_backward, swiglu, swiglu_backward, RopePositions, ROPE_THETA};
use atencao_core::rng::Rng;
use atencao_core::Matrix;
use proptest::prelude::*;

fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum()
}

proptest! {
    /// q at position m and k at position n meet in a score that depends on m − n only: moving
    /// both by the same shift leaves every head's q·k as it was (the score is what attention
    /// reads, so RoPE tells attention the offset, not the place).
    #[test]
    fn a_rotated_query_and_key_meet_by_their_offset(seed in 0u64..10_000, m in 0usize..300, n in 0usize..300, shift in 0usize..2_000, pairs in 1usize..9, heads in 1usize..4) {
        let mut rng = Rng::new(seed);
        let width = 2 * pairs;
        let (q, k) = (rng.matrix(1, heads * width, -1.0, 1.0), rng.matrix(1, heads * width, -1.0, 1.0));
        let score = |qm: usize, kn: usize| -> Vec<f64> {
            let (rq, rk) = (rope(&q, heads, ROPE_THETA, RopePositions::from(qm)).unwrap(), rope(&k, heads, ROPE_THETA, RopePositions::from(kn)).unwrap());
            (0..heads).map(|h| dot(&rq.as_slice()[h * width..(h + 1) * width], &rk.as_slice()[h * width..(h + 1) * width])).collect()
        };
        let (here, shifted) = (score(m, n), score(m + shift, n + shift));
        for (a, b) in here.iter().zip(&shifted) {
            // f32 angles at positions up to 2 300: a few ulps of a turn.
            prop_assert!((a - b).abs() < 2e-3 * (1.0 + a.abs()), "q·k {a} at ({m}, {n}) but {b} shifted by {shift}");
        }
        // And it is a rotation: lengths are kept.
        let rq = rope(&q, heads, ROPE_THETA, RopePositions::from(m)).unwrap();
        prop_assert!((dot(rq.as_slice(), rq.as_slice()) - dot(q.as_slice(), q.as_slice())).abs() < 1e-4);
    }
}

/// Σ dY ⊙ f(X): a scalar whose gradient with respect to X is what each backward returns.
fn weighted(y: &Matrix, dy: &Matrix) -> f64 {
    dot(y.as_slice(), dy.as_slice())
}

/// Central differences of `loss` with respect to every entry of `x`, in f32 steps of h.
fn numeric(x: &Matrix, h: f32, loss: impl Fn(&Matrix) -> f64) -> Vec<f64> {
    (0..x.as_slice().len())
        .map(|i| {
            let mut plus = x.clone();
            plus.as_mut_slice()[i] += h;
            let mut minus = x.clone();
            minus.as_mut_slice()[i] -= h;
            (loss(&plus) - loss(&minus)) / (2.0 * h as f64)
        })
        .collect()
}

/// The largest |analytic − numeric| relative to the largest numeric entry.
fn worst(analytic: &Matrix, numeric: &[f64]) -> f64 {
    let scale = numeric.iter().fold(1e-3f64, |m, v| m.max(v.abs()));
    analytic.as_slice().iter().zip(numeric).map(|(a, n)| (*a as f64 - n).abs()).fold(0.0, f64::max) / scale
}

const H: f32 = 1e-2;
const TOLERANCE: f64 = 2e-3;

#[test]
fn rope_backward_matches_central_differences() {
    let mut rng = Rng::new(41);
    let (x, dy) = (rng.matrix(5, 12, -1.0, 1.0), rng.matrix(5, 12, -1.0, 1.0));
    let dx = rope_backward(&dy, 3, ROPE_THETA, RopePositions::from(7)).unwrap();
    let n = numeric(&x, H, |x| weighted(&rope(x, 3, ROPE_THETA, RopePositions::from(7)).unwrap(), &dy));
    assert!(worst(&dx, &n) < TOLERANCE, "RoPE dX off by {}", worst(&dx, &n));
}

#[test]
fn rms_norm_backward_matches_central_differences() {
    let mut rng = Rng::new(42);
    let (x, gamma, dy) = (rng.matrix(4, 8, -2.0, 2.0), rng.matrix(1, 8, 0.5, 1.5), rng.matrix(4, 8, -1.0, 1.0));
    let grads = rms_norm_backward(&x, &gamma, &dy, 1e-5).unwrap();
    let dx = numeric(&x, H, |x| weighted(&rms_norm(x, &gamma, 1e-5).unwrap(), &dy));
    let dgamma = numeric(&gamma, H, |g| weighted(&rms_norm(&x, g, 1e-5).unwrap(), &dy));
    assert!(worst(&grads.dx, &dx) < TOLERANCE, "RMSNorm dX off by {}", worst(&grads.dx, &dx));
    assert!(worst(&grads.dgamma, &dgamma) < TOLERANCE, "RMSNorm dγ off by {}", worst(&grads.dgamma, &dgamma));
}

#[test]
fn swiglu_backward_matches_central_differences() {
    let mut rng = Rng::new(43);
    let (gate, up, dh) = (rng.matrix(3, 10, -3.0, 3.0), rng.matrix(3, 10, -2.0, 2.0), rng.matrix(3, 10, -1.0, 1.0));
    let grads = swiglu_backward(&gate, &up, &dh).unwrap();
    let dgate = numeric(&gate, H, |g| weighted(&swiglu(g, &up).unwrap(), &dh));
    let dup = numeric(&up, H, |u| weighted(&swiglu(&gate, u).unwrap(), &dh));
    assert!(worst(&grads.dgate, &dgate) < TOLERANCE, "SwiGLU dgate off by {}", worst(&grads.dgate, &dgate));
    assert!(worst(&grads.dup, &dup) < TOLERANCE, "SwiGLU dup off by {}", worst(&grads.dup, &dup));
}

#[test]
fn repeat_kv_backward_matches_central_differences() {
    let mut rng = Rng::new(44);
    // Six Q heads over two K/V heads of width 4 (GQA), and over one (MQA).
    for kv_heads in [2, 1, 6] {
        let (x, dy) = (rng.matrix(3, 4 * kv_heads, -1.0, 1.0), rng.matrix(3, 24, -1.0, 1.0));
        let dx = repeat_kv_backward(&dy, 6, kv_heads).unwrap();
        let n = numeric(&x, H, |x| weighted(&repeat_kv(x, 6, kv_heads).unwrap(), &dy));
        assert!(worst(&dx, &n) < TOLERANCE, "repeat_kv dX ({kv_heads} kv heads) off by {}", worst(&dx, &n));
    }
}

/// A training batch turns each of its sequences as if it were alone, from position 0.
#[test]
fn a_batch_turns_each_sequence_from_position_zero() {
    let mut rng = Rng::new(43);
    let (sequences, t) = (3, 5);
    let x = rng.matrix(sequences * t, 8, -1.0, 1.0);
    let batch = rope(&x, 2, ROPE_THETA, RopePositions::batch(sequences)).unwrap();
    for s in 0..sequences {
        let alone = Matrix::from_rows(&x.to_rows()[s * t..(s + 1) * t]).unwrap();
        let want = rope(&alone, 2, ROPE_THETA, RopePositions::from(0)).unwrap();
        assert_eq!(&batch.as_slice()[s * t * 8..(s + 1) * t * 8], want.as_slice(), "sequence {s}");
    }
}
