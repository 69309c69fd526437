//! Sinusoidal positional encoding (Vaswani et al., 2017), added to the token embeddings.
//!
//! PE(p, j) = sin(p / θ^(2i/C)) for even j and cos(p / θ^(2i/C)) for odd j, with i = ⌊j/2⌋.
//! Not learned: the same table at training and inference time.

use crate::core::Matrix;

/// Rows `start … start + count − 1` of the table, width `d` (count, d).
pub fn sinusoidal(start: usize, count: usize, d: usize, theta: f32) -> Matrix {
    let mut m = Matrix::zeros(count, d);
    for r in 0..count {
        let p = (start + r) as f64;
        for j in 0..d {
            let i = (j / 2) as f64;
            let angle = p / (theta as f64).powf(2.0 * i / d as f64);
            m.set(r, j, if j % 2 == 0 { angle.sin() } else { angle.cos() } as f32);
        }
    }
    m
}
