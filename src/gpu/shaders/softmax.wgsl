// Row softmax with optional causal mask and temperature: one workgroup per row.
// CPU twin: core::ops::softmax_rows.
//
// Three passes over the row, each a strided loop plus a workgroup reduction:
// the maximum (subtracted for numerical stability), the sum of exponentials, the division.
// Masked cells get exactly 0; a row with nothing visible becomes uniform (never NaN).

const WG: u32 = 64u;

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
        probs[base + j] = probability(row, j, scores[base + j], row_max, total);
    }
}
