//! Everything the playground downloads: the safetensors weights (header JSON, offsets, F16/F32
//! data), config.json and the bigram file. Garbage gets a message, never a panic.
#![no_main]

use atencao_core::decoder::bigram::TokenBigram;
use atencao_core::decoder::manifest::Manifest;
use atencao_core::decoder::{safetensors, DecoderConfig, DecoderWeights};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = safetensors::parse(data);
    let _ = DecoderWeights::from_safetensors(&DecoderConfig::tiny(), data);
    let _ = TokenBigram::from_bytes(data);
    let _ = Manifest::from_json(&String::from_utf8_lossy(data));
});
