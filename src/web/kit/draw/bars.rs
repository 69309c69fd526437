//! Horizontal bars with labels and values, and their table twin.

use web_sys::{HtmlCanvasElement, HtmlElement};

use crate::core::format::format_pt;
use crate::site::palette::{bar_color, css};
use crate::web::dom;

use super::canvas::{available_width, context, label_font, notation_width, prepare_canvas};

/// The labels' and values' size, in CSS px.
const LABEL_PX: f64 = 12.0;

/// Horizontal bars with labels and values (e.g. one query's attention weights), and its
/// table twin. Bar length is |value|; negative values are drawn in orange.
pub struct BarView {
    pub root: HtmlElement,
    /// The axis's end for values that have a natural one (probabilities: 1).
    fixed_max: std::cell::Cell<Option<f32>>,
    title: HtmlElement,
    canvas: HtmlCanvasElement,
    table: HtmlElement,
}

impl BarView {
    pub fn new(key: &str, title: &str) -> BarView {
        let (root, heading, canvas) = super::canvas::canvas_figure("mv bars", Some(("data-bars", key)), title);
        let table = super::twin::table("data-bars", key);
        dom::append(&root, &table);
        BarView { root, fixed_max: std::cell::Cell::new(None), title: heading, canvas, table }
    }

    /// Bars of probabilities: the axis runs from 0 to 1, whatever the largest value.
    pub fn probabilities(self) -> BarView {
        self.fixed_max.set(Some(1.0));
        self
    }

    /// Draws one bar per (label, value); `title` replaces the caption.
    pub fn update(&self, title: &str, labels: &[String], values: &[f32]) {
        self.update_marked(title, labels, values, None);
    }

    /// `update`, with the bar at `marked` outlined and its label bold, and its twin row
    /// `data-marked` (the token the decoder drew among the ones it could have). The canvas
    /// first, then the text around it: a canvas's width and font are read from the page's
    /// layout and style, which every text written changes (a chart updated after another one
    /// forced a layout and a style recalculation in its frame).
    pub fn update_marked(&self, title: &str, labels: &[String], values: &[f32], marked: Option<usize>) {
        self.paint(labels, values, marked, 0);
        self.write(title, labels, values, marked);
    }

    /// The title, the canvas's name and the table twin.
    fn write(&self, title: &str, labels: &[String], values: &[f32], marked: Option<usize>) {
        dom::set_notation(&self.title, title);
        dom::set_attr(&self.canvas, "aria-label", &crate::site::notation::plain(title));
        let caption = crate::site::notation::plain(title);
        super::twin::fill(&self.table, &caption, "", &[], labels.iter().zip(values).map(|(l, v)| (l.clone(), vec![format_pt(*v, 4)])));
        if let Some(row) = marked.and_then(|i| self.table.query_selector(&format!("tr:nth-of-type({})", i + 1)).ok().flatten()) {
            dom::set_attr(&row, "data-marked", "true");
        }
    }

    /// No bars yet, in the room of `rows` of them, with `title` saying why: a chart that fills
    /// later keeps its height, so the page below it does not move (nor is laid out and painted
    /// again) when its first bars come.
    pub fn reserve(&self, title: &str, rows: usize) {
        self.paint(&[], &[], None, rows);
        self.write(title, &[], &[], None);
    }

    /// The bars, on a canvas as tall as `rows` bars at least.
    fn paint(&self, labels: &[String], values: &[f32], marked: Option<usize>, rows: usize) {
        // The width first, before the page changes: read after a write, it would force a
        // layout of the whole page on every update (the playground draws these while it generates).
        let width = available_width(&self.root);
        let dark = dom::dark_at(&self.root);
        // Labels measured as drawn; the bars give way (down to 60 px) so the figure fits a phone.
        let measure = context(&self.canvas);
        if let Some(ctx) = &measure {
            ctx.set_font(&label_font(LABEL_PX));
        }
        let label_width = |l: &String| measure.as_ref().map_or(l.chars().count() as f64 * 7.0, |ctx| notation_width(ctx, l, LABEL_PX, false));
        let longest = labels.iter().map(label_width).fold(0.0, f64::max);
        let (bar_h, gap, label_w, value_w) = (22.0, 6.0, (longest + 12.0).max(40.0), 72.0);
        let plot_w = (width - label_w - value_w).clamp(60.0, 240.0);
        let css_w = label_w + plot_w + value_w;
        let css_h = (bar_h + gap) * values.len().max(rows) as f64 + gap;
        let Some(ctx) = prepare_canvas(&self.canvas, css_w, css_h) else { return };
        // Probabilities keep their 0–1 axis; other values are drawn against the largest.
        let largest = values.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let max = self.fixed_max.get().map_or(largest, |f| f.max(largest)).max(1e-12) as f64;
        let text = if dark { "#c9d1d9" } else { "#444c56" };
        ctx.set_font(&label_font(LABEL_PX));
        ctx.set_text_baseline("middle");
        if values.is_empty() && rows > 0 {
            // The room kept, outlined dashed: a place for bars to come, not a blank.
            ctx.set_stroke_style_str(text);
            ctx.set_line_width(1.0);
            let _ = ctx.set_line_dash(&js_sys::Array::of2(&4.0.into(), &4.0.into()));
            ctx.stroke_rect(label_w + 0.5, gap + 0.5, plot_w - 1.0, css_h - 2.0 * gap - 1.0);
            let _ = ctx.set_line_dash(&js_sys::Array::new());
        }
        for (i, (label, &value)) in labels.iter().zip(values).enumerate() {
            let y = gap + i as f64 * (bar_h + gap);
            ctx.set_fill_style_str(text);
            ctx.set_text_align("right");
            let is_marked = marked == Some(i);
            if is_marked {
                ctx.set_font(&format!("bold {}", label_font(LABEL_PX)));
            }
            let _ = ctx.fill_text(label, label_w - 6.0, y + bar_h / 2.0);
            if is_marked {
                ctx.set_font(&label_font(LABEL_PX));
                // Outlined over the whole axis, so even a tiny probability's bar is found.
                ctx.set_stroke_style_str(text);
                ctx.set_line_width(2.0);
                ctx.stroke_rect(label_w - 1.0, y - 2.0, plot_w + 2.0, bar_h + 4.0);
            }
            // Length is |value|; negative values are told apart by colour (orange) and the "−"
            // sign. One solid colour per sign, at least 3:1 against the page in both themes.
            ctx.set_fill_style_str(&css(bar_color(value < 0.0, dark)));
            let w = plot_w * value.abs() as f64 / max;
            ctx.fill_rect(label_w, y, w.max(1.0), bar_h);
            ctx.set_fill_style_str(text);
            ctx.set_text_align("left");
            let _ = ctx.fill_text(&format_pt(value, 4), label_w + w + 6.0, y + bar_h / 2.0);
        }
    }
}
