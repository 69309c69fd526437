// Transpose: B (n,m) = Aᵀ for A (m,n). CPU twin: core::ops::transpose.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;        // (m,n)
@group(0) @binding(2) var<storage, read_write> b: array<f32>;  // (n,m)

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.y;   // row of A
    let col = gid.x;   // column of A
    if (row < params.m && col < params.n) {
        b[col * params.m + row] = a[row * params.n + col];
    }
}
