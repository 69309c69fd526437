// Layer norm of each row: y = γ ⊙ (x − μ) / √(σ² + ε) + β. One workgroup per row.
// CPU twin: core::ops::layer_norm.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;           // (rows, cols)
@group(0) @binding(2) var<storage, read> gamma: array<f32>;       // (cols)
@group(0) @binding(3) var<storage, read> beta: array<f32>;        // (cols)
@group(0) @binding(4) var<storage, read_write> y: array<f32>;     // (rows, cols)

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
    let stats = row_stats(lid, base);
    let mean = stats.x;
    let inv_std = stats.y;

    for (var j = lid; j < params.cols; j = j + WG) {
        y[base + j] = gamma[j] * (x[base + j] - mean) * inv_std + beta[j];
    }
}
