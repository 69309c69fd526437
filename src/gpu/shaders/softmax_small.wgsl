// Row softmax for short rows (up to 64 columns), with optional causal mask and temperature:
// one invocation per row, no workgroup memory and no barriers. Same contract as softmax.wgsl.
// CPU twin: core::ops::softmax_rows.
//
// A row this short gives each of softmax.wgsl's 64 invocations at most one value, and its
// reductions cost 16 barriers a row, which a software GPU (SwiftShader, llvmpipe) pays for
// dearly. Here one invocation walks its row three times: the maximum, the sum of
// exponentials, the division. Masked cells get exactly 0; a row with nothing visible becomes
// uniform (never NaN).

const WG: u32 = 64u;

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
        probs[base + j] = probability(row, j, scores[base + j], row_max, total);
    }
}
