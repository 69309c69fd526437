//! The vectorization article's text widgets, one file each: `bow` (tokens → vocabulary →
//! counts), `tf` (8 TF variants), `idf` (5 IDF variants and the IDF-vs-df curve), `tfidf`
//! (TF × IDF = TF-IDF, stopwords, L2, cosine between documents) and `search` (a query ranked
//! by cosine). All are built on the frame of `corpus`: the corpus panel (one document per
//! line, the article's corpora as presets, explicit tokenizer settings) and its update.

pub mod bow;
pub mod corpus;
pub mod idf;
pub mod search;
pub mod tf;
pub mod tfidf;
