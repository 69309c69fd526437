//! Widgets of attention itself (core::attention): Q, K, V and the weights, and the causal mask
//! on a softmax.

pub mod attention;
pub mod masked_softmax;
// Issue 22: the soft dictionary and the gradient checker.
pub mod gradient_check;
pub mod soft_dictionary;
