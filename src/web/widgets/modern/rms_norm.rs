//! `rms-norm`: RMSNorm against layer norm on the reader's vector x, and on x + c and s·x. Three
//! heatmaps on one scale per kind (inputs; both norms' outputs share theirs): layer norm's rows
//! for x and x + c are the same (it subtracts the mean), RMSNorm's are not (it only divides by
//! the root mean square); both forget s. The statistics and the changes are measured.
//!
//! Attributes: none (x starts at [2, −1, 0,5, 3, 1,5], c = 1, s = 2).

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement};

use crate::core::format::{format_pt, format_pt_short};
use crate::core::modern::rms_norm::{Norms, NormsJob, MAX_WIDTH};
use crate::core::transformer::block::params;
use crate::core::Matrix;
use crate::site::palette::Scale;

use crate::web::dom;
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::MatrixView;
use crate::web::kit::ui::{self, number_field, read_number, show_results, MatrixEditor};
use crate::web::kit::{Ctx, Shell, Widget, WidgetKind};
use super::{columns, results_slot, shared_extent, wire_editor, EditedWidget};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::RMS_NORM, mount };

fn row_name(_: usize) -> String {
    "x".into()
}

pub struct RmsNormWidget {
    shell: Shell,
    editor: RefCell<MatrixEditor>,
    shift: HtmlInputElement,
    factor: HtmlInputElement,
    inputs: Rc<MatrixView>,
    layer: Rc<MatrixView>,
    rms: Rc<MatrixView>,
    results: HtmlElement,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, _: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let shell = Shell::new(ctx, host, &KIND);
    let start = Matrix::from_rows(&[vec![2.0, -1.0, 0.5, 3.0, 1.5]]).map_err(|e| e.to_string())?;
    let editor = MatrixEditor::new("x", "x", &start, row_name);
    dom::append(&shell.inputs, &editor.root);
    let (shift_label, shift) = number_field("deslocamento c = ", "shift", "1", false);
    let (factor_label, factor) = number_field("fator s = ", "factor", "2", false);
    shell.control(&[&shift_label, &factor_label, &ui::button("+ dimensão", "add-dim"), &ui::button("− dimensão", "remove-dim")]);
    let inputs = MatrixView::new("norm-inputs", "entradas", " (x, x + c e s·x)");
    let layer = MatrixView::new("layer-norm", "layer norm: (x − μ) / σ", " (γ = 1, β = 0)");
    let rms = MatrixView::new("rms-norm", "RMSNorm: x / RMS(x)", " (γ = 1; a mesma escala de cores)");
    let results = results_slot();
    dom::append_all(&shell.outputs, &[&inputs.root, &layer.root, &rms.root, &results]);
    let widget = Rc::new(RmsNormWidget { shell, editor: RefCell::new(editor), shift, factor, inputs, layer, rms, results });
    wire_editor(&widget);
    Ok(widget)
}

impl EditedWidget for RmsNormWidget {
    const GROW: &'static str = "add-dim";
    const SHRINK: &'static str = "remove-dim";
    const STEP: usize = 1;
    const MIN_COLS: usize = 1;
    const MAX_COLS: usize = MAX_WIDTH;
    fn shell(&self) -> &Shell {
        &self.shell
    }
    fn editor(&self) -> &RefCell<MatrixEditor> {
        &self.editor
    }
    fn width_message() -> String {
        format!("Use entre 1 e {MAX_WIDTH} dimensões.")
    }
}

impl RmsNormWidget {
    fn job(&self) -> Result<NormsJob, String> {
        let x = self.editor.borrow().read()?;
        Ok(NormsJob { x: x.row(0), shift: read_number(&self.shift, "c")?, factor: read_number(&self.factor, "s")? })
    }

    fn draw(&self, job: &NormsJob, n: &Norms) {
        let (c, s) = (format_pt_short(job.shift, 4), format_pt_short(job.factor, 4));
        let rows = vec!["x".to_string(), format!("x + {c}"), format!("{s}·x")];
        let cols = columns(job.x.len());
        self.inputs.show(&n.inputs, rows.clone(), cols.clone(), Scale::Signed);
        let extent = shared_extent(&[&n.layer, &n.rms]);
        self.layer.show(&n.layer, rows.clone(), cols.clone(), Scale::SignedUpTo(extent));
        self.rms.show(&n.rms, rows, cols, Scale::SignedUpTo(extent));
        let d = job.x.len();
        let rows = vec![
            ("média μ de x".to_string(), format_pt(n.mean, 4)),
            ("desvio σ de x".to_string(), format_pt(n.deviation, 4)),
            ("RMS(x) = √(média de x²)".to_string(), format_pt(n.root_mean_square, 4)),
            (format!("layer norm: maior mudança ao somar {c}"), format_pt(n.layer_after_shift, 4)),
            (format!("RMSNorm: maior mudança ao somar {c}"), format_pt(n.rms_after_shift, 4)),
            (format!("layer norm: maior mudança ao multiplicar por {s}"), format_pt(n.layer_after_scale, 4)),
            (format!("RMSNorm: maior mudança ao multiplicar por {s}"), format_pt(n.rms_after_scale, 4)),
            ("média da saída: layer norm".to_string(), format_pt(n.layer_output_mean, 4)),
            ("média da saída: RMSNorm (μ / RMS)".to_string(), format_pt(n.rms_output_mean, 4)),
            ("parâmetros aprendidos: layer norm (γ e β)".to_string(), params::layer_norm(d as u64).to_string()),
            ("parâmetros aprendidos: RMSNorm (só γ)".to_string(), d.to_string()),
        ];
        show_results(&self.results, "rms-norm", "O que cada normalização guarda e o que esquece", &rows);
    }
}

impl Widget for RmsNormWidget {
    fn recompute(self: Rc<Self>) {
        let widget = self.clone();
        self.shell.compute_or(self.job(), move |job, norms, _| widget.draw(&job, &norms));
    }
}
