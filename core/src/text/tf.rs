//! Term frequency: the eight ways the article weighs a count f(w, D) inside one document.
//!
//! Every variant maps an absent term (f = 0) to 0, so a TF row is zero exactly where the
//! document lacks the word and TF × IDF never invents weight for missing words. (The article
//! writes the augmented formula without that case; read literally it would give 0.5 to every
//! word of the vocabulary absent from the document.) An empty document gives a zero row.

use ndarray::{Array2, Axis};

use crate::matrix::Matrix;

/// The logarithm used by log TF and by every IDF: a global setting, because the article's
/// text says "natural log" while most of its numbers are base 10.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LogBase {
    E,
    Ten,
    Two,
}

impl LogBase {
    /// log of x in this base (computed in f64): ln, log₁₀ or log₂.
    pub fn log(self, x: f32) -> f32 {
        let x = x as f64;
        (match self {
            LogBase::E => x.ln(),
            LogBase::Ten => x.log10(),
            LogBase::Two => x.log2(),
        }) as f32
    }

    /// The symbol shown in the UI: "ln", "log₁₀" or "log₂".
    pub fn label(self) -> &'static str {
        match self {
            LogBase::E => "ln",
            LogBase::Ten => "log₁₀",
            LogBase::Two => "log₂",
        }
    }
}

/// A TF formula; f = f(w, D), max and Σ taken over the words of the same document.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TfVariant {
    /// f
    Raw,
    /// f / Σ f
    Normalized,
    /// 1 + log f
    Log,
    /// 1 if f > 0
    Binary,
    /// 0.5 + 0.5 f / max f
    Augmented,
    /// K + (1 − K) f / max f; K is clamped to [0, 1] (NaN reads as 0.5, the augmented case).
    KModified(f32),
    /// 1 + log(1 + log f)
    LogSmooth,
    /// f / √(Σ f²)
    Length,
}

impl TfVariant {
    /// Every variant, in the article's order (K-modified with K = 0.4, a common choice that
    /// differs from the augmented K = 0.5).
    pub const ALL: [TfVariant; 8] = [
        TfVariant::Raw,
        TfVariant::Normalized,
        TfVariant::Log,
        TfVariant::Binary,
        TfVariant::Augmented,
        TfVariant::KModified(0.4),
        TfVariant::LogSmooth,
        TfVariant::Length,
    ];

    /// The Portuguese label of the selector.
    pub fn name(self) -> &'static str {
        match self {
            TfVariant::Raw => "Frequência bruta",
            TfVariant::Normalized => "Frequência normalizada",
            TfVariant::Log => "Frequência logarítmica",
            TfVariant::Binary => "Frequência binária",
            TfVariant::Augmented => "Frequência aumentada",
            TfVariant::KModified(_) => "Frequência K-modificada",
            TfVariant::LogSmooth => "Frequência logarítmica suavizada",
            TfVariant::Length => "Normalizada pelo comprimento",
        }
    }

    /// A stable identifier for the UI and tests.
    pub fn id(self) -> &'static str {
        match self {
            TfVariant::Raw => "raw",
            TfVariant::Normalized => "normalized",
            TfVariant::Log => "log",
            TfVariant::Binary => "binary",
            TfVariant::Augmented => "aug",
            TfVariant::KModified(_) => "k",
            TfVariant::LogSmooth => "log-smooth",
            TfVariant::Length => "length",
        }
    }
}

/// Applies `variant` row by row to a documents × vocabulary count matrix; absent terms and
/// empty rows give 0, never NaN (counts ≤ 0 or non-finite are treated as absent). Counts are
/// whole numbers in practice; a hand-made fractional count below 1 can make the log variants
/// negative (and log-smooth NaN), as their formulas say.
pub fn tf_matrix(counts: &Matrix, variant: TfVariant, base: LogBase) -> Matrix {
    let clean = counts.array().mapv(|f| if f.is_finite() && f > 0.0 { f } else { 0.0 });
    let mut out = Array2::<f32>::zeros(clean.raw_dim());
    for (row, mut tf) in clean.axis_iter(Axis(0)).zip(out.axis_iter_mut(Axis(0))) {
        // Per-document statistics, each only where the variant needs it.
        let sum: f32 = row.sum();
        let max = row.fold(0.0f32, |m, &f| m.max(f));
        let length = row.fold(0.0f32, |s, &f| s + f * f).sqrt();
        let weight = |f: f32| -> f32 {
            match variant {
                TfVariant::Raw => f,
                TfVariant::Normalized => f / sum,
                TfVariant::Log => 1.0 + base.log(f),
                TfVariant::Binary => 1.0,
                TfVariant::Augmented => 0.5 + 0.5 * f / max,
                TfVariant::KModified(k) => {
                    let k = if k.is_nan() { 0.5 } else { k.clamp(0.0, 1.0) };
                    k + (1.0 - k) * f / max
                }
                TfVariant::LogSmooth => 1.0 + base.log(1.0 + base.log(f)),
                TfVariant::Length => f / length,
            }
        };
        for (t, &f) in tf.iter_mut().zip(row) {
            // f > 0 implies sum, max and length > 0 (barring f32 overflow to ∞, which
            // gives 0 through f / ∞), so the divisions above are safe.
            *t = if f > 0.0 { weight(f) } else { 0.0 };
        }
    }
    Matrix::from_array(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_zeroes_absent_terms_and_empty_rows() {
        let counts = Matrix::from_rows(&[[3.0, 1.0, 0.0], [0.0, 0.0, 0.0]]).unwrap();
        for v in TfVariant::ALL {
            for base in [LogBase::E, LogBase::Ten, LogBase::Two] {
                let tf = tf_matrix(&counts, v, base);
                assert_eq!(tf.get(0, 2), 0.0, "{}", v.id());
                assert_eq!(tf.row(1), [0.0; 3], "{}", v.id());
                assert!(tf.as_slice().iter().all(|x| x.is_finite()), "{}", v.id());
            }
        }
    }

    #[test]
    fn variant_formulas() {
        let counts = Matrix::from_rows(&[[3.0, 1.0, 0.0]]).unwrap();
        let at = |v, base| tf_matrix(&counts, v, base).row(0);
        assert_eq!(at(TfVariant::Normalized, LogBase::E), [0.75, 0.25, 0.0]);
        assert_eq!(at(TfVariant::Binary, LogBase::E), [1.0, 1.0, 0.0]);
        assert_eq!(at(TfVariant::KModified(0.0), LogBase::E)[1], 1.0 / 3.0);
        assert_eq!(at(TfVariant::KModified(f32::NAN), LogBase::E), at(TfVariant::Augmented, LogBase::E));
        assert_eq!(at(TfVariant::KModified(7.0), LogBase::E), [1.0, 1.0, 0.0]);
        let smooth = at(TfVariant::LogSmooth, LogBase::Two);
        assert!((smooth[0] - (1.0 + (1.0 + 3f32.log2()).log2())).abs() < 1e-6);
        assert_eq!(smooth[1], 1.0);
        let length = at(TfVariant::Length, LogBase::E);
        assert!((length[0] - 3.0 / 10f32.sqrt()).abs() < 1e-6);
        let ids: Vec<_> = TfVariant::ALL.iter().map(|v| v.id()).collect();
        assert_eq!(ids, ["raw", "normalized", "log", "binary", "aug", "k", "log-smooth", "length"]);
        assert_eq!(LogBase::Ten.label(), "log₁₀");
    }
}
