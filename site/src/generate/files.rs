//! The generator's file system chores: directories in order, and writes that leave unchanged
//! files alone (native and wasm builds run the generator, maybe at once).

use std::fs;
use std::path::{Path, PathBuf};

/// The entries of `dir`, sorted by name (content files are ordered by their `NN-` prefix).
pub fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable directory entry").path())
        .collect();
    entries.sort();
    entries
}

/// Native and wasm builds write the same files, maybe at once: only rewrite what changed.
pub fn write_if_changed(path: &Path, text: &str) {
    if fs::read_to_string(path).ok().as_deref() != Some(text) {
        fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
