//! Numbers as a Portuguese reader writes them: decimal comma (0,6019), "−" for minus,
//! and parsing that accepts both "0,5" and "0.5".

/// `value` with `decimals` places and a decimal comma; "−∞"/"∞"/"indefinido" for non-finite values.
pub fn format_pt(value: f32, decimals: usize) -> String {
    if value.is_nan() {
        return "indefinido".to_string();
    }
    if value.is_infinite() {
        return if value > 0.0 { "∞".into() } else { "−∞".into() };
    }
    let s = format!("{:.*}", decimals, value);
    // "-0,0000" reads as a sign error to a reader: a rounded zero has no sign.
    let negative = s.starts_with('-') && s.chars().any(|c| c.is_ascii_digit() && c != '0');
    let digits = s.trim_start_matches('-').replace('.', ",");
    if negative {
        format!("−{digits}")
    } else {
        digits
    }
}

/// Like `format_pt` with up to `decimals` places, without trailing zeros: 4, 0,5, −1,25.
pub fn format_pt_short(value: f32, decimals: usize) -> String {
    let full = format_pt(value, decimals);
    if !full.contains(',') {
        return full;
    }
    full.trim_end_matches('0').trim_end_matches(',').to_string()
}

/// Parses a cell typed by a reader: "0,5", "0.5", "-1", "−1", "1e-3", surrounding spaces.
/// Returns `None` for anything that is not a finite number.
pub fn parse_pt(text: &str) -> Option<f32> {
    let cleaned: String = text
        .trim()
        .chars()
        .map(|c| match c {
            ',' => '.',
            '−' | '–' => '-',
            c => c,
        })
        .collect();
    if cleaned.is_empty() || cleaned.chars().filter(|&c| c == '.').count() > 1 {
        return None;
    }
    // Rust's parser also accepts "inf" and "NaN": the reader must type a real number.
    if !cleaned.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E')) {
        return None;
    }
    cleaned.parse::<f32>().ok().filter(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_with_comma_and_true_minus() {
        assert_eq!(format_pt(0.60192, 4), "0,6019");
        assert_eq!(format_pt(-1.5, 2), "−1,50");
        assert_eq!(format_pt(-0.00001, 4), "0,0000");
        assert_eq!(format_pt(f32::NEG_INFINITY, 4), "−∞");
        assert_eq!(format_pt(f32::NAN, 4), "indefinido");
        assert_eq!(format_pt_short(4.0, 2), "4");
        assert_eq!(format_pt_short(-1.25, 2), "−1,25");
        assert_eq!(format_pt_short(0.5, 2), "0,5");
    }

    #[test]
    fn parses_both_decimal_marks_and_rejects_junk() {
        assert_eq!(parse_pt(" 0,25 "), Some(0.25));
        assert_eq!(parse_pt("0.25"), Some(0.25));
        assert_eq!(parse_pt("−2"), Some(-2.0));
        assert_eq!(parse_pt("1e-3"), Some(0.001));
        for bad in ["", "abc", "1,2,3", "inf", "NaN", "1e99", "<b>1</b>"] {
            assert_eq!(parse_pt(bad), None, "{bad:?} must be rejected");
        }
    }
}
