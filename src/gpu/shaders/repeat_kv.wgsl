// GQA: K or V (rows, kv_heads·d_h) widened to (rows, heads·d_h), Q head h reading kv head
// h / group (group = heads / kv_heads), so multi-head attention runs unchanged. One
// invocation per output value. CPU twin: core::ops::modern::repeat_kv.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;          // (rows, kv_heads·width)
@group(0) @binding(2) var<storage, read_write> y: array<f32>;    // (rows, heads·width)

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * 256u;
    let out_cols = params.heads * params.width;
    if (i >= params.rows * out_cols) {
        return;
    }
    let row = i / out_cols;
    let head = (i % out_cols) / params.width;
    let kv = head / params.group;
    let in_cols = out_cols / params.group;
    y[i] = x[row * in_cols + kv * params.width + i % params.width];
}
