//! The kit's line plot: several series over the same x values, linear or log axes (or the
//! fixed 0–1 axis of probabilities), gridlines with their values (whole numbers on an x axis
//! that counts), a legend under the plot, a typeset title, colours from the page's theme, and
//! its table twin: one row per x, one column per series, the very numbers drawn.
//!
//! ```ignore
//! let plot = LinePlot::new("convergence", "P(sol no dia k)");
//! let axes = Axes::new("dia k", "P(sol)").probabilities();
//! plot.update(&xs, &[Series::line("começando com sol", ys).dots()], &axes, |x| format!("dia {x}"), |y| format_pt(y as f32, 4));
//! ```

use std::cell::RefCell;

use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlElement};

use crate::core::format::{axis_ticks, format_pt_short};
use crate::core::format::power_of_ten;
use crate::site::notation::plain;

use crate::web::dom;

use super::canvas::{available_width, prepare_canvas};
use super::twin;

/// Rows the twin lists before it stops (a plot of thousands of points stays readable).
const MAX_TWIN_ROWS: usize = 500;
/// Plot height in CSS pixels, without the legend.
const PLOT_HEIGHT: f64 = 220.0;
/// Height of one legend line.
const LEGEND_LINE: f64 = 16.0;

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

impl Series {
    /// A solid line without dots.
    pub fn line(label: impl Into<String>, values: Vec<f64>) -> Series {
        Series { label: label.into(), values, dashed: false, dots: false }
    }

    /// Drawn dashed: a reference curve.
    pub fn dashed(mut self) -> Series {
        self.dashed = true;
        self
    }

    /// A dot on every point: measured values.
    pub fn dots(mut self) -> Series {
        self.dots = true;
        self
    }
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

impl Axes {
    /// Linear axes that fit the data.
    pub fn new(x_label: impl Into<String>, y_label: impl Into<String>) -> Axes {
        Axes { x_label: x_label.into(), y_label: y_label.into(), log_x: false, log_y: false, y_range: None }
    }

    pub fn log_x(mut self) -> Axes {
        self.log_x = true;
        self
    }

    pub fn log_y(mut self) -> Axes {
        self.log_y = true;
        self
    }

    /// A fixed y range.
    pub fn y_range(mut self, lo: f64, hi: f64) -> Axes {
        self.y_range = Some((lo, hi));
        self
    }

    /// Probabilities: the y axis runs from 0 to 1, whatever the data.
    pub fn probabilities(self) -> Axes {
        self.y_range(0.0, 1.0)
    }
}

pub struct LinePlot {
    pub root: HtmlElement,
    heading: HtmlElement,
    canvas: HtmlCanvasElement,
    table: HtmlElement,
    /// The title without its notation marks (the canvas's label and the twin's caption).
    title: RefCell<String>,
}

/// Line colours (light, dark), told apart by more than hue: dashed series are references.
const COLORS: [(&str, &str); 5] = [("#0b5cad", "#58a6ff"), ("#c2410c", "#fb923c"), ("#1a7f37", "#3fb950"), ("#8250df", "#bc8cff"), ("#bf3989", "#f778ba")];

/// Width of `text` at the plot's 11 px font, before a canvas exists to measure it.
fn text_width(text: &str) -> f64 {
    text.chars().count() as f64 * 6.2
}

/// Ticks of an axis between `lo` and `hi` (already in log10 on a log axis): every power of
/// ten on a log axis (thinned to at most 6), else round values (`core::format::axis_ticks`).
fn ticks(lo: f64, hi: f64, log: bool) -> Vec<f64> {
    if log {
        let (first, last) = (lo.round() as i32, hi.round() as i32);
        let every = ((last - first) / 5 + 1).max(1);
        return (first..=last).filter(|e| (e - first) % every == 0 || *e == last).map(f64::from).collect();
    }
    axis_ticks(lo, hi, false)
}

impl LinePlot {
    /// `key` names the figure (`data-plot`) and its twin (`data-matrix`); `title` is shown with
    /// its notation typeset (`W^Q`, `d_k`).
    pub fn new(key: &str, title: &str) -> LinePlot {
        let (root, heading, canvas) = super::canvas::canvas_figure("mv plot", Some(("data-plot", key)), title);
        dom::set_attr(&canvas, "aria-label", &plain(title));
        // Named both ways: as the numbers of a plot and as a matrix of x × series.
        let table = twin::table("data-matrix", key);
        dom::set_attr(&table, "data-plot", key);
        dom::append(&root, &table);
        LinePlot { root, heading, canvas, table, title: RefCell::new(plain(title)) }
    }

    /// Replaces the title (typeset); the next `update` writes it into the twin.
    pub fn set_title(&self, title: &str) {
        dom::set_notation(&self.heading, title);
        dom::set_attr(&self.canvas, "aria-label", &plain(title));
        *self.title.borrow_mut() = plain(title);
    }

    /// Draws `series` over `xs`; `x_text` writes an x value in the twin's row labels and
    /// `y_text` a value in its cells.
    pub fn update(&self, xs: &[f64], series: &[Series], axes: &Axes, x_text: impl Fn(f64) -> String, y_text: impl Fn(f64) -> String) {
        self.draw(xs, series, axes, &x_text, &y_text);
    }

    /// `update` behind one signature: its closures as trait objects, so the wasm holds one
    /// copy of the drawing instead of one per caller (ten of them, 2–3 KB gzipped).
    fn draw(&self, xs: &[f64], series: &[Series], axes: &Axes, x_text: &dyn Fn(f64) -> String, y_text: &dyn Fn(f64) -> String) {
        self.fill_table(xs, series, x_text, y_text);
        let dark = dom::dark_at(&self.root);
        let w = available_width(&self.root).min(560.0);
        let tx = |x: f64| if axes.log_x { x.max(1e-300).log10() } else { x };
        let ty = |y: f64| if axes.log_y { y.max(1e-300).log10() } else { y };

        // The y range: fixed, or the data's; log axes run between whole powers of ten.
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
        if axes.log_y {
            (y0, y1) = (y0.floor(), y1.ceil().max(y0.floor() + 1.0));
        }
        let x_min = xs.iter().copied().map(tx).fold(f64::INFINITY, f64::min);
        let x_max = xs.iter().copied().map(tx).fold(f64::NEG_INFINITY, f64::max);
        let (mut x0, mut x1) = if x_max > x_min { (x_min, x_max) } else { (x_min - 1.0, x_min + 1.0) };
        if !(x0.is_finite() && x1.is_finite()) {
            (x0, x1) = (0.0, 1.0);
        }
        if axes.log_x {
            (x0, x1) = (x0.floor(), x1.ceil().max(x0.floor() + 1.0));
        }

        // As many places as the ticks' step needs (0,05 apart: two), so no two read alike.
        let places = |ticks: &[f64]| match ticks {
            [a, b, ..] => (-(b - a).log10().floor()).clamp(0.0, 6.0) as usize,
            _ => 2,
        };
        let tick_text = |v: f64, log: bool, places: usize| if log { power_of_ten(v.round() as i32) } else { format_pt_short(v as f32, places) };
        let y_ticks = ticks(y0, y1, axes.log_y);
        let y_places = places(&y_ticks);
        let widest_tick = y_ticks.iter().map(|&v| text_width(&tick_text(v, axes.log_y, y_places))).fold(0.0, f64::max);
        let (left, right, top) = (widest_tick + 26.0, 16.0, 10.0);
        // The legend flows under the plot, wrapping where the canvas ends.
        let mut legend = Vec::with_capacity(series.len());
        let (mut lx, mut line) = (left, 0usize);
        for s in series {
            let entry = 26.0 + text_width(&s.label) + 16.0;
            if lx > left && lx + entry > w - right {
                (lx, line) = (left, line + 1);
            }
            legend.push((lx, line));
            lx += entry;
        }
        let legend_lines = if series.is_empty() { 0 } else { line + 1 };
        let h = PLOT_HEIGHT + LEGEND_LINE * legend_lines as f64;
        let bottom = h - PLOT_HEIGHT + 40.0;
        let Some(ctx) = prepare_canvas(&self.canvas, w, h) else { return };
        let ink = if dark { "#c9d1d9" } else { "#24292f" };
        let grid = if dark { "#30363d" } else { "#d0d7de" };
        let plot_w = w - left - right;
        let plot_h = h - top - bottom;
        let px = |x: f64| left + plot_w * (tx(x) - x0) / (x1 - x0);
        let py = |y: f64| top + plot_h * (1.0 - (ty(y) - y0) / (y1 - y0));

        // Gridlines with their values, the frame, the axis names.
        ctx.set_font("11px system-ui, sans-serif");
        ctx.set_line_width(1.0);
        ctx.set_stroke_style_str(grid);
        ctx.set_fill_style_str(ink);
        ctx.set_text_baseline("middle");
        ctx.set_text_align("right");
        for &v in &y_ticks {
            let y = top + plot_h * (1.0 - (v - y0) / (y1 - y0));
            ctx.begin_path();
            ctx.move_to(left, y);
            ctx.line_to(w - right, y);
            ctx.stroke();
            let _ = ctx.fill_text(&tick_text(v, axes.log_y, y_places), left - 5.0, y);
        }
        ctx.stroke_rect(left, top, plot_w, plot_h);
        ctx.set_text_align("center");
        // An x axis of whole numbers only (steps, days, tokens) gets whole ticks.
        let counts = !axes.log_x && !xs.is_empty() && xs.iter().all(|x| x.fract() == 0.0);
        let x_ticks = if counts { axis_ticks(x0, x1, true) } else { ticks(x0, x1, axes.log_x) };
        let x_places = places(&x_ticks);
        for &v in &x_ticks {
            let x = left + plot_w * (v - x0) / (x1 - x0);
            let _ = ctx.fill_text(&tick_text(v, axes.log_x, x_places), x, top + plot_h + 10.0);
        }
        let _ = ctx.fill_text(&axes.x_label, left + plot_w / 2.0, top + plot_h + 26.0);
        ctx.save();
        let _ = ctx.translate(9.0, top + plot_h / 2.0);
        let _ = ctx.rotate(-std::f64::consts::FRAC_PI_2);
        let _ = ctx.fill_text(&axes.y_label, 0.0, 0.0);
        ctx.restore();

        for (k, (s, &(lx, line))) in series.iter().zip(&legend).enumerate() {
            let (light, night) = COLORS[k % COLORS.len()];
            let color = if dark { night } else { light };
            ctx.set_stroke_style_str(color);
            ctx.set_fill_style_str(color);
            ctx.set_line_width(2.0);
            set_dash(&ctx, if s.dashed { &[6.0, 4.0] } else { &[] });
            ctx.begin_path();
            let mut drawing = false;
            for (&x, &y) in xs.iter().zip(&s.values) {
                let visible = y.is_finite() && (!axes.log_y || y > 0.0) && (!axes.log_x || x > 0.0);
                if !visible {
                    drawing = false;
                    continue;
                }
                let (a, b) = (px(x), py(y).clamp(top - 2.0, top + plot_h + 2.0));
                if drawing {
                    ctx.line_to(a, b);
                } else {
                    ctx.move_to(a, b);
                }
                drawing = true;
            }
            ctx.stroke();
            set_dash(&ctx, &[]);
            if s.dots {
                for (&x, &y) in xs.iter().zip(&s.values) {
                    if y.is_finite() && (!axes.log_y || y > 0.0) && (!axes.log_x || x > 0.0) {
                        ctx.begin_path();
                        let _ = ctx.arc(px(x), py(y), 2.5, 0.0, std::f64::consts::TAU);
                        ctx.fill();
                    }
                }
            }
            // Its legend entry: a sample of the line (dashed or not), then the label.
            let ly = h - LEGEND_LINE * (legend_lines - line) as f64 + LEGEND_LINE / 2.0 - 2.0;
            set_dash(&ctx, if s.dashed { &[4.0, 3.0] } else { &[] });
            ctx.begin_path();
            ctx.move_to(lx, ly);
            ctx.line_to(lx + 20.0, ly);
            ctx.stroke();
            set_dash(&ctx, &[]);
            ctx.set_fill_style_str(ink);
            ctx.set_text_align("left");
            let _ = ctx.fill_text(&s.label, lx + 26.0, ly);
        }
    }

    fn fill_table(&self, xs: &[f64], series: &[Series], x_text: &dyn Fn(f64) -> String, y_text: &dyn Fn(f64) -> String) {
        let cols: Vec<String> = series.iter().map(|s| s.label.clone()).collect();
        let rows = xs.iter().enumerate().take(MAX_TWIN_ROWS).map(|(i, &x)| {
            (x_text(x), series.iter().map(|s| y_text(s.values.get(i).copied().unwrap_or(f64::NAN))).collect())
        });
        twin::fill(&self.table, &self.title.borrow(), "", &cols, rows);
    }
}

fn set_dash(ctx: &CanvasRenderingContext2d, pattern: &[f64]) {
    let dash = js_sys::Array::new();
    for &d in pattern {
        dash.push(&d.into());
    }
    let _ = ctx.set_line_dash(&dash);
}
