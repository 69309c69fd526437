//! `sparsity`: why N cannot grow. A calculator of |V|^N (exact digits and scientific
//! notation, and its growth with N on a log scale), the N-grams a corpus actually contains
//! against the possible ones for N = 1…5, and Zipf's law: the corpus's rank–frequency curve
//! on log–log axes beside f(1)/k^s, with the fitted exponent.
//!
//! Attributes: `data-vocabulary` (|V|, default 50 000, the article's), `data-n` (default 3),
//! `data-preset` (`cinco-documentos`, the default, or `oito-documentos`).

use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

use crate::core::format::{format_pt, parse_decimal};
use crate::core::sequence::presets::{ngram_preset, vote_preset};
use crate::core::sequence::sparsity::{
    fit_zipf_exponent, format_scientific, format_thousands, possible_ngrams, possible_ngrams_exact, rank_frequencies,
    sparsity_table, zipf_expected,
};
use crate::core::sequence::tokenize_words;
use crate::core::text::tokenizer::TokenizerOptions;
use crate::core::widget_input::{number_setting, NumberRange};

use crate::web::dom;
use crate::web::kit::ui::{self, show_results, text_field};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::line_plot::{Axes, LinePlot, Series};
use crate::web::kit::{control_of, Ctx, Shell, Widget, WidgetKind};
use super::{documents_of, DEBOUNCE_BYTES};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::SPARSITY, mount };

/// Largest |V| the calculator takes (|V|^10 still fits an f64 comfortably).
const MAX_VOCABULARY: f64 = 1e9;
/// N of the observed-vs-possible table.
const TABLE_N: usize = 5;
/// Ranks drawn in the Zipf plot.
const ZIPF_RANKS: usize = 400;

/// The corpora offered: (id, label, documents, strip accents).
fn corpora() -> Vec<(&'static str, &'static str, &'static [&'static str], bool)> {
    let mut out = Vec::new();
    if let Some(p) = vote_preset("cinco-documentos") {
        out.push((p.id, "cinco documentos (prestando atenção)", p.documents, p.strip_accents));
    }
    if let Some(p) = ngram_preset("oito-documentos") {
        out.push((p.id, "oito pedidos (modelagem de sequências)", p.documents, p.strip_accents));
    }
    out
}

pub struct SparsityWidget {
    shell: Shell,
    vocabulary: HtmlInputElement,
    n: HtmlInputElement,
    preset: HtmlSelectElement,
    text: HtmlTextAreaElement,
    accents: HtmlInputElement,
    s: HtmlInputElement,
    explosion: HtmlElement,
    growth: LinePlot,
    table_slot: HtmlElement,
    zipf: LinePlot,
    /// The fitted exponent, under the Zipf plot.
    fit: HtmlElement,
    n_readout: HtmlElement,
    s_readout: HtmlElement,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    // |V| may be written with thousands dots ("50.000"), as the field itself accepts.
    let v_written = attrs.text("data-vocabulary").map(|v| v.chars().filter(|c| !c.is_whitespace() && *c != '.').collect::<String>());
    let v_range = NumberRange::integer(1.0, MAX_VOCABULARY, 50_000.0);
    let v0 = attrs.noted(number_setting("data-vocabulary", v_written.as_deref(), &v_range)).to_string();
    let n0 = attrs.number("data-n");
    let preset_id = attrs.choice("data-preset").to_string();
    let shell = Shell::new(ctx, host, &KIND);
    let (v_label, vocabulary) = text_field("|V| = ", "vocabulary", &v0);
    dom::set_attr(&vocabulary, "inputmode", "numeric");
    let (n_label, n) = ui::slider(" N = ", "n", 1.0, 10.0, 1.0, n0);
    let n_readout = ui::readout(&n_label, &format!("{n0}"));
    shell.control(&[&v_label, &n_label]);

    let options: Vec<(&str, &str)> = corpora().iter().map(|c| (c.0, c.1)).collect();
    let (corpus, preset, text, settings) = ui::corpus_panel("corpus ", &options, &preset_id, "Documentos (um por linha)");
    dom::set_attr(&text, "rows", "6");
    let (accents_label, accents) = ui::checkbox(" remover acentos", "accents", true);
    let (s_label, s) = ui::slider(" expoente s de Zipf ", "s", 0.5, 2.0, 0.05, 1.0);
    let s_readout = ui::readout(&s_label, "1");
    dom::append_all(&settings, &[&accents_label, &s_label]);
    dom::append(&shell.inputs, &corpus);

    let explosion = dom::el("div", "wide");
    let table_slot = dom::el("div", "wide");
    let growth = LinePlot::new("growth", "N-gramas possíveis e observados (escala log)");
    let zipf = LinePlot::new("zipf", "Lei de Zipf: frequência × posição no ranking (log–log)");
    let fit = dom::el("div", "");
    dom::append(&zipf.root, &fit);
    dom::append_all(&shell.outputs, &[&explosion, &table_slot, &growth.root, &zipf.root]);

    let widget = Rc::new(SparsityWidget { shell, vocabulary, n, preset, text, accents, s, explosion, growth, table_slot, zipf, fit, n_readout, s_readout });
    widget.apply_preset(&preset_id);
    let shell = &widget.shell;
    shell.on(&widget, &shell.host, &["input", "change"], |w, e| {
        match (e.type_().as_str(), control_of(e).as_str()) {
            ("change", "preset") => {
                w.apply_preset(&w.preset.value());
                w.clone().recompute();
            }
            ("input", "vocabulary" | "n" | "corpus" | "s") | ("change", "accents") => w.clone().recompute(),
            _ => {}
        }
    });
    Ok(widget)
}

impl SparsityWidget {
    fn apply_preset(&self, id: &str) {
        let Some((_, _, docs, strip)) = corpora().into_iter().find(|c| c.0 == id) else { return };
        self.preset.set_value(id);
        self.text.set_value(&docs.join("\n"));
        self.accents.set_checked(strip);
    }

    /// |V| as typed ("50.000", "50 000" and "5e4" all read as 50 000), or a message.
    fn vocabulary_size(&self) -> Result<f64, String> {
        let typed = self.vocabulary.value();
        let cleaned: String = typed.chars().filter(|c| !c.is_whitespace() && *c != '.').collect();
        let v = parse_decimal(&cleaned);
        match v {
            Some(v) if (1.0..=MAX_VOCABULARY).contains(&v) && v.fract() == 0.0 => Ok(v),
            _ => Err(format!(
                "|V| precisa ser um número inteiro de 1 a {} (você escreveu «{}»).",
                format_thousands(MAX_VOCABULARY as u128),
                typed.chars().take(20).collect::<String>()
            )),
        }
    }

    fn draw_explosion(&self, v: f64, n: u32) {
        let size = v as usize;
        let possible = possible_ngrams(size, n);
        let mut rows = vec![
            (format!("|V|^{n}"), format_scientific(possible, 3)),
            ("por extenso".into(), possible_ngrams_exact(size, n).map_or_else(|| "grande demais para escrever".into(), format_thousands)),
        ];
        let named = ["unigramas", "bigramas", "trigramas", "tetragramas"];
        for k in 1..=4u32 {
            rows.push((format!("{} (N = {k})", named[k as usize - 1]), format_scientific(possible_ngrams(size, k), 3)));
        }
        // A corpus of a billion tokens holds at most 10⁹ distinct N-grams.
        let covered = 1e9 / possible;
        rows.push(("fração coberta por 10⁹ tokens, no máximo".into(), if covered >= 1.0 { "100%".into() } else { format!("{} %", format_scientific(covered * 100.0, 2)) }));
        show_results(&self.explosion, "explosion", &format!("N-gramas possíveis com |V| = {}", format_thousands(size as u128)), &rows);
        // The power typeset (|V| to the N), not "^" for the reader to decode.
        if let Ok(Some(th)) = self.explosion.query_selector("th") {
            dom::set_notation(&th, &format!("|V|^{{{n}}}"));
        }
    }

    fn draw_corpus(&self, v: f64) -> Result<(), String> {
        let raw = self.text.value();
        let docs = documents_of(&raw)?;
        let options = TokenizerOptions { strip_accents: self.accents.checked(), ..TokenizerOptions::default() };
        let tokens: Vec<Vec<String>> = docs.iter().map(|d| tokenize_words(d, &options, false)).collect();
        if tokens.iter().all(Vec::is_empty) {
            return Err("O corpus não tem palavras depois da tokenização: escreva pelo menos uma.".into());
        }
        let table = sparsity_table(&tokens, TABLE_N);
        let corpus_v = rank_frequencies(&tokens).len();

        // The observed-vs-possible table, visible (it is the point of the exercise).
        let t = dom::el("table", "results sparsity");
        dom::set_attr(&t, "data-results", "sparsity");
        dom::append(&t, &dom::text("caption", "", &format!("No corpus: |V| = {corpus_v}")));
        let head = dom::el("tr", "");
        for h in ["N", "possíveis", "observados", "ocorrências", "cobertura"] {
            dom::append(&head, &dom::text("th", "", h));
        }
        dom::append(&t, &head);
        for row in &table {
            let tr = dom::el("tr", "");
            dom::set_attr(&tr, "data-n", &row.n.to_string());
            dom::append(&tr, &dom::text("th", "", &row.n.to_string()));
            for cell in [
                format_scientific(row.possible, 3),
                row.observed.to_string(),
                row.occurrences.to_string(),
                format!("{} %", format_scientific(row.coverage * 100.0, 2)),
            ] {
                dom::append(&tr, &dom::text("td", "", &cell));
            }
            dom::append(&t, &tr);
        }
        self.table_slot.set_text_content(None);
        dom::append(&self.table_slot, &t);

        let xs: Vec<f64> = (1..=TABLE_N).map(|n| n as f64).collect();
        let series = [
            Series::line(format!("possíveis, |V| = {}", format_thousands(v as u128)), xs.iter().map(|&n| possible_ngrams(v as usize, n as u32)).collect()).dashed(),
            Series::line(format!("possíveis no corpus ({corpus_v})"), table.iter().map(|r| r.possible).collect()).dots(),
            Series::line("observados no corpus", table.iter().map(|r| r.observed as f64).collect()).dots(),
        ];
        let axes = Axes::new("N", "quantidade (log)").log_y();
        self.growth.update(&xs, &series, &axes, |x| format!("N = {x}"), |y| format_scientific(y, 3));

        let ranked = rank_frequencies(&tokens);
        let freqs: Vec<usize> = ranked.iter().map(|r| r.1).collect();
        let s = parse_decimal(&self.s.value()).unwrap_or(1.0);
        let shown = freqs.len().min(ZIPF_RANKS);
        let ranks: Vec<f64> = (1..=shown).map(|k| k as f64).collect();
        let top = freqs.first().copied().unwrap_or(1) as f64;
        let fitted = fit_zipf_exponent(&freqs);
        let series = [
            Series::line("frequência observada", freqs.iter().take(shown).map(|&f| f as f64).collect()).dots(),
            Series::line(format!("f(1)/kˢ, s = {}", format_pt(s as f32, 2)), ranks.iter().map(|&k| zipf_expected(top, k as usize, s)).collect()).dashed(),
        ];
        let axes = Axes::new("posição k (log)", "frequência (log)").log_x().log_y();
        self.zipf.update(&ranks, &series, &axes, |k| format!("{}ª: {}", k as usize, ranked.get(k as usize - 1).map_or("", |r| r.0.as_str())), |y| format_pt(y as f32, 2));
        let fit_rows = vec![(
            "s ajustado (mínimos quadrados em log–log)".to_string(),
            fitted.map_or_else(|| "precisa de 2 palavras distintas".into(), |s| format_pt(s as f32, 2)),
        )];
        show_results(&self.fit, "zipf-fit", "Quão perto de Zipf", &fit_rows);
        Ok(())
    }
}

impl Widget for SparsityWidget {
    fn recompute(self: Rc<Self>) {
        self.n_readout.set_text_content(Some(&self.n.value()));
        self.s_readout.set_text_content(Some(&self.s.value().replace('.', ",")));
        let widget = self.clone();
        self.shell.local(self.text.value().len() > DEBOUNCE_BYTES, move || {
            let v = widget.vocabulary_size()?;
            let n = widget.n.value().parse::<u32>().unwrap_or(3).clamp(1, 10);
            widget.draw_explosion(v, n);
            widget.draw_corpus(v)
        });
    }

    /// A restored corpus preset fills the text and the accents setting, as choosing it does.
    fn restore(&self, key: &str, value: &str) -> Option<bool> {
        (key == "preset").then(|| {
            self.apply_preset(value);
            true
        })
    }
}
