// Through out = table[ids]: the table's gradient (vocab, d), each row of dY added to the row
// of its id (an id that appears twice gets both rows). A scatter-add written as a gather:
// one thread per (vocab row, column) scans the ids in order and adds the rows that name it,
// so there are no float atomics and the sums are the CPU's, in the CPU's order. The scan
// costs vocab·d·t reads: fine for a character vocabulary (V ≈ 100), not for 50 k tokens.
// CPU twin: core::training::backward::embedding_backward.

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dy: array<f32>;           // (tokens, width)
@group(0) @binding(2) var<storage, read> ids: array<u32>;          // (tokens)
@group(0) @binding(3) var<storage, read_write> table: array<f32>;  // (vocab, width)

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = gid.x + gid.y * nwg.x * 256u;
    if (i >= params.vocab * params.width) {
        return;
    }
    let row = i / params.width;
    let c = i % params.width;
    var acc = 0.0;
    for (var t = 0u; t < params.tokens; t = t + 1u) {
        if (ids[t] == row) {
            acc = acc + dy[t * params.width + c];
        }
    }
    table[i] = acc;
}
