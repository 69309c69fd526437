//! The gradient check a reader runs on a whole (tiny) decoder: the backward pass that trains
//! the `train` widget's model, against central differences of the loss, for the largest-
//! gradient entry of every weight tensor, on a text the reader types. Everything here is f32
//! as training computes it, so the error against the step h has the V shape of f32
//! (truncation ∝ h² on the right, rounding ∝ ε/h on the left) with its floor, about 1 % of the largest gradient, near h = 10⁻³.

use crate::attention::gradient_check::STEPS;
use crate::decoder::config::Architecture;
use crate::decoder::DecoderConfig;
use crate::error::{ComputeError, Result};
use crate::rng::Rng;

use super::data::{Batch, CharTokenizer};
use super::model::{gradient_check, lively, loss, GradientProbe};

/// Longest text checked: every character is a position of the one sequence.
pub const MAX_CHARS: usize = 33;

/// The outcome: one probe per tensor at the chosen h, and the largest error at every h.
#[derive(Clone, Debug)]
pub struct ModelCheck {
    pub probes: Vec<GradientProbe>,
    /// Largest `GradientProbe::error` over the probes, for each h of `STEPS`.
    pub curve: Vec<f64>,
    /// The text's loss (nats per character) under the checked weights.
    pub loss: f32,
    pub parameters: usize,
    pub config: DecoderConfig,
}

impl ModelCheck {
    pub fn max_error(&self) -> f32 {
        self.probes.iter().map(GradientProbe::error).fold(0.0, f32::max)
    }
}

/// The checked model: 2 blocks of width 8 with 2 heads, FFN 32, over the text's characters.
fn config(vocab: usize, positions: usize) -> DecoderConfig {
    DecoderConfig { vocab_size: vocab, d_model: 8, n_heads: 2, n_layers: 2, d_ff: 32, context: positions, pe_theta: 10_000.0, ln_eps: 1e-5, architecture: Architecture::Original, n_kv_heads: None }
}

/// Checks the decoder's gradients on `text` (its first `MAX_CHARS` characters, each
/// predicting the next) with step `h` (one of `STEPS`), weights drawn from `seed`.
pub fn check_model(text: &str, seed: u64, h: f64) -> Result<ModelCheck> {
    let text: String = text.chars().take(MAX_CHARS).collect();
    let tokenizer = CharTokenizer::from_text(&text);
    if text.chars().count() < 3 || tokenizer.vocab_size() < 2 {
        return Err(ComputeError::Invalid("Escreva ao menos 3 caracteres, com ao menos 2 diferentes: o modelo prevê cada um a partir dos anteriores.".into()));
    }
    let ids = tokenizer.encode(&text)?;
    let len = ids.len() - 1;
    let config = config(tokenizer.vocab_size(), len);
    let weights = lively(&config, seed);
    let batch = Batch { inputs: ids[..len].to_vec(), targets: ids[1..].to_vec(), sequences: 1, len };
    // The same entries at every h: the largest-gradient one of each tensor.
    let at = |h: f64| gradient_check(&weights, &batch, 0, h as f32, &mut Rng::new(seed));
    let curve = STEPS.iter().map(|&s| at(s).map(|p| p.iter().map(|p| p.error() as f64).fold(0.0, f64::max))).collect::<Result<Vec<_>>>()?;
    Ok(ModelCheck { probes: at(h)?, curve, loss: loss(&weights, &batch)?, parameters: config.parameter_count(), config })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_formulas_agree_with_differences_at_a_good_step_and_not_at_extreme_ones() {
        let check = check_model("Uma noite destas, vindo da cidade", 3, 1e-3).unwrap();
        assert_eq!(check.probes.len(), check.config.tensor_shapes().len());
        // Measured 1,4 % at h = 10⁻³ (the best h in f32 here; 2,5 % at 10⁻², 8,7 % at 10⁻⁴).
        assert!(check.max_error() < 2e-2, "{}", check.max_error());
        // f32: at h = 10⁻⁸ the two losses round to the same number, and the difference is noise.
        let best = check.curve.iter().copied().fold(f64::INFINITY, f64::min);
        assert!(check.curve[7] > 10.0 * best, "{:?}", check.curve);
        assert!(check.loss.is_finite() && check.loss > 0.0);
    }

    #[test]
    fn too_little_text_is_a_message() {
        for text in ["", "ab", "aaaaaa"] {
            assert!(check_model(text, 1, 1e-2).unwrap_err().to_string().contains("3 caracteres"), "{text:?}");
        }
    }
}
