//! `embedding-lookup`: a text's one-hot matrix O times the lookup table E gives its embeddings
//! X = O·E; the step buttons (or "animar") walk the positions, outlining the 1 in O, the row of E
//! it selects and the row of X it fills. The rows of E are editable: change the row of "b" and
//! both "b" rows of X change. The direct gather E[ids] is computed too and must agree.
//!
//! Attributes: `data-text` (default "baba").

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::format::format_pt;
use crate::core::transformer::char_tokenizer::{encode, MAX_TEXT_CHARS, VOCAB_SIZE};
use crate::core::transformer::embedding::{distinct_ids, rows_of, seeded_table, Lookup, LookupJob};
use crate::core::Matrix;

use crate::web::dom;
use crate::web::kit::ui::{self, live_note, text_field, MatrixEditor};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{MatrixView, Scale};
use crate::web::kit::{control_of, Ctx, Shell, Widget, WidgetKind};
use crate::web::kit::on_hover;
use super::{chip_label, chips, numbered, positions, relabel_editor_rows};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::EMBEDDING_LOOKUP, mount };

/// The table's seed: the same "untrained" embeddings on every page.
const TABLE_SEED: u64 = 5;
/// Longest text, in characters (a row of O per token).
const MAX_CHARS: usize = 16;
const _: () = assert!(MAX_CHARS <= MAX_TEXT_CHARS);
/// Milliseconds per animation step.
const STEP_MS: i32 = 900;

pub struct EmbeddingWidget {
    shell: Shell,
    text: HtmlInputElement,
    dims: HtmlSelectElement,
    /// E (|V|, d): the whole table, edits included.
    table: RefCell<Matrix>,
    editor: RefCell<MatrixEditor>,
    /// The ids whose rows the editor shows.
    editor_ids: RefCell<Vec<u32>>,
    chips_slot: HtmlElement,
    step_note: HtmlElement,
    one_hot: Rc<MatrixView>,
    rows: Rc<MatrixView>,
    product: Rc<MatrixView>,
    agree: HtmlElement,
    /// Highlighted position (None: no highlight).
    position: Cell<Option<usize>>,
    last: RefCell<Option<(Vec<u32>, Lookup)>>,
    /// Bumped to stop a running animation.
    animation: Cell<u32>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let text0 = attrs.text("data-text").unwrap_or_else(|| "baba".into());
    let shell = Shell::new(ctx, host, &KIND);
    let (text_label, text) = text_field("texto ", "text", &text0);
    let editor = MatrixEditor::new("table", "linhas de E (edite)", &Matrix::zeros(1, 4), |i| format!("{}", i + 1));
    dom::append_all(&shell.inputs, &[&text_label, &editor.root]);

    let dim_options: Vec<(String, String)> = (2..=8).map(|d| (d.to_string(), format!("d = {d}"))).collect();
    let (dims_label, dims) = ui::select("largura ", "dims", &dim_options, "4");
    let prev = ui::button("◀ posição", "prev");
    let next = ui::button("posição ▶", "next");
    let play = ui::button("animar", "play");
    shell.control(&[&dims_label, &prev, &next, &play]);

    let chips_slot = dom::el("div", "token-rows wide");
    let step_note = live_note("step-note wide");
    let one_hot = MatrixView::new("one-hot", "O (t × |V|)", " só as colunas dos tokens presentes");
    let rows = MatrixView::new("table", "E (linhas usadas)", "");
    let product = MatrixView::new("product", "X = O · E", " (t × d)");
    let agree = dom::el("p", "note wide");
    dom::append_all(&shell.outputs, &[&chips_slot, &step_note, &one_hot.root, &rows.root, &product.root, &agree]);

    let widget = Rc::new(EmbeddingWidget {
        shell,
        text,
        dims,
        table: RefCell::new(seeded_table(VOCAB_SIZE, 4, TABLE_SEED)),
        editor: RefCell::new(editor),
        editor_ids: RefCell::new(Vec::new()),
        chips_slot,
        step_note,
        one_hot,
        rows,
        product,
        agree,
        position: Cell::new(None),
        last: RefCell::new(None),
        animation: Cell::new(0),
    });
    let shell = &widget.shell;
    shell.on(&widget, &shell.inputs, &["input"], |w, e| if control_of(e) == "text" { w.on_text() } else { w.on_edit() });
    shell.on(&widget, &shell.controls, &["change"], |w, e| {
        if control_of(e) == "dims" {
            w.on_dims();
        }
    });
    shell.on_action(&widget, |w, action| match action {
        "prev" => w.step(-1),
        "next" => w.step(1),
        "play" => w.play(),
        _ => {}
    });
    // A row of X is the row of E that the 1 in its row of O picks.
    on_hover(&widget, &widget.product, |w, cell| w.link(cell.map(|(p, _)| p)));
    on_hover(&widget, &widget.one_hot, |w, cell| w.link(cell.map(|(p, _)| p)));
    widget.sync_editor();
    Ok(widget)
}

impl EmbeddingWidget {
    fn ids(&self) -> Result<Vec<u32>, String> {
        let text = self.text.value();
        if text.is_empty() {
            return Err("Escreva um texto (por exemplo, baba).".into());
        }
        let count = text.chars().count();
        if count > MAX_CHARS {
            return Err(format!("Use até {MAX_CHARS} caracteres aqui (a matriz O tem uma linha por token); o texto tem {count}."));
        }
        Ok(encode(&text, true).ids())
    }

    /// Rebuilds the editor with E's rows for the text's distinct ids.
    fn sync_editor(&self) {
        let Ok(ids) = self.ids() else { return };
        let distinct = distinct_ids(&ids);
        let mut editor = self.editor.borrow_mut();
        editor.set(&rows_of(&self.table.borrow(), &distinct));
        let labels: Vec<String> = distinct.iter().map(|&id| format!("{} ({id})", chip_label(id))).collect();
        relabel_editor_rows(&editor.root, &labels);
        *self.editor_ids.borrow_mut() = distinct;
    }

    fn on_text(self: &Rc<Self>) {
        self.text_changed();
        self.clone().recompute();
    }

    /// A new text: the editor shows its tokens' rows, and any animation stops.
    fn text_changed(&self) {
        self.position.set(None);
        self.animation.set(self.animation.get().wrapping_add(1));
        self.sync_editor();
    }

    fn on_edit(self: &Rc<Self>) {
        match self.write_back() {
            Ok(()) => self.clone().recompute(),
            Err(e) => {
                self.shell.begin();
                self.shell.fail(&e);
            }
        }
    }

    /// Writes the edited rows back into E, so repeated tokens share them.
    fn write_back(&self) -> Result<(), String> {
        let edited = self.editor.borrow().read()?;
        let mut table = self.table.borrow_mut();
        for (r, &id) in self.editor_ids.borrow().iter().enumerate() {
            for c in 0..edited.cols().min(table.cols()) {
                table.set(id as usize, c, edited.get(r, c));
            }
        }
        Ok(())
    }

    fn on_dims(self: &Rc<Self>) {
        self.dims_changed();
        self.clone().recompute();
    }

    /// A new width: E is drawn again at that width.
    fn dims_changed(&self) {
        let d = self.dims.value().parse::<usize>().unwrap_or(4).clamp(2, 8);
        *self.table.borrow_mut() = seeded_table(VOCAB_SIZE, d, TABLE_SEED);
        self.sync_editor();
    }

    fn step(self: &Rc<Self>, delta: i32) {
        self.animation.set(self.animation.get().wrapping_add(1));
        self.move_to(delta);
    }

    fn move_to(self: &Rc<Self>, delta: i32) {
        let t = self.last.borrow().as_ref().map_or(0, |(ids, _)| ids.len());
        if t == 0 {
            return;
        }
        let next = match (self.position.get(), delta) {
            (None, d) if d < 0 => t - 1,
            (None, _) => 0,
            (Some(p), d) => (p as i32 + d).rem_euclid(t as i32) as usize,
        };
        self.position.set(Some(next));
        self.highlight();
    }

    /// Steps through every position once, then stops (another click or edit stops it too).
    fn play(self: &Rc<Self>) {
        let run = self.animation.get().wrapping_add(1);
        self.animation.set(run);
        self.position.set(None);
        let weak = Rc::downgrade(self);
        wasm_bindgen_futures::spawn_local(async move {
            loop {
                let Some(w) = weak.upgrade() else { return };
                if w.animation.get() != run {
                    return;
                }
                let t = w.last.borrow().as_ref().map_or(0, |(ids, _)| ids.len());
                if t == 0 || w.position.get().is_some_and(|p| p + 1 >= t) {
                    return;
                }
                w.move_to(1);
                drop(w);
                dom::sleep(STEP_MS).await;
            }
        });
    }

    /// The column of O (and row of E) that position `p` picks.
    fn column_of(&self, p: usize) -> Option<usize> {
        let last = self.last.borrow();
        let (ids, lookup) = last.as_ref()?;
        lookup.columns.iter().position(|&c| Some(&c) == ids.get(p))
    }

    /// Outlines, for the row of X or O under the pointer, the row of O, the row of E and
    /// the editor's row it goes through; at rest, the stepped position.
    fn link(&self, position: Option<usize>) {
        let position = position.or(self.position.get());
        let column = position.and_then(|p| self.column_of(p));
        let (rows, table_rows) = match (position, column) {
            (Some(p), Some(c)) => (vec![p], vec![c]),
            _ => (Vec::new(), Vec::new()),
        };
        self.one_hot.highlight(&rows, &table_rows);
        self.rows.highlight(&table_rows, &[]);
        self.product.highlight(&rows, &[]);
        self.editor.borrow().highlight(column, None);
    }

    /// Outlines position p in O, the table row it selects, and row p of X; explains it.
    fn highlight(&self) {
        self.link(None);
        let last = self.last.borrow();
        let Some((ids, lookup)) = last.as_ref() else { return };
        let Some(p) = self.position.get().filter(|&p| p < ids.len()) else {
            self.step_note.set_text_content(Some("Use «posição ▶» ou «animar» para percorrer as posições."));
            return;
        };
        let column = lookup.columns.iter().position(|&c| c == ids[p]).unwrap_or(0);
        self.one_hot.select(p, column);
        self.rows.select(column, 0);
        self.product.select(p, 0);
        let values: Vec<String> = lookup.product.row(p).iter().map(|v| format_pt(*v, 4)).collect();
        let token = chip_label(ids[p]);
        self.step_note.set_text_content(Some(&format!(
            "Posição {}: o token «{token}» (id {}) tem o seu 1 na coluna {} de O, então a linha {} de X é a linha de «{token}» em E: [{}].",
            p + 1,
            ids[p],
            column + 1,
            p + 1,
            values.join("; ")
        )));
    }

    fn draw(&self, ids: &[u32], lookup: &Lookup) {
        let token_cols: Vec<String> = lookup.columns.iter().map(|&id| chip_label(id)).collect();
        let dims = numbered(lookup.product.cols());
        self.one_hot.show(&lookup.one_hot, positions(ids), token_cols.clone(), Scale::Probability);
        self.rows.show(&lookup.table_rows, token_cols, dims.clone(), Scale::Signed);
        self.product.show(&lookup.product, positions(ids), dims, Scale::Signed);
        let diff = lookup.product.max_abs_diff(&lookup.gathered).unwrap_or(f32::NAN);
        self.agree.set_text_content(Some(&format!(
            "A consulta direta E[ids] (sem montar O, como faz nn.Embedding) dá a mesma matriz: diferença máxima {}. \
             As outras {} colunas de O são zero e não contribuem.",
            format_pt(diff, 4),
            VOCAB_SIZE - lookup.columns.len()
        )));
        self.chips_slot.set_text_content(None);
        dom::append(&self.chips_slot, &chips(ids, None));
    }
}

impl Widget for EmbeddingWidget {
    fn recompute(self: Rc<Self>) {
        let job = self.ids().map(|ids| LookupJob { table: self.table.borrow().clone(), ids });
        let widget = self.clone();
        self.shell.compute_or(job, move |job, lookup, _| {
            widget.draw(&job.ids, &lookup);
            *widget.last.borrow_mut() = Some((job.ids.clone(), lookup));
            widget.highlight();
        });
    }

    /// A restored text or width rebuilds the editor, as typing or choosing it does; a restored
    /// cell of E's rows is written back into E (repeated tokens share it).
    fn restore(&self, key: &str, _: &str) -> Option<bool> {
        match key {
            "text" => {
                self.text_changed();
                Some(true)
            }
            "dims" => {
                self.dims_changed();
                Some(true)
            }
            _ => key.starts_with("table@").then(|| self.write_back().is_ok()),
        }
    }
}
