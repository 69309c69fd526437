//! Widgets of the compute page (core::bench): the matrix product timed on this machine.

pub mod matmul_bench;
