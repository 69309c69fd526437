// Cross-entropy of each row of logits (N,V) against its target id, and its gradient:
//   loss_r = ln Σ_j e^(x_j − max) − (x_target − max),
//   dlogits_r = (softmax(x) − one-hot(target)) / N.
// Stable: each row is shifted by its maximum before exponentiating. One workgroup per row;
// the host averages the N row losses with sum_rows.wgsl (α = 1/N), in row order.
// CPU twin: core::training::backward::cross_entropy.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;          // (N, V)
@group(0) @binding(2) var<storage, read> targets: array<u32>;         // (N)
@group(0) @binding(3) var<storage, read_write> row_loss: array<f32>;  // (N, 1)
@group(0) @binding(4) var<storage, read_write> dlogits: array<f32>;   // (N, V)

const WG: u32 = 64u;
// Below every finite logit: just above f32::MIN, which Chrome's WGSL compiler rejects.
const NONE: f32 = -3.402823e38;

@compute @workgroup_size(64, 1, 1)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_id) lid3: vec3<u32>,
) {
    let r = wg.x + wg.y * nwg.x;
    if (r >= params.rows) {
        return;
    }
    let lid = lid3.x;
    let base = r * params.cols;
    // The host rejects targets ≥ V; the clamp only keeps the read inside the row.
    let target_id = min(targets[r], params.cols - 1u);

    var local_max = NONE;
    for (var j = lid; j < params.cols; j = j + WG) {
        local_max = max(local_max, logits[base + j]);
    }
    let row_max = reduce_max(lid, local_max);

    // e^(x − max), kept in dlogits until the sum is known.
    var local_sum = 0.0;
    for (var j = lid; j < params.cols; j = j + WG) {
        let e = exp(logits[base + j] - row_max);
        dlogits[base + j] = e;
        local_sum = local_sum + e;
    }
    let total = reduce_sum(lid, local_sum);

    let inv_n = 1.0 / f32(params.rows);
    let scale = inv_n / total;
    for (var j = lid; j < params.cols; j = j + WG) {
        var d = dlogits[base + j] * scale;
        if (j == target_id) {
            d = d - inv_n;
        }
        dlogits[base + j] = d;
    }
    if (lid == 0u) {
        row_loss[r] = log(total) - (logits[base + target_id] - row_max);
    }
}
