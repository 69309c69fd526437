// Column sums: out (1,n) = α · Σ_rows A (m,n). A bias's gradient (α = 1), and the mean of
// per-row values (α = 1/m: the cross-entropy's loss, layer norm's dγ and dβ).
// One thread per column adds the rows in order, as the CPU does: no atomics, and the same
// result every run.
// CPU twin: core::training::backward::sum_rows.

struct Params {
    rows: u32,
    cols: u32,
    alpha: f32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
    _pad3: u32,
    _pad4: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;          // (rows, cols)
@group(0) @binding(2) var<storage, read_write> out: array<f32>;  // (1, cols)

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let j = gid.x + gid.y * nwg.x * 64u;
    if (j >= params.cols) {
        return;
    }
    var acc = 0.0;
    for (var i = 0u; i < params.rows; i = i + 1u) {
        acc = acc + a[i * params.cols + j];
    }
    out[j] = params.alpha * acc;
}
