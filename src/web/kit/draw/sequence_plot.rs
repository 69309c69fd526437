//! A small line plot on canvas (several series over the same x values, optional log axes)
//! with its twin table: one row per x, one column per series, the very numbers drawn.

use wasm_bindgen::JsCast;
use web_sys::{HtmlCanvasElement, HtmlElement};

use crate::core::format::format_pt_short;
use crate::core::sequence::sparsity::power_of_ten;

use crate::web::dom;

/// One line of the plot.
pub struct Series {
    pub label: String,
    /// One y per x (non-finite values leave a gap).
    pub values: Vec<f64>,
    /// Drawn dashed (a reference, e.g. the stationary value or Zipf's curve).
    pub dashed: bool,
    /// Draw a dot on every point (measured values).
    pub dots: bool,
}

/// Axes of the plot.
pub struct Axes {
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub log_y: bool,
    /// Fixed y range, or `None` to fit the data.
    pub y_range: Option<(f64, f64)>,
}

pub struct LinePlot {
    pub root: HtmlElement,
    canvas: HtmlCanvasElement,
    table: HtmlElement,
    title: String,
}

/// Line colours, told apart by more than hue (the dashed series are references).
const COLORS_LIGHT: [&str; 4] = ["#0b5cad", "#c2410c", "#1a7f37", "#8250df"];
const COLORS_DARK: [&str; 4] = ["#58a6ff", "#fb923c", "#3fb950", "#bc8cff"];

impl LinePlot {
    /// `key` names the twin (`data-matrix`).
    pub fn new(key: &str, title: &str) -> LinePlot {
        let root = dom::el("figure", "mv plot");
        dom::set_attr(&root, "data-plot", key);
        dom::append(&root, &dom::text("figcaption", "mv-title", title));
        let canvas = dom::el("canvas", "mv-canvas").unchecked_into::<HtmlCanvasElement>();
        dom::set_attr(&canvas, "role", "img");
        dom::set_attr(&canvas, "aria-label", title);
        dom::append(&root, &canvas);
        let table = dom::el("table", "twin");
        dom::set_attr(&table, "data-matrix", key);
        table.set_hidden(true);
        dom::append(&root, &table);
        LinePlot { root, canvas, table, title: title.to_string() }
    }

    /// Draws `series` over `xs`; `x_text` writes an x value in the twin's row labels and
    /// `y_text` a value in its cells.
    pub fn update(&self, xs: &[f64], series: &[Series], axes: &Axes, x_text: impl Fn(f64) -> String, y_text: impl Fn(f64) -> String) {
        self.fill_table(xs, series, &x_text, &y_text);
        let width = self.root.parent_element().map_or(0.0, |e| e.client_width() as f64);
        let w = if width > 0.0 { width.min(520.0) } else { 360.0 };
        let h = 240.0;
        let (left, right, top, bottom) = (54.0, 14.0, 12.0, 52.0);
        let Some(ctx) = super::prepare_canvas(&self.canvas, w, h) else { return };
        let dark = dom::prefers_dark();
        let ink = if dark { "#c9d1d9" } else { "#24292f" };
        let grid = if dark { "#30363d" } else { "#d0d7de" };
        let tx = |x: f64| if axes.log_x { x.max(1e-300).log10() } else { x };
        let ty = |y: f64| if axes.log_y { y.max(1e-300).log10() } else { y };
        let finite_y: Vec<f64> = series.iter().flat_map(|s| s.values.iter().copied()).filter(|v| v.is_finite() && (!axes.log_y || *v > 0.0)).map(ty).collect();
        let (mut y0, mut y1) = match axes.y_range {
            Some((a, b)) => (ty(a), ty(b)),
            None => (finite_y.iter().copied().fold(f64::INFINITY, f64::min), finite_y.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
        };
        if !(y0.is_finite() && y1.is_finite()) {
            (y0, y1) = (0.0, 1.0);
        }
        if y1 - y0 < 1e-9 {
            y1 = y0 + 1.0;
        }
        // Log axes run between whole powers of ten, so their ends read 10ⁿ.
        if axes.log_y {
            (y0, y1) = (y0.floor(), y1.ceil().max(y0.floor() + 1.0));
        }
        let x_min = xs.iter().copied().map(tx).fold(f64::INFINITY, f64::min);
        let x_max = xs.iter().copied().map(tx).fold(f64::NEG_INFINITY, f64::max);
        let (mut x0, mut x1) = if x_max > x_min { (x_min, x_max) } else { (x_min - 1.0, x_min + 1.0) };
        if axes.log_x {
            (x0, x1) = (x0.floor(), x1.ceil().max(x0.floor() + 1.0));
        }
        let px = |x: f64| left + (w - left - right) * (tx(x) - x0) / (x1 - x0);
        let py = |y: f64| top + (h - top - bottom) * (1.0 - (ty(y) - y0) / (y1 - y0));

        // Axes with the extremes written, and labels.
        ctx.set_stroke_style_str(grid);
        ctx.set_line_width(1.0);
        ctx.stroke_rect(left, top, w - left - right, h - top - bottom);
        ctx.set_font("11px system-ui, sans-serif");
        ctx.set_fill_style_str(ink);
        ctx.set_text_baseline("middle");
        ctx.set_text_align("right");
        let y_tick = |v: f64| if axes.log_y { power_of_ten(v.round() as i32) } else { format_pt_short(v as f32, 2) };
        let _ = ctx.fill_text(&y_tick(y1), left - 4.0, top + 4.0);
        let _ = ctx.fill_text(&y_tick(y0), left - 4.0, h - bottom - 2.0);
        ctx.set_text_align("center");
        let x_tick = |v: f64| if axes.log_x { power_of_ten(v.round() as i32) } else { format_pt_short(v as f32, 2) };
        let _ = ctx.fill_text(&x_tick(x0), left, h - bottom + 10.0);
        let _ = ctx.fill_text(&x_tick(x1), w - right, h - bottom + 10.0);
        let _ = ctx.fill_text(&axes.x_label, left + (w - left - right) / 2.0, h - bottom + 10.0);
        ctx.save();
        let _ = ctx.translate(12.0, top + (h - top - bottom) / 2.0);
        let _ = ctx.rotate(-std::f64::consts::FRAC_PI_2);
        let _ = ctx.fill_text(&axes.y_label, 0.0, 0.0);
        ctx.restore();

        let colors = if dark { COLORS_DARK } else { COLORS_LIGHT };
        for (k, s) in series.iter().enumerate() {
            let c = colors[k % colors.len()];
            ctx.set_stroke_style_str(c);
            ctx.set_fill_style_str(c);
            ctx.set_line_width(2.0);
            let dash = js_sys::Array::new();
            if s.dashed {
                dash.push(&6.0.into());
                dash.push(&4.0.into());
            }
            let _ = ctx.set_line_dash(&dash);
            ctx.begin_path();
            let mut drawing = false;
            for (&x, &y) in xs.iter().zip(&s.values) {
                let visible = y.is_finite() && (!axes.log_y || y > 0.0) && (!axes.log_x || x > 0.0);
                if !visible {
                    drawing = false;
                    continue;
                }
                let (a, b) = (px(x), py(y).clamp(top - 2.0, h - bottom + 2.0));
                if drawing {
                    ctx.line_to(a, b);
                } else {
                    ctx.move_to(a, b);
                }
                drawing = true;
            }
            ctx.stroke();
            let _ = ctx.set_line_dash(&js_sys::Array::new());
            if s.dots {
                for (&x, &y) in xs.iter().zip(&s.values) {
                    if y.is_finite() && (!axes.log_y || y > 0.0) {
                        ctx.begin_path();
                        let _ = ctx.arc(px(x), py(y), 2.5, 0.0, std::f64::consts::TAU);
                        ctx.fill();
                    }
                }
            }
            // Legend under the plot, one entry per series.
            let lx = left + (k % 2) as f64 * (w - left - right) / 2.0;
            let ly = h - bottom + 26.0 + (k / 2) as f64 * 14.0;
            ctx.begin_path();
            if s.dashed {
                let dash = js_sys::Array::new();
                dash.push(&4.0.into());
                dash.push(&3.0.into());
                let _ = ctx.set_line_dash(&dash);
            }
            ctx.move_to(lx, ly);
            ctx.line_to(lx + 18.0, ly);
            ctx.stroke();
            let _ = ctx.set_line_dash(&js_sys::Array::new());
            ctx.set_fill_style_str(ink);
            ctx.set_text_align("left");
            let _ = ctx.fill_text(&s.label, lx + 22.0, ly);
        }
    }

    fn fill_table(&self, xs: &[f64], series: &[Series], x_text: &impl Fn(f64) -> String, y_text: &impl Fn(f64) -> String) {
        self.table.set_text_content(None);
        dom::append(&self.table, &dom::text("caption", "", &self.title));
        let head = dom::el("tr", "");
        dom::append(&head, &dom::el("th", ""));
        for s in series {
            let th = dom::text("th", "", &s.label);
            dom::set_attr(&th, "scope", "col");
            dom::append(&head, &th);
        }
        dom::append(&self.table, &head);
        for (i, &x) in xs.iter().enumerate().take(500) {
            let tr = dom::el("tr", "");
            let th = dom::text("th", "", &x_text(x));
            dom::set_attr(&th, "scope", "row");
            dom::append(&tr, &th);
            for s in series {
                let v = s.values.get(i).copied().unwrap_or(f64::NAN);
                dom::append(&tr, &dom::text("td", "", &y_text(v)));
            }
            dom::append(&self.table, &tr);
        }
    }
}

