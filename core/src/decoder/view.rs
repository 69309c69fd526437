//! What the decoder playground draws, computed from its session: the chips and the text, the
//! next-token bars beside the bigram's, the last draw, the pinned words, the enlarged
//! attention map, the logit lens and each head's push, and the status line. Every number and
//! every sentence with a number is made here; the widget puts them on the page. Plain data, so
//! that it can also travel from a worker.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::executor::BackendKind;
use crate::format::format_pt;
use crate::matrix::Matrix;
use crate::transformer::format_count;

use super::lens::LensReading;
use super::pins;
use super::playable::Playable;
use super::sampling::{top_n, SamplingOptions};
use super::session::{attention_window, CacheState, History};
use super::tokenizer::TokenCodec;

/// Bars shown in each next-token chart.
pub const TOP_BARS: usize = 10;
/// Candidates followed by the logit lens: the model's top ones at the chosen position.
pub const LENS_CANDIDATES: usize = 5;
/// Tokens listed per stage in the lens's table.
pub const LENS_TOP: usize = 3;

/// One bar chart: its title, bars, and the bar marked (the drawn token).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bars {
    pub title: String,
    pub labels: Vec<String>,
    pub values: Vec<f32>,
    pub marked: Option<usize>,
}

/// A token of the window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Chip {
    pub id: u32,
    pub label: String,
    /// Generated (not the prompt's).
    pub generated: bool,
    /// For a generated token: the model's probability of it and its rank then.
    pub drawn: Option<(f32, usize)>,
    /// The tooltip: position, id, how it was drawn.
    pub title: String,
}

/// The window's tokens from position `from` on, in order (a draw adds only the new ones).
pub fn chips(model: &Playable, h: &History, from: usize) -> Vec<Chip> {
    h.ids
        .iter()
        .enumerate()
        .skip(from)
        .map(|(i, &id)| {
            let step = h.steps.iter().rev().find(|s| s.position == h.dropped + i);
            let how = step.map_or(String::new(), |s| {
                format!(" ({} com probabilidade {}, o {}º mais provável)", if s.chosen { "escolhido" } else { "sorteado" }, format_pt(s.probability, 4), s.rank)
            });
            Chip {
                id,
                label: model.tokenizer.label(id),
                generated: i >= h.prompt_len,
                drawn: step.map(|s| (s.probability, s.rank)),
                title: format!("posição {}, token {id}{how}: clique para ler a lente aqui", i + 1),
            }
        })
        .collect()
}

/// The line under the widget: where it computed, how full the window is, the speed, what
/// left the window, the seed.
pub fn status(model: &Playable, h: &History, on: BackendKind, gpu_failed: bool, rate: Option<f64>) -> String {
    let cfg = &model.weights.config;
    let mut status = format!("Calculado em {} · {} de {} posições do contexto", on.label(), h.ids.len(), cfg.context);
    if gpu_failed {
        status.push_str(" · a GPU falhou: a geração continuou na CPU, sem perder tokens");
    }
    if let Some(rate) = rate {
        status.push_str(&format!(" · {} tokens/s", format_pt(rate as f32, 1)));
    }
    if h.dropped > 0 {
        status.push_str(&format!(" · {} tokens mais antigos descartados (fora do contexto)", h.dropped));
    }
    status.push_str(&format!(" · semente {}", h.seed));
    status
}

/// The pinned words' table: rows, or why the words could not be read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum PinRows {
    None,
    Rows(Vec<(String, String)>),
    Error(String),
}

/// The next-token charts and what goes with them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Predictions {
    pub model: Bars,
    pub bigram: Bars,
    /// The distribution the last token was drawn from and the drawn token; none while the
    /// last token is the prompt's.
    pub drawn: Option<(Bars, u32)>,
    pub pins: PinRows,
    /// The readout table's rows.
    pub readout: Vec<(String, String)>,
}

/// The charts at `temperature`, the pinned words of `pinned` (what the reader typed) among
/// them even outside the top 10; none before the first pass.
pub fn predictions(model: &Playable, h: &History, temperature: f32, pinned: &str) -> Option<Predictions> {
    if h.logits.is_empty() {
        return None;
    }
    let bpe = &model.tokenizer;
    let probs = h.distribution(temperature);
    let top = top_n(&probs, TOP_BARS);
    let mut labels: Vec<String> = top.iter().map(|(id, _)| bpe.label(*id)).collect();
    let mut values: Vec<f32> = top.iter().map(|(_, p)| *p).collect();
    // The pinned words outside the top 10, after it, with their rank (read after the window's
    // text, as the lens reads them after its position).
    let mut pin_rows = PinRows::None;
    if !pinned.trim().is_empty() {
        match pins::pin(bpe, &bpe.decode_ids(&h.ids), pinned, &probs, None) {
            Ok(found) => {
                for pin in &found {
                    if !top.iter().any(|(id, _)| *id == pin.token) {
                        labels.push(format!("{} ({}º)", pin.label, pin.rank));
                        values.push(pin.probability);
                    }
                }
                let rows = found
                    .iter()
                    .map(|p| {
                        let split = if p.tokens.len() > 1 { format!(", 1º de {} tokens", p.tokens.len()) } else { String::new() };
                        (p.text.clone(), format!("«{}»{split}: {} ({}º mais provável)", p.label, format_pt(p.probability, 4), p.rank))
                    })
                    .collect();
                pin_rows = PinRows::Rows(rows);
            }
            Err(e) => pin_rows = PinRows::Error(e.to_string()),
        }
    }
    let model_bars = Bars { title: format!("Próximo token: Transformer (temperatura {})", format_pt(temperature, 2)), labels, values, marked: None };
    let last = h.ids.last().copied().unwrap_or(0);
    let bigram = match model.bigram.as_deref() {
        Some(b) if b.occurrences(last) > 0 => {
            let dist: Vec<(u32, f32)> = b.next_distribution(last).into_iter().take(TOP_BARS).collect();
            Bars {
                title: format!("Próximo token: bigrama (só vê «{}», visto {} vezes)", bpe.label(last), format_count(b.occurrences(last) as u64)),
                labels: dist.iter().map(|(id, _)| bpe.label(*id)).collect(),
                values: dist.iter().map(|(_, p)| *p).collect(),
                marked: None,
            }
        }
        _ => Bars { title: format!("Próximo token: bigrama (nunca viu «{}» seguido de nada)", bpe.label(last)), labels: Vec::new(), values: Vec::new(), marked: None },
    };
    let (best, p) = top.first().copied().unwrap_or((0, 0.0));
    let readout = vec![
        ("tokens no contexto".into(), h.ids.len().to_string()),
        ("mais provável".into(), bpe.label(best)),
        ("probabilidade".into(), format_pt(p, 4)),
    ];
    Some(Predictions { model: model_bars, bigram, drawn: last_draw(model, h), pins: pin_rows, readout })
}

/// The distribution the last token was drawn from (the model's, temperature 1), the drawn
/// token marked beside the most probable; none while the last token is the prompt's.
fn last_draw(model: &Playable, h: &History) -> Option<(Bars, u32)> {
    let bpe = &model.tokenizer;
    let last_position = h.dropped + h.ids.len();
    let step = h.steps.last().filter(|s| s.position + 1 == last_position)?;
    let (offered, marked) = step.offered();
    let labels = offered.iter().map(|&(t, _, rank)| rank.map_or_else(|| bpe.label(t), |r| format!("{} ({r}º)", bpe.label(t)))).collect();
    let values = offered.iter().map(|&(_, p, _)| p).collect();
    let how = if step.chosen { "escolhido por você" } else { "sorteado" };
    let title = format!(
        "Último passo: «{}» {how}, o {}º mais provável (probabilidade {} na temperatura 1)",
        bpe.label(step.token),
        step.rank,
        format_pt(step.probability, 4)
    );
    Some((Bars { title, labels, values, marked: Some(marked) }, step.token))
}

/// One head's attention over the window's last positions, with its tokens and title.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Enlarged {
    pub weights: Matrix,
    pub labels: Vec<String>,
    pub title: String,
}

/// Head `head` of layer `layer` over the last `last` positions, from the maps (index
/// layer·nh + head) and the window's token labels: what the page draws from a view's maps.
pub fn enlarged(attention: &[Vec<Vec<f32>>], labels: &[String], heads: usize, (layer, head): (usize, usize), last: usize) -> Enlarged {
    let rows = attention.get(layer * heads + head).map_or(&[][..], Vec::as_slice);
    let (weights, start) = attention_window(rows, last);
    let size = weights.rows();
    let shown = if start > 0 { format!(" (últimas {size} posições)") } else { String::new() };
    let title = format!("Atenção da camada {}, cabeça {}{shown}: linha = quem olha, coluna = para onde", layer + 1, head + 1);
    Enlarged { weights, labels: labels.get(start..).unwrap_or_default().to_vec(), title }
}

/// The lens's position menu: "a última" (value "") and every position of the window.
pub fn lens_positions(model: &Playable, h: &History) -> Vec<(String, String)> {
    let mut options = vec![(String::new(), format!("a última ({})", h.ids.len()))];
    for (i, &id) in h.ids.iter().enumerate() {
        options.push((i.to_string(), format!("{} · «{}»", i + 1, model.tokenizer.label(id))));
    }
    options
}

/// The lens at one position: each candidate's probability stage by stage, each stage's own
/// top tokens, and the candidates as the token menu.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LensView {
    /// (candidates, stages).
    pub trajectories: Matrix,
    pub stages: Vec<String>,
    pub candidates: Vec<String>,
    pub title: String,
    pub tops: Vec<(String, String)>,
    pub tops_caption: String,
    /// The token menu (value = token id), the token that really came next marked.
    pub tokens: Vec<(String, String)>,
}

fn stage_label(s: usize) -> String {
    if s == 0 {
        "embedding".to_string()
    } else {
        format!("camada {s}")
    }
}

/// `reading` at window position `position`: candidates are the model's top ones there, the
/// token that really came next and the pinned words as they would come after it.
pub fn lens(model: &Playable, h: &History, position: usize, reading: &LensReading, pinned: &str) -> LensView {
    let bpe = &model.tokenizer;
    let stages = reading.stages();
    let next = h.ids.get(position + 1).copied();
    let mut candidates = reading.candidates(LENS_CANDIDATES, next);
    let context = bpe.decode_ids(&h.ids[..=position.min(h.ids.len().saturating_sub(1))]);
    for pin in pins::pin(bpe, &context, pinned, &[], None).unwrap_or_default() {
        if !candidates.contains(&pin.token) {
            candidates.push(pin.token);
        }
    }
    let after = h.ids.get(position).map_or(String::new(), |&id| bpe.label(id));
    let tops = (0..stages)
        .map(|s| {
            let tops: Vec<String> = reading.top(s, LENS_TOP).into_iter().map(|(t, p)| format!("«{}» {}", bpe.label(t), format_pt(p, 4))).collect();
            (stage_label(s), tops.join(" · "))
        })
        .collect();
    let tokens = candidates
        .iter()
        .map(|&t| {
            let mark = if Some(t) == next { " (o que veio)" } else { "" };
            (t.to_string(), format!("«{}»{mark}", bpe.label(t)))
        })
        .collect();
    LensView {
        trajectories: reading.trajectories(&candidates),
        stages: (0..stages).map(stage_label).collect(),
        candidates: candidates.iter().map(|&t| bpe.label(t)).collect(),
        title: format!("Depois de «{after}» (posição {}): probabilidade de cada candidato, etapa por etapa", position + 1),
        tops,
        tops_caption: format!("O que cada etapa prevê sozinha (os {LENS_TOP} mais prováveis)"),
        tokens,
    }
}

/// What the model offered where a generated token stands: the reader can take another path
/// from there (`Session::branch`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AlternativesView {
    /// The generated step (0 = the first token after the prompt) and its window position.
    pub step: usize,
    pub position: usize,
    pub title: String,
    /// (token id, label with its probability), most probable first; the token taken is among
    /// them (added after the others, with its rank, when it was not one of the most probable).
    pub options: Vec<(String, String)>,
    pub taken: u32,
    /// The window slid since: the step can no longer be gone back to.
    pub refused: Option<String>,
}

/// The alternatives of the token at window position `position`, if a step generated it.
pub fn alternatives(model: &Playable, h: &History, position: usize) -> Option<AlternativesView> {
    let bpe = &model.tokenizer;
    let step = h.steps.iter().position(|s| s.position == h.dropped + position)?;
    let s = &h.steps[step];
    let options = s
        .offered()
        .0
        .iter()
        .map(|&(t, p, rank)| (t.to_string(), format!("«{}» {}{}", bpe.label(t), format_pt(p, 4), rank.map_or(String::new(), |r| format!(" ({r}º)")))))
        .collect();
    let how = if s.chosen { "escolhido" } else { "sorteado" };
    Some(AlternativesView {
        step,
        position,
        title: format!("No passo {}, no lugar de «{}» ({how}), o modelo oferecia (probabilidade na temperatura 1); escolha outro para seguir por ali:", step + 1, bpe.label(s.token)),
        options,
        taken: s.token,
        refused: h.check_rewind(step).err().map(|e| e.to_string()),
    })
}

/// The KV cache made visible: what the last pass computed, what the cache keeps for the next
/// one, its size, and the speed measured on this page with and without it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CacheView {
    pub on: bool,
    pub layers: usize,
    /// The window's positions; the last `computed` of them ran in the last pass (the others'
    /// keys and values came from the cache).
    pub positions: usize,
    pub computed: usize,
    /// The step: prefill, decode, or the whole window again without the cache.
    pub pass: String,
    /// What the cache keeps and reserves (or that it keeps nothing).
    pub size: String,
    pub rates: String,
}

/// The cache's view from its state (`Session::cache_state`), the window's length, whether the
/// last pass was the prompt's first, and the tokens per second last measured with the cache
/// and without it.
pub fn cache(state: &CacheState, positions: usize, prefill: bool, rates: [Option<f64>; 2]) -> CacheView {
    let computed = state.last_pass.min(positions);
    let pass = match (state.on, prefill) {
        (true, true) => format!("Prefill: as {computed} posições do texto inicial numa passada só; as chaves e os valores de todas ficam no cache."),
        (true, false) => format!("Decode: só {computed} posição nova calculada; as chaves e os valores das outras {} vieram do cache.", positions.saturating_sub(computed)),
        (false, _) => format!("Sem cache: a passada recalculou as {computed} posições da janela, e nada fica guardado para a próxima."),
    };
    let kb = |bytes: usize| format_pt(bytes as f32 / 1024.0, 1);
    let size = if !state.on {
        "Sem cache, nada fica guardado entre uma passada e a próxima.".to_string()
    } else {
        format!(
            "Cache: {} posições × chave e valor de {} números cada, por camada: {} KB por camada, {} KB nas {} camadas (reservados: {} KB por camada, para o contexto inteiro).",
            state.positions,
            state.bytes_per_layer / (2 * 4 * state.positions.max(1)),
            kb(state.bytes_per_layer),
            kb(state.bytes_per_layer * state.layers),
            state.layers,
            kb(state.reserved_per_layer)
        )
    };
    let rate = |r: Option<f64>| r.map_or("ainda não medido".to_string(), |r| format!("{} tokens/s", format_pt(r as f32, 1)));
    let rates = format!("Medido nesta página, na última geração de cada modo: com cache {}, sem cache {}.", rate(rates[0]), rate(rates[1]));
    CacheView { on: state.on, layers: state.layers, positions, computed, pass, size, rates }
}

/// Two generations from one prompt with different settings, side by side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Sides {
    /// The greedy choice against a draw at temperature 1 (no top-k or top-p), one seed.
    GreedyAndT1,
    /// The reader's settings from the seed and from the next one.
    TwoSeeds,
}

impl Sides {
    /// Each side's title, seed and settings, from the reader's `seed` and `options`.
    pub fn settings(self, seed: u64, options: SamplingOptions) -> [(String, u64, SamplingOptions); 2] {
        let t1 = SamplingOptions { temperature: 1.0, top_k: 0, top_p: 1.0 };
        let named = |o: &SamplingOptions| format!("temperatura {}, top-k {}, top-p {}", format_pt(o.temperature, 2), o.top_k, format_pt(o.top_p, 2));
        match self {
            Sides::GreedyAndT1 => [
                ("gulosa (sempre o mais provável)".to_string(), seed, SamplingOptions::greedy()),
                (format!("sorteio na temperatura 1, sem top-k nem top-p, semente {seed}"), seed, t1),
            ],
            Sides::TwoSeeds => {
                let next = seed.wrapping_add(1);
                [(format!("semente {seed}, {}", named(&options)), seed, options), (format!("semente {next}, {}", named(&options)), next, options)]
            }
        }
    }
}

/// One side: its settings, each generated token with the probability the model gave it
/// (temperature 1) and its rank, the text, and a summary with the sequence's log-probability.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SideView {
    pub title: String,
    /// (label, "probability · rank").
    pub tokens: Vec<(String, String)>,
    pub text: String,
    pub summary: String,
}

/// A side from the history a generation left.
pub fn side(model: &Playable, h: &History, title: String) -> SideView {
    let bpe = &model.tokenizer;
    let tokens = h.steps.iter().map(|s| (bpe.label(s.token), format!("{} · {}º", format_pt(s.probability, 4), s.rank))).collect();
    let off_top = h.steps.iter().filter(|s| s.rank > 1).count();
    let summary = format!(
        "{} tokens, {off_top} deles fora do mais provável; log-probabilidade {}",
        h.steps.len(),
        format_pt(h.log_probability() as f32, 2)
    );
    SideView { title, tokens, text: h.texts(bpe).1, summary }
}

/// One cell of the strip under the chips: the stage from which the lens's top-1 at window
/// position `position` stays the model's final prediction there (0 = the embedding).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SettleCell {
    pub position: usize,
    pub settle: usize,
    /// The tooltip: the token, the prediction, where it settles.
    pub title: String,
}

/// Where each prediction of the window settles, and what that says about this model, in
/// sentences made from the counts (the page's prose types none of them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StripView {
    pub cells: Vec<SettleCell>,
    /// The stages' names, 0 = the embedding.
    pub stages: Vec<String>,
    pub summary: String,
}

/// The strip from the reading of the lens's pass over the whole window (`lens_window`); none
/// when the reading has no strip. A position whose final top two are within `NEAR_TIE` is
/// said to be one: there, rounding alone could swap them.
pub fn strip(model: &Playable, h: &History, reading: &LensReading) -> Option<StripView> {
    const NEAR_TIE: f32 = 1e-4;
    if reading.strip.is_empty() {
        return None;
    }
    let bpe = &model.tokenizer;
    let stages = reading.stages();
    let cells: Vec<SettleCell> = reading
        .strip
        .iter()
        .map(|p| {
            let after = h.ids.get(p.position).map_or(String::new(), |&id| bpe.label(id));
            let (token, probability) = p.prediction().unwrap_or((0, 0.0));
            let when = if p.settle == 0 { "desde o embedding".to_string() } else { format!("a partir da {}", stage_label(p.settle)) };
            let tie = if p.margin(stages - 1) <= NEAR_TIE { "; quase empate com o segundo, que um arredondamento pode inverter" } else { "" };
            SettleCell {
                position: p.position,
                settle: p.settle,
                title: format!("posição {}, depois de «{after}»: prevê «{}» ({}) {when}{tie}; clique para ler a lente aqui", p.position + 1, bpe.label(token), format_pt(probability, 4)),
            }
        })
        .collect();
    let counts = super::settle::settle_counts(&reading.strip, stages);
    let n = cells.len();
    let by_stage: Vec<String> = counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(s, c)| format!("{c} na etapa «{}»", stage_label(s))).collect();
    let mut summary = format!("Das {n} previsões desta janela, cada uma se decide pela primeira vez em: {}.", by_stage.join(", "));
    // Decided by the first block: compared with the bigram, which sees only the last token.
    let early: Vec<&super::settle::PositionSettle> = reading.strip.iter().filter(|p| p.settle <= 1).collect();
    if let (Some(bigram), false) = (model.bigram.as_deref(), early.is_empty()) {
        let same = early
            .iter()
            .filter(|p| {
                let first = h.ids.get(p.position).and_then(|&id| bigram.next_distribution(id).first().map(|&(t, _)| t));
                first.is_some() && first == p.prediction().map(|(t, _)| t)
            })
            .count();
        summary.push_str(&format!(
            " Em {} delas a previsão final já está pronta depois do primeiro bloco, e em {same} destas o bigrama, que só vê o token anterior, aposta no mesmo token.",
            early.len()
        ));
    }
    if let Some(late) = counts.get(2..).map(|c| c.iter().sum::<usize>()).filter(|&c| c > 0) {
        summary.push_str(&format!(" Nas outras {late}, a aposta do primeiro bloco ainda muda num bloco seguinte."));
    }
    Some(StripView { cells, stages: (0..stages).map(stage_label).collect(), summary })
}

/// Each head's (and each FFN's) direct push on one token's logit, layer by layer, and the sum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PushView {
    /// (layers, heads + 1): the last column is the FFN's.
    pub pushes: Matrix,
    pub layers: Vec<String>,
    pub columns: Vec<String>,
    pub title: String,
    /// The logit as the sum of its parts.
    pub sum: String,
}

pub fn pushes(model: &Playable, reading: &LensReading, token: u32) -> Result<PushView> {
    let parts = reading.logit_parts(&model.weights, token)?;
    let (layers, heads) = parts.heads.shape();
    let mut columns: Vec<String> = (1..=heads).map(|h| format!("cabeça {h}")).collect();
    columns.push("FFN".into());
    let label = model.tokenizer.label(token);
    let f = |v: f32| format_pt(v, 2);
    let head_sum: f32 = parts.heads.as_slice().iter().sum();
    let ffn_sum: f32 = parts.ffn.iter().sum();
    Ok(PushView {
        pushes: parts.by_layer(),
        layers: (1..=layers).map(|l| format!("camada {l}")).collect(),
        columns,
        title: format!("Quanto cada cabeça (e cada FFN) empurra «{label}»: contribuição direta ao logit"),
        sum: format!(
            "logit de «{label}» = embedding {} + cabeças {} + FFNs {} + deslocamento da normalização final {} = {}",
            f(parts.embedding),
            f(head_sum),
            f(ffn_sum),
            f(parts.bias),
            f(parts.total())
        ),
    })
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;
    use crate::bpe::Bpe;
    use crate::decoder::bigram::TokenBigram;
    use crate::decoder::session::Session;
    use crate::decoder::tokenizer::Tokenizer;
    use crate::decoder::{DecoderConfig, DecoderWeights, SamplingOptions};
    use crate::executor::{block_on_ready, Cpu};

    /// A tiny random model, one token per byte, and a bigram counted on a short text.
    fn tiny() -> Playable {
        let weights = DecoderWeights::random(&DecoderConfig::tiny(), 11);
        let tokenizer = Tokenizer::Bpe(Bpe::from_merges(Vec::new()).unwrap());
        let ids = tokenizer.encode_checked("o gato viu o rato e o rato viu o gato").unwrap();
        let bigram = TokenBigram::count(&ids, tokenizer.vocab_size());
        Playable { weights: Rc::new(weights), tokenizer, bigram: Some(Rc::new(bigram)), trained: None }
    }

    fn generated(model: &Playable, n: usize) -> History {
        let mut session = Session::start(&Cpu, model.weights.clone(), &model.tokenizer, "o gato", 7).unwrap();
        block_on_ready(session.sync(&Cpu)).unwrap();
        for _ in 0..n {
            block_on_ready(session.step(&Cpu, &SamplingOptions::default())).unwrap();
        }
        session.into_history()
    }

    #[test]
    fn chips_mark_the_generated_tokens_with_their_draw() {
        let model = tiny();
        let h = generated(&model, 3);
        let chips = chips(&model, &h, 0);
        assert_eq!(super::chips(&model, &h, 2)[..], chips[2..]);
        assert_eq!(chips.len(), h.ids.len());
        assert_eq!(chips.iter().filter(|c| c.generated).count(), 3);
        for (chip, step) in chips.iter().filter(|c| c.generated).zip(&h.steps) {
            assert_eq!(chip.id, step.token);
            assert_eq!(chip.drawn, Some((step.probability, step.rank)));
        }
        assert!(chips.iter().filter(|c| !c.generated).all(|c| c.drawn.is_none()));
    }

    #[test]
    fn bars_are_the_distribution_and_pins_join_them_with_their_rank() {
        let model = tiny();
        let h = generated(&model, 1);
        let p = predictions(&model, &h, 1.0, "").unwrap();
        let probs = h.distribution(1.0);
        let top = top_n(&probs, TOP_BARS);
        assert_eq!(p.model.values, top.iter().map(|t| t.1).collect::<Vec<_>>());
        assert_eq!(p.readout[1].1, model.tokenizer.label(top[0].0));
        // The least likely token, pinned, is added after the top ten with its rank.
        let least = (0..probs.len()).min_by(|&a, &b| probs[a].total_cmp(&probs[b])).unwrap() as u32;
        let word = model.tokenizer.decode_ids(&[least]);
        let pinned = predictions(&model, &h, 1.0, word.trim());
        if let Some(PinRows::Rows(rows)) = pinned.as_ref().map(|p| &p.pins) {
            assert_eq!(rows.len(), 1);
        }
        let (bars, token) = p.drawn.unwrap();
        assert_eq!(token, *h.ids.last().unwrap());
        assert!(bars.marked.is_some());
    }

    #[test]
    fn the_enlarged_map_is_the_heads_window_with_its_tokens() {
        let model = tiny();
        let h = generated(&model, 4);
        let labels: Vec<String> = chips(&model, &h, 0).into_iter().map(|c| c.label).collect();
        let heads = model.weights.config.n_heads;
        let e = enlarged(&h.attention, &labels, heads, (1, 1), 3);
        let (window, start) = h.attention_window(heads + 1, 3);
        assert_eq!((e.weights, e.labels), (window, labels[start..].to_vec()));
        assert!(e.title.starts_with("Atenção da camada 2, cabeça 2 (últimas 3 posições)"), "{}", e.title);
    }

    #[test]
    fn the_strip_is_the_readings_settle_stages_with_counts_in_its_summary() {
        let model = tiny();
        let mut session = Session::start(&Cpu, model.weights.clone(), &model.tokenizer, "o gato viu o rato", 7).unwrap();
        block_on_ready(session.sync(&Cpu)).unwrap();
        let n = session.history().ids.len();
        let reading = block_on_ready(session.lens_window(&Cpu, 2)).unwrap();
        let view = strip(&model, session.history(), &reading).unwrap();
        assert_eq!(view.cells.len(), n);
        assert_eq!(view.stages.len(), model.weights.config.n_layers + 1);
        for (cell, p) in view.cells.iter().zip(&reading.strip) {
            assert_eq!((cell.position, cell.settle), (p.position, p.settle));
            assert!(cell.title.starts_with(&format!("posição {},", p.position + 1)), "{}", cell.title);
        }
        // The summary's counts are the strip's, stage by stage.
        let counts = crate::decoder::settle::settle_counts(&reading.strip, view.stages.len());
        for (stage, count) in counts.iter().enumerate().filter(|(_, &c)| c > 0) {
            assert!(view.summary.contains(&format!("{count} na etapa «{}»", view.stages[stage])), "{}", view.summary);
        }
        assert!(view.summary.starts_with(&format!("Das {n} previsões")));
        // The plain lens has no strip to show.
        let plain = block_on_ready(session.lens(&Cpu, 2)).unwrap();
        assert!(strip(&model, session.history(), &plain).is_none());
    }

    #[test]
    fn the_alternatives_are_the_steps_with_the_token_taken_among_them() {
        let model = tiny();
        let h = generated(&model, 3);
        assert!(alternatives(&model, &h, 0).is_none(), "a prompt token has no draw");
        let position = h.prompt_len + 1;
        let a = alternatives(&model, &h, position).unwrap();
        let s = &h.steps[1];
        assert_eq!((a.step, a.taken, a.refused.is_none()), (1, s.token, true));
        assert!(a.options.len() >= 5 && a.options.iter().any(|(t, _)| *t == s.token.to_string()));
        assert_eq!(a.options[0].0, s.alternatives[0].0.to_string());
        assert!(a.title.starts_with("No passo 2, no lugar de"), "{}", a.title);
    }

    #[test]
    fn the_cache_view_says_prefill_decode_or_the_whole_window() {
        let model = tiny();
        let mut session = Session::start(&Cpu, model.weights.clone(), &model.tokenizer, "o gato", 7).unwrap();
        block_on_ready(session.sync(&Cpu)).unwrap();
        let n = session.history().ids.len();
        let prefill = cache(&session.cache_state(), n, true, [None, None]);
        assert_eq!((prefill.on, prefill.positions, prefill.computed), (true, n, n));
        assert!(prefill.pass.starts_with(&format!("Prefill: as {n} posições")), "{}", prefill.pass);
        assert!(prefill.rates.contains("com cache ainda não medido"), "{}", prefill.rates);
        block_on_ready(session.step(&Cpu, &SamplingOptions::default())).unwrap();
        let decode = cache(&session.cache_state(), n + 1, false, [Some(12.5), None]);
        assert_eq!(decode.computed, 1);
        assert!(decode.pass.contains(&format!("as outras {n} vieram do cache")), "{}", decode.pass);
        assert!(decode.rates.contains("com cache 12,5 tokens/s"), "{}", decode.rates);
        let c = model.weights.config.d_model;
        assert!(decode.size.contains(&format!("{} posições × chave e valor de {c} números", n + 1)), "{}", decode.size);
        session.set_kv_cache(false);
        block_on_ready(session.step(&Cpu, &SamplingOptions::default())).unwrap();
        let none = cache(&session.cache_state(), n + 2, false, [None, None]);
        assert!(!none.on && none.computed == n + 2 && none.pass.starts_with("Sem cache"), "{none:?}");
        assert!(none.size.starts_with("Sem cache, nada fica guardado"), "{}", none.size);
    }

    #[test]
    fn each_side_is_its_generation_with_each_tokens_probability() {
        let model = tiny();
        let [(title, seed, greedy), (_, other_seed, t1)] = Sides::GreedyAndT1.settings(7, SamplingOptions::default());
        assert_eq!((seed, other_seed, greedy.temperature, t1.temperature, t1.top_k, t1.top_p), (7, 7, 0.0, 1.0, 0, 1.0));
        let mut s = Session::start(&Cpu, model.weights.clone(), &model.tokenizer, "o gato", seed).unwrap();
        for _ in 0..5 {
            block_on_ready(s.step(&Cpu, &greedy)).unwrap();
        }
        let v = side(&model, s.history(), title);
        assert_eq!(v.tokens.len(), 5);
        assert!(v.tokens.iter().all(|(_, p)| p.ends_with(" · 1º")), "greedy takes the first every time: {:?}", v.tokens);
        assert!(v.summary.starts_with("5 tokens, 0 deles fora do mais provável"), "{}", v.summary);
        assert_eq!(v.text, s.history().texts(&model.tokenizer).1);
        let [(a, 3, _), (b, 4, _)] = Sides::TwoSeeds.settings(3, SamplingOptions::default()) else { panic!("seeds 3 and 4") };
        assert!(a.starts_with("semente 3, temperatura 0,80") && b.starts_with("semente 4"), "{a} / {b}");
    }

    #[test]
    fn nothing_to_draw_before_the_first_pass() {
        let model = tiny();
        let h = History::new(&model.weights.config, &model.tokenizer, "o gato", 1).unwrap();
        assert!(predictions(&model, &h, 1.0, "").is_none());
        assert!(status(&model, &h, BackendKind::Cpu, false, None).contains("semente 1"));
    }
}
