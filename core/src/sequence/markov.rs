//! First-order Markov chains over a few named states (the article's weather: sol/chuva).
//!
//! Convention: row i of the transition matrix P is the distribution of the next state given
//! state i, so a distribution is a row vector and one step is π ↦ π P.

use ndarray::Array2;

use crate::error::{ComputeError, Result};
use crate::executor::{Executor, Job};
use crate::matrix::Matrix;
use crate::rng::Rng;

use super::weighted_draw;

/// How far a row sum may be from 1 and still count as stochastic: typed cells like
/// 0,333 + 0,333 + 0,334 must pass, a slip like 0,7 + 0,4 must not.
pub const ROW_SUM_TOLERANCE: f32 = 1e-3;

/// Most steps a distribution path or a sampled path may take (keeps widgets responsive).
pub const MAX_STEPS: usize = 100_000;

/// Iteration cap of `stationary`; reaching it is reported, never an endless loop.
pub const MAX_STATIONARY_ITERATIONS: usize = 10_000;

/// Fails unless `m` is square, finite, non-negative and every row sums to 1 (± `ROW_SUM_TOLERANCE`);
/// the message names the first bad row so the reader can fix the cell.
pub fn validate_stochastic(m: &Matrix) -> Result<()> {
    if m.rows() == 0 {
        return Err(ComputeError::Empty { what: "A matriz de transição" });
    }
    if m.rows() != m.cols() {
        return Err(ComputeError::Invalid(format!(
            "A matriz de transição precisa ser quadrada, mas é {}×{}.",
            m.rows(),
            m.cols()
        )));
    }
    m.check_finite("A matriz de transição")?;
    for (r, row) in m.array().outer_iter().enumerate() {
        if let Some(c) = row.iter().position(|&v| v < 0.0) {
            return Err(ComputeError::Invalid(format!(
                "Probabilidades não podem ser negativas: linha {}, coluna {}.",
                r + 1,
                c + 1
            )));
        }
        let sum: f32 = row.sum();
        if (sum - 1.0).abs() > ROW_SUM_TOLERANCE {
            return Err(ComputeError::Invalid(format!(
                "A linha {} soma {}, mas cada linha precisa somar 1.",
                r + 1,
                crate::format::format_pt_short(sum, 4)
            )));
        }
    }
    Ok(())
}

/// Divides each row by its sum, turning counts or rough weights into probabilities.
/// Negative and non-finite cells count as 0. A row with nothing left (all zero) becomes a
/// self-loop (1 on the diagonal, when the matrix is square): a state with no way out stays
/// where it is, which invents no transition to another state and never yields NaN.
/// A non-square matrix keeps such a row all zero.
pub fn normalize_rows(m: &Matrix) -> Matrix {
    let mut out = m.array().mapv(|v| if v.is_finite() && v > 0.0 { v } else { 0.0 });
    let square = m.rows() == m.cols();
    for (r, mut row) in out.outer_iter_mut().enumerate() {
        let sum: f64 = row.iter().map(|&v| v as f64).sum();
        if sum > 0.0 && sum.is_finite() {
            row.mapv_inplace(|v| (v as f64 / sum) as f32);
        } else if square {
            row.fill(0.0);
            row[r] = 1.0;
        }
    }
    Matrix::from_array(out)
}

/// Outcome of `stationary`.
#[derive(Clone, Debug, PartialEq)]
pub struct Stationary {
    /// π with π P = π, summing to 1.
    pub distribution: Vec<f32>,
    /// Iterations taken.
    pub iterations: usize,
    /// False if `MAX_STATIONARY_ITERATIONS` ran out before the tolerance was met.
    pub converged: bool,
}

/// A validated Markov chain: state names and a row-stochastic matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct MarkovChain {
    states: Vec<String>,
    transition: Matrix,
}

impl MarkovChain {
    /// Validates names and matrix (see `validate_stochastic`); rows within the tolerance are
    /// rescaled to sum exactly 1 so that distributions stay distributions.
    pub fn new(states: Vec<String>, transition: Matrix) -> Result<Self> {
        validate_stochastic(&transition)?;
        if states.len() != transition.rows() {
            return Err(ComputeError::Invalid(format!(
                "Há {} nomes de estado para uma matriz {}×{}.",
                states.len(),
                transition.rows(),
                transition.cols()
            )));
        }
        Ok(MarkovChain { states, transition: normalize_rows(&transition) })
    }

    /// A chain from weights a reader typed, repaired where that is harmless: rows that do not
    /// sum to 1 are divided by their sum and an all-zero row becomes a self-loop (see
    /// `normalize_rows`). Returns the chain and, when something was repaired, a Portuguese
    /// note saying what. Negative, non-finite or non-square input is still an error: no
    /// guess would be honest there.
    pub fn from_weights(states: Vec<String>, weights: &Matrix) -> Result<(Self, Option<String>)> {
        if weights.rows() == 0 || weights.rows() != weights.cols() || states.len() != weights.rows() {
            return Err(ComputeError::Invalid(format!(
                "A matriz de transição precisa ser quadrada, com uma linha por estado ({} estados, matriz {}×{}).",
                states.len(),
                weights.rows(),
                weights.cols()
            )));
        }
        weights.check_finite("A matriz de transição")?;
        let mut notes = Vec::new();
        for (r, row) in weights.array().outer_iter().enumerate() {
            if let Some(c) = row.iter().position(|&v| v < 0.0) {
                return Err(ComputeError::Invalid(format!(
                    "Probabilidades não podem ser negativas: linha «{}», coluna «{}».",
                    states[r], states[c]
                )));
            }
            let sum: f32 = row.sum();
            if sum == 0.0 {
                notes.push(format!(
                    "A linha «{}» só tem zeros: sem saída, a cadeia ficaria parada nesse estado, então as contas usam 1 na diagonal.",
                    states[r]
                ));
            } else if (sum - 1.0).abs() > ROW_SUM_TOLERANCE {
                notes.push(format!(
                    "A linha «{}» soma {}, não 1: as contas usam cada valor dividido por essa soma.",
                    states[r],
                    crate::format::format_pt_short(sum, 4)
                ));
            }
        }
        let chain = MarkovChain::new(states, normalize_rows(weights))?;
        Ok((chain, (!notes.is_empty()).then(|| notes.join(" "))))
    }

    /// The article's weather: sol→sol 0,7, sol→chuva 0,3, chuva→sol 0,5, chuva→chuva 0,5.
    pub fn weather() -> Self {
        let p = Matrix::from_rows(&[[0.7, 0.3], [0.5, 0.5]]).expect("2×2 literal");
        MarkovChain::new(vec!["sol".into(), "chuva".into()], p).expect("stochastic literal")
    }

    /// The state names, in row order.
    pub fn states(&self) -> &[String] {
        &self.states
    }

    /// The row-stochastic transition matrix P.
    pub fn transition(&self) -> &Matrix {
        &self.transition
    }

    /// The distribution concentrated on `state` (a one-hot row), the usual starting point.
    pub fn one_hot(&self, state: usize) -> Result<Vec<f32>> {
        self.check_state(state)?;
        let mut d = vec![0.0; self.states.len()];
        d[state] = 1.0;
        Ok(d)
    }

    /// One step π P; fails unless `dist` is a distribution over the states.
    pub fn step(&self, dist: &[f32]) -> Result<Vec<f32>> {
        self.check_distribution(dist)?;
        Ok(self.product(dist))
    }

    /// π_0, π_0 P, …, π_0 Pⁿ (n + 1 rows): the convergence plot of the widget.
    pub fn distribution_path(&self, initial: &[f32], steps: usize) -> Result<Vec<Vec<f32>>> {
        self.check_distribution(initial)?;
        check_steps(steps)?;
        let mut path = vec![initial.to_vec()];
        for _ in 0..steps {
            let next = self.product(path.last().expect("non-empty"));
            path.push(next);
        }
        Ok(path)
    }

    /// π_0 Pⁿ, the distribution after `steps` steps.
    pub fn distribution_after(&self, initial: &[f32], steps: usize) -> Result<Vec<f32>> {
        self.check_distribution(initial)?;
        check_steps(steps)?;
        let mut d = initial.to_vec();
        for _ in 0..steps {
            d = self.product(&d);
        }
        Ok(d)
    }

    /// Pⁿ (by repeated squaring): row i is where the chain is after n steps from state i.
    pub fn power(&self, n: u32) -> Matrix {
        let size = self.states.len();
        let mut result = Array2::<f32>::eye(size);
        let mut base = self.transition.array().clone();
        let mut e = n;
        while e > 0 {
            if e & 1 == 1 {
                result = result.dot(&base);
            }
            base = base.dot(&base);
            e >>= 1;
        }
        Matrix::from_array(result)
    }

    /// The stationary distribution π = π P, by power iteration on the lazy chain (I + P)/2.
    /// The lazy chain has the same stationary distributions but is never periodic, so a chain
    /// that alternates (sol↔chuva with probability 1) still converges. For a reducible chain
    /// π is one of several stationary distributions: the one reached from the uniform start.
    pub fn stationary(&self) -> Stationary {
        let n = self.states.len();
        let p = self.transition.array().mapv(|v| v as f64);
        let mut pi = ndarray::Array1::<f64>::from_elem(n, 1.0 / n as f64);
        for iteration in 1..=MAX_STATIONARY_ITERATIONS {
            let next = (&pi + &pi.dot(&p)) * 0.5;
            let change: f64 = (&next - &pi).iter().map(|d| d.abs()).sum();
            pi = next;
            if change < 1e-10 {
                return Stationary {
                    distribution: to_f32_distribution(&pi),
                    iterations: iteration,
                    converged: true,
                };
            }
        }
        Stationary {
            distribution: to_f32_distribution(&pi),
            iterations: MAX_STATIONARY_ITERATIONS,
            converged: false,
        }
    }

    /// A random walk of `steps` steps from `start` (steps + 1 states); the same seed gives
    /// the same path.
    pub fn sample_path(&self, start: usize, steps: usize, rng: &mut Rng) -> Result<Vec<usize>> {
        self.check_state(start)?;
        check_steps(steps)?;
        let mut path = Vec::with_capacity(steps + 1);
        path.push(start);
        let mut current = start;
        for _ in 0..steps {
            // Rows are stochastic, so a draw always succeeds; staying put is the safe fallback.
            current = weighted_draw(&self.transition.row(current), rng).unwrap_or(current);
            path.push(current);
        }
        Ok(path)
    }

    /// Share of the path spent in each state: approaches the stationary distribution as the
    /// path grows (the sampler's "frequência observada").
    pub fn visit_frequencies(&self, path: &[usize]) -> Vec<f32> {
        let mut counts = vec![0.0f32; self.states.len()];
        for &s in path {
            if let Some(c) = counts.get_mut(s) {
                *c += 1.0;
            }
        }
        let total = path.len().max(1) as f32;
        counts.iter().map(|c| c / total).collect()
    }

    /// dist · P as an ndarray product.
    fn product(&self, dist: &[f32]) -> Vec<f32> {
        ndarray::ArrayView1::from(dist).dot(self.transition.array()).to_vec()
    }

    fn check_state(&self, state: usize) -> Result<()> {
        if state >= self.states.len() {
            return Err(ComputeError::Invalid(format!(
                "O estado {} não existe: a cadeia tem {} estados.",
                state + 1,
                self.states.len()
            )));
        }
        Ok(())
    }

    fn check_distribution(&self, dist: &[f32]) -> Result<()> {
        if dist.len() != self.states.len() {
            return Err(ComputeError::Invalid(format!(
                "A distribuição tem {} valores, mas a cadeia tem {} estados.",
                dist.len(),
                self.states.len()
            )));
        }
        let valid = dist.iter().all(|v| v.is_finite() && *v >= 0.0);
        let sum: f32 = dist.iter().sum();
        if !valid || (sum - 1.0).abs() > ROW_SUM_TOLERANCE {
            return Err(ComputeError::Invalid(
                "A distribuição inicial precisa ter valores não negativos que somem 1.".into(),
            ));
        }
        Ok(())
    }
}

/// Most steps `ConvergenceJob` takes: one matrix product per step, each a GPU round trip.
pub const MAX_CONVERGENCE_STEPS: usize = 200;

/// The convergence plot of the weather widget, from every starting state at once:
/// D₀ = I, D_{k+1} = D_k P, so row i of D_k (n × n) is π₀ Pᵏ for π₀ the one-hot of state i.
/// A `Job`, so the products run on the active backend (the same rows as `distribution_path`).
#[derive(Clone, Debug, PartialEq)]
pub struct ConvergenceJob {
    /// The chain (its matrix is row-stochastic by construction).
    pub chain: MarkovChain,
    /// Number of steps (at most `MAX_CONVERGENCE_STEPS`).
    pub steps: usize,
}

impl Job for ConvergenceJob {
    /// D₀ … D_steps.
    type Output = Vec<Matrix>;
    async fn run<E: Executor>(&self, e: &E) -> Result<Vec<Matrix>> {
        if self.steps > MAX_CONVERGENCE_STEPS {
            return Err(ComputeError::Invalid(format!(
                "São {} passos; o gráfico vai até {MAX_CONVERGENCE_STEPS}.",
                self.steps
            )));
        }
        let p = e.upload(self.chain.transition())?;
        // D₀ = I, D_{n+1} = D_n · P: every step on the backend, all read back at once.
        let mut path = vec![e.upload(&Matrix::from_array(Array2::<f32>::eye(self.chain.transition().rows())))?];
        for n in 0..self.steps {
            let next = e.matmul(&path[n], &p)?;
            path.push(next);
        }
        e.read(&path.iter().collect::<Vec<_>>()).await
    }
}

fn check_steps(steps: usize) -> Result<()> {
    if steps > MAX_STEPS {
        return Err(ComputeError::Invalid(format!("São {steps} passos; o limite é {MAX_STEPS}.")));
    }
    Ok(())
}

/// Renormalises in f64 (power iteration drifts by rounding) before narrowing to f32.
fn to_f32_distribution(pi: &ndarray::Array1<f64>) -> Vec<f32> {
    let sum = pi.sum();
    pi.iter().map(|v| (v / sum) as f32).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periodic_and_reducible_chains_terminate() {
        let flip = Matrix::from_rows(&[[0.0, 1.0], [1.0, 0.0]]).unwrap();
        let chain = MarkovChain::new(vec!["a".into(), "b".into()], flip).unwrap();
        let s = chain.stationary();
        assert!(s.converged);
        assert!((s.distribution[0] - 0.5).abs() < 1e-6);
        let identity = Matrix::from_rows(&[[1.0, 0.0], [0.0, 1.0]]).unwrap();
        let chain = MarkovChain::new(vec!["a".into(), "b".into()], identity).unwrap();
        assert!(chain.stationary().converged);
    }

    #[test]
    fn power_matches_repeated_steps() {
        let w = MarkovChain::weather();
        let p3 = w.power(3);
        let d = w.distribution_after(&[1.0, 0.0], 3).unwrap();
        assert!((p3.get(0, 0) - d[0]).abs() < 1e-6);
        assert_eq!(w.power(0).to_rows(), [[1.0, 0.0], [0.0, 1.0]]);
    }
}
