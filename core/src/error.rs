//! Errors of the compute layer, with messages in Portuguese because they end up in widgets.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum ComputeError {
    /// Two operands whose shapes do not fit the operation, e.g. `(2,3) @ (2,3)`.
    Shape { op: &'static str, left: (usize, usize), right: (usize, usize) },
    /// A matrix with no rows or no columns where the operation needs data.
    Empty { what: &'static str },
    /// A NaN or ±∞ in an input that must be finite.
    NonFinite { what: &'static str, row: usize, col: usize },
    /// An invalid parameter (temperature ≤ 0, heads not dividing the width, …).
    Invalid(String),
    /// The GPU reported an error (validation, out of memory, a failed readback).
    Gpu(String),
    /// The GPU device is gone; callers fall back to the CPU.
    DeviceLost(String),
}

impl ComputeError {
    /// True for failures of the GPU itself, after which the same job can be retried on the CPU.
    pub fn is_gpu_failure(&self) -> bool {
        matches!(self, ComputeError::Gpu(_) | ComputeError::DeviceLost(_))
    }
}

impl fmt::Display for ComputeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ComputeError::Shape { op, left, right } => write!(
                f,
                "Dimensões incompatíveis em {op}: {}×{} e {}×{}.",
                left.0, left.1, right.0, right.1
            ),
            ComputeError::Empty { what } => write!(f, "{what} está vazia."),
            ComputeError::NonFinite { what, row, col } => write!(
                f,
                "{what} tem um valor não finito na linha {}, coluna {}.",
                row + 1,
                col + 1
            ),
            ComputeError::Invalid(msg) => write!(f, "{msg}"),
            ComputeError::Gpu(msg) => write!(f, "Erro na GPU: {msg}"),
            ComputeError::DeviceLost(msg) => write!(f, "A GPU foi perdida: {msg}"),
        }
    }
}

impl std::error::Error for ComputeError {}

pub type Result<T> = std::result::Result<T, ComputeError>;
