//! `matmul`: A·B step by step. Pick an output cell (click, arrow keys, or "próxima célula"):
//! its row of A and column of B light up and the sum of products is spelled out. With one-hot
//! rows in A the product becomes a lookup of rows of B (preset "consulta").
//!
//! Attributes: `data-preset` = linhas (default) | vetores | matriz-vetor | vetor-matriz | consulta.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlSelectElement};

use crate::core::examples::article_matrix_products;
use crate::core::format::format_pt_short;
use crate::core::executor::MatmulJob;
use crate::core::ops::{matmul_cell_terms, one_hot_rows};
use crate::core::Matrix;

use crate::web::dom::{self, Listener};
use crate::web::kit::draw::{Scale, HeatmapData, MatrixView};
use crate::web::kit::ui::editor::MatrixEditor;
use crate::web::kit::attributes::Attributes;
use crate::web::kit::{control_of, listen, show_error, Ctx, Updates, Widget, WidgetKind};

pub const KIND: WidgetKind = WidgetKind { name: "matmul", title: "Multiplicação de matrizes, célula a célula", mount };

const MAX_SIDE: usize = 6;

fn row_label(i: usize) -> String {
    format!("linha {}", i + 1)
}

pub struct MatmulWidget {
    ctx: Rc<Ctx>,
    host: HtmlElement,
    a: RefCell<MatrixEditor>,
    b: RefCell<MatrixEditor>,
    preset: HtmlSelectElement,
    shape: [HtmlSelectElement; 3],
    result: Rc<MatrixView>,
    step: HtmlElement,
    lookup_note: HtmlElement,
    backend_note: HtmlElement,
    selected: Cell<(usize, usize)>,
    last: RefCell<Option<(Matrix, Matrix, Matrix)>>,
    updates: Updates,
    listeners: RefCell<Vec<Listener>>,
}

fn size_options() -> Vec<(String, String)> {
    (1..=MAX_SIDE).map(|n| (n.to_string(), n.to_string())).collect()
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let presets = article_matrix_products();
    let wanted = attrs.choice("data-preset");
    let (_, _, a0, b0) = presets.iter().find(|p| p.0 == wanted).or(presets.first()).cloned().ok_or("sem exemplos")?;
    dom::set_attr(host, "data-state", "loading");
    let _ = host.class_list().add_1("widget");
    host.set_text_content(None);
    dom::append(host, &dom::text("h3", "widget-title", KIND.title));

    let controls = dom::el("div", "widget-controls");
    let options: Vec<(String, String)> = presets.iter().map(|p| (p.0.to_string(), p.1.to_string())).collect();
    let (preset_label, preset) = dom::select("exemplo do artigo ", "preset", &options, wanted);
    dom::append(&controls, &preset_label);
    let (m_label, m) = dom::select("A: linhas ", "rows-a", &size_options(), &a0.rows().to_string());
    let (k_label, k) = dom::select(" colunas (= linhas de B) ", "inner", &size_options(), &a0.cols().to_string());
    let (p_label, p) = dom::select(" B: colunas ", "cols-b", &size_options(), &b0.cols().to_string());
    for el in [&m_label, &k_label, &p_label] {
        dom::append(&controls, el);
    }
    dom::append(host, &controls);

    let inputs = dom::el("div", "widget-inputs");
    let a = MatrixEditor::new("a", "A", &a0, row_label);
    let b = MatrixEditor::new("b", "B", &b0, row_label);
    dom::append(&inputs, &a.root);
    dom::append(&inputs, &b.root);
    dom::append(host, &inputs);

    let actions = dom::el("div", "widget-controls");
    let next = dom::button("próxima célula →", "next-cell");
    let (twins, twins_listener) = crate::web::kit::twins_button(host);
    dom::append(&actions, &next);
    dom::append(&actions, &twins);
    dom::append(host, &actions);

    let outputs = dom::el("div", "widget-outputs");
    let result = MatrixView::new("c", "C = A·B", "");
    dom::append(&outputs, &result.root);
    let explain = dom::el("div", "explain");
    let step = dom::el("p", "matmul-step");
    dom::set_attr(&step, "aria-live", "polite");
    let lookup_note = dom::el("p", "note");
    dom::append(&explain, &step);
    dom::append(&explain, &lookup_note);
    dom::append(&outputs, &explain);
    dom::append(host, &outputs);
    let backend_note = dom::el("p", "widget-backend");
    dom::append(host, &backend_note);

    let widget = Rc::new(MatmulWidget {
        ctx: ctx.clone(),
        host: host.clone(),
        a: RefCell::new(a),
        b: RefCell::new(b),
        preset,
        shape: [m, k, p],
        result,
        step,
        lookup_note,
        backend_note,
        selected: Cell::new((0, 0)),
        last: RefCell::new(None),
        updates: Updates::default(),
        listeners: RefCell::new(Vec::new()),
    });
    let weak = Rc::downgrade(&widget);
    widget.result.set_on_select(move |r, c| {
        if let Some(w) = weak.upgrade() {
            w.select(r, c);
        }
    });
    let on = |target: &HtmlElement, kind: &'static str, action: fn(&Rc<MatmulWidget>, &web_sys::Event)| listen(&widget, target, kind, action);
    *widget.listeners.borrow_mut() = vec![
        on(&inputs, "input", |w, _| w.clone().recompute()),
        on(&controls, "change", |w, e| w.on_control(e)),
        on(&next, "click", |w, _| w.next_cell()),
        twins_listener,
    ];
    Ok(widget)
}

impl MatmulWidget {
    fn on_control(self: &Rc<Self>, event: &web_sys::Event) {
        if control_of(event) == "preset" {
            let presets = article_matrix_products();
            if let Some((_, _, a, b)) = presets.iter().find(|p| p.0 == self.preset.value()) {
                self.a.borrow_mut().set(a);
                self.b.borrow_mut().set(b);
                self.shape[0].set_value(&a.rows().to_string());
                self.shape[1].set_value(&a.cols().to_string());
                self.shape[2].set_value(&b.cols().to_string());
            }
        } else {
            let size = |s: &HtmlSelectElement| s.value().parse::<usize>().unwrap_or(1).clamp(1, MAX_SIDE);
            let (m, k, p) = (size(&self.shape[0]), size(&self.shape[1]), size(&self.shape[2]));
            self.a.borrow_mut().resize(m, k);
            self.b.borrow_mut().resize(k, p);
        }
        self.selected.set((0, 0));
        self.clone().recompute();
    }

    fn next_cell(self: &Rc<Self>) {
        let Some(rows_cols) = self.last.borrow().as_ref().map(|(_, _, c)| c.shape()) else { return };
        let (r, c) = self.selected.get();
        let flat = (r * rows_cols.1 + c + 1) % (rows_cols.0 * rows_cols.1).max(1);
        self.select(flat / rows_cols.1, flat % rows_cols.1);
    }


    /// Shows how output cell (r, c) is made.
    fn select(&self, r: usize, c: usize) {
        let last = self.last.borrow();
        let Some((a, b, product)) = last.as_ref() else { return };
        if r >= product.rows() || c >= product.cols() {
            return;
        }
        self.selected.set((r, c));
        self.result.select(r, c);
        self.a.borrow().highlight(Some(r), None);
        self.b.borrow().highlight(None, Some(c));
        let Ok(terms) = matmul_cell_terms(a, b, r, c) else { return };
        let products: Vec<String> =
            terms.iter().map(|(x, y, _)| format!("{}·{}", format_pt_short(*x, 4), format_pt_short(*y, 4))).collect();
        let text = format!(
            "C[{}, {}] = linha {} de A · coluna {} de B = {} = {}",
            r + 1,
            c + 1,
            r + 1,
            c + 1,
            products.join(" + "),
            format_pt_short(product.get(r, c), 4)
        );
        self.step.set_text_content(Some(&text));
        dom::set_attr(&self.step, "data-cell", &format!("{},{}", r + 1, c + 1));
    }
}

impl Widget for MatmulWidget {
    fn recompute(self: Rc<Self>) {
        let update = self.updates.begin();
        let (a, b) = match (self.a.borrow().read(), self.b.borrow().read()) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => return show_error(&self.host, &e.message),
        };
        let job = MatmulJob { a, b };
        let widget = self.clone();
        crate::web::kit::update::compute(&self.ctx, &self.host, update, Some(&self.backend_note), job, move |job, product, _| {
            let rows: Vec<String> = (0..product.rows()).map(|i| format!("{}", i + 1)).collect();
            let cols: Vec<String> = (0..product.cols()).map(|j| format!("{}", j + 1)).collect();
            widget.result.update(HeatmapData {
                matrix: product.clone(),
                row_labels: rows,
                col_labels: cols,
                scale: Scale::Signed,
                masked: None,
            });
            let note = match one_hot_rows(&job.a) {
                Some(picks) => format!(
                    "Cada linha de A é one-hot, então C só copia linhas de B: {}.",
                    picks.iter().enumerate().map(|(i, k)| format!("linha {} de C = linha {} de B", i + 1, k + 1)).collect::<Vec<_>>().join("; ")
                ),
                None => String::new(),
            };
            widget.lookup_note.set_text_content(Some(&note));
            *widget.last.borrow_mut() = Some((job.a.clone(), job.b.clone(), product));
            let (r, c) = widget.selected.get();
            widget.select(r, c);
        });
    }
}
