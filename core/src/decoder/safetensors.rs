//! Reading the safetensors format (the weights file the training command writes).
//!
//! Layout: 8 bytes little-endian N, then N bytes of JSON `{name: {dtype, shape,
//! data_offsets: [begin, end]}, "__metadata__": {...}}`, then the raw tensor bytes, offsets
//! relative to the end of the header. Every size and offset is checked before use: a
//! truncated or tampered file gives a message, never a panic or an oversized allocation.

use std::collections::HashMap;

use serde::Deserialize;

use crate::error::{ComputeError, Result};

/// Largest header accepted (real headers of this model are a few KB).
const MAX_HEADER: u64 = 1 << 20;

fn corrupt(msg: impl std::fmt::Display) -> ComputeError {
    ComputeError::Invalid(format!("O arquivo de pesos está corrompido: {msg}."))
}

#[derive(Deserialize)]
struct Entry {
    dtype: String,
    shape: Vec<usize>,
    data_offsets: (usize, usize),
}

/// One tensor of the file, converted to f32.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    pub shape: Vec<usize>,
    pub values: Vec<f32>,
}

/// Parses every tensor of a safetensors file (F32 or F16 storage) into f32 values.
pub fn parse(bytes: &[u8]) -> Result<HashMap<String, Tensor>> {
    if bytes.len() < 8 {
        return Err(corrupt("menos de 8 bytes"));
    }
    let n = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
    if n > MAX_HEADER || n as usize > bytes.len() - 8 {
        return Err(corrupt(format!("cabeçalho de {n} bytes num arquivo de {} bytes", bytes.len())));
    }
    let header = &bytes[8..8 + n as usize];
    let data = &bytes[8 + n as usize..];
    let raw: HashMap<String, serde_json::Value> =
        serde_json::from_slice(header).map_err(|e| corrupt(format!("cabeçalho ilegível ({e})")))?;
    let mut out = HashMap::new();
    for (name, value) in raw {
        if name == "__metadata__" {
            continue;
        }
        let entry: Entry = serde_json::from_value(value).map_err(|e| corrupt(format!("entrada «{name}» ({e})")))?;
        let count = entry.shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d)).ok_or_else(|| corrupt("forma grande demais"))?;
        let width = match entry.dtype.as_str() {
            "F32" => 4,
            "F16" => 2,
            other => return Err(corrupt(format!("tipo {other} não suportado em «{name}»"))),
        };
        let (begin, end) = entry.data_offsets;
        if begin > end || end > data.len() || end - begin != count.saturating_mul(width) {
            return Err(corrupt(format!("«{name}» aponta para fora do arquivo (truncado?)")));
        }
        let slice = &data[begin..end];
        let values = if width == 4 {
            slice.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes"))).collect()
        } else {
            slice.chunks_exact(2).map(|b| f16_to_f32(u16::from_le_bytes([b[0], b[1]]))).collect()
        };
        out.insert(name, Tensor { shape: entry.shape, values });
    }
    Ok(out)
}

/// Writes tensors as an F32 safetensors file (used by tests to make good and bad files).
pub fn write_f32(tensors: &[(&str, &[usize], &[f32])]) -> Vec<u8> {
    let mut header = String::from("{");
    let mut offset = 0;
    for (i, (name, shape, values)) in tensors.iter().enumerate() {
        let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
        let end = offset + values.len() * 4;
        if i > 0 {
            header.push(',');
        }
        header.push_str(&format!("\"{name}\":{{\"dtype\":\"F32\",\"shape\":[{}],\"data_offsets\":[{offset},{end}]}}", dims.join(",")));
        offset = end;
    }
    header.push('}');
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    for (_, _, values) in tensors {
        for v in values.iter() {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out
}

/// IEEE 754 half precision → f32 (subnormals, infinities and NaN included).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let mant = (h & 0x3ff) as u32;
    let bits = match (exp, mant) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: value = m · 2^−24; normalise into an f32.
            let shift = m.leading_zeros() - 21; // bring the top bit of m to bit 10
            let m = (m << shift) & 0x3ff;
            let e = 127 - 15 + 1 - shift;
            sign | (e << 23) | (m << 13)
        }
        (0x1f, m) => sign | 0x7f80_0000 | (m << 13),
        (e, m) => sign | ((e + 127 - 15) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_precision_values() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x3555), 0.333_251_95);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x03ff), 1023.0 * 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
        assert!(f16_to_f32(0x7e00).is_nan());
        assert_eq!(f16_to_f32(0x8000).to_bits(), (-0.0f32).to_bits());
    }

    #[test]
    fn round_trip_and_corruption() {
        let file = write_f32(&[("a", &[2, 2], &[1.0, 2.0, 3.0, 4.0]), ("b", &[1], &[5.0])]);
        let t = parse(&file).unwrap();
        assert_eq!(t["a"].values, [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(t["b"].shape, [1]);
        // Truncated data, truncated header, garbage, a lying length.
        assert!(parse(&file[..file.len() - 1]).unwrap_err().to_string().contains("truncado"));
        assert!(parse(&file[..20]).is_err());
        assert!(parse(b"not a safetensors file at all").is_err());
        let mut lying = file.clone();
        lying[..8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(parse(&lying).is_err());
        assert!(parse(&[]).is_err());
    }
}
