//! An editable matrix: a grid of text inputs that accept "0,5" or "0.5". Invalid cells are
//! marked (`aria-invalid`) and reported by position; the reader's text is never discarded.

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement};

use crate::core::format::{format_pt_short, parse_pt};
use crate::core::Matrix;

use super::super::dom;

pub struct MatrixEditor {
    pub root: HtmlElement,
    grid: HtmlElement,
    name: String,
    row_label: fn(usize) -> String,
    cells: Vec<Vec<HtmlInputElement>>,
    cols: usize,
}

/// A cell that is not a number: where, and what was typed.
pub struct CellError {
    pub message: String,
}

impl MatrixEditor {
    /// `name` appears in labels and messages ("X", "W^Q"); rows get `row_label(i)`.
    pub fn new(key: &str, name: &str, initial: &Matrix, row_label: fn(usize) -> String) -> MatrixEditor {
        let root = dom::el("fieldset", "editor");
        dom::set_attr(&root, "data-editor", key);
        dom::append(&root, &dom::text("legend", "", name));
        let grid = dom::el("div", "editor-grid");
        dom::append(&root, &grid);
        let mut editor =
            MatrixEditor { root, grid, name: name.to_string(), row_label, cells: Vec::new(), cols: initial.cols() };
        editor.set(initial);
        editor
    }

    pub fn rows(&self) -> usize {
        self.cells.len()
    }

    /// Replaces the grid with `m`'s values.
    pub fn set(&mut self, m: &Matrix) {
        self.grid.set_text_content(None);
        self.cells.clear();
        self.cols = m.cols();
        let _ = self.grid.style().set_property("grid-template-columns", &format!("auto repeat({}, minmax(3.2em, 4.5em))", m.cols()));
        for r in 0..m.rows() {
            let values: Vec<String> = m.row(r).iter().map(|v| format_pt_short(*v, 4).replace('−', "-")).collect();
            self.push_row(&values);
        }
    }

    fn push_row(&mut self, values: &[String]) {
        let r = self.cells.len();
        let label = (self.row_label)(r);
        dom::append(&self.grid, &dom::text("span", "editor-row-label", &label));
        let row: Vec<HtmlInputElement> = values
            .iter()
            .enumerate()
            .map(|(c, value)| {
                let input = dom::el("input", "editor-cell").unchecked_into::<HtmlInputElement>();
                input.set_type("text");
                dom::set_attr(&input, "inputmode", "decimal");
                dom::set_attr(&input, "spellcheck", "false");
                dom::set_attr(&input, "aria-label", &format!("{} linha {}, coluna {}", self.name, r + 1, c + 1));
                // Its place, from 0: the key of its value in a saved or linked state (`state`).
                dom::set_attr(&input, "data-cell", &format!("{r}.{c}"));
                input.set_value(value);
                dom::append(&self.grid, &input);
                input
            })
            .collect();
        self.cells.push(row);
    }

    /// Adds a row of zeros.
    pub fn add_row(&mut self) {
        self.push_row(&vec!["0".to_string(); self.cols]);
    }

    /// Removes the last row (keeps at least one).
    pub fn remove_row(&mut self) {
        if self.cells.len() <= 1 {
            return;
        }
        let removed = self.cells.pop().unwrap_or_default();
        for input in removed {
            input.remove();
        }
        if let Some(label) = self.grid.query_selector_all(".editor-row-label").ok().and_then(|l| l.item(l.length().saturating_sub(1))) {
            if let Some(el) = label.dyn_ref::<web_sys::Element>() {
                el.remove();
            }
        }
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Changes the shape, keeping the values that still fit (new cells are 0; unreadable ones too).
    pub fn resize(&mut self, rows: usize, cols: usize) {
        let mut next = Matrix::zeros(rows, cols);
        for (r, row) in self.cells.iter().enumerate().take(rows) {
            for (c, input) in row.iter().enumerate().take(cols) {
                next.set(r, c, parse_pt(&input.value()).unwrap_or(0.0));
            }
        }
        self.set(&next);
    }

    /// Marks row `row` and/or column `col` (the operands of one output cell); `None` clears.
    pub fn highlight(&self, row: Option<usize>, col: Option<usize>) {
        for (r, cells) in self.cells.iter().enumerate() {
            for (c, input) in cells.iter().enumerate() {
                let on = row == Some(r) || col == Some(c);
                let _ = input.class_list().toggle_with_force("highlight", on);
            }
        }
    }

    /// Parses every cell; marks the bad ones and reports the first.
    pub fn read(&self) -> Result<Matrix, CellError> {
        let mut values = Vec::with_capacity(self.cells.len() * self.cols);
        let mut first_error = None;
        for (r, row) in self.cells.iter().enumerate() {
            for (c, input) in row.iter().enumerate() {
                let text = input.value();
                match parse_pt(&text) {
                    Some(v) => {
                        let _ = input.remove_attribute("aria-invalid");
                        values.push(v);
                    }
                    None => {
                        dom::set_attr(input, "aria-invalid", "true");
                        values.push(0.0);
                        first_error.get_or_insert_with(|| {
                            let shown: String = text.chars().take(20).collect();
                            CellError {
                                message: format!(
                                    "{}, linha {}, coluna {}: «{}» não é um número. Use, por exemplo, 0,5 ou -1.",
                                    self.name,
                                    r + 1,
                                    c + 1,
                                    shown
                                ),
                            }
                        });
                    }
                }
            }
        }
        if let Some(error) = first_error {
            return Err(error);
        }
        Matrix::from_vec(self.cells.len(), self.cols, values).map_err(|e| CellError { message: e.to_string() })
    }
}
