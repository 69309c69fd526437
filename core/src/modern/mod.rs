//! From the 2017 block to today's, part by part (issue 41): what the page "Do Transformer de
//! 2017 aos modelos de hoje" shows, each next to the part it replaced, computed on the
//! `Executor` a widget is given with the ops the moderna decoder trains with
//! (`core::ops::modern`):
//! - `rope`: positions as rotations of q and k, whose scores depend on the offset only, against
//!   the sinusoidal encoding added to the input;
//! - `rms_norm`: RMSNorm against layer norm on one vector, shifted and scaled;
//! - `swiglu`: the gated FFN against ReLU's, its hidden activations and the ⅔ rule's counts;
//! - `gqa`: heads sharing K and V (MHA, GQA, MQA) and the KV cache each needs.

pub mod gqa;
pub mod rms_norm;
pub mod rope;
pub mod swiglu;

use crate::error::{ComputeError, Result};

/// The reader's vector: 1 to `max` finite numbers.
pub(crate) fn check_vector(what: &str, values: &[f32], max: usize) -> Result<()> {
    if values.is_empty() {
        return Err(ComputeError::Invalid(format!("{what} precisa de pelo menos um número.")));
    }
    if values.len() > max {
        return Err(ComputeError::Invalid(format!("{what} tem {} números; esta demonstração desenha até {max}.", values.len())));
    }
    if values.iter().any(|v| !v.is_finite()) {
        return Err(ComputeError::Invalid(format!("{what} tem um valor que não é um número finito.")));
    }
    Ok(())
}

/// The largest |a − b| over two equally long lists (0 for empty ones).
pub(crate) fn largest_gap(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}
