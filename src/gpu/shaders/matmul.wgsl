// Tiled matrix product: C (m,n) = alpha · op(A) @ op(B).
// op(A) = A stored (m,k), or Aᵀ when trans_a = 1 and A is stored (k,m) (a weight's gradient
// Xᵀ·dY without a transpose pass); op(B) = B stored (k,n), or Bᵀ when trans_b = 1 and B is
// stored (n,k) (Q Kᵀ without a transpose pass).
// CPU twin: core::ops::matmul / core::ops::matmul_bt / core::training::backward::matmul_at.
//
// Each 16×16 workgroup computes one 16×16 tile of C. It walks along k one 16-wide slab at a
// time: every thread loads one element of A and one of B into workgroup memory, the group
// synchronises, and each thread accumulates 16 products from the shared tiles. Each value of
// A and B is read from global memory once per tile instead of once per output element.

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
@group(0) @binding(1) var<storage, read> a: array<f32>;        // (m,k) row-major
@group(0) @binding(2) var<storage, read> b: array<f32>;        // (k,n), or (n,k) if trans_b
@group(0) @binding(3) var<storage, read_write> c: array<f32>;  // (m,n) row-major

const TILE: u32 = 16u;

var<workgroup> tile_a: array<array<f32, 16>, 16>;
var<workgroup> tile_b: array<array<f32, 16>, 16>;

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

@compute @workgroup_size(16, 16, 1)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let row = wg.y * TILE + lid.y;
    let col = wg.x * TILE + lid.x;
    let slabs = (params.k + TILE - 1u) / TILE;
    var acc = 0.0;
    // `slabs` comes from a uniform, so every thread runs the same number of iterations and
    // reaches the barriers together, as WGSL requires.
    for (var s = 0u; s < slabs; s = s + 1u) {
        tile_a[lid.y][lid.x] = load_a(row, s * TILE + lid.x);
        tile_b[lid.y][lid.x] = load_b(s * TILE + lid.y, col);
        workgroupBarrier();
        for (var i = 0u; i < TILE; i = i + 1u) {
            acc = acc + tile_a[lid.y][i] * tile_b[i][lid.x];
        }
        workgroupBarrier();
    }
    // Threads of an edge tile that fall outside C only helped load; they write nothing.
    if (row < params.m && col < params.n) {
        c[row * params.n + col] = params.alpha * acc;
    }
}
