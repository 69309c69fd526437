//! Widgets of attention itself (core::attention): Q, K, V and the weights, and the causal mask
//! on a softmax.

pub mod attention;
pub mod masked_softmax;
