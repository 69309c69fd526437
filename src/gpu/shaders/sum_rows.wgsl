// Column sums: out (1,n) = α · Σ_rows A (m,n). A bias's gradient (α = 1), and the mean of
// per-row values (α = 1/m: the cross-entropy's loss, layer norm's dγ and dβ).
// One workgroup per 16 columns: 16 lanes per column each add every 16th row (four sums in
// flight), then the first lane adds the 16 partial sums in lane order. No atomics, so the same
// result every run. One thread per column over all rows (the first version) gave a training
// batch's 1 024 rows × 192 columns three workgroups, each thread a thousand dependent reads:
// the slowest kernels of a training step on an H200 (BENCHMARKS.md).
// CPU twin: core::training::backward::sum_rows.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;          // (rows, cols)
@group(0) @binding(2) var<storage, read_write> out: array<f32>;  // (1, cols)

const LANES: u32 = 16u;

// partial[lane][column]: each lane's sum for each of the group's 16 columns.
var<workgroup> partial: array<array<f32, 16>, 16>;

@compute @workgroup_size(16, 16, 1)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let group = wg.x + wg.y * nwg.x;
    let j = group * 16u + lid.x;
    let lane = lid.y;
    var acc = 0.0;
    if (j < params.cols) {
        var sums = vec4<f32>(0.0);
        var i = lane;
        for (; i + 3u * LANES < params.rows; i = i + 4u * LANES) {
            sums = sums + vec4<f32>(
                a[i * params.cols + j],
                a[(i + LANES) * params.cols + j],
                a[(i + 2u * LANES) * params.cols + j],
                a[(i + 3u * LANES) * params.cols + j],
            );
        }
        for (; i < params.rows; i = i + LANES) {
            sums.x = sums.x + a[i * params.cols + j];
        }
        acc = (sums.x + sums.y) + (sums.z + sums.w);
    }
    partial[lane][lid.x] = acc;
    // Every invocation reaches this barrier: those past the last column only stored a zero.
    workgroupBarrier();
    if (lane == 0u && j < params.cols) {
        var sum = 0.0;
        for (var l = 0u; l < LANES; l = l + 1u) {
            sum = sum + partial[l][lid.x];
        }
        out[j] = params.alpha * sum;
    }
}
