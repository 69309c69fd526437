//! The GPU backend: a wgpu device (WebGPU in the browser, Vulkan natively), a buffer pool,
//! and one WGSL kernel per op, behind the same `Executor` interface as the CPU.
//!
//! Every op uploads its inputs, runs one kernel, and reads the result back with
//! `map_async` (awaited, never a blocking wait on the web). Errors are caught with error
//! scopes and returned as `ComputeError`, so callers can rerun the job on the CPU.

pub mod decoder;
pub mod kernels;
pub mod parity;
pub mod pool;
pub mod readback;
pub mod wgsl_highlight;

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use crate::core::error::{ComputeError, Result};
use crate::core::executor::{BackendKind, Executor};
use crate::core::ops::{self, AttentionOutput, SoftmaxOptions};
use crate::core::Matrix;

pub use kernels::{Kernel, KernelId, Params};
use pool::BufferPool;

/// Workgroups per grid dimension that every WebGPU device supports.
const MAX_GROUPS_PER_DIM: u32 = 65_535;

pub struct GpuContext {
    device: wgpu::Device,
    queue: wgpu::Queue,
    adapter_name: String,
    kernels: RefCell<HashMap<KernelId, Rc<Kernel>>>,
    pool: RefCell<BufferPool>,
    /// Set by the device-lost callback (with the reason): from then on every op fails fast.
    lost: Arc<Mutex<Option<String>>>,
}

/// Why no GPU context could be made (shown in the badge's tooltip; the site uses the CPU).
#[derive(Debug, Clone)]
pub struct GpuUnavailable(pub String);

impl std::fmt::Display for GpuUnavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl GpuContext {
    /// Finds an adapter and opens a device. Any failure means "use the CPU".
    pub async fn acquire() -> std::result::Result<GpuContext, GpuUnavailable> {
        #[cfg(target_arch = "wasm32")]
        let instance = wgpu::util::new_instance_with_webgpu_detection(
            wgpu::InstanceDescriptor::new_without_display_handle(),
        )
        .await;
        #[cfg(not(target_arch = "wasm32"))]
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());

        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                compatible_surface: None,
                ..Default::default()
            })
            .await
            .map_err(|e| GpuUnavailable(format!("nenhum adaptador WebGPU: {e}")))?;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("atencao"),
                // The adapter's own limits: bigger storage buffers than the defaults where available.
                required_limits: adapter.limits(),
                ..Default::default()
            })
            .await
            .map_err(|e| GpuUnavailable(format!("o dispositivo não abriu: {e}")))?;
        let info = adapter.get_info();
        Ok(GpuContext::from_device(device, queue, format!("{} ({:?})", info.name, info.backend)))
    }

    /// Wraps a device the caller opened (tests bring their own).
    pub fn from_device(device: wgpu::Device, queue: wgpu::Queue, adapter_name: String) -> GpuContext {
        let lost = Arc::new(Mutex::new(None));
        let flag = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            *flag.lock().unwrap_or_else(|e| e.into_inner()) = Some(format!("{reason:?}: {message}"));
        });
        // Errors outside our error scopes would panic natively and spam the console on the web;
        // they can only come from a device already in trouble, so remember them as a loss.
        let flag = lost.clone();
        device.on_uncaptured_error(Arc::new(move |error| {
            let mut slot = flag.lock().unwrap_or_else(|e| e.into_inner());
            slot.get_or_insert_with(|| format!("erro não capturado: {error}"));
        }));
        GpuContext {
            device,
            queue,
            adapter_name,
            kernels: RefCell::new(HashMap::new()),
            pool: RefCell::new(BufferPool::default()),
            lost,
        }
    }

    pub fn adapter_name(&self) -> &str {
        &self.adapter_name
    }

    /// `Some(reason)` once the device is gone.
    pub fn lost_reason(&self) -> Option<String> {
        self.lost.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Destroys the device, as a driver reset would (used by the device-loss tests).
    pub fn destroy(&self) {
        self.pool.borrow_mut().clear();
        self.device.destroy();
        let mut slot = self.lost.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert_with(|| "dispositivo destruído".into());
    }

    /// Idle pooled buffers (for tests that check memory stays flat).
    pub fn pooled_buffers(&self) -> usize {
        self.pool.borrow().idle_count()
    }

    /// Bytes held by the idle pooled buffers (the load tests check they stay flat).
    pub fn pooled_bytes(&self) -> u64 {
        self.pool.borrow().idle_bytes()
    }

    fn kernel(&self, id: KernelId) -> Rc<Kernel> {
        self.kernels
            .borrow_mut()
            .entry(id)
            .or_insert_with(|| Rc::new(Kernel::compile(&self.device, id)))
            .clone()
    }

    /// Runs `kernel` once on `inputs` (raw bytes, one per input binding) and reads back
    /// `outputs` (f32 counts, one per output binding).
    pub async fn launch(
        &self,
        id: KernelId,
        params: Params,
        inputs: &[&[u8]],
        outputs: &[usize],
        grid: [u32; 3],
    ) -> Result<Vec<Vec<f32>>> {
        if let Some(reason) = self.lost_reason() {
            return Err(ComputeError::DeviceLost(reason));
        }
        if outputs.contains(&0) {
            return Ok(outputs.iter().map(|&n| vec![0.0; n]).collect());
        }
        let limits = self.device.limits();
        let largest = inputs.iter().map(|b| b.len() as u64).chain(outputs.iter().map(|&n| 4 * n as u64)).max();
        if largest.unwrap_or(0) > limits.max_storage_buffer_binding_size {
            return Err(ComputeError::Gpu("os dados não cabem num buffer desta GPU".into()));
        }
        if grid.iter().any(|&g| g > limits.max_compute_workgroups_per_dimension) {
            return Err(ComputeError::Gpu("a grade de workgroups excede o limite desta GPU".into()));
        }

        let oom_scope = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation_scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        // Compiled inside the scopes: a shader the browser rejects is this op's error, not a lost device.
        let kernel = self.kernel(id);

        let storage_in = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST;
        let storage_out = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC;
        let staging_usage = wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST;
        let (uniform, input_bufs, output_bufs, staging_bufs) = {
            let mut pool = self.pool.borrow_mut();
            let uniform = pool.take(&self.device, 32, wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST);
            self.queue.write_buffer(&uniform, 0, params.bytes());
            let input_bufs: Vec<wgpu::Buffer> = inputs
                .iter()
                .map(|bytes| {
                    let buffer = pool.take(&self.device, bytes.len() as u64, storage_in);
                    if !bytes.is_empty() {
                        self.queue.write_buffer(&buffer, 0, bytes);
                    }
                    buffer
                })
                .collect();
            let output_bufs: Vec<wgpu::Buffer> =
                outputs.iter().map(|&n| pool.take(&self.device, 4 * n as u64, storage_out)).collect();
            let staging_bufs: Vec<wgpu::Buffer> =
                outputs.iter().map(|&n| pool.take(&self.device, 4 * n as u64, staging_usage)).collect();
            (uniform, input_bufs, output_bufs, staging_bufs)
        };

        let entries: Vec<wgpu::BindGroupEntry> = std::iter::once(&uniform)
            .chain(input_bufs.iter())
            .chain(output_bufs.iter())
            .enumerate()
            .map(|(i, buffer)| wgpu::BindGroupEntry { binding: i as u32, resource: buffer.as_entire_binding() })
            .collect();
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(id.name()),
            layout: &kernel.layout,
            entries: &entries,
        });
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(id.name()) });
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some(id.name()), timestamp_writes: None });
            pass.set_pipeline(&kernel.pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(grid[0], grid[1], grid[2]);
        }
        for ((out, staging), &n) in output_bufs.iter().zip(&staging_bufs).zip(outputs) {
            encoder.copy_buffer_to_buffer(out, 0, staging, 0, 4 * n as u64);
        }
        self.queue.submit([encoder.finish()]);
        let validation_error = validation_scope.pop();
        let oom_error = oom_scope.pop();

        let maps: Vec<_> = staging_bufs
            .iter()
            .zip(outputs)
            .map(|(staging, &n)| {
                let (done, complete) = readback::map_channel();
                staging.slice(..4 * n as u64).map_async(wgpu::MapMode::Read, complete);
                done
            })
            .collect();
        #[cfg(not(target_arch = "wasm32"))]
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| ComputeError::DeviceLost(e.to_string()))?;
        let mut results = Vec::with_capacity(outputs.len());
        let mut failure = None;
        for ((done, staging), &n) in maps.into_iter().zip(&staging_bufs).zip(outputs) {
            match done.await {
                Ok(()) => {
                    match staging.slice(..4 * n as u64).get_mapped_range() {
                        Ok(view) => results.push(bytemuck::cast_slice::<u8, f32>(&view).to_vec()),
                        Err(e) => failure = Some(ComputeError::Gpu(e.to_string())),
                    }
                    staging.unmap();
                }
                Err(e) => failure = Some(ComputeError::DeviceLost(format!("leitura falhou: {e}"))),
            }
        }
        if let Some(error) = validation_error.await {
            failure = Some(ComputeError::Gpu(error.to_string()));
        }
        if let Some(error) = oom_error.await {
            failure = Some(ComputeError::Gpu(format!("memória esgotada: {error}")));
        }
        if let Some(reason) = self.lost_reason() {
            failure = Some(ComputeError::DeviceLost(reason));
        }
        if let Some(error) = failure {
            self.pool.borrow_mut().clear();
            return Err(error);
        }
        let mut pool = self.pool.borrow_mut();
        for buffer in std::iter::once(uniform).chain(input_bufs).chain(output_bufs).chain(staging_bufs) {
            pool.give(buffer);
        }
        Ok(results)
    }

    async fn launch_one(&self, id: KernelId, params: Params, inputs: &[&[u8]], len: usize, grid: [u32; 3]) -> Result<Vec<f32>> {
        let mut outputs = self.launch(id, params, inputs, &[len], grid).await?;
        Ok(outputs.remove(0))
    }

    async fn elementwise(&self, id: KernelId, a: &Matrix, params: Params) -> Result<Matrix> {
        let len = a.as_slice().len();
        let out = self.launch_one(id, params.u(0, len as u32), &[bytes(a)], len, grid_1d(len.div_ceil(256))).await?;
        Matrix::from_vec(a.rows(), a.cols(), out)
    }
}

fn bytes(m: &Matrix) -> &[u8] {
    bytemuck::cast_slice(m.as_slice())
}

/// `groups` workgroups laid out as x (≤ 65,535) by y; shaders flatten them back.
fn grid_1d(groups: usize) -> [u32; 3] {
    let groups = groups.max(1) as u32;
    let x = groups.min(MAX_GROUPS_PER_DIM);
    [x, groups.div_ceil(x), 1]
}

/// A 2-D grid of 16×16 tiles covering `rows × cols` outputs.
fn grid_tiles(rows: usize, cols: usize) -> [u32; 3] {
    [cols.div_ceil(16).max(1) as u32, rows.div_ceil(16).max(1) as u32, 1]
}

impl Executor for GpuContext {
    fn kind(&self) -> BackendKind {
        BackendKind::WebGpu
    }

    async fn matmul(&self, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        ops::check_matmul(a, b)?;
        let (m, k, n) = (a.rows(), a.cols(), b.cols());
        let params = Params::new().u(0, m as u32).u(1, n as u32).u(2, k as u32).u(3, 0).f(4, 1.0);
        let (kernel, grid) = KernelId::for_product(m, n);
        let out = self.launch_one(kernel, params, &[bytes(a), bytes(b)], m * n, grid).await?;
        Matrix::from_vec(m, n, out)
    }

    async fn matmul_bt(&self, a: &Matrix, b: &Matrix, alpha: f32) -> Result<Matrix> {
        ops::check_matmul_bt(a, b)?;
        let (m, k, n) = (a.rows(), a.cols(), b.rows());
        let params = Params::new().u(0, m as u32).u(1, n as u32).u(2, k as u32).u(3, 1).f(4, alpha);
        let (kernel, grid) = KernelId::for_product(m, n);
        let out = self.launch_one(kernel, params, &[bytes(a), bytes(b)], m * n, grid).await?;
        Matrix::from_vec(m, n, out)
    }

    async fn transpose(&self, a: &Matrix) -> Result<Matrix> {
        let (m, n) = a.shape();
        let params = Params::new().u(0, m as u32).u(1, n as u32);
        let out = self.launch_one(KernelId::Transpose, params, &[bytes(a)], m * n, grid_tiles(m, n)).await?;
        Matrix::from_vec(n, m, out)
    }

    async fn add(&self, a: &Matrix, b: &Matrix) -> Result<Matrix> {
        ops::check_add(a, b)?;
        let len = a.as_slice().len();
        let params = Params::new().u(0, len as u32).u(1, b.as_slice().len().max(1) as u32);
        let out = self.launch_one(KernelId::Add, params, &[bytes(a), bytes(b)], len, grid_1d(len.div_ceil(256))).await?;
        Matrix::from_vec(a.rows(), a.cols(), out)
    }

    async fn scale(&self, a: &Matrix, alpha: f32) -> Result<Matrix> {
        self.elementwise(KernelId::Scale, a, Params::new().f(1, alpha)).await
    }

    async fn softmax_rows(&self, a: &Matrix, opts: SoftmaxOptions) -> Result<Matrix> {
        opts.validate()?;
        let (rows, cols) = a.shape();
        let params = Params::new()
            .u(0, rows as u32)
            .u(1, cols as u32)
            .u(2, opts.causal as u32)
            .u(3, opts.causal_offset as u32)
            .f(4, 1.0 / opts.temperature);
        let out = self.launch_one(KernelId::Softmax, params, &[bytes(a)], rows * cols, grid_1d(rows)).await?;
        Matrix::from_vec(rows, cols, out)
    }

    async fn layer_norm(&self, x: &Matrix, gamma: &Matrix, beta: &Matrix, eps: f32) -> Result<Matrix> {
        ops::check_layer_norm(x, gamma, beta)?;
        let (rows, cols) = x.shape();
        let params = Params::new().u(0, rows as u32).u(1, cols as u32).f(2, eps);
        let inputs = [bytes(x), bytes(gamma), bytes(beta)];
        let out = self.launch_one(KernelId::LayerNorm, params, &inputs, rows * cols, grid_1d(rows)).await?;
        Matrix::from_vec(rows, cols, out)
    }

    async fn relu(&self, a: &Matrix) -> Result<Matrix> {
        self.elementwise(KernelId::Relu, a, Params::new()).await
    }

    async fn gelu(&self, a: &Matrix) -> Result<Matrix> {
        self.elementwise(KernelId::Gelu, a, Params::new()).await
    }

    async fn embedding(&self, table: &Matrix, ids: &[u32]) -> Result<Matrix> {
        ops::check_ids(table, ids)?;
        let (t, d) = (ids.len(), table.cols());
        let params = Params::new().u(0, t as u32).u(1, d as u32).u(2, table.rows() as u32);
        let inputs = [bytes(table), bytemuck::cast_slice(ids)];
        let out = self.launch_one(KernelId::Embedding, params, &inputs, t * d, grid_1d((t * d).div_ceil(256))).await?;
        Matrix::from_vec(t, d, out)
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
        let d_h = ops::check_attention(q, k, v, heads)?;
        let (t_q, t_k, d) = (q.rows(), k.rows(), q.cols());
        let params = Params::new()
            .u(0, t_q as u32)
            .u(1, t_k as u32)
            .u(2, d as u32)
            .u(3, heads as u32)
            .u(4, causal as u32)
            .u(5, causal_offset as u32)
            .f(6, 1.0 / (d_h as f32).sqrt());
        let mut outs = self
            .launch(
                KernelId::Attention,
                params,
                &[bytes(q), bytes(k), bytes(v)],
                &[t_q * d, heads * t_q * t_k],
                grid_1d(t_q * heads),
            )
            .await?;
        let weights = Matrix::from_vec(heads * t_q, t_k, outs.pop().unwrap_or_default())?;
        let output = Matrix::from_vec(t_q, d, outs.pop().unwrap_or_default())?;
        Ok(AttentionOutput { output, weights })
    }
}
