// shared_reductions.wgsl: the workgroup reductions, composed after every kernel that reduces
// over its workgroup (src/gpu/kernels.rs). The kernel declares WG, its workgroup's size (a
// power of two), and calls these from every invocation with `lid` its local index: they hold
// barriers, so a call must be in uniform control flow. Both return the result to every
// invocation, in a tree order that is the same every run.

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
    // No invocation may overwrite scratch (the next reduction) before all have read it.
    workgroupBarrier();
    return result;
}
