//! Checkpoints of the second article and of the third's sparsity (Markov steps, bigram
//! probabilities, how many N-grams a vocabulary allows, a softmax, a ReLU neuron), made from
//! `sequence::{markov, ngram, sparsity}` and `ops::{softmax_rows, relu}`.

use super::checkpoint::{factor, fixed, ints, short, tenths, vector, Answer, Block, Checkpoint};
use crate::matrix::Matrix;
use crate::ops::{self, SoftmaxOptions};
use crate::rng::Rng;
use crate::sequence::markov::MarkovChain;
use crate::sequence::ngram::{NgramModel, NgramOptions};
use crate::sequence::sparsity::possible_ngrams_exact;
use crate::vectors;

const WEATHER: [&str; 3] = ["sol", "chuva", "nublado"];

/// The probability of a state two steps after another.
pub fn markov_two_steps(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    let n = 2 + rng.below(2) as usize;
    // Rows of tenths summing to 1, none certain: cut 10 tenths at n − 1 points.
    let mut rows = Vec::new();
    for _ in 0..n {
        loop {
            let mut cuts: Vec<u64> = (0..n - 1).map(|_| 1 + rng.below(9)).collect();
            crate::order::sort(&mut cuts);
            cuts.insert(0, 0);
            cuts.push(10);
            let row: Vec<f32> = cuts.windows(2).map(|w| (w[1] - w[0]) as f32 / 10.0).collect();
            if row.iter().all(|&p| p > 0.0) {
                rows.push(row);
                break;
            }
        }
    }
    let states: Vec<String> = WEATHER[..n].iter().map(|s| s.to_string()).collect();
    let p = Matrix::from_rows(&rows).expect("square");
    let chain = MarkovChain::new(states.clone(), p.clone()).expect("rows sum to 1");
    let (from, to) = (rng.below(n as u64) as usize, rng.below(n as u64) as usize);
    let after = chain.distribution_after(&chain.one_hot(from).expect("a state"), 2).expect("two steps");
    let value = after[to] as f64;
    let paths: Vec<String> = (0..n).map(|m| format!("{} · {}", short(p.get(from, m) as f64, 1), short(p.get(m, to) as f64, 1))).collect();
    Checkpoint::new(
        "markov-dois-passos",
        vec![
            Block::Text("O tempo segue uma cadeia de Markov com esta matriz de transição (linha: hoje; coluna: amanhã):".into()),
            Block::Table {
                caption: "Matriz de transição P".into(),
                head: std::iter::once("hoje \\ amanhã".to_string()).chain(states.iter().cloned()).collect(),
                rows: (0..n).map(|r| (states[r].clone(), p.row(r).iter().map(|&x| short(x as f64, 1)).collect())).collect(),
            },
            Block::Text(format!("Hoje o tempo está em «{}». Qual é a probabilidade de estar em «{}» daqui a dois dias? Responda com 2 casas decimais.", states[from], states[to])),
        ],
        Answer::Number { value, decimals: 2 },
        vec![
            format!("Some sobre o estado de amanhã m: P²[{}, {}] = Σₘ P[{}, m] · P[m, {}].", states[from], states[to], states[from], states[to]),
            format!("= {}", paths.join(" + ")),
            format!("= {}", fixed(value, 2)),
        ],
        vec![
            (p.get(from, to) as f64, "Essa é a probabilidade de um passo só (amanhã); depois de amanhã são dois passos, P².".into()),
            ((p.get(from, to) as f64).powi(2), "Você elevou P[i, j] ao quadrado; é preciso somar sobre todos os estados possíveis do dia do meio.".into()),
        ],
    )
    .given("p", p.as_slice().to_vec())
    .given("from-to", [from as f64, to as f64])
}

pub const WORDS: [&str; 5] = ["o", "gato", "come", "dorme", "peixe"];

/// P(next word | word) in a small corpus, by counting bigrams.
pub fn bigram_probability(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    loop {
        let sentences: Vec<String> = (0..3)
            .map(|_| {
                let len = 3 + rng.below(3) as usize;
                (0..len).map(|_| WORDS[rng.below(5) as usize]).collect::<Vec<_>>().join(" ")
            })
            .collect();
        let texts: Vec<&str> = sentences.iter().map(String::as_str).collect();
        let model = NgramModel::build(&texts, &NgramOptions::default()).expect("words");
        // A word followed by at least two different words, one of them asked about.
        let word = WORDS[rng.below(5) as usize];
        let Some(row) = model.row_of(&[word]) else { continue };
        let next = model.next_distribution(row);
        if next.len() < 2 {
            continue;
        }
        let (target, value) = next[rng.below(next.len() as u64) as usize].clone();
        let value = value as f64;
        let col = model.word_index(&target).expect("a word of the corpus");
        let pair = model.count(row, col) as f64;
        let followed: f64 = next.iter().map(|(w, _)| model.count(row, model.word_index(w).expect("a word")) as f64).sum();
        let occurrences = texts.iter().flat_map(|t| t.split(' ')).filter(|w| *w == word).count() as f64;
        let bigrams: f64 = texts.iter().map(|t| t.split(' ').count() as f64 - 1.0).sum();
        return Checkpoint::new(
            "prob-bigrama",
            vec![
                Block::Text(format!("Um corpus tem três frases: «{}».", sentences.join("», «"))),
                Block::Text(format!("Num modelo de bigramas (sem marcadores de início e fim), qual é P({target} | {word}), a probabilidade de «{target}» vir logo depois de «{word}»? Responda com 4 casas decimais.")),
            ],
            Answer::Number { value, decimals: 4 },
            vec![
                format!("Conte os pares que começam com «{word}»: {} (os que têm uma palavra seguinte).", short(followed, 0)),
                format!("Desses, «{word} {target}» aparece {}.", times(pair as u64)),
                format!("P({target} | {word}) = {} / {} = {}", short(pair, 0), short(followed, 0), fixed(value, 4)),
            ],
            vec![
                (pair / occurrences, format!("Você contou todas as ocorrências de «{word}», inclusive no fim de uma frase, onde nada vem depois; o denominador são os pares que começam com «{word}».")),
                (pair / bigrams, format!("Você dividiu pelo total de pares do corpus; o denominador são só os pares que começam com «{word}».")),
            ],
        )
        .given("sentences", sentences.iter().flat_map(|s| s.split(' ').map(|w| WORDS.iter().position(|x| *x == w).expect("a word") as f64).chain([-1.0])).collect::<Vec<f64>>())
        .given("pair", [WORDS.iter().position(|x| *x == word).expect("a word") as f64, WORDS.iter().position(|x| *x == target).expect("a word") as f64]);
    }
}

/// How many N-grams a vocabulary allows: |V|^N.
pub fn possible_ngrams(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    let n = 2 + rng.below(3) as u32;
    let most = match n {
        2 => 60,
        3 => 25,
        _ => 12,
    };
    let v = 5 + rng.below(most - 4) as usize;
    let value = possible_ngrams_exact(v, n).expect("small") as f64;
    let name = match n {
        2 => "bigramas",
        3 => "trigramas",
        _ => "4-gramas",
    };
    Checkpoint::new(
        "ngramas-possiveis",
        vec![Block::Text(format!("Um vocabulário tem |V| = {v} palavras. Quantos {name} diferentes são possíveis (sequências de {n} palavras, com repetição)?"))],
        Answer::Number { value, decimals: 0 },
        vec![
            format!("Cada uma das {n} posições pode ser qualquer uma das {v} palavras: |V|^N."),
            format!("{v}^{n} = {}", short(value, 0)),
        ],
        vec![
            ((v * n as usize) as f64, format!("Você multiplicou |V| por N; as escolhas das {n} posições se multiplicam entre si: é uma potência, |V|^N.")),
            ((v as f64).powi(n as i32 - 1), format!("Essa é a contagem para N − 1 = {} palavras.", n - 1)),
        ],
    )
    .given("v-n", [v as f64, n as f64])
}

/// One weight of a softmax.
pub fn softmax_row(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    let n = 3 + rng.below(2) as usize;
    let z = tenths(&mut rng, n, -2.0, 3.0);
    let i = rng.below(n as u64) as usize;
    let row = Matrix::from_vec(1, n, z.clone()).expect("one row");
    let weights = ops::softmax_rows(&row, SoftmaxOptions::default()).expect("finite");
    let value = weights.get(0, i) as f64;
    let exps: Vec<f64> = z.iter().map(|&x| (x as f64).exp()).collect();
    let sum: f64 = exps.iter().sum();
    let plain: f64 = z.iter().map(|&x| x as f64).sum();
    let exp_terms: Vec<String> = exps.iter().map(|&e| fixed(e, 4)).collect();
    Checkpoint::new(
        "softmax-linha",
        vec![Block::Text(format!(
            "Os scores são z = {}. Qual é o peso da posição {} depois do softmax, e^(z{}) / Σⱼ e^(zⱼ)? Responda com 4 casas decimais.",
            vector(&z, 1),
            i + 1,
            subscript(i + 1)
        ))],
        Answer::Number { value, decimals: 4 },
        vec![
            format!("e^z = ({})", exp_terms.join("; ")),
            format!("Σ e^z = {}", fixed(sum, 4)),
            format!("peso {} = {} / {} = {}", i + 1, fixed(exps[i], 4), fixed(sum, 4), fixed(value, 4)),
        ],
        vec![
            (z[i] as f64 / plain, "Você dividiu os scores pela soma deles sem exponenciar; o softmax divide e^(zᵢ) pela soma dos e^(zⱼ).".into()),
            (exps[i], "Esse é e^(zᵢ): faltou dividir pela soma dos exponenciais.".into()),
        ],
    )
    .given("z", z)
    .given("i", [i as f64])
}

/// The output of one ReLU neuron.
pub fn relu_neuron(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    let n = 3;
    let x = ints(&mut rng, n, 0, 1);
    let w = tenths(&mut rng, n, -1.5, 1.5);
    let b = tenths(&mut rng, 1, -1.0, 0.5)[0];
    let pre = vectors::dot(&w, &x).expect("same length") + b;
    let post = ops::relu(&Matrix::from_vec(1, 1, vec![pre]).expect("1 × 1")).get(0, 0);
    let value = post as f64;
    let terms: Vec<String> = w.iter().zip(&x).map(|(&wi, &xi)| format!("{} · {}", factor(wi as f64, 1), short(xi as f64, 0))).collect();
    Checkpoint::new(
        "relu-neuronio",
        vec![Block::Text(format!(
            "Um neurônio da rede feed-forward tem pesos w = {}, viés b = {} e ativação ReLU. Qual é a sua saída para a entrada x = {}? Responda com 1 casa decimal.",
            vector(&w, 1),
            short(b as f64, 1),
            vector(&x, 0)
        ))],
        Answer::Number { value, decimals: 1 },
        vec![
            format!("pré-ativação: w·x + b = {} + {} = {}", terms.join(" + "), factor(b as f64, 1), short(pre as f64, 1)),
            format!("ReLU({}) = max(0; {}) = {}", short(pre as f64, 1), short(pre as f64, 1), fixed(value, 1)),
        ],
        vec![
            (pre as f64, "Essa é a pré-ativação: faltou a ReLU, que troca um valor negativo por 0.".into()),
            ((pre - b).max(0.0) as f64, "Faltou somar o viés b antes da ReLU.".into()),
            (((pre - b).max(0.0) + b) as f64, "O viés entra antes da ReLU, não depois.".into()),
        ],
    )
    .given("w", w)
    .given("x", x)
    .given("b", [b])
}

/// "1 vez", "3 vezes".
pub fn times(n: u64) -> String {
    if n == 1 { "1 vez".into() } else { format!("{n} vezes") }
}

/// `3` → `₃`, for the index of a named component.
pub fn subscript(n: usize) -> String {
    n.to_string().chars().map(|c| char::from_u32(0x2080 + c.to_digit(10).expect("a digit")).expect("a subscript digit")).collect()
}
