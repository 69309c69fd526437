//! `doc-vectors`: each document as its own transition matrix T_d, turned into a vector: as
//! (context, next, p) triples (approach 1) or over one fixed list of pairs shared by every
//! document (approach 2), optionally L2-normalised; and the cosine and Euclidean tables
//! between documents, with the toggle "só não nulos" (the article's code, which drops the
//! positions and makes Example 1's documents identical: erratum E6) vs "matriz inteira".
//!
//! Attributes: `data-preset` (`tres-comandos`, the default, or `oito-documentos`).

use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::format::format_pt;
use crate::core::sequence::document::{compare_documents, l2_normalize, nonzero_vector, pair_vector, triples, FlattenMode};
use crate::core::sequence::ngram::NgramModel;
use crate::core::Matrix;

use crate::web::dom;
use crate::web::kit::ui::{self, live_note, show_results};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{HeatmapData, MatrixView, Scale};
use crate::web::kit::{control_of, controls, on_hover, Ctx, Shell, Widget, WidgetKind};
use super::{doc_label, sync_documents, NgramPanel, MAX_WORDS_SHOWN};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::DOC_VECTORS, mount };

/// Pairs of the fixed list (approach 2) and documents shown before the widget summarises.
const MAX_PAIRS: usize = 40;
const MAX_DOCS_SHOWN: usize = 20;

pub struct DocVectorsWidget {
    shell: Shell,
    panel: NgramPanel,
    document: HtmlSelectElement,
    approach: HtmlSelectElement,
    normalize: HtmlInputElement,
    flatten: HtmlSelectElement,
    notice: HtmlElement,
    doc_matrix: Rc<MatrixView>,
    vectors: Rc<MatrixView>,
    triples_slot: HtmlElement,
    cosine: Rc<MatrixView>,
    euclidean: Rc<MatrixView>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let shell = Shell::new(ctx, host, &KIND);
    let panel = NgramPanel::new(attrs.choice("data-preset"), true);
    dom::append(&shell.inputs, &panel.root);
    let (doc_label_el, document) = ui::select("documento ", "document", ui::NO_OPTIONS, "");
    controls::offered_later(&document);
    let approaches = vec![("pairs", "pares fixos (abordagem 2)"), ("triples", "triplas (abordagem 1)")];
    let (approach_label, approach) = ui::select("vetor ", "approach", &approaches, "pairs");
    let (normalize_label, normalize) = ui::checkbox(" normalizar (L2)", "normalize", true);
    let modes = vec![("full", "matriz inteira achatada"), ("nonzero", "só não nulos (código do artigo original)")];
    let (flatten_label, flatten) = ui::select("comparar com ", "flatten", &modes, "full");
    shell.control(&[&doc_label_el, &approach_label, &normalize_label, &flatten_label]);
    let notice = live_note("note wide");
    let doc_matrix = MatrixView::new("doc-matrix", "T_d", " do documento escolhido");
    let vectors = MatrixView::new("vectors", "Vetores", "");
    let triples_slot = dom::el("div", "explain");
    let cosine = MatrixView::new("cosine", "Cosseno entre documentos", "");
    let euclidean = MatrixView::new("euclidean", "Distância euclidiana", " entre vetores normalizados");
    dom::append_all(&shell.outputs, &[&notice, &doc_matrix.root, &vectors.root, &triples_slot, &cosine.root, &euclidean.root]);
    let widget = Rc::new(DocVectorsWidget { shell, panel, document, approach, normalize, flatten, notice, doc_matrix, vectors, triples_slot, cosine, euclidean });
    // A cosine or a distance between two documents outlines their two vectors.
    for view in [&widget.cosine, &widget.euclidean] {
        on_hover(&widget, view, |w, cell| w.vectors.highlight(&cell.map(|(i, j)| vec![i, j]).unwrap_or_default(), &[]));
    }
    let shell = &widget.shell;
    shell.on(&widget, &shell.host, &["input", "change"], |w, e| {
        let own = e.type_() == "change" && matches!(control_of(e).as_str(), "document" | "approach" | "normalize" | "flatten");
        if w.panel.edited(e) || own {
            w.clone().recompute();
        }
    });
    Ok(widget)
}

impl DocVectorsWidget {
    fn render(&self, model: &NgramModel) -> Result<(), String> {
        let n = model.n_documents();
        let d = sync_documents(&self.document, n);
        let vocab = model.vocabulary();
        let normalize = self.normalize.checked();
        let mut notes = Vec::new();

        // T_d over the words of the corpus (the most frequent ones if there are many).
        let shown = model.frequent_words(MAX_WORDS_SHOWN);
        let labels: Vec<String> = shown.iter().map(|&i| vocab[i].clone()).collect();
        let t_d = model.document_submatrix(d, &shown, &shown).map_err(|e| e.to_string())?;
        self.doc_matrix.update(HeatmapData { matrix: t_d, row_labels: labels.clone(), col_labels: labels, scale: Scale::Probability, masked: None });

        let docs_shown = n.min(MAX_DOCS_SHOWN);
        let doc_labels: Vec<String> = (0..docs_shown).map(doc_label).collect();
        if self.approach.value() != "triples" {
            self.triples_slot.set_text_content(None);
        } else {
            let list = triples(model, d);
            let values: Vec<f32> = list.iter().map(|t| t.2).collect();
            let values = if normalize { l2_normalize(&values) } else { values };
            let rows: Vec<(String, String)> = list.iter().zip(&values).map(|(t, v)| (format!("({}, {})", t.0, t.1), format_pt(*v, 4))).collect();
            let caption = format!("{}: {} triplas (contexto, próxima, p){}", doc_label(d), rows.len(), if normalize { ", p normalizado" } else { "" });
            show_results(&self.triples_slot, "triples", &caption, &rows);
        }
        // Approach 2: every document over the same pairs (the corpus's transitions, row-major).
        let pair_cells: Vec<(String, String)> = model
            .transitions()
            .iter()
            .take(MAX_PAIRS)
            .map(|t| (model.row_label(t.row), vocab[t.next].clone()))
            .collect();
        if model.transitions().len() > MAX_PAIRS {
            notes.push(format!("A lista fixa usa os primeiros {MAX_PAIRS} pares de {}.", model.transitions().len()));
        }
        let pairs: Vec<(&str, &str)> = pair_cells.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let nonzero = self.flatten.value() == "nonzero";
        let (vectors, columns, title) = if nonzero {
            // The article's listing: non-zero values only, positions dropped, padded to one width.
            let rows: Vec<Vec<f32>> = (0..docs_shown).map(|k| nonzero_vector(model, k)).collect();
            let width = rows.iter().map(Vec::len).max().unwrap_or(0);
            let cols: Vec<String> = (1..=width).map(|k| format!("{k}º")).collect();
            (rows_to_matrix(&rows, width), cols, "Vetores do código do artigo original (só não nulos, normalizados)")
        } else {
            let rows: Vec<Vec<f32>> = (0..docs_shown)
                .map(|k| {
                    let v = pair_vector(model, k, &pairs);
                    if normalize { l2_normalize(&v) } else { v }
                })
                .collect();
            let cols: Vec<String> = pair_cells.iter().map(|(a, b)| format!("{a}→{b}")).collect();
            (rows_to_matrix(&rows, pairs.len()), cols, if normalize { "Vetores sobre a lista fixa de pares (normalizados)" } else { "Vetores sobre a lista fixa de pares" })
        };
        self.vectors.update(HeatmapData { matrix: vectors, row_labels: doc_labels.clone(), col_labels: columns, scale: Scale::Probability, masked: None });
        self.vectors.set_title(title);

        let mode = if nonzero { FlattenMode::NonZeroOnly } else { FlattenMode::Full };
        let comparison = compare_documents(model, mode).map_err(|e| e.to_string())?;
        let clip = |m: &Matrix| m.first_rows(docs_shown).columns(0, docs_shown);
        self.cosine.update(HeatmapData { matrix: clip(&comparison.cosine), row_labels: doc_labels.clone(), col_labels: doc_labels.clone(), scale: Scale::Probability, masked: None });
        self.euclidean.update(HeatmapData { matrix: clip(&comparison.euclidean), row_labels: doc_labels.clone(), col_labels: doc_labels, scale: Scale::Count, masked: None });
        if nonzero {
            notes.push("Só não nulos: a posição k de dois documentos pode ser uma transição diferente em cada um, então documentos diferentes podem parecer idênticos (cosseno 1). Compare com a matriz inteira.".into());
        }
        if docs_shown < n {
            notes.push(format!("Mostrando {docs_shown} de {n} documentos."));
        }
        self.notice.set_text_content(Some(&notes.join(" ")));
        Ok(())
    }
}

fn rows_to_matrix(rows: &[Vec<f32>], width: usize) -> Matrix {
    let mut m = Matrix::zeros(rows.len(), width);
    for (r, row) in rows.iter().enumerate() {
        for (c, &v) in row.iter().enumerate().take(width) {
            m.set(r, c, v);
        }
    }
    m
}

impl Widget for DocVectorsWidget {
    fn recompute(self: Rc<Self>) {
        let widget = self.clone();
        self.shell.local(self.panel.debounce(), move || widget.panel.build().and_then(|model| widget.render(&model)));
    }

    fn restore(&self, key: &str, value: &str) -> Option<bool> {
        self.panel.restore(key, value)
    }
}
