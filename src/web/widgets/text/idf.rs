//! `idf`: the IDF of every term in any of five variants (basic, IDF+1, probabilistic, max
//! with its cap, smoothed as in sklearn) and the logarithm's base of choice, as a table (df,
//! IDF) and as the curve IDF against df = 0…N; "indefinido" and "−∞" are named, never NaN.
//!
//! Attributes: `data-preset`, `data-corpus`, `data-idf` (basic | plus1 | probabilistic | max |
//! smooth), `data-base` (e | 10 | 2).

use std::rc::Rc;

use web_sys::{HtmlElement, HtmlSelectElement};

use crate::core::format::format_pt;
use crate::core::text::idf::{idf, idf_vector};
use crate::core::text::tokenizer::TokenizerOptions;
use crate::core::text::Corpus;

use crate::web::dom;
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::line_plot::{Axes, LinePlot, Series};
use crate::web::kit::{Ctx, Widget, WidgetKind};

use super::corpus::{base_select, log_base, CorpusFrame, IdfControls, TextWidget};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::IDF, mount };

/// Terms listed in the table (a pasted corpus can have thousands).
const MAX_TERMS_LISTED: usize = 200;

pub struct IdfWidget {
    frame: CorpusFrame,
    variant: IdfControls,
    base: HtmlSelectElement,
    curve: LinePlot,
    table: HtmlElement,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let frame = CorpusFrame::new(ctx, host, &KIND, attrs)?;
    let (variant, [variant_label, cap_label]) = IdfControls::new(attrs);
    let (base_label, base) = base_select(attrs);
    frame.shell.control(&[&variant_label, &cap_label, &base_label]);
    let curve = LinePlot::new("idf-curve", "IDF em função de df (lacuna onde é −∞ ou indefinido)");
    dom::append(&frame.shell.outputs, &curve.root);
    let table = dom::el("div", "");
    dom::append(&frame.shell.outputs, &table);
    let widget = Rc::new(IdfWidget { frame, variant, base, curve, table });
    CorpusFrame::listen(&widget);
    Ok(widget)
}

impl TextWidget for IdfWidget {
    fn frame(&self) -> &CorpusFrame {
        &self.frame
    }

    fn render(&self, corpus: &Corpus, _: &TokenizerOptions) {
        let (variant, base) = (self.variant.variant(), log_base(&self.base));
        let values = idf_vector(corpus, variant, base);
        let df = corpus.document_frequency();
        let table = dom::el("table", "results idf-table");
        dom::set_attr(&table, "data-results", "idf");
        dom::append(&table, &dom::text("caption", "", &format!("IDF por termo (N = {}, {})", corpus.n_docs(), base.label())));
        dom::append(&table, &dom::header_row(&["termo", "df", "IDF"]));
        for (j, term) in corpus.vocabulary.iter().enumerate().take(MAX_TERMS_LISTED) {
            let tr = dom::el("tr", "");
            dom::set_attr(&tr, "data-term", term);
            dom::append_all(&tr, &[&dom::th(term, "row"), &dom::text("td", "", &df[j].to_string())]);
            let cell = dom::text("td", "", &values[j].label());
            if !values[j].is_finite() || values[j].to_f32() < 0.0 {
                cell.set_class_name("warn");
            }
            dom::append(&tr, &cell);
            dom::append(&table, &tr);
        }
        self.table.set_text_content(None);
        dom::append(&self.table, &table);
        if corpus.vocabulary.len() > MAX_TERMS_LISTED {
            self.frame.note(&format!("A tabela mostra {MAX_TERMS_LISTED} de {} termos.", corpus.vocabulary.len()));
        }

        // The curve over every possible df, 0 … N: gaps where the IDF is −∞ or undefined.
        let n = corpus.n_docs();
        let xs: Vec<f64> = (0..=n).map(|d| d as f64).collect();
        let curve: Vec<f64> = (0..=n).map(|d| idf(n, d, variant, base).to_f32() as f64).collect();
        let finite = curve.iter().copied().filter(|v| v.is_finite());
        let (lo, hi) = finite.fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let axes = Axes { x_label: "df".into(), y_label: "IDF".into(), log_x: false, log_y: false, y_range: Some((lo, hi.max(lo + 1e-3))) };
        let series = [Series { label: format!("IDF ({})", base.label()), values: curve, dashed: false, dots: true }];
        let value = |v: f64| match v {
            v if v == f64::NEG_INFINITY => "−∞".to_string(),
            v if v.is_nan() => "indefinido".to_string(),
            v => format_pt(v as f32, 4),
        };
        self.curve.update(&xs, &series, &axes, |x| format!("{}", x as usize), value);
    }
}
