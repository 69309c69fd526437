//! A state graph on canvas: one node per state, one arrow per non-zero transition with its
//! width (and colour) following the probability, self-loops outside the node, in the page's
//! theme. Its twin is a table of the drawn edges ("de → para: p"), since the graph shows a
//! matrix.

use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement, HtmlElement};

use crate::core::format::{format_pt, format_pt_short};
use crate::core::Matrix;
use crate::site::notation::plain;

use crate::web::dom;

use super::canvas::{available_width, prepare_canvas};
use super::{fill, twin};

/// Edges listed in the twin before it says "…".
const MAX_TWIN_EDGES: usize = 300;

pub struct StateGraph {
    pub root: HtmlElement,
    canvas: HtmlCanvasElement,
    table: HtmlElement,
    title: String,
}

/// How a graph is drawn.
pub struct GraphStyle {
    /// A node drawn filled (the current state, the chosen word).
    pub highlight: Option<usize>,
    /// Fade every edge that does not leave the highlighted node.
    pub focus_edges: bool,
}

struct Point {
    x: f64,
    y: f64,
}

impl StateGraph {
    /// `key` names the twin (`data-results`) and the figure (`data-graph`); `title` is shown
    /// with its notation typeset.
    pub fn new(key: &str, title: &str) -> StateGraph {
        let (root, _, canvas) = super::canvas::canvas_figure("mv graph", Some(("data-graph", key)), title);
        let title = plain(title);
        dom::set_attr(&canvas, "aria-label", &format!("{title}: cada seta é uma transição, mais grossa quanto mais provável"));
        let table = twin::table("data-results", key);
        dom::append(&root, &table);
        StateGraph { root, canvas, table, title }
    }

    /// Draws `labels.len()` states with transition probabilities `p` (square, rows = from).
    pub fn update(&self, labels: &[String], p: &Matrix, style: &GraphStyle) {
        self.fill_table(labels, p);
        let n = labels.len().min(p.rows()).min(p.cols());
        let w = available_width(&self.root).min(560.0);
        let h = if n <= 2 { 190.0 } else { (w * 0.85).min(460.0) };
        let Some(ctx) = prepare_canvas(&self.canvas, w, h) else { return };
        let dark = dom::dark_at(&self.root);
        let ink = if dark { "#c9d1d9" } else { "#24292f" };
        let (cx, cy) = (w / 2.0, h / 2.0);
        // The ring leaves room for the labels outside it; nodes shrink so that neighbours keep a
        // gap of at least their own size on a phone-width canvas.
        let ring = (h / 2.0 - 36.0).min(w / 2.0 - 80.0).max(40.0);
        let radius = if n <= 4 { 30.0 } else { (std::f64::consts::PI * ring / n as f64 * 0.5).clamp(4.0, 22.0) };
        let positions: Vec<Point> = (0..n)
            .map(|i| {
                if n == 1 {
                    Point { x: cx, y: cy }
                } else if n == 2 {
                    Point { x: cx + if i == 0 { -w * 0.22 } else { w * 0.22 }, y: cy }
                } else {
                    let angle = -std::f64::consts::FRAC_PI_2 + std::f64::consts::TAU * i as f64 / n as f64;
                    Point { x: cx + ring * angle.cos(), y: cy + ring * angle.sin() }
                }
            })
            .collect();
        let labels_on_edges = n <= 10;
        // Edges first, nodes on top, then the edges' probabilities over both (a label under a
        // node or its name could not be read).
        let mut edge_labels: Vec<(Point, String, bool)> = Vec::new();
        for i in 0..n {
            for j in 0..n {
                let prob = p.get(i, j);
                if prob.is_nan() || prob <= 0.0 {
                    continue;
                }
                let faded = style.focus_edges && style.highlight.is_some_and(|h| h != i);
                // On a dark page the heatmap's deep purple would vanish: a light purple (the bars'
                // colour of a magnitude, `palette::bar_color(false, true)`, written out: formatting
                // its bytes here cost 0,3 KB of the wasm) whose opacity follows p.
                let stroke = if dark {
                    format!("rgba(188,160,240,{:.2})", 0.45 + 0.55 * prob.min(1.0))
                } else {
                    fill(false, 0.35 + 0.65 * prob.min(1.0), dark)
                };
                ctx.set_global_alpha(if faded { 0.18 } else { 1.0 });
                ctx.set_stroke_style_str(&stroke);
                ctx.set_fill_style_str(&stroke);
                ctx.set_line_width(1.0 + 7.0 * prob.min(1.0) as f64);
                let show_label = labels_on_edges || (style.highlight == Some(i));
                let at = if i == j { self_loop(&ctx, &positions[i], radius, cx, cy, n) } else { arrow(&ctx, &positions[i], &positions[j], radius, n) };
                if show_label {
                    edge_labels.push((at, format_pt_short(prob, 2), faded));
                }
            }
        }
        ctx.set_global_alpha(1.0);
        ctx.set_line_width(1.5);
        let accent = if dark { "#58a6ff" } else { "#0b5cad" };
        for (i, pos) in positions.iter().enumerate() {
            let chosen = style.highlight == Some(i);
            ctx.begin_path();
            let _ = ctx.arc(pos.x, pos.y, radius, 0.0, std::f64::consts::TAU);
            ctx.set_fill_style_str(if chosen { accent } else if dark { "#161b22" } else { "#ffffff" });
            ctx.fill();
            ctx.set_stroke_style_str(if chosen { accent } else { ink });
            ctx.stroke();
            ctx.set_font(if n <= 4 { "bold 13px system-ui, sans-serif" } else { "12px system-ui, sans-serif" });
            ctx.set_text_baseline("middle");
            if n <= 4 {
                ctx.set_text_align("center");
                ctx.set_fill_style_str(if chosen { "#ffffff" } else { ink });
                let _ = ctx.fill_text(&labels[i], pos.x, pos.y);
            } else {
                // Outside the ring, pointing away from the centre.
                let (dx, dy) = (pos.x - cx, pos.y - cy);
                let len = (dx * dx + dy * dy).sqrt().max(1.0);
                let (lx, ly) = (pos.x + dx / len * (radius + 6.0), pos.y + dy / len * (radius + 6.0));
                // Kept inside the canvas: a long name at the ring's left or right edge would be cut.
                let text_w = ctx.measure_text(&labels[i]).map_or(0.0, |m| m.width());
                let (left, align) = if dx > 1.0 { (lx, "left") } else if dx < -1.0 { (lx - text_w, "right") } else { (lx - text_w / 2.0, "center") };
                let shift = if left < 2.0 { 2.0 - left } else if left + text_w > w - 2.0 { w - 2.0 - left - text_w } else { 0.0 };
                let ly = (ly + if dx.abs() <= 1.0 { dy.signum() * 6.0 } else { 0.0 }).clamp(8.0, h - 8.0);
                ctx.set_text_align(align);
                ctx.set_fill_style_str(if chosen { accent } else { ink });
                let _ = ctx.fill_text(&labels[i], lx + shift, ly);
            }
        }
        for (at, text, faded) in &edge_labels {
            ctx.set_global_alpha(if *faded { 0.35 } else { 1.0 });
            edge_label(&ctx, at, EdgeLabel { text, ink, dark });
        }
        ctx.set_global_alpha(1.0);
    }

    fn fill_table(&self, labels: &[String], p: &Matrix) {
        let n = p.rows().min(p.cols()).min(labels.len());
        let edges: Vec<(usize, usize, f32)> =
            (0..n).flat_map(|i| (0..n).map(move |j| (i, j))).map(|(i, j)| (i, j, p.get(i, j))).filter(|e| e.2 > 0.0).collect();
        let more = edges.len().saturating_sub(MAX_TWIN_EDGES);
        let rows = edges.iter().take(MAX_TWIN_EDGES).map(|&(i, j, prob)| (format!("{} → {}", labels[i], labels[j]), vec![format_pt(prob, 4)]));
        let rest = (more > 0).then(|| (format!("… e mais {more} transições"), vec![String::new()]));
        twin::fill(&self.table, &self.title, "", &[], rows.chain(rest));
    }
}


/// The probability written on an edge, in the theme's colours.
#[derive(Clone, Copy)]
struct EdgeLabel<'a> {
    text: &'a str,
    ink: &'a str,
    dark: bool,
}

/// A curved arrow from `a` to `b` (bent to its right, so a→b and b→a do not overlap); returns
/// where its label goes.
fn arrow(ctx: &CanvasRenderingContext2d, a: &Point, b: &Point, radius: f64, n: usize) -> Point {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let dist = (dx * dx + dy * dy).sqrt().max(1.0);
    let bend = if n == 2 { 0.22 } else { 0.12 };
    let control = Point { x: (a.x + b.x) / 2.0 + dy / dist * dist * bend, y: (a.y + b.y) / 2.0 - dx / dist * dist * bend };
    let towards = |from: &Point, to: &Point| {
        let (ux, uy) = (to.x - from.x, to.y - from.y);
        let len = (ux * ux + uy * uy).sqrt().max(1.0);
        Point { x: from.x + ux / len * radius, y: from.y + uy / len * radius }
    };
    let start = towards(a, &control);
    let end = towards(b, &control);
    ctx.begin_path();
    ctx.move_to(start.x, start.y);
    ctx.quadratic_curve_to(control.x, control.y, end.x, end.y);
    ctx.stroke();
    arrowhead(ctx, &control, &end, ctx.line_width());
    Point { x: 0.25 * start.x + 0.5 * control.x + 0.25 * end.x, y: 0.25 * start.y + 0.5 * control.y + 0.25 * end.y }
}

/// A loop outside node `a` (away from the centre of the drawing); returns where its label goes.
fn self_loop(ctx: &CanvasRenderingContext2d, a: &Point, radius: f64, cx: f64, cy: f64, n: usize) -> Point {
    let (mut dx, mut dy) = (a.x - cx, a.y - cy);
    if n == 1 || (dx == 0.0 && dy == 0.0) {
        dx = 0.0;
        dy = -1.0;
    }
    let len = (dx * dx + dy * dy).sqrt();
    let (ux, uy) = (dx / len, dy / len);
    let loop_r = radius * 0.7;
    let centre = Point { x: a.x + ux * radius * 1.35, y: a.y + uy * radius * 1.35 };
    ctx.begin_path();
    let _ = ctx.arc(centre.x, centre.y, loop_r, 0.0, std::f64::consts::TAU);
    ctx.stroke();
    // The arrowhead where the loop re-enters the node, along the loop's tangent there.
    let angle = uy.atan2(ux) + std::f64::consts::PI * 0.75;
    let tip = Point { x: centre.x + loop_r * angle.cos(), y: centre.y + loop_r * angle.sin() };
    let (tx, ty) = (-angle.sin(), angle.cos());
    let from = Point { x: tip.x - tx * 6.0, y: tip.y - ty * 6.0 };
    arrowhead(ctx, &from, &tip, ctx.line_width());
    Point { x: centre.x + ux * (loop_r + 12.0), y: centre.y + uy * (loop_r + 12.0) }
}

fn arrowhead(ctx: &CanvasRenderingContext2d, from: &Point, tip: &Point, width: f64) {
    let angle = (tip.y - from.y).atan2(tip.x - from.x);
    let size = 7.0 + width;
    ctx.begin_path();
    ctx.move_to(tip.x, tip.y);
    ctx.line_to(tip.x - size * (angle - 0.4).cos(), tip.y - size * (angle - 0.4).sin());
    ctx.line_to(tip.x - size * (angle + 0.4).cos(), tip.y - size * (angle + 0.4).sin());
    ctx.close_path();
    ctx.fill();
}

fn edge_label(ctx: &CanvasRenderingContext2d, at: &Point, EdgeLabel { text, ink, dark }: EdgeLabel) {
    ctx.save();
    ctx.set_global_alpha(1.0);
    ctx.set_font("11px system-ui, sans-serif");
    ctx.set_text_align("center");
    ctx.set_text_baseline("middle");
    let width = ctx.measure_text(text).map_or(20.0, |m| m.width());
    ctx.set_fill_style_str(if dark { "rgba(13,17,23,0.85)" } else { "rgba(255,255,255,0.85)" });
    ctx.fill_rect(at.x - width / 2.0 - 2.0, at.y - 7.0, width + 4.0, 14.0);
    ctx.set_fill_style_str(ink);
    let _ = ctx.fill_text(text, at.x, at.y);
    ctx.restore();
}
