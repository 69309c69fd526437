// shared_rms_norm.wgsl: 1/√(mean(x²) + ε) of the row of x at `base`, for RMSNorm and its
// backward pass (no mean subtracted: what RMSNorm drops of layer norm).
fn inverse_rms(lid: u32, base: u32) -> f32 {
    var local_sq = 0.0;
    for (var j = lid; j < params.cols; j = j + WG) {
        let v = x[base + j];
        local_sq = local_sq + v * v;
    }
    return 1.0 / sqrt(reduce_sum(lid, local_sq) / f32(params.cols) + params.eps);
}
