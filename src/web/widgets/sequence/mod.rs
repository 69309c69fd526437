//! Widgets of the sequence-modelling articles ("modelagem-de-sequencias" and
//! "prestando-atencao"), one file per widget:
//! - `markov`: the weather chain (editable P, state graph, animated sampler, convergence);
//! - `transitions`: corpus → transition heatmap, state graph, one-hot lookup h × T, sampler,
//!   probability of a typed sentence;
//! - `sparsity`: |V|^N against the N-grams a corpus contains, and Zipf's law;
//! - `doc_vectors`: per-document transition vectors and their comparison;
//! - `likelihood`: T_d beside T_corpus and the likelihood ratios v*;
//! - `votes` and `vote_mask`: skip-pair votes, their dilution and the Hadamard mask;
//! - `mask_embeddings`: one query attending with an additive or multiplicative mask;
//! - `ffn_detector`: the FFN layer with AND neurons, truth table, ReLU vs GeLU;
//! - `softmax_lab`: shift invariance, scale and the Jacobian of the softmax.
//!
//! Shared here: the corpus panel of the N-gram widgets (the articles' presets and explicit
//! tokenizer settings), the state-graph drawing, and small helpers. Everything a widget shows
//! is computed by `core::sequence`; tensor products go through `ctx.backend.run`.

pub mod doc_vectors;
pub mod ffn_detector;
pub mod likelihood;
pub mod markov;
pub mod mask_embeddings;
pub mod softmax_lab;
pub mod sparsity;
pub mod transitions;
pub mod vote_mask;
pub mod votes;

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

use crate::core::format::format_pt;
use crate::core::sequence::ngram::{NgramModel, NgramOptions, VocabularyOrder};
use crate::core::sequence::presets::{ngram_preset, NgramPreset, NGRAM_PRESETS};
use crate::core::text::tokenizer::TokenizerOptions;

use crate::web::dom;

/// Pasted text beyond this is refused with a message (the textarea keeps it).
pub const MAX_TEXT_BYTES: usize = 5_000_000;
/// Above this size, recomputation waits for a pause in typing.
pub const DEBOUNCE_BYTES: usize = 20_000;
/// Words a heatmap or a graph shows before it shows only the most frequent ones.
pub const MAX_WORDS_SHOWN: usize = 30;

/// Empties `host`, marks it loading and gives it its title.
pub fn scaffold(host: &HtmlElement, title: &str) {
    dom::set_attr(host, "data-state", "loading");
    let _ = host.class_list().add_1("widget");
    host.set_text_content(None);
    dom::append(host, &dom::text("h3", "widget-title", title));
}

/// "D1", "D2", …
pub fn doc_label(i: usize) -> String {
    format!("D{}", i + 1)
}

/// A paragraph for notes (corrections, clipping, stop reasons), announced when it changes.
pub fn note(class: &str) -> HtmlElement {
    let p = dom::el("p", class);
    dom::set_attr(&p, "aria-live", "polite");
    p
}

/// A labelled one-line text input `data-control=…`.
pub fn text_input(label: &str, control: &str, value: &str, class: &str) -> (HtmlElement, HtmlInputElement) {
    let wrapper = dom::el("label", "toggle");
    dom::append(&wrapper, &dom::text("span", "", label));
    let input = dom::el("input", class).unchecked_into::<HtmlInputElement>();
    input.set_type("text");
    dom::set_attr(&input, "data-control", control);
    dom::set_attr(&input, "spellcheck", "false");
    input.set_value(value);
    dom::append(&wrapper, &input);
    (wrapper, input)
}

/// The lines of a corpus textarea that hold text (one document per line), or a message.
pub fn documents_of(raw: &str) -> Result<Vec<&str>, String> {
    if raw.len() > MAX_TEXT_BYTES {
        return Err(format!(
            "O texto tem {} MB; o limite deste widget é {} MB. O texto continua no campo.",
            format_pt(raw.len() as f32 / 1e6, 1),
            MAX_TEXT_BYTES / 1_000_000
        ));
    }
    let docs: Vec<&str> = raw.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if docs.is_empty() {
        return Err("O corpus está vazio: escreva pelo menos um documento (um por linha).".into());
    }
    Ok(docs)
}

/// The corpus editor of the N-gram widgets: the articles' corpora as presets, one document per
/// line, and the settings that decide the matrix (lowercase, accents, `<START>`, `<END>`).
/// Each preset sets them as its article does, so the golden numbers come out unchanged.
pub struct NgramPanel {
    pub root: HtmlElement,
    pub preset: HtmlSelectElement,
    pub text: HtmlTextAreaElement,
    pub lowercase: HtmlInputElement,
    pub accents: HtmlInputElement,
    pub start: HtmlInputElement,
    pub end: HtmlInputElement,
}

impl NgramPanel {
    /// With the `<START>`/`<END>` toggles only if `markers`.
    pub fn new(preset_id: &str, markers: bool) -> NgramPanel {
        let root = dom::el("div", "corpus-panel");
        let options: Vec<(String, String)> = NGRAM_PRESETS.iter().map(|p| (p.id.to_string(), p.label.to_string())).collect();
        let (preset_label, preset) = dom::select("corpus do artigo ", "preset", &options, preset_id);
        dom::append(&root, &preset_label);
        let text = crate::web::kit::ui::corpus_textarea(&root, "Documentos (um por linha)");
        let settings = dom::el("div", "widget-controls");
        let (l1, lowercase) = dom::checkbox(" minúsculas", "lowercase", true);
        let (l2, accents) = dom::checkbox(" remover acentos", "accents", false);
        let (l3, start) = dom::checkbox(" <START> no início", "start", false);
        let (l4, end) = dom::checkbox(" <END> no fim", "end", false);
        dom::append(&settings, &l1);
        dom::append(&settings, &l2);
        if markers {
            dom::append(&settings, &l3);
            dom::append(&settings, &l4);
        }
        dom::append(&root, &settings);
        let panel = NgramPanel { root, preset, text, lowercase, accents, start, end };
        panel.apply_preset(preset_id);
        panel
    }

    /// Fills the text and the settings from the preset `id` (unknown ids are ignored).
    pub fn apply_preset(&self, id: &str) {
        let Some(preset) = ngram_preset(id) else { return };
        self.preset.set_value(id);
        self.text.set_value(&preset.documents.join("\n"));
        dom::set_attr(&self.text, "rows", &(preset.documents.len() + 1).clamp(3, 9).to_string());
        self.lowercase.set_checked(preset.lowercase);
        self.accents.set_checked(preset.strip_accents);
        self.start.set_checked(preset.start);
        self.end.set_checked(preset.end);
    }

    fn current_preset(&self) -> Option<&'static NgramPreset> {
        ngram_preset(&self.preset.value())
    }

    /// The options the settings describe. The preset's row order (Example 1's vocabulary
    /// order) applies while the tokenizer settings are the preset's own; otherwise words go by
    /// first appearance.
    pub fn options(&self) -> NgramOptions {
        let tokenizer = TokenizerOptions {
            lowercase: self.lowercase.checked(),
            strip_accents: self.accents.checked(),
            ..TokenizerOptions::default()
        };
        let order = match self.current_preset() {
            Some(p) if p.lowercase == tokenizer.lowercase && p.strip_accents == tokenizer.strip_accents => {
                p.options().order
            }
            _ => VocabularyOrder::FirstAppearance,
        };
        NgramOptions { tokenizer, start: self.start.checked(), end: self.end.checked(), order, ..NgramOptions::default() }
    }

    pub fn text_len(&self) -> usize {
        self.text.value().len()
    }

    /// The model of the current text and settings, or a message for the reader.
    pub fn build(&self) -> Result<NgramModel, String> {
        let raw = self.text.value();
        let docs = documents_of(&raw)?;
        NgramModel::build(&docs, &self.options()).map_err(|e| e.to_string())
    }
}
