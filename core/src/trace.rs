//! Under the hood: `Traced` wraps any `Executor` and records every op it runs, in order (the
//! op, the shapes it read and wrote, its parameters, how long it took, and its result), so
//! the site can show which kernels a widget's last update ran, time each one, and compare
//! the same job on two backends op by op.
//!
//! The clock is injected (`performance.now()` in the browser, `std::time` or a counter
//! natively): the core knows nothing of the web. On WebGPU each op awaits its own readback,
//! so an op's time is wall time that includes uploading the inputs and reading the result
//! back, not the kernel alone; on the CPU it is the function's own time.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use super::error::{ComputeError, Result};
use super::executor::{BackendKind, Executor, Job};
use super::format::{format_pt, format_pt_short};
use super::matrix::Matrix;
use super::ops::{AttentionOutput, SoftmaxOptions};

/// A clock in milliseconds (any origin): `performance.now()` on the web.
pub type Clock<'a> = &'a dyn Fn() -> f64;

/// The ops of `Executor`, one per method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Matmul,
    MatmulBt,
    Transpose,
    Add,
    Scale,
    SoftmaxRows,
    LayerNorm,
    Relu,
    Gelu,
    Embedding,
    Attention,
}

impl Op {
    pub const ALL: [Op; 11] = [
        Op::Matmul,
        Op::MatmulBt,
        Op::Transpose,
        Op::Add,
        Op::Scale,
        Op::SoftmaxRows,
        Op::LayerNorm,
        Op::Relu,
        Op::Gelu,
        Op::Embedding,
        Op::Attention,
    ];

    /// The `Executor` method's name.
    pub fn name(self) -> &'static str {
        match self {
            Op::Matmul => "matmul",
            Op::MatmulBt => "matmul_bt",
            Op::Transpose => "transpose",
            Op::Add => "add",
            Op::Scale => "scale",
            Op::SoftmaxRows => "softmax_rows",
            Op::LayerNorm => "layer_norm",
            Op::Relu => "relu",
            Op::Gelu => "gelu",
            Op::Embedding => "embedding",
            Op::Attention => "attention",
        }
    }

    /// The CPU twin that runs it on the CPU backend (a function of `core::ops`).
    pub fn cpu_function(self) -> String {
        format!("core::ops::{}", self.name())
    }

    /// What it computes, in one line (shapes as in `core::ops`).
    pub fn contract(self) -> &'static str {
        match self {
            Op::Matmul => "A (m,k) · B (k,n) → (m,n)",
            Op::MatmulBt => "α · A (m,k) · Bᵀ, B (n,k) → (m,n)",
            Op::Transpose => "A (m,n) → Aᵀ (n,m)",
            Op::Add => "A + B, B do mesmo formato ou uma linha repetida",
            Op::Scale => "α · A",
            Op::SoftmaxRows => "softmax de cada linha (máscara causal e temperatura opcionais)",
            Op::LayerNorm => "normaliza cada linha, depois · γ + β",
            Op::Relu => "max(0, x) em cada célula",
            Op::Gelu => "GELU(x) em cada célula",
            Op::Embedding => "tabela (V,d), ids (t) → linhas (t,d)",
            Op::Attention => "softmax(Q Kᵀ/√d_h) V por cabeça, sem projeções",
        }
    }
}

/// The shape of an operand: a matrix, or a list of token ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Matrix(usize, usize),
    Ids(usize),
}

impl Shape {
    fn of(m: &Matrix) -> Shape {
        Shape::Matrix(m.rows(), m.cols())
    }

    /// Rows and columns, for a matrix.
    pub fn matrix(&self) -> Option<(usize, usize)> {
        match *self {
            Shape::Matrix(r, c) => Some((r, c)),
            Shape::Ids(_) => None,
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shape::Matrix(r, c) => write!(f, "{r}×{c}"),
            Shape::Ids(1) => f.write_str("1 id"),
            Shape::Ids(n) => write!(f, "{n} ids"),
        }
    }
}

/// One op as it ran.
#[derive(Clone, Debug)]
pub struct OpRecord {
    pub op: Op,
    /// The part of the job it belongs to (`Executor::stage`), e.g. "bloco 2".
    pub stage: Option<Rc<str>>,
    pub inputs: Vec<Shape>,
    pub outputs: Vec<Shape>,
    /// Its scalar parameters in Portuguese ("α = 0,5774", "causal"); empty if none.
    pub params: String,
    /// Wall time in milliseconds (see the module comment for what it includes).
    pub ms: f64,
    /// What it returned (two matrices for `attention`: output, weights): compared across backends.
    pub results: Vec<Matrix>,
}

/// Every op one job ran on one backend, in order.
#[derive(Clone, Debug)]
pub struct Trace {
    pub backend: BackendKind,
    pub ops: Vec<OpRecord>,
    /// Set when the ops ran as one batch (the GPU-resident decoder: one command buffer, one
    /// readback): the batch's time. The ops' own `ms` are then unknown (NaN).
    pub batched_ms: Option<f64>,
}

impl Trace {
    pub fn new(backend: BackendKind) -> Trace {
        Trace { backend, ops: Vec::new(), batched_ms: None }
    }

    pub fn total_ms(&self) -> f64 {
        self.batched_ms.unwrap_or_else(|| self.ops.iter().map(|o| o.ms).sum())
    }

    /// Consecutive ops of the same stage, in order: (stage, the ops' indices).
    pub fn stages(&self) -> Vec<(Option<Rc<str>>, Vec<usize>)> {
        let mut groups: Vec<(Option<Rc<str>>, Vec<usize>)> = Vec::new();
        for (i, record) in self.ops.iter().enumerate() {
            match groups.last_mut() {
                Some((stage, members)) if *stage == record.stage => members.push(i),
                _ => groups.push((record.stage.clone(), vec![i])),
            }
        }
        groups
    }

    /// Appends the ops of another job of the same update (one update may run several jobs).
    pub fn extend(&mut self, other: Trace) {
        self.ops.extend(other.ops);
    }
}

/// An `Executor` that runs every op on `inner` and records it.
pub struct Traced<'a, E: Executor> {
    inner: &'a E,
    clock: Clock<'a>,
    ops: RefCell<Vec<OpRecord>>,
    stage: RefCell<Option<Rc<str>>>,
}

impl<'a, E: Executor> Traced<'a, E> {
    pub fn new(inner: &'a E, clock: Clock<'a>) -> Self {
        Traced { inner, clock, ops: RefCell::new(Vec::new()), stage: RefCell::new(None) }
    }

    /// The ops recorded so far.
    pub fn finish(self) -> Trace {
        Trace { backend: self.inner.kind(), ops: self.ops.into_inner(), batched_ms: None }
    }

    fn record(&self, op: Op, inputs: Vec<Shape>, params: String, start: f64, results: Vec<Matrix>) {
        let ms = ((self.clock)() - start).max(0.0);
        let outputs = results.iter().map(Shape::of).collect();
        let stage = self.stage.borrow().clone();
        self.ops.borrow_mut().push(OpRecord { op, stage, inputs, outputs, params, ms, results });
    }

    /// Times one op that returns a matrix and records it (a failed op is not recorded).
    async fn matrix_op(
        &self,
        op: Op,
        inputs: Vec<Shape>,
        params: String,
        run: impl std::future::Future<Output = Result<Matrix>>,
    ) -> Result<Matrix> {
        let start = (self.clock)();
        let out = run.await?;
        self.record(op, inputs, params, start, vec![out.clone()]);
        Ok(out)
    }
}

/// "α = 0,5774" with up to four decimals.
pub fn alpha(value: f32) -> String {
    format!("α = {}", format_pt_short(value, 4))
}

fn softmax_params(opts: &SoftmaxOptions) -> String {
    let mut parts = Vec::new();
    if opts.causal {
        parts.push(if opts.causal_offset > 0 { format!("causal, deslocamento {}", opts.causal_offset) } else { "causal".into() });
    }
    if opts.temperature != 1.0 {
        parts.push(format!("T = {}", format_pt_short(opts.temperature, 3)));
    }
    parts.join(", ")
}

impl<E: Executor> Executor for Traced<'_, E> {
    fn kind(&self) -> BackendKind {
        self.inner.kind()
    }

    fn stage(&self, name: &str) {
        *self.stage.borrow_mut() = Some(Rc::from(name));
        self.inner.stage(name);
    }

    async fn matmul(&self, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        self.matrix_op(Op::Matmul, vec![Shape::of(a), Shape::of(b)], String::new(), self.inner.matmul(a, b)).await
    }
    async fn matmul_bt(&self, a: &Matrix, b: &Matrix, alpha_: f32) -> Result<Matrix> {
        self.matrix_op(Op::MatmulBt, vec![Shape::of(a), Shape::of(b)], alpha(alpha_), self.inner.matmul_bt(a, b, alpha_))
            .await
    }
    async fn transpose(&self, a: &Matrix) -> Result<Matrix> {
        self.matrix_op(Op::Transpose, vec![Shape::of(a)], String::new(), self.inner.transpose(a)).await
    }
    async fn add(&self, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        self.matrix_op(Op::Add, vec![Shape::of(a), Shape::of(b)], String::new(), self.inner.add(a, b)).await
    }
    async fn scale(&self, a: &Matrix, alpha_: f32) -> Result<Matrix> {
        self.matrix_op(Op::Scale, vec![Shape::of(a)], alpha(alpha_), self.inner.scale(a, alpha_)).await
    }
    async fn softmax_rows(&self, a: &Matrix, opts: SoftmaxOptions) -> Result<Matrix> {
        self.matrix_op(Op::SoftmaxRows, vec![Shape::of(a)], softmax_params(&opts), self.inner.softmax_rows(a, opts)).await
    }
    async fn layer_norm(&self, x: &Matrix, gamma: &Matrix, beta: &Matrix, eps: f32) -> Result<Matrix> {
        let inputs = vec![Shape::of(x), Shape::of(gamma), Shape::of(beta)];
        self.matrix_op(Op::LayerNorm, inputs, layer_norm_params(eps), self.inner.layer_norm(x, gamma, beta, eps)).await
    }
    async fn relu(&self, a: &Matrix) -> Result<Matrix> {
        self.matrix_op(Op::Relu, vec![Shape::of(a)], String::new(), self.inner.relu(a)).await
    }
    async fn gelu(&self, a: &Matrix) -> Result<Matrix> {
        self.matrix_op(Op::Gelu, vec![Shape::of(a)], String::new(), self.inner.gelu(a)).await
    }
    async fn embedding(&self, table: &Matrix, ids: &[u32]) -> Result<Matrix> {
        let inputs = vec![Shape::of(table), Shape::Ids(ids.len())];
        self.matrix_op(Op::Embedding, inputs, String::new(), self.inner.embedding(table, ids)).await
    }
    async fn attention(
        &self,
        q: &Matrix,
        k: &Matrix,
        v: &Matrix,
        heads: usize,
        causal: bool,
        causal_offset: usize,
    ) -> Result<AttentionOutput> {
        let start = (self.clock)();
        let out = self.inner.attention(q, k, v, heads, causal, causal_offset).await?;
        let inputs = vec![Shape::of(q), Shape::of(k), Shape::of(v)];
        let params = attention_params(heads, causal, causal_offset);
        self.record(Op::Attention, inputs, params, start, vec![out.output.clone(), out.weights.clone()]);
        Ok(out)
    }
}

/// "ε = 1·10⁻⁵".
pub fn layer_norm_params(eps: f32) -> String {
    format!("ε = {}", format_eps(eps))
}

/// "6 cabeças, causal, deslocamento 12".
pub fn attention_params(heads: usize, causal: bool, causal_offset: usize) -> String {
    let mut params = format!("{heads} {}", if heads == 1 { "cabeça" } else { "cabeças" });
    if causal {
        params.push_str(", causal");
        if causal_offset > 0 {
            params.push_str(&format!(", deslocamento {causal_offset}"));
        }
    }
    params
}

/// ε is tiny (1e-5): scientific notation with a decimal comma.
fn format_eps(eps: f32) -> String {
    if eps != 0.0 && eps.abs() < 1e-3 {
        format_scientific(eps)
    } else {
        format_pt_short(eps, 4)
    }
}

/// 1,2·10⁻⁸ style, for differences and tiny parameters.
pub fn format_scientific(value: f32) -> String {
    if value == 0.0 || !value.is_finite() {
        return format_pt(value, 0);
    }
    let mut exponent = value.abs().log10().floor() as i32;
    let mut mantissa = value / 10f32.powi(exponent);
    // 9,999 rounds to 10: write it as 1·10ⁿ⁺¹.
    if (mantissa.abs() * 100.0).round() >= 1000.0 {
        mantissa /= 10.0;
        exponent += 1;
    }
    let superscript: String = exponent
        .to_string()
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            d => ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'][d.to_digit(10).unwrap_or(0) as usize],
        })
        .collect();
    format!("{}·10{superscript}", format_pt_short(mantissa, 2))
}

/// Runs `job` on `e` with every op recorded.
pub async fn run_traced<J: Job, E: Executor>(job: &J, e: &E, clock: Clock<'_>) -> Result<(J::Output, Trace)> {
    let traced = Traced::new(e, clock);
    let out = job.run(&traced).await?;
    Ok((out, traced.finish()))
}

/// How far two runs of the same job on two backends are apart, op by op.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Largest |a − b| over each op's results.
    pub per_op: Vec<f32>,
    /// Largest of them (0 for a job without ops).
    pub max_abs: f32,
    /// The op where it is reached.
    pub worst: Option<usize>,
}

/// |a − b| for one value: equal infinities (a masked −∞ on both sides) differ by 0; NaN on
/// one side only, or a different infinity, by ∞ (never silently 0).
pub fn value_diff(a: f32, b: f32) -> f32 {
    if a == b || (a.is_nan() && b.is_nan()) {
        0.0
    } else if a.is_nan() || b.is_nan() {
        f32::INFINITY
    } else {
        (a - b).abs()
    }
}

/// Compares two traces of the same job. Fails if they did not run the same ops on the same
/// shapes (a job that branched differently on the two backends).
pub fn compare(a: &Trace, b: &Trace) -> Result<Comparison> {
    let mismatch = || ComputeError::Invalid("As duas execuções não rodaram as mesmas operações.".into());
    if a.ops.len() != b.ops.len() {
        return Err(mismatch());
    }
    let mut per_op = Vec::with_capacity(a.ops.len());
    for (x, y) in a.ops.iter().zip(&b.ops) {
        if x.op != y.op || x.inputs != y.inputs || x.outputs != y.outputs {
            return Err(mismatch());
        }
        let diff = x
            .results
            .iter()
            .zip(&y.results)
            .flat_map(|(m, n)| m.as_slice().iter().zip(n.as_slice()).map(|(&p, &q)| value_diff(p, q)))
            .fold(0.0f32, f32::max);
        per_op.push(diff);
    }
    let worst = per_op.iter().enumerate().max_by(|p, q| p.1.total_cmp(q.1)).map(|(i, _)| i);
    let max_abs = worst.map_or(0.0, |i| per_op[i]);
    Ok(Comparison { per_op, max_abs, worst })
}

/// The median of `samples` (the mean of the middle two for an even count); `None` if empty.
pub fn median(samples: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = samples.iter().copied().filter(|s| s.is_finite()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    Some(if sorted.len() % 2 == 0 { (sorted[mid - 1] + sorted[mid]) / 2.0 } else { sorted[mid] })
}

/// One size of the matmul benchmark on one backend.
#[derive(Clone, Debug)]
pub struct MatmulTiming {
    /// Median time of one product over the samples, in ms.
    pub median_ms: f64,
    /// Each sample's time per product, in ms.
    pub samples_ms: Vec<f64>,
    /// Products per sample (small sizes repeat so a sample outlasts the clock's resolution).
    pub repeats: usize,
    /// The product (to compare backends).
    pub product: Matrix,
}

/// Most products one sample may repeat (a 1×1 product on a fast machine).
const MAX_REPEATS: usize = 1000;

/// Times A (n,n) · B (n,n) on `e`. One untimed warm-up run (on a GPU the first compiles the
/// kernel and allocates buffers) also sizes the samples: each repeats the product often
/// enough to last about `min_sample_ms` (browsers round `performance.now()` to 0,1 ms), and
/// the result is the median over `samples` of the time per product.
pub async fn time_matmul<E: Executor>(
    e: &E,
    a: &Matrix,
    b: &Matrix,
    samples: usize,
    min_sample_ms: f64,
    clock: Clock<'_>,
) -> Result<MatmulTiming> {
    let start = clock();
    let mut product = e.matmul(a, b).await?;
    let first = (clock() - start).max(1e-3);
    let repeats = ((min_sample_ms / first).ceil() as usize).clamp(1, MAX_REPEATS);
    let mut samples_ms = Vec::with_capacity(samples.max(1));
    for _ in 0..samples.max(1) {
        let start = clock();
        for _ in 0..repeats {
            product = e.matmul(a, b).await?;
        }
        samples_ms.push((clock() - start).max(0.0) / repeats as f64);
    }
    let median_ms = median(&samples_ms).unwrap_or(0.0);
    Ok(MatmulTiming { median_ms, samples_ms, repeats, product })
}

/// The benchmark's inputs for size n: two n×n matrices of uniform values in [−1, 1), the
/// same for every backend and every visit (seeded).
pub fn matmul_inputs(n: usize) -> (Matrix, Matrix) {
    let mut rng = super::rng::Rng::new(0x5eed_0000 + n as u64);
    (rng.matrix(n, n, -1.0, 1.0), rng.matrix(n, n, -1.0, 1.0))
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::attention::attention_trace;
    use crate::examples::textbook_example_2;
    use crate::executor::{block_on_ready, Cpu};

    thread_local! {
        static NOW: Cell<f64> = const { Cell::new(0.0) };
    }

    /// A clock that advances 1 ms every time it is read: each op takes exactly 1 ms.
    fn ticking() -> f64 {
        NOW.with(|n| {
            n.set(n.get() + 1.0);
            n.get()
        })
    }

    fn traced_example_2(causal: bool) -> (crate::attention::AttentionTrace, Trace) {
        let mut inputs = textbook_example_2();
        inputs.causal = causal;
        block_on_ready(run_traced(&inputs, &Cpu, &ticking)).unwrap()
    }

    #[test]
    fn attention_records_its_ops_in_order_with_shapes_and_params() {
        let (out, trace) = traced_example_2(false);
        let ops: Vec<&str> = trace.ops.iter().map(|r| r.op.name()).collect();
        assert_eq!(ops, ["matmul", "matmul", "matmul", "matmul_bt", "softmax_rows", "matmul"]);
        assert_eq!(trace.backend, BackendKind::Cpu);
        for r in &trace.ops {
            assert_eq!(r.inputs[0], Shape::Matrix(3, 3), "{:?}", r.op);
            assert_eq!(r.outputs, vec![Shape::Matrix(3, 3)]);
            assert_eq!(r.ms, 1.0);
        }
        assert_eq!(trace.ops[3].params, "α = 0,5774");
        assert_eq!(trace.ops[4].params, "");
        assert_eq!(trace.total_ms(), 6.0);
        // Each record holds exactly what the op returned.
        assert_eq!(trace.ops[0].results[0], out.q);
        assert_eq!(trace.ops[3].results[0], out.scores);
        assert_eq!(trace.ops[5].results[0], out.output);
    }

    #[test]
    fn tracing_changes_no_value() {
        let plain = block_on_ready(attention_trace(&Cpu, &textbook_example_2())).unwrap();
        let (traced, _) = traced_example_2(false);
        assert_eq!(plain, traced);
    }

    #[test]
    fn causal_softmax_is_described() {
        let (_, trace) = traced_example_2(true);
        assert_eq!(trace.ops[4].params, "causal");
    }

    #[test]
    fn failed_op_is_not_recorded_and_the_error_passes_through() {
        let traced = Traced::new(&Cpu, &ticking);
        let a = Matrix::zeros(2, 3);
        assert!(block_on_ready(traced.matmul(&a, &a)).is_err());
        assert!(block_on_ready(traced.relu(&a)).is_ok());
        let trace = traced.finish();
        assert_eq!(trace.ops.len(), 1);
        assert_eq!(trace.ops[0].op, Op::Relu);
    }

    /// A job in two named stages, like the decoder's blocks.
    struct Staged;
    impl Job for Staged {
        type Output = Matrix;
        async fn run<E: Executor>(&self, e: &E) -> Result<Matrix> {
            let x = Matrix::from_rows(&[[1.0, -2.0]])?;
            e.stage("bloco 1");
            let x = e.relu(&x).await?;
            let x = e.scale(&x, 2.0).await?;
            e.stage("saída");
            let ids = [0u32, 0];
            let x = e.embedding(&x, &ids).await?;
            e.attention(&x, &x, &x, 2, true, 1).await.map(|o| o.output)
        }
    }

    #[test]
    fn stages_group_consecutive_ops() {
        let (_, trace) = block_on_ready(run_traced(&Staged, &Cpu, &ticking)).unwrap();
        let groups: Vec<(Option<String>, Vec<usize>)> =
            trace.stages().into_iter().map(|(s, i)| (s.map(|s| s.to_string()), i)).collect();
        assert_eq!(groups, vec![(Some("bloco 1".into()), vec![0, 1]), (Some("saída".into()), vec![2, 3])]);
        assert_eq!(trace.ops[1].params, "α = 2");
        assert_eq!(trace.ops[2].inputs, vec![Shape::Matrix(1, 2), Shape::Ids(2)]);
        assert_eq!(trace.ops[2].inputs[1].to_string(), "2 ids");
        // Attention returns two matrices: the output and the weights (h·t_q, t_k).
        assert_eq!(trace.ops[3].outputs, vec![Shape::Matrix(2, 2), Shape::Matrix(4, 2)]);
        assert_eq!(trace.ops[3].params, "2 cabeças, causal, deslocamento 1");
    }

    #[test]
    fn identical_runs_compare_equal_and_a_changed_value_is_found() {
        let (_, a) = traced_example_2(true);
        let (_, mut b) = traced_example_2(true);
        let same = compare(&a, &b).unwrap();
        assert_eq!(same.max_abs, 0.0);
        assert_eq!(same.per_op.len(), 6);
        let mut changed = b.ops[4].results[0].clone();
        changed.set(2, 1, changed.get(2, 1) + 0.25);
        b.ops[4].results[0] = changed;
        let diff = compare(&a, &b).unwrap();
        assert!((diff.max_abs - 0.25).abs() < 1e-6, "{}", diff.max_abs);
        assert_eq!(diff.worst, Some(4));
        assert_eq!(diff.per_op[0], 0.0);
    }

    #[test]
    fn different_op_lists_do_not_compare() {
        let (_, a) = traced_example_2(false);
        let (_, mut b) = traced_example_2(false);
        b.ops.pop();
        assert!(compare(&a, &b).is_err());
        let (_, mut c) = traced_example_2(false);
        c.ops[0].op = Op::Add;
        assert!(compare(&a, &c).is_err());
    }

    #[test]
    fn non_finite_values_compare_honestly() {
        assert_eq!(value_diff(f32::NEG_INFINITY, f32::NEG_INFINITY), 0.0);
        assert_eq!(value_diff(f32::NAN, f32::NAN), 0.0);
        assert_eq!(value_diff(f32::NAN, 1.0), f32::INFINITY);
        assert_eq!(value_diff(f32::INFINITY, f32::NEG_INFINITY), f32::INFINITY);
        assert_eq!(value_diff(1.0, 0.75), 0.25);
    }

    #[test]
    fn scientific_notation_in_portuguese() {
        assert_eq!(format_scientific(1.2e-8), "1,2·10⁻⁸");
        assert_eq!(format_scientific(0.0), "0");
        assert_eq!(format_scientific(2.5e-5), "2,5·10⁻⁵");
        assert_eq!(format_scientific(350.0), "3,5·10²");
        assert_eq!(format_eps(1e-5), "1·10⁻⁵");
        assert_eq!(format_scientific(9.999e-7), "1·10⁻⁶");
    }

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[f64::NAN, 5.0]), Some(5.0));
    }

    #[test]
    fn matmul_timing_warms_up_then_takes_the_median() {
        let (a, b) = matmul_inputs(8);
        assert_eq!(matmul_inputs(8).0, a, "inputs are seeded");
        // The ticking clock says 1 ms between any two readings: the warm-up "took" 1 ms.
        let timing = block_on_ready(time_matmul(&Cpu, &a, &b, 3, 1.0, &ticking)).unwrap();
        assert_eq!((timing.repeats, timing.samples_ms.clone()), (1, vec![1.0, 1.0, 1.0]));
        assert_eq!(timing.median_ms, 1.0);
        assert_eq!(timing.product, crate::ops::matmul(&a, &b).unwrap());
        // Samples of at least 4 ms: 4 products per sample, 0,25 ms each.
        let timing = block_on_ready(time_matmul(&Cpu, &a, &b, 2, 4.0, &ticking)).unwrap();
        assert_eq!((timing.repeats, timing.median_ms), (4, 0.25));
    }

    #[test]
    fn every_op_has_a_distinct_name() {
        let names: std::collections::BTreeSet<&str> = Op::ALL.iter().map(|o| o.name()).collect();
        assert_eq!(names.len(), Op::ALL.len());
        assert_eq!(Op::MatmulBt.cpu_function(), "core::ops::matmul_bt");
    }
}
