//! The hand-over from the `train` widget: "usar no decodificador" offers the weights the
//! reader just trained to every playground on the page, which then runs them exactly as it
//! runs the shipped model (`core::decoder::playable`).

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use crate::core::decoder::playable::{Playable, TrainedModel};

/// Whatever takes a trained model: the decoder playgrounds mounted on the page.
pub trait TakesTrainedModel {
    fn take_trained(self: Rc<Self>, model: Rc<Playable>, prompt: String);
}

thread_local! {
    static PLAYGROUNDS: RefCell<Vec<Weak<dyn TakesTrainedModel>>> = const { RefCell::new(Vec::new()) };
}

/// Called by each playground when it mounts.
pub fn register(playground: Weak<dyn TakesTrainedModel>) {
    PLAYGROUNDS.with(|p| p.borrow_mut().push(playground));
}

/// Hands `model` to every playground on the page; returns how many took it (0: the page has
/// none, and the caller says so).
pub fn offer(model: TrainedModel) -> usize {
    let prompt = model.sample_prompt(40);
    let playable = Rc::new(model.into_playable());
    let live: Vec<Rc<dyn TakesTrainedModel>> = PLAYGROUNDS.with(|p| {
        let mut p = p.borrow_mut();
        p.retain(|w| w.strong_count() > 0);
        p.iter().filter_map(Weak::upgrade).collect()
    });
    for playground in &live {
        playground.clone().take_trained(playable.clone(), prompt.clone());
    }
    live.len()
}
