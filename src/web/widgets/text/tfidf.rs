//! `tfidf`: TF and IDF (any variants, any base) multiplied into TF-IDF, side by side; optional
//! L2 normalisation of each document's row; the cosine between documents.
//!
//! Attributes: `data-preset`, `data-corpus`, `data-tf`, `data-idf`, `data-base` (as `tf` and
//! `idf`).

use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::text::tfidf::{cosine_matrix, tf_idf};
use crate::core::text::tokenizer::TokenizerOptions;
use crate::core::text::Corpus;
use crate::core::Matrix;

use crate::web::kit::ui;
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{MatrixView, Scale};
use crate::web::kit::{Ctx, Widget, WidgetKind};

use super::corpus::{base_select, log_base, tf_select, tf_variant, CorpusFrame, IdfControls, TextWidget};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::TFIDF, mount };

pub struct TfIdfWidget {
    frame: CorpusFrame,
    tf_variant: HtmlSelectElement,
    idf_variant: IdfControls,
    base: HtmlSelectElement,
    l2: HtmlInputElement,
    tf: Rc<MatrixView>,
    idf: Rc<MatrixView>,
    tfidf: Rc<MatrixView>,
    cosine: Rc<MatrixView>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let frame = CorpusFrame::new(ctx, host, &KIND, attrs)?;
    let (tf_label, tf_variant) = tf_select(attrs);
    let (idf_variant, [idf_label, cap_label]) = IdfControls::new(attrs);
    let (base_label, base) = base_select(attrs);
    let (l2_label, l2) = ui::checkbox(" normalizar linhas (L2)", "l2", false);
    frame.shell.control(&[&tf_label, &idf_label, &cap_label, &base_label, &l2_label]);
    let tf = frame.view("tf", "TF", "");
    let idf = frame.view("idf", "IDF", " por termo");
    let tfidf = frame.view("tfidf", "TF-IDF = TF × IDF", "");
    let cosine = frame.view("cosine", "Cosseno entre documentos", "");
    let widget = Rc::new(TfIdfWidget { frame, tf_variant, idf_variant, base, l2, tf, idf, tfidf, cosine });
    CorpusFrame::listen(&widget);
    Ok(widget)
}

impl TextWidget for TfIdfWidget {
    fn frame(&self) -> &CorpusFrame {
        &self.frame
    }

    fn render(&self, corpus: &Corpus, _: &TokenizerOptions) {
        let tf = tf_variant(&self.tf_variant, 0.4);
        let result = tf_idf(corpus, tf, self.idf_variant.variant(), log_base(&self.base), self.l2.checked());
        let shown = self.frame.shown(corpus);
        let idf_row: Vec<f32> = shown.terms.iter().map(|&j| result.idf[j].to_f32()).collect();
        let idf = Matrix::from_vec(1, shown.terms.len(), idf_row).unwrap_or_else(|_| Matrix::zeros(1, 0));
        shown.draw(&self.tf, &result.tf, Scale::Count);
        // IDF and so TF-IDF can be negative (IDF+1, probabilistic).
        self.idf.show(&idf, vec!["IDF".into()], shown.term_labels.clone(), Scale::Signed);
        shown.draw(&self.tfidf, &result.tfidf, Scale::Signed);
        shown.draw_docs(&self.cosine, cosine_matrix(&result.tfidf.first_rows(shown.docs)));
    }
}
