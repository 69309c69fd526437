//! What an author writes in a widget's data attributes (on the site or in a blog post),
//! parsed and checked in one place so every widget answers with the same clear messages:
//! matrices as JSON (`data-matrices`) and a corpus (`data-corpus`), which fail the mount
//! with a message when wrong; and settings (numbers, choices, flags), which never do: a
//! value out of range is clamped, an unknown one replaced by the default, and the widget
//! shows the warning returned here (`Setting::warning`). Whether the shapes fit together is
//! the computation's business; it reports mismatches itself.
//!
//! Every function here takes the author's text as it is and returns a value or a message:
//! they are the fuzzing targets for data attributes.

use std::collections::BTreeMap;

use serde_json::Value;

use super::Matrix;
use crate::format::parse_decimal;

/// Largest side (rows or columns) of a matrix given in an attribute: beyond it no heatmap is
/// readable, and a typo like an extra zero in a generated list stays cheap.
pub const MAX_SIDE: usize = 64;

/// `{"x": [[1, 0], [0, 1]], "w_q": …}` → matrices by name. Every name must be in `allowed`;
/// every matrix a non-empty rectangular list of rows of finite numbers, at most `MAX_SIDE` a
/// side. Messages are in Portuguese, for the widget to show.
pub fn parse_matrices(json: &str, allowed: &[&str]) -> Result<BTreeMap<String, Matrix>, String> {
    let names = allowed.join(", ");
    let value: Value = serde_json::from_str(json).map_err(|e| format!("data-matrices não é um JSON válido ({e})."))?;
    let Value::Object(entries) = value else {
        return Err(format!("data-matrices deve ser um objeto JSON com as matrizes pelo nome ({names})."));
    };
    let mut out = BTreeMap::new();
    for (name, rows) in entries {
        if !allowed.contains(&name.as_str()) {
            return Err(format!("data-matrices: «{name}» não é uma matriz deste widget (use {names})."));
        }
        out.insert(name.clone(), parse_matrix(&name, &rows)?);
    }
    Ok(out)
}

fn parse_matrix(name: &str, rows: &Value) -> Result<Matrix, String> {
    let shape_hint = || format!("data-matrices: «{name}» deve ser uma lista de linhas de números, como [[1, 0], [0, 1]].");
    let rows = rows.as_array().ok_or_else(shape_hint)?;
    if rows.is_empty() {
        return Err(format!("data-matrices: «{name}» está vazia."));
    }
    let mut values: Vec<Vec<f32>> = Vec::with_capacity(rows.len());
    for (r, row) in rows.iter().enumerate() {
        let row = row.as_array().ok_or_else(shape_hint)?;
        let mut parsed = Vec::with_capacity(row.len());
        for (c, cell) in row.iter().enumerate() {
            let number = cell
                .as_f64()
                .ok_or_else(|| format!("data-matrices: «{name}», linha {}, coluna {}: {cell} não é um número.", r + 1, c + 1))?;
            let single = number as f32;
            if !single.is_finite() {
                return Err(format!("data-matrices: «{name}», linha {}, coluna {}: {number} é grande demais.", r + 1, c + 1));
            }
            parsed.push(single);
        }
        values.push(parsed);
    }
    let cols = values[0].len();
    if cols == 0 {
        return Err(format!("data-matrices: «{name}» tem linhas vazias."));
    }
    if let Some(r) = values.iter().position(|row| row.len() != cols) {
        return Err(format!(
            "data-matrices: em «{name}», a linha {} tem {} números e a linha 1 tem {cols}.",
            r + 1,
            values[r].len()
        ));
    }
    if values.len() > MAX_SIDE || cols > MAX_SIDE {
        return Err(format!("data-matrices: «{name}» passa de {MAX_SIDE} linhas ou colunas."));
    }
    Matrix::from_rows(&values).map_err(|e| format!("data-matrices: «{name}»: {e}"))
}

/// `data-corpus`: one document per line, or a JSON list of strings (for documents that span
/// several lines in the page's source). Blank documents are dropped; none left is an error.
pub fn parse_corpus(text: &str) -> Result<Vec<String>, String> {
    let trimmed = text.trim();
    let documents: Vec<String> = if trimmed.starts_with('[') {
        let list: Vec<String> = serde_json::from_str(trimmed)
            .map_err(|e| format!("data-corpus começa com «[» mas não é uma lista JSON de textos ({e})."))?;
        list.into_iter().map(|d| d.split_whitespace().collect::<Vec<_>>().join(" ")).collect()
    } else {
        trimmed.lines().map(|l| l.trim().to_string()).collect()
    };
    let documents: Vec<String> = documents.into_iter().filter(|d| !d.is_empty()).collect();
    if documents.is_empty() {
        return Err("data-corpus está vazio: escreva um documento por linha.".into());
    }
    Ok(documents)
}

/// A setting read from a data attribute: the value the widget uses, and a warning (Portuguese,
/// for the widget to show) when that is not what the author wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting<T> {
    pub value: T,
    pub warning: Option<String>,
}

impl<T> Setting<T> {
    fn ok(value: T) -> Setting<T> {
        Setting { value, warning: None }
    }

    fn warn(value: T, warning: String) -> Setting<T> {
        Setting { value, warning: Some(warning) }
    }
}

/// The numbers a numeric attribute accepts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NumberRange {
    pub min: f64,
    pub max: f64,
    /// Used when the attribute is absent or not a number.
    pub default: f64,
    /// Values snap to `min + k·step` (1 for integers; 2 from 2 for an even d); 0 for any value.
    pub step: f64,
}

impl NumberRange {
    /// Whole numbers from `min` to `max`.
    pub const fn integer(min: f64, max: f64, default: f64) -> NumberRange {
        NumberRange { min, max, default, step: 1.0 }
    }

    /// What the step asks for, in a warning ("inteiro", "par").
    fn step_words(&self) -> String {
        if self.step == 1.0 {
            "um número inteiro".into()
        } else if self.step == 2.0 && self.min % 2.0 == 0.0 {
            "um número par".into()
        } else {
            format!("um múltiplo de {} a partir de {}", number_text(self.step), number_text(self.min))
        }
    }
}

/// At most this much of the author's text is quoted back in a warning.
const QUOTED_CHARS: usize = 40;

fn quoted(text: &str) -> String {
    let mut shown: String = text.chars().take(QUOTED_CHARS).collect();
    if text.chars().count() > QUOTED_CHARS {
        shown.push('…');
    }
    shown
}

/// A number as the warnings write it: Portuguese decimal comma, no trailing zeros.
fn number_text(value: f64) -> String {
    if value.abs() >= 1e15 {
        return format!("{value:e}").replace('.', ",").replace('-', "−");
    }
    if value.fract() == 0.0 {
        return format!("{}", value as i64).replace('-', "−");
    }
    let text = format!("{value:.4}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    text.replace('.', ",").replace('-', "−")
}

/// A number as an author writes it in an attribute: "64", " 0,5 ", "0.5", "−1", "1e3".
/// Anything else (empty, words, "inf", "NaN", more than 64 characters) is an error.
pub fn parse_attribute_number(text: &str) -> Result<f64, String> {
    let trimmed = text.trim();
    let not_a_number = || format!("«{}» não é um número", quoted(trimmed));
    if trimmed.is_empty() || trimmed.len() > 64 {
        return Err(not_a_number());
    }
    parse_decimal(trimmed).ok_or_else(not_a_number)
}

/// A numeric attribute `name` (absent: the default), snapped to the range's step and clamped
/// to its bounds, with a warning whenever the value used differs from the one written.
pub fn number_setting(name: &str, raw: Option<&str>, range: &NumberRange) -> Setting<f64> {
    let Some(text) = raw else { return Setting::ok(range.default) };
    let written = match parse_attribute_number(text) {
        Ok(v) => v,
        Err(why) => return Setting::warn(range.default, format!("{name}: {why}; usando o padrão, {}.", number_text(range.default))),
    };
    let mut value = written;
    if range.step > 0.0 {
        value = range.min + ((value - range.min) / range.step).round() * range.step;
    }
    if value < range.min || value > range.max {
        let clamped = value.clamp(range.min, range.max);
        return Setting::warn(
            clamped,
            format!(
                "{name} = {} está fora do intervalo de {} a {}; usando {}.",
                number_text(written),
                number_text(range.min),
                number_text(range.max),
                number_text(clamped)
            ),
        );
    }
    if value != written {
        return Setting::warn(
            value,
            format!("{name} = {} deve ser {}; usando {}.", number_text(written), range.step_words(), number_text(value)),
        );
    }
    Setting::ok(value)
}

/// One of `choices`, written exactly (surrounding spaces and letter case aside).
pub fn parse_choice<'a>(text: &str, choices: &[&'a str]) -> Result<&'a str, String> {
    let wanted = text.trim();
    choices
        .iter()
        .find(|c| c.eq_ignore_ascii_case(wanted))
        .copied()
        .ok_or_else(|| format!("«{}» não é uma opção deste widget (use {})", quoted(wanted), choices.join(", ")))
}

/// A choice attribute `name` (absent: `default`); an unknown value gives `default` and a warning.
pub fn choice_setting<'a>(name: &str, raw: Option<&str>, choices: &[&'a str], default: &'a str) -> Setting<&'a str> {
    match raw.map(|text| parse_choice(text, choices)) {
        None => Setting::ok(default),
        Some(Ok(choice)) => Setting::ok(choice),
        Some(Err(why)) => Setting::warn(default, format!("{name}: {why}; usando «{default}».")),
    }
}

/// An on/off attribute: "true", "sim", "1" or present without a value turn it on; "false",
/// "não", "nao", "0" turn it off, in any case. (Lowered by hand: the only letter outside ASCII
/// is Ã, and Unicode's case tables would cost the page's wasm ~5 KB.)
pub fn parse_flag(text: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().replace('Ã', "ã").as_str() {
        "" | "true" | "sim" | "1" => Ok(true),
        "false" | "não" | "nao" | "0" => Ok(false),
        _ => Err(format!("«{}» não é true nem false", quoted(text.trim()))),
    }
}

/// An on/off attribute `name` (absent: off); anything unreadable is off, with a warning.
pub fn flag_setting(name: &str, raw: Option<&str>) -> Setting<bool> {
    match raw.map(parse_flag) {
        None => Setting::ok(false),
        Some(Ok(on)) => Setting::ok(on),
        Some(Err(why)) => Setting::warn(false, format!("{name}: {why}; ficou desligado.")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ATTENTION: &[&str] = &["x", "w_q", "w_k", "w_v"];

    #[test]
    fn matrices_by_name() {
        let m = parse_matrices(r#"{"x": [[1, 0], [0, 1]], "w_v": [[1.5, -2], [3e-1, 4]]}"#, ATTENTION).unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m["x"].to_rows(), vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
        assert_eq!(m["w_v"].to_rows(), vec![vec![1.5, -2.0], vec![0.3, 4.0]]);
    }

    #[test]
    fn matrix_errors_say_what_and_where() {
        let err = |json: &str| parse_matrices(json, ATTENTION).unwrap_err();
        assert!(err("{x: 1}").contains("não é um JSON válido"));
        assert!(err("[[1]]").contains("objeto JSON"));
        assert!(err(r#"{"q": [[1]]}"#).contains("«q» não é uma matriz deste widget (use x, w_q, w_k, w_v)"));
        assert!(err(r#"{"x": 3}"#).contains("lista de linhas"));
        assert!(err(r#"{"x": []}"#).contains("está vazia"));
        assert!(err(r#"{"x": [[]]}"#).contains("linhas vazias"));
        assert!(err(r#"{"x": [[1, 2], [3]]}"#).contains("a linha 2 tem 1 números e a linha 1 tem 2"));
        assert!(err(r#"{"x": [[1, "a"]]}"#).contains("linha 1, coluna 2: \"a\" não é um número"));
        assert!(err(r#"{"x": [[1, null]]}"#).contains("não é um número"));
        assert!(err(r#"{"x": [[1e300]]}"#).contains("grande demais"));
        let wide = format!(r#"{{"x": [[{}]]}}"#, vec!["0"; MAX_SIDE + 1].join(","));
        assert!(err(&wide).contains("passa de 64"));
    }

    #[test]
    fn corpus_by_lines_or_json() {
        assert_eq!(parse_corpus("o gato dorme\n\n  o cão late  \n").unwrap(), vec!["o gato dorme", "o cão late"]);
        assert_eq!(parse_corpus(r#"["o gato\n dorme", "", "o cão"]"#).unwrap(), vec!["o gato dorme", "o cão"]);
        assert!(parse_corpus(" \n ").unwrap_err().contains("vazio"));
        assert!(parse_corpus("[1, 2]").unwrap_err().contains("lista JSON de textos"));
    }

    #[test]
    fn numbers_in_range_pass_and_others_are_clamped_with_a_warning() {
        let t = NumberRange::integer(4.0, 128.0, 64.0);
        assert_eq!(number_setting("data-t", None, &t), Setting { value: 64.0, warning: None });
        assert_eq!(number_setting("data-t", Some(" 16 "), &t), Setting { value: 16.0, warning: None });
        let high = number_setting("data-t", Some("999"), &t);
        assert_eq!(high.value, 128.0);
        assert_eq!(high.warning.as_deref(), Some("data-t = 999 está fora do intervalo de 4 a 128; usando 128."));
        let low = number_setting("data-t", Some("-5"), &t);
        assert_eq!((low.value, low.warning.is_some()), (4.0, true));
        let fraction = number_setting("data-t", Some("7,4"), &t);
        assert_eq!(fraction.value, 7.0);
        assert_eq!(fraction.warning.as_deref(), Some("data-t = 7,4 deve ser um número inteiro; usando 7."));
        let junk = number_setting("data-t", Some("<img src=x onerror=alert(1)>"), &t);
        assert_eq!(junk.value, 64.0);
        assert_eq!(
            junk.warning.as_deref(),
            Some("data-t: «<img src=x onerror=alert(1)>» não é um número; usando o padrão, 64.")
        );
        let even = NumberRange { min: 2.0, max: 128.0, default: 32.0, step: 2.0 };
        let odd = number_setting("data-d", Some("7"), &even);
        assert_eq!(odd.value, 8.0);
        assert!(odd.warning.unwrap().contains("um número par"));
        for bad in ["", "inf", "NaN", "1e999", "1,2,3", "dez"] {
            assert!(parse_attribute_number(bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse_attribute_number("−0,5"), Ok(-0.5));
        assert_eq!(parse_attribute_number("1e3"), Ok(1000.0));
    }

    #[test]
    fn choices_and_flags_fall_back_to_the_default_with_a_warning() {
        const MODES: &[&str] = &["additive", "multiplicative", "none"];
        assert_eq!(choice_setting("data-mode", None, MODES, "additive"), Setting { value: "additive", warning: None });
        assert_eq!(choice_setting("data-mode", Some(" None "), MODES, "additive").value, "none");
        let unknown = choice_setting("data-mode", Some("soma"), MODES, "additive");
        assert_eq!(unknown.value, "additive");
        assert_eq!(
            unknown.warning.as_deref(),
            Some("data-mode: «soma» não é uma opção deste widget (use additive, multiplicative, none); usando «additive».")
        );
        let long = "x".repeat(500);
        assert!(choice_setting("data-mode", Some(&long), MODES, "none").warning.unwrap().contains("…»"));
        assert!(!flag_setting("data-causal", None).value);
        for on in ["true", "sim", "1", "", " TRUE "] {
            assert_eq!(flag_setting("data-causal", Some(on)), Setting { value: true, warning: None }, "{on:?}");
        }
        for off in ["false", "não", "nao", "0", "NÃO", "Não", " FALSE "] {
            assert_eq!(flag_setting("data-causal", Some(off)), Setting { value: false, warning: None }, "{off:?}");
        }
        let maybe = flag_setting("data-causal", Some("talvez"));
        assert_eq!((maybe.value, maybe.warning.as_deref()), (false, Some("data-causal: «talvez» não é true nem false; ficou desligado.")));
    }
}
