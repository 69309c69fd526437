// Causal attention's backward pass, first half: dQ, and dS for the second half.
// For sequence b, head h (columns [h·d_h, (h+1)·d_h)) and query row i, with P its weights
// (saved by the forward) and dO its output gradient:
//   dP_ij = dO_i · V_j,  D_i = Σ_j P_ij dP_ij,  dS_ij = P_ij (dP_ij − D_i)  (softmax's backward),
//   dQ_i = scale · Σ_j dS_ij K_j.
// dS is written out (B·h·t, t), laid out like P: attention_backward_kv.wgsl reads it for dK.
// Masked keys (j > i) have P = 0, so dS = 0 there. One workgroup per (sequence, row, head).
// CPU twin: core::training::backward::attention_backward (with attention_backward_kv.wgsl).

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> k: array<f32>;             // (B·t, d)
@group(0) @binding(2) var<storage, read> v: array<f32>;             // (B·t, d)
@group(0) @binding(3) var<storage, read> weights: array<f32>;       // P (B·h·t, t)
@group(0) @binding(4) var<storage, read> d_out: array<f32>;         // dO (B·t, d)
@group(0) @binding(5) var<storage, read_write> dq: array<f32>;      // (B·t, d)
@group(0) @binding(6) var<storage, read_write> ds: array<f32>;      // dS (B·h·t, t)

const WG: u32 = 64u;

@compute @workgroup_size(64, 1, 1)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid3: vec3<u32>,
) {
    let job = wg.x + wg.y * nwg.x;
    if (job >= params.sequences * params.t * params.heads) {
        return;
    }
    let lid = lid3.x;
    let seq = job / (params.t * params.heads);
    let i = (job / params.heads) % params.t;
    let h = job % params.heads;
    let d_h = params.width / params.heads;
    let col0 = h * d_h;
    let w_base = ((seq * params.heads + h) * params.t + i) * params.t;
    let row = (seq * params.t + i) * params.width;
    let k0 = seq * params.t;

    // 1. dP_ij, kept in ds for now; D_i.
    var local_d = 0.0;
    for (var j = lid; j < params.t; j = j + WG) {
        var dp = 0.0;
        if (j <= i) {
            for (var c = 0u; c < d_h; c = c + 1u) {
                dp = dp + d_out[row + col0 + c] * v[(k0 + j) * params.width + col0 + c];
            }
        }
        ds[w_base + j] = dp;
        local_d = local_d + weights[w_base + j] * dp;
    }
    let d = reduce_sum(lid, local_d);

    // 2. dS_ij. Each thread rewrites only the cells it wrote itself.
    for (var j = lid; j < params.t; j = j + WG) {
        ds[w_base + j] = weights[w_base + j] * (ds[w_base + j] - d);
    }
    // Step 3 reads cells written by other threads of the group.
    storageBarrier();
    workgroupBarrier();

    // 3. dQ_i, one column per thread.
    for (var c = lid; c < d_h; c = c + WG) {
        var acc = 0.0;
        for (var j = 0u; j <= i; j = j + 1u) {
            acc = acc + ds[w_base + j] * k[(k0 + j) * params.width + col0 + c];
        }
        dq[row + col0 + c] = params.scale * acc;
    }
}
