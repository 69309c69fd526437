//! The four parts today's decoders changed in the 2017 block (issue 41), as CPU ops with their
//! gradients, the references their kernels will be tested against:
//! - RoPE: positions as rotations of q and k, not a vector added to x;
//! - RMSNorm: scale by the root mean square, no centring, no β;
//! - SwiGLU: a gated FFN, SiLU(gate) ⊙ up, then the down projection (a plain product);
//! - GQA: fewer K and V heads than Q heads, each shared by a group (`repeat_kv`), MQA with one.
//!
//! Shapes as in `core::ops`: rows are positions, a head's columns are contiguous
//! (head h owns columns h·d_h … (h+1)·d_h), as the decoder lays out Q, K and V.

use crate::error::{ComputeError, Result};
use crate::matrix::{Dims, Matrix};
use crate::ops::backward::same_shape;

/// RoPE's base: the rotation of pair i turns by θ^(−2i/d_h) per position (Llama's 10 000).
pub const ROPE_THETA: f32 = 10_000.0;

/// The angle by which position `position` turns pair `pair` of a head `head_width` wide.
/// In f64, then rounded once, so long contexts lose no accuracy in the product.
pub fn rope_angle(position: usize, pair: usize, head_width: usize, theta: f32) -> f32 {
    let frequency = (theta as f64).powf(-2.0 * pair as f64 / head_width as f64);
    (position as f64 * frequency) as f32
}

/// RoPE's shape rule, on dims (the op table applies it too): `heads` heads of an even width
/// d_h, rows that split into `sequences` equal sequences, and a base θ > 1 (θ ≤ 1 would not
/// slow the turns down pair after pair). Returns d_h.
pub fn check_rope_dims(x: Dims, heads: usize, theta: f32, sequences: usize) -> Result<usize> {
    if sequences == 0 || x.0 % sequences != 0 {
        return Err(ComputeError::Invalid(format!("RoPE: {} linhas não se dividem em {sequences} sequências iguais.", x.0)));
    }
    if heads == 0 || x.1 % heads != 0 {
        return Err(ComputeError::Invalid(format!("RoPE: a largura {} não se divide em {heads} cabeças iguais.", x.1)));
    }
    let width = x.1 / heads;
    if width % 2 != 0 {
        return Err(ComputeError::Invalid(format!("RoPE: cada cabeça precisa de largura par para girar em pares (d_h = {width}).")));
    }
    if !(theta.is_finite() && theta > 1.0) {
        return Err(ComputeError::Invalid(format!("RoPE: a base θ precisa ser finita e maior que 1, não {theta}.")));
    }
    Ok(width)
}

/// Where RoPE puts a row and turns it: the sequences stacked in the rows and the first one's
/// position (the rows a KV cache already holds; 0 in training).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RopePositions {
    /// Position of each sequence's first row.
    pub first: usize,
    /// B sequences of equal length stacked in the rows: row r is at `first` + r mod (rows / B).
    pub sequences: usize,
}

impl RopePositions {
    /// One sequence whose first row is at `first` (a decoder's new rows after a cache).
    pub fn from(first: usize) -> Self {
        RopePositions { first, sequences: 1 }
    }

    /// B sequences each starting at position 0 (a training batch).
    pub fn batch(sequences: usize) -> Self {
        RopePositions { first: 0, sequences }
    }
}

/// Turns each pair (2i, 2i+1) of every head of X (B·t, heads·d_h) by the angle of its row's
/// position (`first` + row mod t) times ω_i = θ^(−2i/d_h); `sign` −1 turns back.
fn rotate(x: &Matrix, heads: usize, theta: f32, at: RopePositions, sign: f32) -> Result<Matrix> {
    let width = check_rope_dims(x.shape(), heads, theta, at.sequences)?;
    let cols = x.cols();
    let t = (x.rows() / at.sequences).max(1);
    let table = rope_table(at.first, t, width, theta);
    let mut out = x.as_slice().to_vec();
    for (row, values) in out.chunks_exact_mut(cols.max(1)).enumerate() {
        let turns = &table.as_slice()[(row % t) * width..(row % t + 1) * width];
        for pair in 0..width / 2 {
            let (cos, sin) = (turns[2 * pair], sign * turns[2 * pair + 1]);
            for head in 0..heads {
                let i = head * width + 2 * pair;
                let (a, b) = (values[i], values[i + 1]);
                values[i] = a * cos - b * sin;
                values[i + 1] = a * sin + b * cos;
            }
        }
    }
    Matrix::from_vec(x.rows(), cols, out)
}

/// The cosines and sines a rotation uses: row k for position `first` + k (k < `positions`),
/// columns (cos, sin) of each pair's angle, for a head `head_width` wide. Both backends read
/// this one table (the GPU's as a buffer): a WebGPU implementation may approximate `sin`,
/// `cos` and `pow` (SwiftShader's were 1e-4 off), and RoPE is only as exact as its angles.
pub fn rope_table(first: usize, positions: usize, head_width: usize, theta: f32) -> Matrix {
    let mut values = Vec::with_capacity(positions * head_width);
    for position in first..first + positions {
        for pair in 0..head_width / 2 {
            let (sin, cos) = rope_angle(position, pair, head_width, theta).sin_cos();
            values.extend([cos, sin]);
        }
    }
    Matrix::from_vec(positions, head_width, values).expect("positions × head_width values")
}

/// RoPE on Q or K (B·t, heads·d_h), row r of a sequence at position `at.first` + r (a KV
/// cache's new rows start past the cached ones; a training batch's sequences each at 0). The
/// pairs are adjacent columns (2i, 2i+1), candle's `rope_i`.
pub fn rope(x: &Matrix, heads: usize, theta: f32, at: RopePositions) -> Result<Matrix> {
    rotate(x, heads, theta, at, 1.0)
}

/// Through Y = RoPE(X): a rotation's inverse is its transpose, so dX turns dY back.
pub fn rope_backward(dy: &Matrix, heads: usize, theta: f32, at: RopePositions) -> Result<Matrix> {
    rotate(dy, heads, theta, at, -1.0)
}

/// RMSNorm's shape rule, on dims: γ is one row of X's width.
pub fn check_rms_norm_dims(x: Dims, gamma: Dims) -> Result<()> {
    if gamma != (1, x.1) {
        return Err(ComputeError::Shape { op: "RMSNorm γ", left: x, right: gamma });
    }
    Ok(())
}

/// 1/√(mean(x²) + ε) of a row.
fn inverse_rms(row: &[f32], eps: f32) -> f32 {
    let mean_square = row.iter().map(|v| v * v).sum::<f32>() / row.len().max(1) as f32;
    1.0 / (mean_square + eps).sqrt()
}

/// Y = γ ⊙ x / √(mean(x²) + ε), row by row: the size of a vector is normalised, its mean is
/// kept (layer norm also subtracts the mean and adds β).
pub fn rms_norm(x: &Matrix, gamma: &Matrix, eps: f32) -> Result<Matrix> {
    check_rms_norm_dims(x.shape(), gamma.shape())?;
    let cols = x.cols();
    let mut out = x.as_slice().to_vec();
    for row in out.chunks_exact_mut(cols.max(1)) {
        let r = inverse_rms(row, eps);
        for (v, g) in row.iter_mut().zip(gamma.as_slice()) {
            *v *= r * g;
        }
    }
    Matrix::from_vec(x.rows(), cols, out)
}

/// The gradients of an RMSNorm.
#[derive(Debug)]
pub struct RmsNormGrads {
    pub dx: Matrix,
    /// (1, d).
    pub dgamma: Matrix,
}

/// Through Y = γ ⊙ x·r, r = 1/√(mean(x²) + ε): with g = dY ⊙ γ and n = d,
/// dX = r·g − x·r³·(g·x)/n, dγ = Σ_rows dY ⊙ x·r.
pub fn rms_norm_backward(x: &Matrix, gamma: &Matrix, dy: &Matrix, eps: f32) -> Result<RmsNormGrads> {
    check_rms_norm_dims(x.shape(), gamma.shape())?;
    same_shape("RMSNorm dY", x, dy)?;
    let cols = x.cols();
    let n = cols.max(1) as f32;
    let mut dx = vec![0.0f32; x.as_slice().len()];
    let mut dgamma = vec![0.0f32; cols];
    let rows = x.as_slice().chunks_exact(cols.max(1)).zip(dy.as_slice().chunks_exact(cols.max(1)));
    for ((xr, dyr), dxr) in rows.zip(dx.chunks_exact_mut(cols.max(1))) {
        let r = inverse_rms(xr, eps);
        let g_dot_x: f32 = xr.iter().zip(dyr).zip(gamma.as_slice()).map(|((x, dy), g)| dy * g * x).sum();
        for j in 0..cols {
            let g = dyr[j] * gamma.as_slice()[j];
            dxr[j] = r * g - xr[j] * r * r * r * g_dot_x / n;
            dgamma[j] += dyr[j] * xr[j] * r;
        }
    }
    Ok(RmsNormGrads { dx: Matrix::from_vec(x.rows(), cols, dx)?, dgamma: Matrix::from_vec(1, cols, dgamma)? })
}

/// SiLU(x) = x·σ(x), the "Swish" the gate goes through.
pub fn silu(x: f32) -> f32 {
    x / (1.0 + (-x).exp())
}

/// SwiGLU's hidden layer: SiLU(gate) ⊙ up, with gate = x·W_gate and up = x·W_up (t, d_ff).
/// The FFN is then hidden·W_down: three matrices where the 2017 FFN has two, so at equal
/// parameters d_ff is ⅔ of the ReLU FFN's.
pub fn swiglu(gate: &Matrix, up: &Matrix) -> Result<Matrix> {
    same_shape("SwiGLU", gate, up)?;
    let values = gate.as_slice().iter().zip(up.as_slice()).map(|(&g, &u)| silu(g) * u).collect();
    Matrix::from_vec(gate.rows(), gate.cols(), values)
}

/// The gradients of SwiGLU's hidden layer.
#[derive(Debug)]
pub struct SwigluGrads {
    pub dgate: Matrix,
    pub dup: Matrix,
}

/// Through H = SiLU(G) ⊙ U: dU = dH ⊙ SiLU(G), dG = dH ⊙ U ⊙ SiLU′(G), with
/// SiLU′(g) = σ(g)·(1 + g·(1 − σ(g))).
pub fn swiglu_backward(gate: &Matrix, up: &Matrix, dh: &Matrix) -> Result<SwigluGrads> {
    same_shape("SwiGLU", gate, up)?;
    same_shape("SwiGLU dH", gate, dh)?;
    let (mut dgate, mut dup) = (Vec::with_capacity(dh.as_slice().len()), Vec::with_capacity(dh.as_slice().len()));
    for ((&g, &u), &d) in gate.as_slice().iter().zip(up.as_slice()).zip(dh.as_slice()) {
        let sigma = 1.0 / (1.0 + (-g).exp());
        dup.push(d * g * sigma);
        dgate.push(d * u * sigma * (1.0 + g * (1.0 - sigma)));
    }
    Ok(SwigluGrads { dgate: Matrix::from_vec(gate.rows(), gate.cols(), dgate)?, dup: Matrix::from_vec(up.rows(), up.cols(), dup)? })
}

/// Q heads per K/V head: `n_heads` / `n_kv_heads`, which must divide.
pub fn group_size(n_heads: usize, n_kv_heads: usize) -> Result<usize> {
    if n_kv_heads == 0 || n_heads % n_kv_heads != 0 {
        return Err(ComputeError::Invalid(format!("{n_kv_heads} cabeças de K e V não dividem {n_heads} cabeças de Q em grupos iguais.")));
    }
    Ok(n_heads / n_kv_heads)
}

/// `repeat_kv`'s shape rule, on dims: X (t, n_kv·d_h) → (t, n_heads·d_h). Returns (g, d_h).
pub fn check_repeat_kv_dims(x: Dims, n_heads: usize, n_kv_heads: usize) -> Result<(usize, usize)> {
    let group = group_size(n_heads, n_kv_heads)?;
    if x.1 % n_kv_heads != 0 {
        return Err(ComputeError::Invalid(format!("A largura {} não se divide em {n_kv_heads} cabeças de K e V.", x.1)));
    }
    Ok((group, x.1 / n_kv_heads))
}

/// `repeat_kv_backward`'s shape rule, on dims: dY (t, n_heads·d_h) → (t, n_kv·d_h). Returns (g, d_h).
pub fn check_repeat_kv_backward_dims(dy: Dims, n_heads: usize, n_kv_heads: usize) -> Result<(usize, usize)> {
    let group = group_size(n_heads, n_kv_heads)?;
    if dy.1 % n_heads != 0 {
        return Err(ComputeError::Invalid(format!("A largura {} não se divide em {n_heads} cabeças.", dy.1)));
    }
    Ok((group, dy.1 / n_heads))
}

/// GQA: K or V (t, n_kv·d_h) widened to (t, n_heads·d_h), kv head j repeated for Q heads
/// j·g … (j+1)·g − 1 (g = n_heads / n_kv), so the attention of multi-head runs unchanged.
/// n_kv = n_heads is multi-head attention (a copy); n_kv = 1 is MQA.
pub fn repeat_kv(x: &Matrix, n_heads: usize, n_kv_heads: usize) -> Result<Matrix> {
    let (group, width) = check_repeat_kv_dims(x.shape(), n_heads, n_kv_heads)?;
    let mut out = Vec::with_capacity(x.rows() * width * n_heads);
    for row in x.as_slice().chunks_exact(x.cols().max(1)) {
        for head in 0..n_heads {
            let kv = head / group;
            out.extend_from_slice(&row[kv * width..(kv + 1) * width]);
        }
    }
    Matrix::from_vec(x.rows(), width * n_heads, out)
}

/// Through `repeat_kv`: each kv head's gradient is the sum over the Q heads of its group.
pub fn repeat_kv_backward(dy: &Matrix, n_heads: usize, n_kv_heads: usize) -> Result<Matrix> {
    let (group, width) = check_repeat_kv_backward_dims(dy.shape(), n_heads, n_kv_heads)?;
    let mut out = vec![0.0f32; dy.rows() * width * n_kv_heads];
    for (row, grads) in dy.as_slice().chunks_exact(dy.cols().max(1)).zip(out.chunks_exact_mut((width * n_kv_heads).max(1))) {
        for head in 0..n_heads {
            let kv = head / group;
            for (g, v) in grads[kv * width..(kv + 1) * width].iter_mut().zip(&row[head * width..(head + 1) * width]) {
                *g += v;
            }
        }
    }
    Matrix::from_vec(dy.rows(), width * n_kv_heads, out)
}

/// Bytes a KV cache holds: K and V for every layer, `context` positions, `n_kv_heads` heads of
/// width `head_width`, `bytes_per_value` each (4 for f32, 2 for f16): what GQA saves.
pub fn kv_cache_bytes(layers: usize, context: usize, n_kv_heads: usize, head_width: usize, bytes_per_value: usize) -> usize {
    2 * layers * context * n_kv_heads * head_width * bytes_per_value
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(rows: usize, cols: usize, values: &[f32]) -> Matrix {
        Matrix::from_vec(rows, cols, values.to_vec()).unwrap()
    }

    #[test]
    fn rope_turns_each_pair_by_its_position() {
        // One head of width 2: pair 0 turns by p radians (ω₀ = 1).
        let x = m(2, 2, &[1.0, 0.0, 1.0, 0.0]);
        let y = rope(&x, 1, ROPE_THETA, RopePositions::from(0)).unwrap();
        assert_eq!(y.row(0), vec![1.0, 0.0]);
        assert!((y.get(1, 0) - 1f32.cos()).abs() < 1e-7 && (y.get(1, 1) - 1f32.sin()).abs() < 1e-7);
        // The second row of a cache's new rows at position 5 turns by 6.
        let z = rope(&x, 1, ROPE_THETA, RopePositions::from(5)).unwrap();
        assert!((z.get(1, 0) - 6f32.cos()).abs() < 1e-6);
        // Two sequences of one row: both rows at position 0, unturned.
        assert_eq!(rope(&x, 1, ROPE_THETA, RopePositions::batch(2)).unwrap(), x);
        assert!(rope(&m(1, 3, &[0.0; 3]), 1, ROPE_THETA, RopePositions::from(0)).is_err());
        assert!(rope(&x, 1, 1.0, RopePositions::from(0)).is_err() && rope(&x, 1, f32::NAN, RopePositions::from(0)).is_err());
        assert!(rope(&m(3, 2, &[0.0; 6]), 1, ROPE_THETA, RopePositions::batch(2)).is_err(), "3 rows in 2 sequences");
    }

    #[test]
    fn rms_norm_keeps_the_mean_that_layer_norm_removes() {
        let x = m(1, 4, &[1.0, 2.0, 3.0, 4.0]);
        let y = rms_norm(&x, &m(1, 4, &[1.0; 4]), 0.0).unwrap();
        let rms = (30.0f32 / 4.0).sqrt();
        for (j, v) in y.row(0).iter().enumerate() {
            assert!((v - (j + 1) as f32 / rms).abs() < 1e-6);
        }
    }

    #[test]
    fn repeat_kv_copies_a_group_and_its_backward_sums_it() {
        // Two kv heads of width 1 shared by four Q heads.
        let kv = m(1, 2, &[7.0, 9.0]);
        assert_eq!(repeat_kv(&kv, 4, 2).unwrap().row(0), vec![7.0, 7.0, 9.0, 9.0]);
        let dy = m(1, 4, &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(repeat_kv_backward(&dy, 4, 2).unwrap().row(0), vec![3.0, 7.0]);
        assert!(repeat_kv(&kv, 3, 2).is_err());
        assert_eq!(kv_cache_bytes(4, 128, 2, 32, 4), 2 * 4 * 128 * 2 * 32 * 4);
    }
}
