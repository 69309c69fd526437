//! Widgets of the sequence-modelling articles ("modelagem-de-sequencias" and
//! "prestando-atencao"), one file per widget:
//! - `markov`: the weather chain (editable P, state graph, animated sampler, convergence);
//! - `transitions`: corpus → transition heatmap, state graph, one-hot lookup h × T, sampler,
//!   probability of a typed sentence;
//! - `sparsity`: |V|^N against the N-grams a corpus contains, and Zipf's law;
//! - `doc_vectors`: per-document transition vectors and their comparison;
//! - `likelihood`: T_d beside T_corpus and the likelihood ratios v*;
//! - `votes` and `vote_mask`: skip-pair votes, their dilution and the Hadamard mask;
//! - `mask_embeddings`: one query attending with an additive or multiplicative mask;
//! - `ffn_detector`: the FFN layer with AND neurons, truth table, ReLU vs GeLU;
//! - `softmax_lab`: shift invariance, scale and the Jacobian of the softmax.
//!
//! Every widget is built on the kit's `Shell`. Shared by the N-gram widgets (`corpus_panel`):
//! the corpus panel (the articles' presets and explicit tokenizer settings) and small helpers.
//! `softmax_lab` is in both builds of the page's module (issue 36: the gradient check's page,
//! a model page, has one); the rest only in the sequences' build (feature `articles-sequences`). Everything a widget
//! shows is computed by `core::sequence`; tensor products run on the active backend.

#[cfg(feature = "articles-sequences")]
pub mod doc_vectors;
#[cfg(feature = "articles-sequences")]
pub mod ffn_detector;
#[cfg(feature = "articles-sequences")]
pub mod likelihood;
#[cfg(feature = "articles-sequences")]
pub mod markov;
#[cfg(feature = "articles-sequences")]
pub mod mask_embeddings;
#[cfg(any(feature = "articles-sequences", feature = "models"))]
pub mod softmax_lab;
#[cfg(feature = "articles-sequences")]
pub mod sparsity;
#[cfg(feature = "articles-sequences")]
pub mod transitions;
#[cfg(feature = "articles-sequences")]
pub mod vote_mask;
#[cfg(feature = "articles-sequences")]
pub mod votes;
#[cfg(feature = "articles-sequences")]
mod corpus_panel;
#[cfg(feature = "articles-sequences")]
pub use corpus_panel::*;
