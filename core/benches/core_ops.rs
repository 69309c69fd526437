//! Criterion benchmarks of the CPU core: matmul (ours = ndarray's `dot`) and attention.
//! Run with `cargo bench --bench core_ops`; results are summarised in BENCHMARKS.md.

use atencao_core::ops::{self, SoftmaxOptions};
use atencao_core::rng::Rng;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn matmul(c: &mut Criterion) {
    let mut group = c.benchmark_group("matmul");
    let mut rng = Rng::new(7);
    for n in [16usize, 64, 256, 512] {
        let (a, b) = (rng.matrix(n, n, -1.0, 1.0), rng.matrix(n, n, -1.0, 1.0));
        group.throughput(Throughput::Elements((2 * n * n * n) as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |bench, _| bench.iter(|| ops::matmul(&a, &b).unwrap()));
    }
    group.finish();
}

fn attention(c: &mut Criterion) {
    let mut group = c.benchmark_group("attention");
    let mut rng = Rng::new(11);
    let d = 64;
    for t in [16usize, 64, 256] {
        let (q, k, v) = (rng.matrix(t, d, -1.0, 1.0), rng.matrix(t, d, -1.0, 1.0), rng.matrix(t, d, -1.0, 1.0));
        group.bench_with_input(BenchmarkId::new("4 heads, causal", t), &t, |bench, _| {
            bench.iter(|| ops::attention(&q, &k, &v, 4, true, 0).unwrap())
        });
    }
    group.finish();
}

fn softmax(c: &mut Criterion) {
    let mut rng = Rng::new(13);
    let s = rng.matrix(256, 256, -4.0, 4.0);
    c.bench_function("softmax 256×256 causal", |bench| bench.iter(|| ops::softmax_rows(&s, SoftmaxOptions::causal()).unwrap()));
}

criterion_group!(benches, matmul, attention, softmax);
criterion_main!(benches);
