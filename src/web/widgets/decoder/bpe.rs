//! `bpe`: byte-pair encoding step by step with the decoder's own tokenizer. The reader's
//! text starts as UTF-8 bytes; each step applies the next learned merge that occurs in it
//! (lowest rank first), until none applies: those are the tokens the model reads.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement, HtmlTextAreaElement};

use crate::core::bpe::{Bpe, MergeStep};
use crate::core::format::format_pt;

use crate::web::dom::{self, Listener};
use crate::web::model_store;
use crate::web::kit::attributes::Attributes;
use crate::web::kit::{show_error, show_ready, Ctx, Updates, Widget, WidgetKind};

pub const KIND: WidgetKind = WidgetKind { name: "bpe", title: "BPE: das letras aos tokens", mount };

const DEFAULT_TEXT: &str = "As palavras frequentes viram um token só; as raras, como paralelepípedo, se quebram em pedaços.";
/// Longest text stepped through (the merges list of a long text is long; the encoding is not).
const MAX_CHARS: usize = 2_000;
const MAX_STEPS: usize = 5_000;

pub struct BpeWidget {
    host: HtmlElement,
    base: String,
    bpe: RefCell<Option<Rc<Bpe>>>,
    text: HtmlTextAreaElement,
    slider: HtmlInputElement,
    chips: HtmlElement,
    step_note: HtmlElement,
    summary: HtmlElement,
    /// (bytes, steps) of the current text.
    trace: RefCell<(Vec<u32>, Vec<MergeStep>)>,
    updates: Updates,
    listeners: RefCell<Vec<Listener>>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    dom::set_attr(host, "data-state", "loading");
    let _ = host.class_list().add_1("widget");
    host.set_text_content(None);
    dom::append(host, &dom::text("h3", "widget-title", KIND.title));
    let base = model_store::base_for(ctx, host);
    let text = dom::el("textarea", "prompt").unchecked_into::<HtmlTextAreaElement>();
    dom::set_attr(&text, "data-control", "text");
    dom::set_attr(&text, "rows", "2");
    dom::set_attr(&text, "aria-label", "Texto a tokenizar");
    text.set_value(&attrs.text("data-text").unwrap_or_else(|| DEFAULT_TEXT.to_string()));
    dom::append(host, &text);

    let controls = dom::el("div", "widget-controls");
    let first = dom::button("◀◀ bytes", "first");
    let prev = dom::button("◀ fusão anterior", "prev");
    let next = dom::button("próxima fusão ▶", "next");
    let last = dom::button("tokens finais ▶▶", "last");
    let (slider_label, slider) = dom::slider("passo ", "step", 0.0, 0.0, 1.0, 0.0);
    for el in [&first, &prev, &next, &last, &slider_label] {
        dom::append(&controls, el);
    }
    dom::append(host, &controls);
    let step_note = dom::el("p", "bpe-step");
    dom::set_attr(&step_note, "aria-live", "polite");
    let chips = dom::el("div", "chips");
    let summary = dom::el("div", "readout");
    dom::append(host, &step_note);
    dom::append(host, &chips);
    dom::append(host, &summary);

    let widget = Rc::new(BpeWidget {
        host: host.clone(),
        base,
        bpe: RefCell::new(None),
        text,
        slider,
        chips,
        step_note,
        summary,
        trace: RefCell::new((Vec::new(), Vec::new())),
        updates: Updates::default(),
        listeners: RefCell::new(Vec::new()),
    });
    let on = |target: &HtmlElement, kind: &'static str, action: fn(&Rc<BpeWidget>)| crate::web::kit::listen(&widget, target, kind, move |w, _| action(w));
    let text_el: HtmlElement = widget.text.clone().unchecked_into();
    let slider_el: HtmlElement = widget.slider.clone().unchecked_into();
    *widget.listeners.borrow_mut() = vec![
        on(&text_el, "input", |w| w.clone().recompute()),
        on(&slider_el, "input", |w| w.show_step()),
        on(&first, "click", |w| w.go(|_, _| 0)),
        on(&prev, "click", |w| w.go(|s, _| s.saturating_sub(1))),
        on(&next, "click", |w| w.go(|s, n| (s + 1).min(n))),
        on(&last, "click", |w| w.go(|_, n| n)),
    ];
    Ok(widget)
}

impl BpeWidget {
    fn current(&self) -> usize {
        self.slider.value().parse().unwrap_or(0)
    }

    fn go(&self, to: fn(usize, usize) -> usize) {
        let n = self.trace.borrow().1.len();
        self.slider.set_value(&to(self.current(), n).to_string());
        self.show_step();
    }

    fn show_step(&self) {
        let Some(bpe) = self.bpe.borrow().clone() else { return };
        let (bytes, steps) = &*self.trace.borrow();
        let k = self.current().min(steps.len());
        let tokens = if k == 0 { bytes } else { &steps[k - 1].tokens };
        let merged = (k > 0).then(|| steps[k - 1].merged);
        self.chips.set_text_content(None);
        for &id in tokens.iter() {
            let class = if Some(id) == merged { "chip fresh" } else { "chip" };
            let chip = dom::text("span", class, &bpe.token_label(id));
            dom::set_attr(&chip, "title", &format!("token {id}"));
            dom::set_attr(&chip, "data-id", &id.to_string());
            dom::append(&self.chips, &chip);
        }
        let note = if k == 0 {
            format!("Passo 0 de {}: o texto como bytes UTF-8, {} tokens (uma letra acentuada ocupa 2 bytes).", steps.len(), bytes.len())
        } else {
            let s = &steps[k - 1];
            format!(
                "Passo {k} de {}: fusão nº {} aprendida no treino, «{}» + «{}» → «{}» (token {}); agora são {} tokens.",
                steps.len(),
                s.rank + 1,
                bpe.token_label(s.left),
                bpe.token_label(s.right),
                bpe.token_label(s.merged),
                s.merged,
                s.tokens.len()
            )
        };
        self.step_note.set_text_content(Some(&note));
    }
}

impl Widget for BpeWidget {
    fn recompute(self: Rc<Self>) {
        let update = self.updates.begin();
        dom::set_attr(&self.host, "data-state", "loading");
        wasm_bindgen_futures::spawn_local(async move {
            let bpe = match model_store::tokenizer(&self.base).await {
                Ok(b) => b,
                Err(e) => return show_error(&self.host, &format!("O tokenizador não carregou: {e}")),
            };
            if !update.is_current() {
                return;
            }
            *self.bpe.borrow_mut() = Some(bpe.clone());
            let text = self.text.value();
            if text.is_empty() {
                return show_error(&self.host, "Escreva algum texto para ver a tokenização.");
            }
            if text.chars().count() > MAX_CHARS {
                return show_error(&self.host, &format!("Use até {MAX_CHARS} caracteres: o passo a passo de um texto maior fica longo demais para ler."));
            }
            let (bytes, steps) = bpe.encode_steps(&text, MAX_STEPS);
            let finals = steps.last().map_or(bytes.clone(), |s| s.tokens.clone());
            dom::set_attr(&self.slider, "max", &steps.len().to_string());
            self.slider.set_value(&steps.len().to_string());
            let chars = text.chars().count();
            self.summary.set_text_content(None);
            dom::append(
                &self.summary,
                &dom::results_table(
                    "bpe",
                    "Resumo",
                    &[
                        ("caracteres".into(), chars.to_string()),
                        ("bytes".into(), bytes.len().to_string()),
                        ("fusões aplicadas".into(), steps.len().to_string()),
                        ("tokens".into(), finals.len().to_string()),
                        ("caracteres por token".into(), format_pt(chars as f32 / finals.len().max(1) as f32, 2)),
                        ("ids".into(), finals.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(" ")),
                    ],
                ),
            );
            *self.trace.borrow_mut() = (bytes, steps);
            self.show_step();
            show_ready(&self.host);
        });
    }
}
