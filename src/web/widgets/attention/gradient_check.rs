//! `gradient-check`: the derivatives of "Atenção diferenciável" checked by finite
//! differences. For the softmax, its Jacobian sᵢ(δᵢⱼ − sⱼ); for one attention step
//! O = softmax(QKᵀ/√d_k)V under the loss L = Σ O ⊙ G, the gradients ∂L/∂Q, ∂L/∂K, ∂L/∂V by the
//! chain rule. Beside each, the same derivative by central differences with the reader's step h
//! (10⁻¹ … 10⁻¹⁰) and precision (f64, or f32 as on a GPU), the largest relative error, and that
//! error against h on log axes: it falls like h² until rounding (about ε/h) takes over.
//! Computed on the CPU in f64 (`core::attention::gradient_check`): WebGPU has only f32, and
//! the check needs the digits f32 does not have.
//!
//! The third part, `modelo`, checks a whole tiny decoder (`core::training::model_check`): the
//! backward pass that trains the `train` widget's model, tensor by tensor, on a text the
//! reader types. It is f32 as training is, so its best agreement is about 1 % (at h ≈ 10⁻³).
//!
//! Attributes: `data-part` (atencao, softmax, modelo).

use std::cell::RefCell;
use std::rc::Rc;

use ndarray::Array2;
use web_sys::{HtmlElement, HtmlSelectElement};

use crate::core::attention::gradient_check::{check_attention, check_softmax, example_step, AttentionStep, Check, Precision, Wrt, STEPS};
use crate::core::format::format_pt;
use crate::core::format::power_of_ten;
use crate::core::sequence::sparsity::format_scientific;
use crate::core::training::model_check::{check_model, ModelCheck};
use crate::core::Matrix;

use crate::web::dom;
use crate::web::kit::ui::{self, numbered_row, text_field, MatrixEditor};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::line_plot::{Axes, LinePlot, Series};
use crate::web::kit::draw::{MatrixView, Scale};
use crate::web::kit::{control_of, on_hover, Ctx, Shell, Widget, WidgetKind};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::GRADIENT_CHECK, mount };

/// The default step, 10⁻⁴ (index into `STEPS`).
const DEFAULT_STEP: usize = 3;
/// The model part's default step, 10⁻³: the best one in f32.
const MODEL_STEP: usize = 2;
/// The model part's default text (the opening of Dom Casmurro).
const MODEL_TEXT: &str = "Uma noite destas, vindo da cidade";
/// Seed of the model part's weights.
const MODEL_SEED: u64 = 3;

fn z_label(_: usize) -> String {
    "z".into()
}

/// The softmax part's default scores (those of the softmax lab above it on the page).
fn default_z() -> Matrix {
    Matrix::from_rows(&[[2.0, 1.0, 0.1]]).expect("1×3 literal")
}

fn to_matrix(a: &Array2<f64>) -> Matrix {
    Matrix::from_vec(a.nrows(), a.ncols(), a.iter().map(|&v| v as f32).collect()).unwrap_or_else(|_| Matrix::zeros(0, 0))
}

fn to_array(m: &Matrix) -> Array2<f64> {
    Array2::from_shape_fn(m.shape(), |(r, c)| m.get(r, c) as f64)
}

/// What is checked.
#[derive(Clone, Copy, PartialEq)]
enum Part {
    Attention,
    Softmax,
    /// The whole decoder, tensor by tensor.
    Model,
}

impl Part {
    fn of(value: &str) -> Part {
        match value {
            "softmax" => Part::Softmax,
            "modelo" => Part::Model,
            _ => Part::Attention,
        }
    }
}

pub struct GradientCheckWidget {
    shell: Shell,
    q: RefCell<MatrixEditor>,
    k: RefCell<MatrixEditor>,
    v: RefCell<MatrixEditor>,
    g: RefCell<MatrixEditor>,
    z: RefCell<MatrixEditor>,
    /// The model part's text, and its label (hidden in the other parts).
    text: web_sys::HtmlInputElement,
    text_label: HtmlElement,
    part: HtmlSelectElement,
    wrt: HtmlSelectElement,
    /// The `wrt` select's label, hidden for the softmax.
    wrt_label: HtmlElement,
    step: HtmlSelectElement,
    precision: HtmlSelectElement,
    precision_label: HtmlElement,
    /// The `data-part` of the page, for "restaurar exemplo".
    part_default: &'static str,
    analytic: Rc<MatrixView>,
    numeric: Rc<MatrixView>,
    results: HtmlElement,
    curve: LinePlot,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let part_default = attrs.choice("data-part");
    let shell = Shell::new(ctx, host, &KIND);
    let example = example_step();
    let q = MatrixEditor::new("q", "Q", &to_matrix(&example.q), numbered_row);
    let k = MatrixEditor::new("k", "K", &to_matrix(&example.k), numbered_row);
    let v = MatrixEditor::new("v", "V", &to_matrix(&example.v), numbered_row);
    let g = MatrixEditor::new("g", "G (L = Σ O ⊙ G)", &to_matrix(&example.g), numbered_row);
    let z = MatrixEditor::new("z", "scores z", &default_z(), z_label);
    let (text_label, text) = text_field("texto ", "model-text", MODEL_TEXT);
    dom::append_all(&shell.inputs, &[&q.root, &k.root, &v.root, &g.root, &z.root, &text_label]);

    let options = |pairs: &[(&str, &str)]| pairs.iter().map(|(v, l)| (v.to_string(), l.to_string())).collect::<Vec<_>>();
    let (part_label, part) = ui::select(
        "função ",
        "part",
        &options(&[("atencao", "atenção: L = Σ O ⊙ G"), ("softmax", "softmax: a jacobiana"), ("modelo", "o decodificador inteiro")]),
        part_default,
    );
    let (wrt_label, wrt) = ui::select("derivada em ", "wrt", &options(&[("q", "Q"), ("k", "K"), ("v", "V")]), "q");
    let steps: Vec<(String, String)> = STEPS.iter().enumerate().map(|(i, &h)| (i.to_string(), format!("h = {}", step_text(h)))).collect();
    let first_step = if Part::of(part_default) == Part::Model { MODEL_STEP } else { DEFAULT_STEP };
    let (step_label, step) = ui::select("passo ", "step", &steps, &first_step.to_string());
    let (precision_label, precision) = ui::select("diferenças em ", "precision", &options(&[("f64", "f64 (dupla)"), ("f32", "f32 (como na GPU)")]), "f64");
    let reset = ui::button("restaurar exemplo", "reset");
    shell.control(&[&part_label, &wrt_label, &step_label, &precision_label, &reset]);

    let analytic = MatrixView::new("analytic", "Pela fórmula", "");
    let numeric = MatrixView::new("numeric", "Por diferenças finitas", "");
    let results = dom::el("div", "gradient-results wide");
    let curve = LinePlot::new("error-curve", "Erro relativo máximo contra h (escalas log)");
    dom::append_all(&shell.outputs, &[&analytic.root, &numeric.root, &results, &curve.root]);
    let note = dom::text(
        "p",
        "widget-note wide",
        "Com h grande, o erro é o da própria fórmula das diferenças, que cai como h². Com h pequeno demais, L(x + h) e L(x − h) ficam tão próximos que a subtração só guarda o arredondamento de cada um (cerca de ε·|L|), e dividir por 2h o amplia: o erro volta a crescer, como ε/h. Em f32, ε ≈ 10⁻⁷, e a volta chega bem antes.",
    );
    dom::append(&shell.outputs, &note);

    let widget = Rc::new(GradientCheckWidget {
        shell,
        q: RefCell::new(q),
        k: RefCell::new(k),
        v: RefCell::new(v),
        g: RefCell::new(g),
        z: RefCell::new(z),
        text,
        text_label,
        part,
        wrt,
        wrt_label,
        step,
        precision,
        precision_label,
        part_default,
        analytic,
        numeric,
        results,
        curve,
    });
    widget.show_part();
    let shell = &widget.shell;
    shell.on(&widget, &shell.inputs, &["input"], |w, _| w.clone().recompute());
    shell.on(&widget, &shell.controls, &["change"], |w, e| {
        if control_of(e) == "part" {
            w.part_chosen();
        }
        w.clone().recompute();
    });
    shell.on_action(&widget, |w, action| if action == "reset" { w.reset() });
    // A cell of one map outlines the same cell in the other.
    for from_analytic in [true, false] {
        let from = if from_analytic { &widget.analytic } else { &widget.numeric };
        on_hover(&widget, from, move |w, cell| {
            let other = if from_analytic { &w.numeric } else { &w.analytic };
            match cell {
                Some((r, c)) => other.highlight(&[r], &[c]),
                None => other.highlight(&[], &[]),
            }
        });
    }
    Ok(widget)
}

impl GradientCheckWidget {
    /// Shows the chosen part's inputs; each part starts at its own best step.
    fn part_chosen(&self) {
        self.show_part();
        self.step.set_value(&if self.part() == Part::Model { MODEL_STEP } else { DEFAULT_STEP }.to_string());
    }

    fn part(&self) -> Part {
        Part::of(&self.part.value())
    }

    /// Shows the inputs and controls of the chosen part only.
    fn show_part(&self) {
        let part = self.part();
        for editor in [&self.q, &self.k, &self.v, &self.g] {
            editor.borrow().root.set_hidden(part != Part::Attention);
        }
        self.z.borrow().root.set_hidden(part != Part::Softmax);
        self.wrt_label.set_hidden(part != Part::Attention);
        self.text_label.set_hidden(part != Part::Model);
        // The model computes in f32 only; its probes are a table, not two matrices.
        self.precision_label.set_hidden(part == Part::Model);
        self.analytic.root.set_hidden(part == Part::Model);
        self.numeric.root.set_hidden(part == Part::Model);
        self.shell.note.set_text_content(Some(if part == Part::Model {
            "Calculado na CPU, em f32, como o treino: um modelo de 2 camadas, largura 8 e 2 cabeças, sobre os caracteres do texto."
        } else {
            "Calculado na CPU, em f64: a WebGPU só tem f32, e a verificação precisa de mais dígitos."
        }));
    }

    fn reset(self: &Rc<Self>) {
        let example = example_step();
        self.q.borrow_mut().set(&to_matrix(&example.q));
        self.k.borrow_mut().set(&to_matrix(&example.k));
        self.v.borrow_mut().set(&to_matrix(&example.v));
        self.g.borrow_mut().set(&to_matrix(&example.g));
        self.z.borrow_mut().set(&default_z());
        self.text.set_value(MODEL_TEXT);
        self.part.set_value(self.part_default);
        self.wrt.set_value("q");
        let step = if self.part() == Part::Model { MODEL_STEP } else { DEFAULT_STEP };
        self.step.set_value(&step.to_string());
        self.precision.set_value("f64");
        self.show_part();
        self.clone().recompute();
    }

    fn h(&self) -> f64 {
        let i = self.step.value().parse::<usize>().unwrap_or(DEFAULT_STEP).min(STEPS.len() - 1);
        STEPS[i]
    }

    fn precision(&self) -> Precision {
        if self.precision.value() == "f32" {
            Precision::F32
        } else {
            Precision::F64
        }
    }

    fn wrt(&self) -> (Wrt, &'static str) {
        match self.wrt.value().as_str() {
            "k" => (Wrt::K, "K"),
            "v" => (Wrt::V, "V"),
            _ => (Wrt::Q, "Q"),
        }
    }

    /// Reads the inputs of the chosen part and runs its check; the titles say what is shown.
    fn check(&self) -> Result<(Check, String), String> {
        let read = |e: &RefCell<MatrixEditor>| e.borrow().read().map(|m| to_array(&m));
        let (h, precision) = (self.h(), self.precision());
        match self.part() {
            Part::Softmax => {
                let z: Vec<f64> = read(&self.z)?.iter().copied().collect();
                let check = check_softmax(&z, h, precision).map_err(|e| e.to_string())?;
                Ok((check, "∂sᵢ/∂zⱼ".to_string()))
            }
            Part::Model => Err("internal: the model part is checked by `check_model`".into()),
            Part::Attention => {
                let step = AttentionStep { q: read(&self.q)?, k: read(&self.k)?, v: read(&self.v)?, g: read(&self.g)? };
                let (wrt, name) = self.wrt();
                let check = check_attention(&step, wrt, h, precision).map_err(|e| e.to_string())?;
                Ok((check, format!("∂L/∂{name}")))
            }
        }
    }

    fn draw(&self, check: &Check, what: &str) -> Result<(), String> {
        let softmax = self.part() == Part::Softmax;
        let (rows, cols): (Vec<String>, Vec<String>) = if softmax {
            let n = check.analytic.nrows();
            ((0..n).map(|i| format!("s{}", dom::subscript(i + 1))).collect(), (0..n).map(|j| format!("z{}", dom::subscript(j + 1))).collect())
        } else {
            ((0..check.analytic.nrows()).map(numbered_row).collect(), (0..check.analytic.ncols()).map(|c| (c + 1).to_string()).collect())
        };
        let h_text = step_text(self.h());
        let formula = if softmax { "sᵢ(δᵢⱼ − sⱼ)" } else { "regra da cadeia" };
        self.analytic.set_title(&format!("{what} pela fórmula: {formula}"));
        self.numeric.set_title(&format!("{what} por diferenças centrais, h = {h_text}"));
        for (view, m) in [(&self.analytic, &check.analytic), (&self.numeric, &check.numeric)] {
            view.show(&to_matrix(m), rows.clone(), cols.clone(), Scale::Signed);
        }

        let precision = self.precision.value();
        let rows = [
            ("erro relativo máximo".to_string(), format_scientific(check.error, 2)),
            ("passo h".to_string(), h_text),
            ("diferenças em".to_string(), precision.clone()),
            ("maior |derivada|".to_string(), format_pt(check.analytic.iter().fold(0.0f64, |m, v| m.max(v.abs())) as f32, 4)),
        ];
        let verdict = if check.error < 1e-4 {
            "As duas concordam: a fórmula está certa (e h é razoável)."
        } else {
            "As duas discordam além de 10⁻⁴: com uma fórmula certa, isso é o passo h (grande ou pequeno demais) ou a precisão."
        };
        let (mine, others) = if precision == "f32" { ("f32", "f64") } else { ("f64", "f32") };
        let series = [
            Series { label: format!("diferenças em {mine}"), values: check.curve.clone(), dashed: false, dots: true },
            Series { label: format!("diferenças em {others}"), values: check.other_curve.clone(), dashed: true, dots: false },
        ];
        self.show_verdict(check.error, &rows, verdict, &[], &series);
        Ok(())
    }

    /// The verification's summary (its error, unrounded, in `data-max-rel-error` for tests and
    /// embedders), the verdict, then `more`; and the error against h.
    fn show_verdict(&self, error: f64, rows: &[(String, String)], verdict: &str, more: &[&web_sys::Element], series: &[Series]) {
        let summary = dom::results_table("gradient-error", "A verificação", rows);
        dom::set_attr(&summary, "data-max-rel-error", &error.to_string());
        self.results.set_text_content(None);
        dom::append_all(&self.results, &[&summary, &dom::text("p", "step-line", verdict)]);
        dom::append_all(&self.results, more);
        let axes = Axes { x_label: "passo h".into(), y_label: "erro relativo".into(), log_x: true, log_y: true, y_range: None };
        self.curve.update(&STEPS, series, &axes, |x| format!("h = {}", step_text(x)), |y| format_scientific(y, 2));
    }
}

/// A step h as a power of ten: 10⁻³.
fn step_text(h: f64) -> String {
    power_of_ten(h.log10().round() as i32)
}

impl GradientCheckWidget {
    /// The model part: a table of one probe per tensor, the verdict, and the error against h.
    fn draw_model(&self, check: &ModelCheck) {
        let h_text = step_text(self.h());
        let table = dom::el("table", "results model-probes");
        dom::set_attr(&table, "data-results", "model-probes");
        // The caption stays outside the scrolling box, so a phone sees it whole.
        let caption = dom::text("p", "table-caption", &format!("Cada tensor de pesos: a entrada de maior |gradiente|, pela retropropagação e por diferenças centrais (h = {h_text})"));
        dom::set_attr(&table, "aria-label", "Cada tensor de pesos: retropropagação contra diferenças centrais");
        dom::append(&table, &dom::header_row(&["tensor", "entrada", "retropropagação", "diferenças", "erro relativo"]));
        for probe in &check.probes {
            let tr = dom::el("tr", "");
            let name = dom::text("th", "tensor-name", &probe.tensor);
            dom::set_attr(&name, "scope", "row");
            let cells = [probe.index.to_string(), format_scientific(probe.analytic as f64, 3), format_scientific(probe.numeric as f64, 3), format_scientific(probe.error() as f64, 1)];
            dom::append(&tr, &name);
            for cell in cells {
                dom::append(&tr, &dom::text("td", "num", &cell));
            }
            dom::append(&table, &tr);
        }
        let error = check.max_error();
        let rows = [
            ("erro relativo máximo".to_string(), format_scientific(error as f64, 2)),
            ("passo h".to_string(), h_text),
            ("perda do texto".to_string(), format!("{} nats por caractere", format_pt(check.loss, 4))),
            ("parâmetros".to_string(), check.parameters.to_string()),
        ];
        let verdict = if error < 5e-2 {
            "Concordam até onde o f32 permite (cerca de 1 % do maior gradiente de cada tensor): a retropropagação está certa."
        } else {
            "Discordam além de 5 %: em f32, isso é o passo h (grande ou pequeno demais); experimente h = 10⁻³."
        };
        let scroll = dom::el("div", "table-scroll");
        dom::append(&scroll, &table);
        let series = [Series { label: "diferenças em f32".into(), values: check.curve.clone(), dashed: false, dots: true }];
        self.show_verdict(error as f64, &rows, verdict, &[&caption, &scroll], &series);
    }
}

impl Widget for GradientCheckWidget {
    fn recompute(self: Rc<Self>) {
        let widget = self.clone();
        self.shell.local(false, move || {
            if widget.part() == Part::Model {
                let check = check_model(&widget.text.value(), MODEL_SEED, widget.h()).map_err(|e| e.to_string())?;
                widget.draw_model(&check);
                return Ok(());
            }
            let (check, what) = widget.check()?;
            widget.draw(&check, &what)
        });
    }

    /// A restored part shows its inputs and its step, as choosing it does.
    fn restore(&self, key: &str, _: &str) -> Option<bool> {
        (key == "part").then(|| {
            self.part_chosen();
            true
        })
    }
}
