// Matrix product for a few rows of C (a decoder's next token: one row against a weight
// matrix): C (m,n) = alpha · op(A) @ op(B), the same contract as matmul.wgsl (trans_a, trans_b,
// alpha).
// CPU twin: core::ops::matmul / core::ops::matmul_bt / core::training::backward::matmul_at.
//
// One workgroup computes 16 columns of one row of C with 16 lanes splitting k: each lane sums
// every 16th product, the group synchronises once, and the first lane of each column adds the
// 16 partial sums. The tiled kernel gave a one-row product n/16 workgroups that each walked k
// in 16-wide slabs with two barriers per slab (a 768-long k: 96 barriers, 58 µs on an H200);
// here each lane runs k/16 steps, four at a time, and the group one barrier. Lanes and columns are laid out so
// that neighbouring invocations read neighbouring floats of B: along a row of B (k,n), or along
// a row of Bᵀ's storage (n,k) when trans_b.

const LANES: u32 = 16u;

// op(A)[row, i] · op(B)[i, col].
fn term(row: u32, col: u32, i: u32) -> f32 {
    var x: f32;
    if (params.trans_a == 1u) {
        x = a[i * params.m + row];
    } else {
        x = a[row * params.k + i];
    }
    var y: f32;
    if (params.trans_b == 1u) {
        y = b[col * params.k + i];
    } else {
        y = b[i * params.n + col];
    }
    return x * y;
}

// partial[lane][column]: each lane's sum for each of the group's 16 columns.
var<workgroup> partial: array<array<f32, 16>, 16>;

@compute @workgroup_size(16, 16, 1)
fn main(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    // Without trans_b, x runs along the columns (a row of B is contiguous); with trans_b, x runs
    // along k (a row of B's storage is one column of op(B)).
    var lane = lid.y;
    var column = lid.x;
    if (params.trans_b == 1u) {
        lane = lid.x;
        column = lid.y;
    }
    let row = wg.y;
    let col = wg.x * 16u + column;
    var acc = 0.0;
    if (row < params.m && col < params.n) {
        // Four sums in flight: a lane's steps are then four independent reads at a time, not
        // one read waiting on the one before (the decoder's products are latency-bound).
        var sums = vec4<f32>(0.0);
        var i = lane;
        for (; i + 3u * LANES < params.k; i = i + 4u * LANES) {
            sums = sums + vec4<f32>(term(row, col, i), term(row, col, i + LANES), term(row, col, i + 2u * LANES), term(row, col, i + 3u * LANES));
        }
        for (; i < params.k; i = i + LANES) {
            sums.x = sums.x + term(row, col, i);
        }
        acc = (sums.x + sums.y) + (sums.z + sums.w);
    }
    partial[lane][column] = acc;
    // Every invocation reaches this barrier: out-of-range ones only stored a zero.
    workgroupBarrier();
    if (lane == 0u && row < params.m && col < params.n) {
        var sum = 0.0;
        for (var l = 0u; l < LANES; l = l + 1u) {
            sum = sum + partial[l][column];
        }
        c[row * params.n + col] = params.alpha * sum;
    }
}
