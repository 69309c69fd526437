//! Choosing the next token from the logits: greedy, temperature, top-k and top-p
//! (nucleus), with a seeded generator so the same seed gives the same text.

use serde::{Deserialize, Serialize};

use crate::error::{ComputeError, Result};
use crate::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SamplingOptions {
    /// 0 means greedy (always the most likely token); otherwise logits are divided by it.
    pub temperature: f32,
    /// Keep only the k most likely tokens (0 = all).
    pub top_k: usize,
    /// Keep the smallest set of most likely tokens whose probabilities add up to p (1 = all).
    pub top_p: f32,
}

impl Default for SamplingOptions {
    fn default() -> Self {
        SamplingOptions { temperature: 0.8, top_k: 40, top_p: 0.95 }
    }
}

impl SamplingOptions {
    pub fn greedy() -> Self {
        SamplingOptions { temperature: 0.0, top_k: 0, top_p: 1.0 }
    }

    pub fn validate(&self) -> Result<()> {
        if !(self.temperature >= 0.0 && self.temperature <= 10.0) {
            return Err(ComputeError::Invalid("A temperatura precisa estar entre 0 e 10.".into()));
        }
        if !(self.top_p > 0.0 && self.top_p <= 1.0) {
            return Err(ComputeError::Invalid("O top-p precisa estar entre 0 (exclusive) e 1.".into()));
        }
        Ok(())
    }
}

/// softmax(logits / T) over all tokens, in f64 for a stable sum (T = 1 when greedy).
pub fn probabilities(logits: &[f32], temperature: f32) -> Vec<f32> {
    let t = if temperature > 0.0 { temperature as f64 } else { 1.0 };
    let max = logits.iter().copied().filter(|v| v.is_finite()).fold(f32::NEG_INFINITY, f32::max) as f64;
    if !max.is_finite() {
        return vec![1.0 / logits.len().max(1) as f32; logits.len()];
    }
    let exps: Vec<f64> = logits.iter().map(|&v| if v.is_finite() { ((v as f64 - max) / t).exp() } else { 0.0 }).collect();
    let sum: f64 = exps.iter().sum();
    exps.iter().map(|&x| (x / sum) as f32).collect()
}

/// The distribution the sampler actually draws from: temperature, then top-k, then top-p,
/// renormalised; tokens cut off get 0. Greedy gives all the mass to the argmax.
///
/// With top-k, only the k kept logits are exponentiated: the kept probabilities, renormalised,
/// are a softmax over those k alone, so the rest of the vocabulary (2 048 tokens) needs no
/// exponential at every generated token. Tokens are ranked by logit, which is the order of
/// their probabilities.
pub fn sampling_distribution(logits: &[f32], opts: &SamplingOptions) -> Vec<f32> {
    if logits.is_empty() {
        return Vec::new();
    }
    if opts.temperature == 0.0 {
        let mut out = vec![0.0; logits.len()];
        out[argmax(logits)] = 1.0;
        return out;
    }
    // A non-finite logit has weight 0 (as in `probabilities`): ranked last.
    let ranks: Vec<f32> = logits.iter().map(|&v| if v.is_finite() { v } else { f32::NEG_INFINITY }).collect();
    let keep = if opts.top_k == 0 { ranks.len() } else { opts.top_k.min(ranks.len()) };
    let order = most_likely_first(&ranks, keep);
    let max = order.first().map_or(f32::NEG_INFINITY, |&i| ranks[i]);
    if !max.is_finite() {
        // No finite logit: every token is equally likely, as `probabilities` says.
        return vec![1.0 / logits.len() as f32; logits.len()];
    }
    let t = opts.temperature as f64;
    let weights: Vec<f64> = order.iter().map(|&i| if ranks[i].is_finite() { ((ranks[i] as f64 - max as f64) / t).exp() } else { 0.0 }).collect();
    let sum: f64 = weights.iter().sum();
    let mut kept: Vec<f32> = weights.iter().map(|&w| (w / sum) as f32).collect();
    if opts.top_p < 1.0 {
        let mut acc = 0.0;
        if let Some(n) = kept.iter().position(|&p| {
            acc += p;
            acc >= opts.top_p
        }) {
            kept.truncate(n + 1);
        }
    }
    let total: f32 = kept.iter().sum();
    let mut out = vec![0.0; logits.len()];
    for (&i, &p) in order.iter().zip(&kept) {
        out[i] = p / total;
    }
    out
}

/// Index of the largest logit (the first one on ties).
pub fn argmax(values: &[f32]) -> usize {
    values.iter().enumerate().fold(0, |best, (i, &v)| if v > values[best] { i } else { best })
}

/// Draws the next token id.
pub fn sample(logits: &[f32], opts: &SamplingOptions, rng: &mut Rng) -> Result<u32> {
    Ok(sample_with_probability(logits, opts, rng)?.0)
}

/// Draws the next token id, with the probability it had in the distribution it was drawn
/// from (1 when greedy). Greedy draws nothing from `rng`; otherwise exactly one number.
pub fn sample_with_probability(logits: &[f32], opts: &SamplingOptions, rng: &mut Rng) -> Result<(u32, f32)> {
    opts.validate()?;
    if logits.is_empty() {
        return Err(ComputeError::Invalid("Não há logits para amostrar.".into()));
    }
    if opts.temperature == 0.0 {
        return Ok((argmax(logits) as u32, 1.0));
    }
    let dist = sampling_distribution(logits, opts);
    let draw = rng.next_f32();
    let mut acc = 0.0;
    for (i, &p) in dist.iter().enumerate() {
        acc += p;
        if draw < acc {
            return Ok((i as u32, p));
        }
    }
    // Rounding: the cumulative sum can end a hair below 1.
    let last = dist.iter().rposition(|&p| p > 0.0).unwrap_or(0);
    Ok((last as u32, dist[last]))
}

/// ln softmax(logits)[token] at temperature 1, in f64: the model's own log-probability of
/// `token` (−∞ for a token out of range or a non-finite logit).
pub fn log_probability(logits: &[f32], token: u32) -> f64 {
    let max = logits.iter().copied().filter(|v| v.is_finite()).fold(f32::NEG_INFINITY, f32::max) as f64;
    match logits.get(token as usize) {
        Some(&v) if v.is_finite() && max.is_finite() => {
            let sum: f64 = logits.iter().filter(|v| v.is_finite()).map(|&v| (v as f64 - max).exp()).sum();
            (v as f64 - max) - sum.ln()
        }
        _ => f64::NEG_INFINITY,
    }
}

/// `token`'s rank in `probs`, 1 = the most probable (ties: lower id first, as `top_n`).
pub fn rank(probs: &[f32], token: u32) -> usize {
    let Some(&p) = probs.get(token as usize) else { return probs.len() + 1 };
    1 + probs.iter().enumerate().filter(|&(j, &q)| q.total_cmp(&p).then((token as usize).cmp(&j)).is_gt()).count()
}

/// The `n` most likely tokens as (id, probability), most likely first.
pub fn top_n(probs: &[f32], n: usize) -> Vec<(u32, f32)> {
    most_likely_first(probs, n).into_iter().map(|i| (i as u32, probs[i])).collect()
}

/// The indices of the `n` largest values, largest first, ties by index (so the order is the
/// same everywhere). A small `n` does not sort the whole vocabulary (`order::top_desc`): the
/// next token's top 40 of a 2048-token vocabulary, at every generated token.
fn most_likely_first(probs: &[f32], n: usize) -> Vec<usize> {
    crate::order::top_desc(probs, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selecting_the_top_n_gives_the_full_sort_s_first_n() {
        let mut rng = Rng::new(9);
        // Few distinct values, so ties are common and their order (by index) is checked too.
        let probs: Vec<f32> = (0..300).map(|_| (rng.next_f32() * 8.0).floor() / 8.0).collect();
        let mut full: Vec<usize> = (0..probs.len()).collect();
        full.sort_by(|&a, &b| probs[b].total_cmp(&probs[a]).then(a.cmp(&b)));
        for n in [0, 1, 2, 40, 299, 300, 301] {
            assert_eq!(most_likely_first(&probs, n), full[..n.min(300)].to_vec(), "n = {n}");
        }
    }

    /// The definition, written out: softmax over the whole vocabulary, keep the top k, then
    /// the smallest head reaching top-p, renormalise.
    fn by_definition(logits: &[f32], opts: &SamplingOptions) -> Vec<f32> {
        let probs = probabilities(logits, opts.temperature);
        let k = if opts.top_k == 0 { probs.len() } else { opts.top_k.min(probs.len()) };
        let order = most_likely_first(&probs, k);
        let kept_mass: f32 = order.iter().map(|&i| probs[i]).sum();
        let (mut acc, mut keep) = (0.0, k);
        for (n, &i) in order.iter().enumerate() {
            acc += probs[i] / kept_mass;
            if opts.top_p < 1.0 && acc >= opts.top_p {
                keep = n + 1;
                break;
            }
        }
        let mut out = vec![0.0; probs.len()];
        let total: f32 = order[..keep].iter().map(|&i| probs[i]).sum();
        for &i in &order[..keep] {
            out[i] = probs[i] / total;
        }
        out
    }

    #[test]
    fn exponentiating_only_the_top_k_gives_the_definition() {
        let mut rng = Rng::new(17);
        for case in 0..200 {
            let logits: Vec<f32> = (0..2048).map(|_| rng.next_f32() * 24.0 - 12.0).collect();
            let opts = SamplingOptions {
                temperature: [0.3, 0.8, 1.0, 2.0][case % 4],
                top_k: [0, 1, 40, 500][case / 4 % 4],
                top_p: [1.0, 0.95, 0.5][case % 3],
            };
            let (fast, slow) = (sampling_distribution(&logits, &opts), by_definition(&logits, &opts));
            let diff = fast.iter().zip(&slow).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
            assert!(diff < 1e-6, "{opts:?}: {diff}");
            assert_eq!(fast.iter().filter(|&&p| p > 0.0).count(), slow.iter().filter(|&&p| p > 0.0).count(), "{opts:?}");
        }
        // Non-finite logits weigh nothing; with none finite, every token is equally likely.
        let odd = [f32::NAN, 1.0, f32::INFINITY, f32::NEG_INFINITY];
        assert_eq!(sampling_distribution(&odd, &SamplingOptions { temperature: 1.0, top_k: 2, top_p: 1.0 }), vec![0.0, 1.0, 0.0, 0.0]);
        assert_eq!(sampling_distribution(&[f32::NAN; 4], &SamplingOptions::default()), vec![0.25; 4]);
    }

    #[test]
    fn greedy_takes_the_argmax() {
        let mut rng = Rng::new(1);
        assert_eq!(sample(&[0.1, 3.0, 2.9], &SamplingOptions::greedy(), &mut rng).unwrap(), 1);
    }

    #[test]
    fn top_k_and_top_p_cut_the_tail() {
        let logits = [2.0f32.ln(), 1.0f32.ln(), 0.5f32.ln(), 0.5f32.ln()]; // probs .5 .25 .125 .125
        let k2 = sampling_distribution(&logits, &SamplingOptions { temperature: 1.0, top_k: 2, top_p: 1.0 });
        assert!((k2[0] - 2.0 / 3.0).abs() < 1e-6 && (k2[1] - 1.0 / 3.0).abs() < 1e-6 && k2[2] == 0.0);
        let p = sampling_distribution(&logits, &SamplingOptions { temperature: 1.0, top_k: 0, top_p: 0.7 });
        assert!(p[0] > 0.6 && p[1] > 0.3 && p[2] == 0.0 && p[3] == 0.0, "{p:?}");
        let all = sampling_distribution(&logits, &SamplingOptions { temperature: 1.0, top_k: 0, top_p: 1.0 });
        assert!((all[2] - 0.125).abs() < 1e-6);
    }

    #[test]
    fn same_seed_same_tokens_and_frequencies_follow_the_distribution() {
        let logits = [1.0f32, 2.0, 0.5, -1.0];
        let opts = SamplingOptions { temperature: 1.0, top_k: 0, top_p: 1.0 };
        let draw = |seed| {
            let mut rng = Rng::new(seed);
            (0..20).map(|_| sample(&logits, &opts, &mut rng).unwrap()).collect::<Vec<_>>()
        };
        assert_eq!(draw(42), draw(42));
        let mut rng = Rng::new(7);
        let mut counts = [0usize; 4];
        for _ in 0..20_000 {
            counts[sample(&logits, &opts, &mut rng).unwrap() as usize] += 1;
        }
        let probs = probabilities(&logits, 1.0);
        for i in 0..4 {
            assert!((counts[i] as f32 / 20_000.0 - probs[i]).abs() < 0.015, "{counts:?} vs {probs:?}");
        }
    }

    #[test]
    fn extreme_logits_stay_finite() {
        let p = probabilities(&[1e30, -1e30, f32::NEG_INFINITY, 0.0], 0.5);
        assert!(p.iter().all(|v| v.is_finite()));
        assert_eq!(p[0], 1.0);
        assert!(SamplingOptions { temperature: -1.0, ..Default::default() }.validate().is_err());
    }
}
