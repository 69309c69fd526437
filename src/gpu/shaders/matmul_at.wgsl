// Tiled product with A transposed: C (m,n) = Aᵀ · B, A stored (k,m), B stored (k,n).
// A weight's gradient Xᵀ·dY summed over the k rows (every token of the batch), read in place
// rather than after a transpose pass.
// CPU twin: core::training::backward::matmul_at.
//
// The tiling of matmul.wgsl: each 16×16 workgroup computes one 16×16 tile of C, walking k one
// 16-wide slab at a time through workgroup memory. Here both loads read a row of k, so
// neighbouring threads read neighbouring columns of A and of B (coalesced).

struct Params {
    m: u32,
    n: u32,
    k: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    _pad3: u32,
    _pad4: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;        // (k,m) row-major
@group(0) @binding(2) var<storage, read> b: array<f32>;        // (k,n) row-major
@group(0) @binding(3) var<storage, read_write> c: array<f32>;  // (m,n) row-major

const TILE: u32 = 16u;

// tile_a[kk][i] = A[s·16 + kk, row0 + i] = Aᵀ[row0 + i, s·16 + kk].
var<workgroup> tile_a: array<array<f32, 16>, 16>;
var<workgroup> tile_b: array<array<f32, 16>, 16>;

// A[kk, col] (= Aᵀ[col, kk]), or 0 outside: edge tiles pad with zeros, which add nothing.
fn load_a(kk: u32, col: u32) -> f32 {
    if (kk < params.k && col < params.m) {
        return a[kk * params.m + col];
    }
    return 0.0;
}

fn load_b(kk: u32, col: u32) -> f32 {
    if (kk < params.k && col < params.n) {
        return b[kk * params.n + col];
    }
    return 0.0;
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
    // `slabs` comes from a uniform: every thread reaches the barriers together.
    for (var s = 0u; s < slabs; s = s + 1u) {
        tile_a[lid.y][lid.x] = load_a(s * TILE + lid.y, wg.y * TILE + lid.x);
        tile_b[lid.y][lid.x] = load_b(s * TILE + lid.y, col);
        workgroupBarrier();
        for (var i = 0u; i < TILE; i = i + 1u) {
            acc = acc + tile_a[i][lid.y] * tile_b[i][lid.x];
        }
        workgroupBarrier();
    }
    if (row < params.m && col < params.n) {
        c[row * params.n + col] = acc;
    }
}
