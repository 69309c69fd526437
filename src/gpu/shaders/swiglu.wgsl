// SwiGLU's hidden layer, elementwise: h = SiLU(gate) ⊙ up, SiLU(g) = g·σ(g) = g / (1 + e^(−g)).
// The down projection after it is a plain product (matmul.wgsl).
// CPU twin: core::ops::modern::swiglu.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> gate: array<f32>;       // (len)
@group(0) @binding(2) var<storage, read> up: array<f32>;         // (len)
@group(0) @binding(3) var<storage, read_write> h: array<f32>;    // (len)

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * 256u;
    if (i >= params.len) {
        return;
    }
    let g = gate[i];
    h[i] = g / (1.0 + exp(-g)) * up[i];
}
