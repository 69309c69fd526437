//! An editable matrix: a grid of text inputs that accept "0,5" or "0.5". Invalid cells are
//! marked (`aria-invalid`) and reported by position; the reader's text is never discarded.
//!
//! Keyboard: the grid is one Tab stop (the cell last visited); arrow keys move between cells
//! (left and right once the caret reaches the edge of the cell's text), Enter goes down.
//! Values are written in full (0,00004 stays 0,00004): only drawings round.

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement, KeyboardEvent};

use crate::core::format::parse_pt;
use crate::core::Matrix;
use crate::site::notation::spoken;
use crate::web::dom::{self, Listener};

pub struct MatrixEditor {
    pub root: HtmlElement,
    grid: HtmlElement,
    name: String,
    row_label: fn(usize) -> String,
    cells: Vec<Vec<HtmlInputElement>>,
    cols: usize,
    /// Arrow keys, and the Tab stop following the focus.
    _listeners: [Listener; 2],
}

/// A value as the reader can read and type it: every digit f32 needs to round-trip, with a
/// decimal comma ("0,00004", "-1,5", "10000").
pub fn exact_text(v: f32) -> String {
    format!("{v}").replace('.', ",")
}

/// Moves the focus between the grid's cells; the cell reached becomes the grid's Tab stop.
fn on_key(grid: &HtmlElement, event: &web_sys::Event) {
    let (Some(key), Some(cell)) = (
        event.dyn_ref::<KeyboardEvent>(),
        event.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()).filter(|i| i.class_list().contains("editor-cell")),
    ) else {
        return;
    };
    let Some((r, c)) = cell.get_attribute("data-cell").and_then(|p| {
        let (r, c) = p.split_once('.')?;
        Some((r.parse::<usize>().ok()?, c.parse::<usize>().ok()?))
    }) else {
        return;
    };
    let len = cell.value().chars().count() as u32;
    let (start, end) = (cell.selection_start().ok().flatten().unwrap_or(0), cell.selection_end().ok().flatten().unwrap_or(len));
    let target = match key.key().as_str() {
        "ArrowUp" => r.checked_sub(1).map(|r| (r, c)),
        "ArrowDown" | "Enter" => Some((r + 1, c)),
        "ArrowLeft" if start == 0 && end == 0 => c.checked_sub(1).map(|c| (r, c)),
        "ArrowRight" if start >= len => Some((r, c + 1)),
        _ => return,
    };
    let next = target.and_then(|(r, c)| grid.query_selector(&format!("[data-cell=\"{r}.{c}\"]")).ok().flatten());
    match next.and_then(|n| n.dyn_into::<HtmlInputElement>().ok()) {
        Some(next) => {
            event.prevent_default();
            roving_focus(grid, &next);
            let _ = next.focus();
            next.select();
        }
        // Up and down stop at the edge instead of scrolling the page.
        None if matches!(key.key().as_str(), "ArrowUp" | "ArrowDown") => event.prevent_default(),
        None => {}
    }
}

/// `cell` becomes the only cell reachable with Tab.
fn roving_focus(grid: &HtmlElement, cell: &HtmlInputElement) {
    if let Ok(all) = grid.query_selector_all(".editor-cell") {
        for i in 0..all.length() {
            if let Some(other) = all.item(i).and_then(|n| n.dyn_into::<web_sys::Element>().ok()) {
                dom::set_attr(&other, "tabindex", "-1");
            }
        }
    }
    dom::set_attr(cell, "tabindex", "0");
}

impl MatrixEditor {
    /// `name` appears in labels and messages ("X", "W^Q"); rows get `row_label(i)`.
    pub fn new(key: &str, name: &str, initial: &Matrix, row_label: fn(usize) -> String) -> MatrixEditor {
        let root = dom::el("fieldset", "editor");
        dom::set_attr(&root, "data-editor", key);
        dom::append(&root, &dom::notation("legend", "", name));
        let grid = dom::el("div", "editor-grid");
        dom::set_attrs(&grid, &[("role", "group"), ("aria-description", "setas movem entre as células")]);
        dom::append(&root, &grid);
        let keys = {
            let grid = grid.clone();
            Listener::new(&grid.clone(), "keydown", move |event| on_key(&grid, &event))
        };
        let focus = {
            let grid_for = grid.clone();
            Listener::new(&grid.clone(), "focusin", move |event| {
                if let Some(cell) = event.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) {
                    roving_focus(&grid_for, &cell);
                }
            })
        };
        let mut editor = MatrixEditor {
            root,
            grid,
            name: spoken(name),
            row_label,
            cells: Vec::new(),
            cols: initial.cols(),
            _listeners: [keys, focus],
        };
        editor.set(initial);
        editor
    }

    /// The buttons (`data-action`s) that grow and shrink it: saved and linked states keep its
    /// size (`kit::state`), so the rows the reader added come back.
    pub fn resized_by(&self, grow: &str, shrink: &str) {
        dom::set_attrs(&self.root, &[("data-grow", grow), ("data-shrink", shrink)]);
    }

    pub fn rows(&self) -> usize {
        self.cells.len()
    }

    /// Replaces the grid with `m`'s values.
    pub fn set(&mut self, m: &Matrix) {
        self.grid.set_text_content(None);
        self.cells.clear();
        self.cols = m.cols();
        let rows: Vec<Vec<String>> = (0..m.rows()).map(|r| m.row(r).iter().map(|v| exact_text(*v)).collect()).collect();
        // Cells as wide as their longest value (a computed 0,22840437 is not cut to "0,2284"),
        // 4,5em where there is room for a number typed later; on a phone they shrink, but never
        // below their longest value: the editor scrolls sideways rather than cut a number.
        let longest = rows.iter().flatten().map(|v| v.chars().count()).max().unwrap_or(0);
        let needed = (0.62 * longest as f64 + 1.0).max(3.2);
        let widest = needed.max(4.5);
        let _ = self.grid.style().set_property("grid-template-columns", &format!("auto repeat({}, minmax({needed:.1}em, {widest:.1}em))", m.cols()));
        for values in &rows {
            self.push_row(values);
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
                // One Tab stop for the whole grid: the first cell until another is visited.
                dom::set_attr(&input, "tabindex", if r == 0 && c == 0 { "0" } else { "-1" });
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

    /// The rows a saved size asks for (`kit::state` keeps an editor's size as its number of
    /// cells) at this editor's width; None when it is not a whole number of rows.
    pub fn rows_for(&self, cells: &str) -> Option<usize> {
        let cells = cells.parse::<usize>().ok()?;
        (self.cols > 0 && cells % self.cols == 0).then_some(cells / self.cols)
    }

    /// Adds rows of zeros or removes the last ones until there are `rows` (at least one).
    pub fn set_rows(&mut self, rows: usize) {
        while self.rows() < rows {
            self.add_row();
        }
        while self.rows() > rows.max(1) {
            self.remove_row();
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

    /// Parses every cell; marks the bad ones and reports the first (where, and what was typed).
    pub fn read(&self) -> Result<Matrix, String> {
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
                            format!("{}, linha {}, coluna {}: «{shown}» não é um número. Use, por exemplo, 0,5 ou -1.", self.name, r + 1, c + 1)
                        });
                    }
                }
            }
        }
        if let Some(error) = first_error {
            return Err(error);
        }
        Matrix::from_vec(self.cells.len(), self.cols, values).map_err(|e| e.to_string())
    }
}

/// The row label of a matrix whose rows are only numbered (weights): «linha 1», «linha 2», …
pub fn numbered_row(i: usize) -> String {
    format!("linha {}", i + 1)
}
