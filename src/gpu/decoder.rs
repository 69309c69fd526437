//! The pretrained decoder with everything resident on the GPU: weights uploaded once, the KV
//! cache and the activations in GPU buffers, and one command buffer per forward pass with a
//! single readback (the logits and the attention weights). The same kernels and the same
//! sequence of ops as `core::decoder::forward`, which stays the reference.
//!
//! Why: through the `Executor` interface every op uploads its inputs and reads its result
//! back; a token of this model runs ~60 ops, so ~60 round trips. Here a token is one submit
//! and one map. WebGPU orders the dispatches of a pass, so each op sees the previous one's writes.
//!
//! Shapes: T new tokens, P cached positions, C width, F FFN width, V vocabulary, nh heads.
//! Two buffers used by one dispatch are always distinct (WebGPU forbids reading and writing
//! one buffer in a dispatch), hence the ping-pong of the residual stream `x`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wgpu::util::DeviceExt;

use crate::core::decoder::{DecoderConfig, DecoderWeights};
use crate::core::error::{ComputeError, Result};
use crate::core::trace::{alpha, attention_params, layer_norm_params, Op, OpRecord, Shape};
use crate::core::transformer::positional::sinusoidal;
use crate::core::Matrix;

use super::kernels::{KernelId, Params};
use super::{grid_1d, readback, GpuContext};

/// One block's weights as GPU buffers.
struct BlockBuffers {
    ln1_gamma: wgpu::Buffer,
    ln1_beta: wgpu::Buffer,
    w_q: wgpu::Buffer,
    w_k: wgpu::Buffer,
    w_v: wgpu::Buffer,
    w_o: wgpu::Buffer,
    ln2_gamma: wgpu::Buffer,
    ln2_beta: wgpu::Buffer,
    w1: wgpu::Buffer,
    b1: wgpu::Buffer,
    w2: wgpu::Buffer,
    b2: wgpu::Buffer,
}

/// Activations, sized for a full context so one allocation serves every step.
struct Scratch {
    ids: wgpu::Buffer,       // (T) u32
    pe: wgpu::Buffer,        // (T,C) positional encoding of the new positions
    emb: wgpu::Buffer,       // (T,C)
    x: [wgpu::Buffer; 2],    // (T,C) residual stream, ping-pong
    h: wgpu::Buffer,         // (T,C) layer-norm output
    q: wgpu::Buffer,         // (T,C)
    k: wgpu::Buffer,         // (T,C) new keys, copied into the cache
    v: wgpu::Buffer,         // (T,C) new values
    att: wgpu::Buffer,       // (T,C) attention output, heads side by side
    proj: wgpu::Buffer,      // (T,C)
    f1: wgpu::Buffer,        // (T,F)
    f2: wgpu::Buffer,        // (T,F)
    weights: wgpu::Buffer,   // (nh·T, P+T) attention weights of one layer
    last: wgpu::Buffer,      // (1,C) the last position
    last_norm: wgpu::Buffer, // (1,C)
    logits: wgpu::Buffer,    // (1,V)
    staging: wgpu::Buffer,   // logits, then every layer's weights, for the one readback
}

/// What one resident forward pass returns (the cache stays on the GPU).
#[derive(Clone, Debug)]
pub struct ResidentOutput {
    /// Logits (1,V) of the next token.
    pub logits: Matrix,
    /// Per layer, the attention weights (nh·T, P+T), head after head.
    pub attention: Vec<Matrix>,
    /// The ops the pass dispatched, in order, with their shapes (no per-op times: they ran as
    /// one command buffer), for the "por dentro" panel.
    pub ops: Vec<OpRecord>,
}

pub struct GpuDecoder {
    gpu: Rc<GpuContext>,
    config: DecoderConfig,
    tok_emb: wgpu::Buffer,
    blocks: Vec<BlockBuffers>,
    ln_f_gamma: wgpu::Buffer,
    ln_f_beta: wgpu::Buffer,
    /// Per layer, keys and values of positions 0 … context − 1 (C wide).
    keys: Vec<wgpu::Buffer>,
    values: Vec<wgpu::Buffer>,
    scratch: Scratch,
    /// P: positions whose keys and values are in the cache.
    cached: Cell<usize>,
    /// The ops recorded by the pass being encoded, and the stage they belong to.
    ops: RefCell<Vec<OpRecord>>,
    stage: RefCell<Option<Rc<str>>>,
}

const STORAGE: wgpu::BufferUsages = wgpu::BufferUsages::STORAGE
    .union(wgpu::BufferUsages::COPY_DST)
    .union(wgpu::BufferUsages::COPY_SRC);

impl GpuDecoder {
    /// Uploads the weights and allocates the cache and the activations (once per model).
    pub fn new(gpu: Rc<GpuContext>, weights: &DecoderWeights) -> Result<GpuDecoder> {
        if let Some(reason) = gpu.lost_reason() {
            return Err(ComputeError::DeviceLost(reason));
        }
        let cfg = &weights.config;
        let (ctx, c, f, v, nh) = (cfg.context, cfg.d_model, cfg.d_ff, cfg.vocab_size, cfg.n_heads);
        let device = &gpu.device;
        let upload = |label: &str, m: &Matrix| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytemuck::cast_slice(m.as_slice()),
                usage: STORAGE,
            })
        };
        let empty = |label: &str, floats: usize, usage: wgpu::BufferUsages| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: (4 * floats.max(1)) as u64,
                usage,
                mapped_at_creation: false,
            })
        };
        let blocks = weights
            .blocks
            .iter()
            .map(|b| BlockBuffers {
                ln1_gamma: upload("ln1.weight", &b.ln1_gamma),
                ln1_beta: upload("ln1.bias", &b.ln1_beta),
                w_q: upload("w_q", &b.w_q),
                w_k: upload("w_k", &b.w_k),
                w_v: upload("w_v", &b.w_v),
                w_o: upload("w_o", &b.w_o),
                ln2_gamma: upload("ln2.weight", &b.ln2_gamma),
                ln2_beta: upload("ln2.bias", &b.ln2_beta),
                w1: upload("w1", &b.w1),
                b1: upload("b1", &b.b1),
                w2: upload("w2", &b.w2),
                b2: upload("b2", &b.b2),
            })
            .collect();
        let staging_floats = v + cfg.n_layers * nh * ctx * ctx;
        let scratch = Scratch {
            ids: empty("ids", ctx, STORAGE),
            pe: empty("pe", ctx * c, STORAGE),
            emb: empty("emb", ctx * c, STORAGE),
            x: [empty("x0", ctx * c, STORAGE), empty("x1", ctx * c, STORAGE)],
            h: empty("h", ctx * c, STORAGE),
            q: empty("q", ctx * c, STORAGE),
            k: empty("k", ctx * c, STORAGE),
            v: empty("v", ctx * c, STORAGE),
            att: empty("att", ctx * c, STORAGE),
            proj: empty("proj", ctx * c, STORAGE),
            f1: empty("f1", ctx * f, STORAGE),
            f2: empty("f2", ctx * f, STORAGE),
            weights: empty("weights", nh * ctx * ctx, STORAGE),
            last: empty("last", c, STORAGE),
            last_norm: empty("last_norm", c, STORAGE),
            logits: empty("logits", v, STORAGE),
            staging: empty("staging", staging_floats, wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST),
        };
        let decoder = GpuDecoder {
            tok_emb: upload("tok_emb", &weights.tok_emb),
            blocks,
            ln_f_gamma: upload("ln_f.weight", &weights.ln_f_gamma),
            ln_f_beta: upload("ln_f.bias", &weights.ln_f_beta),
            keys: (0..cfg.n_layers).map(|_| empty("keys", ctx * c, STORAGE)).collect(),
            values: (0..cfg.n_layers).map(|_| empty("values", ctx * c, STORAGE)).collect(),
            scratch,
            cached: Cell::new(0),
            ops: RefCell::new(Vec::new()),
            stage: RefCell::new(None),
            config: cfg.clone(),
            gpu: gpu.clone(),
        };
        // A failed allocation surfaces in the error scopes of the first pass.
        Ok(decoder)
    }

    /// The GPU this model lives on.
    pub fn context(&self) -> &Rc<GpuContext> {
        &self.gpu
    }

    /// P: positions in the cache.
    pub fn cached(&self) -> usize {
        self.cached.get()
    }

    /// Forgets the cache (the next pass starts at position 0).
    pub fn reset(&self) {
        self.cached.set(0);
    }

    /// Notes an op for the panel (what `core::trace::Traced` records for the same op on the
    /// `Executor` path, without time or results).
    fn note(&self, op: Op, inputs: Vec<Shape>, output: Shape, params: String) {
        let stage = self.stage.borrow().clone();
        self.ops.borrow_mut().push(OpRecord { op, stage, inputs, outputs: vec![output], params, ms: f64::NAN, results: Vec::new() });
    }

    fn set_stage(&self, name: &str) {
        *self.stage.borrow_mut() = Some(Rc::from(name));
    }

    /// Records one dispatch of `id` into `pass`.
    fn dispatch(&self, pass: &mut wgpu::ComputePass<'_>, id: KernelId, params: Params, buffers: &[&wgpu::Buffer], grid: [u32; 3]) {
        let device = &self.gpu.device;
        let kernel = self.gpu.kernel(id);
        let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("params"),
            contents: params.bytes(),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let entries: Vec<wgpu::BindGroupEntry> = std::iter::once(&uniform)
            .chain(buffers.iter().copied())
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry { binding: i as u32, resource: b.as_entire_binding() })
            .collect();
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(id.name()), layout: &kernel.layout, entries: &entries });
        pass.set_pipeline(&kernel.pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(grid[0], grid[1], grid[2]);
    }

    /// out (rows, n) = a (rows, k) @ w (k, n).
    fn matmul(&self, pass: &mut wgpu::ComputePass<'_>, a: &wgpu::Buffer, w: &wgpu::Buffer, out: &wgpu::Buffer, rows: usize, k: usize, n: usize) {
        self.note(Op::Matmul, vec![Shape::Matrix(rows, k), Shape::Matrix(k, n)], Shape::Matrix(rows, n), String::new());
        let params = Params::new().u(0, rows as u32).u(1, n as u32).u(2, k as u32).u(3, 0).f(4, 1.0);
        // A prompt of 64 tokens or more fills the blocked kernel's tiles; one token does not.
        let (kernel, grid) = KernelId::for_product(rows, n);
        self.dispatch(pass, kernel, params, &[a, w, out], grid);
    }

    /// out = a + b, where b has `b_len` elements (a's length, or one broadcast row).
    fn add(&self, pass: &mut wgpu::ComputePass<'_>, a: &wgpu::Buffer, b: &wgpu::Buffer, out: &wgpu::Buffer, len: usize, b_len: usize) {
        let width = if b_len < len { b_len } else { self.config.d_model.min(len) };
        let rows = len / width.max(1);
        let b_shape = if b_len < len { Shape::Matrix(1, b_len) } else { Shape::Matrix(rows, width) };
        self.note(Op::Add, vec![Shape::Matrix(rows, width), b_shape], Shape::Matrix(rows, width), String::new());
        let params = Params::new().u(0, len as u32).u(1, b_len as u32);
        self.dispatch(pass, KernelId::Add, params, &[a, b, out], grid_1d(len.div_ceil(256)));
    }

    fn layer_norm(&self, pass: &mut wgpu::ComputePass<'_>, x: &wgpu::Buffer, gamma: &wgpu::Buffer, beta: &wgpu::Buffer, out: &wgpu::Buffer, rows: usize) {
        let cfg = &self.config;
        let (c, shape) = (cfg.d_model, Shape::Matrix(rows, cfg.d_model));
        self.note(Op::LayerNorm, vec![shape, Shape::Matrix(1, c), Shape::Matrix(1, c)], shape, layer_norm_params(cfg.ln_eps));
        let params = Params::new().u(0, rows as u32).u(1, cfg.d_model as u32).f(2, cfg.ln_eps);
        self.dispatch(pass, KernelId::LayerNorm, params, &[x, gamma, beta, out], grid_1d(rows));
    }

    /// Runs `ids` (T tokens) after the P cached positions, appending their keys and values
    /// to the cache. On an error the cache length is unchanged (the caller may retry or move
    /// to the CPU; positions past P are overwritten by the next pass).
    pub async fn forward(&self, ids: &[u32]) -> Result<ResidentOutput> {
        let gpu = &*self.gpu;
        if let Some(reason) = gpu.lost_reason() {
            return Err(ComputeError::DeviceLost(reason));
        }
        let cfg = &self.config;
        let (t, p, c, f, v, nh, layers) = (ids.len(), self.cached(), cfg.d_model, cfg.d_ff, cfg.vocab_size, cfg.n_heads, cfg.n_layers);
        if t == 0 {
            return Err(ComputeError::Invalid("Não há tokens para processar.".into()));
        }
        if p + t > cfg.context {
            return Err(ComputeError::Invalid(format!("O contexto do modelo é de {} tokens; esta entrada teria {}.", cfg.context, p + t)));
        }
        crate::core::ops::check_vocab(v, ids)?;
        let s = &self.scratch;
        let queue = &gpu.queue;
        queue.write_buffer(&s.ids, 0, bytemuck::cast_slice(ids));
        queue.write_buffer(&s.pe, 0, bytemuck::cast_slice(sinusoidal(p, t, c, cfg.pe_theta).as_slice()));

        // Scopes pop in reverse order of their pushes.
        let oom = gpu.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
        self.ops.borrow_mut().clear();
        let mut encoder = gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("decoder") });
        let tc = t * c;
        let keys_total = p + t;
        let weights_len = nh * t * keys_total;
        let mut current = 0; // which of s.x holds the residual stream
        for l in 0..layers {
            let b = &self.blocks[l];
            {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("block"), timestamp_writes: None });
                if l == 0 {
                    // x = E[ids]·√C + PE
                    self.set_stage("embeddings");
                    self.note(Op::Embedding, vec![Shape::Matrix(v, c), Shape::Ids(t)], Shape::Matrix(t, c), String::new());
                    let params = Params::new().u(0, t as u32).u(1, c as u32).u(2, v as u32);
                    self.dispatch(&mut pass, KernelId::Embedding, params, &[&self.tok_emb, &s.ids, &s.h], grid_1d(tc.div_ceil(256)));
                    self.note(Op::Scale, vec![Shape::Matrix(t, c)], Shape::Matrix(t, c), alpha((c as f32).sqrt()));
                    let params = Params::new().u(0, tc as u32).f(1, (c as f32).sqrt());
                    self.dispatch(&mut pass, KernelId::Scale, params, &[&s.h, &s.emb], grid_1d(tc.div_ceil(256)));
                    self.add(&mut pass, &s.emb, &s.pe, &s.x[0], tc, tc);
                }
                self.set_stage(&format!("bloco {}", l + 1));
                // h = LN1(x); q, k, v = h W^Q, h W^K, h W^V
                self.layer_norm(&mut pass, &s.x[current], &b.ln1_gamma, &b.ln1_beta, &s.h, t);
                self.matmul(&mut pass, &s.h, &b.w_q, &s.q, t, c, c);
                self.matmul(&mut pass, &s.h, &b.w_k, &s.k, t, c, c);
                self.matmul(&mut pass, &s.h, &b.w_v, &s.v, t, c, c);
            }
            // The new keys and values join the cache at rows P … P+T−1.
            let at = (4 * p * c) as u64;
            encoder.copy_buffer_to_buffer(&s.k, 0, &self.keys[l], at, (4 * tc) as u64);
            encoder.copy_buffer_to_buffer(&s.v, 0, &self.values[l], at, (4 * tc) as u64);
            {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("block"), timestamp_writes: None });
                let params = Params::new()
                    .u(0, t as u32)
                    .u(1, keys_total as u32)
                    .u(2, c as u32)
                    .u(3, nh as u32)
                    .u(4, 1)
                    .u(5, p as u32)
                    .f(6, 1.0 / (cfg.head_size() as f32).sqrt());
                let (keys, values) = (&self.keys[l], &self.values[l]);
                let kv = Shape::Matrix(keys_total, c);
                self.note(Op::Attention, vec![Shape::Matrix(t, c), kv, kv], Shape::Matrix(t, c), attention_params(nh, true, p));
                self.dispatch(&mut pass, KernelId::Attention, params, &[&s.q, keys, values, &s.att, &s.weights], grid_1d(t * nh));
                // x = x + att W^O
                self.matmul(&mut pass, &s.att, &b.w_o, &s.proj, t, c, c);
                self.add(&mut pass, &s.x[current], &s.proj, &s.x[1 - current], tc, tc);
                current = 1 - current;
                // x = x + ReLU(LN2(x) W1 + b1) W2 + b2
                self.layer_norm(&mut pass, &s.x[current], &b.ln2_gamma, &b.ln2_beta, &s.h, t);
                self.matmul(&mut pass, &s.h, &b.w1, &s.f1, t, c, f);
                self.add(&mut pass, &s.f1, &b.b1, &s.f2, t * f, f);
                self.note(Op::Relu, vec![Shape::Matrix(t, f)], Shape::Matrix(t, f), String::new());
                let params = Params::new().u(0, (t * f) as u32);
                self.dispatch(&mut pass, KernelId::Relu, params, &[&s.f2, &s.f1], grid_1d((t * f).div_ceil(256)));
                self.matmul(&mut pass, &s.f1, &b.w2, &s.proj, t, f, c);
                self.add(&mut pass, &s.proj, &b.b2, &s.q, tc, c);
                self.add(&mut pass, &s.x[current], &s.q, &s.x[1 - current], tc, tc);
                current = 1 - current;
            }
            let at = (4 * (v + l * weights_len)) as u64;
            encoder.copy_buffer_to_buffer(&s.weights, 0, &s.staging, at, (4 * weights_len) as u64);
        }
        // logits = LN_f(x_last) · Eᵀ
        encoder.copy_buffer_to_buffer(&s.x[current], (4 * (t - 1) * c) as u64, &s.last, 0, (4 * c) as u64);
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: Some("head"), timestamp_writes: None });
            self.set_stage("saída");
            self.layer_norm(&mut pass, &s.last, &self.ln_f_gamma, &self.ln_f_beta, &s.last_norm, 1);
            self.note(Op::MatmulBt, vec![Shape::Matrix(1, c), Shape::Matrix(v, c)], Shape::Matrix(1, v), alpha(1.0));
            let params = Params::new().u(0, 1).u(1, v as u32).u(2, c as u32).u(3, 1).f(4, 1.0);
            let (kernel, grid) = KernelId::for_product(1, v);
            self.dispatch(&mut pass, kernel, params, &[&s.last_norm, &self.tok_emb, &s.logits], grid);
        }
        encoder.copy_buffer_to_buffer(&s.logits, 0, &s.staging, 0, (4 * v) as u64);
        queue.submit([encoder.finish()]);
        let validation = validation.pop();
        let oom = oom.pop();

        let bytes = (4 * (v + layers * weights_len)) as u64;
        let (done, complete) = readback::map_channel();
        s.staging.slice(..bytes).map_async(wgpu::MapMode::Read, complete);
        #[cfg(not(target_arch = "wasm32"))]
        gpu.device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| ComputeError::DeviceLost(e.to_string()))?;
        let mapped = done.await;
        let mut result = match mapped {
            Ok(()) => {
                let floats: Vec<f32> = match s.staging.slice(..bytes).get_mapped_range() {
                    Ok(view) => bytemuck::cast_slice::<u8, f32>(&view).to_vec(),
                    Err(e) => {
                        s.staging.unmap();
                        return Err(ComputeError::Gpu(e.to_string()));
                    }
                };
                s.staging.unmap();
                let logits = Matrix::from_vec(1, v, floats[..v].to_vec())?;
                let attention = (0..layers)
                    .map(|l| Matrix::from_vec(nh * t, keys_total, floats[v + l * weights_len..v + (l + 1) * weights_len].to_vec()))
                    .collect::<Result<Vec<_>>>()?;
                Ok(ResidentOutput { logits, attention, ops: self.ops.borrow_mut().drain(..).collect() })
            }
            Err(e) => Err(ComputeError::DeviceLost(format!("leitura falhou: {e}"))),
        };
        if let Some(error) = validation.await {
            result = Err(ComputeError::Gpu(error.to_string()));
        }
        if let Some(error) = oom.await {
            result = Err(ComputeError::Gpu(format!("memória esgotada: {error}")));
        }
        if let Some(reason) = gpu.lost_reason() {
            result = Err(ComputeError::DeviceLost(reason));
        }
        if result.is_ok() {
            self.cached.set(p + t);
        }
        result
    }
}
