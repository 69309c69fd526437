// shared_reductions.wgsl: called by every invocation of a workgroup of WG (a power of two).

var<workgroup> scratch: array<f32, WG>;

fn reduce_max(lid: u32, value: f32) -> f32 {
    return reduce(lid, value, true);
}

fn reduce_sum(lid: u32, value: f32) -> f32 {
    return reduce(lid, value, false);
}

fn reduce(lid: u32, value: f32, take_max: bool) -> f32 {
    scratch[lid] = value;
    workgroupBarrier();
    for (var stride = WG / 2u; stride > 0u; stride = stride / 2u) {
        if (lid < stride) {
            let a = scratch[lid];
            let b = scratch[lid + stride];
            scratch[lid] = select(a + b, max(a, b), take_max);
        }
        workgroupBarrier();
    }
    let result = scratch[0];
    workgroupBarrier();
    return result;
}
