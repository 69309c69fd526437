//! The decoder's tokenizer: `tokenizer.json` parsing on any bytes, and lossless
//! encode/decode of any text with the shipped tokenizer.
#![no_main]

use std::sync::OnceLock;

use atencao_core::bpe::Bpe;
use libfuzzer_sys::fuzz_target;

fn shipped() -> &'static Bpe {
    static BPE: OnceLock<Bpe> = OnceLock::new();
    BPE.get_or_init(|| Bpe::from_json(include_str!("../../static/model/tokenizer.json")).expect("shipped tokenizer"))
}

fuzz_target!(|data: &[u8]| {
    let _ = Bpe::from_json(&String::from_utf8_lossy(data));
    if let Ok(text) = std::str::from_utf8(data) {
        let bpe = shipped();
        let ids = bpe.encode(text);
        assert!(ids.iter().all(|&id| (id as usize) < bpe.vocab_size()));
        assert_eq!(bpe.decode(&ids), text);
        let (bytes, steps) = bpe.encode_steps(text, 64);
        assert_eq!(bytes.len(), text.len());
        assert!(steps.len() <= 64);
    }
});
