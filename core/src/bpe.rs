//! Byte-level BPE (byte-pair encoding), the tokenizer of the pretrained decoder.
//!
//! Why byte-level: every text is a sequence of UTF-8 bytes, and the 256 byte values are the
//! first 256 tokens, so any text (emoji, Greek, control characters) encodes and decodes
//! back exactly; there is no unknown token. Training starts from bytes and repeatedly
//! merges the most frequent adjacent pair into a new token (Sennrich et al., 2016;
//! GPT-2's byte-level variant). The list of merges *is* the tokenizer: token `256 + r` is
//! the result of merge `r`, and encoding applies merges in the order they were learned.
//!
//! Merges never cross chunk boundaries: text is first cut into chunks (a word with the
//! single space before it, a run of digits, a run of punctuation, a run of whitespace),
//! so tokens are pieces of words, " casa", "ção", not "a c".

use std::collections::HashMap;

use super::error::{ComputeError, Result};

/// Number of byte tokens, the vocabulary before any merge.
pub const BYTE_TOKENS: usize = 256;

/// A trained tokenizer: the learned merges, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Bpe {
    /// Merge r joins tokens `merges[r].0` and `merges[r].1` into token 256 + r.
    merges: Vec<(u32, u32)>,
    /// Bytes of each token (the 256 bytes, then one entry per merge).
    vocab: Vec<Vec<u8>>,
    /// Pair → rank of the merge that joins it (lower ranks were learned first, apply first).
    ranks: HashMap<(u32, u32), u32>,
}

/// One merge applied while encoding, for the page that steps through them.
#[derive(Clone, Debug, PartialEq)]
pub struct MergeStep {
    /// Rank of the merge (0 = learned first).
    pub rank: u32,
    /// The pair that was joined and the new token.
    pub left: u32,
    pub right: u32,
    pub merged: u32,
    /// Every token of the text after this step.
    pub tokens: Vec<u32>,
}

/// Character classes of the chunker.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Letter,
    Digit,
    Space,
    Other,
}

fn class(c: char) -> Class {
    if c.is_alphabetic() || c == '\'' {
        Class::Letter
    } else if c.is_numeric() {
        Class::Digit
    } else if c.is_whitespace() {
        Class::Space
    } else {
        Class::Other
    }
}

/// Cuts text into the chunks merges stay inside: runs of one class, where the space right
/// before a non-space run joins that run (" casa"; in "a  casa" the first space stays alone).
/// Concatenating the chunks gives the text.
pub fn chunks(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut current: Option<Class> = None;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while i < chars.len() {
        let (pos, c) = chars[i];
        let k = class(c);
        // A lone ' ' right before a non-space character starts that character's chunk.
        let space_prefix = c == ' '
            && chars.get(i + 1).is_some_and(|&(_, n)| class(n) != Class::Space);
        if space_prefix {
            if pos > start {
                out.push(&text[start..pos]);
            }
            start = pos;
            let next = class(chars[i + 1].1);
            current = Some(next);
            i += 2;
            continue;
        }
        if current != Some(k) {
            if pos > start {
                out.push(&text[start..pos]);
            }
            start = pos;
            current = Some(k);
        }
        i += 1;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

impl Bpe {
    /// A tokenizer from its merges (as stored in `tokenizer.json`). Fails if a merge refers
    /// to a token that does not exist yet when it is applied.
    pub fn from_merges(merges: Vec<(u32, u32)>) -> Result<Bpe> {
        let mut vocab: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
        let mut ranks = HashMap::with_capacity(merges.len());
        for (r, &(a, b)) in merges.iter().enumerate() {
            let known = vocab.len() as u32;
            if a >= known || b >= known {
                return Err(ComputeError::Invalid(format!(
                    "A fusão {r} usa um token ({a} ou {b}) que ainda não existe."
                )));
            }
            let mut bytes = vocab[a as usize].clone();
            bytes.extend_from_slice(&vocab[b as usize]);
            vocab.push(bytes);
            if ranks.insert((a, b), r as u32).is_some() {
                return Err(ComputeError::Invalid(format!("A fusão {r} repete um par já fundido.")));
            }
        }
        Ok(Bpe { merges, vocab, ranks })
    }

    /// Learns `vocab_size − 256` merges from `texts`. Deterministic: among pairs of equal
    /// count, the one with the smallest (left, right) ids wins.
    pub fn train<'a>(texts: impl IntoIterator<Item = &'a str>, vocab_size: usize) -> Result<Bpe> {
        if vocab_size < BYTE_TOKENS {
            return Err(ComputeError::Invalid(format!("O vocabulário precisa de ao menos {BYTE_TOKENS} tokens.")));
        }
        // Distinct chunks with their frequencies: merges only need each distinct word once.
        let mut freq: HashMap<&str, u64> = HashMap::new();
        for text in texts {
            for chunk in chunks(text) {
                *freq.entry(chunk).or_default() += 1;
            }
        }
        let mut words: Vec<(Vec<u32>, u64)> =
            freq.into_iter().map(|(w, n)| (w.bytes().map(u32::from).collect(), n)).collect();
        // HashMap order is random: sort so the training is the same on every run.
        crate::order::sort(&mut words);

        // Pair counts over all words, and which words hold each pair.
        let mut counts: HashMap<(u32, u32), i64> = HashMap::new();
        let mut holders: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
        for (i, (w, n)) in words.iter().enumerate() {
            for p in w.windows(2) {
                let pair = (p[0], p[1]);
                *counts.entry(pair).or_default() += *n as i64;
                holders.entry(pair).or_default().push(i);
            }
        }

        let mut merges = Vec::with_capacity(vocab_size - BYTE_TOKENS);
        while BYTE_TOKENS + merges.len() < vocab_size {
            let Some((&best, &count)) = counts
                .iter()
                .filter(|(_, &c)| c > 0)
                .max_by(|(pa, ca), (pb, cb)| ca.cmp(cb).then_with(|| pb.cmp(pa)))
            else {
                break; // every word is a single token: nothing left to merge
            };
            if count < 2 {
                break;
            }
            let new_id = (BYTE_TOKENS + merges.len()) as u32;
            merges.push(best);
            let mut touched = holders.remove(&best).unwrap_or_default();
            crate::order::sort_usize(&mut touched);
            touched.dedup();
            for i in touched {
                let (word, n) = &mut words[i];
                let n = *n as i64;
                if !word.windows(2).any(|p| (p[0], p[1]) == best) {
                    continue; // stale entry: an earlier merge already consumed the pair here
                }
                for p in word.windows(2) {
                    *counts.entry((p[0], p[1])).or_default() -= n;
                }
                *word = merge_pair(word, best, new_id);
                for p in word.windows(2) {
                    let pair = (p[0], p[1]);
                    *counts.entry(pair).or_default() += n;
                    holders.entry(pair).or_default().push(i);
                }
            }
            counts.remove(&best);
        }
        Bpe::from_merges(merges)
    }

    /// Vocabulary size: 256 bytes + one token per merge.
    pub fn vocab_size(&self) -> usize {
        self.vocab.len()
    }

    pub fn merges(&self) -> &[(u32, u32)] {
        &self.merges
    }

    /// The bytes of token `id` (empty for an id outside the vocabulary).
    pub fn token_bytes(&self, id: u32) -> &[u8] {
        self.vocab.get(id as usize).map_or(&[], |v| v.as_slice())
    }

    /// How a token reads on a chip: its text, with a byte that is only part of a character
    /// shown as `<0xC3>`, and spaces and line breaks made visible ("·", "↵").
    pub fn token_label(&self, id: u32) -> String {
        let bytes = self.token_bytes(id);
        let mut out = String::new();
        let mut rest = bytes;
        while !rest.is_empty() {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    out.push_str(s);
                    break;
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    out.push_str(std::str::from_utf8(&rest[..valid]).unwrap_or_default());
                    let bad = e.error_len().unwrap_or(rest.len() - valid).max(1);
                    for b in &rest[valid..valid + bad] {
                        out.push_str(&format!("<0x{b:02X}>"));
                    }
                    rest = &rest[valid + bad..];
                }
            }
        }
        out.replace(' ', "·").replace('\n', "↵").replace('\t', "⇥")
    }

    /// Token ids of `text`. Lossless: `decode(encode(t)) == t` for every string.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::with_capacity(text.len() / 3 + 1);
        for chunk in chunks(text) {
            out.extend(self.encode_chunk(chunk));
        }
        out
    }

    /// Applies the merges to one chunk, lowest rank first.
    fn encode_chunk(&self, chunk: &str) -> Vec<u32> {
        let mut ids: Vec<u32> = chunk.bytes().map(u32::from).collect();
        while let Some((pair, _)) = self.best_pair(&ids) {
            let merged = BYTE_TOKENS as u32 + self.ranks[&pair];
            ids = merge_pair(&ids, pair, merged);
        }
        ids
    }

    /// The adjacent pair with the lowest merge rank, if any pair has a merge.
    fn best_pair(&self, ids: &[u32]) -> Option<((u32, u32), u32)> {
        ids.windows(2)
            .filter_map(|p| self.ranks.get(&(p[0], p[1])).map(|&r| ((p[0], p[1]), r)))
            .min_by_key(|&(_, r)| r)
    }

    /// Encodes `text` one merge at a time, over the whole text, in rank order: the steps a
    /// reader can walk through (starting from the bytes), capped at `max_steps`.
    pub fn encode_steps(&self, text: &str, max_steps: usize) -> (Vec<u32>, Vec<MergeStep>) {
        let mut chunked: Vec<Vec<u32>> = chunks(text).iter().map(|c| c.bytes().map(u32::from).collect()).collect();
        let bytes: Vec<u32> = chunked.iter().flatten().copied().collect();
        let mut steps = Vec::new();
        while steps.len() < max_steps {
            let best = chunked.iter().filter_map(|c| self.best_pair(c)).min_by_key(|&(_, r)| r);
            let Some((pair, rank)) = best else { break };
            let merged = BYTE_TOKENS as u32 + rank;
            for c in chunked.iter_mut() {
                *c = merge_pair(c, pair, merged);
            }
            steps.push(MergeStep {
                rank,
                left: pair.0,
                right: pair.1,
                merged,
                tokens: chunked.iter().flatten().copied().collect(),
            });
        }
        (bytes, steps)
    }

    /// Text of `ids`; ids outside the vocabulary are skipped, and bytes that do not form
    /// valid UTF-8 (a sequence cut in the middle of a character) become "�".
    pub fn decode(&self, ids: &[u32]) -> String {
        String::from_utf8_lossy(&self.decode_bytes(ids)).into_owned()
    }

    /// Raw bytes of `ids` (exact inverse of `encode` on the bytes of the text).
    pub fn decode_bytes(&self, ids: &[u32]) -> Vec<u8> {
        ids.iter().flat_map(|&id| self.token_bytes(id).iter().copied()).collect()
    }

    /// `tokenizer.json`: the merges, as the site loads them.
    pub fn to_json(&self) -> String {
        let pairs: Vec<String> = self.merges.iter().map(|(a, b)| format!("[{a},{b}]")).collect();
        format!(
            "{{\"kind\":\"byte-bpe\",\"vocab_size\":{},\"merges\":[{}]}}\n",
            self.vocab_size(),
            pairs.join(",")
        )
    }

    /// Parses `tokenizer.json` (see `to_json`). Fails with a message on anything malformed.
    pub fn from_json(text: &str) -> Result<Bpe> {
        #[derive(serde::Deserialize)]
        struct File {
            kind: String,
            vocab_size: usize,
            merges: Vec<(u32, u32)>,
        }
        let file: File = serde_json::from_str(text)
            .map_err(|e| ComputeError::Invalid(format!("O arquivo do tokenizador está corrompido: {e}.")))?;
        if file.kind != "byte-bpe" {
            return Err(ComputeError::Invalid(format!("Tokenizador de tipo desconhecido: «{}».", file.kind)));
        }
        let bpe = Bpe::from_merges(file.merges)?;
        if bpe.vocab_size() != file.vocab_size {
            return Err(ComputeError::Invalid(format!(
                "O tokenizador declara {} tokens mas define {}.",
                file.vocab_size,
                bpe.vocab_size()
            )));
        }
        Ok(bpe)
    }
}

/// Replaces every non-overlapping occurrence of `pair` in `ids` (left to right) by `merged`.
fn merge_pair(ids: &[u32], pair: (u32, u32), merged: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(ids.len());
    let mut i = 0;
    while i < ids.len() {
        if i + 1 < ids.len() && (ids[i], ids[i + 1]) == pair {
            out.push(merged);
            i += 2;
        } else {
            out.push(ids[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_keep_the_text_and_attach_one_space() {
        let text = "Olá, mundo!  Em 1839 —  ele\nfoi.";
        let parts = chunks(text);
        assert_eq!(parts.concat(), text);
        // As in GPT-2: in a run of spaces, the last one goes with the word after it.
        assert_eq!(parts, ["Olá", ",", " mundo", "!", " ", " Em", " 1839", " —", " ", " ele", "\n", "foi", "."]);
    }

    /// Training the slow, obvious way: recount every pair after every merge.
    fn naive_train(text: &str, vocab_size: usize) -> Vec<(u32, u32)> {
        let mut words: Vec<Vec<u32>> = chunks(text).iter().map(|c| c.bytes().map(u32::from).collect()).collect();
        let mut merges = Vec::new();
        while BYTE_TOKENS + merges.len() < vocab_size {
            let mut counts: HashMap<(u32, u32), i64> = HashMap::new();
            for w in &words {
                for p in w.windows(2) {
                    *counts.entry((p[0], p[1])).or_default() += 1;
                }
            }
            let Some((&best, &n)) = counts.iter().max_by(|(pa, ca), (pb, cb)| ca.cmp(cb).then_with(|| pb.cmp(pa))) else { break };
            if n < 2 {
                break;
            }
            let id = (BYTE_TOKENS + merges.len()) as u32;
            merges.push(best);
            for w in words.iter_mut() {
                *w = merge_pair(w, best, id);
            }
        }
        merges
    }

    #[test]
    fn training_matches_the_naive_recount_and_round_trips() {
        let corpus = "a casa, a casada e o casamento; casa casa 1839 casas\n".repeat(7);
        let bpe = Bpe::train([corpus.as_str()], 290).unwrap();
        assert_eq!(bpe.merges(), naive_train(&corpus, 290).as_slice());
        assert!(bpe.vocab_size() > 270, "stopped early at {}", bpe.vocab_size());
        let ids = bpe.encode(&corpus);
        assert!(ids.len() * 3 < corpus.len(), "{} tokens for {} bytes", ids.len(), corpus.len());
        assert_eq!(bpe.decode(&ids), corpus);
        assert_eq!(bpe.token_label(bpe.encode(" casa")[0]), "·casa");
    }

    #[test]
    fn any_text_round_trips_and_labels_are_readable() {
        let bpe = Bpe::train(["o gato e o rato ção ção"], 300).unwrap();
        for text in ["", "日本語 🙂 Ελληνικά", "\u{0}\u{7f}tab\tline\r\n", "ção não", "  espaços   "] {
            assert_eq!(bpe.decode(&bpe.encode(text)), text);
        }
        // "ç" is two bytes: alone, its first byte is not a character.
        assert_eq!(bpe.token_label(0xC3), "<0xC3>");
        assert_eq!(bpe.token_label(b' ' as u32), "·");
    }

    #[test]
    fn steps_end_at_the_encoding() {
        let bpe = Bpe::train(["a casa casa casada casa ".repeat(4).as_str()], 270).unwrap();
        let (bytes, steps) = bpe.encode_steps("casa casada", 100);
        assert_eq!(bytes.len(), "casa casada".len());
        assert_eq!(steps.last().unwrap().tokens, bpe.encode("casa casada"));
        assert!(steps.windows(2).all(|w| w[0].rank < w[1].rank));
    }

    #[test]
    fn json_round_trip_and_corrupt_files() {
        let bpe = Bpe::train(["o gato e o rato"], 262).unwrap();
        assert_eq!(Bpe::from_json(&bpe.to_json()).unwrap(), bpe);
        assert!(Bpe::from_json("{").is_err());
        assert!(Bpe::from_json(r#"{"kind":"byte-bpe","vocab_size":257,"merges":[[300,1]]}"#).is_err());
        assert!(Bpe::from_json(r#"{"kind":"byte-bpe","vocab_size":999,"merges":[]}"#).is_err());
    }
}
