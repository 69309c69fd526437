// Row softmax with optional causal mask and temperature: one workgroup per row.
// CPU twin: core::ops::softmax_rows.
//
// Three passes over the row, each a strided loop plus a workgroup reduction:
// the maximum (subtracted for numerical stability), the sum of exponentials, the division.
// Masked cells get exactly 0; a row with nothing visible becomes uniform (never NaN).

struct Params {
    rows: u32,
    cols: u32,
    causal: u32,
    causal_offset: u32,   // keys before the first query row (KV cache)
    inv_temperature: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> scores: array<f32>;        // (rows, cols)
@group(0) @binding(2) var<storage, read_write> probs: array<f32>;   // (rows, cols)

const WG: u32 = 64u;
// "No visible value yet": just above f32::MIN, which Chrome's WGSL compiler rejects as a literal.
const NONE: f32 = -3.402823e38;

var<workgroup> scratch: array<f32, 64>;

fn reduce_max(lid: u32, value: f32) -> f32 {
    scratch[lid] = value;
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
        if (lid < stride) {
            scratch[lid] = max(scratch[lid], scratch[lid + stride]);
        }
        workgroupBarrier();
    }
    let result = scratch[0];
    workgroupBarrier();
    return result;
}

fn reduce_sum(lid: u32, value: f32) -> f32 {
    scratch[lid] = value;
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
        if (lid < stride) {
            scratch[lid] = scratch[lid] + scratch[lid + stride];
        }
        workgroupBarrier();
    }
    let result = scratch[0];
    workgroupBarrier();
    return result;
}

fn visible(row: u32, col: u32, value: f32) -> bool {
    let unmasked = params.causal == 0u || col <= row + params.causal_offset;
    return unmasked && value >= NONE;   // −∞ fails the comparison: a masked score
}

// exp((v − max)/T); v == max gives exactly 1, also for a +∞ score where ∞ − ∞ would be NaN.
fn weight(v: f32, row_max: f32) -> f32 {
    return select(exp((v - row_max) * params.inv_temperature), 1.0, v == row_max);
}

@compute @workgroup_size(64, 1, 1)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid3: vec3<u32>,
) {
    // Rows beyond 65,535 spill into the y dimension of the grid.
    let row = wg.x + wg.y * nwg.x;
    // Uniform across the workgroup, so returning early keeps the barriers valid.
    if (row >= params.rows) {
        return;
    }
    let lid = lid3.x;
    let base = row * params.cols;

    // The maximum of the raw scores: the temperature divides (v − max) ≤ 0, so huge scores
    // or a tiny temperature overflow to −∞ (weight 0) and never to +∞ − +∞ = NaN.
    var local_max = NONE;
    for (var j = lid; j < params.cols; j = j + WG) {
        let v = scores[base + j];
        if (visible(row, j, v)) {
            local_max = max(local_max, v);
        }
    }
    let row_max = reduce_max(lid, local_max);

    var local_sum = 0.0;
    for (var j = lid; j < params.cols; j = j + WG) {
        let v = scores[base + j];
        if (visible(row, j, v)) {
            local_sum = local_sum + weight(v, row_max);
        }
    }
    let total = reduce_sum(lid, local_sum);

    for (var j = lid; j < params.cols; j = j + WG) {
        let v = scores[base + j];
        var p = 0.0;
        if (row_max == NONE) {
            p = 1.0 / f32(params.cols);
        } else if (visible(row, j, v)) {
            p = weight(v, row_max) / total;
        }
        probs[base + j] = p;
    }
}
