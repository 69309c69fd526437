//! `ffn-detector`: the articles' first FFN layer as a feature detector. Four input toggles
//! (bateria, programa, executado and the constant 1 that acts as bias), W1 editable as the
//! article's code writes it (one row of 4 weights per neuron), the neurons before and after
//! the activation as bars, the truth table of every on/off input (the AND neurons x + y − 1),
//! and ReLU beside GeLU. Every product and activation runs on the active backend.
//!
//! Attributes: `data-activation` (`relu`, the default, or `gelu`), `data-truth` ("true" opens
//! the truth table).

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::error::Result;
use crate::core::executor::{Executor, Job};
use crate::core::format::{format_pt, format_pt_short};
use crate::core::sequence::ffn_example::{Activation, ActivationCurveJob, FfnExample, FfnLayerJob, FfnLayerOutput};
use crate::core::Matrix;

use crate::web::dom;
use crate::web::kit::ui::{self, show_results, MatrixEditor};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::line_plot::{Axes, LinePlot, Series};
use crate::web::kit::draw::{BarView, HeatmapData, MatrixView, Scale};
use crate::web::kit::{Ctx, Shell, Widget, WidgetKind};


pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::FFN_DETECTOR, mount };

/// The article's neuron names, in W1's row order.
const NEURONS: [&str; 8] = ["feat_bateria", "feat_programa", "feat_executado", "feat_bias", "(sem uso)", "(sem uso)", "feat_bat_exec", "feat_prog_exec"];

fn neuron_label(i: usize) -> String {
    NEURONS.get(i).map_or_else(|| format!("neurônio {i}"), |n| format!("{i} {n}"))
}

/// One update's computation: the layer on the chosen input, on every on/off input when the
/// truth table is open, and both activations on a range of x, on one backend.
struct FfnJob {
    single: FfnLayerJob,
    truth: Option<FfnLayerJob>,
    curve: ActivationCurveJob,
}

/// What `FfnJob` returns: the chosen input's layer, the truth table's, and (ReLU(x), GeLU(x)).
struct FfnResult {
    single: FfnLayerOutput,
    truth: Option<FfnLayerOutput>,
    curve: (Matrix, Matrix),
}

impl Job for FfnJob {
    type Output = FfnResult;
    async fn run<E: Executor>(&self, e: &E) -> Result<FfnResult> {
        let single = self.single.run(e).await?;
        let truth = match &self.truth {
            Some(job) => Some(job.run(e).await?),
            None => None,
        };
        Ok(FfnResult { single, truth, curve: self.curve.run(e).await? })
    }
}

pub struct FfnWidget {
    shell: Shell,
    inputs: Vec<HtmlInputElement>,
    w1: RefCell<MatrixEditor>,
    activation: HtmlSelectElement,
    truth: HtmlInputElement,
    pre: BarView,
    post: BarView,
    active: HtmlElement,
    table: Rc<MatrixView>,
    curve: LinePlot,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> std::result::Result<Rc<dyn Widget>, String> {
    let example = FfnExample::article();
    let activation0 = attrs.choice("data-activation");
    let truth0 = attrs.flag("data-truth");
    let shell = Shell::new(ctx, host, &KIND);
    let toggles = dom::el("fieldset", "row-toggles");
    dom::append(&toggles, &dom::notation("legend", "", "Entrada a_i"));
    let inputs: Vec<HtmlInputElement> = example
        .input_labels
        .iter()
        .zip(&example.input)
        .enumerate()
        .map(|(i, (label, &v))| {
            let (wrapper, input) = ui::checkbox(&format!(" {label}"), "input", v > 0.0);
            dom::set_attr(&input, "data-index", &i.to_string());
            dom::append(&toggles, &wrapper);
            input
        })
        .collect();
    dom::append(&shell.inputs, &toggles);
    let w1 = MatrixEditor::new("w1", "W_1: uma linha por neurônio (pesos de bateria, programa, executado, viés)", &example.neuron_rows(), neuron_label);
    dom::append(&shell.inputs, &w1.root);
    let activations = vec![("relu", "ReLU: max(0, x)"), ("gelu", "GeLU: x·Φ(x)")];
    let (activation_label, activation) = ui::select("ativação ", "activation", &activations, activation0);
    let (truth_label, truth) = ui::checkbox(" tabela-verdade (todas as entradas)", "truth", truth0);
    let reset = ui::button("restaurar exemplo", "reset");
    shell.control(&[&activation_label, &truth_label, &reset]);
    let pre = BarView::new("pre", "");
    let post = BarView::new("post", "");
    let active = dom::el("div", "explain");
    let table = MatrixView::new("truth", "Tabela-verdade", " saída de cada neurônio para cada entrada (viés = 1)");
    let curve = LinePlot::new("activation", "ReLU e GeLU");
    dom::append_all(&shell.outputs, &[&pre.root, &post.root, &active, &table.root, &curve.root]);
    let widget = Rc::new(FfnWidget { shell, inputs, w1: RefCell::new(w1), activation, truth, pre, post, active, table, curve });
    let shell = &widget.shell;
    // A toggle or a weight edited, the activation or the truth table changed: recompute.
    shell.recompute_on(&widget, &["change"]);
    shell.on_action(&widget, |w, action| if action == "reset" { w.reset() });
    Ok(widget)
}

impl FfnWidget {
    fn reset(self: &Rc<Self>) {
        let example = FfnExample::article();
        self.w1.borrow_mut().set(&example.neuron_rows());
        for (input, &v) in self.inputs.iter().zip(&example.input) {
            input.set_checked(v > 0.0);
        }
        self.activation.set_value("relu");
        self.clone().recompute();
    }

    fn activation(&self) -> Activation {
        if self.activation.value() == "gelu" { Activation::Gelu } else { Activation::Relu }
    }

    fn draw(&self, job: &FfnJob, out: &FfnResult) {
        let single = &out.single;
        let labels: Vec<String> = (0..single.pre_activation.cols()).map(neuron_label).collect();
        let act = if job.single.activation == Activation::Gelu { "GeLU" } else { "ReLU" };
        self.pre.update("Antes da ativação: W_1·a_i + b_1 (b_1 = 0)", &labels, &single.pre_activation.row(0));
        self.post.update(&format!("Depois da {act}"), &labels, &single.post_activation.row(0));
        let on: Vec<&str> = single.post_activation.row(0).iter().zip(NEURONS).filter(|(v, _)| **v > 0.0).map(|(_, n)| n).collect();
        let rows = vec![("neurônios ativos".to_string(), if on.is_empty() { "nenhum".into() } else { on.join(", ") })];
        show_results(&self.active, "active", "Detectado", &rows);
        match (&job.truth, &out.truth) {
            (Some(FfnLayerJob { inputs, .. }), Some(out)) => {
                self.table.root.set_hidden(false);
                let row_labels: Vec<String> = (0..inputs.rows())
                    .map(|r| {
                        let v = inputs.row(r);
                        format!("b{} p{} e{}", v[0] as u8, v[1] as u8, v[2] as u8)
                    })
                    .collect();
                let cols: Vec<String> = (0..out.post_activation.cols()).map(|j| j.to_string()).collect();
                // GeLU lets small negatives through: only then is a diverging scale needed.
                let scale = if job.single.activation == Activation::Gelu { Scale::Signed } else { Scale::Count };
                self.table.update(HeatmapData { matrix: out.post_activation.clone(), row_labels, col_labels: cols, scale, masked: None });
            }
            _ => self.table.root.set_hidden(true),
        }
        let (relu, gelu) = &out.curve;
        let row = |m: &Matrix| m.row(0).iter().map(|&v| v as f64).collect::<Vec<_>>();
        let series = vec![Series::line("ReLU(x)", row(relu)), Series::line("GeLU(x)", row(gelu)).dashed()];
        let axes = Axes::new("x", "saída").y_range(-0.5, 3.0);
        self.curve.update(&row(&job.curve.xs), &series, &axes, |v| format_pt_short(v as f32, 2), |v| format_pt(v as f32, 4));
    }

    /// The job of the current inputs, or a message.
    fn job(&self) -> std::result::Result<FfnJob, String> {
        let rows = self.w1.borrow().read()?;
        let example = FfnExample::article().with_neuron_rows(&rows).map_err(|e| e.to_string())?;
        let activation = self.activation();
        let input: Vec<f32> = self.inputs.iter().map(|i| if i.checked() { 1.0 } else { 0.0 }).collect();
        let job = || -> Result<FfnJob> {
            let single = example.layer_job(Matrix::from_vec(1, input.len(), input)?, activation)?;
            let truth = if self.truth.checked() { Some(example.layer_job(example.truth_table_inputs()?, activation)?) } else { None };
            Ok(FfnJob { single, truth, curve: ActivationCurveJob::evenly_spaced(-3.0, 3.0, 61)? })
        };
        job().map_err(|e| e.to_string())
    }
}

impl Widget for FfnWidget {
    fn recompute(self: Rc<Self>) {
        let widget = self.clone();
        self.shell.compute_or(self.job(), move |job, out, _| widget.draw(job, &out));
    }
}
