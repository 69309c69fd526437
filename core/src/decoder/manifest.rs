//! `config.json` of the shipped model: the hyperparameters, the files with their sizes and
//! SHA-256 (the site refuses a download that does not match), and what training measured.

use serde::{Deserialize, Serialize};

use crate::error::{ComputeError, Result};

use super::config::DecoderConfig;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub config: DecoderConfig,
    pub weights_file: String,
    pub weights_bytes: usize,
    pub weights_sha256: String,
    pub tokenizer_file: String,
    pub tokenizer_sha256: String,
    /// The token-bigram baseline (see `bigram`), counted on the same training tokens.
    pub bigram_file: String,
    pub bigram_sha256: String,
    pub training: TrainingReport,
}

/// What the training command measured (shown on the playground and in the model card).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainingReport {
    pub corpus_books: usize,
    pub corpus_chars: usize,
    pub train_tokens: usize,
    pub validation_book: String,
    pub validation_chars: usize,
    /// Bits per character on the whole held-out book, with the shipped f16 weights.
    pub validation_bpc: f64,
    pub steps: usize,
    pub batch: usize,
    pub learning_rate: f64,
    pub seed: u64,
    /// Wall-clock seconds of the whole command.
    pub seconds: f64,
    pub threads: usize,
    /// CPU seconds of the command, all threads (wall time overstates it when the machine was shared).
    #[serde(default)]
    pub cpu_seconds: Option<f64>,
    /// The replaced model's bits per character on the same prepared validation text.
    #[serde(default)]
    pub previous_validation_bpc: Option<f64>,
    /// Whether the text was prepared into paragraphs (`core::decoder::prose`) before tokenizing.
    #[serde(default)]
    pub prose_paragraphs: bool,
}

impl Manifest {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("plain data") + "\n"
    }

    pub fn from_json(text: &str) -> Result<Manifest> {
        let m: Manifest = serde_json::from_str(text)
            .map_err(|e| ComputeError::Invalid(format!("O arquivo config.json do modelo está corrompido: {e}.")))?;
        m.config.validate()?;
        Ok(m)
    }
}
