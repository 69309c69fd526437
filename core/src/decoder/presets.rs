//! The playground's example prompts, each with what it shows about the shipped model.
//!
//! A preset's claim is not a hope: `tests/decoder.rs` checks every claim on the shipped
//! weights, so retraining the model and keeping a claim that no longer holds fails the tests.
//! The menu label states the claim; the page's prose says what the model does.

use super::load::Model;
use super::pins::word_tokens;
use super::session::History;

/// What a preset shows about the next token after its prompt.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Claim {
    /// The model gives the word `likely` more probability than `unlikely` (each read as the
    /// first token of the word with its leading space; the two must differ in that token).
    Prefers { likely: &'static str, unlikely: &'static str },
    /// No claim about the next token: the preset shows the style of the text generated.
    Style,
}

#[derive(Clone, Copy, Debug)]
pub struct Preset {
    pub id: &'static str,
    pub label: &'static str,
    pub prompt: &'static str,
    pub claim: Claim,
}

/// The presets, in menu order; the first is the default. Two show the small model failing
/// (it is attracted to the nearest noun; it does not tie "lagoa" to water): the labels say so.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "chaves",
        label: "concordância: as chaves do armário … estava (o modelo erra)",
        prompt: "As chaves do armário",
        claim: Claim::Prefers { likely: " estava", unlikely: " estavam" },
    },
    Preset {
        id: "meninos",
        label: "concordância: os meninos … eram",
        prompt: "Os meninos",
        claim: Claim::Prefers { likely: " eram", unlikely: " era" },
    },
    Preset {
        id: "galinha",
        label: "pronome: a galinha atravessou a rua porque ela … era",
        prompt: "A galinha atravessou a rua porque ela",
        claim: Claim::Prefers { likely: " era", unlikely: " eram" },
    },
    Preset {
        id: "lagoa",
        label: "sentido: caído na … sala, não água (o modelo erra)",
        prompt: "Caminhei ao longo da lagoa e notei que uma das árvores na margem havia caído na",
        claim: Claim::Prefers { likely: " sala", unlikely: " água" },
    },
    Preset { id: "machado", label: "estilo: Machado de Assis", prompt: "Uma noite destas, vindo da cidade para o Engenho Novo,", claim: Claim::Style },
    Preset { id: "capitu", label: "estilo: Capitu", prompt: "Capitu", claim: Claim::Style },
];

/// The preset with this id, if any.
pub fn preset(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.id == id)
}

/// The ids, in menu order.
pub fn ids() -> Vec<&'static str> {
    PRESETS.iter().map(|p| p.id).collect()
}

/// The first token of `word` (its leading space included), the one the claim is about: the
/// pinned candidates' rule (`pins::word_tokens`).
pub fn first_token(model: &Model, word: &str) -> Option<u32> {
    word_tokens(&model.bpe, "", word).ok()?.first().copied()
}

impl Preset {
    /// The words its claim is about, as a reader would type them to pin them (`pins`).
    pub fn pinned(&self) -> Vec<&'static str> {
        match self.claim {
            Claim::Prefers { likely, unlikely } => vec![likely.trim(), unlikely.trim()],
            Claim::Style => Vec::new(),
        }
    }
}

/// Whether the model's next-token distribution after the preset's prompt bears the claim out,
/// with the probabilities it rests on (for the test's message and the page).
pub fn check(model: &Model, history: &History, claim: Claim) -> (bool, String) {
    let probs = history.distribution(1.0);
    let p = |id: u32| probs.get(id as usize).copied().unwrap_or(0.0);
    let label = |id: u32| model.bpe.token_label(id);
    match claim {
        Claim::Prefers { likely, unlikely } => match (first_token(model, likely), first_token(model, unlikely)) {
            (Some(a), Some(b)) if a != b => (p(a) > p(b), format!("«{}» {:.4} contra «{}» {:.4}", label(a), p(a), label(b), p(b))),
            _ => (false, format!("«{likely}» e «{unlikely}» começam pelo mesmo token")),
        },
        Claim::Style => (true, String::new()),
    }
}
