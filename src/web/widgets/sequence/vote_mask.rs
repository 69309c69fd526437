//! `vote-mask`: the Hadamard playground of the masking pages. The `votes` widget in its mask
//! mode: a weight in [0, 1] for each earlier word (0 removes its pair, 1 keeps it, values in
//! between count it partly), and three panels: the votes V, the mask m and V ∘ m = diag(m)·V,
//! whose column sums are the scores. Computed on the active backend.
//!
//! Attributes: as `votes` (`data-preset`, `data-sentence`, `data-keep`); with `data-keep`
//! the listed words start at 1 and every other word at 0.

use super::super::WidgetKind;
use super::votes::{mount_mode, Mode};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::VOTE_MASK, mount: |c, h, a| mount_mode(c, h, a, Mode::Mask, &KIND) };
