//! Where each prediction settles: the logit lens read at every position of the window, and
//! for each one the first stage (0 = after the embedding, L = after the last block) from
//! which the lens's most probable token stays the model's final one. The readings come from
//! the one forward pass with taps (`lens::forward_with_strip`); this file only summarises them.

use serde::{Deserialize, Serialize};

use crate::Matrix;

use super::sampling::top_n;

/// How many of the most probable tokens each stage keeps (two give the margin of the first).
pub const STAGE_TOP: usize = 3;

/// One position of the window, as the lens reads it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PositionSettle {
    /// Window position (0-based); its readings predict the token after it.
    pub position: usize,
    /// Per stage (0 = after the embedding … L = after the last block), the `STAGE_TOP` most
    /// probable tokens with their probabilities, most probable first (ties: lower id first).
    pub tops: Vec<Vec<(u32, f32)>>,
    /// The first stage from which the top-1 stays the final top-1 (`settle_stage`).
    pub settle: usize,
}

impl PositionSettle {
    /// The top-1 token at each stage.
    pub fn top1(&self) -> Vec<u32> {
        self.tops.iter().map(|top| top.first().map_or(0, |&(t, _)| t)).collect()
    }

    /// The final prediction: the top-1 after the last block.
    pub fn prediction(&self) -> Option<(u32, f32)> {
        self.tops.last().and_then(|top| top.first().copied())
    }

    /// How far the top-1 is ahead of the second at `stage` (probabilities): where it is tiny,
    /// rounding alone may swap the two.
    pub fn margin(&self, stage: usize) -> f32 {
        match self.tops.get(stage).map(Vec::as_slice) {
            Some([(_, a), (_, b), ..]) => a - b,
            Some([(_, a)]) => *a,
            _ => 0.0,
        }
    }
}

/// The first stage s such that `top1[s..]` are all equal to the last one (0 for an empty list).
pub fn settle_stage(top1: &[u32]) -> usize {
    let Some(&last) = top1.last() else { return 0 };
    top1.iter().rposition(|&t| t != last).map_or(0, |s| s + 1)
}

/// The strip from the lens's readings at every position: `grid[s]` (T,V) holds stage s's
/// probabilities, one row per position.
pub fn strip(grid: &[Matrix]) -> Vec<PositionSettle> {
    let positions = grid.first().map_or(0, Matrix::rows);
    (0..positions)
        .map(|position| {
            let tops: Vec<Vec<(u32, f32)>> = grid.iter().map(|stage| top_n(&stage.row(position), STAGE_TOP)).collect();
            let top1: Vec<u32> = tops.iter().map(|top| top.first().map_or(0, |&(t, _)| t)).collect();
            PositionSettle { position, settle: settle_stage(&top1), tops }
        })
        .collect()
}

/// How many positions settle at each stage (index = stage): the page's prose counts them
/// instead of typing them.
pub fn settle_counts(strip: &[PositionSettle], stages: usize) -> Vec<usize> {
    let mut counts = vec![0; stages];
    for p in strip {
        if let Some(c) = counts.get_mut(p.settle) {
            *c += 1;
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_settle_stage_is_where_the_last_run_of_the_final_top1_starts() {
        assert_eq!(settle_stage(&[4, 4, 4]), 0);
        assert_eq!(settle_stage(&[1, 4, 4]), 1);
        assert_eq!(settle_stage(&[4, 1, 4]), 2, "an early agreement that is lost again does not count");
        assert_eq!(settle_stage(&[1, 2, 3]), 2);
        assert_eq!(settle_stage(&[]), 0);
    }

    #[test]
    fn the_strip_reads_each_row_of_each_stage() {
        // Two positions, three stages over four tokens.
        let stage = |rows: [[f32; 4]; 2]| Matrix::from_vec(2, 4, rows.concat()).unwrap();
        let grid = [
            stage([[0.7, 0.1, 0.1, 0.1], [0.1, 0.1, 0.1, 0.7]]),
            stage([[0.1, 0.6, 0.2, 0.1], [0.1, 0.1, 0.2, 0.6]]),
            stage([[0.1, 0.5, 0.3, 0.1], [0.4, 0.1, 0.1, 0.4]]),
        ];
        let s = strip(&grid);
        assert_eq!((s.len(), s[0].settle, s[1].settle), (2, 1, 2));
        assert_eq!(s[0].top1(), vec![0, 1, 1]);
        assert_eq!(s[1].top1(), vec![3, 3, 0], "a tie goes to the lower id");
        assert_eq!(s[0].prediction(), Some((1, 0.5)));
        assert!((s[0].margin(2) - 0.2).abs() < 1e-6 && s[1].margin(2) == 0.0);
        assert_eq!(settle_counts(&s, 3), vec![0, 1, 1]);
    }
}
