//! The text a run learns from: what the reader pasted or typed (or the preset story), made
//! safe to train on. Bad input gives a Portuguese message, never a panic:
//! - more than `MAX_CHARS` characters: cut there, and said so (a 5 MB paste would take
//!   minutes to tokenise and megabytes of saved state);
//! - Windows line ends become `\n`; other control characters (but tab) become spaces;
//! - more than `MAX_VOCAB` distinct characters (a paste of CJK text, emoji): the rarest
//!   become U+FFFD, and said so, so the embedding and the output head stay small;
//! - empty, or a single distinct character (nothing to predict: the tokenizer needs 2
//!   symbols), or too short to hold out a validation tail and still fill a training window:
//!   an error saying which.

use std::collections::HashMap;

use crate::decoder::prose;
use crate::error::{ComputeError, Result};

/// Longest text a run takes, in characters (about 200 KB of prose: a short novel).
pub const MAX_CHARS: usize = 200_000;
/// Most distinct characters kept (the rest become U+FFFD). Portuguese prose uses about 90.
pub const MAX_VOCAB: usize = 256;
/// What rare characters become.
pub const REPLACEMENT: char = '\u{FFFD}';

/// A text ready to tokenise, and what was changed to make it so.
#[derive(Clone, Debug, PartialEq)]
pub struct PreparedText {
    pub text: String,
    /// The reader's length in characters when it was cut to `MAX_CHARS`.
    pub cut_from: Option<usize>,
    /// How many distinct rare characters became U+FFFD.
    pub replaced: usize,
}

impl PreparedText {
    /// The notes to show the reader (empty when nothing changed), in Portuguese.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if let Some(total) = self.cut_from {
            notes.push(format!(
                "O texto tinha {} caracteres; o treino usa só os primeiros {}.",
                crate::transformer::format_count(total as u64),
                crate::transformer::format_count(MAX_CHARS as u64)
            ));
        }
        if self.replaced > 0 {
            notes.push(format!(
                "{} caracteres raros viraram «{REPLACEMENT}», para o vocabulário ficar em {MAX_VOCAB} símbolos.",
                self.replaced
            ));
        }
        notes
    }
}

/// Caps, normalises and checks `raw`. `prose_paragraphs`: join hard-wrapped lines into
/// paragraphs (`decoder::prose::prepare`, as the shipped model's corpus), for the preset;
/// the reader's own text is kept as typed. `min_chars`: the shortest text the run can use
/// (`TrainSettings::min_chars`).
pub fn prepare_text(raw: &str, prose_paragraphs: bool, min_chars: usize) -> Result<PreparedText> {
    // Cut first, by characters (never inside a UTF-8 sequence), so the rest is bounded.
    let total = raw.chars().count();
    let cut_from = (total > MAX_CHARS).then_some(total);
    let capped: String = if cut_from.is_some() { raw.chars().take(MAX_CHARS).collect() } else { raw.to_string() };
    let unified = capped.replace("\r\n", "\n").replace('\r', "\n");
    let cleaned: String = unified.chars().map(|c| if c.is_control() && c != '\n' && c != '\t' { ' ' } else { c }).collect();
    let mut text = if prose_paragraphs { prose::prepare(&cleaned) } else { cleaned };
    if text.trim().is_empty() {
        return Err(ComputeError::Invalid("O texto está vazio: cole ou escreva um texto para treinar.".into()));
    }
    let mut counts: HashMap<char, usize> = HashMap::new();
    for c in text.chars() {
        *counts.entry(c).or_default() += 1;
    }
    if counts.len() < 2 {
        let only = counts.keys().next().copied().unwrap_or(' ');
        return Err(ComputeError::Invalid(format!(
            "O texto só tem um caractere, «{only}», repetido: não há o que prever. O tokenizador precisa de pelo menos 2 símbolos diferentes."
        )));
    }
    let mut replaced = 0;
    if counts.len() > MAX_VOCAB {
        // Keep the MAX_VOCAB − 1 most frequent (ties: the smaller code point), U+FFFD for the rest.
        let mut by_count: Vec<(char, usize)> = counts.into_iter().collect();
        crate::order::sort_by(&mut by_count, |a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let kept: std::collections::HashSet<char> = by_count.iter().take(MAX_VOCAB - 1).map(|(c, _)| *c).collect();
        replaced = by_count.len() - kept.len();
        text = text.chars().map(|c| if kept.contains(&c) { c } else { REPLACEMENT }).collect();
    }
    let length = text.chars().count();
    if length < min_chars {
        return Err(ComputeError::Invalid(format!(
            "O texto tem {length} caracteres; são precisos pelo menos {min_chars} para separar a validação e ainda formar janelas de treino."
        )));
    }
    Ok(PreparedText { text, cut_from, replaced })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_texts_give_messages() {
        assert!(prepare_text("", false, 10).unwrap_err().to_string().contains("vazio"));
        assert!(prepare_text("  \n\t ", false, 10).unwrap_err().to_string().contains("vazio"));
        let one = prepare_text(&"a".repeat(5000), false, 10).unwrap_err().to_string();
        assert!(one.contains("«a»") && one.contains("2 símbolos"), "{one}");
        assert!(prepare_text("abcab", false, 10).unwrap_err().to_string().contains("pelo menos 10"));
    }

    #[test]
    fn a_huge_paste_is_cut_and_said_so() {
        let big = "ação é tudo. ".repeat(5_000_000 / 13);
        let p = prepare_text(&big, false, 10).unwrap();
        assert_eq!(p.text.chars().count(), MAX_CHARS);
        assert_eq!(p.cut_from, Some(big.chars().count()));
        assert!(p.notes()[0].contains("200.000"), "{:?}", p.notes());
    }

    #[test]
    fn odd_unicode_is_kept_or_replaced_never_split() {
        // Combining marks, emoji, right-to-left text, a NUL and CR line ends.
        let odd = "e\u{301}😀 שלום\u{0}\r\nfim 👍🏽";
        let p = prepare_text(odd, false, 5).unwrap();
        assert!(!p.text.contains('\r') && !p.text.contains('\u{0}'));
        assert!(p.text.contains('😀') && p.text.contains('\u{301}'));
        // 600 distinct CJK characters: the rarest become U+FFFD.
        let many: String = (0..600u32).map(|i| char::from_u32(0x4E00 + i).unwrap()).chain("aaaa".chars()).collect();
        let p = prepare_text(&many, false, 5).unwrap();
        let distinct: std::collections::HashSet<char> = p.text.chars().collect();
        assert_eq!(distinct.len(), MAX_VOCAB);
        assert_eq!(p.replaced, 601 - (MAX_VOCAB - 1));
        assert!(p.text.contains(REPLACEMENT) && p.text.starts_with('\u{4E00}'));
    }

    #[test]
    fn the_preset_is_joined_into_paragraphs() {
        let wrapped = "Nunca pude entender a conversação que tive com uma senhora, há muitos anos,\ncontava eu dezessete, ela trinta. Era noite de Natal. Havendo ajustado com um\nvizinho.\n";
        let p = prepare_text(wrapped, true, 10).unwrap();
        assert!(p.text.contains("anos, contava"), "{}", p.text);
    }
}
