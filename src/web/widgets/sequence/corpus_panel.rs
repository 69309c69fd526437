//! What the N-gram widgets share: the corpus panel (the articles' presets and explicit
//! tokenizer settings), the documents' selector and the number of words a view shows.

use web_sys::{Event, HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

use crate::core::sequence::ngram::{NgramModel, NgramOptions, VocabularyOrder};
use crate::core::sequence::presets::{ngram_preset, NgramPreset, NGRAM_PRESETS};
use crate::core::text::tokenizer::TokenizerOptions;

use crate::web::dom;
use crate::web::kit::{controls, ui};
use crate::web::kit::control_of;

pub use crate::web::widgets::text::corpus::{doc_label, documents_of, DEBOUNCE_BYTES};

/// Words a heatmap or a graph shows before it shows only the most frequent ones.
pub const MAX_WORDS_SHOWN: usize = 30;

/// Keeps one option per document ("D1", …) in `select`, preserving the choice (or the
/// `data-wanted` one the widget was mounted with); returns the chosen index.
pub fn sync_documents(select: &HtmlSelectElement, n: usize) -> usize {
    let wanted = select.get_attribute("data-wanted").and_then(|w| w.parse::<usize>().ok());
    // A restored state's choice among documents not offered yet comes first (`kit::state`).
    let restored = controls::take_pending(select).and_then(|p| p.parse::<usize>().ok());
    let chosen = restored.or(select.value().parse::<usize>().ok()).or(wanted).unwrap_or(0);
    if select.length() as usize != n {
        select.set_text_content(None);
        for d in 0..n {
            let option = dom::text("option", "", &doc_label(d));
            dom::set_attr(&option, "value", &d.to_string());
            dom::append(select, &option);
        }
    }
    let chosen = if chosen < n { chosen } else { 0 };
    select.set_value(&chosen.to_string());
    dom::set_attr(select, "data-wanted", &chosen.to_string());
    chosen
}

/// The corpus editor of the N-gram widgets: the articles' corpora as presets, one document per
/// line, and the settings that decide the matrix (lowercase, accents, `<START>`, `<END>`).
/// Each preset sets them as its article does, so the golden numbers come out unchanged. It
/// goes in the widget's inputs; `edited` tells the widget which events concern it.
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
        let options: Vec<(&str, &str)> = NGRAM_PRESETS.iter().map(|p| (p.id, p.label)).collect();
        let (root, preset, text, settings) = ui::corpus_panel("corpus do artigo original ", &options, preset_id, "Documentos (um por linha)");
        let (l1, lowercase) = ui::checkbox(" minúsculas", "lowercase", true);
        let (l2, accents) = ui::checkbox(" remover acentos", "accents", false);
        let (l3, start) = ui::checkbox(" <START> no início", "start", false);
        let (l4, end) = ui::checkbox(" <END> no fim", "end", false);
        dom::append_all(&settings, &[&l1, &l2]);
        if markers {
            dom::append_all(&settings, &[&l3, &l4]);
        }
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

    /// A restored preset (`Widget::restore`) fills the text and the settings, as choosing it
    /// does; `None` for the panel's other controls, plain values.
    pub fn restore(&self, key: &str, value: &str) -> Option<bool> {
        (key == "preset").then(|| ngram_preset(value).inspect(|_| self.apply_preset(value)).is_some())
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

    /// Whether recomputing should wait for a pause in typing (a large text).
    pub fn debounce(&self) -> bool {
        self.text.value().len() > DEBOUNCE_BYTES
    }

    /// Whether `event` edited the corpus or its settings (a preset chosen is applied first):
    /// the widget then recomputes.
    pub fn edited(&self, event: &Event) -> bool {
        match (event.type_().as_str(), control_of(event).as_str()) {
            ("change", "preset") => {
                self.apply_preset(&self.preset.value());
                true
            }
            ("input", "corpus") | ("change", "lowercase" | "accents" | "start" | "end") => true,
            _ => false,
        }
    }

    /// The model of the current text and settings, or a message for the reader.
    pub fn build(&self) -> Result<NgramModel, String> {
        let raw = self.text.value();
        let docs = documents_of(&raw)?;
        NgramModel::build(&docs, &self.options()).map_err(|e| e.to_string())
    }
}
