// Layer norm of each row: y = γ ⊙ (x − μ) / √(σ² + ε) + β. One workgroup per row.
// CPU twin: core::ops::layer_norm.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;           // (rows, cols)
@group(0) @binding(2) var<storage, read> gamma: array<f32>;       // (cols)
@group(0) @binding(3) var<storage, read> beta: array<f32>;        // (cols)
@group(0) @binding(4) var<storage, read_write> y: array<f32>;     // (rows, cols)

// The workgroup, and the size of reduce_max and reduce_sum (shared_reductions.wgsl).
const WG: u32 = 64u;

@compute @workgroup_size(64, 1, 1)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid3: vec3<u32>,
) {
    let row = wg.x + wg.y * nwg.x;
    if (row >= params.rows) {
        return;
    }
    let lid = lid3.x;
    let base = row * params.cols;
    let n = f32(params.cols);

    var local_sum = 0.0;
    for (var j = lid; j < params.cols; j = j + WG) {
        local_sum = local_sum + x[base + j];
    }
    let mean = reduce_sum(lid, local_sum) / n;

    // Two passes (mean, then squared deviations) rather than E[x²] − E[x]²: no cancellation.
    var local_sq = 0.0;
    for (var j = lid; j < params.cols; j = j + WG) {
        let dev = x[base + j] - mean;
        local_sq = local_sq + dev * dev;
    }
    let inv_std = 1.0 / sqrt(reduce_sum(lid, local_sq) / n + params.eps);

    for (var j = lid; j < params.cols; j = j + WG) {
        y[base + j] = gamma[j] * (x[base + j] - mean) * inv_std + beta[j];
    }
}
