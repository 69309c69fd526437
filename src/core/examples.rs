//! Inputs of the articles' worked examples (facts from ../shared/spec), used as widget defaults.
//!
//! Only inputs live here; every output the site shows is computed from them.

use super::attention::AttentionInputs;
use super::matrix::Matrix;

/// Textbook chapter (transformer-autoatencao), Example 2: three 3-d tokens and W^Q, W^K, W^V.
pub fn textbook_example_2() -> AttentionInputs {
    let m = |rows: &[[f32; 3]]| Matrix::from_rows(rows).expect("3×3 literal");
    AttentionInputs {
        x: m(&[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]]),
        w_q: m(&[[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]]),
        w_k: m(&[[0.9, 0.8, 0.7], [0.6, 0.5, 0.4], [0.3, 0.2, 0.1]]),
        w_v: m(&[[0.2, 0.4, 0.6], [0.1, 0.3, 0.5], [0.9, 0.7, 0.2]]),
        causal: false,
    }
}
