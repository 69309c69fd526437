//! The site's WGSL kernels on a real GPU through native wgpu (Vulkan): the tiled matmuls at
//! n = 1024, 2048, 4096, a widget's update through the executor, and the resident decoder's
//! per-token latency at context 128 with its phases (recording, submission to readback, the
//! kernels' own time) and its logits checked against the CPU. The
//! vendor reference (cuBLAS SGEMM, TF32 off) is timed in the same run by scripts/sgemm.py;
//! scripts/gpu-bench.sh runs both. Prints one line per measurement; times are medians.
//!
//! Besides the site's kernels it times, at each size:
//! - the large-product kernel compiled without wgpu's runtime checks (bounds clamping and loop
//!   bounding), to see what those cost ("sem verificações");
//! - every candidate in examples/matmul_candidates/ (a `// tile: N` first line gives its
//!   N×N tile of C; each is composed with what matmul_blocked.wgsl is composed with: its
//!   Params, the bindings and the edge-safe loads and stores of src/gpu/shaders/shared_matmul.wgsl),
//!   with and without checks, after checking it against the CPU on ragged shapes, with B and
//!   with Bᵀ.
//!
//!   cargo run --profile train --example gpu_bench [static/model/]
//!
//! ATENCAO_BENCH_SIZES="256,512" limits the sizes (a quick try on a software device);
//! ATENCAO_CANDIDATES=folder reads the candidates from elsewhere.

use std::rc::Rc;
use std::time::Instant;

use atencao::core::decoder::load::Model;
use atencao::core::decoder::model::{forward, read_forward, KvCache};
use atencao::core::decoder::weights::DecoderWeights;
use atencao::core::executor::Executor;
use atencao::core::decoder::manifest::Manifest;
use atencao::core::ops;
use atencao::core::rng::Rng;
use atencao::core::Matrix;
use atencao::gpu::kernels::BLOCKED_MIN;
use atencao::core::decoder::session::Session;
use atencao::core::decoder::sampling::SamplingOptions;
use atencao::gpu::kernels::MatmulParams;
use atencao::gpu::{AdapterFacts, GpuContext, Kernel, KernelId};

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn open_device() -> (wgpu::Device, wgpu::Queue, AdapterFacts) {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    }))
    .expect("a Vulkan adapter");
    let info = adapter.get_info();
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("gpu_bench"),
        // The decoder's per-op device times (the "por dentro" panel's timestamps).
        required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
        required_limits: adapter.limits(),
        ..Default::default()
    }))
    .expect("a device");
    let mut facts = AdapterFacts::of(&info);
    facts.name = format!("{} ({:?}, driver {})", info.name, info.backend, info.driver_info);
    (device, queue, facts)
}

/// A matmul kernel under test: the site's, or a candidate from examples/matmul_candidates/.
struct Contender {
    name: String,
    kernel: Kernel,
    /// Side of the square tile of C one workgroup computes (16 for matmul.wgsl).
    tile: usize,
}

impl Contender {
    fn grid(&self, m: usize, n: usize) -> [u32; 3] {
        [n.div_ceil(self.tile) as u32, m.div_ceil(self.tile) as u32, 1]
    }
}

/// `source` compiled as a matmul with matmul_blocked.wgsl's bindings; `checked: false` leaves
/// out wgpu's runtime checks (the kernels bound every index themselves).
fn contender(device: &wgpu::Device, name: &str, source: &str, tile: usize, checked: bool) -> Contender {
    let descriptor = wgpu::ShaderModuleDescriptor { label: Some(name), source: wgpu::ShaderSource::Wgsl(source.into()) };
    let module = if checked {
        device.create_shader_module(descriptor)
    } else {
        // SAFETY: these kernels guard every read and write of a buffer with the sizes in their
        // Params, index workgroup arrays within their declared lengths, and run loops bounded
        // by uniforms; check_ragged below compares each one with the CPU before it is timed.
        unsafe { device.create_shader_module_trusted(descriptor, wgpu::ShaderRuntimeChecks::unchecked()) }
    };
    let name = if checked { name.to_string() } else { format!("{name} (sem verificações)") };
    Contender { name, kernel: Kernel::from_module(device, KernelId::MatmulBlocked, &module), tile }
}

/// The site's two matmuls, the large one also without runtime checks, then each candidate
/// with and without checks.
fn contenders(device: &wgpu::Device) -> Vec<Contender> {
    let mut all = vec![
        Contender { name: KernelId::Matmul.name().into(), kernel: Kernel::compile(device, KernelId::Matmul), tile: 16 },
        Contender { name: KernelId::MatmulBlocked.name().into(), kernel: Kernel::compile(device, KernelId::MatmulBlocked), tile: BLOCKED_MIN },
        contender(device, KernelId::MatmulBlocked.name(), &KernelId::MatmulBlocked.source(), BLOCKED_MIN, false),
    ];
    // Relative to the repository root (scripts/gpu-bench.sh runs there): the binary may be
    // built on another machine than the one with the GPU.
    let folder = std::env::var("ATENCAO_CANDIDATES").unwrap_or_else(|_| "examples/matmul_candidates".into());
    let mut files: Vec<_> = std::fs::read_dir(&folder).map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect()).unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "wgsl"));
    files.sort();
    // Params, bindings, load_a/load_b/store4: the site's own, composed as for its kernels.
    let shared = KernelId::MatmulBlocked.shared();
    for path in files {
        let source = std::fs::read_to_string(&path).expect("candidate source");
        let tile = source.lines().next().and_then(|l| l.strip_prefix("// tile: ")).and_then(|t| t.trim().parse().ok());
        let Some(tile) = tile else {
            println!("{}: no `// tile: N` first line, skipped", path.display());
            continue;
        };
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let source = format!("{source}\n{shared}");
        all.push(contender(device, &name, &source, tile, true));
        all.push(contender(device, &name, &source, tile, false));
    }
    all
}

fn storage(device: &wgpu::Device, bytes: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
    use wgpu::util::DeviceExt;
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: None, contents: bytes, usage })
}

/// A product resident on the GPU: A (m,k), B (k,n) or (n,k) if `trans_b`, C (m,n).
struct Product {
    m: usize,
    n: usize,
    uniform: wgpu::Buffer,
    buffers: [wgpu::Buffer; 3],
}

impl Product {
    fn new(device: &wgpu::Device, a: &Matrix, b: &Matrix, trans_b: bool) -> Product {
        let (m, k) = a.shape();
        let n = if trans_b { b.rows() } else { b.cols() };
        let params = MatmulParams { m: m as u32, n: n as u32, k: k as u32, trans_b: trans_b as u32, alpha: 1.0, ..Default::default() };
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let c = device.create_buffer(&wgpu::BufferDescriptor { label: None, size: (4 * m * n) as u64, usage, mapped_at_creation: false });
        Product {
            m,
            n,
            uniform: storage(device, bytemuck::bytes_of(&params), wgpu::BufferUsages::UNIFORM),
            buffers: [storage(device, bytemuck::cast_slice(a.as_slice()), usage), storage(device, bytemuck::cast_slice(b.as_slice()), usage), c],
        }
    }

    fn bind(&self, device: &wgpu::Device, kernel: &Kernel) -> wgpu::BindGroup {
        let [a, b, c] = &self.buffers;
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &kernel.layout,
            entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: self.uniform.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: a.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 2, resource: b.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 3, resource: c.as_entire_binding() },
            ],
        })
    }

    /// Runs `who` `reps` times in one submission; seconds per run, submit to idle.
    fn time(&self, device: &wgpu::Device, queue: &wgpu::Queue, who: &Contender, reps: usize) -> f64 {
        let bind = self.bind(device, &who.kernel);
        let grid = who.grid(self.m, self.n);
        let mut encoder = device.create_command_encoder(&Default::default());
        for _ in 0..reps {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&who.kernel.pipeline);
            pass.set_bind_group(0, &bind, &[]);
            pass.dispatch_workgroups(grid[0], grid[1], grid[2]);
        }
        let start = Instant::now();
        queue.submit([encoder.finish()]);
        device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
        start.elapsed().as_secs_f64() / reps as f64
    }

    /// The first `rows` rows of C.
    fn read_rows(&self, device: &wgpu::Device, queue: &wgpu::Queue, rows: usize) -> Vec<f32> {
        let size = (4 * rows.min(self.m) * self.n) as u64;
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(&self.buffers[2], 0, &staging, 0, size);
        queue.submit([encoder.finish()]);
        staging.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        device.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
        let values = bytemuck::cast_slice(&staging.slice(..).get_mapped_range().expect("mapped")).to_vec();
        // Bound first: as the tail expression, the mapped view (a temporary borrowing
        // `staging`) would outlive `staging`.
        values
    }
}

fn max_diff(x: &[f32], y: &[f32]) -> f32 {
    x.iter().zip(y).map(|(g, c)| (g - c).abs()).fold(0.0f32, f32::max)
}

/// Every value of C on shapes that fit no tile, with B and with Bᵀ, against the CPU twin.
fn check_ragged(device: &wgpu::Device, queue: &wgpu::Queue, who: &Contender) -> f32 {
    let mut rng = Rng::new(7);
    let mut worst = 0.0f32;
    for (m, k, n) in [(67, 45, 131), (130, 200, 70), (1, 3, 5)] {
        let a = rng.matrix(m, k, -1.0, 1.0);
        for trans_b in [false, true] {
            let b = if trans_b { rng.matrix(n, k, -1.0, 1.0) } else { rng.matrix(k, n, -1.0, 1.0) };
            let product = Product::new(device, &a, &b, trans_b);
            product.time(device, queue, who, 1);
            let cpu = if trans_b { ops::matmul_bt(&a, &b, 1.0) } else { ops::matmul(&a, &b) }.expect("shapes");
            worst = worst.max(max_diff(&product.read_rows(device, queue, m), cpu.as_slice()));
        }
    }
    worst
}

/// One n×n product: median time of 5 submissions of `reps` dispatches, and 8 rows against the
/// CPU twin.
fn matmul(device: &wgpu::Device, queue: &wgpu::Queue, n: usize, who: &Contender) {
    let mut rng = Rng::new(n as u64);
    let (a, b) = (rng.matrix(n, n, -1.0, 1.0), rng.matrix(n, n, -1.0, 1.0));
    let product = Product::new(device, &a, &b, false);
    product.time(device, queue, who, 2);
    let reps = if n >= 4096 { 5 } else { 20 };
    let seconds = median((0..5).map(|_| product.time(device, queue, who, reps)).collect());
    let diff = max_diff(&product.read_rows(device, queue, 8), ops::matmul(&a.first_rows(8), &b).expect("shapes").as_slice());
    let flops = 2.0 * (n as f64).powi(3);
    println!("wgsl {} n={n}: {:.3} ms, {:.1} GFLOP/s (max |gpu - cpu| over 8 rows: {diff:.2e})", who.name, seconds * 1e3, flops / seconds / 1e9);
}

/// The shipped decoder on the GPU through the executor (weights uploaded once, the KV cache
/// in GPU buffers, one submission and one readback per token): a prompt of `start` tokens, then
/// each next token up to the model's context, timed.
fn decoder(gpu: &GpuContext, model_dir: &str) {
    let read = |f: &str| std::fs::read(format!("{model_dir}{f}")).unwrap_or_else(|e| panic!("{model_dir}{f}: {e}"));
    let manifest = Manifest::from_json(&String::from_utf8(read("config.json")).expect("utf-8")).expect("config");
    let context = manifest.config.context;
    let model = Model::load(manifest, &read("tokenizer.json"), &read("model.safetensors")).expect("model");
    let weights = Rc::new(model.weights.upload(gpu).expect("weights on the GPU"));
    let text = "Uma noite destas, vindo da cidade para o Engenho Novo, encontrei no trem da Central um rapaz aqui do bairro, que eu conheço de vista e de chapéu. Cumprimentou-me, sentou-se ao pé de mim, falou da lua e dos ministros, e acabou recitando-me versos.";
    // A prompt 32 tokens short of the context: the 32 steps that follow run at context ~96…128.
    let mut prompt_ids = model.bpe.encode(text);
    while prompt_ids.len() < context - 32 {
        prompt_ids.extend_from_within(..prompt_ids.len().min(context - 32 - prompt_ids.len()));
    }
    prompt_ids.truncate(context - 32);
    let prompt = model.bpe.decode(&prompt_ids);
    let mut per_token = Vec::new();
    for round in 0..3 {
        let mut session = Session::start(gpu, weights.clone(), &model.bpe, &prompt, 7).expect("session");
        let t0 = Instant::now();
        pollster::block_on(session.sync(gpu)).expect("prefill");
        let prefill = t0.elapsed().as_secs_f64();
        while session.history().ids.len() < context {
            let t = Instant::now();
            pollster::block_on(session.step(gpu, &SamplingOptions::greedy())).expect("step");
            if round > 0 {
                per_token.push(t.elapsed().as_secs_f64());
            }
        }
        if round > 0 {
            println!("decoder prefill of {} tokens: {:.2} ms", session.history().prompt_len, prefill * 1e3);
        }
    }
    let last: Vec<f64> = per_token.iter().rev().take(8).copied().collect();
    println!(
        "decoder next token (sampling included), context ..{context}: median {:.3} ms; at the last 8 positions: median {:.3} ms",
        median(per_token.clone()) * 1e3,
        median(last) * 1e3
    );
    token_phases(gpu, &weights, &model.weights, &prompt_ids, context);
}

/// Where one token's time goes at context ~128: recording the pass on the host (the
/// executor's dispatches), then submission to readback; and, with timestamps, the device's
/// own time summed over the pass's ops.
/// The last step's logits are checked against the CPU's pass over the same tokens.
fn token_phases(gpu: &GpuContext, weights: &DecoderWeights<atencao::gpu::GpuTensor>, cpu_weights: &DecoderWeights, prompt_ids: &[u32], context: usize) {
    let mut cache = KvCache::new(gpu, &weights.config).expect("cache");
    let pass = forward(gpu, weights, prompt_ids, &mut cache).expect("prefill");
    let prefill = pollster::block_on(read_forward(gpu, &pass)).expect("prefill read");
    // Greedy: each step feeds the most likely token after the one before.
    let greedy = |logits: &[f32]| logits.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map_or(0, |(i, _)| i as u32);
    let (mut record, mut total, mut busy) = (Vec::new(), Vec::new(), Vec::new());
    // Per op (its index in the pass's order), its device times.
    let mut per_op: Vec<Vec<f64>> = Vec::new();
    let mut id = greedy(&prefill.logits.row(0));
    let mut ids = prompt_ids.to_vec();
    let mut last_logits = Vec::new();
    while cache.len() < context {
        let timed = gpu.can_time_ops() && cache.len() % 2 == 1;
        gpu.set_op_timing(timed);
        let t0 = Instant::now();
        let pass = forward(gpu, weights, &[id], &mut cache).expect("step");
        let t1 = Instant::now();
        let out = pollster::block_on(read_forward(gpu, &pass)).expect("step read");
        let t2 = Instant::now();
        ids.push(id);
        last_logits = out.logits.row(0);
        id = greedy(&last_logits);
        if timed {
            let times = gpu.take_op_times().unwrap_or_default();
            busy.push(times.iter().filter(|t| t.is_finite()).sum::<f64>() / 1e3);
            per_op.resize(per_op.len().max(times.len()), Vec::new());
            for (i, t) in times.iter().enumerate().filter(|(_, t)| t.is_finite()) {
                per_op[i].push(*t);
            }
        } else {
            record.push((t1 - t0).as_secs_f64());
            total.push((t2 - t0).as_secs_f64());
        }
    }
    gpu.set_op_timing(false);
    let cpu = &atencao::core::executor::Cpu;
    let mut cpu_cache = KvCache::new(cpu, &cpu_weights.config).expect("cache");
    forward(cpu, cpu_weights, &ids[..ids.len() - 1], &mut cpu_cache).expect("cpu pass");
    let pass = forward(cpu, cpu_weights, &ids[ids.len() - 1..], &mut cpu_cache).expect("cpu step");
    let reference = atencao::core::executor::block_on_ready(read_forward(cpu, &pass)).expect("cpu read").logits.row(0);
    let diff = max_diff(&last_logits, &reference);
    println!("decoder token at position {}: max |gpu - cpu| over its {} logits = {diff:.2e}", ids.len(), reference.len());
    let ms = |xs: &[f64]| if xs.is_empty() { f64::NAN } else { median(xs.to_vec()) * 1e3 };
    println!(
        "decoder token phases (greedy, no sampling), context ..{context}: recording {:.3} ms, recording to readback {:.3} ms, device time of its ops {:.3} ms (medians)",
        ms(&record),
        ms(&total),
        ms(&busy)
    );
    let mut slowest: Vec<(usize, f64)> = per_op.iter().enumerate().filter(|(_, ts)| !ts.is_empty()).map(|(i, ts)| (i, median(ts.clone()))).collect();
    slowest.sort_by(|a, b| b.1.total_cmp(&a.1));
    let listed: Vec<String> = slowest.iter().take(8).map(|(i, t)| format!("op {i}: {:.1} µs", t * 1e3)).collect();
    println!("decoder token, slowest ops by device time (index in the pass): {}", listed.join(", "));
}

fn main() {
    let model_dir = std::env::args().nth(1).unwrap_or_else(|| "static/model/".into());
    let (device, queue, name) = open_device();
    println!("adapter: {}", name.name);
    // ATENCAO_BENCH_SIZES="256,512" for a quick try on a software device.
    let sizes: Vec<usize> = std::env::var("ATENCAO_BENCH_SIZES")
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|_| vec![1024, 2048, 4096]);
    // No sizes (ATENCAO_BENCH_SIZES=""): the decoder alone.
    let mut contenders = if sizes.is_empty() { Vec::new() } else { contenders(&device) };
    // A kernel that gets a product wrong is not timed.
    contenders.retain(|who| {
        let diff = check_ragged(&device, &queue, who);
        println!("{}: ragged shapes, B and Bᵀ, max |gpu - cpu| = {diff:.2e}", who.name);
        diff < 1e-3
    });
    for n in sizes {
        for who in &contenders {
            matmul(&device, &queue, n, who);
        }
    }
    let gpu = GpuContext::from_device(device, queue, name);
    widget_update(&gpu);
    decoder(&gpu, &model_dir);
}

/// A widget's update on the GPU: the attention widget's article example (3 tokens, d = 4)
/// through the executor, as the widget runs it: its inputs uploaded, six ops recorded, one
/// submission, one readback of everything it draws. Median of 200, after 20 untimed.
fn widget_update(gpu: &GpuContext) {
    use atencao::core::attention::attention_trace;
    use atencao::core::examples::textbook_example_2;
    let inputs = textbook_example_2();
    let mut times = Vec::new();
    for i in 0..220 {
        let t = Instant::now();
        let trace = pollster::block_on(attention_trace(gpu, &inputs)).expect("attention");
        if i >= 20 {
            times.push(t.elapsed().as_secs_f64());
        }
        std::hint::black_box(trace);
    }
    let cpu = &atencao::core::executor::Cpu;
    let mut cpu_times = Vec::new();
    for _ in 0..220 {
        let t = Instant::now();
        std::hint::black_box(atencao::core::executor::block_on_ready(attention_trace(cpu, &inputs)).expect("attention"));
        cpu_times.push(t.elapsed().as_secs_f64());
    }
    println!(
        "attention widget update (article example, 6 ops, one submission): gpu median {:.1} µs, cpu median {:.1} µs",
        median(times) * 1e6,
        median(cpu_times) * 1e6
    );
}
