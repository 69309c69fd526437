//! `bow`: corpus → tokens → sorted vocabulary → the matrix of counts f(w, D) (Bag of Words),
//! and the cosine between documents' count vectors: same words in another order, same vector.
//!
//! Attributes: `data-preset` (an id of `core::examples::ARTICLE_CORPORA`), `data-corpus`.

use std::rc::Rc;

use web_sys::HtmlElement;

use crate::core::text::tfidf::cosine_matrix;
use crate::core::text::tokenizer::TokenizerOptions;
use crate::core::text::Corpus;

use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{MatrixView, Scale};
use crate::web::kit::{Ctx, Widget, WidgetKind};

use super::corpus::{CorpusFrame, TextWidget};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::BOW, mount };

pub struct BowWidget {
    frame: CorpusFrame,
    counts: Rc<MatrixView>,
    cosine: Rc<MatrixView>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let frame = CorpusFrame::new(ctx, host, &KIND, attrs)?;
    let counts = frame.view("counts", "Contagens f(w, D)", "");
    let cosine = frame.view("cosine", "Cosseno entre documentos", "");
    let widget = Rc::new(BowWidget { frame, counts, cosine });
    CorpusFrame::listen(&widget);
    Ok(widget)
}

impl TextWidget for BowWidget {
    fn frame(&self) -> &CorpusFrame {
        &self.frame
    }

    fn render(&self, corpus: &Corpus, _: &TokenizerOptions) {
        let shown = self.frame.shown(corpus);
        shown.draw(&self.counts, &corpus.counts, Scale::Count);
        shown.draw_docs(&self.cosine, cosine_matrix(&corpus.counts.first_rows(shown.docs)));
    }
}
