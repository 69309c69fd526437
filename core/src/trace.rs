//! Under the hood: `Traced` wraps any `Executor` and records every op it runs, in order (the
//! op, the shapes it read and wrote, its parameters, how long it took, and, when asked, its
//! results), so the site can show which kernels a widget's last update ran, time each one,
//! and compare the same job on two backends op by op.
//!
//! The clock is injected (`performance.now()` in the browser, `std::time` or a counter
//! natively): the core knows nothing of the web. On the CPU an op's time is the function's
//! own. On a deferred backend (the GPU) ops only record commands; they run when something is
//! read, all in one submission, so the trace keeps each submission's wall time (submit, run,
//! read back) and gives an op its own time only where the device measured it (timestamp
//! queries); elsewhere it is unknown (NaN), never a made-up share.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::rc::Rc;

use super::error::{ComputeError, Result};
use super::executor::{BackendKind, Executor, Job};
use super::matrix::{Dims, Matrix};
use super::op::{Op, OpKind};
use super::ops::adamw::AdamWStep;

pub use super::op::format_scientific;

/// A clock in milliseconds (any origin): `performance.now()` on the web.
pub type Clock<'a> = &'a dyn Fn() -> f64;

/// The shape of an operand: a matrix, or a list of token ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Shape {
    Matrix(usize, usize),
    Ids(usize),
}

impl Shape {
    fn of(d: Dims) -> Shape {
        Shape::Matrix(d.0, d.1)
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

/// One op as it ran (plain data: a trace taken in the page's worker is drawn by the page).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct OpRecord {
    pub op: OpKind,
    /// The part of the job it belongs to (`Executor::stage`), e.g. "bloco 2".
    pub stage: Option<Rc<str>>,
    pub inputs: Vec<Shape>,
    pub outputs: Vec<Shape>,
    /// Its scalar parameters in Portuguese ("α = 0,5774", "causal"); empty if none.
    pub params: String,
    /// Its time in milliseconds: the CPU function's, or the device's own measure on a GPU with
    /// timestamp queries; NaN when not measured (an op inside a GPU submission).
    #[serde(with = "crate::exact_float")]
    pub ms: f64,
    /// What it returned (two matrices for `attention`: output, weights), when the trace was
    /// taken with results (`run_traced_with_results`): compared across backends.
    pub results: Vec<Matrix>,
}

/// Every op one job ran on one backend, in order.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Trace {
    pub backend: BackendKind,
    pub ops: Vec<OpRecord>,
    /// On a deferred backend: the wall time of its submissions (submit, run, read back), in ms.
    #[serde(with = "crate::exact_float::option")]
    pub batched_ms: Option<f64>,
    /// How many submissions (readbacks) the job made on a deferred backend.
    pub submissions: usize,
}

impl Trace {
    pub fn new(backend: BackendKind) -> Trace {
        Trace { backend, ops: Vec::new(), batched_ms: None, submissions: 0 }
    }

    /// The job's compute time: its submissions' on a GPU, its ops' on the CPU.
    pub fn total_ms(&self) -> f64 {
        self.batched_ms.unwrap_or_else(|| self.ops.iter().map(|o| o.ms).filter(|m| m.is_finite()).sum())
    }

    /// Whether every op has its own time (the CPU, or a GPU with timestamp queries).
    pub fn timed_per_op(&self) -> bool {
        self.ops.iter().filter(|o| !o.op.is_copy()).all(|o| o.ms.is_finite())
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

    /// Appends the trace of another job of the same update (one update may run several jobs).
    pub fn extend(&mut self, other: Trace) {
        self.ops.extend(other.ops);
        self.submissions += other.submissions;
        self.batched_ms = match (self.batched_ms, other.batched_ms) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
    }
}

/// An `Executor` that runs every op on `inner` and records it.
pub struct Traced<'a, E: Executor> {
    inner: &'a E,
    clock: Clock<'a>,
    /// Keep every op's outputs, to read them back at the end (`finish_with_results`).
    keep: bool,
    ops: RefCell<Vec<OpRecord>>,
    kept: RefCell<Vec<(usize, Vec<E::Tensor>)>>,
    stage: RefCell<Option<Rc<str>>>,
    /// The first op no read has covered yet (a deferred backend times ops at the read).
    unread_from: Cell<usize>,
    /// When the first op of the submission being recorded was applied.
    batch_started: Cell<Option<f64>>,
    batched_ms: Cell<f64>,
    submissions: Cell<usize>,
}

impl<'a, E: Executor> Traced<'a, E> {
    pub fn new(inner: &'a E, clock: Clock<'a>) -> Self {
        Traced {
            inner,
            clock,
            keep: false,
            ops: RefCell::new(Vec::new()),
            kept: RefCell::new(Vec::new()),
            stage: RefCell::new(None),
            unread_from: Cell::new(0),
            batch_started: Cell::new(None),
            batched_ms: Cell::new(0.0),
            submissions: Cell::new(0),
        }
    }

    /// A tracer that also keeps every op's results (for comparing backends op by op).
    pub fn with_results(inner: &'a E, clock: Clock<'a>) -> Self {
        Traced { keep: true, ..Traced::new(inner, clock) }
    }

    /// The ops recorded so far.
    pub fn finish(self) -> Trace {
        let deferred = self.inner.deferred();
        Trace {
            backend: self.inner.kind(),
            ops: self.ops.into_inner(),
            batched_ms: deferred.then(|| self.batched_ms.get()),
            submissions: self.submissions.get(),
        }
    }

    /// The ops recorded so far with their results, read back in one go.
    pub async fn finish_with_results(self) -> Result<Trace> {
        let kept = self.kept.take();
        let tensors: Vec<&E::Tensor> = kept.iter().flat_map(|(_, outs)| outs.iter()).collect();
        let mut values = self.read(&tensors).await?.into_iter();
        {
            let mut ops = self.ops.borrow_mut();
            for (index, outs) in &kept {
                ops[*index].results = values.by_ref().take(outs.len()).collect();
            }
        }
        Ok(self.finish())
    }

    fn record(&self, op: OpKind, inputs: Vec<Shape>, outputs: Vec<Shape>, params: String, ms: f64) -> usize {
        let stage = self.stage.borrow().clone();
        let mut ops = self.ops.borrow_mut();
        ops.push(OpRecord { op, stage, inputs, outputs, params, ms, results: Vec::new() });
        ops.len() - 1
    }

    /// The clock at the start of an op; starts the submission's clock on a deferred backend.
    fn start(&self) -> f64 {
        let now = (self.clock)();
        if self.inner.deferred() && self.batch_started.get().is_none() {
            self.batch_started.set(Some(now));
        }
        now
    }

    fn elapsed(&self, start: f64) -> f64 {
        if self.inner.deferred() {
            f64::NAN
        } else {
            ((self.clock)() - start).max(0.0)
        }
    }
}

impl<E: Executor> Executor for Traced<'_, E> {
    type Tensor = E::Tensor;

    fn kind(&self) -> BackendKind {
        self.inner.kind()
    }

    fn stage(&self, name: &str) {
        *self.stage.borrow_mut() = Some(Rc::from(name));
        self.inner.stage(name);
    }

    fn deferred(&self) -> bool {
        self.inner.deferred()
    }

    fn upload(&self, m: &Matrix) -> Result<E::Tensor> {
        self.inner.upload(m)
    }

    fn upload_ids(&self, ids: &[u32]) -> Result<E::Tensor> {
        self.inner.upload_ids(ids)
    }

    fn dims(&self, t: &E::Tensor) -> Dims {
        self.inner.dims(t)
    }

    /// Runs the op on `inner` and records it (a failed op is not recorded).
    fn apply(&self, op: Op, inputs: &[&E::Tensor]) -> Result<Vec<E::Tensor>> {
        let start = self.start();
        let outs = self.inner.apply(op, inputs)?;
        let ms = self.elapsed(start);
        let kind = op.kind();
        let shapes = inputs
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let d = self.inner.dims(t);
                if kind == OpKind::Embedding && i == 1 { Shape::Ids(d.1) } else { Shape::of(d) }
            })
            .collect();
        let outputs = outs.iter().map(|t| Shape::of(self.inner.dims(t))).collect();
        let index = self.record(kind, shapes, outputs, op.params_text(), ms);
        if self.keep {
            self.kept.borrow_mut().push((index, outs.clone()));
        }
        Ok(outs)
    }

    fn write_rows(&self, dst: &mut E::Tensor, at: usize, src: &E::Tensor) -> Result<()> {
        let start = self.start();
        let inputs = vec![Shape::of(self.inner.dims(dst)), Shape::of(self.inner.dims(src))];
        self.inner.write_rows(dst, at, src)?;
        let ms = self.elapsed(start);
        self.record(OpKind::WriteRows, inputs, Vec::new(), format!("a partir da linha {}", at + 1), ms);
        Ok(())
    }

    fn adamw(
        &self,
        step: AdamWStep,
        theta: &mut E::Tensor,
        m: &mut E::Tensor,
        v: &mut E::Tensor,
        grad: &E::Tensor,
        norm2: &E::Tensor,
    ) -> Result<()> {
        let start = self.start();
        let inputs = [&*theta, &*m, &*v, grad, norm2].iter().map(|t| Shape::of(self.inner.dims(t))).collect();
        self.inner.adamw(step, theta, m, v, grad, norm2)?;
        let ms = self.elapsed(start);
        let params = format!("passo {}, lr = {}", step.step, format_scientific(step.lr as f32));
        self.record(OpKind::AdamW, inputs, Vec::new(), params, ms);
        Ok(())
    }

    async fn read(&self, tensors: &[&E::Tensor]) -> Result<Vec<Matrix>> {
        let started = self.batch_started.take().unwrap_or_else(|| (self.clock)());
        let values = self.inner.read(tensors).await?;
        if self.inner.deferred() {
            self.batched_ms.set(self.batched_ms.get() + ((self.clock)() - started).max(0.0));
            self.submissions.set(self.submissions.get() + 1);
            let mut ops = self.ops.borrow_mut();
            if let Some(times) = self.inner.take_op_times() {
                for (record, ms) in ops[self.unread_from.get()..].iter_mut().zip(times) {
                    record.ms = ms;
                }
            }
            self.unread_from.set(ops.len());
        }
        Ok(values)
    }

    fn take_op_times(&self) -> Option<Vec<f64>> {
        None
    }
}

/// Runs `job` on `e` with every op recorded.
pub async fn run_traced<J: Job, E: Executor>(job: &J, e: &E, clock: Clock<'_>) -> Result<(J::Output, Trace)> {
    let traced = Traced::new(e, clock);
    let out = job.run(&traced).await?;
    Ok((out, traced.finish()))
}

/// `run_traced`, with every op's results read back too (to compare two backends op by op).
pub async fn run_traced_with_results<J: Job, E: Executor>(job: &J, e: &E, clock: Clock<'_>) -> Result<(J::Output, Trace)> {
    let traced = Traced::with_results(e, clock);
    let out = job.run(&traced).await?;
    Ok((out, traced.finish_with_results().await?))
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
    crate::order::sort_by(&mut sorted, f64::total_cmp);
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

/// Times A (n,n) · B (n,n) on `e`, with both inputs on the backend. One untimed warm-up run
/// (on a GPU the first compiles the kernel and allocates buffers) also sizes the samples:
/// each applies the product often enough to last about `min_sample_ms` (browsers round
/// `performance.now()` to 0,1 ms) and reads the last one back (on a GPU: one submission per
/// sample); the result is the median over `samples` of the time per product.
pub async fn time_matmul<E: Executor>(
    e: &E,
    a: &Matrix,
    b: &Matrix,
    samples: usize,
    min_sample_ms: f64,
    clock: Clock<'_>,
) -> Result<MatmulTiming> {
    let (a, b) = (e.upload(a)?, e.upload(b)?);
    let start = clock();
    let mut product = e.read_one(&e.matmul(&a, &b)?).await?;
    let first = (clock() - start).max(1e-3);
    let repeats = ((min_sample_ms / first).ceil() as usize).clamp(1, MAX_REPEATS);
    let mut samples_ms = Vec::with_capacity(samples.max(1));
    for _ in 0..samples.max(1) {
        let start = clock();
        let mut last = e.matmul(&a, &b)?;
        for _ in 1..repeats {
            last = e.matmul(&a, &b)?;
        }
        product = e.read_one(&last).await?;
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
        block_on_ready(run_traced_with_results(&inputs, &Cpu, &ticking)).unwrap()
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
        assert_eq!((trace.batched_ms, trace.submissions), (None, 0), "the CPU runs ops as they come");
        // Each record holds exactly what the op returned.
        assert_eq!(trace.ops[0].results[0], out.q);
        assert_eq!(trace.ops[3].results[0], out.scores);
        assert_eq!(trace.ops[5].results[0], out.output);
    }

    #[test]
    fn tracing_changes_no_value_and_keeps_no_results_unless_asked() {
        let plain = block_on_ready(attention_trace(&Cpu, &textbook_example_2())).unwrap();
        let (traced, _) = traced_example_2(false);
        assert_eq!(plain, traced);
        let (_, light) = block_on_ready(run_traced(&textbook_example_2(), &Cpu, &ticking)).unwrap();
        assert!(light.ops.iter().all(|r| r.results.is_empty()));
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
        assert!(traced.matmul(&a, &a).is_err());
        assert!(traced.relu(&a).is_ok());
        let trace = traced.finish();
        assert_eq!(trace.ops.len(), 1);
        assert_eq!(trace.ops[0].op, OpKind::Relu);
    }

    /// A job in two named stages, like the decoder's blocks.
    struct Staged;
    impl Job for Staged {
        type Output = Matrix;
        async fn run<E: Executor>(&self, e: &E) -> Result<Matrix> {
            let x = e.upload(&Matrix::from_rows(&[[1.0, -2.0]])?)?;
            e.stage("bloco 1");
            let x = e.relu(&x)?;
            let x = e.scale(&x, 2.0)?;
            e.stage("saída");
            let x = e.embedding(&x, &[0, 0])?;
            let (out, _) = e.attention(&x, &x, &x, 2, true, 1)?;
            e.read_one(&out).await
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

    /// The CPU pretending to defer its ops like a GPU, with device times for every other op.
    struct Deferred;
    impl Executor for Deferred {
        type Tensor = Matrix;
        fn kind(&self) -> BackendKind {
            BackendKind::WebGpu
        }
        fn deferred(&self) -> bool {
            true
        }
        fn upload(&self, m: &Matrix) -> Result<Matrix> {
            Cpu.upload(m)
        }
        fn upload_ids(&self, ids: &[u32]) -> Result<Matrix> {
            Cpu.upload_ids(ids)
        }
        fn dims(&self, t: &Matrix) -> Dims {
            t.shape()
        }
        fn apply(&self, op: Op, inputs: &[&Matrix]) -> Result<Vec<Matrix>> {
            Cpu.apply(op, inputs)
        }
        fn write_rows(&self, dst: &mut Matrix, at: usize, src: &Matrix) -> Result<()> {
            Cpu.write_rows(dst, at, src)
        }
        fn adamw(&self, step: AdamWStep, theta: &mut Matrix, m: &mut Matrix, v: &mut Matrix, grad: &Matrix, norm2: &Matrix) -> Result<()> {
            Cpu.adamw(step, theta, m, v, grad, norm2)
        }
        async fn read(&self, tensors: &[&Matrix]) -> Result<Vec<Matrix>> {
            Cpu.read(tensors).await
        }
        fn take_op_times(&self) -> Option<Vec<f64>> {
            Some(vec![0.5, f64::NAN, 0.25, 0.125])
        }
    }

    #[test]
    fn a_deferred_backend_is_timed_per_submission_and_by_its_own_clock() {
        let (_, trace) = block_on_ready(run_traced(&Staged, &Deferred, &ticking)).unwrap();
        assert_eq!(trace.submissions, 1);
        // The clock ran from the first op (1 reading per op, then the read's): never a share of it per op.
        assert_eq!(trace.batched_ms, Some(4.0));
        assert_eq!(trace.total_ms(), 4.0);
        let times: Vec<f64> = trace.ops.iter().map(|r| r.ms).collect();
        assert_eq!(times[0], 0.5);
        assert!(times[1].is_nan(), "an op the device did not time stays unknown");
        assert_eq!(&times[2..], &[0.25, 0.125]);
        assert!(!trace.timed_per_op());
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
        c.ops[0].op = OpKind::Add;
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
}
