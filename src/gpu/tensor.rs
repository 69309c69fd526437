//! `GpuTensor`: a matrix that lives in a GPU buffer, and the buffer pool behind it.
//!
//! A tensor holds its buffer through an `Rc`; when the last handle goes, the buffer returns
//! to the pool, but only after the submission being recorded has gone to the GPU: until
//! then a command already recorded may still read or write it, and a `write_buffer` for a
//! new upload (which the queue applies before the whole submission) would land under its
//! feet. Buffers freed while recording wait in `quarantine` and join the pool at submit.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use super::pool::BufferPool;

/// The pool and the buffers waiting for the current submission to go.
#[derive(Default)]
pub struct Buffers {
    pub pool: BufferPool,
    pub quarantine: Vec<wgpu::Buffer>,
}

impl Buffers {
    /// The submission went: the quarantined buffers can be reused by the next one.
    pub fn release_quarantine(&mut self) {
        for buffer in std::mem::take(&mut self.quarantine) {
            self.pool.give(buffer);
        }
    }
}

/// A buffer that goes back to its pool (through the quarantine) when dropped.
pub struct Owned {
    buffer: Option<wgpu::Buffer>,
    home: Weak<RefCell<Buffers>>,
}

impl Owned {
    pub fn new(buffer: wgpu::Buffer, home: &Rc<RefCell<Buffers>>) -> Owned {
        Owned { buffer: Some(buffer), home: Rc::downgrade(home) }
    }

    pub fn buffer(&self) -> &wgpu::Buffer {
        self.buffer.as_ref().expect("present until dropped")
    }
}

impl Drop for Owned {
    fn drop(&mut self) {
        if let (Some(buffer), Some(home)) = (self.buffer.take(), self.home.upgrade()) {
            if let Ok(mut buffers) = home.try_borrow_mut() {
                buffers.quarantine.push(buffer);
            }
        }
    }
}

/// A (rows, cols) row-major f32 matrix in a GPU buffer; a prefix of rows can share the
/// buffer of a larger tensor (a KV cache read up to its length).
#[derive(Clone)]
pub struct GpuTensor {
    pub(super) storage: Rc<Owned>,
    pub(super) rows: usize,
    pub(super) cols: usize,
}

impl GpuTensor {
    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    pub(super) fn buffer(&self) -> &wgpu::Buffer {
        self.storage.buffer()
    }

    /// Bytes of its values (the binding's size; at least 4, since bindings cannot be empty).
    pub(super) fn bytes(&self) -> u64 {
        (4 * self.rows * self.cols) as u64
    }

    pub(super) fn binding_size(&self) -> u64 {
        self.bytes().max(4)
    }
}

impl std::fmt::Debug for GpuTensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GpuTensor({}×{})", self.rows, self.cols)
    }
}
