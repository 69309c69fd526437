// Prepended by examples/gpu_bench.rs to every candidate in this folder (the candidates are
// not complete WGSL without it): the Params, bindings and edge-safe loads and stores of
// src/gpu/shaders/matmul_blocked.wgsl. C (m,n) = alpha · A (m,k) @ op(B), with op(B) = B
// stored (k,n), or Bᵀ when trans_b = 1 and B is stored (n,k).

struct Params {
    m: u32,
    n: u32,
    k: u32,
    trans_b: u32,
    alpha: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;        // (m,k) row-major
@group(0) @binding(2) var<storage, read> b: array<f32>;        // (k,n), or (n,k) if trans_b
@group(0) @binding(3) var<storage, read_write> c: array<f32>;  // (m,n) row-major

// A's value at (row, col), 0 outside A: zeros do not change the sums.
fn load_a(row: u32, col: u32) -> f32 {
    if (row < params.m && col < params.k) {
        return a[row * params.k + col];
    }
    return 0.0;
}

// op(B)'s value at (row, col), 0 outside it.
fn load_b(row: u32, col: u32) -> f32 {
    if (row >= params.k || col >= params.n) {
        return 0.0;
    }
    if (params.trans_b == 1u) {
        return b[col * params.k + row];
    }
    return b[row * params.n + col];
}

// alpha · values into C's row at columns col…col+3, those inside C.
fn store4(row: u32, col: u32, values: vec4<f32>) {
    if (row >= params.m) {
        return;
    }
    let base = row * params.n;
    if (col < params.n) { c[base + col] = params.alpha * values.x; }
    if (col + 1u < params.n) { c[base + col + 1u] = params.alpha * values.y; }
    if (col + 2u < params.n) { c[base + col + 2u] = params.alpha * values.z; }
    if (col + 3u < params.n) { c[base + col + 3u] = params.alpha * values.w; }
}
