//! Embeddings as a lookup: a one-hot matrix O (t, |V|) times the table E (|V|, d) picks E's
//! rows in token order, X = O·E (t, d). Libraries skip the zeros and gather the rows
//! directly (`nn.Embedding`); the job below computes both, on the same backend, to show
//! that they agree.
//!
//! Only the columns of O whose token occurs can be non-zero, so the widget draws O restricted
//! to those columns and E restricted to the same rows: the product is unchanged.

use crate::error::{ComputeError, Result};
use crate::executor::{Executor, Job};
use crate::matrix::Matrix;
use crate::ops::check_ids;
use crate::rng::Rng;

/// A (|V|, d) table with entries uniform in [−1, 1), the same for the same seed: an untrained
/// model's embeddings. Row `<pad>` (0) is zero, as with `padding_idx = 0`.
pub fn seeded_table(vocab: usize, d: usize, seed: u64) -> Matrix {
    let mut table = Rng::new(seed).matrix(vocab, d, -1.0, 1.0);
    for c in 0..d {
        table.set(0, c, 0.0);
    }
    table
}

/// The distinct ids of `ids`, ascending: the columns of O (and rows of E) that matter.
pub fn distinct_ids(ids: &[u32]) -> Vec<u32> {
    let mut distinct = ids.to_vec();
    crate::order::sort(&mut distinct);
    distinct.dedup();
    distinct
}

/// O restricted to the columns `columns` (t, columns.len()): row p has its 1 in the column of ids[p].
pub fn one_hot_over(ids: &[u32], columns: &[u32]) -> Matrix {
    let mut o = Matrix::zeros(ids.len(), columns.len());
    for (p, id) in ids.iter().enumerate() {
        if let Some(c) = columns.iter().position(|k| k == id) {
            o.set(p, c, 1.0);
        }
    }
    o
}

/// The rows `ids` of `table`, in that order (k, d).
pub fn rows_of(table: &Matrix, ids: &[u32]) -> Matrix {
    let mut out = Matrix::zeros(ids.len(), table.cols());
    for (r, &id) in ids.iter().enumerate() {
        for c in 0..table.cols() {
            out.set(r, c, table.get(id as usize, c));
        }
    }
    out
}

/// O·E and the direct gather, for the ids of one text.
#[derive(Clone, Debug)]
pub struct LookupJob {
    /// E (|V|, d): the whole table.
    pub table: Matrix,
    /// The text's ids (t).
    pub ids: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Lookup {
    /// The distinct ids, ascending: O's columns and E's rows below.
    pub columns: Vec<u32>,
    /// O over `columns` (t, k).
    pub one_hot: Matrix,
    /// E's rows for `columns` (k, d).
    pub table_rows: Matrix,
    /// O·E (t, d), computed as a matrix product.
    pub product: Matrix,
    /// E[ids] (t, d), computed as a gather (`Executor::embedding`).
    pub gathered: Matrix,
}

impl Job for LookupJob {
    type Output = Lookup;
    async fn run<E: Executor>(&self, e: &E) -> Result<Lookup> {
        if self.ids.is_empty() {
            return Err(ComputeError::Empty { what: "A sequência de tokens" });
        }
        check_ids(&self.table, &self.ids)?;
        let columns = distinct_ids(&self.ids);
        let one_hot = one_hot_over(&self.ids, &columns);
        let table_rows = rows_of(&self.table, &columns);
        let product = e.matmul(&e.upload(&one_hot)?, &e.upload(&table_rows)?)?;
        let gathered = e.embedding(&e.upload(&self.table)?, &self.ids)?;
        let [product, gathered] = e.read_n([&product, &gathered]).await?;
        Ok(Lookup { columns, one_hot, table_rows, product, gathered })
    }
}
