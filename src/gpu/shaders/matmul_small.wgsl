// Matrix product for outputs that fit one 16×16 tile: C (m,n) = alpha · op(A) @ op(B), the
// same contract as matmul.wgsl (trans_a, trans_b, alpha).
// CPU twin: core::ops::matmul / core::ops::matmul_bt / core::training::backward::matmul_at.
//
// One invocation per cell of C, each summing its k products straight from global memory: no
// workgroup memory and no barriers. When all of C is a single tile, tiling shares nothing
// between workgroups, and barriers are what a software GPU (SwiftShader, llvmpipe) pays most
// for: the articles' 3×3 products ran about ten times faster there with this kernel.

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let row = id.y;
    let col = id.x;
    if (row >= params.m || col >= params.n) {
        return;
    }
    var acc = 0.0;
    for (var i = 0u; i < params.k; i = i + 1u) {
        acc = acc + load_a(row, i) * load_b(i, col);
    }
    c[row * params.n + col] = params.alpha * acc;
}
