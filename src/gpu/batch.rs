//! Recording ops into one command buffer, and submitting it with one readback.
//!
//! The first op after a read opens a batch: an encoder and two error scopes (validation and
//! out of memory) that catch everything the batch's commands and kernel compilations raise.
//! Untimed dispatches share one compute pass until a copy or the submission ends it (a pass
//! per dispatch cost a real GPU more than its kernels: see BENCHMARKS.md, "On a real GPU");
//! when ops are timed, each dispatch gets its own pass with timestamp queries, where the
//! device has them. The dispatches' parameters are packed into shared uniform buffers
//! (`Uniforms`): a batch writes one uniform buffer, not one per dispatch. `read` copies every
//! requested tensor (and the timestamps) into one staging buffer, submits, pops the scopes and
//! maps the staging buffer once.
//!
//! No `await` happens between opening a batch and submitting it (ops are synchronous), so
//! two widgets computing at once never interleave their scopes.

use std::num::NonZeroU64;

use crate::core::error::{ComputeError, Result};
use crate::core::Matrix;

use super::kernels::KernelId;
use super::readback;
use super::tensor::{GpuTensor, Owned};
use super::{GpuContext, MAX_QUERIES};

const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE.union(wgpu::BufferUsages::COPY_DST).union(wgpu::BufferUsages::COPY_SRC);

pub(super) struct Batch {
    /// The compute pass the untimed dispatches are recorded into, while it is open. It locks
    /// `encoder` (declared first, so it also ends first when a batch is dropped).
    pass: Option<wgpu::ComputePass<'static>>,
    encoder: wgpu::CommandEncoder,
    /// Pushed in this order: out of memory, then validation (popped in reverse).
    oom: wgpu::ErrorScopeGuard,
    validation: wgpu::ErrorScopeGuard,
    /// The parameters of this batch's dispatches.
    uniforms: Uniforms,
    /// Per op applied (dispatch, copy or view), in order: the timestamp queries of its start
    /// and its end, if timed (an op of several dispatches spans from its first to its last).
    timed: Vec<Option<(u32, u32)>>,
    /// Timestamp queries used so far.
    queries: u32,
}

impl GpuContext {
    /// Runs `record` on the open batch, opening one first if needed.
    fn with_batch<R>(&self, record: impl FnOnce(&mut Batch) -> R) -> R {
        let mut slot = self.batch.borrow_mut();
        let batch = slot.get_or_insert_with(|| {
            let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
            let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
            Batch {
                pass: None,
                encoder: self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("atencao") }),
                oom,
                validation,
                uniforms: Uniforms::default(),
                timed: Vec::new(),
                queries: 0,
            }
        });
        record(batch)
    }

    /// A new tensor of `rows × cols` (its values undefined until written).
    pub(super) fn alloc(&self, rows: usize, cols: usize) -> Result<GpuTensor> {
        self.check_alive()?;
        let bytes = (4 * rows * cols) as u64;
        if bytes > self.device.limits().max_storage_buffer_binding_size {
            return Err(ComputeError::Gpu(format!("uma matriz {rows}×{cols} não cabe num buffer desta GPU")));
        }
        let buffer = self.buffers.borrow_mut().pool.take(&self.device, bytes.max(4), STORAGE);
        Ok(GpuTensor { storage: std::rc::Rc::new(Owned::new(buffer, &self.buffers)), rows, cols })
    }

    /// A tensor holding `values` (written when the next submission goes, before its commands).
    pub(super) fn upload_values(&self, rows: usize, cols: usize, values: &[u8]) -> Result<GpuTensor> {
        let tensor = self.alloc(rows, cols)?;
        if !values.is_empty() {
            self.queue.write_buffer(tensor.buffer(), 0, values);
        }
        Ok(tensor)
    }

    /// Records one dispatch of `kernel` over `tensors` (its inputs, then its outputs).
    pub(super) fn dispatch<P: bytemuck::Pod>(&self, kernel: KernelId, params: &P, tensors: &[&GpuTensor], grid: [u32; 3]) -> Result<()> {
        self.check_alive()?;
        let limit = self.device.limits().max_compute_workgroups_per_dimension;
        if grid.iter().any(|&g| g > limit) {
            return Err(ComputeError::Gpu("a grade de workgroups excede o limite desta GPU".into()));
        }
        let size = std::mem::size_of::<P>() as u64;
        self.with_batch(|batch| {
            // Compiled inside the batch's scopes: a shader the browser rejects is this batch's
            // error, not a lost device.
            let compiled = self.kernel(kernel);
            let (chunk, offset) = batch.uniforms.push(&self.device, &self.buffers, self.uniform_alignment, bytemuck::bytes_of(params));
            let mut entries = vec![wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding { buffer: &batch.uniforms.chunks[chunk].0, offset, size: NonZeroU64::new(size) }),
            }];
            for (i, t) in tensors.iter().enumerate() {
                entries.push(wgpu::BindGroupEntry {
                    binding: 1 + i as u32,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: t.buffer(),
                        offset: 0,
                        size: NonZeroU64::new(t.binding_size()),
                    }),
                });
            }
            let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(kernel.name()),
                layout: &compiled.layout,
                entries: &entries,
            });
            let pair = self.timestamps.as_ref().filter(|_| self.timing.get() && batch.queries + 2 <= MAX_QUERIES).map(|ts| {
                let first = batch.queries;
                batch.queries += 2;
                (ts, first)
            });
            let timestamp_writes = pair.map(|(ts, first)| wgpu::ComputePassTimestampWrites {
                query_set: &ts.queries,
                beginning_of_pass_write_index: Some(first),
                end_of_pass_write_index: Some(first + 1),
            });
            // A timed dispatch gets a pass of its own (its stamps bracket it alone); untimed ones
            // join the open pass.
            let timed = timestamp_writes.is_some();
            if timed {
                batch.pass = None;
            }
            let encoder = &mut batch.encoder;
            let pass = batch.pass.get_or_insert_with(|| {
                let label = Some(if timed { kernel.name() } else { "atencao" });
                encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label, timestamp_writes }).forget_lifetime()
            });
            pass.set_pipeline(&compiled.pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(grid[0], grid[1], grid[2]);
            if timed {
                batch.pass = None;
            }
            batch.timed.push(pair.map(|(_, first)| (first, first + 1)));
        });
        Ok(())
    }

    /// Makes the last `n` dispatches recorded one op for the per-op times (an op of several
    /// kernels): timed from the first one's start to the last one's end, if all were timed.
    pub(super) fn merge_last_ops(&self, n: usize) {
        self.with_batch(|batch| {
            if n < 2 || batch.timed.len() < n {
                return;
            }
            let parts = batch.timed.split_off(batch.timed.len() - n);
            let merged = match (parts.first(), parts.last()) {
                (Some(Some((begin, _))), Some(Some((_, end)))) if parts.iter().all(Option::is_some) => Some((*begin, *end)),
                _ => None,
            };
            batch.timed.push(merged);
        });
    }

    /// Records an op that dispatches nothing (a view, or an empty result).
    pub(super) fn note_untimed(&self) {
        self.with_batch(|batch| batch.timed.push(None));
    }

    /// Records a copy of `rows` rows of `src` from row `from` into `dst` at row `to`.
    pub(super) fn copy_rows(&self, src: &GpuTensor, from: usize, dst: &GpuTensor, to: usize, rows: usize) -> Result<()> {
        self.check_alive()?;
        let row_bytes = (4 * src.cols) as u64;
        self.with_batch(|batch| {
            if rows > 0 && row_bytes > 0 {
                // A copy is no compute command: the open pass ends first.
                batch.pass = None;
                batch.encoder.copy_buffer_to_buffer(src.buffer(), from as u64 * row_bytes, dst.buffer(), to as u64 * row_bytes, rows as u64 * row_bytes);
            }
            batch.timed.push(None);
        });
        Ok(())
    }

    /// Submits everything recorded and reads `tensors` back in one mapped buffer.
    pub(super) async fn submit_and_read(&self, tensors: &[&GpuTensor]) -> Result<Vec<Matrix>> {
        self.check_alive()?;
        // Open a batch even with nothing recorded: the copies below are commands too.
        self.with_batch(|_| ());
        let Some(mut batch) = self.batch.borrow_mut().take() else { unreachable!("opened above") };
        batch.pass = None;
        let mut offsets = Vec::with_capacity(tensors.len());
        let mut total = 0u64;
        for t in tensors {
            offsets.push(total);
            total += t.bytes();
        }
        let timed_bytes = 8 * batch.queries as u64;
        let stamps_at = total.next_multiple_of(8);
        let staging_bytes = (stamps_at + timed_bytes).max(4);
        let staging = self.buffers.borrow_mut().pool.take(&self.device, staging_bytes, wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
        for (t, &at) in tensors.iter().zip(&offsets) {
            if t.bytes() > 0 {
                batch.encoder.copy_buffer_to_buffer(t.buffer(), 0, &staging, at, t.bytes());
            }
        }
        if let (Some(ts), true) = (&self.timestamps, batch.queries > 0) {
            batch.encoder.resolve_query_set(&ts.queries, 0..batch.queries, &ts.resolve, 0);
            batch.encoder.copy_buffer_to_buffer(&ts.resolve, 0, &staging, stamps_at, timed_bytes);
        }
        // The parameters go with this submission: the queue applies its writes before the commands.
        for (chunk, bytes) in &batch.uniforms.chunks {
            self.queue.write_buffer(chunk, 0, bytes);
        }
        self.queue.submit([batch.encoder.finish()]);
        self.submissions.set(self.submissions.get() + 1);
        let validation = batch.validation.pop();
        let oom = batch.oom.pop();
        {
            // Submitted: this batch's uniforms and the buffers freed while recording can be reused.
            let mut buffers = self.buffers.borrow_mut();
            for (chunk, _) in batch.uniforms.chunks.drain(..) {
                buffers.pool.give(chunk);
            }
            buffers.release_quarantine();
        }

        let (done, complete) = readback::map_channel();
        staging.slice(..staging_bytes).map_async(wgpu::MapMode::Read, complete);
        #[cfg(not(target_arch = "wasm32"))]
        self.device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| ComputeError::DeviceLost(e.to_string()))?;
        let mut failure = None;
        let mut values: Vec<Matrix> = Vec::new();
        let mut times = None;
        match done.await {
            Ok(()) => {
                match staging.slice(..staging_bytes).get_mapped_range() {
                    Ok(view) => {
                        for (t, &at) in tensors.iter().zip(&offsets) {
                            let floats = bytemuck::cast_slice::<u8, f32>(&view[at as usize..(at + t.bytes()) as usize]).to_vec();
                            match Matrix::from_vec(t.rows, t.cols, floats) {
                                Ok(m) => values.push(m),
                                Err(e) => failure = Some(e),
                            }
                        }
                        if let (Some(ts), true) = (&self.timestamps, batch.queries > 0) {
                            let stamps: Vec<u64> = view[stamps_at as usize..(stamps_at + timed_bytes) as usize]
                                .chunks_exact(8)
                                .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
                                .collect();
                            times = Some(op_times(&batch.timed, &stamps, ts.period));
                        }
                    }
                    Err(e) => failure = Some(ComputeError::Gpu(e.to_string())),
                }
                staging.unmap();
            }
            Err(e) => failure = Some(ComputeError::DeviceLost(format!("leitura falhou: {e}"))),
        }
        if let Some(error) = validation.await {
            failure = Some(ComputeError::Gpu(error.to_string()));
        }
        if let Some(error) = oom.await {
            failure = Some(ComputeError::Gpu(format!("memória esgotada: {error}")));
        }
        if let Some(reason) = self.lost_reason() {
            failure = Some(ComputeError::DeviceLost(reason));
        }
        if let Some(error) = failure {
            self.buffers.borrow_mut().pool.clear();
            return Err(error);
        }
        self.buffers.borrow_mut().pool.give(staging);
        *self.op_times.borrow_mut() = times;
        Ok(values)
    }
}

/// Bytes of one uniform buffer shared by up to `UNIFORM_CHUNK / alignment` dispatches (256 at
/// WebGPU's default alignment of 256 bytes): a decoder token's 60-odd dispatches share one.
const UNIFORM_CHUNK: u64 = 64 * 1024;

/// The parameters of a batch's dispatches, each at an offset aligned as uniform bindings need,
/// in chunks of `UNIFORM_CHUNK` bytes written once each at submit (one `write_buffer` per
/// chunk instead of one per dispatch, and no buffer per dispatch).
#[derive(Default)]
struct Uniforms {
    /// Each chunk's buffer and the bytes to write into it.
    chunks: Vec<(wgpu::Buffer, Vec<u8>)>,
}

impl Uniforms {
    /// Appends `params` at the next aligned offset; returns its chunk and offset.
    fn push(&mut self, device: &wgpu::Device, buffers: &std::cell::RefCell<super::tensor::Buffers>, alignment: u64, params: &[u8]) -> (usize, u64) {
        let fits = |bytes: &Vec<u8>| (bytes.len() as u64).next_multiple_of(alignment) + params.len() as u64 <= UNIFORM_CHUNK;
        if !self.chunks.last().is_some_and(|(_, bytes)| fits(bytes)) {
            let usage = wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST;
            let buffer = buffers.borrow_mut().pool.take(device, UNIFORM_CHUNK, usage);
            self.chunks.push((buffer, Vec::with_capacity(UNIFORM_CHUNK as usize)));
        }
        let chunk = self.chunks.len() - 1;
        let bytes = &mut self.chunks[chunk].1;
        let offset = (bytes.len() as u64).next_multiple_of(alignment);
        bytes.resize(offset as usize, 0);
        bytes.extend_from_slice(params);
        (chunk, offset)
    }
}

/// Milliseconds per op from its timestamp pair (NaN where untimed or the device wrapped).
fn op_times(timed: &[Option<(u32, u32)>], stamps: &[u64], period_ns: f64) -> Vec<f64> {
    timed
        .iter()
        .map(|pair| match pair {
            Some((first, last)) => {
                let (begin, end) = (stamps.get(*first as usize), stamps.get(*last as usize));
                match (begin, end) {
                    (Some(&b), Some(&e)) if e >= b && b > 0 => (e - b) as f64 * period_ns / 1e6,
                    _ => f64::NAN,
                }
            }
            None => f64::NAN,
        })
        .collect()
}
