//! `bpe`: byte-pair encoding step by step with the decoder's own tokenizer. The reader's
//! text starts as UTF-8 bytes; each step applies the next learned merge that occurs in it
//! (lowest rank first), until none applies: those are the tokens the model reads.
//!
//! Attributes: `data-text` (the text to start with), `data-model` (folder of the model files).

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlInputElement, HtmlTextAreaElement};

use crate::core::bpe::{Bpe, MergeStep};
use crate::core::format::format_pt;

use crate::web::dom;
use crate::web::kit::{controls, ui};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::{Ctx, Shell, Widget, WidgetKind};
use crate::web::model_store;

pub const KIND: WidgetKind = WidgetKind { doc: &crate::site::widgets::BPE, mount };

const DEFAULT_TEXT: &str = "As palavras frequentes viram um token só; as raras, como paralelepípedo, se quebram em pedaços.";
/// Longest text stepped through (the merges list of a long text is long; the encoding is not).
const MAX_CHARS: usize = 2_000;
const MAX_STEPS: usize = 5_000;

pub struct BpeWidget {
    shell: Shell,
    /// Where the model's files are (`data-model`).
    base: String,
    bpe: RefCell<Option<Rc<Bpe>>>,
    text: HtmlTextAreaElement,
    /// The step shown: 0 (bytes) … the number of merges (final tokens).
    slider: HtmlInputElement,
    chips: HtmlElement,
    step_note: HtmlElement,
    summary: HtmlElement,
    /// (bytes, steps) of the current text.
    trace: RefCell<(Vec<u32>, Vec<MergeStep>)>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let base = model_store::base_for(ctx, host);
    let shell = Shell::new(ctx, host, &KIND);
    let text = dom::el("textarea", "prompt").unchecked_into::<HtmlTextAreaElement>();
    dom::set_attrs(&text, &[("data-control", "text"), ("rows", "2"), ("aria-label", "Texto a tokenizar")]);
    text.set_value(&attrs.text("data-text").unwrap_or_else(|| DEFAULT_TEXT.to_string()));
    dom::append(&shell.inputs, &text);

    let (slider_label, slider) = ui::slider("passo ", "step", 0.0, 0.0, 1.0, 0.0);
    controls::offered_later(&slider);
    shell.control(&[
        &ui::button("◀◀ bytes", "first"),
        &ui::button("◀ fusão anterior", "prev"),
        &ui::button("próxima fusão ▶", "next"),
        &ui::button("tokens finais ▶▶", "last"),
        &slider_label,
    ]);
    let step_note = ui::live("p", "bpe-step wide");
    let chips = dom::el("div", "chips wide");
    let summary = dom::el("div", "readout wide");
    dom::append_all(&shell.outputs, &[&step_note, &chips, &summary]);

    let widget = Rc::new(BpeWidget {
        shell,
        base,
        bpe: RefCell::new(None),
        text,
        slider,
        chips,
        step_note,
        summary,
        trace: RefCell::new((Vec::new(), Vec::new())),
    });
    let shell = &widget.shell;
    shell.on(&widget, &shell.inputs, &["input"], |w, _| w.clone().recompute());
    shell.on(&widget, &shell.controls, &["input"], |w, _| w.show_step());
    shell.on_action(&widget, |w, action| match action {
        "first" => w.go(|_, _| 0),
        "prev" => w.go(|s, _| s.saturating_sub(1)),
        "next" => w.go(|s, n| (s + 1).min(n)),
        "last" => w.go(|_, n| n),
        _ => {}
    });
    Ok(widget)
}

impl BpeWidget {
    fn current(&self) -> usize {
        self.slider.value().parse().unwrap_or(0)
    }

    /// Moves to step `to(current, number of steps)`.
    fn go(&self, to: fn(usize, usize) -> usize) {
        let n = self.trace.borrow().1.len();
        self.slider.set_value(&to(self.current(), n).to_string());
        self.show_step();
    }

    /// The tokens after the slider's step as chips (the merged one marked), and what the step did.
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
            dom::set_attrs(&chip, &[("title", &format!("token {id}")), ("data-id", &id.to_string())]);
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

    /// Encodes the text step by step with `bpe` and shows its last step and a summary.
    fn encode(&self, bpe: Rc<Bpe>) -> Result<(), String> {
        *self.bpe.borrow_mut() = Some(bpe.clone());
        let text = self.text.value();
        if text.is_empty() {
            return Err("Escreva algum texto para ver a tokenização.".into());
        }
        let chars = text.chars().count();
        if chars > MAX_CHARS {
            return Err(format!("Use até {MAX_CHARS} caracteres: o passo a passo de um texto maior fica longo demais para ler."));
        }
        let (bytes, steps) = bpe.encode_steps(&text, MAX_STEPS);
        let finals = steps.last().map_or(bytes.clone(), |s| s.tokens.clone());
        dom::set_attr(&self.slider, "max", &steps.len().to_string());
        // The last step, or the one a restored state asked for (`kit::state`).
        let restored = controls::take_pending(&self.slider);
        self.slider.set_value(&restored.unwrap_or_else(|| steps.len().to_string()));
        let rows = [
            ("caracteres".into(), chars.to_string()),
            ("bytes".into(), bytes.len().to_string()),
            ("fusões aplicadas".into(), steps.len().to_string()),
            ("tokens".into(), finals.len().to_string()),
            ("caracteres por token".into(), format_pt(chars as f32 / finals.len().max(1) as f32, 2)),
            ("ids".into(), finals.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(" ")),
        ];
        self.summary.set_text_content(None);
        dom::append(&self.summary, &dom::results_table("bpe", "Resumo", &rows));
        *self.trace.borrow_mut() = (bytes, steps);
        self.show_step();
        Ok(())
    }
}

impl Widget for BpeWidget {
    /// Loads the tokenizer (once: `model_store` keeps it), then encodes.
    fn recompute(self: Rc<Self>) {
        let widget = self.clone();
        self.shell.steps(false, move |update| async move {
            let bpe = model_store::tokenizer(&widget.base).await.map_err(|e| format!("O tokenizador não carregou: {e}"))?;
            if !update.is_current() {
                return Ok(());
            }
            widget.encode(bpe)
        });
    }
}
