//! The CPU versions of every op: the reference the WGSL kernels are tested against.
//!
//! Each function states its contract in one line. Matrix products go through
//! `ndarray`'s `dot` (the `matrixmultiply` crate's blocked SIMD kernels), except products with
//! at most `FEW_ROWS` rows on the left, which read B once in vectorisable loops instead.

use ndarray::{Array2, Axis};

use crate::error::{ComputeError, Result};
use crate::lanes;
use crate::matrix::{Dims, Matrix};
use crate::small_matmul;

pub mod adamw;
pub mod backward;
pub mod modern;

fn shape_err(op: &'static str, left: Dims, right: Dims) -> ComputeError {
    ComputeError::Shape { op, left, right }
}

// Shape rules, on dims so both backends and the op table (`core::op`) apply the very same
// ones; the `check_*` forms on matrices are for the CPU functions below.

/// A (m,k) @ B (k,n): fails unless the inner sizes agree.
pub fn check_matmul_dims(a: Dims, b: Dims) -> Result<()> {
    if a.1 != b.0 {
        return Err(shape_err("A·B", a, b));
    }
    Ok(())
}

/// A (m,k) @ Bᵀ with B (n,k): fails unless both have k columns.
pub fn check_matmul_bt_dims(a: Dims, b: Dims) -> Result<()> {
    if a.1 != b.1 {
        return Err(shape_err("A·Bᵀ", a, b));
    }
    Ok(())
}

/// A + B: B has A's shape or is one row of A's width.
pub fn check_add_dims(a: Dims, b: Dims) -> Result<()> {
    let broadcast_row = b.0 == 1 && b.1 == a.1;
    if !(b == a || broadcast_row) {
        return Err(shape_err("A+B", a, b));
    }
    Ok(())
}

/// γ and β are single rows of X's width.
pub fn check_layer_norm_dims(x: Dims, gamma: Dims, beta: Dims) -> Result<()> {
    if gamma != (1, x.1) {
        return Err(shape_err("LayerNorm γ", x, gamma));
    }
    if beta != (1, x.1) {
        return Err(shape_err("LayerNorm β", x, beta));
    }
    Ok(())
}

/// Q (t_q,d), K and V (t_k,d), d divisible by `heads`; returns d_h = d / heads.
pub fn check_attention_dims(q: Dims, k: Dims, v: Dims, heads: usize) -> Result<usize> {
    if q.1 != k.1 {
        return Err(shape_err("Q·Kᵀ", q, k));
    }
    if k != v {
        return Err(shape_err("K e V", k, v));
    }
    if heads == 0 || q.1 % heads != 0 {
        return Err(ComputeError::Invalid(format!("A largura {} não se divide em {heads} cabeças iguais.", q.1)));
    }
    Ok(q.1 / heads)
}

pub fn check_matmul(a: &Matrix, b: &Matrix) -> Result<()> {
    check_matmul_dims(a.shape(), b.shape())
}

pub fn check_matmul_bt(a: &Matrix, b: &Matrix) -> Result<()> {
    check_matmul_bt_dims(a.shape(), b.shape())
}

pub fn check_add(a: &Matrix, b: &Matrix) -> Result<()> {
    check_add_dims(a.shape(), b.shape())
}

pub fn check_layer_norm(x: &Matrix, gamma: &Matrix, beta: &Matrix) -> Result<()> {
    check_layer_norm_dims(x.shape(), gamma.shape(), beta.shape())
}

/// Every id indexes a row of the table.
pub fn check_ids(table: &Matrix, ids: &[u32]) -> Result<()> {
    check_vocab(table.rows(), ids)
}

/// Every id is below `vocab`.
pub fn check_vocab(vocab: usize, ids: &[u32]) -> Result<()> {
    if let Some(&bad) = ids.iter().find(|&&id| id as usize >= vocab) {
        return Err(ComputeError::Invalid(format!(
            "O identificador {bad} não existe num vocabulário de {vocab} entradas."
        )));
    }
    Ok(())
}

pub fn check_attention(q: &Matrix, k: &Matrix, v: &Matrix, heads: usize) -> Result<usize> {
    check_attention_dims(q.shape(), k.shape(), v.shape(), heads)
}

/// Rows `start..end` of A (a copy).
pub fn rows(a: &Matrix, start: usize, end: usize) -> Matrix {
    Matrix::from_array(a.array().slice(ndarray::s![start..end, ..]).to_owned())
}

/// B (r, n) fits rows `at..at + r` of A (m, n).
pub fn check_write_rows(a: Dims, at: usize, b: Dims) -> Result<()> {
    if b.1 != a.1 || at + b.0 > a.0 {
        return Err(ComputeError::Invalid(format!(
            "{} linhas de largura {} não cabem a partir da linha {} de uma matriz {}×{}.",
            b.0,
            b.1,
            at + 1,
            a.0,
            a.1
        )));
    }
    Ok(())
}

/// Writes B into rows `at..at + B.rows` of A, in place: a KV cache grows without copying
/// what it holds.
pub fn write_rows(a: &mut Matrix, at: usize, b: &Matrix) -> Result<()> {
    check_write_rows(a.shape(), at, b.shape())?;
    let width = a.cols();
    a.as_mut_slice()[at * width..(at + b.rows()) * width].copy_from_slice(b.as_slice());
    Ok(())
}

/// A (m,k) @ B (k,n) → (m,n).
pub fn matmul(a: &Matrix, b: &Matrix) -> Result<Matrix> {
    check_matmul(a, b)?;
    if a.rows() <= FEW_ROWS {
        return Ok(few_rows_matmul(a, b));
    }
    if let Some(values) = small_matmul::matmul(a.as_slice(), b.as_slice(), a.rows(), a.cols(), b.cols()) {
        return Ok(Matrix::from_vec(a.rows(), b.cols(), values).expect("m·n values"));
    }
    // The site's wasm: simd128 register blocks without packing, 1,06–1,36× matrixmultiply at
    // every size measured in the browser, 16² to 512² (BENCHMARKS.md, "Against candle in the
    // browser").
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return Ok(Matrix::from_vec(a.rows(), b.cols(), lanes::matmul(a.as_slice(), b.as_slice(), a.rows(), a.cols(), b.cols())).expect("m·n values"));
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    Ok(Matrix::from_array(a.array().dot(b.array())))
}

/// Up to this many rows of A (the decoder's next token with a KV cache: one row), a product
/// skips matrixmultiply, whose packing copies all of B on every call, for plain loops over B's
/// rows: the weights are read once. Measured on the shipped decoder's next token: see
/// BENCHMARKS.md.
const FEW_ROWS: usize = 4;

/// A · B row by row: each output row accumulates a[i,k] · B[k,:] over k (contiguous rows of B,
/// in `lanes::axpy_rows`: simd128 lanes in the site's wasm, the sums held in registers).
fn few_rows_matmul(a: &Matrix, b: &Matrix) -> Matrix {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    let (a_values, b_values) = (a.as_slice(), b.as_slice());
    let mut out = vec![0.0f32; m * n];
    for (i, out_row) in out.chunks_exact_mut(n.max(1)).enumerate() {
        lanes::axpy_rows(out_row, &a_values[i * k..(i + 1) * k], b_values, n);
    }
    Matrix::from_vec(m, n, out).expect("m·n values")
}

/// alpha · A · Bᵀ for few rows of A: every output is a dot product of two contiguous rows.
fn few_rows_matmul_bt(a: &Matrix, b: &Matrix, alpha: f32) -> Matrix {
    let (m, k, n) = (a.rows(), a.cols(), b.rows());
    let mut out = Vec::with_capacity(m * n);
    for i in 0..m {
        let a_row = &a.as_slice()[i * k..(i + 1) * k];
        for j in 0..n {
            out.push(alpha * lanes::dot(a_row, &b.as_slice()[j * k..(j + 1) * k]));
        }
    }
    Matrix::from_vec(m, n, out).expect("m·n values")
}

/// alpha · A (m,k) @ Bᵀ where B is (n,k) → (m,n). With alpha = 1/√d_k this is QKᵀ/√d_k.
pub fn matmul_bt(a: &Matrix, b: &Matrix, alpha: f32) -> Result<Matrix> {
    check_matmul_bt(a, b)?;
    if a.rows() <= FEW_ROWS {
        return Ok(few_rows_matmul_bt(a, b, alpha));
    }
    let mut out = a.array().dot(&b.array().t());
    if alpha != 1.0 {
        out.mapv_inplace(|v| v * alpha);
    }
    Ok(Matrix::from_array(out))
}

/// A (m,n) → Aᵀ (n,m).
pub fn transpose(a: &Matrix) -> Matrix {
    Matrix::from_array(a.array().t().to_owned())
}

/// A (m,n) + B, where B is (m,n) or a single row (1,n) broadcast over the rows (a bias).
pub fn add(a: &Matrix, b: &Matrix) -> Result<Matrix> {
    check_add(a, b)?;
    // On contiguous slices, not through ndarray's broadcasting `+`, which walks a broadcast
    // row element by element: the FFN's bias add took 1,15 ms for 128 × 768 that way, more
    // than either of its products (criterion vs_candle; see BENCHMARKS.md).
    let mut out = a.as_slice().to_vec();
    if b.shape() == a.shape() {
        add_into(&mut out, b.as_slice());
    } else {
        for out_row in out.chunks_exact_mut(a.cols().max(1)) {
            add_into(out_row, b.as_slice());
        }
    }
    Ok(Matrix::from_vec(a.rows(), a.cols(), out).expect("same shape as A"))
}

/// `out += addend`, element by element (same length).
fn add_into(out: &mut [f32], addend: &[f32]) {
    for (o, &v) in out.iter_mut().zip(addend) {
        *o += v;
    }
}

/// alpha · A.
pub fn scale(a: &Matrix, alpha: f32) -> Matrix {
    Matrix::from_array(a.array().mapv(|v| v * alpha))
}

/// Options of the row softmax.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SoftmaxOptions {
    /// Hide the future: row i sees columns j ≤ i + `causal_offset` only (the others get weight 0).
    pub causal: bool,
    /// Shifts the causal diagonal; with a KV cache the query rows come after `offset` cached keys.
    pub causal_offset: usize,
    /// Divides the scores before exponentiating: < 1 sharpens, > 1 flattens. Must be > 0.
    pub temperature: f32,
}

impl Default for SoftmaxOptions {
    fn default() -> Self {
        SoftmaxOptions { causal: false, causal_offset: 0, temperature: 1.0 }
    }
}

impl SoftmaxOptions {
    pub fn causal() -> Self {
        SoftmaxOptions { causal: true, ..Default::default() }
    }

    pub fn validate(&self) -> Result<()> {
        if !(self.temperature > 0.0 && self.temperature.is_finite()) {
            return Err(ComputeError::Invalid(
                "A temperatura precisa ser um número positivo.".into(),
            ));
        }
        Ok(())
    }

    /// Whether row `i` may look at column `j`.
    pub fn visible(&self, i: usize, j: usize) -> bool {
        !self.causal || j <= i + self.causal_offset
    }
}

/// Row softmax of A (m,n) → (m,n), each row summing to 1.
///
/// Numerically stable (subtracts the row maximum first), so scores like ±1e30 give
/// no NaN. Masked cells (−∞ or hidden by `causal`) get exactly 0. A row with nothing
/// visible or finite becomes uniform over its columns: still a distribution, never NaN.
pub fn softmax_rows(a: &Matrix, opts: SoftmaxOptions) -> Result<Matrix> {
    opts.validate()?;
    let inv_t = 1.0 / opts.temperature;
    let (m, n) = a.shape();
    let width = n.max(1);
    let mut out = vec![0.0f32; m * n];
    for (i, (row, out_row)) in a.as_slice().chunks_exact(width).zip(out.chunks_exact_mut(width)).enumerate() {
        // The causal mask hides every column after `seen` (their weight stays 0): loop over the
        // visible prefix only, with no per-cell mask test (softmax 256² causal: see BENCHMARKS.md).
        let seen = if opts.causal { i.saturating_add(opts.causal_offset).saturating_add(1).min(n) } else { n };
        let (visible, weights) = (&row[..seen], &mut out_row[..seen]);
        // The maximum of the raw scores (−∞ and NaN count as masked); the temperature then
        // divides (v − max) ≤ 0, so huge scores or a tiny temperature overflow to −∞ (weight 0),
        // never to ∞ − ∞ = NaN.
        let max = visible.iter().copied().filter(|&v| v > f32::NEG_INFINITY).fold(f32::NEG_INFINITY, f32::max);
        if max == f32::NEG_INFINITY {
            out_row.fill(1.0 / n as f32);
            continue;
        }
        let mut sum = 0.0f32;
        for (w, &v) in weights.iter_mut().zip(visible) {
            // v == max also covers a +∞ score (an overflowed product): its weight is exp(0).
            *w = if v == max {
                1.0
            } else if v > f32::NEG_INFINITY {
                ((v - max) * inv_t).exp()
            } else {
                0.0
            };
            sum += *w;
        }
        for w in weights.iter_mut() {
            *w /= sum;
        }
    }
    Matrix::from_vec(m, n, out)
}

/// Layer norm of each row of X (t,d): γ ⊙ (x − μ)/√(σ² + ε) + β, with γ, β of shape (1,d).
pub fn layer_norm(x: &Matrix, gamma: &Matrix, beta: &Matrix, eps: f32) -> Result<Matrix> {
    check_layer_norm(x, gamma, beta)?;
    // Over plain slices: through ndarray's row iterators and `get`, the site's wasm (opt-level
    // "z") made calls per value, a tenth of a prompt's time in a CPU profile (issue 42). The
    // same sums in the same order as before.
    let width = x.cols();
    let d = width as f32;
    let (gamma, beta) = (gamma.as_slice(), beta.as_slice());
    let mut out = x.as_slice().to_vec();
    for row in out.chunks_exact_mut(width.max(1)) {
        let mean = sum_eight_ways(row) / d;
        let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / d;
        let inv_std = 1.0 / (var + eps).sqrt();
        for ((v, &g), &b) in row.iter_mut().zip(gamma).zip(beta) {
            *v = g * (*v - mean) * inv_std + b;
        }
    }
    Matrix::from_vec(x.rows(), width, out)
}

/// The sum of `xs` as ndarray's `sum` adds a contiguous row (its `unrolled_fold`): eight running
/// sums, combined 0+4, 1+5, 2+6, 3+7 in turn, then the rest, so `layer_norm` keeps its bits.
fn sum_eight_ways(xs: &[f32]) -> f32 {
    let mut p = [0.0f32; 8];
    let chunks = xs.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        p[0] += chunk[0];
        p[1] += chunk[1];
        p[2] += chunk[2];
        p[3] += chunk[3];
        p[4] += chunk[4];
        p[5] += chunk[5];
        p[6] += chunk[6];
        p[7] += chunk[7];
    }
    let mut sum = 0.0f32;
    sum += p[0] + p[4];
    sum += p[1] + p[5];
    sum += p[2] + p[6];
    sum += p[3] + p[7];
    for &x in rest {
        sum += x;
    }
    sum
}

/// max(0, x), elementwise.
pub fn relu(a: &Matrix) -> Matrix {
    Matrix::from_array(a.array().mapv(|v| v.max(0.0)))
}

/// GELU, tanh approximation (as in GPT-2): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
pub fn gelu(a: &Matrix) -> Matrix {
    Matrix::from_array(a.array().mapv(gelu_scalar))
}

/// Computed as x / (1 + e^(−2u)), the same value as ½·x·(1 + tanh u): for negative x,
/// 1 + tanh u cancels in f32 (a relative error of 1e-3 at x = −4), the sigmoid form does not.
/// The WGSL twin (gelu.wgsl) uses the same form.
pub fn gelu_scalar(x: f32) -> f32 {
    const SQRT_2_OVER_PI: f32 = 0.797_884_6;
    let u = SQRT_2_OVER_PI * (x + 0.044_715 * x * x * x);
    x / (1.0 + (-2.0 * u).exp())
}

/// Rows of `table` (vocab, d) picked by `ids` → (ids.len(), d): the one-hot × lookup product without the zeros.
pub fn embedding(table: &Matrix, ids: &[u32]) -> Result<Matrix> {
    check_ids(table, ids)?;
    let idx: Vec<usize> = ids.iter().map(|&i| i as usize).collect();
    Ok(Matrix::from_array(table.array().select(Axis(0), &idx)))
}

/// Output of the fused attention core.
#[derive(Clone, Debug, PartialEq)]
pub struct AttentionOutput {
    /// (t_q, d): each head's weighted sum of values, heads concatenated along the columns.
    pub output: Matrix,
    /// (h · t_q, t_k): the softmax weights, head after head.
    pub weights: Matrix,
}

/// Multi-head attention core, without projections: for each head h over columns
/// [h·d_h, (h+1)·d_h) of Q (t_q,d), K (t_k,d), V (t_k,d):
/// softmax(Q_h K_hᵀ / √d_h [+ causal mask]) V_h, heads concatenated → (t_q, d).
/// `causal_offset` = number of keys before the first query (KV cache).
pub fn attention(
    q: &Matrix,
    k: &Matrix,
    v: &Matrix,
    heads: usize,
    causal: bool,
    causal_offset: usize,
) -> Result<AttentionOutput> {
    let d_h = check_attention(q, k, v, heads)?;
    let opts = SoftmaxOptions { causal, causal_offset, temperature: 1.0 };
    if q.rows() > FEW_ROWS {
        return attention_by_products(q, k, v, heads, d_h, opts);
    }
    let (t_q, t_k, d) = (q.rows(), k.rows(), q.cols());
    let scale = 1.0 / (d_h as f32).sqrt();
    let (q_values, k_values, v_values) = (q.as_slice(), k.as_slice(), v.as_slice());
    // A few queries (the decoder's next token): a head's part of a row of Q, K or V is
    // contiguous, and the scores and the weighted sum read it in place, in the loops of the
    // few-row products (the same sums in the same order). Copying each head's columns out
    // first, as `attention_by_products` does, took half the attention's time here: the whole
    // cache's keys and values, per head and token.
    let mut output = vec![0.0f32; t_q * d];
    let mut weights = Vec::with_capacity(heads * t_q * t_k);
    for h in 0..heads {
        // Scores of the visible keys only: softmax never reads a masked one.
        let mut scores = vec![0.0f32; t_q * t_k];
        for (i, row) in scores.chunks_exact_mut(t_k.max(1)).enumerate() {
            let seen = if causal { i.saturating_add(causal_offset).saturating_add(1).min(t_k) } else { t_k };
            let q_row = &q_values[i * d + h * d_h..i * d + (h + 1) * d_h];
            for (j, score) in row[..seen].iter_mut().enumerate() {
                *score = scale * lanes::dot(q_row, &k_values[j * d + h * d_h..j * d + (h + 1) * d_h]);
            }
        }
        let w = softmax_rows(&Matrix::from_vec(t_q, t_k, scores)?, opts)?;
        for (i, w_row) in w.as_slice().chunks_exact(t_k.max(1)).enumerate() {
            let out = &mut output[i * d + h * d_h..i * d + (h + 1) * d_h];
            lanes::axpy_rows(out, w_row, &v_values[h * d_h..], d);
        }
        weights.extend_from_slice(w.as_slice());
    }
    Ok(AttentionOutput { output: Matrix::from_vec(t_q, d, output)?, weights: Matrix::from_vec(heads * t_q, t_k, weights)? })
}

/// Many queries (a prompt): each head's columns copied out once, then the products (blocked
/// kernels, whose work grows with queries × keys while the copy grows with keys only).
fn attention_by_products(q: &Matrix, k: &Matrix, v: &Matrix, heads: usize, d_h: usize, opts: SoftmaxOptions) -> Result<AttentionOutput> {
    let mut output = Array2::<f32>::zeros((q.rows(), q.cols()));
    let mut weights = Array2::<f32>::zeros((heads * q.rows(), k.rows()));
    for h in 0..heads {
        let (qh, kh, vh) = (q.columns(h * d_h, d_h), k.columns(h * d_h, d_h), v.columns(h * d_h, d_h));
        let scores = matmul_bt(&qh, &kh, 1.0 / (d_h as f32).sqrt())?;
        let w = softmax_rows(&scores, opts)?;
        let out_h = matmul(&w, &vh)?;
        output.slice_mut(ndarray::s![.., h * d_h..(h + 1) * d_h]).assign(out_h.array());
        weights
            .slice_mut(ndarray::s![h * q.rows()..(h + 1) * q.rows(), ..])
            .assign(w.array());
    }
    Ok(AttentionOutput { output: Matrix::from_array(output), weights: Matrix::from_array(weights) })
}

/// The terms behind one output cell of A·B: (a_ik, b_kj, a_ik·b_kj) for each k.
/// Their sum is (A·B)[i][j]; the step-through widget lists them.
pub fn matmul_cell_terms(a: &Matrix, b: &Matrix, i: usize, j: usize) -> Result<Vec<(f32, f32, f32)>> {
    check_matmul(a, b)?;
    if i >= a.rows() || j >= b.cols() {
        return Err(ComputeError::Invalid(format!("A célula ({}, {}) está fora do resultado.", i + 1, j + 1)));
    }
    Ok((0..a.cols()).map(|k| (a.get(i, k), b.get(k, j), a.get(i, k) * b.get(k, j))).collect())
}

/// For each row of A, the column of its single 1 if the row is one-hot (all 0 but one 1).
/// When every row is one-hot, A·B just picks rows of B: a lookup table.
pub fn one_hot_rows(a: &Matrix) -> Option<Vec<usize>> {
    (0..a.rows())
        .map(|r| {
            let row = a.row(r);
            let ones: Vec<usize> = row.iter().enumerate().filter(|(_, &v)| v == 1.0).map(|(c, _)| c).collect();
            (ones.len() == 1 && row.iter().all(|&v| v == 0.0 || v == 1.0)).then(|| ones[0])
        })
        .collect()
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// `layer_norm` over slices gives the bits of its earlier ndarray form (row iterators, `sum`).
    #[test]
    fn layer_norm_keeps_the_bits_of_the_ndarray_form() {
        let mut rng = Rng::new(42);
        for (rows, width) in [(1, 1), (3, 7), (2, 8), (5, 17), (64, 192), (1, 768)] {
            let x = rng.matrix(rows, width, -4.0, 4.0);
            let (gamma, beta) = (rng.matrix(1, width, 0.5, 1.5), rng.matrix(1, width, -0.5, 0.5));
            let mut want = x.array().clone();
            for mut row in want.outer_iter_mut() {
                let mean = row.sum() / width as f32;
                let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / width as f32;
                let inv_std = 1.0 / (var + 1e-5f32).sqrt();
                for (j, v) in row.iter_mut().enumerate() {
                    *v = gamma.get(0, j) * (*v - mean) * inv_std + beta.get(0, j);
                }
            }
            let got = layer_norm(&x, &gamma, &beta, 1e-5).unwrap();
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(got.as_slice()), bits(want.as_slice().unwrap()), "{rows}×{width}");
        }
    }

    /// GELU against the same formula in f64, relative to the value, from −9 to 9: no
    /// cancellation where ½(1 + tanh u) is tiny (the GPU twin's parity check found one at
    /// x ≈ −4: a relative error of 2,6e-4 with the textbook f32 expression). The reference
    /// uses ½(1 + tanh u) = 1 / (1 + e^(−2u)), exact in f64 where 1 + tanh u is not.
    #[test]
    fn gelu_keeps_its_relative_precision_for_negative_inputs() {
        for i in -900..=900 {
            let x = i as f32 / 100.0;
            let xd = x as f64;
            let u = 0.797_884_560_802_865_4 * (xd + 0.044_715 * xd * xd * xd);
            let exact = xd / (1.0 + (-2.0 * u).exp());
            let got = gelu_scalar(x) as f64;
            let rel = if exact == 0.0 { got.abs() } else { ((got - exact) / exact).abs() };
            // The exponent is ~66 at x = −9: its argument's f32 rounding alone moves e^(−2u) by ~1e-5.
            assert!(rel < 2e-5, "gelu({x}) = {got}, f64 gives {exact}: relative error {rel:e}");
        }
    }

    /// Addition on slices agrees with ndarray's `+`, same shape and broadcast row.
    #[test]
    fn add_agrees_with_ndarray() {
        let mut rng = Rng::new(3);
        for (m, n) in [(1, 1), (1, 7), (5, 7), (128, 768), (3, 0), (0, 4)] {
            let a = rng.matrix(m, n, -1.0, 1.0);
            for b in [rng.matrix(m, n, -1.0, 1.0), rng.matrix(1, n, -1.0, 1.0)] {
                let want = Matrix::from_array(a.array() + b.array());
                assert_eq!(add(&a, &b).unwrap(), want, "{m}×{n} + {:?}", b.shape());
            }
        }
        assert!(add(&rng.matrix(2, 3, 0.0, 1.0), &rng.matrix(2, 2, 0.0, 1.0)).is_err());
    }

    /// The few-rows paths agree with matrixmultiply (`ndarray`'s dot) on every small shape.
    #[test]
    fn few_rows_products_agree_with_ndarray() {
        let mut rng = Rng::new(7);
        for m in 0..=FEW_ROWS {
            for (k, n) in [(0, 3), (1, 1), (3, 0), (7, 5), (8, 16), (19, 33), (192, 576)] {
                let a = rng.matrix(m, k, -1.0, 1.0);
                let b = rng.matrix(k, n, -1.0, 1.0);
                let want = Matrix::from_array(a.array().dot(b.array()));
                let got = matmul(&a, &b).unwrap();
                assert_eq!(got.shape(), (m, n));
                assert!(got.max_abs_diff(&want).unwrap_or(0.0) < 1e-4, "A·B m={m} k={k} n={n}");
                let bt = rng.matrix(n, k, -1.0, 1.0);
                let want = Matrix::from_array(a.array().dot(&bt.array().t()) * 0.5);
                let got = matmul_bt(&a, &bt, 0.5).unwrap();
                assert_eq!(got.shape(), (m, n));
                assert!(got.max_abs_diff(&want).unwrap_or(0.0) < 1e-4, "A·Bᵀ m={m} k={k} n={n}");
            }
        }
    }

    /// A few queries read the heads in place; they agree with the head-by-head products (the
    /// prompt's path) with and without the mask, the cache's offset included, and give the
    /// same bits as the products of one query that the decoder ran before (`few_rows_*`).
    #[test]
    fn attention_of_a_few_queries_agrees_with_the_products() {
        let mut rng = Rng::new(13);
        for (t_q, t_k, heads, d_h) in [(1, 1, 1, 4), (1, 9, 6, 32), (3, 40, 2, 8), (4, 4, 3, 5), (2, 17, 4, 7)] {
            let d = heads * d_h;
            let (q, k, v) = (rng.matrix(t_q, d, -2.0, 2.0), rng.matrix(t_k, d, -2.0, 2.0), rng.matrix(t_k, d, -2.0, 2.0));
            for (causal, offset) in [(false, 0), (true, t_k - t_q)] {
                let got = attention(&q, &k, &v, heads, causal, offset).unwrap();
                let opts = SoftmaxOptions { causal, causal_offset: offset, temperature: 1.0 };
                let want = attention_by_products(&q, &k, &v, heads, d_h, opts).unwrap();
                let what = format!("t_q {t_q}, t_k {t_k}, {heads} × {d_h}, causal {causal}");
                assert!(got.output.max_abs_diff(&want.output).unwrap() < 1e-5, "output, {what}");
                assert!(got.weights.max_abs_diff(&want.weights).unwrap() < 1e-6, "weights, {what}");
                if t_q == 1 {
                    assert_eq!(got, want, "one query: the same bits, {what}");
                }
            }
        }
    }
}
