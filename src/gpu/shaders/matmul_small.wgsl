// Matrix product for outputs that fit one 16×16 tile: C (m,n) = alpha · op(A) @ op(B), the
// same contract as matmul.wgsl (trans_a, trans_b, alpha).
// CPU twin: core::ops::matmul / core::ops::matmul_bt / core::training::backward::matmul_at.
//
// One invocation per cell of C, each summing its k products straight from global memory: no
// workgroup memory and no barriers. When all of C is a single tile, tiling shares nothing
// between workgroups, and barriers are what a software GPU (SwiftShader, llvmpipe) pays most
// for: the articles' 3×3 products ran about ten times faster there with this kernel.

struct Params {
    m: u32,
    n: u32,
    k: u32,
    trans_b: u32,
    alpha: f32,
    trans_a: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;        // (m,k) row-major, or (k,m) if trans_a
@group(0) @binding(2) var<storage, read> b: array<f32>;        // (k,n), or (n,k) if trans_b
@group(0) @binding(3) var<storage, read_write> c: array<f32>;  // (m,n) row-major

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let row = id.y;
    let col = id.x;
    if (row >= params.m || col >= params.n) {
        return;
    }
    var acc = 0.0;
    for (var i = 0u; i < params.k; i = i + 1u) {
        var x: f32;
        if (params.trans_a == 1u) {
            x = a[i * params.m + row];
        } else {
            x = a[row * params.k + i];
        }
        var y: f32;
        if (params.trans_b == 1u) {
            y = b[col * params.k + i];
        } else {
            y = b[i * params.n + col];
        }
        acc = acc + x * y;
    }
    c[row * params.n + col] = params.alpha * acc;
}
