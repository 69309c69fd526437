//! `train`: trains the site's decoder on Machado de Assis and writes everything the site
//! ships (static/model/) and the inference fixture (tests/fixtures/decoder_fixture.json).
//!
//!   cargo run --release -p atencao-train -- [--corpus ../shared/corpus/machado] [--out static/model]
//!
//! Steps: read the books (one held out for validation), train the byte-level BPE, encode,
//! train the GPT-style model with AdamW (resumable checkpoints in --checkpoints), evaluate
//! bits per character on the held-out book, round the weights to f16, and compute the
//! fixture (last-position logits for fixed prompts) with those f16 weights.


use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use atencao_core::bpe::Bpe;
use atencao_core::checksum::sha256_hex;
use atencao_core::decoder::bigram::TokenBigram;
use atencao_core::decoder::manifest::{Manifest, TrainingReport};
use atencao_core::decoder::{prose, DecoderConfig};
use atencao_core::format::format_pt;
use atencao_core::rng::Rng;
use candle_core::{DType, Device, Tensor};

use atencao_train::model::Gpt;
use atencao_train::optim::AdamW;

/// Prompts of the fixture and of the model card's samples.
const PROMPTS: &[&str] = &[
    "As chaves do armário estão sobre a mesa",
    "A galinha atravessou a rua porque ela queria",
    "Capitu",
    "Era uma vez",
    "Não desejo ao meu maior inimigo o que me aconteceu",
];

struct Args {
    corpus: PathBuf,
    out: PathBuf,
    fixture: PathBuf,
    checkpoints: PathBuf,
    validation_book: String,
    config: DecoderConfig,
    steps: usize,
    batch: usize,
    lr: f64,
    warmup: usize,
    weight_decay: f64,
    seed: u64,
    eval_every: usize,
    checkpoint_every: usize,
    /// Time a few steps, print tokens per second and stop (to size a run).
    bench: usize,
    /// Score the model in this folder (config.json, tokenizer.json, model.safetensors) on
    /// the prepared validation book and stop: how an earlier model does on the same text.
    score: Option<PathBuf>,
    /// The model this run replaces, scored on the same prepared validation text for the card.
    previous: Option<PathBuf>,
}

fn usage() -> ! {
    eprintln!(
        "uso: train [--corpus DIR] [--out DIR] [--fixture FILE] [--checkpoints DIR] [--validation LIVRO.txt]\n\
         \x20            [--steps N] [--batch B] [--lr X] [--seed S] [--d-model C] [--heads H] [--layers L]\n\
         \x20            [--vocab V] [--context T] [--bench N] [--score PASTA] [--previous PASTA]"
    );
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut a = Args {
        corpus: PathBuf::from("../shared/corpus/machado"),
        out: PathBuf::from("static/model"),
        fixture: PathBuf::from("tests/fixtures/decoder_fixture.json"),
        checkpoints: PathBuf::from("target/train-checkpoints"),
        validation_book: "romance-casaVelha.txt".into(),
        config: DecoderConfig::shipped(),
        steps: 3000,
        batch: 16,
        lr: 2e-3,
        warmup: 100,
        weight_decay: 0.1,
        seed: 1839,
        eval_every: 100,
        checkpoint_every: 100,
        bench: 0,
        score: None,
        previous: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| usage());
        let num = |s: String| s.parse::<usize>().unwrap_or_else(|_| usage());
        match flag.as_str() {
            "--corpus" => a.corpus = value().into(),
            "--out" => a.out = value().into(),
            "--fixture" => a.fixture = value().into(),
            "--checkpoints" => a.checkpoints = value().into(),
            "--validation" => a.validation_book = value(),
            "--steps" => a.steps = num(value()),
            "--batch" => a.batch = num(value()),
            "--lr" => a.lr = value().parse().unwrap_or_else(|_| usage()),
            "--seed" => a.seed = num(value()) as u64,
            "--d-model" => {
                a.config.d_model = num(value());
                a.config.d_ff = 4 * a.config.d_model;
            }
            "--heads" => a.config.n_heads = num(value()),
            "--layers" => a.config.n_layers = num(value()),
            "--vocab" => a.config.vocab_size = num(value()),
            "--context" => a.config.context = num(value()),
            "--bench" => a.bench = num(value()),
            "--score" => a.score = Some(value().into()),
            "--previous" => a.previous = Some(value().into()),
            _ => usage(),
        }
    }
    if let Err(e) = a.config.validate() {
        eprintln!("{e}");
        std::process::exit(2);
    }
    a
}

/// The books, sorted by file name: (name, text).
fn read_corpus(dir: &Path) -> Vec<(String, String)> {
    let mut books: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("não consegui ler o corpus em {}: {e}", dir.display()))
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            (path.extension()? == "txt").then_some(path)
        })
        .map(|path| {
            let name = path.file_name().expect("file").to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            // Hard-wrapped lines joined into paragraphs (core::decoder::prose).
            (name, prose::prepare(&text))
        })
        .collect();
    books.sort();
    assert!(!books.is_empty(), "nenhum .txt em {}", dir.display());
    books
}

/// Learning rate at `step`: linear warm-up, then cosine decay to a tenth.
fn learning_rate(args: &Args, step: usize) -> f64 {
    if step < args.warmup {
        return args.lr * (step + 1) as f64 / args.warmup as f64;
    }
    let progress = (step - args.warmup) as f64 / (args.steps - args.warmup).max(1) as f64;
    let cosine = 0.5 * (1.0 + (std::f64::consts::PI * progress.min(1.0)).cos());
    args.lr * (0.1 + 0.9 * cosine)
}

/// A batch of B random windows: inputs (B,T) and the same windows shifted by one (targets).
/// The generator is seeded by (seed, step), so a resumed run draws the same batches.
fn batch(tokens: &[u32], args: &Args, step: usize, device: &Device) -> candle_core::Result<(Tensor, Tensor)> {
    let t = args.config.context;
    let mut rng = Rng::new(args.seed ^ (step as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut inputs = Vec::with_capacity(args.batch * t);
    let mut targets = Vec::with_capacity(args.batch * t);
    for _ in 0..args.batch {
        let start = rng.below((tokens.len() - t - 1) as u64) as usize;
        inputs.extend_from_slice(&tokens[start..start + t]);
        targets.extend_from_slice(&tokens[start + 1..start + t + 1]);
    }
    Ok((
        Tensor::from_vec(inputs, (args.batch, t), device)?,
        Tensor::from_vec(targets, (args.batch, t), device)?,
    ))
}

/// Total cross-entropy (nats) of the held-out tokens, in windows of T (each token except the
/// first predicted once), at most `max_windows` windows. Returns (nats, tokens predicted).
fn evaluate(gpt: &Gpt, tokens: &[u32], max_windows: usize, device: &Device) -> candle_core::Result<(f64, usize)> {
    let t = gpt.config.context;
    let starts: Vec<usize> = (0..tokens.len().saturating_sub(1)).step_by(t).take(max_windows).collect();
    let (mut nats, mut count) = (0.0, 0);
    for group in starts.chunks(16) {
        // Windows of equal length T batch together; the book's last, shorter window goes alone.
        for same in group.chunk_by(|a, b| (tokens.len() - 1 - a).min(t) == (tokens.len() - 1 - b).min(t)) {
            let len = (tokens.len() - 1 - same[0]).min(t);
            let ids: Vec<u32> = same.iter().flat_map(|&s| tokens[s..s + len].iter().copied()).collect();
            let tg: Vec<u32> = same.iter().flat_map(|&s| tokens[s + 1..s + 1 + len].iter().copied()).collect();
            let ids = Tensor::from_vec(ids, (same.len(), len), device)?;
            let tg = Tensor::from_vec(tg, (same.len(), len), device)?;
            let loss = gpt.loss(&ids, &tg)?.to_scalar::<f32>()? as f64;
            nats += loss * (same.len() * len) as f64;
            count += same.len() * len;
        }
    }
    Ok((nats, count))
}

fn save_tensors(tensors: &[(String, Tensor)], dtype: DType, path: &Path) -> candle_core::Result<()> {
    let map: HashMap<String, Tensor> =
        tensors.iter().map(|(n, t)| Ok((n.clone(), t.to_dtype(dtype)?))).collect::<candle_core::Result<_>>()?;
    candle_core::safetensors::save(&map, path)
}

fn load_tensors(path: &Path, device: &Device) -> candle_core::Result<Vec<(String, Tensor)>> {
    let mut v: Vec<(String, Tensor)> = candle_core::safetensors::load(path, device)?.into_iter().collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(v)
}

/// Greedy continuation of `prompt` by full recompute (for the model card).
fn generate(gpt: &Gpt, bpe: &Bpe, prompt: &str, new_tokens: usize, device: &Device) -> candle_core::Result<String> {
    let mut ids = bpe.encode(prompt);
    for _ in 0..new_tokens {
        let window = &ids[ids.len().saturating_sub(gpt.config.context)..];
        let input = Tensor::from_vec(window.to_vec(), (1, window.len()), device)?;
        let logits = gpt.forward(&input)?.squeeze(0)?;
        let last = logits.get(window.len() - 1)?.to_vec1::<f32>()?;
        ids.push(atencao_core::decoder::sampling::argmax(&last) as u32);
    }
    Ok(bpe.decode(&ids))
}

/// Bits per character of the model in `dir` (its own config, tokenizer and weights) on `text`.
fn score(dir: &Path, text: &str, device: &Device) -> candle_core::Result<f64> {
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(name)).map_err(|e| candle_core::Error::Msg(format!("{}: {e}", dir.join(name).display())))
    };
    let manifest = Manifest::from_json(&read("config.json")?).map_err(|e| candle_core::Error::Msg(e.to_string()))?;
    let bpe = Bpe::from_json(&read("tokenizer.json")?).map_err(|e| candle_core::Error::Msg(e.to_string()))?;
    let gpt = Gpt::from_tensors(&manifest.config, load_tensors(&dir.join(&manifest.weights_file), device)?, device)?;
    let tokens = bpe.encode(text);
    let (nats, _) = evaluate(&gpt, &tokens, usize::MAX, device)?;
    Ok(nats / text.chars().count() as f64 / std::f64::consts::LN_2)
}

/// CPU seconds this process has used, all threads (Linux; None elsewhere): with other work
/// on the machine, wall time overstates what training needs.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (in parentheses): utime and stime are the 12th and 13th.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn format_duration(seconds: f64) -> String {
    let s = seconds.max(0.0) as u64;
    format!("{}h{:02}m{:02}s", s / 3600, s / 60 % 60, s % 60)
}

/// The model card shipped beside the weights, written from what this run measured.
fn model_card(m: &Manifest, samples: &[(String, String)]) -> String {
    let c = &m.config;
    let t = &m.training;
    let mut out = String::new();
    let _ = writeln!(out, "# Cartão do modelo: o decodificador de atenção\n");
    let _ = writeln!(out, "Um Transformer só-decodificador (estilo GPT), pequeno, treinado do zero por `train/` deste repositório \
        sobre a obra de Machado de Assis (domínio público). Roda no navegador, em WebGPU ou na CPU, pelo núcleo de cálculo do site.\n");
    let _ = writeln!(out, "## Dados\n");
    let _ = writeln!(out, "- Treino: {} livros (romances e coletâneas de contos), {} caracteres, {} tokens.", t.corpus_books, t.corpus_chars, t.train_tokens);
    let _ = writeln!(out, "- Validação: o livro inteiro `{}` ({} caracteres), fora do treino (também do treino do tokenizador).", t.validation_book, t.validation_chars);
    let _ = writeln!(out, "- Texto em parágrafos: os livros vêm quebrados em linhas de uns 80 caracteres; antes de tokenizar, as linhas \
        de cada parágrafo são unidas e os espaços normalizados (`core::decoder::prose`). Um parágrafo termina numa linha em branco, \
        numa linha bem mais curta que a largura do livro, ou antes de uma fala (travessão). Treino e validação passam pela mesma \
        preparação; maiúsculas, acentos e pontuação ficam como estão. Sem isso, o modelo aprendia a quebrar a linha a cada ~70 \
        caracteres, no meio da frase.\n");
    let _ = writeln!(out, "## Tokenizador\n");
    let _ = writeln!(out, "BPE em bytes com {} tokens: os 256 bytes e {} fusões aprendidas no corpus de treino. Nenhum texto fica sem \
        representação (qualquer caractere cai nos bytes), e decodificar devolve exatamente o texto. O tamanho equilibra dois custos: \
        com menos tokens as sequências ficam longas para um contexto de {} posições; com mais, a matriz de embeddings (V×C) \
        dominaria os parâmetros de um modelo deste porte.\n", c.vocab_size, c.vocab_size - 256, c.context);
    let _ = writeln!(out, "## Arquitetura\n");
    let _ = writeln!(out, "| hiperparâmetro | valor |\n|---|---|");
    for (k, v) in [
        ("vocabulário V", c.vocab_size.to_string()),
        ("largura C (d_model)", c.d_model.to_string()),
        ("cabeças nh (tamanho hs)", format!("{} ({})", c.n_heads, c.head_size())),
        ("blocos L", c.n_layers.to_string()),
        ("FFN d_ff", format!("{} (4·C)", c.d_ff)),
        ("contexto T", c.context.to_string()),
        ("codificação posicional", format!("senoidal, θ = {}", c.pe_theta)),
        ("parâmetros", c.parameter_count().to_string()),
        ("pesos", format!("{} bytes em f16 (safetensors)", m.weights_bytes)),
    ] {
        let _ = writeln!(out, "| {k} | {v} |");
    }
    let _ = writeln!(out, "\nComo nos artigos: embeddings de tokens somados à codificação posicional senoidal (os embeddings \
        multiplicados por √C, como no artigo original, para não ficarem pequenos diante dela), autoatenção causal com várias \
        cabeças e projeções W^Q, W^K, W^V, W^O sem viés, FFN com ReLU e d_ff = 4·C, conexões residuais e layer norm. \
        Diferença deliberada: a layer norm vem *antes* de cada subcamada (pre-LN), com uma layer norm final, porque treina \
        de forma mais estável que a pós-LN dos artigos. A cabeça de saída reaproveita a matriz de embeddings (pesos amarrados).\n");
    let _ = writeln!(out, "## Treino\n");
    let _ = writeln!(out, "- Comando: `cargo run --profile train -p atencao-train -- --corpus ../shared/corpus/machado` \
        (retoma do último checkpoint se for interrompido).");
    let _ = writeln!(out, "- {} passos de {} janelas × {} tokens; AdamW (β = 0,9 / 0,95, decaimento 0,1 nas matrizes), \
        taxa {} com aquecimento linear e decaimento cosseno, gradiente limitado a norma 1; semente {}.",
        t.steps, t.batch, c.context, format_pt(t.learning_rate as f32, 4), t.seed);
    let _ = writeln!(out, "- Duração: {} de relógio em {} núcleos de CPU, com candle{}.", format_duration(t.seconds), t.threads,
        t.cpu_seconds.map_or(String::new(), |cpu| format!(" ({} de CPU somando os núcleos; a máquina foi dividida com outras tarefas)", format_duration(cpu))));
    let _ = writeln!(out, "- Curva de perda: `loss.csv` (passo, tokens, taxa, perda de treino, perda e bits por caractere na validação).\n");
    let _ = writeln!(out, "## Resultado\n");
    let _ = writeln!(out, "**{} bits por caractere** no livro de validação inteiro, com os pesos f16 entregues. \
        Bits por caractere (e não perda por token) porque não dependem do tokenizador.\n", format_pt(t.validation_bpc as f32, 3));
    if let Some(previous) = t.previous_validation_bpc {
        let _ = writeln!(out, "O modelo anterior (treinado sobre as linhas quebradas), medido sobre o mesmo texto preparado: \
            **{} bits por caractere**.\n", format_pt(previous as f32, 3));
    }
    let _ = writeln!(out, "Continuações gulosas (sempre o token mais provável), 40 tokens:\n");
    for (prompt, text) in samples {
        let _ = writeln!(out, "- *{prompt}* → {}", text.replace('\n', " ⏎ "));
    }
    let _ = writeln!(out, "\n## Limitações\n");
    let _ = writeln!(out, "- É um modelo de brinquedo: cerca de {} milhões de parâmetros e {} tokens de contexto. Imita o estilo \
        e a ortografia, mas perde o fio em poucas frases e não sabe fatos.", format_pt(c.parameter_count() as f32 / 1e6, 1), c.context);
    let _ = writeln!(out, "- Só viu português do século XIX de um único autor: vocabulário, grafia e temas dessa obra.");
    let _ = writeln!(out, "- Pode reproduzir trechos do corpus e os preconceitos da época. Não use para nada além de estudo.");
    out
}

fn main() -> candle_core::Result<()> {
    let args = parse_args();
    let device = Device::Cpu;
    let started = Instant::now();
    std::fs::create_dir_all(&args.out)?;
    std::fs::create_dir_all(&args.checkpoints)?;

    // 1. Corpus: every book but one trains; the held-out book measures generalisation.
    let books = read_corpus(&args.corpus);
    let (val, train): (Vec<_>, Vec<_>) = books.iter().partition(|(n, _)| *n == args.validation_book);
    let val_text = &val.first().unwrap_or_else(|| panic!("livro de validação {} não está no corpus", args.validation_book)).1;
    let train_chars: usize = train.iter().map(|(_, t)| t.chars().count()).sum();
    eprintln!("corpus: {} livros de treino ({} caracteres), validação: {} ({} caracteres)",
        train.len(), train_chars, args.validation_book, val_text.chars().count());

    if let Some(dir) = &args.score {
        let bpc = score(dir, val_text, &device)?;
        println!("{}: {bpc:.4} bits por caractere em {} (texto preparado em parágrafos)", dir.display(), args.validation_book);
        return Ok(());
    }

    // The model being replaced, on the same text (before this run overwrites --out).
    let previous_bpc = match &args.previous {
        Some(dir) if args.bench == 0 => {
            let bpc = score(dir, val_text, &device)?;
            eprintln!("modelo anterior ({}): {bpc:.4} bits por caractere", dir.display());
            Some(bpc)
        }
        _ => None,
    };

    // 2. Tokenizer, trained on the training books only.
    let tokenizer_path = args.checkpoints.join("tokenizer.json");
    let bpe = match std::fs::read_to_string(&tokenizer_path).ok().and_then(|s| Bpe::from_json(&s).ok()) {
        Some(bpe) if bpe.vocab_size() == args.config.vocab_size => bpe,
        _ => {
            let t0 = Instant::now();
            let bpe = Bpe::train(train.iter().map(|(_, t)| t.as_str()), args.config.vocab_size)
                .map_err(|e| candle_core::Error::Msg(e.to_string()))?;
            eprintln!("BPE: {} fusões em {:.1} s", bpe.merges().len(), t0.elapsed().as_secs_f64());
            std::fs::write(&tokenizer_path, bpe.to_json())?;
            bpe
        }
    };
    let mut train_tokens = Vec::new();
    for (_, text) in &train {
        train_tokens.extend(bpe.encode(text));
        train_tokens.extend(bpe.encode("\n\n"));
    }
    let val_tokens = bpe.encode(val_text);
    let val_chars = val_text.chars().count();
    eprintln!("tokens: treino {} ({:.2} caracteres/token), validação {}",
        train_tokens.len(), train_chars as f64 / train_tokens.len() as f64, val_tokens.len());

    // 3. Model and optimiser, from the last checkpoint if there is one.
    let ckpt_model = args.checkpoints.join("model.safetensors");
    let ckpt_state = args.checkpoints.join("state.txt");
    // state.txt: "step seconds", the seconds spent by earlier (interrupted) runs.
    let state = std::fs::read_to_string(&ckpt_state).unwrap_or_default();
    let mut fields = state.split_whitespace().map(|f| f.parse::<f64>().ok());
    let resumed_step = fields.next().flatten().map(|s| s as usize);
    let earlier_seconds = fields.next().flatten().unwrap_or(0.0);
    let earlier_cpu = fields.next().flatten().unwrap_or(0.0);
    let total_seconds = || earlier_seconds + started.elapsed().as_secs_f64();
    let total_cpu = || cpu_seconds().map(|s| earlier_cpu + s);
    let (gpt, mut opt, mut step) = match resumed_step {
        Some(step) if args.bench == 0 => {
            let gpt = Gpt::from_tensors(&args.config, load_tensors(&ckpt_model, &device)?, &device)?;
            let opt = AdamW::load(&gpt, &args.checkpoints, &device)?;
            eprintln!("retomando do passo {step}");
            (gpt, opt, step)
        }
        _ => {
            let gpt = Gpt::init(&args.config, args.seed, &device)?;
            let opt = AdamW::new(&gpt, 0.9, 0.95, 1e-8)?;
            (gpt, opt, 0)
        }
    };
    eprintln!("modelo: {} parâmetros, C={} nh={} L={} T={} V={}", args.config.parameter_count(),
        args.config.d_model, args.config.n_heads, args.config.n_layers, args.config.context, args.config.vocab_size);

    // 4. Training loop.
    let csv_path = args.out.join("loss.csv");
    if step == 0 {
        std::fs::write(&csv_path, "step,tokens,lr,train_loss,val_loss,val_bpc,elapsed_s\n")?;
    }
    let tokens_per_step = args.batch * args.config.context;
    let total = if args.bench > 0 { args.bench } else { args.steps };
    let loop_start = Instant::now();
    let first_step = step;
    let mut recent = Vec::new();
    let mut last_val = f64::NAN;
    while step < total {
        let lr = learning_rate(&args, step);
        let (x, y) = batch(&train_tokens, &args, step, &device)?;
        let loss = gpt.loss(&x, &y)?;
        let grads = loss.backward()?;
        opt.step(&gpt, &grads, lr, args.weight_decay, 1.0)?;
        let loss = loss.to_scalar::<f32>()? as f64;
        recent.push(loss);
        step += 1;

        let done = step - first_step;
        let elapsed = loop_start.elapsed().as_secs_f64();
        let tok_s = (done * tokens_per_step) as f64 / elapsed;
        let eta = (total - step) as f64 * elapsed / done as f64;
        let filled = step * 30 / total;
        eprint!("\r[{}{}] passo {step}/{total}  perda {loss:.3}  bpc(val) {last_val:.3}  {tok_s:.0} tokens/s  ETA {}   ",
            "#".repeat(filled), ".".repeat(30 - filled), format_duration(eta));
        if args.bench > 0 {
            continue;
        }
        if step % args.eval_every == 0 || step == total {
            let (nats, n) = evaluate(&gpt, &val_tokens, 24, &device)?;
            let val_loss = nats / n as f64;
            // bits per character: nats per token × tokens per character / ln 2 (estimated on the windows' text).
            let chars_per_token = val_chars as f64 / val_tokens.len() as f64;
            last_val = val_loss / chars_per_token / std::f64::consts::LN_2;
            let train_loss = recent.iter().sum::<f64>() / recent.len() as f64;
            recent.clear();
            let mut csv = std::fs::OpenOptions::new().append(true).open(&csv_path)?;
            writeln!(csv, "{step},{},{lr:.6},{train_loss:.4},{val_loss:.4},{last_val:.4},{:.0}",
                step * tokens_per_step, total_seconds())?;
        }
        if step % args.checkpoint_every == 0 || step == total {
            save_tensors(&gpt.tensors(), DType::F32, &ckpt_model)?;
            opt.save(&gpt, &args.checkpoints)?;
            std::fs::write(&ckpt_state, format!("{step} {:.0} {:.0}\n", total_seconds(), total_cpu().unwrap_or(0.0)))?;
        }
    }
    eprintln!();
    if args.bench > 0 {
        let s = loop_start.elapsed().as_secs_f64();
        println!("bench: {} passos de {} tokens em {:.1} s = {:.0} tokens/s; {} passos levariam {}",
            args.bench, tokens_per_step, s, (args.bench * tokens_per_step) as f64 / s, args.steps,
            format_duration(s / args.bench as f64 * args.steps as f64));
        return Ok(());
    }

    // 5. Ship: weights rounded to f16, and everything measured with those rounded weights.
    let weights_path = args.out.join("model.safetensors");
    save_tensors(&gpt.tensors(), DType::F16, &weights_path)?;
    let shipped = Gpt::from_tensors(&args.config, load_tensors(&weights_path, &device)?, &device)?;
    let (nats, n) = evaluate(&shipped, &val_tokens, usize::MAX, &device)?;
    let val_bpc = nats / val_chars as f64 / std::f64::consts::LN_2;
    eprintln!("validação completa ({n} tokens): {:.4} nats/token, {val_bpc:.4} bits por caractere", nats / n as f64);

    std::fs::write(args.out.join("tokenizer.json"), bpe.to_json())?;
    let weights = std::fs::read(&weights_path)?;
    let tokenizer = std::fs::read(args.out.join("tokenizer.json"))?;
    let bigram = TokenBigram::count(&train_tokens, bpe.vocab_size()).to_bytes();
    std::fs::write(args.out.join("bigram.bin"), &bigram)?;
    let mut samples = Vec::new();
    for prompt in PROMPTS {
        samples.push((prompt.to_string(), generate(&shipped, &bpe, prompt, 40, &device)?));
    }
    let train_seconds = total_seconds();
    let manifest = Manifest {
        config: args.config.clone(),
        weights_file: "model.safetensors".into(),
        weights_bytes: weights.len(),
        weights_sha256: sha256_hex(&weights),
        tokenizer_file: "tokenizer.json".into(),
        tokenizer_sha256: sha256_hex(&tokenizer),
        bigram_file: "bigram.bin".into(),
        bigram_sha256: sha256_hex(&bigram),
        training: TrainingReport {
            corpus_books: train.len(),
            corpus_chars: train_chars,
            train_tokens: train_tokens.len(),
            validation_book: args.validation_book.clone(),
            validation_chars: val_chars,
            validation_bpc: val_bpc,
            steps: args.steps,
            batch: args.batch,
            learning_rate: args.lr,
            seed: args.seed,
            seconds: train_seconds,
            cpu_seconds: total_cpu(),
            previous_validation_bpc: previous_bpc,
            prose_paragraphs: true,
            threads: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        },
    };
    std::fs::write(args.out.join("config.json"), manifest.to_json())?;
    std::fs::write(args.out.join("MODEL_CARD.md"), model_card(&manifest, &samples))?;

    // 6. Fixture: last-position logits of each prompt with the shipped (f16) weights.
    let mut fixture = String::from("{\n  \"note\": \"Logits de candle na última posição, pesos f16 do static/model. Gerado por train.\",\n  \"cases\": [\n");
    for (i, prompt) in PROMPTS.iter().enumerate() {
        // A prompt longer than the context keeps its last `context` tokens (as the site does).
        let mut ids = bpe.encode(prompt);
        ids.drain(..ids.len().saturating_sub(args.config.context));
        let input = Tensor::from_vec(ids.clone(), (1, ids.len()), &device)?;
        let logits = shipped.forward(&input)?.squeeze(0)?.get(ids.len() - 1)?.to_vec1::<f32>()?;
        let top = atencao_core::decoder::sampling::top_n(&logits, 10);
        let list = |v: &[String]| v.join(",");
        let _ = write!(
            fixture,
            "    {{\"prompt\": {}, \"ids\": [{}], \"top10\": [{}], \"logits\": [{}]}}{}\n",
            serde_json::to_string(prompt).expect("a string"),
            list(&ids.iter().map(|i| i.to_string()).collect::<Vec<_>>()),
            list(&top.iter().map(|(i, _)| i.to_string()).collect::<Vec<_>>()),
            list(&logits.iter().map(|v| format!("{v:e}")).collect::<Vec<_>>()),
            if i + 1 < PROMPTS.len() { "," } else { "" }
        );
    }
    fixture.push_str("  ]\n}\n");
    if let Some(dir) = args.fixture.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&args.fixture, fixture)?;
    eprintln!("pronto em {}: {} ({} bytes), bpc {val_bpc:.4}", format_duration(train_seconds), weights_path.display(), weights.len());
    Ok(())
}
