//! The ops of the compute layer, declared once.
//!
//! `Op` is one call with its scalar parameters; `OpKind` is which op it is, with the facts
//! every layer reads from this one table: its name, its contract, the CPU function that is
//! its twin, how many tensors it takes, and the shape rule (`Op::output_dims`) that both
//! backends and the tracer apply. The CPU runs an op through `Op::run_cpu`; the GPU backend
//! (`atencao::gpu`) maps each `OpKind` to its WGSL kernel.
//!
//! The forward ops' twins are in `core::ops`; the training ops' (gradients, loss, optimiser)
//! in `core::ops::backward` and `core::ops::adamw`; the modern block's (RoPE, RMSNorm, SwiGLU,
//! GQA's shared K and V) and their gradients in `core::ops::modern`. Nothing here reaches above
//! the ops layer.

use crate::error::{ComputeError, Result};
use crate::format::format_pt_short;
use crate::matrix::Matrix;
use crate::ops::modern::{self, RopePositions};
use crate::ops::{self, adamw, backward, SoftmaxOptions};

/// The op table speaks in dims; the type lives with `Matrix` (the layer below).
pub use crate::matrix::Dims;

/// Which op, without its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum OpKind {
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
    /// A run of rows of a tensor (a view of the same storage where the backend can).
    Rows,
    /// Rows copied into a tensor in place (a KV cache's append); not an `Op`: see
    /// `Executor::write_rows`.
    WriteRows,
    // Training: the gradients of the ops above, the loss, the optimiser.
    MatmulAt,
    SumRows,
    ReluBackward,
    GeluBackward,
    LayerNormBackward,
    EmbeddingBackward,
    /// Causal attention over B sequences stacked in the rows (the training forward).
    AttentionBatch,
    AttentionBackward,
    CrossEntropy,
    SumSquares,
    /// θ, m, v updated in place; not an `Op`: see `Executor::adamw`.
    AdamW,
    // Today's decoders (issue 41): the modern block's ops and their gradients.
    Rope,
    RopeBackward,
    RmsNorm,
    RmsNormBackward,
    Swiglu,
    SwigluBackward,
    RepeatKv,
    RepeatKvBackward,
}

/// What the table says of one op.
#[derive(Debug)]
pub struct OpSpec {
    /// The `Executor` method's name.
    pub name: &'static str,
    /// What it computes, in one line (shapes as in `core::ops`).
    pub contract: &'static str,
    /// The CPU twin (a function of `core::ops`, `core::ops::backward` or `core::ops::adamw`).
    pub cpu_function: &'static str,
    /// Tensors it reads.
    pub inputs: usize,
    /// Tensors it returns.
    pub outputs: usize,
}

/// The refusal of today's block (its ops, or a model built of it) by a build without the
/// `moderna` feature: one message wherever it is refused.
pub fn moderna_not_built() -> ComputeError {
    ComputeError::Invalid("Esta versão do site não traz a arquitetura moderna (RMSNorm, RoPE, GQA, SwiGLU): o modelo não pode ser montado aqui.".into())
}

impl OpKind {
    pub const ALL: [OpKind; 32] = [
        OpKind::Matmul,
        OpKind::MatmulBt,
        OpKind::Transpose,
        OpKind::Add,
        OpKind::Scale,
        OpKind::SoftmaxRows,
        OpKind::LayerNorm,
        OpKind::Relu,
        OpKind::Gelu,
        OpKind::Embedding,
        OpKind::Attention,
        OpKind::Rows,
        OpKind::WriteRows,
        OpKind::MatmulAt,
        OpKind::SumRows,
        OpKind::ReluBackward,
        OpKind::GeluBackward,
        OpKind::LayerNormBackward,
        OpKind::EmbeddingBackward,
        OpKind::AttentionBatch,
        OpKind::AttentionBackward,
        OpKind::CrossEntropy,
        OpKind::SumSquares,
        OpKind::AdamW,
        OpKind::Rope,
        OpKind::RopeBackward,
        OpKind::RmsNorm,
        OpKind::RmsNormBackward,
        OpKind::Swiglu,
        OpKind::SwigluBackward,
        OpKind::RepeatKv,
        OpKind::RepeatKvBackward,
    ];

    /// Whether only training runs it: the gradients, the loss, the optimiser, the batch
    /// attention. A build without the `training` feature (the page's module; training runs in
    /// the worker's) has no WGSL for them, and its WebGPU backend refuses them; their CPU twins
    /// stay (the gradient check's whole decoder runs them on the page).
    pub const fn is_training(self) -> bool {
        matches!(
            self,
            OpKind::MatmulAt
                | OpKind::SumRows
                | OpKind::ReluBackward
                | OpKind::GeluBackward
                | OpKind::LayerNormBackward
                | OpKind::EmbeddingBackward
                | OpKind::AttentionBatch
                | OpKind::AttentionBackward
                | OpKind::CrossEntropy
                | OpKind::SumSquares
                | OpKind::AdamW
                | OpKind::RopeBackward
                | OpKind::RmsNormBackward
                | OpKind::SwigluBackward
                | OpKind::RepeatKvBackward
        )
    }

    /// Whether it is one of today's block's ops (issue 41). A build without the `moderna`
    /// feature (the page's modules: only the worker trains and runs the moderna) has neither
    /// their CPU twins nor their WGSL, and refuses them on both backends.
    pub const fn is_moderna(self) -> bool {
        matches!(
            self,
            OpKind::Rope
                | OpKind::RopeBackward
                | OpKind::RmsNorm
                | OpKind::RmsNormBackward
                | OpKind::Swiglu
                | OpKind::SwigluBackward
                | OpKind::RepeatKv
                | OpKind::RepeatKvBackward
        )
    }

    /// Whether this build runs the op: the moderna's only with the `moderna` feature, or its
    /// forward ones with `modern-ops` (`moderna_not_built` otherwise).
    pub const fn in_this_build(self) -> bool {
        cfg!(feature = "moderna") || !self.is_moderna() || (cfg!(feature = "modern-ops") && !self.is_training())
    }

    /// The error of a build without the `training` feature asked to run a training op on WebGPU.
    pub fn not_in_this_build(self) -> ComputeError {
        ComputeError::Invalid(format!("A operação {} é do treino: este módulo não a traz (o treino roda no worker da página).", self.name()))
    }

    pub fn spec(self) -> &'static OpSpec {
        macro_rules! spec {
            ($name:literal, $contract:literal, $cpu:literal, $inputs:literal, $outputs:literal) => {
                &OpSpec { name: $name, contract: $contract, cpu_function: $cpu, inputs: $inputs, outputs: $outputs }
            };
        }
        match self {
            OpKind::Matmul => spec!("matmul", "A (m,k) · B (k,n) → (m,n)", "core::ops::matmul", 2, 1),
            OpKind::MatmulBt => spec!("matmul_bt", "α · A (m,k) · Bᵀ, B (n,k) → (m,n)", "core::ops::matmul_bt", 2, 1),
            OpKind::Transpose => spec!("transpose", "A (m,n) → Aᵀ (n,m)", "core::ops::transpose", 1, 1),
            OpKind::Add => spec!("add", "A + B, B do mesmo formato ou uma linha repetida", "core::ops::add", 2, 1),
            OpKind::Scale => spec!("scale", "α · A", "core::ops::scale", 1, 1),
            OpKind::SoftmaxRows => spec!(
                "softmax_rows",
                "softmax de cada linha (máscara causal e temperatura opcionais)",
                "core::ops::softmax_rows",
                1,
                1
            ),
            OpKind::LayerNorm => spec!("layer_norm", "normaliza cada linha, depois · γ + β", "core::ops::layer_norm", 3, 1),
            OpKind::Relu => spec!("relu", "max(0, x) em cada célula", "core::ops::relu", 1, 1),
            OpKind::Gelu => spec!("gelu", "GELU(x) em cada célula", "core::ops::gelu", 1, 1),
            OpKind::Embedding => spec!("embedding", "tabela (V,d), ids (t) → linhas (t,d)", "core::ops::embedding", 2, 1),
            OpKind::Attention => spec!(
                "attention",
                "softmax(Q Kᵀ/√d_h) V por cabeça, sem projeções",
                "core::ops::attention",
                3,
                2
            ),
            OpKind::Rows => spec!("rows", "as linhas a..b de A", "core::ops::rows", 1, 1),
            OpKind::WriteRows => spec!("write_rows", "copia B para as linhas a.. de A, no lugar", "core::ops::write_rows", 2, 0),
            OpKind::MatmulAt => spec!("matmul_at", "Aᵀ · B, A (k,m), B (k,n) → (m,n)", "core::ops::backward::matmul_at", 2, 1),
            OpKind::SumRows => spec!("sum_rows", "soma das linhas de A (m,n) → (1,n): o gradiente de um viés", "core::ops::backward::sum_rows", 1, 1),
            OpKind::ReluBackward => spec!("relu_backward", "dY onde x > 0, senão 0: o gradiente da ReLU", "core::ops::backward::relu_backward", 2, 1),
            OpKind::GeluBackward => spec!("gelu_backward", "dY ⊙ GELU′(X): o gradiente da GELU", "core::ops::backward::gelu_backward", 2, 1),
            OpKind::LayerNormBackward => spec!(
                "layer_norm_backward",
                "X, γ, dY → dX, dγ, dβ: o gradiente da normalização",
                "core::ops::backward::layer_norm_backward",
                3,
                3
            ),
            OpKind::EmbeddingBackward => spec!(
                "embedding_backward",
                "dY (t,d) somado às linhas dos ids → (V,d)",
                "core::ops::backward::embedding_backward",
                2,
                1
            ),
            OpKind::AttentionBatch => spec!(
                "attention_batch",
                "atenção causal por cabeça de B sequências empilhadas nas linhas",
                "core::ops::backward::attention_batch",
                3,
                2
            ),
            OpKind::AttentionBackward => spec!(
                "attention_backward",
                "Q, K, V, pesos, dO → dQ, dK, dV da atenção causal em lote",
                "core::ops::backward::attention_backward",
                5,
                3
            ),
            OpKind::CrossEntropy => spec!(
                "cross_entropy",
                "logits (N,V), alvos (N) → perda média (1,1) e dlogits (N,V)",
                "core::ops::backward::cross_entropy",
                2,
                2
            ),
            OpKind::SumSquares => spec!("sum_squares", "acumulado (1,1) + Σ g² de G", "core::ops::adamw::sum_squares", 2, 1),
            OpKind::AdamW => spec!("adamw", "um passo do AdamW em θ, m, v, no lugar", "core::ops::adamw::adamw", 5, 0),
            OpKind::Rope => spec!(
                "rope",
                "gira cada par (2i, 2i+1) de cada cabeça pelo ângulo da posição p da linha na sua sequência, p·θ^(−2i/d_h)",
                "core::ops::modern::rope",
                1,
                1
            ),
            OpKind::RopeBackward => spec!("rope_backward", "dY girado de volta: o gradiente do RoPE", "core::ops::modern::rope_backward", 1, 1),
            OpKind::RmsNorm => spec!("rms_norm", "γ ⊙ x / √(média(x²) + ε) em cada linha", "core::ops::modern::rms_norm", 2, 1),
            OpKind::RmsNormBackward => spec!(
                "rms_norm_backward",
                "X, γ, dY → dX, dγ: o gradiente da RMSNorm",
                "core::ops::modern::rms_norm_backward",
                3,
                2
            ),
            OpKind::Swiglu => spec!("swiglu", "SiLU(porta) ⊙ valor em cada célula", "core::ops::modern::swiglu", 2, 1),
            OpKind::SwigluBackward => spec!(
                "swiglu_backward",
                "porta, valor, dH → dporta, dvalor: o gradiente da SwiGLU",
                "core::ops::modern::swiglu_backward",
                3,
                2
            ),
            OpKind::RepeatKv => spec!(
                "repeat_kv",
                "K ou V (t, n_kv·d_h) → (t, h·d_h), cada cabeça repetida para o seu grupo de Q",
                "core::ops::modern::repeat_kv",
                1,
                1
            ),
            OpKind::RepeatKvBackward => spec!(
                "repeat_kv_backward",
                "dY (t, h·d_h) → (t, n_kv·d_h), a soma de cada grupo",
                "core::ops::modern::repeat_kv_backward",
                1,
                1
            ),
        }
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    pub fn contract(self) -> &'static str {
        self.spec().contract
    }

    pub fn cpu_function(self) -> &'static str {
        self.spec().cpu_function
    }

    /// Ops that move data and compute nothing (no kernel: a buffer copy or a view on the GPU).
    pub fn is_copy(self) -> bool {
        matches!(self, OpKind::Rows | OpKind::WriteRows)
    }
}

/// One op with its parameters: what a backend is asked to run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    /// A (m,k) · B (k,n).
    Matmul,
    /// α · A (m,k) · Bᵀ with B (n,k).
    MatmulBt { alpha: f32 },
    Transpose,
    /// A + B, B of A's shape or one row of A's width.
    Add,
    Scale { alpha: f32 },
    SoftmaxRows(SoftmaxOptions),
    /// X, γ (1,d), β (1,d).
    LayerNorm { eps: f32 },
    Relu,
    Gelu,
    /// Table (V,d), ids (1,t) (uploaded with `Executor::upload_ids`).
    Embedding,
    /// Q (t_q,d), K (t_k,d), V (t_k,d) → output (t_q,d), weights (h·t_q, t_k).
    Attention { heads: usize, causal: bool, causal_offset: usize },
    /// Rows `start..end`.
    Rows { start: usize, end: usize },
    /// Aᵀ·B with A (k,m), B (k,n): a weight's gradient Xᵀ·dY without a transpose.
    MatmulAt,
    /// Column sums (1,n).
    SumRows,
    /// X, dY.
    ReluBackward,
    GeluBackward,
    /// X, γ (1,d), dY → dX, dγ, dβ.
    LayerNormBackward { eps: f32 },
    /// dY (t,d), ids (1,t) → (vocab, d).
    EmbeddingBackward { vocab: usize },
    /// Q, K, V (B·t, d) → output (B·t, d), weights (B·h·t, t); causal.
    AttentionBatch { heads: usize, sequences: usize },
    /// Q, K, V, weights, dO → dQ, dK, dV.
    AttentionBackward { heads: usize, sequences: usize },
    /// Logits (N,V), targets (1,N) → loss (1,1), dlogits (N,V).
    CrossEntropy,
    /// acc (1,1), G → acc + Σ g² (1,1).
    SumSquares,
    /// Q or K (B·t, heads·d_h), a sequence's row r at position `at.first` + r; θ the base.
    Rope { heads: usize, theta: f32, at: RopePositions },
    /// dY of `Rope` with the same parameters → dX.
    RopeBackward { heads: usize, theta: f32, at: RopePositions },
    /// X, γ (1,d).
    RmsNorm { eps: f32 },
    /// X, γ (1,d), dY → dX, dγ.
    RmsNormBackward { eps: f32 },
    /// Gate, up (same shape) → SiLU(gate) ⊙ up.
    Swiglu,
    /// Gate, up, dH → dgate, dup.
    SwigluBackward,
    /// K or V (t, kv_heads·d_h) → (t, heads·d_h).
    RepeatKv { heads: usize, kv_heads: usize },
    /// dY (t, heads·d_h) → (t, kv_heads·d_h).
    RepeatKvBackward { heads: usize, kv_heads: usize },
}

impl Op {
    pub fn kind(&self) -> OpKind {
        match self {
            Op::Matmul => OpKind::Matmul,
            Op::MatmulBt { .. } => OpKind::MatmulBt,
            Op::Transpose => OpKind::Transpose,
            Op::Add => OpKind::Add,
            Op::Scale { .. } => OpKind::Scale,
            Op::SoftmaxRows(_) => OpKind::SoftmaxRows,
            Op::LayerNorm { .. } => OpKind::LayerNorm,
            Op::Relu => OpKind::Relu,
            Op::Gelu => OpKind::Gelu,
            Op::Embedding => OpKind::Embedding,
            Op::Attention { .. } => OpKind::Attention,
            Op::Rows { .. } => OpKind::Rows,
            Op::MatmulAt => OpKind::MatmulAt,
            Op::SumRows => OpKind::SumRows,
            Op::ReluBackward => OpKind::ReluBackward,
            Op::GeluBackward => OpKind::GeluBackward,
            Op::LayerNormBackward { .. } => OpKind::LayerNormBackward,
            Op::EmbeddingBackward { .. } => OpKind::EmbeddingBackward,
            Op::AttentionBatch { .. } => OpKind::AttentionBatch,
            Op::AttentionBackward { .. } => OpKind::AttentionBackward,
            Op::CrossEntropy => OpKind::CrossEntropy,
            Op::SumSquares => OpKind::SumSquares,
            Op::Rope { .. } => OpKind::Rope,
            Op::RopeBackward { .. } => OpKind::RopeBackward,
            Op::RmsNorm { .. } => OpKind::RmsNorm,
            Op::RmsNormBackward { .. } => OpKind::RmsNormBackward,
            Op::Swiglu => OpKind::Swiglu,
            Op::SwigluBackward => OpKind::SwigluBackward,
            Op::RepeatKv { .. } => OpKind::RepeatKv,
            Op::RepeatKvBackward { .. } => OpKind::RepeatKvBackward,
        }
    }

    /// Its scalar parameters in Portuguese ("α = 0,5774", "causal"); empty if none.
    pub fn params_text(&self) -> String {
        match *self {
            Op::MatmulBt { alpha } | Op::Scale { alpha } => alpha_text(alpha),
            Op::SoftmaxRows(opts) => softmax_text(&opts),
            Op::LayerNorm { eps } | Op::LayerNormBackward { eps } | Op::RmsNorm { eps } | Op::RmsNormBackward { eps } => {
                format!("ε = {}", format_eps(eps))
            }
            Op::Rope { heads, theta, at } | Op::RopeBackward { heads, theta, at } => {
                let mut text = format!("{heads} {}, θ = {}", if heads == 1 { "cabeça" } else { "cabeças" }, format_pt_short(theta, 4));
                if at.first > 0 {
                    text.push_str(&format!(", da posição {}", at.first));
                }
                if at.sequences > 1 {
                    text.push_str(&format!(", {} sequências", at.sequences));
                }
                text
            }
            Op::RepeatKv { heads, kv_heads } | Op::RepeatKvBackward { heads, kv_heads } => format!("{heads} cabeças de Q, {kv_heads} de K e V"),
            Op::EmbeddingBackward { vocab } => format!("V = {vocab}"),
            Op::AttentionBatch { heads, sequences } | Op::AttentionBackward { heads, sequences } => {
                format!("{}, {sequences} {}", attention_text(heads, true, 0), if sequences == 1 { "sequência" } else { "sequências" })
            }
            Op::Attention { heads, causal, causal_offset } => attention_text(heads, causal, causal_offset),
            Op::Rows { start, end } => format!("linhas {}…{}", start + 1, end),
            _ => String::new(),
        }
    }

    /// The dims of the outputs for inputs of `inputs` dims, or why those inputs do not fit.
    /// Both backends check through here, so they refuse the same inputs with the same words.
    pub fn output_dims(&self, inputs: &[Dims]) -> Result<Vec<Dims>> {
        let spec = self.kind().spec();
        if inputs.len() != spec.inputs {
            return Err(ComputeError::Invalid(format!("{} recebe {} matrizes, não {}.", spec.name, spec.inputs, inputs.len())));
        }
        let a = inputs[0];
        Ok(match *self {
            Op::Matmul => {
                ops::check_matmul_dims(a, inputs[1])?;
                vec![(a.0, inputs[1].1)]
            }
            Op::MatmulBt { .. } => {
                ops::check_matmul_bt_dims(a, inputs[1])?;
                vec![(a.0, inputs[1].0)]
            }
            Op::Transpose => vec![(a.1, a.0)],
            Op::Add => {
                ops::check_add_dims(a, inputs[1])?;
                vec![a]
            }
            Op::Scale { .. } | Op::Relu | Op::Gelu => vec![a],
            Op::SoftmaxRows(opts) => {
                opts.validate()?;
                vec![a]
            }
            Op::LayerNorm { .. } => {
                ops::check_layer_norm_dims(a, inputs[1], inputs[2])?;
                vec![a]
            }
            Op::Embedding => {
                if inputs[1].0 != 1 {
                    return Err(ComputeError::Invalid("Os ids de tokens formam uma só linha.".into()));
                }
                vec![(inputs[1].1, a.1)]
            }
            Op::Attention { heads, .. } => {
                ops::check_attention_dims(a, inputs[1], inputs[2], heads)?;
                vec![a, (heads * a.0, inputs[1].0)]
            }
            Op::Rows { start, end } => {
                if start > end || end > a.0 {
                    return Err(ComputeError::Invalid(format!("As linhas {start}..{end} não existem numa matriz de {} linhas.", a.0)));
                }
                vec![(end - start, a.1)]
            }
            Op::MatmulAt => {
                if a.0 != inputs[1].0 {
                    return Err(ComputeError::Shape { op: "Aᵀ·B", left: a, right: inputs[1] });
                }
                vec![(a.1, inputs[1].1)]
            }
            Op::SumRows => vec![(1, a.1)],
            Op::ReluBackward | Op::GeluBackward => {
                same_dims("dY", a, inputs[1])?;
                vec![a]
            }
            Op::LayerNormBackward { .. } => {
                ops::check_layer_norm_dims(a, inputs[1], inputs[1])?;
                same_dims("LayerNorm dY", a, inputs[2])?;
                vec![a, inputs[1], inputs[1]]
            }
            Op::EmbeddingBackward { vocab } => {
                if inputs[1] != (1, a.0) || vocab == 0 {
                    return Err(ComputeError::Invalid(format!("{} linhas de gradiente para {} ids.", a.0, inputs[1].1)));
                }
                vec![(vocab, a.1)]
            }
            Op::AttentionBatch { heads, sequences } => {
                let t = check_attention_batch_dims(&inputs[..3], heads, sequences)?;
                vec![a, (sequences * heads * t, t)]
            }
            Op::AttentionBackward { heads, sequences } => {
                let t = check_attention_batch_dims(&inputs[..3], heads, sequences)?;
                same_dims("atenção: pesos", inputs[3], (sequences * heads * t, t))?;
                same_dims("atenção dO", a, inputs[4])?;
                vec![a, a, a]
            }
            Op::CrossEntropy => {
                if inputs[1] != (1, a.0) || a.1 == 0 {
                    return Err(ComputeError::Invalid(format!("{} linhas de logits para {} alvos.", a.0, inputs[1].1)));
                }
                vec![(1, 1), a]
            }
            Op::SumSquares => {
                same_dims("Σ g²: acumulado", a, (1, 1))?;
                vec![(1, 1)]
            }
            Op::Rope { heads, theta, at } | Op::RopeBackward { heads, theta, at } => {
                modern::check_rope_dims(a, heads, theta, at.sequences)?;
                vec![a]
            }
            Op::RmsNorm { .. } => {
                modern::check_rms_norm_dims(a, inputs[1])?;
                vec![a]
            }
            Op::RmsNormBackward { .. } => {
                modern::check_rms_norm_dims(a, inputs[1])?;
                same_dims("RMSNorm dY", a, inputs[2])?;
                vec![a, inputs[1]]
            }
            Op::Swiglu => {
                same_dims("SwiGLU", a, inputs[1])?;
                vec![a]
            }
            Op::SwigluBackward => {
                same_dims("SwiGLU", a, inputs[1])?;
                same_dims("SwiGLU dH", a, inputs[2])?;
                vec![a, a]
            }
            Op::RepeatKv { heads, kv_heads } => {
                let (_, width) = modern::check_repeat_kv_dims(a, heads, kv_heads)?;
                vec![(a.0, heads * width)]
            }
            Op::RepeatKvBackward { heads, kv_heads } => {
                let (_, width) = modern::check_repeat_kv_backward_dims(a, heads, kv_heads)?;
                vec![(a.0, kv_heads * width)]
            }
        })
    }

    /// Runs the op on the CPU: its twin in `core::ops`.
    pub fn run_cpu(&self, inputs: &[&Matrix]) -> Result<Vec<Matrix>> {
        if !self.kind().in_this_build() {
            return Err(moderna_not_built());
        }
        let dims: Vec<Dims> = inputs.iter().map(|m| m.shape()).collect();
        self.output_dims(&dims)?;
        let a = inputs[0];
        Ok(match *self {
            Op::Matmul => vec![ops::matmul(a, inputs[1])?],
            Op::MatmulBt { alpha } => vec![ops::matmul_bt(a, inputs[1], alpha)?],
            Op::Transpose => vec![ops::transpose(a)],
            Op::Add => vec![ops::add(a, inputs[1])?],
            Op::Scale { alpha } => vec![ops::scale(a, alpha)],
            Op::SoftmaxRows(opts) => vec![ops::softmax_rows(a, opts)?],
            Op::LayerNorm { eps } => vec![ops::layer_norm(a, inputs[1], inputs[2], eps)?],
            Op::Relu => vec![ops::relu(a)],
            Op::Gelu => vec![ops::gelu(a)],
            Op::Embedding => vec![ops::embedding(a, &ids_of(inputs[1]))?],
            Op::Attention { heads, causal, causal_offset } => {
                let out = ops::attention(a, inputs[1], inputs[2], heads, causal, causal_offset)?;
                vec![out.output, out.weights]
            }
            Op::Rows { start, end } => vec![ops::rows(a, start, end)],
            Op::MatmulAt => vec![backward::matmul_at(a, inputs[1])?],
            Op::SumRows => vec![backward::sum_rows(a)],
            Op::ReluBackward => vec![backward::relu_backward(a, inputs[1])?],
            Op::GeluBackward => vec![backward::gelu_backward(a, inputs[1])?],
            Op::LayerNormBackward { eps } => {
                let g = backward::layer_norm_backward(a, inputs[1], inputs[2], eps)?;
                vec![g.dx, g.dgamma, g.dbeta]
            }
            Op::EmbeddingBackward { vocab } => vec![backward::embedding_backward(a, &ids_of(inputs[1]), vocab)?],
            Op::AttentionBatch { heads, sequences } => {
                let out = backward::attention_batch(a, inputs[1], inputs[2], heads, sequences)?;
                vec![out.output, out.weights]
            }
            Op::AttentionBackward { heads, sequences } => {
                let g = backward::attention_backward(a, inputs[1], inputs[2], inputs[3], inputs[4], heads, sequences)?;
                vec![g.dq, g.dk, g.dv]
            }
            Op::CrossEntropy => {
                let ce = backward::cross_entropy(a, &ids_of(inputs[1]))?;
                vec![Matrix::from_vec(1, 1, vec![ce.loss])?, ce.dlogits]
            }
            Op::SumSquares => vec![adamw::sum_squares(a, inputs[1])?],
            // Today's ops only where they run (`in_this_build`): the check above is a runtime
            // one, so without these cfgs every page's module would carry their twins.
            #[cfg(feature = "modern-ops")]
            Op::Rope { heads, theta, at } => vec![modern::rope(a, heads, theta, at)?],
            #[cfg(feature = "moderna")]
            Op::RopeBackward { heads, theta, at } => vec![modern::rope_backward(a, heads, theta, at)?],
            #[cfg(feature = "modern-ops")]
            Op::RmsNorm { eps } => vec![modern::rms_norm(a, inputs[1], eps)?],
            #[cfg(feature = "moderna")]
            Op::RmsNormBackward { eps } => {
                let g = modern::rms_norm_backward(a, inputs[1], inputs[2], eps)?;
                vec![g.dx, g.dgamma]
            }
            #[cfg(feature = "modern-ops")]
            Op::Swiglu => vec![modern::swiglu(a, inputs[1])?],
            #[cfg(feature = "moderna")]
            Op::SwigluBackward => {
                let g = modern::swiglu_backward(a, inputs[1], inputs[2])?;
                vec![g.dgate, g.dup]
            }
            #[cfg(feature = "modern-ops")]
            Op::RepeatKv { heads, kv_heads } => vec![modern::repeat_kv(a, heads, kv_heads)?],
            #[cfg(feature = "moderna")]
            Op::RepeatKvBackward { heads, kv_heads } => vec![modern::repeat_kv_backward(a, heads, kv_heads)?],
            #[cfg(not(feature = "moderna"))]
            _ => return Err(moderna_not_built()),
        })
    }
}

fn same_dims(op: &'static str, left: Dims, right: Dims) -> Result<()> {
    if left != right {
        return Err(ComputeError::Shape { op, left, right });
    }
    Ok(())
}

/// Q, K, V of one shape (B·t, d), B ≥ 1 sequences of t rows, heads dividing d: returns t.
fn check_attention_batch_dims(qkv: &[Dims], heads: usize, sequences: usize) -> Result<usize> {
    let q = qkv[0];
    if sequences == 0 || q.0 % sequences != 0 {
        return Err(ComputeError::Invalid(format!("{} linhas não se dividem em {sequences} sequências iguais.", q.0)));
    }
    same_dims("Q, K e V", q, qkv[1])?;
    same_dims("Q, K e V", q, qkv[2])?;
    ops::check_attention_dims(q, qkv[1], qkv[2], heads)?;
    Ok(q.0 / sequences)
}

/// Token ids as the CPU keeps them in a tensor: one row of exact small integers (ids are
/// below the vocabulary size, at most 2²⁰, so f32 holds them exactly).
pub fn ids_tensor(ids: &[u32]) -> Matrix {
    Matrix::from_vec(1, ids.len(), ids.iter().map(|&i| i as f32).collect()).expect("one row")
}

/// The ids a CPU tensor made by `ids_tensor` holds.
pub fn ids_of(m: &Matrix) -> Vec<u32> {
    m.as_slice().iter().map(|&v| v as u32).collect()
}

/// "α = 0,5774" with up to four decimals.
pub fn alpha_text(value: f32) -> String {
    format!("α = {}", format_pt_short(value, 4))
}

fn softmax_text(opts: &SoftmaxOptions) -> String {
    let mut parts = Vec::new();
    if opts.causal {
        parts.push(if opts.causal_offset > 0 { format!("causal, deslocamento {}", opts.causal_offset) } else { "causal".into() });
    }
    if opts.temperature != 1.0 {
        parts.push(format!("T = {}", format_pt_short(opts.temperature, 3)));
    }
    parts.join(", ")
}

/// "6 cabeças, causal, deslocamento 12".
pub fn attention_text(heads: usize, causal: bool, causal_offset: usize) -> String {
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
        return crate::format::format_pt(value, 0);
    }
    let mut exponent = value.abs().log10().floor() as i32;
    let mut mantissa = value / 10f32.powi(exponent);
    // 9,999 rounds to 10: write it as 1·10ⁿ⁺¹.
    if (mantissa.abs() * 100.0).round() >= 1000.0 {
        mantissa /= 10.0;
        exponent += 1;
    }
    format!("{}·{}", format_pt_short(mantissa, 2), crate::format::power_of_ten(exponent))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_training_ops_are_the_gradients_the_loss_and_the_optimiser() {
        for kind in OpKind::ALL {
            let cpu = kind.cpu_function();
            let training = cpu.starts_with("core::ops::backward::") || cpu.starts_with("core::ops::adamw::") || cpu.ends_with("_backward");
            assert_eq!(kind.is_training(), training, "{}", kind.name());
        }
    }

    #[test]
    fn every_op_has_a_distinct_name_and_a_cpu_twin_in_ops() {
        let names: std::collections::BTreeSet<&str> = OpKind::ALL.iter().map(|o| o.name()).collect();
        assert_eq!(names.len(), OpKind::ALL.len());
        for kind in OpKind::ALL {
            let twin = kind.cpu_function();
            let module = ["core::ops::backward::", "core::ops::adamw::", "core::ops::modern::", "core::ops::"].iter().find(|m| twin.starts_with(*m));
            assert_eq!(module.map(|m| &twin[m.len()..]), Some(kind.name()), "{twin}");
        }
    }

    #[test]
    fn shape_rules_refuse_what_does_not_fit() {
        assert_eq!(Op::Matmul.output_dims(&[(2, 3), (3, 4)]).unwrap(), vec![(2, 4)]);
        assert!(Op::Matmul.output_dims(&[(2, 3), (2, 3)]).is_err());
        assert!(Op::Matmul.output_dims(&[(2, 3)]).is_err());
        assert_eq!(Op::MatmulBt { alpha: 1.0 }.output_dims(&[(2, 3), (5, 3)]).unwrap(), vec![(2, 5)]);
        let attention = Op::Attention { heads: 2, causal: true, causal_offset: 0 };
        assert_eq!(attention.output_dims(&[(3, 4), (5, 4), (5, 4)]).unwrap(), vec![(3, 4), (6, 5)]);
        assert!(Op::Attention { heads: 3, causal: false, causal_offset: 0 }.output_dims(&[(3, 4), (5, 4), (5, 4)]).is_err());
        assert_eq!(Op::Rows { start: 1, end: 3 }.output_dims(&[(4, 2)]).unwrap(), vec![(2, 2)]);
        assert!(Op::Rows { start: 1, end: 5 }.output_dims(&[(4, 2)]).is_err());
        assert!(Op::SoftmaxRows(SoftmaxOptions { temperature: 0.0, ..Default::default() }).output_dims(&[(2, 2)]).is_err());
    }

    #[test]
    fn training_shape_rules_refuse_what_does_not_fit() {
        assert_eq!(Op::MatmulAt.output_dims(&[(5, 2), (5, 3)]).unwrap(), vec![(2, 3)]);
        assert!(Op::MatmulAt.output_dims(&[(5, 2), (4, 3)]).is_err());
        assert_eq!(Op::SumRows.output_dims(&[(7, 3)]).unwrap(), vec![(1, 3)]);
        assert!(Op::ReluBackward.output_dims(&[(2, 3), (3, 2)]).is_err());
        assert_eq!(Op::LayerNormBackward { eps: 1e-5 }.output_dims(&[(4, 3), (1, 3), (4, 3)]).unwrap(), vec![(4, 3), (1, 3), (1, 3)]);
        assert!(Op::LayerNormBackward { eps: 1e-5 }.output_dims(&[(4, 3), (1, 3), (4, 2)]).is_err());
        assert_eq!(Op::EmbeddingBackward { vocab: 9 }.output_dims(&[(4, 3), (1, 4)]).unwrap(), vec![(9, 3)]);
        assert!(Op::EmbeddingBackward { vocab: 9 }.output_dims(&[(4, 3), (1, 5)]).is_err());
        let batch = Op::AttentionBatch { heads: 2, sequences: 3 };
        assert_eq!(batch.output_dims(&[(12, 4), (12, 4), (12, 4)]).unwrap(), vec![(12, 4), (24, 4)]);
        assert!(Op::AttentionBatch { heads: 2, sequences: 5 }.output_dims(&[(12, 4), (12, 4), (12, 4)]).is_err());
        let back = Op::AttentionBackward { heads: 2, sequences: 3 };
        assert_eq!(back.output_dims(&[(12, 4), (12, 4), (12, 4), (24, 4), (12, 4)]).unwrap(), vec![(12, 4); 3]);
        assert!(back.output_dims(&[(12, 4), (12, 4), (12, 4), (12, 4), (12, 4)]).is_err(), "weights of one sequence");
        assert_eq!(Op::CrossEntropy.output_dims(&[(6, 10), (1, 6)]).unwrap(), vec![(1, 1), (6, 10)]);
        assert!(Op::CrossEntropy.output_dims(&[(6, 10), (1, 5)]).is_err());
        assert!(Op::SumSquares.output_dims(&[(1, 2), (3, 3)]).is_err());
        let rope = Op::Rope { heads: 2, theta: 10_000.0, at: RopePositions::from(3) };
        assert_eq!(rope.output_dims(&[(5, 8)]).unwrap(), vec![(5, 8)]);
        assert!(rope.output_dims(&[(5, 6)]).is_err(), "heads of odd width");
        assert!(Op::RopeBackward { heads: 2, theta: 0.5, at: RopePositions::from(0) }.output_dims(&[(5, 8)]).is_err());
        assert!(Op::Rope { heads: 2, theta: 10_000.0, at: RopePositions::batch(2) }.output_dims(&[(5, 8)]).is_err(), "5 rows in 2 sequences");
        assert_eq!(Op::RmsNormBackward { eps: 1e-5 }.output_dims(&[(4, 3), (1, 3), (4, 3)]).unwrap(), vec![(4, 3), (1, 3)]);
        assert!(Op::RmsNorm { eps: 1e-5 }.output_dims(&[(4, 3), (1, 4)]).is_err());
        assert_eq!(Op::SwigluBackward.output_dims(&[(4, 6), (4, 6), (4, 6)]).unwrap(), vec![(4, 6), (4, 6)]);
        assert!(Op::Swiglu.output_dims(&[(4, 6), (4, 5)]).is_err());
        assert_eq!(Op::RepeatKv { heads: 6, kv_heads: 2 }.output_dims(&[(5, 8)]).unwrap(), vec![(5, 24)]);
        assert_eq!(Op::RepeatKvBackward { heads: 6, kv_heads: 2 }.output_dims(&[(5, 24)]).unwrap(), vec![(5, 8)]);
        assert!(Op::RepeatKv { heads: 6, kv_heads: 4 }.output_dims(&[(5, 8)]).is_err(), "4 kv heads do not divide 6");
        // Bad inputs are errors, never panics, on the CPU twins too.
        let m = Matrix::zeros(2, 3);
        assert!(Op::AttentionBackward { heads: 2, sequences: 1 }.run_cpu(&[&m, &m, &m, &m, &m]).is_err());
    }

    #[test]
    fn ids_round_trip_through_a_cpu_tensor() {
        let ids = [0u32, 7, 1 << 20];
        assert_eq!(ids_of(&ids_tensor(&ids)), ids);
    }

    #[test]
    fn parameters_in_portuguese() {
        assert_eq!(Op::MatmulBt { alpha: 1.0 / 3f32.sqrt() }.params_text(), "α = 0,5774");
        assert_eq!(Op::SoftmaxRows(SoftmaxOptions::causal()).params_text(), "causal");
        assert_eq!(Op::LayerNorm { eps: 1e-5 }.params_text(), "ε = 1·10⁻⁵");
        assert_eq!(Op::Attention { heads: 6, causal: true, causal_offset: 12 }.params_text(), "6 cabeças, causal, deslocamento 12");
        assert_eq!(Op::Relu.params_text(), "");
        assert_eq!(Op::AttentionBackward { heads: 4, sequences: 16 }.params_text(), "4 cabeças, causal, 16 sequências");
        assert_eq!(Op::EmbeddingBackward { vocab: 99 }.params_text(), "V = 99");
        assert_eq!(Op::Rope { heads: 4, theta: 10_000.0, at: RopePositions::from(12) }.params_text(), "4 cabeças, θ = 10000, da posição 12");
        assert_eq!(Op::RopeBackward { heads: 1, theta: 500.0, at: RopePositions::batch(8) }.params_text(), "1 cabeça, θ = 500, 8 sequências");
        assert_eq!(Op::RepeatKv { heads: 8, kv_heads: 2 }.params_text(), "8 cabeças de Q, 2 de K e V");
    }

    #[test]
    fn scientific_notation_in_portuguese() {
        assert_eq!(format_scientific(1.2e-8), "1,2·10⁻⁸");
        assert_eq!(format_scientific(0.0), "0");
        assert_eq!(format_scientific(2.5e-5), "2,5·10⁻⁵");
        assert_eq!(format_scientific(350.0), "3,5·10²");
        assert_eq!(format_scientific(9.999e-7), "1·10⁻⁶");
    }
}
