//! Checkpoints of attention (the third and fourth articles, and the fifth's scaled attention):
//! a scaled score, the key a query attends to most, a masked row, a weighted sum of values,
//! made from `ops::{matmul, matmul_bt, softmax_rows}` as the attention widgets compute them.

use super::checkpoint::{factor, fixed, ints, one_largest, short, tenths, vector, Answer, Block, Checkpoint};
use super::sequence::subscript;
use crate::matrix::Matrix;
use crate::ops::{self, SoftmaxOptions};
use crate::rng::Rng;

/// The scaled score q·k/√d.
pub fn scaled_score(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    let d = 2 + rng.below(3) as usize;
    let (q, k) = (ints(&mut rng, d, -2, 3), ints(&mut rng, d, -2, 3));
    let (qm, km) = (Matrix::from_vec(1, d, q.clone()).expect("1 × d"), Matrix::from_vec(1, d, k.clone()).expect("1 × d"));
    let scale = 1.0 / (d as f32).sqrt();
    let value = ops::matmul_bt(&qm, &km, scale).expect("same width").get(0, 0) as f64;
    let dot = ops::matmul_bt(&qm, &km, 1.0).expect("same width").get(0, 0) as f64;
    let products: Vec<String> = q.iter().zip(&k).map(|(&a, &b)| format!("{} · {}", factor(a as f64, 0), factor(b as f64, 0))).collect();
    Checkpoint::new(
        "score-escalonado",
        vec![Block::Text(format!(
            "Uma query q = {} e uma key k = {} têm d = {d} componentes. Qual é o score escalonado q·k / √d? Responda com 4 casas decimais.",
            vector(&q, 0),
            vector(&k, 0)
        ))],
        Answer::Number { value, decimals: 4 },
        vec![
            format!("q·k = {} = {}", products.join(" + "), short(dot, 0)),
            format!("√d = √{d} = {}", fixed((d as f64).sqrt(), 4)),
            format!("q·k / √d = {} / {} = {}", short(dot, 0), fixed((d as f64).sqrt(), 4), fixed(value, 4)),
        ],
        vec![
            (dot, "Você esqueceu de dividir por √d: esse é o produto escalar sem escala.".into()),
            (dot / d as f64, "Você dividiu por d; a escala é √d.".into()),
        ],
    )
    .given("q", q)
    .given("k", k)
}

const TOKENS: [&str; 4] = ["o", "gato", "subiu", "telhado"];

/// Which token a query attends to most.
pub fn most_attended(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    let d = 3;
    loop {
        let q = ints(&mut rng, d, -2, 2);
        let keys = Matrix::from_vec(4, d, ints(&mut rng, 4 * d, -2, 2)).expect("4 × d");
        let qm = Matrix::from_vec(1, d, q.clone()).expect("1 × d");
        let scale = 1.0 / (d as f32).sqrt();
        let weights = ops::softmax_rows(&ops::matmul_bt(&qm, &keys, scale).expect("same width"), SoftmaxOptions::default()).expect("finite");
        let w: Vec<f64> = weights.row(0).iter().map(|&x| x as f64).collect();
        if !one_largest(&w, 4) || q.iter().all(|&x| x == 0.0) {
            continue;
        }
        let best = (0..4).max_by(|&i, &j| w[i].total_cmp(&w[j])).expect("four");
        let dots: Vec<f64> = (0..4).map(|j| (0..d).map(|c| (q[c] * keys.get(j, c)) as f64).sum()).collect();
        // The trap: the key most like the query in size, the largest norm, when it is not the answer.
        let why = (0..4)
            .map(|j| format!("q·k de «{}» é {}, menor que {} de «{}»: o softmax dá o maior peso ao maior score.", TOKENS[j], short(dots[j], 0), short(dots[best], 0), TOKENS[best]))
            .collect();
        return Checkpoint::choice(
            "mais-atendido",
            vec![
                Block::Text(format!("A query da palavra «subiu» é q = {}. As keys das quatro palavras são:", vector(&q, 0))),
                Block::Table {
                    caption: "Keys".into(),
                    head: vec!["palavra".into(), "k₁".into(), "k₂".into(), "k₃".into()],
                    rows: (0..4).map(|j| (TOKENS[j].to_string(), keys.row(j).iter().map(|&x| short(x as f64, 0)).collect())).collect(),
                },
                Block::Text("Com softmax(q·k / √d), a qual palavra «subiu» dá o maior peso?".into()),
            ],
            TOKENS.iter().map(|t| t.to_string()).collect(),
            best,
            vec![
                format!("Scores q·k: {}", (0..4).map(|j| format!("{} → {}", TOKENS[j], short(dots[j], 0))).collect::<Vec<_>>().join("; ")),
                format!("Pesos softmax(q·k / √3): {}", (0..4).map(|j| format!("{} → {}", TOKENS[j], fixed(w[j], 4))).collect::<Vec<_>>().join("; ")),
                format!("O softmax preserva a ordem dos scores: o maior peso é o de «{}».", TOKENS[best]),
            ],
            why,
        )
        .given("q", q)
        .given("keys", keys.as_slice().to_vec());
    }
}

/// One weight of a row of a causally masked softmax.
pub fn masked_row(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    let t = 3;
    let scores = Matrix::from_vec(t, t, tenths(&mut rng, t * t, -1.0, 2.0)).expect("t × t");
    let i = 1;
    let j = rng.below(2) as usize;
    let masked = ops::softmax_rows(&scores, SoftmaxOptions::causal()).expect("finite");
    let open = ops::softmax_rows(&scores, SoftmaxOptions::default()).expect("finite");
    let value = masked.get(i, j) as f64;
    let exps: Vec<f64> = (0..=i).map(|c| (scores.get(i, c) as f64).exp()).collect();
    let sum: f64 = exps.iter().sum();
    Checkpoint::new(
        "linha-mascarada",
        vec![
            Block::Table {
                caption: "Scores S (linha: query; coluna: key)".into(),
                head: vec!["".into(), "pos. 1".into(), "pos. 2".into(), "pos. 3".into()],
                rows: (0..t).map(|r| (format!("pos. {}", r + 1), scores.row(r).iter().map(|&x| short(x as f64, 1)).collect())).collect(),
            },
            Block::Text(format!(
                "Com a máscara causal (cada posição só vê a si mesma e as anteriores), qual é o peso que a posição {} dá à posição {} depois do softmax da linha? Responda com 4 casas decimais.",
                i + 1,
                j + 1
            )),
        ],
        Answer::Number { value, decimals: 4 },
        vec![
            format!("A máscara põe −∞ na posição 3 da linha 2: só as posições 1 e 2 entram no softmax."),
            format!("e^S = ({}; {}), soma {}", fixed(exps[0], 4), fixed(exps[1], 4), fixed(sum, 4)),
            format!("peso = {} / {} = {}", fixed(exps[j], 4), fixed(sum, 4), fixed(value, 4)),
        ],
        vec![
            (open.get(i, j) as f64, "Você esqueceu a máscara: a posição 3 é futura para a posição 2 e não entra na soma.".into()),
            (exps[j], "Esse é e^S: faltou dividir pela soma da linha.".into()),
        ],
    )
    .given("s", scores.as_slice().to_vec())
    .given("ij", [i as f64, j as f64])
}

/// One component of the attention output Σ wᵢ vᵢ.
pub fn weighted_values(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    // Weights in tenths, none zero, summing to 1.
    let w: Vec<f32> = loop {
        let a = 1 + rng.below(8);
        let b = 1 + rng.below(9 - a);
        let c = 10 - a - b;
        if c > 0 {
            break [a, b, c].iter().map(|&x| x as f32 / 10.0).collect();
        }
    };
    let v = Matrix::from_vec(3, 2, ints(&mut rng, 6, -3, 5)).expect("3 × 2");
    let c = rng.below(2) as usize;
    let out = ops::matmul(&Matrix::from_vec(1, 3, w.clone()).expect("1 × 3"), &v).expect("1×3 · 3×2");
    let value = out.get(0, c) as f64;
    let column: Vec<f32> = (0..3).map(|r| v.get(r, c)).collect();
    let mean: f64 = column.iter().map(|&x| x as f64).sum::<f64>() / 3.0;
    let terms: Vec<String> = (0..3).map(|r| format!("{} · {}", short(w[r] as f64, 1), factor(column[r] as f64, 0))).collect();
    Checkpoint::new(
        "saida-atencao",
        vec![
            Block::Text(format!("Uma query deu os pesos de atenção w = {} às três posições, cujos values são:", vector(&w, 1))),
            Block::Table {
                caption: "Values".into(),
                head: vec!["posição".into(), "v₁".into(), "v₂".into()],
                rows: (0..3).map(|r| (format!("{}", r + 1), v.row(r).iter().map(|&x| short(x as f64, 0)).collect())).collect(),
            },
            Block::Text(format!("Qual é a componente {} da saída, Σᵢ wᵢ vᵢ? Responda com 1 casa decimal.", c + 1)),
        ],
        Answer::Number { value, decimals: 1 },
        vec![
            format!("A saída é a média dos values ponderada pelos pesos; componente {}: coluna v{} dos values.", c + 1, subscript(c + 1)),
            format!("{} = {}", terms.join(" + "), fixed(value, 1)),
        ],
        vec![
            (mean, "Essa é a média simples dos values: os pesos de atenção não entraram.".into()),
            (column.iter().map(|&x| x as f64).sum(), "Você somou os values sem multiplicar cada um pelo seu peso.".into()),
        ],
    )
    .given("w", w)
    .given("v", v.as_slice().to_vec())
    .given("c", [c as f64])
}
