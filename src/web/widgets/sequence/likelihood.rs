//! `likelihood`: a document's transition matrix T_d beside the corpus's T_corpus (over the
//! words the document uses), and its likelihood-ratio vector v* = P_d / P_corpus as bars, one
//! per transition: above 1, the transition is more typical of this document than of the corpus.
//! The article's v₁* is wrong (erratum E2); this computes the corrected one.
//!
//! Attributes: `data-preset` (`oito-documentos`, the default, or `tres-comandos`),
//! `data-document` (1-based, default 1).

use std::rc::Rc;

use web_sys::{HtmlElement, HtmlSelectElement};

use crate::core::format::{format_pt, format_pt_short};
use crate::core::sequence::document::likelihood_ratios;
use crate::core::sequence::ngram::NgramModel;
use crate::core::sequence::presets::ngram_preset;

use crate::web::dom;
use crate::web::kit::ui::{self, show_results};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{BarView, HeatmapData, MatrixView, Scale};
use crate::web::kit::{control_of, controls, on_hover, Ctx, Shell, Widget, WidgetKind};
use super::{doc_label, sync_documents, NgramPanel, MAX_WORDS_SHOWN};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::LIKELIHOOD, mount };

/// Ratios drawn as bars before the chart says "…".
const MAX_BARS: usize = 40;

pub struct LikelihoodWidget {
    shell: Shell,
    panel: NgramPanel,
    document: HtmlSelectElement,
    tokens: HtmlElement,
    doc_matrix: Rc<MatrixView>,
    corpus_matrix: Rc<MatrixView>,
    bars: BarView,
    detail: HtmlElement,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let preset_id = attrs.choice("data-preset").to_string();
    let documents = ngram_preset(&preset_id).map_or(1, |p| p.documents.len().max(1));
    let range = crate::core::widget_input::NumberRange::integer(1.0, documents as f64, 1.0);
    let first_doc = attrs.index("data-document", &range) as usize - 1;
    let shell = Shell::new(ctx, host, &KIND);
    let panel = NgramPanel::new(&preset_id, true);
    dom::append(&shell.inputs, &panel.root);
    let (doc_el, document) = ui::select("documento ", "document", ui::NO_OPTIONS, "");
    controls::offered_later(&document);
    dom::set_attr(&document, "data-wanted", &first_doc.to_string());
    shell.control(&[&doc_el]);
    let tokens = dom::el("p", "text-info wide");
    let doc_matrix = MatrixView::new("doc-matrix", "T_d", " só este documento");
    let corpus_matrix = MatrixView::new("corpus-matrix", "T_{corpus}", " todos os documentos");
    let bars = BarView::new("ratios", "");
    let detail = dom::el("div", "explain");
    dom::append_all(&shell.outputs, &[&tokens, &doc_matrix.root, &corpus_matrix.root, &bars.root, &detail]);
    let widget = Rc::new(LikelihoodWidget { shell, panel, document, tokens, doc_matrix, corpus_matrix, bars, detail });
    // A cell of T_d and the same transition in T_corpus outline each other.
    let outline = |view: &MatrixView, cell: Option<(usize, usize)>| {
        let (rows, cols) = cell.map_or((vec![], vec![]), |(r, c)| (vec![r], vec![c]));
        view.highlight(&rows, &cols);
    };
    on_hover(&widget, &widget.doc_matrix, move |w, cell| outline(&w.corpus_matrix, cell));
    on_hover(&widget, &widget.corpus_matrix, move |w, cell| outline(&w.doc_matrix, cell));
    let shell = &widget.shell;
    shell.on(&widget, &shell.host, &["input", "change"], |w, e| {
        if w.panel.edited(e) || (e.type_() == "change" && control_of(e) == "document") {
            w.clone().recompute();
        }
    });
    Ok(widget)
}

impl LikelihoodWidget {
    fn render(&self, model: &NgramModel) -> Result<(), String> {
        let d = sync_documents(&self.document, model.n_documents());
        let words = model.document_tokens(d);
        self.tokens.set_text_content(Some(&format!("{} como o modelo o vê: {}", doc_label(d), words.join(" · "))));
        // Rows and columns: the document's own words, in vocabulary order (a window for long ones).
        let mut ids: Vec<usize> = words.iter().filter_map(|w| model.word_index(w)).collect();
        crate::core::order::sort_usize(&mut ids);
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
            format!("v* de {}: P_d / P_{{corpus}} por transição (acima de 1 = típica deste documento)", doc_label(d))
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
        show_results(&self.detail, "ratios", "P_d / P_{corpus} = razão", &rows);
        Ok(())
    }
}

impl Widget for LikelihoodWidget {
    fn recompute(self: Rc<Self>) {
        let widget = self.clone();
        self.shell.local(self.panel.debounce(), move || widget.panel.build().and_then(|model| widget.render(&model)));
    }

    fn restore(&self, key: &str, value: &str) -> Option<bool> {
        self.panel.restore(key, value)
    }
}
