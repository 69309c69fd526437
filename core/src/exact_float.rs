//! f64 fields written as their IEEE bits, a u64 that every serde format reads back exactly:
//! the worker's protocol (issue 36), which crossed JSON at first, where serde_json's default
//! number parser may be one ULP off for 17-digit values (the protocol's property test found
//! it). In today's binary messages (`crate::wire`) a bare f64 would be exact as well; the
//! fields keep this form, which also holds wherever these types are written as JSON (a u64
//! is not exact as a JS number: only Rust reads them). Undefined values are `Option`s.

use serde::{Deserialize, Deserializer, Serializer};

pub fn serialize<S: Serializer>(value: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(value.to_bits())
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    u64::deserialize(d).map(f64::from_bits)
}

/// The same for `Option<f64>`.
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
