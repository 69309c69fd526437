//! Canvas drawing: a heatmap of a matrix with its numbers, row/column labels, hover and
//! keyboard tooltip, crisp on HiDPI screens, and its accessible twin: a `<table>` with the
//! very numbers the canvas shows (hidden until the widget's "ver números" toggle).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlElement, KeyboardEvent, MouseEvent};

use crate::core::format::{format_pt, format_pt_short};
use crate::core::Matrix;

use super::dom::{self, Listener};

/// How values map to colours.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ColorScale {
    /// 0 … max: white to deep blue (probabilities, weights).
    Sequential,
    /// −m … 0 … m around zero: blue, neutral, orange (scores, projections).
    Diverging,
}

/// What one draw shows.
pub struct HeatmapData {
    pub matrix: Matrix,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    pub scale: ColorScale,
    /// Cells hidden by a mask: hatched, with "−∞" in place of the value.
    pub masked: Option<Box<dyn Fn(usize, usize) -> bool>>,
}

impl HeatmapData {
    fn is_masked(&self, r: usize, c: usize) -> bool {
        self.masked.as_ref().is_some_and(|f| f(r, c))
    }

    /// The text a cell shows, in the table and the tooltip (4 decimals, decimal comma).
    pub fn cell_text(&self, r: usize, c: usize) -> String {
        if self.is_masked(r, c) {
            "−∞".to_string()
        } else {
            format_pt(self.matrix.get(r, c), 4)
        }
    }
}

/// Layout in CSS pixels.
struct Layout {
    cell: f64,
    left: f64,
    top: f64,
}

/// What a heatmap calls with (row, column) when the reader picks a cell.
type SelectHandler = Box<dyn Fn(usize, usize)>;

/// A titled panel: canvas + tooltip + twin table.
pub struct MatrixView {
    pub root: HtmlElement,
    name: String,
    canvas: HtmlCanvasElement,
    tooltip: HtmlElement,
    table: HtmlElement,
    data: RefCell<Option<HeatmapData>>,
    focus: Cell<(usize, usize)>,
    /// Whether the focused cell stays outlined without a tooltip (a selection made by code).
    pinned: Cell<bool>,
    /// Called when the reader picks a cell (click, or arrow keys on the focused canvas).
    on_select: RefCell<Option<SelectHandler>>,
    layout: RefCell<Layout>,
    _listeners: RefCell<Vec<Listener>>,
}

impl MatrixView {
    /// `key` names the matrix in `data-matrix` (tests and embedders read it); `title` is shown.
    pub fn new(key: &str, title: &str, caption: &str) -> Rc<MatrixView> {
        let root = dom::el("figure", "mv");
        dom::set_attr(&root, "data-matrix", key);
        let heading = dom::text("figcaption", "mv-title", title);
        if !caption.is_empty() {
            dom::append(&heading, &dom::text("span", "mv-caption", caption));
        }
        dom::append(&root, &heading);
        let frame = dom::el("div", "mv-frame");
        let canvas = dom::el("canvas", "mv-canvas").unchecked_into::<HtmlCanvasElement>();
        dom::set_attr(&canvas, "tabindex", "0");
        dom::set_attr(&canvas, "role", "img");
        dom::set_attr(&canvas, "aria-label", &format!("Mapa de calor de {title}; setas percorrem as células"));
        let tooltip = dom::el("div", "mv-tooltip");
        dom::set_attr(&tooltip, "role", "status");
        tooltip.set_hidden(true);
        dom::append(&frame, &canvas);
        dom::append(&frame, &tooltip);
        dom::append(&root, &frame);
        let table = dom::el("table", "twin");
        dom::set_attr(&table, "data-matrix", key);
        table.set_hidden(true);
        dom::append(&root, &table);

        let view = Rc::new(MatrixView {
            root,
            name: title.to_string(),
            canvas,
            tooltip,
            table,
            data: RefCell::new(None),
            focus: Cell::new((0, 0)),
            pinned: Cell::new(false),
            on_select: RefCell::new(None),
            layout: RefCell::new(Layout { cell: 40.0, left: 0.0, top: 0.0 }),
            _listeners: RefCell::new(Vec::new()),
        });
        let weak = Rc::downgrade(&view);
        let hover = Listener::new(&view.canvas, "mousemove", move |e| {
            if let (Some(v), Some(m)) = (weak.upgrade(), e.dyn_ref::<MouseEvent>()) {
                v.hover_at(m.offset_x() as f64, m.offset_y() as f64);
            }
        });
        let weak = Rc::downgrade(&view);
        let leave = Listener::new(&view.canvas, "mouseleave", move |_| {
            if let Some(v) = weak.upgrade() {
                v.tooltip.set_hidden(true);
            }
        });
        let weak = Rc::downgrade(&view);
        let keys = Listener::new(&view.canvas, "keydown", move |e| {
            if let (Some(v), Some(k)) = (weak.upgrade(), e.dyn_ref::<KeyboardEvent>()) {
                if v.move_focus(&k.key()) {
                    e.prevent_default();
                }
            }
        });
        let weak = Rc::downgrade(&view);
        let blur = Listener::new(&view.canvas, "blur", move |_| {
            if let Some(v) = weak.upgrade() {
                v.tooltip.set_hidden(true);
            }
        });
        let weak = Rc::downgrade(&view);
        let click = Listener::new(&view.canvas, "click", move |e| {
            if let (Some(v), Some(m)) = (weak.upgrade(), e.dyn_ref::<MouseEvent>()) {
                if let Some((r, c)) = v.cell_at(m.offset_x() as f64, m.offset_y() as f64) {
                    v.show_tooltip(r, c);
                    v.notify_select(r, c);
                }
            }
        });
        view._listeners.borrow_mut().extend([hover, leave, keys, blur, click]);
        view
    }

    /// Makes cells selectable: `callback(row, col)` on click or arrow keys.
    pub fn set_on_select(&self, callback: impl Fn(usize, usize) + 'static) {
        *self.on_select.borrow_mut() = Some(Box::new(callback));
        dom::set_attr(&self.canvas, "aria-label", &format!("{}: clique numa célula ou use as setas para escolhê-la", self.name));
    }

    fn notify_select(&self, r: usize, c: usize) {
        if let Some(callback) = self.on_select.borrow().as_ref() {
            callback(r, c);
        }
    }

    /// Outlines cell (r, c) as the selected one (no tooltip: the widget explains it itself).
    pub fn select(&self, r: usize, c: usize) {
        if self.in_bounds(r, c) {
            self.focus.set((r, c));
            self.pinned.set(true);
            self.redraw();
        }
    }

    fn cell_at(&self, x: f64, y: f64) -> Option<(usize, usize)> {
        let layout = self.layout.borrow();
        let (c, r) = ((x - layout.left) / layout.cell, (y - layout.top) / layout.cell);
        let cell = (r >= 0.0 && c >= 0.0).then_some((r as usize, c as usize))?;
        drop(layout);
        self.in_bounds(cell.0, cell.1).then_some(cell)
    }

    /// Draws `data` and rebuilds the twin table.
    pub fn update(&self, data: HeatmapData) {
        self.fill_table(&data);
        *self.data.borrow_mut() = Some(data);
        self.redraw();
    }

    fn fill_table(&self, data: &HeatmapData) {
        self.table.set_text_content(None);
        let caption = dom::text("caption", "", &self.name);
        dom::append(&self.table, &caption);
        let head = dom::el("tr", "");
        dom::append(&head, &dom::el("th", ""));
        for label in &data.col_labels {
            let th = dom::text("th", "", label);
            dom::set_attr(&th, "scope", "col");
            dom::append(&head, &th);
        }
        dom::append(&self.table, &head);
        for r in 0..data.matrix.rows() {
            let tr = dom::el("tr", "");
            let th = dom::text("th", "", data.row_labels.get(r).map_or("", String::as_str));
            dom::set_attr(&th, "scope", "row");
            dom::append(&tr, &th);
            for c in 0..data.matrix.cols() {
                dom::append(&tr, &dom::text("td", "", &data.cell_text(r, c)));
            }
            dom::append(&self.table, &tr);
        }
    }

    fn redraw(&self) {
        let data = self.data.borrow();
        let Some(data) = data.as_ref() else { return };
        let (rows, cols) = data.matrix.shape();
        let dark = dom::prefers_dark();
        let label_w = data.row_labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64 * 8.0 + 12.0;
        let cell = ((available_width(&self.root) - label_w - 8.0) / cols.max(1) as f64).clamp(14.0, 56.0);
        // Column labels wider than a cell are drawn at 45°, which needs more room on top
        // (and a little on the right, where the last label leans).
        let col_chars = data.col_labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64;
        let rotate = col_chars * 7.0 > cell - 4.0;
        let top = if rotate { (col_chars * 7.0 * 0.72 + 12.0).min(110.0) } else { 22.0 };
        let layout = Layout { cell, left: label_w, top };
        let right_room = if rotate { (col_chars * 7.0 * 0.72).min(90.0) } else { 4.0 };
        let (css_w, css_h) = (layout.left + cell * cols as f64 + right_room, layout.top + cell * rows as f64 + 4.0);
        let Some(ctx) = prepare_canvas(&self.canvas, css_w, css_h) else { return };

        let finite = data.matrix.as_slice().iter().copied().filter(|v| v.is_finite());
        let max_abs = finite.fold(0.0f32, |m, v| m.max(v.abs())).max(1e-12);
        let label_color = if dark { "#c9d1d9" } else { "#444c56" };
        ctx.set_font("12px system-ui, sans-serif");
        ctx.set_text_baseline("middle");
        ctx.set_fill_style_str(label_color);
        ctx.set_text_align("center");
        for (c, label) in data.col_labels.iter().enumerate() {
            let x = layout.left + cell * (c as f64 + 0.5);
            if rotate {
                ctx.save();
                let _ = ctx.translate(x, layout.top - 6.0);
                let _ = ctx.rotate(-std::f64::consts::FRAC_PI_4);
                ctx.set_text_align("left");
                let _ = ctx.fill_text(label, 0.0, 0.0);
                ctx.restore();
            } else {
                let _ = ctx.fill_text(label, x, layout.top / 2.0);
            }
        }
        ctx.set_text_align("right");
        for (r, label) in data.row_labels.iter().enumerate() {
            let _ = ctx.fill_text(label, layout.left - 6.0, layout.top + cell * (r as f64 + 0.5));
        }
        let show_values = cell >= 34.0;
        let digits = if cell >= 50.0 { 3 } else { 2 };
        ctx.set_text_align("center");
        ctx.set_font(&format!("{}px ui-monospace, monospace", if cell >= 50.0 { 12 } else { 11 }));
        for r in 0..rows {
            for c in 0..cols {
                let (x, y) = (layout.left + cell * c as f64, layout.top + cell * r as f64);
                if data.is_masked(r, c) {
                    hatch(&ctx, x, y, cell, dark);
                    if show_values {
                        ctx.set_fill_style_str(label_color);
                        let _ = ctx.fill_text("−∞", x + cell / 2.0, y + cell / 2.0);
                    }
                    continue;
                }
                let v = data.matrix.get(r, c);
                if !v.is_finite() {
                    // −∞ or undefined (e.g. an IDF): hatched, with a short label.
                    hatch(&ctx, x, y, cell, dark);
                    if show_values {
                        ctx.set_fill_style_str(label_color);
                        let _ = ctx.fill_text(if v.is_nan() { "?" } else { "−∞" }, x + cell / 2.0, y + cell / 2.0);
                    }
                    continue;
                }
                let (rgb, light_text) = color(data.scale, v / max_abs, dark);
                ctx.set_fill_style_str(&rgb);
                ctx.fill_rect(x + 1.0, y + 1.0, cell - 2.0, cell - 2.0);
                if show_values {
                    ctx.set_fill_style_str(if light_text { "#ffffff" } else { "#111111" });
                    let _ = ctx.fill_text(&format_pt_short(v, digits), x + cell / 2.0, y + cell / 2.0);
                }
            }
        }
        if self.tooltip.hidden() && !self.pinned.get() {
            *self.layout.borrow_mut() = layout;
            return;
        }
        let (fr, fc) = self.focus.get();
        if fr < rows && fc < cols {
            ctx.set_stroke_style_str(if dark { "#ffffff" } else { "#000000" });
            ctx.set_line_width(2.0);
            ctx.stroke_rect(layout.left + cell * fc as f64 + 1.0, layout.top + cell * fr as f64 + 1.0, cell - 2.0, cell - 2.0);
        }
        *self.layout.borrow_mut() = layout;
    }

    fn hover_at(&self, x: f64, y: f64) {
        match self.cell_at(x, y) {
            Some((r, c)) => self.show_tooltip(r, c),
            None => self.tooltip.set_hidden(true),
        }
    }

    fn in_bounds(&self, r: usize, c: usize) -> bool {
        self.data.borrow().as_ref().is_some_and(|d| r < d.matrix.rows() && c < d.matrix.cols())
    }

    /// Arrow keys move the highlighted cell; returns whether the key was used.
    fn move_focus(&self, key: &str) -> bool {
        let (mut r, mut c) = self.focus.get();
        match key {
            "ArrowUp" => r = r.saturating_sub(1),
            "ArrowDown" => r += 1,
            "ArrowLeft" => c = c.saturating_sub(1),
            "ArrowRight" => c += 1,
            "Escape" => {
                self.tooltip.set_hidden(true);
                self.redraw();
                return true;
            }
            _ => return false,
        }
        if self.in_bounds(r, c) {
            self.show_tooltip(r, c);
            self.notify_select(r, c);
        } else {
            self.show_tooltip(self.focus.get().0, self.focus.get().1);
        }
        true
    }

    fn show_tooltip(&self, r: usize, c: usize) {
        let text = {
            let data = self.data.borrow();
            let Some(d) = data.as_ref() else { return };
            let row = d.row_labels.get(r).cloned().unwrap_or_else(|| (r + 1).to_string());
            let col = d.col_labels.get(c).cloned().unwrap_or_else(|| (c + 1).to_string());
            format!("{} [{row}, {col}] = {}", self.name, d.cell_text(r, c))
        };
        self.focus.set((r, c));
        self.tooltip.set_text_content(Some(&text));
        self.tooltip.set_hidden(false);
        let (left, top) = {
            let l = self.layout.borrow();
            (l.left + l.cell * (c as f64 + 1.0), l.top + l.cell * r as f64)
        };
        let style = self.tooltip.style();
        let _ = style.set_property("left", &format!("{left}px"));
        let _ = style.set_property("top", &format!("{top}px"));
        self.redraw();
    }
}

/// Width (CSS px) of the box a figure sits in, so drawings fit a phone; 360 before layout.
pub fn available_width(figure: &HtmlElement) -> f64 {
    let width = figure.parent_element().map_or(0.0, |p| p.client_width() as f64);
    if width > 0.0 { width.min(640.0) } else { 360.0 }
}

/// Sizes `canvas` to `css_w × css_h` CSS pixels with a backing store of device pixels (crisp
/// on HiDPI screens), clears it, and returns a context that draws in CSS pixels.
pub fn prepare_canvas(canvas: &HtmlCanvasElement, css_w: f64, css_h: f64) -> Option<CanvasRenderingContext2d> {
    let dpr = dom::window().map_or(1.0, |w| w.device_pixel_ratio()).max(1.0);
    canvas.set_width((css_w * dpr).round() as u32);
    canvas.set_height((css_h * dpr).round() as u32);
    let style = canvas.style();
    let _ = style.set_property("width", &format!("{css_w}px"));
    let _ = style.set_property("height", &format!("{css_h}px"));
    let ctx = canvas.get_context("2d").ok().flatten()?.dyn_into::<CanvasRenderingContext2d>().ok()?;
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.clear_rect(0.0, 0.0, css_w, css_h);
    Some(ctx)
}

/// Diagonal hatching for masked cells.
fn hatch(ctx: &CanvasRenderingContext2d, x: f64, y: f64, size: f64, dark: bool) {
    ctx.save();
    ctx.begin_path();
    ctx.rect(x + 1.0, y + 1.0, size - 2.0, size - 2.0);
    ctx.clip();
    ctx.set_fill_style_str(if dark { "#1c2128" } else { "#f2f2f2" });
    ctx.fill_rect(x, y, size, size);
    ctx.set_stroke_style_str(if dark { "#545d68" } else { "#b0b0b0" });
    ctx.set_line_width(1.0);
    ctx.begin_path();
    let mut offset = -size;
    while offset < size {
        ctx.move_to(x + offset, y + size);
        ctx.line_to(x + offset + size, y);
        offset += 6.0;
    }
    ctx.stroke();
    ctx.restore();
}

/// Colour for `t` (value / max |value|, in [−1, 1]) and whether text on it should be light.
pub fn color(scale: ColorScale, t: f32, dark: bool) -> (String, bool) {
    let [r, g, b] = color_rgb(scale, t, dark);
    let luminance = 0.2126 * r as f64 + 0.7152 * g as f64 + 0.0722 * b as f64;
    (format!("rgb({r},{g},{b})"), luminance < 128.0)
}

/// The colour of `t` as RGB bytes (for images painted pixel by pixel).
pub fn color_rgb(scale: ColorScale, t: f32, dark: bool) -> [u8; 3] {
    let t = t.clamp(-1.0, 1.0) as f64;
    let base = if dark { [34.0, 39.0, 46.0] } else { [247.0, 247.0, 247.0] };
    let (target, amount) = match scale {
        ColorScale::Sequential => ([8.0, 69.0, 148.0], t.max(0.0)),
        ColorScale::Diverging if t >= 0.0 => ([217.0, 95.0, 2.0], t),
        ColorScale::Diverging => ([33.0, 102.0, 172.0], -t),
    };
    let mix = |i: usize| (base[i] + (target[i] - base[i]) * amount).round() as u8;
    [mix(0), mix(1), mix(2)]
}

/// Horizontal bars with labels and values (e.g. one query's attention weights), and its
/// table twin. Bar length is |value|; negative values are drawn in orange.
pub struct BarView {
    pub root: HtmlElement,
    title: HtmlElement,
    canvas: HtmlCanvasElement,
    table: HtmlElement,
}

impl BarView {
    pub fn new(key: &str, title: &str) -> BarView {
        let root = dom::el("figure", "mv bars");
        dom::set_attr(&root, "data-bars", key);
        let heading = dom::text("figcaption", "mv-title", title);
        dom::append(&root, &heading);
        let canvas = dom::el("canvas", "mv-canvas").unchecked_into::<HtmlCanvasElement>();
        dom::set_attr(&canvas, "role", "img");
        dom::append(&root, &canvas);
        let table = dom::el("table", "twin");
        dom::set_attr(&table, "data-bars", key);
        table.set_hidden(true);
        dom::append(&root, &table);
        BarView { root, title: heading, canvas, table }
    }

    /// Draws one bar per (label, value); `title` replaces the caption.
    pub fn update(&self, title: &str, labels: &[String], values: &[f32]) {
        self.title.set_text_content(Some(title));
        dom::set_attr(&self.canvas, "aria-label", title);
        self.table.set_text_content(None);
        dom::append(&self.table, &dom::text("caption", "", title));
        for (label, value) in labels.iter().zip(values) {
            let tr = dom::el("tr", "");
            let th = dom::text("th", "", label);
            dom::set_attr(&th, "scope", "row");
            dom::append(&tr, &th);
            dom::append(&tr, &dom::text("td", "", &format_pt(*value, 4)));
            dom::append(&self.table, &tr);
        }

        let dark = dom::prefers_dark();
        let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64;
        let (bar_h, gap, label_w, value_w) = (22.0, 6.0, (longest * 7.0 + 12.0).max(40.0), 72.0);
        let plot_w = (available_width(&self.root) - label_w - value_w).clamp(100.0, 240.0);
        let css_w = label_w + plot_w + value_w;
        let css_h = (bar_h + gap) * values.len() as f64 + gap;
        let Some(ctx) = prepare_canvas(&self.canvas, css_w, css_h) else { return };
        let max = values.iter().fold(0.0f32, |m, v| m.max(v.abs())).max(1e-12) as f64;
        let text = if dark { "#c9d1d9" } else { "#444c56" };
        ctx.set_font("12px system-ui, sans-serif");
        ctx.set_text_baseline("middle");
        for (i, (label, &value)) in labels.iter().zip(values).enumerate() {
            let y = gap + i as f64 * (bar_h + gap);
            ctx.set_fill_style_str(text);
            ctx.set_text_align("right");
            let _ = ctx.fill_text(label, label_w - 6.0, y + bar_h / 2.0);
            // Length is |value|; negative values are told apart by colour (orange) and the "−" sign.
            let strength = 0.35 + 0.65 * (value.abs() as f64 / max) as f32;
            let (fill, _) = if value < 0.0 {
                color(ColorScale::Diverging, strength, dark)
            } else {
                color(ColorScale::Sequential, strength, dark)
            };
            ctx.set_fill_style_str(&fill);
            let w = plot_w * value.abs() as f64 / max;
            ctx.fill_rect(label_w, y, w.max(1.0), bar_h);
            ctx.set_fill_style_str(text);
            ctx.set_text_align("left");
            let _ = ctx.fill_text(&format_pt(value, 4), label_w + w + 6.0, y + bar_h / 2.0);
        }
    }
}
