//! Assembling the shipped model from its three files, each checked: the manifest
//! (config.json), the tokenizer and the weights must match the manifest's SHA-256, so a
//! truncated, corrupted or substituted download is refused with a message.
//!
//! The page checks each file once, as it downloads it (`verify`), and then only parses it
//! (`parse_tokenizer`, `parse_bigram`, `Model::from_checked`); so does the page's worker, which
//! receives the page's checked files: no second hash of 4,9 MB, and no SHA-256 in its wasm.

use crate::bpe::Bpe;
use crate::checksum::sha256_hex;
use crate::error::{ComputeError, Result};

use super::bigram::TokenBigram;
use super::manifest::Manifest;
use super::weights::DecoderWeights;

/// Everything the playground needs to run the decoder.
#[derive(Clone, Debug)]
pub struct Model {
    pub manifest: Manifest,
    pub bpe: Bpe,
    pub weights: DecoderWeights,
}

/// Fails unless `bytes` hash to `expected` (what = the file's name in the message).
pub fn verify(what: &str, bytes: &[u8], expected: &str) -> Result<()> {
    let got = sha256_hex(bytes);
    if got != expected {
        return Err(ComputeError::Invalid(format!(
            "O arquivo {what} chegou diferente do esperado ({} bytes, SHA-256 {}…; esperado {}…): download incompleto ou corrompido.",
            bytes.len(),
            &got[..12],
            expected.get(..12).unwrap_or(expected)
        )));
    }
    Ok(())
}

/// The tokenizer alone (the BPE page needs no weights), checked.
pub fn load_tokenizer(manifest: &Manifest, tokenizer_json: &[u8]) -> Result<Bpe> {
    verify(&manifest.tokenizer_file, tokenizer_json, &manifest.tokenizer_sha256)?;
    parse_tokenizer(manifest, tokenizer_json)
}

/// The tokenizer from a file already checked against the manifest (`verify`).
pub fn parse_tokenizer(manifest: &Manifest, tokenizer_json: &[u8]) -> Result<Bpe> {
    let text = std::str::from_utf8(tokenizer_json)
        .map_err(|_| ComputeError::Invalid("O tokenizador não é UTF-8.".into()))?;
    let bpe = Bpe::from_json(text)?;
    if bpe.vocab_size() != manifest.config.vocab_size {
        return Err(ComputeError::Invalid(format!(
            "O tokenizador tem {} tokens, mas o modelo espera {}.",
            bpe.vocab_size(),
            manifest.config.vocab_size
        )));
    }
    Ok(bpe)
}

/// The bigram baseline, checked like the other files.
pub fn load_bigram(manifest: &Manifest, bytes: &[u8]) -> Result<TokenBigram> {
    verify(&manifest.bigram_file, bytes, &manifest.bigram_sha256)?;
    parse_bigram(manifest, bytes)
}

/// The bigram baseline from a file already checked against the manifest (`verify`).
pub fn parse_bigram(manifest: &Manifest, bytes: &[u8]) -> Result<TokenBigram> {
    let bigram = TokenBigram::from_bytes(bytes)?;
    if bigram.vocab_size() != manifest.config.vocab_size {
        return Err(ComputeError::Invalid("O modelo de bigramas não combina com o vocabulário.".into()));
    }
    Ok(bigram)
}

impl Model {
    pub fn load(manifest: Manifest, tokenizer_json: &[u8], weights: &[u8]) -> Result<Model> {
        let bpe = load_tokenizer(&manifest, tokenizer_json)?;
        Model::with_tokenizer(manifest, bpe, weights)
    }

    /// The model around a tokenizer already loaded and checked (see `load_tokenizer`).
    pub fn with_tokenizer(manifest: Manifest, bpe: Bpe, weights: &[u8]) -> Result<Model> {
        verify(&manifest.weights_file, weights, &manifest.weights_sha256)?;
        Model::from_checked(manifest, bpe, weights)
    }

    /// The model from weights already checked against the manifest (`verify`); parsing still
    /// refuses weights of the wrong shapes.
    pub fn from_checked(manifest: Manifest, bpe: Bpe, weights: &[u8]) -> Result<Model> {
        let weights = DecoderWeights::from_safetensors(&manifest.config, weights)?;
        Ok(Model { manifest, bpe, weights })
    }
}
