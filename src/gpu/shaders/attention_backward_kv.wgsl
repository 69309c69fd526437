// Causal attention's backward pass, second half: dK and dV from P (the forward's weights),
// dO and dS (from attention_backward_q.wgsl). For sequence b, head h and key row j:
//   dV_j = Σ_{i ≥ j} P_ij dO_i,  dK_j = scale · Σ_{i ≥ j} dS_ij Q_i
// (only queries at or after j saw key j). One thread per entry of dK and dV, summing over
// the queries in order: no atomics.
// CPU twin: core::training::backward::attention_backward (with attention_backward_q.wgsl).

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> q: array<f32>;             // (B·t, d)
@group(0) @binding(2) var<storage, read> weights: array<f32>;       // P (B·h·t, t)
@group(0) @binding(3) var<storage, read> d_out: array<f32>;         // dO (B·t, d)
@group(0) @binding(4) var<storage, read> ds: array<f32>;            // dS (B·h·t, t)
@group(0) @binding(5) var<storage, read_write> dk: array<f32>;      // (B·t, d)
@group(0) @binding(6) var<storage, read_write> dv: array<f32>;      // (B·t, d)

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let at = gid.x + gid.y * nwg.x * 256u;
    if (at >= params.sequences * params.t * params.width) {
        return;
    }
    let key_row = at / params.width;           // B·t rows
    let col = at % params.width;
    let seq = key_row / params.t;
    let j = key_row % params.t;
    let h = col / (params.width / params.heads);
    let p_base = (seq * params.heads + h) * params.t * params.t;
    var acc_k = 0.0;
    var acc_v = 0.0;
    for (var i = j; i < params.t; i = i + 1u) {
        let cell = p_base + i * params.t + j;
        let row = (seq * params.t + i) * params.width + col;
        acc_v = acc_v + weights[cell] * d_out[row];
        acc_k = acc_k + ds[cell] * q[row];
    }
    dk[at] = params.scale * acc_k;
    dv[at] = acc_v;
}
