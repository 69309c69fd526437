//! The choices a generation made, and the other paths it could have taken.
//!
//! Each generated token is a `Step`: the model's probability of it, its rank, the alternatives
//! it had, and the generator's state before its draw. A branch replaces the token of one step
//! by the reader's choice and generates again after it with the same settings; the generator
//! still draws at the replaced step, so every later draw is the one the original made, and
//! choosing the token that was drawn gives back the original text. A branch is therefore
//! described by its seed, settings and choices (`BranchSpec`, what a link carries).
//!
//! Probabilities here are the model's own (softmax of the logits at temperature 1): a
//! sequence's log-probability is the sum of its steps' ln p, whatever settings drew them (the
//! distribution actually drawn from, after temperature, top-k and top-p, is `drawn_probability`).

use serde::{Deserialize, Serialize};

use crate::error::{ComputeError, Result};
use crate::format::parse_pt;

use super::sampling::{log_probability, probabilities, rank, top_n, SamplingOptions};

/// How many alternatives each step keeps, most probable first.
pub const ALTERNATIVES: usize = 10;

/// One generated token and the choice it was made from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Its position in the whole text (tokens that left the window counted).
    pub position: usize,
    pub token: u32,
    /// Put there by the reader (a branch) instead of drawn.
    pub chosen: bool,
    /// The model's probability of it (temperature 1), and its natural log (f64, from the logits).
    pub probability: f32,
    pub log_probability: f64,
    /// Its probability in the distribution it was drawn from (temperature, top-k, top-p; 1
    /// when greedy; 0 for a chosen token the settings would not draw).
    pub drawn_probability: f32,
    /// Its rank in the model's distribution: 1 = the most probable.
    pub rank: usize,
    /// The `ALTERNATIVES` most probable tokens with the model's probabilities.
    pub alternatives: Vec<(u32, f32)>,
    /// Positions the forward pass behind these logits ran: the whole prompt at the first step
    /// (prefill), 1 with the KV cache afterwards, the whole window without it or after a slide.
    pub positions_run: usize,
    /// Tokens that had left the window when it was drawn.
    pub window_start: usize,
    /// The generator's state before this step's draw (`Rng::new(generator)` draws it again).
    pub generator: u64,
}

impl Step {
    /// The record of `token` drawn (or chosen) from `logits`.
    pub fn new(logits: &[f32], token: u32, drawn_probability: f32, chosen: bool) -> Step {
        let probs = probabilities(logits, 1.0);
        Step {
            position: 0,
            token,
            chosen,
            probability: probs.get(token as usize).copied().unwrap_or(0.0),
            log_probability: log_probability(logits, token),
            drawn_probability,
            rank: rank(&probs, token),
            alternatives: top_n(&probs, ALTERNATIVES),
            positions_run: 0,
            window_start: 0,
            generator: 0,
        }
    }
}

impl Step {
    /// The alternatives with the token taken among them: appended after them, with its rank,
    /// when it was not one of the most probable. (token, probability, rank shown), and the
    /// index of the token taken.
    pub fn offered(&self) -> (Vec<(u32, f32, Option<usize>)>, usize) {
        let mut offered: Vec<(u32, f32, Option<usize>)> = self.alternatives.iter().map(|&(t, p)| (t, p, None)).collect();
        let taken = match self.alternatives.iter().position(|&(t, _)| t == self.token) {
            Some(i) => i,
            None => {
                offered.push((self.token, self.probability, Some(self.rank)));
                offered.len() - 1
            }
        };
        (offered, taken)
    }
}

/// The log-probability of a generated sequence: Σ ln p of its steps (the prompt is given).
pub fn sequence_log_probability(steps: &[Step]) -> f64 {
    steps.iter().map(|s| s.log_probability).sum()
}

/// The reader's choice: at generated step `step` (0 = the first token after the prompt), `token`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    pub step: usize,
    pub token: u32,
}

/// A branch as a link carries it: the same prompt, seed and settings give the same text, the
/// choices replacing the drawn tokens at their steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BranchSpec {
    pub prompt: String,
    pub seed: u64,
    pub options: SamplingOptions,
    /// At most one per step, in step order.
    pub choices: Vec<Choice>,
    /// Tokens generated in all.
    pub steps: usize,
}

impl BranchSpec {
    /// The choice at `step`, if the reader made one.
    pub fn choice_at(&self, step: usize) -> Option<u32> {
        self.choices.iter().find(|c| c.step == step).map(|c| c.token)
    }

    /// This branch with `choice` made: the choices before its step are kept, those after it
    /// dropped (the text after the choice is generated again).
    pub fn with_choice(&self, choice: Choice) -> BranchSpec {
        let mut choices: Vec<Choice> = self.choices.iter().copied().filter(|c| c.step < choice.step).collect();
        choices.push(choice);
        BranchSpec { choices, ..self.clone() }
    }
}

/// Most tokens a link may ask for (the playground generates at most 200 per click).
pub const LINK_MAX_STEPS: usize = 1000;

impl BranchSpec {
    /// The link's address parameters: the prompt, seed, settings, tokens and choices
    /// ("passo:token", steps counted from 1, comma-separated). Numbers in Rust's shortest
    /// form, which reads back to the same f32.
    pub fn to_params(&self) -> Vec<(&'static str, String)> {
        let choices: Vec<String> = self.choices.iter().map(|c| format!("{}:{}", c.step + 1, c.token)).collect();
        vec![
            ("prompt", self.prompt.clone()),
            ("seed", self.seed.to_string()),
            ("temperatura", self.options.temperature.to_string()),
            ("top-k", self.options.top_k.to_string()),
            ("top-p", self.options.top_p.to_string()),
            ("tokens", self.steps.to_string()),
            ("escolhas", choices.join(",")),
        ]
    }

    /// A link's parameters read back (`param` gives each one's value); none when the address
    /// is not a branch's link (no `tokens`); a message when it is one but unreadable.
    pub fn from_params(param: impl Fn(&str) -> Option<String>) -> Option<Result<BranchSpec>> {
        let steps = param("tokens")?;
        Some((|| {
            let bad = |what: &str| ComputeError::Invalid(format!("O link tem um valor ilegível em «{what}»: o texto não pôde ser refeito."));
            let number = |name: &str| -> Result<String> { param(name).map(|v| v.trim().to_string()).ok_or_else(|| bad(name)) };
            let steps: usize = steps.trim().parse().map_err(|_| bad("tokens"))?;
            if steps > LINK_MAX_STEPS {
                return Err(bad("tokens"));
            }
            let options = SamplingOptions {
                temperature: parse_pt(&number("temperatura")?).ok_or_else(|| bad("temperatura"))?,
                top_k: number("top-k")?.parse().map_err(|_| bad("top-k"))?,
                top_p: parse_pt(&number("top-p")?).ok_or_else(|| bad("top-p"))?,
            };
            options.validate()?;
            let mut choices: Vec<Choice> = Vec::new();
            for pair in param("escolhas").unwrap_or_default().split(',').map(str::trim).filter(|p| !p.is_empty()) {
                let (step, token) = pair.split_once(':').ok_or_else(|| bad("escolhas"))?;
                let step: usize = step.trim().parse().map_err(|_| bad("escolhas"))?;
                let token: u32 = token.trim().parse().map_err(|_| bad("escolhas"))?;
                if step == 0 || step > steps || choices.last().is_some_and(|c| c.step + 1 >= step) {
                    return Err(bad("escolhas"));
                }
                choices.push(Choice { step: step - 1, token });
            }
            Ok(BranchSpec { prompt: param("prompt").unwrap_or_default(), seed: number("seed")?.parse().map_err(|_| bad("seed"))?, options, choices, steps })
        })())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_records_the_models_view_of_the_token() {
        let logits = [2.0f32.ln(), 1.0f32.ln(), 0.5f32.ln(), 0.5f32.ln()]; // .5 .25 .125 .125
        let s = Step::new(&logits, 3, 0.2, true);
        assert!((s.probability - 0.125).abs() < 1e-6);
        assert!((s.log_probability - 0.125f64.ln()).abs() < 1e-6, "logits in f32");
        assert_eq!((s.rank, s.chosen, s.drawn_probability), (4, true, 0.2), "ties: the lower id ranks first");
        assert_eq!(s.alternatives.iter().map(|a| a.0).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
        let other = Step::new(&logits, 0, 1.0, false);
        assert!((sequence_log_probability(&[s, other]) - (0.125f64.ln() + 0.5f64.ln())).abs() < 1e-6);
    }

    #[test]
    fn a_link_reads_back_to_the_same_branch_and_bad_ones_are_messages() {
        let spec = BranchSpec {
            prompt: "Os meninos & «as» meninas?".into(),
            seed: 1839,
            options: SamplingOptions { temperature: 0.9, top_k: 40, top_p: 0.95 },
            choices: vec![Choice { step: 0, token: 17 }, Choice { step: 5, token: 2047 }],
            steps: 12,
        };
        let params = spec.to_params();
        let get = |params: &[(&str, String)], name: &str| params.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone());
        assert_eq!(get(&params, "escolhas").as_deref(), Some("1:17,6:2047"), "steps counted from 1");
        assert_eq!(BranchSpec::from_params(|n| get(&params, n)).unwrap().unwrap(), spec);
        assert!(BranchSpec::from_params(|_| None).is_none(), "not a link");
        for (name, value) in [("tokens", "x"), ("tokens", "100000"), ("temperatura", "NaN"), ("top-p", "0"), ("seed", "-1"), ("escolhas", "0:3"), ("escolhas", "13:3"), ("escolhas", "6:1,1:2"), ("escolhas", "2:")] {
            let mut bad = params.clone();
            bad.iter_mut().find(|(n, _)| *n == name).unwrap().1 = value.into();
            let error = BranchSpec::from_params(|n| get(&bad, n)).unwrap().unwrap_err();
            assert!(!error.to_string().is_empty(), "{name}={value}");
        }
    }

    #[test]
    fn a_new_choice_keeps_the_earlier_ones_and_drops_the_later() {
        let spec = BranchSpec {
            prompt: "a".into(),
            seed: 1,
            options: SamplingOptions::default(),
            choices: vec![Choice { step: 1, token: 5 }, Choice { step: 4, token: 6 }],
            steps: 8,
        };
        let next = spec.with_choice(Choice { step: 3, token: 9 });
        assert_eq!(next.choices, vec![Choice { step: 1, token: 5 }, Choice { step: 3, token: 9 }]);
        assert_eq!((next.choice_at(3), next.choice_at(4)), (Some(9), None));
    }
}
