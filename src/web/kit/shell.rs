//! `Shell`: the frame every widget is built in. It owns the host element, the title (at the
//! level the page's outline asks for, notation typeset), the sections (inputs, controls,
//! outputs), the backend note, "ver números", the listeners, the newest-update token, and the
//! "por dentro" panel through the update lifecycle; on a phone its inputs come first, with
//! the results right under them: no tab hides either (an edit and its result stay together).
//!
//! A widget is then its inputs, its job (or CPU work) and its drawing:
//!
//! ```ignore
//! let shell = Shell::new(ctx, host, &KIND);
//! // … build inputs into shell.inputs, controls into shell.controls, views into shell.outputs …
//! let widget = Rc::new(MyWidget { shell, … });
//! widget.shell.recompute_on(&widget, &["change"]); // or `on` for any other wiring
//! widget.shell.on_action(&widget, |w, action| if action == "reset" { w.reset() });
//! // in recompute: widget.shell.compute(job, move |job, out, kind| widget.draw(…));
//! ```

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;

use web_sys::{EventTarget, HtmlElement};

use crate::core::executor::BackendKind;
#[cfg(feature = "page-compute")]
use crate::core::executor::Job;
use crate::web::dom::{self, Listener};

use super::context::Ctx;
#[cfg(feature = "page-compute")]
use super::update;
use super::update::{Update, Updates};
use super::{action_of, listen, mark_backend, show_error, show_ready, twins_button, Widget, WidgetKind};

pub struct Shell {
    pub ctx: Rc<Ctx>,
    pub host: HtmlElement,
    /// What the reader edits.
    pub inputs: HtmlElement,
    /// Buttons, toggles and selects (ends with "ver números").
    pub controls: HtmlElement,
    /// What the widget draws.
    pub outputs: HtmlElement,
    /// "Calculado em CPU." and other notes on the computation (announced).
    pub note: HtmlElement,
    pub updates: Updates,
    listeners: RefCell<Vec<Listener>>,
}

impl Shell {
    /// Empties `host` and builds the frame, marked loading until the first update is drawn.
    pub fn new(ctx: &Rc<Ctx>, host: &HtmlElement, kind: &WidgetKind) -> Shell {
        Shell::titled(ctx, host, kind.title())
    }

    /// The frame under a title of the widget's own (one part of a widget with several, such
    /// as the multi-head widget's examples).
    pub fn titled(ctx: &Rc<Ctx>, host: &HtmlElement, title: &str) -> Shell {
        dom::set_attr(host, "data-state", "loading");
        let _ = host.class_list().add_1("widget");
        host.set_text_content(None);
        dom::append(host, &dom::text("h3", "widget-title", title));
        let inputs = dom::el("div", "widget-inputs");
        dom::set_attr(&inputs, "data-section", "inputs");
        let controls = dom::el("div", "widget-controls");
        let outputs = dom::el("div", "widget-outputs");
        dom::set_attr(&outputs, "data-section", "outputs");
        let note = super::ui::live("p", "widget-backend");
        dom::append_all(host, &[&inputs, &controls, &outputs, &note]);
        let (twins, twins_listener) = twins_button(host);
        dom::append(&controls, &twins);
        Shell {
            ctx: ctx.clone(),
            host: host.clone(),
            inputs,
            controls,
            outputs,
            note,
            updates: Updates::default(),
            listeners: RefCell::new(vec![twins_listener]),
        }
    }

    /// Adds controls, in order, before "ver números" (which stays last).
    pub fn control(&self, elements: &[&HtmlElement]) {
        let twins = self.controls.query_selector(":scope > [data-action=twins]").ok().flatten();
        for el in elements {
            match &twins {
                Some(t) => {
                    let _ = t.before_with_node_1(el);
                }
                None => dom::append(&self.controls, el),
            }
        }
    }

    /// Keeps a listener as long as the widget.
    pub fn keep(&self, listener: Listener) {
        self.listeners.borrow_mut().push(listener);
    }

    /// Runs `action` on the widget for each event of `kinds` on `target` (one delegated
    /// listener per kind; `kit::control_of` and `kit::action_of` tell the sources apart).
    pub fn on<W: 'static>(&self, widget: &Rc<W>, target: &EventTarget, kinds: &[&'static str], action: fn(&Rc<W>, &web_sys::Event)) {
        for &kind in kinds {
            self.keep(listen(widget, target, kind, move |w, e| action(w, e)));
        }
    }

    /// The usual wiring: an edit in the inputs, or an event of `control_kinds` in the controls
    /// (a select's `change`, a slider's `input`), recomputes the widget.
    pub fn recompute_on<W: Widget + 'static>(&self, widget: &Rc<W>, control_kinds: &[&'static str]) {
        self.on(widget, &self.inputs, &["input"], |w, _| w.clone().recompute());
        self.on(widget, &self.controls, control_kinds, |w, _| w.clone().recompute());
    }

    /// Runs `action` with the `data-action` of each click among the controls ("" off a button).
    pub fn on_action<W: 'static>(&self, widget: &Rc<W>, action: fn(&Rc<W>, &str)) {
        self.keep(listen(widget, &self.controls, "click", move |w, e| action(w, &action_of(e))));
    }

    /// Begins an update: any earlier one still computing will not draw.
    pub fn begin(&self) -> Update {
        self.updates.begin()
    }

    #[cfg(feature = "page-compute")]
    /// An update that runs `job` on the backend (traced for "por dentro"): unless a newer
    /// update began meanwhile, `draw` paints the output, the note says where it was computed,
    /// and the widget is ready; a failure shows its message.
    pub fn compute<J, D>(&self, job: J, draw: D)
    where
        J: Job + 'static,
        D: FnOnce(&J, J::Output, BackendKind) + 'static,
    {
        let update = self.begin();
        update::compute(&self.ctx, &self.host, update, Some(&self.note), job, draw);
    }

    #[cfg(feature = "page-compute")]
    /// `compute` for a job read from the reader's inputs: a bad input (`Err`) ends the update
    /// with its message instead, and no older result draws.
    pub fn compute_or<J, D>(&self, job: Result<J, String>, draw: D)
    where
        J: Job + 'static,
        D: FnOnce(&J, J::Output, BackendKind) + 'static,
    {
        match job {
            Ok(job) => self.compute(job, draw),
            Err(message) => {
                self.begin();
                self.fail(&message);
            }
        }
    }

    #[cfg(feature = "page-compute")]
    /// `compute` for a job prepared on the CPU from a large text (a model trained on a
    /// corpus): waits for a pause in typing when `debounce`, lets "loading" paint, runs
    /// `prepare` (its message stops the update), then runs the job as `compute` does.
    pub fn compute_after<J, P, D>(&self, debounce: bool, prepare: P, draw: D)
    where
        J: Job + 'static,
        P: FnOnce() -> Result<J, String> + 'static,
        D: FnOnce(&J, J::Output, BackendKind) + 'static,
    {
        let update = self.begin();
        dom::set_attr(&self.host, "data-state", "loading");
        let (ctx, host, note) = (self.ctx.clone(), self.host.clone(), self.note.clone());
        wasm_bindgen_futures::spawn_local(async move {
            if !update.settle(debounce).await {
                return;
            }
            match prepare() {
                Ok(job) => update::compute(&ctx, &host, update, Some(&note), job, draw),
                Err(message) => show_error(&host, &message),
            }
        });
    }

    /// An update the widget computes itself on the CPU (no backend job): marks it loading,
    /// waits for a pause in typing when `debounce` (large inputs), then runs `work`, which draws;
    /// ready, or its message.
    pub fn local(&self, debounce: bool, work: impl FnOnce() -> Result<(), String> + 'static) {
        // An async block runs when first polled: after the pause, as `steps` promises.
        self.steps(debounce, |_| async move { work() });
    }

    /// `local` for work that awaits (a corpus tokenised in slices, a tokenizer downloaded, a
    /// benchmark measuring one size after another): `work` gets the update, to check after
    /// each of its awaits whether a newer edit has overtaken it (then it returns early and
    /// nothing more is shown); otherwise its result makes the widget ready or shows its message.
    pub fn steps<F>(&self, debounce: bool, work: impl FnOnce(Rc<Update>) -> F)
    where
        F: Future<Output = Result<(), String>> + 'static,
    {
        let update = Rc::new(self.begin());
        dom::set_attr(&self.host, "data-state", "loading");
        let host = self.host.clone();
        let future = work(update.clone());
        wasm_bindgen_futures::spawn_local(async move {
            if !update.settle(debounce).await {
                return;
            }
            let result = future.await;
            if !update.is_current() {
                return;
            }
            match result {
                Ok(()) => show_ready(&host),
                Err(message) => show_error(&host, &message),
            }
        });
    }

    /// An update that draws at once (a change that needs no computation): ready, or the message.
    pub fn now(&self, work: impl FnOnce() -> Result<(), String>) {
        self.begin();
        match work() {
            Ok(()) => show_ready(&self.host),
            Err(message) => show_error(&self.host, &message),
        }
    }

    /// Says where the last result was computed.
    pub fn mark(&self, kind: BackendKind) {
        mark_backend(&self.host, &self.note, kind);
    }

    pub fn fail(&self, message: &str) {
        show_error(&self.host, message);
    }

    pub fn ready(&self) {
        show_ready(&self.host);
    }
}
