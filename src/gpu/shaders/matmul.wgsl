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

const TILE: u32 = 16u;

var<workgroup> tile_a: array<array<f32, 16>, 16>;
var<workgroup> tile_b: array<array<f32, 16>, 16>;

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
