//! Canvases sized to their box and crisp on HiDPI screens, and the hatching of masked cells.

use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlElement};

use crate::web::dom;

/// Width (CSS px) of the box a figure sits in, so drawings fit a phone; 360 before layout.
pub fn available_width(figure: &HtmlElement) -> f64 {
    let width = figure.parent_element().map_or(0.0, |p| p.client_width() as f64);
    if width > 0.0 { width.min(640.0) } else { 360.0 }
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
    let ctx = canvas.get_context("2d").ok().flatten()?.dyn_into::<CanvasRenderingContext2d>().ok()?;
    let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    ctx.clear_rect(0.0, 0.0, css_w, css_h);
    Some(ctx)
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

