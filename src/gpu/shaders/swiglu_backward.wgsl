// Through h = SiLU(gate) ⊙ up: dup = dh ⊙ SiLU(gate), dgate = dh ⊙ up ⊙ SiLU′(gate), with
// SiLU′(g) = σ(g)·(1 + g·(1 − σ(g))).
// CPU twin: core::ops::modern::swiglu_backward.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> gate: array<f32>;           // (len)
@group(0) @binding(2) var<storage, read> up: array<f32>;             // (len)
@group(0) @binding(3) var<storage, read> dh: array<f32>;             // (len)
@group(0) @binding(4) var<storage, read_write> dgate: array<f32>;    // (len)
@group(0) @binding(5) var<storage, read_write> dup: array<f32>;      // (len)

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * 256u;
    if (i >= params.len) {
        return;
    }
    let g = gate[i];
    let sigma = 1.0 / (1.0 + exp(-g));
    dup[i] = dh[i] * g * sigma;
    dgate[i] = dh[i] * up[i] * sigma * (1.0 + g * (1.0 - sigma));
}
