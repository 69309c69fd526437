//! The site's pages, generated at build time from `content/` by the page generator
//! (`site/`, the `atencao-site` crate, feature `generate`): the table of contents compiled into
//! the wasm, the stylesheets the embedded widgets carry, and every page prerendered into
//! `target/site/` (see `atencao_site::generate`). This file only says when to run it.

use std::path::PathBuf;

fn main() {
    for watched in ["content", "styles", "src/gpu/shaders", "site/src"] {
        println!("cargo:rerun-if-changed={watched}");
    }
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    atencao_site::generate::run(&crate_dir, &out_dir);
}
