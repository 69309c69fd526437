//! `dot-product`: two editable vectors of any length; the componentwise products as bars,
//! their sum (the dot product), the norms, the cosine and the angle on a dial coloured by
//! sign (acute, right, obtuse). "normalizar" turns both into unit vectors, where the dot
//! product is the cosine. Default: the article's [2, 5, 1]·[3, 1, 4] = 15.
//!
//! Attributes: `data-preset` = basico (default) | sequencia | one-hot | ortogonais | obtuso | carro.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::format::{format_pt, format_pt_short};
use crate::core::vectors;
use crate::core::Matrix;

use crate::web::dom::{self, Listener};
use crate::web::kit::draw::BarView;
use crate::web::kit::ui::editor::MatrixEditor;
use crate::web::kit::attributes::Attributes;
use crate::web::kit::{control_of, listen, show_error, show_ready, Ctx, Widget, WidgetKind};

pub const KIND: WidgetKind = WidgetKind { name: "dot-product", title: "Produto escalar, norma e cosseno", mount };

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

fn row_name(i: usize) -> String {
    ["u", "v"].get(i).map_or_else(String::new, |s| s.to_string())
}

pub struct DotProductWidget {
    host: HtmlElement,
    editor: RefCell<MatrixEditor>,
    preset: HtmlSelectElement,
    normalize: HtmlInputElement,
    bars: BarView,
    dial: HtmlCanvasElement,
    table_slot: HtmlElement,
    listeners: RefCell<Vec<Listener>>,
}

fn mount(_ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let all = presets();
    let wanted = attrs.choice("data-preset");
    let (_, _, u, v) = all.iter().find(|p| p.0 == wanted).or(all.first()).cloned().ok_or("sem exemplos")?;
    dom::set_attr(host, "data-state", "loading");
    let _ = host.class_list().add_1("widget");
    host.set_text_content(None);
    dom::append(host, &dom::text("h3", "widget-title", KIND.title));

    let controls = dom::el("div", "widget-controls");
    let options: Vec<(String, String)> = all.iter().map(|p| (p.0.to_string(), p.1.to_string())).collect();
    let (preset_label, preset) = dom::select("exemplo ", "preset", &options, wanted);
    let (normalize_label, normalize) = dom::checkbox(" normalizar (vetores unitários)", "normalize", false);
    let more = dom::button("+ dimensão", "add-dim");
    let fewer = dom::button("− dimensão", "remove-dim");
    for el in [&preset_label, &normalize_label, &more, &fewer] {
        dom::append(&controls, el);
    }
    dom::append(host, &controls);
    let start = Matrix::from_rows(&[u, v]).map_err(|e| e.to_string())?;
    let editor = MatrixEditor::new("uv", "vetores", &start, row_name);
    dom::append(host, &editor.root);

    let outputs = dom::el("div", "widget-outputs");
    let bars = BarView::new("products", "");
    dom::append(&outputs, &bars.root);
    let dial_box = dom::el("figure", "mv");
    dom::append(&dial_box, &dom::text("figcaption", "mv-title", "Ângulo entre u e v"));
    let dial = dom::el("canvas", "mv-canvas").unchecked_into::<HtmlCanvasElement>();
    dom::set_attr(&dial, "role", "img");
    dom::append(&dial_box, &dial);
    dom::append(&outputs, &dial_box);
    let table_slot = dom::el("div", "");
    dom::append(&outputs, &table_slot);
    dom::append(host, &outputs);

    let widget = Rc::new(DotProductWidget {
        host: host.clone(),
        editor: RefCell::new(editor),
        preset,
        normalize,
        bars,
        dial,
        table_slot,
        listeners: RefCell::new(Vec::new()),
    });
    let on = |target: &HtmlElement, kind: &'static str, action: fn(&Rc<DotProductWidget>, &web_sys::Event)| listen(&widget, target, kind, action);
    let editor_root = widget.editor.borrow().root.clone();
    *widget.listeners.borrow_mut() = vec![
        on(&editor_root, "input", |w, _| w.clone().recompute()),
        on(&controls, "change", |w, e| w.on_control(e)),
        on(&more, "click", |w, _| w.resize(1)),
        on(&fewer, "click", |w, _| w.resize(-1)),
    ];
    Ok(widget)
}

impl DotProductWidget {
    fn on_control(self: &Rc<Self>, e: &web_sys::Event) {
        if control_of(e) == "preset" {
            if let Some((_, _, u, v)) = presets().into_iter().find(|p| p.0 == self.preset.value()) {
                if let Ok(m) = Matrix::from_rows(&[u, v]) {
                    self.editor.borrow_mut().set(&m);
                }
            }
        }
        self.clone().recompute();
    }

    fn resize(self: &Rc<Self>, delta: i32) {
        let cols = self.editor.borrow().cols() as i32 + delta;
        if !(1..=MAX_DIMS as i32).contains(&cols) {
            return show_error(&self.host, &format!("Use entre 1 e {MAX_DIMS} dimensões."));
        }
        self.editor.borrow_mut().resize(2, cols as usize);
        self.clone().recompute();
    }

    fn draw_dial(&self, angle: Option<f32>) {
        let dpr = dom::window().map_or(1.0, |w| w.device_pixel_ratio()).max(1.0);
        self.dial.set_width((DIAL * dpr) as u32);
        self.dial.set_height((DIAL * dpr) as u32);
        let style = self.dial.style();
        let _ = style.set_property("width", &format!("{DIAL}px"));
        let _ = style.set_property("height", &format!("{DIAL}px"));
        let Some(ctx) = self.dial.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok()) else { return };
        let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
        ctx.clear_rect(0.0, 0.0, DIAL, DIAL);
        let dark = dom::prefers_dark();
        let (cx, cy, r) = (DIAL / 2.0, DIAL / 2.0, DIAL / 2.0 - 14.0);
        ctx.set_stroke_style_str(if dark { "#30363d" } else { "#d0d7de" });
        ctx.set_line_width(1.0);
        ctx.begin_path();
        let _ = ctx.arc(cx, cy, r, 0.0, std::f64::consts::TAU);
        ctx.stroke();
        let text = if dark { "#c9d1d9" } else { "#24292f" };
        let Some(theta) = angle else {
            ctx.set_fill_style_str(text);
            ctx.set_text_align("center");
            let _ = ctx.fill_text("indefinido", cx, cy);
            dom::set_attr(&self.dial, "aria-label", "Ângulo indefinido: um dos vetores é nulo");
            return;
        };
        let rad = (theta as f64).to_radians();
        // Acute (positive dot product) green, right angle grey, obtuse (negative) red.
        let colour = if (theta - 90.0).abs() < 0.05 {
            "#8b949e"
        } else if theta < 90.0 {
            "#2da44e"
        } else {
            "#cf222e"
        };
        ctx.set_fill_style_str(colour);
        ctx.set_global_alpha(0.25);
        ctx.begin_path();
        ctx.move_to(cx, cy);
        let _ = ctx.arc_with_anticlockwise(cx, cy, r * 0.6, 0.0, -rad, true);
        ctx.close_path();
        ctx.fill();
        ctx.set_global_alpha(1.0);
        ctx.set_line_width(2.5);
        for (end, label, c) in [(0.0, "u", "#0969da"), (rad, "v", "#bc4c00")] {
            ctx.set_stroke_style_str(c);
            ctx.set_fill_style_str(c);
            ctx.begin_path();
            ctx.move_to(cx, cy);
            ctx.line_to(cx + r * end.cos(), cy - r * end.sin());
            ctx.stroke();
            let _ = ctx.fill_text(label, cx + (r + 8.0) * end.cos() - 3.0, cy - (r + 8.0) * end.sin() + 4.0);
        }
        ctx.set_fill_style_str(text);
        ctx.set_text_align("center");
        ctx.set_font("13px system-ui, sans-serif");
        let _ = ctx.fill_text(&format!("θ = {}°", format_pt(theta, 1)), cx, cy + r * 0.45);
        dom::set_attr(&self.dial, "aria-label", &format!("Ângulo de {} graus entre u e v", format_pt(theta, 1)));
    }
}

impl Widget for DotProductWidget {
    fn recompute(self: Rc<Self>) {
        let m = match self.editor.borrow().read() {
            Ok(m) => m,
            Err(e) => return show_error(&self.host, &e.message),
        };
        let (mut u, mut v) = (m.row(0), m.row(1));
        if self.normalize.checked() {
            match (vectors::normalize(&u), vectors::normalize(&v)) {
                (Ok(nu), Ok(nv)) => (u, v) = (nu, nv),
                (Err(e), _) | (_, Err(e)) => return show_error(&self.host, &format!("Não dá para normalizar: {e}")),
            }
        }
        let (Ok(dot), Ok(cosine), Ok(angle)) = (vectors::dot(&u, &v), vectors::cosine(&u, &v), vectors::angle_degrees(&u, &v)) else {
            return show_error(&self.host, "u e v precisam ter o mesmo número de componentes.");
        };
        let labels: Vec<String> = (0..u.len())
            .map(|i| format!("{}: {}·{}", i + 1, format_pt_short(u[i], 2), format_pt_short(v[i], 2)))
            .collect();
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
        let rows = vec![
            ("u·v".to_string(), format_pt(dot, 4)),
            ("‖u‖".to_string(), format_pt(vectors::norm(&u), 4)),
            ("‖v‖".to_string(), format_pt(vectors::norm(&v), 4)),
            ("cos θ".to_string(), cosine.map_or_else(undefined, |c| format_pt(c, 4))),
            ("θ (graus)".to_string(), angle.map_or_else(undefined, |t| format_pt(t, 2))),
            ("relação".to_string(), kind.to_string()),
        ];
        self.table_slot.set_text_content(None);
        dom::append(&self.table_slot, &dom::results_table("dot", "Resultados", &rows));
        show_ready(&self.host);
    }
}
