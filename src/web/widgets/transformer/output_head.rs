//! `output-head`: the last position's vector h (editable, d = 8) goes through the output
//! layer, logits = h·W + b with one logit per token of the 61-token table, then
//! softmax(logits / T) and the argmax (greedy decoding). The temperature reshapes the
//! probabilities but never moves the argmax. The article's code adds 2 to the argmax; the
//! widget shows which token (or non-existent id) that would name.
//!
//! So that the logits mean something without training, W is the embedding table transposed,
//! each row scaled to length 1 and multiplied by 4 (`tied_output_weights`): the logit of a
//! token is 4 × the cosine between h and its embedding. The article uses a separate linear
//! layer, which training would shape; tying it to the embeddings is a common choice too.
//!
//! Attributes: `data-token` (default "o": h starts as that token's embedding).

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::format::{format_pt, format_pt_short, parse_pt};
use crate::core::transformer::char_tokenizer::{char_id, vocabulary, VOCAB_SIZE};
use crate::core::transformer::decoding::{tied_output_weights, top_k, unit_embedding, HeadJob, HeadOutput, MAX_TEMPERATURE, MIN_TEMPERATURE};
use crate::core::transformer::embedding::seeded_table;
use crate::core::Matrix;

use crate::web::dom;
use crate::web::kit::ui::{self, show_results, MatrixEditor};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::BarView;
use crate::web::kit::{control_of, Ctx, Shell, Widget, WidgetKind};
use super::{chip_label, results_slot};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::OUTPUT_HEAD, mount };

const D: usize = 8;
/// Logit of the token whose unit embedding h equals (the others get less).
const LOGIT_SCALE: f32 = 4.0;
const TABLE_SEED: u64 = 5;
/// Bars shown: the most probable tokens.
const TOP: usize = 8;
/// The token h starts as when `data-token` says none: «o».
const DEFAULT_TOKEN: u32 = 17;

pub struct OutputHeadWidget {
    shell: Shell,
    /// E (|V|, d), and the tied output layer W (d, |V|).
    table: Matrix,
    w_out: Matrix,
    hidden: RefCell<MatrixEditor>,
    copy: HtmlSelectElement,
    temperature: HtmlInputElement,
    readout: HtmlElement,
    logits: BarView,
    probs: BarView,
    results: HtmlElement,
}

/// `data-token`: one character of the table (else «o», with a warning).
fn start_token(attrs: &Attributes) -> u32 {
    let Some(written) = attrs.text("data-token") else { return DEFAULT_TOKEN };
    let mut chars = written.trim().chars();
    match (chars.next().and_then(char_id), chars.next()) {
        (Some(id), None) => id,
        _ => {
            let shown: String = written.chars().take(20).collect();
            attrs.warn(format!("data-token: «{shown}» não é um caractere da tabela de tokens; usando «o»."));
            DEFAULT_TOKEN
        }
    }
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let start = start_token(attrs);
    let table = seeded_table(VOCAB_SIZE, D, TABLE_SEED);
    let shell = Shell::new(ctx, host, &KIND);
    let hidden = MatrixEditor::new("hidden", "h (vetor da última posição)", &unit_embedding(&table, start as usize), |_| "h".into());
    dom::append(&shell.inputs, &hidden.root);
    let options: Vec<(String, String)> = vocabulary().into_iter().map(|(id, label)| (id.to_string(), label)).collect();
    let (copy_label, copy) = ui::select("h = embedding (normalizado) de ", "copy", &options, &start.to_string());
    let (t_label, temperature) = ui::slider("temperatura ", "temperature", MIN_TEMPERATURE as f64, 3.0, 0.05, 1.0);
    let readout = dom::el("span", "readout");
    shell.control(&[&copy_label, &t_label, &readout]);
    let logits = BarView::new("logits", "");
    let probs = BarView::new("probs", "").probabilities();
    let results = results_slot();
    dom::append_all(&shell.outputs, &[&logits.root, &probs.root, &results]);
    let widget = Rc::new(OutputHeadWidget {
        shell,
        w_out: tied_output_weights(&table, LOGIT_SCALE),
        table,
        hidden: RefCell::new(hidden),
        copy,
        temperature,
        readout,
        logits,
        probs,
        results,
    });
    let shell = &widget.shell;
    shell.on(&widget, &shell.inputs, &["input"], |w, _| w.clone().recompute());
    shell.on(&widget, &shell.controls, &["input"], |w, e| {
        if control_of(e) == "temperature" {
            w.clone().recompute();
        }
    });
    shell.on(&widget, &shell.controls, &["change"], |w, e| {
        if control_of(e) == "copy" {
            w.copy_embedding();
            w.clone().recompute();
        }
    });
    Ok(widget)
}

impl OutputHeadWidget {
    /// h becomes the chosen token's embedding (normalised).
    fn copy_embedding(&self) {
        let id = self.copy.value().parse::<u32>().unwrap_or(DEFAULT_TOKEN).min(VOCAB_SIZE as u32 - 1);
        self.hidden.borrow_mut().set(&unit_embedding(&self.table, id as usize));
    }

    fn draw(&self, out: &HeadOutput, temperature: f32) {
        let t = format_pt_short(temperature, 2);
        self.readout.set_text_content(Some(&format!("T = {t}")));
        let probs = out.probs.row(0);
        let logits = out.logits.row(0);
        let best = top_k(&probs, TOP);
        let labels: Vec<String> = best.iter().map(|&(id, _)| format!("{} ({id})", chip_label(id as u32))).collect();
        let p: Vec<f32> = best.iter().map(|&(_, v)| v).collect();
        let l: Vec<f32> = best.iter().map(|&(id, _)| logits[id]).collect();
        self.logits.update(&format!("Logits h·W + b dos {TOP} tokens mais prováveis"), &labels, &l);
        self.probs.update(&format!("softmax(logits / T), T = {t}"), &labels, &p);
        let article = out.article_token();
        let article_text = if article < VOCAB_SIZE {
            format!("{article} («{}»), outro token", chip_label(article as u32))
        } else {
            format!("{article}, que não existe num vocabulário de {VOCAB_SIZE} tokens")
        };
        let rows = vec![
            ("argmax (escolha gulosa)".to_string(), format!("{} («{}»)", out.argmax, chip_label(out.argmax as u32))),
            ("probabilidade do escolhido".to_string(), format_pt(probs[out.argmax], 4)),
            ("soma das probabilidades".to_string(), format_pt(probs.iter().sum(), 4)),
            ("o código do artigo original devolveria (argmax + 2)".to_string(), article_text),
        ];
        show_results(&self.results, "choice", "A escolha", &rows);
    }
}

impl Widget for OutputHeadWidget {
    fn recompute(self: Rc<Self>) {
        let temperature = parse_pt(&self.temperature.value()).unwrap_or(1.0).clamp(MIN_TEMPERATURE, MAX_TEMPERATURE);
        let job = self.hidden.borrow().read().map(|hidden| HeadJob {
            hidden,
            w_out: self.w_out.clone(),
            bias: Matrix::zeros(1, VOCAB_SIZE),
            temperature,
        });
        let widget = self.clone();
        self.shell.compute_or(job, move |job, out, _| widget.draw(&out, job.temperature));
    }

    /// A restored token to copy makes h its embedding, as choosing it does.
    fn restore(&self, key: &str, _: &str) -> Option<bool> {
        (key == "copy").then(|| {
            self.copy_embedding();
            true
        })
    }
}
