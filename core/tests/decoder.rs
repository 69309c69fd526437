//! The decoder's story (issue 39), natively, on a tiny random model and on the shipped one
//! (static/model/): where each prediction settles, against a logit lens written here with
//! plain loops; branches of a generation; the KV cache on and off; pinned words.

use std::rc::Rc;

use atencao_core::bpe::Bpe;
use atencao_core::decoder::config::DecoderConfig;
use atencao_core::decoder::load::Model;
use atencao_core::decoder::manifest::Manifest;
use atencao_core::decoder::model::{forward, read_forward, KvCache};
use atencao_core::decoder::pins::pin;
use atencao_core::decoder::presets::{first_token, PRESETS};
use atencao_core::decoder::sampling::SamplingOptions;
use atencao_core::decoder::session::Session;
use atencao_core::decoder::settle::PositionSettle;
use atencao_core::decoder::DecoderWeights;
use atencao_core::executor::block_on_ready;
use atencao_core::Cpu;

const CONFIG: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../static/model/config.json"));
const TOKENIZER: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../static/model/tokenizer.json"));
const WEIGHTS: &[u8] = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../static/model/model.safetensors"));

fn shipped() -> Model {
    Model::load(Manifest::from_json(CONFIG).unwrap(), TOKENIZER, WEIGHTS).unwrap()
}

/// A tiny random model and a byte-level tokenizer without merges (one token per byte).
fn tiny(seed: u64) -> (Rc<DecoderWeights>, Bpe) {
    (Rc::new(DecoderWeights::random(&DecoderConfig::tiny(), seed)), Bpe::from_merges(Vec::new()).unwrap())
}

const SAMPLED: SamplingOptions = SamplingOptions { temperature: 1.0, top_k: 0, top_p: 1.0 };

// ---------------------------------------------------------------- the reference logit lens

/// x (C) through a layer norm with γ, β, in f64.
fn layer_norm(x: &[f64], gamma: &[f32], beta: &[f32], eps: f32) -> Vec<f64> {
    let c = x.len() as f64;
    let mean = x.iter().sum::<f64>() / c;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / c;
    let inv = 1.0 / (var + eps as f64).sqrt();
    x.iter().zip(gamma).zip(beta).map(|((v, &g), &b)| (v - mean) * inv * g as f64 + b as f64).collect()
}

/// row (n) times W (n, m) given as a row-major slice.
fn times(row: &[f64], w: &[f32], m: usize) -> Vec<f64> {
    let mut out = vec![0.0; m];
    for (i, &r) in row.iter().enumerate() {
        for j in 0..m {
            out[j] += r * w[i * m + j] as f64;
        }
    }
    out
}

/// The logit lens written from the model card, not from the lens's code: the residual after
/// the embedding and after each block, at every position, through the final layer norm and
/// the tied head, then a softmax. Returns [stage][position][token] probabilities.
fn reference_lens(w: &DecoderWeights, ids: &[u32]) -> Vec<Vec<Vec<f64>>> {
    let cfg = &w.config;
    let (c, nh, v) = (cfg.d_model, cfg.n_heads, cfg.vocab_size);
    let hs = c / nh;
    let emb = w.tok_emb.as_slice();
    let mut x: Vec<Vec<f64>> = ids
        .iter()
        .enumerate()
        .map(|(p, &id)| {
            (0..c)
                .map(|j| {
                    let angle = p as f64 / (cfg.pe_theta as f64).powf(2.0 * (j / 2) as f64 / c as f64);
                    let pe = if j % 2 == 0 { angle.sin() } else { angle.cos() };
                    emb[id as usize * c + j] as f64 * (c as f64).sqrt() + pe
                })
                .collect()
        })
        .collect();
    let read = |x: &[Vec<f64>]| -> Vec<Vec<f64>> {
        x.iter()
            .map(|row| {
                let h = layer_norm(row, w.ln_f_gamma.as_slice(), w.ln_f_beta.as_ref().unwrap().as_slice(), cfg.ln_eps);
                let logits: Vec<f64> = (0..v).map(|t| (0..c).map(|j| h[j] * emb[t * c + j] as f64).sum()).collect();
                let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let exps: Vec<f64> = logits.iter().map(|l| (l - max).exp()).collect();
                let sum: f64 = exps.iter().sum();
                exps.iter().map(|e| e / sum).collect()
            })
            .collect()
    };
    let mut stages = vec![read(&x)];
    for b in w.blocks.iter().map(|b| b.original().unwrap()) {
        let h: Vec<Vec<f64>> = x.iter().map(|r| layer_norm(r, b.ln1_gamma.as_slice(), b.ln1_beta.as_slice(), cfg.ln_eps)).collect();
        let q: Vec<Vec<f64>> = h.iter().map(|r| times(r, b.w_q.as_slice(), c)).collect();
        let k: Vec<Vec<f64>> = h.iter().map(|r| times(r, b.w_k.as_slice(), c)).collect();
        let val: Vec<Vec<f64>> = h.iter().map(|r| times(r, b.w_v.as_slice(), c)).collect();
        for p in 0..ids.len() {
            let mut att = vec![0.0; c];
            for head in 0..nh {
                let cols = head * hs..(head + 1) * hs;
                let scores: Vec<f64> = (0..=p).map(|s| cols.clone().map(|j| q[p][j] * k[s][j]).sum::<f64>() / (hs as f64).sqrt()).collect();
                let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let exps: Vec<f64> = scores.iter().map(|s| (s - max).exp()).collect();
                let sum: f64 = exps.iter().sum();
                for (s, e) in exps.iter().enumerate() {
                    for j in cols.clone() {
                        att[j] += e / sum * val[s][j];
                    }
                }
            }
            let projected = times(&att, b.w_o.as_slice(), c);
            for j in 0..c {
                x[p][j] += projected[j];
            }
        }
        for row in x.iter_mut() {
            let h = layer_norm(row, b.ln2_gamma.as_slice(), b.ln2_beta.as_slice(), cfg.ln_eps);
            let hidden: Vec<f64> = times(&h, b.w1.as_slice(), cfg.d_ff).iter().zip(b.b1.as_slice()).map(|(a, &bias)| (a + bias as f64).max(0.0)).collect();
            let out = times(&hidden, b.w2.as_slice(), c);
            for j in 0..c {
                row[j] += out[j] + b.b2.as_slice()[j] as f64;
            }
        }
        stages.push(read(&x));
    }
    stages
}

/// The two most probable (token, p) of a distribution.
fn top_two(probs: &[f64]) -> [(u32, f64); 2] {
    let mut best = [(0u32, f64::NEG_INFINITY), (0u32, f64::NEG_INFINITY)];
    for (t, &p) in probs.iter().enumerate() {
        if p > best[0].1 {
            best = [(t as u32, p), best[0]];
        } else if p > best[1].1 {
            best[1] = (t as u32, p);
        }
    }
    best
}

/// The strip of the whole window from the session's one pass with taps.
fn strip(w: &Rc<DecoderWeights>, bpe: &Bpe, prompt: &str) -> (Vec<u32>, Vec<PositionSettle>) {
    let s = Session::start(&Cpu, w.clone(), bpe, prompt, 1).unwrap();
    let last = s.history().ids.len() - 1;
    let reading = block_on_ready(s.lens_window(&Cpu, last)).unwrap();
    (s.history().ids.clone(), reading.strip)
}

/// The strip against the reference, position by position: the top-1 at every stage where the
/// reference's top two differ by more than 1e-4, and the settle stage where they do at every
/// stage. Returns how many positions were compared in full.
fn agrees_with_the_reference(w: &DecoderWeights, ids: &[u32], strip: &[PositionSettle]) -> usize {
    let reference = reference_lens(w, ids);
    assert_eq!(strip.len(), ids.len());
    let mut compared = 0;
    for (p, got) in strip.iter().enumerate() {
        assert_eq!(got.position, p);
        assert_eq!(got.tops.len(), w.config.n_layers + 1);
        let tops: Vec<[(u32, f64); 2]> = reference.iter().map(|stage| top_two(&stage[p])).collect();
        let clear: Vec<bool> = tops.iter().map(|[a, b]| a.1 - b.1 > 1e-4).collect();
        for (s, [first, _]) in tops.iter().enumerate() {
            let (token, prob) = got.tops[s][0];
            assert!((prob as f64 - first.1).abs() < 1e-4, "position {p}, stage {s}: p {prob} vs {}", first.1);
            if clear[s] {
                assert_eq!(token, first.0, "position {p}, stage {s}: top-1");
            }
        }
        if clear.iter().all(|&c| c) {
            let top1: Vec<u32> = tops.iter().map(|t| t[0].0).collect();
            let last = *top1.last().unwrap();
            let settle = (0..top1.len()).find(|&s| top1[s..].iter().all(|&t| t == last)).unwrap();
            assert_eq!(got.settle, settle, "position {p}: settle stage");
            compared += 1;
        }
    }
    compared
}

/// The definition, checked directly on the strip: from the settle stage on, the top-1 is
/// the final one, and just before it (if any) it is not.
fn settles_by_definition(strip: &[PositionSettle]) {
    for p in strip {
        let top1 = p.top1();
        let last = *top1.last().unwrap();
        assert!(top1[p.settle..].iter().all(|&t| t == last), "{p:?}");
        assert!(p.settle == 0 || top1[p.settle - 1] != last, "{p:?}");
    }
}

#[test]
fn the_strip_on_a_tiny_model_agrees_with_the_reference_lens() {
    for seed in [3, 11, 29] {
        let (w, bpe) = tiny(seed);
        let (ids, strip) = strip(&w, &bpe, "a casa amarela tem uma porta");
        settles_by_definition(&strip);
        let compared = agrees_with_the_reference(&w, &ids, &strip);
        assert!(compared >= ids.len() / 2, "seed {seed}: only {compared} of {} positions clear", ids.len());
    }
}

#[test]
fn the_strip_on_the_shipped_model_agrees_with_the_reference_lens() {
    let m = shipped();
    let w = Rc::new(m.weights.clone());
    let (mut positions, mut compared, mut counts) = (0, 0, vec![0usize; w.config.n_layers + 1]);
    for preset in PRESETS {
        let (ids, strip) = strip(&w, &m.bpe, preset.prompt);
        settles_by_definition(&strip);
        compared += agrees_with_the_reference(&w, &ids, &strip);
        positions += ids.len();
        for p in &strip {
            counts[p.settle] += 1;
        }
    }
    eprintln!("{compared} of {positions} positions compared in full; positions per settle stage: {counts:?}");
    assert!(compared * 10 >= positions * 9, "{compared} of {positions}");
}

#[test]
fn the_lens_of_the_window_is_the_lens_at_the_position() {
    let (w, bpe) = tiny(5);
    let s = Session::start(&Cpu, w.clone(), &bpe, "abcdefgh", 1).unwrap();
    let window = block_on_ready(s.lens_window(&Cpu, 3)).unwrap();
    let alone = block_on_ready(s.lens(&Cpu, 3)).unwrap();
    assert!(alone.strip.is_empty());
    assert_eq!(window.strip.len(), 8);
    for (a, b) in window.readings.iter().zip(&alone.readings) {
        let diff = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max);
        assert!(diff < 1e-5, "{diff}");
    }
    let diff = window.residual.iter().zip(&alone.residual).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max);
    assert!(diff < 1e-5, "{diff}");
    // The strip's position 3 is the detailed reading's top at every stage.
    for stage in 0..window.stages() {
        assert_eq!(window.strip[3].tops[stage][0], window.top(stage, 1)[0]);
    }
    assert!(block_on_ready(s.lens_window(&Cpu, 8)).is_err());
}

// ---------------------------------------------------------------- branches

fn generated(s: &Session<atencao_core::Matrix>) -> Vec<u32> {
    s.history().steps.iter().map(|st| st.token).collect()
}

#[test]
fn branches_keep_the_prefix_and_are_reproducible() {
    let (w, bpe) = tiny(7);
    let mut original = Session::start(&Cpu, w.clone(), &bpe, "ab", 42).unwrap();
    for _ in 0..12 {
        block_on_ready(original.step(&Cpu, &SAMPLED)).unwrap();
    }
    let steps = original.history().steps.clone();
    assert_eq!(steps.len(), 12);
    for (i, s) in steps.iter().enumerate() {
        assert_eq!((s.position, s.chosen), (2 + i, false));
        assert_eq!(s.alternatives.len(), 10);
        assert!(s.alternatives.windows(2).all(|a| a[0].1 >= a[1].1));
        // Its rank and probability are those of the alternatives' list where it is in it.
        if let Some(r) = s.alternatives.iter().position(|a| a.0 == s.token) {
            assert_eq!((s.rank, s.probability), (r + 1, s.alternatives[r].1));
        } else {
            assert!(s.rank > 10);
        }
        assert!((s.drawn_probability - s.probability).abs() < 1e-6, "T = 1, no cut: the same distribution");
        assert_eq!(s.positions_run, if i == 0 { 2 } else { 1 });
    }

    // Another token at step 4, then 7 more: twice, from fresh sessions.
    let other = steps[4].alternatives.iter().map(|a| a.0).find(|&t| t != steps[4].token).unwrap();
    let branch = || {
        let mut s = Session::start(&Cpu, w.clone(), &bpe, "ab", 42).unwrap();
        for _ in 0..12 {
            block_on_ready(s.step(&Cpu, &SAMPLED)).unwrap();
        }
        block_on_ready(s.branch_and_generate(&Cpu, 4, other, &SAMPLED, 7)).unwrap();
        s
    };
    let (a, b) = (branch(), branch());
    assert_eq!(a.history().ids, b.history().ids);
    assert_eq!(a.history().steps, b.history().steps);
    assert_eq!(a.history().ids.len(), 2 + 12);
    assert_eq!(a.history().ids[..6], original.history().ids[..6], "the prefix is kept");
    assert_eq!(a.history().steps[..4], steps[..4]);
    let chosen = &a.history().steps[4];
    assert_eq!((chosen.token, chosen.chosen), (other, true));
    assert_eq!(a.cached(), a.history().ids.len());

    // A link (seed, settings, choices) gives the same branch from nothing.
    let spec = a.history().branch_spec("ab", SAMPLED);
    assert_eq!(spec.choices.len(), 1);
    let replayed = block_on_ready(Session::replay(&Cpu, w.clone(), &bpe, &spec)).unwrap();
    assert_eq!(replayed.history().ids, a.history().ids);
    assert_eq!(replayed.history().steps, a.history().steps);

    // The same branch made live on the branch itself, back to the original: choosing the
    // token that was drawn gives back the original text.
    let mut back = branch();
    block_on_ready(back.branch_and_generate(&Cpu, 4, steps[4].token, &SAMPLED, 7)).unwrap();
    assert_eq!(back.history().ids, original.history().ids);
    assert_eq!(generated(&back), generated(&original));
    let logp = |s: &Session<atencao_core::Matrix>| s.history().steps.iter().map(|s| s.log_probability).collect::<Vec<_>>();
    assert_eq!(logp(&back), logp(&original));
    assert_eq!(back.history().logits, original.history().logits);
}

#[test]
fn choosing_the_drawn_token_at_every_step_reproduces_the_generation() {
    let (w, bpe) = tiny(13);
    let opts = SamplingOptions { temperature: 0.8, top_k: 20, top_p: 0.9 };
    let mut original = Session::start(&Cpu, w.clone(), &bpe, "xyz", 9).unwrap();
    for _ in 0..10 {
        block_on_ready(original.step(&Cpu, &opts)).unwrap();
    }
    for step in [0, 3, 9] {
        let mut s = Session::start(&Cpu, w.clone(), &bpe, "xyz", 9).unwrap();
        for _ in 0..10 {
            block_on_ready(s.step(&Cpu, &opts)).unwrap();
        }
        let drawn = original.history().steps[step].token;
        block_on_ready(s.branch_and_generate(&Cpu, step, drawn, &opts, 9 - step)).unwrap();
        assert_eq!(s.history().ids, original.history().ids, "step {step}");
        assert_eq!(s.history().steps[step].drawn_probability, original.history().steps[step].drawn_probability);
    }
}

/// The log-probability of the sequence is the sum of each step's ln p, each computed here from
/// a fresh pass over the text before it (no cache shared with the generation).
#[test]
fn a_branch_s_log_probability_is_the_sum_of_its_steps() {
    for (w, bpe, prompt) in [(tiny(3).0, tiny(3).1, "uma"), {
        let m = shipped();
        (Rc::new(m.weights.clone()), m.bpe.clone(), "Os meninos")
    }] {
        let mut s = Session::start(&Cpu, w.clone(), &bpe, prompt, 5).unwrap();
        for _ in 0..8 {
            block_on_ready(s.step(&Cpu, &SAMPLED)).unwrap();
        }
        let second = s.history().steps[2].alternatives[3].0;
        block_on_ready(s.branch_and_generate(&Cpu, 2, second, &SAMPLED, 4)).unwrap();
        let h = s.history();
        let mut expected = 0.0f64;
        for st in &h.steps {
            let mut cache = KvCache::new(&Cpu, &w.config).unwrap();
            let out = block_on_ready(read_forward(&Cpu, &forward(&Cpu, &w, &h.ids[..st.position], &mut cache).unwrap())).unwrap();
            let logits: Vec<f64> = out.logits.row(0).iter().map(|&l| l as f64).collect();
            let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let log_sum = logits.iter().map(|l| (l - max).exp()).sum::<f64>().ln();
            let lp = logits[st.token as usize] - max - log_sum;
            assert!((st.log_probability - lp).abs() < 1e-4, "{prompt}: step at {}: {} vs {lp}", st.position, st.log_probability);
            expected += lp;
        }
        assert!((h.log_probability() - expected).abs() < 1e-3, "{prompt}: {} vs {expected}", h.log_probability());
        assert!(h.log_probability() < 0.0);
    }
}

#[test]
fn a_branch_behind_a_slide_of_the_window_is_refused() {
    let (w, bpe) = tiny(2);
    let context = w.config.context;
    let mut s = Session::start(&Cpu, w, &bpe, &"y".repeat(context - 2), 1).unwrap();
    for _ in 0..4 {
        block_on_ready(s.step(&Cpu, &SAMPLED)).unwrap();
    }
    assert!(s.history().dropped > 0);
    let err = s.branch(0, 5).unwrap_err().to_string();
    assert!(err.contains("deslizou"), "{err}");
    assert!(s.branch(40, 5).is_err());
    assert!(s.choose(100_000).is_err());
    // After the slide, branching at the last step works.
    let last = s.history().steps.len() - 1;
    s.branch(last, 5).unwrap();
    block_on_ready(s.step(&Cpu, &SAMPLED)).unwrap();
    assert_eq!(*s.history().ids.last().unwrap(), 5);
}

// ---------------------------------------------------------------- the KV cache

#[test]
fn with_and_without_the_cache_the_same_logits_and_tokens() {
    let m = shipped();
    for (w, bpe, prompt) in [(tiny(4).0, tiny(4).1, "abc"), (Rc::new(m.weights.clone()), m.bpe.clone(), "Capitu")] {
        let mut cached = Session::start(&Cpu, w.clone(), &bpe, prompt, 77).unwrap();
        let mut uncached = Session::start(&Cpu, w.clone(), &bpe, prompt, 77).unwrap();
        uncached.set_kv_cache(false);
        assert!(cached.kv_cache() && !uncached.kv_cache());
        for step in 0..16 {
            block_on_ready(cached.sync(&Cpu)).unwrap();
            block_on_ready(uncached.sync(&Cpu)).unwrap();
            let (a, b) = (&cached.history().logits, &uncached.history().logits);
            let diff = a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max);
            assert!(diff < 1e-5, "{prompt}, step {step}: {diff}");
            let window = cached.history().ids.len();
            assert_eq!(uncached.history().last_pass, window, "without the cache every pass runs the window");
            assert_eq!(cached.history().last_pass, if step == 0 { window } else { 1 }, "prefill, then one row per token");
            let (x, y) = (block_on_ready(cached.step(&Cpu, &SAMPLED)).unwrap(), block_on_ready(uncached.step(&Cpu, &SAMPLED)).unwrap());
            assert_eq!(x, y, "{prompt}, step {step}");
        }
        assert_eq!(cached.history().ids, uncached.history().ids);
        let (kept, none) = (cached.cache_state(), uncached.cache_state());
        let window = cached.history().ids.len();
        assert_eq!((kept.on, kept.positions, kept.last_pass), (true, window, 1));
        assert_eq!((none.on, none.positions, none.last_pass, none.bytes_per_layer), (false, 0, window, 0));
        assert_eq!(kept.bytes_per_layer, 2 * window * w.config.d_model * 4);
        assert_eq!((kept.layers, kept.reserved_per_layer), (w.config.n_layers, 2 * w.config.context * w.config.d_model * 4));
        let runs: Vec<usize> = uncached.history().steps.iter().map(|s| s.positions_run).collect();
        assert_eq!(runs, (0..16).map(|i| cached.history().prompt_len + i).collect::<Vec<_>>());
    }
}

#[test]
fn the_cache_s_size_per_layer_is_two_rows_of_c_floats_per_position() {
    let shipped = DecoderConfig::shipped();
    // K and V, 192 f32 each, per position: 1 536 bytes; 128 positions: 196 608.
    assert_eq!(shipped.kv_cache_bytes_per_layer(1), 1_536);
    assert_eq!(shipped.kv_cache_bytes_per_layer(128), 196_608);
    assert_eq!(shipped.kv_cache_bytes_per_layer(0), 0);
    for cfg in [DecoderConfig::tiny(), shipped] {
        // What the session's cache reserves for the whole context, layer by layer.
        let cache = KvCache::new(&Cpu, &cfg).unwrap();
        for l in 0..cfg.n_layers {
            let bytes = (cache.keys[l].as_slice().len() + cache.values[l].as_slice().len()) * 4;
            assert_eq!(bytes, cfg.kv_cache_bytes_per_layer(cfg.context));
        }
        for len in [1, 7, cfg.context] {
            assert_eq!(cfg.kv_cache_bytes_per_layer(len), 2 * len * cfg.d_model * 4);
        }
    }
}

// ---------------------------------------------------------------- pinned words

#[test]
fn pinned_words_on_the_meninos_preset() {
    let m = shipped();
    let w = Rc::new(m.weights.clone());
    let preset = PRESETS.iter().find(|p| p.id == "meninos").unwrap();
    let mut s = Session::start(&Cpu, w.clone(), &m.bpe, preset.prompt, 1).unwrap();
    block_on_ready(s.sync(&Cpu)).unwrap();
    let last = s.history().ids.len() - 1;
    let lens = block_on_ready(s.lens_window(&Cpu, last)).unwrap();
    let distribution = s.history().distribution(1.0);
    let pins = pin(&m.bpe, preset.prompt, &preset.pinned().join(", "), &distribution, Some(&lens)).unwrap();
    assert_eq!(pins.iter().map(|p| p.text.as_str()).collect::<Vec<_>>(), vec!["eram", "era"]);
    for (p, word) in pins.iter().zip([" eram", " era"]) {
        assert_eq!(Some(p.token), first_token(&m, word), "the claim's token");
        assert_eq!(p.probability, distribution[p.token as usize]);
        assert_eq!(p.stages.len(), w.config.n_layers + 1);
        assert!((p.stages[w.config.n_layers] - p.probability).abs() < 1e-5, "the last stage is the model");
        let ahead = distribution.iter().filter(|&&q| q > p.probability).count();
        assert_eq!(p.rank, ahead + 1);
        eprintln!("«{}»: {} (posição {}), na lente {:?}", p.label, p.probability, p.rank, p.stages);
    }
    // The claim (eram over era) is what the pins show.
    assert!(pins[0].probability > pins[1].probability);
}
