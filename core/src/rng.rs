//! A small seeded generator (SplitMix64): reproducible random inputs for parity tests,
//! benchmarks and, later, sampling. Not for cryptography.

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    /// The whole state: `Rng::new(state)` goes on exactly from here (a branch of a
    /// generation restarts the generator where that step drew).
    pub fn state(&self) -> u64 {
        self.state
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next_f32()
    }

    /// Uniform integer in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// A (rows,cols) matrix with entries uniform in [lo, hi).
    pub fn matrix(&mut self, rows: usize, cols: usize, lo: f32, hi: f32) -> crate::Matrix {
        let values = (0..rows * cols).map(|_| self.uniform(lo, hi)).collect();
        crate::Matrix::from_vec(rows, cols, values).expect("length matches")
    }
}
