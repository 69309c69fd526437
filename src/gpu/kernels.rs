//! The WGSL kernels, one table: a row per kernel (its file, its `Params`, its bindings, the
//! shared WGSL it is composed with, the ops it runs), from which `KernelId` and every lookup
//! are generated.
//!
//! A kernel's source is its own file in `shaders/`, then its `struct Params` (written here
//! from the Rust struct, so the two cannot differ), then the shared files it names: the
//! workgroup reductions (`shared_reductions.wgsl`), and the bindings and helpers of one
//! contract that several kernels run (`shared_softmax.wgsl`, `shared_matmul.wgsl`,
//! `shared_layer_norm.wgsl`, `shared_rms_norm.wgsl`). WGSL declarations may come in any order, so the kernel's file
//! reads first; it uses `params` and the shared functions without declaring them, and its row
//! says where they come from. Each piece is embedded once, at build time, and `source` joins
//! them when a kernel is compiled or shown: composed with `concat!`, every kernel would carry
//! its own copy of the shared files, about 1 KB more of gzipped wasm, and the site's budget
//! has less than that to spare (scripts/site-size.sh: 719 991 of 720 000 bytes after this).
//!
//! Binding convention shared by every kernel (see each .wgsl file):
//! binding 0 = a uniform `Params` (32 bytes; 48 for AdamW's constants), then the inputs
//! (read-only storage), then the outputs (read-write storage; for AdamW, the tensors it
//! updates in place).

use crate::core::op::OpKind;

/// (rows, columns) of a kernel's first output, which a size-dependent choice reads.
pub type OutDims = (usize, usize);

/// A shared WGSL file, embedded once however many kernels it is composed with.
#[derive(Debug)]
pub struct SharedWgsl {
    /// Its stem in `shaders/`.
    pub name: &'static str,
    pub text: &'static str,
}

/// Declares each shared file as a static: one copy in the binary.
macro_rules! shared_wgsl {
    ($($(#[doc = $doc:literal])* $konst:ident = $file:literal;)*) => {
        $($(#[doc = $doc])* pub static $konst: SharedWgsl = SharedWgsl { name: $file, text: compiled(include_str!(concat!(env!("OUT_DIR"), "/shaders/", $file, ".wgsl"))) };)*
    };
}

shared_wgsl! {
    /// reduce_max, reduce_sum over a workgroup of WG invocations.
    REDUCTIONS = "shared_reductions";
    /// softmax.wgsl's and softmax_small.wgsl's bindings, masking and weights.
    SOFTMAX = "shared_softmax";
    /// The products' bindings and edge-safe loads and stores.
    MATMUL = "shared_matmul";
    /// A row's mean and 1/√(σ² + ε), for layer norm and its backward pass.
    LAYER_NORM = "shared_layer_norm";
    /// A row's 1/√(mean(x²) + ε), for RMSNorm and its backward pass.
    RMS_NORM = "shared_rms_norm";
}

/// One row of the table (kept small: the table is part of the site's wasm).
#[derive(Debug)]
pub struct KernelRow {
    /// File stem of the kernel's .wgsl source, and its name in the "por dentro" panel.
    pub name: &'static str,
    /// The kernel's own file, as in the repository.
    pub file: &'static str,
    /// Its `struct Params`, written from the Rust struct.
    pub params_wgsl: &'static str,
    /// The shared files composed after its `Params`, in order.
    pub shared: &'static [&'static SharedWgsl],
    /// (inputs, outputs) storage bindings after the uniform.
    pub bindings: (u8, u8),
    /// The ops it runs.
    pub runs: &'static [OpKind],
    /// Kernels its ops dispatch after it, in order (see `then_for`).
    pub then: &'static [KernelId],
    /// For an op that several kernels run: the output sizes this one is chosen for. The one
    /// without it is the default.
    pub fits: Option<fn(OutDims) -> bool>,
}

/// Declares a kernel's uniform `Params` as a `#[repr(C)]` struct (padding included, to a
/// multiple of 16 bytes, as a uniform must be: 32 for all but AdamW's 48), with `WGSL`, the
/// WGSL `struct Params` written field for field (a field's one-line doc becomes its comment).
macro_rules! kernel_params {
    ($(#[$doc:meta])* $name:ident { $($(#[doc = $fdoc:literal])* $field:ident : $ty:ident),* $(,)? }) => {
        $(#[$doc])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
        pub struct $name {
            $($(#[doc = $fdoc])* pub $field: $ty),*
        }
        impl $name {
            /// The WGSL struct the kernels declare their uniform with.
            pub const WGSL: &'static str = concat!(
                "struct Params {\n",
                $("    ", stringify!($field), ": ", stringify!($ty), ",\n",)*
                "}\n"
            );
        }
        // Four bytes a field, so WGSL lays the struct out as Rust does; a multiple of 16 bytes.
        const _: () = assert!(
            std::mem::size_of::<$name>() == 4 * [$(stringify!($field)),*].len() && std::mem::size_of::<$name>() % 16 == 0
        );
    };
}

/// Whether this build dispatches kernels: the builds whose widgets compute on the page
/// (`page-compute`: the articles', the models', today's block's) and the worker's (`training`).
/// The page's resident module (the decoder's and the training's drawing: the page's worker
/// computes) only shows them, as the site serves their files (`web::kit::hood`), so it carries
/// none of their text.
pub const COMPILES_KERNELS: bool = cfg!(any(feature = "page-compute", feature = "training"));

/// `text` in a build that compiles kernels, else "" (evaluated at compile time: the dropped
/// text is not in the binary).
const fn compiled(text: &'static str) -> &'static str {
    if COMPILES_KERNELS {
        text
    } else {
        ""
    }
}

/// The kernel's file, or "" in a build without the `training` feature when every op it runs
/// is a training op (`OpKind::is_training`; a kernel that runs none is the second half of a
/// training op's, attention's backward): the page's module then carries only the kernels it
/// can dispatch. Evaluated at compile time, so the dropped text is not in the binary.
const fn page_or_training(runs: &[OpKind], file: &'static str) -> &'static str {
    kept_in_build(runs, compiled(file), cfg!(feature = "training"))
}

const fn kept_in_build(runs: &[OpKind], file: &'static str, training: bool) -> &'static str {
    // Today's block's kernels only where one of their ops runs (`OpKind::in_this_build`: the
    // worker's module, and the forward ones in the modern widgets' build). RoPE's one kernel
    // turns both ways, forward and backward.
    let mut i = 0;
    let mut runs_here = runs.is_empty();
    while i < runs.len() {
        runs_here |= runs[i].in_this_build();
        i += 1;
    }
    if !runs_here {
        return "";
    }
    if training {
        return file;
    }
    let mut i = 0;
    while i < runs.len() {
        if !runs[i].is_training() {
            return file;
        }
        i += 1;
    }
    ""
}

/// Builds `KernelId`, `KernelId::ALL`, `ROWS` and the `Params` structs from one list of rows.
/// A row's `params` names a struct an earlier row declared, or declares it in braces (its
/// doc as `//!` lines inside them).
macro_rules! kernels {
    (@fits) => { None };
    (@fits $fits:expr) => { Some($fits) };
    ($(
        $(#[doc = $doc:literal])*
        $id:ident {
            file: $file:literal,
            bindings: ($inputs:literal, $outputs:literal),
            shared: [$($shared:ident),*],
            runs: [$($op:ident),*]
            $(, then: [$($then:ident),*])?
            $(, when: $fits:expr)?,
            params: $params:ident $({
                $(#![doc = $pdoc:literal])*
                $($(#[doc = $fdoc:literal])* $field:ident : $ty:ident),* $(,)?
            })?
            $(,)?
        }
    ),* $(,)?) => {
        $($(
            kernel_params! {
                $(#[doc = $pdoc])*
                $params { $($(#[doc = $fdoc])* $field: $ty),* }
            }
        )?)*

        /// Every kernel the GPU backend runs, named like its CPU twin in `core::ops`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum KernelId {
            $($(#[doc = $doc])* $id,)*
        }

        const KERNEL_COUNT: usize = [$(stringify!($id)),*].len();

        impl KernelId {
            pub const ALL: [KernelId; KERNEL_COUNT] = [$(KernelId::$id),*];
        }

        /// The table, in `KernelId` order (`KernelId::row` indexes it by discriminant).
        static ROWS: [KernelRow; KERNEL_COUNT] = [$(KernelRow {
            name: $file,
            file: page_or_training(&[$(OpKind::$op),*], include_str!(concat!(env!("OUT_DIR"), "/shaders/", $file, ".wgsl"))),
            params_wgsl: $params::WGSL,
            shared: &[$(&$shared),*],
            bindings: ($inputs, $outputs),
            runs: &[$(OpKind::$op),*],
            then: &[$($(KernelId::$then),*)?],
            fits: kernels!(@fits $($fits)?),
        }),*];
    };
}

kernels! {
    /// The tiled product: the sizes between the others' (the compute page quotes it).
    Matmul {
        file: "matmul", bindings: (2, 1), shared: [MATMUL],
        runs: [Matmul, MatmulBt, MatmulAt],
        params: MatmulParams {
            //! C (m,n) = α · op(A) · op(B): A (m,k), or Aᵀ with A (k,m) when `trans_a`; B (k,n),
            //! or Bᵀ with B (n,k) when `trans_b`.
            m: u32, n: u32, k: u32, trans_b: u32, alpha: f32, trans_a: u32, _pad1: u32, _pad2: u32,
        },
    },
    /// The same product for outputs of one tile or less, without workgroup memory (see its .wgsl).
    MatmulSmall {
        file: "matmul_small", bindings: (2, 1), shared: [MATMUL],
        runs: [Matmul, MatmulBt, MatmulAt], when: |(m, n)| m <= SMALL_MAX && n <= SMALL_MAX,
        params: MatmulParams,
    },
    /// The same product for a few rows of C, k split across lanes (see its .wgsl).
    MatmulRows {
        file: "matmul_rows", bindings: (2, 1), shared: [MATMUL],
        runs: [Matmul, MatmulBt, MatmulAt], when: |(m, _)| m <= ROWS_MAX,
        params: MatmulParams,
    },
    /// The same product for large shapes, register-blocked (see its .wgsl).
    MatmulBlocked {
        file: "matmul_blocked", bindings: (2, 1), shared: [MATMUL],
        runs: [Matmul, MatmulBt, MatmulAt], when: |(m, n)| m >= BLOCKED_MIN && n >= BLOCKED_MIN,
        params: MatmulParams,
    },
    /// One workgroup per row.
    Softmax {
        file: "softmax", bindings: (1, 1), shared: [SOFTMAX, REDUCTIONS],
        runs: [SoftmaxRows],
        params: SoftmaxParams {
            //! A row softmax, one workgroup or one invocation per row.
            rows: u32,
            cols: u32,
            causal: u32,
            /// keys before the first query row (KV cache)
            causal_offset: u32,
            inv_temperature: f32,
            _pad0: u32, _pad1: u32, _pad2: u32,
        },
    },
    /// The same softmax for rows of at most `SOFTMAX_SMALL_MAX` columns, one invocation a row.
    SoftmaxSmall {
        file: "softmax_small", bindings: (1, 1), shared: [SOFTMAX],
        runs: [SoftmaxRows], when: |(_, cols)| cols <= SOFTMAX_SMALL_MAX,
        params: SoftmaxParams,
    },
    LayerNorm {
        file: "layer_norm", bindings: (3, 1), shared: [LAYER_NORM, REDUCTIONS],
        runs: [LayerNorm],
        params: LayerNormParams {
            //! Layer norm, RMSNorm and their backward passes: `rows` rows of `cols` values.
            rows: u32, cols: u32, eps: f32, _pad0: u32, _pad1: u32, _pad2: u32, _pad3: u32, _pad4: u32,
        },
    },
    Relu {
        file: "relu", bindings: (1, 1), shared: [], runs: [Relu],
        params: ElementwiseParams {
            //! Elementwise kernels and the sum of squares: `len` values.
            len: u32, _pad0: u32, _pad1: u32, _pad2: u32, _pad3: u32, _pad4: u32, _pad5: u32, _pad6: u32,
        },
    },
    Gelu { file: "gelu", bindings: (1, 1), shared: [], runs: [Gelu], params: ElementwiseParams },
    Scale {
        file: "scale", bindings: (1, 1), shared: [], runs: [Scale],
        params: ScaleParams {
            //! y = α · x over `len` values.
            len: u32, alpha: f32, _pad0: u32, _pad1: u32, _pad2: u32, _pad3: u32, _pad4: u32, _pad5: u32,
        },
    },
    Add {
        file: "add", bindings: (2, 1), shared: [], runs: [Add],
        params: AddParams {
            //! c = a + b.
            /// elements of a and c
            len: u32,
            /// elements of b: len, or the row width when broadcasting
            b_len: u32,
            _pad0: u32, _pad1: u32, _pad2: u32, _pad3: u32, _pad4: u32, _pad5: u32,
        },
    },
    Transpose {
        file: "transpose", bindings: (1, 1), shared: [], runs: [Transpose],
        params: TransposeParams {
            //! A (m,n).
            m: u32, n: u32, _pad0: u32, _pad1: u32, _pad2: u32, _pad3: u32, _pad4: u32, _pad5: u32,
        },
    },
    Embedding {
        file: "embedding", bindings: (2, 1), shared: [], runs: [Embedding],
        params: EmbeddingParams {
            //! An embedding lookup and its backward pass.
            tokens: u32, width: u32, vocab: u32, _pad0: u32, _pad1: u32, _pad2: u32, _pad3: u32, _pad4: u32,
        },
    },
    /// The decoder's attention (B = 1) and training's over a batch.
    Attention {
        file: "attention", bindings: (3, 2), shared: [REDUCTIONS],
        runs: [Attention, AttentionBatch],
        params: AttentionParams {
            //! Multi-head attention over `sequences` stacked in the rows (1 for the decoder, B
            //! for training).
            t_q: u32,
            t_k: u32,
            /// d
            width: u32,
            /// h; d_h = d / h
            heads: u32,
            causal: u32,
            /// keys cached before the first query row
            causal_offset: u32,
            /// 1/√d_h
            scale: f32,
            /// B
            sequences: u32,
        },
    },
    /// Column sums: its own op, and after the ops that need them (`then`).
    SumRows {
        file: "sum_rows", bindings: (1, 1), shared: [], runs: [SumRows],
        params: SumRowsParams {
            //! α · the column sums of A (rows, cols).
            rows: u32, cols: u32, alpha: f32, _pad0: u32, _pad1: u32, _pad2: u32, _pad3: u32, _pad4: u32,
        },
    },
    ReluBackward { file: "relu_backward", bindings: (2, 1), shared: [], runs: [ReluBackward], params: ElementwiseParams },
    GeluBackward { file: "gelu_backward", bindings: (2, 1), shared: [], runs: [GeluBackward], params: ElementwiseParams },
    /// dX and dY ⊙ x̂ row by row, then the column sums dγ and dβ.
    LayerNormBackward {
        file: "layer_norm_backward", bindings: (3, 2), shared: [LAYER_NORM, REDUCTIONS],
        runs: [LayerNormBackward], then: [SumRows, SumRows],
        params: LayerNormParams,
    },
    EmbeddingBackward {
        file: "embedding_backward", bindings: (2, 1), shared: [], runs: [EmbeddingBackward], params: EmbeddingParams,
    },
    /// Attention's backward pass: dQ and dS, then dK and dV from dS.
    AttentionBackwardQ {
        file: "attention_backward_q", bindings: (4, 2), shared: [REDUCTIONS],
        runs: [AttentionBackward], then: [AttentionBackwardKv],
        params: AttentionBackwardParams {
            //! Causal attention's backward pass over B sequences of t rows.
            /// rows per sequence
            t: u32,
            /// d
            width: u32,
            /// h; d_h = d / h
            heads: u32,
            /// B
            sequences: u32,
            /// 1/√d_h
            scale: f32,
            _pad0: u32, _pad1: u32, _pad2: u32,
        },
    },
    AttentionBackwardKv {
        file: "attention_backward_kv", bindings: (4, 2), shared: [], runs: [], params: AttentionBackwardParams,
    },
    /// Each row's loss and dlogits, then their mean in row order.
    CrossEntropy {
        file: "cross_entropy", bindings: (2, 2), shared: [REDUCTIONS],
        runs: [CrossEntropy], then: [SumRows],
        params: CrossEntropyParams {
            //! Logits (N,V).
            /// N
            rows: u32,
            /// V
            cols: u32,
            _pad0: u32, _pad1: u32, _pad2: u32, _pad3: u32, _pad4: u32, _pad5: u32,
        },
    },
    SumSquares {
        file: "sum_squares", bindings: (2, 1), shared: [REDUCTIONS], runs: [SumSquares], params: ElementwiseParams,
    },
    AdamW {
        file: "adamw", bindings: (2, 3), shared: [], runs: [AdamW],
        params: AdamWParams {
            //! `AdamWConstants` of the step, and the tensor's length.
            len: u32,
            clip: f32,
            b1: f32,
            one_minus_b1: f32,
            b2: f32,
            one_minus_b2: f32,
            /// 1/(1−β₁ᵗ)
            inv_c1: f32,
            /// 1/(1−β₂ᵗ)
            inv_c2: f32,
            eps: f32,
            /// 1 − lr·λ
            keep: f32,
            lr: f32,
            _pad0: u32,
        },
    },
    /// RoPE and its backward pass (the same rotation turned back: `sign` −1).
    Rope {
        file: "rope", bindings: (2, 1), shared: [], runs: [Rope, RopeBackward],
        params: RopeParams {
            //! Q or K (rows, cols), heads of `width` columns, turned in pairs.
            rows: u32,
            cols: u32,
            /// d_h
            width: u32,
            /// t: rows per sequence (B sequences stacked in the rows)
            sequence_rows: u32,
            /// +1 forward, −1 backward
            sign: f32,
            _pad0: u32, _pad1: u32, _pad2: u32,
        },
    },
    RmsNorm { file: "rms_norm", bindings: (2, 1), shared: [RMS_NORM, REDUCTIONS], runs: [RmsNorm], params: LayerNormParams },
    /// dX and dY ⊙ x·r row by row, then the column sums dγ.
    RmsNormBackward {
        file: "rms_norm_backward", bindings: (3, 2), shared: [RMS_NORM, REDUCTIONS],
        runs: [RmsNormBackward], then: [SumRows],
        params: LayerNormParams,
    },
    Swiglu { file: "swiglu", bindings: (2, 1), shared: [], runs: [Swiglu], params: ElementwiseParams },
    SwigluBackward { file: "swiglu_backward", bindings: (3, 2), shared: [], runs: [SwigluBackward], params: ElementwiseParams },
    RepeatKv {
        file: "repeat_kv", bindings: (1, 1), shared: [], runs: [RepeatKv],
        params: RepeatKvParams {
            //! GQA's K and V (rows, heads·width) and their kv_heads = heads / group.
            rows: u32,
            /// d_h
            width: u32,
            /// Q heads
            heads: u32,
            /// Q heads per kv head
            group: u32,
            _pad0: u32, _pad1: u32, _pad2: u32, _pad3: u32,
        },
    },
    RepeatKvBackward { file: "repeat_kv_backward", bindings: (1, 1), shared: [], runs: [RepeatKvBackward], params: RepeatKvParams },
}

impl KernelId {
    /// Its row of the table.
    pub fn row(self) -> &'static KernelRow {
        &ROWS[self as usize]
    }

    /// File stem of the kernel's .wgsl source.
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// Where its own file lives in the repository.
    pub fn path(self) -> String {
        format!("src/gpu/shaders/{}.wgsl", self.name())
    }

    /// The composed WGSL source, exactly what the GPU compiles: its file, then `shared`, all
    /// without comments (the repository's files keep them; the "por dentro" panel shows those).
    pub fn source(self) -> String {
        format!("{}\n{}", self.row().file, self.shared())
    }

    /// What its file is composed with: its `Params`, then the shared files, a newline apart
    /// (what the GPU benchmark composes its candidate products with).
    pub fn shared(self) -> String {
        let row = self.row();
        let mut text = row.params_wgsl.to_string();
        for shared in row.shared {
            text.push('\n');
            text.push_str(shared.text);
        }
        text
    }

    /// (inputs, outputs) storage bindings after the uniform.
    pub fn bindings(self) -> (usize, usize) {
        let (inputs, outputs) = self.row().bindings;
        (inputs.into(), outputs.into())
    }

    /// The kernel that runs `op` when its first output has `out` rows and columns: of the
    /// kernels that run it, the first whose `when` accepts `out`, else the one without a
    /// `when`; the ops that only move data (`rows`, `write_rows`) have none (a buffer copy or
    /// a view).
    pub fn for_op(op: OpKind, out: Option<OutDims>) -> Option<KernelId> {
        let mut default = None;
        for id in KernelId::ALL {
            let row = id.row();
            if row.runs.contains(&op) {
                match (row.fits, out) {
                    (Some(fits), Some(out)) if fits(out) => return Some(id),
                    (None, _) if default.is_none() => default = Some(id),
                    _ => {}
                }
            }
        }
        default
    }

    /// The kernels an op dispatches after its own (`for_op`), in order: column sums that a
    /// row-parallel kernel cannot do without float atomics (layer norm's dγ, dβ; the mean of
    /// the row losses), and attention's second backward half.
    pub fn then_for(op: OpKind) -> &'static [KernelId] {
        KernelId::for_op(op, None).map_or(&[], |id| id.row().then)
    }

    /// The kernel for an (m × k) · (k × n) product and its grid: the register-blocked one once
    /// both sides fill its 64 × 64 tiles; the barrier-free one when C fits one 16 × 16 tile
    /// (the articles' examples), where tiling shares nothing and a software GPU's barriers cost
    /// the most; the k-splitting one for a few rows of C (a decoder's next token), where tiles
    /// would be mostly empty rows; the simple tiled one (which the compute page quotes) in
    /// between. Same contract, same CPU twin.
    pub fn for_product(m: usize, n: usize) -> (KernelId, [u32; 3]) {
        let kernel = KernelId::for_op(OpKind::Matmul, Some((m, n))).unwrap_or(KernelId::Matmul);
        let grid = match kernel {
            KernelId::MatmulBlocked => [n.div_ceil(BLOCKED_MIN) as u32, m.div_ceil(BLOCKED_MIN) as u32, 1],
            KernelId::MatmulRows => [n.div_ceil(16) as u32, m as u32, 1],
            _ => grid_tiles(m, n),
        };
        (kernel, grid)
    }
}

/// A 2-D grid of 16×16 tiles covering `rows × cols` outputs.
pub fn grid_tiles(rows: usize, cols: usize) -> [u32; 3] {
    [cols.div_ceil(16).max(1) as u32, rows.div_ceil(16).max(1) as u32, 1]
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

    use crate::site::wgsl_highlight::without_comments;

    fn repository_file(stem: &str) -> String {
        let path = format!("{}/src/gpu/shaders/{stem}.wgsl", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn sources_are_the_repository_files_composed() {
        for id in KernelId::ALL {
            let row = id.row();
            // The wasm carries each file without its comments (the panel downloads the rest).
            assert_eq!(row.file, without_comments(&repository_file(id.name())), "{}", id.path());
            let mut want = format!("{}\n{}", row.file, row.params_wgsl);
            for shared in row.shared {
                assert_eq!(shared.text, without_comments(&repository_file(shared.name)), "{}", shared.name);
                want = format!("{want}\n{}", shared.text);
            }
            assert_eq!(id.source(), want, "{}", id.name());
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
    fn every_source_declares_its_params_once() {
        for id in KernelId::ALL {
            assert!(!id.row().file.contains("struct Params"), "{}: Params comes from kernels.rs", id.name());
            assert_eq!(id.source().matches("struct Params {").count(), 1, "{}", id.name());
            let fields = wgsl_params(&id.source());
            assert!(fields.iter().all(|(_, ty)| ty == "u32" || ty == "f32"), "{}: {fields:?}", id.name());
            let want = if id == KernelId::AdamW { 48 } else { 32 };
            assert_eq!(fields.len() * 4, want, "{}: the uniform is {want} bytes", id.name());
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
        assert_eq!(KernelId::for_op(OpKind::SoftmaxRows, None), Some(KernelId::Softmax));
        assert_eq!(KernelId::then_for(OpKind::LayerNormBackward), [KernelId::SumRows, KernelId::SumRows]);
        assert_eq!(KernelId::then_for(OpKind::AttentionBackward), [KernelId::AttentionBackwardKv]);
        assert_eq!(KernelId::then_for(OpKind::Relu), []);
        assert_eq!(KernelId::then_for(OpKind::RmsNormBackward), [KernelId::SumRows]);
        assert_eq!(KernelId::for_op(OpKind::RopeBackward, None), Some(KernelId::Rope));
    }

    #[test]
    fn a_build_without_training_keeps_the_kernels_it_can_dispatch() {
        use super::kept_in_build;
        assert_eq!(kept_in_build(&[OpKind::ReluBackward], "relu_backward", false), "");
        assert_eq!(kept_in_build(&[], "attention_backward_kv", false), "");
        assert_eq!(kept_in_build(&[OpKind::Relu], "relu", false), "relu");
        assert_eq!(kept_in_build(&[OpKind::ReluBackward], "relu_backward", true), "relu_backward");
        // The kernels that run no op are the second halves of training ops (`then`).
        for id in KernelId::ALL {
            if id.row().runs.is_empty() {
                assert!(KernelId::ALL.iter().any(|t| t.row().then.contains(&id) && t.row().runs.iter().all(|op| op.is_training())), "{}", id.name());
            }
        }
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
