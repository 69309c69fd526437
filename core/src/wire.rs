//! The bytes of the messages between the page and its Web Worker (issue 36:
//! `decoder::protocol`, `train_run::protocol`): a tag byte that says which of the four kinds of
//! message follows, then the message in postcard, serde's compact binary format. Only Rust
//! reads these messages, on both sides: JSON's text bought nothing there, and its readers, one
//! per message type, were the largest single part of the page's resident module.
//!
//! postcard is not self-describing: a field is read by its place, not its name. The types that
//! cross write every field whatever its value and whatever the build: no
//! `skip_serializing_if`, no `skip` under a feature (see `train_run::protocol::Export`'s config).

use serde::de::DeserializeOwned;
use serde::Serialize;

/// Which message the bytes hold: a message never reads as another kind (a command as a report,
/// the decoder's as the train widget's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tag {
    TrainCommand = 1,
    TrainReport = 2,
    DecoderCommand = 3,
    DecoderReport = 4,
}

/// `message` after its tag (empty if serde fails, which no protocol type does: lengths are known).
pub fn encode<T: Serialize>(tag: Tag, message: &T) -> Vec<u8> {
    postcard::to_extend(message, vec![tag as u8]).unwrap_or_default()
}

/// The message of `encode`, refused (with why) when the tag is another or bytes are left over.
pub fn decode<T: DeserializeOwned>(tag: Tag, bytes: &[u8]) -> Result<T, String> {
    let Some((&first, body)) = bytes.split_first() else { return Err("mensagem vazia".into()) };
    if first != tag as u8 {
        return Err(format!("outro tipo de mensagem ({first})"));
    }
    match postcard::take_from_bytes(body) {
        Ok((message, [])) => Ok(message),
        Ok((_, rest)) => Err(format!("{} bytes a mais no fim", rest.len())),
        Err(e) => Err(e.to_string()),
    }
}
