//! `tf`: the counts f(w, D) beside TF(w, D) in any of the eight variants (raw, normalized,
//! logarithmic, binary, augmented, K-modified with its K, smoothed logarithmic, by length),
//! in the logarithm's base of choice.
//!
//! Attributes: `data-preset`, `data-corpus`, `data-tf` (raw | normalized | log | binary | aug
//! | k | log-smooth | length), `data-base` (e | 10 | 2).

use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::format::parse_pt;
use crate::core::text::tf::{tf_matrix, TfVariant};
use crate::core::text::tokenizer::TokenizerOptions;
use crate::core::text::Corpus;

use crate::web::kit::ui;
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{MatrixView, Scale};
use crate::web::kit::{Ctx, Widget, WidgetKind};

use super::corpus::{base_select, log_base, show_only_if, tf_select, tf_variant, CorpusFrame, TextWidget};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::TF, mount };

pub struct TfWidget {
    frame: CorpusFrame,
    variant: HtmlSelectElement,
    /// The K of the K-modified variant.
    k: HtmlInputElement,
    base: HtmlSelectElement,
    counts: Rc<MatrixView>,
    tf: Rc<MatrixView>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let frame = CorpusFrame::new(ctx, host, &KIND, attrs)?;
    let (variant_label, variant) = tf_select(attrs);
    let (k_label, k) = ui::slider(" K = ", "k", 0.0, 1.0, 0.05, 0.4);
    let (base_label, base) = base_select(attrs);
    frame.shell.control(&[&variant_label, &k_label, &base_label]);
    let counts = frame.view("counts", "Contagens f(w, D)", "");
    let tf = frame.view("tf", "TF(w, D)", "");
    let widget = Rc::new(TfWidget { frame, variant, k, base, counts, tf });
    CorpusFrame::listen(&widget);
    Ok(widget)
}

impl TextWidget for TfWidget {
    fn frame(&self) -> &CorpusFrame {
        &self.frame
    }

    fn render(&self, corpus: &Corpus, _: &TokenizerOptions) {
        let variant = tf_variant(&self.variant, parse_pt(&self.k.value()).unwrap_or(0.4));
        show_only_if(&self.k, matches!(variant, TfVariant::KModified(_)));
        let shown = self.frame.shown(corpus);
        shown.draw(&self.counts, &corpus.counts, Scale::Count);
        shown.draw(&self.tf, &tf_matrix(&corpus.counts, variant, log_base(&self.base)), Scale::Count);
    }
}
