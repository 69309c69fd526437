//! Property tests of the decoders of outside input added for issue 9: data-attribute settings
//! (`core::widget_input`) and the widget-state codec of links and localStorage
//! (`core::widget_state`). Whatever the text, they answer with a value or a message, never a
//! panic; a setting always lands inside its range; a state survives its own encodings.
#![cfg(not(target_arch = "wasm32"))]

use atencao_core::widget_input::{
    choice_setting, flag_setting, number_setting, parse_attribute_number, parse_corpus, parse_matrices, NumberRange,
};
use atencao_core::widget_state::{base64url_decode, base64url_encode, parse_hash, percent_decode, WidgetState, MAX_LINK_CHARS};
use proptest::prelude::*;

fn key() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_.@~-]{1,20}"
}

fn state() -> impl Strategy<Value = WidgetState> {
    ("[a-z][a-z0-9-]{0,15}", prop::collection::btree_map(key(), any::<String>(), 0..12)).prop_map(|(kind, controls)| WidgetState::new(&kind, controls.into_iter().collect()))
}

proptest! {
    #[test]
    fn any_text_is_a_number_setting_inside_its_range(text in any::<String>(), min in -1e6f64..1e6, span in 0.0f64..1e6, integer in any::<bool>()) {
        let max = min + span;
        let range = NumberRange { min, max, default: min, step: if integer { 1.0 } else { 0.0 } };
        let setting = number_setting("data-x", Some(&text), &range);
        prop_assert!(setting.value.is_finite() && setting.value >= min && setting.value <= max, "{:?}", setting);
        if let Ok(v) = parse_attribute_number(&text) {
            prop_assert!(v.is_finite());
        }
    }

    #[test]
    fn numbers_written_inside_the_range_pass_without_a_warning(n in 4u32..=128) {
        let range = NumberRange::integer(4.0, 128.0, 64.0);
        let setting = number_setting("data-t", Some(&n.to_string()), &range);
        prop_assert_eq!(setting.value, n as f64);
        prop_assert!(setting.warning.is_none());
    }

    #[test]
    fn any_text_is_a_choice_or_the_default(text in any::<String>()) {
        let choices = ["relu", "gelu"];
        let setting = choice_setting("data-activation", Some(&text), &choices, "relu");
        prop_assert!(choices.contains(&setting.value));
        prop_assert_eq!(setting.warning.is_some(), !choices.iter().any(|c| c.eq_ignore_ascii_case(text.trim())));
        let _ = flag_setting("data-causal", Some(&text));
    }

    #[test]
    fn attribute_data_never_panics(text in any::<String>()) {
        let _ = parse_matrices(&text, &["x"]);
        let _ = parse_corpus(&text);
    }

    #[test]
    fn a_state_survives_its_link_and_its_storage(state in state()) {
        prop_assert_eq!(WidgetState::from_json(&state.to_json()), Ok(state.clone()));
        prop_assert_eq!(WidgetState::from_link(&state.to_link()), Ok(state.clone()));
        let mut fitted = state.clone();
        let dropped = fitted.fit(200, |s| s.to_link().len());
        prop_assert!(fitted.to_link().len() <= 200 || fitted.controls.is_empty());
        prop_assert_eq!(fitted.controls.len() + dropped.len(), state.controls.len());
        prop_assert_eq!(WidgetState::from_link(&fitted.to_link()), Ok(fitted));
    }

    #[test]
    fn any_link_or_hash_text_is_a_state_or_a_message(text in any::<String>(), bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = WidgetState::from_link(&text);
        let _ = WidgetState::from_json(&text);
        let _ = WidgetState::from_link(&base64url_encode(&bytes));
        let _ = percent_decode(&text);
        if let Ok(query) = parse_hash(&text) {
            // What parses re-encodes to a hash that parses to the same thing.
            prop_assert_eq!(parse_hash(&query.to_hash()).map(|q| q.params), Ok(query.params));
        }
        prop_assert_eq!(base64url_decode(&base64url_encode(&bytes)), Ok(bytes));
    }
}

#[test]
fn a_large_corpus_stays_out_of_the_link_and_the_rest_goes() {
    let corpus = "o gato dorme no telhado\n".repeat(50_000);
    let mut state = WidgetState::new("bow", vec![("preset".into(), "bow".into()), ("corpus".into(), corpus.clone()), ("lowercase".into(), "0".into())]);
    let dropped = state.fit_link();
    assert_eq!(dropped, vec![("corpus".to_string(), corpus.len())]);
    assert!(state.to_link().len() <= MAX_LINK_CHARS);
    let back = WidgetState::from_link(&state.to_link()).unwrap();
    assert_eq!(back.get("lowercase"), Some("0"));
    assert_eq!(back.omitted, ["corpus"]);
    // The same corpus fits the browser's storage.
    let mut stored = WidgetState::new("bow", vec![("corpus".into(), corpus)]);
    assert!(stored.fit_storage().is_empty());
}

