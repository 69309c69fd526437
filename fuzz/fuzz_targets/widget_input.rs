//! What blog authors write in data attributes: matrices as JSON, corpora, numbers, choices and
//! flags. Settings must always land inside their range (or on a listed choice), with a warning
//! whenever they differ from what was written.
#![no_main]

use atencao_core::widget_input::{
    choice_setting, flag_setting, number_setting, parse_corpus, parse_matrices, NumberRange,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(matrices) = parse_matrices(&text, &["x", "w_q", "w_k", "w_v", "scores"]) {
        for m in matrices.values() {
            assert!(m.as_slice().iter().all(|v| v.is_finite()));
        }
    }
    let _ = parse_corpus(&text);

    let even = NumberRange { min: 2.0, max: 512.0, default: 64.0, step: 2.0 };
    for range in [NumberRange::integer(1.0, 100.0, 5.0), even] {
        let setting = number_setting("n", Some(&text), &range);
        assert!(setting.value >= range.min && setting.value <= range.max, "{} outside", setting.value);
    }
    let choices = ["tf", "log", "bool"];
    let choice = choice_setting("tf", Some(&text), &choices, "tf");
    assert!(choices.contains(&choice.value));
    let _ = flag_setting("causal", Some(&text));
});
