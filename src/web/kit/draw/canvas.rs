//! Canvases sized to their box and crisp on HiDPI screens, labels with their notation typeset
//! (`h_{meus}`: h with a smaller, lower "meus"), and the hatching of masked cells.

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlElement};

use crate::core::format::parse_decimal;
use crate::site::notation::{pieces, Piece};
use crate::web::dom;

/// The frame of a canvas drawing: `<figure class>` (named `data.0 = data.1` if given), its
/// caption (`title`, notation typeset) and a canvas (`role=img`). Returns (figure, caption,
/// canvas); a drawing with numbers appends its table twin.
pub fn canvas_figure(class: &str, data: Option<(&str, &str)>, title: &str) -> (HtmlElement, HtmlElement, HtmlCanvasElement) {
    let root = dom::el("figure", class);
    if let Some((attr, key)) = data {
        dom::set_attr(&root, attr, key);
    }
    let caption = dom::notation("figcaption", "mv-title", title);
    let canvas = dom::el("canvas", "mv-canvas").unchecked_into::<HtmlCanvasElement>();
    dom::set_attr(&canvas, "role", "img");
    dom::append_all(&root, &[&caption, &canvas]);
    (root, caption, canvas)
}

/// Width (CSS px) of the box a figure sits in, so drawings fit a phone; 360 before layout.
pub fn available_width(figure: &HtmlElement) -> f64 {
    let width = figure.parent_element().map_or(0.0, |p| panel_width(&p));
    if width > 0.0 { width.min(640.0) } else { 360.0 }
}

thread_local! {
    /// Panel widths read during the current task, forgotten at its end (a microtask).
    static WIDTHS: std::cell::RefCell<Vec<(web_sys::Element, f64)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `panel.clientWidth` less its padding, read once per task. A widget redraws its heatmaps one after another,
/// each changing the page (canvas sizes, its table twin); reading the next panel's width then
/// forced a layout of the whole page, six in a row for the attention widget. A panel's width
/// comes from the page around it, not from the drawings in it, so one read per task serves
/// them all. A panel not laid out yet (width 0, hidden) is read again each time.
fn panel_width(panel: &web_sys::Element) -> f64 {
    if let Some(width) = WIDTHS.with(|w| w.borrow().iter().find(|(p, _)| p == panel).map(|(_, width)| *width)) {
        return width;
    }
    // The content box: a panel with padding (a bordered section) gives its drawings less.
    let padding = web_sys::window().and_then(|w| w.get_computed_style(panel).ok().flatten()).map_or(0.0, |style| {
        let px = |side: &str| style.get_property_value(side).ok().and_then(|v| parse_decimal(v.trim_end_matches("px"))).unwrap_or(0.0);
        px("padding-left") + px("padding-right")
    });
    let width = (panel.client_width() as f64 - padding).max(0.0);
    if width > 0.0 {
        let first = WIDTHS.with(|w| {
            let mut widths = w.borrow_mut();
            widths.push((panel.clone(), width));
            widths.len() == 1
        });
        if first {
            wasm_bindgen_futures::spawn_local(async { WIDTHS.with(|w| w.borrow_mut().clear()) });
        }
    }
    width
}

/// Calls `redraw` on `view` at the next animation frame after the window changes size (a phone
/// turned, a window dragged narrower), at most once per frame however many resize events come.
/// The view decides whether its panel's width really changed. Holds the view weakly.
pub fn on_window_resize<V: 'static>(view: &std::rc::Rc<V>, redraw: impl Fn(&V) + 'static) -> Option<dom::Listener> {
    let window = dom::window()?;
    let weak = std::rc::Rc::downgrade(view);
    let redraw = std::rc::Rc::new(redraw);
    let booked = std::rc::Rc::new(std::cell::Cell::new(false));
    Some(dom::Listener::new(&window, "resize", move |_| {
        if booked.replace(true) {
            return;
        }
        let (weak, redraw, booked) = (weak.clone(), redraw.clone(), booked.clone());
        dom::on_next_frame(move || {
            booked.set(false);
            if let Some(view) = weak.upgrade() {
                redraw(&view);
            }
        });
    }))
}

/// Sizes `canvas` to `css_w × css_h` CSS pixels with a backing store of device pixels (crisp
/// on HiDPI screens), clears it, and returns a context that draws in CSS pixels.
pub fn prepare_canvas(canvas: &HtmlCanvasElement, css_w: f64, css_h: f64) -> Option<CanvasRenderingContext2d> {
    let dpr = dom::window().map_or(1.0, |w| w.device_pixel_ratio()).max(1.0);
    // Sizes are written only when they change: an unchanged canvas leaves the page's layout
    // clean, so redrawing it (the decoder's bars, ten times a second) forces no layout.
    let (w, h) = ((css_w * dpr).round() as u32, (css_h * dpr).round() as u32);
    if canvas.width() != w {
        canvas.set_width(w);
    }
    if canvas.height() != h {
        canvas.set_height(h);
    }
    let style = canvas.style();
    for (name, value) in [("width", format!("{css_w}px")), ("height", format!("{css_h}px"))] {
        if style.get_property_value(name).ok().as_deref() != Some(value.as_str()) {
            let _ = style.set_property(name, &value);
        }
    }
    let ctx = context(canvas)?;
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.clear_rect(0.0, 0.0, css_w, css_h);
    Some(ctx)
}

/// The canvas's 2D context (to measure text before sizing the canvas).
pub fn context(canvas: &HtmlCanvasElement) -> Option<CanvasRenderingContext2d> {
    canvas.get_context("2d").ok().flatten()?.dyn_into::<CanvasRenderingContext2d>().ok()
}

/// The runs of `text` (`site::notation::pieces`), each with its font size and its shift down
/// from the baseline: superscripts and subscripts are three quarters of `px`, raised or lowered.
/// Plain text (`typeset` false: a reader's word is text, whatever `_` or `^` it holds) is one run.
fn runs(text: &str, px: f64, typeset: bool) -> impl Iterator<Item = (&str, f64, f64)> {
    let pieces = if typeset { pieces(text) } else { vec![Piece::Text(text)] };
    pieces.into_iter().map(move |piece| match piece {
        Piece::Text(t) => (t, px, 0.0),
        Piece::Sup(t) => (t, px * 0.75, -px * 0.35),
        Piece::Sub(t) => (t, px * 0.75, px * 0.3),
    })
}

/// The width (CSS px) of `text` drawn by `fill_notation` at `px` pixels. Expects the font at
/// `label_font(px)` and leaves it there: only a smaller run changes it (setting a font is
/// parsed anew each time, and a heatmap measures and draws dozens of labels).
pub fn notation_width(ctx: &CanvasRenderingContext2d, text: &str, px: f64, typeset: bool) -> f64 {
    runs(text, px, typeset).map(|(t, size, _)| in_font(ctx, size, px, || ctx.measure_text(t).map_or(0.0, |m| m.width()))).sum()
}

/// Draws the label `text` at (x, y) with its notation typeset, aligned as `align` ("left",
/// "center" or "right") over its whole width. Expects the font at `label_font(px)` and the
/// alignment "left", and leaves both so.
pub fn fill_notation(ctx: &CanvasRenderingContext2d, text: &str, x: f64, y: f64, align: &str, px: f64, typeset: bool) {
    let width = notation_width(ctx, text, px, typeset);
    let mut left = match align {
        "center" => x - width / 2.0,
        "right" => x - width,
        _ => x,
    };
    for (t, size, shift) in runs(text, px, typeset) {
        left += in_font(ctx, size, px, || {
            let _ = ctx.fill_text(t, left, y + shift);
            ctx.measure_text(t).map_or(0.0, |m| m.width())
        });
    }
}

/// Runs `f` with the font at `size` px, the context's font being `label_font(px)` before and after.
fn in_font<R>(ctx: &CanvasRenderingContext2d, size: f64, px: f64, f: impl FnOnce() -> R) -> R {
    if size == px {
        return f();
    }
    ctx.set_font(&label_font(size));
    let out = f();
    ctx.set_font(&label_font(px));
    out
}

/// The font of canvas labels at `px` pixels.
pub fn label_font(px: f64) -> String {
    format!("{px}px system-ui, sans-serif")
}

/// Diagonal hatching for masked cells.
pub fn hatch(ctx: &CanvasRenderingContext2d, x: f64, y: f64, size: f64, dark: bool) {
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

