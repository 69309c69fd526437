//! The update lifecycle of a widget: every edit begins an update; a job runs on the backend
//! (traced, so the "por dentro" panel shows its ops); a result overtaken by a newer edit is
//! dropped; the newest draws, says where it was computed, and marks the widget ready, or shows
//! the error. One lifecycle for jobs on the backend (`compute`), for CPU work that the widget
//! does itself (`Update::settle` for the debounce, then draw), and for passes a widget ran
//! itself (`show`: the decoder's session).

use std::cell::Cell;
use std::rc::Rc;

use web_sys::HtmlElement;

#[cfg(feature = "page-compute")]
use crate::core::{
    error::Result,
    executor::{BackendKind, Job},
};
use crate::core::trace::Trace;
use crate::web::dom;

use super::context::Ctx;
use super::hood;
#[cfg(feature = "page-compute")]
use super::{mark_backend, show_error, show_ready};

/// Counts a widget's updates. Every edit begins a new one; a result that arrives after a
/// newer edit is stale and is dropped (the newer update draws instead), so a slow backend
/// never paints an old answer over a new one.
#[derive(Clone, Default)]
pub struct Updates(Rc<Cell<u32>>);

impl Updates {
    /// Begins an update: any earlier one still computing becomes stale.
    pub fn begin(&self) -> Update {
        let number = self.0.get().wrapping_add(1);
        self.0.set(number);
        Update { counter: self.0.clone(), number }
    }
}

/// One update of a widget, to check after each await.
pub struct Update {
    counter: Rc<Cell<u32>>,
    number: u32,
}

impl Update {
    /// No newer update has begun since this one.
    pub fn is_current(&self) -> bool {
        self.counter.get() == self.number
    }

    /// Yields to the browser (so it paints "loading"), waiting 250 ms first if `debounce`
    /// (a large text: wait for a pause in typing); says whether the update is still current.
    pub async fn settle(&self, debounce: bool) -> bool {
        dom::sleep(if debounce { 250 } else { 0 }).await;
        self.is_current()
    }
}

#[cfg(feature = "page-compute")]
/// Runs `job` for the widget at `host` as a new update (its panel shows this job's ops).
pub async fn run<J: Job + 'static>(ctx: &Ctx, host: &HtmlElement, job: J) -> Result<(J::Output, BackendKind)> {
    let panel = hood::begin(host, ctx, true);
    let job = Rc::new(job);
    match ctx.backend.run_traced(&*job).await {
        Ok((out, trace)) => {
            let kind = trace.backend;
            panel.record(job, trace);
            Ok((out, kind))
        }
        Err(error) => {
            panel.failed(&error);
            Err(error)
        }
    }
}

#[cfg(feature = "page-compute")]
/// The usual update of a widget that computes on the backend: marks it loading, runs `job`
/// through the panel and, unless a newer update began meanwhile, lets `draw` paint the output,
/// marks which backend computed it (in `backend_note` when the widget has one) and shows the
/// widget ready; a failure shows its message instead.
pub fn compute<J, D>(ctx: &Rc<Ctx>, host: &HtmlElement, update: Update, backend_note: Option<&HtmlElement>, job: J, draw: D)
where
    J: Job + 'static,
    D: FnOnce(&J, J::Output, BackendKind) + 'static,
{
    dom::set_attr(host, "data-state", "loading");
    let (ctx, host, note) = (ctx.clone(), host.clone(), backend_note.cloned());
    wasm_bindgen_futures::spawn_local(async move {
        let job = Rc::new(job);
        let result = run(&ctx, &host, job.clone()).await;
        if !update.is_current() {
            return;
        }
        match result {
            Ok((out, kind)) => {
                draw(&job, out, kind);
                match &note {
                    Some(note) => mark_backend(&host, note, kind),
                    None => dom::set_attr(&host, "data-computed-on", kind.attr()),
                }
                show_ready(&host);
            }
            Err(error) => show_error(&host, &error.to_string()),
        }
    });
}

/// Shows a pass the widget had run elsewhere (the decoder's, in the page's worker) as a new
/// update, or with `also` as a second pass of the current one (its logit lens after its step);
/// `rerun` is what "comparar" runs again on both backends.
pub fn show_pass(ctx: &Ctx, host: &HtmlElement, trace: Trace, rerun: Rc<dyn hood::Rerun>, also: bool) {
    hood::begin(host, ctx, !also).record_rerun(rerun, trace);
}
