//! The two inner loops of the products with few rows (the decoder's next token, the attention
//! of one query): a dot product and `out += scale · x`. In the site's wasm they run in simd128
//! lanes written out by hand. The site profile compiles this crate for size (opt-level "z"),
//! where the compiler vectorises no loop: the next token measured 2,8 ms natively at "z"
//! against 1,0 ms with this crate at opt-level 3, which would add 110 KB to the page
//! (BENCHMARKS.md). Natively the plain loops below are the ones that run; they are written so
//! the compiler can vectorise them at opt-level 3.
//!
//! Both twins give the same bits: the lanes add in the same order (eight running sums of the
//! dot product, added up 0 to 7, then the tail), and wasm has no fused multiply-add to change
//! a rounding.

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
}

/// The eight running sums, added 0 to 7 (both twins).
fn add_lanes(lanes: [f32; 8]) -> f32 {
    lanes.iter().fold(0.0, |sum, &l| sum + l)
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use core::arch::wasm32::*;

    /// Unaligned load of the four values at `values[at..at + 4]`.
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
}
