//! A widget's inputs as the reader left them, in forms that survive a reload and fit a link.
//!
//! The web layer (`web::kit::state`) reads a widget's form controls as (key, value) pairs,
//! in page order: the key is the control's `data-control` name (`~2`, `~3`, … for its later
//! repeats), a matrix cell's place (`x@1.2`: editor `x`, row 1, column 2, from 0) or a resizable
//! editor's size (`x@size`, its number of cells). It keeps them in the page's address
//! (`slug.html?w2=…`, once `#/slug?w2=…`: the widget in slot 2, base64url of the JSON below)
//! and in localStorage (the JSON itself). Both come back from outside the program (a link
//! someone sent, storage written by another version of the site), so decoding checks
//! everything and answers with a Portuguese message, never a panic: these are fuzzing targets.
//!
//! JSON: `{"v":1,"k":"attention","c":[["x@0.1","2"],["causal","1"]],"o":["corpus"]}`, where
//! `o` lists the keys left out because the link or the storage had no room for them.

use serde::{Deserialize, Serialize};

/// The `v` of the JSON; another value is refused (a link from a future version of the site).
pub const FORMAT_VERSION: u32 = 1;
/// Controls in one widget's state (the largest editors hold a few hundred cells).
pub const MAX_CONTROLS: usize = 4096;
/// Characters of a control key, and of a widget kind.
pub const MAX_KEY_CHARS: usize = 64;
/// Characters of one widget's state in a link (base64url): chat and mail programs cut longer
/// links, so beyond it the largest values stay out of the link (and the widget says so).
pub const MAX_LINK_CHARS: usize = 6_000;
/// Characters of one widget's state in localStorage (JSON). Browsers give an origin about five
/// million characters in all; a 1 MB corpus fits, a 5 MB paste does not.
pub const MAX_STORED_CHARS: usize = 1_500_000;
/// Characters of a URL hash this module reads, and parameters in it.
pub const MAX_HASH_CHARS: usize = 64_000;
pub const MAX_HASH_PARAMS: usize = 256;

/// One widget's inputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WidgetState {
    #[serde(rename = "v")]
    pub version: u32,
    /// The `data-widget` kind it belongs to: another kind in the same slot ignores it.
    #[serde(rename = "k")]
    pub kind: String,
    /// (control key, value) in page order; restored in that order, since a choice can rewrite
    /// the fields after it (a preset fills the corpus).
    #[serde(rename = "c")]
    pub controls: Vec<(String, String)>,
    /// Keys left out for size.
    #[serde(rename = "o", default, skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<String>,
}

impl WidgetState {
    pub fn new(kind: &str, controls: Vec<(String, String)>) -> WidgetState {
        WidgetState { version: FORMAT_VERSION, kind: kind.to_string(), controls, omitted: Vec::new() }
    }

    /// The value of control `key`, if the state has it.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.controls.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The JSON kept in localStorage.
    pub fn to_json(&self) -> String {
        // Strings and numbers only: serialising cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads and checks the JSON of `to_json`.
    pub fn from_json(text: &str) -> Result<WidgetState, String> {
        if text.len() > MAX_STORED_CHARS * 4 {
            return Err("o estado guardado é grande demais".into());
        }
        let state: WidgetState = serde_json::from_str(text).map_err(|e| format!("o estado guardado não é legível ({e})"))?;
        state.check()?;
        Ok(state)
    }

    /// The state as a URL parameter value: base64url (no padding) of the JSON.
    pub fn to_link(&self) -> String {
        base64url_encode(self.to_json().as_bytes())
    }

    /// Reads a parameter written by `to_link`.
    pub fn from_link(text: &str) -> Result<WidgetState, String> {
        if text.len() > MAX_LINK_CHARS * 2 {
            return Err("o estado no link é longo demais".into());
        }
        let bytes = base64url_decode(text.trim())?;
        let json = String::from_utf8(bytes).map_err(|_| "o estado no link não é texto UTF-8".to_string())?;
        WidgetState::from_json(&json)
    }

    /// Everything a decoded state must satisfy: the right version, a kind and keys made of
    /// plain characters, no key twice, and sizes within the limits above.
    pub fn check(&self) -> Result<(), String> {
        if self.version != FORMAT_VERSION {
            return Err(format!("versão {} do estado é desconhecida (esta página lê a {FORMAT_VERSION})", self.version));
        }
        let kind_ok = !self.kind.is_empty()
            && self.kind.len() <= MAX_KEY_CHARS
            && self.kind.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if !kind_ok {
            return Err("o tipo de widget do estado não é válido".into());
        }
        if self.controls.len() > MAX_CONTROLS || self.omitted.len() > MAX_CONTROLS {
            return Err(format!("o estado tem mais de {MAX_CONTROLS} campos"));
        }
        let mut seen = std::collections::HashSet::new();
        for key in self.controls.iter().map(|(k, _)| k).chain(&self.omitted) {
            if !valid_key(key) {
                return Err(format!("«{}» não é o nome de um campo", key.chars().take(40).collect::<String>()));
            }
            if !seen.insert(key.as_str()) {
                return Err(format!("o campo «{key}» aparece duas vezes"));
            }
        }
        if self.controls.iter().any(|(_, v)| v.len() > MAX_STORED_CHARS * 4) {
            return Err("um campo do estado é grande demais".into());
        }
        Ok(())
    }

    /// Leaves out the largest values until `encoded_len` is at most `max_chars`, moving their
    /// keys to `omitted`. Returns each value left out as (key, its length in bytes).
    pub fn fit(&mut self, max_chars: usize, encoded_len: impl Fn(&WidgetState) -> usize) -> Vec<(String, usize)> {
        let mut dropped = Vec::new();
        // A value longer than the whole budget goes first, before paying for any encoding.
        let mut i = 0;
        while i < self.controls.len() {
            if self.controls[i].1.len() > max_chars {
                let (key, value) = self.controls.remove(i);
                self.omitted.push(key.clone());
                dropped.push((key, value.len()));
            } else {
                i += 1;
            }
        }
        while encoded_len(self) > max_chars {
            let Some(largest) = (0..self.controls.len()).max_by_key(|&i| (self.controls[i].1.len(), std::cmp::Reverse(i))) else { break };
            let (key, value) = self.controls.remove(largest);
            self.omitted.push(key.clone());
            dropped.push((key, value.len()));
        }
        dropped
    }

    /// `fit` for a link.
    pub fn fit_link(&mut self) -> Vec<(String, usize)> {
        self.fit(MAX_LINK_CHARS, |s| s.to_link().len())
    }

    /// `fit` for localStorage.
    pub fn fit_storage(&mut self) -> Vec<(String, usize)> {
        self.fit(MAX_STORED_CHARS, |s| s.to_json().chars().count())
    }

    /// The state to keep of a widget's controls, given as (key, is a choice, value) in page
    /// order: choices always (a choice may rewrite the fields after it, so a restore must see
    /// it), text fields only where they differ from `defaults` (their values at mount), so an
    /// untouched example never weighs on a link.
    pub fn of_controls(kind: &str, controls: Vec<(String, bool, String)>, defaults: &[(String, String)]) -> WidgetState {
        let at_default = |key: &str, value: &str| defaults.iter().any(|(k, v)| k == key && v == value);
        let kept = controls.into_iter().filter(|(key, choice, value)| *choice || !at_default(key, value)).map(|(key, _, value)| (key, value)).collect();
        WidgetState::new(kind, kept)
    }

    /// Whether anything differs from `defaults` (a value, or one left out for size).
    pub fn differs_from(&self, defaults: &[(String, String)]) -> bool {
        !self.omitted.is_empty() || self.controls.iter().any(|(key, value)| !defaults.iter().any(|(k, v)| k == key && v == value))
    }

    /// Takes the values a link left out for size from `stored` (this browser's copy), in place;
    /// returns the keys neither has.
    pub fn fill_omitted(&mut self, stored: Option<&WidgetState>) -> Vec<String> {
        let mut missing = Vec::new();
        for key in std::mem::take(&mut self.omitted) {
            match stored.and_then(|s| s.get(&key)) {
                Some(value) => self.controls.push((key, value.to_string())),
                None => missing.push(key),
            }
        }
        missing
    }
}

/// The values `fit` left out, for the reader: «corpus» (1,2 MB), «stopword-list» (850 kB).
pub fn describe_dropped(dropped: &[(String, usize)]) -> String {
    let size = |bytes: usize| {
        if bytes >= 1_000_000 {
            format!("{} MB", crate::format::format_pt(bytes as f32 / 1e6, 1))
        } else {
            format!("{} kB", (bytes as f32 / 1e3).ceil())
        }
    };
    dropped.iter().map(|(key, n)| format!("«{key}» ({})", size(*n))).collect::<Vec<_>>().join(", ")
}

/// Control keys: 1 to 64 of `A–Z a–z 0–9 _ . @ ~ -`.
pub fn valid_key(key: &str) -> bool {
    !key.is_empty() && key.len() <= MAX_KEY_CHARS && key.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '@' | '~' | '-'))
}

/// The URL parameter of the widget in slot `slot` (its index among the page's widgets).
pub fn slot_param(slot: usize) -> String {
    format!("w{slot}")
}

/// A URL hash split into the site's route and its parameters: `#/decodificador?preset=capitu&w0=…`
/// → route `/decodificador`, params [(preset, capitu), (w0, …)], percent-decoded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HashQuery {
    /// Everything before the first `?`, as written (no `#`).
    pub route: String,
    pub params: Vec<(String, String)>,
}

impl HashQuery {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Sets `name` to `value` (in place, or appended), or removes it (`None`).
    pub fn set(&mut self, name: &str, value: Option<String>) {
        match (self.params.iter().position(|(k, _)| k == name), value) {
            (Some(i), Some(v)) => self.params[i].1 = v,
            (Some(i), None) => {
                self.params.remove(i);
            }
            (None, Some(v)) => self.params.push((name.to_string(), v)),
            (None, None) => {}
        }
    }

    /// Back to a hash, `#` included; empty for no route and no parameters.
    pub fn to_hash(&self) -> String {
        if self.route.is_empty() && self.params.is_empty() {
            return String::new();
        }
        let mut hash = format!("#{}", self.route);
        if !self.params.is_empty() {
            let query: Vec<String> = self.params.iter().map(|(k, v)| format!("{}={}", percent_encode(k), percent_encode(v))).collect();
            hash.push('?');
            hash.push_str(&query.join("&"));
        }
        hash
    }
}

/// Parses a URL hash (with or without its `#`). Errors for a hash too long, too many
/// parameters, a bad `%` escape, or bytes that are not UTF-8.
pub fn parse_hash(hash: &str) -> Result<HashQuery, String> {
    if hash.len() > MAX_HASH_CHARS {
        return Err(format!("o endereço passa de {MAX_HASH_CHARS} caracteres"));
    }
    let hash = hash.strip_prefix('#').unwrap_or(hash);
    let (route, query) = hash.split_once('?').unwrap_or((hash, ""));
    let mut params = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        if params.len() == MAX_HASH_PARAMS {
            return Err(format!("o endereço tem mais de {MAX_HASH_PARAMS} parâmetros"));
        }
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        params.push((percent_decode(name)?, percent_decode(value)?));
    }
    Ok(HashQuery { route: route.to_string(), params })
}

/// `%XX` escapes and `+` (a space, as forms write it) decoded; the result must be UTF-8.
pub fn percent_decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok()).and_then(|h| u8::from_str_radix(h, 16).ok());
                let byte = hex.ok_or_else(|| "o endereço tem um «%» sem dois dígitos hexadecimais depois".to_string())?;
                out.push(byte);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| "o endereço tem bytes que não são UTF-8".to_string())
}

/// Escapes everything but the unreserved characters of RFC 3986 (`A–Z a–z 0–9 - . _ ~`).
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

const BASE64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// RFC 4648 base64url, without padding (links need no `=`).
pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | (b as u32) << (16 - 8 * i));
        for i in 0..chunk.len() + 1 {
            out.push(BASE64URL[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// Decodes base64url, with or without `=` padding; any other character, or a length no
/// encoder writes, is an error.
pub fn base64url_decode(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim_end_matches('=');
    if text.len() % 4 == 1 {
        return Err("o estado no link está cortado".into());
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for chunk in text.as_bytes().chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            let digit = BASE64URL.iter().position(|&b| b == c).ok_or_else(|| "o estado no link tem caracteres inválidos".to_string())?;
            n |= (digit as u32) << (18 - 6 * i);
        }
        for i in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn of_controls_keeps_choices_and_edited_text_only() {
        let defaults = pairs(&[("preset", "bow"), ("corpus", "o gato"), ("accents", "1")]);
        let controls = vec![("preset".into(), true, "bow".into()), ("corpus".into(), false, "o gato".into()), ("accents".into(), true, "0".into())];
        let state = WidgetState::of_controls("bow", controls, &defaults);
        assert_eq!(state.controls, pairs(&[("preset", "bow"), ("accents", "0")]));
        assert!(state.differs_from(&defaults));
        let untouched = WidgetState::new("bow", pairs(&[("preset", "bow"), ("accents", "1")]));
        assert!(!untouched.differs_from(&defaults));
        let edited = vec![("corpus".into(), false, "o cão".into())];
        assert_eq!(WidgetState::of_controls("bow", edited, &defaults).controls, pairs(&[("corpus", "o cão")]));
    }

    #[test]
    fn fill_omitted_takes_what_storage_has_and_names_the_rest() {
        let mut linked = WidgetState::new("bow", pairs(&[("accents", "0")]));
        linked.omitted = vec!["corpus".into(), "stopword-list".into()];
        let stored = WidgetState::new("bow", pairs(&[("corpus", "grande")]));
        assert_eq!(linked.fill_omitted(Some(&stored)), vec!["stopword-list".to_string()]);
        assert_eq!(linked.controls, pairs(&[("accents", "0"), ("corpus", "grande")]));
        assert!(linked.omitted.is_empty());
        let mut alone = WidgetState::new("bow", Vec::new());
        alone.omitted = vec!["corpus".into()];
        assert_eq!(alone.fill_omitted(None), vec!["corpus".to_string()]);
    }

    #[test]
    fn dropped_values_are_described_in_portuguese() {
        assert_eq!(describe_dropped(&[("corpus".into(), 1_234_567), ("stopword-list".into(), 850)]), "«corpus» (1,2 MB), «stopword-list» (1 kB)");
    }

    fn sample() -> WidgetState {
        WidgetState::new(
            "attention",
            vec![("x@0.1".into(), "2,5".into()), ("causal".into(), "1".into()), ("corpus".into(), "o gato\n<img src=x onerror=alert(1)> «é»".into())],
        )
    }

    #[test]
    fn json_and_link_round_trip() {
        let state = sample();
        assert_eq!(WidgetState::from_json(&state.to_json()), Ok(state.clone()));
        let link = state.to_link();
        assert!(link.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'), "{link}");
        assert_eq!(WidgetState::from_link(&link), Ok(state.clone()));
        assert_eq!(state.get("causal"), Some("1"));
    }

    #[test]
    fn garbage_is_refused_with_a_message() {
        let refuse = |text: &str| WidgetState::from_link(text).unwrap_err();
        assert!(refuse("!!!").contains("caracteres inválidos"));
        assert!(refuse("abcde").contains("cortado"));
        assert!(refuse(&base64url_encode(&[0xff, 0xfe])).contains("UTF-8"));
        assert!(refuse(&base64url_encode(b"[1,2]")).contains("não é legível"));
        let json = |s: &str| WidgetState::from_json(s).unwrap_err();
        assert!(json(r#"{"v":2,"k":"attention","c":[]}"#).contains("versão 2"));
        assert!(json(r#"{"v":1,"k":"<img>","c":[]}"#).contains("tipo de widget"));
        assert!(json(r#"{"v":1,"k":"bow","c":[["a b","1"]]}"#).contains("nome de um campo"));
        assert!(json(r#"{"v":1,"k":"bow","c":[["a","1"],["a","2"]]}"#).contains("duas vezes"));
    }

    #[test]
    fn fitting_leaves_out_the_largest_values_first() {
        let mut state = sample();
        state.controls.push(("stopword-list".into(), "de a o que e".repeat(100)));
        state.controls.push(("big".into(), "x".repeat(MAX_LINK_CHARS + 1)));
        let dropped = state.fit_link();
        assert_eq!(dropped.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), ["big"]);
        assert!(state.to_link().len() <= MAX_LINK_CHARS);
        let dropped = state.fit(300, |s| s.to_link().len());
        assert_eq!(dropped[0], ("stopword-list".to_string(), 1200));
        assert!(state.to_link().len() <= 300);
        assert_eq!(state.omitted, ["big", "stopword-list"]);
        assert_eq!(WidgetState::from_link(&state.to_link()), Ok(state));
    }

    #[test]
    fn hash_parameters_round_trip_and_keep_the_route() {
        let mut q = parse_hash("#/decodificador?preset=capitu&w0=abc_-").unwrap();
        assert_eq!(q.route, "/decodificador");
        assert_eq!(q.get("preset"), Some("capitu"));
        q.set("w0", None);
        q.set("w3", Some("<img src=x>".into()));
        assert_eq!(q.to_hash(), "#/decodificador?preset=capitu&w3=%3Cimg%20src%3Dx%3E");
        assert_eq!(parse_hash(&q.to_hash()).unwrap(), q);
        assert_eq!(parse_hash("").unwrap().to_hash(), "");
        assert_eq!(parse_hash("#?a+b=%C3%A9").unwrap().get("a b"), Some("é"));
        assert!(parse_hash("#/x?a=%zz").is_err());
        assert!(parse_hash("#/x?a=%ff").is_err());
        assert!(parse_hash("#/x?a=%4").is_err());
        assert_eq!(slot_param(2), "w2");
    }

    #[test]
    fn base64url_matches_the_rfc_vectors() {
        for (plain, encoded) in [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")] {
            assert_eq!(base64url_encode(plain.as_bytes()), encoded);
            assert_eq!(base64url_decode(encoded).unwrap(), plain.as_bytes());
        }
        assert_eq!(base64url_decode("Zm8=").unwrap(), b"fo");
        assert_eq!(base64url_encode(&[0xfb, 0xff]), "-_8");
    }
}
