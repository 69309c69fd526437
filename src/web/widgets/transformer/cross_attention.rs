//! `cross-attention`: encoder–decoder attention wired as in the 2017 paper (Q from the decoder,
//! K and V from the encoder) next to the article's code (Q and K from the encoder, V from the
//! decoder). With the article's wiring each output position mixes the decoder's *later*
//! positions too: the widget shows that weight, and replaces the decoder's last token to show
//! which outputs move. The article's wiring needs equal lengths; the "só a resposta" option
//! breaks that on purpose. Hovering a weight outlines the rows of the encoder's and the
//! decoder's inputs that gave its query and its key.
//!
//! Attributes: `data-input` (default "cachorro"), `data-output` (default "dog").

use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::format::format_pt;
use crate::core::transformer::char_tokenizer::{char_id, encode, VOCAB_SIZE};
use crate::core::transformer::cross_attention::{Cross, CrossJob};
use crate::core::transformer::embedding::seeded_table;
use crate::core::transformer::shift::shift_trace;

use crate::web::dom;
use crate::web::kit::ui::{self, live_note, show_results, text_field};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{BarView, MatrixView, Scale};
use crate::web::kit::{Ctx, Shell, Widget, WidgetKind};
use crate::web::kit::on_hover;
use super::{chip_label, numbered, positions, results_slot};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::CROSS_ATTENTION, mount };

const D: usize = 8;
const TABLE_SEED: u64 = 5;
const PROJECTION_SEED: u64 = 3;

pub struct CrossWidget {
    shell: Shell,
    input: HtmlInputElement,
    output: HtmlInputElement,
    decoder: HtmlSelectElement,
    summary: HtmlElement,
    /// The inputs of both sides (embedding + PE): where the queries and keys come from.
    encoder_x: Rc<MatrixView>,
    decoder_x: Rc<MatrixView>,
    paper: Rc<MatrixView>,
    article: Rc<MatrixView>,
    article_message: HtmlElement,
    leak: BarView,
    results: HtmlElement,
}

fn panel(title: &str, wiring: &str) -> HtmlElement {
    let panel = dom::el("section", "wiring");
    dom::append_all(&panel, &[&dom::text("h4", "", title), &dom::text("p", "wiring-line", wiring)]);
    panel
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let input0 = attrs.text("data-input").unwrap_or_else(|| "cachorro".into());
    let output0 = attrs.text("data-output").unwrap_or_else(|| "dog".into());
    let shell = Shell::new(ctx, host, &KIND);
    let (input_label, input) = text_field("entrada (codificador) ", "input", &input0);
    let (output_label, output) = text_field("saída esperada ", "output", &output0);
    dom::append_all(&shell.inputs, &[&input_label, &output_label]);
    let options = [
        ("1", "janela deslocada, 1ª iteração"),
        ("2", "janela deslocada, 2ª iteração"),
        ("resposta", "só a resposta: <bos>saída<eos>"),
    ];
    let (decoder_label, decoder) = ui::select("decodificador recebe ", "decoder", &options, "1");
    shell.control(&[&decoder_label]);

    let summary = live_note("note wide");
    let encoder_x = MatrixView::new("encoder", "X do codificador", " embedding + PE");
    let decoder_x = MatrixView::new("decoder", "X do decodificador", " embedding + PE");
    let paper_box = panel("Artigo original (2017)", "Q ← decodificador · K, V ← codificador");
    let paper = MatrixView::new("paper-weights", "Pesos: linha = posição do decodificador, coluna = posição do codificador", "");
    dom::append(&paper_box, &paper.root);
    let article_box = panel("Código do artigo original", "Q, K ← codificador · V ← decodificador");
    let article = MatrixView::new("article-weights", "Pesos: linha = posição de saída, coluna = posição do decodificador cujo value entra", "");
    let article_message = dom::el("p", "wiring-message");
    dom::set_attr(&article_message, "role", "status");
    article_message.set_hidden(true);
    let leak = BarView::new("leak", "").probabilities();
    dom::append_all(&article_box, &[&article_message, &article.root, &leak.root]);
    let results = results_slot();
    dom::append_all(&shell.outputs, &[&summary, &encoder_x.root, &decoder_x.root, &paper_box, &article_box, &results]);
    let widget = Rc::new(CrossWidget { shell, input, output, decoder, summary, encoder_x, decoder_x, paper, article, article_message, leak, results });
    let shell = &widget.shell;
    shell.recompute_on(&widget, &["change"]);
    // A weight (i, j) is softmax of q_i·k_j: the original takes q_i from the decoder's row i
    // and k_j from the encoder's row j; the article's code takes both from the encoder.
    on_hover(&widget, &widget.paper, |w, cell| {
        w.decoder_x.highlight(&cell.map(|(i, _)| vec![i]).unwrap_or_default(), &[]);
        w.encoder_x.highlight(&cell.map(|(_, j)| vec![j]).unwrap_or_default(), &[]);
    });
    on_hover(&widget, &widget.article, |w, cell| {
        w.decoder_x.highlight(&[], &[]);
        w.encoder_x.highlight(&cell.map(|(i, j)| vec![i, j]).unwrap_or_default(), &[]);
    });
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
        let (enc, dec) = (positions(&job.encoder_ids), positions(&job.decoder_ids));
        let text = |ids: &[u32]| ids.iter().map(|&id| chip_label(id)).collect::<String>();
        self.summary.set_text_content(Some(&format!(
            "Codificador: {} ({} posições). Decodificador: {} ({} posições).",
            text(&job.encoder_ids),
            job.encoder_ids.len(),
            text(&job.decoder_ids),
            job.decoder_ids.len()
        )));
        self.encoder_x.show(&cross.encoder, enc.clone(), numbered(cross.encoder.cols()), Scale::Signed);
        self.decoder_x.show(&cross.decoder, dec.clone(), numbered(cross.decoder.cols()), Scale::Signed);
        self.paper.show(&cross.paper.weights, dec.clone(), enc.clone(), Scale::Probability);
        let changes = &cross.paper.change_on_probe;
        let paper_moved = changes.iter().take(changes.len().saturating_sub(1)).fold(0.0f32, |a, &b| a.max(b));
        let mut rows = vec![("original: maior mudança nas saídas anteriores à última".to_string(), format_pt(paper_moved, 4))];
        let shown = cross.article.is_ok();
        self.article_message.set_hidden(shown);
        self.article.root.set_hidden(!shown);
        self.leak.root.set_hidden(!shown);
        match &cross.article {
            Ok(article) => {
                self.article.show(&article.weights, enc, dec, Scale::Probability);
                let positions: Vec<String> = (1..=article.future_weight.len()).map(|p| format!("posição {p}")).collect();
                self.leak.update("Peso em posições posteriores do decodificador (Σ de α nas colunas j > i)", &positions, &article.future_weight);
                rows.push(("código do artigo original: mudança na saída da posição 1".to_string(), format_pt(article.change_on_probe[0], 4)));
                rows.push(("código do artigo original: peso futuro na posição 1".to_string(), format_pt(article.future_weight[0], 4)));
            }
            Err(reason) => self.article_message.set_text_content(Some(reason)),
        }
        show_results(&self.results, "probe", "Troque o último token do decodificador por «x»: que saídas mudam?", &rows);
    }
}

impl Widget for CrossWidget {
    fn recompute(self: Rc<Self>) {
        let widget = self.clone();
        self.shell.compute_or(self.job(), move |job, cross, _| widget.draw(job, &cross));
    }
}
