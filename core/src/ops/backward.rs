//! The backward passes of the decoder's ops, on the CPU: the twins of the training ops of the
//! op table (`core::op`), named as those ops and their WGSL kernels, so the GPU twins are
//! tested against these one for one (as `core::ops` is the reference of the forward kernels).
//!
//! Convention: for an op Y = f(X, W), a `*_backward` function takes what the forward saw and
//! dY = ∂L/∂Y (same shape as Y) and returns ∂L/∂X, ∂L/∂W. Ops whose gradient is another
//! forward op need no function here:
//! - Y = X·W:      dX = dY·Wᵀ (`ops::matmul_bt`), dW = Xᵀ·dY (`matmul_at`);
//! - Y = X·Wᵀ:     dX = dY·W (`ops::matmul`), dW = dYᵀ·X (`matmul_at(dY, X)`);
//! - Y = X + B:    dX = dY; a broadcast row bias gets dB = Σ_rows dY (`sum_rows`);
//! - Y = α·X:      dX = α·dY (`ops::scale`).
//!
//! `attention_batch` is the one forward here: `ops::attention` over B sequences at once,
//! keeping the weights (B·h·t, t) in the layout `attention_backward` reads.

use ndarray::Array2;

use crate::error::{ComputeError, Result};
use crate::matrix::Matrix;
use crate::ops::{self, check_layer_norm};

/// Fails unless A and B have one shape (an elementwise op and its gradient).
pub(crate) fn same_shape(op: &'static str, a: &Matrix, b: &Matrix) -> Result<()> {
    if a.shape() != b.shape() {
        return Err(ComputeError::Shape { op, left: a.shape(), right: b.shape() });
    }
    Ok(())
}

/// Aᵀ · B with A (k,m), B (k,n) → (m,n): a weight's gradient Xᵀ·dY, summed over the k rows
/// (every token of every sequence of the batch).
pub fn matmul_at(a: &Matrix, b: &Matrix) -> Result<Matrix> {
    if a.rows() != b.rows() {
        return Err(ComputeError::Shape { op: "Aᵀ·B", left: a.shape(), right: b.shape() });
    }
    Ok(Matrix::from_array(a.array().t().dot(b.array())))
}

/// Column sums of A (m,n) → (1,n): the gradient of a bias broadcast over m rows.
pub fn sum_rows(a: &Matrix) -> Matrix {
    let n = a.cols();
    let mut out = vec![0.0f32; n];
    for row in a.as_slice().chunks_exact(n.max(1)) {
        for (o, &v) in out.iter_mut().zip(row) {
            *o += v;
        }
    }
    Matrix::from_vec(1, n, out).expect("n values")
}

/// Through Y = max(0, X): dX = dY where x > 0, else 0 (the subgradient 0 at x = 0, as
/// PyTorch takes it).
pub fn relu_backward(x: &Matrix, dy: &Matrix) -> Result<Matrix> {
    same_shape("ReLU dY", x, dy)?;
    let values = x.as_slice().iter().zip(dy.as_slice()).map(|(&x, &g)| if x > 0.0 { g } else { 0.0 }).collect();
    Matrix::from_vec(x.rows(), x.cols(), values)
}

/// GELU′(x) of the forward's tanh approximation, written as `ops::gelu_scalar` is:
/// GELU(x) = x·σ(2u), u = √(2/π)(x + 0.044715x³), so
/// GELU′(x) = σ(2u) + x·σ(2u)(1 − σ(2u))·2u′, u′ = √(2/π)(1 + 3·0.044715x²).
pub fn gelu_derivative(x: f32) -> f32 {
    const SQRT_2_OVER_PI: f32 = 0.797_884_6;
    let u = SQRT_2_OVER_PI * (x + 0.044_715 * x * x * x);
    let du = SQRT_2_OVER_PI * (1.0 + 3.0 * 0.044_715 * x * x);
    let s = 1.0 / (1.0 + (-2.0 * u).exp());
    s + x * s * (1.0 - s) * 2.0 * du
}

/// Through Y = GELU(X) (tanh approximation): dX = dY ⊙ GELU′(X).
pub fn gelu_backward(x: &Matrix, dy: &Matrix) -> Result<Matrix> {
    same_shape("GELU dY", x, dy)?;
    let values = x.as_slice().iter().zip(dy.as_slice()).map(|(&x, &g)| g * gelu_derivative(x)).collect();
    Matrix::from_vec(x.rows(), x.cols(), values)
}

/// The gradients of a layer norm.
#[derive(Clone, Debug)]
pub struct LayerNormGrads {
    /// ∂L/∂X (t,d).
    pub dx: Matrix,
    /// ∂L/∂γ and ∂L/∂β (1,d), summed over the rows.
    pub dgamma: Matrix,
    pub dbeta: Matrix,
}

/// Through Y = γ ⊙ x̂ + β, x̂ = (x − μ)/√(σ² + ε) row by row (`ops::layer_norm`). μ and σ are
/// recomputed from X (cheaper to store X than them as well). With g = dY ⊙ γ:
/// dX = (1/√(σ²+ε)) · (g − mean(g) − x̂ · mean(g ⊙ x̂)), dγ = Σ_rows dY ⊙ x̂, dβ = Σ_rows dY.
pub fn layer_norm_backward(x: &Matrix, gamma: &Matrix, dy: &Matrix, eps: f32) -> Result<LayerNormGrads> {
    check_layer_norm(x, gamma, gamma)?;
    same_shape("LayerNorm dY", x, dy)?;
    let d = x.cols();
    let gamma = gamma.as_slice();
    let mut dx = vec![0.0f32; x.rows() * d];
    let (mut dgamma, mut dbeta) = (vec![0.0f32; d], vec![0.0f32; d]);
    let mut normed = vec![0.0f32; d];
    let mut g = vec![0.0f32; d];
    let rows = x.as_slice().chunks_exact(d.max(1)).zip(dy.as_slice().chunks_exact(d.max(1)));
    for ((x_row, dy_row), dx_row) in rows.zip(dx.chunks_exact_mut(d.max(1))) {
        // The forward's own arithmetic (ops::layer_norm), so x̂ is the same bits.
        let mean = x_row.iter().sum::<f32>() / d as f32;
        let var = x_row.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / d as f32;
        let inv_std = 1.0 / (var + eps).sqrt();
        let (mut mean_g, mut mean_gx) = (0.0f32, 0.0f32);
        for j in 0..d {
            normed[j] = (x_row[j] - mean) * inv_std;
            g[j] = dy_row[j] * gamma[j];
            mean_g += g[j];
            mean_gx += g[j] * normed[j];
            dgamma[j] += dy_row[j] * normed[j];
            dbeta[j] += dy_row[j];
        }
        mean_g /= d as f32;
        mean_gx /= d as f32;
        for j in 0..d {
            dx_row[j] = inv_std * (g[j] - mean_g - normed[j] * mean_gx);
        }
    }
    Ok(LayerNormGrads {
        dx: Matrix::from_vec(x.rows(), d, dx)?,
        dgamma: Matrix::from_vec(1, d, dgamma)?,
        dbeta: Matrix::from_vec(1, d, dbeta)?,
    })
}

/// Through Y = table[ids] (t,d): the table's gradient (vocab, d), each row of dY added to
/// the row of its id (a scatter-add: an id that appears twice gets both rows).
pub fn embedding_backward(dy: &Matrix, ids: &[u32], vocab: usize) -> Result<Matrix> {
    if dy.rows() != ids.len() {
        return Err(ComputeError::Invalid(format!("{} linhas de gradiente para {} ids.", dy.rows(), ids.len())));
    }
    ops::check_vocab(vocab, ids)?;
    let d = dy.cols();
    let mut table = vec![0.0f32; vocab * d];
    for (&id, row) in ids.iter().zip(dy.as_slice().chunks_exact(d.max(1))) {
        let at = id as usize * d;
        for (o, &v) in table[at..at + d].iter_mut().zip(row) {
            *o += v;
        }
    }
    Matrix::from_vec(vocab, d, table)
}

/// Through P = softmax(S) row by row (a causal mask included: hidden cells have P = 0, so
/// they get no gradient): dS = P ⊙ (dP − Σ_j P ⊙ dP), the row sum taken per row.
pub fn softmax_rows_backward(p: &Matrix, dp: &Matrix) -> Result<Matrix> {
    same_shape("softmax dP", p, dp)?;
    let n = p.cols().max(1);
    let mut ds = vec![0.0f32; p.rows() * p.cols()];
    for ((p_row, dp_row), ds_row) in p.as_slice().chunks_exact(n).zip(dp.as_slice().chunks_exact(n)).zip(ds.chunks_exact_mut(n)) {
        let dot: f32 = p_row.iter().zip(dp_row).map(|(a, b)| a * b).sum();
        for ((o, &pj), &dpj) in ds_row.iter_mut().zip(p_row).zip(dp_row) {
            *o = pj * (dpj - dot);
        }
    }
    Matrix::from_vec(p.rows(), p.cols(), ds)
}

/// Multi-head causal attention over a batch, forward: B = `sequences` sequences of t tokens
/// side by side in the rows of Q, K, V (B·t, d). Each sequence runs `ops::attention` (the
/// forward kernel the decoder uses) on its own rows. Returns the output (B·t, d) and the
/// weights (B·h·t, t), sequence after sequence, head after head: what the backward needs.
pub fn attention_batch(q: &Matrix, k: &Matrix, v: &Matrix, heads: usize, sequences: usize) -> Result<ops::AttentionOutput> {
    let t = rows_per_sequence(q, sequences)?;
    if k.shape() != q.shape() || v.shape() != q.shape() {
        return Err(ComputeError::Shape { op: "Q, K e V", left: q.shape(), right: k.shape() });
    }
    let mut output = Array2::<f32>::zeros(q.shape());
    let mut weights = Array2::<f32>::zeros((sequences * heads * t, t));
    for s in 0..sequences {
        let r = s * t..(s + 1) * t;
        let one = ops::attention(&ops::rows(q, r.start, r.end), &ops::rows(k, r.start, r.end), &ops::rows(v, r.start, r.end), heads, true, 0)?;
        output.slice_mut(ndarray::s![r.clone(), ..]).assign(one.output.array());
        weights.slice_mut(ndarray::s![s * heads * t..(s + 1) * heads * t, ..]).assign(one.weights.array());
    }
    Ok(ops::AttentionOutput { output: Matrix::from_array(output), weights: Matrix::from_array(weights) })
}

fn rows_per_sequence(q: &Matrix, sequences: usize) -> Result<usize> {
    if sequences == 0 || q.rows() % sequences != 0 {
        return Err(ComputeError::Invalid(format!("{} linhas não se dividem em {sequences} sequências iguais.", q.rows())));
    }
    Ok(q.rows() / sequences)
}

/// The gradients of the attention core.
#[derive(Clone, Debug)]
pub struct AttentionGrads {
    pub dq: Matrix,
    pub dk: Matrix,
    pub dv: Matrix,
}

/// Through `attention_batch` (causal, B sequences, h heads of width d_h): per sequence and
/// head, with P its weights and dO_h its columns of dO,
/// dV_h = Pᵀ·dO_h, dP = dO_h·V_hᵀ, dS = `softmax_rows_backward`(P, dP),
/// dQ_h = dS·K_h/√d_h, dK_h = dSᵀ·Q_h/√d_h.
pub fn attention_backward(
    q: &Matrix,
    k: &Matrix,
    v: &Matrix,
    weights: &Matrix,
    d_out: &Matrix,
    heads: usize,
    sequences: usize,
) -> Result<AttentionGrads> {
    let t = rows_per_sequence(q, sequences)?;
    let d_h = ops::check_attention(q, k, v, heads)?;
    same_shape("atenção dO", q, d_out)?;
    if weights.shape() != (sequences * heads * t, t) {
        return Err(ComputeError::Shape { op: "atenção: pesos", left: weights.shape(), right: (sequences * heads * t, t) });
    }
    let alpha = 1.0 / (d_h as f32).sqrt();
    let (mut dq, mut dk, mut dv) = (Array2::<f32>::zeros(q.shape()), Array2::<f32>::zeros(q.shape()), Array2::<f32>::zeros(q.shape()));
    for s in 0..sequences {
        let r = s * t..(s + 1) * t;
        for h in 0..heads {
            let cols = h * d_h..(h + 1) * d_h;
            let part = |m: &Matrix| Matrix::from_array(m.array().slice(ndarray::s![r.clone(), cols.clone()]).to_owned());
            let (qh, kh, vh, doh) = (part(q), part(k), part(v), part(d_out));
            let first = (s * heads + h) * t;
            let p = ops::rows(weights, first, first + t);
            let dvh = matmul_at(&p, &doh)?;
            let dp = ops::matmul_bt(&doh, &vh, 1.0)?;
            let ds = softmax_rows_backward(&p, &dp)?;
            let dqh = ops::scale(&ops::matmul(&ds, &kh)?, alpha);
            let dkh = ops::scale(&matmul_at(&ds, &qh)?, alpha);
            dq.slice_mut(ndarray::s![r.clone(), cols.clone()]).assign(dqh.array());
            dk.slice_mut(ndarray::s![r.clone(), cols.clone()]).assign(dkh.array());
            dv.slice_mut(ndarray::s![r.clone(), cols.clone()]).assign(dvh.array());
        }
    }
    Ok(AttentionGrads { dq: Matrix::from_array(dq), dk: Matrix::from_array(dk), dv: Matrix::from_array(dv) })
}

/// The loss of a batch and its gradient.
#[derive(Clone, Debug)]
pub struct CrossEntropy {
    /// Mean over the N positions of −ln softmax(logits)[target], in nats.
    pub loss: f32,
    /// ∂loss/∂logits (N,V) = (softmax(logits) − one-hot(target)) / N.
    pub dlogits: Matrix,
}

/// Cross-entropy of `targets` (N ids) under `logits` (N,V), averaged over the positions, and
/// its gradient. Stable: each row is shifted by its maximum before exponentiating, so the
/// log-sum-exp neither overflows nor loses the target's term; the loss sums in f64.
pub fn cross_entropy(logits: &Matrix, targets: &[u32]) -> Result<CrossEntropy> {
    let (n, v) = logits.shape();
    if targets.len() != n || v == 0 {
        return Err(ComputeError::Invalid(format!("{n} linhas de logits para {} alvos.", targets.len())));
    }
    ops::check_vocab(v, targets)?;
    let mut dlogits = vec![0.0f32; n * v];
    let mut total = 0.0f64;
    let inv_n = 1.0 / n as f32;
    for ((row, d_row), &target) in logits.as_slice().chunks_exact(v).zip(dlogits.chunks_exact_mut(v)).zip(targets) {
        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut sum = 0.0f32;
        for (d, &x) in d_row.iter_mut().zip(row) {
            *d = (x - max).exp();
            sum += *d;
        }
        let target = target as usize;
        total += (sum.ln() - (row[target] - max)) as f64;
        let scale = inv_n / sum;
        for d in d_row.iter_mut() {
            *d *= scale;
        }
        d_row[target] -= inv_n;
    }
    Ok(CrossEntropy { loss: (total / n as f64) as f32, dlogits: Matrix::from_vec(n, v, dlogits)? })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{gelu, layer_norm, relu, softmax_rows, SoftmaxOptions};
    use crate::rng::Rng;

    /// ⟨R, Y⟩ in f64: a scalar whose gradient with respect to Y is R, so the backward's
    /// dY = R and its dX can be checked against central differences of this sum.
    fn probe(y: &Matrix, r: &Matrix) -> f64 {
        y.as_slice().iter().zip(r.as_slice()).map(|(&a, &b)| a as f64 * b as f64).sum()
    }

    /// Central differences of `f` at every entry of `x`: (f(x + ε) − f(x − ε)) / 2ε.
    fn numeric_gradient(x: &Matrix, eps: f32, f: impl Fn(&Matrix) -> f64) -> Matrix {
        let mut grad = Matrix::zeros(x.rows(), x.cols());
        let mut moved = x.clone();
        for i in 0..x.rows() {
            for j in 0..x.cols() {
                let v = x.get(i, j);
                moved.set(i, j, v + eps);
                let up = f(&moved);
                moved.set(i, j, v - eps);
                let down = f(&moved);
                moved.set(i, j, v);
                grad.set(i, j, ((up - down) / (2.0 * eps as f64)) as f32);
            }
        }
        grad
    }

    /// Frobenius relative error of an analytic gradient against the numeric one. The
    /// tolerance, 2e-4, is what central differences of f32 forwards with ε = 1e-2 can resolve
    /// (measured: 1e-6 to 6e-5); a wrong term or a missing factor gives errors of order 1.
    fn assert_close(what: &str, analytic: &Matrix, numeric: &Matrix, tolerance: f32) -> f32 {
        let err = analytic.relative_error(numeric).expect("same shape");
        println!("{what}: relative error {err:.2e}");
        assert!(err < tolerance, "{what}: relative error {err:e} (tolerance {tolerance:e})");
        err
    }

    #[test]
    fn matmul_gradients_match_finite_differences() {
        let mut rng = Rng::new(1);
        let (x, w) = (rng.matrix(5, 4, -1.0, 1.0), rng.matrix(4, 3, -1.0, 1.0));
        let r = rng.matrix(5, 3, -1.0, 1.0);
        // Y = X·W: dX = R·Wᵀ, dW = Xᵀ·R.
        let dx = ops::matmul_bt(&r, &w, 1.0).unwrap();
        let dw = matmul_at(&x, &r).unwrap();
        let nx = numeric_gradient(&x, 1e-2, |x| probe(&ops::matmul(x, &w).unwrap(), &r));
        let nw = numeric_gradient(&w, 1e-2, |w| probe(&ops::matmul(&x, w).unwrap(), &r));
        assert_close("A·B, dA", &dx, &nx, 2e-4);
        assert_close("A·B, dB", &dw, &nw, 2e-4);
        // Y = α·X·Eᵀ (the tied head, α = 1 there): dX = α·R·E, dE = α·Rᵀ·X.
        let e = rng.matrix(3, 4, -1.0, 1.0);
        let alpha = 0.7;
        let dx = ops::scale(&ops::matmul(&r, &e).unwrap(), alpha);
        let de = ops::scale(&matmul_at(&r, &x).unwrap(), alpha);
        let nx = numeric_gradient(&x, 1e-2, |x| probe(&ops::matmul_bt(x, &e, alpha).unwrap(), &r));
        let ne = numeric_gradient(&e, 1e-2, |e| probe(&ops::matmul_bt(&x, e, alpha).unwrap(), &r));
        assert_close("A·Bᵀ, dA", &dx, &nx, 2e-4);
        assert_close("A·Bᵀ, dB", &de, &ne, 2e-4);
        assert!(matmul_at(&x, &w).is_err());
    }

    #[test]
    fn broadcast_add_and_scale_gradients_match_finite_differences() {
        let mut rng = Rng::new(2);
        let (x, b, r) = (rng.matrix(6, 4, -1.0, 1.0), rng.matrix(1, 4, -1.0, 1.0), rng.matrix(6, 4, -1.0, 1.0));
        let nb = numeric_gradient(&b, 1e-2, |b| probe(&ops::add(&x, b).unwrap(), &r));
        let nx = numeric_gradient(&x, 1e-2, |x| probe(&ops::add(x, &b).unwrap(), &r));
        assert_close("bias", &sum_rows(&r), &nb, 2e-4);
        assert_close("A + b, dA", &r, &nx, 2e-4);
        let ns = numeric_gradient(&x, 1e-2, |x| probe(&ops::scale(x, 2.5), &r));
        assert_close("α·A", &ops::scale(&r, 2.5), &ns, 2e-4);
        assert_eq!(sum_rows(&Matrix::from_rows(&[[1.0, 2.0], [3.0, 4.0]]).unwrap()).as_slice(), &[4.0, 6.0]);
    }

    #[test]
    fn relu_and_gelu_gradients_match_finite_differences() {
        let mut rng = Rng::new(3);
        // Away from ReLU's kink, where a difference quotient straddling 0 would be meaningless.
        let mut x = rng.matrix(4, 8, -3.0, 3.0);
        x.as_mut_slice().iter_mut().for_each(|v| *v += v.signum() * 0.1);
        let r = rng.matrix(4, 8, -1.0, 1.0);
        let n = numeric_gradient(&x, 1e-2, |x| probe(&relu(x), &r));
        assert_close("ReLU", &relu_backward(&x, &r).unwrap(), &n, 2e-4);
        let n = numeric_gradient(&x, 1e-2, |x| probe(&gelu(x), &r));
        assert_close("GELU", &gelu_backward(&x, &r).unwrap(), &n, 2e-4);
        // GELU′ in f64, pointwise, from −6 to 6.
        for i in -600..=600 {
            let x = i as f64 / 100.0;
            let f = |x: f64| x / (1.0 + (-2.0 * 0.797_884_560_802_865_4 * (x + 0.044_715 * x * x * x)).exp());
            let exact = (f(x + 1e-6) - f(x - 1e-6)) / 2e-6;
            let got = gelu_derivative(x as f32) as f64;
            assert!((got - exact).abs() < 1e-5, "GELU′({x}) = {got}, f64 gives {exact}");
        }
    }

    #[test]
    fn layer_norm_gradients_match_finite_differences() {
        let mut rng = Rng::new(4);
        let (x, gamma, beta) = (rng.matrix(5, 8, -2.0, 2.0), rng.matrix(1, 8, 0.5, 1.5), rng.matrix(1, 8, -0.5, 0.5));
        let r = rng.matrix(5, 8, -1.0, 1.0);
        let eps = 1e-5;
        let g = layer_norm_backward(&x, &gamma, &r, eps).unwrap();
        let nx = numeric_gradient(&x, 1e-2, |x| probe(&layer_norm(x, &gamma, &beta, eps).unwrap(), &r));
        let ng = numeric_gradient(&gamma, 1e-2, |gm| probe(&layer_norm(&x, gm, &beta, eps).unwrap(), &r));
        let nb = numeric_gradient(&beta, 1e-2, |b| probe(&layer_norm(&x, &gamma, b, eps).unwrap(), &r));
        assert_close("LayerNorm dX", &g.dx, &nx, 2e-4);
        assert_close("LayerNorm dγ", &g.dgamma, &ng, 2e-4);
        assert_close("LayerNorm dβ", &g.dbeta, &nb, 2e-4);
        // dX of a layer norm sums to 0 along each row (shifting x changes nothing).
        for row in g.dx.to_rows() {
            assert!(row.iter().sum::<f32>().abs() < 1e-5);
        }
    }

    #[test]
    fn embedding_gradient_scatter_adds_repeated_ids() {
        let mut rng = Rng::new(5);
        let table = rng.matrix(6, 3, -1.0, 1.0);
        let ids = [4u32, 1, 4, 0];
        let r = rng.matrix(4, 3, -1.0, 1.0);
        let n = numeric_gradient(&table, 1e-2, |t| probe(&ops::embedding(t, &ids).unwrap(), &r));
        let g = embedding_backward(&r, &ids, 6).unwrap();
        assert_close("embedding", &g, &n, 2e-4);
        assert_eq!(g.get(4, 2), r.get(0, 2) + r.get(2, 2));
        assert_eq!(g.row(5), vec![0.0; 3], "an id not in the batch gets no gradient");
        assert!(embedding_backward(&r, &[0, 9, 1, 2], 6).is_err());
    }

    #[test]
    fn causal_softmax_gradient_matches_finite_differences() {
        let mut rng = Rng::new(6);
        let s = rng.matrix(5, 5, -2.0, 2.0);
        let r = rng.matrix(5, 5, -1.0, 1.0);
        let p = softmax_rows(&s, SoftmaxOptions::causal()).unwrap();
        let ds = softmax_rows_backward(&p, &r).unwrap();
        let n = numeric_gradient(&s, 1e-2, |s| probe(&softmax_rows(s, SoftmaxOptions::causal()).unwrap(), &r));
        assert_close("causal softmax", &ds, &n, 2e-4);
        assert_eq!(ds.get(1, 3), 0.0, "a masked score gets no gradient");
    }

    #[test]
    fn attention_gradients_match_finite_differences() {
        let mut rng = Rng::new(7);
        let (sequences, t, d, heads) = (2, 4, 6, 3);
        let (q, k, v) = (rng.matrix(sequences * t, d, -1.0, 1.0), rng.matrix(sequences * t, d, -1.0, 1.0), rng.matrix(sequences * t, d, -1.0, 1.0));
        let r = rng.matrix(sequences * t, d, -1.0, 1.0);
        let out = attention_batch(&q, &k, &v, heads, sequences).unwrap();
        // Sequence 1 is its own attention: rows 4..8 of the batch equal attention on them alone.
        let alone = ops::attention(&ops::rows(&q, t, 2 * t), &ops::rows(&k, t, 2 * t), &ops::rows(&v, t, 2 * t), heads, true, 0).unwrap();
        assert_eq!(ops::rows(&out.output, t, 2 * t), alone.output);
        let g = attention_backward(&q, &k, &v, &out.weights, &r, heads, sequences).unwrap();
        let f = |q: &Matrix, k: &Matrix, v: &Matrix| probe(&attention_batch(q, k, v, heads, sequences).unwrap().output, &r);
        assert_close("attention dQ", &g.dq, &numeric_gradient(&q, 1e-2, |q| f(q, &k, &v)), 2e-4);
        assert_close("attention dK", &g.dk, &numeric_gradient(&k, 1e-2, |k| f(&q, k, &v)), 2e-4);
        assert_close("attention dV", &g.dv, &numeric_gradient(&v, 1e-2, |v| f(&q, &k, v)), 2e-4);
        // Causal: the last key of each sequence is seen only by its own query.
        assert!(attention_backward(&q, &k, &v, &out.weights, &r, heads, 3).is_err());
    }

    #[test]
    fn cross_entropy_and_its_gradient() {
        let mut rng = Rng::new(8);
        let logits = rng.matrix(4, 7, -3.0, 3.0);
        let targets = [0u32, 6, 3, 3];
        let ce = cross_entropy(&logits, &targets).unwrap();
        // The loss by the textbook formula, in f64.
        let mut want = 0.0f64;
        for (i, &t) in targets.iter().enumerate() {
            let row: Vec<f64> = logits.row(i).iter().map(|&x| x as f64).collect();
            let lse = row.iter().map(|x| x.exp()).sum::<f64>().ln();
            want += lse - row[t as usize];
        }
        want /= 4.0;
        assert!((ce.loss as f64 - want).abs() < 1e-6, "{} vs {want}", ce.loss);
        let n = numeric_gradient(&logits, 1e-2, |l| cross_entropy(l, &targets).unwrap().loss as f64);
        assert_close("cross-entropy", &ce.dlogits, &n, 2e-4);
        // Stable with huge logits: no NaN, and the loss of a sure right answer is 0.
        let huge = Matrix::from_rows(&[[1e30f32, -1e30, 0.0]]).unwrap();
        let ce = cross_entropy(&huge, &[0]).unwrap();
        assert_eq!(ce.loss, 0.0);
        assert!(ce.dlogits.as_slice().iter().all(|v| v.is_finite()));
        let uniform = Matrix::zeros(2, 5);
        assert!((cross_entropy(&uniform, &[1, 4]).unwrap().loss - 5f32.ln()).abs() < 1e-6);
        assert!(cross_entropy(&uniform, &[1, 5]).is_err());
    }
}
