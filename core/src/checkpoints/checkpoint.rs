//! What a checkpoint is: a question with its data, the answer at the precision it is judged at,
//! the worked solution as Portuguese steps, and the wrong answers the reader is likely to give,
//! each with why. The generators (one file per topic beside this one) fill it from the core's
//! own computations; the page generator prints it and the page script judges against it.

use crate::format::format_pt;

/// One instance of a checkpoint, made from a seed.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// The kind's identifier (`cosseno`), the same for every seed.
    pub kind: &'static str,
    /// What the reader is asked, in order: sentences and small tables of data.
    pub question: Vec<Block>,
    pub answer: Answer,
    /// The worked solution, one line per step, numbers written as a Portuguese reader writes them.
    pub steps: Vec<String>,
    /// Answers a reader is likely to give by a known slip, each with what went wrong. None
    /// equals the right answer at the precision it is judged at (`Checkpoint::new` drops those).
    pub wrong: Vec<Wrong>,
    /// The numbers the question is made of, by name (`u`, `v`, `n`), so a test can compute the
    /// answer again by its own formula; not shown.
    pub givens: Vec<(&'static str, Vec<f64>)>,
}

/// A piece of the question.
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    /// A sentence or paragraph (plain text: `q·k/√d`, no markup).
    Text(String),
    /// A small table: an optional caption, column headings (the first over the row labels) and rows,
    /// each a label and its cells, every value already written in Portuguese.
    Table { caption: String, head: Vec<String>, rows: Vec<(String, Vec<String>)> },
}

/// What counts as right.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// A number, judged at `decimals` places: a typed value within half a unit of the last
    /// place of `value` rounded there is right.
    Number { value: f64, decimals: usize },
    /// One of `options` (their labels), `correct` its index.
    Choice { options: Vec<String>, correct: usize },
}

impl Answer {
    /// The answer as a reader types it (`0,4625`, `49728`), or the right option's label.
    pub fn typed(&self) -> String {
        match self {
            Answer::Number { value, decimals } => typed_number(*value, *decimals),
            Answer::Choice { options, correct } => options[*correct].clone(),
        }
    }
}

/// A known wrong answer: a number (as typed at the answer's precision) or an option's index, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Wrong {
    /// `Answer::Number`: the value as typed (`0,9250`); `Answer::Choice`: the option's index.
    pub answer: String,
    pub why: String,
}

impl Checkpoint {
    /// A checkpoint whose numeric slips are `slips` (value, why): those that equal the answer
    /// at its precision, or an earlier slip, are left out, so every diagnosis names a real
    /// difference.
    pub fn new(kind: &'static str, question: Vec<Block>, answer: Answer, steps: Vec<String>, slips: Vec<(f64, String)>) -> Checkpoint {
        let mut wrong: Vec<Wrong> = Vec::new();
        if let Answer::Number { decimals, .. } = answer {
            let right = answer.typed();
            for (value, why) in slips {
                let typed = typed_number(value, decimals);
                if value.is_finite() && typed != right && !wrong.iter().any(|w| w.answer == typed) {
                    wrong.push(Wrong { answer: typed, why });
                }
            }
        }
        Checkpoint { kind, question, answer, steps, wrong, givens: Vec::new() }
    }

    /// The checkpoint with the numbers `name` of its question recorded (see `givens`).
    pub fn given(mut self, name: &'static str, values: impl IntoIterator<Item = impl Into<f64>>) -> Checkpoint {
        self.givens.push((name, values.into_iter().map(Into::into).collect()));
        self
    }

    /// The numbers recorded as `name` (empty when none).
    pub fn numbers(&self, name: &str) -> &[f64] {
        self.givens.iter().find(|(n, _)| *n == name).map_or(&[], |(_, v)| v.as_slice())
    }

    /// A choice, with a diagnosis for every wrong option (`why[i]` for option i; the right one's is ignored).
    pub fn choice(kind: &'static str, question: Vec<Block>, options: Vec<String>, correct: usize, steps: Vec<String>, why: Vec<String>) -> Checkpoint {
        let wrong = why.into_iter().enumerate().filter(|&(i, _)| i != correct).map(|(i, why)| Wrong { answer: i.to_string(), why }).collect();
        Checkpoint { kind, question, answer: Answer::Choice { options, correct }, steps, wrong, givens: Vec::new() }
    }
}

/// `value` at `decimals` places as a reader types it: a decimal comma and a plain minus sign
/// ("−" is not on a keyboard), no grouping of thousands.
pub fn typed_number(value: f64, decimals: usize) -> String {
    format_pt(value as f32, decimals).replace('−', "-")
}

/// A number of the question's data or of a step: at most `decimals` places, no trailing zeros (0,5, −2, 1,25).
pub fn short(value: f64, decimals: usize) -> String {
    crate::format::format_pt_short(value as f32, decimals)
}

/// A number of a step at the answer's precision (0,4625; −1,0000).
pub fn fixed(value: f64, decimals: usize) -> String {
    format_pt(value as f32, decimals)
}

/// A value in parentheses when negative, so a product reads "2 · (−1)".
pub fn factor(value: f64, decimals: usize) -> String {
    let s = short(value, decimals);
    if value < 0.0 && s != "0" { format!("({s})") } else { s }
}

/// `[a, b, c]` with Portuguese numbers; `;` between them, since the comma is the decimal mark.
pub fn vector(values: &[f32], decimals: usize) -> String {
    let items: Vec<String> = values.iter().map(|&v| short(v as f64, decimals)).collect();
    format!("({})", items.join("; "))
}

/// Integers drawn uniformly from `lo..=hi`.
pub fn ints(rng: &mut crate::rng::Rng, n: usize, lo: i64, hi: i64) -> Vec<f32> {
    (0..n).map(|_| (lo + rng.below((hi - lo + 1) as u64) as i64) as f32).collect()
}

/// Numbers with one decimal drawn uniformly from `lo..=hi` (in tenths).
pub fn tenths(rng: &mut crate::rng::Rng, n: usize, lo: f32, hi: f32) -> Vec<f32> {
    let (a, b) = ((lo * 10.0).round() as i64, (hi * 10.0).round() as i64);
    ints(rng, n, a, b).into_iter().map(|v| v / 10.0).collect()
}

/// Whether `values` at `decimals` places have one largest value, not tied with another.
pub fn one_largest(values: &[f64], decimals: usize) -> bool {
    let shown: Vec<String> = values.iter().map(|&v| typed_number(v, decimals)).collect();
    let best = crate::decoder::sampling::argmax(&values.iter().map(|&v| v as f32).collect::<Vec<_>>());
    shown.iter().enumerate().all(|(i, s)| i == best || (*s != shown[best] && values[i] < values[best]))
}
