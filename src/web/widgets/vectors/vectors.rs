//! `vectors`: two arrows a and b on the plane, draggable by their tips (or typed in), with
//! a + b (parallelogram rule), −a and k·a drawn live. Default: the article's a = (1, 2),
//! b = (3, −1), k = 2.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlElement, HtmlInputElement, MouseEvent};

use crate::core::format::{format_pt_short, parse_pt};
use crate::core::vectors;
use crate::core::Matrix;

use crate::web::dom;
use crate::web::kit::ui::{self, MatrixEditor};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{available_width, prepare_canvas};
use crate::web::kit::{Ctx, Shell, Widget, WidgetKind};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::VECTORS, mount };

/// The plane shows −RANGE…RANGE on both axes.
const RANGE: f64 = 6.0;
/// Side of the plane in CSS pixels (less on a narrow phone).
const SIZE: f64 = 340.0;

fn name(i: usize) -> String {
    ["a", "b"].get(i).map_or_else(|| format!("v{}", i + 1), |s| s.to_string())
}

pub struct VectorsWidget {
    shell: Shell,
    editor: RefCell<MatrixEditor>,
    canvas: HtmlCanvasElement,
    k: HtmlInputElement,
    k_readout: HtmlElement,
    show: [HtmlInputElement; 3],
    results: HtmlElement,
    /// The tip being dragged (0: a, 1: b).
    dragging: Cell<Option<usize>>,
    /// The plane's side as last drawn.
    size: Cell<f64>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, _attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let start = Matrix::from_rows(&[[1.0, 2.0], [3.0, -1.0]]).map_err(|e| e.to_string())?;
    let shell = Shell::new(ctx, host, &KIND);
    let editor = MatrixEditor::new("vectors", "coordenadas (x, y)", &start, name);
    dom::append(&shell.inputs, &editor.root);
    let (sum_label, sum) = ui::checkbox(" a + b", "show-sum", true);
    let (neg_label, neg) = ui::checkbox(" −a", "show-neg", true);
    let (scaled_label, scaled) = ui::checkbox(" k·a", "show-scaled", true);
    let (k_label, k) = ui::slider("k = ", "k", -3.0, 3.0, 0.5, 2.0);
    let k_readout = dom::text("output", "", "2");
    dom::append(&k_label, &k_readout);
    shell.control(&[&sum_label, &neg_label, &scaled_label, &k_label]);

    let plane = dom::el("figure", "mv");
    let canvas = dom::el("canvas", "mv-canvas plane").unchecked_into::<HtmlCanvasElement>();
    dom::set_attrs(&canvas, &[("role", "img"), ("aria-label", "Plano com os vetores a e b; arraste as pontas ou edite as coordenadas")]);
    // Dragging a tip must not scroll the page on a touch screen.
    let _ = canvas.style().set_property("touch-action", "none");
    dom::append(&plane, &canvas);
    dom::append(&shell.outputs, &plane);
    let results = dom::el("div", "");
    dom::append(&shell.outputs, &results);

    let widget = Rc::new(VectorsWidget {
        shell,
        editor: RefCell::new(editor),
        canvas,
        k,
        k_readout,
        show: [sum, neg, scaled],
        results,
        dragging: Cell::new(None),
        size: Cell::new(SIZE),
    });
    let shell = &widget.shell;
    shell.recompute_on(&widget, &["input", "change"]);
    shell.on(&widget, &widget.canvas, &["pointerdown"], |w, e| w.drag_start(e));
    shell.on(&widget, &widget.canvas, &["pointermove"], |w, e| w.drag_move(e));
    shell.on(&widget, &widget.canvas, &["pointerup", "pointercancel"], |w, _| w.dragging.set(None));
    Ok(widget)
}

impl VectorsWidget {
    /// Plane coordinates → canvas CSS pixels.
    fn to_px(&self, x: f64, y: f64) -> (f64, f64) {
        let half = self.size.get() / 2.0;
        (half + x / RANGE * half, half - y / RANGE * half)
    }

    /// Canvas CSS pixels → plane coordinates, snapped to halves.
    fn from_px(&self, px: f64, py: f64) -> (f32, f32) {
        let half = self.size.get() / 2.0;
        let snap = |v: f64| ((v * 2.0).round() / 2.0).clamp(-RANGE, RANGE) as f32;
        (snap((px - half) / half * RANGE), snap((half - py) / half * RANGE))
    }

    fn pointer(e: &web_sys::Event) -> Option<(f64, f64)> {
        let m = e.dyn_ref::<MouseEvent>()?;
        Some((m.offset_x() as f64, m.offset_y() as f64))
    }

    fn drag_start(&self, e: &web_sys::Event) {
        let (Some((px, py)), Ok(m)) = (Self::pointer(e), self.editor.borrow().read()) else { return };
        let nearest = (0..2)
            .map(|i| {
                let (tx, ty) = self.to_px(m.get(i, 0) as f64, m.get(i, 1) as f64);
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
        let (x, y) = self.from_px(px, py);
        if (m.get(i, 0), m.get(i, 1)) == (x, y) {
            return;
        }
        m.set(i, 0, x);
        m.set(i, 1, y);
        self.editor.borrow_mut().set(&m);
        self.clone().recompute();
    }

    /// The grid, the axes, the parallelogram of a + b when shown, and each shown arrow.
    fn draw_plane(&self, arrows: &[(&str, &[f32], &str, bool)], a: &[f32], b: &[f32], show_sum: bool) {
        let parent = self.canvas.parent_element().and_then(|p| p.dyn_into::<HtmlElement>().ok());
        let size = parent.map_or(SIZE, |figure| available_width(&figure).min(SIZE));
        self.size.set(size);
        let Some(ctx) = prepare_canvas(&self.canvas, size, size) else { return };
        let dark = dom::dark_at(&self.canvas);
        ctx.set_fill_style_str(if dark { "#161b22" } else { "#fbfbfc" });
        ctx.fill_rect(0.0, 0.0, size, size);
        ctx.set_stroke_style_str(if dark { "#30363d" } else { "#e3e6ea" });
        ctx.set_line_width(1.0);
        for i in -(RANGE as i32)..=(RANGE as i32) {
            let (x, _) = self.to_px(i as f64, 0.0);
            let (_, y) = self.to_px(0.0, i as f64);
            line(&ctx, x, 0.0, x, size);
            line(&ctx, 0.0, y, size, y);
        }
        ctx.set_stroke_style_str(if dark { "#8b949e" } else { "#57606a" });
        line(&ctx, 0.0, size / 2.0, size, size / 2.0);
        line(&ctx, size / 2.0, 0.0, size / 2.0, size);
        if show_sum {
            // The parallelogram: b drawn from a's tip and a from b's tip.
            ctx.set_stroke_style_str(if dark { "#56d364" } else { "#1a7f37" });
            let _ = ctx.set_line_dash(&js_sys::Array::of2(&4.into(), &4.into()));
            let (ax, ay) = self.to_px(a[0] as f64, a[1] as f64);
            let (bx, by) = self.to_px(b[0] as f64, b[1] as f64);
            let (sx, sy) = self.to_px((a[0] + b[0]) as f64, (a[1] + b[1]) as f64);
            line(&ctx, ax, ay, sx, sy);
            line(&ctx, bx, by, sx, sy);
            let _ = ctx.set_line_dash(&js_sys::Array::new());
        }
        let origin = self.to_px(0.0, 0.0);
        for (label, v, colour, _) in arrows.iter().filter(|a| a.3) {
            arrow(&ctx, origin, self.to_px(v[0] as f64, v[1] as f64), colour, label);
        }
    }

    fn draw(&self) -> Result<(), String> {
        let m = self.editor.borrow().read()?;
        let k = parse_pt(&self.k.value()).unwrap_or(2.0);
        self.k_readout.set_text_content(Some(&format_pt_short(k, 1)));
        let (a, b) = (m.row(0), m.row(1));
        let sum = vectors::add(&a, &b).map_err(|e| e.to_string())?;
        let (neg, scaled) = (vectors::negate(&a), vectors::scale(&a, k));
        let dark = dom::dark_at(&self.canvas);
        let [show_sum, show_neg, show_scaled] = [&self.show[0], &self.show[1], &self.show[2]].map(|c| c.checked());
        let arrows = [
            ("k·a", &scaled[..], if dark { "#d2a8ff" } else { "#8250df" }, show_scaled),
            ("−a", &neg[..], if dark { "#8b949e" } else { "#6e7781" }, show_neg),
            ("a + b", &sum[..], if dark { "#56d364" } else { "#1a7f37" }, show_sum),
            ("b", &b[..], if dark { "#ffa657" } else { "#bc4c00" }, true),
            ("a", &a[..], if dark { "#79c0ff" } else { "#0969da" }, true),
        ];
        self.draw_plane(&arrows, &a, &b, show_sum);
        let rows = [
            ("a".to_string(), pair(&a)),
            ("b".to_string(), pair(&b)),
            ("a + b".to_string(), pair(&sum)),
            ("−a".to_string(), pair(&neg)),
            (format!("k·a (k = {})", format_pt_short(k, 1)), pair(&scaled)),
        ];
        self.results.set_text_content(None);
        dom::append(&self.results, &dom::results_table("vectors", "Resultados", &rows));
        Ok(())
    }
}

fn line(ctx: &CanvasRenderingContext2d, x0: f64, y0: f64, x1: f64, y1: f64) {
    ctx.begin_path();
    ctx.move_to(x0, y0);
    ctx.line_to(x1, y1);
    ctx.stroke();
}

/// An arrow from `from` to `to` (CSS pixels), its head and its label at the tip.
fn arrow(ctx: &CanvasRenderingContext2d, (ox, oy): (f64, f64), (tx, ty): (f64, f64), colour: &str, label: &str) {
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
        self.shell.now(|| self.draw());
    }
}
