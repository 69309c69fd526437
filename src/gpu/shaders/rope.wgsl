// RoPE on Q or K (rows, heads·d_h): each pair (2i, 2i+1) of every head of row r turns by the
// angle (first_position + r)·θ^(−2i/d_h), times `sign`: +1 the op, −1 its backward pass (a
// rotation's inverse is its transpose, so dX is dY turned back). One invocation per pair.
// The CPU computes the angle in f64 and rounds it once; here in f32, which at the positions of
// a context (hundreds) differs by a few ulps of the angle (tests/gpu_parity.rs: 1e-4).
// CPU twin: core::ops::modern::rope (and rope_backward).

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;          // (rows, cols)
@group(0) @binding(2) var<storage, read_write> y: array<f32>;    // (rows, cols)

@compute @workgroup_size(256, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let p = gid.x + gid.y * nwg.x * 256u;
    let pairs_per_row = params.cols / 2u;
    if (p >= params.rows * pairs_per_row) {
        return;
    }
    let row = p / pairs_per_row;
    let i = row * params.cols + 2u * (p % pairs_per_row);
    let pair = (2u * (p % pairs_per_row) % params.width) / 2u;
    let frequency = pow(params.theta, -2.0 * f32(pair) / f32(params.width));
    let angle = params.sign * (f32(params.first_position + row) * frequency);
    let c = cos(angle);
    let s = sin(angle);
    let a = x[i];
    let b = x[i + 1u];
    y[i] = a * c - b * s;
    y[i + 1u] = a * s + b * c;
}
