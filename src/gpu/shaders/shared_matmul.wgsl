// shared_matmul.wgsl: the products' bindings and edge-safe loads and stores.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;        // (m,k) row-major
@group(0) @binding(2) var<storage, read> b: array<f32>;        // (k,n), or (n,k) if trans_b
@group(0) @binding(3) var<storage, read_write> c: array<f32>;  // (m,n) row-major

// op(A)[row, col], or 0 outside the matrix: edge tiles of sizes that are not multiples of 16
// pad with zeros, which add nothing to the sums.
fn load_a(row: u32, col: u32) -> f32 {
    if (row >= params.m || col >= params.k) {
        return 0.0;
    }
    if (params.trans_a == 1u) {
        return a[col * params.m + row];
    }
    return a[row * params.k + col];
}

// op(B)[row, col] with the same zero padding.
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
