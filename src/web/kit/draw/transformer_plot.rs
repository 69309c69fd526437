//! Three small drawings the Transformer widgets need beyond `MatrixView` and `BarView`, each
//! with its table twin (hidden until "ver números"): a line plot, a histogram and a dense
//! heatmap (one pixel block per cell, for tables too large to print numbers in).

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlElement};

use crate::core::format::{format_pt, format_pt_short};
use crate::core::Matrix;

use crate::web::dom;
use crate::web::kit::draw::heatmap::{draw_legend, legend_element};
use crate::web::kit::draw::{available_width, fill, prepare_canvas, Scale};

/// Series colours: blue and orange, distinguishable without colour too (solid vs dashed).
const SERIES: [(&str, &str); 2] = [("#0b5cad", "#58a6ff"), ("#c2410c", "#f0883e")];

fn theme() -> (bool, &'static str, &'static str) {
    let dark = dom::prefers_dark();
    (dark, if dark { "#c9d1d9" } else { "#444c56" }, if dark { "#30363d" } else { "#d1d9e0" })
}

fn figure(kind_attr: &str, key: &str) -> (HtmlElement, HtmlElement, HtmlCanvasElement, HtmlElement) {
    let root = dom::el("figure", "mv plot");
    dom::set_attr(&root, kind_attr, key);
    let title = dom::el("figcaption", "mv-title");
    dom::append(&root, &title);
    let canvas = dom::el("canvas", "mv-canvas").unchecked_into::<HtmlCanvasElement>();
    dom::set_attr(&canvas, "role", "img");
    dom::append(&root, &canvas);
    let table = dom::el("table", "twin");
    dom::set_attr(&table, kind_attr, key);
    table.set_hidden(true);
    dom::append(&root, &table);
    (root, title, canvas, table)
}

fn table_header(table: &HtmlElement, caption: &str, heads: &[String]) {
    table.set_text_content(None);
    dom::append(table, &dom::text("caption", "", caption));
    let tr = dom::el("tr", "");
    for h in heads {
        let th = dom::text("th", "", h);
        dom::set_attr(&th, "scope", "col");
        dom::append(&tr, &th);
    }
    dom::append(table, &tr);
}

fn table_row(table: &HtmlElement, head: &str, cells: &[String]) {
    let tr = dom::el("tr", "");
    let th = dom::text("th", "", head);
    dom::set_attr(&th, "scope", "row");
    dom::append(&tr, &th);
    for c in cells {
        dom::append(&tr, &dom::text("td", "", c));
    }
    dom::append(table, &tr);
}

/// One named series of y values.
pub struct Series<'a> {
    pub name: &'a str,
    pub values: &'a [f32],
}

/// A line plot of one or two series against labelled x positions (`data-plot=key`).
pub struct LinePlot {
    pub root: HtmlElement,
    title: HtmlElement,
    canvas: HtmlCanvasElement,
    table: HtmlElement,
}

impl LinePlot {
    pub fn new(key: &str) -> LinePlot {
        let (root, title, canvas, table) = figure("data-plot", key);
        LinePlot { root, title, canvas, table }
    }

    /// `x_labels[i]` names point i; `y_range` fixes the axis (else it fits the data, with 0).
    pub fn update(&self, title: &str, x_name: &str, x_labels: &[String], series: &[Series], y_range: Option<(f32, f32)>) {
        self.title.set_text_content(Some(title));
        dom::set_attr(&self.canvas, "aria-label", title);
        let mut heads = vec![x_name.to_string()];
        heads.extend(series.iter().map(|s| s.name.to_string()));
        table_header(&self.table, title, &heads);
        for (i, x) in x_labels.iter().enumerate() {
            let cells: Vec<String> = series.iter().map(|s| s.values.get(i).map_or(String::new(), |v| format_pt(*v, 4))).collect();
            table_row(&self.table, x, &cells);
        }

        let (dark, ink, grid) = theme();
        let (w, h) = ((available_width(&self.root) - 8.0).clamp(260.0, 560.0), 220.0);
        let Some(ctx) = prepare_canvas(&self.canvas, w, h) else { return };
        let (left, right, top, bottom) = (48.0, 22.0, 26.0, 34.0);
        let finite = series.iter().flat_map(|s| s.values.iter().copied()).filter(|v| v.is_finite());
        let (lo, hi) = y_range.unwrap_or_else(|| finite.fold((0.0f32, 0.0f32), |(a, b), v| (a.min(v), b.max(v))));
        let hi = if hi - lo < 1e-9 { lo + 1.0 } else { hi };
        let n = x_labels.len().max(2);
        let px = |i: usize| left + (w - left - right) * i as f64 / (n - 1) as f64;
        let py = |v: f32| top + (h - top - bottom) * (1.0 - ((v - lo) / (hi - lo)) as f64);
        ctx.set_font("11px system-ui, sans-serif");
        ctx.set_line_width(1.0);
        ctx.set_stroke_style_str(grid);
        ctx.set_fill_style_str(ink);
        ctx.set_text_baseline("middle");
        ctx.set_text_align("right");
        for step in 0..=4 {
            let v = lo + (hi - lo) * step as f32 / 4.0;
            let y = py(v);
            ctx.begin_path();
            ctx.move_to(left, y);
            ctx.line_to(w - right, y);
            ctx.stroke();
            let _ = ctx.fill_text(&format_pt_short(v, 2), left - 6.0, y);
        }
        ctx.set_text_align("center");
        let every = (x_labels.len() / 8).max(1);
        for (i, label) in x_labels.iter().enumerate().filter(|(i, _)| i % every == 0) {
            let _ = ctx.fill_text(label, px(i), h - bottom + 14.0);
        }
        let _ = ctx.fill_text(x_name, (left + w - right) / 2.0, h - 8.0);
        for (s, data) in series.iter().enumerate() {
            let (light, night) = SERIES[s % SERIES.len()];
            let stroke = if dark { night } else { light };
            ctx.set_stroke_style_str(stroke);
            ctx.set_fill_style_str(stroke);
            ctx.set_line_width(2.0);
            let dash = js_sys::Array::new();
            if s == 1 {
                dash.push(&6.0.into());
                dash.push(&4.0.into());
            }
            let _ = ctx.set_line_dash(&dash);
            ctx.begin_path();
            for (i, v) in data.values.iter().enumerate().filter(|(_, v)| v.is_finite()) {
                if i == 0 { ctx.move_to(px(i), py(*v)) } else { ctx.line_to(px(i), py(*v)) }
            }
            ctx.stroke();
            let _ = ctx.set_line_dash(&js_sys::Array::new());
            for (i, v) in data.values.iter().enumerate().filter(|(_, v)| v.is_finite()) {
                ctx.begin_path();
                let _ = ctx.arc(px(i), py(*v), 2.5, 0.0, std::f64::consts::TAU);
                ctx.fill();
            }
            // Legend, top left, one entry per series.
            let lx = left + 8.0 + s as f64 * 170.0;
            ctx.fill_rect(lx, 8.0, 14.0, 3.0);
            ctx.set_fill_style_str(ink);
            ctx.set_text_align("left");
            let _ = ctx.fill_text(data.name, lx + 20.0, 10.0);
        }
    }
}

/// A histogram of counts over labelled bins (`data-plot=key`).
pub struct Histogram {
    pub root: HtmlElement,
    title: HtmlElement,
    canvas: HtmlCanvasElement,
    table: HtmlElement,
}

impl Histogram {
    pub fn new(key: &str) -> Histogram {
        let (root, title, canvas, table) = figure("data-plot", key);
        Histogram { root, title, canvas, table }
    }

    /// `range` labels the two ends of the axis.
    pub fn update(&self, title: &str, bin_labels: &[String], counts: &[usize], range: (&str, &str)) {
        self.title.set_text_content(Some(title));
        dom::set_attr(&self.canvas, "aria-label", title);
        table_header(&self.table, title, &["intervalo".to_string(), "quantidade".to_string()]);
        for (label, count) in bin_labels.iter().zip(counts) {
            table_row(&self.table, label, &[count.to_string()]);
        }
        let (dark, ink, _) = theme();
        let (w, h) = (((available_width(&self.root) - 16.0) / 2.0).clamp(220.0, 300.0), 150.0);
        let Some(ctx) = prepare_canvas(&self.canvas, w, h) else { return };
        let (left, bottom, top) = (6.0, 22.0, 8.0);
        let max = counts.iter().copied().max().unwrap_or(1).max(1) as f64;
        let bar = (w - 2.0 * left) / counts.len().max(1) as f64;
        let fill = fill(false, 0.75, dark);
        ctx.set_fill_style_str(&fill);
        for (i, &count) in counts.iter().enumerate() {
            let bh = (h - top - bottom) * count as f64 / max;
            ctx.fill_rect(left + bar * i as f64 + 1.0, h - bottom - bh, (bar - 2.0).max(1.0), bh);
        }
        ctx.set_fill_style_str(ink);
        ctx.set_font("11px system-ui, sans-serif");
        ctx.set_text_baseline("middle");
        ctx.set_text_align("left");
        let _ = ctx.fill_text(range.0, left, h - bottom / 2.0);
        ctx.set_text_align("center");
        let _ = ctx.fill_text("0", w / 2.0, h - bottom / 2.0);
        ctx.set_text_align("right");
        let _ = ctx.fill_text(range.1, w - left, h - bottom / 2.0);
    }
}

/// A heatmap with one filled block per cell and no printed numbers (`data-matrix=key` twin),
/// for tables up to 128 × 128.
pub struct DenseHeatmap {
    pub root: HtmlElement,
    title: HtmlElement,
    canvas: HtmlCanvasElement,
    legend: HtmlElement,
    table: HtmlElement,
    scale: Scale,
}

impl DenseHeatmap {
    /// Values on `scale` (its domain, legend and `data-domain`, as every heatmap).
    pub fn new(key: &str, scale: Scale) -> DenseHeatmap {
        let (root, title, canvas, table) = figure("data-matrix", key);
        let legend = legend_element();
        let _ = table.before_with_node_1(&legend);
        DenseHeatmap { root, title, canvas, legend, table, scale }
    }

    /// Rows are drawn top to bottom, columns left to right.
    pub fn update(&self, title: &str, m: &Matrix, row_name: &str, col_name: &str) {
        self.title.set_text_content(Some(title));
        dom::set_attr(&self.canvas, "aria-label", &format!("{title}: {} {row_name} × {} {col_name}", m.rows(), m.cols()));
        let heads: Vec<String> = std::iter::once(String::new()).chain((0..m.cols()).map(|j| j.to_string())).collect();
        table_header(&self.table, title, &heads);
        for r in 0..m.rows() {
            let cells: Vec<String> = m.row(r).iter().map(|v| format_pt(*v, 4)).collect();
            table_row(&self.table, &r.to_string(), &cells);
        }
        let (dark, ink, _) = theme();
        let (left, top) = (44.0, 20.0);
        let room = (available_width(&self.root) - left - 12.0).clamp(200.0, 520.0);
        let cell_w = (room / m.cols().max(1) as f64).clamp(2.0, 40.0);
        let cell_h = (320.0 / m.rows().max(1) as f64).clamp(2.0, 28.0);
        let (w, h) = (left + cell_w * m.cols() as f64 + 8.0, top + cell_h * m.rows() as f64 + 22.0);
        let Some(ctx) = prepare_canvas(&self.canvas, w, h) else { return };
        let domain = self.scale.domain(m.as_slice());
        dom::set_attr(&self.root, "data-domain", &domain.attr());
        draw_legend(&self.legend, &domain, dark);
        for r in 0..m.rows() {
            for c in 0..m.cols() {
                let rgb = fill(domain.diverging, domain.position(m.get(r, c)), dark);
                ctx.set_fill_style_str(&rgb);
                ctx.fill_rect(left + cell_w * c as f64, top + cell_h * r as f64, cell_w + 0.5, cell_h + 0.5);
            }
        }
        axis_labels(&ctx, ink, left, top, cell_w, cell_h, m.rows(), m.cols());
        ctx.set_text_align("left");
        let _ = ctx.fill_text(&format!("colunas: {col_name} →   linhas: {row_name} ↓"), left, h - 8.0);
    }
}

/// Tick labels every few rows and columns (first, last and evenly between).
#[allow(clippy::too_many_arguments)]
fn axis_labels(ctx: &CanvasRenderingContext2d, ink: &str, left: f64, top: f64, cw: f64, ch: f64, rows: usize, cols: usize) {
    ctx.set_fill_style_str(ink);
    ctx.set_font("10px system-ui, sans-serif");
    ctx.set_text_baseline("middle");
    ctx.set_text_align("right");
    let step_r = ((14.0 / ch).ceil() as usize).max(1);
    for r in (0..rows).step_by(step_r) {
        let _ = ctx.fill_text(&r.to_string(), left - 4.0, top + ch * (r as f64 + 0.5));
    }
    ctx.set_text_align("center");
    let step_c = ((22.0 / cw).ceil() as usize).max(1);
    for c in (0..cols).step_by(step_c) {
        let _ = ctx.fill_text(&c.to_string(), left + cw * (c as f64 + 0.5), top - 8.0);
    }
}
