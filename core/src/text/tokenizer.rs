//! Splitting text into words the way the article's examples do: lowercase, punctuation
//! removed, accents kept, and a Portuguese accent-insensitive order for the vocabulary.
//!
//! Rules, in the order they apply:
//! 1. Whitespace, control characters and zero-width spaces separate tokens.
//! 2. A *word* is a run of letters, digits and combining marks (any script: "café", "日本語",
//!    "2024"). A hyphen or apostrophe between two word characters stays inside the word, so
//!    Portuguese compounds and elisions ("guarda-chuva", "d'água") are one token.
//! 3. Everything else (punctuation, symbols, emoji) forms *symbol* runs. With
//!    `strip_punctuation` they are dropped, emoji included; without it each run is one token
//!    ("telhado." → "telhado", "."; "🙂🙂" → "🙂🙂"), so emoji never split mid-sequence
//!    (skin tones and zero-width joiners stay with their emoji).
//! 4. Each token is lowercased and/or stripped of accents as the options say, and dropped
//!    if it is a stopword (stopwords are normalised the same way before comparing).
//!
//! Scripts written without spaces (Japanese, Chinese) come out as one token per run: this is a
//! tutorial tokenizer for Portuguese, not a segmenter.

use std::collections::HashSet;

/// How `tokenize` normalises text; the default reproduces the article's examples.
#[derive(Clone, Debug, PartialEq)]
pub struct TokenizerOptions {
    pub lowercase: bool,
    pub strip_punctuation: bool,
    pub strip_accents: bool,
    /// Words removed after normalisation; empty means none.
    pub stopwords: Vec<String>,
}

impl Default for TokenizerOptions {
    /// Lowercase, punctuation removed, accents kept, no stopwords.
    fn default() -> Self {
        TokenizerOptions {
            lowercase: true,
            strip_punctuation: true,
            strip_accents: false,
            stopwords: Vec::new(),
        }
    }
}

/// A common list of Portuguese function words: articles, prepositions and their contractions,
/// conjunctions, pronouns and a few very frequent adverbs and verb forms. "não" is left out on
/// purpose: negation changes meaning ("O filme é bom" / "O filme não é bom").
pub const PORTUGUESE_STOPWORDS: &[&str] = &[
    "a", "à", "ao", "aos", "aquela", "aquelas", "aquele", "aqueles", "aquilo", "as", "às", "até",
    "com", "como", "da", "das", "de", "dela", "delas", "dele", "deles", "depois", "do", "dos",
    "e", "é", "ela", "elas", "ele", "eles", "em", "entre", "era", "essa", "essas", "esse",
    "esses", "esta", "está", "estas", "este", "estes", "eu", "foi", "há", "isso", "isto", "já",
    "lhe", "lhes", "mais", "mas", "me", "mesmo", "meu", "meus", "minha", "minhas", "muito",
    "na", "nas", "nem", "no", "nos", "nós", "num", "numa", "o", "os", "ou", "para", "pela",
    "pelas", "pelo", "pelos", "por", "qual", "quando", "que", "quem", "se", "sem", "ser", "seu",
    "seus", "só", "sua", "suas", "são", "também", "te", "tem", "um", "uma", "umas", "uns",
    "você", "vocês",
];

/// Removes diacritics from Latin letters: "não" → "nao", "é" → "e", "ç" → "c"; combining
/// marks (decomposed text) are dropped too; other characters pass unchanged.
pub fn strip_accents(s: &str) -> String {
    s.chars().filter(|&c| !is_combining_mark(c)).map(base_letter).collect()
}

/// Sort key for Portuguese accent- and case-insensitive order ("é" between "dorme" and "gato",
/// "caça" before "cachorro"); words equal under it are ordered by their code points, so the
/// order is total and deterministic.
pub fn collation_key(word: &str) -> impl Ord {
    (strip_accents(&lowercase(word)), word.to_string())
}

/// Splits `text` into normalised tokens following the rules in this module's documentation.
pub fn tokenize(text: &str, opts: &TokenizerOptions) -> Vec<String> {
    let stopwords: HashSet<String> =
        opts.stopwords.iter().map(|w| normalize(w.trim(), opts)).collect();
    let mut tokens = Vec::new();
    let mut emit = |run: &str, is_word: bool| {
        if !is_word && opts.strip_punctuation {
            return;
        }
        let token = normalize(run, opts);
        if !token.is_empty() && !stopwords.contains(&token) {
            tokens.push(token);
        }
    };

    // Byte offset where the current run starts and whether it is a word run.
    let mut run: Option<(usize, bool)> = None;
    let mut chars = text.char_indices().peekable();
    let mut previous_is_word = false;
    while let Some((i, c)) = chars.next() {
        let class = if is_separator(c) {
            None
        } else if c.is_alphanumeric() {
            Some(true)
        } else if is_extender(c) {
            // Joins whatever run is open; a lone one starts a symbol run.
            Some(run.is_some_and(|(_, w)| w))
        } else if is_joiner(c) && previous_is_word {
            let next_is_word = chars.peek().is_some_and(|&(_, n)| n.is_alphanumeric());
            Some(next_is_word)
        } else {
            Some(false)
        };
        match (run, class) {
            (Some((start, w)), Some(k)) if w != k => {
                emit(&text[start..i], w);
                run = Some((i, k));
            }
            (Some((start, w)), None) => {
                emit(&text[start..i], w);
                run = None;
            }
            (None, Some(k)) => run = Some((i, k)),
            _ => {}
        }
        previous_is_word = class == Some(true);
    }
    if let Some((start, w)) = run {
        emit(&text[start..], w);
    }
    tokens
}

/// Lowercase and/or strip accents, as the options say.
fn normalize(token: &str, opts: &TokenizerOptions) -> String {
    let lowered = if opts.lowercase { lowercase(token) } else { token.to_string() };
    if opts.strip_accents {
        strip_accents(&lowered)
    } else {
        lowered
    }
}

fn is_separator(c: char) -> bool {
    c.is_whitespace() || c.is_control() || matches!(c, '\u{200B}' | '\u{FEFF}')
}

/// Hyphens and apostrophes, kept only between two word characters.
fn is_joiner(c: char) -> bool {
    matches!(c, '-' | '\'' | '’' | '\u{2010}' | '\u{2011}')
}

/// Characters that extend the previous one: combining marks, zero-width (non-)joiners,
/// variation selectors and emoji tag characters.
fn is_extender(c: char) -> bool {
    is_combining_mark(c)
        || matches!(c, '\u{200C}' | '\u{200D}' | '\u{FE00}'..='\u{FE0F}'
            | '\u{E0020}'..='\u{E007F}' | '\u{E0100}'..='\u{E01EF}')
}

/// The combining diacritical mark blocks (accents written as separate code points).
fn is_combining_mark(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}'
        | '\u{20D0}'..='\u{20FF}' | '\u{FE20}'..='\u{FE2F}')
}

/// `c` in lower case, for the scripts a reader of this site types: ASCII, Latin-1, Latin
/// Extended-A, and the Greek and Cyrillic alphabets (their capitals have one lower-case
/// letter each; İ gives i). Any other character is kept as typed. `char::to_lowercase` covers every script, but
/// its tables cost each page's wasm about 10 KB gzipped.
pub fn lower_char(c: char) -> char {
    let code = c as u32;
    let shifted = match code {
        0x41..=0x5A | 0xC0..=0xD6 | 0xD8..=0xDE | 0x391..=0x3A1 | 0x3A3..=0x3AB | 0x410..=0x42F => code + 0x20,
        0x400..=0x40F => code + 0x50,
        0x388..=0x38A => code + 0x25,
        0x386 => 0x3AC,
        0x38C => 0x3CC,
        0x38E | 0x38F => code + 0x3F,
        0x130 => 'i' as u32,
        0x178 => 0xFF,
        // Latin Extended-A pairs a capital with the small letter after it: even capitals up
        // to U+0137 and from U+014A to U+0177, odd ones from U+0139 to U+0148 and U+0179 to U+017E.
        0x100..=0x137 | 0x14A..=0x177 if code % 2 == 0 => code + 1,
        0x139..=0x148 | 0x179..=0x17E if code % 2 == 1 => code + 1,
        _ => code,
    };
    char::from_u32(shifted).unwrap_or(c)
}

/// `s` in lower case, letter by letter (`lower_char`).
pub fn lowercase(s: &str) -> String {
    s.chars().map(lower_char).collect()
}

/// The unaccented base of a precomposed Latin letter (Latin-1 and the common Latin
/// Extended-A letters); any other character is returned as is.
fn base_letter(c: char) -> char {
    match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => 'a',
        'À' | 'Á' | 'Â' | 'Ã' | 'Ä' | 'Å' | 'Ā' | 'Ă' | 'Ą' => 'A',
        'ç' | 'ć' | 'ĉ' | 'ċ' | 'č' => 'c',
        'Ç' | 'Ć' | 'Ĉ' | 'Ċ' | 'Č' => 'C',
        'ď' => 'd',
        'Ď' => 'D',
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => 'e',
        'È' | 'É' | 'Ê' | 'Ë' | 'Ē' | 'Ĕ' | 'Ė' | 'Ę' | 'Ě' => 'E',
        'ĝ' | 'ğ' | 'ġ' | 'ģ' => 'g',
        'Ĝ' | 'Ğ' | 'Ġ' | 'Ģ' => 'G',
        'ì' | 'í' | 'î' | 'ï' | 'ĩ' | 'ī' | 'ĭ' | 'į' => 'i',
        'Ì' | 'Í' | 'Î' | 'Ï' | 'Ĩ' | 'Ī' | 'Ĭ' | 'Į' | 'İ' => 'I',
        'ñ' | 'ń' | 'ņ' | 'ň' => 'n',
        'Ñ' | 'Ń' | 'Ņ' | 'Ň' => 'N',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ō' | 'ŏ' | 'ő' => 'o',
        'Ò' | 'Ó' | 'Ô' | 'Õ' | 'Ö' | 'Ō' | 'Ŏ' | 'Ő' => 'O',
        'ŕ' | 'ř' => 'r',
        'Ŕ' | 'Ř' => 'R',
        'ś' | 'ŝ' | 'ş' | 'š' => 's',
        'Ś' | 'Ŝ' | 'Ş' | 'Š' => 'S',
        'ţ' | 'ť' => 't',
        'Ţ' | 'Ť' => 'T',
        'ù' | 'ú' | 'û' | 'ü' | 'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' => 'u',
        'Ù' | 'Ú' | 'Û' | 'Ü' | 'Ũ' | 'Ū' | 'Ŭ' | 'Ů' | 'Ű' | 'Ų' => 'U',
        'ý' | 'ÿ' => 'y',
        'Ý' | 'Ÿ' => 'Y',
        'ź' | 'ż' | 'ž' => 'z',
        'Ź' | 'Ż' | 'Ž' => 'Z',
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_case_agrees_with_unicode_on_the_scripts_it_covers() {
        let covered = (0x20u32..0x180).chain(0x386..0x3B0).chain(0x400..0x450);
        for c in covered.filter_map(char::from_u32) {
            let unicode: Vec<char> = c.to_lowercase().collect();
            match (c, unicode.as_slice()) {
                ('İ', _) => assert_eq!(lower_char(c), 'i'),
                (_, [one]) => assert_eq!(lower_char(c), *one, "{c} U+{:04X}", c as u32),
                _ => panic!("{c}: more than one letter"),
            }
        }
        assert_eq!(lowercase("ÁGUA, Ação e ΣΟΦΙΑ в МОСКВЕ"), "água, ação e σοφια в москве");
        assert_eq!(lowercase("日本 🙂 ǅ"), "日本 🙂 ǅ", "other scripts are kept as typed");
    }

    fn toks(text: &str) -> Vec<String> {
        tokenize(text, &TokenizerOptions::default())
    }

    #[test]
    fn article_defaults_lowercase_and_drop_punctuation() {
        assert_eq!(toks("O gato preto subiu no telhado. O gato"), ["o", "gato", "preto", "subiu", "no", "telhado", "o", "gato"]);
        assert_eq!(toks("Olá, mundo!!"), ["olá", "mundo"]);
        assert_eq!(toks("guarda-chuva d'água -x- 'y'"), ["guarda-chuva", "d'água", "x", "y"]);
    }

    #[test]
    fn options_change_what_comes_out() {
        let keep = TokenizerOptions { strip_punctuation: false, lowercase: false, ..Default::default() };
        assert_eq!(tokenize("Gato... preto 👍🏽!", &keep), ["Gato", "...", "preto", "👍🏽!"]);
        let plain = TokenizerOptions {
            strip_accents: true,
            stopwords: vec!["Não".into(), " o ".into()],
            ..Default::default()
        };
        assert_eq!(tokenize("O filme não é bom", &plain), ["filme", "e", "bom"]);
        // Decomposed accents are word characters and are removed by strip_accents.
        assert_eq!(toks("cafe\u{301}"), ["cafe\u{301}"]);
        assert_eq!(tokenize("cafe\u{301}", &plain), ["cafe"]);
    }

    #[test]
    fn accents_and_collation() {
        assert_eq!(strip_accents("não é caça Ñandú"), "nao e caca Nandu");
        let mut words = vec!["gato", "é", "dorme", "cachorro", "caça", "e", "É"];
        words.sort_by_cached_key(|w| collation_key(w));
        assert_eq!(words, ["caça", "cachorro", "dorme", "e", "É", "é", "gato"]);
    }

    #[test]
    fn stopword_list_is_lowercase_and_unique() {
        let set: HashSet<_> = PORTUGUESE_STOPWORDS.iter().collect();
        assert_eq!(set.len(), PORTUGUESE_STOPWORDS.len());
        assert!(PORTUGUESE_STOPWORDS.iter().all(|w| w.to_lowercase() == *w));
        assert!(!PORTUGUESE_STOPWORDS.contains(&"não"));
    }
}
