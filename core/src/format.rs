//! Numbers as a Portuguese reader writes them: decimal comma (0,6019), "−" for minus,
//! and parsing that accepts both "0,5" and "0.5".

use crate::decimal::Decimal;

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

/// `n` in subscript digits (x₁₂), as the site writes indices.
pub fn subscript(n: usize) -> String {
    n.to_string().chars().map(|c| char::from_u32(0x2080 + c.to_digit(10).unwrap_or(0)).unwrap_or(c)).collect()
}

/// 10ⁿ with the exponent in superscript digits: 10⁹, 10⁻⁴ (axis ticks, scientific notation).
pub fn power_of_ten(exponent: i32) -> String {
    let superscript: String = exponent
        .to_string()
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            d => ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'][d.to_digit(10).unwrap_or(0) as usize],
        })
        .collect();
    format!("10{superscript}")
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

/// The ticks of a plot's axis from `lo` to `hi`: multiples of a step of 1, 2 or 5 × 10ⁿ, the
/// one nearest (on a log scale) to a quarter of the range, so a reader reads values off them
/// (3,4 · 3,6 · 3,8 …), never the fifths of an arbitrary range (3,39 · 3,87 · 4,35). `whole`: an
/// axis that counts (steps, days, tokens) steps by at least 1. A range that is empty or not
/// finite gets the one tick `lo`.
pub fn axis_ticks(lo: f64, hi: f64, whole: bool) -> Vec<f64> {
    let span = hi - lo;
    if !(span > 0.0 && span.is_finite() && lo.is_finite()) {
        return vec![lo];
    }
    let raw = span / 4.0;
    let power = 10f64.powf(raw.log10().floor());
    let ratio = raw / power;
    let mantissa = if ratio >= 50f64.sqrt() {
        10.0
    } else if ratio >= 10f64.sqrt() {
        5.0
    } else if ratio >= 2f64.sqrt() {
        2.0
    } else {
        1.0
    };
    let step = if whole { (mantissa * power).max(1.0) } else { mantissa * power };
    // A hair of slack at both ends, so 0,1 · 3 lands on the tick at 0,3 despite rounding.
    let slack = step * 1e-9;
    let first = ((lo - slack) / step).ceil() as i64;
    (first..).map(|k| k as f64 * step).take_while(|&v| v <= hi + slack).collect()
}

/// Parses a number typed by a reader: "0,5", "0.5", "-1", "−1", "1e-3", surrounding spaces.
/// Returns `None` for anything that is not a finite number (empty, words, "inf", "NaN",
/// "1,2,3"). Correctly rounded for what readers type; see `crate::decimal` for the rest.
pub fn parse_decimal(text: &str) -> Option<f64> {
    reader_decimal(text).map(Decimal::to_f64).filter(|v| v.is_finite())
}

/// `parse_decimal` to an f32, rounded once from the decimal (not through the f64).
pub fn parse_pt(text: &str) -> Option<f32> {
    reader_decimal(text).map(Decimal::to_f32).filter(|v| v.is_finite())
}

/// The decimal a reader typed: the decimal comma and the typographic minus and dash read as
/// '.' and '-'; the letters of "inf" and "NaN" are not part of the grammar.
fn reader_decimal(text: &str) -> Option<Decimal> {
    Decimal::parse(text.trim().chars().map(|c| match c {
        ',' => '.',
        '−' | '–' => '-',
        c => c,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Round ticks: the training curve's 3,39 … 4,35 reads 3,4 · 3,6 … 4,2; every tick is a
    /// multiple of a 1-2-5 step inside the range, two to seven of them; counts tick by whole
    /// numbers; a flat range has one tick.
    #[test]
    fn axis_ticks_are_round_and_inside_the_range() {
        let rounded = |ticks: Vec<f64>| ticks.iter().map(|t| (t * 1e9).round() / 1e9).collect::<Vec<_>>();
        assert_eq!(rounded(axis_ticks(3.39, 4.35, false)), vec![3.4, 3.6, 3.8, 4.0, 4.2]);
        assert_eq!(rounded(axis_ticks(2.3, 4.4, false)), vec![2.5, 3.0, 3.5, 4.0]);
        assert_eq!(rounded(axis_ticks(0.0, 1.0, false)), vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
        assert_eq!(axis_ticks(0.0, 500.0, true), vec![0.0, 100.0, 200.0, 300.0, 400.0, 500.0]);
        assert_eq!(axis_ticks(1.0, 3.0, true), vec![1.0, 2.0, 3.0]);
        assert_eq!(axis_ticks(-0.9, 0.9, false), vec![-0.5, 0.0, 0.5]);
        assert_eq!(axis_ticks(2.0, 2.0, false), vec![2.0]);
        assert_eq!(axis_ticks(f64::NAN, 1.0, false).len(), 1);
        let mut rng = crate::rng::Rng::new(7);
        for _ in 0..2000 {
            let lo = (rng.next_f32() as f64 - 0.5) * 10f64.powi((rng.next_f32() * 8.0) as i32 - 3);
            let hi = lo + rng.next_f32() as f64 * 10f64.powi((rng.next_f32() * 8.0) as i32 - 3) + 1e-6;
            let ticks = axis_ticks(lo, hi, false);
            assert!((2..=7).contains(&ticks.len()), "{lo} … {hi}: {ticks:?}");
            let step = if ticks.len() > 1 { ticks[1] - ticks[0] } else { 1.0 };
            let mantissa = step / 10f64.powf(step.log10().floor());
            assert!([1.0, 2.0, 5.0, 10.0].iter().any(|m| (mantissa - m).abs() < 1e-6), "{lo} … {hi}: step {step}");
            for t in &ticks {
                assert!(*t >= lo - step * 1e-6 && *t <= hi + step * 1e-6, "{lo} … {hi}: {t}");
            }
        }
    }

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
        assert_eq!(parse_decimal(" −0,6019 "), Some(-0.6019));
        assert_eq!(parse_decimal("–1,25"), Some(-1.25));
        assert_eq!(parse_decimal("3e-4"), Some(3e-4));
        assert_eq!(parse_decimal("1e-400"), Some(0.0), "an underflow is zero, as str::parse has it");
        for bad in ["1e400", "1..2", "1,2.3", "-", "e5", "1e", "1e+", "--1", "1 2", "0x10", "infinity"] {
            assert_eq!(parse_decimal(bad), None, "{bad:?} must be rejected");
        }
    }

    /// The cleanup and checks these parsers had before their own decimal parser (both read
    /// through `str::parse`), as the oracle.
    fn cleaned_for_str_parse(text: &str) -> Option<String> {
        let cleaned: String = text
            .trim()
            .chars()
            .map(|c| match c {
                ',' => '.',
                '−' | '–' => '-',
                c => c,
            })
            .collect();
        let allowed = cleaned.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'));
        (!cleaned.is_empty() && cleaned.chars().filter(|&c| c == '.').count() <= 1 && allowed).then_some(cleaned)
    }

    /// Same answers as before for what a reader types: every string of up to five characters
    /// from the number's alphabet, the decimal comma, the typographic minus and dash, a space
    /// and a letter, accepted and rejected alike and read to the same bits.
    #[test]
    fn reads_what_readers_type_exactly_as_before() {
        let alphabet = ['0', '5', '9', '.', ',', '−', '–', '-', '+', 'e', ' ', 'x'];
        let mut frontier = vec![String::new()];
        for _ in 0..5 {
            frontier = frontier.iter().flat_map(|s| alphabet.iter().map(move |&c| format!("{s}{c}"))).collect();
            for text in &frontier {
                let before_f32 = cleaned_for_str_parse(text).and_then(|c| c.parse::<f32>().ok()).filter(|v| v.is_finite());
                let before_f64 = cleaned_for_str_parse(text).and_then(|c| c.parse::<f64>().ok()).filter(|v| v.is_finite());
                assert_eq!(parse_pt(text).map(f32::to_bits), before_f32.map(f32::to_bits), "{text:?}");
                assert_eq!(parse_decimal(text).map(f64::to_bits), before_f64.map(f64::to_bits), "{text:?}");
            }
        }
    }
}
