// tile: 128
// Candidate for matmul_blocked.wgsl (issue 8), timed by examples/gpu_bench.rs next to it; not
// used by the site until a real GPU says it is faster. Same bindings and Params as
// matmul_blocked.wgsl, but 128×128 tiles of C: a 16×16 workgroup, 8×8 outputs per thread.
//
// Each thread owns rows 4·ty…4·ty+3 and 64+4·ty…, columns 4·tx… and 64+4·tx…: one k step
// reads four vec4s from workgroup memory (two of A, two of B) for 64 multiply-adds, against
// 16 multiply-adds per two vec4s in matmul_blocked.wgsl. The tiles are padded to 33 vec4s per
// k row, so the transposing stores of A (and Bᵀ) are free of bank conflicts. With 128-wide tiles
// a 1024² product has only 64 workgroups: meant for the largest products.
// Contract: C (m,n) = alpha · A (m,k) @ op(B), op(B) = B (k,n) or Bᵀ (B stored (n,k)).

const BLOCK: u32 = 128u;
const SLAB: u32 = 8u;
const STRIDE: u32 = 33u;  // vec4s per k row of a tile: 32 + 1 of padding

var<workgroup> tile_a: array<vec4<f32>, 264>;
var<workgroup> tile_b: array<vec4<f32>, 264>;

@compute @workgroup_size(16, 16, 1)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let row0 = wg.y * BLOCK;
    let col0 = wg.x * BLOCK;
    let thread = lid.y * 16u + lid.x;
    var lo0 = vec4<f32>(0.0);
    var hi0 = vec4<f32>(0.0);
    var lo1 = vec4<f32>(0.0);
    var hi1 = vec4<f32>(0.0);
    var lo2 = vec4<f32>(0.0);
    var hi2 = vec4<f32>(0.0);
    var lo3 = vec4<f32>(0.0);
    var hi3 = vec4<f32>(0.0);
    var lo4 = vec4<f32>(0.0);
    var hi4 = vec4<f32>(0.0);
    var lo5 = vec4<f32>(0.0);
    var hi5 = vec4<f32>(0.0);
    var lo6 = vec4<f32>(0.0);
    var hi6 = vec4<f32>(0.0);
    var lo7 = vec4<f32>(0.0);
    var hi7 = vec4<f32>(0.0);
    let slabs = (params.k + SLAB - 1u) / SLAB;
    for (var s = 0u; s < slabs; s = s + 1u) {
        let k0 = s * SLAB;
        // 128×8 values of A and 8×128 of op(B), four of each per thread. A (and Bᵀ) is read
        // along k, 8 neighbouring threads per row; with the padding the transposing store is
        // free of bank conflicts.
        for (var e = 0u; e < 4u; e = e + 1u) {
            let index = thread + e * 256u;
            let row = index / SLAB;
            let kk = index % SLAB;
            tile_a[kk * STRIDE + row / 4u][row % 4u] = load_a(row0 + row, k0 + kk);
            if (params.trans_b == 1u) {
                tile_b[kk * STRIDE + row / 4u][row % 4u] = load_b(k0 + kk, col0 + row);
            } else {
                let b_k = index / BLOCK;
                let col = index % BLOCK;
                tile_b[b_k * STRIDE + col / 4u][col % 4u] = load_b(k0 + b_k, col0 + col);
            }
        }
        workgroupBarrier();
        for (var kk = 0u; kk < SLAB; kk = kk + 1u) {
            let a0 = tile_a[kk * STRIDE + lid.y];
            let a1 = tile_a[kk * STRIDE + 16u + lid.y];
            let b0 = tile_b[kk * STRIDE + lid.x];
            let b1 = tile_b[kk * STRIDE + 16u + lid.x];
            lo0 = lo0 + a0.x * b0;
            hi0 = hi0 + a0.x * b1;
            lo1 = lo1 + a0.y * b0;
            hi1 = hi1 + a0.y * b1;
            lo2 = lo2 + a0.z * b0;
            hi2 = hi2 + a0.z * b1;
            lo3 = lo3 + a0.w * b0;
            hi3 = hi3 + a0.w * b1;
            lo4 = lo4 + a1.x * b0;
            hi4 = hi4 + a1.x * b1;
            lo5 = lo5 + a1.y * b0;
            hi5 = hi5 + a1.y * b1;
            lo6 = lo6 + a1.z * b0;
            hi6 = hi6 + a1.z * b1;
            lo7 = lo7 + a1.w * b0;
            hi7 = hi7 + a1.w * b1;
        }
        workgroupBarrier();
    }
    let row = row0 + lid.y * 4u;
    let col = col0 + lid.x * 4u;
    store4(row + 0u, col, lo0);
    store4(row + 0u, col + 64u, hi0);
    store4(row + 1u, col, lo1);
    store4(row + 1u, col + 64u, hi1);
    store4(row + 2u, col, lo2);
    store4(row + 2u, col + 64u, hi2);
    store4(row + 3u, col, lo3);
    store4(row + 3u, col + 64u, hi3);
    store4(row + 64u + 0u, col, lo4);
    store4(row + 64u + 0u, col + 64u, hi4);
    store4(row + 64u + 1u, col, lo5);
    store4(row + 64u + 1u, col + 64u, hi5);
    store4(row + 64u + 2u, col, lo6);
    store4(row + 64u + 2u, col + 64u, hi6);
    store4(row + 64u + 3u, col, lo7);
    store4(row + 64u + 3u, col + 64u, hi7);
}
