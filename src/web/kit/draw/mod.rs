//! Drawing, one of each: heatmaps with their legend and table twin (`heatmap`), bars
//! (`bars`), the line plot (`line_plot`), a histogram and a dense heatmap for large tables
//! (`figures`), the state graph (`graph`), table twins for numbers drawn by other means
//! (`twin`), and the canvas plumbing (`canvas`). The colour scales themselves are
//! `site::palette` (pure, tested natively).

pub mod bars;
pub mod canvas;
pub mod figures;
pub mod graph;
pub mod heatmap;
pub mod line_plot;
pub mod twin;

pub use bars::BarView;
pub use canvas::{available_width, canvas_figure, prepare_canvas};
pub use heatmap::{HeatmapData, MatrixView};
pub use crate::site::palette::Scale;

/// "1", "2", … "n": the labels of numbered rows or columns (a matrix's features).
pub fn numbered(n: usize) -> Vec<String> {
    (1..=n).map(|j| j.to_string()).collect()
}

/// The CSS colour at `t` (0 … 1, or −1 … 1 when `diverging`) in the current theme.
pub fn fill(diverging: bool, t: f32, dark: bool) -> String {
    crate::site::palette::css(crate::site::palette::rgb(diverging, t, dark))
}
