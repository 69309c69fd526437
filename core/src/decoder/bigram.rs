//! A token-bigram model over the same BPE tokens and corpus as the decoder: the N-gram
//! baseline the playground shows beside the Transformer, on the same prefix.
//!
//! P(next | last) = count(last → next) / count(last → ·). Only the last token matters (the
//! Markov property): the contrast with attention over the whole prefix is the point.
//! Stored compactly: for each token its `MAX_SUCCESSORS` most frequent successors.

use crate::error::{ComputeError, Result};

/// Successors kept per token (the rest of the mass is reported as "outros").
pub const MAX_SUCCESSORS: usize = 48;

#[derive(Clone, Debug, PartialEq)]
pub struct TokenBigram {
    /// For each token: (successor, count), most frequent first.
    successors: Vec<Vec<(u32, u32)>>,
    /// For each token: how many times it was followed by anything.
    totals: Vec<u32>,
}

impl TokenBigram {
    /// Counts the pairs of `tokens` over a vocabulary of `vocab` ids.
    pub fn count(tokens: &[u32], vocab: usize) -> TokenBigram {
        let mut counts: Vec<std::collections::HashMap<u32, u32>> = vec![Default::default(); vocab];
        let mut totals = vec![0u32; vocab];
        for pair in tokens.windows(2) {
            let (a, b) = (pair[0] as usize, pair[1]);
            if a < vocab && (b as usize) < vocab {
                *counts[a].entry(b).or_default() += 1;
                totals[a] += 1;
            }
        }
        let successors = counts
            .into_iter()
            .map(|m| {
                let mut v: Vec<(u32, u32)> = m.into_iter().collect();
                crate::order::sort_by(&mut v, |x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
                v.truncate(MAX_SUCCESSORS);
                v
            })
            .collect();
        TokenBigram { successors, totals }
    }

    pub fn vocab_size(&self) -> usize {
        self.totals.len()
    }

    /// The stored successors of `last` with their probabilities, most likely first; empty
    /// when the token was never followed by anything in the corpus.
    pub fn next_distribution(&self, last: u32) -> Vec<(u32, f32)> {
        let i = last as usize;
        let Some(total) = self.totals.get(i).copied().filter(|&t| t > 0) else { return Vec::new() };
        self.successors[i].iter().map(|&(id, n)| (id, n as f32 / total as f32)).collect()
    }

    /// How often `last` occurred with a successor.
    pub fn occurrences(&self, last: u32) -> u32 {
        self.totals.get(last as usize).copied().unwrap_or(0)
    }

    /// Binary file: "BGRM", u32 vocab, then per token u32 total, u32 n, n × (u32 id, u32 count), little endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = b"BGRM".to_vec();
        out.extend_from_slice(&(self.totals.len() as u32).to_le_bytes());
        for (total, succ) in self.totals.iter().zip(&self.successors) {
            out.extend_from_slice(&total.to_le_bytes());
            out.extend_from_slice(&(succ.len() as u32).to_le_bytes());
            for (id, n) in succ {
                out.extend_from_slice(&id.to_le_bytes());
                out.extend_from_slice(&n.to_le_bytes());
            }
        }
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<TokenBigram> {
        let bad = || ComputeError::Invalid("O arquivo do modelo de bigramas está corrompido.".into());
        let mut pos = 0;
        let u32_at = |pos: &mut usize| -> Result<u32> {
            let b = bytes.get(*pos..*pos + 4).ok_or_else(bad)?;
            *pos += 4;
            Ok(u32::from_le_bytes(b.try_into().expect("4 bytes")))
        };
        if bytes.get(..4) != Some(b"BGRM".as_slice()) {
            return Err(bad());
        }
        pos += 4;
        let vocab = u32_at(&mut pos)? as usize;
        if vocab > 1 << 20 {
            return Err(bad());
        }
        let mut totals = Vec::with_capacity(vocab);
        let mut successors = Vec::with_capacity(vocab);
        for _ in 0..vocab {
            totals.push(u32_at(&mut pos)?);
            let n = u32_at(&mut pos)? as usize;
            if n > MAX_SUCCESSORS {
                return Err(bad());
            }
            let mut succ = Vec::with_capacity(n);
            for _ in 0..n {
                let id = u32_at(&mut pos)?;
                let count = u32_at(&mut pos)?;
                if id as usize >= vocab {
                    return Err(bad());
                }
                succ.push((id, count));
            }
            successors.push(succ);
        }
        if pos != bytes.len() {
            return Err(bad());
        }
        Ok(TokenBigram { successors, totals })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_probabilities_and_round_trip() {
        let m = TokenBigram::count(&[1, 2, 1, 2, 1, 3, 0], 4);
        let d = m.next_distribution(1);
        assert_eq!(d, vec![(2, 2.0 / 3.0), (3, 1.0 / 3.0)]);
        assert!(m.next_distribution(0).is_empty());
        assert!(m.next_distribution(99).is_empty());
        let bytes = m.to_bytes();
        assert_eq!(TokenBigram::from_bytes(&bytes).unwrap(), m);
        assert!(TokenBigram::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        assert!(TokenBigram::from_bytes(b"nope").is_err());
    }
}
