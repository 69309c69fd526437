//! `vectors`: two arrows a and b on the plane, draggable by their tips (or typed in), with
//! a + b (parallelogram rule), −a and k·a drawn live. Default: the article's a = (1, 2),
//! b = (3, −1), k = 2.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlElement, HtmlInputElement, MouseEvent};

use crate::core::format::format_pt_short;
use crate::core::vectors;
use crate::core::Matrix;

use crate::web::dom::{self, Listener};
use crate::web::kit::ui::editor::MatrixEditor;
use crate::web::kit::attributes::Attributes;
use crate::web::kit::{show_error, show_ready, Ctx, Widget, WidgetKind};

pub const KIND: WidgetKind = WidgetKind { name: "vectors", title: "Vetores no plano: soma, oposto e escala", mount };

/// The plane shows −RANGE…RANGE on both axes.
const RANGE: f64 = 6.0;
const SIZE: f64 = 340.0;

fn name(i: usize) -> String {
    ["a", "b"].get(i).map_or_else(|| format!("v{}", i + 1), |s| s.to_string())
}

pub struct VectorsWidget {
    host: HtmlElement,
    editor: RefCell<MatrixEditor>,
    canvas: HtmlCanvasElement,
    k: HtmlInputElement,
    k_readout: HtmlElement,
    show: [HtmlInputElement; 3],
    table_slot: HtmlElement,
    dragging: Cell<Option<usize>>,
    listeners: RefCell<Vec<Listener>>,
}

fn mount(_ctx: &Rc<Ctx>, host: &HtmlElement, _attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    dom::set_attr(host, "data-state", "loading");
    let _ = host.class_list().add_1("widget");
    host.set_text_content(None);
    dom::append(host, &dom::text("h3", "widget-title", KIND.title));

    let body = dom::el("div", "widget-outputs");
    let canvas = dom::el("canvas", "mv-canvas plane").unchecked_into::<HtmlCanvasElement>();
    dom::set_attr(&canvas, "role", "img");
    dom::set_attr(&canvas, "aria-label", "Plano com os vetores a e b; arraste as pontas ou edite as coordenadas ao lado");
    dom::append(&body, &canvas);

    let side = dom::el("div", "explain");
    let start = Matrix::from_rows(&[[1.0, 2.0], [3.0, -1.0]]).map_err(|e| e.to_string())?;
    let editor = MatrixEditor::new("vectors", "coordenadas (x, y)", &start, name);
    dom::append(&side, &editor.root);
    let controls = dom::el("div", "widget-controls");
    let (sum_label, sum) = dom::checkbox(" a + b", "show-sum", true);
    let (neg_label, neg) = dom::checkbox(" −a", "show-neg", true);
    let (scaled_label, scaled) = dom::checkbox(" k·a", "show-scaled", true);
    let (k_label, k) = dom::slider("k = ", "k", -3.0, 3.0, 0.5, 2.0);
    let k_readout = dom::text("output", "", "2");
    dom::append(&k_label, &k_readout);
    for el in [&sum_label, &neg_label, &scaled_label, &k_label] {
        dom::append(&controls, el);
    }
    dom::append(&side, &controls);
    let table_slot = dom::el("div", "");
    dom::append(&side, &table_slot);
    dom::append(&body, &side);
    dom::append(host, &body);

    let widget = Rc::new(VectorsWidget {
        host: host.clone(),
        editor: RefCell::new(editor),
        canvas,
        k,
        k_readout,
        show: [sum, neg, scaled],
        table_slot,
        dragging: Cell::new(None),
        listeners: RefCell::new(Vec::new()),
    });
    let on = |target: &web_sys::EventTarget, kind: &'static str, action: fn(&Rc<VectorsWidget>, &web_sys::Event)| crate::web::kit::listen(&widget, target, kind, action);
    *widget.listeners.borrow_mut() = vec![
        on(&side, "input", |w, _| w.clone().recompute()),
        on(&side, "change", |w, _| w.clone().recompute()),
        on(&widget.canvas, "pointerdown", |w, e| w.drag_start(e)),
        on(&widget.canvas, "pointermove", |w, e| w.drag_move(e)),
        on(&widget.canvas, "pointerup", |w, _| w.dragging.set(None)),
        on(&widget.canvas, "pointercancel", |w, _| w.dragging.set(None)),
    ];
    Ok(widget)
}

/// Plane coordinates → canvas CSS pixels.
fn to_px(x: f64, y: f64) -> (f64, f64) {
    (SIZE / 2.0 + x / RANGE * SIZE / 2.0, SIZE / 2.0 - y / RANGE * SIZE / 2.0)
}

/// Canvas CSS pixels → plane coordinates, snapped to halves.
fn from_px(px: f64, py: f64) -> (f32, f32) {
    let snap = |v: f64| ((v * 2.0).round() / 2.0).clamp(-RANGE, RANGE) as f32;
    (snap((px - SIZE / 2.0) / (SIZE / 2.0) * RANGE), snap((SIZE / 2.0 - py) / (SIZE / 2.0) * RANGE))
}

impl VectorsWidget {
    fn pointer(e: &web_sys::Event) -> Option<(f64, f64)> {
        let m = e.dyn_ref::<MouseEvent>()?;
        Some((m.offset_x() as f64, m.offset_y() as f64))
    }

    fn drag_start(&self, e: &web_sys::Event) {
        let (Some((px, py)), Ok(m)) = (Self::pointer(e), self.editor.borrow().read()) else { return };
        let nearest = (0..2)
            .map(|i| {
                let (tx, ty) = to_px(m.get(i, 0) as f64, m.get(i, 1) as f64);
                (i, (tx - px).hypot(ty - py))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((i, distance)) = nearest {
            if distance < 24.0 {
                self.dragging.set(Some(i));
                if let Some(p) = e.dyn_ref::<web_sys::PointerEvent>() {
                    let _ = self.canvas.set_pointer_capture(p.pointer_id());
                }
                e.prevent_default();
            }
        }
    }

    fn drag_move(self: &Rc<Self>, e: &web_sys::Event) {
        let (Some(i), Some((px, py))) = (self.dragging.get(), Self::pointer(e)) else { return };
        let Ok(mut m) = self.editor.borrow().read() else { return };
        let (x, y) = from_px(px, py);
        if (m.get(i, 0), m.get(i, 1)) == (x, y) {
            return;
        }
        m.set(i, 0, x);
        m.set(i, 1, y);
        self.editor.borrow_mut().set(&m);
        self.clone().recompute();
    }

    fn draw(&self, arrows: &[(String, Vec<f32>, &str, bool)], a: &[f32], b: &[f32], show_sum: bool) {
        let dpr = dom::window().map_or(1.0, |w| w.device_pixel_ratio()).max(1.0);
        self.canvas.set_width((SIZE * dpr) as u32);
        self.canvas.set_height((SIZE * dpr) as u32);
        let style = self.canvas.style();
        let _ = style.set_property("width", &format!("{SIZE}px"));
        let _ = style.set_property("height", &format!("{SIZE}px"));
        let _ = style.set_property("touch-action", "none");
        let Some(ctx) = self.canvas.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<CanvasRenderingContext2d>().ok()) else { return };
        let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
        let dark = dom::prefers_dark();
        ctx.set_fill_style_str(if dark { "#161b22" } else { "#fbfbfc" });
        ctx.fill_rect(0.0, 0.0, SIZE, SIZE);
        ctx.set_stroke_style_str(if dark { "#30363d" } else { "#e3e6ea" });
        ctx.set_line_width(1.0);
        for i in -(RANGE as i32)..=(RANGE as i32) {
            let (x, _) = to_px(i as f64, 0.0);
            let (_, y) = to_px(0.0, i as f64);
            line(&ctx, x, 0.0, x, SIZE);
            line(&ctx, 0.0, y, SIZE, y);
        }
        ctx.set_stroke_style_str(if dark { "#8b949e" } else { "#57606a" });
        line(&ctx, 0.0, SIZE / 2.0, SIZE, SIZE / 2.0);
        line(&ctx, SIZE / 2.0, 0.0, SIZE / 2.0, SIZE);
        if show_sum {
            // The parallelogram: b drawn from a's tip and a from b's tip.
            ctx.set_stroke_style_str(if dark { "#56d364" } else { "#1a7f37" });
            let _ = ctx.set_line_dash(&js_sys::Array::of2(&4.into(), &4.into()));
            let (ax, ay) = to_px(a[0] as f64, a[1] as f64);
            let (bx, by) = to_px(b[0] as f64, b[1] as f64);
            let (sx, sy) = to_px((a[0] + b[0]) as f64, (a[1] + b[1]) as f64);
            line(&ctx, ax, ay, sx, sy);
            line(&ctx, bx, by, sx, sy);
            let _ = ctx.set_line_dash(&js_sys::Array::new());
        }
        for (label, v, colour, _) in arrows.iter().filter(|a| a.3) {
            arrow(&ctx, v[0] as f64, v[1] as f64, colour, label);
        }
    }
}

fn line(ctx: &CanvasRenderingContext2d, x0: f64, y0: f64, x1: f64, y1: f64) {
    ctx.begin_path();
    ctx.move_to(x0, y0);
    ctx.line_to(x1, y1);
    ctx.stroke();
}

fn arrow(ctx: &CanvasRenderingContext2d, x: f64, y: f64, colour: &str, label: &str) {
    let (ox, oy) = to_px(0.0, 0.0);
    let (tx, ty) = to_px(x, y);
    ctx.set_stroke_style_str(colour);
    ctx.set_fill_style_str(colour);
    ctx.set_line_width(2.5);
    line(ctx, ox, oy, tx, ty);
    let angle = (ty - oy).atan2(tx - ox);
    ctx.begin_path();
    ctx.move_to(tx, ty);
    ctx.line_to(tx - 10.0 * (angle - 0.4).cos(), ty - 10.0 * (angle - 0.4).sin());
    ctx.line_to(tx - 10.0 * (angle + 0.4).cos(), ty - 10.0 * (angle + 0.4).sin());
    ctx.close_path();
    ctx.fill();
    ctx.set_font("bold 13px system-ui, sans-serif");
    let _ = ctx.fill_text(label, tx + 6.0, ty - 6.0);
}

fn pair(v: &[f32]) -> String {
    format!("({}; {})", format_pt_short(v[0], 2), format_pt_short(v[1], 2))
}

impl Widget for VectorsWidget {
    fn recompute(self: Rc<Self>) {
        let m = match self.editor.borrow().read() {
            Ok(m) => m,
            Err(e) => return show_error(&self.host, &e.message),
        };
        let k = self.k.value().parse::<f32>().unwrap_or(2.0);
        self.k_readout.set_text_content(Some(&format_pt_short(k, 1)));
        let (a, b) = (m.row(0), m.row(1));
        let Ok(sum) = vectors::add(&a, &b) else { return };
        let (neg, scaled) = (vectors::negate(&a), vectors::scale(&a, k));
        let dark = dom::prefers_dark();
        let [show_sum, show_neg, show_scaled] = [&self.show[0], &self.show[1], &self.show[2]].map(|c| c.checked());
        let arrows = vec![
            ("k·a".to_string(), scaled.clone(), if dark { "#d2a8ff" } else { "#8250df" }, show_scaled),
            ("−a".to_string(), neg.clone(), if dark { "#8b949e" } else { "#6e7781" }, show_neg),
            ("a + b".to_string(), sum.clone(), if dark { "#56d364" } else { "#1a7f37" }, show_sum),
            ("b".to_string(), b.clone(), if dark { "#ffa657" } else { "#bc4c00" }, true),
            ("a".to_string(), a.clone(), if dark { "#79c0ff" } else { "#0969da" }, true),
        ];
        self.draw(&arrows, &a, &b, show_sum);
        let rows = vec![
            ("a".to_string(), pair(&a)),
            ("b".to_string(), pair(&b)),
            ("a + b".to_string(), pair(&sum)),
            ("−a".to_string(), pair(&neg)),
            (format!("k·a (k = {})", format_pt_short(k, 1)), pair(&scaled)),
        ];
        self.table_slot.set_text_content(None);
        dom::append(&self.table_slot, &dom::results_table("vectors", "Resultados", &rows));
        show_ready(&self.host);
    }
}
