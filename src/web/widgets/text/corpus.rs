//! What the text widgets share: the corpus panel (one document per line, the article's corpora
//! as presets, explicit tokenizer settings), the update (a large text tokenised in slices, then
//! drawn), what every text widget shows about the corpus it read (the tokens of the first
//! documents, the sorted vocabulary, which terms and documents its heatmaps keep), and the
//! settings several of them offer (TF and IDF variants, the logarithm's base).

use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

use crate::core::examples::{corpus_preset, ARTICLE_CORPORA};
use crate::core::format::{format_pt, parse_pt};
use crate::core::text::idf::IdfVariant;
use crate::core::text::tf::{LogBase, TfVariant};
use crate::core::text::tokenizer::{tokenize, TokenizerOptions, PORTUGUESE_STOPWORDS};
use crate::core::text::Corpus;
use crate::core::Matrix;

use crate::web::dom;
use crate::web::kit::ui::{self, number_field};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{MatrixView, Scale};
use crate::web::kit::{control_of, Ctx, Shell, Widget, WidgetKind};

/// Columns and rows a heatmap shows before it summarises (a phone-width canvas).
const MAX_TERMS_SHOWN: usize = 30;
const MAX_DOCS_SHOWN: usize = 20;
/// Pasted text beyond this is refused with a message (the textarea keeps it).
const MAX_TEXT_BYTES: usize = 5_000_000;
/// Above this size, recomputation waits for a pause in typing.
pub const DEBOUNCE_BYTES: usize = 20_000;
/// Text tokenised between two yields to the browser (keeps each task well under a frame budget).
const CHUNK_BYTES: usize = 64_000;

/// The preset id of a corpus given by the page (`data-corpus`).
const PAGE_CORPUS: &str = "pagina";

pub fn doc_label(i: usize) -> String {
    format!("D{}", i + 1)
}

/// The corpus editor and tokenizer settings shared by every text widget.
pub struct CorpusPanel {
    /// The page's own documents (`data-corpus`), offered first among the presets.
    own: Option<Vec<String>>,
    preset: HtmlSelectElement,
    text: HtmlTextAreaElement,
    lowercase: HtmlInputElement,
    punctuation: HtmlInputElement,
    accents: HtmlInputElement,
    use_stopwords: HtmlInputElement,
    stopwords: HtmlTextAreaElement,
}

impl CorpusPanel {
    /// Builds the panel into `root` (the widget's inputs), showing preset `preset_id` (or the
    /// page's own corpus when there is one).
    fn new(root: &HtmlElement, preset_id: &str, own: Option<Vec<String>>) -> CorpusPanel {
        let mut options: Vec<(&str, &str)> = ARTICLE_CORPORA.iter().map(|p| (p.id, p.label)).collect();
        if own.is_some() {
            options.insert(0, (PAGE_CORPUS, "corpus desta página"));
        }
        let preset_id = if own.is_some() { PAGE_CORPUS } else { preset_id };
        let (panel, preset, text, settings) = ui::corpus_panel("corpus do artigo original ", &options, preset_id, "Documentos (um por linha)");
        let (l1, lowercase) = ui::checkbox(" minúsculas", "lowercase", true);
        let (l2, punctuation) = ui::checkbox(" remover pontuação", "punctuation", true);
        let (l3, accents) = ui::checkbox(" remover acentos", "accents", false);
        let (l4, use_stopwords) = ui::checkbox(" remover stopwords", "stopwords", false);
        dom::append_all(&settings, &[&l1, &l2, &l3, &l4]);
        let details = dom::el("details", "stopwords");
        dom::append(&details, &dom::text("summary", "", "lista de stopwords (editável)"));
        let stopwords = dom::el("textarea", "stopword-list").unchecked_into::<HtmlTextAreaElement>();
        dom::set_attrs(&stopwords, &[("data-control", "stopword-list"), ("aria-label", "Stopwords, separadas por espaço ou vírgula")]);
        dom::append(&details, &stopwords);
        dom::append(&panel, &details);
        dom::append(root, &panel);
        let panel = CorpusPanel { own, preset, text, lowercase, punctuation, accents, use_stopwords, stopwords };
        panel.apply_preset(preset_id);
        panel
    }

    /// Fills the text and the stopwords of corpus `id`.
    fn apply_preset(&self, id: &str) {
        let (documents, stopwords): (Vec<&str>, &[&str]) = match (id, &self.own) {
            (PAGE_CORPUS, Some(own)) => (own.iter().map(String::as_str).collect(), &[]),
            _ => match corpus_preset(id) {
                Some(preset) => (preset.documents.to_vec(), preset.stopwords),
                None => return,
            },
        };
        self.preset.set_value(id);
        self.text.set_value(&documents.join("\n"));
        dom::set_attr(&self.text, "rows", &(documents.len() + 1).clamp(2, 8).to_string());
        // A corpus with its own stopword list (the article's) starts with it on.
        self.use_stopwords.set_checked(!stopwords.is_empty());
        let list = if stopwords.is_empty() { PORTUGUESE_STOPWORDS } else { stopwords };
        self.stopwords.set_value(&list.join(" "));
    }

    fn options(&self) -> TokenizerOptions {
        let stopwords = if self.use_stopwords.checked() {
            self.stopwords.value().split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()).map(crate::core::text::tokenizer::lowercase).collect()
        } else {
            Vec::new()
        };
        TokenizerOptions {
            lowercase: self.lowercase.checked(),
            strip_punctuation: self.punctuation.checked(),
            strip_accents: self.accents.checked(),
            stopwords,
        }
    }

    /// The corpus, or a message for the reader. Large texts are tokenised in slices of about
    /// `CHUNK_BYTES`, yielding to the browser between slices so the page keeps painting.
    async fn corpus(&self) -> Result<(Corpus, TokenizerOptions), String> {
        let raw = self.text.value();
        let documents = documents_of(&raw)?;
        let options = self.options();
        let mut tokens = Vec::with_capacity(documents.len());
        let mut since_yield = 0;
        for document in documents {
            tokens.push(tokenize(document, &options));
            since_yield += document.len();
            if since_yield > CHUNK_BYTES {
                since_yield = 0;
                dom::sleep(0).await;
            }
        }
        let corpus = Corpus::from_tokens(tokens).map_err(|e| e.to_string())?;
        if corpus.vocabulary.is_empty() {
            return Err("Nenhuma palavra sobrou depois da tokenização (só pontuação ou stopwords?).".into());
        }
        Ok((corpus, options))
    }
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

/// A text widget: the frame it is built in, and how it draws a corpus. Recomputing is the same
/// for all of them (`update`).
pub trait TextWidget: 'static {
    fn frame(&self) -> &CorpusFrame;
    /// Draws the widget's results for `corpus`, read with `options`.
    fn render(&self, corpus: &Corpus, options: &TokenizerOptions);
    /// Corpus preset `id` was chosen (the panel has filled in its documents).
    fn preset_chosen(&self, _id: &str) {}
}

/// The frame of every text widget: its shell with the corpus panel as its inputs, and, first
/// among its outputs, what the tokenizer made of the corpus.
pub struct CorpusFrame {
    pub shell: Shell,
    pub panel: CorpusPanel,
    /// The tokens of the first documents and the vocabulary.
    info: HtmlElement,
    /// Which terms and documents the heatmaps show, when not all.
    notice: HtmlElement,
}

impl CorpusFrame {
    /// The frame of a text widget of `kind`, with the corpus of `data-preset` or `data-corpus`.
    pub fn new(ctx: &Rc<Ctx>, host: &HtmlElement, kind: &WidgetKind, attrs: &Attributes) -> Result<CorpusFrame, String> {
        let own = attrs.corpus()?;
        let shell = Shell::new(ctx, host, kind);
        let panel = CorpusPanel::new(&shell.inputs, attrs.choice("data-preset"), own);
        let info = dom::el("div", "text-info wide");
        let notice = ui::live("p", "note wide");
        dom::append_all(&shell.outputs, &[&info, &notice]);
        Ok(CorpusFrame { shell, panel, info, notice })
    }

    /// The preset chosen at mount (`data-preset`, or the page's corpus).
    pub fn preset(&self) -> String {
        self.panel.preset.value()
    }

    /// Every edit of the widget recomputes it (listeners on its host).
    pub fn listen<W: TextWidget>(widget: &Rc<W>) {
        let shell = &widget.frame().shell;
        shell.on(widget, &shell.host, &["input", "change"], on_event::<W>);
    }

    /// A heatmap among the outputs.
    pub fn view(&self, key: &str, title: &str, caption: &str) -> Rc<MatrixView> {
        let view = MatrixView::new(key, title, caption);
        dom::append(&self.shell.outputs, &view.root);
        view
    }

    /// The terms and documents the heatmaps show (all, or the most frequent terms and the
    /// first documents), said in the notice when not all.
    pub fn shown(&self, corpus: &Corpus) -> Shown {
        let shown = Shown::of(corpus);
        let mut notes = Vec::new();
        if shown.terms.len() < corpus.vocabulary.len() {
            notes.push(format!("Mostrando os {} termos mais frequentes de {}.", shown.terms.len(), corpus.vocabulary.len()));
        }
        if shown.docs < corpus.n_docs() {
            notes.push(format!("Mostrando {} de {} documentos.", shown.docs, corpus.n_docs()));
        }
        self.notice.set_text_content(Some(&notes.join(" ")));
        shown
    }

    /// Writes the notice (a widget that summarises otherwise).
    pub fn note(&self, text: &str) {
        self.notice.set_text_content(Some(text));
    }

    /// Tokens of the first documents and the sorted vocabulary, as text.
    fn write_info(&self, corpus: &Corpus) {
        self.info.set_text_content(None);
        self.notice.set_text_content(None);
        let list = dom::el("ul", "tokens");
        for (i, tokens) in corpus.documents.iter().enumerate().take(5) {
            let shown: Vec<&str> = tokens.iter().take(25).map(String::as_str).collect();
            let more = if tokens.len() > shown.len() { " …" } else { "" };
            let li = dom::text("li", "", &format!("{} ({} tokens): {}{more}", doc_label(i), tokens.len(), shown.join(" · ")));
            dom::append(&list, &li);
        }
        dom::append(&self.info, &list);
        let vocab: Vec<&str> = corpus.vocabulary.iter().take(40).map(String::as_str).collect();
        let more = if corpus.vocabulary.len() > vocab.len() { ", …" } else { "" };
        let p = dom::text("p", "vocabulary", &format!("Vocabulário ({} termos, em ordem alfabética): {}{more}", corpus.vocabulary.len(), vocab.join(", ")));
        dom::append(&self.info, &p);
    }
}

impl<W: TextWidget> Widget for W {
    fn recompute(self: Rc<Self>) {
        update(self);
    }

    /// A restored preset fills the corpus and stopwords, as choosing it does.
    fn restore(&self, key: &str, value: &str) -> Option<bool> {
        (key == "preset").then(|| {
            self.frame().panel.apply_preset(value);
            self.preset_chosen(value);
            true
        })
    }
}

/// Reads the corpus (in slices, after a pause in typing when it is large) and lets the widget
/// draw it; a newer edit overtakes it.
fn update<W: TextWidget>(widget: Rc<W>) {
    let frame = widget.frame();
    let debounce = frame.panel.text.value().len() > DEBOUNCE_BYTES;
    let w = widget.clone();
    frame.shell.steps(debounce, move |update| async move {
        let (corpus, options) = w.frame().panel.corpus().await?;
        // Counting and drawing are separate tasks, so neither blocks a frame for long.
        dom::sleep(0).await;
        if update.is_current() {
            w.frame().write_info(&corpus);
            w.render(&corpus, &options);
        }
        Ok(())
    });
}

fn on_event<W: TextWidget>(widget: &Rc<W>, event: &web_sys::Event) {
    let control = control_of(event);
    let panel = &widget.frame().panel;
    if control == "preset" && event.type_() == "change" {
        let id = panel.preset.value();
        panel.apply_preset(&id);
        widget.preset_chosen(&id);
    }
    // Text fields and sliders recompute on "input"; selects and checkboxes on "change" (not twice).
    let is_text = matches!(control.as_str(), "corpus" | "stopword-list" | "cap" | "query" | "k");
    if is_text == (event.type_() == "input") {
        widget.clone().recompute();
    }
}

/// The terms (columns) and documents (rows) a heatmap shows.
pub struct Shown {
    /// Indices into the vocabulary, in vocabulary order.
    pub terms: Vec<usize>,
    /// The first `docs` documents.
    pub docs: usize,
    pub term_labels: Vec<String>,
    pub doc_labels: Vec<String>,
}

impl Shown {
    /// All terms, or the most frequent ones (kept in vocabulary order); the first documents.
    fn of(corpus: &Corpus) -> Shown {
        let n = corpus.vocabulary.len();
        let terms = if n <= MAX_TERMS_SHOWN {
            (0..n).collect()
        } else {
            let totals = corpus.counts.array().sum_axis(ndarray::Axis(0)).to_vec();
            let mut top = crate::core::order::top_desc(&totals, MAX_TERMS_SHOWN);
            crate::core::order::sort_usize(&mut top);
            top
        };
        let docs = corpus.n_docs().min(MAX_DOCS_SHOWN);
        Shown {
            term_labels: terms.iter().map(|&j| corpus.vocabulary[j].clone()).collect(),
            terms,
            docs,
            doc_labels: (0..docs).map(doc_label).collect(),
        }
    }

    /// The shown part of a documents × terms matrix.
    pub fn clip(&self, m: &Matrix) -> Matrix {
        m.first_rows(self.docs).select_columns(&self.terms)
    }

    /// Draws the shown part of documents × terms matrix `m` in `view`.
    pub fn draw(&self, view: &MatrixView, m: &Matrix, scale: Scale) {
        view.show(&self.clip(m), self.doc_labels.clone(), self.term_labels.clone(), scale);
    }

    /// Draws documents × documents matrix `m` (cosines between the shown documents) in `view`.
    pub fn draw_docs(&self, view: &MatrixView, m: Matrix) {
        view.show(&m, self.doc_labels.clone(), self.doc_labels.clone(), Scale::UnitSigned);
    }
}

// The settings of the TF, IDF and TF-IDF widgets, each read from its declared attribute.

/// The TF variant select (`data-tf`).
pub fn tf_select(attrs: &Attributes) -> (HtmlElement, HtmlSelectElement) {
    let options: Vec<(String, String)> = TfVariant::ALL.iter().map(|v| (v.id().to_string(), v.name().to_string())).collect();
    ui::select("TF ", "tf", &options, attrs.choice("data-tf"))
}

/// The TF variant chosen in `select` (`k`: the K of the K-modified variant).
pub fn tf_variant(select: &HtmlSelectElement, k: f32) -> TfVariant {
    match select.value().as_str() {
        "k" => TfVariant::KModified(k),
        other => TfVariant::ALL.iter().copied().find(|v| v.id() == other).unwrap_or(TfVariant::Normalized),
    }
}

const IDF_CHOICES: &[(&str, &str)] = &[
    ("basic", "básico: log(N/df)"),
    ("plus1", "IDF+1: log(N/(1+df))"),
    ("probabilistic", "probabilístico: log((N−df)/df)"),
    ("max", "máximo: min(IDF, teto)"),
    ("smooth", "suavizado (sklearn): log((1+N)/(1+df)) + 1"),
];

/// The IDF variant select (`data-idf`) and the cap of the "max" variant.
pub struct IdfControls {
    pub select: HtmlSelectElement,
    pub cap: HtmlInputElement,
}

impl IdfControls {
    /// Returns the controls and their labels (select, cap).
    pub fn new(attrs: &Attributes) -> (IdfControls, [HtmlElement; 2]) {
        let options: Vec<(String, String)> = IDF_CHOICES.iter().map(|(id, l)| (id.to_string(), l.to_string())).collect();
        let (select_label, select) = ui::select("IDF ", "idf", &options, attrs.choice("data-idf"));
        let (cap_label, cap) = number_field("teto ", "cap", "0,5", false);
        (IdfControls { select, cap }, [select_label, cap_label])
    }

    /// The chosen variant; the cap shows only with the variant that uses it (an unreadable
    /// cap gives "indefinido" values, as the core defines them).
    pub fn variant(&self) -> IdfVariant {
        let cap = parse_pt(&self.cap.value()).unwrap_or(f32::NAN);
        let variant = match self.select.value().as_str() {
            "plus1" => IdfVariant::PlusOne,
            "probabilistic" => IdfVariant::Probabilistic,
            "max" => IdfVariant::Max { cap },
            "smooth" => IdfVariant::Smooth,
            _ => IdfVariant::Basic,
        };
        show_only_if(&self.cap, matches!(variant, IdfVariant::Max { .. }));
        variant
    }
}

/// The logarithm's base select (`data-base`).
pub fn base_select(attrs: &Attributes) -> (HtmlElement, HtmlSelectElement) {
    let options = [("e", "ln"), ("10", "log₁₀"), ("2", "log₂")].map(|(v, l)| (v.to_string(), l.to_string()));
    ui::select("logaritmo ", "base", &options, attrs.choice("data-base"))
}

pub fn log_base(select: &HtmlSelectElement) -> LogBase {
    match select.value().as_str() {
        "10" => LogBase::Ten,
        "2" => LogBase::Two,
        _ => LogBase::E,
    }
}

/// Shows the label around `input` only while it matters (a parameter of one variant).
pub fn show_only_if(input: &HtmlInputElement, visible: bool) {
    if let Some(label) = input.parent_element() {
        let _ = label.class_list().toggle_with_force("hidden", !visible);
    }
}
