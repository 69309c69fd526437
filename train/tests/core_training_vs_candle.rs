//! The core's CPU training (`atencao_core::training`, the reference of the browser's) against
//! candle's autograd on the same model, weights and batches: the training command's model
//! (`atencao_train::model::Gpt`) and optimiser (`atencao_train::optim::AdamW`).
//!
//!   cargo test -p atencao-train --profile train --test core_training_vs_candle -- --nocapture

use atencao_core::decoder::{DecoderConfig, DecoderWeights};
use atencao_core::rng::Rng;
use atencao_core::training::model::{self, loss_and_gradients, tensors};
use atencao_core::training::{char_config, AdamWOptions, Batch, Corpus, Trainer};
use atencao_train::model::Gpt;
use atencao_train::optim::AdamW;
use candle_core::{Device, Tensor};

const TEXT: &str = concat!(
    include_str!("../../content/04-transformer-autoatencao/01-transformer-intuicao.md"),
    include_str!("../../content/04-transformer-autoatencao/02-contexto-e-relacoes.md"),
    include_str!("../../content/04-transformer-autoatencao/03-autoatencao-basica.md"),
);

/// The same weights as a candle model (tensors in the file's shapes, vectors 1-D).
fn candle_model(w: &DecoderWeights, device: &Device) -> Gpt {
    let named = w
        .config
        .tensor_shapes()
        .into_iter()
        .zip(tensors(w))
        .map(|((name, shape), t)| (name, Tensor::from_vec(t.as_slice().to_vec(), shape, device).unwrap()))
        .collect();
    Gpt::from_tensors(&w.config, named, device).unwrap()
}

fn ids(batch: &Batch, device: &Device) -> (Tensor, Tensor) {
    let shape = (batch.sequences, batch.len);
    (Tensor::from_vec(batch.inputs.clone(), shape, device).unwrap(), Tensor::from_vec(batch.targets.clone(), shape, device).unwrap())
}

/// ‖a − b‖ / ‖b‖ over all entries.
fn relative_error(a: &[f32], b: &[f32]) -> f64 {
    let (mut diff, mut norm) = (0.0f64, 0.0f64);
    for (&x, &y) in a.iter().zip(b) {
        diff += ((x - y) as f64).powi(2);
        norm += (y as f64).powi(2);
    }
    (diff / norm.max(1e-30)).sqrt()
}

/// Each gradient of the core against candle's for one batch; returns the worst relative error.
fn compare_gradients(w: &DecoderWeights, batch: &Batch) -> (f64, String) {
    let device = Device::Cpu;
    let (loss, grads) = loss_and_gradients(w, batch).unwrap();
    let gpt = candle_model(w, &device);
    let (x, y) = ids(batch, &device);
    let candle_loss = gpt.loss(&x, &y).unwrap();
    let candle_grads = candle_loss.backward().unwrap();
    let candle_loss = candle_loss.to_scalar::<f32>().unwrap();
    assert!((loss - candle_loss).abs() < 1e-5, "loss: core {loss}, candle {candle_loss}");
    let mut worst = (0.0, String::new());
    for ((name, var), g) in gpt.vars.iter().zip(tensors(&grads)) {
        let want = candle_grads.get(var.as_tensor()).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
        let err = relative_error(g.as_slice(), &want);
        println!("  {name:<22} ‖g‖ = {:.3e}  relative error {err:.2e}", want.iter().map(|v| (v * v) as f64).sum::<f64>().sqrt());
        if err > worst.0 {
            worst = (err, name.clone());
        }
    }
    worst
}

fn corpus_and_config() -> (Corpus, DecoderConfig) {
    let corpus = Corpus::new(TEXT, 0.1).unwrap();
    let config = char_config(corpus.tokenizer.vocab_size());
    (corpus, config)
}

#[test]
fn gradients_equal_candles_autograd() {
    let (corpus, config) = corpus_and_config();
    let batch = corpus.sample_batch(&mut Rng::new(11), 4, config.context).unwrap();
    // The initialisation both sides train from, and weights 30 times larger (attention far
    // from uniform, ReLUs cut, layer norms doing work), with γ around 1.
    let fresh = model::init(&config, 7);
    let mut lively = fresh.clone();
    let mut rng = Rng::new(8);
    for ((name, _), t) in config.tensor_shapes().into_iter().zip(model::tensors_mut(&mut lively)) {
        let around = if name.ends_with(".weight") { 1.0 } else { 0.0 };
        t.as_mut_slice().iter_mut().for_each(|v| *v = around + rng.uniform(-0.3, 0.3));
    }
    for (what, w) in [("init", &fresh), ("lively", &lively)] {
        println!("{what}:");
        let (err, name) = compare_gradients(w, &batch);
        println!("{what}: worst relative error {err:.2e} ({name})");
        assert!(err < 1e-4, "{what}: {name} differs from candle by {err:e}");
    }
}

#[test]
fn fifty_steps_give_candles_losses() {
    let (corpus, config) = corpus_and_config();
    let options = AdamWOptions { learning_rate: 3e-3, warmup: 5, steps: 50, ..Default::default() };
    let mut rng = Rng::new(3);
    let batches: Vec<Batch> = (0..50).map(|_| corpus.sample_batch(&mut rng, 8, config.context).unwrap()).collect();

    let mut trainer = Trainer::new(&config, 42, options).unwrap();
    let device = Device::Cpu;
    let gpt = candle_model(&trainer.weights, &device);
    let mut opt = AdamW::new(&gpt, options.beta1, options.beta2, options.eps).unwrap();
    let mut worst = 0.0f32;
    let (mut first, mut last) = (0.0, 0.0);
    for (step, batch) in batches.iter().enumerate() {
        let core_loss = trainer.step(batch).unwrap();
        let (x, y) = ids(batch, &device);
        let loss = gpt.loss(&x, &y).unwrap();
        let grads = loss.backward().unwrap();
        opt.step(&gpt, &grads, options.learning_rate_at(step), options.weight_decay, options.clip).unwrap();
        let candle_loss = loss.to_scalar::<f32>().unwrap();
        worst = worst.max((core_loss - candle_loss).abs());
        if step % 10 == 0 || step == 49 {
            println!("step {step:>2}: core {core_loss:.5}  candle {candle_loss:.5}");
        }
        if step == 0 {
            first = core_loss;
        }
        last = core_loss;
    }
    let weights_err: Vec<f64> = gpt
        .vars
        .iter()
        .zip(tensors(&trainer.weights))
        .map(|((_, v), t)| relative_error(t.as_slice(), &v.as_tensor().flatten_all().unwrap().to_vec1::<f32>().unwrap()))
        .collect();
    let weights_err = weights_err.into_iter().fold(0.0, f64::max);
    println!("50 steps: loss {first:.4} → {last:.4}; largest |Δloss| {worst:.2e}; weights' largest relative difference {weights_err:.2e}");
    assert!(worst < 1e-3, "losses differ by {worst}");
    assert!(last < first - 0.5, "50 steps should lower the loss: {first} → {last}");
}

/// The same seed gives the same weights on both sides (`model::init` mirrors `Gpt::init`).
#[test]
fn initialisation_equals_the_training_commands() {
    let (_, config) = corpus_and_config();
    let gpt = Gpt::init(&config, 42, &Device::Cpu).unwrap();
    let ours = model::init(&config, 42);
    for ((name, var), t) in gpt.vars.iter().zip(tensors(&ours)) {
        let theirs = var.as_tensor().flatten_all().unwrap().to_vec1::<f32>().unwrap();
        assert_eq!(t.as_slice(), theirs.as_slice(), "{name}");
    }
}
