//! One notation for the whole site (issue 37): the original articles write attention as α_ti
//! and C_t in one place and as α_ij and a_i in another, the vocabulary's size as |V| and |T|,
//! "scores" and "escores"; and they speak of a "livro-texto" and a "capítulo" that this site
//! never introduced. The page `notacao` (content/02-notacao.md) holds the table the site
//! follows; this module retires the variants it replaces: a page that writes one fails the build
//! with its file, line and what to write instead. The two pages that name the retired forms to
//! explain them, `notacao` and `artigos-originais`, are exempt.

use crate::{NOTATION_SLUG, SOURCES_SLUG};

/// How a retired variant is found in a page's Markdown (formulas included, as LaTeX).
#[derive(Clone, Copy, Debug)]
enum Find {
    /// The exact text, not inside a longer name: no letter or `\` right before it, no ASCII
    /// letter right after (`C_t` but not `\vec{C_t}x`… nor `ABC_t`).
    Symbol(&'static str),
    /// The text in any case, at the start of a word (a word and its plural: `escore`, `escores`).
    Word(&'static str),
    /// `\alpha` with a subscript holding this letter (`\alpha_t`, `\alpha_{ti}`).
    AlphaIndex(char),
}

/// A variant the site no longer writes, and what it writes instead.
#[derive(Clone, Copy, Debug)]
pub struct Retired {
    find: Find,
    /// The variant as the error message names it.
    pub variant: &'static str,
    /// What the site writes instead (the notation table's entry).
    pub instead: &'static str,
}

/// Every retired variant. The notation page lists the same pairs.
pub const RETIRED: &[Retired] = &[
    Retired {
        find: Find::AlphaIndex('t'),
        variant: "α_t, α_ti (\\alpha_{ti})",
        instead: "α_ij, o peso que a consulta i dá à chave j (\\alpha_{ij}), e α_i, a linha da consulta i",
    },
    Retired { find: Find::Symbol("C_t"), variant: "C_t", instead: "a_i, a saída da atenção na posição i" },
    Retired { find: Find::Symbol("Q_t"), variant: "Q_t", instead: "q_i, a query da posição i (a linha i de Q)" },
    Retired { find: Find::Symbol("|T|"), variant: "|T|", instead: "|V|, o tamanho do vocabulário" },
    Retired { find: Find::Symbol("\\lvert T \\rvert"), variant: "\\lvert T \\rvert", instead: "|V|, o tamanho do vocabulário" },
    Retired { find: Find::Word("escore"), variant: "escore(s)", instead: "score(s)" },
    Retired { find: Find::Word("livro-texto"), variant: "livro-texto", instead: "o livro de Jurafsky e Martin, apresentado na página artigos-originais" },
    Retired { find: Find::Word("capítulo"), variant: "capítulo", instead: "o artigo original (o quarto segue um capítulo de Jurafsky e Martin: veja artigos-originais)" },
];

/// Each retired variant in `text`: (byte offset, the variant).
pub fn find_retired(text: &str) -> Vec<(usize, &'static Retired)> {
    let mut found = Vec::new();
    let lower = text.to_lowercase();
    for retired in RETIRED {
        match retired.find {
            Find::Symbol(symbol) => {
                for (at, _) in text.match_indices(symbol) {
                    let before = text[..at].chars().next_back();
                    let after = text[at + symbol.len()..].chars().next();
                    let inside_a_name = before.is_some_and(|c| c.is_alphabetic() || c == '\\') || after.is_some_and(|c| c.is_ascii_alphabetic());
                    if !inside_a_name {
                        found.push((at, retired));
                    }
                }
            }
            Find::Word(word) => {
                // Lowercasing these texts keeps byte offsets (no letter in them changes length),
                // and the offset only names a line.
                // A word starts where no letter is before it ("VoteScores" holds no "escore").
                let starts_a_word = |at: usize| !lower[..at].chars().next_back().is_some_and(char::is_alphabetic);
                found.extend(lower.match_indices(word).filter(|&(at, _)| starts_a_word(at)).map(|(at, _)| (at, retired)));
            }
            Find::AlphaIndex(letter) => {
                for (at, _) in text.match_indices("\\alpha_") {
                    let rest = &text[at + "\\alpha_".len()..];
                    let index = match rest.strip_prefix('{') {
                        Some(group) => group.split('}').next().unwrap_or_default(),
                        None => rest.get(..rest.chars().next().map_or(0, char::len_utf8)).unwrap_or_default(),
                    };
                    if index.contains(letter) {
                        found.push((at, retired));
                    }
                }
            }
        }
    }
    found.sort_by_key(|&(at, _)| at);
    found
}

/// Fails the build if the page `slug` (its whole file, `text`) writes a retired variant,
/// naming each with its line.
pub fn check(text: &str, file: &str, slug: &str) {
    if slug == NOTATION_SLUG || slug == SOURCES_SLUG {
        return;
    }
    let found = find_retired(text);
    if found.is_empty() {
        return;
    }
    let lines: Vec<String> = found
        .iter()
        .map(|&(at, retired)| format!("{file}:{}: «{}» is retired; write {}", line_of(text, at), retired.variant, retired.instead))
        .collect();
    panic!("notation (see content/02-notacao.md):\n{}", lines.join("\n"));
}

/// The line (from 1) of byte offset `at`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variants(text: &str) -> Vec<&'static str> {
        find_retired(text).into_iter().map(|(_, r)| r.variant).collect()
    }

    #[test]
    fn attention_is_written_with_i_the_query_and_j_the_key() {
        assert_eq!(variants(r"$\alpha_{ij}$, $\alpha_i$, $a_i = \sum_j \alpha_{ij} v_j$, $\alpha_{2j}$"), Vec::<&str>::new());
        assert_eq!(variants(r"$\alpha_{ti}$ e $\alpha_t$"), vec![RETIRED[0].variant; 2]);
        assert_eq!(variants(r"$C_t = \sum_i \alpha_{ti} V_i$ e $Q_t$"), vec!["C_t", RETIRED[0].variant, "Q_t"]);
        // Longer names are other symbols.
        assert_eq!(variants(r"$\mathbf{C_text}$, $ABC_t$, $d_{C_t}$"), vec!["C_t"], "only the last is C_t itself");
    }

    #[test]
    fn the_vocabulary_is_v_and_scores_have_one_spelling() {
        assert_eq!(variants("$t \\times |T|$ e $\\lvert T \\rvert$"), vec!["|T|", "\\lvert T \\rvert"]);
        assert_eq!(variants("$|V|^N$ e $\\lvert V \\rvert$"), Vec::<&str>::new());
        assert_eq!(variants("os Escores e os scores, VoteScores"), vec!["escore(s)"]);
        assert_eq!(variants("o livro-texto, o Capítulo"), vec!["livro-texto", "capítulo"]);
    }

    #[test]
    fn a_retired_variant_fails_the_build_with_its_line() {
        let error = std::panic::catch_unwind(|| check("---\ntitulo: A\n---\nlinha\n$C_t$\n", "content/x.md", "x")).expect_err("C_t is retired");
        let message = error.downcast_ref::<String>().expect("a message");
        assert!(message.contains("content/x.md:5: «C_t» is retired; write a_i"), "{message}");
        // The pages that explain the retired forms may name them.
        check("$C_t$, livro-texto", "content/02-notacao.md", NOTATION_SLUG);
        check("$C_t$, livro-texto", "content/01-artigos-originais.md", SOURCES_SLUG);
    }

    #[test]
    fn the_widget_documentation_follows_the_notation() {
        for doc in crate::widgets::WIDGETS {
            let mut texts = vec![doc.title, doc.summary];
            texts.extend(doc.attributes.iter().flat_map(|a| [a.meaning, a.values]));
            for text in texts {
                assert!(find_retired(text).is_empty(), "site/src/widgets.rs, widget «{}»: {:?} in «{text}»", doc.name, variants(text));
            }
        }
    }
}
