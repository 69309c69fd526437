//! Colour that means something: a heatmap's colours follow what its values are, not how large
//! they happen to be. Probabilities and attention weights always sit on 0–1 (a weight of 0,33
//! is a third of the way to the darkest colour on every heatmap of the site), signed values
//! diverge around 0, counts start at 0. Text drawn on a colour picks black or white, whichever
//! reads better, which is always at least 4,5:1 (WCAG AA).

/// What a heatmap's values are, which fixes its colour domain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    /// Probabilities, attention weights, indicators: fixed 0 … 1.
    Probability,
    /// Values that are always within −1 … 1 (cosines, positional encodings): fixed.
    UnitSigned,
    /// Any signed values: −m … 0 … m, m the largest |value|.
    Signed,
    /// Signed values drawn against −m … m with m given: matrices a reader compares (Q, K, V
    /// and the output of one attention) share the largest |value| of them all, so the same
    /// colour is the same number in each.
    SignedUpTo(f32),
    /// Counts and other magnitudes: 0 … the largest value.
    Count,
}

/// The colour domain of one drawing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Domain {
    pub lo: f32,
    pub hi: f32,
    /// Diverging around 0 (blue below, orange above) rather than one colour (purple) from `lo` up.
    pub diverging: bool,
}

impl Scale {
    /// The domain for these values (non-finite ones are ignored).
    pub fn domain(self, values: &[f32]) -> Domain {
        let finite = values.iter().copied().filter(|v| v.is_finite());
        match self {
            Scale::Probability => Domain { lo: 0.0, hi: 1.0, diverging: false },
            Scale::UnitSigned => Domain { lo: -1.0, hi: 1.0, diverging: true },
            Scale::Signed => {
                let m = finite.fold(0.0f32, |m, v| m.max(v.abs()));
                let m = if m > 0.0 { m } else { 1.0 };
                Domain { lo: -m, hi: m, diverging: true }
            }
            Scale::SignedUpTo(m) => {
                let m = if m.is_finite() && m > 0.0 { m } else { 1.0 };
                Domain { lo: -m, hi: m, diverging: true }
            }
            Scale::Count => {
                let m = finite.fold(0.0f32, f32::max);
                Domain { lo: 0.0, hi: if m > 0.0 { m } else { 1.0 }, diverging: false }
            }
        }
    }
}

impl Domain {
    /// Where `v` sits: −1 … 1 on a diverging domain (0 at zero), 0 … 1 otherwise; clamped.
    pub fn position(&self, v: f32) -> f32 {
        if self.diverging {
            let half = self.hi.abs().max(self.lo.abs()).max(1e-12);
            (v / half).clamp(-1.0, 1.0)
        } else {
            ((v - self.lo) / (self.hi - self.lo).max(1e-12)).clamp(0.0, 1.0)
        }
    }

    /// `data-domain`: "lo,hi" with a point, for embedders and tests.
    pub fn attr(&self) -> String {
        format!("{},{}", self.lo, self.hi)
    }
}

/// The page background the colours blend from (light or dark theme).
fn base(dark: bool) -> [f64; 3] {
    if dark { [34.0, 39.0, 46.0] } else { [247.0, 247.0, 247.0] }
}

/// The three hues of the site, each with one meaning everywhere: purple for a magnitude
/// (probabilities, counts: how much), orange for above zero, blue for below zero. So blue never
/// means "large" on one drawing and "negative" on the next.
const MAGNITUDE: [f64; 3] = [84.0, 39.0, 143.0];
const ABOVE_ZERO: [f64; 3] = [217.0, 95.0, 2.0];
const BELOW_ZERO: [f64; 3] = [33.0, 102.0, 172.0];

/// The colour at `t` (a `Domain::position`) as RGB bytes.
pub fn rgb(diverging: bool, t: f32, dark: bool) -> [u8; 3] {
    let t = t.clamp(-1.0, 1.0) as f64;
    let base = base(dark);
    let (target, amount) = match (diverging, t >= 0.0) {
        (false, _) => (MAGNITUDE, t.max(0.0)),
        (true, true) => (ABOVE_ZERO, t),
        (true, false) => (BELOW_ZERO, -t),
    };
    let mix = |i: usize| (base[i] + (target[i] - base[i]) * amount).round() as u8;
    [mix(0), mix(1), mix(2)]
}

/// "rgb(r,g,b)".
pub fn css(c: [u8; 3]) -> String {
    format!("rgb({},{},{})", c[0], c[1], c[2])
}

/// Relative luminance (WCAG 2).
pub fn luminance(c: [u8; 3]) -> f64 {
    let channel = |v: u8| {
        let s = v as f64 / 255.0;
        if s <= 0.03928 { s / 12.92 } else { ((s + 0.055) / 1.055).powf(2.4) }
    };
    0.2126 * channel(c[0]) + 0.7152 * channel(c[1]) + 0.0722 * channel(c[2])
}

/// Contrast ratio of two colours (1 … 21).
pub fn contrast(a: [u8; 3], b: [u8; 3]) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

/// Black or white text on `background`, whichever reads better: never under 4,58:1, the
/// contrast both give on the colour of luminance 0,18 (pure black is needed for that; a
/// softer near-black would fall to 4,35:1 there).
pub fn text_on(background: [u8; 3]) -> &'static str {
    if contrast(background, [255, 255, 255]) >= contrast(background, [0, 0, 0]) { "#ffffff" } else { "#000000" }
}

/// A CSS gradient through the domain, for the legend.
pub fn gradient(domain: &Domain, dark: bool) -> String {
    let stops: Vec<String> = (0..=8)
        .map(|i| {
            let f = i as f32 / 8.0;
            let t = if domain.diverging { 2.0 * f - 1.0 } else { f };
            css(rgb(domain.diverging, t, dark))
        })
        .collect();
    format!("linear-gradient(to right, {})", stops.join(", "))
}

/// Bars: purple for values ≥ 0 (a bar's length is its magnitude), blue below zero, as on the
/// heatmaps; light enough on the dark theme and dark enough on the light one to keep 3:1
/// against the page (WCAG 1.4.11).
pub fn bar_color(negative: bool, dark: bool) -> [u8; 3] {
    match (negative, dark) {
        (false, false) => [84, 39, 143],
        (false, true) => [188, 160, 240],
        (true, false) => [33, 102, 172],
        (true, true) => [88, 166, 255],
    }
}

/// The page's background in each theme (`--bg` in styles/main.css).
pub const PAGE: [[u8; 3]; 2] = [[255, 255, 255], [13, 17, 23]];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_follow_meaning() {
        assert_eq!(Scale::Probability.domain(&[0.33, 0.2]), Domain { lo: 0.0, hi: 1.0, diverging: false });
        assert_eq!(Scale::Signed.domain(&[-2.0, 0.5]).hi, 2.0);
        assert_eq!(Scale::Count.domain(&[3.0, 7.0, f32::NAN]).hi, 7.0);
        assert_eq!(Scale::Count.domain(&[]).hi, 1.0);
        // A weight of 0,33 is a third of the way, whatever else the matrix holds.
        assert!((Scale::Probability.domain(&[0.33]).position(0.33) - 0.33).abs() < 1e-6);
    }

    /// Blue is below zero only: no colour of a magnitude scale or of a positive bar is bluish.
    #[test]
    fn one_hue_one_meaning() {
        let bluish = |c: [u8; 3]| c[2] as i32 > c[0] as i32 + 40 && c[1] as i32 > c[0] as i32;
        for dark in [false, true] {
            for i in 0..=10 {
                let t = i as f32 / 10.0;
                assert!(!bluish(rgb(false, t, dark)), "magnitude {t}: {:?}", rgb(false, t, dark));
                assert!(!bluish(rgb(true, t, dark)), "above zero {t}");
            }
            assert!(bluish(rgb(true, -1.0, dark)), "below zero is blue");
            assert!(!bluish(bar_color(false, dark)) && bluish(bar_color(true, dark)));
        }
        let shared = Scale::SignedUpTo(0.36);
        assert_eq!(shared.domain(&[0.06, -0.01]), shared.domain(&[-0.36, 0.2]), "one domain for the matrices compared");
        assert_eq!(Scale::SignedUpTo(f32::NAN).domain(&[]).hi, 1.0);
    }

    #[test]
    fn bars_stand_out_from_the_page_and_its_panels() {
        for dark in [false, true] {
            let page = PAGE[dark as usize];
            for negative in [false, true] {
                assert!(contrast(bar_color(negative, dark), page) >= 3.0, "dark={dark} negative={negative}");
                assert!(contrast(bar_color(negative, dark), base(dark).map(|v| v as u8)) >= 3.0);
            }
        }
    }

    #[test]
    fn every_cell_colour_has_a_text_colour_at_4_5_to_1() {
        for dark in [false, true] {
            for diverging in [false, true] {
                for i in -100..=100 {
                    let c = rgb(diverging, i as f32 / 100.0, dark);
                    let text = if text_on(c) == "#ffffff" { [255, 255, 255] } else { [0, 0, 0] };
                    assert!(contrast(c, text) >= 4.5, "{c:?} dark={dark}: {}", contrast(c, text));
                }
            }
        }
    }
}
