//! Widgets of attention itself (core::attention): Q, K, V and the weights, and the causal mask
//! on a softmax.

#[cfg(feature = "articles-attention")]
pub mod attention;
#[cfg(feature = "articles-attention")]
pub mod masked_softmax;
// Issue 22: the soft dictionary and the gradient checker.
#[cfg(feature = "models")]
pub mod gradient_check;
#[cfg(feature = "articles-attention")]
pub mod soft_dictionary;
