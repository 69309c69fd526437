//! `shift-table`: autoregressive generation as a window that shifts left. The window starts as
//! `<bos>input<eos>`; each step drops the first token and appends the generated one (here, the
//! expected output, as a perfect model would produce it), until `<eos>` or the step limit.
//! Buttons step forwards and back; the table keeps every window seen so far.
//!
//! Attributes: `data-input` (default "cachorro"), `data-output` (default "dog").

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use web_sys::{HtmlElement, HtmlInputElement};

use crate::core::transformer::shift::{shift_trace, ShiftTrace, Stop, MAX_STEPS};

use crate::web::dom;
use crate::web::kit::ui::{self, live_note, number_field, read_count, text_field};
use crate::web::kit::attributes::Attributes;
use crate::web::kit::{Ctx, Shell, Widget, WidgetKind};
use super::{chip_label, chips};

pub const KIND: WidgetKind = WidgetKind { name: "shift-table", title: "Geração por deslocamento", mount };

pub struct ShiftWidget {
    shell: Shell,
    input: HtmlInputElement,
    output: HtmlInputElement,
    max_steps: HtmlInputElement,
    table: HtmlElement,
    note: HtmlElement,
    step: Cell<usize>,
    trace: RefCell<Option<ShiftTrace>>,
}

fn mount(ctx: &Rc<Ctx>, host: &HtmlElement, attrs: &Attributes) -> Result<Rc<dyn Widget>, String> {
    let input0 = attrs.text("data-input").unwrap_or_else(|| "cachorro".into());
    let output0 = attrs.text("data-output").unwrap_or_else(|| "dog".into());
    let shell = Shell::new(ctx, host, &KIND);
    let (input_label, input) = text_field("entrada ", "input", &input0);
    let (output_label, output) = text_field("saída esperada ", "output", &output0);
    dom::append_all(&shell.inputs, &[&input_label, &output_label]);
    let back = ui::button("◀ passo", "prev");
    let forward = ui::button("passo ▶", "next");
    let all = ui::button("até o fim", "all");
    let restart = ui::button("recomeçar", "restart");
    let (max_label, max_steps) = number_field("máx. de passos ", "max-steps", "16", true);
    shell.control(&[&back, &forward, &all, &restart, &max_label]);
    let note = live_note("step-note wide");
    let table = dom::el("table", "shift wide");
    dom::set_attr(&table, "data-results", "shift");
    dom::append_all(&shell.outputs, &[&note, &table]);
    let widget = Rc::new(ShiftWidget { shell, input, output, max_steps, table, note, step: Cell::new(0), trace: RefCell::new(None) });
    let shell = &widget.shell;
    shell.on(&widget, &shell.inputs, &["input"], |w, _| {
        w.step.set(0);
        w.clone().recompute();
    });
    shell.on(&widget, &shell.controls, &["input"], |w, _| w.clone().recompute());
    shell.on_action(&widget, |w, action| match action {
        "prev" => w.go(|s, _| s.saturating_sub(1)),
        "next" => w.go(|s, last| (s + 1).min(last)),
        "all" => w.go(|_, last| last),
        "restart" => w.go(|_, _| 0),
        _ => {}
    });
    Ok(widget)
}

impl ShiftWidget {
    fn go(&self, next: fn(usize, usize) -> usize) {
        let last = self.trace.borrow().as_ref().map_or(0, |t| t.windows.len() - 1);
        self.step.set(next(self.step.get(), last));
        self.render();
    }

    /// Draws windows 0 … step; the newest row and its new token are marked.
    fn render(&self) {
        let trace = self.trace.borrow();
        let Some(trace) = trace.as_ref() else { return };
        let step = self.step.get().min(trace.windows.len() - 1);
        self.table.set_text_content(None);
        let width = trace.windows[0].len();
        dom::append(&self.table, &dom::text("caption", "", &format!("Janela de {width} posições, passo a passo")));
        dom::append(&self.table, &dom::header_row(&["passo", "janela"]));
        for (s, window) in trace.windows.iter().enumerate().take(step + 1) {
            let tr = dom::el("tr", if s == step { "current" } else { "" });
            dom::set_attr(&tr, "data-step", &s.to_string());
            let text: String = window.iter().map(|&id| chip_label(id)).map(|l| if l == "␣" { " ".into() } else { l }).collect();
            dom::set_attr(&tr, "data-text", &text);
            dom::append(&tr, &dom::th(&s.to_string(), "row"));
            let td = dom::el("td", "");
            let row = chips(window, None);
            if let Some(last) = row.last_element_child().filter(|_| s > 0) {
                let _ = last.class_list().add_1("new");
            }
            dom::append(&td, &row);
            dom::append(&tr, &td);
            dom::append(&self.table, &tr);
        }
        let message = if step == 0 {
            "Passo 0: a janela começa com <bos>, a entrada e <eos>. Avance com «passo ▶».".to_string()
        } else {
            let left = trace.windows[step - 1][0];
            let entered = trace.generated[step - 1];
            let mut m = format!("Passo {step}: saiu «{}» do início, e «{}» entrou no fim.", chip_label(left), chip_label(entered));
            if step == trace.windows.len() - 1 {
                m.push_str(match trace.stop {
                    Stop::EndOfSequence => " O modelo gerou <eos>: a geração termina aqui.",
                    Stop::StepLimit => " Atingido o número máximo de passos antes de <eos>: a geração para aqui.",
                });
            }
            m
        };
        let unknown = if trace.unknown.is_empty() {
            String::new()
        } else {
            format!(" Fora da tabela (viraram <unk>): {}.", trace.unknown.iter().map(|u| format!("«{u}»")).collect::<Vec<_>>().join(", "))
        };
        self.note.set_text_content(Some(&format!("{message}{unknown}")));
    }

    fn update(&self) -> Result<(), String> {
        let max_steps = match read_count(&self.max_steps, "Máximo de passos")? {
            0 => return Err("O máximo de passos precisa ser pelo menos 1.".into()),
            n if n > MAX_STEPS => return Err(format!("Use no máximo {MAX_STEPS} passos aqui.")),
            n => n,
        };
        let trace = shift_trace(&self.input.value(), &self.output.value(), max_steps).map_err(|e| e.to_string())?;
        *self.trace.borrow_mut() = Some(trace);
        self.render();
        Ok(())
    }
}

impl Widget for ShiftWidget {
    fn recompute(self: Rc<Self>) {
        self.shell.now(|| self.update());
    }
}
