//! The two Transformer articles ("O Transformer: uma rede de autoatenção" and "Explicando
//! Transformers"), one concept per file, each with the worked examples of
//! `../shared/spec/4-transformer.md` as its defaults:
//! - `char_tokenizer`: the fixed character table (`<pad>`=0, `<bos>`=1, `<eos>`=2, a=3 …),
//!   `<unk>`, batches with left/right padding, longest/fixed length and truncation;
//! - `embedding`: one-hot × lookup table = row gather, on any `Executor`;
//! - `self_attention`: the textbook's Examples 1 and 2 step by step (dot products, scaling,
//!   softmax, weighted sum), with or without the causal mask;
//! - `scaling`: why scores are divided by √d_k (variance and softmax saturation);
//! - `multi_head`: Example 3 (concat · W^O) and the b×t×d → b×h×t×(d/h) reshape;
//! - `positional`: sinusoidal positional encoding and its offset property;
//! - `shift`: autoregressive generation as a fixed window shifted left;
//! - `block`: the post-LN block of the article and the pre-LN variant, with the layer's
//!   parameter counts;
//! - `cross_attention`: encoder–decoder attention as the paper wires it and as the article's
//!   code does (and the future leak that follows);
//! - `decoding`: the output head (logits → softmax with temperature → argmax).
//!
//! Shapes: `t` positions, `d` model width, `h` heads, `d_h = d / h`, `b` batch, `|V|` vocabulary.
//! Everything a widget shows is computed here, on the `Executor` it is given wherever there
//! is tensor math, so WebGPU and the CPU show the same numbers.

/// The sentence the pages of "Explicando Transformers" carry from the tokenizer through the
/// embeddings to the block (issue 37: one running example). Short enough for a phone's
/// heatmaps (14 tokens with `<bos>` and `<eos>`), with a letter that repeats (three «o»), so
/// the embedding lookup shows identical rows.
pub const RUNNING_EXAMPLE: &str = "o gato dorme";

pub mod block;
pub mod char_tokenizer;
pub mod cross_attention;
pub mod decoding;
pub mod embedding;
pub mod multi_head;
pub mod positional;
pub mod scaling;
pub mod self_attention;
pub mod shift;

use super::error::{ComputeError, Result};
use super::matrix::Matrix;

/// [A | B | …]: matrices with the same number of rows, side by side (t, Σ cols).
pub fn concat_columns(parts: &[&Matrix]) -> Result<Matrix> {
    let rows = parts.first().map_or(0, |m| m.rows());
    if let Some(bad) = parts.iter().find(|m| m.rows() != rows) {
        return Err(ComputeError::Invalid(format!(
            "Para concatenar, todas as partes precisam ter {rows} linhas; uma tem {}.",
            bad.rows()
        )));
    }
    let cols: usize = parts.iter().map(|m| m.cols()).sum();
    let mut out = Matrix::zeros(rows, cols);
    let mut offset = 0;
    for part in parts {
        for r in 0..rows {
            for c in 0..part.cols() {
                out.set(r, c + offset, part.get(r, c));
            }
        }
        offset += part.cols();
    }
    Ok(out)
}

/// 3150336 → "3.150.336": a count with the Portuguese thousands separator.
pub fn format_count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push('.');
        }
        out.push(c);
    }
    out
}

/// Fails with a reader-facing message when `value` exceeds `max` (sizes a widget can draw).
pub(crate) fn check_cap(what: &str, value: usize, max: usize) -> Result<()> {
    if value > max {
        return Err(ComputeError::Invalid(format!(
            "{what} = {value} passa do limite de {max} desta demonstração; use um valor até {max}."
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_use_dots() {
        assert_eq!(super::format_count(3_150_336), "3.150.336");
        assert_eq!(super::format_count(512), "512");
        assert_eq!(super::format_count(44_201_063), "44.201.063");
    }
}
