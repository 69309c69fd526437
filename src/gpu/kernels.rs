//! The WGSL kernels: one file per op, embedded at build time, compiled lazily on first use.
//!
//! Binding convention shared by every kernel (see each .wgsl file):
//! binding 0 = a uniform `Params` (32 bytes; 48 for AdamW's constants), then the inputs
//! (read-only storage), then the outputs (read-write storage; for AdamW, the tensors it
//! updates in place). Each kernel's `Params` has a typed `#[repr(C)]`
//! twin here (`MatmulParams`, …), checked field by field against the WGSL by a test.

use crate::core::op::OpKind;

/// Every kernel the GPU backend runs, named like its CPU twin in `core::ops`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelId {
    Matmul,
    /// The same product for outputs of one tile or less, without workgroup memory (see its .wgsl).
    MatmulSmall,
    /// The same product for a few rows of C, k split across lanes (see its .wgsl).
    MatmulRows,
    /// The same product for large shapes, register-blocked (see its .wgsl).
    MatmulBlocked,
    Softmax,
    /// The same softmax for rows of at most `SOFTMAX_SMALL_MAX` columns, one invocation a row.
    SoftmaxSmall,
    LayerNorm,
    Relu,
    Gelu,
    Scale,
    Add,
    Transpose,
    Embedding,
    Attention,
    SumRows,
    ReluBackward,
    GeluBackward,
    LayerNormBackward,
    EmbeddingBackward,
    AttentionBackwardQ,
    AttentionBackwardKv,
    CrossEntropy,
    SumSquares,
    AdamW,
}

impl KernelId {
    pub const ALL: [KernelId; 24] = [
        KernelId::Matmul,
        KernelId::MatmulSmall,
        KernelId::MatmulRows,
        KernelId::MatmulBlocked,
        KernelId::Softmax,
        KernelId::SoftmaxSmall,
        KernelId::LayerNorm,
        KernelId::Relu,
        KernelId::Gelu,
        KernelId::Scale,
        KernelId::Add,
        KernelId::Transpose,
        KernelId::Embedding,
        KernelId::Attention,
        KernelId::SumRows,
        KernelId::ReluBackward,
        KernelId::GeluBackward,
        KernelId::LayerNormBackward,
        KernelId::EmbeddingBackward,
        KernelId::AttentionBackwardQ,
        KernelId::AttentionBackwardKv,
        KernelId::CrossEntropy,
        KernelId::SumSquares,
        KernelId::AdamW,
    ];

    /// File stem of the kernel's .wgsl source.
    pub fn name(self) -> &'static str {
        match self {
            KernelId::Matmul => "matmul",
            KernelId::MatmulSmall => "matmul_small",
            KernelId::MatmulRows => "matmul_rows",
            KernelId::MatmulBlocked => "matmul_blocked",
            KernelId::Softmax => "softmax",
            KernelId::SoftmaxSmall => "softmax_small",
            KernelId::LayerNorm => "layer_norm",
            KernelId::Relu => "relu",
            KernelId::Gelu => "gelu",
            KernelId::Scale => "scale",
            KernelId::Add => "add",
            KernelId::Transpose => "transpose",
            KernelId::Embedding => "embedding",
            KernelId::Attention => "attention",
            KernelId::SumRows => "sum_rows",
            KernelId::ReluBackward => "relu_backward",
            KernelId::GeluBackward => "gelu_backward",
            KernelId::LayerNormBackward => "layer_norm_backward",
            KernelId::EmbeddingBackward => "embedding_backward",
            KernelId::AttentionBackwardQ => "attention_backward_q",
            KernelId::AttentionBackwardKv => "attention_backward_kv",
            KernelId::CrossEntropy => "cross_entropy",
            KernelId::SumSquares => "sum_squares",
            KernelId::AdamW => "adamw",
        }
    }

    /// The kernel that runs `op` when its first output has `out` rows and columns: products
    /// choose by size (`for_product`), every other op has one kernel, and the ops that only
    /// move data (`rows`, `write_rows`) have none (a buffer copy or a view).
    pub fn for_op(op: OpKind, out: Option<(usize, usize)>) -> Option<KernelId> {
        Some(match op {
            OpKind::Matmul | OpKind::MatmulBt | OpKind::MatmulAt => match out {
                Some((m, n)) => KernelId::for_product(m, n).0,
                None => KernelId::Matmul,
            },
            OpKind::Transpose => KernelId::Transpose,
            OpKind::Add => KernelId::Add,
            OpKind::Scale => KernelId::Scale,
            OpKind::SoftmaxRows => match out {
                Some((_, cols)) if cols <= SOFTMAX_SMALL_MAX => KernelId::SoftmaxSmall,
                _ => KernelId::Softmax,
            },
            OpKind::LayerNorm => KernelId::LayerNorm,
            OpKind::Relu => KernelId::Relu,
            OpKind::Gelu => KernelId::Gelu,
            OpKind::Embedding => KernelId::Embedding,
            OpKind::Attention | OpKind::AttentionBatch => KernelId::Attention,
            OpKind::SumRows => KernelId::SumRows,
            OpKind::ReluBackward => KernelId::ReluBackward,
            OpKind::GeluBackward => KernelId::GeluBackward,
            OpKind::LayerNormBackward => KernelId::LayerNormBackward,
            OpKind::EmbeddingBackward => KernelId::EmbeddingBackward,
            OpKind::AttentionBackward => KernelId::AttentionBackwardQ,
            OpKind::CrossEntropy => KernelId::CrossEntropy,
            OpKind::SumSquares => KernelId::SumSquares,
            OpKind::AdamW => KernelId::AdamW,
            OpKind::Rows | OpKind::WriteRows => return None,
        })
    }

    /// The kernels an op dispatches after its own (`for_op`), in order: column sums that a
    /// row-parallel kernel cannot do without float atomics (layer norm's dγ, dβ; the mean of
    /// the row losses), and attention's second backward half.
    pub fn then_for(op: OpKind) -> &'static [KernelId] {
        match op {
            OpKind::LayerNormBackward => &[KernelId::SumRows, KernelId::SumRows],
            OpKind::AttentionBackward => &[KernelId::AttentionBackwardKv],
            OpKind::CrossEntropy => &[KernelId::SumRows],
            _ => &[],
        }
    }

    /// The kernel for an (m × k) · (k × n) product and its grid: the register-blocked one once
    /// both sides fill its 64 × 64 tiles; the barrier-free one when C fits one 16 × 16 tile
    /// (the articles' examples), where tiling shares nothing and a software GPU's barriers cost
    /// the most; the k-splitting one for a few rows of C (a decoder's next token), where tiles
    /// would be mostly empty rows; the simple tiled one (which the compute page quotes) in
    /// between. Same contract, same CPU twin.
    pub fn for_product(m: usize, n: usize) -> (KernelId, [u32; 3]) {
        if m >= BLOCKED_MIN && n >= BLOCKED_MIN {
            (KernelId::MatmulBlocked, [n.div_ceil(BLOCKED_MIN) as u32, m.div_ceil(BLOCKED_MIN) as u32, 1])
        } else if m <= SMALL_MAX && n <= SMALL_MAX {
            (KernelId::MatmulSmall, grid_tiles(m, n))
        } else if m <= ROWS_MAX {
            (KernelId::MatmulRows, [n.div_ceil(16) as u32, m as u32, 1])
        } else {
            (KernelId::Matmul, grid_tiles(m, n))
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
            KernelId::MatmulSmall => include_str!("shaders/matmul_small.wgsl"),
            KernelId::MatmulRows => include_str!("shaders/matmul_rows.wgsl"),
            KernelId::MatmulBlocked => include_str!("shaders/matmul_blocked.wgsl"),
            KernelId::Softmax => include_str!("shaders/softmax.wgsl"),
            KernelId::SoftmaxSmall => include_str!("shaders/softmax_small.wgsl"),
            KernelId::LayerNorm => include_str!("shaders/layer_norm.wgsl"),
            KernelId::Relu => include_str!("shaders/relu.wgsl"),
            KernelId::Gelu => include_str!("shaders/gelu.wgsl"),
            KernelId::Scale => include_str!("shaders/scale.wgsl"),
            KernelId::Add => include_str!("shaders/add.wgsl"),
            KernelId::Transpose => include_str!("shaders/transpose.wgsl"),
            KernelId::Embedding => include_str!("shaders/embedding.wgsl"),
            KernelId::Attention => include_str!("shaders/attention.wgsl"),
            KernelId::SumRows => include_str!("shaders/sum_rows.wgsl"),
            KernelId::ReluBackward => include_str!("shaders/relu_backward.wgsl"),
            KernelId::GeluBackward => include_str!("shaders/gelu_backward.wgsl"),
            KernelId::LayerNormBackward => include_str!("shaders/layer_norm_backward.wgsl"),
            KernelId::EmbeddingBackward => include_str!("shaders/embedding_backward.wgsl"),
            KernelId::AttentionBackwardQ => include_str!("shaders/attention_backward_q.wgsl"),
            KernelId::AttentionBackwardKv => include_str!("shaders/attention_backward_kv.wgsl"),
            KernelId::CrossEntropy => include_str!("shaders/cross_entropy.wgsl"),
            KernelId::SumSquares => include_str!("shaders/sum_squares.wgsl"),
            KernelId::AdamW => include_str!("shaders/adamw.wgsl"),
        }
    }

    /// (inputs, outputs) storage bindings after the uniform.
    pub fn bindings(self) -> (usize, usize) {
        match self {
            KernelId::Matmul
            | KernelId::MatmulSmall
            | KernelId::MatmulRows
            | KernelId::MatmulBlocked
            | KernelId::Add
            | KernelId::Embedding
            | KernelId::ReluBackward
            | KernelId::GeluBackward
            | KernelId::EmbeddingBackward
            | KernelId::SumSquares => (2, 1),
            KernelId::LayerNorm => (3, 1),
            KernelId::Attention => (3, 2),
            KernelId::LayerNormBackward => (3, 2),
            KernelId::AttentionBackwardQ | KernelId::AttentionBackwardKv => (4, 2),
            KernelId::CrossEntropy => (2, 2),
            KernelId::AdamW => (2, 3),
            KernelId::SumRows => (1, 1),
            KernelId::Softmax
            | KernelId::SoftmaxSmall
            | KernelId::Relu
            | KernelId::Gelu
            | KernelId::Scale
            | KernelId::Transpose => (1, 1),
        }
    }

    /// The fields of the kernel's `Params`, as its Rust struct declares them (the WGSL struct
    /// must say the same, in the same order: checked by a test).
    pub fn params_fields(self) -> &'static [(&'static str, &'static str)] {
        match self {
            KernelId::Matmul | KernelId::MatmulSmall | KernelId::MatmulRows | KernelId::MatmulBlocked => MatmulParams::FIELDS,
            KernelId::Softmax | KernelId::SoftmaxSmall => SoftmaxParams::FIELDS,
            KernelId::LayerNorm => LayerNormParams::FIELDS,
            KernelId::Relu | KernelId::Gelu => ElementwiseParams::FIELDS,
            KernelId::Scale => ScaleParams::FIELDS,
            KernelId::Add => AddParams::FIELDS,
            KernelId::Transpose => TransposeParams::FIELDS,
            KernelId::Embedding => EmbeddingParams::FIELDS,
            KernelId::Attention => AttentionParams::FIELDS,
            KernelId::SumRows => SumRowsParams::FIELDS,
            KernelId::ReluBackward | KernelId::GeluBackward | KernelId::SumSquares => ElementwiseParams::FIELDS,
            KernelId::LayerNormBackward => LayerNormParams::FIELDS,
            KernelId::EmbeddingBackward => EmbeddingParams::FIELDS,
            KernelId::AttentionBackwardQ | KernelId::AttentionBackwardKv => AttentionBackwardParams::FIELDS,
            KernelId::CrossEntropy => CrossEntropyParams::FIELDS,
            KernelId::AdamW => AdamWParams::FIELDS,
        }
    }
}

/// A 2-D grid of 16×16 tiles covering `rows × cols` outputs.
pub fn grid_tiles(rows: usize, cols: usize) -> [u32; 3] {
    [cols.div_ceil(16).max(1) as u32, rows.div_ceil(16).max(1) as u32, 1]
}

/// Declares a kernel's uniform `Params` as a `#[repr(C)]` struct mirroring its WGSL
/// `struct Params` field for field (padding included, to a multiple of 16 bytes: 32 for all
/// but AdamW's 48), with `FIELDS` for the test that holds the two together.
macro_rules! kernel_params {
    ($(#[$doc:meta])* $name:ident { $($field:ident : $ty:ident),* $(,)? }) => {
        $(#[$doc])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
        pub struct $name {
            $(pub $field: $ty),*
        }
        impl $name {
            /// (name, WGSL type) of each field, in order.
            pub const FIELDS: &'static [(&'static str, &'static str)] = &[$((stringify!($field), stringify!($ty))),*];
        }
    };
}

kernel_params! {
    /// matmul.wgsl, matmul_small.wgsl, matmul_rows.wgsl and matmul_blocked.wgsl: C (m,n) = α · op(A) · op(B): A (m,k), or Aᵀ with A
    /// (k,m) when `trans_a`; B (k,n), or Bᵀ with B (n,k) when `trans_b`.
    MatmulParams { m: u32, n: u32, k: u32, trans_b: u32, alpha: f32, trans_a: u32, _pad1: u32, _pad2: u32 }
}
kernel_params! {
    /// softmax.wgsl (one workgroup per row) and softmax_small.wgsl (one invocation per row).
    SoftmaxParams { rows: u32, cols: u32, causal: u32, causal_offset: u32, inv_temperature: f32, _pad0: u32, _pad1: u32, _pad2: u32 }
}
kernel_params! {
    /// layer_norm.wgsl.
    LayerNormParams { rows: u32, cols: u32, eps: f32, _pad0: u32, _pad1: u32, _pad2: u32, _pad3: u32, _pad4: u32 }
}
kernel_params! {
    /// relu.wgsl and gelu.wgsl: `len` values.
    ElementwiseParams { len: u32, _pad0: u32, _pad1: u32, _pad2: u32, _pad3: u32, _pad4: u32, _pad5: u32, _pad6: u32 }
}
kernel_params! {
    /// scale.wgsl.
    ScaleParams { len: u32, alpha: f32, _pad0: u32, _pad1: u32, _pad2: u32, _pad3: u32, _pad4: u32, _pad5: u32 }
}
kernel_params! {
    /// add.wgsl: `b_len` is `len`, or the row width when B is one broadcast row.
    AddParams { len: u32, b_len: u32, _pad0: u32, _pad1: u32, _pad2: u32, _pad3: u32, _pad4: u32, _pad5: u32 }
}
kernel_params! {
    /// transpose.wgsl: A (m,n).
    TransposeParams { m: u32, n: u32, _pad0: u32, _pad1: u32, _pad2: u32, _pad3: u32, _pad4: u32, _pad5: u32 }
}
kernel_params! {
    /// embedding.wgsl.
    EmbeddingParams { tokens: u32, width: u32, vocab: u32, _pad0: u32, _pad1: u32, _pad2: u32, _pad3: u32, _pad4: u32 }
}
kernel_params! {
    /// attention.wgsl: `scale` = 1/√d_h; `causal_offset` keys cached before the first query;
    /// `sequences` stacked in the rows (1 for the decoder, B for training).
    AttentionParams { t_q: u32, t_k: u32, width: u32, heads: u32, causal: u32, causal_offset: u32, scale: f32, sequences: u32 }
}
kernel_params! {
    /// sum_rows.wgsl: α · the column sums of A (rows, cols).
    SumRowsParams { rows: u32, cols: u32, alpha: f32, _pad0: u32, _pad1: u32, _pad2: u32, _pad3: u32, _pad4: u32 }
}
kernel_params! {
    /// attention_backward_q.wgsl and attention_backward_kv.wgsl: B sequences of t rows, causal.
    AttentionBackwardParams { t: u32, width: u32, heads: u32, sequences: u32, scale: f32, _pad0: u32, _pad1: u32, _pad2: u32 }
}
kernel_params! {
    /// cross_entropy.wgsl: logits (rows, cols).
    CrossEntropyParams { rows: u32, cols: u32, _pad0: u32, _pad1: u32, _pad2: u32, _pad3: u32, _pad4: u32, _pad5: u32 }
}
kernel_params! {
    /// adamw.wgsl: `AdamWConstants` of the step, and the tensor's length.
    AdamWParams {
        len: u32,
        clip: f32,
        b1: f32,
        one_minus_b1: f32,
        b2: f32,
        one_minus_b2: f32,
        inv_c1: f32,
        inv_c2: f32,
        eps: f32,
        keep: f32,
        lr: f32,
        _pad0: u32,
    }
}

/// Rows and columns of C up to which `for_product` picks the barrier-free kernel: one tile of
/// matmul.wgsl (its TILE), so that kernel would run a single workgroup.
pub const SMALL_MAX: usize = 16;

/// Columns up to which a row softmax runs softmax_small.wgsl: one value per invocation of
/// softmax.wgsl's workgroup (its WG), where its barriers buy nothing.
pub const SOFTMAX_SMALL_MAX: usize = 64;

/// Rows of C up to which `for_product` picks the k-splitting kernel (wider than one tile): it
/// reads B once per row, so it suits a handful of rows.
pub const ROWS_MAX: usize = 4;

/// Rows and columns of C from which `for_product` picks the register-blocked kernel: the side
/// of its tile (BLOCK in matmul_blocked.wgsl).
pub const BLOCKED_MIN: usize = 64;

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

    /// `struct Params { name: type, … }` of a WGSL source, comments dropped.
    fn wgsl_params(source: &str) -> Vec<(String, String)> {
        let start = source.find("struct Params {").expect("every kernel declares Params") + "struct Params {".len();
        let body = &source[start..start + source[start..].find('}').expect("closed")];
        body.lines()
            .map(|l| l.split("//").next().unwrap_or("").trim().trim_end_matches(','))
            .filter(|l| !l.is_empty())
            .map(|l| {
                let (name, ty) = l.split_once(':').expect("name: type");
                (name.trim().to_string(), ty.trim().to_string())
            })
            .collect()
    }

    #[test]
    fn every_params_struct_mirrors_its_wgsl_params() {
        for id in KernelId::ALL {
            let rust: Vec<(String, String)> = id.params_fields().iter().map(|(n, t)| (n.to_string(), t.to_string())).collect();
            assert_eq!(rust, wgsl_params(id.source()), "{}: the Rust Params and the WGSL Params differ", id.name());
            let want = if id == KernelId::AdamW { 48 } else { 32 };
            assert_eq!(rust.len() * 4, want, "{}: the uniform is {want} bytes", id.name());
        }
        assert_eq!(std::mem::size_of::<MatmulParams>(), 32);
        assert_eq!(std::mem::size_of::<AdamWParams>(), 48);
        assert_eq!(std::mem::size_of::<AttentionParams>(), 32);
    }

    #[test]
    fn products_name_the_kernel_their_size_runs() {
        assert_eq!(KernelId::for_op(OpKind::Matmul, Some((3, 3))), Some(KernelId::MatmulSmall));
        assert_eq!(KernelId::for_op(OpKind::MatmulAt, Some((SMALL_MAX, SMALL_MAX))), Some(KernelId::MatmulSmall));
        assert_eq!(KernelId::for_op(OpKind::Matmul, Some((SMALL_MAX + 1, 3))), Some(KernelId::Matmul));
        assert_eq!(KernelId::for_op(OpKind::MatmulBt, Some((BLOCKED_MIN, BLOCKED_MIN))), Some(KernelId::MatmulBlocked));
        assert_eq!(KernelId::for_op(OpKind::Matmul, Some((1, 2048))), Some(KernelId::MatmulRows));
        assert_eq!(KernelId::for_op(OpKind::MatmulBt, Some((ROWS_MAX, SMALL_MAX + 1))), Some(KernelId::MatmulRows));
        assert_eq!(KernelId::for_op(OpKind::Matmul, Some((ROWS_MAX + 1, 2048))), Some(KernelId::Matmul));
        assert_eq!(KernelId::for_op(OpKind::SoftmaxRows, Some((512, 512))), Some(KernelId::Softmax));
        assert_eq!(KernelId::for_op(OpKind::SoftmaxRows, Some((512, SOFTMAX_SMALL_MAX))), Some(KernelId::SoftmaxSmall));
        assert_eq!(KernelId::for_op(OpKind::WriteRows, None), None);
    }

    #[test]
    fn every_kernel_runs_some_op() {
        // Outputs small and large enough for each size-dependent choice.
        let sizes = [(1, 1), (1, SMALL_MAX + 1), (SMALL_MAX + 1, SOFTMAX_SMALL_MAX + 1), (BLOCKED_MIN, BLOCKED_MIN)];
        for id in KernelId::ALL {
            let runs_an_op = OpKind::ALL
                .iter()
                .any(|&op| sizes.iter().any(|&out| KernelId::for_op(op, Some(out)) == Some(id)) || KernelId::then_for(op).contains(&id));
            assert!(runs_an_op, "{} runs no op", id.name());
        }
    }
}
