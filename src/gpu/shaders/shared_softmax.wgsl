// shared_softmax.wgsl: the row softmaxes' bindings and masking.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> scores: array<f32>;        // (rows, cols)
@group(0) @binding(2) var<storage, read_write> probs: array<f32>;   // (rows, cols)

// "No visible value yet": just above f32::MIN, which Chrome's WGSL compiler rejects as a literal.
const NONE: f32 = -3.402823e38;

fn visible(row: u32, col: u32, value: f32) -> bool {
    let unmasked = params.causal == 0u || col <= row + params.causal_offset;
    return unmasked && value >= NONE;   // −∞ fails the comparison: a masked score
}

// exp((v − max)/T); v == max gives exactly 1, also for a +∞ score where ∞ − ∞ would be NaN.
fn weight(v: f32, row_max: f32) -> f32 {
    return select(exp((v - row_max) * params.inv_temperature), 1.0, v == row_max);
}

// 0 where masked; uniform when nothing in the row is visible.
fn probability(row: u32, col: u32, v: f32, row_max: f32, total: f32) -> f32 {
    if (row_max == NONE) {
        return 1.0 / f32(params.cols);
    }
    if (visible(row, col, v)) {
        return weight(v, row_max) / total;
    }
    return 0.0;
}
