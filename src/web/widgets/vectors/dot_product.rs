//! `dot-product`: two editable vectors of any length; the componentwise products as bars,
//! their sum (the dot product), the norms, the cosine and the angle on a dial coloured by
//! sign (acute, right, obtuse). "normalizar" turns both into unit vectors, where the dot
//! product is the cosine. Default: the article's [2, 5, 1]·[3, 1, 4] = 15.
//!
//! Attributes: `data-preset` = basico (default) | sequencia | one-hot | ortogonais | obtuso | carro.

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::{HtmlCanvasElement, HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::format::{format_pt, format_pt_short};
use crate::core::vectors;
use crate::core::Matrix;
use crate::site::palette::{bar_color, css};

use crate::web::dom;
use crate::web::kit::ui::{self, MatrixEditor};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{canvas_figure, prepare_canvas, BarView};
use crate::web::kit::{control_of, Ctx, Shell, Widget, WidgetKind};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::DOT_PRODUCT, mount };

const MAX_DIMS: usize = 12;
const DIAL: f64 = 170.0;

/// (id, label, u, v): the article's examples and the three sign cases.
fn presets() -> Vec<(&'static str, &'static str, Vec<f32>, Vec<f32>)> {
    vec![
        ("basico", "[2, 5, 1]·[3, 1, 4]", vec![2.0, 5.0, 1.0], vec![3.0, 1.0, 4.0]),
        ("sequencia", "[1, 2, 3]·[4, 5, 6]", vec![1.0, 2.0, 3.0], vec![4.0, 5.0, 6.0]),
        ("one-hot", "one-hot · probabilidades", vec![0.0, 1.0, 0.0], vec![0.2, 0.7, 0.1]),
        ("ortogonais", "perpendiculares", vec![1.0, 0.0], vec![0.0, 1.0]),
        ("obtuso", "ângulo obtuso", vec![1.0, 0.0], vec![-1.0, 1.0]),
        ("carro", "\"O carro é veloz\" · \"O automóvel é rápido\" (BoW)", vec![0.0, 1.0, 1.0, 1.0, 0.0, 1.0], vec![1.0, 0.0, 1.0, 1.0, 1.0, 0.0]),
    ]
}

/// The vectors of preset `id`, as the editor's two rows.
fn preset_matrix(id: &str) -> Option<Matrix> {
    presets().into_iter().find(|p| p.0 == id).and_then(|(_, _, u, v)| Matrix::from_rows(&[u, v]).ok())
}

fn row_name(i: usize) -> String {
    ["u", "v"].get(i).map_or_else(String::new, |s| s.to_string())
}

pub struct DotProductWidget {
    shell: Shell,
    editor: RefCell<MatrixEditor>,
    preset: HtmlSelectElement,
    normalize: HtmlInputElement,
    bars: BarView,
    dial: HtmlCanvasElement,
    results: HtmlElement,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let wanted = attrs.choice("data-preset");
    let start = preset_matrix(wanted).ok_or("sem exemplos")?;
    let shell = Shell::new(ctx, host, &KIND);
    // The example comes before the vectors it rewrites (a saved state is restored in page order).
    let options: Vec<(String, String)> = presets().iter().map(|p| (p.0.to_string(), p.1.to_string())).collect();
    let (preset_label, preset) = ui::select("exemplo ", "preset", &options, wanted);
    let preset_row = dom::el("div", "widget-controls");
    dom::append(&preset_row, &preset_label);
    dom::append(&shell.inputs, &preset_row);
    let editor = MatrixEditor::new("uv", "vetores", &start, row_name);
    editor.resized_by("add-dim", "remove-dim");
    dom::append(&shell.inputs, &editor.root);
    let (normalize_label, normalize) = ui::checkbox(" normalizar (vetores unitários)", "normalize", false);
    shell.control(&[&normalize_label, &ui::button("+ dimensão", "add-dim"), &ui::button("− dimensão", "remove-dim")]);

    let bars = BarView::new("products", "");
    dom::append(&shell.outputs, &bars.root);
    let (dial_box, _, dial) = canvas_figure("mv", None, "Ângulo entre u e v");
    dom::append(&shell.outputs, &dial_box);
    let results = dom::el("div", "");
    dom::append(&shell.outputs, &results);

    let widget = Rc::new(DotProductWidget { shell, editor: RefCell::new(editor), preset, normalize, bars, dial, results });
    let shell = &widget.shell;
    shell.on(&widget, &shell.inputs, &["input"], |w, e| {
        if control_of(e).is_empty() {
            w.clone().recompute();
        }
    });
    shell.on(&widget, &shell.inputs, &["change"], |w, e| {
        if control_of(e) == "preset" {
            if let Some(m) = preset_matrix(&w.preset.value()) {
                w.editor.borrow_mut().set(&m);
            }
            w.clone().recompute();
        }
    });
    shell.on(&widget, &shell.controls, &["change"], |w, _| w.clone().recompute());
    shell.on_action(&widget, |w, action| match action {
        "add-dim" => w.resize(1),
        "remove-dim" => w.resize(-1),
        _ => {}
    });
    Ok(widget)
}

impl DotProductWidget {
    fn resize(self: &Rc<Self>, delta: i32) {
        let cols = self.editor.borrow().cols() as i32 + delta;
        if !(1..=MAX_DIMS as i32).contains(&cols) {
            return self.shell.fail(&format!("Use entre 1 e {MAX_DIMS} dimensões."));
        }
        self.editor.borrow_mut().resize(2, cols as usize);
        self.clone().recompute();
    }

    /// The angle θ between u and v on a dial: the sector coloured by sign (acute green, right
    /// grey, obtuse red), u along the horizontal, v at θ.
    fn draw_dial(&self, angle: Option<f32>) {
        let Some(ctx) = prepare_canvas(&self.dial, DIAL, DIAL) else { return };
        let dark = dom::dark_at(&self.dial);
        let (cx, cy, r) = (DIAL / 2.0, DIAL / 2.0, DIAL / 2.0 - 14.0);
        ctx.set_stroke_style_str(if dark { "#30363d" } else { "#d0d7de" });
        ctx.set_line_width(1.0);
        ctx.begin_path();
        let _ = ctx.arc(cx, cy, r, 0.0, std::f64::consts::TAU);
        ctx.stroke();
        let text = if dark { "#c9d1d9" } else { "#24292f" };
        ctx.set_font("13px system-ui, sans-serif");
        let Some(theta) = angle else {
            ctx.set_fill_style_str(text);
            ctx.set_text_align("center");
            let _ = ctx.fill_text("indefinido", cx, cy);
            dom::set_attr(&self.dial, "aria-label", "Ângulo indefinido: um dos vetores é nulo");
            return;
        };
        let rad = (theta as f64).to_radians();
        let sector = if (theta - 90.0).abs() < 0.05 {
            "#8b949e"
        } else if theta < 90.0 {
            "#2da44e"
        } else {
            "#cf222e"
        };
        ctx.set_fill_style_str(sector);
        ctx.set_global_alpha(0.25);
        ctx.begin_path();
        ctx.move_to(cx, cy);
        let _ = ctx.arc_with_anticlockwise(cx, cy, r * 0.6, 0.0, -rad, true);
        ctx.close_path();
        ctx.fill();
        ctx.set_global_alpha(1.0);
        ctx.set_line_width(2.5);
        // u and v in the bars' two colours, which keep 3:1 against the page in both themes.
        for (end, label, negative) in [(0.0, "u", false), (rad, "v", true)] {
            let colour = css(bar_color(negative, dark));
            ctx.set_stroke_style_str(&colour);
            ctx.set_fill_style_str(&colour);
            ctx.begin_path();
            ctx.move_to(cx, cy);
            ctx.line_to(cx + r * end.cos(), cy - r * end.sin());
            ctx.stroke();
            let _ = ctx.fill_text(label, cx + (r + 8.0) * end.cos() - 3.0, cy - (r + 8.0) * end.sin() + 4.0);
        }
        ctx.set_fill_style_str(text);
        ctx.set_text_align("center");
        let _ = ctx.fill_text(&format!("θ = {}°", format_pt(theta, 1)), cx, cy + r * 0.45);
        dom::set_attr(&self.dial, "aria-label", &format!("Ângulo de {} graus entre u e v", format_pt(theta, 1)));
    }

    fn draw(&self) -> Result<(), String> {
        let m = self.editor.borrow().read()?;
        let (mut u, mut v) = (m.row(0), m.row(1));
        if self.normalize.checked() {
            match (vectors::normalize(&u), vectors::normalize(&v)) {
                (Ok(nu), Ok(nv)) => (u, v) = (nu, nv),
                (Err(e), _) | (_, Err(e)) => return Err(format!("Não dá para normalizar: {e}")),
            }
        }
        let (Ok(dot), Ok(cosine), Ok(angle)) = (vectors::dot(&u, &v), vectors::cosine(&u, &v), vectors::angle_degrees(&u, &v)) else {
            return Err("u e v precisam ter o mesmo número de componentes.".into());
        };
        let labels: Vec<String> = (0..u.len()).map(|i| format!("{}: {}·{}", i + 1, format_pt_short(u[i], 2), format_pt_short(v[i], 2))).collect();
        let products: Vec<f32> = u.iter().zip(&v).map(|(a, b)| a * b).collect();
        self.bars.update("Produtos componente a componente (a soma é u·v)", &labels, &products);
        self.draw_dial(angle);
        let kind = match angle {
            None => "indefinido (vetor nulo)",
            Some(t) if (t - 90.0).abs() < 0.05 => "ortogonais (u·v = 0)",
            Some(t) if t < 90.0 => "ângulo agudo (u·v > 0)",
            Some(_) => "ângulo obtuso (u·v < 0)",
        };
        let undefined = || "indefinido".to_string();
        let rows = [
            ("u·v".to_string(), format_pt(dot, 4)),
            ("‖u‖".to_string(), format_pt(vectors::norm(&u), 4)),
            ("‖v‖".to_string(), format_pt(vectors::norm(&v), 4)),
            ("cos θ".to_string(), cosine.map_or_else(undefined, |c| format_pt(c, 4))),
            ("θ (graus)".to_string(), angle.map_or_else(undefined, |t| format_pt(t, 2))),
            ("relação".to_string(), kind.to_string()),
        ];
        self.results.set_text_content(None);
        dom::append(&self.results, &dom::results_table("dot", "Resultados", &rows));
        Ok(())
    }
}

impl Widget for DotProductWidget {
    fn recompute(self: Rc<Self>) {
        self.shell.now(|| self.draw());
    }

    /// A restored example fills u and v, as choosing it does; a restored size (`uv@size`, two
    /// rows) sets the number of dimensions.
    fn restore(&self, key: &str, value: &str) -> Option<bool> {
        match key {
            "preset" => Some(preset_matrix(value).inspect(|m| self.editor.borrow_mut().set(m)).is_some()),
            "uv@size" => {
                let cols = value.parse::<usize>().ok().filter(|n| n % 2 == 0).map(|n| n / 2).filter(|c| (1..=MAX_DIMS).contains(c));
                Some(cols.inspect(|&c| self.editor.borrow_mut().resize(2, c)).is_some())
            }
            _ => None,
        }
    }
}
