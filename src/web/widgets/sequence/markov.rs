//! `markov`: the weather chain of "modelagem-de-sequencias". An editable 2×2 matrix P (rows
//! that do not sum to 1 are divided by their sum, with a note; negative cells are refused),
//! the state graph, a sampler that animates the days one by one, and the convergence of
//! P(sol no dia k) from either start towards the stationary distribution (0,625; 0,375).
//! The convergence products D_{k+1} = D_k P run on the active backend.
//!
//! Attributes: none (the article's matrix is the default; "restaurar exemplo" brings it back).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement, HtmlSelectElement};

use crate::core::format::format_pt;
use crate::core::rng::Rng;
use crate::core::sequence::markov::{ConvergenceJob, MarkovChain};
use crate::core::Matrix;

use crate::web::dom;
use crate::web::kit::ui::{self, live_note, show_results, MatrixEditor};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::draw::graph::{GraphStyle, StateGraph};
use crate::web::kit::draw::line_plot::{Axes, LinePlot, Series};
use crate::web::kit::{action_of, control_of, Ctx, Shell, Widget, WidgetKind};


pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::MARKOV, mount };

const STATES: [&str; 2] = ["sol", "chuva"];
/// Days one click of "sortear dias" draws and animates.
const SAMPLED_DAYS: usize = 20;
/// Milliseconds between two animated days.
const DAY_MS: i32 = 220;

fn state_label(i: usize) -> String {
    STATES.get(i).map_or_else(|| format!("estado {}", i + 1), |s| s.to_string())
}

fn article_matrix() -> Matrix {
    MarkovChain::weather().transition().clone()
}

pub struct MarkovWidget {
    shell: Shell,
    editor: RefCell<MatrixEditor>,
    days: HtmlInputElement,
    days_readout: HtmlElement,
    start: HtmlSelectElement,
    graph: StateGraph,
    plot: LinePlot,
    strip: HtmlElement,
    /// The sampled days' shares.
    results: HtmlElement,
    /// The stationary distribution, under the plot.
    stationary: HtmlElement,
    /// Rows normalised or left as they were.
    note: HtmlElement,
    /// The chain of the last successful computation (the sampler uses it).
    chain: RefCell<Option<MarkovChain>>,
    /// Seed of the next sample, so each click draws new days and a reload repeats them.
    seed: Cell<u64>,
    /// Bumped to stop an animation in flight.
    animation: Cell<u32>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, _attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let shell = Shell::new(ctx, host, &KIND);
    let editor = MatrixEditor::new("p", "P (linha = hoje, coluna = amanhã: sol, chuva)", &article_matrix(), state_label);
    dom::append(&shell.inputs, &editor.root);

    let normalize = ui::button("normalizar linhas", "normalize");
    let reset = ui::button("restaurar exemplo", "reset");
    let options: Vec<(String, String)> = STATES.iter().enumerate().map(|(i, s)| (i.to_string(), s.to_string())).collect();
    let (start_label, start) = ui::select("começar com ", "start", &options, "0");
    let sample = ui::button("sortear 20 dias", "sample");
    let (days_label, days) = ui::slider(" dias no gráfico ", "days", 5.0, 60.0, 1.0, 30.0);
    let days_readout = ui::readout(&days_label, "30");
    shell.control(&[&normalize, &reset, &start_label, &sample, &days_label]);

    let note = live_note("note wide");
    let graph = StateGraph::new("graph", "Grafo de estados (espessura = probabilidade)");
    let sampler = dom::el("figure", "mv days");
    dom::append(&sampler, &dom::text("figcaption", "mv-title", "Dias sorteados"));
    let strip = ui::live("ol", "day-strip");
    dom::append(&sampler, &strip);
    let results = dom::el("div", "");
    dom::append(&sampler, &results);
    let plot = LinePlot::new("convergence", "P(sol no dia k): converge para a distribuição estacionária");
    let stationary = dom::el("div", "");
    dom::append(&plot.root, &stationary);
    dom::append_all(&shell.outputs, &[&note, &graph.root, &sampler, &plot.root]);

    let widget = Rc::new(MarkovWidget {
        shell,
        editor: RefCell::new(editor),
        days,
        days_readout,
        start,
        graph,
        plot,
        strip,
        results,
        stationary,
        note,
        chain: RefCell::new(None),
        seed: Cell::new(1),
        animation: Cell::new(0),
    });
    let shell = &widget.shell;
    shell.on(&widget, &shell.inputs, &["input"], |w, _| w.clone().recompute());
    shell.on(&widget, &shell.controls, &["input", "change", "click"], |w, e| match (e.type_().as_str(), control_of(e).as_str(), action_of(e).as_str()) {
        ("input", "days", _) | ("change", "start", _) => w.clone().recompute(),
        ("click", _, "normalize") => w.normalize(),
        ("click", _, "reset") => w.reset(),
        ("click", _, "sample") => w.sample(true),
        _ => {}
    });
    Ok(widget)
}

impl MarkovWidget {
    /// Writes the repaired matrix (rows divided by their sums) back into the grid.
    fn normalize(self: &Rc<Self>) {
        if let Some(chain) = self.chain.borrow().as_ref() {
            self.editor.borrow_mut().set(chain.transition());
        }
        self.clone().recompute();
    }

    fn reset(self: &Rc<Self>) {
        self.editor.borrow_mut().set(&article_matrix());
        self.clone().recompute();
    }

    /// Draws `SAMPLED_DAYS` days from the chosen start; with `animate`, one day at a time,
    /// the current state lit in the graph.
    fn sample(self: &Rc<Self>, animate: bool) {
        let Some(chain) = self.chain.borrow().clone() else { return };
        let start = self.start.value().parse::<usize>().unwrap_or(0).min(chain.states().len() - 1);
        let seed = self.seed.get();
        self.seed.set(seed + 1);
        let path = match chain.sample_path(start, SAMPLED_DAYS, &mut Rng::new(seed)) {
            Ok(path) => path,
            Err(e) => return self.shell.fail(&e.to_string()),
        };
        let names: Vec<String> = path.iter().map(|&s| chain.states()[s].clone()).collect();
        dom::set_attr(&self.strip, "data-days", &names.join(" "));
        let frequencies = chain.visit_frequencies(&path);
        let rows: Vec<(String, String)> = chain
            .states()
            .iter()
            .zip(&frequencies)
            .map(|(s, f)| (format!("fração de dias de {s}"), format_pt(*f, 4)))
            .collect();
        show_results(&self.results, "sampler", &format!("Nos {} dias sorteados (semente {seed})", path.len()), &rows);
        let token = self.animation.get().wrapping_add(1);
        self.animation.set(token);
        self.strip.set_text_content(None);
        if !animate {
            for name in &names {
                dom::append(&self.strip, &day_chip(name));
            }
            return;
        }
        dom::set_attr(&self.shell.host, "data-animating", "true");
        let widget = self.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let labels: Vec<String> = chain.states().to_vec();
            for (k, &state) in path.iter().enumerate() {
                if widget.animation.get() != token {
                    return;
                }
                dom::append(&widget.strip, &day_chip(&names[k]));
                widget.graph.update(&labels, chain.transition(), &GraphStyle { highlight: Some(state), focus_edges: false });
                dom::sleep(DAY_MS).await;
            }
            if widget.animation.get() == token {
                let _ = widget.shell.host.remove_attribute("data-animating");
            }
        });
    }

    fn draw(&self, chain: &MarkovChain, path: &[Matrix]) {
        let labels: Vec<String> = chain.states().to_vec();
        self.graph.update(&labels, chain.transition(), &GraphStyle { highlight: None, focus_edges: false });
        let stationary = chain.stationary();
        let xs: Vec<f64> = (0..path.len()).map(|k| k as f64).collect();
        let series: Vec<Series> = (0..labels.len())
            .map(|start| Series::line(format!("começando com {}", labels[start]), path.iter().map(|d| d.get(start, 0) as f64).collect()).dots())
            .chain(std::iter::once(
                Series::line(format!("estacionária: {}", format_pt(stationary.distribution[0], 4)), vec![stationary.distribution[0] as f64; path.len()]).dashed(),
            ))
            .collect();
        let axes = Axes::new("dia k", "P(sol)").probabilities();
        self.plot.update(&xs, &series, &axes, |x| format!("dia {}", x as usize), |y| format_pt(y as f32, 4));
        let mut rows: Vec<(String, String)> = labels
            .iter()
            .zip(&stationary.distribution)
            .map(|(s, p)| (format!("π({s})"), format_pt(*p, 4)))
            .collect();
        rows.push(("iterações".into(), stationary.iterations.to_string()));
        show_results(&self.stationary, "stationary", "π = πP (não está no artigo original)", &rows);
    }
}

fn day_chip(state: &str) -> HtmlElement {
    let li = dom::text("li", "day", if state == "sol" { "☀ sol" } else if state == "chuva" { "☂ chuva" } else { state });
    dom::set_attr(&li, "data-state-name", state);
    li
}

impl Widget for MarkovWidget {
    fn recompute(self: Rc<Self>) {
        self.days_readout.set_text_content(Some(&self.days.value()));
        let weights = match self.editor.borrow().read() {
            Ok(m) => m,
            Err(e) => return self.shell.now(|| Err(e)),
        };
        let names: Vec<String> = STATES.iter().map(|s| s.to_string()).collect();
        let (chain, repaired) = match MarkovChain::from_weights(names, &weights) {
            Ok(ok) => ok,
            Err(e) => return self.shell.now(|| Err(e.to_string())),
        };
        self.note.set_text_content(repaired.as_deref());
        let first = self.chain.borrow().is_none();
        *self.chain.borrow_mut() = Some(chain.clone());
        let steps = self.days.value().parse::<usize>().unwrap_or(30);
        let job = ConvergenceJob { chain: chain.clone(), steps };
        let widget = self.clone();
        self.shell.compute(job, move |_, path, _| {
            widget.draw(&chain, &path);
            if first {
                widget.sample(false);
            }
        });
    }
}
