//! `Matrix`: a dense, row-major f32 matrix over `ndarray::Array2`.
//!
//! Row-major and contiguous on purpose: the same bytes go to GPU buffers unchanged.

use ndarray::Array2;

use super::error::{ComputeError, Result};

/// (rows, columns) of a tensor: every tensor is a row-major f32 matrix. The shape rules of
/// `ops` and the op table (`op`) speak in these.
pub type Dims = (usize, usize);

#[derive(Clone, Debug, PartialEq)]
pub struct Matrix {
    data: Array2<f32>,
}

impl Matrix {
    /// A `rows × cols` matrix of zeros.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        Matrix { data: Array2::zeros((rows, cols)) }
    }

    /// Builds from row-major values; fails if `values.len() != rows * cols`.
    pub fn from_vec(rows: usize, cols: usize, values: Vec<f32>) -> Result<Self> {
        if values.len() != rows * cols {
            return Err(ComputeError::Invalid(format!(
                "Esperava {} valores para uma matriz {rows}×{cols}, recebi {}.",
                rows * cols,
                values.len()
            )));
        }
        let data = Array2::from_shape_vec((rows, cols), values)
            .map_err(|e| ComputeError::Invalid(e.to_string()))?;
        Ok(Matrix { data })
    }

    /// Builds from rows of equal length (the convention of the articles: one row per token).
    pub fn from_rows<R: AsRef<[f32]>>(rows: &[R]) -> Result<Self> {
        let cols = rows.first().map_or(0, |r| r.as_ref().len());
        if let Some(bad) = rows.iter().position(|r| r.as_ref().len() != cols) {
            return Err(ComputeError::Invalid(format!(
                "A linha {} tem {} valores; as outras têm {cols}.",
                bad + 1,
                rows[bad].as_ref().len()
            )));
        }
        let values = rows.iter().flat_map(|r| r.as_ref().iter().copied()).collect();
        Matrix::from_vec(rows.len(), cols, values)
    }

    pub fn from_array(data: Array2<f32>) -> Self {
        // Normalise to standard (row-major, contiguous) layout so `as_slice` always works.
        if data.is_standard_layout() {
            Matrix { data }
        } else {
            Matrix { data: data.as_standard_layout().into_owned() }
        }
    }

    pub fn rows(&self) -> usize {
        self.data.nrows()
    }

    pub fn cols(&self) -> usize {
        self.data.ncols()
    }

    /// `(rows, cols)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.rows(), self.cols())
    }

    pub fn get(&self, row: usize, col: usize) -> f32 {
        self.data[[row, col]]
    }

    pub fn set(&mut self, row: usize, col: usize, value: f32) {
        self.data[[row, col]] = value;
    }

    pub fn row(&self, row: usize) -> Vec<f32> {
        self.data.row(row).to_vec()
    }

    /// Row-major values, writable in place (the KV cache's append).
    pub fn as_mut_slice(&mut self) -> &mut [f32] {
        self.data.as_slice_mut().expect("Matrix keeps standard layout")
    }

    /// Row-major values (always contiguous, see `from_array`).
    pub fn as_slice(&self) -> &[f32] {
        self.data.as_slice().expect("Matrix keeps standard layout")
    }

    pub fn to_rows(&self) -> Vec<Vec<f32>> {
        (0..self.rows()).map(|r| self.row(r)).collect()
    }

    pub fn array(&self) -> &Array2<f32> {
        &self.data
    }

    /// Columns `start..start + width` as a new matrix (one head's slice of Q, K or V).
    pub fn columns(&self, start: usize, width: usize) -> Matrix {
        Matrix::from_array(self.data.slice(ndarray::s![.., start..start + width]).to_owned())
    }

    /// The given columns, in the given order (e.g. the terms a heatmap has room for).
    pub fn select_columns(&self, indices: &[usize]) -> Matrix {
        Matrix::from_array(self.data.select(ndarray::Axis(1), indices))
    }

    /// The first `rows` rows (all of them if there are fewer).
    pub fn first_rows(&self, rows: usize) -> Matrix {
        Matrix::from_array(self.data.slice(ndarray::s![..rows.min(self.rows()), ..]).to_owned())
    }

    /// Fails with the first non-finite cell, naming the matrix `what`.
    pub fn check_finite(&self, what: &'static str) -> Result<()> {
        for ((row, col), v) in self.data.indexed_iter() {
            if !v.is_finite() {
                return Err(ComputeError::NonFinite { what, row, col });
            }
        }
        Ok(())
    }

    /// Largest absolute elementwise difference; `None` if the shapes differ.
    pub fn max_abs_diff(&self, other: &Matrix) -> Option<f32> {
        if self.shape() != other.shape() {
            return None;
        }
        Some(
            self.as_slice()
                .iter()
                .zip(other.as_slice())
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f32::max),
        )
    }

    /// ‖self − other‖ / ‖other‖ (Frobenius), the parity measure of GPU against CPU.
    pub fn relative_error(&self, reference: &Matrix) -> Option<f32> {
        if self.shape() != reference.shape() {
            return None;
        }
        let (mut diff, mut norm) = (0.0f64, 0.0f64);
        for (a, b) in self.as_slice().iter().zip(reference.as_slice()) {
            diff += ((a - b) as f64).powi(2);
            norm += (*b as f64).powi(2);
        }
        Some(if norm == 0.0 { diff.sqrt() as f32 } else { (diff / norm).sqrt() as f32 })
    }
}

/// A matrix crosses to and from the page's worker as (rows, cols, row-major values).
impl serde::Serialize for Matrix {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let (rows, cols) = self.shape();
        (rows, cols, self.as_slice()).serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for Matrix {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Matrix, D::Error> {
        let (rows, cols, values) = <(usize, usize, Vec<f32>)>::deserialize(d)?;
        Matrix::from_vec(rows, cols, values).map_err(serde::de::Error::custom)
    }
}
