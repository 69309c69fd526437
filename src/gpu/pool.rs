//! A pool of GPU buffers by size class, so interactive widgets that recompute on every
//! keystroke reuse buffers instead of allocating new ones each time.

use std::collections::HashMap;

/// Buffers kept per (size class, usage); more are dropped, which bounds idle GPU memory.
const KEEP_PER_CLASS: usize = 8;

#[derive(Default)]
pub struct BufferPool {
    free: HashMap<(u64, wgpu::BufferUsages), Vec<wgpu::Buffer>>,
}

impl BufferPool {
    /// Sizes round up to a power of two (at least 256 bytes), so nearby sizes share buffers.
    pub fn size_class(bytes: u64) -> u64 {
        bytes.max(256).next_power_of_two()
    }

    /// A buffer of at least `bytes` with exactly `usage`.
    pub fn take(&mut self, device: &wgpu::Device, bytes: u64, usage: wgpu::BufferUsages) -> wgpu::Buffer {
        let class = Self::size_class(bytes);
        if let Some(buffer) = self.free.get_mut(&(class, usage)).and_then(Vec::pop) {
            return buffer;
        }
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("atencao pool"),
            size: class,
            usage,
            mapped_at_creation: false,
        })
    }

    /// Returns a buffer for reuse.
    pub fn give(&mut self, buffer: wgpu::Buffer) {
        let slot = self.free.entry((buffer.size(), buffer.usage())).or_default();
        if slot.len() < KEEP_PER_CLASS {
            slot.push(buffer);
        }
    }

    /// Buffers currently idle in the pool (for tests and the memory readout).
    pub fn idle_count(&self) -> usize {
        self.free.values().map(Vec::len).sum()
    }

    /// Bytes held by the idle buffers.
    pub fn idle_bytes(&self) -> u64 {
        self.free.values().flatten().map(wgpu::Buffer::size).sum()
    }

    pub fn clear(&mut self) {
        self.free.clear();
    }
}
