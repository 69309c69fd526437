//! `rope`: the reader's q and k at every position 0 … P−1, turned by RoPE and, beside them,
//! with the 2017 sinusoidal encoding added. Two score maps q_m·k_n on one colour scale: RoPE's
//! is constant along each diagonal (the score depends on m − n only), the added encoding's is
//! not; the spreads along the diagonals are measured. The q turned to each position shows each
//! pair keeping its length while it turns, the first pair fastest.
//!
//! Attributes: `data-positions` (2 to 24; default 8).

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement};

use crate::core::format::{format_pt, format_pt_short};
use crate::core::modern::rope::{RopeJob, RopeScores, MAX_WIDTH};
use crate::core::Matrix;
use crate::site::palette::Scale;

use crate::web::dom;
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::line_plot::{Axes, LinePlot, Series};
use crate::web::kit::draw::MatrixView;
use crate::web::kit::ui::{self, show_results, MatrixEditor};
use crate::web::kit::{Ctx, Shell, Widget, WidgetKind};
use super::{columns, results_slot, shared_extent, wire_editor, EditedWidget};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::ROPE, mount };

fn row_name(i: usize) -> String {
    ["q", "k"].get(i).map_or_else(String::new, |s| s.to_string())
}

pub struct RopeWidget {
    shell: Shell,
    editor: RefCell<MatrixEditor>,
    positions: HtmlInputElement,
    log_theta: HtmlInputElement,
    readout: HtmlElement,
    turned: Rc<MatrixView>,
    rotated: Rc<MatrixView>,
    added: Rc<MatrixView>,
    by_offset: LinePlot,
    results: HtmlElement,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let shell = Shell::new(ctx, host, &KIND);
    let start = Matrix::from_rows(&[vec![1.0, 0.5, -0.3, 0.8], vec![0.6, -0.2, 0.9, 0.4]]).map_err(|e| e.to_string())?;
    let editor = MatrixEditor::new("qk", "q e k", &start, row_name);
    dom::append(&shell.inputs, &editor.root);
    let (positions_label, positions) = ui::slider("posições P ", "positions", 2.0, 24.0, 1.0, attrs.number("data-positions"));
    let (theta_label, log_theta) = ui::slider("log₁₀ θ ", "log-theta", 1.0, 6.0, 0.5, 4.0);
    let readout = ui::live("span", "readout");
    shell.control(&[&positions_label, &theta_label, &readout, &ui::button("+ par", "add-pair"), &ui::button("− par", "remove-pair")]);
    let turned = MatrixView::new("q-turned", "q girado para cada posição m", " (cada par gira; o primeiro, mais rápido)");
    let rotated = MatrixView::new("rope-scores", "RoPE: q_m · k_n", " (linhas: posição m de q; colunas: posição n de k)");
    let added = MatrixView::new("added-scores", "2017: (q + PE_m) · (k + PE_n)", " (a mesma escala de cores)");
    for view in [&turned, &rotated, &added] {
        view.typeset_row_labels();
    }
    let by_offset = LinePlot::new("rope-offset", "RoPE: o score contra a distância m − n");
    let results = results_slot();
    dom::append_all(&shell.outputs, &[&rotated.root, &added.root, &results, &by_offset.root, &turned.root]);
    let widget = Rc::new(RopeWidget { shell, editor: RefCell::new(editor), positions, log_theta, readout, turned, rotated, added, by_offset, results });
    wire_editor(&widget);
    Ok(widget)
}

impl EditedWidget for RopeWidget {
    const GROW: &'static str = "add-pair";
    const SHRINK: &'static str = "remove-pair";
    const STEP: usize = 2;
    const MIN_COLS: usize = 2;
    const MAX_COLS: usize = MAX_WIDTH;
    fn shell(&self) -> &Shell {
        &self.shell
    }
    fn editor(&self) -> &RefCell<MatrixEditor> {
        &self.editor
    }
    fn width_message() -> String {
        format!("Use de 1 a {} pares de números.", MAX_WIDTH / 2)
    }
}

impl RopeWidget {
    fn job(&self) -> Result<RopeJob, String> {
        let qk = self.editor.borrow().read()?;
        let log_theta = crate::core::format::parse_pt(&self.log_theta.value()).unwrap_or(4.0);
        let positions = ui::read_count(&self.positions, "P")?;
        Ok(RopeJob { q: qk.row(0), k: qk.row(1), positions, theta: 10f32.powf(log_theta) })
    }

    fn draw(&self, job: &RopeJob, s: &RopeScores) {
        let theta = format_pt_short(job.theta.round(), 0);
        self.readout.set_text_content(Some(&format!("P = {}, θ = {theta}", job.positions)));
        let rows = |name: &str| (0..job.positions).map(|m| format!("{name}_{{{m}}}")).collect::<Vec<_>>();
        let cols: Vec<String> = (0..job.positions).map(|n| format!("n = {n}")).collect();
        let extent = shared_extent(&[&s.rotated, &s.added]);
        self.rotated.show(&s.rotated, rows("q"), cols.clone(), Scale::SignedUpTo(extent));
        self.added.show(&s.added, rows("q"), cols, Scale::SignedUpTo(extent));
        self.turned.show(&s.q_turned, rows("q"), columns(s.q_turned.cols()), Scale::SignedUpTo(shared_extent(&[&s.q_turned])));
        let offsets: Vec<f64> = (0..s.by_offset.len()).map(|m| m as f64).collect();
        self.by_offset.update(
            &offsets,
            &[Series { label: "q_m·k_n com m − n fixo".into(), values: s.by_offset.iter().map(|&v| v as f64).collect(), dashed: false, dots: true }],
            &Axes { x_label: "distância m − n".into(), y_label: "score".into(), log_x: false, log_y: false, y_range: None },
            |x| format!("m − n = {x}"),
            |y| format_pt(y as f32, 4),
        );
        let mut rows = vec![
            ("RoPE: maior variação ao longo de uma diagonal (m − n fixo)".to_string(), format_pt(s.spread_rotated, 6)),
            ("2017: maior variação ao longo de uma diagonal".to_string(), format_pt(s.spread_added, 4)),
        ];
        rows.extend(s.frequencies.iter().enumerate().map(|(i, w)| (format!("par {}: ângulo por posição ω{} (rad)", i + 1, dom::subscript(i + 1)), format_pt(*w, 6))));
        show_results(&self.results, "rope", "O score depende só da distância?", &rows);
    }
}

impl Widget for RopeWidget {
    fn recompute(self: Rc<Self>) {
        let widget = self.clone();
        self.shell.compute_or(self.job(), move |job, scores, _| widget.draw(&job, &scores));
    }
}
