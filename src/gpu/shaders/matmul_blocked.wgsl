// Register-blocked matrix product for large shapes: C (m,n) = alpha · op(A) @ op(B), with
// op(A) = A stored (m,k), or Aᵀ when trans_a = 1 and A is stored (k,m); op(B) = B stored
// (k,n), or Bᵀ when trans_b = 1 and B is stored (n,k).
// CPU twin: core::ops::matmul / core::ops::matmul_bt / core::training::backward::matmul_at
// (the same contract as matmul.wgsl).
//
// matmul.wgsl gives each thread one output, so every multiply-add reads two values from
// workgroup memory. Here a 16×16 workgroup computes a 64×64 tile of C and each thread a 4×4
// block of it (rows 4·ty…4·ty+3, columns 4·tx…4·tx+3): per step along k a thread reads one
// vec4 of A and one of B from workgroup memory and does 16 multiply-adds with them.
// - The accumulators are named vec4s, not an indexed array, so the compiler keeps them in
//   registers (an indexed array went to memory and ran six times slower on an H100).
// - The tiles are padded to 17 vec4s per k row: the transposing stores of A (and of Bᵀ) meet
//   2-way bank conflicts instead of 16-way, while the reads from A stay coalesced.
// - The k loop is unrolled by 4 by hand: wgpu's loop bounding adds a counter to every loop.
// The previous layout (strided outputs, eight 32-bit reads per k step) is kept in
// examples/matmul_candidates/scalar_64.wgsl for GPU benchmarks; this one runs about twice as
// fast on llvmpipe at 256² and 512² (BENCHMARKS.md).

const BLOCK: u32 = 64u;
const SLAB: u32 = 16u;
const STRIDE: u32 = 17u;  // vec4s per k row of a tile: 16 + 1 of padding

// tile_a[kk * STRIDE + r] holds A's rows 4r…4r+3 at k = kk; tile_b[kk * STRIDE + q] holds
// op(B)'s columns 4q…4q+3 at k = kk.
var<workgroup> tile_a: array<vec4<f32>, 272>;
var<workgroup> tile_b: array<vec4<f32>, 272>;

@compute @workgroup_size(16, 16, 1)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let row0 = wg.y * BLOCK;
    let col0 = wg.x * BLOCK;
    let thread = lid.y * 16u + lid.x;
    var acc0 = vec4<f32>(0.0);
    var acc1 = vec4<f32>(0.0);
    var acc2 = vec4<f32>(0.0);
    var acc3 = vec4<f32>(0.0);
    let slabs = (params.k + SLAB - 1u) / SLAB;
    for (var s = 0u; s < slabs; s = s + 1u) {
        let k0 = s * SLAB;
        // 64×16 values of A and 16×64 of op(B), four of each per thread. A (and Bᵀ) is read
        // along k, 16 neighbouring threads per row, so the reads coalesce; the transposing
        // store then meets only 2-way bank conflicts thanks to the padding.
        for (var e = 0u; e < 4u; e = e + 1u) {
            let index = thread + e * 256u;
            let row = index / SLAB;
            let kk = index % SLAB;
            if (params.trans_a == 1u) {
                // Aᵀ is read along its stored rows: neighbouring threads take neighbouring rows of C.
                let a_k = index / BLOCK;
                let a_row = index % BLOCK;
                tile_a[a_k * STRIDE + a_row / 4u][a_row % 4u] = load_a(row0 + a_row, k0 + a_k);
            } else {
                tile_a[kk * STRIDE + row / 4u][row % 4u] = load_a(row0 + row, k0 + kk);
            }
            if (params.trans_b == 1u) {
                tile_b[kk * STRIDE + row / 4u][row % 4u] = load_b(k0 + kk, col0 + row);
            } else {
                // B is read along its rows: neighbouring threads take neighbouring columns.
                let b_k = index / BLOCK;
                let col = index % BLOCK;
                tile_b[b_k * STRIDE + col / 4u][col % 4u] = load_b(k0 + b_k, col0 + col);
            }
        }
        workgroupBarrier();
        for (var kk = 0u; kk < SLAB; kk = kk + 4u) {
            var av = tile_a[kk * STRIDE + lid.y];
            var bv = tile_b[kk * STRIDE + lid.x];
            acc0 = acc0 + av.x * bv;
            acc1 = acc1 + av.y * bv;
            acc2 = acc2 + av.z * bv;
            acc3 = acc3 + av.w * bv;
            av = tile_a[(kk + 1u) * STRIDE + lid.y];
            bv = tile_b[(kk + 1u) * STRIDE + lid.x];
            acc0 = acc0 + av.x * bv;
            acc1 = acc1 + av.y * bv;
            acc2 = acc2 + av.z * bv;
            acc3 = acc3 + av.w * bv;
            av = tile_a[(kk + 2u) * STRIDE + lid.y];
            bv = tile_b[(kk + 2u) * STRIDE + lid.x];
            acc0 = acc0 + av.x * bv;
            acc1 = acc1 + av.y * bv;
            acc2 = acc2 + av.z * bv;
            acc3 = acc3 + av.w * bv;
            av = tile_a[(kk + 3u) * STRIDE + lid.y];
            bv = tile_b[(kk + 3u) * STRIDE + lid.x];
            acc0 = acc0 + av.x * bv;
            acc1 = acc1 + av.y * bv;
            acc2 = acc2 + av.z * bv;
            acc3 = acc3 + av.w * bv;
        }
        workgroupBarrier();
    }
    let row = row0 + lid.y * 4u;
    let col = col0 + lid.x * 4u;
    store4(row, col, acc0);
    store4(row + 1u, col, acc1);
    store4(row + 2u, col, acc2);
    store4(row + 3u, col, acc3);
}
