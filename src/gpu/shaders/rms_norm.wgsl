// RMSNorm of each row: y = γ ⊙ x / √(mean(x²) + ε). One workgroup per row.
// CPU twin: core::ops::modern::rms_norm.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;           // (rows, cols)
@group(0) @binding(2) var<storage, read> gamma: array<f32>;       // (cols)
@group(0) @binding(3) var<storage, read_write> y: array<f32>;     // (rows, cols)

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
    let r = inverse_rms(lid, base);
    for (var j = lid; j < params.cols; j = j + WG) {
        y[base + j] = x[base + j] * (r * gamma[j]);
    }
}
