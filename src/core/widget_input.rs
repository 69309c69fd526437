//! What an author writes in a widget's data attributes (on the site or in a blog post),
//! parsed and checked in one place so every widget answers with the same clear messages:
//! matrices as JSON (`data-matrices`) and a corpus (`data-corpus`). Whether the shapes fit
//! together is the computation's business; it reports mismatches itself.

use std::collections::BTreeMap;

use serde_json::Value;

use super::Matrix;

/// Largest side (rows or columns) of a matrix given in an attribute: beyond it no heatmap is
/// readable, and a typo like an extra zero in a generated list stays cheap.
pub const MAX_SIDE: usize = 64;

/// `{"x": [[1, 0], [0, 1]], "w_q": …}` → matrices by name. Every name must be in `allowed`;
/// every matrix a non-empty rectangular list of rows of finite numbers, at most `MAX_SIDE` a
/// side. Messages are in Portuguese, for the widget to show.
pub fn parse_matrices(json: &str, allowed: &[&str]) -> Result<BTreeMap<String, Matrix>, String> {
    let names = allowed.join(", ");
    let value: Value = serde_json::from_str(json).map_err(|e| format!("data-matrices não é um JSON válido ({e})."))?;
    let Value::Object(entries) = value else {
        return Err(format!("data-matrices deve ser um objeto JSON com as matrizes pelo nome ({names})."));
    };
    let mut out = BTreeMap::new();
    for (name, rows) in entries {
        if !allowed.contains(&name.as_str()) {
            return Err(format!("data-matrices: «{name}» não é uma matriz deste widget (use {names})."));
        }
        out.insert(name.clone(), parse_matrix(&name, &rows)?);
    }
    Ok(out)
}

fn parse_matrix(name: &str, rows: &Value) -> Result<Matrix, String> {
    let shape_hint = || format!("data-matrices: «{name}» deve ser uma lista de linhas de números, como [[1, 0], [0, 1]].");
    let rows = rows.as_array().ok_or_else(shape_hint)?;
    if rows.is_empty() {
        return Err(format!("data-matrices: «{name}» está vazia."));
    }
    let mut values: Vec<Vec<f32>> = Vec::with_capacity(rows.len());
    for (r, row) in rows.iter().enumerate() {
        let row = row.as_array().ok_or_else(shape_hint)?;
        let mut parsed = Vec::with_capacity(row.len());
        for (c, cell) in row.iter().enumerate() {
            let number = cell
                .as_f64()
                .ok_or_else(|| format!("data-matrices: «{name}», linha {}, coluna {}: {cell} não é um número.", r + 1, c + 1))?;
            let single = number as f32;
            if !single.is_finite() {
                return Err(format!("data-matrices: «{name}», linha {}, coluna {}: {number} é grande demais.", r + 1, c + 1));
            }
            parsed.push(single);
        }
        values.push(parsed);
    }
    let cols = values[0].len();
    if cols == 0 {
        return Err(format!("data-matrices: «{name}» tem linhas vazias."));
    }
    if let Some(r) = values.iter().position(|row| row.len() != cols) {
        return Err(format!(
            "data-matrices: em «{name}», a linha {} tem {} números e a linha 1 tem {cols}.",
            r + 1,
            values[r].len()
        ));
    }
    if values.len() > MAX_SIDE || cols > MAX_SIDE {
        return Err(format!("data-matrices: «{name}» passa de {MAX_SIDE} linhas ou colunas."));
    }
    Matrix::from_rows(&values).map_err(|e| format!("data-matrices: «{name}»: {e}"))
}

/// `data-corpus`: one document per line, or a JSON list of strings (for documents that span
/// several lines in the page's source). Blank documents are dropped; none left is an error.
pub fn parse_corpus(text: &str) -> Result<Vec<String>, String> {
    let trimmed = text.trim();
    let documents: Vec<String> = if trimmed.starts_with('[') {
        let list: Vec<String> = serde_json::from_str(trimmed)
            .map_err(|e| format!("data-corpus começa com «[» mas não é uma lista JSON de textos ({e})."))?;
        list.into_iter().map(|d| d.split_whitespace().collect::<Vec<_>>().join(" ")).collect()
    } else {
        trimmed.lines().map(|l| l.trim().to_string()).collect()
    };
    let documents: Vec<String> = documents.into_iter().filter(|d| !d.is_empty()).collect();
    if documents.is_empty() {
        return Err("data-corpus está vazio: escreva um documento por linha.".into());
    }
    Ok(documents)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ATTENTION: &[&str] = &["x", "w_q", "w_k", "w_v"];

    #[test]
    fn matrices_by_name() {
        let m = parse_matrices(r#"{"x": [[1, 0], [0, 1]], "w_v": [[1.5, -2], [3e-1, 4]]}"#, ATTENTION).unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m["x"].to_rows(), vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
        assert_eq!(m["w_v"].to_rows(), vec![vec![1.5, -2.0], vec![0.3, 4.0]]);
    }

    #[test]
    fn matrix_errors_say_what_and_where() {
        let err = |json: &str| parse_matrices(json, ATTENTION).unwrap_err();
        assert!(err("{x: 1}").contains("não é um JSON válido"));
        assert!(err("[[1]]").contains("objeto JSON"));
        assert!(err(r#"{"q": [[1]]}"#).contains("«q» não é uma matriz deste widget (use x, w_q, w_k, w_v)"));
        assert!(err(r#"{"x": 3}"#).contains("lista de linhas"));
        assert!(err(r#"{"x": []}"#).contains("está vazia"));
        assert!(err(r#"{"x": [[]]}"#).contains("linhas vazias"));
        assert!(err(r#"{"x": [[1, 2], [3]]}"#).contains("a linha 2 tem 1 números e a linha 1 tem 2"));
        assert!(err(r#"{"x": [[1, "a"]]}"#).contains("linha 1, coluna 2: \"a\" não é um número"));
        assert!(err(r#"{"x": [[1, null]]}"#).contains("não é um número"));
        assert!(err(r#"{"x": [[1e300]]}"#).contains("grande demais"));
        let wide = format!(r#"{{"x": [[{}]]}}"#, vec!["0"; MAX_SIDE + 1].join(","));
        assert!(err(&wide).contains("passa de 64"));
    }

    #[test]
    fn corpus_by_lines_or_json() {
        assert_eq!(parse_corpus("o gato dorme\n\n  o cão late  \n").unwrap(), vec!["o gato dorme", "o cão late"]);
        assert_eq!(parse_corpus(r#"["o gato\n dorme", "", "o cão"]"#).unwrap(), vec!["o gato dorme", "o cão"]);
        assert!(parse_corpus(" \n ").unwrap_err().contains("vazio"));
        assert!(parse_corpus("[1, 2]").unwrap_err().contains("lista JSON de textos"));
    }
}
