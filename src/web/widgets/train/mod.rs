//! Training in the browser (issue 23): `train`, a tiny decoder trained on a story or on the
//! reader's text, live. Its computation is `core::train_run`.

pub mod train;
