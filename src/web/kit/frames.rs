//! Drawing a widget's latest state in steps, one animation frame each (issue 36): a model in
//! the worker sends states faster than a slow phone draws them, and one task that draws
//! everything (bars, heatmaps, tables, then their layout and commit) holds the page for a
//! quarter of a second. Each step is its own frame, so the reader's input gets in between;
//! and a widget can ask for a rest between chains, so that a stream of states (a generation)
//! leaves the page idle time rather than one frame after another.

use std::cell::Cell;
use std::rc::{Rc, Weak};

use crate::web::backend::now_ms;
use crate::web::dom;

/// One step: draws a part of the widget's latest state; false stops the chain there (e.g. the
/// parts only drawn once a generation is done).
pub type Step<W> = fn(&W) -> bool;

/// Whether a chain of steps is running, and whether a state came since its first step read one.
#[derive(Default)]
pub struct Staged {
    running: Cell<bool>,
    stale: Cell<bool>,
    /// The least time between the end of a chain and the start of the next (ms), and when the
    /// last one ended.
    rest_ms: f64,
    ended_at: Cell<f64>,
    /// A chain is booked and waits for its rest to end.
    resting: Cell<bool>,
    /// The state not drawn yet is to be drawn without a rest (`book_now`).
    urgent: Cell<bool>,
}

impl Staged {
    /// A state came that the running chain's first steps did not draw (the chain runs again
    /// for it): a widget's "done" waits for that run.
    pub fn is_stale(&self) -> bool {
        self.stale.get()
    }

    /// Chains at least `rest_ms` apart.
    pub fn resting(rest_ms: f64) -> Self {
        Staged { rest_ms, ..Staged::default() }
    }

    /// A new state of `widget` is to be drawn by `steps`, from the next frame on. While a chain
    /// runs, its remaining steps draw the new state, and the chain runs once more when it ends,
    /// so states that come faster than frames are skipped, never the last one.
    pub fn book<W: 'static>(widget: &Rc<W>, staged: fn(&W) -> &Staged, steps: &'static [Step<W>]) {
        Staged::book_after(widget, staged, steps, true);
    }

    /// `book`, without the rest: the last state of a stream (a generation's end) is drawn at once.
    pub fn book_now<W: 'static>(widget: &Rc<W>, staged: fn(&W) -> &Staged, steps: &'static [Step<W>]) {
        Staged::book_after(widget, staged, steps, false);
    }

    fn book_after<W: 'static>(widget: &Rc<W>, staged: fn(&W) -> &Staged, steps: &'static [Step<W>], rest: bool) {
        let s = staged(widget);
        s.stale.set(true);
        s.urgent.set(s.urgent.get() || !rest);
        let weak = Rc::downgrade(widget);
        if s.running.replace(true) {
            // A chain resting before its start starts now.
            if !rest && s.resting.replace(false) {
                run(weak, staged, steps, 0);
            }
            return;
        }
        let wait = if rest { s.ended_at.get() + s.rest_ms - now_ms() } else { 0.0 };
        if wait <= 0.0 {
            return run(weak, staged, steps, 0);
        }
        s.resting.set(true);
        wasm_bindgen_futures::spawn_local(async move {
            dom::sleep(wait.ceil() as i32).await;
            let Some(w) = weak.upgrade() else { return };
            if staged(&w).resting.replace(false) {
                run(weak, staged, steps, 0);
            }
        });
    }
}

fn run<W: 'static>(widget: Weak<W>, staged: fn(&W) -> &Staged, steps: &'static [Step<W>], at: usize) {
    dom::on_next_frame(move || {
        let Some(w) = widget.upgrade() else { return };
        if at == 0 {
            staged(&w).stale.set(false);
            staged(&w).urgent.set(false);
        }
        let go_on = steps.get(at).is_some_and(|step| step(&w));
        if go_on && at + 1 < steps.len() {
            // A turn of the event loop before the next step's frame: steps of 40 to 60 ms at 4x
            // throttling ran frame after frame, and the page's timers (and the tasks it queued)
            // waited up to 150 ms behind them.
            return dom::after_a_turn(move || run(widget, staged, steps, at + 1));
        }
        let s = staged(&w);
        s.running.set(false);
        s.ended_at.set(now_ms());
        if s.stale.get() {
            Staged::book_after(&w, staged, steps, !s.urgent.get());
        }
    });
}
