// tile: 64
// matmul_blocked.wgsl as the site shipped it until stop 14 (2026-11-22): 4×4 outputs per thread
// at strided rows and columns (lid + 16i), eight 32-bit workgroup reads per k step, A's slab
// stored k-major with 16-way bank conflicts. 14,3 TFLOP/s at 4096² on an H100 (BENCHMARKS.md).
// Kept so that the next run on a real GPU times it next to the kernel that replaced it.
//
// Register-blocked matrix product for large shapes: C (m,n) = alpha · A (m,k) @ op(B), with
// op(B) = B stored (k,n), or Bᵀ when trans_b = 1 and B is stored (n,k).
// CPU twin: core::ops::matmul / core::ops::matmul_bt (the same contract as matmul.wgsl).
//
// matmul.wgsl gives each thread one output, so every multiply-add reads two values from
// workgroup memory. Here a 16×16 workgroup computes a 64×64 tile of C and each thread 4×4 of
// it: per step along k a thread reads 4 values of A and 4 of B into registers and does 16
// multiply-adds with them, four times the arithmetic per shared read. The accumulators are
// named vec4s, not an indexed array, so the compiler keeps them in registers (an indexed
// array went to memory and ran six times slower than matmul.wgsl on an H100). 8×8 outputs per
// thread from 128-wide tiles measured the same at 4096² and slower at 1024² (fewer groups).

const BLOCK: u32 = 64u;  // rows and columns of C per workgroup
const SLAB: u32 = 16u;   // k per step
const THREADS: u32 = 256u;

// A's slab stored k-major (tile_a[kk][row]) so the 4 rows a thread needs sit side by side.
var<workgroup> tile_a: array<array<f32, 64>, 16>;
var<workgroup> tile_b: array<array<f32, 64>, 16>;

fn store(row: u32, col: u32, value: f32) {
    if (row < params.m && col < params.n) {
        c[row * params.n + col] = params.alpha * value;
    }
}

// One thread's 4 rows of C (lid.y + 16i) at its 4 columns (lid.x + 16j).
fn store_row(row: u32, col: u32, values: vec4<f32>) {
    store(row, col, values.x);
    store(row, col + 16u, values.y);
    store(row, col + 32u, values.z);
    store(row, col + 48u, values.w);
}

@compute @workgroup_size(16, 16, 1)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let row0 = wg.y * BLOCK;
    let col0 = wg.x * BLOCK;
    let thread = lid.y * 16u + lid.x;
    // Four named vec4 accumulators, not an indexed array: they stay in registers.
    var acc0 = vec4<f32>(0.0);
    var acc1 = vec4<f32>(0.0);
    var acc2 = vec4<f32>(0.0);
    var acc3 = vec4<f32>(0.0);
    let slabs = (params.k + SLAB - 1u) / SLAB;
    // `slabs` comes from a uniform: every thread reaches the barriers together.
    for (var s = 0u; s < slabs; s = s + 1u) {
        let k0 = s * SLAB;
        // 64×16 values of A and 16×64 of B, four of each per thread.
        for (var e = 0u; e < 4u; e = e + 1u) {
            let index = thread + e * THREADS;
            let a_row = index / SLAB;
            let a_k = index % SLAB;
            tile_a[a_k][a_row] = load_a(row0 + a_row, k0 + a_k);
            var b_k = index / BLOCK;
            var b_col = index % BLOCK;
            if (params.trans_b == 1u) {
                // Bᵀ is read along k: let neighbouring threads take neighbouring k.
                b_k = index % SLAB;
                b_col = index / SLAB;
            }
            tile_b[b_k][b_col] = load_b(k0 + b_k, col0 + b_col);
        }
        workgroupBarrier();
        for (var kk = 0u; kk < SLAB; kk = kk + 1u) {
            let av = vec4<f32>(tile_a[kk][lid.y], tile_a[kk][lid.y + 16u], tile_a[kk][lid.y + 32u], tile_a[kk][lid.y + 48u]);
            let bv = vec4<f32>(tile_b[kk][lid.x], tile_b[kk][lid.x + 16u], tile_b[kk][lid.x + 32u], tile_b[kk][lid.x + 48u]);
            acc0 = acc0 + av.x * bv;
            acc1 = acc1 + av.y * bv;
            acc2 = acc2 + av.z * bv;
            acc3 = acc3 + av.w * bv;
        }
        workgroupBarrier();
    }
    let row = row0 + lid.y;
    let col = col0 + lid.x;
    store_row(row, col, acc0);
    store_row(row + 16u, col, acc1);
    store_row(row + 32u, col, acc2);
    store_row(row + 48u, col, acc3);
}
