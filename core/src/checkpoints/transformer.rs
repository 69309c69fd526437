//! Checkpoints of the fifth article's Transformer (the shapes after splitting heads, a value
//! of the positional encoding, a block's parameter count), made from
//! `transformer::{multi_head, positional, block::params}`.

use super::checkpoint::{fixed, short, Answer, Block, Checkpoint};
use crate::matrix::Matrix;
use crate::rng::Rng;
use crate::transformer::block::params;
use crate::transformer::multi_head::{check_heads, split_heads};
use crate::transformer::positional::{frequency, sinusoidal, THETA};

/// The shape of the tensor after splitting the heads.
pub fn head_shapes(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    let (b, t, h, d_h) = loop {
        let b = 2 + rng.below(3) as usize;
        let t = 3 + rng.below(8) as usize;
        let h = [2usize, 3, 4, 8][rng.below(4) as usize];
        let d_h = [2usize, 4, 8, 16][rng.below(4) as usize];
        if t != d_h && t != h && h != d_h && b != h && b != t && b != d_h {
            break (b, t, h, d_h);
        }
    };
    let d = h * d_h;
    // The split itself, on one sequence: h matrices of (t, d/h).
    let heads = split_heads(&Matrix::zeros(t, d), h).expect("d divisible by h");
    assert_eq!(check_heads(d, h).expect("d divisible by h"), d_h);
    let (rows, cols) = heads[0].shape();
    let shape = |dims: [usize; 4]| format!("({}, {}, {}, {})", dims[0], dims[1], dims[2], dims[3]);
    let options = vec![shape([b, h, t, cols]), shape([b, h, t, d]), shape([b, h, cols, t]), format!("({b}, {h}, {t}, {})", d * h)];
    let correct = 0;
    let why = vec![
        String::new(),
        format!("Cada cabeça não recebe as {d} colunas: elas são divididas entre as {h} cabeças, d/h = {cols} para cada uma."),
        "Essa é a forma de Kᵀ, com as duas últimas dimensões trocadas; a divisão mantém (t, d/h).".into(),
        "Dividir em cabeças não multiplica a largura: o total de colunas continua d = h · d/h.".into(),
    ];
    // A fixed order that does not always put the answer first: rotate by the seed.
    let turn = rng.below(4) as usize;
    let order: Vec<usize> = (0..4).map(|i| (i + turn) % 4).collect();
    Checkpoint::choice(
        "formato-cabecas",
        vec![Block::Text(format!(
            "Um lote de b = {b} sequências de t = {t} tokens com largura d = {d} forma um tensor (b, t, d) = ({b}, {t}, {d}). Dividido em h = {h} cabeças, qual é a forma (b, h, t, d/h)?"
        ))],
        order.iter().map(|&i| options[i].clone()).collect(),
        order.iter().position(|&i| i == correct).expect("the answer is an option"),
        vec![
            format!("d/h = {d} / {h} = {cols}: cada cabeça fica com {cols} colunas."),
            format!("Cada sequência vira {h} matrizes ({rows}, {cols}); com o lote: {}.", options[0]),
        ],
        order.iter().map(|&i| why[i].clone()).collect(),
    )
    .given("b-t-h-dh", [b as f64, t as f64, h as f64, d_h as f64])
}

/// PE(p, j) of the sinusoidal encoding.
pub fn positional_value(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    let d = [4usize, 6, 8][rng.below(3) as usize];
    let p = 1 + rng.below(9) as usize;
    let j = rng.below(4) as usize;
    let pe = sinusoidal(0, p + 1, d, THETA);
    let value = pe.get(p, j) as f64;
    let i = j / 2;
    let omega = frequency(i, d, THETA) as f64;
    let angle = p as f64 * omega;
    let (f, other) = if j % 2 == 0 { ("sen", angle.cos()) } else { ("cos", angle.sin()) };
    let wrong_exponent = p as f64 / (THETA as f64).powf(j as f64 / d as f64);
    let wrong_exponent = if j % 2 == 0 { wrong_exponent.sin() } else { wrong_exponent.cos() };
    Checkpoint::new(
        "pe-valor",
        vec![Block::Text(format!(
            "Na codificação posicional senoidal com d = {d} e θ = 10 000, PE(p, 2i) = sen(p / θ^(2i/d)) e PE(p, 2i+1) = cos(p / θ^(2i/d)), com ângulos em radianos. Qual é PE({p}, {j}) (posição {p}, coluna {j}, contando do 0)? Responda com 4 casas decimais."
        ))],
        Answer::Number { value, decimals: 4 },
        vec![
            format!("A coluna {j} é {}: i = ⌊{j}/2⌋ = {i}, função {f}.", if j % 2 == 0 { "par" } else { "ímpar" }),
            format!("θ^(2i/d) = 10 000^({}/{d}) = {}", 2 * i, short(1.0 / omega, 4)),
            format!("ângulo = {p} / {} = {}", short(1.0 / omega, 4), fixed(angle, 4)),
            format!("PE({p}, {j}) = {f}({}) = {}", fixed(angle, 4), fixed(value, 4)),
        ],
        vec![
            (other, "Você trocou seno e cosseno: as colunas pares usam seno, as ímpares cosseno.".into()),
            (wrong_exponent, format!("O expoente usa 2i com i = ⌊j/2⌋ = {i}, não a coluna j: as colunas 2i e 2i+1 têm o mesmo ângulo.")),
            (if j % 2 == 0 { (angle.to_radians()).sin() } else { (angle.to_radians()).cos() }, "O ângulo está em radianos, não em graus.".into()),
        ],
    )
    .given("d-p-j", [d as f64, p as f64, j as f64])
}

/// The parameter count of one encoder block (MHA, FFN, two layer norms).
pub fn block_parameters(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    let d = [8u64, 12, 16, 24, 32, 48, 64][rng.below(7) as usize];
    let ratio = [2u64, 4][rng.below(2) as usize];
    let d_ff = ratio * d;
    let value = params::block(d, d_ff);
    let (mha, ffn, ln) = (params::mha(d), params::ffn(d, d_ff), params::layer_norm(d));
    Checkpoint::new(
        "parametros-bloco",
        vec![Block::Text(format!(
            "Um bloco do Transformer tem atenção multi-cabeça com quatro matrizes (d, d) sem viés (W^Q, W^K, W^V, W^O), uma FFN d → d_ff → d com vieses e duas layer norms (γ e β cada). Com d = {d} e d_ff = {ratio}d = {d_ff}, quantos parâmetros o bloco tem?"
        ))],
        Answer::Number { value: value as f64, decimals: 0 },
        vec![
            format!("Atenção: 4 · d² = 4 · {d}² = {mha}"),
            format!("FFN: d · d_ff + d_ff + d_ff · d + d = {} + {d_ff} + {} + {d} = {ffn}", d * d_ff, d_ff * d),
            format!("Layer norms: 2 · 2d = 2 · {ln} = {}", 2 * ln),
            format!("Total: {mha} + {ffn} + {} = {value}", 2 * ln),
        ],
        vec![
            ((value - d_ff - d) as f64, "Faltaram os vieses da FFN (d_ff + d).".into()),
            ((value - 2 * ln) as f64, "Faltaram as duas layer norms, cada uma com γ e β de tamanho d.".into()),
            ((value - d * d) as f64, "Faltou W^O: a atenção multi-cabeça tem quatro matrizes (d, d), não três.".into()),
            ((value - 2 * d * d_ff) as f64 + (d * d_ff) as f64, "A FFN tem duas matrizes, W₁ (d, d_ff) e W₂ (d_ff, d).".into()),
        ],
    )
    .given("d-dff", [d as f64, d_ff as f64])
}
