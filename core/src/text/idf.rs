//! Inverse document frequency: how rare a word is across the N documents of a corpus.
//!
//! Some formulas leave the real numbers at the edges (log 0, division by 0); those cases are
//! values of their own (`IdfValue::NegInfinity`, `IdfValue::Undefined`) so the UI can say so
//! in words instead of drawing a NaN.

use crate::format::format_pt;

use super::tf::LogBase;
use super::Corpus;

/// An IDF formula; N documents, df of them contain the word.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IdfVariant {
    /// log(N / df)
    Basic,
    /// log(N / (1 + df)), the article's "IDF+1" (not sklearn's smoothing, see `Smooth`).
    PlusOne,
    /// log((N − df) / df)
    Probabilistic,
    /// min(log(N / df), cap): the article caps at the corpus's own largest IDF, which changes
    /// nothing, so the cap here is a free parameter.
    Max { cap: f32 },
    /// sklearn's smooth_idf: log((1 + N) / (1 + df)) + 1, in the chosen base.
    Smooth,
}

/// The value of one IDF: a real number, −∞ (log 0) or undefined (division by zero).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IdfValue {
    Finite(f32),
    NegInfinity,
    Undefined,
}

impl IdfValue {
    /// As an f32 for plotting: −∞ → `f32::NEG_INFINITY`, undefined → NaN (the UI shows `label`).
    pub fn to_f32(self) -> f32 {
        match self {
            IdfValue::Finite(x) => x,
            IdfValue::NegInfinity => f32::NEG_INFINITY,
            IdfValue::Undefined => f32::NAN,
        }
    }

    /// For display: 4 decimals with a comma, "−∞" or "indefinido".
    pub fn label(self) -> String {
        match self {
            IdfValue::Finite(x) => format_pt(x, 4),
            IdfValue::NegInfinity => "−∞".into(),
            IdfValue::Undefined => "indefinido".into(),
        }
    }

    /// True for a real number.
    pub fn is_finite(self) -> bool {
        matches!(self, IdfValue::Finite(_))
    }
}

/// IDF of a word found in `df` of `n_docs` documents. Edge cases, by formula:
/// - any variant with df > N (impossible counts): undefined;
/// - basic and max, df = 0: N/0, undefined (the cap bounds real values only);
/// - IDF+1, N = 0: log 0 = −∞; otherwise always finite (negative when df ≥ N);
/// - probabilistic, df = 0: undefined; df = N: log 0 = −∞ (the article calls this case
///   "indefinido"); negative when df > N/2;
/// - smooth: always finite and ≥ 1.
pub fn idf(n_docs: usize, df: usize, variant: IdfVariant, base: LogBase) -> IdfValue {
    if df > n_docs {
        return IdfValue::Undefined;
    }
    let (n, d) = (n_docs as f32, df as f32);
    // log of a ratio whose numerator may be 0 (→ −∞) and whose denominator may be 0 (→ undefined).
    let log_ratio = |num: f32, den: f32| {
        if den == 0.0 {
            IdfValue::Undefined
        } else if num == 0.0 {
            IdfValue::NegInfinity
        } else {
            IdfValue::Finite(base.log(num / den))
        }
    };
    match variant {
        IdfVariant::Basic => log_ratio(n, d),
        IdfVariant::PlusOne => log_ratio(n, 1.0 + d),
        IdfVariant::Probabilistic => log_ratio(n - d, d),
        // f32::min ignores a NaN cap, which leaves the value uncapped.
        IdfVariant::Max { cap } => match log_ratio(n, d) {
            IdfValue::Finite(x) => IdfValue::Finite(x.min(cap)),
            other => other,
        },
        IdfVariant::Smooth => IdfValue::Finite(base.log((1.0 + n) / (1.0 + d)) + 1.0),
    }
}

/// The IDF of every vocabulary word of `corpus`, in column order.
pub fn idf_vector(corpus: &Corpus, variant: IdfVariant, base: LogBase) -> Vec<IdfValue> {
    let n = corpus.counts.rows();
    corpus.document_frequency().into_iter().map(|df| idf(n, df, variant, base)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use IdfValue::*;

    #[test]
    fn edge_cases_per_variant() {
        let e = LogBase::E;
        assert_eq!(idf(3, 0, IdfVariant::Basic, e), Undefined);
        assert_eq!(idf(3, 3, IdfVariant::Basic, e), Finite(0.0));
        assert_eq!(idf(0, 0, IdfVariant::PlusOne, e), NegInfinity);
        assert_eq!(idf(3, 0, IdfVariant::PlusOne, e), Finite(3f32.ln()));
        assert_eq!(idf(3, 0, IdfVariant::Probabilistic, e), Undefined);
        assert_eq!(idf(3, 3, IdfVariant::Probabilistic, e), NegInfinity);
        assert_eq!(idf(4, 1, IdfVariant::Max { cap: 1.0 }, e), Finite(1.0));
        assert_eq!(idf(4, 2, IdfVariant::Max { cap: 1.0 }, e), Finite(2f32.ln()));
        assert_eq!(idf(4, 1, IdfVariant::Max { cap: f32::NAN }, e), Finite(4f32.ln()));
        assert_eq!(idf(4, 0, IdfVariant::Max { cap: 1.0 }, e), Undefined);
        assert_eq!(idf(0, 0, IdfVariant::Smooth, e), Finite(1.0));
        assert_eq!(idf(2, 5, IdfVariant::Smooth, e), Undefined);
        assert_eq!(idf(2, 1, IdfVariant::Basic, LogBase::Two), Finite(1.0));
    }

    #[test]
    fn labels_and_plot_values() {
        assert_eq!(Finite(-0.28768).label(), "−0,2877");
        assert_eq!(NegInfinity.label(), "−∞");
        assert_eq!(Undefined.label(), "indefinido");
        assert!(Undefined.to_f32().is_nan());
        assert_eq!(NegInfinity.to_f32(), f32::NEG_INFINITY);
    }
}
