// RoPE on Q or K (B·t, heads·d_h): each pair (2i, 2i+1) of every head of a sequence's row r
// turns by the angle of position r, read from `turns` (cos, sin of each pair's angle, the
// table the CPU turns with: core::ops::modern::rope_table, so no sin, cos or pow is
// approximated here), times `sign`: +1 the op, −1 its backward pass (a rotation's inverse is
// its transpose, so dX is dY turned back). One invocation per pair.
// CPU twin: core::ops::modern::rope (and rope_backward).

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;          // (rows, cols)
@group(0) @binding(2) var<storage, read> turns: array<f32>;      // (sequence_rows, width)
@group(0) @binding(3) var<storage, read_write> y: array<f32>;    // (rows, cols)

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let p = gid.x + gid.y * nwg.x * 256u;
    let pairs_per_row = params.cols / 2u;
    if (p >= params.rows * pairs_per_row) {
        return;
    }
    let row = p / pairs_per_row;
    let col = 2u * (p % pairs_per_row);
    let t = (row % params.sequence_rows) * params.width + col % params.width;
    let c = turns[t];
    let s = params.sign * turns[t + 1u];
    let i = row * params.cols + col;
    let a = x[i];
    let b = x[i + 1u];
    y[i] = a * c - b * s;
    y[i + 1u] = a * s + b * c;
}
