// out (1,1) = acc (1,1) + Σ g² over every entry of G: one gradient's share of the squared
// global norm, chained over the gradients so the total stays on the GPU (the AdamW kernel
// reads it: a training step never waits for a readback). One workgroup: each thread sums a
// strided share, then a tree reduction; the same order every run.
// CPU twin: core::training::optim::sum_squares.

struct Params {
    len: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    _pad3: u32,
    _pad4: u32,
    _pad5: u32,
    _pad6: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> acc: array<f32>;        // (1, 1)
@group(0) @binding(2) var<storage, read> g: array<f32>;          // (len)
@group(0) @binding(3) var<storage, read_write> out: array<f32>;  // (1, 1)

const WG: u32 = 256u;

var<workgroup> scratch: array<f32, 256>;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    var local_sum = 0.0;
    for (var i = lid; i < params.len; i = i + WG) {
        local_sum = local_sum + g[i] * g[i];
    }
    scratch[lid] = local_sum;
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
        if (lid < stride) {
            scratch[lid] = scratch[lid] + scratch[lid + stride];
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        out[0] = acc[0] + scratch[0];
    }
}
