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

use crate::core::executor::BackendKind;
use crate::core::format::format_pt_short;
use crate::core::sequence::ffn_example::{Activation, ActivationCurveJob, FfnExample, FfnLayerOutput};
use crate::core::Matrix;

use crate::web::dom::{self, Listener};
use crate::web::kit::draw::{BarView, Scale, HeatmapData, MatrixView};
use crate::web::kit::ui::editor::MatrixEditor;
use crate::web::kit::attributes::Attributes;
use crate::web::kit::{action_of, control_of, from_editor_cell, listen, mark_backend, show_error, show_ready, twins_button, Ctx, Updates, Widget, WidgetKind};
use crate::web::kit::draw::sequence_plot::{Axes, LinePlot, Series};

pub const KIND: WidgetKind = WidgetKind { name: "ffn-detector", title: "A primeira camada da FFN como detector de combinações", mount };

/// The article's neuron names, in W1's row order.
const NEURONS: [&str; 8] = ["feat_bateria", "feat_programa", "feat_executado", "feat_bias", "(sem uso)", "(sem uso)", "feat_bat_exec", "feat_prog_exec"];

fn neuron_label(i: usize) -> String {
    NEURONS.get(i).map_or_else(|| format!("neurônio {i}"), |n| format!("{i} {n}"))
}

pub struct FfnWidget {
    ctx: Rc<Ctx>,
    host: HtmlElement,
    inputs: Vec<HtmlInputElement>,
    w1: RefCell<MatrixEditor>,
    activation: HtmlSelectElement,
    truth: HtmlInputElement,
    pre: BarView,
    post: BarView,
    active: HtmlElement,
    table: Rc<MatrixView>,
    curve: LinePlot,
    backend_note: HtmlElement,
    updates: Updates,
    listeners: RefCell<Vec<Listener>>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let example = FfnExample::article();
    let activation0 = attrs.choice("data-activation");
    let truth0 = attrs.flag("data-truth");
    super::scaffold(host, KIND.title);
    let toggles = dom::el("fieldset", "row-toggles");
    dom::append(&toggles, &dom::text("legend", "", "Entrada C_t"));
    let inputs: Vec<HtmlInputElement> = example
        .input_labels
        .iter()
        .zip(&example.input)
        .enumerate()
        .map(|(i, (label, &v))| {
            let (wrapper, input) = dom::checkbox(&format!(" {label}"), "input", v > 0.0);
            dom::set_attr(&input, "data-index", &i.to_string());
            dom::append(&toggles, &wrapper);
            input
        })
        .collect();
    dom::append(host, &toggles);
    let editors = dom::el("div", "widget-inputs");
    let w1 = MatrixEditor::new("w1", "W1: uma linha por neurônio (pesos de bateria, programa, executado, viés)", &example.neuron_rows(), neuron_label);
    dom::append(&editors, &w1.root);
    dom::append(host, &editors);
    let controls = dom::el("div", "widget-controls");
    let activations = vec![("relu".to_string(), "ReLU: max(0, x)".to_string()), ("gelu".to_string(), "GeLU: x·Φ(x)".to_string())];
    let (activation_label, activation) = dom::select("ativação ", "activation", &activations, activation0);
    let (truth_label, truth) = dom::checkbox(" tabela-verdade (todas as entradas)", "truth", truth0);
    let reset = dom::button("restaurar exemplo", "reset");
    let (twins, twins_listener) = twins_button(host);
    for el in [&activation_label, &truth_label, &reset, &twins] {
        dom::append(&controls, el);
    }
    dom::append(host, &controls);
    let outputs = dom::el("div", "widget-outputs");
    let pre = BarView::new("pre", "");
    let post = BarView::new("post", "");
    let active = dom::el("div", "explain");
    let table = MatrixView::new("truth", "Tabela-verdade", " saída de cada neurônio para cada entrada (viés = 1)");
    let curve = LinePlot::new("activation", "ReLU e GeLU");
    for el in [&pre.root, &post.root, &active, &table.root, &curve.root] {
        dom::append(&outputs, el);
    }
    dom::append(host, &outputs);
    let backend_note = dom::el("p", "widget-backend");
    dom::append(host, &backend_note);
    let widget = Rc::new(FfnWidget {
        ctx: ctx.clone(),
        host: host.clone(),
        inputs,
        w1: RefCell::new(w1),
        activation,
        truth,
        pre,
        post,
        active,
        table,
        curve,
        backend_note,
        updates: Updates::default(),
        listeners: RefCell::new(Vec::new()),
    });
    let on = |kind| listen(&widget, host, kind, FfnWidget::on_event);
    *widget.listeners.borrow_mut() = vec![on("input"), on("change"), on("click"), twins_listener];
    Ok(widget)
}

impl FfnWidget {
    fn on_event(self: &Rc<Self>, event: &web_sys::Event) {
        match (event.type_().as_str(), control_of(event).as_str()) {
            ("input", _) if from_editor_cell(event) => self.clone().recompute(),
            ("change", "input" | "activation" | "truth") => self.clone().recompute(),
            ("click", _) if action_of(event) == "reset" => self.reset(),
            _ => {}
        }
    }

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

    async fn compute(&self, example: &FfnExample, input: Vec<f32>) -> crate::core::error::Result<(FfnLayerOutput, Option<(Matrix, FfnLayerOutput)>, (Matrix, Matrix, Matrix), BackendKind)> {
        let activation = self.activation();
        let x = Matrix::from_vec(1, input.len(), input)?;
        let (single, kind) = crate::web::kit::update::run(&self.ctx, &self.host, example.layer_job(x, activation)?).await?;
        let table = if self.truth.checked() {
            let inputs = example.truth_table_inputs()?;
            let (out, _) = crate::web::kit::update::run_more(&self.ctx, &self.host, example.layer_job(inputs.clone(), activation)?).await?;
            Some((inputs, out))
        } else {
            None
        };
        let curve_job = ActivationCurveJob::evenly_spaced(-3.0, 3.0, 61)?;
        let xs = curve_job.xs.clone();
        let ((relu, gelu), _) = crate::web::kit::update::run_more(&self.ctx, &self.host, curve_job).await?;
        Ok((single, table, (xs, relu, gelu), kind))
    }

    fn draw(&self, single: &FfnLayerOutput, table: Option<&(Matrix, FfnLayerOutput)>, curve: &(Matrix, Matrix, Matrix)) {
        let labels: Vec<String> = (0..single.pre_activation.cols()).map(neuron_label).collect();
        let act = if self.activation() == Activation::Gelu { "GeLU" } else { "ReLU" };
        self.pre.update("Antes da ativação: W1·C_t + b1 (b1 = 0)", &labels, &single.pre_activation.row(0));
        self.post.update(&format!("Depois da {act}"), &labels, &single.post_activation.row(0));
        let on: Vec<&str> = single.post_activation.row(0).iter().zip(NEURONS).filter(|(v, _)| **v > 0.0).map(|(_, n)| n).collect();
        let rows = vec![("neurônios ativos".to_string(), if on.is_empty() { "nenhum".into() } else { on.join(", ") })];
        self.active.set_text_content(None);
        dom::append(&self.active, &dom::results_table("active", "Detectado", &rows));
        match table {
            Some((inputs, out)) => {
                self.table.root.set_hidden(false);
                let row_labels: Vec<String> = (0..inputs.rows())
                    .map(|r| {
                        let v = inputs.row(r);
                        format!("b{} p{} e{}", v[0] as u8, v[1] as u8, v[2] as u8)
                    })
                    .collect();
                let cols: Vec<String> = (0..out.post_activation.cols()).map(|j| j.to_string()).collect();
                // GeLU lets small negatives through: only then is a diverging scale needed.
                let scale = if self.activation() == Activation::Gelu { Scale::Signed } else { Scale::Count };
                self.table.update(HeatmapData { matrix: out.post_activation.clone(), row_labels, col_labels: cols, scale, masked: None });
            }
            None => self.table.root.set_hidden(true),
        }
        let (xs, relu, gelu) = curve;
        let x: Vec<f64> = xs.row(0).iter().map(|&v| v as f64).collect();
        let series = vec![
            Series { label: "ReLU(x)".into(), values: relu.row(0).iter().map(|&v| v as f64).collect(), dashed: false, dots: false },
            Series { label: "GeLU(x)".into(), values: gelu.row(0).iter().map(|&v| v as f64).collect(), dashed: true, dots: false },
        ];
        let axes = Axes { x_label: "x".into(), y_label: "saída".into(), log_x: false, log_y: false, y_range: Some((-0.5, 3.0)) };
        self.curve.update(&x, &series, &axes, |v| format_pt_short(v as f32, 2), |v| crate::core::format::format_pt(v as f32, 4));
    }
}

impl Widget for FfnWidget {
    fn recompute(self: Rc<Self>) {
        let update = self.updates.begin();
        let rows = match self.w1.borrow().read() {
            Ok(m) => m,
            Err(e) => return show_error(&self.host, &e.message),
        };
        let example = match FfnExample::article().with_neuron_rows(&rows) {
            Ok(ex) => ex,
            Err(e) => return show_error(&self.host, &e.to_string()),
        };
        let input: Vec<f32> = self.inputs.iter().map(|i| if i.checked() { 1.0 } else { 0.0 }).collect();
        dom::set_attr(&self.host, "data-state", "loading");
        wasm_bindgen_futures::spawn_local(async move {
            let result = self.compute(&example, input).await;
            if !update.is_current() {
                return;
            }
            match result {
                Ok((single, table, curve, kind)) => {
                    self.draw(&single, table.as_ref(), &curve);
                    mark_backend(&self.host, &self.backend_note, kind);
                    show_ready(&self.host);
                }
                Err(error) => show_error(&self.host, &error.to_string()),
            }
        });
    }
}
