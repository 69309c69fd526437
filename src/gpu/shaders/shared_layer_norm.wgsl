// shared_layer_norm.wgsl: (μ, 1/√(σ² + ε)) of the row of x at `base`.
// Two passes (mean, then squared deviations) rather than E[x²] − E[x]²: no cancellation.
fn row_stats(lid: u32, base: u32) -> vec2<f32> {
    let n = f32(params.cols);
    var local_sum = 0.0;
    for (var j = lid; j < params.cols; j = j + WG) {
        local_sum = local_sum + x[base + j];
    }
    let mean = reduce_sum(lid, local_sum) / n;
    var local_sq = 0.0;
    for (var j = lid; j < params.cols; j = j + WG) {
        let dev = x[base + j] - mean;
        local_sq = local_sq + dev * dev;
    }
    return vec2<f32>(mean, 1.0 / sqrt(reduce_sum(lid, local_sq) / n + params.eps));
}
