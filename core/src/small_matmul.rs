//! A · B for small products, without packing.
//!
//! matrixmultiply (ndarray's `dot`) copies both operands into freshly allocated, packed buffers
//! on every call. For a 64 × 64 product that fixed cost is about 1 µs of 7 (BENCHMARKS.md,
//! "Against candle"). When B is small enough to stay in cache the copy buys nothing: this
//! kernel reads A and B where they are. C is computed in blocks held in SIMD registers (the
//! register blocking of a BLAS micro-kernel): each k step loads one row of B's block once and
//! multiplies it by a broadcast value of A per row of the block, so every load feeds several
//! multiply-adds.
//!
//! On x86-64 with AVX2 and FMA (checked at run time, as matrixmultiply does) the blocks are up
//! to 6 × 16: twelve 8-wide accumulators plus two loads of B and one broadcast of A, fifteen of
//! the sixteen vector registers. Anywhere else `matmul` answers `None` and the caller uses
//! matrixmultiply, except the site's wasm, where `lanes::matmul` (simd128 blocks of 4 × 8,
//! every variable written out, as opt-level "z" unrolls nothing, and no packing) beat
//! matrixmultiply at every size measured (BENCHMARKS.md, issue 42). An earlier simd128 twin of these
//! blocks had measured no faster.

/// Products where B has at most this many values use this kernel; larger ones are left to
/// matrixmultiply. Measured (BENCHMARKS.md, two runs): 1,3–1,4× matrixmultiply at 64², 0,99–
/// 1,07× at 128², where B (64 KB) has outgrown the L1 cache and reading it unpacked stops
/// paying.
const MAX_B_VALUES: usize = 128 * 128;

/// C (m,n) = A (m,k) · B (k,n), all row-major slices; `None` when the product is too large
/// for this kernel (B over `MAX_B_VALUES`) or this machine has no SIMD path here: the caller
/// then uses matrixmultiply.
pub fn matmul(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Option<Vec<f32>> {
    assert!(a.len() == m * k && b.len() == k * n, "A is m·k and B k·n values");
    if k * n > MAX_B_VALUES {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if has_simd_path() {
            // SAFETY: the CPU has AVX2 and FMA, checked on the line above.
            return Some(unsafe { matmul_avx2(a, b, m, k, n) });
        }
    }
    None
}

/// Whether `matmul` has its SIMD blocks on this machine: x86-64 with AVX2 and FMA, checked at
/// run time. Where it is false, `matmul` declines every product.
pub fn has_simd_path() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The AVX2 blocks over all of C, then the last n mod 8 columns row by row.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn matmul_avx2(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; m * n];
    let operands = Operands { a: a.as_ptr(), b: b.as_ptr(), c: out.as_mut_ptr(), k, n };
    let rest = for_each_block(m, n, 6, 8, |rows, vectors, i, j| {
        // SAFETY: this function runs only where AVX2 and FMA are; for_each_block hands out
        // blocks inside C, and A, B and C have m·k, k·n and m·n values.
        unsafe {
            match (rows, vectors) {
                (6, 2) => avx2::block::<6, 2>(&operands, i, j),
                (5, 2) => avx2::block::<5, 2>(&operands, i, j),
                (4, 2) => avx2::block::<4, 2>(&operands, i, j),
                (3, 2) => avx2::block::<3, 2>(&operands, i, j),
                (2, 2) => avx2::block::<2, 2>(&operands, i, j),
                (1, 2) => avx2::block::<1, 2>(&operands, i, j),
                (6, _) => avx2::block::<6, 1>(&operands, i, j),
                (5, _) => avx2::block::<5, 1>(&operands, i, j),
                (4, _) => avx2::block::<4, 1>(&operands, i, j),
                (3, _) => avx2::block::<3, 1>(&operands, i, j),
                (2, _) => avx2::block::<2, 1>(&operands, i, j),
                _ => avx2::block::<1, 1>(&operands, i, j),
            }
        }
    });
    rest_columns(a, b, m, k, n, rest, &mut out);
    out
}

/// Row-major A (m,k), B (k,n) and C (m,n) as raw pointers, for the SIMD blocks. Raw pointers
/// because slice indexing put eight bounds checks into every k step, as costly as its twelve
/// multiply-adds (measured: 9,0 µs against 7,3 for 64² on AVX2).
#[cfg(target_arch = "x86_64")]
struct Operands {
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    k: usize,
    n: usize,
}

/// Walks C in blocks: rows in groups of `max_rows` (the last group shorter), columns in
/// blocks of two vectors of `lanes` values, then one vector where a single one is left, and
/// calls `block(rows, vectors, i, j)` for each. Returns the first column no block covered
/// (fewer than `lanes` remain): those go row by row. The leftover rows get blocks of their
/// own height rather than the row-by-row loop: for 64² in blocks of six that loop took 18 %
/// of the time.
#[cfg(target_arch = "x86_64")]
fn for_each_block(m: usize, n: usize, max_rows: usize, lanes: usize, mut block: impl FnMut(usize, usize, usize, usize)) -> usize {
    let (wide_end, narrow_end) = (n / (2 * lanes) * (2 * lanes), n / lanes * lanes);
    let mut i = 0;
    while i < m {
        let rows = (m - i).min(max_rows);
        let mut j = 0;
        while j < narrow_end {
            let vectors = if j < wide_end { 2 } else { 1 };
            block(rows, vectors, i, j);
            j += lanes * vectors;
        }
        i += rows;
    }
    narrow_end
}

/// C[:, from..] = A · B[:, from..], row by row: B's rows scaled and added, contiguous in memory.
/// (Compiled for FMA like the blocks, so `mul_add` is one instruction, not a library call.)
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn rest_columns(a: &[f32], b: &[f32], m: usize, k: usize, n: usize, from: usize, out: &mut [f32]) {
    if from >= n {
        return;
    }
    for i in 0..m {
        let out_row = &mut out[i * n + from..(i + 1) * n];
        for (&x, b_row) in a[i * k..(i + 1) * k].iter().zip(b.chunks_exact(n)) {
            for (o, &y) in out_row.iter_mut().zip(&b_row[from..]) {
                *o = x.mul_add(y, *o);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::Operands;
    use std::arch::x86_64::*;

    /// C[i..i+R, j..j+8V] = A[i..i+R, :] · B[:, j..j+8V], accumulated in R·V registers.
    ///
    /// Safety: the CPU has AVX2 and FMA; rows i..i+R of A and C and columns j..j+8V of B and
    /// C exist.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    #[allow(clippy::needless_range_loop)] // indices name the block's rows and vectors
    pub(super) unsafe fn block<const R: usize, const V: usize>(o: &Operands, i: usize, j: usize) {
        let mut acc = [[_mm256_setzero_ps(); V]; R];
        for p in 0..o.k {
            let b_row = o.b.add(p * o.n + j);
            // A loop, not array::from_fn: a closure does not inherit this function's target
            // features, so the loads in it became calls (3× slower, measured).
            let mut b_vectors = [_mm256_setzero_ps(); V];
            for v in 0..V {
                b_vectors[v] = _mm256_loadu_ps(b_row.add(8 * v));
            }
            for r in 0..R {
                let x = _mm256_broadcast_ss(&*o.a.add((i + r) * o.k + p));
                for v in 0..V {
                    acc[r][v] = _mm256_fmadd_ps(x, b_vectors[v], acc[r][v]);
                }
            }
        }
        for r in 0..R {
            let c_row = o.c.add((i + r) * o.n + j);
            for v in 0..V {
                _mm256_storeu_ps(c_row.add(8 * v), acc[r][v]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// Every edge of the blocking (fewer rows or columns than a block, ragged edges on both
    /// sides, leftover rows of every height, k = 0 or 1) agrees with matrixmultiply.
    #[test]
    fn agrees_with_ndarray_on_ragged_shapes() {
        let mut rng = Rng::new(11);
        for &(m, k, n) in &[
            (0, 3, 4),
            (3, 0, 4),
            (5, 7, 0),
            (1, 1, 1),
            (5, 3, 7),
            (6, 16, 16),
            (7, 9, 17),
            (13, 31, 33),
            (11, 5, 24),
            (64, 64, 64),
            (65, 70, 71),
            (130, 96, 128),
            (128, 128, 128),
        ] {
            let a = rng.matrix(m, k, -1.0, 1.0);
            let b = rng.matrix(k, n, -1.0, 1.0);
            let want = a.array().dot(b.array());
            let Some(got) = matmul(a.as_slice(), b.as_slice(), m, k, n) else {
                assert!(!has_simd_path(), "{m}×{k} · {k}×{n} is within the kernel's size");
                continue; // no SIMD path on this machine: nothing to compare
            };
            assert_eq!(got.len(), m * n);
            let worst = got.iter().zip(want.iter()).map(|(g, w)| (g - w).abs()).fold(0.0f32, f32::max);
            assert!(worst < 1e-4, "{m}×{k} · {k}×{n}: off by {worst}");
        }
    }

    /// Products whose B outgrows the cache are left to matrixmultiply.
    #[test]
    fn larger_products_are_declined() {
        let (a, b) = (vec![1.0; 129], vec![1.0; 129 * 128]);
        assert!(matmul(&a, &b, 1, 129, 128).is_none());
    }

    /// The walker covers every cell of C exactly once, for any block shape.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn blocks_tile_c_exactly_once() {
        for &(m, n, max_rows, lanes) in &[(13, 37, 6, 8), (4, 7, 4, 4), (9, 16, 4, 4), (0, 5, 6, 8), (64, 64, 6, 8)] {
            let mut covered = vec![0u8; m * n];
            let rest = for_each_block(m, n, max_rows, lanes, |rows, vectors, i, j| {
                assert!(rows <= max_rows && (vectors == 1 || vectors == 2));
                for r in i..i + rows {
                    for c in j..j + lanes * vectors {
                        covered[r * n + c] += 1;
                    }
                }
            });
            for r in 0..m {
                for c in 0..n {
                    assert_eq!(covered[r * n + c], u8::from(c < rest), "({r},{c}) of {m}×{n}");
                }
            }
            assert!(n - rest < lanes);
        }
    }
}
