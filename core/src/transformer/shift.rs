//! Autoregressive generation as "Explicando Transformers" describes it: a window of fixed size
//! starts as `<bos>input<eos>`; at each step the first element leaves, the rest move one
//! place left and the newly generated element takes the last place. Generation stops at
//! `<eos>` or after a maximum number of steps.
//!
//! Here the generated elements are given (`<bos>` then the expected output then `<eos>`), so
//! the table shows the windows a perfect model would see; the article's example is
//! "cachorro" → "dog" with a window of 10.

use crate::error::{ComputeError, Result};

use super::char_tokenizer::{encode, BOS, EOS};

/// Most steps the stepper shows.
pub const MAX_STEPS: usize = 40;

/// Why generation stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The last generated element was `<eos>`.
    EndOfSequence,
    /// `max_steps` reached before `<eos>`.
    StepLimit,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ShiftTrace {
    /// Window contents: `windows[0]` is the initial window, `windows[s]` after s shifts.
    pub windows: Vec<Vec<u32>>,
    /// The element appended at each shift (`generated[s − 1]` entered at shift s).
    pub generated: Vec<u32>,
    pub stop: Stop,
    /// Characters of the texts outside the vocabulary (they became `<unk>`).
    pub unknown: Vec<String>,
}

/// One shift: drop the first element, append `next` (`batch_shift` of the article, one row).
pub fn shift(window: &[u32], next: u32) -> Vec<u32> {
    window.iter().skip(1).copied().chain(std::iter::once(next)).collect()
}

/// The windows for `input` → `output`, at most `max_steps` shifts.
pub fn shift_trace(input: &str, output: &str, max_steps: usize) -> Result<ShiftTrace> {
    if input.trim().is_empty() {
        return Err(ComputeError::Invalid("Escreva um texto de entrada (por exemplo, cachorro).".into()));
    }
    let source = encode(input, true);
    super::check_cap("O texto de entrada, em caracteres,", source.tokens.len() - 2, super::char_tokenizer::MAX_TEXT_CHARS)?;
    let target = encode(output, false);
    super::check_cap("O texto de saída, em caracteres,", target.tokens.len(), super::char_tokenizer::MAX_TEXT_CHARS)?;
    let max_steps = max_steps.min(MAX_STEPS);
    let to_generate: Vec<u32> = std::iter::once(BOS).chain(target.ids()).chain(std::iter::once(EOS)).collect();
    let mut windows = vec![source.ids()];
    let mut generated = Vec::new();
    for &next in to_generate.iter().take(max_steps) {
        let window = shift(windows.last().expect("starts with one window"), next);
        windows.push(window);
        generated.push(next);
    }
    let stop = if generated.last() == Some(&EOS) { Stop::EndOfSequence } else { Stop::StepLimit };
    let mut unknown = source.unknown;
    for u in target.unknown {
        if !unknown.contains(&u) {
            unknown.push(u);
        }
    }
    Ok(ShiftTrace { windows, generated, stop, unknown })
}
