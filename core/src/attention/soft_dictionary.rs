//! Attention as a soft dictionary ("Explicando Transformers", queries, keys and values).
//!
//! A Python dictionary answers a query with the value of the one key that matches: a hard
//! lookup. Attention compares the query q with every key kᵢ (the score q·kᵢ), turns the scores
//! into weights that sum to 1 (softmax), and answers with the weighted average Σᵢ wᵢ vᵢ: a soft
//! lookup. Multiplying the scores by a sharpness β > 0 (the same as a softmax temperature
//! τ = 1/β) moves between the two: as β grows the weights approach a one-hot row on the key
//! with the largest score (when there is just one), and the soft lookup approaches that key's
//! value, the hard lookup.
//!
//! Shapes: n entries, keys of width d, values of width d_v; the query is one row (1,d).
//! The scores are scaled by 1/√d as in attention, so that β = 1 is attention itself and the
//! default dictionary (the keys, values and second query of the textbook's Example 2) gives
//! the textbook's weights.

use crate::error::{ComputeError, Result};
use crate::executor::{Executor, Job};
use crate::matrix::Matrix;
use crate::ops::SoftmaxOptions;

/// More entries than this would not fit a phone's width as one row of weights.
pub const MAX_ENTRIES: usize = 8;

/// The sharpnesses the comparison ladder runs through (doublings around β = 1).
pub const LADDER: [f32; 8] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0];

/// A dictionary and one query to look up in it.
#[derive(Clone, Debug, PartialEq)]
pub struct SoftDictionary {
    /// K (n,d): one key per row.
    pub keys: Matrix,
    /// V (n,d_v): row i is the value stored under key i.
    pub values: Matrix,
    /// q (1,d).
    pub query: Matrix,
    /// β > 0: the weights are softmax(β · q·kᵢ / √d). β = 1 is attention's own scaling.
    pub sharpness: f32,
}

/// Everything the lookup computes, for the current β and for the ladder of β's.
#[derive(Clone, Debug, PartialEq)]
pub struct SoftLookup {
    /// q·kᵢ (1,n), unscaled.
    pub scores: Matrix,
    /// β · q·kᵢ / √d (1,n): what the softmax receives.
    pub scaled: Matrix,
    /// w = softmax(scaled) (1,n), summing to 1.
    pub weights: Matrix,
    /// Σᵢ wᵢ vᵢ = w·V (1,d_v).
    pub soft: Matrix,
    /// The key with the largest score (the first of a tie).
    pub best: usize,
    /// How many keys share the largest score (more than 1: the hard lookup is a tie-break).
    pub tied: usize,
    /// V's row `best` (1,d_v): the hard lookup.
    pub hard: Matrix,
    /// One row of weights per β of `LADDER` (|LADDER|,n).
    pub ladder_weights: Matrix,
    /// One soft lookup per β of `LADDER` (|LADDER|,d_v).
    pub ladder_soft: Matrix,
    /// ‖soft − hard‖ (Euclidean) per β of `LADDER`.
    pub ladder_distance: Vec<f32>,
}

impl SoftDictionary {
    /// The textbook's Example 2 read as a dictionary: the keys K and values V of its three
    /// tokens, and the query of the second token, q₂ = [0,4; 0,5; 0,6].
    pub fn example() -> SoftDictionary {
        let m = |rows: &[[f32; 3]]| Matrix::from_rows(rows).expect("3-wide literal");
        SoftDictionary {
            keys: m(&[[0.9, 0.8, 0.7], [0.6, 0.5, 0.4], [1.5, 1.3, 1.1]]),
            values: m(&[[0.2, 0.4, 0.6], [0.1, 0.3, 0.5], [0.3, 0.7, 1.1]]),
            query: m(&[[0.4, 0.5, 0.6]]),
            sharpness: 1.0,
        }
    }

    /// The key width d (the scores are divided by √d).
    pub fn d(&self) -> usize {
        self.keys.cols()
    }

    pub fn validate(&self) -> Result<()> {
        self.keys.check_finite("As chaves K")?;
        self.values.check_finite("Os valores V")?;
        self.query.check_finite("A consulta q")?;
        let n = self.keys.rows();
        if n == 0 || self.keys.cols() == 0 {
            return Err(ComputeError::Empty { what: "O dicionário" });
        }
        if n > MAX_ENTRIES {
            return Err(ComputeError::Invalid(format!("O dicionário tem {n} entradas; este widget mostra no máximo {MAX_ENTRIES}.")));
        }
        if self.values.rows() != n {
            return Err(ComputeError::Invalid(format!("Cada chave precisa de um valor: há {n} chaves e {} valores.", self.values.rows())));
        }
        if self.values.cols() == 0 {
            return Err(ComputeError::Empty { what: "A matriz de valores V" });
        }
        if self.query.rows() != 1 || self.query.cols() != self.keys.cols() {
            return Err(ComputeError::Invalid(format!(
                "A consulta q precisa ser uma linha com {} números (a largura das chaves); tem {} × {}.",
                self.keys.cols(),
                self.query.rows(),
                self.query.cols()
            )));
        }
        if !(self.sharpness > 0.0 && self.sharpness.is_finite()) {
            return Err(ComputeError::Invalid("A nitidez β precisa ser um número positivo.".into()));
        }
        Ok(())
    }
}

/// The key with the largest score (the first of a tie) and how many share it.
pub fn hard_choice(scores: &[f32]) -> (usize, usize) {
    let max = scores.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let best = scores.iter().position(|&s| s == max).unwrap_or(0);
    (best, scores.iter().filter(|&&s| s == max).count())
}

/// ‖a − b‖ over two rows of equal width.
fn distance(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f32>().sqrt()
}

/// The lookup, for `dict.sharpness` and every β of `LADDER`, in one readback:
///
/// - s = q Kᵀ (1,n), then β/√d · s and w = softmax(·), the soft lookup w V (1,d_v);
/// - the ladder: Q_β = b q (m,d) for the column b of β's (an outer product), then
///   softmax(Q_β Kᵀ/√d) (m,n) and its lookups (m,d_v).
pub async fn soft_lookup<E: Executor>(e: &E, dict: &SoftDictionary) -> Result<SoftLookup> {
    dict.validate()?;
    let inv_sqrt_d = 1.0 / (dict.d() as f32).sqrt();
    let k = e.upload(&dict.keys)?;
    let v = e.upload(&dict.values)?;
    let q = e.upload(&dict.query)?;
    // The current β: scores, scaled scores, weights, soft lookup.
    let scores = e.matmul_bt(&q, &k, 1.0)?;
    let scaled = e.scale(&scores, dict.sharpness * inv_sqrt_d)?;
    let weights = e.softmax_rows(&scaled, SoftmaxOptions::default())?;
    let soft = e.matmul(&weights, &v)?;
    // The ladder: every β at once, one query row each.
    let betas = Matrix::from_vec(LADDER.len(), 1, LADDER.to_vec())?;
    let queries = e.matmul(&e.upload(&betas)?, &q)?;
    let ladder_scaled = e.matmul_bt(&queries, &k, inv_sqrt_d)?;
    let ladder_weights = e.softmax_rows(&ladder_scaled, SoftmaxOptions::default())?;
    let ladder_soft = e.matmul(&ladder_weights, &v)?;
    let [scores, scaled, weights, soft, ladder_weights, ladder_soft] =
        e.read_n([&scores, &scaled, &weights, &soft, &ladder_weights, &ladder_soft]).await?;
    // Finite inputs can still overflow f32 in the products: say so instead of drawing NaN.
    scaled.check_finite("Os scores (os valores estouraram o limite do f32)")?;
    let (best, tied) = hard_choice(&scores.row(0));
    let hard = Matrix::from_vec(1, dict.values.cols(), dict.values.row(best))?;
    let ladder_distance = (0..LADDER.len()).map(|r| distance(&ladder_soft.row(r), &hard.row(0))).collect();
    Ok(SoftLookup { scores, scaled, weights, soft, best, tied, hard, ladder_weights, ladder_soft, ladder_distance })
}

impl Job for SoftDictionary {
    type Output = SoftLookup;
    async fn run<E: Executor>(&self, e: &E) -> Result<SoftLookup> {
        soft_lookup(e, self).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::block_on_ready;
    use crate::rng::Rng;
    use crate::Cpu;

    fn lookup(dict: &SoftDictionary) -> SoftLookup {
        block_on_ready(soft_lookup(&Cpu, dict)).unwrap()
    }

    fn close(got: &[f32], want: &[f32], tol: f32) -> bool {
        got.len() == want.len() && got.iter().zip(want).all(|(g, w)| (g - w).abs() <= tol)
    }

    /// The textbook's Example 2, second query (../shared/spec/4-transformer.md, section 3):
    /// raw scores 1,18, 0,73, 1,91; weights 0,3035, 0,2340, 0,4625 (the article prints 0,30,
    /// 0,23, 0,47); output [0,2228; 0,5154; 0,8079]. The hard lookup picks k₃, whose value is
    /// [0,3; 0,7; 1,1].
    #[test]
    fn example_2_is_the_textbooks_second_query() {
        let out = lookup(&SoftDictionary::example());
        assert!(close(&out.scores.row(0), &[1.18, 0.73, 1.91], 1e-5), "{:?}", out.scores);
        assert!(close(&out.scaled.row(0), &[0.6813, 0.4215, 1.1027], 1e-4), "{:?}", out.scaled);
        assert!(close(&out.weights.row(0), &[0.3035, 0.2340, 0.4625], 1e-4), "{:?}", out.weights);
        assert!(close(&out.soft.row(0), &[0.2228, 0.5154, 0.8079], 1e-4), "{:?}", out.soft);
        assert_eq!((out.best, out.tied), (2, 1));
        assert_eq!(out.hard.row(0), vec![0.3, 0.7, 1.1]);
        // β = 1 is the third rung of the ladder: the same weights.
        assert!(close(&out.ladder_weights.row(2), &out.weights.row(0), 1e-6));
    }

    /// The soft lookup is Σᵢ wᵢ vᵢ, the weights sum to 1, on random dictionaries and β's.
    #[test]
    fn soft_lookup_is_the_weighted_average_of_the_values() {
        let mut rng = Rng::new(22);
        for _ in 0..50 {
            let n = 1 + rng.below(MAX_ENTRIES as u64) as usize;
            let d = 1 + rng.below(4) as usize;
            let d_v = 1 + rng.below(3) as usize;
            let dict = SoftDictionary {
                keys: rng.matrix(n, d, -2.0, 2.0),
                values: rng.matrix(n, d_v, -3.0, 3.0),
                query: rng.matrix(1, d, -2.0, 2.0),
                sharpness: rng.uniform(0.1, 10.0),
            };
            let out = lookup(&dict);
            let w = out.weights.row(0);
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            for c in 0..d_v {
                let mixed: f32 = (0..n).map(|i| w[i] * dict.values.get(i, c)).sum();
                assert!((mixed - out.soft.get(0, c)).abs() < 1e-5);
            }
        }
    }

    /// As β grows the soft lookup approaches the hard one: the distance shrinks rung by rung
    /// and ends near 0 when one key has the largest score.
    #[test]
    fn sharper_scores_approach_the_hard_lookup() {
        let out = lookup(&SoftDictionary::example());
        for pair in out.ladder_distance.windows(2) {
            assert!(pair[1] <= pair[0] + 1e-6, "{:?}", out.ladder_distance);
        }
        assert!(*out.ladder_distance.last().unwrap() < 1e-3, "{:?}", out.ladder_distance);
        let last = out.ladder_weights.row(LADDER.len() - 1);
        assert!(last[2] > 0.999, "{last:?}");
    }

    /// A tie in the largest score: the hard lookup takes the first and says so; the soft one
    /// splits the weight between the tied keys however sharp.
    #[test]
    fn ties_are_reported() {
        let dict = SoftDictionary {
            keys: Matrix::from_rows(&[[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]).unwrap(),
            values: Matrix::from_rows(&[[0.0], [2.0], [5.0]]).unwrap(),
            query: Matrix::from_rows(&[[3.0, 0.0]]).unwrap(),
            sharpness: 1.0,
        };
        let out = lookup(&dict);
        assert_eq!((out.best, out.tied), (0, 2));
        let sharpest = out.ladder_soft.get(LADDER.len() - 1, 0);
        assert!((sharpest - 1.0).abs() < 1e-3, "the average of the tied values: {sharpest}");
    }

    #[test]
    fn bad_dictionaries_are_explained() {
        let mut dict = SoftDictionary::example();
        dict.query = Matrix::from_rows(&[[1.0, 2.0]]).unwrap();
        assert!(dict.validate().unwrap_err().to_string().contains("3 números"));
        let mut dict = SoftDictionary::example();
        dict.values = Matrix::from_rows(&[[1.0]]).unwrap();
        assert!(dict.validate().unwrap_err().to_string().contains("3 chaves e 1 valores"));
        let mut dict = SoftDictionary::example();
        dict.query.set(0, 1, f32::NAN);
        assert!(dict.validate().unwrap_err().to_string().contains("consulta"));
        let mut dict = SoftDictionary::example();
        dict.sharpness = 0.0;
        assert!(dict.validate().is_err());
    }
}
