//! f64 fields that cross JSON exactly (the worker's protocol: issue 36): written as their IEEE
//! bits, a u64 that serde_json reads back exactly, where its default number parser may be one
//! ULP off for 17-digit values (the protocol's property test found it). Measured alternatives:
//! serde_json's exact mode (`float_roundtrip`) cost 9 KB gzipped in each wasm module, and the
//! shortest decimal text read back with `str::parse` cost 23 KB in the worker's (which had no
//! float formatting or parsing of its own). Only Rust reads these messages, never JavaScript
//! (a u64 is not exact as a JS number). Undefined values are `Option`s.

use serde::{Deserialize, Deserializer, Serializer};

pub fn serialize<S: Serializer>(value: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(value.to_bits())
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    u64::deserialize(d).map(f64::from_bits)
}

/// The same for `Option<f64>` (`null` for `None`).
pub mod option {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(v) => s.serialize_some(&v.to_bits()),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        Ok(Option::<u64>::deserialize(d)?.map(f64::from_bits))
    }
}
