//! `cross-attention`: encoder–decoder attention wired as in the 2017 paper (Q from the decoder,
//! K and V from the encoder) next to the article's code (Q and K from the encoder, V from the
//! decoder). With the article's wiring each output position mixes the decoder's *later*
//! positions too: the widget shows that weight, and replaces the decoder's last token to show
//! which outputs move. The article's wiring needs equal lengths; the "só a resposta" option
//! breaks that on purpose.
//!
//! Attributes: `data-input` (default "cachorro"), `data-output` (default "dog").

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::format::format_pt;
use crate::core::transformer::char_tokenizer::{char_id, encode, VOCAB_SIZE};
use crate::core::transformer::cross_attention::{Cross, CrossJob, CrossTrace};
use crate::core::transformer::embedding::seeded_table;
use crate::core::transformer::shift::shift_trace;

use crate::web::dom::{self, Listener};
use crate::web::kit::draw::{BarView, Scale, HeatmapData, MatrixView};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::{show_error, Ctx, Updates, Widget, WidgetKind};
use super::{backend_note, chip_label, control_of, fill_results, frame, listen, text_input};

pub const KIND: WidgetKind = WidgetKind { name: "cross-attention", title: "Atenção cruzada: duas ligações", mount };

const D: usize = 8;
const TABLE_SEED: u64 = 5;
const PROJECTION_SEED: u64 = 3;

pub struct CrossWidget {
    ctx: Rc<Ctx>,
    host: HtmlElement,
    input: HtmlInputElement,
    output: HtmlInputElement,
    decoder: HtmlSelectElement,
    summary: HtmlElement,
    paper: Rc<MatrixView>,
    article: Rc<MatrixView>,
    article_message: HtmlElement,
    leak: BarView,
    results: HtmlElement,
    backend_note: HtmlElement,
    updates: Updates,
    listeners: RefCell<Vec<Listener>>,
}

fn panel(title: &str, wiring: &str) -> HtmlElement {
    let panel = dom::el("section", "wiring");
    dom::append(&panel, &dom::text("h4", "", title));
    dom::append(&panel, &dom::text("p", "wiring-line", wiring));
    panel
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let input0 = attrs.text("data-input").unwrap_or_else(|| "cachorro".into());
    let output0 = attrs.text("data-output").unwrap_or_else(|| "dog".into());
    frame(host, KIND.title);
    let fields = dom::el("div", "fields");
    let (input_label, input) = text_input("entrada (codificador) ", "input", &input0);
    let (output_label, output) = text_input("saída esperada ", "output", &output0);
    dom::append(&fields, &input_label);
    dom::append(&fields, &output_label);
    dom::append(host, &fields);
    let controls = dom::el("div", "widget-controls");
    let options = [
        ("1".to_string(), "janela deslocada, 1ª iteração".to_string()),
        ("2".to_string(), "janela deslocada, 2ª iteração".to_string()),
        ("resposta".to_string(), "só a resposta: <bos>saída<eos>".to_string()),
    ];
    let (decoder_label, decoder) = dom::select("decodificador recebe ", "decoder", &options, "1");
    let (twins, twins_listener) = crate::web::kit::twins_button(host);
    dom::append(&controls, &decoder_label);
    dom::append(&controls, &twins);
    dom::append(host, &controls);
    let summary = dom::el("p", "note");
    dom::append(host, &summary);

    let outputs = dom::el("div", "widget-outputs");
    let paper_box = panel("Artigo original (2017)", "Q ← decodificador · K, V ← codificador");
    let paper = MatrixView::new("paper-weights", "Pesos: linha = posição do decodificador, coluna = posição do codificador", "");
    dom::append(&paper_box, &paper.root);
    let article_box = panel("Código do artigo", "Q, K ← codificador · V ← decodificador");
    let article = MatrixView::new("article-weights", "Pesos: linha = posição de saída, coluna = posição do decodificador cujo value entra", "");
    let article_message = dom::el("p", "wiring-message");
    dom::set_attr(&article_message, "role", "status");
    article_message.set_hidden(true);
    dom::append(&article_box, &article_message);
    dom::append(&article_box, &article.root);
    let leak = BarView::new("leak", "");
    dom::append(&article_box, &leak.root);
    dom::append(&outputs, &paper_box);
    dom::append(&outputs, &article_box);
    dom::append(host, &outputs);
    let results = dom::el("div", "");
    dom::append(host, &results);
    let backend_note = backend_note(host);
    let widget = Rc::new(CrossWidget {
        ctx: ctx.clone(),
        host: host.clone(),
        input,
        output,
        decoder,
        summary,
        paper,
        article,
        article_message,
        leak,
        results,
        backend_note,
        updates: Updates::default(),
        listeners: RefCell::new(Vec::new()),
    });
    *widget.listeners.borrow_mut() = vec![
        listen(&widget, &fields, "input", |w, _| w.clone().recompute()),
        listen(&widget, &controls, "change", |w, e| {
            if control_of(e) == "decoder" {
                w.clone().recompute();
            }
        }),
        twins_listener,
    ];
    Ok(widget)
}

impl CrossWidget {
    fn job(&self) -> Result<CrossJob, String> {
        let trace = shift_trace(&self.input.value(), &self.output.value(), 40).map_err(|e| e.to_string())?;
        let encoder_ids = trace.windows[0].clone();
        let decoder_ids = match self.decoder.value().as_str() {
            "resposta" => encode(&self.output.value(), true).ids(),
            "2" => trace.windows.get(2).or(trace.windows.last()).cloned().unwrap_or_default(),
            _ => trace.windows[1].clone(),
        };
        let (w_q, w_k, w_v) = CrossJob::seeded_projections(D, PROJECTION_SEED);
        Ok(CrossJob {
            encoder_ids,
            decoder_ids,
            table: seeded_table(VOCAB_SIZE, D, TABLE_SEED),
            w_q,
            w_k,
            w_v,
            probe_id: char_id('x').unwrap_or(3),
        })
    }

    fn draw(&self, job: &CrossJob, cross: &Cross) {
        let label = |ids: &[u32]| ids.iter().enumerate().map(|(p, &id)| format!("{} {}", p + 1, chip_label(id))).collect::<Vec<_>>();
        let (enc, dec) = (label(&job.encoder_ids), label(&job.decoder_ids));
        let text = |ids: &[u32]| ids.iter().map(|&id| chip_label(id)).collect::<String>();
        self.summary.set_text_content(Some(&format!(
            "Codificador: {} ({} posições). Decodificador: {} ({} posições).",
            text(&job.encoder_ids),
            job.encoder_ids.len(),
            text(&job.decoder_ids),
            job.decoder_ids.len()
        )));
        let heat = |view: &MatrixView, t: &CrossTrace, rows: Vec<String>, cols: Vec<String>| {
            view.update(HeatmapData { matrix: t.weights.clone(), row_labels: rows, col_labels: cols, scale: Scale::Probability, masked: None })
        };
        heat(&self.paper, &cross.paper, dec.clone(), enc.clone());
        let paper_moved = cross.paper.change_on_probe.iter().take(cross.paper.change_on_probe.len().saturating_sub(1)).fold(0.0f32, |a, &b| a.max(b));
        let mut rows = vec![(
            "original: maior mudança nas saídas anteriores à última".to_string(),
            format_pt(paper_moved, 4),
        )];
        match &cross.article {
            Ok(article) => {
                self.article_message.set_hidden(true);
                self.article.root.set_hidden(false);
                self.leak.root.set_hidden(false);
                heat(&self.article, article, enc.clone(), dec.clone());
                let positions: Vec<String> = (1..=article.future_weight.len()).map(|p| format!("posição {p}")).collect();
                self.leak.update("Peso em posições posteriores do decodificador (Σ de α nas colunas j > i)", &positions, &article.future_weight);
                rows.push(("código do artigo: mudança na saída da posição 1".to_string(), format_pt(article.change_on_probe[0], 4)));
                rows.push(("código do artigo: peso futuro na posição 1".to_string(), format_pt(article.future_weight[0], 4)));
            }
            Err(reason) => {
                self.article_message.set_text_content(Some(reason));
                self.article_message.set_hidden(false);
                self.article.root.set_hidden(true);
                self.leak.root.set_hidden(true);
            }
        }
        fill_results(&self.results, "probe", "Troque o último token do decodificador por «x»: que saídas mudam?", &rows);
    }
}

impl Widget for CrossWidget {
    fn recompute(self: Rc<Self>) {
        let update = self.updates.begin();
        let job = match self.job() {
            Ok(job) => job,
            Err(message) => return show_error(&self.host, &message),
        };
        let widget = self.clone();
        crate::web::kit::update::compute(&self.ctx, &self.host, update, Some(&self.backend_note), job, move |job, cross, _| {
            widget.draw(job, &cross);
        });
    }
}
