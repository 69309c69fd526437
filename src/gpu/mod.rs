//! The GPU backend: a wgpu device (WebGPU in the browser, Vulkan natively), tensors that stay
//! in GPU buffers, and one WGSL kernel per op, behind the same `Executor` interface as the CPU.
//!
//! Ops are recorded, not run: each `apply` adds a dispatch to the command buffer being
//! recorded (`batch`). A `read` submits that command buffer and brings every requested tensor
//! back in one mapped buffer, so a widget's update is one submission and one readback however
//! many ops it has, and the decoder's weights and KV cache never leave the GPU. Errors are
//! caught with error scopes around each submission and returned as `ComputeError`, so the
//! caller can rerun the job on the CPU.
//!
//! - `tensor`: `GpuTensor` and the buffer pool;
//! - `batch`: recording dispatches and copies, and the submission with its readback;
//! - `executor`: each op's kernel, typed parameters and grid;
//! - `kernels`: the kernels, their sources and their `Params`;
//! - `parity`: every kernel against its CPU twin (native and browser tests).

mod batch;
mod executor;
pub mod kernels;
pub mod parity;
pub mod pool;
#[cfg(target_arch = "wasm32")]
pub mod probe;
pub mod readback;
pub mod tensor;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use crate::core::error::{ComputeError, Result};

pub use kernels::{Kernel, KernelId};
pub use tensor::GpuTensor;
use tensor::Buffers;

/// Workgroups per grid dimension that every WebGPU device supports.
const MAX_GROUPS_PER_DIM: u32 = 65_535;

/// Timestamp queries kept for one submission: two per timed dispatch. Ops past this many in
/// one submission run untimed.
const MAX_QUERIES: u32 = 1024;

/// What the adapter says of itself: enough to tell a software rasteriser apart.
#[derive(Clone, Debug)]
pub struct AdapterFacts {
    /// Its name and backend, as the footer's tooltip shows them.
    pub name: String,
    /// A CPU implementation of WebGPU (SwiftShader, llvmpipe, WARP): correct, but slower than
    /// the site's own CPU path.
    pub software: bool,
}

impl AdapterFacts {
    pub fn of(info: &wgpu::AdapterInfo) -> AdapterFacts {
        AdapterFacts::named(&info.name, &format!("{:?}", info.backend), info.device_type == wgpu::DeviceType::Cpu)
    }

    /// From the adapter's name, its backend's and whether the browser says it is a fallback
    /// (`isFallbackAdapter`): what wgpu and the page's probe (`probe`) both know.
    pub fn named(name: &str, backend: &str, fallback: bool) -> AdapterFacts {
        let shown = if name.is_empty() { "adaptador sem nome" } else { name };
        AdapterFacts { name: format!("{shown} ({backend})"), software: fallback || is_software_name(name) }
    }
}

/// Whether an adapter's name is one of the known software rasterisers' (SwiftShader, llvmpipe,
/// WARP: correct, but slower than the site's own CPU path).
fn is_software_name(name: &str) -> bool {
    // ASCII only: the known names are, and Unicode's case tables would cost the wasm ~5 KB.
    let name = name.to_ascii_lowercase();
    ["swiftshader", "llvmpipe", "lavapipe", "softpipe", "warp", "basic render"].iter().any(|s| name.contains(s))
}

/// Timestamp queries of a device that has them.
struct Timestamps {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    /// Nanoseconds per tick.
    period: f64,
}

pub struct GpuContext {
    device: wgpu::Device,
    queue: wgpu::Queue,
    facts: AdapterFacts,
    kernels: RefCell<HashMap<KernelId, Rc<Kernel>>>,
    buffers: Rc<RefCell<Buffers>>,
    /// The submission being recorded, if any op was applied since the last read.
    batch: RefCell<Option<batch::Batch>>,
    timestamps: Option<Timestamps>,
    /// Whether dispatches are timed now. Off until something shows the times (the "por dentro"
    /// panel): on a software adapter a timestamp pair per dispatch costs about a tenth of a
    /// widget's update.
    timing: Cell<bool>,
    /// Per op of the last submission read back, its device time in ms (NaN: untimed).
    op_times: RefCell<Option<Vec<f64>>>,
    /// Submissions made so far (tests check that an update is one).
    submissions: Cell<usize>,
    /// The device's offset alignment for uniform bindings (dispatches share uniform buffers).
    uniform_alignment: u64,
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
                // Per-op times in the "por dentro" panel where the adapter can measure them.
                required_features: adapter.features() & wgpu::Features::TIMESTAMP_QUERY,
                // The adapter's own limits: bigger storage buffers than the defaults where available.
                required_limits: adapter.limits(),
                ..Default::default()
            })
            .await
            .map_err(|e| GpuUnavailable(format!("o dispositivo não abriu: {e}")))?;
        Ok(GpuContext::from_device(device, queue, AdapterFacts::of(&adapter.get_info())))
    }

    /// Wraps a device the caller opened (tests and the benchmark bring their own).
    pub fn from_device(device: wgpu::Device, queue: wgpu::Queue, facts: AdapterFacts) -> GpuContext {
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
        let timestamps = device.features().contains(wgpu::Features::TIMESTAMP_QUERY).then(|| Timestamps {
            queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("tempos por operação"),
                ty: wgpu::QueryType::Timestamp,
                count: MAX_QUERIES,
            }),
            resolve: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("tempos resolvidos"),
                size: 8 * MAX_QUERIES as u64,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            period: queue.get_timestamp_period() as f64,
        });
        let uniform_alignment = device.limits().min_uniform_buffer_offset_alignment.max(4) as u64;
        GpuContext {
            uniform_alignment,
            device,
            queue,
            facts,
            kernels: RefCell::new(HashMap::new()),
            buffers: Rc::new(RefCell::new(Buffers::default())),
            batch: RefCell::new(None),
            timestamps,
            timing: Cell::new(false),
            op_times: RefCell::new(None),
            submissions: Cell::new(0),
            lost,
        }
    }

    pub fn adapter_name(&self) -> &str {
        &self.facts.name
    }

    pub fn facts(&self) -> &AdapterFacts {
        &self.facts
    }

    /// Whether this device can time each op (timestamp queries).
    pub fn can_time_ops(&self) -> bool {
        self.timestamps.is_some()
    }

    /// Whether ops get their own device times now.
    pub fn times_ops(&self) -> bool {
        self.timestamps.is_some() && self.timing.get()
    }

    /// Times each dispatch from now on (where the device can), or stops.
    pub fn set_op_timing(&self, on: bool) {
        self.timing.set(on);
    }

    /// Submissions made so far.
    pub fn submissions(&self) -> usize {
        self.submissions.get()
    }

    /// `Some(reason)` once the device is gone.
    pub fn lost_reason(&self) -> Option<String> {
        self.lost.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn check_alive(&self) -> Result<()> {
        match self.lost_reason() {
            Some(reason) => Err(ComputeError::DeviceLost(reason)),
            None => Ok(()),
        }
    }

    /// Destroys the device, as a driver reset would (used by the device-loss tests).
    pub fn destroy(&self) {
        self.batch.borrow_mut().take();
        self.buffers.borrow_mut().pool.clear();
        self.device.destroy();
        let mut slot = self.lost.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert_with(|| "dispositivo destruído".into());
    }

    /// Idle pooled buffers (for tests that check memory stays flat).
    pub fn pooled_buffers(&self) -> usize {
        self.buffers.borrow().pool.idle_count()
    }

    /// Bytes held by the idle pooled buffers (the load tests check they stay flat).
    pub fn pooled_bytes(&self) -> u64 {
        self.buffers.borrow().pool.idle_bytes()
    }

    /// The device and queue (the benchmark times kernels on them directly).
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    fn kernel(&self, id: KernelId) -> Rc<Kernel> {
        self.kernels.borrow_mut().entry(id).or_insert_with(|| Rc::new(Kernel::compile(&self.device, id))).clone()
    }
}

/// `groups` workgroups laid out as x (≤ 65,535) by y; shaders flatten them back.
fn grid_1d(groups: usize) -> [u32; 3] {
    let groups = groups.max(1) as u32;
    let x = groups.min(MAX_GROUPS_PER_DIM);
    [x, groups.div_ceil(x), 1]
}
