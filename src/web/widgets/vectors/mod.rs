//! Widgets of the vectors article (core::vectors and the products of core::ops): vectors on
//! the plane, the dot product, the matrix product cell by cell, one-hot rows.

pub mod dot_product;
pub mod matmul;
pub mod one_hot;
pub mod vectors;
