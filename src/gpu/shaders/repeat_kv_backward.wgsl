// Through repeat_kv: each kv head's gradient is the sum of its group's Q heads' dY, added in
// head order as the CPU adds them (so the sums agree to the last bit). One invocation per
// output value. CPU twin: core::ops::modern::repeat_kv_backward.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dy: array<f32>;         // (rows, heads·width)
@group(0) @binding(2) var<storage, read_write> dx: array<f32>;   // (rows, kv_heads·width)

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * 256u;
    let in_cols = params.heads * params.width;
    let out_cols = in_cols / params.group;
    if (i >= params.rows * out_cols) {
        return;
    }
    let row = i / out_cols;
    let kv = (i % out_cols) / params.width;
    var sum = 0.0;
    for (var h = kv * params.group; h < (kv + 1u) * params.group; h = h + 1u) {
        sum = sum + dy[row * in_cols + h * params.width + i % params.width];
    }
    dx[i] = sum;
}
