//! `swiglu`: the gated FFN against the 2017 one. The activation curves (ReLU, GELU, SiLU); the
//! hidden units of the same seeded tokens through ReLU(x·W₁ + b₁) and through
//! SiLU(x·W_gate) ⊙ x·W_up, on one colour scale, with ReLU's exact zeros counted; and the
//! parameter counts at the same width and at the ⅔ rule, for the reader's d and d_ff and for
//! the 2017 paper's.
//!
//! Attributes: `data-d` (1 to 64; default 8), `data-d-ff` (1 to 256; default 32).

use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement};

use crate::core::format::format_pt;
use crate::core::modern::swiglu::{ffn_counts, Swiglu, SwigluJob};
use crate::core::transformer::format_count;
use crate::site::palette::Scale;

use crate::web::dom;
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::line_plot::{Axes, LinePlot, Series};
use crate::web::kit::draw::MatrixView;
use crate::web::kit::ui::{number_field, read_count, show_results};
use crate::web::kit::{Ctx, Shell, Widget, WidgetKind};
use super::{columns, results_slot, shared_extent};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::SWIGLU, mount };

pub struct SwigluWidget {
    shell: Shell,
    d: HtmlInputElement,
    d_ff: HtmlInputElement,
    curves: LinePlot,
    relu: Rc<MatrixView>,
    gated: Rc<MatrixView>,
    results: HtmlElement,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let shell = Shell::new(ctx, host, &KIND);
    let (d_label, d) = number_field("d = ", "d", &attrs.number("data-d").to_string(), true);
    let (d_ff_label, d_ff) = number_field("d_ff = ", "d-ff", &attrs.number("data-d-ff").to_string(), true);
    shell.control(&[&d_label, &d_ff_label]);
    let curves = LinePlot::new("activations", "As funções de ativação");
    let relu = MatrixView::new("relu-hidden", "2017: ReLU(x W_1 + b_1)", " (4 tokens × d_{ff} unidades ocultas)");
    let gated = MatrixView::new("swiglu-hidden", "SwiGLU: SiLU(x W_{gate}) ⊙ x W_{up}", " (4 tokens × ⅔·d_{ff} unidades; a mesma escala de cores)");
    let results = results_slot();
    dom::append_all(&shell.outputs, &[&curves.root, &relu.root, &gated.root, &results]);
    let widget = Rc::new(SwigluWidget { shell, d, d_ff, curves, relu, gated, results });
    widget.shell.on(&widget, &widget.shell.controls, &["input"], |w, _| w.clone().recompute());
    Ok(widget)
}

impl SwigluWidget {
    fn job(&self) -> Result<SwigluJob, String> {
        Ok(SwigluJob::new(read_count(&self.d, "d")?, read_count(&self.d_ff, "d_ff")?))
    }

    fn draw(&self, job: &SwigluJob, s: &Swiglu) {
        let xs: Vec<f64> = s.curve_x.iter().map(|&x| x as f64).collect();
        let series = |label: &str, dashed: bool, values: &[f32]| Series { label: label.into(), values: values.iter().map(|&v| v as f64).collect(), dashed, dots: false };
        self.curves.update(
            &xs,
            &[series("ReLU", false, &s.curves[0]), series("GELU", true, &s.curves[1]), series("SiLU = x·σ(x)", false, &s.curves[2])],
            &Axes { x_label: "x".into(), y_label: "ativação".into(), log_x: false, log_y: false, y_range: None },
            |x| format!("x = {}", format_pt(x as f32, 2)),
            |y| format_pt(y as f32, 4),
        );
        let tokens: Vec<String> = (1..=job.tokens).map(|t| format!("token {t}")).collect();
        let extent = shared_extent(&[&s.relu_hidden, &s.swiglu_hidden]);
        self.relu.show_canvas(&s.relu_hidden, tokens.clone(), columns(s.relu_hidden.cols()), Scale::SignedUpTo(extent));
        self.relu.fill_twin();
        self.gated.show_canvas(&s.swiglu_hidden, tokens, columns(s.swiglu_hidden.cols()), Scale::SignedUpTo(extent));
        self.gated.fill_twin();
        let paper = ffn_counts(512, 2048);
        let c = s.counts;
        let count = |n: u64| format_count(n);
        let rows = vec![
            ("ReLU: unidades exatamente zero".to_string(), format!("{} %", format_pt(100.0 * s.relu_zeros, 1))),
            ("SwiGLU: unidades exatamente zero".to_string(), format!("{} %", format_pt(100.0 * s.swiglu_zeros, 1))),
            (format!("d = {}, d_{{ff}} = {}: FFN de 2017 (W₁, b₁, W₂, b₂)", job.d, job.d_ff), count(c.relu)),
            (format!("SwiGLU com as mesmas {} unidades (3 matrizes)", job.d_ff), count(c.swiglu_same_width)),
            (format!("SwiGLU com ⅔·d_{{ff}} = {} unidades", c.hidden), count(c.swiglu_two_thirds)),
            ("artigo de 2017 (d = 512, d_{ff} = 2048): FFN com ReLU".to_string(), count(paper.relu)),
            (format!("mesmo d: SwiGLU com {} unidades", paper.hidden), count(paper.swiglu_two_thirds)),
        ];
        show_results(&self.results, "swiglu", "Zeros e parâmetros", &rows);
    }
}

impl Widget for SwigluWidget {
    fn recompute(self: Rc<Self>) {
        let widget = self.clone();
        self.shell.compute_or(self.job(), move |job, swiglu, _| widget.draw(&job, &swiglu));
    }
}
