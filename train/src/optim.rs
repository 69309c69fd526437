//! AdamW (Loshchilov & Hutter, 2019) over the model's variables, with its moments saved in
//! checkpoints so an interrupted run resumes exactly where it stopped.

use std::collections::HashMap;
use std::path::Path;

use candle_core::backprop::GradStore;
use candle_core::{DType, Device, Result, Tensor};

use crate::model::Gpt;

pub struct AdamW {
    beta1: f64,
    beta2: f64,
    eps: f64,
    /// Steps taken (for the bias correction).
    t: usize,
    /// First and second moments, by variable name.
    m: HashMap<String, Tensor>,
    v: HashMap<String, Tensor>,
}

impl AdamW {
    pub fn new(gpt: &Gpt, beta1: f64, beta2: f64, eps: f64) -> Result<AdamW> {
        let zeros = |t: &Tensor| t.zeros_like();
        let m = gpt.vars.iter().map(|(n, v)| Ok((n.clone(), zeros(v.as_tensor())?))).collect::<Result<_>>()?;
        let v = gpt.vars.iter().map(|(n, v)| Ok((n.clone(), zeros(v.as_tensor())?))).collect::<Result<_>>()?;
        Ok(AdamW { beta1, beta2, eps, t: 0, m, v })
    }

    /// One update with learning rate `lr`; decoupled weight decay on matrices only (not on
    /// biases and layer-norm γ, β); gradients clipped to a global norm of `clip`.
    pub fn step(&mut self, gpt: &Gpt, grads: &GradStore, lr: f64, weight_decay: f64, clip: f64) -> Result<()> {
        self.t += 1;
        let mut norm2 = 0.0f64;
        for (_, var) in &gpt.vars {
            if let Some(g) = grads.get(var.as_tensor()) {
                norm2 += g.sqr()?.sum_all()?.to_scalar::<f32>()? as f64;
            }
        }
        let scale = if norm2.sqrt() > clip { clip / norm2.sqrt() } else { 1.0 };
        let (b1, b2) = (self.beta1, self.beta2);
        let c1 = 1.0 - b1.powi(self.t as i32);
        let c2 = 1.0 - b2.powi(self.t as i32);
        for (name, var) in &gpt.vars {
            let Some(g) = grads.get(var.as_tensor()) else { continue };
            let g = (g * scale)?;
            // Detached: otherwise each moment would keep the whole history of graphs alive.
            let m = ((&self.m[name] * b1)? + (&g * (1.0 - b1))?)?.detach();
            let v = ((&self.v[name] * b2)? + (g.sqr()? * (1.0 - b2))?)?.detach();
            let update = ((&m / c1)? / ((&v / c2)?.sqrt()? + self.eps)?)?;
            let theta = var.as_tensor();
            let decay = if theta.rank() >= 2 { weight_decay } else { 0.0 };
            let next = ((theta * (1.0 - lr * decay))? - (update * lr)?)?.detach();
            var.set(&next)?;
            self.m.insert(name.clone(), m);
            self.v.insert(name.clone(), v);
        }
        Ok(())
    }

    pub fn save(&self, _gpt: &Gpt, dir: &Path) -> Result<()> {
        candle_core::safetensors::save(&self.m, dir.join("adam_m.safetensors"))?;
        candle_core::safetensors::save(&self.v, dir.join("adam_v.safetensors"))?;
        std::fs::write(dir.join("adam_t.txt"), format!("{}\n", self.t))?;
        Ok(())
    }

    pub fn load(gpt: &Gpt, dir: &Path, device: &Device) -> Result<AdamW> {
        let mut opt = AdamW::new(gpt, 0.9, 0.95, 1e-8)?;
        let load = |f: &str| -> Result<HashMap<String, Tensor>> {
            candle_core::safetensors::load(dir.join(f), device)?
                .into_iter()
                .map(|(n, t)| Ok((n, t.to_dtype(DType::F32)?)))
                .collect()
        };
        opt.m = load("adam_m.safetensors")?;
        opt.v = load("adam_v.safetensors")?;
        opt.t = std::fs::read_to_string(dir.join("adam_t.txt"))?.trim().parse().map_err(|_| candle_core::Error::Msg("adam_t.txt".into()))?;
        Ok(opt)
    }
}
