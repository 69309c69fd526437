//! `likelihood`: a document's transition matrix T_d beside the corpus's T_corpus (over the
//! words the document uses), and its likelihood-ratio vector v* = P_d / P_corpus as bars, one
//! per transition: above 1, the transition is more typical of this document than of the corpus.
//! The article's v₁* is wrong (erratum E2); this computes the corrected one.
//!
//! Attributes: `data-preset` (`oito-documentos`, the default, or `tres-comandos`),
//! `data-document` (1-based, default 1).

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlSelectElement};

use crate::core::format::{format_pt, format_pt_short};
use crate::core::sequence::document::likelihood_ratios;
use crate::core::sequence::ngram::NgramModel;
use crate::core::sequence::presets::ngram_preset;

use crate::web::dom::{self, Listener};
use crate::web::kit::draw::{BarView, Scale, HeatmapData, MatrixView};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::{control_of, listen, show_error, show_ready, twins_button, Ctx, Updates, Widget, WidgetKind};
use super::{doc_label, NgramPanel, DEBOUNCE_BYTES, MAX_WORDS_SHOWN};

pub const KIND: WidgetKind = WidgetKind { name: "likelihood", title: "Documento contra corpus: razões de verossimilhança", mount };

/// Ratios drawn as bars before the chart says "…".
const MAX_BARS: usize = 40;

pub struct LikelihoodWidget {
    host: HtmlElement,
    panel: NgramPanel,
    document: HtmlSelectElement,
    tokens: HtmlElement,
    doc_matrix: Rc<MatrixView>,
    corpus_matrix: Rc<MatrixView>,
    bars: BarView,
    detail: HtmlElement,
    updates: Updates,
    listeners: RefCell<Vec<Listener>>,
}

fn mount(_ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let preset_id = attrs.choice("data-preset").to_string();
    let documents = ngram_preset(&preset_id).map_or(1, |p| p.documents.len().max(1));
    let range = crate::core::widget_input::NumberRange::integer(1.0, documents as f64, 1.0);
    let first_doc = attrs.index("data-document", &range) as usize - 1;
    super::scaffold(host, KIND.title);
    let panel = NgramPanel::new(&preset_id, true);
    dom::append(host, &panel.root);
    let controls = dom::el("div", "widget-controls");
    let (doc_el, document) = dom::select("documento ", "document", &[], "");
    dom::set_attr(&document, "data-wanted", &first_doc.to_string());
    let (twins, twins_listener) = twins_button(host);
    dom::append(&controls, &doc_el);
    dom::append(&controls, &twins);
    dom::append(host, &controls);
    let tokens = dom::el("p", "text-info");
    dom::append(host, &tokens);
    let outputs = dom::el("div", "widget-outputs");
    let doc_matrix = MatrixView::new("doc-matrix", "T_d", " só este documento");
    let corpus_matrix = MatrixView::new("corpus-matrix", "T_corpus", " todos os documentos");
    let bars = BarView::new("ratios", "");
    let detail = dom::el("div", "explain");
    for el in [&doc_matrix.root, &corpus_matrix.root, &bars.root, &detail] {
        dom::append(&outputs, el);
    }
    dom::append(host, &outputs);
    let widget = Rc::new(LikelihoodWidget {
        host: host.clone(),
        panel,
        document,
        tokens,
        doc_matrix,
        corpus_matrix,
        bars,
        detail,
        updates: Updates::default(),
        listeners: RefCell::new(Vec::new()),
    });
    let on = |kind| listen(&widget, host, kind, LikelihoodWidget::on_event);
    *widget.listeners.borrow_mut() = vec![on("input"), on("change"), twins_listener];
    Ok(widget)
}

impl LikelihoodWidget {
    fn on_event(self: &Rc<Self>, event: &web_sys::Event) {
        match (event.type_().as_str(), control_of(event).as_str()) {
            ("change", "preset") => {
                self.panel.apply_preset(&self.panel.preset.value());
                self.clone().recompute();
            }
            ("input", "corpus") | ("change", "lowercase" | "accents" | "start" | "end" | "document") => self.clone().recompute(),
            _ => {}
        }
    }

    fn sync_documents(&self, n: usize) -> usize {
        let wanted = self.document.get_attribute("data-wanted").and_then(|w| w.parse::<usize>().ok());
        let chosen = self.document.value().parse::<usize>().ok().or(wanted).unwrap_or(0);
        if self.document.length() as usize != n {
            self.document.set_text_content(None);
            for d in 0..n {
                let option = dom::text("option", "", &doc_label(d));
                dom::set_attr(&option, "value", &d.to_string());
                dom::append(&self.document, &option);
            }
        }
        let chosen = if chosen < n { chosen } else { 0 };
        self.document.set_value(&chosen.to_string());
        dom::set_attr(&self.document, "data-wanted", &chosen.to_string());
        chosen
    }

    fn render(&self, model: &NgramModel) -> Result<(), String> {
        let d = self.sync_documents(model.n_documents());
        let words = model.document_tokens(d);
        self.tokens.set_text_content(Some(&format!("{} como o modelo o vê: {}", doc_label(d), words.join(" · "))));
        // Rows and columns: the document's own words, in vocabulary order (a window for long ones).
        let mut ids: Vec<usize> = words.iter().filter_map(|w| model.word_index(w)).collect();
        ids.sort_unstable();
        ids.dedup();
        ids.truncate(MAX_WORDS_SHOWN);
        let labels: Vec<String> = ids.iter().map(|&i| model.vocabulary()[i].clone()).collect();
        let t_d = model.document_submatrix(d, &ids, &ids).map_err(|e| e.to_string())?;
        let t_corpus = model.submatrix(&ids, &ids, true).map_err(|e| e.to_string())?;
        self.doc_matrix.update(HeatmapData { matrix: t_d, row_labels: labels.clone(), col_labels: labels.clone(), scale: Scale::Probability, masked: None });
        self.corpus_matrix.update(HeatmapData { matrix: t_corpus, row_labels: labels.clone(), col_labels: labels, scale: Scale::Probability, masked: None });

        let ratios = likelihood_ratios(model, d);
        let names: Vec<String> = ratios.iter().take(MAX_BARS).map(|r| format!("{} → {}", r.context, r.next)).collect();
        let values: Vec<f32> = ratios.iter().take(MAX_BARS).map(|r| r.ratio).collect();
        let title = if ratios.is_empty() {
            format!("{} não tem transições (uma palavra só, sem <START>): v* fica vazio", doc_label(d))
        } else {
            format!("v* de {}: P_d / P_corpus por transição (acima de 1 = típica deste documento)", doc_label(d))
        };
        self.bars.update(&title, &names, &values);
        let rows: Vec<(String, String)> = ratios
            .iter()
            .take(MAX_BARS)
            .map(|r| {
                (
                    format!("{} → {}", r.context, r.next),
                    format!("{} / {} = {}", format_pt_short(r.document, 4), format_pt_short(r.corpus, 4), format_pt(r.ratio, 4)),
                )
            })
            .collect();
        self.detail.set_text_content(None);
        dom::append(&self.detail, &dom::results_table("ratios", "P_d / P_corpus = razão", &rows));
        Ok(())
    }
}

impl Widget for LikelihoodWidget {
    fn recompute(self: Rc<Self>) {
        let update = self.updates.begin();
        dom::set_attr(&self.host, "data-state", "loading");
        let debounce = self.panel.text_len() > DEBOUNCE_BYTES;
        wasm_bindgen_futures::spawn_local(async move {
            // Large texts: wait for a pause in typing; always let "loading" paint first.
            if !update.settle(debounce).await {
                return;
            }
            match self.panel.build().and_then(|model| self.render(&model)) {
                Ok(()) => show_ready(&self.host),
                Err(message) => show_error(&self.host, &message),
            }
        });
    }
}
