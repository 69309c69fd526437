//! One training step of the browser's model (`char_config`, batch 16 × 64 characters) timed on
//! the GPU (`TrainerOn<GpuTensor>`: one submission per step, the loss read back) and on the
//! CPU (`Trainer`), natively. Prints the median of 10 steps after 2 warm-up steps on each.
//! On a machine without a GPU, wgpu's adapter is llvmpipe (software): its time is a CPU's.
//!
//!   cargo run --profile train --example training_step
//!
//! ATENCAO_PROFILE=1 also prints one step's device time per op kind (timestamp queries).

use std::time::Instant;

use atencao::core::rng::Rng;
use atencao::core::training::{char_config, AdamWOptions, Corpus, Trainer, TrainerOn};
use atencao::gpu::GpuContext;

const TEXT: &str = concat!(
    include_str!("../content/04-transformer-autoatencao/01-transformer-intuicao.md"),
    include_str!("../content/04-transformer-autoatencao/02-contexto-e-relacoes.md"),
    include_str!("../content/04-transformer-autoatencao/03-autoatencao-basica.md"),
);

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

fn main() {
    let corpus = Corpus::new(TEXT, 0.1).expect("corpus");
    let config = char_config(corpus.tokenizer.vocab_size());
    let options = AdamWOptions { learning_rate: 1e-3, warmup: 0, steps: usize::MAX, ..Default::default() };
    let mut rng = Rng::new(1);
    let batches: Vec<_> = (0..12).map(|_| corpus.sample_batch(&mut rng, 16, config.context).expect("batch")).collect();

    let mut cpu = Trainer::new(&config, 42, options).expect("trainer");
    let gpu = match pollster::block_on(GpuContext::acquire()) {
        Ok(gpu) => Some(gpu),
        Err(why) => {
            println!("sem GPU: {why}");
            None
        }
    };
    if let Some(gpu) = &gpu {
        let mut on_gpu = TrainerOn::upload(gpu, &cpu).expect("upload");
        let mut times = Vec::new();
        for (i, batch) in batches.iter().enumerate() {
            let start = Instant::now();
            pollster::block_on(on_gpu.step_on(gpu, batch)).expect("GPU step");
            if i >= 2 {
                times.push(start.elapsed().as_secs_f64() * 1e3);
            }
        }
        println!("GPU ({}): {:.1} ms per step (median of {})", gpu.adapter_name(), median(times.clone()), times.len());
        if std::env::var("ATENCAO_PROFILE").as_deref() == Ok("1") {
            profile(gpu, &mut on_gpu, &batches[0]);
        }
    }
    let mut times = Vec::new();
    for (i, batch) in batches.iter().enumerate() {
        let start = Instant::now();
        cpu.step(batch).expect("CPU step");
        if i >= 2 {
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    println!("CPU: {:.1} ms per step (median of {})", median(times.clone()), times.len());
}

/// One step traced with per-op device times, summed by op kind, largest first.
fn profile(gpu: &GpuContext, run: &mut TrainerOn<atencao::gpu::GpuTensor>, batch: &atencao::core::training::Batch) {
    gpu.set_op_timing(true);
    let start = Instant::now();
    let clock = move || start.elapsed().as_secs_f64() * 1e3;
    let traced = atencao::core::trace::Traced::new(gpu, &clock);
    pollster::block_on(run.step_on(&traced, batch)).expect("GPU step");
    let trace = traced.finish();
    let mut by_kind: Vec<(&str, f64, usize)> = Vec::new();
    for op in &trace.ops {
        match by_kind.iter_mut().find(|(name, _, _)| *name == op.op.name()) {
            Some(entry) => {
                entry.1 += op.ms;
                entry.2 += 1;
            }
            None => by_kind.push((op.op.name(), op.ms, 1)),
        }
    }
    by_kind.sort_by(|a, b| b.1.total_cmp(&a.1));
    println!("one step traced: {:.1} ms wall, {} ops", trace.total_ms(), trace.ops.len());
    for (name, ms, count) in by_kind {
        println!("  {name:<22} {ms:8.1} ms  ({count}×)");
    }
    gpu.set_op_timing(false);
}
