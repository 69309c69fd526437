//! Gradient checking ("Prestando atenção", differentiable attention): the derivatives the page
//! derives, computed by their formulas (analytic) and by central differences (numeric), side
//! by side.
//!
//! Two functions are checked:
//!
//! - the softmax s = softmax(z): its Jacobian ∂sᵢ/∂zⱼ = sᵢ(δᵢⱼ − sⱼ) (sᵢ(1 − sᵢ) on the
//!   diagonal, −sᵢsⱼ off it) against [s(z + h eⱼ) − s(z − h eⱼ)] / 2h, column by column;
//! - one attention step O = softmax(S) V with S = Q Kᵀ / √d_k, under the scalar loss
//!   L = Σ O ⊙ G = ⟨O, G⟩_F for a fixed G (t,d_v). Its gradients follow the page's rules
//!   (the product AB has derivative Bᵀ in A and Aᵀ in B; the softmax's Jacobian row by row):
//!   ∂L/∂O = G; ∂L/∂V = Aᵀ G; ∂L/∂A = G Vᵀ; ∂L/∂S, row t: αₜ ⊙ (∂L/∂Aₜ − ⟨αₜ, ∂L/∂Aₜ⟩);
//!   ∂L/∂Q = ∂L/∂S · K / √d_k; ∂L/∂K = (∂L/∂S)ᵀ · Q / √d_k.
//!   Each entry is checked against [L(X + h Eᵢⱼ) − L(X − h Eᵢⱼ)] / 2h.
//!
//! The analytic side is f64. The differences are taken in f64 or in f32 (the GPU's precision):
//! their error is the truncation of the formula, about h² times the third derivative, plus the
//! rounding of the two losses, about ε·|L| / h (ε = 2⁻⁵² in f64, 2⁻²³ in f32), so it shrinks
//! with h only until the rounding takes over: too small an h makes it worse.
//!
//! Shapes: t queries, t_k keys, d_k query/key width, d_v value width; matrices are row-major
//! `ndarray::Array2<f64>`.

use ndarray::Array2;

use crate::error::{ComputeError, Result};

/// The steps h the reader chooses among (and the error curve runs over), largest first.
pub const STEPS: [f64; 10] = [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10];

/// The floating-point type the loss is evaluated in for the differences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// Double precision (ε ≈ 2,2 × 10⁻¹⁶).
    F64,
    /// Single precision, what WebGPU computes in (ε ≈ 1,2 × 10⁻⁷).
    F32,
}

/// Arithmetic the forward passes need, in f32 or f64.
trait Real: Copy + PartialOrd + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self> + std::ops::Mul<Output = Self> + std::ops::Div<Output = Self> {
    fn of(v: f64) -> Self;
    fn to_f64(self) -> f64;
    fn exp(self) -> Self;
}

impl Real for f64 {
    fn of(v: f64) -> f64 {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn exp(self) -> f64 {
        f64::exp(self)
    }
}

impl Real for f32 {
    fn of(v: f64) -> f32 {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn exp(self) -> f32 {
        f32::exp(self)
    }
}

/// softmax(z), stable: e^(zᵢ − max z) / Σⱼ e^(zⱼ − max z).
fn softmax_in<R: Real>(z: &[R]) -> Vec<R> {
    let max = z.iter().copied().fold(z[0], |m, v| if v > m { v } else { m });
    let e: Vec<R> = z.iter().map(|&v| (v - max).exp()).collect();
    let sum = e.iter().copied().fold(R::of(0.0), |a, b| a + b);
    e.into_iter().map(|v| v / sum).collect()
}

/// softmax(z) in f64.
pub fn softmax(z: &[f64]) -> Vec<f64> {
    softmax_in(z)
}

/// The Jacobian J (n,n), Jᵢⱼ = ∂sᵢ/∂zⱼ = sᵢ(δᵢⱼ − sⱼ), from s = softmax(z).
pub fn softmax_jacobian(z: &[f64]) -> Array2<f64> {
    let s = softmax(z);
    let n = s.len();
    Array2::from_shape_fn((n, n), |(i, j)| if i == j { s[i] * (1.0 - s[i]) } else { -s[i] * s[j] })
}

/// softmax in `precision`, back in f64.
fn softmax_at(z: &[f64], precision: Precision) -> Vec<f64> {
    match precision {
        Precision::F64 => softmax(z),
        Precision::F32 => softmax_in(&z.iter().map(|&v| v as f32).collect::<Vec<_>>()).into_iter().map(|v| v as f64).collect(),
    }
}

/// The Jacobian by central differences: column j is [s(z + h eⱼ) − s(z − h eⱼ)] / 2h, the
/// softmax evaluated in `precision`.
pub fn softmax_jacobian_numeric(z: &[f64], h: f64, precision: Precision) -> Array2<f64> {
    let n = z.len();
    let mut j_num = Array2::zeros((n, n));
    for j in 0..n {
        let (mut plus, mut minus) = (z.to_vec(), z.to_vec());
        plus[j] += h;
        minus[j] -= h;
        let (sp, sm) = (softmax_at(&plus, precision), softmax_at(&minus, precision));
        for i in 0..n {
            j_num[[i, j]] = (sp[i] - sm[i]) / (2.0 * h);
        }
    }
    j_num
}

/// One attention step and its loss's weight G.
#[derive(Clone, Debug, PartialEq)]
pub struct AttentionStep {
    /// Q (t,d_k).
    pub q: Array2<f64>,
    /// K (t_k,d_k).
    pub k: Array2<f64>,
    /// V (t_k,d_v).
    pub v: Array2<f64>,
    /// G (t,d_v): L = Σ O ⊙ G.
    pub g: Array2<f64>,
}

/// Which input of the attention step a gradient is taken with respect to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wrt {
    Q,
    K,
    V,
}

/// ∂L/∂Q, ∂L/∂K, ∂L/∂V.
#[derive(Clone, Debug, PartialEq)]
pub struct Gradients {
    pub q: Array2<f64>,
    pub k: Array2<f64>,
    pub v: Array2<f64>,
}

impl Gradients {
    pub fn of(&self, wrt: Wrt) -> &Array2<f64> {
        match wrt {
            Wrt::Q => &self.q,
            Wrt::K => &self.k,
            Wrt::V => &self.v,
        }
    }
}

impl AttentionStep {
    pub fn validate(&self) -> Result<()> {
        let (t, d_k) = self.q.dim();
        let (t_k, d_v) = self.v.dim();
        if t == 0 || d_k == 0 || t_k == 0 || d_v == 0 {
            return Err(ComputeError::Empty { what: "Uma das matrizes" });
        }
        if self.k.dim() != (t_k, d_k) {
            return Err(ComputeError::Invalid(format!("K precisa ter {t_k} linhas (as de V) e {d_k} colunas (as de Q); tem {} × {}.", self.k.nrows(), self.k.ncols())));
        }
        if self.g.dim() != (t, d_v) {
            return Err(ComputeError::Invalid(format!("G precisa ter a forma da saída, {t} × {d_v}; tem {} × {}.", self.g.nrows(), self.g.ncols())));
        }
        for (name, m) in [("Q", &self.q), ("K", &self.k), ("V", &self.v), ("G", &self.g)] {
            if let Some(((r, c), _)) = m.indexed_iter().find(|(_, v)| !v.is_finite()) {
                return Err(ComputeError::Invalid(format!("{name} tem um valor não finito na linha {}, coluna {}.", r + 1, c + 1)));
            }
        }
        Ok(())
    }

    fn input(&self, wrt: Wrt) -> &Array2<f64> {
        match wrt {
            Wrt::Q => &self.q,
            Wrt::K => &self.k,
            Wrt::V => &self.v,
        }
    }

    /// A = softmax(Q Kᵀ / √d_k) (t,t_k) and O = A V (t,d_v), in f64.
    pub fn forward(&self) -> (Array2<f64>, Array2<f64>) {
        let scale = 1.0 / (self.q.ncols() as f64).sqrt();
        let s = self.q.dot(&self.k.t()) * scale;
        let mut a = s.clone();
        for mut row in a.rows_mut() {
            let soft = softmax(&row.to_vec());
            row.iter_mut().zip(soft).for_each(|(x, y)| *x = y);
        }
        let o = a.dot(&self.v);
        (a, o)
    }

    /// L = Σ O ⊙ G, in f64.
    pub fn loss(&self) -> f64 {
        let (_, o) = self.forward();
        (&o * &self.g).sum()
    }

    /// The loss with every product, exponential and sum in `R` (the inputs rounded to `R`).
    fn loss_in<R: Real>(&self) -> f64 {
        let (t, d_k) = self.q.dim();
        let (t_k, d_v) = self.v.dim();
        let r = |m: &Array2<f64>| m.mapv(R::of);
        let (q, k, v, g) = (r(&self.q), r(&self.k), r(&self.v), r(&self.g));
        let scale = R::of(1.0 / (d_k as f64).sqrt());
        let zero = R::of(0.0);
        let mut loss = zero;
        for i in 0..t {
            let scores: Vec<R> = (0..t_k).map(|j| (0..d_k).fold(zero, |acc, c| acc + q[[i, c]] * k[[j, c]]) * scale).collect();
            let a = softmax_in(&scores);
            for c in 0..d_v {
                let o = (0..t_k).fold(zero, |acc, j| acc + a[j] * v[[j, c]]);
                loss = loss + o * g[[i, c]];
            }
        }
        loss.to_f64()
    }

    fn loss_at(&self, precision: Precision) -> f64 {
        match precision {
            Precision::F64 => self.loss_in::<f64>(),
            Precision::F32 => self.loss_in::<f32>(),
        }
    }

    /// The gradients by the chain rule the page derives (see the module's comment).
    pub fn gradients(&self) -> Gradients {
        let scale = 1.0 / (self.q.ncols() as f64).sqrt();
        let (a, _) = self.forward();
        // ∂L/∂O = G; O = A V: ∂L/∂V = Aᵀ G, ∂L/∂A = G Vᵀ.
        let dv = a.t().dot(&self.g);
        let da = self.g.dot(&self.v.t());
        // A = softmax(S) row by row: ∂L/∂Sₜ = Jₜᵀ ∂L/∂Aₜ = αₜ ⊙ (∂L/∂Aₜ − ⟨αₜ, ∂L/∂Aₜ⟩).
        let mut ds = Array2::zeros(a.dim());
        for (t, (alpha, grad)) in a.rows().into_iter().zip(da.rows()).enumerate() {
            let inner = alpha.dot(&grad);
            for j in 0..alpha.len() {
                ds[[t, j]] = alpha[j] * (grad[j] - inner);
            }
        }
        // S = Q Kᵀ / √d_k: ∂L/∂Q = ∂L/∂S · K / √d_k, ∂L/∂K = (∂L/∂S)ᵀ · Q / √d_k.
        let dq = ds.dot(&self.k) * scale;
        let dk = ds.t().dot(&self.q) * scale;
        Gradients { q: dq, k: dk, v: dv }
    }

    /// ∂L/∂X for X = Q, K or V by central differences, the loss evaluated in `precision`.
    pub fn gradient_numeric(&self, wrt: Wrt, h: f64, precision: Precision) -> Array2<f64> {
        let shape = self.input(wrt).dim();
        let mut out = Array2::zeros(shape);
        let mut probe = self.clone();
        for r in 0..shape.0 {
            for c in 0..shape.1 {
                let x = self.input(wrt)[[r, c]];
                let set = |p: &mut AttentionStep, value: f64| match wrt {
                    Wrt::Q => p.q[[r, c]] = value,
                    Wrt::K => p.k[[r, c]] = value,
                    Wrt::V => p.v[[r, c]] = value,
                };
                set(&mut probe, x + h);
                let plus = probe.loss_at(precision);
                set(&mut probe, x - h);
                let minus = probe.loss_at(precision);
                set(&mut probe, x);
                out[[r, c]] = (plus - minus) / (2.0 * h);
            }
        }
        out
    }

    /// All three gradients by central differences.
    pub fn gradients_numeric(&self, h: f64, precision: Precision) -> Gradients {
        Gradients {
            q: self.gradient_numeric(Wrt::Q, h, precision),
            k: self.gradient_numeric(Wrt::K, h, precision),
            v: self.gradient_numeric(Wrt::V, h, precision),
        }
    }
}

/// The largest relative error between an analytic and a numeric gradient:
/// maxᵢ |aᵢ − nᵢ| / max(|aᵢ|, |nᵢ|, δ), with δ = 10⁻⁸ · maxⱼ |aⱼ| (at least 10⁻³⁰⁰) so that an
/// entry whose true gradient is 0 is measured against the size of the others, not against 0.
pub fn max_relative_error(analytic: &Array2<f64>, numeric: &Array2<f64>) -> f64 {
    let scale = analytic.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let floor = (1e-8 * scale).max(1e-300);
    analytic
        .iter()
        .zip(numeric.iter())
        .map(|(a, n)| {
            let diff = (a - n).abs();
            if diff.is_nan() {
                f64::INFINITY
            } else {
                diff / a.abs().max(n.abs()).max(floor)
            }
        })
        .fold(0.0, f64::max)
}

/// What the widget shows for one setting.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// The analytic derivative (the Jacobian, or ∂L/∂X).
    pub analytic: Array2<f64>,
    /// The same by central differences at the chosen h.
    pub numeric: Array2<f64>,
    /// Their largest relative error.
    pub error: f64,
    /// The largest relative error at every h of `STEPS` (the curve), in `precision`.
    pub curve: Vec<f64>,
    /// The same curve in the other precision (the comparison line).
    pub other_curve: Vec<f64>,
}

fn other(precision: Precision) -> Precision {
    match precision {
        Precision::F64 => Precision::F32,
        Precision::F32 => Precision::F64,
    }
}

/// The softmax's Jacobian at `z`, analytic against numeric at `h` and along `STEPS`.
pub fn check_softmax(z: &[f64], h: f64, precision: Precision) -> Result<Check> {
    if z.is_empty() {
        return Err(ComputeError::Empty { what: "O vetor z" });
    }
    if let Some(i) = z.iter().position(|v| !v.is_finite()) {
        return Err(ComputeError::Invalid(format!("z tem um valor não finito na posição {}.", i + 1)));
    }
    let analytic = softmax_jacobian(z);
    let numeric = softmax_jacobian_numeric(z, h, precision);
    let error = max_relative_error(&analytic, &numeric);
    let curve_in = |p| STEPS.iter().map(|&s| max_relative_error(&analytic, &softmax_jacobian_numeric(z, s, p))).collect();
    Ok(Check { curve: curve_in(precision), other_curve: curve_in(other(precision)), analytic, numeric, error })
}

/// ∂L/∂X of the attention step, analytic against numeric at `h` and along `STEPS`.
pub fn check_attention(step: &AttentionStep, wrt: Wrt, h: f64, precision: Precision) -> Result<Check> {
    step.validate()?;
    let analytic = step.gradients().of(wrt).clone();
    let numeric = step.gradient_numeric(wrt, h, precision);
    let error = max_relative_error(&analytic, &numeric);
    let curve_in = |p| STEPS.iter().map(|&s| max_relative_error(&analytic, &step.gradient_numeric(wrt, s, p))).collect();
    Ok(Check { curve: curve_in(precision), other_curve: curve_in(other(precision)), analytic, numeric, error })
}

/// The widget's default attention step: the textbook's Example 2 (Q, K, V of its three
/// tokens) and a G with both signs, so that no gradient is zero by symmetry.
pub fn example_step() -> AttentionStep {
    let m = |rows: [[f64; 3]; 3]| Array2::from_shape_fn((3, 3), |(r, c)| rows[r][c]);
    AttentionStep {
        q: m([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.5, 0.7, 0.9]]),
        k: m([[0.9, 0.8, 0.7], [0.6, 0.5, 0.4], [1.5, 1.3, 1.1]]),
        v: m([[0.2, 0.4, 0.6], [0.1, 0.3, 0.5], [0.3, 0.7, 1.1]]),
        g: m([[1.0, -0.5, 0.0], [0.0, 1.0, -1.0], [0.5, 0.0, 1.0]]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn random(rng: &mut Rng, rows: usize, cols: usize) -> Array2<f64> {
        Array2::from_shape_fn((rows, cols), |_| rng.uniform(-1.5, 1.5) as f64)
    }

    fn random_step(rng: &mut Rng) -> AttentionStep {
        let t = 1 + rng.below(4) as usize;
        let t_k = 1 + rng.below(4) as usize;
        let d_k = 1 + rng.below(4) as usize;
        let d_v = 1 + rng.below(3) as usize;
        AttentionStep { q: random(rng, t, d_k), k: random(rng, t_k, d_k), v: random(rng, t_k, d_v), g: random(rng, t, d_v) }
    }

    /// The page's Jacobian agrees with central differences to ~1e-6 relative, on random z.
    #[test]
    fn softmax_jacobian_matches_finite_differences() {
        let mut rng = Rng::new(22);
        for _ in 0..100 {
            let n = 1 + rng.below(6) as usize;
            let z: Vec<f64> = (0..n).map(|_| rng.uniform(-4.0, 4.0) as f64).collect();
            let check = check_softmax(&z, 1e-4, Precision::F64).unwrap();
            assert!(check.error < 1e-6, "z = {z:?}: {:e}", check.error);
            // Each column sums to 0 (the weights always sum to 1), in both.
            for j in 0..n {
                assert!(check.analytic.column(j).sum().abs() < 1e-12);
            }
        }
    }

    /// ∂L/∂Q, ∂L/∂K, ∂L/∂V by the chain rule agree with central differences to ~1e-6
    /// relative, on random shapes and inputs.
    #[test]
    fn attention_gradients_match_finite_differences() {
        let mut rng = Rng::new(7);
        for _ in 0..100 {
            let step = random_step(&mut rng);
            let analytic = step.gradients();
            let numeric = step.gradients_numeric(1e-4, Precision::F64);
            for wrt in [Wrt::Q, Wrt::K, Wrt::V] {
                let error = max_relative_error(analytic.of(wrt), numeric.of(wrt));
                assert!(error < 1e-6, "{wrt:?} {:?}: {error:e}", step.q.dim());
            }
        }
    }

    /// The forward pass is the textbook's Example 2 (its second row: 0,3035, 0,2340, 0,4625
    /// and [0,2228; 0,5154; 0,8079], ../shared/spec/4-transformer.md).
    #[test]
    fn example_step_is_example_2() {
        let (a, o) = example_step().forward();
        for (got, want) in a.row(1).iter().zip([0.3035, 0.2340, 0.4625]) {
            assert!((got - want).abs() < 1e-4);
        }
        for (got, want) in o.row(1).iter().zip([0.2228, 0.5154, 0.8079]) {
            assert!((got - want).abs() < 1e-4);
        }
        let check = check_attention(&example_step(), Wrt::Q, 1e-4, Precision::F64).unwrap();
        assert!(check.error < 1e-6, "{:e}", check.error);
    }

    /// The page's claim: the error falls with h, then rounding makes it grow again; in f32
    /// (ε ≈ 1e-7) the turn comes much earlier and much higher than in f64.
    #[test]
    fn too_small_a_step_is_worse() {
        let step = example_step();
        let f64_curve = check_attention(&step, Wrt::K, 1e-4, Precision::F64).unwrap().curve;
        let best = f64_curve.iter().copied().fold(f64::INFINITY, f64::min);
        assert!(f64_curve[0] > 100.0 * best, "h = 0,1 is worse than the best: {f64_curve:?}");
        assert!(f64_curve[STEPS.len() - 1] > 100.0 * best, "h = 1e-10 is worse than the best: {f64_curve:?}");
        let f32_check = check_attention(&step, Wrt::K, 1e-4, Precision::F32).unwrap();
        assert!(f32_check.error > 1e-5, "f32 at h = 1e-4: {:e}", f32_check.error);
        assert!(f32_check.curve[STEPS.len() - 1] > 0.1, "f32 at h = 1e-10: {:?}", f32_check.curve);
        assert_eq!(f32_check.other_curve, f64_curve);
    }

    #[test]
    fn bad_inputs_are_explained() {
        let mut step = example_step();
        step.g = Array2::zeros((2, 3));
        assert!(step.validate().unwrap_err().to_string().contains("G precisa ter a forma da saída, 3 × 3"));
        let mut step = example_step();
        step.v[[0, 1]] = f64::NAN;
        assert!(step.validate().unwrap_err().to_string().contains("V tem um valor não finito na linha 1, coluna 2"));
        assert!(check_softmax(&[], 1e-4, Precision::F64).is_err());
        assert!(check_softmax(&[1.0, f64::INFINITY], 1e-4, Precision::F64).is_err());
    }

    /// A zero gradient (V = 0 makes ∂L/∂Q and ∂L/∂K vanish) does not read as a huge error.
    #[test]
    fn zero_gradients_are_not_errors() {
        let mut step = example_step();
        step.v = Array2::zeros((3, 3));
        let check = check_attention(&step, Wrt::Q, 1e-4, Precision::F64).unwrap();
        assert!(check.analytic.iter().all(|v| *v == 0.0));
        assert!(check.error < 1e-6, "{:e}", check.error);
    }
}
