// Through y = γ ⊙ x·r, r = 1/√(mean(x²) + ε), row by row. With g = dy ⊙ γ and n columns:
//   dx = r·g − x·r³·(g·x)/n,
// and, per row, dy ⊙ x·r, whose column sums are dγ (the host sums them with sum_rows.wgsl: a
// row's workgroup cannot add into other rows' columns without atomics). r is recomputed from
// x as rms_norm.wgsl computes it. One workgroup per row.
// CPU twin: core::ops::modern::rms_norm_backward.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;              // (rows, cols)
@group(0) @binding(2) var<storage, read> gamma: array<f32>;          // (cols)
@group(0) @binding(3) var<storage, read> dy: array<f32>;             // (rows, cols)
@group(0) @binding(4) var<storage, read_write> dx: array<f32>;       // (rows, cols)
@group(0) @binding(5) var<storage, read_write> dy_xr: array<f32>;    // (rows, cols)

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

    // g·x; dy ⊙ x·r for dγ.
    var local_gx = 0.0;
    for (var j = lid; j < params.cols; j = j + WG) {
        let v = x[base + j];
        local_gx = local_gx + dy[base + j] * gamma[j] * v;
        dy_xr[base + j] = dy[base + j] * v * r;
    }
    let k = r * r * r * reduce_sum(lid, local_gx) / f32(params.cols);

    for (var j = lid; j < params.cols; j = j + WG) {
        dx[base + j] = r * dy[base + j] * gamma[j] - x[base + j] * k;
    }
}
