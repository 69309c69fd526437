//! Two small drawings the Transformer widgets need beyond `MatrixView`, `BarView` and the line
//! plot, each with its table twin (hidden until "ver números"): a histogram, and a dense
//! heatmap (one pixel block per cell, for tables too large to print numbers in).

use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlElement};

use crate::core::format::format_pt;
use crate::core::Matrix;

use crate::web::dom;
use crate::web::kit::draw::heatmap::{draw_legend, legend_element};
use crate::web::kit::draw::{available_width, fill, prepare_canvas, twin, Scale};

/// Label and axis ink in the theme of `element`.
fn ink(element: &HtmlElement) -> (bool, &'static str) {
    let dark = dom::dark_at(element);
    (dark, if dark { "#c9d1d9" } else { "#444c56" })
}

/// A figure `attr=key` with a title, a canvas and its twin `<table attr=key>`.
fn figure(attr: &str, key: &str) -> (HtmlElement, HtmlElement, HtmlCanvasElement, HtmlElement) {
    let (root, title, canvas) = super::canvas::canvas_figure("mv plot", Some((attr, key)), "");
    let table = twin::table(attr, key);
    dom::append(&root, &table);
    (root, title, canvas, table)
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
        dom::set_notation(&self.title, title);
        let plain = crate::site::notation::plain(title);
        dom::set_attr(&self.canvas, "aria-label", &plain);
        let rows = bin_labels.iter().zip(counts).map(|(label, count)| (label.clone(), vec![count.to_string()]));
        twin::fill(&self.table, &plain, "intervalo", &["quantidade".to_string()], rows);
        let (dark, ink) = ink(&self.root);
        let (w, h) = (((available_width(&self.root) - 16.0) / 2.0).clamp(220.0, 300.0), 150.0);
        let Some(ctx) = prepare_canvas(&self.canvas, w, h) else { return };
        let (left, bottom, top) = (6.0, 22.0, 8.0);
        let max = counts.iter().copied().max().unwrap_or(1).max(1) as f64;
        let bar = (w - 2.0 * left) / counts.len().max(1) as f64;
        ctx.set_fill_style_str(&fill(false, 0.75, dark));
        for (i, &count) in counts.iter().enumerate() {
            let bh = (h - top - bottom) * count as f64 / max;
            ctx.fill_rect(left + bar * i as f64 + 1.0, h - bottom - bh, (bar - 2.0).max(1.0), bh);
        }
        ctx.set_fill_style_str(ink);
        ctx.set_font("11px system-ui, sans-serif");
        ctx.set_text_baseline("middle");
        for (align, x, text) in [("left", left, range.0), ("center", w / 2.0, "0"), ("right", w - left, range.1)] {
            ctx.set_text_align(align);
            let _ = ctx.fill_text(text, x, h - bottom / 2.0);
        }
    }
}

/// A heatmap with one filled block per cell and no printed numbers (`data-matrix=key` twin),
/// for tables up to 128 × 128. Its colour domain, legend and `data-domain` are those of every
/// heatmap (`Scale`).
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
        self.update_with(title, m, row_name, col_name, true);
    }

    /// `update`, with the table twin filled only when `twin` is set: a map that changes
    /// several times a second (a model training) fills its thousands of cells when it stops,
    /// not at each change (at 64 × 64 that took most of a frame on a slow phone). A stale twin
    /// says so (`data-stale`).
    pub fn update_with(&self, title: &str, m: &Matrix, row_name: &str, col_name: &str, twin: bool) {
        dom::set_notation(&self.title, title);
        let plain = crate::site::notation::plain(title);
        dom::set_attr(&self.canvas, "aria-label", &format!("{plain}: {} {row_name} × {} {col_name}", m.rows(), m.cols()));
        let index = |n: usize| (0..n).map(|i| i.to_string()).collect::<Vec<_>>();
        if twin {
            twin::fill(&self.table, &plain, "", &index(m.cols()), twin::matrix_rows(m, &index(m.rows()), |r, c| format_pt(m.get(r, c), 4)));
            let _ = self.table.remove_attribute("data-stale");
        } else {
            dom::set_attr(&self.table, "data-stale", "true");
        }
        let (dark, ink) = ink(&self.root);
        let (left, top) = (44.0, 20.0);
        let room = (available_width(&self.root) - left - 12.0).clamp(200.0, 520.0);
        let cell_w = (room / m.cols().max(1) as f64).clamp(2.0, 40.0);
        let cell_h = (320.0 / m.rows().max(1) as f64).clamp(2.0, 28.0);
        let (w, h) = (left + cell_w * m.cols() as f64 + 8.0, top + cell_h * m.rows() as f64 + 22.0);
        let Some(ctx) = prepare_canvas(&self.canvas, w, h) else { return };
        let domain = self.scale.domain(m.as_slice());
        dom::set_attr(&self.root, "data-domain", &domain.attr());
        draw_legend(&self.legend, &domain, dark);
        paint_cells(&ctx, m, (left, top), (cell_w, cell_h), |v| crate::site::palette::rgb(domain.diverging, domain.position(v), dark));
        axis_labels(&ctx, ink, (left, top), (cell_w, cell_h), m.rows(), m.cols());
        ctx.set_text_align("left");
        let _ = ctx.fill_text(&format!("colunas: {col_name} →   linhas: {row_name} ↓"), left, h - 8.0);
    }
}

/// The cells of `m` as one image at the canvas's own pixels (`origin` and `size` in CSS
/// pixels): one colour per cell computed here, then one `putImageData`, where a style and a
/// rectangle per cell (4 096 of each for a 64 × 64 map, the colour parsed from text each time)
/// took most of a frame on a slow phone while a model trained.
fn paint_cells(ctx: &CanvasRenderingContext2d, m: &Matrix, origin: (f64, f64), size: (f64, f64), colour: impl Fn(f32) -> [u8; 3]) {
    let dpr = dom::window().map_or(1.0, |w| w.device_pixel_ratio()).max(1.0);
    let (rows, cols) = (m.rows(), m.cols());
    let (x0, y0) = ((origin.0 * dpr).round(), (origin.1 * dpr).round());
    let (w, h) = ((size.0 * cols as f64 * dpr).round() as usize, (size.1 * rows as f64 * dpr).round() as usize);
    if w == 0 || h == 0 {
        return;
    }
    let colours: Vec<[u8; 3]> = m.as_slice().iter().map(|&v| colour(v)).collect();
    let column_of: Vec<usize> = (0..w).map(|x| (x * cols / w).min(cols - 1)).collect();
    let mut pixels = vec![0u8; w * h * 4];
    for (y, line) in pixels.chunks_exact_mut(w * 4).enumerate() {
        let r = (y * rows / h).min(rows - 1);
        for (pixel, &c) in line.chunks_exact_mut(4).zip(&column_of) {
            pixel[..3].copy_from_slice(&colours[r * cols + c]);
            pixel[3] = 255;
        }
    }
    if let Ok(image) = web_sys::ImageData::new_with_u8_clamped_array_and_sh(wasm_bindgen::Clamped(&pixels), w as u32, h as u32) {
        let _ = ctx.put_image_data(&image, x0, y0);
    }
}

/// Tick labels every few rows and columns (first, last and evenly between), for cells of
/// `size` (width, height) whose grid starts at `origin` (left, top).
fn axis_labels(ctx: &CanvasRenderingContext2d, ink: &str, origin: (f64, f64), size: (f64, f64), rows: usize, cols: usize) {
    let ((left, top), (cw, ch)) = (origin, size);
    ctx.set_fill_style_str(ink);
    ctx.set_font("10px system-ui, sans-serif");
    ctx.set_text_baseline("middle");
    ctx.set_text_align("right");
    for r in (0..rows).step_by(((14.0 / ch).ceil() as usize).max(1)) {
        let _ = ctx.fill_text(&r.to_string(), left - 4.0, top + ch * (r as f64 + 0.5));
    }
    ctx.set_text_align("center");
    for c in (0..cols).step_by(((22.0 / cw).ceil() as usize).max(1)) {
        let _ = ctx.fill_text(&c.to_string(), left + cw * (c as f64 + 0.5), top - 8.0);
    }
}
