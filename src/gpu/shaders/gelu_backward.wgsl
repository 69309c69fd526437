// Through Y = GELU(X), tanh approximation: dX = dY ⊙ GELU′(X), with
// GELU(x) = x·σ(2u), u = √(2/π)(x + 0.044715x³):
// GELU′(x) = σ(2u) + x·σ(2u)(1 − σ(2u))·2u′, u′ = √(2/π)(1 + 3·0.044715x²).
// CPU twin: core::training::backward::gelu_backward.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;          // (len)
@group(0) @binding(2) var<storage, read> dy: array<f32>;         // (len)
@group(0) @binding(3) var<storage, read_write> dx: array<f32>;   // (len)

const SQRT_2_OVER_PI: f32 = 0.7978846;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * 256u;
    if (i >= params.len) {
        return;
    }
    let v = x[i];
    let u = SQRT_2_OVER_PI * (v + 0.044715 * v * v * v);
    let du = SQRT_2_OVER_PI * (1.0 + 3.0 * 0.044715 * v * v);
    let s = 1.0 / (1.0 + exp(-2.0 * u));
    dx[i] = dy[i] * (s + v * s * (1.0 - s) * 2.0 * du);
}
