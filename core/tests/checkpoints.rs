//! Issue 38's checkpoints, every kind over 500 seeds: the answer equals an independent formula
//! computed here from the question's numbers; a choice has one right option, no two options
//! alike; the numbers stay readable; the known slips differ from the answer at the precision it
//! is judged at; the worked solution ends at the answer; the question shows its numbers.

use atencao_core::checkpoints::checkpoint::typed_number;
use atencao_core::checkpoints::{kind, Answer, Block, Checkpoint, KINDS};
use atencao_core::format::format_pt;

const SEEDS: u64 = 500;

/// The question as one string (sentences and every cell of its tables).
fn question_text(c: &Checkpoint) -> String {
    c.question
        .iter()
        .map(|b| match b {
            Block::Text(t) => t.clone(),
            Block::Table { caption, head, rows } => {
                format!("{caption} {} {}", head.join(" "), rows.iter().map(|(l, cells)| format!("{l} {}", cells.join(" "))).collect::<Vec<_>>().join(" "))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn number(c: &Checkpoint) -> (f64, usize) {
    match c.answer {
        Answer::Number { value, decimals } => (value, decimals),
        Answer::Choice { .. } => panic!("{}: a number was expected", c.kind),
    }
}

/// The answer matches `expected` at the precision it is judged at.
fn assert_number(c: &Checkpoint, expected: f64, seed: u64) {
    let (value, decimals) = number(c);
    assert_eq!(typed_number(value, decimals), typed_number(expected, decimals), "{} seed {seed}: {value} vs {expected}", c.kind);
    assert!((value - expected).abs() < 1e-4 * expected.abs().max(1.0), "{} seed {seed}: {value} vs {expected}", c.kind);
}

fn choice(c: &Checkpoint) -> (&[String], usize) {
    match &c.answer {
        Answer::Choice { options, correct } => (options, *correct),
        Answer::Number { .. } => panic!("{}: a choice was expected", c.kind),
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn softmax(z: &[f64]) -> Vec<f64> {
    let e: Vec<f64> = z.iter().map(|x| x.exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|x| x / s).collect()
}

#[test]
fn at_least_fifteen_kinds_with_distinct_ids() {
    assert!(KINDS.len() >= 15, "{} kinds", KINDS.len());
    for (i, k) in KINDS.iter().enumerate() {
        assert!(KINDS[..i].iter().all(|o| o.id != k.id), "{} twice", k.id);
        assert_eq!(kind(k.id).map(|x| x.id), Some(k.id));
        assert_eq!((k.make)(1).kind, k.id, "the generator names its own kind");
    }
}

#[test]
fn every_kind_is_well_formed_over_500_seeds() {
    for k in KINDS {
        let (mut answers, mut positions) = (std::collections::BTreeSet::new(), std::collections::BTreeSet::new());
        for seed in 0..SEEDS {
            let c = (k.make)(seed);
            assert_eq!(c, (k.make)(seed), "{} seed {seed}: the same seed, the same checkpoint", k.id);
            assert!(!c.question.is_empty() && c.steps.len() >= 2, "{} seed {seed}: a question and a worked solution", k.id);
            let solution = c.steps.join("\n");
            let typed = c.answer.typed();
            answers.insert(typed.clone());
            match &c.answer {
                Answer::Number { value, decimals } => {
                    assert!(value.is_finite() && value.abs() < 1e6, "{} seed {seed}: {value} is not readable", k.id);
                    assert!(*decimals <= 4 && typed.len() <= 8, "{} seed {seed}: «{typed}» is too long to type", k.id);
                    // The last step states the answer as printed (with the Portuguese minus).
                    let printed = format_pt(*value as f32, *decimals);
                    let last = c.steps.last().expect("steps");
                    assert!(last.contains(&printed) || last.contains(&typed), "{} seed {seed}: the solution ends at {printed}: {last}", k.id);
                    for w in &c.wrong {
                        assert_ne!(w.answer, typed, "{} seed {seed}: a slip equals the answer", k.id);
                        assert_eq!(w.answer, typed_number(w.answer.replace(',', ".").parse::<f64>().expect("a number"), *decimals), "{} seed {seed}: a slip written at the answer's precision", k.id);
                        assert!(!w.why.is_empty());
                    }
                }
                Answer::Choice { options, correct } => {
                    positions.insert(*correct);
                    assert!(options.len() >= 3 && *correct < options.len(), "{} seed {seed}", k.id);
                    for (i, o) in options.iter().enumerate() {
                        assert!(options[..i].iter().all(|p| p != o), "{} seed {seed}: option «{o}» twice", k.id);
                    }
                    // A diagnosis for every wrong option, none for the right one.
                    let diagnosed: Vec<usize> = c.wrong.iter().map(|w| w.answer.parse().expect("an option's index")).collect();
                    assert_eq!(diagnosed.len(), options.len() - 1, "{} seed {seed}", k.id);
                    assert!(!diagnosed.contains(correct) && diagnosed.iter().all(|&i| i < options.len()), "{} seed {seed}", k.id);
                    assert!(solution.to_lowercase().contains(&typed.to_lowercase()) || solution.contains(typed.split(" (").next().unwrap_or_default().to_lowercase().as_str()), "{} seed {seed}: the solution names the answer «{typed}»: {solution}", k.id);
                }
            }
            for (i, w) in c.wrong.iter().enumerate() {
                assert!(c.wrong[..i].iter().all(|o| o.answer != w.answer), "{} seed {seed}: a slip twice", k.id);
            }
            // Every number the question is made of is small, and shown.
            let text = question_text(&c);
            for (name, values) in &c.givens {
                for &v in values {
                    assert!(v.abs() <= 10_000.0, "{} seed {seed}: given {name} = {v}", k.id);
                }
            }
            assert!(!text.contains("NaN") && !text.contains("inf"), "{} seed {seed}: {text}", k.id);
        }
        // The answer varies: numbers take many values, the right option is not always the same one.
        assert!(answers.len() >= 4 || positions.len() >= 3, "{}: 500 seeds give only {} different answers", k.id, answers.len());
    }
}

#[test]
fn numeric_answers_equal_an_independent_formula() {
    for seed in 0..SEEDS {
        let make = |id: &str| (kind(id).expect("a kind").make)(seed);

        let c = make("produto-escalar");
        assert_number(&c, dot(c.numbers("u"), c.numbers("v")), seed);

        let c = make("norma");
        assert_number(&c, c.numbers("v").iter().map(|x| x * x).sum::<f64>().sqrt(), seed);

        let c = make("cosseno");
        let (a, b) = (c.numbers("a"), c.numbers("b"));
        assert_number(&c, dot(a, b) / (dot(a, a).sqrt() * dot(b, b).sqrt()), seed);

        let c = make("idf");
        assert_number(&c, (c.numbers("n")[0] / c.numbers("df")[0]).log10(), seed);

        let c = make("celula-matmul");
        let (a, b, ij) = (c.numbers("a"), c.numbers("b"), c.numbers("ij"));
        let (i, j) = (ij[0] as usize, ij[1] as usize);
        assert_number(&c, (0..3).map(|k| a[i * 3 + k] * b[k * 2 + j]).sum(), seed);

        let c = make("markov-dois-passos");
        let (p, ft) = (c.numbers("p"), c.numbers("from-to"));
        let n = (p.len() as f64).sqrt() as usize;
        let (from, to) = (ft[0] as usize, ft[1] as usize);
        assert_number(&c, (0..n).map(|m| p[from * n + m] * p[m * n + to]).sum(), seed);

        let c = make("prob-bigrama");
        let (words, pair) = (c.numbers("sentences"), c.numbers("pair"));
        let (mut from, mut both) = (0.0, 0.0);
        for w in words.windows(2) {
            if w[0] == pair[0] && w[1] >= 0.0 {
                from += 1.0;
                if w[1] == pair[1] {
                    both += 1.0;
                }
            }
        }
        assert_number(&c, both / from, seed);

        let c = make("ngramas-possiveis");
        let vn = c.numbers("v-n");
        assert_number(&c, vn[0].powi(vn[1] as i32), seed);

        let c = make("softmax-linha");
        assert_number(&c, softmax(c.numbers("z"))[c.numbers("i")[0] as usize], seed);

        let c = make("relu-neuronio");
        assert_number(&c, (dot(c.numbers("w"), c.numbers("x")) + c.numbers("b")[0]).max(0.0), seed);

        let c = make("score-escalonado");
        let (q, k) = (c.numbers("q"), c.numbers("k"));
        assert_number(&c, dot(q, k) / (q.len() as f64).sqrt(), seed);

        let c = make("linha-mascarada");
        let (s, ij) = (c.numbers("s"), c.numbers("ij"));
        let (i, j) = (ij[0] as usize, ij[1] as usize);
        assert!(j <= i, "a visible key");
        assert_number(&c, softmax(&s[i * 3..i * 3 + i + 1])[j], seed);

        let c = make("saida-atencao");
        let (w, v, col) = (c.numbers("w"), c.numbers("v"), c.numbers("c")[0] as usize);
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-6, "weights sum to 1");
        assert_number(&c, (0..3).map(|r| w[r] * v[r * 2 + col]).sum(), seed);

        let c = make("pe-valor");
        let dpj = c.numbers("d-p-j");
        let (d, p, j) = (dpj[0], dpj[1], dpj[2] as usize);
        let angle = p / 10_000f64.powf((2 * (j / 2)) as f64 / d);
        assert_number(&c, if j % 2 == 0 { angle.sin() } else { angle.cos() }, seed);

        let c = make("parametros-bloco");
        let dd = c.numbers("d-dff");
        let (d, f) = (dd[0], dd[1]);
        assert_number(&c, 4.0 * d * d + (d * f + f) + (f * d + d) + 2.0 * (2.0 * d), seed);

        let c = make("temperatura");
        let (z, ti) = (c.numbers("z"), c.numbers("t-i"));
        let scaled: Vec<f64> = z.iter().map(|x| x / ti[0]).collect();
        assert_number(&c, softmax(&scaled)[ti[1] as usize], seed);

        let c = make("top-p");
        let mut probs = softmax(c.numbers("z"));
        probs.sort_by(|a, b| b.total_cmp(a));
        let p = c.numbers("p")[0];
        let mut acc = 0.0;
        let kept = probs.iter().take_while(|&&x| { let before = acc; acc += x; before < p }).count();
        assert_number(&c, kept as f64, seed);
    }
}

#[test]
fn choices_have_one_right_option_by_an_independent_formula() {
    for seed in 0..SEEDS {
        // TF-IDF in d₁: raw count × log₁₀(3 / df); the largest, clear at 4 places.
        let c = (kind("tfidf-maior").unwrap().make)(seed);
        let f = c.numbers("counts");
        let weights: Vec<f64> = (0..4)
            .map(|w| {
                let df = (0..3).filter(|&d| f[d * 4 + w] > 0.0).count() as f64;
                f[w] * (3.0 / df).log10()
            })
            .collect();
        let best = (0..4).max_by(|&a, &b| weights[a].total_cmp(&weights[b])).unwrap();
        assert!((0..4).all(|i| i == best || typed_number(weights[i], 4) != typed_number(weights[best], 4)), "seed {seed}: a tie at 4 places");
        let (options, correct) = choice(&c);
        assert_eq!(options[correct], ["gato", "cão", "dorme", "late"][best], "seed {seed}");

        // The key with the largest q·k gets the largest weight.
        let c = (kind("mais-atendido").unwrap().make)(seed);
        let (q, keys) = (c.numbers("q"), c.numbers("keys"));
        let scores: Vec<f64> = (0..4).map(|j| dot(q, &keys[j * 3..j * 3 + 3]) / 3f64.sqrt()).collect();
        let w = softmax(&scores);
        let best = (0..4).max_by(|&a, &b| w[a].total_cmp(&w[b])).unwrap();
        assert!((0..4).all(|j| j == best || typed_number(w[j], 4) != typed_number(w[best], 4)), "seed {seed}: a tie");
        let (options, correct) = choice(&c);
        assert_eq!(options[correct], ["o", "gato", "subiu", "telhado"][best], "seed {seed}");

        // (b, h, t, d/h).
        let c = (kind("formato-cabecas").unwrap().make)(seed);
        let s = c.numbers("b-t-h-dh");
        let (options, correct) = choice(&c);
        assert_eq!(options[correct], format!("({}, {}, {}, {})", s[0], s[2], s[1], s[3]), "seed {seed}");

        // BPE's first merge: the most frequent pair of bytes inside a word (its leading space included).
        let c = (kind("proximo-merge").unwrap().make)(seed);
        let words: Vec<&str> = c.numbers("words").iter().map(|&i| atencao_core::checkpoints::decoder::SYLLABLES[i as usize]).collect();
        let mut counts: std::collections::BTreeMap<(u8, u8), u32> = Default::default();
        for (i, w) in words.iter().enumerate() {
            let chunk = if i == 0 { w.to_string() } else { format!(" {w}") };
            for p in chunk.as_bytes().windows(2) {
                *counts.entry((p[0], p[1])).or_default() += 1;
            }
        }
        let mut ranked: Vec<((u8, u8), u32)> = counts.into_iter().collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1));
        assert!(ranked[0].1 > ranked[1].1, "seed {seed}: one most frequent pair");
        let show = |b: u8| if b == b' ' { "·".to_string() } else { (b as char).to_string() };
        let (options, correct) = choice(&c);
        assert_eq!(options[correct], format!("«{}» + «{}»", show(ranked[0].0 .0), show(ranked[0].0 .1)), "seed {seed}");
        assert!(question_text(&c).contains(&words.join(" ")), "seed {seed}: the text is shown");
    }
}

#[test]
fn the_slips_name_the_usual_mistakes() {
    // The unscaled score is diagnosed as the missing √d (the example).
    for seed in 0..50 {
        let c = (kind("score-escalonado").unwrap().make)(seed);
        let (q, k) = (c.numbers("q"), c.numbers("k"));
        let unscaled = typed_number(dot(q, k), 4);
        if unscaled != c.answer.typed() {
            let slip = c.wrong.iter().find(|w| w.answer == unscaled).unwrap_or_else(|| panic!("seed {seed}: q·k is a known slip"));
            assert!(slip.why.contains("esqueceu de dividir por √d"), "{}", slip.why);
        }
    }
}
