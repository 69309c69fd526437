//! `search`: a query ranked against the documents by the cosine of their TF-IDF vectors (raw
//! TF, basic IDF), the documents' TF-IDF beside the ranking. A query with no word of the
//! vocabulary says so instead of ranking zeros.
//!
//! Attributes: `data-preset`, `data-corpus`, `data-query` (default: the article corpus's
//! query), `data-base` (e | 10 | 2).

use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::examples::corpus_preset;
use crate::core::text::idf::IdfVariant;
use crate::core::text::tf::TfVariant;
use crate::core::text::tfidf::{rank, tf_idf};
use crate::core::text::tokenizer::TokenizerOptions;
use crate::core::text::Corpus;

use crate::web::dom;
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{BarView, MatrixView, Scale};
use crate::web::kit::ui::text_field;
use crate::web::kit::{Ctx, Widget, WidgetKind};

use super::corpus::{base_select, doc_label, log_base, CorpusFrame, TextWidget};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::SEARCH, mount };

pub struct SearchWidget {
    frame: CorpusFrame,
    query: HtmlInputElement,
    base: HtmlSelectElement,
    tfidf: Rc<MatrixView>,
    ranking: BarView,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let frame = CorpusFrame::new(ctx, host, &KIND, attrs)?;
    let preset_query = corpus_preset(&frame.preset()).map_or("", |p| p.query);
    let (query_label, query) = text_field("consulta ", "query", &attrs.text("data-query").unwrap_or_else(|| preset_query.to_string()));
    query.set_type("search");
    dom::append(&frame.shell.inputs, &query_label);
    let (base_label, base) = base_select(attrs);
    frame.shell.control(&[&base_label]);
    let tfidf = frame.view("tfidf", "TF-IDF dos documentos", "");
    // Cosines of vectors with no negative entry: 0 … 1.
    let ranking = BarView::new("ranking", "").probabilities();
    dom::append(&frame.shell.outputs, &ranking.root);
    let widget = Rc::new(SearchWidget { frame, query, base, tfidf, ranking });
    CorpusFrame::listen(&widget);
    Ok(widget)
}

impl TextWidget for SearchWidget {
    fn frame(&self) -> &CorpusFrame {
        &self.frame
    }

    fn preset_chosen(&self, id: &str) {
        if let Some(preset) = corpus_preset(id) {
            self.query.set_value(preset.query);
        }
    }

    fn render(&self, corpus: &Corpus, options: &TokenizerOptions) {
        let base = log_base(&self.base);
        let result = tf_idf(corpus, TfVariant::Raw, IdfVariant::Basic, base, false);
        let shown = self.frame.shown(corpus);
        // Raw TF times log(N/df) ≥ 0: magnitudes.
        shown.draw(&self.tfidf, &result.tfidf, Scale::Count);
        let query = self.query.value();
        let ranking = rank(corpus, &query, options, TfVariant::Raw, IdfVariant::Basic, base);
        let labels: Vec<String> = ranking.iter().map(|(d, _)| doc_label(*d)).collect();
        let values: Vec<f32> = ranking.iter().map(|(_, c)| if c.is_nan() { 0.0 } else { *c }).collect();
        let title = if ranking.iter().all(|(_, c)| c.is_nan()) {
            "Nenhum termo da consulta está no vocabulário: nada a comparar.".to_string()
        } else {
            format!("Documentos ordenados pelo cosseno com «{}»", query.chars().take(60).collect::<String>())
        };
        self.ranking.update(&title, &labels, &values);
    }
}
