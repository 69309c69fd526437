//! Links and saved state written by the site before widget state became a struct
//! (`tests/fixtures/state_links.json`, captured from the built site) still decode to the state
//! they carried: the wire format (`core::widget_state`) is kept, so old links restore.

use atencao_core::widget_state::{parse_hash, WidgetState};
use serde_json::Value;

const FIXTURES: &str = include_str!("../../tests/fixtures/state_links.json");

/// The (key, value) pairs of a fixture's `controls`.
fn pairs(value: &Value) -> Vec<(String, String)> {
    value.as_array().expect("controls").iter().map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_str().unwrap().to_string())).collect()
}

/// The widget state parameter (`w0`, `w2`, …) of an address's query or hash.
fn state_of(address: &str) -> (String, WidgetState) {
    let query = &address[address.find('?').expect("a query")..];
    let params = parse_hash(&format!("#{query}")).expect("a readable query");
    let name = (0..8).map(|i| format!("w{i}")).find(|n| params.get(n).is_some()).expect("a state parameter");
    let state = WidgetState::from_link(params.get(&name).unwrap()).expect("a state that decodes");
    (name, state)
}

#[test]
fn old_site_links_decode_to_their_state() {
    let fixtures: Value = serde_json::from_str(FIXTURES).unwrap();
    let links = fixtures["links"].as_array().unwrap();
    assert!(links.len() >= 6, "a few links of several widgets");
    for link in links {
        let url = link["url"].as_str().unwrap();
        let (_, state) = state_of(url);
        assert_eq!(state.kind, link["kind"].as_str().unwrap(), "{url}");
        assert_eq!(state.controls, pairs(&link["controls"]), "{url}");
        assert!(state.omitted.is_empty());
    }
}

#[test]
fn old_embedded_link_and_saved_state_decode() {
    let fixtures: Value = serde_json::from_str(FIXTURES).unwrap();
    let embedded = &fixtures["embedded"];
    let link = embedded["link"].as_str().unwrap();
    assert!(link.contains("#?w0="), "{link}");
    let (name, linked) = state_of(&link[link.find('#').unwrap()..]);
    assert_eq!(name, "w0");
    assert_eq!(linked.kind, "tfidf");
    let stored = embedded["stored"].as_array().unwrap();
    assert_eq!(stored.len(), 1);
    let (key, json) = (stored[0][0].as_str().unwrap(), stored[0][1].as_str().unwrap());
    assert_eq!(key, format!("atencao.estado {} 0 tfidf", embedded["post"].as_str().unwrap()));
    let saved = WidgetState::from_json(json).expect("the saved state reads");
    // The link and the saved state carry the same inputs, and the ones the post's reader typed.
    assert_eq!(saved, linked);
    for show in embedded["shows"].as_array().unwrap() {
        let key = show[0].as_str().unwrap().trim_start_matches("[data-control=").trim_end_matches(']');
        assert_eq!(saved.get(key), show[1].as_str(), "{key}");
    }
}
