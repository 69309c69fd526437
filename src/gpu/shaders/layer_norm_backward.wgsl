// Through y = γ ⊙ x̂ + β, x̂ = (x − μ)/√(σ² + ε), row by row. With g = dy ⊙ γ:
//   dx = (g − mean(g) − x̂ · mean(g ⊙ x̂)) / √(σ² + ε),
// and, per row, dy ⊙ x̂, whose column sums are dγ (the host sums them with sum_rows.wgsl, as
// it sums dy for dβ: a row's workgroup cannot add into other rows' columns without atomics).
// μ and σ are recomputed from x as layer_norm.wgsl computes them. One workgroup per row.
// CPU twin: core::training::backward::layer_norm_backward.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;              // (rows, cols)
@group(0) @binding(2) var<storage, read> gamma: array<f32>;          // (cols)
@group(0) @binding(3) var<storage, read> dy: array<f32>;             // (rows, cols)
@group(0) @binding(4) var<storage, read_write> dx: array<f32>;       // (rows, cols)
@group(0) @binding(5) var<storage, read_write> dy_xhat: array<f32>;  // (rows, cols)

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
    let n = f32(params.cols);

    // mean(g) and mean(g ⊙ x̂); dy ⊙ x̂ for dγ.
    var local_g = 0.0;
    var local_gx = 0.0;
    for (var j = lid; j < params.cols; j = j + WG) {
        let normed = (x[base + j] - mean) * inv_std;
        let g = dy[base + j] * gamma[j];
        local_g = local_g + g;
        local_gx = local_gx + g * normed;
        dy_xhat[base + j] = dy[base + j] * normed;
    }
    let mean_g = reduce_sum(lid, local_g) / n;
    let mean_gx = reduce_sum(lid, local_gx) / n;

    for (var j = lid; j < params.cols; j = j + WG) {
        let normed = (x[base + j] - mean) * inv_std;
        dx[base + j] = inv_std * (dy[base + j] * gamma[j] - mean_g - normed * mean_gx);
    }
}
