//! The corpus tokenizer and the corpus built from it, on any text a reader could paste.
#![no_main]

use atencao_core::text::tokenizer::{tokenize, TokenizerOptions};
use atencao_core::text::Corpus;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for strip_accents in [false, true] {
        let opts = TokenizerOptions { strip_accents, ..TokenizerOptions::default() };
        for token in tokenize(text, &opts) {
            assert!(!token.is_empty() && !token.chars().any(char::is_whitespace), "{token:?}");
        }
        let documents: Vec<&str> = text.lines().collect();
        let _ = Corpus::build(&documents, &opts);
    }
});
