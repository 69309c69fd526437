//! The character tokenizer of "Explicando Transformers", with one fixed table.
//!
//! The article's tables disagree with each other (a = 1, 3 or 4), Python's printable set has
//! no accented letters, and its final class numbers the characters from a `set`, so ids could
//! change between runs. The spec recommends one table, used everywhere on the site:
//! `<pad>`=0, `<bos>`=1, `<eos>`=2, a=3 … z=28, space=29, '.'=30, ','=31, then fixed ids for
//! the Portuguese accented letters, digits and a little punctuation, and `<unk>` last.
//!
//! Text is lowercased (the table has no capitals), any whitespace counts as a space, and a
//! letter written as base + combining accent (NFD, as some keyboards and PDFs produce) is
//! joined into the single accented letter. Anything else becomes `<unk>`, reported to the reader.

use crate::error::{ComputeError, Result};
use crate::text::tokenizer::lower_char;

pub const PAD: u32 = 0;
pub const BOS: u32 = 1;
pub const EOS: u32 = 2;

/// Characters in id order, starting at id 3.
const CHARS: &[char] = &[
    'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't', 'u', 'v', 'w',
    'x', 'y', 'z', ' ', '.', ',', // 3 … 31, as the spec's table
    'á', 'à', 'â', 'ã', 'é', 'ê', 'í', 'ó', 'ô', 'õ', 'ú', 'ü', 'ç', // 32 … 44
    '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', // 45 … 54
    '?', '!', ':', ';', '-', // 55 … 59
];
const FIRST_CHAR: u32 = 3;
/// Stands for any character outside the table.
pub const UNK: u32 = FIRST_CHAR + CHARS.len() as u32;
/// `<pad>`, `<bos>`, `<eos>`, the characters and `<unk>`.
pub const VOCAB_SIZE: usize = UNK as usize + 1;

/// Longest text one widget line accepts, in characters.
pub const MAX_TEXT_CHARS: usize = 64;
/// Most texts in one batch.
pub const MAX_BATCH: usize = 8;
/// Widest batch matrix (positions).
pub const MAX_WIDTH: usize = 96;

/// The id of one (already lowercased) character, if the table has it.
pub fn char_id(c: char) -> Option<u32> {
    CHARS.iter().position(|&k| k == c).map(|i| FIRST_CHAR + i as u32)
}

/// What id `id` stands for: `<pad>`, `a`, `␣` (space) …; `None` past the vocabulary.
pub fn token_label(id: u32) -> Option<String> {
    Some(match id {
        PAD => "<pad>".into(),
        BOS => "<bos>".into(),
        EOS => "<eos>".into(),
        UNK => "<unk>".into(),
        _ => match CHARS.get(id.checked_sub(FIRST_CHAR)? as usize)? {
            ' ' => "␣".into(),
            c => c.to_string(),
        },
    })
}

/// Every (id, label) of the vocabulary, in id order (the widget's table).
pub fn vocabulary() -> Vec<(u32, String)> {
    (0..VOCAB_SIZE as u32).filter_map(|id| token_label(id).map(|l| (id, l))).collect()
}

/// One token of an encoded text: its id and the text it came from (`<bos>` for specials).
#[derive(Clone, Debug, PartialEq)]
pub struct CharToken {
    pub id: u32,
    /// The original character(s) as typed (before lowercasing), or the special's name.
    pub source: String,
}

/// An encoded text.
#[derive(Clone, Debug, PartialEq)]
pub struct Encoded {
    pub tokens: Vec<CharToken>,
    /// Characters that became `<unk>`, in order of appearance, without repeats.
    pub unknown: Vec<String>,
}

impl Encoded {
    pub fn ids(&self) -> Vec<u32> {
        self.tokens.iter().map(|t| t.id).collect()
    }
}

/// Joins a base letter and a combining accent into the precomposed letter of the table.
fn compose(base: char, mark: char) -> Option<char> {
    Some(match (base, mark) {
        ('a', '\u{301}') => 'á',
        ('a', '\u{300}') => 'à',
        ('a', '\u{302}') => 'â',
        ('a', '\u{303}') => 'ã',
        ('e', '\u{301}') => 'é',
        ('e', '\u{302}') => 'ê',
        ('i', '\u{301}') => 'í',
        ('o', '\u{301}') => 'ó',
        ('o', '\u{302}') => 'ô',
        ('o', '\u{303}') => 'õ',
        ('u', '\u{301}') => 'ú',
        ('u', '\u{308}') => 'ü',
        ('c', '\u{327}') => 'ç',
        _ => return None,
    })
}

fn is_combining_mark(c: char) -> bool {
    ('\u{300}'..='\u{36f}').contains(&c)
}

/// Text → tokens, with `<bos>` … `<eos>` around it when `specials` is set.
/// Never fails: characters outside the table become `<unk>` and are listed in `unknown`.
pub fn encode(text: &str, specials: bool) -> Encoded {
    let mut tokens: Vec<CharToken> = Vec::new();
    let mut unknown: Vec<String> = Vec::new();
    if specials {
        tokens.push(CharToken { id: BOS, source: "<bos>".into() });
    }
    let first_char = tokens.len();
    for c in text.chars() {
        if is_combining_mark(c) {
            // Merge with the previous letter when the pair is one of the table's accented letters.
            if let Some(prev) = tokens[first_char..].last_mut() {
                let base = prev.source.chars().next().map_or(' ', lower_char);
                if prev.source.chars().count() == 1 {
                    if let Some(id) = compose(base, c).and_then(char_id) {
                        prev.id = id;
                        prev.source.push(c);
                        continue;
                    }
                }
            }
        }
        let id = char_id(if c.is_whitespace() { ' ' } else { lower_char(c) });
        let id = id.unwrap_or_else(|| {
            let shown = c.to_string();
            if !unknown.contains(&shown) {
                unknown.push(shown);
            }
            UNK
        });
        tokens.push(CharToken { id, source: c.to_string() });
    }
    if specials {
        tokens.push(CharToken { id: EOS, source: "<eos>".into() });
    }
    Encoded { tokens, unknown }
}

/// Ids → text; specials are written as `<bos>` etc. Ids past the vocabulary fail (the
/// article's "argmax + 2" produces such ids).
pub fn decode(ids: &[u32]) -> Result<String> {
    let mut out = String::new();
    for &id in ids {
        let label = token_label(id).ok_or_else(|| {
            ComputeError::Invalid(format!("O identificador {id} não existe num vocabulário de {VOCAB_SIZE} tokens."))
        })?;
        out.push_str(if label == "␣" { " " } else { &label });
    }
    Ok(out)
}

/// Where the `<pad>` tokens go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadSide {
    Left,
    Right,
}

/// How the batch width t is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchLength {
    /// t = the longest sequence of the batch.
    Longest,
    /// t = a constant (hardware such as TPUs prefers fixed shapes). Without truncation a longer
    /// sequence widens the batch, as in the article's `batch_encode`.
    Fixed(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PadOptions {
    pub side: PadSide,
    pub length: BatchLength,
    /// Drop each sequence's last tokens beyond this many.
    pub truncate_to: Option<usize>,
}

impl Default for PadOptions {
    fn default() -> Self {
        PadOptions { side: PadSide::Right, length: BatchLength::Longest, truncate_to: None }
    }
}

/// A padded batch: b rows of t ids.
#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    /// (b, t) ids.
    pub ids: Vec<Vec<u32>>,
    /// Tokens each row lost to truncation.
    pub truncated: Vec<usize>,
    /// Set when a fixed width had to grow to fit a sequence (no truncation).
    pub widened_from: Option<usize>,
}

impl Batch {
    pub fn width(&self) -> usize {
        self.ids.first().map_or(0, Vec::len)
    }

    /// The ids as a (b, t) matrix, for drawing.
    pub fn to_matrix(&self) -> crate::Matrix {
        let values = self.ids.iter().flatten().map(|&id| id as f32).collect();
        crate::Matrix::from_vec(self.ids.len(), self.width(), values).expect("rows have equal length")
    }
}

/// Pads (and optionally truncates) `sequences` into one rectangular batch.
pub fn pad_batch(sequences: &[Vec<u32>], opts: PadOptions) -> Result<Batch> {
    if sequences.is_empty() {
        return Err(ComputeError::Invalid("O lote está vazio: escreva pelo menos um texto.".into()));
    }
    if let Some(0) = opts.truncate_to {
        return Err(ComputeError::Invalid("O comprimento máximo precisa ser pelo menos 1.".into()));
    }
    if let BatchLength::Fixed(0) = opts.length {
        return Err(ComputeError::Invalid("O comprimento fixo precisa ser pelo menos 1.".into()));
    }
    let mut truncated = Vec::with_capacity(sequences.len());
    let cut: Vec<&[u32]> = sequences
        .iter()
        .map(|s| {
            let keep = opts.truncate_to.map_or(s.len(), |m| s.len().min(m));
            truncated.push(s.len() - keep);
            &s[..keep]
        })
        .collect();
    let longest = cut.iter().map(|s| s.len()).max().unwrap_or(0);
    let (width, widened_from) = match opts.length {
        BatchLength::Longest => (longest, None),
        BatchLength::Fixed(n) if longest > n => (longest, Some(n)),
        BatchLength::Fixed(n) => (n, None),
    };
    super::check_cap("A largura do lote", width, MAX_WIDTH)?;
    let ids = cut
        .iter()
        .map(|s| {
            let pads = std::iter::repeat_n(PAD, width - s.len());
            match opts.side {
                PadSide::Right => s.iter().copied().chain(pads).collect(),
                PadSide::Left => pads.chain(s.iter().copied()).collect(),
            }
        })
        .collect();
    Ok(Batch { ids, truncated, widened_from })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_the_spec() {
        assert_eq!(char_id('a'), Some(3));
        assert_eq!(char_id('z'), Some(28));
        assert_eq!(char_id(' '), Some(29));
        assert_eq!(char_id('.'), Some(30));
        assert_eq!(char_id(','), Some(31));
        assert_eq!(vocabulary().len(), VOCAB_SIZE);
        assert_eq!(token_label(UNK).as_deref(), Some("<unk>"));
        assert_eq!(token_label(VOCAB_SIZE as u32), None);
    }

    #[test]
    fn decomposed_accents_join() {
        assert_eq!(encode("cão", false).ids(), encode("ca\u{303}o", false).ids());
        assert_eq!(encode("É", false).ids(), vec![char_id('é').unwrap()]);
    }

    #[test]
    fn unknown_characters_become_unk_once_listed() {
        let e = encode("ñ😀ñ", true);
        assert_eq!(e.ids(), vec![BOS, UNK, UNK, UNK, EOS]);
        assert_eq!(e.unknown, vec!["ñ".to_string(), "😀".to_string()]);
    }
}
