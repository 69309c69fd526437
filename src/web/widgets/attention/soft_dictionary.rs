//! `soft-dictionary`: attention as a soft dictionary. The reader edits the keys K, their
//! values V and a query q; the widget shows the scores q·kᵢ, the weights
//! softmax(β·q·kᵢ/√d) on the 0–1 scale, the soft lookup Σᵢ wᵢvᵢ beside the hard lookup (the
//! value of the best-matching key), and, for a ladder of sharpnesses β, the weights and the
//! distance between the two lookups: the sharper the scores, the closer the soft lookup comes
//! to the hard one. Computed on the active backend (`core::attention::soft_dictionary`).
//!
//! Default: the textbook's Example 2 read as a dictionary (its keys, values and query q₂).
//! Attributes: `data-matrices` (JSON: any of `keys`, `values`, `query`).

use std::cell::RefCell;
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement};

use crate::core::attention::soft_dictionary::{SoftDictionary, SoftLookup, LADDER, MAX_ENTRIES};
use crate::core::format::{format_pt, format_pt_short, parse_pt};
use crate::core::Matrix;

use crate::web::dom;
use crate::web::kit::ui::{self, MatrixEditor};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::{BarView, HeatmapData, MatrixView, Scale};
use crate::web::kit::{on_hover, Ctx, Shell, Widget, WidgetKind};

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::SOFT_DICTIONARY, mount };

fn key_label(i: usize) -> String {
    format!("k{}", dom::subscript(i + 1))
}

fn value_label(i: usize) -> String {
    format!("v{}", dom::subscript(i + 1))
}

fn query_label(_: usize) -> String {
    "q".into()
}

/// The slider moves log₂ β in quarter steps, so β = 1 (attention itself) is exact.
const LOG2_BETA: (f64, f64, f64) = (-2.0, 5.0, 0.25);

/// β written for a reader: 0,25, 1, 1,68, 32.
fn beta_text(beta: f32) -> String {
    format_pt_short(beta, 2)
}

pub struct SoftDictionaryWidget {
    shell: Shell,
    keys: RefCell<MatrixEditor>,
    values: RefCell<MatrixEditor>,
    query: RefCell<MatrixEditor>,
    /// log₂ β.
    sharpness: HtmlInputElement,
    sharpness_readout: HtmlElement,
    /// The example (`data-matrices` or the textbook's), for "restaurar exemplo".
    example: SoftDictionary,
    scores: Rc<MatrixView>,
    weights: Rc<MatrixView>,
    lookups: Rc<MatrixView>,
    /// The lookup in words: which key wins, the weighted sum, the distance.
    explain: HtmlElement,
    ladder: Rc<MatrixView>,
    distance: BarView,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let mut example = SoftDictionary::example();
    for (name, matrix) in attrs.matrices(&["keys", "values", "query"])? {
        match name.as_str() {
            "keys" => example.keys = matrix,
            "values" => example.values = matrix,
            _ => example.query = matrix,
        }
    }
    example.validate().map_err(|e| format!("data-matrices: {e}"))?;
    let shell = Shell::new(ctx, host, &KIND);
    let keys = MatrixEditor::new("keys", "chaves K (uma por linha)", &example.keys, key_label);
    keys.resized_by("add-entry", "remove-entry");
    let values = MatrixEditor::new("values", "valores V (o valor de cada chave)", &example.values, value_label);
    let query = MatrixEditor::new("query", "consulta q", &example.query, query_label);
    dom::append_all(&shell.inputs, &[&query.root, &keys.root, &values.root]);

    let (min, max, step) = LOG2_BETA;
    let (slider_label, sharpness) = ui::slider("nitidez β ", "sharpness", min, max, step, 0.0);
    dom::set_attr(&sharpness, "aria-valuetext", "β = 1");
    let sharpness_readout = ui::readout(&slider_label, "β = 1");
    let add = ui::button("+ entrada", "add-entry");
    let remove = ui::button("− entrada", "remove-entry");
    let reset = ui::button("restaurar exemplo", "reset");
    shell.control(&[&slider_label, &add, &remove, &reset]);

    let scores = MatrixView::new("scores", "Scores da consulta", " q·kᵢ e o que o softmax recebe");
    let weights = MatrixView::new("weights", "Pesos w = softmax(β·q·kᵢ/√d)", " somam 1");
    let lookups = MatrixView::new("lookups", "Busca suave e busca rígida", " Σᵢ wᵢvᵢ contra o valor da melhor chave");
    let explain = ui::live("div", "attention-step wide");
    let ladder = MatrixView::new("ladder", "Pesos para cada β", " quanto maior β, mais perto de uma linha com um só 1");
    let distance = BarView::new("distance", "Distância entre a busca suave e a rígida");
    dom::append_all(&shell.outputs, &[&scores.root, &weights.root, &lookups.root, &explain, &ladder.root, &distance.root]);

    let widget = Rc::new(SoftDictionaryWidget {
        shell,
        keys: RefCell::new(keys),
        values: RefCell::new(values),
        query: RefCell::new(query),
        sharpness,
        sharpness_readout,
        example,
        scores,
        weights,
        lookups,
        explain,
        ladder,
        distance,
    });
    let shell = &widget.shell;
    shell.recompute_on(&widget, &["input", "change"]);
    shell.on_action(&widget, |w, action| match action {
        "add-entry" => w.resize(true),
        "remove-entry" => w.resize(false),
        "reset" => w.reset(),
        _ => {}
    });
    // A weight (or score) comes from its key; a lookup's column from that column of V.
    for view in [&widget.weights, &widget.scores, &widget.ladder] {
        on_hover(&widget, view, |w, cell| {
            let key = cell.map(|(_, c)| c);
            w.keys.borrow().highlight(key, None);
            w.values.borrow().highlight(key, None);
        });
    }
    on_hover(&widget, &widget.lookups, |w, cell| w.values.borrow().highlight(None, cell.map(|(_, c)| c)));
    Ok(widget)
}

impl SoftDictionaryWidget {
    /// β from the slider (2 to the slider's value).
    fn beta(&self) -> f32 {
        let log2 = parse_pt(&self.sharpness.value()).unwrap_or(0.0);
        2f32.powf(log2.clamp(LOG2_BETA.0 as f32, LOG2_BETA.1 as f32))
    }

    /// Adds or removes an entry: a row of K and of V together.
    fn resize(self: &Rc<Self>, grow: bool) {
        {
            let (mut keys, mut values) = (self.keys.borrow_mut(), self.values.borrow_mut());
            let n = keys.rows();
            if grow && n >= MAX_ENTRIES {
                self.shell.fail(&format!("No máximo {MAX_ENTRIES} entradas neste dicionário."));
                return;
            }
            if !grow && n <= 1 {
                self.shell.fail("O dicionário precisa de pelo menos uma entrada.");
                return;
            }
            if grow {
                keys.add_row();
                values.add_row();
            } else {
                keys.remove_row();
                values.remove_row();
            }
        }
        self.clone().recompute();
    }

    fn reset(self: &Rc<Self>) {
        self.keys.borrow_mut().set(&self.example.keys);
        self.values.borrow_mut().set(&self.example.values);
        self.query.borrow_mut().set(&self.example.query);
        self.sharpness.set_value("0");
        self.clone().recompute();
    }

    fn read_inputs(&self) -> Result<SoftDictionary, String> {
        let read = |e: &RefCell<MatrixEditor>| e.borrow().read();
        Ok(SoftDictionary { query: read(&self.query)?, keys: read(&self.keys)?, values: read(&self.values)?, sharpness: self.beta() })
    }

    fn draw(&self, dict: &SoftDictionary, out: &SoftLookup) {
        let n = dict.keys.rows();
        let keys: Vec<String> = (0..n).map(key_label).collect();
        let dims: Vec<String> = (0..dict.values.cols()).map(|c| (c + 1).to_string()).collect();
        let beta = beta_text(dict.sharpness);

        let mut both = Matrix::zeros(2, n);
        for j in 0..n {
            both.set(0, j, out.scores.get(0, j));
            both.set(1, j, out.scaled.get(0, j));
        }
        let score_rows = vec!["q·kᵢ".to_string(), format!("{beta}·q·kᵢ/√{}", dict.d())];
        self.scores.update(HeatmapData { matrix: both, row_labels: score_rows, col_labels: keys.clone(), scale: Scale::Signed, masked: None });
        self.weights.update(HeatmapData { matrix: out.weights.clone(), row_labels: vec!["w".into()], col_labels: keys.clone(), scale: Scale::Probability, masked: None });

        let best = value_label(out.best);
        let mut pair = Matrix::zeros(2, dict.values.cols());
        for c in 0..dict.values.cols() {
            pair.set(0, c, out.soft.get(0, c));
            pair.set(1, c, out.hard.get(0, c));
        }
        let lookup_rows = vec!["suave".to_string(), format!("rígida ({best})")];
        self.lookups.update(HeatmapData { matrix: pair, row_labels: lookup_rows, col_labels: dims, scale: Scale::Signed, masked: None });

        let ladder_rows: Vec<String> = LADDER.iter().map(|&b| format!("β = {}", beta_text(b))).collect();
        self.ladder.update(HeatmapData { matrix: out.ladder_weights.clone(), row_labels: ladder_rows.clone(), col_labels: keys.clone(), scale: Scale::Probability, masked: None });
        self.distance.update("Distância ‖suave − rígida‖ para cada β", &ladder_rows, &out.ladder_distance);

        // In words, with the numbers of this lookup.
        let w = out.weights.row(0);
        let mix = (0..n).map(|i| format!("{}·{}", format_pt(w[i], 4), value_label(i))).collect::<Vec<_>>().join(" + ");
        let soft_row = out.soft.row(0).iter().map(|&v| format_pt(v, 4)).collect::<Vec<_>>().join("; ");
        let gap: f32 = out.soft.row(0).iter().zip(out.hard.row(0)).map(|(a, b)| (a - b) * (a - b)).sum::<f32>().sqrt();
        let tie = if out.tied > 1 { format!(" ({} chaves empatam; a busca rígida fica com a primeira)", out.tied) } else { String::new() };
        let lines = [
            ("Busca rígida".to_string(), format!("a chave de maior score é {} (q·{} = {}){tie}, então a resposta é {best}.", keys[out.best], keys[out.best], format_pt(out.scores.get(0, out.best), 4))),
            ("Busca suave".to_string(), format!("{mix} = [{soft_row}]: uma média ponderada de todos os valores.")),
            (format!("Com β = {beta}"), format!("‖suave − rígida‖ = {}. Aumente β para ver a média virar a resposta da melhor chave.", format_pt(gap, 4))),
        ];
        self.explain.set_text_content(None);
        for (label, text) in lines {
            let line = dom::el("p", "step-line");
            dom::append_all(&line, &[&dom::text("strong", "", &label), &dom::text("span", "", &format!(": {text}"))]);
            dom::append(&self.explain, &line);
        }
    }
}

impl Widget for SoftDictionaryWidget {
    fn recompute(self: Rc<Self>) {
        let beta = self.beta();
        let shown = format!("β = {}", beta_text(beta));
        self.sharpness_readout.set_text_content(Some(&shown));
        dom::set_attr(&self.sharpness, "aria-valuetext", &shown);
        let widget = self.clone();
        self.shell.compute_or(self.read_inputs(), move |dict, out, _| widget.draw(dict, &out));
    }

    /// A restored number of entries (`keys@size`) adds or removes rows of K and V together.
    fn restore(&self, key: &str, value: &str) -> Option<bool> {
        (key == "keys@size").then(|| {
            let (mut keys, mut values) = (self.keys.borrow_mut(), self.values.borrow_mut());
            let rows = keys.rows_for(value).filter(|n| (1..=MAX_ENTRIES).contains(n));
            rows.inspect(|&n| {
                keys.set_rows(n);
                values.set_rows(n);
            })
            .is_some()
        })
    }
}
