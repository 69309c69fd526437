//! A heatmap of a matrix: its numbers, row and column labels, a colour legend whose domain
//! follows what the values are (`site::palette::Scale`), hover and keyboard tooltips, crisp on
//! HiDPI screens, and its accessible twin: a `<table>` with the very numbers the canvas shows
//! (hidden until the widget's "ver números"). A matrix wider than its panel scrolls inside it.
//!
//! Linked highlighting: a widget can listen to the cell under the pointer or the keyboard
//! (`set_on_hover`) and outline, in the heatmaps it came from, the rows and columns that made
//! it (`highlight`).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{HtmlCanvasElement, HtmlElement, KeyboardEvent, MouseEvent};

use crate::core::format::{format_pt, format_pt_short, shared_decimals};
use crate::core::Matrix;
use crate::site::notation::spoken;
use crate::site::palette::{gradient, rgb, css, text_on, Domain, Scale};
use crate::web::dom::{self, Listener};

use super::canvas::{available_width, context, fill_notation, hatch, label_font, notation_width, on_window_resize, prepare_canvas};
use super::twin;
use crate::web::kit::listen;

/// Size (CSS px) of the row and column labels.
const LABEL_PX: f64 = 12.0;

/// What one draw shows.
pub struct HeatmapData {
    pub matrix: Matrix,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    /// What the values are: fixes the colour domain and the legend.
    pub scale: Scale,
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

/// The colour scale of a drawing in `legend` (a `.mv-legend`): the gradient between the
/// domain's ends, labelled. Every heatmap of the site draws its legend with this.
pub fn draw_legend(legend: &HtmlElement, domain: &Domain, dark: bool) {
    legend.set_text_content(None);
    let number = |v: f32| format_pt_short(v, 2);
    dom::append(legend, &dom::text("span", "mv-legend-end", &number(domain.lo)));
    let bar = dom::el("span", "mv-legend-bar");
    dom::set_attr(&bar, "aria-hidden", "true");
    let _ = bar.style().set_property("background", &gradient(domain, dark));
    dom::append_all(legend, &[&bar, &dom::text("span", "mv-legend-end", &number(domain.hi))]);
    if domain.diverging {
        dom::append(legend, &dom::text("span", "mv-legend-note", "(0 no meio)"));
    }
    dom::set_attrs(legend, &[("aria-label", &format!("Escala de cor de {} a {}", number(domain.lo), number(domain.hi))), ("role", "img")]);
}

/// A `.mv-legend` element, empty until drawn.
pub fn legend_element() -> HtmlElement {
    dom::el("div", "mv-legend")
}

/// Layout in CSS pixels.
struct Layout {
    cell: f64,
    left: f64,
    top: f64,
}

/// What a heatmap calls with (row, column) when the reader picks a cell.
type SelectHandler = Box<dyn Fn(usize, usize)>;
/// What it calls with the cell under the pointer or the keyboard (`None`: none any more).
type HoverHandler = Box<dyn Fn(Option<(usize, usize)>)>;
/// How cell (row, column) was computed, with its numbers, for the tooltip's second line.
type CauseText = Box<dyn Fn(usize, usize) -> Option<String>>;

/// A titled panel: canvas + legend + tooltip + twin table.
pub struct MatrixView {
    pub root: HtmlElement,
    /// The title as plain text (tooltips, the twin table's caption, labels); follows `set_title`.
    name: RefCell<String>,
    title: HtmlElement,
    canvas: HtmlCanvasElement,
    tooltip: HtmlElement,
    legend: HtmlElement,
    table: HtmlElement,
    data: RefCell<Option<HeatmapData>>,
    focus: Cell<(usize, usize)>,
    /// Whether the focused cell stays outlined without a tooltip (a selection made by code).
    pinned: Cell<bool>,
    /// Rows and columns outlined because a cell elsewhere came from them.
    marked: RefCell<(Vec<usize>, Vec<usize>)>,
    /// Called when the reader picks a cell (click, or arrow keys on the focused canvas).
    on_select: RefCell<Option<SelectHandler>>,
    on_hover: RefCell<Option<HoverHandler>>,
    cause: RefCell<Option<CauseText>>,
    layout: RefCell<Layout>,
    /// Row labels are notation the widget wrote (`h_{meus}`), typeset; off by default, since
    /// labels are mostly the reader's words. Column labels are always plain text.
    typeset_rows: Cell<bool>,
    /// The panel width the last drawing was sized for: after a resize, only a panel that
    /// really changed width is drawn again.
    drawn_for: Cell<f64>,
    _listeners: RefCell<Vec<Listener>>,
}

impl MatrixView {
    /// Typesets the row labels' notation (`h_{meus}`: h with a subscript), for labels the
    /// widget writes; a reader's words stay plain text.
    pub fn typeset_row_labels(&self) -> &Self {
        self.typeset_rows.set(true);
        self
    }

    /// `key` names the matrix in `data-matrix` (tests and embedders read it); `title` is shown
    /// with its notation typeset (`W^Q`, `d_k`).
    pub fn new(key: &str, title: &str, caption: &str) -> Rc<MatrixView> {
        let root = dom::el("figure", "mv");
        dom::set_attr(&root, "data-matrix", key);
        let heading = dom::el("figcaption", "mv-title");
        let title_el = dom::notation("span", "mv-name", title);
        dom::append(&heading, &title_el);
        if !caption.is_empty() {
            dom::append(&heading, &dom::text("span", "mv-caption", caption));
        }
        dom::append(&root, &heading);
        let frame = dom::el("div", "mv-frame");
        let canvas = dom::el("canvas", "mv-canvas").unchecked_into::<HtmlCanvasElement>();
        let plain = crate::site::notation::plain(title);
        dom::set_attr(&canvas, "tabindex", "0");
        dom::set_attr(&canvas, "role", "img");
        dom::set_attr(&canvas, "aria-label", &format!("Mapa de calor de {plain}; setas percorrem as células"));
        let tooltip = dom::el("div", "mv-tooltip");
        dom::set_attr(&tooltip, "role", "status");
        tooltip.set_hidden(true);
        dom::append_all(&frame, &[&canvas, &tooltip]);
        dom::append(&root, &frame);
        let legend = legend_element();
        dom::append(&root, &legend);
        let table = twin::table("data-matrix", key);
        dom::append(&root, &table);

        let view = Rc::new(MatrixView {
            root,
            name: RefCell::new(plain),
            title: title_el,
            canvas,
            tooltip,
            legend,
            table,
            data: RefCell::new(None),
            focus: Cell::new((0, 0)),
            pinned: Cell::new(false),
            marked: RefCell::new((Vec::new(), Vec::new())),
            on_select: RefCell::new(None),
            on_hover: RefCell::new(None),
            cause: RefCell::new(None),
            layout: RefCell::new(Layout { cell: 40.0, left: 0.0, top: 0.0 }),
            typeset_rows: Cell::new(false),
            drawn_for: Cell::new(0.0),
            _listeners: RefCell::new(Vec::new()),
        });
        let canvas = &view.canvas;
        let hover = listen(&view, canvas, "mousemove", |v, e| {
            if let Some(m) = e.dyn_ref::<MouseEvent>() {
                v.hover_at(m.offset_x() as f64, m.offset_y() as f64);
            }
        });
        let keys = listen(&view, canvas, "keydown", |v, e| {
            if e.dyn_ref::<KeyboardEvent>().is_some_and(|k| v.move_focus(&k.key())) {
                e.prevent_default();
            }
        });
        let click = listen(&view, canvas, "click", |v, e| {
            if let Some((r, c)) = e.dyn_ref::<MouseEvent>().and_then(|m| v.cell_at(m.offset_x() as f64, m.offset_y() as f64)) {
                v.show_tooltip(r, c);
                v.notify_select(r, c);
            }
        });
        // Leaving the canvas (pointer or focus) hides the tooltip and the linked highlight.
        let [leave, blur] = ["mouseleave", "blur"].map(|kind| {
            listen(&view, canvas, kind, |v, _| {
                v.tooltip.set_hidden(true);
                v.notify_hover(None);
            })
        });
        view._listeners.borrow_mut().extend([hover, leave, keys, blur, click]);
        // Cells are sized to the panel: a panel that changes width (a phone turned) redraws.
        let resized = on_window_resize(&view, |v: &MatrixView| {
            if v.data.borrow().is_some() && available_width(&v.root) != v.drawn_for.get() {
                v.redraw();
            }
        });
        view._listeners.borrow_mut().extend(resized);
        view
    }

    /// Replaces the title (typeset).
    pub fn set_title(&self, title: &str) {
        dom::set_notation(&self.title, title);
        *self.name.borrow_mut() = crate::site::notation::plain(title);
    }

    /// Makes cells selectable: `callback(row, col)` on click or arrow keys.
    pub fn set_on_select(&self, callback: impl Fn(usize, usize) + 'static) {
        *self.on_select.borrow_mut() = Some(Box::new(callback));
        dom::set_attr(&self.canvas, "aria-label", &format!("{}: clique numa célula ou use as setas para escolhê-la", self.name.borrow()));
    }

    /// Tells `callback` which cell is under the pointer or the keyboard (for linked highlighting).
    pub fn set_on_hover(&self, callback: impl Fn(Option<(usize, usize)>) + 'static) {
        *self.on_hover.borrow_mut() = Some(Box::new(callback));
    }

    /// Gives each cell's tooltip a second line: how the cell was computed, with its numbers.
    pub fn set_cause(&self, cause: impl Fn(usize, usize) -> Option<String> + 'static) {
        *self.cause.borrow_mut() = Some(Box::new(cause));
    }

    fn notify_select(&self, r: usize, c: usize) {
        if let Some(callback) = self.on_select.borrow().as_ref() {
            callback(r, c);
        }
    }

    fn notify_hover(&self, cell: Option<(usize, usize)>) {
        if let Some(callback) = self.on_hover.borrow().as_ref() {
            callback(cell);
        }
    }

    /// Outlines these rows and columns (the operands of a cell elsewhere); empty clears.
    pub fn highlight(&self, rows: &[usize], cols: &[usize]) {
        let next = (rows.to_vec(), cols.to_vec());
        if *self.marked.borrow() != next {
            *self.marked.borrow_mut() = next;
            dom::set_attr(&self.root, "data-highlight", &format!("{:?}|{:?}", rows, cols));
            if rows.is_empty() && cols.is_empty() {
                let _ = self.root.remove_attribute("data-highlight");
            }
            self.redraw();
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

    /// Draws `data`, its legend, and rebuilds the twin table.
    /// Draws `matrix` (no masked cells) with its labels, coloured by what its values are.
    pub fn show(&self, matrix: &Matrix, row_labels: Vec<String>, col_labels: Vec<String>, scale: Scale) {
        self.update(HeatmapData { matrix: matrix.clone(), row_labels, col_labels, scale, masked: None });
    }

    pub fn update(&self, data: HeatmapData) {
        self.fill_table(&data);
        self.draw_only(data);
    }

    /// `show` without the twin table, which `fill_twin` fills later: a widget drawing in
    /// frames (`kit::frames`) builds the canvas in one and the table's hundreds of cells in the next.
    pub fn show_canvas(&self, matrix: &Matrix, row_labels: Vec<String>, col_labels: Vec<String>, scale: Scale) {
        self.draw_only(HeatmapData { matrix: matrix.clone(), row_labels, col_labels, scale, masked: None });
    }

    /// The twin table of what is drawn.
    pub fn fill_twin(&self) {
        if let Some(data) = self.data.borrow().as_ref() {
            self.fill_table(data);
        }
    }

    fn draw_only(&self, data: HeatmapData) {
        let domain = data.scale.domain(data.matrix.as_slice());
        *self.data.borrow_mut() = Some(data);
        // The canvas first: it reads the panel's width and sets its font, which the writes
        // below would make the browser lay out and style the page again to answer.
        self.redraw();
        dom::set_attr(&self.root, "data-domain", &domain.attr());
        self.draw_legend(&domain);
    }

    fn draw_legend(&self, domain: &Domain) {
        draw_legend(&self.legend, domain, dom::dark_at(&self.root));
    }

    fn fill_table(&self, data: &HeatmapData) {
        twin::fill_typeset(&self.table, &self.name.borrow(), "", &data.col_labels, twin::matrix_rows(&data.matrix, &data.row_labels, |r, c| data.cell_text(r, c)), self.typeset_rows.get());
    }

    fn redraw(&self) {
        let data = self.data.borrow();
        let Some(data) = data.as_ref() else { return };
        let (rows, cols) = data.matrix.shape();
        let dark = dom::dark_at(&self.root);
        // Labels are measured as drawn (notation typeset: `h_{meus}`), before the canvas is sized.
        let typeset = self.typeset_rows.get();
        let measure = context(&self.canvas);
        if let Some(ctx) = &measure {
            ctx.set_font(&label_font(LABEL_PX));
        }
        let widest = |labels: &[String], typeset| measure.as_ref().map_or(0.0, |ctx| labels.iter().map(|l| notation_width(ctx, l, LABEL_PX, typeset)).fold(0.0, f64::max));
        let label_w = widest(&data.row_labels, typeset) + 12.0;
        // Cells shrink to fit the panel, so every column stays in view (issue 37), down to 6 px:
        // a matrix that wide is read by its colours, with its numbers in the twin table.
        let panel = available_width(&self.root);
        self.drawn_for.set(panel);
        let fit = |room: f64| ((panel - label_w - room) / cols.max(1) as f64).clamp(6.0, 56.0);
        // Column labels wider than a cell are drawn at 45°, which needs more room on top and on
        // the right, where the last label leans: the cells make that room inside the panel.
        let col_w = widest(&data.col_labels, false);
        let rotate = col_w > fit(8.0) - 4.0;
        // The last label, drawn from its cell's centre at 45°, passes the cells' edge by about
        // 0,72 of its width less half a cell.
        let last_w = widest(data.col_labels.last().map(std::slice::from_ref).unwrap_or(&[]), false);
        let right_room = if rotate { (last_w * 0.72 - fit(8.0) / 2.0).clamp(4.0, 90.0) } else { 4.0 };
        let cell = fit(right_room.max(8.0));
        let top = if rotate { (col_w * 0.72 + 12.0).min(110.0) } else { 22.0 };
        let layout = Layout { cell, left: label_w, top };
        let (css_w, css_h) = (layout.left + cell * cols as f64 + right_room, layout.top + cell * rows as f64 + 4.0);
        let Some(ctx) = prepare_canvas(&self.canvas, css_w, css_h) else { return };

        let domain = data.scale.domain(data.matrix.as_slice());
        let label_color = if dark { "#c9d1d9" } else { "#444c56" };
        ctx.set_text_baseline("middle");
        ctx.set_fill_style_str(label_color);
        // What fill_notation expects (a canvas kept at its size keeps the last draw's font).
        ctx.set_font(&label_font(LABEL_PX));
        ctx.set_text_align("left");
        for (c, label) in data.col_labels.iter().enumerate() {
            let x = layout.left + cell * (c as f64 + 0.5);
            if rotate {
                ctx.save();
                let _ = ctx.translate(x, layout.top - 6.0);
                let _ = ctx.rotate(-std::f64::consts::FRAC_PI_4);
                fill_notation(&ctx, label, 0.0, 0.0, "left", LABEL_PX, false);
                ctx.restore();
            } else {
                fill_notation(&ctx, label, x, layout.top / 2.0, "center", LABEL_PX, false);
            }
        }
        for (r, label) in data.row_labels.iter().enumerate() {
            fill_notation(&ctx, label, layout.left - 6.0, layout.top + cell * (r as f64 + 0.5), "right", LABEL_PX, typeset);
        }
        // Numbers in the cells: 12-px type in cells from 50 px, 11 px from 34, 9 px with at most
        // one decimal from 26 (a phone); smaller cells leave them to the twin table.
        let (show_values, font_px, most_places) = match cell {
            c if c >= 50.0 => (true, 12, 3),
            c if c >= 34.0 => (true, 11, 2),
            c if c >= 26.0 => (true, 9, 1),
            _ => (false, 0, 0),
        };
        // One number of places for the whole grid, so the labels line up (only when labelled:
        // a large matrix in small cells has none).
        let unmasked = (0..rows * cols).filter(|&i| !data.is_masked(i / cols, i % cols)).map(|i| data.matrix.get(i / cols, i % cols));
        let digits = if show_values { shared_decimals(unmasked, most_places) } else { 0 };
        ctx.set_text_align("center");
        ctx.set_font(&format!("{font_px}px ui-monospace, monospace"));
        // The fill in use: set again only when it changes (each setting passes a string to the
        // browser; a causal map's future is one colour).
        let mut filling: Option<[u8; 3]> = None;
        for r in 0..rows {
            for c in 0..cols {
                let (x, y) = (layout.left + cell * c as f64, layout.top + cell * r as f64);
                let v = data.matrix.get(r, c);
                if data.is_masked(r, c) || !v.is_finite() {
                    // Masked, −∞ or undefined (e.g. an IDF): hatched, with a short label.
                    filling = None;
                    hatch(&ctx, x, y, cell, dark);
                    if show_values {
                        ctx.set_fill_style_str(label_color);
                        let shown = if !data.is_masked(r, c) && v.is_nan() { "?" } else { "−∞" };
                        let _ = ctx.fill_text(shown, x + cell / 2.0, y + cell / 2.0);
                    }
                    continue;
                }
                let fill = rgb(domain.diverging, domain.position(v), dark);
                if filling != Some(fill) {
                    ctx.set_fill_style_str(&css(fill));
                    filling = Some(fill);
                }
                ctx.fill_rect(x + 1.0, y + 1.0, cell - 2.0, cell - 2.0);
                if show_values {
                    filling = None;
                    ctx.set_fill_style_str(text_on(fill));
                    // An exact zero is "0": a sparse matrix reads as its non-zero cells ("0,00"
                    // stays for a value that only rounds to zero).
                    let label = if v == 0.0 { "0".to_string() } else { format_pt(v, digits) };
                    let _ = ctx.fill_text(&label, x + cell / 2.0, y + cell / 2.0);
                }
            }
        }
        // Rows and columns a cell elsewhere came from: a thick outline around each.
        {
            let marked = self.marked.borrow();
            ctx.set_stroke_style_str(if dark { "#f2cc60" } else { "#9a6700" });
            ctx.set_line_width(3.0);
            for &r in marked.0.iter().filter(|&&r| r < rows) {
                ctx.stroke_rect(layout.left + 1.5, layout.top + cell * r as f64 + 1.5, cell * cols as f64 - 3.0, cell - 3.0);
            }
            for &c in marked.1.iter().filter(|&&c| c < cols) {
                ctx.stroke_rect(layout.left + cell * c as f64 + 1.5, layout.top + 1.5, cell - 3.0, cell * rows as f64 - 3.0);
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
            Some((r, c)) => {
                self.show_tooltip(r, c);
                self.notify_hover(Some((r, c)));
            }
            None => {
                self.tooltip.set_hidden(true);
                self.notify_hover(None);
            }
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
                self.notify_hover(None);
                self.redraw();
                return true;
            }
            _ => return false,
        }
        if !self.in_bounds(r, c) {
            (r, c) = self.focus.get();
        }
        self.show_tooltip(r, c);
        self.notify_select(r, c);
        self.notify_hover(Some((r, c)));
        true
    }

    fn show_tooltip(&self, r: usize, c: usize) {
        let text = {
            let data = self.data.borrow();
            let Some(d) = data.as_ref() else { return };
            let row = d.row_labels.get(r).map_or_else(|| (r + 1).to_string(), |l| if self.typeset_rows.get() { spoken(l) } else { l.clone() });
            let col = d.col_labels.get(c).cloned().unwrap_or_else(|| (c + 1).to_string());
            let cause = self.cause.borrow().as_ref().and_then(|f| f(r, c)).map_or_else(String::new, |line| format!("\n{line}"));
            format!("{} [{row}, {col}] = {}{cause}", self.name.borrow(), d.cell_text(r, c))
        };
        self.focus.set((r, c));
        self.tooltip.set_text_content(Some(&text));
        self.tooltip.set_hidden(false);
        // Beside the cell, inside the frame (which scrolls what passes its edge); where neither
        // side has room (a formula wider than the matrix), under the cell's row, or over it.
        let (cell_left, cell_right, cell_top, cell) = {
            let l = self.layout.borrow();
            (l.left + l.cell * c as f64, l.left + l.cell * (c as f64 + 1.0), l.top + l.cell * r as f64, l.cell)
        };
        let frame = self.canvas.parent_element();
        let (frame_w, frame_h) = frame.map_or((0.0, 0.0), |f| (f.client_width() as f64, f.client_height() as f64));
        let (width, height) = (self.tooltip.offset_width() as f64, self.tooltip.offset_height() as f64);
        let (left, top) = if frame_w <= 0.0 || cell_right + width <= frame_w {
            (cell_right, cell_top)
        } else if cell_left >= width {
            (cell_left - width, cell_top)
        } else {
            let below = cell_top + cell;
            ((frame_w - width).max(0.0), if below + height <= frame_h || cell_top < height { below } else { cell_top - height })
        };
        let style = self.tooltip.style();
        let _ = style.set_property("left", &format!("{left}px"));
        let _ = style.set_property("top", &format!("{top}px"));
        self.redraw();
    }
}
