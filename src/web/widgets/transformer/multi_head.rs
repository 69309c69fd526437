//! `multi-head`: two parts of multi-head attention.
//! - `exemplo-3`: the textbook's Example 3. Two heads' outputs side by side (head 1 = a₂ of
//!   Example 2, computed, or the value the chapter prints), their concatenation and the
//!   product by an editable W^O; hovering a cell outlines the head, or the row and the column
//!   of W^O, it came from.
//! - `remodelar`: the batched reshape (b, t, d) → (b, t, h, d/h) → (b, h, t, d/h), drawn with one
//!   colour per head, for any b, t, d, h; a width that h does not divide is explained, not
//!   computed. Also the layer's parameter count 4d².
//!
//! Attributes: `data-part` = exemplo-3 (default) | remodelar.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use web_sys::{HtmlCanvasElement, HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::format::{format_pt, parse_decimal};
use crate::core::transformer::format_count;
use crate::core::transformer::multi_head::{
    example_3_head_1, example_3_head_1_as_printed, example_3_head_2, example_3_w_o, mha_parameters, ConcatJob, ConcatOutput,
    ReshapeShape,
};
use crate::core::{Executor, Job, Matrix};

use crate::web::dom;
use crate::web::kit::ui::{self, live_note, number_field, numbered_row, read_count, show_results, MatrixEditor};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{available_width, canvas_figure, prepare_canvas, MatrixView, Scale};
use crate::web::kit::{control_of, Ctx, Shell, Widget, WidgetKind};
use crate::web::kit::on_hover;
use super::{numbered, results_slot};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::MULTI_HEAD, mount };

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    match attrs.choice("data-part") {
        "remodelar" => mount_reshape(ctx, host),
        _ => mount_example(ctx, host),
    }
}

// ---- Example 3 --------------------------------------------------------------------------------

/// Head 1 of Example 3 computed from Example 2 on the backend, then the product.
struct ExampleJob {
    /// `None`: compute head 1 as a₂ of Example 2 first.
    head_1: Option<Matrix>,
    head_2: Matrix,
    w_o: Matrix,
}

impl Job for ExampleJob {
    type Output = (Matrix, ConcatOutput);
    async fn run<E: Executor>(&self, e: &E) -> crate::core::error::Result<Self::Output> {
        let head_1 = match &self.head_1 {
            Some(h) => h.clone(),
            None => example_3_head_1(e).await?,
        };
        let out = ConcatJob { heads: vec![head_1.clone(), self.head_2.clone()], w_o: self.w_o.clone() }.run(e).await?;
        Ok((head_1, out))
    }
}

pub struct ExampleWidget {
    shell: Shell,
    source: HtmlSelectElement,
    head_1: RefCell<MatrixEditor>,
    head_2: RefCell<MatrixEditor>,
    w_o: RefCell<MatrixEditor>,
    /// Set when head 1 must be (re)computed from Example 2 before the product.
    pending_head: Cell<bool>,
    concat: Rc<MatrixView>,
    output: Rc<MatrixView>,
    note: HtmlElement,
}

fn position_label(_: usize) -> String {
    "x₂".into()
}

fn mount_example(ctx: &Rc<Ctx>, host: &HtmlElement) -> Result<Rc<dyn Widget>, String> {
    let shell = Shell::titled(ctx, host, "Exemplo 3: duas cabeças, concatenação e W^O");
    let head_1 = MatrixEditor::new("head-1", "cabeça 1", &example_3_head_1_as_printed(), position_label);
    let head_2 = MatrixEditor::new("head-2", "cabeça 2", &example_3_head_2(), position_label);
    let w_o = MatrixEditor::new("w_o", "W^O (6 × 3)", &example_3_w_o(), numbered_row);
    dom::append_all(&shell.inputs, &[&head_1.root, &head_2.root, &w_o.root]);
    let options = [
        ("corrigida", "cabeça 1 = a₂ do Exemplo 2 (calculada)"),
        ("artigo", "cabeça 1 como impressa: [0,22; 0,48; 0,77]"),
    ];
    let (source_label, source) = ui::select("cabeça 1 ", "source", &options, "corrigida");
    let reset = ui::button("restaurar exemplo", "reset");
    shell.control(&[&source_label, &reset]);
    let concat = MatrixView::new("concat", "Concat(cabeça 1, cabeça 2)", " (1 × 6)");
    let output = MatrixView::new("output", "Concat · W^O", " (1 × 3)");
    let note = live_note("correction wide");
    dom::append_all(&shell.outputs, &[&concat.root, &output.root, &note]);
    let widget = Rc::new(ExampleWidget {
        shell,
        source,
        head_1: RefCell::new(head_1),
        head_2: RefCell::new(head_2),
        w_o: RefCell::new(w_o),
        pending_head: Cell::new(true),
        concat,
        output,
        note,
    });
    let shell = &widget.shell;
    shell.on(&widget, &shell.inputs, &["input"], |w, _| w.clone().recompute());
    shell.on(&widget, &shell.controls, &["change"], |w, e| {
        if control_of(e) == "source" {
            w.load_head_1();
        }
    });
    shell.on_action(&widget, |w, action| {
        if action == "reset" {
            w.head_2.borrow_mut().set(&example_3_head_2());
            w.w_o.borrow_mut().set(&example_3_w_o());
            w.load_head_1();
        }
    });
    on_hover(&widget, &widget.concat, |w, cell| w.link(cell, true));
    on_hover(&widget, &widget.output, |w, cell| w.link(cell, false));
    Ok(widget)
}

impl ExampleWidget {
    fn load_head_1(self: &Rc<Self>) {
        self.source_chosen();
        self.clone().recompute();
    }

    /// Head 1 as the article prints it, or computed from its inputs at the next computation.
    fn source_chosen(&self) {
        if self.source.value() == "artigo" {
            self.head_1.borrow_mut().set(&example_3_head_1_as_printed());
            self.pending_head.set(false);
        } else {
            self.pending_head.set(true);
        }
    }

    /// Outlines where a cell came from: a cell of the concatenation from its head (the block
    /// of columns that head fills); a cell j of the output from the concatenation's row and
    /// column j of W^O.
    fn link(&self, cell: Option<(usize, usize)>, in_concat: bool) {
        let heads = [&self.head_1, &self.head_2];
        for editor in heads.iter().chain([&&self.w_o]) {
            editor.borrow().highlight(None, None);
        }
        self.concat.highlight(&[], &[]);
        let Some((i, j)) = cell else { return };
        if in_concat {
            let width = self.head_1.borrow().cols().max(1);
            let head = (j / width).min(heads.len() - 1);
            heads[head].borrow().highlight(Some(i), None);
            self.concat.highlight(&[], &(head * width..(head + 1) * width).collect::<Vec<_>>());
        } else {
            self.concat.highlight(&[i], &[]);
            self.w_o.borrow().highlight(None, Some(j));
        }
    }

    /// The editors' values; head 1 is left out while it still has to be computed.
    fn job(&self) -> Result<ExampleJob, String> {
        let read = |e: &RefCell<MatrixEditor>| e.borrow().read();
        Ok(ExampleJob {
            head_1: if self.pending_head.get() { None } else { Some(read(&self.head_1)?) },
            head_2: read(&self.head_2)?,
            w_o: read(&self.w_o)?,
        })
    }

    fn note_text(&self, head_1: &Matrix, output: &Matrix) -> String {
        let shown = |m: &Matrix| m.row(0).iter().map(|v| format_pt(*v, 4)).collect::<Vec<_>>().join("; ");
        let defaults = self.head_2.borrow().read().ok() == Some(example_3_head_2()) && self.w_o.borrow().read().ok() == Some(example_3_w_o());
        if !defaults {
            return format!("Saída: [{}].", shown(output));
        }
        if *head_1 == example_3_head_1_as_printed() {
            format!(
                "Com a cabeça 1 como impressa, o produto dá [{}]. A versão calculada usa a saída a₂ do Exemplo 2.",
                shown(output)
            )
        } else {
            format!(
                "Com a cabeça 1 calculada ([{}], a saída a₂ do Exemplo 2), o resultado é [{}].",
                shown(head_1),
                shown(output)
            )
        }
    }
}

impl Widget for ExampleWidget {
    fn recompute(self: Rc<Self>) {
        let widget = self.clone();
        self.shell.compute_or(self.job(), move |_, (head_1, out), _| {
            if widget.pending_head.replace(false) {
                widget.head_1.borrow_mut().set(&head_1);
            }
            let labels = vec!["x₂".to_string()];
            widget.concat.show(&out.concat, labels.clone(), numbered(out.concat.cols()), Scale::Signed);
            widget.output.show(&out.output, labels, numbered(out.output.cols()), Scale::Signed);
            widget.note.set_text_content(Some(&widget.note_text(&head_1, &out.output)));
        });
    }

    /// A restored source of head 1 loads it, as choosing it does.
    fn restore(&self, key: &str, _: &str) -> Option<bool> {
        (key == "source").then(|| {
            self.source_chosen();
            true
        })
    }
}

// ---- Reshape ----------------------------------------------------------------------------------

pub struct ReshapeWidget {
    shell: Shell,
    b: HtmlInputElement,
    t: HtmlInputElement,
    d: HtmlInputElement,
    h: HtmlInputElement,
    h_slider: HtmlInputElement,
    canvas: HtmlCanvasElement,
    figure: HtmlElement,
    results: HtmlElement,
    assignment: Rc<MatrixView>,
}

fn mount_reshape(ctx: &Rc<Ctx>, host: &HtmlElement) -> Result<Rc<dyn Widget>, String> {
    let shell = Shell::titled(ctx, host, "Todas as cabeças num só tensor: o remodelamento");
    let (b_label, b) = number_field("b = ", "b", "2", true);
    let (t_label, t) = number_field("t = ", "t", "4", true);
    let (d_label, d) = number_field("d = ", "d", "8", true);
    let (h_label, h) = number_field("h = ", "h", "2", true);
    let (slider_label, h_slider) = ui::slider("cabeças ", "h-slider", 1.0, 16.0, 1.0, 2.0);
    shell.control(&[&b_label, &t_label, &d_label, &h_label, &slider_label]);
    let results = results_slot();
    let (figure, _, canvas) = canvas_figure("mv wide", Some(("data-plot", "reshape")), "Cada cor é uma cabeça: as colunas de cada posição se repartem entre elas");
    let assignment = MatrixView::new("assignment", "De onde vem cada coluna das cabeças", " (coluna de X, contando de 0)");
    dom::append_all(&shell.outputs, &[&results, &figure, &assignment.root]);
    let widget = Rc::new(ReshapeWidget { shell, b, t, d, h, h_slider, canvas, figure, results, assignment });
    let shell = &widget.shell;
    shell.on(&widget, &shell.controls, &["input"], |w, e| {
        if control_of(e) == "h-slider" {
            w.h.set_value(&w.h_slider.value());
        }
        w.clone().recompute();
    });
    Ok(widget)
}

/// Head colours, cycled; distinct in both themes.
const HEAD_COLORS: [&str; 8] = ["#0b5cad", "#c2410c", "#1a7f37", "#8250df", "#bf3989", "#9a6700", "#0e7490", "#57606a"];

impl ReshapeWidget {
    fn shape(&self) -> Result<ReshapeShape, String> {
        Ok(ReshapeShape {
            b: read_count(&self.b, "b")?,
            t: read_count(&self.t, "t")?,
            d: read_count(&self.d, "d")?,
            h: read_count(&self.h, "h")?,
        })
    }

    /// Left: (b, t, d), one grid per batch element, columns coloured by head. Right: (b, h, t, d_h),
    /// the same cells regrouped per head.
    fn draw_tensors(&self, s: &ReshapeShape) {
        let d_h = s.d / s.h;
        let ink = if dom::dark_at(&self.figure) { "#c9d1d9" } else { "#444c56" };
        let width = (available_width(&self.figure) - 8.0).clamp(300.0, 640.0);
        // Each batch element gets a label line (14 px) above its grids and a gap below.
        let (gap, label_h) = (14.0, 16.0);
        let cell = ((width / 2.0 - 40.0) / (s.d + s.h) as f64).clamp(4.0, 22.0).min(132.0 / s.t as f64).max(4.0);
        let block_h = cell * s.t as f64;
        let height = 24.0 + s.b as f64 * (label_h + block_h + gap);
        let Some(ctx) = prepare_canvas(&self.canvas, width, height) else { return };
        ctx.set_font("12px system-ui, sans-serif");
        ctx.set_fill_style_str(ink);
        ctx.set_text_baseline("middle");
        let _ = ctx.fill_text(&format!("(b, t, d) = ({}, {}, {})", s.b, s.t, s.d), 4.0, 10.0);
        let right = width / 2.0 + 10.0;
        let _ = ctx.fill_text(&format!("(b, h, t, d/h) = ({}, {}, {}, {d_h})", s.b, s.h, s.t), right, 10.0);
        ctx.set_font("11px system-ui, sans-serif");
        let head_left = |n: usize| right + n as f64 * (cell * d_h as f64 + cell);
        for bi in 0..s.b {
            let top = 24.0 + bi as f64 * (label_h + block_h + gap) + label_h;
            ctx.set_fill_style_str(ink);
            let _ = ctx.fill_text(&format!("exemplo {} do lote", bi + 1), 4.0, top - 8.0);
            for n in 0..s.h {
                let block_w = cell * d_h as f64;
                let label = if block_w >= 52.0 { format!("cabeça {}", n + 1) } else { format!("{}", n + 1) };
                if block_w >= 10.0 || n % 2 == 0 {
                    let _ = ctx.fill_text(&label, head_left(n), top - 8.0);
                }
            }
            for p in 0..s.t {
                for j in 0..s.d {
                    ctx.set_fill_style_str(HEAD_COLORS[(j / d_h) % HEAD_COLORS.len()]);
                    ctx.fill_rect(4.0 + cell * j as f64, top + cell * p as f64, cell - 1.0, cell - 1.0);
                }
            }
            for n in 0..s.h {
                ctx.set_fill_style_str(HEAD_COLORS[n % HEAD_COLORS.len()]);
                for p in 0..s.t {
                    for c in 0..d_h {
                        ctx.fill_rect(head_left(n) + cell * c as f64, top + cell * p as f64, cell - 1.0, cell - 1.0);
                    }
                }
            }
        }
        ctx.set_font("16px system-ui, sans-serif");
        ctx.set_fill_style_str(ink);
        let _ = ctx.fill_text("→", width / 2.0 - 10.0, 24.0 + label_h + block_h / 2.0);
        dom::set_attr(
            &self.canvas,
            "aria-label",
            &format!("Tensor ({}, {}, {}) dividido em {} cabeças de {d_h} colunas, reagrupado como ({}, {}, {}, {d_h})", s.b, s.t, s.d, s.h, s.b, s.h, s.t),
        );
    }

    fn draw(&self) -> Result<(), String> {
        let shape = self.shape()?;
        // Nothing to draw for an uneven split: the explanation replaces the picture.
        let d_h = shape.validate().map_err(|error| {
            self.canvas.set_hidden(true);
            error.to_string()
        })?;
        self.canvas.set_hidden(false);
        if let Some(v) = parse_decimal(&self.h.value()) {
            self.h_slider.set_value(&v.to_string());
        }
        let mut assignment = Matrix::zeros(shape.h, d_h);
        for n in 0..shape.h {
            for c in 0..d_h {
                assignment.set(n, c, shape.source_column(n, c) as f32);
            }
        }
        let rows: Vec<String> = (1..=shape.h).map(|n| format!("cabeça {n}")).collect();
        let cols: Vec<String> = (0..d_h).map(|c| c.to_string()).collect();
        self.assignment.show(&assignment, rows, cols, Scale::Count);
        let ReshapeShape { b, t, d, h } = shape;
        let results = vec![
            ("entrada".to_string(), format!("{b} × {t} × {d}")),
            ("remodelada".to_string(), format!("{b} × {t} × {h} × {d_h}")),
            ("transposta (cabeças como lote)".to_string(), format!("{b} × {h} × {t} × {d_h}")),
            ("de volta, depois da atenção".to_string(), format!("{b} × {t} × {d}")),
            ("parâmetros (4·d², sem viés)".to_string(), format_count(mha_parameters(d as u64))),
            ("com d = 512 (artigo original)".to_string(), format_count(mha_parameters(512))),
        ];
        show_results(&self.results, "reshape", "Formas do tensor", &results);
        self.draw_tensors(&shape);
        Ok(())
    }
}

impl Widget for ReshapeWidget {
    fn recompute(self: Rc<Self>) {
        self.shell.now(|| self.draw());
    }

    /// A restored slider sets h, as moving it does.
    fn restore(&self, key: &str, _: &str) -> Option<bool> {
        (key == "h-slider").then(|| {
            self.h.set_value(&self.h_slider.value());
            true
        })
    }
}
