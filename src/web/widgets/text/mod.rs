//! The vectorization article's text widgets, one struct with a mode per kind:
//! `bow` (tokens → vocabulary → counts), `tf` (8 TF variants), `idf` (5 IDF variants and the
//! IDF-vs-df curve), `tfidf` (TF × IDF = TF-IDF, stopwords, L2, cosine between documents) and
//! `search` (a query ranked by cosine). All share the corpus panel: one document per line,
//! the article's corpora as presets, and explicit tokenizer settings.
//!
//! Attributes: `data-preset` (an id of `core::examples::ARTICLE_CORPORA`), `data-corpus` (the
//! page's own documents, one per line, offered as the first corpus), `data-tf`
//! (raw | normalized | log | binary | aug | k | log-smooth | length), `data-idf`
//! (basic | plus1 | probabilistic | max | smooth), `data-base` (e | 10 | 2), `data-query`
//! (`search`: the query).

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

use crate::core::examples::{corpus_preset, ARTICLE_CORPORA};
use crate::core::format::{format_pt, format_pt_short};
use crate::core::text::idf::{idf, idf_vector, IdfValue, IdfVariant};
use crate::core::text::tf::{tf_matrix, LogBase, TfVariant};
use crate::core::text::tfidf::{cosine_matrix, rank, tf_idf};
use crate::core::text::tokenizer::{tokenize, TokenizerOptions, PORTUGUESE_STOPWORDS};
use crate::core::text::Corpus;
use crate::core::Matrix;

use crate::web::dom::{self, Listener};
use crate::web::kit::draw::{BarView, Scale, HeatmapData, MatrixView};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::{control_of, listen, show_error, show_ready, Ctx, Updates, Widget, WidgetKind};

pub const BOW: WidgetKind = WidgetKind { name: "bow", title: "Do texto à matriz de contagens (Bag of Words)", mount: |c, h, a| mount(c, h, a, Mode::Bow) };
pub const TF: WidgetKind = WidgetKind { name: "tf", title: "Frequência de termos: as oito variantes", mount: |c, h, a| mount(c, h, a, Mode::Tf) };
pub const IDF: WidgetKind = WidgetKind { name: "idf", title: "IDF: cinco variantes e a curva por df", mount: |c, h, a| mount(c, h, a, Mode::Idf) };
pub const TFIDF: WidgetKind = WidgetKind { name: "tfidf", title: "TF × IDF = TF-IDF", mount: |c, h, a| mount(c, h, a, Mode::TfIdf) };
pub const SEARCH: WidgetKind = WidgetKind { name: "search", title: "Busca por similaridade de cosseno", mount: |c, h, a| mount(c, h, a, Mode::Search) };

/// Columns and rows a heatmap shows before it summarises (a phone-width canvas).
const MAX_TERMS_SHOWN: usize = 30;
const MAX_DOCS_SHOWN: usize = 20;
/// Pasted text beyond this is refused with a message (the textarea keeps it).
const MAX_TEXT_BYTES: usize = 5_000_000;
/// Above this size, recomputation waits for a pause in typing.
const DEBOUNCE_BYTES: usize = 20_000;
/// Text tokenised between two yields to the browser (keeps each task well under a frame budget).
const CHUNK_BYTES: usize = 64_000;

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Bow,
    Tf,
    Idf,
    TfIdf,
    Search,
}

fn tf_from_id(id: &str, k: f32) -> TfVariant {
    match id {
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

fn idf_from_id(id: &str, cap: f32) -> IdfVariant {
    match id {
        "plus1" => IdfVariant::PlusOne,
        "probabilistic" => IdfVariant::Probabilistic,
        "max" => IdfVariant::Max { cap },
        "smooth" => IdfVariant::Smooth,
        _ => IdfVariant::Basic,
    }
}

fn base_from_id(id: &str) -> LogBase {
    match id {
        "10" => LogBase::Ten,
        "2" => LogBase::Two,
        _ => LogBase::E,
    }
}

fn doc_label(i: usize) -> String {
    format!("D{}", i + 1)
}

/// The preset id of a corpus given by the page (`data-corpus`).
const PAGE_CORPUS: &str = "pagina";

/// The corpus editor and tokenizer settings shared by every text widget.
struct CorpusPanel {
    root: HtmlElement,
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
    fn new(preset_id: &str, own: Option<Vec<String>>) -> CorpusPanel {
        let root = dom::el("div", "corpus-panel");
        let mut options: Vec<(String, String)> = ARTICLE_CORPORA.iter().map(|p| (p.id.to_string(), p.label.to_string())).collect();
        if own.is_some() {
            options.insert(0, (PAGE_CORPUS.to_string(), "corpus desta página".to_string()));
        }
        let preset_id = if own.is_some() { PAGE_CORPUS } else { preset_id };
        let (preset_label, preset) = dom::select("corpus do artigo ", "preset", &options, preset_id);
        dom::append(&root, &preset_label);
        let text = crate::web::kit::ui::corpus_textarea(&root, "Documentos (um por linha)");
        let settings = dom::el("div", "widget-controls");
        let (l1, lowercase) = dom::checkbox(" minúsculas", "lowercase", true);
        let (l2, punctuation) = dom::checkbox(" remover pontuação", "punctuation", true);
        let (l3, accents) = dom::checkbox(" remover acentos", "accents", false);
        let (l4, use_stopwords) = dom::checkbox(" remover stopwords", "stopwords", false);
        for l in [&l1, &l2, &l3, &l4] {
            dom::append(&settings, l);
        }
        dom::append(&root, &settings);
        let details = dom::el("details", "stopwords");
        dom::append(&details, &dom::text("summary", "", "lista de stopwords (editável)"));
        let stopwords = dom::el("textarea", "stopword-list").unchecked_into::<HtmlTextAreaElement>();
        dom::set_attr(&stopwords, "data-control", "stopword-list");
        dom::set_attr(&stopwords, "aria-label", "Stopwords, separadas por espaço ou vírgula");
        dom::append(&details, &stopwords);
        dom::append(&root, &details);
        let panel = CorpusPanel { root, own, preset, text, lowercase, punctuation, accents, use_stopwords, stopwords };
        panel.apply_preset(preset_id);
        panel
    }

    fn apply_preset(&self, id: &str) {
        if let (PAGE_CORPUS, Some(own)) = (id, &self.own) {
            self.preset.set_value(id);
            self.text.set_value(&own.join("\n"));
            dom::set_attr(&self.text, "rows", &(own.len() + 1).clamp(2, 8).to_string());
            self.use_stopwords.set_checked(false);
            self.stopwords.set_value(&PORTUGUESE_STOPWORDS.join(" "));
            return;
        }
        let Some(preset) = corpus_preset(id) else { return };
        self.preset.set_value(id);
        self.text.set_value(&preset.documents.join("\n"));
        dom::set_attr(&self.text, "rows", &(preset.documents.len() + 1).clamp(2, 8).to_string());
        let own = !preset.stopwords.is_empty();
        self.use_stopwords.set_checked(own);
        let list: &[&str] = if own { preset.stopwords } else { PORTUGUESE_STOPWORDS };
        self.stopwords.set_value(&list.join(" "));
    }

    fn options(&self) -> TokenizerOptions {
        let stopwords = if self.use_stopwords.checked() {
            self.stopwords.value().split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
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

    fn text_len(&self) -> usize {
        self.text.value().len()
    }

    /// The corpus, or a message for the reader. Large texts are tokenised in slices of about
    /// `CHUNK_BYTES`, yielding to the browser between slices so the page keeps painting.
    async fn corpus(&self) -> Result<(Corpus, TokenizerOptions), String> {
        let raw = self.text.value();
        if raw.len() > MAX_TEXT_BYTES {
            return Err(format!(
                "O texto tem {} MB; o limite deste widget é {} MB. O texto continua no campo.",
                format_pt(raw.len() as f32 / 1e6, 1),
                MAX_TEXT_BYTES / 1_000_000
            ));
        }
        let documents: Vec<&str> = raw.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
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

pub struct TextWidget {
    mode: Mode,
    host: HtmlElement,
    panel: CorpusPanel,
    tf_variant: Option<HtmlSelectElement>,
    k: Option<HtmlInputElement>,
    idf_variant: Option<HtmlSelectElement>,
    cap: Option<HtmlInputElement>,
    base: Option<HtmlSelectElement>,
    l2: Option<HtmlInputElement>,
    query: Option<HtmlInputElement>,
    info: HtmlElement,
    notice: HtmlElement,
    views: Vec<(&'static str, Rc<MatrixView>)>,
    bars: Option<BarView>,
    curve: Option<HtmlCanvasElement>,
    table_slot: HtmlElement,
    updates: Updates,
    listeners: RefCell<Vec<Listener>>,
}

fn mount(_ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes, mode: Mode) -> Result<Rc<dyn Widget>, String> {
    let kind = match mode {
        Mode::Bow => &BOW,
        Mode::Tf => &TF,
        Mode::Idf => &IDF,
        Mode::TfIdf => &TFIDF,
        Mode::Search => &SEARCH,
    };
    let preset_id = attrs.choice("data-preset");
    let tf_default = attrs.choice("data-tf");
    let idf_default = attrs.choice("data-idf");
    let base_default = attrs.choice("data-base");
    dom::set_attr(host, "data-state", "loading");
    let _ = host.class_list().add_1("widget");
    host.set_text_content(None);
    dom::append(host, &dom::text("h3", "widget-title", kind.title));
    let panel = CorpusPanel::new(preset_id, attrs.corpus()?);
    dom::append(host, &panel.root);

    let controls = dom::el("div", "widget-controls");
    let mut tf_variant = None;
    let mut k = None;
    if matches!(mode, Mode::Tf | Mode::TfIdf) {
        let options: Vec<(String, String)> = TfVariant::ALL.iter().map(|v| (v.id().to_string(), v.name().to_string())).collect();
        let (label, select) = dom::select("TF ", "tf", &options, tf_default);
        dom::append(&controls, &label);
        tf_variant = Some(select);
        if mode == Mode::Tf {
            let (label, slider) = dom::slider(" K = ", "k", 0.0, 1.0, 0.05, 0.4);
            dom::append(&controls, &label);
            k = Some(slider);
        }
    }
    let mut idf_variant = None;
    let mut cap = None;
    if matches!(mode, Mode::Idf | Mode::TfIdf) {
        let options: Vec<(String, String)> = IDF_CHOICES.iter().map(|(id, l)| (id.to_string(), l.to_string())).collect();
        let (label, select) = dom::select("IDF ", "idf", &options, idf_default);
        dom::append(&controls, &label);
        idf_variant = Some(select);
        let cap_label = dom::el("label", "toggle");
        dom::append(&cap_label, &dom::text("span", "", "teto "));
        let input = dom::el("input", "cap").unchecked_into::<HtmlInputElement>();
        input.set_type("text");
        dom::set_attr(&input, "inputmode", "decimal");
        dom::set_attr(&input, "data-control", "cap");
        input.set_value("0,5");
        dom::append(&cap_label, &input);
        dom::append(&controls, &cap_label);
        cap = Some(input);
    }
    let mut base = None;
    if mode != Mode::Bow {
        let options = vec![("e".to_string(), "ln".to_string()), ("10".to_string(), "log₁₀".to_string()), ("2".to_string(), "log₂".to_string())];
        let (label, select) = dom::select("logaritmo ", "base", &options, base_default);
        dom::append(&controls, &label);
        base = Some(select);
    }
    let mut l2 = None;
    if mode == Mode::TfIdf {
        let (label, checkbox) = dom::checkbox(" normalizar linhas (L2)", "l2", false);
        dom::append(&controls, &label);
        l2 = Some(checkbox);
    }
    let mut query = None;
    if mode == Mode::Search {
        let label = dom::el("label", "toggle query");
        dom::append(&label, &dom::text("span", "", "consulta "));
        let input = dom::el("input", "query-input").unchecked_into::<HtmlInputElement>();
        input.set_type("search");
        dom::set_attr(&input, "data-control", "query");
        input.set_value(&attrs.text("data-query").unwrap_or_else(|| corpus_preset(preset_id).map_or("", |p| p.query).to_string()));
        dom::append(&label, &input);
        dom::append(&controls, &label);
        query = Some(input);
    }
    let (twins, twins_listener) = crate::web::kit::twins_button(host);
    dom::append(&controls, &twins);
    dom::append(host, &controls);

    let info = dom::el("div", "text-info");
    dom::append(host, &info);
    let notice = dom::el("p", "note");
    dom::set_attr(&notice, "aria-live", "polite");
    dom::append(host, &notice);
    let outputs = dom::el("div", "widget-outputs");
    let specs: &[(&'static str, &str, &str)] = match mode {
        Mode::Bow => &[("counts", "Contagens f(w, D)", ""), ("cosine", "Cosseno entre documentos", "")],
        Mode::Tf => &[("counts", "Contagens f(w, D)", ""), ("tf", "TF(w, D)", "")],
        Mode::Idf => &[],
        Mode::TfIdf => &[("tf", "TF", ""), ("idf", "IDF", " por termo"), ("tfidf", "TF-IDF = TF × IDF", ""), ("cosine", "Cosseno entre documentos", "")],
        Mode::Search => &[("tfidf", "TF-IDF dos documentos", "")],
    };
    let views: Vec<(&'static str, Rc<MatrixView>)> = specs.iter().map(|(key, title, caption)| (*key, MatrixView::new(key, title, caption))).collect();
    for (_, view) in &views {
        dom::append(&outputs, &view.root);
    }
    let bars = (mode == Mode::Search).then(|| BarView::new("ranking", ""));
    if let Some(b) = &bars {
        dom::append(&outputs, &b.root);
    }
    let curve = (mode == Mode::Idf).then(|| {
        let figure = dom::el("figure", "mv");
        dom::append(&figure, &dom::text("figcaption", "mv-title", "IDF em função de df"));
        let canvas = dom::el("canvas", "mv-canvas").unchecked_into::<HtmlCanvasElement>();
        dom::set_attr(&canvas, "role", "img");
        dom::append(&figure, &canvas);
        dom::append(&outputs, &figure);
        canvas
    });
    let table_slot = dom::el("div", "");
    dom::append(&outputs, &table_slot);
    dom::append(host, &outputs);

    let widget = Rc::new(TextWidget {
        mode,
        host: host.clone(),
        panel,
        tf_variant,
        k,
        idf_variant,
        cap,
        base,
        l2,
        query,
        info,
        notice,
        views,
        bars,
        curve,
        table_slot,
        updates: Updates::default(),
        listeners: RefCell::new(Vec::new()),
    });
    let on = |kind| listen(&widget, host, kind, TextWidget::on_input);
    *widget.listeners.borrow_mut() = vec![on("input"), on("change"), twins_listener];
    Ok(widget)
}

impl TextWidget {
    fn on_input(self: &Rc<Self>, event: &web_sys::Event) {
        let control = control_of(event);
        if control == "preset" && event.type_() == "change" {
            let id = self.panel.preset.value();
            self.panel.apply_preset(&id);
            if let (Some(query), Some(preset)) = (&self.query, corpus_preset(&id)) {
                query.set_value(preset.query);
            }
        }
        // Text fields recompute on "input"; selects and checkboxes on "change" (not twice).
        let is_text = matches!(control.as_str(), "corpus" | "stopword-list" | "cap" | "query" | "k");
        if is_text == (event.type_() == "input") {
            self.clone().recompute();
        }
    }


    fn settings(&self) -> (TfVariant, IdfVariant, LogBase) {
        let k = self.k.as_ref().and_then(|k| k.value().parse::<f32>().ok()).unwrap_or(0.4);
        let tf = self.tf_variant.as_ref().map_or(TfVariant::Raw, |s| tf_from_id(&s.value(), k));
        let cap = self.cap.as_ref().and_then(|c| crate::core::format::parse_pt(&c.value())).unwrap_or(f32::NAN);
        let idf = self.idf_variant.as_ref().map_or(IdfVariant::Basic, |s| idf_from_id(&s.value(), cap));
        let base = self.base.as_ref().map_or(LogBase::E, |s| base_from_id(&s.value()));
        (tf, idf, base)
    }

    /// The terms a heatmap shows: all, or the most frequent ones (kept in vocabulary order).
    fn shown_terms(&self, corpus: &Corpus) -> Vec<usize> {
        let n = corpus.vocabulary.len();
        if n <= MAX_TERMS_SHOWN {
            return (0..n).collect();
        }
        let totals = corpus.counts.array().sum_axis(ndarray::Axis(0));
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| totals[b].total_cmp(&totals[a]).then(a.cmp(&b)));
        let mut top: Vec<usize> = order.into_iter().take(MAX_TERMS_SHOWN).collect();
        top.sort_unstable();
        top
    }

    fn show(&self, key: &str, matrix: &Matrix, rows: Vec<String>, cols: Vec<String>, scale: Scale) {
        if let Some((_, view)) = self.views.iter().find(|(k, _)| *k == key) {
            view.update(HeatmapData { matrix: matrix.clone(), row_labels: rows, col_labels: cols, scale, masked: None });
        }
    }

    fn render(&self, corpus: &Corpus, options: &TokenizerOptions) {
        let (tf, idf_variant, base) = self.settings();
        // Parameters only show with the variant that uses them.
        let show_only_for = |input: &Option<HtmlInputElement>, visible: bool| {
            if let Some(label) = input.as_ref().and_then(|i| i.parent_element()) {
                let _ = label.class_list().toggle_with_force("hidden", !visible);
            }
        };
        show_only_for(&self.k, matches!(tf, TfVariant::KModified(_)));
        show_only_for(&self.cap, matches!(idf_variant, IdfVariant::Max { .. }));
        let terms = self.shown_terms(corpus);
        let docs = corpus.n_docs().min(MAX_DOCS_SHOWN);
        let term_labels: Vec<String> = terms.iter().map(|&j| corpus.vocabulary[j].clone()).collect();
        let doc_labels: Vec<String> = (0..docs).map(doc_label).collect();
        let clip = |m: &Matrix| m.first_rows(docs).select_columns(&terms);
        let mut notes = Vec::new();
        if terms.len() < corpus.vocabulary.len() {
            notes.push(format!("Mostrando os {} termos mais frequentes de {}.", terms.len(), corpus.vocabulary.len()));
        }
        if docs < corpus.n_docs() {
            notes.push(format!("Mostrando {} de {} documentos.", docs, corpus.n_docs()));
        }
        self.notice.set_text_content(Some(&notes.join(" ")));
        self.write_info(corpus);

        match self.mode {
            Mode::Bow => {
                self.show("counts", &clip(&corpus.counts), doc_labels.clone(), term_labels, Scale::Count);
                self.show("cosine", &cosine_matrix(&corpus.counts.first_rows(docs)), doc_labels.clone(), doc_labels, Scale::UnitSigned);
            }
            Mode::Tf => {
                self.show("counts", &clip(&corpus.counts), doc_labels.clone(), term_labels.clone(), Scale::Count);
                self.show("tf", &clip(&tf_matrix(&corpus.counts, tf, base)), doc_labels, term_labels, Scale::Count);
            }
            Mode::Idf => self.render_idf(corpus, idf_variant, base),
            Mode::TfIdf => {
                let l2 = self.l2.as_ref().is_some_and(|c| c.checked());
                let result = tf_idf(corpus, tf, idf_variant, base, l2);
                let idf_row: Vec<f32> = terms.iter().map(|&j| result.idf[j].to_f32()).collect();
                let idf_matrix = Matrix::from_vec(1, terms.len(), idf_row).unwrap_or_else(|_| Matrix::zeros(1, 0));
                self.show("tf", &clip(&result.tf), doc_labels.clone(), term_labels.clone(), Scale::Count);
                self.show("idf", &idf_matrix, vec!["IDF".into()], term_labels.clone(), Scale::Signed);
                self.show("tfidf", &clip(&result.tfidf), doc_labels.clone(), term_labels, Scale::Signed);
                self.show("cosine", &cosine_matrix(&result.tfidf.first_rows(docs)), doc_labels.clone(), doc_labels, Scale::UnitSigned);
            }
            Mode::Search => {
                let result = tf_idf(corpus, TfVariant::Raw, IdfVariant::Basic, base, false);
                self.show("tfidf", &clip(&result.tfidf), doc_labels, term_labels, Scale::Signed);
                let query = self.query.as_ref().map(|q| q.value()).unwrap_or_default();
                let ranking = rank(corpus, &query, options, TfVariant::Raw, IdfVariant::Basic, base);
                let labels: Vec<String> = ranking.iter().map(|(d, _)| doc_label(*d)).collect();
                let values: Vec<f32> = ranking.iter().map(|(_, c)| if c.is_nan() { 0.0 } else { *c }).collect();
                let title = if ranking.iter().all(|(_, c)| c.is_nan()) {
                    "Nenhum termo da consulta está no vocabulário: nada a comparar.".to_string()
                } else {
                    format!("Documentos ordenados pelo cosseno com «{}»", query.chars().take(60).collect::<String>())
                };
                if let Some(b) = &self.bars {
                    b.update(&title, &labels, &values);
                }
            }
        }
    }

    /// Tokens of the first documents and the sorted vocabulary, as text.
    fn write_info(&self, corpus: &Corpus) {
        self.info.set_text_content(None);
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

    fn render_idf(&self, corpus: &Corpus, variant: IdfVariant, base: LogBase) {
        let values = idf_vector(corpus, variant, base);
        let df = corpus.document_frequency();
        let table = dom::el("table", "results idf-table");
        dom::set_attr(&table, "data-results", "idf");
        dom::append(&table, &dom::text("caption", "", &format!("IDF por termo (N = {}, {})", corpus.n_docs(), base.label())));
        let head = dom::el("tr", "");
        for h in ["termo", "df", "IDF"] {
            dom::append(&head, &dom::text("th", "", h));
        }
        dom::append(&table, &head);
        for (j, term) in corpus.vocabulary.iter().enumerate().take(200) {
            let tr = dom::el("tr", "");
            dom::set_attr(&tr, "data-term", term);
            dom::append(&tr, &dom::text("th", "", term));
            dom::append(&tr, &dom::text("td", "", &df[j].to_string()));
            let cell = dom::text("td", "", &values[j].label());
            if !values[j].is_finite() || values[j].to_f32() < 0.0 {
                cell.set_class_name("warn");
            }
            dom::append(&tr, &cell);
            dom::append(&table, &tr);
        }
        self.table_slot.set_text_content(None);
        dom::append(&self.table_slot, &table);
        if let Some(canvas) = &self.curve {
            let points: Vec<(usize, IdfValue)> = (0..=corpus.n_docs()).map(|d| (d, idf(corpus.n_docs(), d, variant, base))).collect();
            draw_curve(canvas, &points);
        }
    }
}

/// IDF against df = 0…N: finite values joined by a line; "indefinido" and "−∞" marked below the axis.
fn draw_curve(canvas: &HtmlCanvasElement, points: &[(usize, IdfValue)]) {
    let (w, h, pad) = (320.0, 200.0, 30.0);
    let dpr = dom::window().map_or(1.0, |win| win.device_pixel_ratio()).max(1.0);
    canvas.set_width((w * dpr) as u32);
    canvas.set_height((h * dpr) as u32);
    let style = canvas.style();
    let _ = style.set_property("width", &format!("{w}px"));
    let _ = style.set_property("height", &format!("{h}px"));
    let Some(ctx) = canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok()) else { return };
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.clear_rect(0.0, 0.0, w, h);
    let dark = dom::prefers_dark();
    let ink = if dark { "#c9d1d9" } else { "#24292f" };
    let finite: Vec<f32> = points.iter().filter(|(_, v)| v.is_finite()).map(|(_, v)| v.to_f32()).collect();
    let lo = finite.iter().copied().fold(0.0f32, f32::min) as f64;
    let hi = finite.iter().copied().fold(0.0f32, f32::max).max(lo as f32 + 1e-3) as f64;
    let n = points.len().saturating_sub(1).max(1) as f64;
    let x = |d: usize| pad + (w - 2.0 * pad) * d as f64 / n;
    let y = |v: f64| h - pad - (h - 2.0 * pad) * (v - lo) / (hi - lo);
    ctx.set_stroke_style_str(if dark { "#30363d" } else { "#d0d7de" });
    ctx.set_line_width(1.0);
    ctx.begin_path();
    ctx.move_to(pad, y(0.0));
    ctx.line_to(w - pad, y(0.0));
    ctx.stroke();
    ctx.set_font("11px system-ui, sans-serif");
    ctx.set_fill_style_str(ink);
    ctx.set_text_align("center");
    for (d, _) in points.iter().step_by((points.len() / 10).max(1)) {
        let _ = ctx.fill_text(&d.to_string(), x(*d), h - 8.0);
    }
    ctx.set_text_align("left");
    let _ = ctx.fill_text("df", 2.0, h - 8.0);
    ctx.set_text_align("left");
    let _ = ctx.fill_text(&format_pt_short(hi as f32, 2), 2.0, y(hi) + 4.0);
    let _ = ctx.fill_text(&format_pt_short(lo as f32, 2), 2.0, y(lo) + 4.0);
    ctx.set_stroke_style_str("#0969da");
    ctx.set_line_width(2.0);
    ctx.begin_path();
    let mut drawing = false;
    for (d, v) in points {
        if v.is_finite() {
            let (px, py) = (x(*d), y(v.to_f32() as f64));
            if drawing {
                ctx.line_to(px, py);
            } else {
                ctx.move_to(px, py);
            }
            drawing = true;
        } else {
            drawing = false;
        }
    }
    ctx.stroke();
    ctx.set_text_align("center");
    for (d, v) in points {
        match v {
            IdfValue::Finite(value) => {
                ctx.set_fill_style_str("#0969da");
                ctx.begin_path();
                let _ = ctx.arc(x(*d), y(*value as f64), 3.0, 0.0, std::f64::consts::TAU);
                ctx.fill();
            }
            IdfValue::NegInfinity => {
                ctx.set_fill_style_str("#cf222e");
                let _ = ctx.fill_text("−∞", x(*d), h - pad + 12.0);
            }
            IdfValue::Undefined => {
                ctx.set_fill_style_str("#cf222e");
                let _ = ctx.fill_text("×", x(*d), h - pad + 12.0);
            }
        }
    }
    dom::set_attr(canvas, "aria-label", "Curva do IDF em função do número de documentos com o termo; × marca valores indefinidos");
}

impl Widget for TextWidget {
    fn recompute(self: Rc<Self>) {
        let update = self.updates.begin();
        dom::set_attr(&self.host, "data-state", "loading");
        let debounce = self.panel.text_len() > DEBOUNCE_BYTES;
        wasm_bindgen_futures::spawn_local(async move {
            // Large texts: wait for a pause in typing; always let "loading" paint first.
            if !update.settle(debounce).await {
                return;
            }
            let corpus = self.panel.corpus().await;
            // Counting and drawing are separate tasks, so neither blocks a frame for long.
            dom::sleep(0).await;
            if !update.is_current() {
                return;
            }
            match corpus {
                Ok((corpus, options)) => {
                    self.render(&corpus, &options);
                    show_ready(&self.host);
                }
                Err(message) => show_error(&self.host, &message),
            }
        });
    }
}
