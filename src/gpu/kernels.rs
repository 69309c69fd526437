//! The WGSL kernels: one file per op, embedded at build time, compiled lazily on first use.
//!
//! Binding convention shared by every kernel (see each .wgsl file):
//! binding 0 = a 32-byte uniform `Params`, then the inputs (read-only storage),
//! then the outputs (read-write storage).

use crate::core::trace::Op;

/// Every kernel the GPU backend runs, named like its CPU twin in `core::ops`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelId {
    Matmul,
    /// The same product for large shapes, register-blocked (see its .wgsl).
    MatmulBlocked,
    Softmax,
    LayerNorm,
    Relu,
    Gelu,
    Scale,
    Add,
    Transpose,
    Embedding,
    Attention,
}

impl KernelId {
    pub const ALL: [KernelId; 11] = [
        KernelId::Matmul,
        KernelId::MatmulBlocked,
        KernelId::Softmax,
        KernelId::LayerNorm,
        KernelId::Relu,
        KernelId::Gelu,
        KernelId::Scale,
        KernelId::Add,
        KernelId::Transpose,
        KernelId::Embedding,
        KernelId::Attention,
    ];

    /// File stem of the kernel's .wgsl source.
    pub fn name(self) -> &'static str {
        match self {
            KernelId::Matmul => "matmul",
            KernelId::MatmulBlocked => "matmul_blocked",
            KernelId::Softmax => "softmax",
            KernelId::LayerNorm => "layer_norm",
            KernelId::Relu => "relu",
            KernelId::Gelu => "gelu",
            KernelId::Scale => "scale",
            KernelId::Add => "add",
            KernelId::Transpose => "transpose",
            KernelId::Embedding => "embedding",
            KernelId::Attention => "attention",
        }
    }

    /// The kernel that runs an `Executor` op on the GPU (`matmul_bt` is `matmul` with B read
    /// transposed).
    pub fn for_op(op: Op) -> KernelId {
        match op {
            Op::Matmul | Op::MatmulBt => KernelId::Matmul,
            Op::Transpose => KernelId::Transpose,
            Op::Add => KernelId::Add,
            Op::Scale => KernelId::Scale,
            Op::SoftmaxRows => KernelId::Softmax,
            Op::LayerNorm => KernelId::LayerNorm,
            Op::Relu => KernelId::Relu,
            Op::Gelu => KernelId::Gelu,
            Op::Embedding => KernelId::Embedding,
            Op::Attention => KernelId::Attention,
        }
    }

    /// The kernel that ran `op` when its output had `out` rows and columns: products choose by
    /// size (`for_product`), every other op has one kernel. What the "por dentro" panel names.
    pub fn for_op_output(op: Op, out: Option<(usize, usize)>) -> KernelId {
        match (op, out) {
            (Op::Matmul | Op::MatmulBt, Some((m, n))) => KernelId::for_product(m, n).0,
            _ => KernelId::for_op(op),
        }
    }

    /// The kernel for an (m × k) · (k × n) product and its grid: the register-blocked one once
    /// both sides fill its 64 × 64 tiles, the simple tiled one (which the compute page quotes)
    /// for the small products of the articles' examples. Same contract, same CPU twin.
    pub fn for_product(m: usize, n: usize) -> (KernelId, [u32; 3]) {
        if m >= BLOCKED_MIN && n >= BLOCKED_MIN {
            (KernelId::MatmulBlocked, [n.div_ceil(BLOCKED_MIN) as u32, m.div_ceil(BLOCKED_MIN) as u32, 1])
        } else {
            (KernelId::Matmul, super::grid_tiles(m, n))
        }
    }

    /// Where the source lives in the repository.
    pub fn path(self) -> String {
        format!("src/gpu/shaders/{}.wgsl", self.name())
    }

    /// The WGSL source, exactly the file in src/gpu/shaders/.
    pub fn source(self) -> &'static str {
        match self {
            KernelId::Matmul => include_str!("shaders/matmul.wgsl"),
            KernelId::MatmulBlocked => include_str!("shaders/matmul_blocked.wgsl"),
            KernelId::Softmax => include_str!("shaders/softmax.wgsl"),
            KernelId::LayerNorm => include_str!("shaders/layer_norm.wgsl"),
            KernelId::Relu => include_str!("shaders/relu.wgsl"),
            KernelId::Gelu => include_str!("shaders/gelu.wgsl"),
            KernelId::Scale => include_str!("shaders/scale.wgsl"),
            KernelId::Add => include_str!("shaders/add.wgsl"),
            KernelId::Transpose => include_str!("shaders/transpose.wgsl"),
            KernelId::Embedding => include_str!("shaders/embedding.wgsl"),
            KernelId::Attention => include_str!("shaders/attention.wgsl"),
        }
    }

    /// (inputs, outputs) storage bindings after the uniform.
    pub fn bindings(self) -> (usize, usize) {
        match self {
            KernelId::Matmul | KernelId::MatmulBlocked | KernelId::Add | KernelId::Embedding => (2, 1),
            KernelId::LayerNorm => (3, 1),
            KernelId::Attention => (3, 2),
            KernelId::Softmax
            | KernelId::Relu
            | KernelId::Gelu
            | KernelId::Scale
            | KernelId::Transpose => (1, 1),
        }
    }
}

/// Rows and columns of C from which `for_product` picks the register-blocked kernel: the side
/// of its tile (BLOCK in matmul_blocked.wgsl).
pub const BLOCKED_MIN: usize = 64;

/// The 32-byte uniform every kernel reads: eight 4-byte slots, u32 or f32 by position.
#[derive(Clone, Copy, Debug, Default)]
pub struct Params([u32; 8]);

impl Params {
    pub fn new() -> Self {
        Params::default()
    }
    /// Sets slot `i` to an unsigned integer.
    pub fn u(mut self, i: usize, value: u32) -> Self {
        self.0[i] = value;
        self
    }
    /// Sets slot `i` to a float (stored as its bits).
    pub fn f(mut self, i: usize, value: f32) -> Self {
        self.0[i] = value.to_bits();
        self
    }
    pub fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(&self.0)
    }
}

/// Builds the explicit bind-group layout for a kernel from its binding counts.
pub fn bind_group_layout(device: &wgpu::Device, kernel: KernelId) -> wgpu::BindGroupLayout {
    let (inputs, outputs) = kernel.bindings();
    let storage = |binding: u32, read_only: bool| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    };
    let mut entries = vec![wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }];
    entries.extend((0..inputs).map(|i| storage(1 + i as u32, true)));
    entries.extend((0..outputs).map(|i| storage(1 + (inputs + i) as u32, false)));
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(kernel.name()),
        entries: &entries,
    })
}

/// A compiled kernel: its pipeline and the layout its bind groups follow.
pub struct Kernel {
    pub pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
}

impl Kernel {
    pub fn compile(device: &wgpu::Device, id: KernelId) -> Kernel {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(id.name()),
            source: wgpu::ShaderSource::Wgsl(id.source().into()),
        });
        Kernel::from_module(device, id, &module)
    }

    /// A kernel from a module compiled elsewhere, with `id`'s bindings: the GPU benchmark's
    /// candidate matmuls (examples/matmul_candidates), and modules compiled without wgpu's
    /// runtime checks to measure what those cost.
    pub fn from_module(device: &wgpu::Device, id: KernelId, module: &wgpu::ShaderModule) -> Kernel {
        let layout = bind_group_layout(device, id);
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(id.name()),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(id.name()),
            layout: Some(&pipeline_layout),
            module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        Kernel { pipeline, layout }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_sources_are_the_repository_files() {
        for id in KernelId::ALL {
            let file = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/").to_string() + &id.path()).unwrap();
            assert_eq!(id.source(), file, "{}", id.path());
        }
    }

    #[test]
    fn products_name_the_kernel_their_size_runs() {
        assert_eq!(KernelId::for_op_output(Op::Matmul, Some((3, 3))), KernelId::Matmul);
        assert_eq!(KernelId::for_op_output(Op::MatmulBt, Some((BLOCKED_MIN, BLOCKED_MIN))), KernelId::MatmulBlocked);
        assert_eq!(KernelId::for_op_output(Op::Matmul, Some((1, 2048))), KernelId::Matmul);
        assert_eq!(KernelId::for_op_output(Op::SoftmaxRows, Some((512, 512))), KernelId::Softmax);
    }

    #[test]
    fn every_kernel_runs_some_op() {
        for id in KernelId::ALL {
            let runs_an_op = Op::ALL.iter().any(|&op| KernelId::for_op(op) == id);
            assert!(runs_an_op || KernelId::for_product(BLOCKED_MIN, BLOCKED_MIN).0 == id, "{} runs no op", id.name());
        }
    }
}
