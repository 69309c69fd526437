//! The sizes and the schedule of a run in the browser. One plain struct; `TrainSettings::tiny()`
//! is the widget's default (the model of `training::char_config`), and `validate` is what
//! the widget's size fields are checked against (a NaN or an out-of-range number gives a
//! message naming the field, never a panic).
//!
//! A run trains either architecture (issue 41): the 2017 block or the moderna, the latter with
//! K/V heads by a fixed rule and an FFN width chosen so both have (nearly) the same number of
//! parameters: a race between them is a race between architectures, not sizes.

use crate::decoder::config::Architecture;
use crate::decoder::DecoderConfig;
use crate::error::{ComputeError, Result};
use crate::training::AdamWOptions;

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TrainSettings {
    /// Decoder blocks (1 … 4).
    pub n_layers: usize,
    /// C, the width of the residual stream (8 … 128, a multiple of `n_heads`); the FFN is 4C.
    pub d_model: usize,
    /// nh, attention heads per block (1 … 8); hs = C / nh.
    pub n_heads: usize,
    /// T, the training window and the model's context, in characters (8 … 128).
    pub context: usize,
    /// B, windows per step (1 … 32): a step sees B·T characters.
    pub batch: usize,
    /// AdamW's peak learning rate (after the warm-up).
    #[serde(with = "crate::exact_float")]
    pub learning_rate: f64,
    /// Warm-up steps (linear up to the peak rate).
    pub warmup: usize,
    /// Steps of the cosine schedule: the rate reaches 10 % of the peak there and stays.
    pub schedule_steps: usize,
    /// Seeds the weights, the batches and the samples.
    pub seed: u64,
    /// Steps between two validation losses (a point of the curve).
    pub eval_every: usize,
    /// Steps between two samples.
    pub sample_every: usize,
    /// Characters per sample.
    pub sample_chars: usize,
    /// The share of the text held out at its end for validation (at least one window).
    #[serde(with = "crate::exact_float")]
    pub validation_fraction: f64,
    /// Validation windows scored at each evaluation (the first ones of the tail): bounds
    /// the cost of an evaluation on a long text.
    pub max_validation_windows: usize,
    /// The block the model stacks ("original" when absent: messages from before issue 41).
    #[serde(default)]
    pub architecture: Architecture,
}

impl TrainSettings {
    /// The widget's default: 2 blocks, C = 64, 4 heads, T = 64 (`training::char_config`),
    /// 8 windows a step, AdamW at 3·10⁻³ with 30 warm-up steps and a cosine over 2 000.
    pub fn tiny() -> TrainSettings {
        TrainSettings {
            n_layers: 2,
            d_model: 64,
            n_heads: 4,
            context: 64,
            batch: 8,
            learning_rate: 3e-3,
            warmup: 30,
            schedule_steps: 2000,
            seed: 23,
            eval_every: 25,
            sample_every: 100,
            sample_chars: 120,
            validation_fraction: 0.1,
            max_validation_windows: 32,
            architecture: Architecture::Original,
        }
    }

    /// The decoder trained on a vocabulary of `vocab` characters: the original with F = 4C,
    /// or the moderna with `kv_heads` K/V heads and F = `moderna_ffn_width`.
    pub fn config(&self, vocab: usize) -> DecoderConfig {
        match self.architecture {
            Architecture::Original => self.config_with(vocab, Architecture::Original, 4 * self.d_model),
            Architecture::Moderna => self.config_with(vocab, Architecture::Moderna, self.moderna_ffn_width()),
        }
    }

    /// These sizes as a config of `architecture` with FFN width `d_ff`.
    fn config_with(&self, vocab: usize, architecture: Architecture, d_ff: usize) -> DecoderConfig {
        let n_kv_heads = (architecture == Architecture::Moderna).then(|| self.kv_heads());
        DecoderConfig {
            vocab_size: vocab,
            d_model: self.d_model,
            n_heads: self.n_heads,
            n_layers: self.n_layers,
            d_ff,
            context: self.context,
            pe_theta: 10_000.0,
            ln_eps: 1e-5,
            architecture,
            n_kv_heads,
        }
    }

    /// The moderna's K/V heads: half the heads when their number is even (GQA in groups of
    /// two; MQA with 2 heads), all of them when it is odd. A rule, not a field: the race's
    /// point is the architecture, and one rule keeps the settings the same for both.
    pub fn kv_heads(&self) -> usize {
        if self.n_heads % 2 == 0 { self.n_heads / 2 } else { self.n_heads }
    }

    /// The moderna's FFN width F: the one whose parameter count is nearest the original's with
    /// the same C, L and nh. The count is linear in F (3·C·L: W_gate, W_up, W_down per block),
    /// so F = (original − moderna without FFN) / 3CL, rounded to the nearest integer, not to a
    /// multiple of 8: at these widths a multiple of 8 would miss by up to 12·C·L parameters
    /// (1/C of the model: 12 % at C = 8), and the kernels take any width. About 3C + 2 with
    /// n_kv = nh/2 (the usual ⅔·4C would leave the moderna smaller: GQA's K, V are smaller
    /// and nothing else grows). The vocabulary adds the same V·C to both: any one gives F.
    pub fn moderna_ffn_width(&self) -> usize {
        let original = self.config_with(2, Architecture::Original, 4 * self.d_model).parameter_count();
        let without_ffn = self.config_with(2, Architecture::Moderna, 0).parameter_count();
        let per_width = (3 * self.d_model * self.n_layers).max(1);
        ((original.saturating_sub(without_ffn) + per_width / 2) / per_width).max(1)
    }

    /// Parameters of the model on `vocab` characters (the output head is tied: none more).
    pub fn parameter_count(&self, vocab: usize) -> usize {
        self.config(vocab).parameter_count()
    }

    /// AdamW's settings for this run (the shipped model's betas, decay and clipping).
    pub fn optimizer(&self) -> AdamWOptions {
        AdamWOptions { learning_rate: self.learning_rate, warmup: self.warmup, steps: self.schedule_steps, ..AdamWOptions::default() }
    }

    /// The shortest text a run takes: a validation tail of one window (T + 1 characters)
    /// and a training part of two.
    pub fn min_chars(&self) -> usize {
        3 * (self.context + 1)
    }

    /// Each size in its range, with the field named in the message.
    pub fn validate(&self) -> Result<()> {
        let check = |what: &str, value: usize, lo: usize, hi: usize| {
            if (lo..=hi).contains(&value) {
                Ok(())
            } else {
                Err(ComputeError::Invalid(format!("{what}: {value} está fora do intervalo {lo} … {hi}.")))
            }
        };
        check("Camadas", self.n_layers, 1, 4)?;
        check("Cabeças", self.n_heads, 1, 8)?;
        check("Largura do modelo", self.d_model, 8, 128)?;
        check("Contexto", self.context, 8, 128)?;
        check("Lote", self.batch, 1, 32)?;
        if self.d_model % self.n_heads != 0 {
            return Err(ComputeError::Invalid(format!(
                "A largura do modelo ({}) precisa ser múltipla do número de cabeças ({}).",
                self.d_model, self.n_heads
            )));
        }
        if self.architecture == Architecture::Moderna && (self.d_model / self.n_heads) % 2 != 0 {
            return Err(ComputeError::Invalid(format!(
                "A arquitetura moderna gira q e k em pares (RoPE): a largura de cada cabeça ({} / {} = {}) precisa ser par.",
                self.d_model,
                self.n_heads,
                self.d_model / self.n_heads
            )));
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0 && self.learning_rate <= 0.1) {
            return Err(ComputeError::Invalid("A taxa de aprendizado fica entre 0 (exclusive) e 0,1.".into()));
        }
        if self.eval_every == 0 || self.sample_every == 0 || self.max_validation_windows == 0 {
            return Err(ComputeError::Invalid("Os intervalos de avaliação e de amostra são de pelo menos 1 passo.".into()));
        }
        if !(0.0..0.5).contains(&self.validation_fraction) {
            return Err(ComputeError::Invalid("A fração de validação fica em [0; 0,5).".into()));
        }
        self.optimizer().validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_the_char_config() {
        let s = TrainSettings::tiny();
        s.validate().unwrap();
        assert_eq!(s.config(99), crate::training::char_config(99));
        assert_eq!(s.parameter_count(99), crate::training::char_config(99).parameter_count());
    }

    /// The race is at a matched size: for every size the widget accepts, the moderna (K/V
    /// heads by the rule, F by `moderna_ffn_width`) has within 2 % of the original's
    /// parameters; the default's counts by hand.
    #[test]
    fn the_moderna_matches_the_originals_parameter_count() {
        let tiny = TrainSettings::tiny();
        let moderna = TrainSettings { architecture: Architecture::Moderna, ..tiny.clone() };
        moderna.validate().unwrap();
        let config = moderna.config(60);
        config.validate().unwrap();
        assert_eq!((config.architecture, config.kv_heads(), config.d_ff), (Architecture::Moderna, 2, 195));
        // Original, V = 60, C = 64, L = 2: 60·64 + 2·(12·64² + 9·64) + 2·64 = 103 424.
        // Moderna without the FFN: 60·64 + 2·(2·64² + 2·64·32 + 2·64) + 64 = 28 736, and 3·64·2
        // = 384 a unit of F: F = 74 688 / 384 = 194,5 → 195 (194 is as close), 103 616 in all.
        let (a, b) = (tiny.parameter_count(60), moderna.parameter_count(60));
        println!("default settings, V = 60: original {a}, moderna {b} (F = {}, {:+.2} %)", config.d_ff, 100.0 * (b as f64 - a as f64) / a as f64);
        assert_eq!((a, b), (103_424, 103_616));
        let mut worst = 0.0f64;
        for n_layers in 1..=4 {
            for n_heads in 1..=8 {
                for d_model in (8..=128).filter(|c| c % n_heads == 0 && (c / n_heads) % 2 == 0) {
                    let original = TrainSettings { n_layers, n_heads, d_model, ..tiny.clone() };
                    let moderna = TrainSettings { architecture: Architecture::Moderna, ..original.clone() };
                    moderna.validate().unwrap();
                    moderna.config(60).validate().unwrap();
                    let (a, b) = (original.parameter_count(60) as f64, moderna.parameter_count(60) as f64);
                    worst = worst.max((b - a).abs() / a);
                }
            }
        }
        println!("worst parameter mismatch over the widget's sizes: {:.3} %", 100.0 * worst);
        assert!(worst < 0.02, "{worst}");
        // Old messages (no architecture) still read, as the original.
        let mut json = serde_json::to_value(&tiny).unwrap();
        json.as_object_mut().unwrap().remove("architecture");
        assert_eq!(serde_json::from_value::<TrainSettings>(json).unwrap(), tiny);
        let odd = TrainSettings { d_model: 24, n_heads: 8, architecture: Architecture::Moderna, ..tiny };
        assert!(odd.validate().unwrap_err().to_string().contains("precisa ser par"));
    }

    #[test]
    fn bad_sizes_name_the_field() {
        let bad = TrainSettings { n_heads: 3, ..TrainSettings::tiny() };
        assert!(bad.validate().unwrap_err().to_string().contains("múltipla"));
        let bad = TrainSettings { context: 1000, ..TrainSettings::tiny() };
        assert!(bad.validate().unwrap_err().to_string().contains("Contexto"));
        let bad = TrainSettings { learning_rate: f64::NAN, ..TrainSettings::tiny() };
        assert!(bad.validate().is_err());
    }
}
