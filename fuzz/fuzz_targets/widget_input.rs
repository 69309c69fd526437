//! What blog authors write in data attributes: matrices as JSON and corpora.
#![no_main]

use atencao::core::widget_input::{parse_corpus, parse_matrices};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(matrices) = parse_matrices(&text, &["x", "w_q", "w_k", "w_v", "scores"]) {
        for m in matrices.values() {
            assert!(m.as_slice().iter().all(|v| v.is_finite()));
        }
    }
    let _ = parse_corpus(&text);
});
