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
use crate::core::transformer::embedding::{rows_of, seeded_table, Lookup, LookupJob};
use crate::core::Matrix;

use crate::web::dom::{self, Listener};
use crate::web::kit::draw::{Scale, HeatmapData, MatrixView};
use crate::web::kit::ui::editor::MatrixEditor;
use crate::web::kit::attributes::Attributes;
use crate::web::kit::{show_error, Ctx, Updates, Widget, WidgetKind};
use super::{backend_note, chip_label, chips, control_of, frame, listen, relabel_editor_rows, text_input};

pub const KIND: WidgetKind = WidgetKind { name: "embedding-lookup", title: "Embeddings: one-hot × tabela", mount };

/// The table's seed: the same "untrained" embeddings on every page.
const TABLE_SEED: u64 = 5;
/// Longest text, in characters (a row of O per token).
const MAX_CHARS: usize = 16;
const _: () = assert!(MAX_CHARS <= MAX_TEXT_CHARS);
/// Milliseconds per animation step.
const STEP_MS: i32 = 900;

pub struct EmbeddingWidget {
    ctx: Rc<Ctx>,
    host: HtmlElement,
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
    backend_note: HtmlElement,
    /// Highlighted position (None: no highlight).
    position: Cell<Option<usize>>,
    last: RefCell<Option<(Vec<u32>, Lookup)>>,
    updates: Updates,
    /// Bumped to stop a running animation.
    animation: Cell<u32>,
    listeners: RefCell<Vec<Listener>>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let text0 = attrs.text("data-text").unwrap_or_else(|| "baba".into());
    frame(host, KIND.title);
    let fields = dom::el("div", "fields");
    let (text_label, text) = text_input("texto ", "text", &text0);
    dom::append(&fields, &text_label);
    dom::append(host, &fields);
    let chips_slot = dom::el("div", "token-rows");
    dom::append(host, &chips_slot);

    let controls = dom::el("div", "widget-controls");
    let dim_options: Vec<(String, String)> = (2..=8).map(|d| (d.to_string(), format!("d = {d}"))).collect();
    let (dims_label, dims) = dom::select("largura ", "dims", &dim_options, "4");
    let prev = dom::button("◀ posição", "prev");
    let next = dom::button("posição ▶", "next");
    let play = dom::button("animar", "play");
    let (twins, twins_listener) = crate::web::kit::twins_button(host);
    for el in [&dims_label, &prev, &next, &play, &twins] {
        dom::append(&controls, el);
    }
    dom::append(host, &controls);
    let step_note = dom::el("p", "step-note");
    dom::set_attr(&step_note, "aria-live", "polite");
    dom::append(host, &step_note);

    let table = seeded_table(VOCAB_SIZE, 4, TABLE_SEED);
    let editor = MatrixEditor::new("table", "linhas de E (edite)", &Matrix::zeros(1, 4), |i| format!("{}", i + 1));
    let outputs = dom::el("div", "widget-outputs lookup");
    let one_hot = MatrixView::new("one-hot", "O (t × |V|)", " só as colunas dos tokens presentes");
    let rows = MatrixView::new("table", "E (linhas usadas)", "");
    let product = MatrixView::new("product", "X = O · E", " (t × d)");
    dom::append(&outputs, &one_hot.root);
    dom::append(&outputs, &editor.root);
    dom::append(&outputs, &rows.root);
    dom::append(&outputs, &product.root);
    dom::append(host, &outputs);
    let agree = dom::el("p", "note");
    dom::append(host, &agree);
    let backend_note = backend_note(host);

    let widget = Rc::new(EmbeddingWidget {
        ctx: ctx.clone(),
        host: host.clone(),
        text,
        dims,
        table: RefCell::new(table),
        editor: RefCell::new(editor),
        editor_ids: RefCell::new(Vec::new()),
        chips_slot,
        step_note,
        one_hot,
        rows,
        product,
        agree,
        backend_note,
        position: Cell::new(None),
        last: RefCell::new(None),
        updates: Updates::default(),
        animation: Cell::new(0),
        listeners: RefCell::new(Vec::new()),
    });
    let editor_root = widget.editor.borrow().root.clone();
    *widget.listeners.borrow_mut() = vec![
        listen(&widget, &fields, "input", |w, _| w.on_text()),
        listen(&widget, &editor_root, "input", |w, _| w.on_edit()),
        listen(&widget, &controls, "change", |w, e| {
            if control_of(e) == "dims" {
                w.on_dims();
            }
        }),
        listen(&widget, &prev, "click", |w, _| w.step(-1)),
        listen(&widget, &next, "click", |w, _| w.step(1)),
        listen(&widget, &play, "click", |w, _| w.play()),
        twins_listener,
    ];
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
        let distinct = crate::core::transformer::embedding::distinct_ids(&ids);
        let rows = rows_of(&self.table.borrow(), &distinct);
        let mut editor = self.editor.borrow_mut();
        editor.set(&rows);
        let labels: Vec<String> = distinct.iter().map(|&id| format!("{} ({id})", chip_label(id))).collect();
        relabel_editor_rows(&editor.root, &labels);
        *self.editor_ids.borrow_mut() = distinct;
    }

    fn on_text(self: &Rc<Self>) {
        self.position.set(None);
        self.animation.set(self.animation.get().wrapping_add(1));
        self.sync_editor();
        self.clone().recompute();
    }

    /// Writes the edited rows back into E, so repeated tokens share them.
    fn on_edit(self: &Rc<Self>) {
        let edited = match self.editor.borrow().read() {
            Ok(m) => m,
            Err(e) => return show_error(&self.host, &e.message),
        };
        {
            let mut table = self.table.borrow_mut();
            for (r, &id) in self.editor_ids.borrow().iter().enumerate() {
                for c in 0..edited.cols().min(table.cols()) {
                    table.set(id as usize, c, edited.get(r, c));
                }
            }
        }
        self.clone().recompute();
    }

    fn on_dims(self: &Rc<Self>) {
        let d = self.dims.value().parse::<usize>().unwrap_or(4).clamp(2, 8);
        *self.table.borrow_mut() = seeded_table(VOCAB_SIZE, d, TABLE_SEED);
        self.sync_editor();
        self.clone().recompute();
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
                let at_end = w.position.get().is_some_and(|p| p + 1 >= t);
                if t == 0 || at_end {
                    return;
                }
                w.move_to(1);
                drop(w);
                dom::sleep(STEP_MS).await;
            }
        });
    }

    /// Outlines position p in O, the table row it selects, and row p of X; explains it.
    fn highlight(&self) {
        let last = self.last.borrow();
        let Some((ids, lookup)) = last.as_ref() else { return };
        let Some(p) = self.position.get().filter(|&p| p < ids.len()) else {
            self.step_note.set_text_content(Some("Use «posição ▶» ou «animar» para percorrer as posições."));
            self.editor.borrow().highlight(None, None);
            return;
        };
        let column = lookup.columns.iter().position(|&c| c == ids[p]).unwrap_or(0);
        self.one_hot.select(p, column);
        self.rows.select(column, 0);
        self.product.select(p, 0);
        self.editor.borrow().highlight(Some(column), None);
        let values: Vec<String> = lookup.product.row(p).iter().map(|v| format_pt(*v, 4)).collect();
        self.step_note.set_text_content(Some(&format!(
            "Posição {}: o token «{}» (id {}) tem o seu 1 na coluna {} de O, então a linha {} de X é a linha de «{}» em E: [{}].",
            p + 1,
            chip_label(ids[p]),
            ids[p],
            column + 1,
            p + 1,
            chip_label(ids[p]),
            values.join("; ")
        )));
    }

    fn draw(&self, ids: &[u32], lookup: &Lookup) {
        let token_cols: Vec<String> = lookup.columns.iter().map(|&id| chip_label(id)).collect();
        let positions: Vec<String> = ids.iter().enumerate().map(|(p, &id)| format!("{} {}", p + 1, chip_label(id))).collect();
        let dims: Vec<String> = (1..=lookup.product.cols()).map(|j| j.to_string()).collect();
        let heat = |view: &MatrixView, m: &Matrix, rows: Vec<String>, cols: Vec<String>, scale| {
            view.update(HeatmapData { matrix: m.clone(), row_labels: rows, col_labels: cols, scale, masked: None })
        };
        heat(&self.one_hot, &lookup.one_hot, positions.clone(), token_cols.clone(), Scale::Probability);
        heat(&self.rows, &lookup.table_rows, token_cols, dims.clone(), Scale::Signed);
        heat(&self.product, &lookup.product, positions, dims, Scale::Signed);
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
        let update = self.updates.begin();
        let ids = match self.ids() {
            Ok(ids) => ids,
            Err(message) => return show_error(&self.host, &message),
        };
        let job = LookupJob { table: self.table.borrow().clone(), ids: ids.clone() };
        let widget = self.clone();
        crate::web::kit::update::compute(&self.ctx, &self.host, update, Some(&self.backend_note), job, move |_, lookup, _| {
            widget.draw(&ids, &lookup);
            *widget.last.borrow_mut() = Some((ids, lookup));
            widget.highlight();
        });
    }
}
