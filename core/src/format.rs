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

/// The places every label of one grid shows (a heatmap's cells), at most `decimals`: the
/// fewest that write every value exactly (none for counts, masks and one-hot; one for 0,1 …
/// 0,9), else all `decimals`, the same for every cell, so the labels line up ("0,420" beside
/// "0,108", never "0,42" beside "0,108"); one place fewer per digit of the largest magnitude
/// past the first, so "12,35" and "123,5" keep the width of "0,123". Non-finite values (drawn
/// with their own label) are left out.
pub fn shared_decimals(values: impl IntoIterator<Item = f32>, decimals: usize) -> usize {
    let values: Vec<f32> = values.into_iter().filter(|v| v.is_finite()).collect();
    let largest = values.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    let integer_digits = if largest < 10.0 { 1 } else { largest.log10().floor() as usize + 1 };
    let most = decimals.saturating_sub(integer_digits - 1);
    // Exact at `places`: within a thousandth of the last place (f32 writes 0,7 as 0,699999988).
    let exact = |places: usize| {
        let scale = 10f64.powi(places as i32);
        values.iter().all(|&v| {
            let scaled = v as f64 * scale;
            (scaled - scaled.round()).abs() < 1e-3
        })
    };
    (0..most).find(|&places| exact(places)).unwrap_or(most)
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
    fn a_grid_shares_its_decimal_places() {
        assert_eq!(shared_decimals([0.42, 0.108, 1.0], 3), 3);
        assert_eq!(shared_decimals([0.0, 1.0, -2.0, 3.0], 3), 0);
        assert_eq!(shared_decimals([0.1, 0.7, 1.5, -0.3], 3), 1);
        assert_eq!(shared_decimals([0.25, 0.5], 3), 2);
        assert_eq!(shared_decimals([0.5, 12.345], 3), 2);
        assert_eq!(shared_decimals([0.5, -123.45], 3), 1);
        assert_eq!(shared_decimals([0.5, 98765.0], 3), 0);
        assert_eq!(shared_decimals([0.1234, f32::NEG_INFINITY, f32::NAN], 2), 2);
        assert_eq!(shared_decimals([], 2), 0);
        // Rounded the same way, the labels of one grid have one width.
        let grid = [0.42f32, 0.108, 1.0];
        let labels: Vec<String> = grid.iter().map(|&v| format_pt(v, shared_decimals(grid, 3))).collect();
        assert_eq!(labels, ["0,420", "0,108", "1,000"]);
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
