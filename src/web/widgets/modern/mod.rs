//! Widgets of the page "Do Transformer de 2017 aos modelos de hoje" (issue 41): the four parts
//! today's decoders changed, each beside the 2017 part it replaced. They compute in
//! `core::modern` on the page's backend with today's forward ops (`modern-ops`), in a build of
//! their own (the crate's feature `modern`, `bundles/modern`).

pub mod gqa;
pub mod rms_norm;
pub mod rope;
pub mod swiglu;

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::HtmlElement;

use crate::web::dom;
use crate::web::kit::ui::MatrixEditor;
use crate::web::kit::{control_of, Shell, Widget};

/// A widget of this page drawn from one matrix editor whose columns the reader adds and
/// removes with two buttons (RoPE's q and k, RMSNorm's x).
trait EditedWidget: Widget + 'static {
    /// The buttons' `data-action`s, and how many columns each adds or removes.
    const GROW: &'static str;
    const SHRINK: &'static str;
    const STEP: usize;
    /// The widths allowed.
    const MIN_COLS: usize;
    const MAX_COLS: usize;
    fn shell(&self) -> &Shell;
    fn editor(&self) -> &RefCell<MatrixEditor>;
    /// What to say when the reader asks for a width outside them.
    fn width_message() -> String;
}

/// The usual wiring: typing in the editor or moving a control recomputes; the two buttons
/// resize the editor.
fn wire_editor<W: EditedWidget>(widget: &Rc<W>) {
    let shell = widget.shell();
    widget.editor().borrow().resized_by(W::GROW, W::SHRINK);
    shell.on(widget, &shell.inputs, &["input"], |w, e| {
        if control_of(e).is_empty() {
            w.clone().recompute();
        }
    });
    shell.on(widget, &shell.controls, &["input"], |w, _| w.clone().recompute());
    shell.on_action(widget, |w, action| {
        let cols = w.editor().borrow().cols();
        let wanted = match action {
            a if a == W::GROW => cols + W::STEP,
            a if a == W::SHRINK => cols.saturating_sub(W::STEP),
            _ => return,
        };
        if !(W::MIN_COLS..=W::MAX_COLS).contains(&wanted) {
            return w.shell().fail(&W::width_message());
        }
        let rows = w.editor().borrow().rows();
        w.editor().borrow_mut().resize(rows, wanted);
        w.clone().recompute();
    });
}

/// An empty slot for a results table, the width of the outputs.
fn results_slot() -> HtmlElement {
    dom::el("div", "wide")
}

/// The largest |value| of all these matrices: the shared end of their colour scale.
fn shared_extent(matrices: &[&crate::core::Matrix]) -> f32 {
    matrices.iter().flat_map(|m| m.as_slice()).filter(|v| v.is_finite()).fold(0.0f32, |m, v| m.max(v.abs()))
}

/// Column labels 1 … n.
fn columns(n: usize) -> Vec<String> {
    (1..=n).map(|j| j.to_string()).collect()
}
