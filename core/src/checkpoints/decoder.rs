//! Checkpoints of the pretrained decoder's pages (temperature, top-p, the next BPE merge),
//! made from `decoder::sampling` and `bpe::Bpe`, the functions the playground samples and
//! tokenizes with.

use super::checkpoint::{fixed, short, tenths, vector, Answer, Block, Checkpoint};
use super::sequence::times;
use crate::bpe::{chunks, Bpe};
use crate::decoder::sampling::{probabilities, sampling_distribution, SamplingOptions};
use crate::rng::Rng;

pub const NEXT: [&str; 5] = ["casa", "rua", "noite", "porta", "janela"];

/// A token's probability after dividing the logits by a temperature.
pub fn temperature(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    let logits = tenths(&mut rng, 3, -1.0, 3.0);
    let t = [0.5f32, 2.0][rng.below(2) as usize];
    let i = rng.below(3) as usize;
    let probs = probabilities(&logits, t);
    let value = probs[i] as f64;
    let scaled: Vec<f32> = logits.iter().map(|&z| z / t).collect();
    let exps: Vec<f64> = scaled.iter().map(|&z| (z as f64).exp()).collect();
    let sum: f64 = exps.iter().sum();
    Checkpoint::new(
        "temperatura",
        vec![Block::Text(format!(
            "Os logits dos tokens «{}», «{}» e «{}» são z = {}. Com temperatura T = {}, qual é a probabilidade de «{}», softmax(z / T)? Responda com 4 casas decimais.",
            NEXT[0],
            NEXT[1],
            NEXT[2],
            vector(&logits, 1),
            short(t as f64, 1),
            NEXT[i]
        ))],
        Answer::Number { value, decimals: 4 },
        vec![
            format!("z / T = {}", vector(&scaled, 2)),
            format!("e^(z/T) = ({}), soma {}", exps.iter().map(|&e| fixed(e, 4)).collect::<Vec<_>>().join("; "), fixed(sum, 4)),
            format!("P({}) = {} / {} = {}", NEXT[i], fixed(exps[i], 4), fixed(sum, 4), fixed(value, 4)),
        ],
        vec![
            (probabilities(&logits, 1.0)[i] as f64, "Você esqueceu a temperatura: essa é a probabilidade com T = 1.".into()),
            (probabilities(&logits, 1.0 / t)[i] as f64, "Você multiplicou os logits por T; a temperatura divide.".into()),
        ],
    )
    .given("z", logits)
    .given("t-i", [t as f64, i as f64])
}

/// How many tokens survive top-p.
pub fn top_p(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    loop {
        let logits = tenths(&mut rng, 5, -1.0, 3.0);
        let p = [0.5f32, 0.6, 0.7, 0.8, 0.9][rng.below(5) as usize];
        let probs = probabilities(&logits, 1.0);
        // The reader adds the probabilities as shown (2 places): every partial sum, exact or
        // shown, must be clearly on one side of p, and no two probabilities may look tied.
        let mut sorted: Vec<f64> = probs.iter().map(|&x| x as f64).collect();
        crate::order::sort_by(&mut sorted, |a, b| b.total_cmp(a));
        let shown: Vec<f64> = sorted.iter().map(|&x| (x * 100.0).round() / 100.0).collect();
        let clear = (1..=5).all(|n| {
            let (exact, seen): (f64, f64) = (sorted[..n].iter().sum(), shown[..n].iter().sum());
            (exact - p as f64).abs() > 0.02 && (seen - p as f64).abs() > 0.015
        });
        let distinct = shown.windows(2).all(|w| w[0] > w[1]);
        if !clear || !distinct {
            continue;
        }
        let kept = sampling_distribution(&logits, &SamplingOptions { temperature: 1.0, top_k: 0, top_p: p });
        let value = kept.iter().filter(|&&x| x > 0.0).count();
        let order = crate::order::rank_desc(&probs);
        let mut acc = 0.0;
        let sums: Vec<String> = order[..value]
            .iter()
            .map(|&i| {
                acc += probs[i] as f64;
                format!("«{}» {} → soma {}", NEXT[i], fixed(probs[i] as f64, 2), fixed(acc, 2))
            })
            .collect();
        return Checkpoint::new(
            "top-p",
            vec![
                Block::Table {
                    caption: "Probabilidades do próximo token".into(),
                    head: vec!["token".into(), "probabilidade".into()],
                    rows: (0..5).map(|i| (NEXT[i].to_string(), vec![fixed(probs[i] as f64, 2)])).collect(),
                },
                Block::Text(format!("Com top-p = {} (o menor conjunto dos tokens mais prováveis cuja soma chega a p), quantos tokens podem ser sorteados?", short(p as f64, 1))),
            ],
            Answer::Number { value: value as f64, decimals: 0 },
            vec![
                "Ordene os tokens do mais provável ao menos provável e some até a soma chegar a p.".into(),
                sums.join("; "),
                format!("A soma chega a {} no {}º token: {} sobrevivem.", short(p as f64, 1), value, if value == 1 { "1 token".to_string() } else { format!("{value} tokens") }),
            ],
            vec![
                ((value - 1) as f64, "O top-p inclui o token que faz a soma chegar a p; você parou um antes.".into()),
                (5.0, "O top-p corta os tokens menos prováveis: nem todos sobrevivem.".into()),
            ],
        )
        .given("z", logits)
        .given("p", [p]);
    }
}

pub const SYLLABLES: [&str; 8] = ["casa", "asa", "massa", "sala", "lata", "mala", "rasa", "pata"];

/// Which pair BPE merges first.
pub fn next_merge(seed: u64) -> Checkpoint {
    let mut rng = Rng::new(seed);
    loop {
        let mut words: Vec<&str> = Vec::new();
        for _ in 0..3 {
            let w = SYLLABLES[rng.below(8) as usize];
            for _ in 0..1 + rng.below(3) {
                words.push(w);
            }
        }
        let text = words.join(" ");
        let bpe = Bpe::train([text.as_str()], 257).expect("a vocabulary of 257");
        let Some(&first) = bpe.merges().first() else { continue };
        // The pairs inside each chunk with their counts, for the options and the diagnoses.
        let mut counts: Vec<((u32, u32), u64)> = Vec::new();
        for chunk in chunks(&text) {
            for p in chunk.as_bytes().windows(2) {
                let pair = (p[0] as u32, p[1] as u32);
                match counts.iter_mut().find(|(q, _)| *q == pair) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((pair, 1)),
                }
            }
        }
        crate::order::sort_by(&mut counts, |a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        if counts.len() < 4 || counts[0].1 == counts[1].1 || counts[0].0 != first {
            continue;
        }
        let label = |(a, b): (u32, u32)| format!("«{}» + «{}»", bpe.token_label(a), bpe.token_label(b));
        let turn = rng.below(4) as usize;
        let order: Vec<usize> = (0..4).map(|i| (i + turn) % 4).collect();
        let options: Vec<String> = order.iter().map(|&i| label(counts[i].0)).collect();
        let correct = order.iter().position(|&i| i == 0).expect("the answer is an option");
        let why = order
            .iter()
            .map(|&i| format!("{} aparece {}; {} aparece {}: o BPE funde primeiro o par mais frequente.", label(counts[i].0), times(counts[i].1), label(counts[0].0), times(counts[0].1)))
            .collect();
        return Checkpoint::choice(
            "proximo-merge",
            vec![
                Block::Text(format!("O BPE é treinado sobre o texto «{text}» (bytes; um espaço, escrito ·, gruda no começo da palavra seguinte, e nenhum par atravessa palavras)."),),
                Block::Text("Qual par de símbolos vizinhos é fundido primeiro?".into()),
            ],
            options,
            correct,
            vec![
                format!("Contagens dos pares mais frequentes: {}", counts[..4].iter().map(|&(p, n)| format!("{} → {n}", label(p))).collect::<Vec<_>>().join("; ")),
                format!("O mais frequente, {}, é a primeira fusão: vira o token {}.", label(first), bpe.token_label(256)),
            ],
            why,
        )
        .given("words", words.iter().map(|w| SYLLABLES.iter().position(|s| s == w).expect("a syllable") as f64).collect::<Vec<f64>>());
    }
}
