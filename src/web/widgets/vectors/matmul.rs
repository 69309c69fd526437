//! `matmul`: A·B step by step. Pick an output cell (click, arrow keys, or "próxima célula"):
//! its row of A and column of B light up and the sum of products is spelled out; hovering a
//! cell previews it the same way. With one-hot rows in A the product becomes a lookup of rows
//! of B (preset "consulta").
//!
//! Attributes: `data-preset` = linhas (default) | vetores | matriz-vetor | vetor-matriz | consulta.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlSelectElement};

use crate::core::examples::article_matrix_products;
use crate::core::executor::MatmulJob;
use crate::core::format::format_pt_short;
use crate::core::ops::{matmul_cell_terms, one_hot_rows};
use crate::core::Matrix;

use crate::web::dom;
use crate::web::kit::ui::{self, numbered_row, MatrixEditor};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{numbered, HeatmapData, MatrixView, Scale};
use crate::web::kit::{control_of, on_hover, Ctx, Shell, Widget, WidgetKind};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::MATMUL, mount };

const MAX_SIDE: usize = 6;

pub struct MatmulWidget {
    shell: Shell,
    a: RefCell<MatrixEditor>,
    b: RefCell<MatrixEditor>,
    preset: HtmlSelectElement,
    /// Rows of A, columns of A (= rows of B), columns of B.
    shape: [HtmlSelectElement; 3],
    result: Rc<MatrixView>,
    step: HtmlElement,
    lookup_note: HtmlElement,
    /// The cell explained when the pointer is elsewhere.
    selected: Cell<(usize, usize)>,
    /// A, B and C of the last product.
    last: RefCell<Option<(Matrix, Matrix, Matrix)>>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let presets = article_matrix_products();
    let wanted = attrs.choice("data-preset");
    let (_, _, a0, b0) = presets.iter().find(|p| p.0 == wanted).or(presets.first()).cloned().ok_or("sem exemplos")?;
    let shell = Shell::new(ctx, host, &KIND);
    // The example and the shape come before the matrices they rewrite (a saved state is
    // restored in page order).
    let shape_row = dom::el("div", "widget-controls");
    let options: Vec<(String, String)> = presets.iter().map(|p| (p.0.to_string(), p.1.to_string())).collect();
    let (preset_label, preset) = ui::select("exemplo do artigo original ", "preset", &options, wanted);
    let sizes = numbered(MAX_SIDE).into_iter().map(|n| (n.clone(), n)).collect::<Vec<_>>();
    let (m_label, m) = ui::select("A: linhas ", "rows-a", &sizes, &a0.rows().to_string());
    let (k_label, k) = ui::select(" colunas (= linhas de B) ", "inner", &sizes, &a0.cols().to_string());
    let (p_label, p) = ui::select(" B: colunas ", "cols-b", &sizes, &b0.cols().to_string());
    dom::append_all(&shape_row, &[&preset_label, &m_label, &k_label, &p_label]);
    dom::append(&shell.inputs, &shape_row);
    let a = MatrixEditor::new("a", "A", &a0, numbered_row);
    let b = MatrixEditor::new("b", "B", &b0, numbered_row);
    dom::append_all(&shell.inputs, &[&a.root, &b.root]);
    shell.control(&[&ui::button("próxima célula →", "next-cell")]);

    let result = MatrixView::new("c", "C = A·B", "");
    dom::append(&shell.outputs, &result.root);
    let explain = dom::el("div", "explain");
    let step = ui::live("p", "matmul-step");
    let lookup_note = dom::el("p", "note");
    dom::append_all(&explain, &[&step, &lookup_note]);
    dom::append(&shell.outputs, &explain);

    let widget = Rc::new(MatmulWidget {
        shell,
        a: RefCell::new(a),
        b: RefCell::new(b),
        preset,
        shape: [m, k, p],
        result,
        step,
        lookup_note,
        selected: Cell::new((0, 0)),
        last: RefCell::new(None),
    });
    let shell = &widget.shell;
    shell.on(&widget, &shell.inputs, &["input"], |w, e| {
        if control_of(e).is_empty() {
            w.clone().recompute();
        }
    });
    shell.on(&widget, &shell.inputs, &["change"], |w, e| w.on_shape(e));
    shell.on_action(&widget, |w, action| if action == "next-cell" { w.next_cell() });
    // Clicking or arrowing onto a cell of C selects it; hovering one previews it.
    let weak = Rc::downgrade(&widget);
    widget.result.set_on_select(move |r, c| {
        if let Some(w) = weak.upgrade() {
            w.select(r, c);
        }
    });
    on_hover(&widget, &widget.result, |w, cell| {
        let (r, c) = cell.unwrap_or_else(|| w.selected.get());
        w.explain(r, c);
    });
    Ok(widget)
}

impl MatmulWidget {
    /// The example or a size changed (the editors' cells only fire "input").
    fn on_shape(self: &Rc<Self>, event: &web_sys::Event) {
        if self.shape_changed(&control_of(event)) {
            self.clone().recompute();
        }
    }

    /// Rewrites the editors after `control` (the example or a size) changed; false for another
    /// control.
    fn shape_changed(&self, control: &str) -> bool {
        match control {
            "preset" => {
                let presets = article_matrix_products();
                if let Some((_, _, a, b)) = presets.iter().find(|p| p.0 == self.preset.value()) {
                    self.a.borrow_mut().set(a);
                    self.b.borrow_mut().set(b);
                    self.shape[0].set_value(&a.rows().to_string());
                    self.shape[1].set_value(&a.cols().to_string());
                    self.shape[2].set_value(&b.cols().to_string());
                }
            }
            "rows-a" | "inner" | "cols-b" => {
                let size = |s: &HtmlSelectElement| s.value().parse::<usize>().unwrap_or(1).clamp(1, MAX_SIDE);
                let (m, k, p) = (size(&self.shape[0]), size(&self.shape[1]), size(&self.shape[2]));
                self.a.borrow_mut().resize(m, k);
                self.b.borrow_mut().resize(k, p);
            }
            _ => return false,
        }
        self.selected.set((0, 0));
        true
    }

    fn next_cell(&self) {
        let Some((rows, cols)) = self.last.borrow().as_ref().map(|(_, _, c)| c.shape()) else { return };
        let (r, c) = self.selected.get();
        let flat = (r * cols + c + 1) % (rows * cols).max(1);
        self.select(flat / cols, flat % cols);
    }

    /// Selects output cell (r, c): outlined in C, and explained while the pointer is elsewhere.
    fn select(&self, r: usize, c: usize) {
        let in_bounds = self.last.borrow().as_ref().is_some_and(|(_, _, product)| r < product.rows() && c < product.cols());
        if in_bounds {
            self.selected.set((r, c));
            self.result.select(r, c);
            self.explain(r, c);
        }
    }

    /// Shows how output cell (r, c) is made: row r of A and column c of B outlined in the
    /// editors, and the sum of their products written out.
    fn explain(&self, r: usize, c: usize) {
        let last = self.last.borrow();
        let Some((a, b, product)) = last.as_ref() else { return };
        let Ok(terms) = matmul_cell_terms(a, b, r, c) else { return };
        self.a.borrow().highlight(Some(r), None);
        self.b.borrow().highlight(None, Some(c));
        let products: Vec<String> = terms.iter().map(|(x, y, _)| format!("{}·{}", format_pt_short(*x, 4), format_pt_short(*y, 4))).collect();
        let text = format!(
            "C[{0}, {1}] = linha {0} de A · coluna {1} de B = {2} = {3}",
            r + 1,
            c + 1,
            products.join(" + "),
            format_pt_short(product.get(r, c), 4)
        );
        self.step.set_text_content(Some(&text));
        dom::set_attr(&self.step, "data-cell", &format!("{},{}", r + 1, c + 1));
    }

    fn draw(&self, a: &Matrix, b: &Matrix, product: Matrix) {
        let (rows, cols) = product.shape();
        self.result.update(HeatmapData { matrix: product.clone(), row_labels: numbered(rows), col_labels: numbered(cols), scale: Scale::Signed, masked: None });
        let note = match one_hot_rows(a) {
            Some(picks) => format!(
                "Cada linha de A é one-hot, então C só copia linhas de B: {}.",
                picks.iter().enumerate().map(|(i, k)| format!("linha {} de C = linha {} de B", i + 1, k + 1)).collect::<Vec<_>>().join("; ")
            ),
            None => String::new(),
        };
        self.lookup_note.set_text_content(Some(&note));
        *self.last.borrow_mut() = Some((a.clone(), b.clone(), product));
        let (r, c) = self.selected.get();
        self.select(r, c);
    }
}

impl Widget for MatmulWidget {
    fn recompute(self: Rc<Self>) {
        let job = self.a.borrow().read().and_then(|a| Ok(MatmulJob { a, b: self.b.borrow().read()? }));
        let widget = self.clone();
        self.shell.compute_or(job, move |job, product, _| widget.draw(&job.a, &job.b, product));
    }

    /// A restored example or size rewrites the editors, as choosing it does.
    fn restore(&self, key: &str, _: &str) -> Option<bool> {
        matches!(key, "preset" | "rows-a" | "inner" | "cols-b").then(|| self.shape_changed(key))
    }
}
