// Through Y = max(0, X): dX = dY where x > 0, else 0 (the subgradient 0 at x = 0).
// CPU twin: core::training::backward::relu_backward.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;          // (len)
@group(0) @binding(2) var<storage, read> dy: array<f32>;         // (len)
@group(0) @binding(3) var<storage, read_write> dx: array<f32>;   // (len)

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * 256u;
    if (i >= params.len) {
        return;
    }
    dx[i] = select(0.0, dy[i], x[i] > 0.0);
}
