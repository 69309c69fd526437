//! The inner loops of the products with few rows (the decoder's next token, the attention
//! of one query): a dot product, `out += scale · x`, and that over many rows with the sums kept
//! in registers (`axpy_rows`); and, in the site's wasm only, the products with more rows
//! (`matmul`, the prompt's), in blocks of 4 × 8. In the site's wasm they run in simd128
//! lanes written out by hand. The site profile compiles this crate for size (opt-level "z"),
//! where the compiler vectorises no loop: the next token measured 2,8 ms natively at "z"
//! against 1,0 ms with this crate at opt-level 3, which would add 110 KB to the page
//! (BENCHMARKS.md). Natively the plain loops below are the ones that run; they are written so
//! the compiler can vectorise them at opt-level 3.
//!
//! Both twins give the same bits: the lanes add in the same order (eight running sums of the
//! dot product, added up 0 to 7, then the tail; each output of a product summed over k in
//! order), and wasm has no fused multiply-add to change a rounding. Measured against candle in
//! the same browser: BENCHMARKS.md, "Against candle in the browser (issue 42)".

/// x · y over eight independent running sums (lane l sums the products at i ≡ l mod 8), then
/// the rest. `x` and `y` have the same length.
#[inline]
pub fn dot(x: &[f32], y: &[f32]) -> f32 {
    debug_assert_eq!(x.len(), y.len());
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::dot(x, y)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        plain::dot(x, y)
    }
}

/// out += scale · x, element by element. `out` and `x` have the same length.
#[inline]
pub fn axpy(out: &mut [f32], scale: f32, x: &[f32]) {
    debug_assert_eq!(out.len(), x.len());
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::axpy(out, scale, x)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        plain::axpy(out, scale, x)
    }
}

/// out += Σ_r scales[r] · rows[r·stride ..][..out.len()], the rows added in order: the same bits
/// as `axpy` once per row, in order (a row of A times B, when `rows` is B and `stride` its width;
/// the weighted sum of a head's values). In the site's wasm the running sums of a block of
/// columns stay in simd128 registers across all the rows, so `out` is read and written once,
/// not once per row (which had each row's four-lane step load and store `out` too).
#[inline]
pub fn axpy_rows(out: &mut [f32], scales: &[f32], rows: &[f32], stride: usize) {
    if let Some(last) = scales.len().checked_sub(1) {
        assert!(last * stride + out.len() <= rows.len(), "every row is in bounds");
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd::axpy_rows(out, scales, rows, stride)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        plain::axpy_rows(out, scales, rows, stride)
    }
}

/// C (m,n) = A (m,k) · B (k,n), row-major, for the site's wasm: blocks of 4 rows × 8 columns
/// of C held in simd128 registers over all of k, A and B read in place, where matrixmultiply
/// (simd128 too) first copies both into packed buffers on every call. Each value is 0 + a₀b₀ + a₁b₁ + … in order: the bits of
/// `axpy_rows` (and of the plain twin, `plain::matmul`).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub fn matmul(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
    assert!(a.len() == m * k && b.len() == k * n, "A is m·k and B k·n values");
    simd::matmul(a, b, m, k, n)
}

/// The plain twin: what runs natively, and what the browser test holds the simd128 loops to.
pub mod plain {
    /// See `lanes::dot`.
    #[inline]
    pub fn dot(x: &[f32], y: &[f32]) -> f32 {
        let mut lanes = [0.0f32; 8];
        let (xs, ys) = (x.chunks_exact(8), y.chunks_exact(8));
        let tail: f32 = xs.remainder().iter().zip(ys.remainder()).map(|(a, b)| a * b).sum();
        for (xc, yc) in xs.zip(ys) {
            for l in 0..8 {
                lanes[l] += xc[l] * yc[l];
            }
        }
        super::add_lanes(lanes) + tail
    }

    /// See `lanes::axpy`.
    #[inline]
    pub fn axpy(out: &mut [f32], scale: f32, x: &[f32]) {
        for (o, &v) in out.iter_mut().zip(x) {
            *o += scale * v;
        }
    }

    /// The plain twin of `lanes::matmul` (wasm only): each row of C by `axpy_rows`.
    pub fn matmul(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
        let mut out = vec![0.0f32; m * n];
        for (i, row) in out.chunks_exact_mut(n.max(1)).enumerate() {
            axpy_rows(row, &a[i * k..(i + 1) * k], b, n);
        }
        out
    }

    /// See `lanes::axpy_rows`.
    #[inline]
    pub fn axpy_rows(out: &mut [f32], scales: &[f32], rows: &[f32], stride: usize) {
        let n = out.len();
        for (r, &scale) in scales.iter().enumerate() {
            axpy(out, scale, &rows[r * stride..r * stride + n]);
        }
    }
}

/// The eight running sums, added 0 to 7 (both twins).
fn add_lanes(lanes: [f32; 8]) -> f32 {
    lanes.iter().fold(0.0, |sum, &l| sum + l)
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use core::arch::wasm32::*;

    /// Unaligned load of the four values at `values[at..at + 4]`. Always inlined: the site
    /// profile's opt-level "z" left it a call per four values (a CPU profile of the next token).
    #[inline(always)]
    fn load(values: &[f32], at: usize) -> v128 {
        assert!(at + 4 <= values.len());
        // SAFETY: the four values are in bounds (checked above); wasm loads need no alignment.
        unsafe { v128_load(values.as_ptr().add(at) as *const v128) }
    }

    pub fn dot(x: &[f32], y: &[f32]) -> f32 {
        let n = x.len().min(y.len());
        let whole = n / 8 * 8;
        // Lanes 0–3 and 4–7 of the plain twin's eight sums.
        let (mut low, mut high) = (f32x4_splat(0.0), f32x4_splat(0.0));
        for i in (0..whole).step_by(8) {
            low = f32x4_add(low, f32x4_mul(load(x, i), load(y, i)));
            high = f32x4_add(high, f32x4_mul(load(x, i + 4), load(y, i + 4)));
        }
        let lanes = [
            f32x4_extract_lane::<0>(low),
            f32x4_extract_lane::<1>(low),
            f32x4_extract_lane::<2>(low),
            f32x4_extract_lane::<3>(low),
            f32x4_extract_lane::<0>(high),
            f32x4_extract_lane::<1>(high),
            f32x4_extract_lane::<2>(high),
            f32x4_extract_lane::<3>(high),
        ];
        let tail: f32 = x[whole..n].iter().zip(&y[whole..n]).map(|(a, b)| a * b).sum();
        super::add_lanes(lanes) + tail
    }

    pub fn axpy(out: &mut [f32], scale: f32, x: &[f32]) {
        let n = out.len().min(x.len());
        let whole = n / 4 * 4;
        let s = f32x4_splat(scale);
        for i in (0..whole).step_by(4) {
            let sum = f32x4_add(load(out, i), f32x4_mul(s, load(x, i)));
            assert!(i + 4 <= out.len());
            // SAFETY: in bounds (checked above); wasm stores need no alignment.
            unsafe { v128_store(out.as_mut_ptr().add(i) as *mut v128, sum) };
        }
        for (o, &v) in out[whole..n].iter_mut().zip(&x[whole..n]) {
            *o += scale * v;
        }
    }

    #[inline(always)]
    fn at(p: *const f32, i: usize) -> v128 {
        // SAFETY: the callers keep i + 4 values from p in bounds; wasm needs no alignment.
        unsafe { v128_load(p.add(i) as *const v128) }
    }

    #[inline(always)]
    fn madd(sum: v128, s: v128, x: v128) -> v128 {
        f32x4_add(sum, f32x4_mul(s, x))
    }

    /// See `lanes::matmul`. Blocks of 4 × 8 (eight sums: four rows of A, each value broadcast,
    /// times two loads of B's row), B's 8-column strip staying in L1 across the row blocks;
    /// the rows past the last block of four by `axpy_rows`, the columns past the last block
    /// of eight one by one.
    pub fn matmul(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
        let mut out = vec![0.0f32; m * n];
        let (rows4, cols8) = (m / 4 * 4, n / 8 * 8);
        let c = out.as_mut_ptr();
        // SAFETY (every pointer below): rows i..i + 4 < m of A (k values each), columns
        // j..j + 8 ≤ n of B's k rows and of C's rows.
        for j in (0..cols8).step_by(8) {
            for i in (0..rows4).step_by(4) {
                let z = f32x4_splat(0.0);
                let (mut c00, mut c01, mut c10, mut c11) = (z, z, z, z);
                let (mut c20, mut c21, mut c30, mut c31) = (z, z, z, z);
                let a0 = unsafe { a.as_ptr().add(i * k) };
                let (a1, a2, a3) = (a0.wrapping_add(k), a0.wrapping_add(2 * k), a0.wrapping_add(3 * k));
                let mut row = unsafe { b.as_ptr().add(j) };
                for kk in 0..k {
                    let (b0, b1) = (at(row, 0), at(row, 4));
                    let s = f32x4_splat(unsafe { *a0.add(kk) });
                    c00 = madd(c00, s, b0);
                    c01 = madd(c01, s, b1);
                    let s = f32x4_splat(unsafe { *a1.add(kk) });
                    c10 = madd(c10, s, b0);
                    c11 = madd(c11, s, b1);
                    let s = f32x4_splat(unsafe { *a2.add(kk) });
                    c20 = madd(c20, s, b0);
                    c21 = madd(c21, s, b1);
                    let s = f32x4_splat(unsafe { *a3.add(kk) });
                    c30 = madd(c30, s, b0);
                    c31 = madd(c31, s, b1);
                    row = row.wrapping_add(n);
                }
                for (r, (low, high)) in [(c00, c01), (c10, c11), (c20, c21), (c30, c31)].into_iter().enumerate() {
                    unsafe {
                        v128_store(c.add((i + r) * n + j) as *mut v128, low);
                        v128_store(c.add((i + r) * n + j + 4) as *mut v128, high);
                    }
                }
            }
        }
        for i in 0..rows4 {
            for col in cols8..n {
                let mut sum = 0.0f32;
                for kk in 0..k {
                    sum += a[i * k + kk] * b[kk * n + col];
                }
                out[i * n + col] = sum;
            }
        }
        for i in rows4..m {
            super::axpy_rows(&mut out[i * n..(i + 1) * n], &a[i * k..(i + 1) * k], b, n);
        }
        out
    }

    /// Eight running sums (32 columns) in registers over all the rows, then blocks of four
    /// columns, then the last columns one by one; each sum is out + s₀x₀ + s₁x₁ + … in order,
    /// as `axpy` row after row computes it. The eight sums are eight variables, not an array
    /// looped over: opt-level "z" unrolls no loop, and an array of sums stayed in memory.
    pub fn axpy_rows(out: &mut [f32], scales: &[f32], rows: &[f32], stride: usize) {
        let n = out.len();
        let (wide, whole) = (n / 32 * 32, n / 4 * 4);
        let base = out.as_mut_ptr();
        // SAFETY (every load and store below): `lanes::axpy_rows` checked that each row's n
        // values are in `rows`, and the columns stay below n; wasm needs no alignment.
        let put = |i: usize, v: v128| unsafe { v128_store(base.add(i) as *mut v128, v) };
        for c in (0..wide).step_by(32) {
            let o = base as *const f32;
            let (mut a0, mut a1, mut a2, mut a3) = (at(o, c), at(o, c + 4), at(o, c + 8), at(o, c + 12));
            let (mut a4, mut a5, mut a6, mut a7) = (at(o, c + 16), at(o, c + 20), at(o, c + 24), at(o, c + 28));
            let mut row = unsafe { rows.as_ptr().add(c) };
            for &scale in scales {
                let s = f32x4_splat(scale);
                a0 = madd(a0, s, at(row, 0));
                a1 = madd(a1, s, at(row, 4));
                a2 = madd(a2, s, at(row, 8));
                a3 = madd(a3, s, at(row, 12));
                a4 = madd(a4, s, at(row, 16));
                a5 = madd(a5, s, at(row, 20));
                a6 = madd(a6, s, at(row, 24));
                a7 = madd(a7, s, at(row, 28));
                row = row.wrapping_add(stride);
            }
            for (i, sum) in [a0, a1, a2, a3, a4, a5, a6, a7].into_iter().enumerate() {
                put(c + 4 * i, sum);
            }
        }
        for c in (wide..whole).step_by(4) {
            let mut sum = unsafe { v128_load(base.add(c) as *const v128) };
            for (r, &scale) in scales.iter().enumerate() {
                let x = unsafe { v128_load(rows.as_ptr().add(r * stride + c) as *const v128) };
                sum = f32x4_add(sum, f32x4_mul(f32x4_splat(scale), x));
            }
            unsafe { v128_store(base.add(c) as *mut v128, sum) };
        }
        for c in whole..n {
            let mut sum = out[c];
            for (r, &scale) in scales.iter().enumerate() {
                sum += scale * rows[r * stride + c];
            }
            out[c] = sum;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Against f64 sums, on lengths around the lane widths (tails of 0 to 7).
    #[test]
    fn dot_and_axpy_match_plain_sums() {
        let mut rng = Rng::new(5);
        for n in [0, 1, 3, 4, 7, 8, 9, 31, 32, 33, 192, 769] {
            let x: Vec<f32> = (0..n).map(|_| rng.next_f32() * 2.0 - 1.0).collect();
            let y: Vec<f32> = (0..n).map(|_| rng.next_f32() * 2.0 - 1.0).collect();
            let exact: f64 = x.iter().zip(&y).map(|(a, b)| *a as f64 * *b as f64).sum();
            assert!((dot(&x, &y) as f64 - exact).abs() < 1e-5 * (n as f64).max(1.0), "dot, n = {n}");
            let mut out = y.clone();
            axpy(&mut out, 0.5, &x);
            for i in 0..n {
                assert_eq!(out[i], y[i] + 0.5 * x[i], "axpy, n = {n}, i = {i}");
            }
        }
    }

    /// `axpy_rows` is `axpy` row after row (the same bits), and `plain::matmul` (the twin of the
    /// wasm blocks) is the product, against f64 sums, on ragged shapes.
    #[test]
    fn axpy_rows_and_the_product_twin_match_plain_sums() {
        let mut rng = Rng::new(11);
        for (m, k, n) in [(1, 1, 1), (5, 7, 9), (9, 32, 40), (3, 0, 4), (8, 9, 0), (13, 192, 70)] {
            let a: Vec<f32> = (0..m * k).map(|_| rng.next_f32() * 2.0 - 1.0).collect();
            let b: Vec<f32> = (0..k * n).map(|_| rng.next_f32() * 2.0 - 1.0).collect();
            let c = plain::matmul(&a, &b, m, k, n);
            for i in 0..m {
                let mut row = vec![0.0f32; n];
                for kk in 0..k {
                    axpy(&mut row, a[i * k + kk], &b[kk * n..(kk + 1) * n]);
                }
                let mut rows = vec![0.0f32; n];
                axpy_rows(&mut rows, &a[i * k..(i + 1) * k], &b, n);
                assert_eq!(rows, row, "axpy_rows, row {i} of {m}×{k}·{k}×{n}");
                for j in 0..n {
                    let exact: f64 = (0..k).map(|kk| a[i * k + kk] as f64 * b[kk * n + j] as f64).sum();
                    assert!((c[i * n + j] as f64 - exact).abs() < 1e-5 * (k as f64).max(1.0), "matmul {m}×{k}·{k}×{n} at ({i}, {j})");
                }
            }
        }
    }
}
