//! Training steps per second: the core's CPU training (`atencao_core::training`, the reference
//! of the browser's) against candle's autograd and the training command's AdamW, on the same
//! model (the browser's `char_config`: 2 blocks, C = 64, 4 heads, context 64), the same weights
//! and the same batch of 16 windows × 64 characters. Ratios go to BENCHMARKS.md.
//!
//!   cargo bench --profile train -p atencao-train --bench training_vs_candle -- --warm-up-time 2 --measurement-time 10
//!
//! Both single-threaded (RAYON_NUM_THREADS=1 below), like the site's wasm.

use atencao_core::rng::Rng;
use atencao_core::training::model::tensors;
use atencao_core::training::{char_config, AdamWOptions, Corpus, Trainer};
use atencao_train::model::Gpt;
use atencao_train::optim::AdamW;
use candle_core::{Device, Tensor};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const TEXT: &str = concat!(
    include_str!("../../content/04-transformer-autoatencao/01-transformer-intuicao.md"),
    include_str!("../../content/04-transformer-autoatencao/02-contexto-e-relacoes.md"),
    include_str!("../../content/04-transformer-autoatencao/03-autoatencao-basica.md"),
);

fn training_step(c: &mut Criterion) {
    // Before the first candle op creates rayon's pool: one thread, like the site's wasm.
    std::env::set_var("RAYON_NUM_THREADS", "1");
    let device = Device::Cpu;
    let corpus = Corpus::new(TEXT, 0.1).unwrap();
    let config = char_config(corpus.tokenizer.vocab_size());
    let batch = corpus.sample_batch(&mut Rng::new(1), 16, config.context).unwrap();
    // A constant rate (no warm-up): every timed step does the same work on both sides.
    let options = AdamWOptions { learning_rate: 1e-3, warmup: 0, steps: usize::MAX, ..Default::default() };
    let mut trainer = Trainer::new(&config, 42, options).unwrap();
    let named = config
        .tensor_shapes()
        .into_iter()
        .zip(tensors(&trainer.weights))
        .map(|((name, shape), t)| (name, Tensor::from_vec(t.as_slice().to_vec(), shape, &device).unwrap()))
        .collect();
    let gpt = Gpt::from_tensors(&config, named, &device).unwrap();
    let mut opt = AdamW::new(&gpt, options.beta1, options.beta2, options.eps).unwrap();
    let shape = (batch.sequences, batch.len);
    let x = Tensor::from_vec(batch.inputs.clone(), shape, &device).unwrap();
    let y = Tensor::from_vec(batch.targets.clone(), shape, &device).unwrap();

    let mut group = c.benchmark_group("training step 16x64");
    group.throughput(Throughput::Elements((batch.sequences * batch.len) as u64));
    group.sample_size(20);
    group.bench_function("atencao", |bench| bench.iter(|| trainer.step(&batch).unwrap()));
    group.bench_function("candle", |bench| {
        bench.iter(|| {
            let loss = gpt.loss(&x, &y).unwrap();
            let grads = loss.backward().unwrap();
            opt.step(&gpt, &grads, options.learning_rate, options.weight_decay, options.clip).unwrap();
            loss
        })
    });
    group.finish();
}

criterion_group!(benches, training_step);
criterion_main!(benches);
