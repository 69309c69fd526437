//! The hand-over from the `train` widget: "usar no decodificador" leaves the weights the
//! reader just trained in the page's worker (`worker/src/decoder.rs`), where every playground
//! on the page then runs them exactly as it runs the shipped model (same forward pass, same
//! session, same lens).

use std::cell::RefCell;
use std::rc::{Rc, Weak};

/// Whatever takes a trained model: the decoder playgrounds mounted on the page.
pub trait TakesTrainedModel {
    fn take_trained(self: Rc<Self>);
}

thread_local! {
    static PLAYGROUNDS: RefCell<Vec<Weak<dyn TakesTrainedModel>>> = const { RefCell::new(Vec::new()) };
}

/// Called by each playground when it mounts.
pub fn register(playground: Weak<dyn TakesTrainedModel>) {
    PLAYGROUNDS.with(|p| p.borrow_mut().push(playground));
}

/// Tells every playground on the page that the worker holds a trained model; returns how many
/// took it (0: the page has none, and the caller says so).
pub fn offer() -> usize {
    let live: Vec<Rc<dyn TakesTrainedModel>> = PLAYGROUNDS.with(|p| {
        let mut p = p.borrow_mut();
        p.retain(|w| w.strong_count() > 0);
        p.iter().filter_map(Weak::upgrade).collect()
    });
    for playground in &live {
        playground.clone().take_trained();
    }
    live.len()
}
