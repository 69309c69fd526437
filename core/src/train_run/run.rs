//! `TrainRun`: one run from fresh weights, stepped by whoever drives it (the widget, in time
//! slices: `steps_for`; a test, in a loop). It owns everything that makes the run
//! reproducible: the corpus, the trainer on its executor (a `Runtime`'s CPU or device), its
//! last host copy, the generator of the batches (apart from the samples', so sampling
//! or evaluating more or less often never changes the batches), the loss history and the
//! samples. Pausing is not stepping: resuming continues the same run, and N steps then M
//! steps are N + M steps (a test checks it).

use crate::decoder::DecoderWeights;
use crate::error::Result;
use crate::executor::{block_on_ready, BackendKind, Cpu, Executor};
use crate::rng::Rng;
use crate::runtime::{Fallback, Placed, Runtime};
use crate::trace::Clock;
use crate::training::model::to_safetensors;
use crate::training::{bigram_loss, uniform_loss, Batch, CharTokenizer, Trainer, TrainerOn};
use crate::Matrix;

use super::sample::{attention_map, generate};
use super::settings::TrainSettings;
use super::text::PreparedText;
use super::tokens::{token_unit, Tokens};
use crate::decoder::tokenizer::{TokenCodec, Tokenizer};

/// The run as the host last saw it: what the evaluations, samples, attention map and
/// downloads read, and what the CPU continues from after a device failure. With the batches'
/// generator and the losses not yet evaluated as they were then, the steps after it are redone
/// on the same batches: the run is the one a CPU-only run makes.
struct HostCopy {
    trainer: Trainer,
    batches: Rng,
    pending: Vec<f32>,
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
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EvalPoint {
    /// Steps taken when it was measured.
    pub step: usize,
    /// Mean training loss of the steps since the previous point (None at step 0).
    #[serde(with = "crate::exact_float::option")]
    pub train: Option<f64>,
    /// Mean loss per character on the validation tail.
    #[serde(with = "crate::exact_float")]
    pub validation: f64,
}

/// Text the model generated at a step.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
    /// The run where it computes (host matrices, or a `Runtime`'s tensors on either side).
    trainer: TrainerOn<T>,
    /// Where `trainer` computes.
    on: BackendKind,
    host: HostCopy,
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
    /// `bpe` when given, computing on `e`: vocabulary, held-out tail, baselines, weights from
    /// `settings.seed`, and the first evaluation and sample (step 0).
    pub fn new<E: Executor<Tensor = T>>(e: &E, text: &PreparedText, bpe: Option<&crate::bpe::Bpe>, settings: TrainSettings) -> Result<TrainRun<T>> {
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
        let batches = Rng::new(settings.seed ^ BATCH_STREAM);
        let mut run = TrainRun {
            uniform: uniform_loss(vocab),
            bigram,
            trainer: TrainerOn::upload(e, &trainer)?,
            on: e.kind(),
            host: HostCopy { trainer, batches: batches.clone(), pending: Vec::new() },
            batches,
            settings,
            tokenizer,
            tokens,
            validation,
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
        self.weights().config.parameter_count()
    }

    pub fn steps_taken(&self) -> usize {
        self.trainer.steps_taken()
    }

    /// Where the run computes.
    pub fn on(&self) -> BackendKind {
        self.on
    }

    /// The weights as the host last saw them: the last copy (an evaluation's, a sample's, or
    /// one taken by `refresh_host`).
    pub fn weights(&self) -> &DecoderWeights {
        &self.host.trainer.weights
    }

    /// The step of the host copy (`weights`).
    pub fn host_step(&self) -> usize {
        self.host.trainer.steps_taken()
    }

    /// One training step on `e`, the executor the run computes on; an evaluation and a sample
    /// when their turn comes, and the host copy then (a copy every step would cost a few
    /// per cent of a CPU step, and a readback of everything on a GPU).
    pub async fn step_on<E: Executor<Tensor = T>>(&mut self, e: &E) -> Result<StepReport> {
        let batch = self.tokens.sample_batch(&mut self.batches, self.settings.batch, self.settings.context)?;
        let loss = self.trainer.step_on(e, &batch).await?;
        self.pending.push(loss);
        let step = self.steps_taken();
        let (due_eval, due_sample) = (step % self.settings.eval_every == 0, step % self.settings.sample_every == 0);
        let copied = due_eval || due_sample;
        if copied {
            self.refresh_host(e).await?;
        }
        let eval = if due_eval { Some(self.evaluate()?) } else { None };
        let sample = if due_sample { Some(self.sample()?) } else { None };
        if copied {
            // The copy is of the run after its evaluation (which closes the stretch of losses).
            self.host.pending.clone_from(&self.pending);
        }
        Ok(StepReport { step, loss, eval, sample })
    }

    /// Takes the host copy now (before a download, or handing the weights over), so `weights`
    /// are the current ones. On a GPU, one readback of every weight and moment.
    pub async fn refresh_host<E: Executor<Tensor = T>>(&mut self, e: &E) -> Result<()> {
        self.host = HostCopy { trainer: self.trainer.snapshot(e).await?, batches: self.batches.clone(), pending: self.pending.clone() };
        Ok(())
    }

    /// Goes on from the host copy on `e` (after a device failure: the CPU): the steps since
    /// the copy are undone, to be redone on the same batches. Returns how many.
    fn restore<E: Executor<Tensor = T>>(&mut self, e: &E) -> Result<usize> {
        let undone = self.steps_taken() - self.host_step();
        self.trainer = TrainerOn::upload(e, &self.host.trainer)?;
        self.batches = self.host.batches.clone();
        self.pending = self.host.pending.clone();
        self.on = e.kind();
        Ok(undone)
    }
}

impl<G> TrainRun<Placed<G>> {
    /// Puts the run on `rt` if it is on the other side. From the CPU, a fresh copy goes up;
    /// from a device, the run goes on from its last host copy (a device may be gone by then,
    /// and the steps since the copy are redone on the same batches: the same run).
    pub async fn place<D: Executor<Tensor = G>>(&mut self, rt: &Runtime<'_, D>) -> Result<()> {
        if rt.kind() == self.on {
            return Ok(());
        }
        if self.on == BackendKind::Cpu {
            self.refresh_host(&Runtime::<D>::Cpu).await?;
        }
        self.restore(rt).map(|_| ())
    }

    /// Steps on `rt` until `budget_ms` of `clock` has passed (at least one step), each one
    /// reported to `on_step` with its duration. A device failure sends the run to the CPU from
    /// its last host copy (the steps since it redone on the same batches), where it goes on
    /// for the rest of the budget; the `Fallback` says so. A run that fell back stays on the
    /// CPU until it is placed again.
    pub async fn steps_for<D: Executor<Tensor = G>>(
        &mut self,
        rt: &Runtime<'_, D>,
        budget_ms: f64,
        clock: Clock<'_>,
        on_step: impl FnMut(&StepReport, f64),
    ) -> Result<Option<Fallback>> {
        let start = clock();
        let first = self.steps_taken();
        self.steps_while(rt, clock, on_step, |run| run.steps_taken() == first || clock() - start < budget_ms).await
    }

    /// Steps on `rt` until the run has taken `steps` (none if it already has), as `steps_for`
    /// does: the race's second run catches up with the first after each of its slices, so both
    /// are measured at the same steps.
    pub async fn steps_to<D: Executor<Tensor = G>>(
        &mut self,
        rt: &Runtime<'_, D>,
        steps: usize,
        clock: Clock<'_>,
        on_step: impl FnMut(&StepReport, f64),
    ) -> Result<Option<Fallback>> {
        self.steps_while(rt, clock, on_step, |run| run.steps_taken() < steps).await
    }

    /// The stepping both of the above share: a step while `more` says so, the device's failure
    /// recovered on the CPU.
    async fn steps_while<D: Executor<Tensor = G>>(
        &mut self,
        rt: &Runtime<'_, D>,
        clock: Clock<'_>,
        mut on_step: impl FnMut(&StepReport, f64),
        more: impl Fn(&Self) -> bool,
    ) -> Result<Option<Fallback>> {
        let cpu = Runtime::<D>::Cpu;
        let mut rt = if self.on == BackendKind::Cpu { &cpu } else { rt };
        let mut fallback = None;
        // After a fallback the step that failed is taken again on the CPU, whatever `more` says.
        let mut retry = false;
        while retry || more(self) {
            retry = false;
            let before = clock();
            match self.step_on(rt).await {
                Ok(report) => on_step(&report, clock() - before),
                Err(error) if error.is_gpu_failure() && rt.kind() != BackendKind::Cpu => {
                    let at = self.steps_taken();
                    self.restore(&cpu)?;
                    fallback = Some(Fallback { error, at, resumed_from: self.steps_taken() });
                    rt = &cpu;
                    retry = true;
                }
                Err(error) => return Err(error),
            }
        }
        Ok(fallback)
    }
}

impl<T> TrainRun<T> {
    /// The last validation loss.
    pub fn validation_loss(&self) -> f64 {
        self.history.last().map_or(f64::NAN, |p| p.validation)
    }

    /// Scores the validation windows now, and closes the current stretch of training losses.
    pub fn evaluate(&mut self) -> Result<EvalPoint> {
        let validation = crate::training::evaluate(self.weights(), &self.validation)?;
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


    /// Generates `sample_chars` characters after the probe, seeded by the run's seed and the
    /// step (the same run gives the same samples).
    pub fn sample(&mut self) -> Result<SamplePoint> {
        let step = self.steps_taken();
        let prompt = &self.probe[..self.probe.len().min(8)];
        let seed = self.settings.seed.wrapping_mul(0x9E37_79B9).wrapping_add(step as u64);
        let ids = generate(self.weights(), prompt, self.settings.sample_chars, seed)?;
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
        attention_map(self.weights(), &self.probe, layer, head)
    }

    /// The weights as a safetensors file (the shipped model's names and shapes, F32).
    pub fn safetensors(&self) -> Vec<u8> {
        to_safetensors(self.weights())
    }

    /// What the weights need beside them: the hyperparameters (the shipped `config.json`'s
    /// "config" object), the vocabulary (character i is token i) and what the run measured.
    pub fn config_json(&self) -> String {
        let tokenizer = match &self.tokenizer {
            Tokenizer::Chars(t) => TokenizerFile { kind: "chars", chars: (0..t.vocab_size() as u32).map(|i| t.decode(&[i])).collect() },
            Tokenizer::Bpe(_) => TokenizerFile { kind: "bpe (static/model/tokenizer.json)", chars: Vec::new() },
        };
        let file = TrainedFile {
            config: &self.weights().config,
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
    /// One step on the CPU (see `step_on`), the host copy kept current: what native tests run.
    pub fn step(&mut self) -> Result<StepReport> {
        let report = block_on_ready(self.step_on(&Cpu))?;
        block_on_ready(self.refresh_host(&Cpu))?;
        Ok(report)
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
        let mut run = Run::new(&Cpu, &text, None, small()).unwrap();
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

    /// The moderna trains through the same run: its validation loss falls well below the
    /// uniform guess, and below the character bigram, on the toy Portuguese text; an original run
    /// with the same settings draws the very same batches (the race is on the same data).
    #[cfg(feature = "moderna")]
    #[test]
    fn a_moderna_run_learns_on_the_same_batches() {
        use crate::decoder::config::Architecture;
        let text = prepare_text(&toy_text(), false, 10).unwrap();
        let moderna_settings = TrainSettings { architecture: Architecture::Moderna, ..small() };
        let mut original = Run::new(&Cpu, &text, None, small()).unwrap();
        let mut moderna = Run::new(&Cpu, &text, None, moderna_settings).unwrap();
        assert_eq!(moderna.weights().config.architecture, Architecture::Moderna);
        let start = moderna.validation_loss();
        assert!((start - moderna.uniform).abs() < 0.3, "fresh weights guess about uniformly: {start} vs ln V = {}", moderna.uniform);
        let mut beaten_at = None;
        for _ in 0..200 {
            original.step().unwrap();
            let report = moderna.step().unwrap();
            // The next batch each would draw is the same one.
            let next = |run: &Run| run.tokens.sample_batch(&mut run.batches.clone(), run.settings.batch, run.settings.context).unwrap();
            assert_eq!(next(&original), next(&moderna));
            if let Some(eval) = report.eval.filter(|e| beaten_at.is_none() && e.validation < moderna.bigram) {
                beaten_at = Some(eval.step);
            }
        }
        println!(
            "moderna on the toy text: {} → {:.4} after 200 steps (original {:.4}); bigram {:.4}, uniform {:.4}; below the bigram at {beaten_at:?}; {} vs {} parameters",
            start,
            moderna.validation_loss(),
            original.validation_loss(),
            moderna.bigram,
            moderna.uniform,
            moderna.parameter_count(),
            original.parameter_count()
        );
        assert!(moderna.validation_loss() < start - 0.5, "{start} → {}", moderna.validation_loss());
        assert!(beaten_at.is_some(), "validation {} never went below the bigram {}", moderna.validation_loss(), moderna.bigram);
        // Its files: the config says moderna, the weights have its names.
        let config: serde_json::Value = serde_json::from_str(&moderna.config_json()).unwrap();
        assert_eq!(config["config"]["architecture"], "moderna");
        let tensors = crate::decoder::safetensors::parse(&moderna.safetensors()).unwrap();
        assert!(tensors.contains_key("rms_f.weight") && tensors.contains_key("blocks.1.ffn.w_gate") && !tensors.contains_key("ln_f.bias"));
        assert_eq!(moderna.attention(1, 3).unwrap().shape(), (32, 32));
    }

    #[test]
    fn pause_and_resume_is_the_same_run() {
        let text = prepare_text(&toy_text(), false, 10).unwrap();
        let mut straight = Run::new(&Cpu, &text, None, small()).unwrap();
        let mut paused = Run::new(&Cpu, &text, None, small()).unwrap();
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

    #[test]
    fn bad_inputs_are_errors() {
        let short = prepare_text("abc abc abc", false, 1).unwrap();
        assert!(Run::new(&Cpu, &short, None, small()).is_err());
        let text = prepare_text(&toy_text(), false, 10).unwrap();
        assert!(Run::new(&Cpu, &text, None, TrainSettings { n_heads: 5, ..small() }).is_err());
        let run = Run::new(&Cpu, &text, None, small()).unwrap();
        assert!(run.attention(9, 0).is_err());
        let config: serde_json::Value = serde_json::from_str(&run.config_json()).unwrap();
        assert_eq!(config["config"]["vocab_size"], run.vocab_size());
        assert_eq!(config["tokenizer"]["chars"].as_array().unwrap().len(), run.vocab_size());
        let bytes = run.safetensors();
        // The shipped file's names and shapes. (`DecoderWeights::from_safetensors` checks the
        // config with the BPE's lower bound on the vocabulary, so it is not used here.)
        let tensors = crate::decoder::safetensors::parse(&bytes).unwrap();
        for (name, shape) in run.weights().config.tensor_shapes() {
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
        let mut run = Run::new(&Cpu, &text, None, settings).unwrap();
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
        let mut run = Run::new(&Cpu, &text, Some(&bpe), settings).unwrap();
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
