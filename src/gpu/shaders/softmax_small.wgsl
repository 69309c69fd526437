// Row softmax for short rows (up to 64 columns), with optional causal mask and temperature:
// one invocation per row, no workgroup memory and no barriers. Same contract as softmax.wgsl.
// CPU twin: core::ops::softmax_rows.
//
// A row this short gives each of softmax.wgsl's 64 invocations at most one value, and its
// reductions cost 16 barriers a row, which a software GPU (SwiftShader, llvmpipe) pays for
// dearly. Here one invocation walks its row three times: the maximum, the sum of
// exponentials, the division. Masked cells get exactly 0; a row with nothing visible becomes
// uniform (never NaN).

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
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    // Rows beyond 65,535 groups spill into the y dimension of the grid.
    let row = (wg.x + wg.y * nwg.x) * WG + lid.x;
    if (row >= params.rows) {
        return;
    }
    let base = row * params.cols;
    var row_max = NONE;
    for (var j = 0u; j < params.cols; j = j + 1u) {
        let v = scores[base + j];
        if (visible(row, j, v)) {
            row_max = max(row_max, v);
        }
    }
    var total = 0.0;
    for (var j = 0u; j < params.cols; j = j + 1u) {
        let v = scores[base + j];
        if (visible(row, j, v)) {
            total = total + weight(v, row_max);
        }
    }
    for (var j = 0u; j < params.cols; j = j + 1u) {
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
