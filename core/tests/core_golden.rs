//! The spec's worked examples (../shared/spec/4-transformer.md), computed by the core and
//! compared with the corrected golden values.
#![cfg(not(target_arch = "wasm32"))]

use atencao_core::attention::{attention_trace, AttentionInputs};
use atencao_core::examples::textbook_example_2;
use atencao_core::executor::block_on_ready;
use atencao_core::ops::{self, SoftmaxOptions};
use atencao_core::{Cpu, Matrix};

/// Golden values are printed with 4 decimals: allow the rounding plus f32 error.
const TOL: f32 = 1e-4;

fn assert_close(name: &str, got: &Matrix, want: &[&[f32]]) {
    let want = Matrix::from_rows(want).unwrap();
    assert_eq!(got.shape(), want.shape(), "{name}: shape");
    let diff = got.max_abs_diff(&want).unwrap();
    assert!(diff < TOL, "{name}: max |diff| = {diff}\n got  {:?}\n want {:?}", got.to_rows(), want.to_rows());
}

fn trace(causal: bool) -> atencao_core::attention::AttentionTrace {
    let inputs = AttentionInputs { causal, ..textbook_example_2() };
    block_on_ready(attention_trace(&Cpu, &inputs)).unwrap()
}

#[test]
fn example_2_projections() {
    let t = trace(false);
    assert_close("Q", &t.q, &[&[0.1, 0.2, 0.3], &[0.4, 0.5, 0.6], &[0.5, 0.7, 0.9]]);
    assert_close("K", &t.k, &[&[0.9, 0.8, 0.7], &[0.6, 0.5, 0.4], &[1.5, 1.3, 1.1]]);
    assert_close("V", &t.v, &[&[0.2, 0.4, 0.6], &[0.1, 0.3, 0.5], &[0.3, 0.7, 1.1]]);
}

#[test]
fn example_2_scores_weights_output() {
    let t = trace(false);
    assert_close("S", &t.scores, &[&[0.2656, 0.1617, 0.4272], &[0.6813, 0.4215, 1.1027], &[0.9469, 0.5831, 1.5300]]);
    // The article rounds row 2 to 0.30, 0.23, 0.47 and prints a₂ = [0.22, 0.48, 0.77]: corrected here.
    assert_close("softmax", &t.weights, &[&[0.3250, 0.2929, 0.3820], &[0.3035, 0.2340, 0.4625], &[0.2868, 0.1994, 0.5138]]);
    assert_close("AV", &t.output, &[&[0.2089, 0.4853, 0.7617], &[0.2228, 0.5154, 0.8079], &[0.2314, 0.5342, 0.8370]]);
}

#[test]
fn example_2_causal() {
    let t = trace(true);
    assert_close("causal softmax", &t.weights, &[&[1.0, 0.0, 0.0], &[0.5646, 0.4354, 0.0], &[0.2868, 0.1994, 0.5138]]);
    assert_close("causal AV", &t.output, &[&[0.2, 0.4, 0.6], &[0.1565, 0.3565, 0.5565], &[0.2314, 0.5342, 0.8370]]);
}

#[test]
fn example_1_without_projections() {
    // Scores are raw dot products x_i·x_j (no √d), and a_i = Σ α_ij x_j.
    let x = Matrix::from_rows(&[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]]).unwrap();
    let scores = ops::matmul_bt(&x, &x, 1.0).unwrap();
    assert_eq!(scores.row(1), vec![0.0, 1.0, 1.0]);
    // As printed, the example lets x₂ attend to x₃ (the future): weights 0.1554/0.4223/0.4223.
    let w = ops::softmax_rows(&scores, SoftmaxOptions::default()).unwrap();
    let a = ops::matmul(&w, &x).unwrap();
    assert_close("α₂ (unmasked)", &Matrix::from_rows(&[w.row(1)]).unwrap(), &[&[0.1554, 0.4223, 0.4223]]);
    assert_close("a₂ (unmasked)", &Matrix::from_rows(&[a.row(1)]).unwrap(), &[&[0.5777, 0.8446, 0.0]]);
    // With the causal mask its own formula asks for (j ≤ i):
    let w = ops::softmax_rows(&scores, SoftmaxOptions::causal()).unwrap();
    let a = ops::matmul(&w, &x).unwrap();
    assert_close("α₂ (causal)", &Matrix::from_rows(&[w.row(1)]).unwrap(), &[&[0.2689, 0.7311, 0.0]]);
    assert_close("a₂ (causal)", &Matrix::from_rows(&[a.row(1)]).unwrap(), &[&[0.2689, 0.7311, 0.0]]);
}

#[test]
fn example_3_concat_times_w_o() {
    let w_o = Matrix::from_rows(&[
        [0.1, 0.2, 0.3],
        [0.4, 0.5, 0.6],
        [0.7, 0.8, 0.9],
        [0.9, 0.8, 0.7],
        [0.6, 0.5, 0.4],
        [0.3, 0.2, 0.1],
    ])
    .unwrap();
    let as_printed = Matrix::from_rows(&[[0.22, 0.48, 0.77, 0.5, 0.2, 0.9]]).unwrap();
    // The article prints [0.914, 0.79, 0.761]; the product is [1.593, 1.580, 1.567].
    let got = ops::matmul(&as_printed, &w_o).unwrap();
    let want = Matrix::from_rows(&[[1.593, 1.580, 1.567]]).unwrap();
    assert!(got.max_abs_diff(&want).unwrap() < 1e-3, "{:?}", got.to_rows());
    let corrected = Matrix::from_rows(&[[0.2228, 0.5154, 0.8079, 0.5, 0.2, 0.9]]).unwrap();
    assert_close("with corrected head 1", &ops::matmul(&corrected, &w_o).unwrap(), &[&[1.6339, 1.6285, 1.6231]]);
}

#[test]
fn explicando_mask_example() {
    let scores = Matrix::from_rows(&[[6.32, -1.12, 1.32], [-1.81, 0.96, 0.89], [-1.81, 0.06, -2.27]]).unwrap();
    let w = ops::softmax_rows(&scores, SoftmaxOptions::causal()).unwrap();
    assert_close("masked softmax", &w, &[&[1.0, 0.0, 0.0], &[0.0590, 0.9410, 0.0], &[0.1232, 0.7991, 0.0777]]);
}

#[test]
fn multi_head_core_with_one_head_equals_the_trace() {
    let t = trace(true);
    let fused = ops::attention(&t.q, &t.k, &t.v, 1, true, 0).unwrap();
    assert!(fused.output.max_abs_diff(&t.output).unwrap() < 1e-6);
    assert!(fused.weights.max_abs_diff(&t.weights).unwrap() < 1e-6);
}

#[test]
fn softmax_is_stable_and_never_nan() {
    let m = Matrix::from_rows(&[[1e30, -1e30, 0.0], [-1e30, -1e30, -1e30], [f32::NEG_INFINITY, 2.0, 2.0]]).unwrap();
    let w = ops::softmax_rows(&m, SoftmaxOptions::default()).unwrap();
    for r in 0..3 {
        let sum: f32 = w.row(r).iter().sum();
        assert!((sum - 1.0).abs() < 1e-6 && w.row(r).iter().all(|v| v.is_finite()), "row {r}: {:?}", w.row(r));
    }
    assert_eq!(w.row(0), vec![1.0, 0.0, 0.0]);
    assert_eq!(w.row(2), vec![0.0, 0.5, 0.5]);
    // A row where everything is masked is uniform rather than 0/0.
    let all_masked = Matrix::from_rows(&[[f32::NEG_INFINITY, f32::NEG_INFINITY]]).unwrap();
    assert_eq!(ops::softmax_rows(&all_masked, SoftmaxOptions::default()).unwrap().row(0), vec![0.5, 0.5]);
}

#[test]
fn temperature_sharpens_and_flattens() {
    let m = Matrix::from_rows(&[[1.0, 2.0]]).unwrap();
    let at = |t: f32| ops::softmax_rows(&m, SoftmaxOptions { temperature: t, ..Default::default() }).unwrap().get(0, 1);
    assert!(at(0.5) > at(1.0) && at(1.0) > at(2.0));
    assert!((at(1.0) - 0.7311).abs() < 1e-4);
    assert!(ops::softmax_rows(&m, SoftmaxOptions { temperature: 0.0, ..Default::default() }).is_err());
}

#[test]
fn layer_norm_gelu_relu_embedding() {
    let x = Matrix::from_rows(&[[1.0, 2.0, 3.0, 4.0]]).unwrap();
    let ones = Matrix::from_rows(&[[1.0; 4]]).unwrap();
    let zeros = Matrix::zeros(1, 4);
    let y = ops::layer_norm(&x, &ones, &zeros, 1e-5).unwrap();
    // mean 2.5, variance 1.25 → (x − 2.5)/√1.25
    assert_close("layer norm", &y, &[&[-1.3416, -0.4472, 0.4472, 1.3416]]);
    let g = ops::gelu(&Matrix::from_rows(&[[-1.0, 0.0, 1.0]]).unwrap());
    assert_close("gelu", &g, &[&[-0.1588, 0.0, 0.8412]]);
    assert_eq!(ops::relu(&Matrix::from_rows(&[[-1.0, 2.0]]).unwrap()).row(0), vec![0.0, 2.0]);
    let table = Matrix::from_rows(&[[0.0, 0.1], [1.0, 1.1], [2.0, 2.1]]).unwrap();
    // "baba" → [1,4,3,4,3,2] style lookups: rows in the order of the ids.
    assert_eq!(ops::embedding(&table, &[2, 0, 2]).unwrap().to_rows(), vec![vec![2.0, 2.1], vec![0.0, 0.1], vec![2.0, 2.1]]);
    assert!(ops::embedding(&table, &[3]).is_err());
}

#[test]
fn bad_shapes_are_errors_with_portuguese_messages() {
    let a = Matrix::zeros(2, 3);
    let err = ops::matmul(&a, &a).unwrap_err();
    assert_eq!(err.to_string(), "Dimensões incompatíveis em A·B: 2×3 e 2×3.");
    let inputs = AttentionInputs { x: Matrix::from_rows(&[[1.0, f32::NAN, 0.0]]).unwrap(), ..textbook_example_2() };
    let err = block_on_ready(attention_trace(&Cpu, &inputs)).unwrap_err();
    assert_eq!(err.to_string(), "X tem um valor não finito na linha 1, coluna 2.");
    let err = ops::attention(&Matrix::zeros(2, 3), &Matrix::zeros(2, 3), &Matrix::zeros(2, 3), 2, false, 0).unwrap_err();
    assert!(err.to_string().contains("não se divide em 2 cabeças"));
}
