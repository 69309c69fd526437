//! Decimal text to a float without `str::parse`: the standard parser (`core::num::dec2flt`)
//! carries a 10 KB table of 128-bit powers of five that gzip cannot shrink, in every wasm
//! module that reads a number. The grammar is the standard one minus "inf"/"NaN":
//! `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`.
//!
//! Precision: what readers type (at most 15 significant digits, a power of ten up to 10^22 in
//! either direction) takes Clinger's fast path, one exact operation between two exact floats,
//! so it is correctly rounded: the same bits as `str::parse`. Anything else (long digit
//! strings, larger exponents, subnormals) goes through a 64-bit significand and is at most one
//! ULP from the correctly rounded value. `Decimal::to_f32` is equally exact on its own fast
//! path (at most 7 digits, 10^±10), so it never rounds twice where a reader types.

/// Significant digits kept; the rest only tell whether the number is longer (`truncated`).
const MAX_DIGITS: u32 = 19;

/// A parsed decimal: `(-1)^negative · digits · 10^exp10`, `truncated` when nonzero digits
/// past the 19th were dropped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decimal {
    negative: bool,
    digits: u64,
    exp10: i64,
    truncated: bool,
}

/// 10^0 … 10^22, each exact in an f64.
const POW10_F64: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// 10^0 … 10^10, each exact in an f32.
const POW10_F32: [f32; 11] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];

impl Decimal {
    /// Reads the whole of `chars`; `None` unless it all follows the grammar.
    pub fn parse(chars: impl Iterator<Item = char>) -> Option<Decimal> {
        let mut chars = chars.peekable();
        let negative = match chars.peek() {
            Some('-') => {
                chars.next();
                true
            }
            Some('+') => {
                chars.next();
                false
            }
            _ => false,
        };
        let mut decimal = Decimal { negative, digits: 0, exp10: 0, truncated: false };
        let mut kept = 0u32;
        let mut seen_digit = false;
        let mut seen_dot = false;
        let mut exponent_follows = false;
        for c in chars.by_ref() {
            match c {
                '0'..='9' => {
                    seen_digit = true;
                    let d = c as u64 - '0' as u64;
                    if kept < MAX_DIGITS {
                        if decimal.digits != 0 || d != 0 {
                            decimal.digits = decimal.digits * 10 + d;
                            kept += 1;
                        }
                        if seen_dot {
                            decimal.exp10 -= 1;
                        }
                    } else {
                        decimal.truncated |= d != 0;
                        if !seen_dot {
                            decimal.exp10 += 1;
                        }
                    }
                }
                '.' if !seen_dot => seen_dot = true,
                'e' | 'E' => {
                    exponent_follows = true;
                    break;
                }
                _ => return None,
            }
        }
        if !seen_digit {
            return None;
        }
        if exponent_follows {
            let mut exponent_negative = false;
            if let Some(&sign @ ('-' | '+')) = chars.peek() {
                exponent_negative = sign == '-';
                chars.next();
            }
            let mut exponent = 0i64;
            let mut exponent_digit = false;
            for c in chars {
                let d = c.to_digit(10)? as i64;
                exponent_digit = true;
                // Past a million the value is 0 or ∞ either way; the cap keeps it from overflowing.
                exponent = (exponent * 10 + d).min(1_000_000);
            }
            if !exponent_digit {
                return None;
            }
            decimal.exp10 += if exponent_negative { -exponent } else { exponent };
        }
        // "1000000" and "1.50" are 1·10^6 and 15·10^-1: small digits keep them on the fast path.
        while decimal.digits != 0 && decimal.digits % 10 == 0 {
            decimal.digits /= 10;
            decimal.exp10 += 1;
        }
        Some(decimal)
    }

    /// The nearest f64 (infinite past f64::MAX, zero below the smallest subnormal).
    pub fn to_f64(self) -> f64 {
        let magnitude = self.magnitude_f64();
        if self.negative {
            -magnitude
        } else {
            magnitude
        }
    }

    /// The nearest f32: exact on its own fast path, otherwise the f64 rounded to f32.
    pub fn to_f32(self) -> f32 {
        let magnitude = if !self.truncated && self.digits <= 1 << 24 && self.exp10.unsigned_abs() <= 10 {
            let power = POW10_F32[self.exp10.unsigned_abs() as usize];
            if self.exp10 >= 0 {
                self.digits as f32 * power
            } else {
                self.digits as f32 / power
            }
        } else {
            self.magnitude_f64() as f32
        };
        if self.negative {
            -magnitude
        } else {
            magnitude
        }
    }

    fn magnitude_f64(self) -> f64 {
        if self.digits == 0 || self.exp10 < -343 {
            // Below 10^19 · 10^-344, under half the smallest subnormal.
            return 0.0;
        }
        if self.exp10 > 308 {
            return f64::INFINITY;
        }
        let exp10 = self.exp10 as i32;
        if !self.truncated && self.digits <= 1 << 53 {
            // Clinger's fast path: both operands exact, so one rounding.
            if (0..=22).contains(&exp10) {
                return self.digits as f64 * POW10_F64[exp10 as usize];
            }
            if (-22..0).contains(&exp10) {
                return self.digits as f64 / POW10_F64[-exp10 as usize];
            }
            // 1e30: the digits times 10^(exp10 − 22) may still be an exact integer.
            if (23..=22 + 15).contains(&exp10) {
                let shifted = self.digits as f64 * POW10_F64[exp10 as usize - 22];
                // Below 2^53 the rounded product is the exact one.
                if shifted < (1u64 << 53) as f64 {
                    return shifted * POW10_F64[22];
                }
            }
        }
        let product = Wide::from_u64(self.digits).times(Wide::power_of_ten(exp10));
        product.to_f64(self.truncated)
    }
}

/// `mantissa · 2^exp2` with the mantissa's top bit set: a float with a 64-bit significand,
/// whose every operation truncates (relative error under 2^-63 each).
#[derive(Clone, Copy, Debug)]
struct Wide {
    mantissa: u64,
    exp2: i32,
    /// Bits were dropped on the way here (by a product or the reciprocal).
    inexact: bool,
}

impl Wide {
    fn from_u64(value: u64) -> Wide {
        let shift = value.leading_zeros();
        Wide { mantissa: value << shift, exp2: -(shift as i32), inexact: false }
    }

    fn times(self, other: Wide) -> Wide {
        let product = self.mantissa as u128 * other.mantissa as u128;
        let shift = if product >> 127 == 1 { 64 } else { 63 };
        Wide {
            mantissa: (product >> shift) as u64,
            exp2: self.exp2 + other.exp2 + shift as i32,
            inexact: self.inexact || other.inexact || product & ((1u128 << shift) - 1) != 0,
        }
    }

    /// 10^exp10 for |exp10| up to a few hundred: about 20 truncating products (10^19 each,
    /// exact in a u64), and for a negative power one truncating reciprocal.
    fn power_of_ten(exp10: i32) -> Wide {
        let mut n = exp10.unsigned_abs();
        let mut power = Wide::from_u64(10u64.pow(n % 19));
        n -= n % 19;
        while n > 0 {
            power = power.times(Wide::from_u64(10u64.pow(19)));
            n -= 19;
        }
        if exp10 >= 0 {
            return power;
        }
        // 1 / (m · 2^e) = (2^127 / m) · 2^(−127 − e); m is never a power of two here (10^n,
        // n ≥ 1), so the quotient lies strictly between 2^63 and 2^64.
        let quotient = (1u128 << 127) / power.mantissa as u128;
        Wide { mantissa: quotient as u64, exp2: -127 - power.exp2, inexact: true }
    }

    /// Rounded to the nearest f64; `truncated`: the true value is a little above this one.
    fn to_f64(self, truncated: bool) -> f64 {
        // An inexact value is never exactly halfway between two f64s: a set low bit breaks
        // such a tie upward, as the bits a truncation dropped would.
        let sticky = (self.inexact || truncated) as u64;
        let value = (self.mantissa | sticky) as f64;
        scale_by_power_of_two(value, self.exp2)
    }
}

/// `value · 2^exp2`, in steps that stay normal until the last one, so a subnormal result
/// is rounded once.
fn scale_by_power_of_two(mut value: f64, mut exp2: i32) -> f64 {
    let two_to = |e: i32| f64::from_bits(((e + 1023) as u64) << 52);
    while exp2 > 1000 {
        value *= two_to(1000);
        exp2 -= 1000;
    }
    while exp2 < -1000 {
        value *= two_to(-1000);
        exp2 += 1000;
    }
    value * two_to(exp2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn parse_f64(text: &str) -> Option<f64> {
        Decimal::parse(text.chars()).map(Decimal::to_f64)
    }

    fn parse_f32(text: &str) -> Option<f32> {
        Decimal::parse(text.chars()).map(Decimal::to_f32)
    }

    /// How many floats lie between `a` and `b` (0: the same bits); far apart for opposite signs.
    fn ulps_f64(a: f64, b: f64) -> u64 {
        if a.is_sign_negative() != b.is_sign_negative() {
            return if a == b { 0 } else { u64::MAX };
        }
        a.to_bits().abs_diff(b.to_bits())
    }

    fn ulps_f32(a: f32, b: f32) -> u32 {
        if a.is_sign_negative() != b.is_sign_negative() {
            return if a == b { 0 } else { u32::MAX };
        }
        a.to_bits().abs_diff(b.to_bits())
    }

    /// A number as a reader might type it: 1 to `max_digits` digits, maybe a dot anywhere in
    /// them (".5", "5."), maybe leading zeros after "0.", maybe an exponent within ±`max_exp`,
    /// maybe a sign.
    fn random_number(rng: &mut Rng, max_digits: usize, max_exp: i32) -> String {
        let count = 1 + rng.below(max_digits as u64) as usize;
        let body: String = (0..count).map(|_| char::from(b'0' + rng.below(10) as u8)).collect();
        let mut text = String::from(["-", "+", "", ""][rng.below(4) as usize]);
        let dot = rng.below(count as u64 + 2) as usize;
        if rng.below(4) == 0 {
            text.push_str("0.");
            text.push_str(&"0".repeat(rng.below(4) as usize));
            text.push_str(&body);
        } else if dot <= count {
            text.push_str(&body[..dot]);
            text.push('.');
            text.push_str(&body[dot..]);
        } else {
            text.push_str(&body);
        }
        if max_exp > 0 && rng.below(2) == 0 {
            text.push(if rng.below(2) == 0 { 'e' } else { 'E' });
            let exponent = rng.below(2 * max_exp as u64 + 1) as i32 - max_exp;
            text.push_str(&exponent.to_string());
        }
        text
    }

    /// What readers type, the fast path's domain ("0.6019", "-1.25", "3e-4", "1000000": up to
    /// 15 digits, powers of ten up to 10^±22): the very bits `str::parse` gives, in f64 and in
    /// f32 (up to 7 digits and 10^±10 there). Elsewhere within one ULP.
    #[test]
    fn short_numbers_are_exactly_the_standard_parse() {
        for typed in ["0.6019", "-1.25", "3e-4", "1000000", "0.1", "0.2", "0.3", "1e22", "1e-22", "123456789012345", "1e30", ".5", "5.", "+7", "-0", "0e999999999", "2.5E+3", "0.30000000000000004", "9007199254740993"] {
            assert_eq!(parse_f64(typed).map(f64::to_bits), typed.parse::<f64>().ok().map(f64::to_bits), "{typed}");
            assert_eq!(parse_f32(typed).map(f32::to_bits), typed.parse::<f32>().ok().map(f32::to_bits), "{typed}");
        }
        let mut rng = Rng::new(2024);
        let (mut exact_f64, mut exact_f32) = (0, 0);
        let trials = 200_000;
        for _ in 0..trials {
            let text = random_number(&mut rng, 15, 22);
            let decimal = Decimal::parse(text.chars()).unwrap();
            let (expected, got) = (text.parse::<f64>().unwrap(), decimal.to_f64());
            if decimal.digits < 1 << 53 && decimal.exp10.abs() <= 22 {
                assert_eq!(got.to_bits(), expected.to_bits(), "{text}: {got:e} ≠ {expected:e}");
                exact_f64 += 1;
            } else {
                assert!(ulps_f64(got, expected) <= 1, "{text}: {got:e} vs {expected:e}");
            }
            let (expected, got) = (text.parse::<f32>().unwrap(), decimal.to_f32());
            if decimal.digits <= 1 << 24 && decimal.exp10.abs() <= 10 {
                assert_eq!(got.to_bits(), expected.to_bits(), "{text}: {got:e} ≠ {expected:e}");
                exact_f32 += 1;
            } else {
                assert!(ulps_f32(got, expected) <= 1, "{text}: {got:e} vs {expected:e}");
            }
        }
        assert!(exact_f64 > trials * 3 / 4 && exact_f32 > trials / 4, "the fast paths were tested: {exact_f64}, {exact_f32}");
    }

    /// Long digit strings, exponents to the ends of the range, subnormals: within one ULP (∞
    /// is one ULP above f64::MAX, so the very top of the range is covered too).
    #[test]
    fn anything_else_is_within_one_ulp() {
        let mut rng = Rng::new(7);
        for _ in 0..200_000 {
            let text = random_number(&mut rng, 40, 340);
            let (expected, got) = (text.parse::<f64>().unwrap(), parse_f64(&text).unwrap());
            assert!(ulps_f64(got, expected) <= 1, "{text}: {got:e} vs {expected:e}");
            let (expected, got) = (text.parse::<f32>().unwrap(), parse_f32(&text).unwrap());
            assert!(ulps_f32(got, expected) <= 1, "{text}: {got:e} vs {expected:e}");
        }
        let max = "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368";
        for extreme in ["4.9406564584124654e-324", "2.4703282292062328e-324", "2.4703282292062329e-324", "2.2250738585072014e-308", "2.2250738585072011e-308", "1.7976931348623157e308", "1e-400", "1e400", "1e-1000000000", "1e1000000000", "9007199254740993", "123456789012345678901234567890", max] {
            let (expected, got) = (extreme.parse::<f64>().unwrap(), parse_f64(extreme).unwrap());
            assert!(ulps_f64(got, expected) <= 1, "{extreme}: {got:e} vs {expected:e}");
        }
    }

    /// Every f32 written the shortest way (as the decoder's links write them) reads back
    /// as itself.
    #[test]
    fn shortest_f32_text_reads_back_exactly() {
        let mut rng = Rng::new(11);
        for _ in 0..200_000 {
            let value = f32::from_bits(rng.next_u64() as u32);
            if !value.is_finite() {
                continue;
            }
            for text in [value.to_string(), format!("{value:e}")] {
                assert_eq!(parse_f32(&text).map(f32::to_bits), Some(value.to_bits()), "{text}");
            }
        }
    }

    /// The grammar accepts exactly what `str::parse` accepts, letters of "inf" and "NaN" aside:
    /// every short string over the number's own characters.
    #[test]
    fn accepts_exactly_what_the_standard_parser_accepts() {
        let alphabet = ['0', '1', '9', '.', '-', '+', 'e', 'E'];
        let mut strings = vec![String::new()];
        let mut frontier = vec![String::new()];
        for _ in 0..6 {
            frontier = frontier.iter().flat_map(|s| alphabet.iter().map(move |&c| format!("{s}{c}"))).collect();
            strings.extend(frontier.iter().cloned());
        }
        for text in &strings {
            let expected = text.parse::<f64>().ok();
            let got = parse_f64(text);
            assert_eq!(got.map(f64::to_bits), expected.map(f64::to_bits), "{text:?}");
        }
    }
}
