// GELU, tanh approximation (GPT-2): y = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
// CPU twin: core::ops::gelu.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

const SQRT_2_OVER_PI: f32 = 0.7978846;

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * 256u;
    if (i < params.len) {
        let v = x[i];
        let u = SQRT_2_OVER_PI * (v + 0.044715 * v * v * v);
        // Same value via ½(1 + tanh u) = 1 / (1 + e^(−2u)). Some implementations (SwiftShader)
        // compute tanh near 0 with a large relative error; the sigmoid form has no cancellation,
        // and e^(−2u) → ∞ for very negative u still gives the right limit (−0).
        y[i] = v / (1.0 + exp(-2.0 * u));
    }
}
