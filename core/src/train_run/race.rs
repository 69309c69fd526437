//! The race of issue 41: the 2017 architecture and today's, trained side by side on the same
//! text, from the same seed, on the same batches (each run draws them from `settings.seed`), at a
//! matched parameter count (`TrainSettings::config`). What the page says about the race is
//! computed here from the two runs' curves, whichever wins; no sentence about it is typed.

use serde::{Deserialize, Serialize};

use crate::decoder::Architecture;
use crate::format::format_pt;

use super::run::{EvalPoint, TrainRun};
use super::tokens::token_unit;

/// One side of the race, as the widget draws it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RaceSide {
    pub architecture: Architecture,
    pub parameters: usize,
    pub history: Vec<EvalPoint>,
    /// The first step whose validation loss was at or below the bigram's (none yet: `None`).
    pub bigram_step: Option<usize>,
}

/// Both sides (the reader's architecture first) and what they show so far.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RaceView {
    pub sides: Vec<RaceSide>,
    /// The race in words, from the numbers above (empty before the first common point).
    pub summary: String,
}

impl RaceSide {
    pub fn of<T>(run: &TrainRun<T>) -> RaceSide {
        RaceSide {
            architecture: run.settings.architecture,
            parameters: run.parameter_count(),
            history: run.history.clone(),
            bigram_step: run.history.iter().find(|p| p.validation <= run.bigram).map(|p| p.step),
        }
    }
}

impl RaceView {
    /// The race between `main` (the reader's architecture) and `rival`, on the same text.
    pub fn of<T>(main: &TrainRun<T>, rival: &TrainRun<T>) -> RaceView {
        let sides = vec![RaceSide::of(main), RaceSide::of(rival)];
        let summary = summary(&sides, main.bigram, token_unit(&main.tokenizer));
        RaceView { sides, summary }
    }
}

/// The last step both sides measured, with each side's validation loss there.
fn last_common(sides: &[RaceSide]) -> Option<(usize, f64, f64)> {
    let (a, b) = (&sides[0].history, &sides[1].history);
    a.iter().rev().find_map(|p| b.iter().find(|q| q.step == p.step).map(|q| (p.step, p.validation, q.validation)))
}

/// E.g. "No passo 300, com os mesmos lotes: moderna 2,1345 e original 2,2010 nats por caractere
/// na validação; a moderna está 0,0665 abaixo. Nível do bigrama (2,4500): a moderna chegou nele
/// no passo 150; a original ainda não chegou."
fn summary(sides: &[RaceSide], bigram: f64, unit: &str) -> String {
    let Some((step, first, second)) = last_common(sides) else { return String::new() };
    let (a, b) = (sides[0].architecture.name(), sides[1].architecture.name());
    let loss = |v: f64| format_pt(v as f32, 4);
    let mut text = format!("No passo {step}, com os mesmos lotes: {a} {} e {b} {} nats por {unit} na validação; ", loss(first), loss(second));
    let gap = (first - second).abs();
    if step == 0 {
        text.push_str("ainda não treinaram.");
    } else if format_pt(gap as f32, 4) == format_pt(0.0, 4) {
        text.push_str("empatadas até a 4ª casa.");
    } else {
        let leader = if first < second { a } else { b };
        text.push_str(&format!("a {leader} está {} abaixo.", loss(gap)));
    }
    let reached = |side: &RaceSide| {
        let name = side.architecture.name();
        match side.bigram_step {
            Some(s) => format!("a {name} chegou nele no passo {s}"),
            None => format!("a {name} ainda não chegou"),
        }
    };
    text.push_str(&format!(" Nível do bigrama ({}): {}; {}.", loss(bigram), reached(&sides[0]), reached(&sides[1])));
    text
}

#[cfg(all(test, feature = "moderna"))]
mod tests {
    use super::*;
    use crate::executor::Cpu;
    use crate::matrix::Matrix;
    use crate::rng::Rng;
    use crate::train_run::settings::TrainSettings;
    use crate::train_run::text::prepare_text;

    fn toy_text() -> String {
        let words = ["a casa", "o gato", "a missa", "do galo", "era noite", "de natal", "o livro", "a sala"];
        let mut rng = Rng::new(5);
        (0..700).map(|_| words[rng.below(words.len() as u64) as usize]).collect::<Vec<_>>().join(" ")
    }

    /// Both architectures on the same text and settings, 60 steps each: the view's sides are
    /// the runs' own curves, and every number the summary says is one of theirs.
    #[test]
    fn the_race_says_what_the_two_curves_show() {
        let text = prepare_text(&toy_text(), false, 10).unwrap();
        let settings = TrainSettings { d_model: 32, context: 32, batch: 8, eval_every: 20, sample_every: 50, sample_chars: 40, ..TrainSettings::tiny() };
        let mut original = TrainRun::<Matrix>::new(&Cpu, &text, None, settings.clone()).unwrap();
        let mut moderna = TrainRun::<Matrix>::new(&Cpu, &text, None, TrainSettings { architecture: Architecture::Moderna, ..settings }).unwrap();
        let before = RaceView::of(&original, &moderna);
        assert!(before.summary.contains("No passo 0") && before.summary.contains("ainda não treinaram"), "{}", before.summary);
        for _ in 0..60 {
            original.step().unwrap();
            moderna.step().unwrap();
        }
        let race = RaceView::of(&moderna, &original);
        assert_eq!(race.sides.iter().map(|s| s.architecture).collect::<Vec<_>>(), [Architecture::Moderna, Architecture::Original]);
        assert_eq!((race.sides[0].history.clone(), race.sides[1].history.clone()), (moderna.history.clone(), original.history.clone()));
        let parameters = (race.sides[0].parameters as f64, race.sides[1].parameters as f64);
        assert!((parameters.0 / parameters.1 - 1.0).abs() < 0.02, "matched sizes: {parameters:?}");
        let (m, o) = (moderna.validation_loss(), original.validation_loss());
        let (leader, gap) = if m < o { ("moderna", o - m) } else { ("original", m - o) };
        let want = format!(
            "No passo 60, com os mesmos lotes: moderna {} e original {} nats por caractere na validação; a {leader} está {} abaixo.",
            format_pt(m as f32, 4),
            format_pt(o as f32, 4),
            format_pt(gap as f32, 4)
        );
        assert!(race.summary.starts_with(&want), "{}\nwant: {want}", race.summary);
        for side in &race.sides {
            let first = side.history.iter().find(|p| p.validation <= moderna.bigram).map(|p| p.step);
            assert_eq!(side.bigram_step, first);
            let name = side.architecture.name();
            let said = first.map_or(format!("a {name} ainda não chegou"), |s| format!("a {name} chegou nele no passo {s}"));
            assert!(race.summary.contains(&said), "{}: {said}", race.summary);
        }
        println!("{}", race.summary);
    }

    #[test]
    fn a_tie_is_said_as_one() {
        let point = |step, validation| EvalPoint { step, train: None, validation };
        let side = |architecture, validation| RaceSide { architecture, parameters: 10, history: vec![point(0, 3.0), point(20, validation)], bigram_step: None };
        let text = summary(&[side(Architecture::Original, 2.50001), side(Architecture::Moderna, 2.50003)], 2.4, "token");
        assert_eq!(text, "No passo 20, com os mesmos lotes: original 2,5000 e moderna 2,5000 nats por token na validação; empatadas até a 4ª casa. Nível do bigrama (2,4000): a original ainda não chegou; a moderna ainda não chegou.");
    }
}
