//! `Pace`: how fast a run trains, as the widget shows it: steps per second over a recent
//! stretch of wall-clock time (drawing and yielding between slices included) and the mean
//! duration of a plain step (one without an evaluation or a sample, which cost more).

use std::collections::VecDeque;

use super::run::StepReport;

#[derive(Clone, Debug)]
pub struct Pace {
    /// How far back the rate looks, in ms.
    window_ms: f64,
    /// Recent steps: (when it ended, its duration in ms, whether it was a plain step).
    steps: VecDeque<(f64, f64, bool)>,
}

impl Pace {
    pub fn new(window_ms: f64) -> Pace {
        Pace { window_ms, steps: VecDeque::new() }
    }

    /// A step that ended at `ended_at` (ms, any origin) after `ms`.
    pub fn record(&mut self, report: &StepReport, ended_at: f64, ms: f64) {
        self.steps.push_back((ended_at, ms, report.eval.is_none() && report.sample.is_none()));
        while self.steps.front().is_some_and(|&(t, _, _)| ended_at - t > self.window_ms) {
            self.steps.pop_front();
        }
    }

    /// Forgets the steps (a new run).
    pub fn clear(&mut self) {
        self.steps.clear();
    }

    /// Steps per second over the window (none before two steps), and the mean duration of a
    /// plain step in ms (none before one).
    pub fn rates(&self) -> (Option<f64>, Option<f64>) {
        let rate = match (self.steps.front(), self.steps.back()) {
            (Some(first), Some(last)) if self.steps.len() >= 2 && last.0 > first.0 => Some((self.steps.len() - 1) as f64 * 1000.0 / (last.0 - first.0)),
            _ => None,
        };
        let plain: Vec<f64> = self.steps.iter().filter(|s| s.2).map(|s| s.1).collect();
        let mean = (!plain.is_empty()).then(|| plain.iter().sum::<f64>() / plain.len() as f64);
        (rate, mean)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train_run::run::EvalPoint;

    fn report(step: usize, plain: bool) -> StepReport {
        let eval = (!plain).then(|| EvalPoint { step, train: None, validation: 1.0 });
        StepReport { step, loss: 1.0, eval, sample: None }
    }

    #[test]
    fn rates_over_the_window_and_plain_steps_only() {
        let mut pace = Pace::new(2000.0);
        assert_eq!(pace.rates(), (None, None));
        pace.record(&report(1, true), 0.0, 40.0);
        assert_eq!(pace.rates(), (None, Some(40.0)));
        // Steps every 50 ms, the fourth with an evaluation (200 ms).
        pace.record(&report(2, true), 50.0, 60.0);
        pace.record(&report(3, true), 100.0, 50.0);
        pace.record(&report(4, false), 300.0, 200.0);
        assert_eq!(pace.rates(), (Some(3.0 * 1000.0 / 300.0), Some(50.0)));
        // 2 s later the first three have left the window.
        pace.record(&report(5, true), 2250.0, 30.0);
        assert_eq!(pace.rates(), (Some(1000.0 / 1950.0), Some(30.0)));
        pace.clear();
        assert_eq!(pace.rates(), (None, None));
    }
}
