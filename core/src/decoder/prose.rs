//! Prose-shaped training text: the books of the corpus are hard-wrapped at about 80
//! characters, and a model trained on them as they are learns to break lines every ~70
//! characters, in mid-sentence. `prepare` joins the wrapped lines back into paragraphs.
//!
//! The books separate paragraphs with no blank line (only the title has one), so a
//! paragraph's end is found the way a reader finds it on the page:
//! - a blank line ends a paragraph;
//! - a line that starts a dialogue with a dash (— or a hyphen followed by a space) starts one;
//! - a line much shorter than the book's wrap width ends one (the last line of a paragraph,
//!   a chapter heading, a line of verse). A wrapped line is never that short: the wrap only
//!   moves a word that does not fit, and no word is that long.
//!
//! Inside a paragraph runs of white space become one space; paragraphs are separated by one
//! `\n`. Training and validation text go through the same function.

/// Share of the wrap width under which a line ends its paragraph.
const SHORT_LINE: f32 = 0.75;

/// The book's wrap width: the 90th percentile of the lengths (in characters) of its
/// non-empty lines. Half the lines of a wrapped book are full, so the percentile sits on the
/// wrap width whatever the number of short paragraph ends.
pub fn wrap_width(text: &str) -> usize {
    let mut lengths: Vec<usize> = text.lines().map(|l| l.trim().chars().count()).filter(|&n| n > 0).collect();
    if lengths.is_empty() {
        return 0;
    }
    crate::order::sort_usize(&mut lengths);
    lengths[(lengths.len() * 9 / 10).min(lengths.len() - 1)]
}

/// Whether a line opens a line of dialogue.
fn starts_dialogue(line: &str) -> bool {
    line.starts_with('—') || line.starts_with('–') || line.starts_with("- ")
}

/// Collapses every run of white space (spaces, tabs, no-break spaces) into one space.
fn normalise_spaces(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The text with hard-wrapped lines joined into paragraphs, one per line.
pub fn prepare(text: &str) -> String {
    let text = text.replace("\r\n", "\n");
    let width = wrap_width(&text);
    let short = (width as f32 * SHORT_LINE) as usize;
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, paragraphs: &mut Vec<String>| {
        if !current.is_empty() {
            paragraphs.push(std::mem::take(current));
        }
    };
    for raw in text.lines() {
        let line = normalise_spaces(raw);
        if line.is_empty() {
            flush(&mut current, &mut paragraphs);
            continue;
        }
        if starts_dialogue(&line) {
            flush(&mut current, &mut paragraphs);
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(&line);
        if line.chars().count() < short {
            flush(&mut current, &mut paragraphs);
        }
    }
    flush(&mut current, &mut paragraphs);
    paragraphs.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A wrapped passage in the shape of the corpus (width ~80, no blank lines).
    const WRAPPED: &str = "Dom Casmurro\n\nCAPÍTULO PRIMEIRO\nDO TÍTULO\n\
Uma noite destas, vindo da cidade para o Engenho Novo, encontrei no trem da\n\
Central um rapaz aqui do bairro, que eu conheço de vista e de chapéu.\n\
Cumprimentou-me, sentou-se ao pé de mim, falou da Lua e dos ministros, e\n\
acabou recitando-me versos. A viagem era curta, e os versos pode ser que não\n\
fossem inteiramente maus. Sucedeu, porém, que, como eu estava cansado, fechei\n\
os olhos três ou quatro vezes; tanto bastou para que ele interrompesse a leitura e\n\
metesse os versos no bolso.\n\
— Continue, disse eu acordando.\n\
— Já acabei, murmurou ele.\n\
— Deve acostumar-se. Padre que seja, se for vigário na roça, é preciso que monte\n\
a cavalo; e, aqui   mesmo, ainda não sendo padre, se quiser florear como os outros\n\
rapazes, mana Glória.\n\
Vi-lhe fazer um gesto para tirá-los outra vez do bolso, mas não passou do gesto;\n\
estava amuado.";

    #[test]
    fn wrapped_lines_join_into_paragraphs() {
        let prepared = prepare(WRAPPED);
        let paragraphs: Vec<&str> = prepared.lines().collect();
        assert_eq!(paragraphs[0], "Dom Casmurro");
        assert_eq!(paragraphs[1], "CAPÍTULO PRIMEIRO");
        assert_eq!(paragraphs[2], "DO TÍTULO");
        assert!(paragraphs[3].starts_with("Uma noite destas, vindo da cidade para o Engenho Novo, encontrei no trem da Central um rapaz"));
        assert!(paragraphs[3].ends_with("metesse os versos no bolso."), "{}", paragraphs[3]);
        assert_eq!(paragraphs[4], "— Continue, disse eu acordando.");
        assert_eq!(paragraphs[5], "— Já acabei, murmurou ele.");
        // A wrapped line of dialogue continues its paragraph; runs of spaces collapse.
        assert!(paragraphs[6].contains("é preciso que monte a cavalo; e, aqui mesmo, ainda"), "{}", paragraphs[6]);
        assert!(paragraphs[6].ends_with("mana Glória."));
        assert_eq!(paragraphs[7], "Vi-lhe fazer um gesto para tirá-los outra vez do bolso, mas não passou do gesto; estava amuado.");
        assert_eq!(paragraphs.len(), 8);
        // No hard break survives inside a paragraph, and no character of the text is lost.
        let letters = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        assert_eq!(letters(&prepared), letters(WRAPPED));
    }

    #[test]
    fn width_is_the_wrap_and_odd_input_is_safe() {
        assert!((74..=84).contains(&wrap_width(WRAPPED)), "{}", wrap_width(WRAPPED));
        assert_eq!(prepare(""), "");
        assert_eq!(prepare("\n\n\n"), "");
        assert_eq!(prepare("uma linha só"), "uma linha só");
        assert_eq!(prepare("a\r\nb\u{a0}\u{a0}c\t d"), "a\nb c d");
    }
}
