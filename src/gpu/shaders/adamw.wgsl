// One AdamW step of θ with its moments m, v, all three in place. The gradient is first
// scaled to the clipped global norm, s = clip/√norm2 when √norm2 > clip (else 1), norm2
// being the squared global norm that sum_squares.wgsl left on the GPU:
//   g ← s·g; m ← β₁m + (1−β₁)g; v ← β₂v + (1−β₂)g²;
//   θ ← θ(1 − lr·λ) − lr · (m/(1−β₁ᵗ)) / (√(v/(1−β₂ᵗ)) + ε).
// The f32 constants are computed on the host (core::training::optim::AdamWStep::constants),
// so both backends multiply by the same bits.
// CPU twin: core::training::optim::adamw.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> grad: array<f32>;          // (len)
@group(0) @binding(2) var<storage, read> norm2: array<f32>;         // (1, 1)
@group(0) @binding(3) var<storage, read_write> theta: array<f32>;   // (len)
@group(0) @binding(4) var<storage, read_write> m: array<f32>;       // (len)
@group(0) @binding(5) var<storage, read_write> v: array<f32>;       // (len)

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * 256u;
    if (i >= params.len) {
        return;
    }
    let norm = sqrt(norm2[0]);
    let s = select(1.0, params.clip / norm, norm > params.clip);
    let g = grad[i] * s;
    let mi = m[i] * params.b1 + g * params.one_minus_b1;
    let vi = v[i] * params.b2 + g * g * params.one_minus_b2;
    m[i] = mi;
    v[i] = vi;
    let update = (mi * params.inv_c1) / (sqrt(vi * params.inv_c2) + params.eps);
    theta[i] = theta[i] * params.keep - update * params.lr;
}
