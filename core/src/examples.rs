//! Inputs of the articles' worked examples (facts from ../shared/spec), used as widget defaults.
//!
//! Only inputs live here; every output the site shows is computed from them.

use super::attention::AttentionInputs;
use super::matrix::Matrix;

/// Textbook chapter (transformer-autoatencao), Example 2: three 3-d tokens and W^Q, W^K, W^V.
pub fn textbook_example_2() -> AttentionInputs {
    let m = |rows: &[[f32; 3]]| Matrix::from_rows(rows).expect("3×3 literal");
    AttentionInputs {
        x: m(&[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0]]),
        w_q: m(&[[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]]),
        w_k: m(&[[0.9, 0.8, 0.7], [0.6, 0.5, 0.4], [0.3, 0.2, 0.1]]),
        w_v: m(&[[0.2, 0.4, 0.6], [0.1, 0.3, 0.5], [0.9, 0.7, 0.2]]),
        causal: false,
    }
}

/// The matrix products worked in the vectorization article: (id, label, A, B).
pub fn article_matrix_products() -> Vec<(&'static str, &'static str, Matrix, Matrix)> {
    let m = |rows: &[&[f32]]| Matrix::from_rows(rows).expect("rectangular literal");
    vec![
        ("linhas", "3×2 · 2×2", m(&[&[1.0, 2.0], &[3.0, 4.0], &[5.0, 6.0]]), m(&[&[7.0, 8.0], &[9.0, 10.0]])),
        ("vetores", "vetor linha · vetor coluna (produto escalar)", m(&[&[1.0, 2.0, 3.0]]), m(&[&[4.0], &[5.0], &[6.0]])),
        ("matriz-vetor", "matriz · vetor coluna", m(&[&[1.0, 2.0], &[3.0, 4.0]]), m(&[&[5.0], &[6.0]])),
        ("vetor-matriz", "vetor linha · matriz", m(&[&[1.0, 2.0, 3.0]]), m(&[&[4.0, 7.0], &[5.0, 8.0], &[6.0, 9.0]])),
        (
            "consulta",
            "one-hot · tabela (consulta)",
            m(&[&[1.0, 0.0, 0.0, 0.0], &[0.0, 0.0, 0.0, 1.0], &[0.0, 0.0, 1.0, 0.0]]),
            m(&[&[10.0, 11.0], &[20.0, 21.0], &[30.0, 31.0], &[40.0, 41.0]]),
        ),
    ]
}

/// A corpus from the vectorization article, as a widget preset.
pub struct CorpusPreset {
    pub id: &'static str,
    pub label: &'static str,
    pub documents: &'static [&'static str],
    /// Words the article's own example leaves out (its implicit stopwords).
    pub stopwords: &'static [&'static str],
    /// A query, for the search widget.
    pub query: &'static str,
}

/// Every corpus the vectorization article works through, in its order.
pub const ARTICLE_CORPORA: &[CorpusPreset] = &[
    CorpusPreset { id: "gato-telhado", label: "gato preto no telhado", documents: &["O gato preto subiu no telhado. O gato dorme no telhado"], stopwords: &[], query: "" },
    CorpusPreset { id: "joao-maria", label: "João ama Maria", documents: &["João ama Maria", "Maria ama João"], stopwords: &[], query: "" },
    CorpusPreset { id: "carro", label: "carro / automóvel", documents: &["O carro é veloz", "O automóvel é rápido"], stopwords: &[], query: "" },
    CorpusPreset { id: "filme", label: "filme bom / não bom", documents: &["O filme é bom", "O filme não é bom"], stopwords: &[], query: "" },
    CorpusPreset { id: "bow", label: "par do Bag of Words", documents: &["O gato preto subiu no telhado", "O cachorro correu no gramado"], stopwords: &[], query: "" },
    CorpusPreset { id: "pequeno-gato", label: "pequeno gato preto", documents: &["O pequeno gato preto viu outro gato preto", "Gato"], stopwords: &[], query: "" },
    CorpusPreset {
        id: "tres-documentos",
        label: "três documentos (gato, rato, cachorro)",
        documents: &["O gato preto caça o rato preto", "O rato branco corre do gato", "O cachorro late para o gato preto"],
        stopwords: &[],
        query: "",
    },
    CorpusPreset { id: "cachorro-log", label: "cachorro late, corre e pula", documents: &["O cachorro late. O cachorro corre. O cachorro pula. O gato dorme."], stopwords: &[], query: "" },
    CorpusPreset {
        id: "python-java",
        label: "Python e Java",
        documents: &["Python é uma linguagem de programação. Python é versátil. Python é popular", "Java é uma linguagem de programação"],
        stopwords: &[],
        query: "",
    },
    CorpusPreset { id: "aumentada", label: "gato preto viu outro gato", documents: &["O gato preto viu outro gato preto. O gato dormiu."], stopwords: &[], query: "" },
    CorpusPreset { id: "detalhado", label: "exemplo detalhado de TF-IDF", documents: &["O gato preto subiu no telhado. O gato dorme no telhado", "O telhado é preto"], stopwords: &[], query: "" },
    CorpusPreset {
        id: "busca",
        label: "busca: gato no telhado",
        documents: &["O gato caçador pula no telhado", "Cachorro late para o gato no quintal", "Pássaro voa alto no céu azul"],
        stopwords: &["o", "no", "para"],
        query: "gato no telhado",
    },
];

pub fn corpus_preset(id: &str) -> Option<&'static CorpusPreset> {
    ARTICLE_CORPORA.iter().find(|p| p.id == id)
}

/// "Explicando Transformers", mask section: the first 3×3 block of its score matrix.
pub fn explicando_mask_scores() -> Matrix {
    Matrix::from_rows(&[[6.32, -1.12, 1.32], [-1.81, 0.96, 0.89], [-1.81, 0.06, -2.27]]).expect("3×3 literal")
}
