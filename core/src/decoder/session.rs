//! A generation session: the one place that decides what the model sees and what it says
//! next. It owns the context (prompt and generated tokens), the context-window rule, the KV
//! cache on the backend (appended in place), the next-token logits, the attention history
//! the playground draws, and sampling with its own seeded generator. A widget only draws it.
//!
//! The host-side state (`History`) is separate from the backend's (`Session`: weights and
//! cache), so a session can move to another backend mid-generation (`into_history`, then
//! `Session::resume`): the new backend recomputes the context once and generation goes on
//! with the same generator, so a fixed seed gives the same text on both backends.
//!
//! Each generated token is recorded with the choice it was made from (`branches::Step`), so a
//! reader can go back to any step and take another token (`branch`), and a link's seed and
//! choices make the same text again (`replay`). The KV cache can be switched off
//! (`set_kv_cache`) to show what it saves: the tokens are the same.

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use crate::error::{ComputeError, Result};
use crate::executor::{BackendKind, Executor};
use crate::matrix::Matrix;
use crate::rng::Rng;
use crate::runtime::{Fallback, Placed, Runtime};
use crate::trace::{Clock, Trace, Traced};

use super::config::DecoderConfig;
use super::lens::{forward_with_lens, forward_with_strip, read_forward_with_lens, LensReading};
use super::model::{forward, read_forward, KvCache};
use super::branches::{sequence_log_probability, BranchSpec, Choice, Step};
use super::sampling::{probabilities, sample_with_probability, sampling_distribution, SamplingOptions};
use super::tokenizer::TokenCodec;
use super::weights::DecoderWeights;

/// The context-window rule, the only one: the window holds at most `context` tokens; when it
/// would hold more (a long prompt, or generation reaching the end), the oldest tokens leave
/// so that a quarter of the context is free again, and the rest is recomputed from position 0.
/// Returns how many tokens leave a window of `len` tokens.
pub fn tokens_to_drop(len: usize, context: usize) -> usize {
    if len > context {
        len - (context - context / 4)
    } else {
        0
    }
}

/// What the model has seen and predicts, whatever backend computes it: plain data (serde),
/// so it can cross to and from a worker.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct History {
    /// Token ids in the window: the prompt's (what is left of it), then the generated ones.
    pub ids: Vec<u32>,
    /// How many of `ids` came from the prompt.
    pub prompt_len: usize,
    /// Tokens that left the window (the prompt's first, then generated ones).
    pub dropped: usize,
    /// The seed the generator started from (shown to the reader, and in shared links).
    pub seed: u64,
    rng: Rng,
    /// Logits of the token after the last id (empty until the first pass).
    pub logits: Vec<f32>,
    /// Per layer and head (index layer·nh + head), row i = position i's attention over
    /// positions 0..=i.
    pub attention: Vec<Vec<Vec<f32>>>,
    /// Every generated token with the choice it was made from (`branches::Step`).
    pub steps: Vec<Step>,
    /// Positions the last forward pass ran (the prompt's at once, then 1 per token with the
    /// KV cache, the whole window without it): the step-through of prefill and decode.
    pub last_pass: usize,
    /// A token the reader chose for the next step, taken instead of the drawn one.
    choice: Option<u32>,
}

impl History {
    /// The prompt's tokens, cut to the window if it is too long.
    pub fn new(config: &DecoderConfig, tokenizer: &(impl TokenCodec + ?Sized), prompt: &str, seed: u64) -> Result<History> {
        if prompt.trim().is_empty() {
            return Err(ComputeError::Invalid("Escreva um texto inicial: o modelo continua a partir dele.".into()));
        }
        // A tokenizer larger than the model's vocabulary could give ids the model has no row for.
        if tokenizer.vocab_size() > config.vocab_size {
            return Err(ComputeError::Invalid(format!(
                "O tokenizador tem {} tokens, mas o modelo só conhece {}.",
                tokenizer.vocab_size(),
                config.vocab_size
            )));
        }
        let mut ids = tokenizer.encode_checked(prompt)?;
        let dropped = tokens_to_drop(ids.len(), config.context);
        ids.drain(..dropped);
        Ok(History {
            prompt_len: ids.len(),
            ids,
            dropped,
            seed,
            rng: Rng::new(seed),
            logits: Vec::new(),
            attention: vec![Vec::new(); config.n_layers * config.n_heads],
            steps: Vec::new(),
            last_pass: 0,
            choice: None,
        })
    }

    /// Starts the generator again from `seed` (the playground draws a fresh one per "Gerar"
    /// unless the reader fixes it): the same window, seed and settings give the same text.
    pub fn reseed(&mut self, seed: u64) {
        self.seed = seed;
        self.rng = Rng::new(seed);
    }

    /// Whether generated step `step` can still be gone back to (`Session::rewind`), or why
    /// not: it was never generated, or the window has slid since the pass behind its logits.
    pub fn check_rewind(&self, step: usize) -> Result<&Step> {
        let Some(s) = self.steps.get(step) else {
            return Err(ComputeError::Invalid(format!("O passo {} não foi gerado.", step + 1)));
        };
        if s.window_start != self.dropped || s.position < self.dropped + s.positions_run {
            return Err(ComputeError::Invalid("A janela de contexto deslizou depois desse token: não dá mais para voltar a ele.".into()));
        }
        Ok(s)
    }

    /// The log-probability of the generated tokens (`branches::sequence_log_probability`).
    pub fn log_probability(&self) -> f64 {
        sequence_log_probability(&self.steps)
    }

    /// The generation as a link describes it: `prompt` (the text the history started from),
    /// its seed, `options`, and the reader's choices.
    pub fn branch_spec(&self, prompt: &str, options: SamplingOptions) -> BranchSpec {
        let choices = self.steps.iter().enumerate().filter(|(_, s)| s.chosen).map(|(step, s)| Choice { step, token: s.token }).collect();
        BranchSpec { prompt: prompt.to_string(), seed: self.seed, options, choices, steps: self.steps.len() }
    }

    /// The next token's distribution at `temperature` (the bars the playground draws).
    pub fn distribution(&self, temperature: f32) -> Vec<f32> {
        probabilities(&self.logits, temperature)
    }

    /// One head's attention (index layer·nh + head) over the last `last` positions, as a
    /// square matrix (the future's weight is 0), and the first position it shows.
    pub fn attention_window(&self, index: usize, last: usize) -> (Matrix, usize) {
        attention_window(self.attention.get(index).map_or(&[][..], Vec::as_slice), last)
    }

    /// The window as text: the prompt's part and the generated part, decoded together so a
    /// character split across two tokens comes out whole.
    pub fn texts(&self, tokenizer: &(impl TokenCodec + ?Sized)) -> (String, String) {
        let prompt = tokenizer.decode_ids(&self.ids[..self.prompt_len]);
        let all = tokenizer.decode_ids(&self.ids);
        let generated = all.strip_prefix(&prompt).map(str::to_string).unwrap_or_else(|| tokenizer.decode_ids(&self.ids[self.prompt_len..]));
        (prompt, generated)
    }
}

/// One head's causal attention `rows` (row i over positions 0..=i) over the last `last`
/// positions, as a square matrix (the future's weight is 0), and the first position it shows.
pub fn attention_window(rows: &[Vec<f32>], last: usize) -> (Matrix, usize) {
    let start = rows.len().saturating_sub(last);
    let size = rows.len() - start;
    let mut m = Matrix::zeros(size, size);
    for (r, row) in rows[start..].iter().enumerate() {
        for c in 0..size {
            m.set(r, c, row.get(start + c).copied().unwrap_or(0.0));
        }
    }
    (m, start)
}

/// A history with the model on one backend: its weights (uploaded once) and its KV cache.
pub struct Session<T> {
    history: History,
    weights: Rc<DecoderWeights<T>>,
    cache: KvCache<T>,
    /// Where it computes (the executor it was started or resumed on).
    on: BackendKind,
    /// The weights on the host, for a session on a `Runtime` to go on on the CPU after a
    /// device failure (`keep_host_copy`).
    host: Option<Rc<DecoderWeights>>,
    /// Whether passes reuse the keys and values cached (true) or recompute the whole window
    /// at every token (false: what the cache saves, made visible).
    kv_cache: bool,
}

/// What one resilient step of a session did (`Session::advance`).
#[derive(Debug, Default)]
pub struct Advanced {
    /// The token sampled (a step), none for a sync.
    pub token: Option<u32>,
    /// Its ops, when traced.
    pub trace: Option<Trace>,
    /// Set when a device failure sent the session to the CPU during this step.
    pub fallback: Option<Fallback>,
}

/// What the KV cache holds after the last pass: the step-through of prefill and decode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CacheState {
    /// Whether the session generates with the cache.
    pub on: bool,
    /// Positions whose keys and values are kept for the next pass (0 without the cache: each
    /// pass computes them all again).
    pub positions: usize,
    /// Positions the last pass ran: the whole prompt at once (prefill), then 1 per token with
    /// the cache, the whole window without it.
    pub last_pass: usize,
    pub layers: usize,
    /// Bytes of the kept keys and values, per layer (`DecoderConfig::kv_cache_bytes_per_layer`).
    pub bytes_per_layer: usize,
    /// Bytes reserved per layer: the whole context, allocated when the session starts.
    pub reserved_per_layer: usize,
}

/// What `Session::generate` did.
#[derive(Debug, Default)]
pub struct Generation {
    /// Tokens sampled and run.
    pub made: usize,
    /// The last token's ops, when asked (`generate`'s `trace_last`).
    pub trace: Option<Trace>,
    pub fallback: Option<Fallback>,
}

impl<T: Clone> Session<T> {
    /// A new session on `prompt` (nothing computed yet: `sync` runs the prompt).
    pub fn start<E: Executor<Tensor = T>>(
        e: &E,
        weights: Rc<DecoderWeights<T>>,
        tokenizer: &(impl TokenCodec + ?Sized),
        prompt: &str,
        seed: u64,
    ) -> Result<Session<T>> {
        let history = History::new(&weights.config, tokenizer, prompt, seed)?;
        Session::resume(e, weights, history)
    }

    /// Goes on with `history` on `e`'s backend: the next `sync` recomputes the window there.
    pub fn resume<E: Executor<Tensor = T>>(e: &E, weights: Rc<DecoderWeights<T>>, history: History) -> Result<Session<T>> {
        let cache = KvCache::new(e, &weights.config)?;
        Ok(Session { history, weights, cache, on: e.kind(), host: None, kv_cache: true })
    }

    /// Keeps `host`, the weights on the host, for a fallback to the CPU (`advance`).
    pub fn keep_host_copy(mut self, host: Rc<DecoderWeights>) -> Self {
        self.host = Some(host);
        self
    }

    /// Generates with the KV cache (the default) or without it: each pass then recomputes
    /// the whole window from position 0. The tokens are the same either way. Turning it off
    /// empties the cache, so the next `sync` runs the window again, as every pass will.
    pub fn set_kv_cache(&mut self, on: bool) {
        self.kv_cache = on;
        if !on {
            self.cache.clear();
        }
    }

    pub fn kv_cache(&self) -> bool {
        self.kv_cache
    }

    /// What the cache holds now (`CacheState`).
    pub fn cache_state(&self) -> CacheState {
        let config = &self.weights.config;
        let positions = if self.kv_cache { self.cache.len() } else { 0 };
        CacheState {
            on: self.kv_cache,
            positions,
            last_pass: self.history.last_pass,
            layers: config.n_layers,
            bytes_per_layer: config.kv_cache_bytes_per_layer(positions),
            reserved_per_layer: config.kv_cache_bytes_per_layer(config.context),
        }
    }

    /// Where the session computes now.
    pub fn on(&self) -> BackendKind {
        self.on
    }

    pub fn history(&self) -> &History {
        &self.history
    }

    /// Restarts the generator from `seed` (see `History::reseed`).
    pub fn reseed(&mut self, seed: u64) {
        self.history.reseed(seed);
    }

    /// The host-side state, to resume elsewhere (the cache stays behind).
    pub fn into_history(self) -> History {
        self.history
    }

    pub fn config(&self) -> &DecoderConfig {
        &self.weights.config
    }

    /// Positions whose keys and values are in the cache.
    pub fn cached(&self) -> usize {
        self.cache.len()
    }

    /// Runs the tokens of the window the cache does not hold yet (all of them after a new
    /// prompt, a slide or a backend change; one after a step) and reads back the next-token
    /// logits and their attention rows: one forward pass, one readback. A no-op when the
    /// cache is up to date. On failure the cache is forgotten (the next sync recomputes).
    pub async fn sync<E: Executor<Tensor = T>>(&mut self, e: &E) -> Result<()> {
        if self.cache.len() == self.history.ids.len() && !self.history.logits.is_empty() {
            return Ok(());
        }
        if !self.kv_cache {
            self.cache.clear();
        }
        let from = self.cache.len();
        if from == 0 {
            for rows in &mut self.history.attention {
                rows.clear();
            }
        }
        let result = async {
            let pass = forward(e, &self.weights, &self.history.ids[from..], &mut self.cache)?;
            read_forward(e, &pass).await
        }
        .await;
        let out = match result {
            Ok(out) => out,
            Err(error) => {
                self.cache.clear();
                return Err(error);
            }
        };
        let (heads, new_rows) = (self.weights.config.n_heads, self.history.ids.len() - from);
        for (layer, weights) in out.attention.iter().enumerate() {
            for head in 0..heads {
                for r in 0..new_rows {
                    self.history.attention[layer * heads + head].push(weights.row(head * new_rows + r));
                }
            }
        }
        self.history.logits = out.logits.row(0);
        self.history.last_pass = new_rows;
        Ok(())
    }

    /// The logit lens at window position `position`: what the model predicts after
    /// `ids[..=position]`, read after the embedding and after each block, and the parts each
    /// head adds there. A pass of its own from position 0 on this backend, with a scratch
    /// cache (the session's cache is left as it is).
    pub async fn lens<E: Executor<Tensor = T>>(&self, e: &E, position: usize) -> Result<LensReading> {
        self.lens_with::<E, false>(e, position).await
    }

    /// The lens at `position` as `lens` gives it, and the strip of where every position of
    /// the window settles (`LensReading::strip`), from one pass over the whole window (its
    /// position `position` is the same as a pass over `ids[..=position]`: attention is causal).
    pub async fn lens_window<E: Executor<Tensor = T>>(&self, e: &E, position: usize) -> Result<LensReading> {
        self.lens_with::<E, true>(e, position).await
    }

    /// The lens at `position`, with the strip when `EVERY` (a constant, so the playground's
    /// plain lens carries no strip code in the wasm).
    async fn lens_with<E: Executor<Tensor = T>, const EVERY: bool>(&self, e: &E, position: usize) -> Result<LensReading> {
        let ids = &self.history.ids;
        if position >= ids.len() {
            return Err(ComputeError::Invalid(format!("A posição {} não está no contexto.", position + 1)));
        }
        let mut scratch = KvCache::new(e, &self.weights.config)?;
        let (pass, taps) = if EVERY {
            forward_with_strip(e, &self.weights, ids, &mut scratch, position)?
        } else {
            forward_with_lens(e, &self.weights, &ids[..=position], &mut scratch)?
        };
        Ok(read_forward_with_lens(e, &pass, &taps).await?.1)
    }

    /// Takes `token` instead of the drawn one at the next step (the generator still draws).
    pub fn choose(&mut self, token: u32) -> Result<()> {
        if token as usize >= self.weights.config.vocab_size {
            return Err(ComputeError::Invalid(format!("O token {token} não está no vocabulário.")));
        }
        self.history.choice = Some(token);
        Ok(())
    }

    /// Goes back to just before generated step `step`: the prompt and the steps before it
    /// stay, the generator is where that step drew, and the cache keeps what the pass behind
    /// that step's logits started from, so the next pass is that pass again (the same logits,
    /// bit for bit, on the backend that made them). Refused once the window has slid past it.
    pub fn rewind(&mut self, step: usize) -> Result<()> {
        let s = self.history.check_rewind(step)?.clone();
        let h = &mut self.history;
        let at = s.position - h.dropped;
        self.cache.truncate(at - s.positions_run);
        h.rng = Rng::new(s.generator);
        h.ids.truncate(at);
        h.steps.truncate(step);
        h.choice = None;
        h.logits.clear();
        for rows in &mut h.attention {
            rows.truncate(self.cache.len());
        }
        Ok(())
    }

    /// A branch: back to step `step` (`rewind`), where `token` replaces the drawn one at the
    /// next step; the steps that follow generate again with the same generator.
    pub fn branch(&mut self, step: usize, token: u32) -> Result<()> {
        self.rewind(step)?;
        self.choose(token)
    }

    /// `branch`, then the chosen token and `after` more, with `opts`.
    pub async fn branch_and_generate<E: Executor<Tensor = T>>(&mut self, e: &E, step: usize, token: u32, opts: &SamplingOptions, after: usize) -> Result<()> {
        self.branch(step, token)?;
        for _ in 0..=after {
            self.step(e, opts).await?;
        }
        Ok(())
    }

    /// The text a link describes (`BranchSpec`): `spec.prompt` from `spec.seed`, `spec.steps`
    /// tokens, the reader's choices at their steps.
    pub async fn replay<E: Executor<Tensor = T>>(
        e: &E,
        weights: Rc<DecoderWeights<T>>,
        tokenizer: &(impl TokenCodec + ?Sized),
        spec: &BranchSpec,
    ) -> Result<Session<T>> {
        let mut session = Session::start(e, weights, tokenizer, &spec.prompt, spec.seed)?;
        for step in 0..spec.steps {
            if let Some(token) = spec.choice_at(step) {
                session.choose(token)?;
            }
            session.step(e, &spec.options).await?;
        }
        Ok(session)
    }

    /// Samples the next token from the current logits with the session's generator, appends
    /// it (sliding the window if it is full) and runs the model on it. Returns the token.
    /// A token the reader chose (`choose`, `branch`) is taken instead of the drawn one; the
    /// generator draws all the same, so the draws after it are the original's. The step is
    /// recorded in `History::steps`.
    pub async fn step<E: Executor<Tensor = T>>(&mut self, e: &E, opts: &SamplingOptions) -> Result<u32> {
        self.sync(e).await?;
        let h = &mut self.history;
        let generator = h.rng.state();
        let (drawn, drawn_probability) = sample_with_probability(&h.logits, opts, &mut h.rng)?;
        let choice = h.choice.take();
        let next = choice.unwrap_or(drawn);
        let drawn_probability = match choice {
            Some(token) => sampling_distribution(&h.logits, opts).get(token as usize).copied().unwrap_or(0.0),
            None => drawn_probability,
        };
        let step = Step {
            position: h.dropped + h.ids.len(),
            positions_run: h.last_pass,
            window_start: h.dropped,
            generator,
            ..Step::new(&h.logits, next, drawn_probability, choice.is_some())
        };
        h.steps.push(step);
        h.ids.push(next);
        let drop = tokens_to_drop(h.ids.len(), self.weights.config.context);
        if drop > 0 {
            h.ids.drain(..drop);
            h.prompt_len -= drop.min(h.prompt_len);
            h.dropped += drop;
            self.cache.clear();
        }
        self.sync(e).await?;
        Ok(next)
    }
}

impl<G: Clone> Session<Placed<G>> {
    /// One step (`Some(opts)`: sample and run a token; `None`: bring the cache up to date) on
    /// `rt`, traced when `trace` gives a clock. A device failure moves the session to the CPU
    /// (the history is its host copy; the weights come from `keep_host_copy`) and redoes what
    /// failed there: only the pass when the token was already sampled (it is kept, and the
    /// generator is not drawn twice), so the text is the one a CPU-only session would write.
    /// A session that fell back stays on the CPU whatever `rt` says, until it is resumed.
    pub async fn advance<D: Executor<Tensor = G>>(&mut self, rt: &Runtime<'_, D>, opts: Option<&SamplingOptions>, trace: Option<Clock<'_>>) -> Result<Advanced> {
        let cpu = Runtime::<D>::Cpu;
        let rt = if self.on == BackendKind::Cpu { &cpu } else { rt };
        let before = (self.history.ids.len(), self.history.dropped);
        match self.advance_on(rt, opts, trace).await {
            Err(error) if error.is_gpu_failure() && rt.kind() != BackendKind::Cpu => {
                let sampled = (self.history.ids.len(), self.history.dropped) != before;
                let at = self.history.ids.len();
                self.fall_back::<D>(&error)?;
                let mut done = self.advance_on(&cpu, if sampled { None } else { opts }, trace).await?;
                if sampled {
                    done.token = self.history.ids.last().copied();
                }
                done.fallback = Some(Fallback { error, at, resumed_from: at });
                Ok(done)
            }
            other => other,
        }
    }

    async fn advance_on<D: Executor<Tensor = G>>(&mut self, rt: &Runtime<'_, D>, opts: Option<&SamplingOptions>, trace: Option<Clock<'_>>) -> Result<Advanced> {
        let Some(clock) = trace else {
            let token = match opts {
                Some(o) => Some(self.step(rt, o).await?),
                None => self.sync(rt).await.map(|()| None)?,
            };
            return Ok(Advanced { token, ..Advanced::default() });
        };
        let tracer = Traced::new(rt, clock);
        let token = match opts {
            Some(o) => Some(self.step(&tracer, o).await?),
            None => self.sync(&tracer).await.map(|()| None)?,
        };
        Ok(Advanced { token, trace: Some(tracer.finish()), fallback: None })
    }

    /// Moves the session to the CPU after `error`: host weights, a fresh cache (the next pass
    /// recomputes the window from the history).
    fn fall_back<D: Executor<Tensor = G>>(&mut self, error: &ComputeError) -> Result<()> {
        let host = self.host.clone().ok_or_else(|| error.clone())?;
        let cpu = Runtime::<D>::Cpu;
        let weights = Rc::new(host.try_map(|m| Ok(Placed::Host(m.clone())))?);
        self.cache = KvCache::new(&cpu, &weights.config)?;
        self.weights = weights;
        self.on = BackendKind::Cpu;
        Ok(())
    }

    /// Samples and runs up to `n` tokens on `rt` (each through `advance`), the last one traced
    /// when `trace_last` gives a clock. `on_token(token, made)` sees each one and returns
    /// whether to go on: a stop, or the end of the caller's time slice (it calls again).
    pub async fn generate<D: Executor<Tensor = G>>(
        &mut self,
        rt: &Runtime<'_, D>,
        n: usize,
        opts: &SamplingOptions,
        trace_last: Option<Clock<'_>>,
        mut on_token: impl FnMut(u32, usize) -> bool,
    ) -> Result<Generation> {
        let mut out = Generation::default();
        while out.made < n {
            let done = self.advance(rt, Some(opts), trace_last.filter(|_| out.made + 1 == n)).await?;
            out.made += 1;
            out.fallback = done.fallback.or(out.fallback);
            out.trace = done.trace;
            if !on_token(done.token.unwrap_or_default(), out.made) {
                break;
            }
        }
        Ok(out)
    }

    /// `lens` on `rt`, traced when `trace` gives a clock, with the same fallback as `advance`
    /// (the session moves to the CPU and reads it there).
    pub async fn lens_on<D: Executor<Tensor = G>>(&mut self, rt: &Runtime<'_, D>, position: usize, trace: Option<Clock<'_>>) -> Result<(LensReading, Advanced)> {
        self.lens_on_with::<D, false>(rt, position, trace).await
    }

    /// `lens_window` on `rt`, as `lens_on`: the lens at `position` and the settle strip.
    pub async fn lens_window_on<D: Executor<Tensor = G>>(&mut self, rt: &Runtime<'_, D>, position: usize, trace: Option<Clock<'_>>) -> Result<(LensReading, Advanced)> {
        self.lens_on_with::<D, true>(rt, position, trace).await
    }

    async fn lens_on_with<D: Executor<Tensor = G>, const EVERY: bool>(&mut self, rt: &Runtime<'_, D>, position: usize, trace: Option<Clock<'_>>) -> Result<(LensReading, Advanced)> {
        let cpu = Runtime::<D>::Cpu;
        let rt = if self.on == BackendKind::Cpu { &cpu } else { rt };
        match self.lens_traced::<D, EVERY>(rt, position, trace).await {
            Err(error) if error.is_gpu_failure() && rt.kind() != BackendKind::Cpu => {
                let at = self.history.ids.len();
                self.fall_back::<D>(&error)?;
                let (reading, mut done) = self.lens_traced::<D, EVERY>(&cpu, position, trace).await?;
                done.fallback = Some(Fallback { error, at, resumed_from: at });
                Ok((reading, done))
            }
            other => other,
        }
    }

    async fn lens_traced<D: Executor<Tensor = G>, const EVERY: bool>(&self, rt: &Runtime<'_, D>, position: usize, trace: Option<Clock<'_>>) -> Result<(LensReading, Advanced)> {
        let Some(clock) = trace else { return Ok((self.lens_with::<_, EVERY>(rt, position).await?, Advanced::default())) };
        let tracer = Traced::new(rt, clock);
        let reading = self.lens_with::<_, EVERY>(&tracer, position).await?;
        Ok((reading, Advanced { trace: Some(tracer.finish()), ..Advanced::default() }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::Cpu;
    use crate::executor::block_on_ready;

    use crate::bpe::Bpe;

    /// A tiny model and a byte-level tokenizer with no merges (one token per byte).
    fn tiny() -> (Rc<DecoderWeights>, Bpe) {
        let cfg = DecoderConfig::tiny();
        (Rc::new(DecoderWeights::random(&cfg, 11)), Bpe::from_merges(Vec::new()).unwrap())
    }

    #[test]
    fn the_lens_at_the_last_position_is_the_next_token_distribution() {
        let (w, bpe) = tiny();
        let mut s = Session::start(&Cpu, w.clone(), &bpe, "a casa", 3).unwrap();
        block_on_ready(s.sync(&Cpu)).unwrap();
        let last = s.history().ids.len() - 1;
        let lens = block_on_ready(s.lens(&Cpu, last)).unwrap();
        let model = s.history().distribution(1.0);
        let read = &lens.readings[w.config.n_layers];
        let diff = model.iter().zip(read).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        assert!(diff < 1e-5, "{diff}");
        assert_eq!(s.cached(), s.history().ids.len(), "the session's cache is untouched");
        assert!(block_on_ready(s.lens(&Cpu, last + 1)).is_err());
    }

    #[test]
    fn the_enlarged_window_and_the_two_texts() {
        let (w, bpe) = tiny();
        let mut s = Session::start(&Cpu, w, &bpe, "abcdef", 3).unwrap();
        for _ in 0..4 {
            block_on_ready(s.step(&Cpu, &SamplingOptions::greedy())).unwrap();
        }
        let h = s.history();
        let (m, start) = h.attention_window(1, 4);
        assert_eq!((m.shape(), start), ((4, 4), 6));
        assert_eq!(m.get(3, 3), h.attention[1][9][9]);
        assert_eq!((m.get(0, 1), m.get(2, 0)), (0.0, h.attention[1][8][6]), "the future is 0, the past is read");
        assert_eq!(h.attention_window(1, 50).0.shape(), (10, 10));
        let (prompt, generated) = h.texts(&bpe);
        assert_eq!(prompt, "abcdef");
        assert_eq!(prompt + &generated, bpe.decode_ids(&h.ids));
    }

    #[test]
    fn the_window_rule_frees_a_quarter() {
        assert_eq!(tokens_to_drop(128, 128), 0);
        assert_eq!(tokens_to_drop(129, 128), 33);
        assert_eq!(tokens_to_drop(300, 128), 204);
        assert_eq!(tokens_to_drop(0, 128), 0);
    }

    #[test]
    fn cache_continuity_one_pass_per_step_and_the_same_as_a_full_recompute() {
        let (w, bpe) = tiny();
        let opts = SamplingOptions { temperature: 0.9, top_k: 20, top_p: 0.95 };
        let mut s = Session::start(&Cpu, w.clone(), &bpe, "abc", 5).unwrap();
        block_on_ready(s.sync(&Cpu)).unwrap();
        assert_eq!(s.cached(), 3);
        for _ in 0..6 {
            block_on_ready(s.step(&Cpu, &opts)).unwrap();
            assert_eq!(s.cached(), s.history().ids.len(), "the cache follows the window");
        }
        // Attention rows: one per position, each a distribution over positions 0..=i.
        let rows = &s.history().attention[0];
        assert_eq!(rows.len(), 9);
        assert_eq!(rows[8].len(), 9);
        assert!((rows[8].iter().sum::<f32>() - 1.0).abs() < 1e-5);
        // The same window recomputed from scratch gives the same next-token logits.
        let mut fresh = Session::resume(&Cpu, w, s.history().clone()).unwrap();
        fresh.history.logits.clear();
        block_on_ready(fresh.sync(&Cpu)).unwrap();
        let diff = fresh.history().logits.iter().zip(&s.history().logits).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
        assert!(diff < 1e-5, "{diff}");
    }

    #[test]
    fn context_overflow_slides_the_window_and_recomputes() {
        let (w, bpe) = tiny();
        let context = w.config.context;
        // A prompt longer than the context keeps its last three quarters.
        let long = "x".repeat(context + 10);
        let s = Session::start(&Cpu, w.clone(), &bpe, &long, 1).unwrap();
        assert_eq!(s.history().ids.len(), context - context / 4);
        assert_eq!((s.history().prompt_len, s.history().dropped), (context - context / 4, 10 + context / 4));
        // Generating past the end slides by the same rule.
        let mut s = Session::start(&Cpu, w, &bpe, &"y".repeat(context - 1), 1).unwrap();
        let greedy = SamplingOptions::greedy();
        block_on_ready(s.step(&Cpu, &greedy)).unwrap();
        assert_eq!(s.history().ids.len(), context);
        block_on_ready(s.step(&Cpu, &greedy)).unwrap();
        assert_eq!(s.history().ids.len(), context + 1 - tokens_to_drop(context + 1, context));
        assert_eq!(s.cached(), s.history().ids.len());
        assert_eq!(s.history().attention[0].len(), s.history().ids.len(), "attention rebuilt for the new window");
        assert_eq!(s.history().prompt_len, context - 1 - tokens_to_drop(context + 1, context));
    }

    #[test]
    fn a_fixed_seed_reproduces_and_a_move_keeps_the_generator() {
        let (w, bpe) = tiny();
        let opts = SamplingOptions { temperature: 1.0, top_k: 0, top_p: 1.0 };
        let generate = |moves: bool| {
            let mut s = Session::start(&Cpu, w.clone(), &bpe, "ab", 42).unwrap();
            for i in 0..8 {
                if moves && i == 4 {
                    s = Session::resume(&Cpu, w.clone(), s.into_history()).unwrap();
                }
                block_on_ready(s.step(&Cpu, &opts)).unwrap();
            }
            s.history().ids.clone()
        };
        assert_eq!(generate(false), generate(false));
        assert_eq!(generate(false), generate(true));
        assert!(Session::start(&Cpu, w.clone(), &bpe, "  ", 1).is_err());
    }

    #[test]
    fn a_character_model_generates_only_its_own_characters() {
        use crate::decoder::tokenizer::{TokenCodec, Tokenizer};
        use crate::training::{char_config, CharTokenizer};
        let chars = Tokenizer::Chars(CharTokenizer::from_text("a casa amarela"));
        let w = Rc::new(DecoderWeights::random(&char_config(chars.vocab_size()), 3));
        let mut s = Session::start(&Cpu, w.clone(), &chars, "casa", 7).unwrap();
        let opts = SamplingOptions { temperature: 1.0, top_k: 0, top_p: 1.0 };
        for _ in 0..10 {
            block_on_ready(s.step(&Cpu, &opts)).unwrap();
        }
        let text = chars.decode_ids(&s.history().ids);
        assert!(text.starts_with("casa") && text.chars().count() == 14, "{text}");
        assert!(text.chars().all(|c| "a cmsrel".contains(c)), "{text}");
        let err = Session::start(&Cpu, w, &chars, "casa azul", 7).err().unwrap().to_string();
        assert!(err.contains("«z»"), "{err}");
    }
}
