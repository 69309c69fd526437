//! The data attributes that carry data rather than a choice: `data-matrices` (JSON) and
//! `data-corpus` (one document per line). Parsing and its messages live in
//! `core::widget_input`; a bad value fails the mount with that message in the widget.

use std::collections::BTreeMap;

use web_sys::HtmlElement;

use crate::core::widget_input::{parse_corpus, parse_matrices};
use crate::core::Matrix;

/// The matrices of `data-matrices` by name (none if the attribute is absent).
pub fn matrices(host: &HtmlElement, allowed: &[&str]) -> Result<BTreeMap<String, Matrix>, String> {
    match host.get_attribute("data-matrices") {
        Some(json) => parse_matrices(&json, allowed),
        None => Ok(BTreeMap::new()),
    }
}

/// The documents of `data-corpus`, if the attribute is there.
pub fn corpus(host: &HtmlElement) -> Result<Option<Vec<String>>, String> {
    host.get_attribute("data-corpus").map(|text| parse_corpus(&text)).transpose()
}
