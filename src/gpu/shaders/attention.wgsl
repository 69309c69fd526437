// Fused multi-head attention core (no projections): for query row i and head h,
//   w = softmax(q_i,h · K_hᵀ / √d_h  [causal: keys j ≤ i + offset]),  out_i,h = w · V_h
// where head h owns columns [h·d_h, (h+1)·d_h) of Q (t_q,d), K and V (t_k,d).
// One workgroup per (row, head). The weights are written out as well: the widgets and
// the decoder playground draw them, and training's backward pass reads them.
// With `sequences` = B > 1, Q, K, V hold B sequences stacked in the rows ((B·t_q, d) and
// (B·t_k, d)), each attending only to its own keys, and the weights are (B·h·t_q, t_k),
// sequence after sequence, head after head: the training forward over a batch.
// CPU twin: core::ops::attention (B = 1); core::training::backward::attention_batch.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> q: array<f32>;             // (B·t_q, d)
@group(0) @binding(2) var<storage, read> k: array<f32>;             // (B·t_k, d)
@group(0) @binding(3) var<storage, read> v: array<f32>;             // (B·t_k, d)
@group(0) @binding(4) var<storage, read_write> out: array<f32>;     // (B·t_q, d)
@group(0) @binding(5) var<storage, read_write> weights: array<f32>; // (B·h·t_q, t_k)

const WG: u32 = 64u;
// Marks a masked score: just above f32::MIN, which Chrome's WGSL compiler rejects as a literal.
const NONE: f32 = -3.402823e38;

@compute @workgroup_size(64, 1, 1)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid3: vec3<u32>,
) {
    let job = wg.x + wg.y * nwg.x;
    if (job >= params.sequences * params.t_q * params.heads) {
        return;
    }
    let lid = lid3.x;
    let seq = job / (params.t_q * params.heads);     // sequence
    let i = (job / params.heads) % params.t_q;      // query row within it
    let h = job % params.heads;                     // head
    let d_h = params.width / params.heads;
    let col0 = h * d_h;
    let w_base = ((seq * params.heads + h) * params.t_q + i) * params.t_k;
    let q_row = (seq * params.t_q + i) * params.width;
    let k0 = seq * params.t_k;                       // its first key row

    // 1. Scores (scaled dot products), masked ones stored as NONE; the row maximum.
    var local_max = NONE;
    for (var j = lid; j < params.t_k; j = j + WG) {
        var s = NONE;
        if (params.causal == 0u || j <= i + params.causal_offset) {
            var dot = 0.0;
            for (var c = 0u; c < d_h; c = c + 1u) {
                dot = dot + q[q_row + col0 + c] * k[(k0 + j) * params.width + col0 + c];
            }
            s = dot * params.scale;
            local_max = max(local_max, s);
        }
        weights[w_base + j] = s;
    }
    let row_max = reduce_max(lid, local_max);

    // 2. Exponentials and their sum. Each thread rereads only the cells it wrote itself.
    var local_sum = 0.0;
    for (var j = lid; j < params.t_k; j = j + WG) {
        let s = weights[w_base + j];
        var e = 0.0;
        if (s > NONE) {
            e = exp(s - row_max);
        }
        weights[w_base + j] = e;
        local_sum = local_sum + e;
    }
    let total = reduce_sum(lid, local_sum);

    // 3. Normalise.
    for (var j = lid; j < params.t_k; j = j + WG) {
        weights[w_base + j] = weights[w_base + j] / total;
    }
    // Step 4 reads weights written by other threads of the group.
    storageBarrier();
    workgroupBarrier();

    // 4. Weighted sum of the values. A head at most WG wide is summed by WG / d_h groups of
    //    d_h threads side by side, group g over the keys j ≡ g (mod groups), then the groups'
    //    partial sums are added: with one query row (a decoder's next token) each thread walks
    //    t_k / groups keys instead of all t_k, and no thread idles. Wider heads: one output
    //    column per thread, over every key.
    if (d_h <= WG) {
        let groups = WG / d_h;
        let group = lid / d_h;
        let c = lid % d_h;
        var acc = 0.0;
        if (group < groups) {
            for (var j = group; j < params.t_k; j = j + groups) {
                acc = acc + weights[w_base + j] * v[(k0 + j) * params.width + col0 + c];
            }
        }
        scratch[lid] = acc;
        workgroupBarrier();
        if (lid < d_h) {
            var sum = 0.0;
            for (var g = 0u; g < groups; g = g + 1u) {
                sum = sum + scratch[g * d_h + lid];
            }
            out[q_row + col0 + lid] = sum;
        }
    } else {
        for (var c = lid; c < d_h; c = c + WG) {
            var acc = 0.0;
            for (var j = 0u; j < params.t_k; j = j + 1u) {
                acc = acc + weights[w_base + j] * v[(k0 + j) * params.width + col0 + c];
            }
            out[q_row + col0 + c] = acc;
        }
    }
}
