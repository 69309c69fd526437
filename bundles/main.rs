//! A build of the page's module: the site crate's `web::start` and exports, nothing of its own.
//! Every bundle (`articles-sequences/`, `articles-attention/`, `models/`, `resident/`, `modern/`)
//! builds this file; which widgets each carries is the site crate's feature its manifest names.

// Links the site crate, whose `#[wasm_bindgen]` start and exports are the module's.
#[allow(unused_imports)]
use atencao as _;

/// Nothing runs here: the module starts in the site crate's `web::start`.
fn main() {}
