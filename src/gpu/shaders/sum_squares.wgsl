// out (1,1) = acc (1,1) + Σ g² over every entry of G: one gradient's share of the squared
// global norm, chained over the gradients so the total stays on the GPU (the AdamW kernel
// reads it: a training step never waits for a readback). One workgroup: each thread sums a
// strided share, then a tree reduction; the same order every run.
// CPU twin: core::training::optim::sum_squares.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> acc: array<f32>;        // (1, 1)
@group(0) @binding(2) var<storage, read> g: array<f32>;          // (len)
@group(0) @binding(3) var<storage, read_write> out: array<f32>;  // (1, 1)

const WG: u32 = 256u;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    var local_sum = 0.0;
    for (var i = lid; i < params.len; i = i + WG) {
        local_sum = local_sum + g[i] * g[i];
    }
    let total = reduce_sum(lid, local_sum);
    if (lid == 0u) {
        out[0] = acc[0] + total;
    }
}
