//! What comes back from outside the program as a widget's saved inputs: a link someone sent
//! (`#/slug?w2=…`, base64url of JSON) or localStorage written by another version of the site.
//! Every decoder answers Ok or a message; what it accepts must survive a round trip.
#![no_main]

use atencao_core::widget_state::{base64url_decode, base64url_encode, parse_hash, percent_decode, WidgetState, MAX_HASH_CHARS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(query) = parse_hash(&text) {
        // What the site writes back reads the same (escaping can make it longer than the limit).
        let written = query.to_hash();
        if written.len() <= MAX_HASH_CHARS {
            let again = parse_hash(&written).expect("a hash the site wrote parses");
            assert_eq!(again.params, query.params);
        }
    }
    let _ = percent_decode(&text);
    if let Ok(bytes) = base64url_decode(&text) {
        assert_eq!(base64url_decode(&base64url_encode(&bytes)).unwrap(), bytes);
    }
    for decoded in [WidgetState::from_link(&text), WidgetState::from_json(&text)] {
        if let Ok(state) = decoded {
            assert_eq!(WidgetState::from_json(&state.to_json()).as_ref(), Ok(&state));
        }
    }
});
