//! Checkpoints of the first article (vectors, TF, IDF, cosine, matrix products), made from the
//! same functions its widgets call: `vectors::{dot, norm, cosine}`, `text::tf::tf_matrix`,
//! `text::idf::idf`, `ops::matmul`.

use super::checkpoint::{factor, Answer, fixed, ints, one_largest, short, vector, Block, Checkpoint};
use crate::matrix::Matrix;
use crate::rng::Rng;
use crate::text::idf::{idf, IdfVariant};
use crate::text::tf::{tf_matrix, LogBase, TfVariant};
use crate::vectors;

/// u·v of two vectors of small integers.
pub fn dot_product(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    let n = 3 + rng.below(2) as usize;
    let (u, v) = (ints(&mut rng, n, -3, 4), ints(&mut rng, n, -3, 4));
    let value = vectors::dot(&u, &v).expect("same length") as f64;
    let products: Vec<String> = u.iter().zip(&v).map(|(&a, &b)| format!("{} · {}", factor(a as f64, 0), factor(b as f64, 0))).collect();
    let terms: Vec<String> = u.iter().zip(&v).map(|(&a, &b)| factor(a as f64 * b as f64, 0)).collect();
    let sums: f64 = u.iter().zip(&v).map(|(&a, &b)| (a + b) as f64).sum();
    Checkpoint::new(
        "produto-escalar",
        vec![Block::Text(format!("Calcule o produto escalar u·v de u = {} e v = {}.", vector(&u, 0), vector(&v, 0)))],
        Answer::Number { value, decimals: 0 },
        vec![
            "Multiplique as componentes de mesma posição e some os produtos: u·v = Σ uᵢvᵢ.".into(),
            format!("u·v = {}", products.join(" + ")),
            format!("= {}", terms.join(" + ")),
            format!("= {}", short(value, 0)),
        ],
        vec![(sums, "Você somou as componentes (uᵢ + vᵢ); o produto escalar multiplica cada par antes de somar.".into())],
    )
    .given("u", u)
    .given("v", v)
}

/// ‖v‖, the Euclidean length.
pub fn norm(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    let n = 2 + rng.below(2) as usize;
    let mut v = ints(&mut rng, n, -4, 5);
    if v.iter().all(|&x| x == 0.0) {
        v[0] = 3.0;
    }
    let value = vectors::norm(&v) as f64;
    let squares: f64 = v.iter().map(|&x| (x * x) as f64).sum();
    let l1: f64 = v.iter().map(|&x| x.abs() as f64).sum();
    let terms: Vec<String> = v.iter().map(|&x| format!("{}²", factor(x as f64, 0))).collect();
    Checkpoint::new(
        "norma",
        vec![Block::Text(format!("Qual é a norma (o comprimento) ‖v‖ do vetor v = {}? Responda com 4 casas decimais.", vector(&v, 0)))],
        Answer::Number { value, decimals: 4 },
        vec![
            "A norma é a raiz da soma dos quadrados: ‖v‖ = √(Σ vᵢ²).".into(),
            format!("Σ vᵢ² = {} = {}", terms.join(" + "), short(squares, 0)),
            format!("‖v‖ = √{} = {}", short(squares, 0), fixed(value, 4)),
        ],
        vec![
            (squares, "Faltou a raiz quadrada: a soma dos quadrados é ‖v‖², não ‖v‖.".into()),
            (l1, "Você somou os valores absolutos: essa é a norma L1; o comprimento é a raiz da soma dos quadrados.".into()),
        ],
    )
    .given("v", v)
}

/// The words the cosine's documents count.
const WORDS: [&str; 4] = ["gato", "cão", "dorme", "late"];

/// The cosine of two documents' count vectors.
pub fn cosine(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    let (mut a, mut b);
    loop {
        a = ints(&mut rng, 4, 0, 3);
        b = ints(&mut rng, 4, 0, 3);
        if vectors::norm(&a) > 0.0 && vectors::norm(&b) > 0.0 && vectors::dot(&a, &b).expect("same length") > 0.0 {
            break;
        }
    }
    let value = vectors::cosine(&a, &b).expect("same length").expect("non-zero vectors") as f64;
    let dot = vectors::dot(&a, &b).expect("same length") as f64;
    let (na, nb) = (vectors::norm(&a) as f64, vectors::norm(&b) as f64);
    let sq = |v: &[f32]| v.iter().map(|&x| (x * x) as f64).sum::<f64>();
    let row = |v: &[f32]| v.iter().map(|&x| short(x as f64, 0)).collect::<Vec<_>>();
    Checkpoint::new(
        "cosseno",
        vec![
            Block::Text("Dois documentos contam estas palavras:".into()),
            Block::Table {
                caption: "Contagens por documento".into(),
                head: std::iter::once("documento".to_string()).chain(WORDS.iter().map(|w| w.to_string())).collect(),
                rows: vec![("d₁".into(), row(&a)), ("d₂".into(), row(&b))],
            },
            Block::Text("Qual é o cosseno entre os vetores de contagens de d₁ e d₂? Responda com 4 casas decimais.".into()),
        ],
        Answer::Number { value, decimals: 4 },
        vec![
            "cos θ = d₁·d₂ / (‖d₁‖ ‖d₂‖).".into(),
            format!("d₁·d₂ = {}", short(dot, 0)),
            format!("‖d₁‖ = √{} = {}; ‖d₂‖ = √{} = {}", short(sq(&a), 0), fixed(na, 4), short(sq(&b), 0), fixed(nb, 4)),
            format!("cos θ = {} / ({} · {}) = {}", short(dot, 0), fixed(na, 4), fixed(nb, 4), fixed(value, 4)),
        ],
        vec![
            (dot, "Esse é o produto escalar: faltou dividir pelo produto das normas.".into()),
            (dot / (na * na), "Você dividiu pela norma de d₁ ao quadrado; o denominador é ‖d₁‖ · ‖d₂‖.".into()),
        ],
    )
    .given("a", a)
    .given("b", b)
}

/// IDF = log₁₀(N / df), by hand.
pub fn inverse_document_frequency(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    let n = 4 + rng.below(9) as usize;
    let df = 1 + rng.below(n as u64 - 1) as usize;
    let value = idf(n, df, IdfVariant::Basic, LogBase::Ten).to_f32() as f64;
    let ratio = n as f64 / df as f64;
    Checkpoint::new(
        "idf",
        vec![Block::Text(format!(
            "Um corpus tem N = {n} documentos, e a palavra «chuva» aparece em {df} deles. Qual é o IDF básico, log₁₀(N / df), de «chuva»? Responda com 4 casas decimais."
        ))],
        Answer::Number { value, decimals: 4 },
        vec![
            format!("N / df = {n} / {df} = {}", fixed(ratio, 4)),
            format!("IDF = log₁₀({}) = {}", fixed(ratio, 4), fixed(value, 4)),
        ],
        vec![
            (ratio, "Faltou o logaritmo: N / df é a razão, o IDF é log₁₀ dela.".into()),
            (-value, "A fração está invertida: é N / df (o total sobre os que contêm a palavra), não df / N.".into()),
            (ratio.ln(), "Você usou o logaritmo natural (ln); aqui a base é 10.".into()),
        ],
    )
    .given("n", [n as f64])
    .given("df", [df as f64])
}

/// Which word weighs most in a document by TF-IDF (raw TF × log₁₀(N / df)).
pub fn tfidf_largest(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    loop {
        let counts = Matrix::from_vec(3, 4, ints(&mut rng, 12, 0, 3)).expect("3 × 4");
        let df: Vec<usize> = (0..4).map(|w| (0..3).filter(|&d| counts.get(d, w) > 0.0).count()).collect();
        // Every word in some document, and the first document has at least two words.
        if df.contains(&0) || (0..4).filter(|&w| counts.get(0, w) > 0.0).count() < 2 {
            continue;
        }
        let tf = tf_matrix(&counts, TfVariant::Raw, LogBase::Ten);
        let idfs: Vec<f64> = df.iter().map(|&n| idf(3, n, IdfVariant::Basic, LogBase::Ten).to_f32() as f64).collect();
        let weights: Vec<f64> = (0..4).map(|w| tf.get(0, w) as f64 * idfs[w]).collect();
        if !one_largest(&weights, 4) {
            continue;
        }
        let best = (0..4).max_by(|&i, &j| weights[i].total_cmp(&weights[j])).expect("four");
        let why = (0..4)
            .map(|w| {
                let most = (0..4).all(|o| counts.get(0, o) <= counts.get(0, w));
                let trap = if most && df[w] == 3 { " Ela é a mais frequente em d₁, mas aparece nos três documentos: IDF = log₁₀(3/3) = 0." } else { "" };
                format!("«{}» pesa {} × {} = {}, menos que {} de «{}».{trap}", WORDS[w], short(tf.get(0, w) as f64, 0), fixed(idfs[w], 4), fixed(weights[w], 4), fixed(weights[best], 4), WORDS[best])
            })
            .collect();
        let row = |d: usize| (0..4).map(|w| short(counts.get(d, w) as f64, 0)).collect::<Vec<_>>();
        return Checkpoint::choice(
            "tfidf-maior",
            vec![
                Block::Text("Um corpus de três documentos conta estas palavras:".into()),
                Block::Table {
                    caption: "Contagens por documento".into(),
                    head: std::iter::once("documento".to_string()).chain(WORDS.iter().map(|w| w.to_string())).collect(),
                    rows: vec![("d₁".into(), row(0)), ("d₂".into(), row(1)), ("d₃".into(), row(2))],
                },
                Block::Text("Com TF bruta e IDF = log₁₀(N / df), qual palavra tem o maior TF-IDF em d₁?".into()),
            ],
            WORDS.iter().map(|w| w.to_string()).collect(),
            best,
            vec![
                format!("df: {}", (0..4).map(|w| format!("{} → {}", WORDS[w], df[w])).collect::<Vec<_>>().join("; ")),
                format!("IDF = log₁₀(3 / df): {}", (0..4).map(|w| format!("{} → {}", WORDS[w], fixed(idfs[w], 4))).collect::<Vec<_>>().join("; ")),
                format!("TF-IDF em d₁: {}", (0..4).map(|w| format!("{} → {}", WORDS[w], fixed(weights[w], 4))).collect::<Vec<_>>().join("; ")),
                format!("O maior é o de «{}».", WORDS[best]),
            ],
            why,
        )
        .given("counts", counts.as_slice().to_vec());
    }
}

/// One cell of a matrix product.
pub fn matmul_cell(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    let a = Matrix::from_vec(2, 3, ints(&mut rng, 6, -2, 3)).expect("2 × 3");
    let b = Matrix::from_vec(3, 2, ints(&mut rng, 6, -2, 3)).expect("3 × 2");
    let c = crate::ops::matmul(&a, &b).expect("2×3 · 3×2");
    let (i, j) = (rng.below(2) as usize, rng.below(2) as usize);
    let value = c.get(i, j) as f64;
    let table = |m: &Matrix, name: &str| Block::Table {
        caption: name.to_string(),
        head: std::iter::once(String::new()).chain((1..=m.cols()).map(|k| format!("col {k}"))).collect(),
        rows: (0..m.rows()).map(|r| (format!("linha {}", r + 1), m.row(r).iter().map(|&x| short(x as f64, 0)).collect())).collect(),
    };
    let products: Vec<String> = (0..3).map(|k| format!("{} · {}", factor(a.get(i, k) as f64, 0), factor(b.get(k, j) as f64, 0))).collect();
    Checkpoint::new(
        "celula-matmul",
        vec![
            table(&a, "A (2 × 3)"),
            table(&b, "B (3 × 2)"),
            Block::Text(format!("Qual é o elemento da linha {} e coluna {} de C = A·B?", i + 1, j + 1)),
        ],
        Answer::Number { value, decimals: 0 },
        vec![
            format!("C[{},{}] é o produto escalar da linha {} de A com a coluna {} de B.", i + 1, j + 1, i + 1, j + 1),
            format!("C[{},{}] = {}", i + 1, j + 1, products.join(" + ")),
            format!("= {}", short(value, 0)),
        ],
        vec![(c.get(j, i) as f64, format!("Esse é C[{},{}]: você trocou a linha pela coluna.", j + 1, i + 1))],
    )
    .given("a", a.as_slice().to_vec())
    .given("b", b.as_slice().to_vec())
    .given("ij", [i as f64, j as f64])
}
