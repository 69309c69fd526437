//! `TrainRun`: one run from fresh weights, stepped by whoever drives it (the widget, in time
//! slices; a test, in a loop). It owns everything that makes the run reproducible: the
//! corpus, the engine, the generator of the batches (apart from the samples', so sampling
//! or evaluating more or less often never changes the batches), the loss history and the
//! samples. Pausing is not stepping: resuming continues the same run, and N steps then M
//! steps are N + M steps (a test checks it).

use crate::decoder::DecoderWeights;
use crate::error::{ComputeError, Result};
use crate::executor::{block_on_ready, BackendKind, Cpu, Executor};
use crate::rng::Rng;
use crate::training::model::to_safetensors;
use crate::training::{bigram_loss, uniform_loss, Batch, CharTokenizer, Trainer, TrainerOn};
use crate::Matrix;

use super::sample::{attention_map, generate};
use super::settings::TrainSettings;
use super::text::PreparedText;
use super::tokens::{token_unit, Tokens};
use crate::decoder::tokenizer::{TokenCodec, Tokenizer};

/// The backend that steps: one step = one batch's loss, gradients and AdamW update.
pub enum Engine<T = Matrix> {
    /// `training::Trainer`, the reference.
    Cpu(Trainer),
    /// Resident on a device (WebGPU): the run there, one submission per step, and its latest
    /// copy on the host, taken at each evaluation or sample. The host copy is what the
    /// evaluations, samples, attention map and downloads read, and what the CPU continues
    /// from when the device is lost (a lost device can no longer be read).
    Device { run: TrainerOn<T>, host: Trainer },
}

/// A host run's copy (weights, moments, steps): `Trainer` holds no device handle to share.
fn copy(t: &Trainer) -> Result<Trainer> {
    let (m, v) = t.moments();
    Trainer::from_state(t.weights.clone(), m.clone(), v.clone(), t.steps_taken(), t.options)
}

impl<T> Engine<T> {
    /// Where it computes (a device engine is the site's WebGPU).
    pub fn kind(&self) -> BackendKind {
        match self {
            Engine::Cpu(_) => BackendKind::Cpu,
            Engine::Device { .. } => BackendKind::WebGpu,
        }
    }

    /// The name the widget shows ("CPU", "WebGPU").
    pub fn label(&self) -> &'static str {
        self.kind().label()
    }

    /// The weights on the host: the current ones on the CPU, the last copy from a device.
    pub fn weights(&self) -> &DecoderWeights {
        match self {
            Engine::Cpu(t) => &t.weights,
            Engine::Device { host, .. } => &host.weights,
        }
    }

    pub fn steps_taken(&self) -> usize {
        match self {
            Engine::Cpu(t) => t.steps_taken(),
            Engine::Device { run, .. } => run.steps_taken(),
        }
    }

    pub fn next_learning_rate(&self) -> f64 {
        match self {
            Engine::Cpu(t) => t.next_learning_rate(),
            Engine::Device { run, .. } => run.next_learning_rate(),
        }
    }

    /// Whether the host copy is behind the device (steps since the last copy).
    pub fn steps_not_copied(&self) -> usize {
        match self {
            Engine::Cpu(_) => 0,
            Engine::Device { run, host } => run.steps_taken() - host.steps_taken(),
        }
    }
}

/// `TrainRun::config_json`'s file.
#[derive(serde::Serialize)]
struct TrainedFile<'a> {
    config: &'a crate::decoder::DecoderConfig,
    tokenizer: TokenizerFile,
    training: TrainingFile,
}

#[derive(serde::Serialize)]
struct TokenizerFile {
    kind: &'static str,
    /// The characters, token i first (empty for the BPE, whose file is the shipped one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    chars: Vec<String>,
}

#[derive(serde::Serialize)]
struct TrainingFile {
    steps: usize,
    batch: usize,
    learning_rate: f64,
    seed: u64,
    train_tokens: usize,
    validation_tokens: usize,
    validation_loss: f64,
    bigram_loss: f64,
    uniform_loss: f64,
}

/// One point of the loss curve, taken every `eval_every` steps (and at step 0).
#[derive(Clone, Debug, PartialEq)]
pub struct EvalPoint {
    /// Steps taken when it was measured.
    pub step: usize,
    /// Mean training loss of the steps since the previous point (None at step 0).
    pub train: Option<f64>,
    /// Mean loss per character on the validation tail.
    pub validation: f64,
}

/// Text the model generated at a step.
#[derive(Clone, Debug, PartialEq)]
pub struct SamplePoint {
    pub step: usize,
    pub text: String,
}

/// What one step produced.
#[derive(Clone, Debug, PartialEq)]
pub struct StepReport {
    pub step: usize,
    pub loss: f32,
    /// Set when this step ended with an evaluation.
    pub eval: Option<EvalPoint>,
    /// Set when this step ended with a sample.
    pub sample: Option<SamplePoint>,
}

pub struct TrainRun<T = Matrix> {
    pub settings: TrainSettings,
    pub tokenizer: Tokenizer,
    /// The text's tokens: the training part and the held-out tail.
    pub tokens: Tokens,
    /// The validation tail as windows of T (at most `max_validation_windows`).
    validation: Vec<Batch>,
    pub engine: Engine<T>,
    /// Draws the training batches, and nothing else.
    batches: Rng,
    /// ln V: the loss of guessing uniformly.
    pub uniform: f64,
    /// The character bigram's loss on the same validation windows (counted on the training part).
    pub bigram: f64,
    pub history: Vec<EvalPoint>,
    pub samples: Vec<SamplePoint>,
    /// Training losses since the last evaluation.
    pending: Vec<f32>,
    /// The first characters of the validation tail: the samples' prompt and the attention probe.
    probe: Vec<u32>,
}

/// Characters of the probe the attention map is drawn on (and of the samples' prompt).
const PROBE_CHARS: usize = 32;
/// Mixed into the seed of the batches' generator, so its draws are not the weights' (both
/// come from `settings.seed`).
const BATCH_STREAM: u64 = 0x0BA7_C4E5;
/// Additive smoothing of the bigram baseline.
const BIGRAM_ALPHA: f64 = 0.1;

impl<T> TrainRun<T> {
    /// A fresh run on `text` (already through `prepare_text`), cut into characters, or by
    /// `bpe` when given: vocabulary, held-out tail, baselines, weights from `settings.seed`,
    /// and the first evaluation and sample (step 0).
    pub fn new(text: &PreparedText, bpe: Option<&crate::bpe::Bpe>, settings: TrainSettings) -> Result<TrainRun<T>> {
        settings.validate()?;
        let tokenizer = match bpe {
            Some(bpe) => Tokenizer::Bpe(bpe.clone()),
            None => Tokenizer::Chars(CharTokenizer::from_text(&text.text)),
        };
        let ids = tokenizer.encode_checked(&text.text)?;
        let tokens = Tokens::split(ids, settings.validation_fraction, settings.context, token_unit(&tokenizer))?;
        let vocab = tokenizer.vocab_size();
        let validation = tokens.validation_batches(settings.context, settings.max_validation_windows);
        let trainer = Trainer::new(&settings.config(vocab), settings.seed, settings.optimizer())?;
        let bigram = bigram_loss(&tokens.train, &validation, vocab, BIGRAM_ALPHA);
        let probe = tokens.validation[..PROBE_CHARS.min(settings.context).min(tokens.validation.len())].to_vec();
        let mut run = TrainRun {
            uniform: uniform_loss(vocab),
            bigram,
            batches: Rng::new(settings.seed ^ BATCH_STREAM),
            settings,
            tokenizer,
            tokens,
            validation,
            engine: Engine::Cpu(trainer),
            history: Vec::new(),
            samples: Vec::new(),
            pending: Vec::new(),
            probe,
        };
        run.evaluate()?;
        run.sample()?;
        Ok(run)
    }

    pub fn vocab_size(&self) -> usize {
        self.tokenizer.vocab_size()
    }

    pub fn parameter_count(&self) -> usize {
        self.engine.weights().config.parameter_count()
    }

    pub fn steps_taken(&self) -> usize {
        self.engine.steps_taken()
    }

    /// The last validation loss.
    pub fn validation_loss(&self) -> f64 {
        self.history.last().map_or(f64::NAN, |p| p.validation)
    }

    /// One training step on the run's engine (`device`: the executor a `Device` engine lives
    /// on); an evaluation and a sample when their turn comes, read from a fresh host copy
    /// when the run is on a device.
    pub async fn step_on<E: Executor<Tensor = T>>(&mut self, device: Option<&E>) -> Result<StepReport> {
        let batch = self.tokens.sample_batch(&mut self.batches, self.settings.batch, self.settings.context)?;
        let loss = match (&mut self.engine, device) {
            (Engine::Cpu(t), _) => t.step(&batch)?,
            (Engine::Device { run, .. }, Some(e)) => run.step_on(e, &batch).await?,
            (Engine::Device { .. }, None) => return Err(ComputeError::Invalid("O treino está na GPU, mas a GPU não foi dada.".into())),
        };
        self.pending.push(loss);
        let step = self.steps_taken();
        let (due_eval, due_sample) = (step % self.settings.eval_every == 0, step % self.settings.sample_every == 0);
        if due_eval || due_sample {
            if let (Engine::Device { run, host }, Some(e)) = (&mut self.engine, device) {
                *host = run.snapshot(e).await?;
            }
        }
        let eval = if due_eval { Some(self.evaluate()?) } else { None };
        let sample = if due_sample { Some(self.sample()?) } else { None };
        Ok(StepReport { step, loss, eval, sample })
    }

    /// Moves the run onto `e` (weights and AdamW's moments uploaded once); a no-op when it is
    /// on a device already.
    pub fn to_device<E: Executor<Tensor = T>>(&mut self, e: &E) -> Result<()> {
        if let Engine::Cpu(t) = &self.engine {
            self.engine = Engine::Device { run: TrainerOn::upload(e, t)?, host: copy(t)? };
        }
        Ok(())
    }

    /// Brings the run back to the CPU from its host copy: when the device is readable
    /// (`device`), a fresh copy first, so no step is lost; when it is lost, the last copy, and
    /// the steps since it are lost (returned). The batches' generator is not rewound: the
    /// steps after the copy are redone on new batches.
    pub async fn to_cpu<E: Executor<Tensor = T>>(&mut self, device: Option<&E>) -> Result<usize> {
        let Engine::Device { run, host } = &self.engine else { return Ok(0) };
        let (fresh, lost) = match device {
            Some(e) => (run.snapshot(e).await?, 0),
            None => (copy(host)?, run.steps_taken() - host.steps_taken()),
        };
        self.engine = Engine::Cpu(fresh);
        self.pending.clear();
        Ok(lost)
    }

    /// Scores the validation windows now, and closes the current stretch of training losses.
    pub fn evaluate(&mut self) -> Result<EvalPoint> {
        let validation = self.engine_evaluate()?;
        let train = (!self.pending.is_empty()).then(|| self.pending.iter().map(|&l| l as f64).sum::<f64>() / self.pending.len() as f64);
        self.pending.clear();
        let point = EvalPoint { step: self.steps_taken(), train, validation };
        // A repeated evaluation at the same step (a pause, then "avaliar") replaces the point.
        if self.history.last().is_some_and(|p| p.step == point.step) {
            self.history.pop();
        }
        self.history.push(point.clone());
        Ok(point)
    }

    fn engine_evaluate(&self) -> Result<f64> {
        crate::training::evaluate(self.engine.weights(), &self.validation)
    }

    /// Generates `sample_chars` characters after the probe, seeded by the run's seed and the
    /// step (the same run gives the same samples).
    pub fn sample(&mut self) -> Result<SamplePoint> {
        let step = self.steps_taken();
        let prompt = &self.probe[..self.probe.len().min(8)];
        let seed = self.settings.seed.wrapping_mul(0x9E37_79B9).wrapping_add(step as u64);
        let ids = generate(self.engine.weights(), prompt, self.settings.sample_chars, seed)?;
        let point = SamplePoint { step, text: self.tokenizer.decode_ids(&[prompt, &ids].concat()) };
        if self.samples.last().is_some_and(|s| s.step == step) {
            self.samples.pop();
        }
        self.samples.push(point.clone());
        Ok(point)
    }

    /// The probe (the start of the validation tail), one label per token.
    pub fn probe_labels(&self) -> Vec<String> {
        self.probe.iter().map(|&id| self.tokenizer.label(id)).collect()
    }

    /// The probe as text.
    pub fn probe_text(&self) -> String {
        self.tokenizer.decode_ids(&self.probe)
    }

    /// Attention of `head` in block `layer` on the probe, with the current weights: (T, T).
    pub fn attention(&self, layer: usize, head: usize) -> Result<Matrix> {
        attention_map(self.engine.weights(), &self.probe, layer, head)
    }

    /// The weights as a safetensors file (the shipped model's names and shapes, F32).
    pub fn safetensors(&self) -> Vec<u8> {
        to_safetensors(self.engine.weights())
    }

    /// What the weights need beside them: the hyperparameters (the shipped `config.json`'s
    /// "config" object), the vocabulary (character i is token i) and what the run measured.
    pub fn config_json(&self) -> String {
        let tokenizer = match &self.tokenizer {
            Tokenizer::Chars(t) => TokenizerFile { kind: "chars", chars: (0..t.vocab_size() as u32).map(|i| t.decode(&[i])).collect() },
            Tokenizer::Bpe(_) => TokenizerFile { kind: "bpe (static/model/tokenizer.json)", chars: Vec::new() },
        };
        let file = TrainedFile {
            config: &self.engine.weights().config,
            tokenizer,
            training: TrainingFile {
                steps: self.steps_taken(),
                batch: self.settings.batch,
                learning_rate: self.settings.learning_rate,
                seed: self.settings.seed,
                train_tokens: self.tokens.train.len(),
                validation_tokens: self.tokens.validation.len(),
                validation_loss: self.validation_loss(),
                bigram_loss: self.bigram,
                uniform_loss: self.uniform,
            },
        };
        serde_json::to_string_pretty(&file).unwrap_or_default() + "\n"
    }
}

impl TrainRun<Matrix> {
    /// One step on the CPU (see `step_on`): what native tests and the CPU engine run.
    pub fn step(&mut self) -> Result<StepReport> {
        block_on_ready(self.step_on(Some(&Cpu)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run on host matrices.
    type Run = TrainRun<Matrix>;
    use crate::train_run::text::prepare_text;

    /// A small text with structure a character model can learn quickly beyond a bigram:
    /// repeated words in varying order.
    fn toy_text() -> String {
        let words = ["a casa", "o gato", "a missa", "do galo", "era noite", "de natal", "o livro", "a sala"];
        let mut rng = Rng::new(5);
        (0..700).map(|_| words[rng.below(words.len() as u64) as usize]).collect::<Vec<_>>().join(" ")
    }

    fn small() -> TrainSettings {
        TrainSettings { d_model: 32, context: 32, batch: 8, eval_every: 20, sample_every: 50, sample_chars: 40, ..TrainSettings::tiny() }
    }

    #[test]
    fn a_run_beats_the_bigram_on_held_out_text() {
        let text = prepare_text(&toy_text(), false, 10).unwrap();
        let mut run = Run::new(&text, None, small()).unwrap();
        let start = run.validation_loss();
        assert!((start - run.uniform).abs() < 0.3, "fresh weights guess about uniformly: {start} vs ln V = {}", run.uniform);
        assert!(run.bigram < run.uniform);
        let mut beaten_at = None;
        for _ in 0..400 {
            let report = run.step().unwrap();
            if let Some(eval) = report.eval {
                if eval.validation < run.bigram {
                    beaten_at = Some(eval.step);
                    break;
                }
            }
        }
        let at = beaten_at.unwrap_or_else(|| panic!("validation {} never went below the bigram {}", run.validation_loss(), run.bigram));
        eprintln!("toy text: bigram {:.4}, uniform {:.4}, beaten at step {at}", run.bigram, run.uniform);
        assert!(!run.samples.is_empty() && run.history.len() >= 2);
    }

    #[test]
    fn pause_and_resume_is_the_same_run() {
        let text = prepare_text(&toy_text(), false, 10).unwrap();
        let mut straight = Run::new(&text, None, small()).unwrap();
        let mut paused = Run::new(&text, None, small()).unwrap();
        for _ in 0..30 {
            straight.step().unwrap();
        }
        for _ in 0..12 {
            paused.step().unwrap();
        }
        // What a pause may do in the meantime: redraw the attention, evaluate, sample.
        paused.attention(1, 2).unwrap();
        for _ in 12..30 {
            paused.step().unwrap();
        }
        assert_eq!(straight.steps_taken(), paused.steps_taken());
        assert_eq!(straight.safetensors(), paused.safetensors(), "the same weights, bit for bit");
        assert_eq!(straight.history, paused.history);
        assert_eq!(straight.samples, paused.samples);
    }

    /// The device engine's bookkeeping, run natively with the CPU executor as the "device"
    /// (the WGSL kernels' agreement with it is `tests/gpu_parity.rs`'s).
    #[test]
    fn a_run_on_a_device_is_the_same_run_and_a_lost_device_continues_from_the_last_copy() {
        let text = prepare_text(&toy_text(), false, 10).unwrap();
        let settings = TrainSettings { eval_every: 10, sample_every: 20, ..small() };
        let mut on_cpu = Run::new(&text, None, settings.clone()).unwrap();
        let mut on_device = Run::new(&text, None, settings).unwrap();
        on_device.to_device(&Cpu).unwrap();
        assert_eq!(on_device.engine.label(), "WebGPU");
        for _ in 0..25 {
            let (a, b) = (on_cpu.step().unwrap(), on_device.step().unwrap());
            assert_eq!(a, b);
        }
        assert_eq!(on_device.history, on_cpu.history);
        assert_eq!(on_device.samples, on_cpu.samples);
        // Step 25: the last copy was taken at step 20 (a sample and an evaluation).
        assert_eq!(on_device.engine.steps_not_copied(), 5);
        let lost = block_on_ready(on_device.to_cpu::<Cpu>(None)).unwrap();
        assert_eq!((lost, on_device.steps_taken(), on_device.engine.label()), (5, 20, "CPU"));
        let report = on_device.step().unwrap();
        assert_eq!(report.step, 21);
        // A readable device gives the current weights back: nothing is lost.
        let mut again = Run::new(&text, None, small()).unwrap();
        again.to_device(&Cpu).unwrap();
        for _ in 0..7 {
            again.step().unwrap();
        }
        assert_eq!(block_on_ready(again.to_cpu(Some(&Cpu))).unwrap(), 0);
        assert_eq!(again.steps_taken(), 7);
    }

    #[test]
    fn bad_inputs_are_errors() {
        let short = prepare_text("abc abc abc", false, 1).unwrap();
        assert!(Run::new(&short, None, small()).is_err());
        let text = prepare_text(&toy_text(), false, 10).unwrap();
        assert!(Run::new(&text, None, TrainSettings { n_heads: 5, ..small() }).is_err());
        let run = Run::new(&text, None, small()).unwrap();
        assert!(run.attention(9, 0).is_err());
        let config: serde_json::Value = serde_json::from_str(&run.config_json()).unwrap();
        assert_eq!(config["config"]["vocab_size"], run.vocab_size());
        assert_eq!(config["tokenizer"]["chars"].as_array().unwrap().len(), run.vocab_size());
        let bytes = run.safetensors();
        // The shipped file's names and shapes. (`DecoderWeights::from_safetensors` checks the
        // config with the BPE's lower bound on the vocabulary, so it is not used here.)
        let tensors = crate::decoder::safetensors::parse(&bytes).unwrap();
        for (name, shape) in run.engine.weights().config.tensor_shapes() {
            assert_eq!(tensors[&name].shape, shape, "{name}");
        }
    }
}

#[cfg(test)]
mod preset {
    use super::*;

    type Run = TrainRun<Matrix>;
    use crate::train_run::text::prepare_text;

    /// The widget's preset (the story the page ships) with the widget's default settings:
    /// the validation loss goes below the bigram within the bound the e2e suite allows.
    #[test]
    fn the_preset_beats_the_bigram_with_the_default_settings() {
        let raw = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../static/train/missa-do-galo.txt"));
        let settings = TrainSettings::tiny();
        let text = prepare_text(raw, true, settings.min_chars()).unwrap();
        let mut run = Run::new(&text, None, settings).unwrap();
        let mut beaten_at = None;
        let started = std::time::Instant::now();
        while run.steps_taken() < 600 {
            let report = run.step().unwrap();
            if let Some(eval) = report.eval {
                eprintln!("step {:4}: train {:?} validation {:.4}", eval.step, eval.train.map(|t| (t * 1e4).round() / 1e4), eval.validation);
                if beaten_at.is_none() && eval.validation < run.bigram {
                    beaten_at = Some(eval.step);
                }
            }
        }
        let per_step = started.elapsed().as_secs_f64() * 1e3 / run.steps_taken() as f64;
        eprintln!(
            "preset: V = {}, {} parameters, uniform {:.4}, bigram {:.4}, beaten at {beaten_at:?}, {per_step:.1} ms/step (with evaluations and samples)",
            run.vocab_size(),
            run.parameter_count(),
            run.uniform,
            run.bigram
        );
        for s in &run.samples {
            eprintln!("{:4}: {}", s.step, s.text.replace('\n', "↵"));
        }
        assert!(beaten_at.is_some_and(|s| s <= 600), "validation {} vs bigram {}", run.validation_loss(), run.bigram);
    }

    /// The same story cut by the shipped BPE: V = 2 048, fewer tokens than characters, and a
    /// step that trains.
    #[test]
    fn the_preset_with_the_shipped_bpe() {
        let raw = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../static/train/missa-do-galo.txt"));
        let json = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../static/model/tokenizer.json"));
        let bpe = crate::bpe::Bpe::from_json(json).unwrap();
        let settings = TrainSettings { eval_every: 5, sample_every: 5, ..TrainSettings::tiny() };
        let text = prepare_text(raw, true, settings.min_chars()).unwrap();
        let mut run = Run::new(&text, Some(&bpe), settings).unwrap();
        assert_eq!(run.vocab_size(), 2048);
        assert_eq!(token_unit(&run.tokenizer), "token");
        let tokens = run.tokens.train.len() + run.tokens.validation.len();
        assert!(tokens * 2 < text.text.chars().count(), "{tokens} tokens");
        assert!(run.bigram < run.uniform);
        let first = run.validation_loss();
        for _ in 0..10 {
            run.step().unwrap();
        }
        assert!(run.validation_loss() < first, "{} → {}", first, run.validation_loss());
        assert!(!run.samples.last().unwrap().text.is_empty() && run.probe_labels().len() == 32);
    }
}
