//! The site's CPU core against candle on the same shapes and the same weights:
//! matmul, softmax, attention, FFN, and the shipped decoder (prompt processing and one-token
//! decoding with a KV cache). Ratios go to BENCHMARKS.md.
//!
//!   cargo bench -p atencao-train --bench vs_candle -- --warm-up-time 1 --measurement-time 3
//!
//! Both sides run single-threaded (RAYON_NUM_THREADS=1 is set below) so the comparison is
//! of kernels, not of thread pools; the site's wasm build is single-threaded too.

use std::hint::black_box;

use atencao_core::attention::feed_forward;
use atencao_core::decoder::load::Model;
use atencao_core::decoder::manifest::Manifest;
use atencao_core::decoder::model::{forward, KvCache};
use atencao_core::executor::Cpu;
use atencao_core::ops::{self, SoftmaxOptions};
use atencao_core::rng::Rng;
use atencao_core::Matrix;
use atencao_train::model::Gpt;
use candle_core::{Device, Tensor};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn tensor(m: &Matrix, device: &Device) -> Tensor {
    Tensor::from_vec(m.as_slice().to_vec(), m.shape(), device).expect("shape")
}

fn kernels(c: &mut Criterion) {
    // Before the first candle op creates rayon's pool: one thread, like the site's wasm.
    std::env::set_var("RAYON_NUM_THREADS", "1");
    let device = Device::Cpu;
    let mut rng = Rng::new(42);

    let mut group = c.benchmark_group("matmul");
    for n in [64usize, 128, 256, 512] {
        let (a, b) = (rng.matrix(n, n, -1.0, 1.0), rng.matrix(n, n, -1.0, 1.0));
        let (ta, tb) = (tensor(&a, &device), tensor(&b, &device));
        group.throughput(Throughput::Elements((2 * n * n * n) as u64));
        group.bench_with_input(BenchmarkId::new("atencao", n), &n, |bench, _| bench.iter(|| ops::matmul(black_box(&a), black_box(&b)).unwrap()));
        // ndarray's own product (matrixmultiply), which ops::matmul uses above small_matmul's range.
        group.bench_with_input(BenchmarkId::new("ndarray", n), &n, |bench, _| bench.iter(|| black_box(&a).array().dot(black_box(&b).array())));
        group.bench_with_input(BenchmarkId::new("candle", n), &n, |bench, _| bench.iter(|| black_box(&ta).matmul(black_box(&tb)).unwrap()));
    }
    group.finish();

    let mut group = c.benchmark_group("softmax 256x256");
    let s = rng.matrix(256, 256, -5.0, 5.0);
    let ts = tensor(&s, &device);
    group.bench_function("atencao", |bench| bench.iter(|| ops::softmax_rows(black_box(&s), SoftmaxOptions::default()).unwrap()));
    group.bench_function("candle", |bench| bench.iter(|| candle_nn::ops::softmax_last_dim(black_box(&ts)).unwrap()));
    group.finish();

    // Attention core, 4 heads, d = 64 (hs = 16), causal.
    let mut group = c.benchmark_group("attention h4 d64 causal");
    for t in [16usize, 64, 256] {
        let (q, k, v) = (rng.matrix(t, 64, -1.0, 1.0), rng.matrix(t, 64, -1.0, 1.0), rng.matrix(t, 64, -1.0, 1.0));
        let split = |m: &Matrix| tensor(m, &device).reshape((1, t, 4, 16)).unwrap().transpose(1, 2).unwrap().contiguous().unwrap();
        let (tq, tk, tv) = (split(&q), split(&k), split(&v));
        let mask: Vec<f32> = (0..t * t).map(|i| if i % t > i / t { f32::NEG_INFINITY } else { 0.0 }).collect();
        let mask = Tensor::from_vec(mask, (t, t), &device).unwrap();
        group.bench_with_input(BenchmarkId::new("atencao", t), &t, |bench, _| {
            bench.iter(|| ops::attention(black_box(&q), black_box(&k), black_box(&v), 4, true, 0).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("candle", t), &t, |bench, _| {
            bench.iter(|| {
                let scores = (tq.matmul(&tk.t().unwrap()).unwrap() * 0.25).unwrap().broadcast_add(&mask).unwrap();
                let w = candle_nn::ops::softmax_last_dim(&scores).unwrap();
                w.matmul(&tv).unwrap().transpose(1, 2).unwrap().reshape((t, 64)).unwrap()
            })
        });
    }
    group.finish();

    // FFN of the shipped model's size: t = 128, C = 192, F = 768.
    let mut group = c.benchmark_group("ffn t128 c192 f768");
    let (x, w1, b1, w2, b2) = (
        rng.matrix(128, 192, -1.0, 1.0),
        rng.matrix(192, 768, -0.1, 0.1),
        rng.matrix(1, 768, -0.1, 0.1),
        rng.matrix(768, 192, -0.1, 0.1),
        rng.matrix(1, 192, -0.1, 0.1),
    );
    let (tx, tw1, tb1, tw2, tb2) = (tensor(&x, &device), tensor(&w1, &device), tensor(&b1, &device), tensor(&w2, &device), tensor(&b2, &device));
    group.bench_function("atencao", |bench| bench.iter(|| feed_forward(&Cpu, &x, &w1, &b1, &w2, &b2).unwrap()));
    group.bench_function("candle", |bench| {
        bench.iter(|| {
            let h = tx.matmul(&tw1).unwrap().broadcast_add(&tb1).unwrap().relu().unwrap();
            h.matmul(&tw2).unwrap().broadcast_add(&tb2).unwrap()
        })
    });
    group.finish();
}

fn decoder(c: &mut Criterion) {
    let device = Device::Cpu;
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../static/model/");
    let read = |f: &str| std::fs::read(format!("{root}{f}")).expect("static/model files");
    let manifest = Manifest::from_json(&String::from_utf8(read("config.json")).unwrap()).unwrap();
    let model = Model::load(manifest.clone(), &read("tokenizer.json"), &read("model.safetensors")).unwrap();
    let tensors: Vec<(String, Tensor)> = candle_core::safetensors::load(format!("{root}model.safetensors"), &device).unwrap().into_iter().collect();
    let gpt = Gpt::from_tensors(&manifest.config, tensors, &device).unwrap();
    let text = "Uma noite destas, vindo da cidade para o Engenho Novo, encontrei no trem da Central um rapaz aqui do bairro, que eu conheço de vista e de chapéu.";
    let ids = model.bpe.encode(text);
    let prompt = &ids[..64.min(ids.len())];
    let n = prompt.len();
    // Same weights, same answer: the comparison is of speed only.
    let mut cache = KvCache::new(&Cpu, &model.weights.config).unwrap();
    let ours = forward(&Cpu, &model.weights, prompt, &mut cache).unwrap().logits.row(0);
    let theirs = gpt.forward_cached(prompt, &mut Vec::new()).unwrap().to_vec1::<f32>().unwrap();
    let diff = ours.iter().zip(&theirs).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
    assert!(diff < 1e-3, "atencao and candle disagree by {diff}");

    let mut group = c.benchmark_group("decoder prompt");
    group.throughput(Throughput::Elements(n as u64));
    // The cache is allocated once and emptied per run (the site keeps one per session).
    group.bench_function("atencao", |bench| {
        bench.iter(|| {
            cache.clear();
            forward(&Cpu, &model.weights, black_box(prompt), &mut cache).unwrap()
        })
    });
    group.bench_function("candle", |bench| bench.iter(|| gpt.forward_cached(black_box(prompt), &mut Vec::new()).unwrap()));
    group.finish();

    // One new token after n − 1 cached positions.
    let mut group = c.benchmark_group("decoder next token");
    group.throughput(Throughput::Elements(1));
    cache.clear();
    forward(&Cpu, &model.weights, &prompt[..n - 1], &mut cache).unwrap();
    let mut theirs = Vec::new();
    gpt.forward_cached(&prompt[..n - 1], &mut theirs).unwrap();
    group.bench_function("atencao", |bench| {
        bench.iter(|| {
            cache.truncate(n - 1);
            forward(&Cpu, &model.weights, black_box(&prompt[n - 1..]), &mut cache).unwrap()
        })
    });
    group.bench_function("candle", |bench| {
        bench.iter(|| {
            let mut cache = theirs.clone();
            gpt.forward_cached(black_box(&prompt[n - 1..]), &mut cache).unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, kernels, decoder);
criterion_main!(benches);
