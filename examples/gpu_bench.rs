//! The site's WGSL kernels on a real GPU through native wgpu (Vulkan): the tiled matmul at
//! n = 1024, 2048, 4096 and the resident decoder's per-token latency at context 128. The
//! vendor reference (cuBLAS SGEMM, TF32 off) is timed in the same run by scripts/sgemm.py;
//! scripts/gpu-bench.sh runs both. Prints one line per measurement; times are medians.
//!
//!   cargo run --profile train --example gpu_bench [static/model/]

use std::rc::Rc;
use std::time::Instant;

use atencao::core::decoder::load::Model;
use atencao::core::decoder::manifest::Manifest;
use atencao::core::ops;
use atencao::core::rng::Rng;
use atencao::gpu::{GpuContext, Kernel, KernelId, Params};

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn open_device() -> (wgpu::Device, wgpu::Queue, String) {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    }))
    .expect("a Vulkan adapter");
    let info = adapter.get_info();
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("gpu_bench"),
        required_limits: adapter.limits(),
        ..Default::default()
    }))
    .expect("a device");
    (device, queue, format!("{} ({:?}, driver {})", info.name, info.backend, info.driver_info))
}

fn storage(device: &wgpu::Device, bytes: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    use wgpu::util::DeviceExt;
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: None, contents: bytes, usage })
}

/// The matmul kernel alone: inputs resident, `reps` dispatches per submission, wall clock from
/// submit to the queue being idle, divided by `reps`.
fn matmul(device: &wgpu::Device, queue: &wgpu::Queue, n: usize, id: KernelId, groups: [u32; 3]) {
    let kernel = Kernel::compile(device, id);
    let mut rng = Rng::new(n as u64);
    let (a, b) = (rng.matrix(n, n, -1.0, 1.0), rng.matrix(n, n, -1.0, 1.0));
    let params = Params::new().u(0, n as u32).u(1, n as u32).u(2, n as u32).u(3, 0).f(4, 1.0);
    let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let uniform = storage(device, params.bytes(), wgpu::BufferUsages::UNIFORM);
    let (ga, gb) = (storage(device, bytemuck::cast_slice(a.as_slice()), usage), storage(device, bytemuck::cast_slice(b.as_slice()), usage));
    let gc = device.create_buffer(&wgpu::BufferDescriptor { label: None, size: (4 * n * n) as u64, usage, mapped_at_creation: false });
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &kernel.layout,
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: uniform.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: ga.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 2, resource: gb.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 3, resource: gc.as_entire_binding() },
        ],
    });
    let run = |reps: usize| {
        let mut encoder = device.create_command_encoder(&Default::default());
        for _ in 0..reps {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&kernel.pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
        }
        let start = Instant::now();
        queue.submit([encoder.finish()]);
        device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
        start.elapsed().as_secs_f64() / reps as f64
    };
    run(2);
    let reps = if n >= 4096 { 5 } else { 20 };
    let seconds = median((0..5).map(|_| run(reps)).collect());
    // The product is right: a sample of rows against the CPU twin.
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: (4 * n * 8) as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_buffer_to_buffer(&gc, 0, &staging, 0, (4 * n * 8) as u64);
    queue.submit([encoder.finish()]);
    staging.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
    let gpu_rows: Vec<f32> = bytemuck::cast_slice(&staging.slice(..).get_mapped_range().expect("mapped")).to_vec();
    let cpu_rows = ops::matmul(&a.first_rows(8), &b).expect("shapes");
    let diff = gpu_rows.iter().zip(cpu_rows.as_slice()).map(|(g, c)| (g - c).abs()).fold(0.0f32, f32::max);
    let flops = 2.0 * (n as f64).powi(3);
    println!("wgsl {} n={n}: {:.3} ms, {:.1} GFLOP/s (max |gpu - cpu| over 8 rows: {diff:.2e})", id.name(), seconds * 1e3, flops / seconds / 1e9);
}

/// The shipped decoder resident on the GPU (one command buffer and one readback per token):
/// prefill to `start` tokens, then time each next token up to the model's context.
fn decoder(gpu: Rc<GpuContext>, model_dir: &str) {
    let read = |f: &str| std::fs::read(format!("{model_dir}{f}")).unwrap_or_else(|e| panic!("{model_dir}{f}: {e}"));
    let manifest = Manifest::from_json(&String::from_utf8(read("config.json")).expect("utf-8")).expect("config");
    let context = manifest.config.context;
    let model = Model::load(manifest, &read("tokenizer.json"), &read("model.safetensors")).expect("model");
    let resident = atencao::gpu::decoder::GpuDecoder::new(gpu, &model.weights).expect("resident decoder");
    let text = "Uma noite destas, vindo da cidade para o Engenho Novo, encontrei no trem da Central um rapaz aqui do bairro, que eu conheço de vista e de chapéu. Cumprimentou-me, sentou-se ao pé de mim, falou da lua e dos ministros, e acabou recitando-me versos.";
    let mut ids = model.bpe.encode(text);
    while ids.len() < context {
        ids.extend_from_within(..ids.len().min(context - ids.len()));
    }
    let start = context - 32;
    let mut per_token = Vec::new();
    for round in 0..3 {
        resident.reset();
        let t0 = Instant::now();
        pollster::block_on(resident.forward(&ids[..start])).expect("prefill");
        let prefill = t0.elapsed().as_secs_f64();
        for &id in &ids[start..context] {
            let t = Instant::now();
            pollster::block_on(resident.forward(&[id])).expect("step");
            if round > 0 {
                per_token.push(t.elapsed().as_secs_f64());
            }
        }
        if round > 0 {
            println!("decoder prefill of {start} tokens: {:.2} ms", prefill * 1e3);
        }
    }
    let last: Vec<f64> = per_token.iter().rev().take(8).copied().collect();
    println!(
        "decoder next token, context {}..{context}: median {:.3} ms; at the last 8 positions (context ~{context}): median {:.3} ms",
        start + 1,
        median(per_token.clone()) * 1e3,
        median(last) * 1e3
    );
}

fn main() {
    let model_dir = std::env::args().nth(1).unwrap_or_else(|| "static/model/".into());
    let (device, queue, name) = open_device();
    println!("adapter: {name}");
    // ATENCAO_BENCH_SIZES="256,512" for a quick try on a software device.
    let sizes: Vec<usize> = std::env::var("ATENCAO_BENCH_SIZES")
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|_| vec![1024, 2048, 4096]);
    for n in sizes {
        // The simple tiled kernel (the compute page's), then the one the site uses at this size.
        matmul(&device, &queue, n, KernelId::Matmul, [n.div_ceil(16) as u32, n.div_ceil(16) as u32, 1]);
        let (id, grid) = KernelId::for_product(n, n);
        if id != KernelId::Matmul {
            matmul(&device, &queue, n, id, grid);
        }
    }
    let gpu = Rc::new(GpuContext::from_device(device, queue, name));
    decoder(gpu, &model_dir);
}
