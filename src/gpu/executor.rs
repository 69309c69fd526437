//! The GPU as an `Executor`: each op's kernel, its typed parameters and its grid. Shapes are
//! checked on the host by the op table (`core::op::Op::output_dims`), the same rules the CPU
//! applies, before anything is recorded.

use crate::core::error::Result;
use crate::core::executor::{BackendKind, Executor};
use crate::core::op::{Dims, Op, OpKind};
use crate::core::Matrix;

use crate::core::error::ComputeError;
use crate::core::ops::adamw::AdamWStep;
use crate::core::ops::modern;

use super::kernels::{
    AdamWParams, AddParams, AttentionBackwardParams, AttentionParams, CrossEntropyParams, ElementwiseParams, EmbeddingParams, KernelId,
    LayerNormParams, MatmulParams, RepeatKvParams, RopeParams, ScaleParams, SoftmaxParams, SumRowsParams, TransposeParams,
};
use super::tensor::GpuTensor;
use super::{grid_1d, GpuContext};

impl Executor for GpuContext {
    type Tensor = GpuTensor;

    fn kind(&self) -> BackendKind {
        BackendKind::WebGpu
    }

    fn deferred(&self) -> bool {
        true
    }

    fn upload(&self, m: &Matrix) -> Result<GpuTensor> {
        self.upload_values(m.rows(), m.cols(), bytemuck::cast_slice(m.as_slice()))
    }

    fn upload_ids(&self, ids: &[u32]) -> Result<GpuTensor> {
        self.upload_values(1, ids.len(), bytemuck::cast_slice(ids))
    }

    fn dims(&self, t: &GpuTensor) -> Dims {
        (t.rows, t.cols)
    }

    fn apply(&self, op: Op, inputs: &[&GpuTensor]) -> Result<Vec<GpuTensor>> {
        if !cfg!(feature = "training") && op.kind().is_training() {
            return Err(op.kind().not_in_this_build());
        }
        if !op.kind().in_this_build() {
            return Err(crate::core::op::moderna_not_built());
        }
        let dims: Vec<Dims> = inputs.iter().map(|t| (t.rows, t.cols)).collect();
        let out_dims = op.output_dims(&dims)?;
        // A prefix of rows is a view of the same buffer; other rows are copied.
        if let Op::Rows { start, end } = op {
            let a = inputs[0];
            if start == 0 {
                self.note_untimed();
                return Ok(vec![GpuTensor { storage: a.storage.clone(), rows: end, cols: a.cols }]);
            }
            let out = self.alloc(end - start, a.cols)?;
            self.copy_rows(a, start, &out, 0, end - start)?;
            return Ok(vec![out]);
        }
        let outs = out_dims.iter().map(|&(r, c)| self.alloc(r, c)).collect::<Result<Vec<_>>>()?;
        if out_dims.iter().any(|&(r, c)| r * c == 0) {
            // Nothing to compute (and empty buffers cannot be bound): the outputs are empty.
            self.note_untimed();
            return Ok(outs);
        }
        let mut bound: Vec<&GpuTensor> = inputs.to_vec();
        bound.extend(outs.iter());
        let len = |d: Dims| (d.0 * d.1) as u32;
        let a = dims[0];
        match op {
            Op::Matmul | Op::MatmulBt { .. } => {
                let (trans_b, alpha, n) = match op {
                    Op::MatmulBt { alpha } => (1, alpha, dims[1].0),
                    _ => (0, 1.0, dims[1].1),
                };
                let params = MatmulParams { m: a.0 as u32, n: n as u32, k: a.1 as u32, trans_b, alpha, ..Default::default() };
                let (kernel, grid) = KernelId::for_product(a.0, n);
                self.dispatch(kernel, &params, &bound, grid)?;
            }
            Op::Transpose => {
                let params = TransposeParams { m: a.0 as u32, n: a.1 as u32, ..Default::default() };
                self.dispatch(KernelId::Transpose, &params, &bound, super::kernels::grid_tiles(a.0, a.1))?;
            }
            Op::Add => {
                let params = AddParams { len: len(a), b_len: len(dims[1]).max(1), ..Default::default() };
                self.dispatch(KernelId::Add, &params, &bound, grid_1d((len(a) as usize).div_ceil(256)))?;
            }
            Op::Scale { alpha } => {
                let params = ScaleParams { len: len(a), alpha, ..Default::default() };
                self.dispatch(KernelId::Scale, &params, &bound, grid_1d((len(a) as usize).div_ceil(256)))?;
            }
            Op::Relu | Op::Gelu => {
                let kernel = if op == Op::Relu { KernelId::Relu } else { KernelId::Gelu };
                let params = ElementwiseParams { len: len(a), ..Default::default() };
                self.dispatch(kernel, &params, &bound, grid_1d((len(a) as usize).div_ceil(256)))?;
            }
            Op::SoftmaxRows(opts) => {
                let params = SoftmaxParams {
                    rows: a.0 as u32,
                    cols: a.1 as u32,
                    causal: opts.causal as u32,
                    causal_offset: opts.causal_offset as u32,
                    inv_temperature: 1.0 / opts.temperature,
                    ..Default::default()
                };
                match KernelId::for_op(OpKind::SoftmaxRows, Some(a)) {
                    Some(KernelId::SoftmaxSmall) => self.dispatch(KernelId::SoftmaxSmall, &params, &bound, grid_1d(a.0.div_ceil(64)))?,
                    _ => self.dispatch(KernelId::Softmax, &params, &bound, grid_1d(a.0))?,
                }
            }
            Op::LayerNorm { eps } => {
                let params = LayerNormParams { rows: a.0 as u32, cols: a.1 as u32, eps, ..Default::default() };
                self.dispatch(KernelId::LayerNorm, &params, &bound, grid_1d(a.0))?;
            }
            Op::Embedding => {
                let (t, d) = out_dims[0];
                let params = EmbeddingParams { tokens: t as u32, width: d as u32, vocab: a.0 as u32, ..Default::default() };
                self.dispatch(KernelId::Embedding, &params, &bound, grid_1d((t * d).div_ceil(256)))?;
            }
            Op::Attention { heads, causal, causal_offset } => {
                let (t_q, t_k, d) = (a.0, dims[1].0, a.1);
                let params = AttentionParams {
                    t_q: t_q as u32,
                    t_k: t_k as u32,
                    width: d as u32,
                    heads: heads as u32,
                    causal: causal as u32,
                    causal_offset: causal_offset as u32,
                    scale: 1.0 / ((d / heads) as f32).sqrt(),
                    sequences: 1,
                };
                self.dispatch(KernelId::Attention, &params, &bound, grid_1d(t_q * heads))?;
            }
            Op::AttentionBatch { heads, sequences } => {
                // The decoder's kernel with B sequences stacked in the rows.
                let (t, d) = (a.0 / sequences, a.1);
                let params = AttentionParams {
                    t_q: t as u32,
                    t_k: t as u32,
                    width: d as u32,
                    heads: heads as u32,
                    causal: 1,
                    causal_offset: 0,
                    scale: 1.0 / ((d / heads) as f32).sqrt(),
                    sequences: sequences as u32,
                };
                self.dispatch(KernelId::Attention, &params, &bound, grid_1d(sequences * t * heads))?;
            }
            Op::MatmulAt => {
                // The products' kernels reading A transposed: no transpose pass.
                let (m, n) = out_dims[0];
                let params = MatmulParams { m: m as u32, n: n as u32, k: a.0 as u32, alpha: 1.0, trans_a: 1, ..Default::default() };
                let (kernel, grid) = KernelId::for_product(m, n);
                self.dispatch(kernel, &params, &bound, grid)?;
            }
            Op::SumRows => self.sum_rows_into(inputs[0], &outs[0], 1.0)?,
            Op::ReluBackward | Op::GeluBackward => {
                let kernel = if op == Op::ReluBackward { KernelId::ReluBackward } else { KernelId::GeluBackward };
                let params = ElementwiseParams { len: len(a), ..Default::default() };
                self.dispatch(kernel, &params, &bound, grid_1d((len(a) as usize).div_ceil(256)))?;
            }
            Op::LayerNormBackward { eps } => {
                // dX and dY ⊙ x̂ row by row, then the column sums dγ = Σ dY ⊙ x̂ and dβ = Σ dY.
                let (x, gamma, dy) = (inputs[0], inputs[1], inputs[2]);
                let dy_xhat = self.alloc(a.0, a.1)?;
                let params = LayerNormParams { rows: a.0 as u32, cols: a.1 as u32, eps, ..Default::default() };
                self.dispatch(KernelId::LayerNormBackward, &params, &[x, gamma, dy, &outs[0], &dy_xhat], grid_1d(a.0))?;
                self.sum_rows_into(&dy_xhat, &outs[1], 1.0)?;
                self.sum_rows_into(dy, &outs[2], 1.0)?;
                self.merge_last_ops(3);
            }
            Op::EmbeddingBackward { vocab } => {
                let params = EmbeddingParams { tokens: a.0 as u32, width: a.1 as u32, vocab: vocab as u32, ..Default::default() };
                self.dispatch(KernelId::EmbeddingBackward, &params, &bound, grid_1d((vocab * a.1).div_ceil(256)))?;
            }
            Op::AttentionBackward { heads, sequences } => {
                // dQ and dS per (sequence, row, head), then dK, dV per entry from dS.
                let [q, k, v, weights, d_out] = [inputs[0], inputs[1], inputs[2], inputs[3], inputs[4]];
                let (t, d) = (a.0 / sequences, a.1);
                let ds = self.alloc(sequences * heads * t, t)?;
                let params = AttentionBackwardParams {
                    t: t as u32,
                    width: d as u32,
                    heads: heads as u32,
                    sequences: sequences as u32,
                    scale: 1.0 / ((d / heads) as f32).sqrt(),
                    ..Default::default()
                };
                self.dispatch(KernelId::AttentionBackwardQ, &params, &[k, v, weights, d_out, &outs[0], &ds], grid_1d(sequences * t * heads))?;
                self.dispatch(KernelId::AttentionBackwardKv, &params, &[q, weights, d_out, &ds, &outs[1], &outs[2]], grid_1d((a.0 * d).div_ceil(256)))?;
                self.merge_last_ops(2);
            }
            Op::CrossEntropy => {
                // Each row's loss and dlogits, then their mean in row order.
                let row_loss = self.alloc(a.0, 1)?;
                let params = CrossEntropyParams { rows: a.0 as u32, cols: a.1 as u32, ..Default::default() };
                self.dispatch(KernelId::CrossEntropy, &params, &[inputs[0], inputs[1], &row_loss, &outs[1]], grid_1d(a.0))?;
                self.sum_rows_into(&row_loss, &outs[0], 1.0 / a.0 as f32)?;
                self.merge_last_ops(2);
            }
            Op::SumSquares => {
                let params = ElementwiseParams { len: len(dims[1]), ..Default::default() };
                self.dispatch(KernelId::SumSquares, &params, &bound, [1, 1, 1])?;
            }
            Op::Rope { heads, theta, at } | Op::RopeBackward { heads, theta, at } => {
                // The angles' cosines and sines as the CPU computes them, uploaded; one
                // invocation per pair.
                let (t, width) = (a.0 / at.sequences, a.1 / heads);
                let turns = self.upload(&modern::rope_table(at.first, t, width, theta))?;
                let params = RopeParams {
                    rows: a.0 as u32,
                    cols: a.1 as u32,
                    width: width as u32,
                    sequence_rows: t as u32,
                    sign: if matches!(op, Op::Rope { .. }) { 1.0 } else { -1.0 },
                    ..Default::default()
                };
                self.dispatch(KernelId::Rope, &params, &[inputs[0], &turns, &outs[0]], grid_1d((len(a) as usize / 2).div_ceil(256)))?;
            }
            Op::RmsNorm { eps } => {
                let params = LayerNormParams { rows: a.0 as u32, cols: a.1 as u32, eps, ..Default::default() };
                self.dispatch(KernelId::RmsNorm, &params, &bound, grid_1d(a.0))?;
            }
            Op::RmsNormBackward { eps } => {
                // dX and dY ⊙ x·r row by row, then their column sums dγ.
                let (x, gamma, dy) = (inputs[0], inputs[1], inputs[2]);
                let dy_xr = self.alloc(a.0, a.1)?;
                let params = LayerNormParams { rows: a.0 as u32, cols: a.1 as u32, eps, ..Default::default() };
                self.dispatch(KernelId::RmsNormBackward, &params, &[x, gamma, dy, &outs[0], &dy_xr], grid_1d(a.0))?;
                self.sum_rows_into(&dy_xr, &outs[1], 1.0)?;
                self.merge_last_ops(2);
            }
            Op::Swiglu | Op::SwigluBackward => {
                let kernel = if op == Op::Swiglu { KernelId::Swiglu } else { KernelId::SwigluBackward };
                let params = ElementwiseParams { len: len(a), ..Default::default() };
                self.dispatch(kernel, &params, &bound, grid_1d((len(a) as usize).div_ceil(256)))?;
            }
            Op::RepeatKv { heads, kv_heads } | Op::RepeatKvBackward { heads, kv_heads } => {
                // One invocation per output value; the wide side is (rows, heads·d_h).
                let (kernel, wide) = match op {
                    Op::RepeatKv { .. } => (KernelId::RepeatKv, out_dims[0]),
                    _ => (KernelId::RepeatKvBackward, a),
                };
                let params = RepeatKvParams {
                    rows: a.0 as u32,
                    width: (wide.1 / heads) as u32,
                    heads: heads as u32,
                    group: (heads / kv_heads) as u32,
                    ..Default::default()
                };
                self.dispatch(kernel, &params, &bound, grid_1d((len(out_dims[0]) as usize).div_ceil(256)))?;
            }
            Op::Rows { .. } => unreachable!("handled above"),
        }
        Ok(outs)
    }

    fn adamw(
        &self,
        step: AdamWStep,
        theta: &mut GpuTensor,
        m: &mut GpuTensor,
        v: &mut GpuTensor,
        grad: &GpuTensor,
        norm2: &GpuTensor,
    ) -> Result<()> {
        if !cfg!(feature = "training") {
            return Err(OpKind::AdamW.not_in_this_build());
        }
        let dims = (theta.rows, theta.cols);
        for other in [&*m, &*v, grad] {
            if (other.rows, other.cols) != dims {
                return Err(ComputeError::Shape { op: "AdamW", left: dims, right: (other.rows, other.cols) });
            }
        }
        if (norm2.rows, norm2.cols) != (1, 1) {
            return Err(ComputeError::Shape { op: "AdamW: Σ g²", left: (norm2.rows, norm2.cols), right: (1, 1) });
        }
        let len = dims.0 * dims.1;
        if len == 0 {
            self.note_untimed();
            return Ok(());
        }
        let k = step.constants();
        let params = AdamWParams {
            len: len as u32,
            clip: k.clip,
            b1: k.b1,
            one_minus_b1: k.one_minus_b1,
            b2: k.b2,
            one_minus_b2: k.one_minus_b2,
            inv_c1: k.inv_c1,
            inv_c2: k.inv_c2,
            eps: k.eps,
            keep: k.keep,
            lr: k.lr,
            _pad0: 0,
        };
        self.dispatch(KernelId::AdamW, &params, &[grad, norm2, theta, m, v], grid_1d(len.div_ceil(256)))
    }

    fn write_rows(&self, dst: &mut GpuTensor, at: usize, src: &GpuTensor) -> Result<()> {
        crate::core::ops::check_write_rows((dst.rows, dst.cols), at, (src.rows, src.cols))?;
        self.copy_rows(src, 0, dst, at, src.rows)
    }

    async fn read(&self, tensors: &[&GpuTensor]) -> Result<Vec<Matrix>> {
        self.submit_and_read(tensors).await
    }

    fn take_op_times(&self) -> Option<Vec<f64>> {
        self.op_times.borrow_mut().take()
    }
}

impl GpuContext {
    /// Records out (1,n) = α · the column sums of `a` (rows, n).
    fn sum_rows_into(&self, a: &GpuTensor, out: &GpuTensor, alpha: f32) -> Result<()> {
        let params = SumRowsParams { rows: a.rows as u32, cols: a.cols as u32, alpha, ..Default::default() };
        self.dispatch(KernelId::SumRows, &params, &[a, out], grid_1d(a.cols.div_ceil(16)))
    }
}
