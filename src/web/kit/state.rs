//! What the reader typed into a widget survives a reload and travels in a link, for every
//! widget alike: this module reads the widget's form controls (`[data-control]` inputs,
//! selects and textareas, and `MatrixEditor` cells) from the widget's own element, never the
//! whole document, so it works the same inside an embedded widget's shadow root.
//!
//! - On the site the state lives in the address: each edit rewrites this widget's parameter
//!   of the page's query string (`slug.html?w2=…`, `history.replaceState`, so no navigation;
//!   old links, `#/slug?w2=…`, are sent there by static/site.js).
//!   A reload, the back button and a copied address bring it back. A value too large for a
//!   link (a pasted corpus) stays out of it; it is kept in localStorage, and a reload in the
//!   same browser puts it back.
//! - Embedded in someone's blog, the page's address is not ours: the state goes to
//!   localStorage (keyed by the post's path, the widget's slot and kind), and only the
//!   "copiar link" button writes a link (`post.html#?w2=…`), whose parameter is removed from
//!   the address once read, so that later edits win over it.
//!
//! Restoring sets each saved value in page order and dispatches the `input` and `change`
//! events a reader's edit would: the widget reacts as it always does (a preset rewrites the
//! fields after it, which are then set). Controls that only exist after the first
//! computation (a select of tokens) get their values once the widget is ready. The codec and
//! its size limits are `core::widget_state`; what a link holds is treated as hostile: values
//! only ever go into `.value` of form controls, as text.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Element, Event, EventInit, HtmlElement, HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};

use crate::core::format::format_pt;
use crate::core::widget_state::{parse_hash, slot_param, valid_key, HashQuery, WidgetState};

use crate::web::dom::{self, Listener};
use super::{listen, Widget};

/// Pause after the last edit before the state is written (fast typing writes once).
const SAVE_DELAY_MS: i32 = 300;
/// How long restoring waits for the first computation before setting the controls it creates.
const LATE_CONTROLS_WAIT_MS: i32 = 60_000;
const STORAGE_PREFIX: &str = "atencao.estado ";

/// One form control of a widget.
enum Control {
    Input(HtmlInputElement),
    Area(HtmlTextAreaElement),
    Select(HtmlSelectElement),
    /// A matrix editor the reader resizes with buttons (`MatrixEditor::resized_by`): its value
    /// is its number of cells, set by clicking them, so rows added or removed come back.
    Size(Element),
}

/// Most clicks one restore of a size may make (a hostile link cannot loop).
const MAX_RESIZE_CLICKS: u32 = 64;

fn cell_count(editor: &Element) -> u32 {
    editor.query_selector_all(".editor-cell").map_or(0, |cells| cells.length())
}

impl Control {
    fn from(element: Element) -> Option<Control> {
        if element.has_attribute("data-grow") {
            return Some(Control::Size(element));
        }
        if let Some(input) = element.dyn_ref::<HtmlInputElement>() {
            let kind = input.type_();
            return (!matches!(kind.as_str(), "button" | "submit" | "reset" | "file" | "hidden" | "image")).then(|| Control::Input(input.clone()));
        }
        if let Some(area) = element.dyn_ref::<HtmlTextAreaElement>() {
            return Some(Control::Area(area.clone()));
        }
        element.dyn_into::<HtmlSelectElement>().ok().map(Control::Select)
    }

    fn element(&self) -> &Element {
        match self {
            Control::Input(e) => e,
            Control::Area(e) => e,
            Control::Select(e) => e,
            Control::Size(e) => e,
        }
    }

    fn is_toggle(&self) -> bool {
        matches!(self, Control::Input(i) if matches!(i.type_().as_str(), "checkbox" | "radio"))
    }

    /// Selects, toggles and sliders: short values that may rewrite other fields, always kept.
    fn is_choice(&self) -> bool {
        match self {
            Control::Select(_) => true,
            Control::Input(i) => matches!(i.type_().as_str(), "checkbox" | "radio" | "range"),
            Control::Area(_) | Control::Size(_) => false,
        }
    }

    fn value(&self) -> String {
        match self {
            Control::Input(i) if self.is_toggle() => if i.checked() { "1" } else { "0" }.to_string(),
            Control::Input(i) => i.get_attribute(PENDING).unwrap_or_else(|| i.value()),
            Control::Area(a) => a.value(),
            Control::Select(s) => pending(s).unwrap_or_else(|| s.value()),
            Control::Size(e) => cell_count(e).to_string(),
        }
    }

    /// Sets the value as text, without events; false when the control would not take it. A
    /// select without that option yet keeps it as `PENDING`; a size is the widget's to set.
    fn set_direct(&self, value: &str) -> bool {
        match self {
            Control::Input(i) if self.is_toggle() => i.set_checked(value == "1"),
            Control::Input(i) => {
                i.set_value(value);
                // A slider whose range the first computation sets (a step of BPE) waits for it.
                if i.value() != value && i.type_() == "range" {
                    dom::set_attr(i, PENDING, value);
                    return true;
                }
            }
            Control::Area(a) => a.set_value(value),
            Control::Select(s) => {
                s.set_value(value);
                if s.value() != value {
                    dom::set_attr(s, PENDING, value);
                }
                return true;
            }
            Control::Size(_) => return false,
        }
        self.value() == value
    }

    /// Sets the value as text; false when the control would not take it (no such option).
    fn set(&self, value: &str) -> bool {
        match self {
            Control::Input(i) if self.is_toggle() => i.set_checked(value == "1"),
            Control::Input(i) => i.set_value(value),
            Control::Area(a) => a.set_value(value),
            Control::Select(s) => {
                s.set_value(value);
                return s.value() == value;
            }
            Control::Size(editor) => {
                // The widget's own buttons, as the reader would click them: it keeps its limits.
                let (Ok(target), Some(widget)) = (value.parse::<u32>(), editor.closest(".widget").ok().flatten()) else { return false };
                for _ in 0..MAX_RESIZE_CLICKS {
                    let n = cell_count(editor);
                    let action = editor.get_attribute(if n < target { "data-grow" } else { "data-shrink" }).unwrap_or_default();
                    let button = widget.query_selector(&format!("[data-action=\"{action}\"]")).ok().flatten().and_then(|b| b.dyn_into::<HtmlElement>().ok());
                    let Some(button) = button.filter(|_| n != target) else { break };
                    button.click();
                    if cell_count(editor) == n {
                        break;
                    }
                }
            }
        }
        self.value() == value
    }

    /// The editor a matrix cell belongs to (`None` for other controls).
    fn editor(&self) -> Option<String> {
        let element = self.element();
        if !element.class_list().contains("editor-cell") {
            return None;
        }
        element.closest("[data-editor]").ok().flatten().and_then(|e| e.get_attribute("data-editor"))
    }
}

/// The widget's controls and their keys, in page order: `data-control` (`~2`, `~3`, … for
/// repeats), `editor@row.col` for a matrix cell, `editor@size` for a resizable editor (before
/// its cells). The "por dentro" panel is not an input.
fn controls(host: &HtmlElement) -> Vec<(String, Control)> {
    let Ok(nodes) = host.query_selector_all("[data-control], input.editor-cell, [data-grow]") else { return Vec::new() };
    let mut seen: Vec<(String, usize)> = Vec::new();
    let mut out = Vec::new();
    for i in 0..nodes.length() {
        let Some(element) = nodes.item(i).and_then(|n| n.dyn_into::<Element>().ok()) else { continue };
        if element.closest(".hood").ok().flatten().is_some() {
            continue;
        }
        let Some(control) = Control::from(element.clone()) else { continue };
        let key = match (control.editor(), element.get_attribute("data-cell")) {
            (Some(editor), Some(cell)) => format!("{editor}@{cell}"),
            _ if matches!(control, Control::Size(_)) => format!("{}@size", element.get_attribute("data-editor").unwrap_or_default()),
            _ => {
                let Some(name) = element.get_attribute("data-control") else { continue };
                let n = match seen.iter_mut().find(|(k, _)| *k == name) {
                    Some((_, n)) => {
                        *n += 1;
                        *n
                    }
                    None => {
                        seen.push((name.clone(), 1));
                        1
                    }
                };
                if n == 1 {
                    name
                } else {
                    format!("{name}~{n}")
                }
            }
        };
        if valid_key(&key) {
            out.push((key, control));
        }
    }
    out
}

/// The attribute that keeps a restored value a control cannot take yet (a select's token the
/// restored size adds, a choice or a slider's range the first computation sets): the control
/// takes it when the widget sets its options (`ui::set_options`, `ui::sync_choices`) or range,
/// and forgets it then.
pub const PENDING: &str = "data-restore";

/// The restored value `select` still waits to offer.
pub fn pending(select: &HtmlSelectElement) -> Option<String> {
    select.get_attribute(PENDING)
}

/// The restored value a slider waits to take once its range is set, forgotten.
pub fn take_pending_value(input: &HtmlInputElement) -> Option<String> {
    let value = input.get_attribute(PENDING);
    let _ = input.remove_attribute(PENDING);
    value
}

/// Selects the pending value if an option now has it, and forgets it either way.
pub fn take_pending(select: &HtmlSelectElement) {
    let Some(value) = pending(select) else { return };
    let before = select.value();
    select.set_value(&value);
    if select.value() != value {
        select.set_value(&before);
    }
    let _ = select.remove_attribute(PENDING);
}

/// Sets a state on the widget, in order, without events: what is more than a value (a preset,
/// a size) through `Widget::restore`, the rest on the controls. Returns the keys nothing took.
fn set_state(host: &HtmlElement, widget: &dyn Widget, entries: &[(String, String)]) -> Vec<String> {
    let mut current = controls(host);
    let mut refused = Vec::new();
    for (key, value) in entries {
        let took = match widget.restore(key, value) {
            Some(took) => {
                // A preset or a size rewrites or rebuilds controls: look them up again.
                current = controls(host);
                took
            }
            None => current.iter().find(|(k, _)| k == key).is_some_and(|(_, control)| control.set_direct(value)),
        };
        if !took {
            refused.push(format!("«{key}»"));
        }
    }
    refused
}

fn dispatch_edit(element: &Element) {
    for kind in ["input", "change"] {
        let init = EventInit::new();
        init.set_bubbles(true);
        if let Ok(event) = Event::new_with_event_init_dict(kind, &init) {
            let _ = element.dispatch_event(&event);
        }
    }
}

/// Sets `entries` on the widget's controls, in order, with the events of an edit; returns the
/// entries whose control does not exist (yet) or would not take the value.
fn apply(host: &HtmlElement, entries: &[(String, String)]) -> Vec<(String, String)> {
    let mut current = controls(host);
    let mut leftovers = Vec::new();
    // Matrix cells get one event per editor (the last cell set), after all its cells are set:
    // editors listen on their container, and one recomputation per cell would be wasted.
    let mut cells_to_announce: Vec<(String, Element)> = Vec::new();
    let announce = |cells: &mut Vec<(String, Element)>| {
        for (_, cell) in cells.drain(..) {
            dispatch_edit(&cell);
        }
    };
    for (key, value) in entries {
        let Some((_, control)) = current.iter().find(|(k, _)| k == key) else {
            leftovers.push((key.clone(), value.clone()));
            continue;
        };
        if control.value() == *value {
            continue;
        }
        if !control.set(value) {
            leftovers.push((key.clone(), value.clone()));
            continue;
        }
        match control.editor() {
            Some(editor) => match cells_to_announce.iter_mut().find(|(e, _)| *e == editor) {
                Some(slot) => slot.1 = control.element().clone(),
                None => cells_to_announce.push((editor, control.element().clone())),
            },
            None => {
                announce(&mut cells_to_announce);
                dispatch_edit(control.element());
                // The widget may have rebuilt controls (a preset, a size): look them up again.
                current = controls(host);
            }
        }
    }
    announce(&mut cells_to_announce);
    leftovers
}

/// Size in Portuguese: "1,2 MB", "850 kB".
fn size_text(bytes: usize) -> String {
    if bytes >= 1_000_000 {
        format!("{} MB", format_pt(bytes as f32 / 1e6, 1))
    } else {
        format!("{} kB", (bytes as f32 / 1e3).ceil())
    }
}

fn names(dropped: &[(String, usize)]) -> String {
    dropped.iter().map(|(k, n)| format!("«{k}» ({})", size_text(*n))).collect::<Vec<_>>().join(", ")
}

fn storage() -> Option<web_sys::Storage> {
    dom::window().and_then(|w| w.local_storage().ok().flatten())
}

/// Whether this document is the site (the address is ours) rather than a page embedding widgets.
fn on_site() -> bool {
    dom::document().is_some_and(|d| d.query_selector("#app[data-site]").ok().flatten().is_some())
}

fn location_hash() -> String {
    dom::window().and_then(|w| w.location().hash().ok()).unwrap_or_default()
}

fn location_pathname() -> String {
    dom::window().and_then(|w| w.location().pathname().ok()).unwrap_or_default()
}

/// The parameters widget states live in: on the site, the page's query string (a page is a
/// file of its own, `slug.html?w2=…`); on a page embedding widgets, its hash (`post.html#?w2=…`:
/// the query string belongs to the post and its server).
fn address_query(site: bool) -> Result<HashQuery, String> {
    if site {
        let search = dom::window().and_then(|w| w.location().search().ok()).unwrap_or_default();
        parse_hash(&format!("#{search}"))
    } else {
        parse_hash(&location_hash())
    }
}

/// A parameter of this document's address where widget states live (see `address_query`): on
/// the site `slug.html?name=…`, on an embedding page `post.html#?name=…`.
pub fn address_param(name: &str) -> Option<String> {
    address_query(on_site()).ok().and_then(|q| q.get(name).map(str::to_string))
}

/// This document's address with `query` in place of the parameters `address_query` read.
fn address_with(site: bool, query: &HashQuery) -> String {
    let Some(location) = dom::window().map(|w| w.location()) else { return String::new() };
    let href = location.href().unwrap_or_default();
    let before_hash = href.split('#').next().unwrap_or_default();
    if site {
        let page = before_hash.split('?').next().unwrap_or_default();
        format!("{page}{}{}", query.to_hash().trim_start_matches('#'), location.hash().unwrap_or_default())
    } else {
        format!("{before_hash}{}", query.to_hash())
    }
}

fn replace_address(url: &str) {
    let Some(window) = dom::window() else { return };
    if window.location().href().ok().as_deref() == Some(url) {
        return;
    }
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(url));
    }
}

/// Keeps one widget's state: saves it as the reader edits, restores it at mount, shares it.
pub struct Keeper {
    host: HtmlElement,
    widget: Rc<dyn Widget>,
    kind: String,
    slot: usize,
    site: bool,
    /// The page's path (on the site or the embedding page), when mounted.
    page: String,
    /// The controls' values right after mounting: only edits from these go in a text field's state.
    defaults: Vec<(String, String)>,
    note: HtmlElement,
    link: HtmlInputElement,
    status: HtmlElement,
    forget: HtmlElement,
    /// What the last restore or share had to say; shown until the reader's next edit.
    sticky: RefCell<Vec<String>>,
    /// Set while restoring: the edits' events are ours, not the reader's.
    applying: Cell<bool>,
    save_generation: Cell<u32>,
    listeners: RefCell<Vec<Listener>>,
}

/// Adds the state bar to a freshly mounted widget, restores its saved or linked state and
/// keeps saving it. `slot` is the widget's index among the page's widgets.
pub fn keep(host: &HtmlElement, kind: &str, slot: usize, widget: Rc<dyn Widget>) -> Rc<dyn Widget> {
    let site = on_site();
    let page = location_pathname();
    let bar = dom::el("div", "widget-share");
    let share = super::ui::button("copiar link", "share");
    dom::set_attr(&share, "title", "Um link que abre este widget com as suas entradas");
    let link = dom::el("input", "share-link").unchecked_into::<HtmlInputElement>();
    link.set_type("text");
    link.set_read_only(true);
    link.set_hidden(true);
    dom::set_attr(&link, "aria-label", "Link para este widget com as suas entradas");
    let status = dom::el("span", "share-status");
    dom::set_attr(&status, "role", "status");
    let forget = super::ui::button("descartar edições", "forget-state");
    forget.set_hidden(true);
    let note = dom::el("span", "state-note");
    dom::set_attr(&note, "role", "status");
    dom::append_all(&bar, &[&share, &link, &status, &forget, &note]);
    dom::append(host, &bar);

    let defaults = controls(host).into_iter().map(|(k, c)| (k, c.value())).collect();
    let keeper = Rc::new(Keeper {
        host: host.clone(),
        widget: widget.clone(),
        kind: kind.to_string(),
        slot,
        site,
        page,
        defaults,
        note,
        link,
        status,
        forget: forget.clone(),
        sticky: RefCell::new(Vec::new()),
        applying: Cell::new(false),
        save_generation: Cell::new(0),
        listeners: RefCell::new(Vec::new()),
    });
    let on_edit = |k: &Rc<Keeper>, event: &Event| {
        if !k.applying.get() && event.type_() != "click" {
            k.sticky.borrow_mut().clear();
        }
        k.schedule_save();
    };
    let mut listeners: Vec<Listener> = ["input", "change", "click"].into_iter().map(|kind| listen(&keeper, host, kind, on_edit)).collect();
    listeners.push(listen(&keeper, &share, "click", |k, _| k.share()));
    listeners.push(listen(&keeper, &forget, "click", |k, _| k.forget()));
    *keeper.listeners.borrow_mut() = listeners;
    keeper.restore();
    // The widget and its keeper live and go together.
    Rc::new(super::context::Holding { widget, _kept: keeper })
}

impl Keeper {
    fn storage_key(&self) -> String {
        format!("{STORAGE_PREFIX}{} {} {}", self.page, self.slot, self.kind)
    }

    fn param(&self) -> String {
        slot_param(self.slot)
    }

    /// The controls' values: choices always, text fields where they differ from the mount.
    fn current(&self) -> WidgetState {
        let entries = controls(&self.host)
            .into_iter()
            .map(|(key, control)| (key, control.is_choice(), control.value()))
            .filter(|(key, choice, value)| *choice || !self.defaults.iter().any(|(k, v)| k == key && v == value))
            .map(|(key, _, value)| (key, value))
            .collect();
        WidgetState::new(&self.kind, entries)
    }

    /// Whether any control differs from its value at mount.
    fn edited(&self, state: &WidgetState) -> bool {
        !state.omitted.is_empty() || state.controls.iter().any(|(key, value)| !self.defaults.iter().any(|(k, v)| k == key && v == value))
    }

    fn stored(&self) -> Option<WidgetState> {
        let text = storage()?.get_item(&self.storage_key()).ok().flatten()?;
        WidgetState::from_json(&text).ok().filter(|s| s.kind == self.kind)
    }

    /// Still on the page it was mounted on (a save that fires after the reader moved on must
    /// not write into the next page's address).
    fn current_page(&self) -> bool {
        self.host.is_connected() && location_pathname() == self.page
    }

    fn schedule_save(self: &Rc<Self>) {
        let generation = self.save_generation.get().wrapping_add(1);
        self.save_generation.set(generation);
        let weak: Weak<Keeper> = Rc::downgrade(self);
        wasm_bindgen_futures::spawn_local(async move {
            dom::sleep(SAVE_DELAY_MS).await;
            let Some(keeper) = weak.upgrade() else { return };
            if keeper.save_generation.get() == generation && keeper.current_page() {
                keeper.save();
            }
        });
    }

    /// Writes the state: into the address (site) and, for what the address cannot hold or on
    /// an embedding page, into localStorage; says what could not be kept.
    fn save(&self) {
        let state = self.current();
        let edited = self.edited(&state);
        let mut notes = Vec::new();
        let to_store = if !edited {
            if self.site {
                self.write_param(None);
            }
            None
        } else if self.site {
            let mut in_link = state.clone();
            let left_out = in_link.fit_link();
            self.write_param(Some(in_link.to_link()));
            if left_out.is_empty() {
                None
            } else {
                notes.push(format!("{} não cabe no endereço da página: fica guardado neste navegador, mas não vai num link.", names(&left_out)));
                Some(state)
            }
        } else {
            Some(state)
        };
        if let Some(storage) = storage() {
            match to_store {
                None => {
                    let _ = storage.remove_item(&self.storage_key());
                }
                Some(mut state) => {
                    let too_big = state.fit_storage();
                    if !too_big.is_empty() {
                        notes.push(format!("{} é grande demais para ser guardado neste navegador: ao recarregar a página, o campo volta ao texto do exemplo.", names(&too_big)));
                    }
                    if storage.set_item(&self.storage_key(), &state.to_json()).is_err() {
                        notes.push("O navegador não deixou guardar as edições (armazenamento cheio ou bloqueado): ao recarregar, elas se perdem.".into());
                    }
                }
            }
        }
        self.show_notes(&notes);
        self.forget.set_hidden(!edited);
    }

    /// The sticky notes, then `notes`.
    fn show_notes(&self, notes: &[String]) {
        let all: Vec<String> = self.sticky.borrow().iter().chain(notes).cloned().collect();
        self.note.set_text_content(Some(&all.join(" ")));
    }

    /// Sets `entries` as a restore does (see `apply`), marking the events as ours.
    fn apply(&self, entries: &[(String, String)]) -> Vec<(String, String)> {
        self.applying.set(true);
        let leftovers = apply(&self.host, entries);
        self.applying.set(false);
        leftovers
    }

    /// Sets (or removes) this widget's parameter in the site's address.
    fn write_param(&self, value: Option<String>) {
        let Ok(mut query) = address_query(true) else { return };
        if location_pathname() != self.page {
            return;
        }
        query.set(&self.param(), value);
        replace_address(&address_with(true, &query));
    }

    /// Restores the state of a link (the address's parameter for this slot), else on an
    /// embedding page the state saved in localStorage.
    fn restore(self: &Rc<Self>) {
        let mut notes = Vec::new();
        let linked = match address_query(self.site) {
            Err(why) => {
                notes.push(format!("O endereço tem um erro ({why}); as entradas do link foram ignoradas."));
                None
            }
            Ok(query) => match query.get(&self.param()).map(WidgetState::from_link) {
                None => None,
                Some(Err(why)) => {
                    notes.push(format!("As entradas deste widget no link foram ignoradas: {why}."));
                    None
                }
                Some(Ok(state)) if state.kind != self.kind => {
                    notes.push(format!("O link traz entradas de outro widget («{}») para esta posição; foram ignoradas.", state.kind));
                    None
                }
                Some(Ok(state)) => Some(state),
            },
        };
        let state = match linked {
            Some(mut state) => {
                // What was too large for the link may be in this browser's storage.
                let stored = self.stored();
                let mut missing = Vec::new();
                for key in std::mem::take(&mut state.omitted) {
                    match stored.as_ref().and_then(|s| s.get(&key)) {
                        Some(value) => state.controls.push((key, value.to_string())),
                        None => missing.push(format!("«{key}»")),
                    }
                }
                notes.push("Entradas restauradas do link.".into());
                if !missing.is_empty() {
                    notes.push(format!("O link não trouxe {} (grande demais para um link).", missing.join(", ")));
                }
                if !self.site {
                    // The post's address is the author's: read once, then edits are kept in storage.
                    if let Ok(mut query) = address_query(false) {
                        query.set(&self.param(), None);
                        replace_address(&address_with(false, &query));
                    }
                }
                Some(state)
            }
            None if !self.site => {
                let stored = self.stored();
                if stored.is_some() {
                    notes.push("Suas edições anteriores foram restauradas.".into());
                }
                stored
            }
            None => {
                // Nothing in the address refers to a stored value any more: free the storage.
                if let Some(storage) = storage() {
                    let _ = storage.remove_item(&self.storage_key());
                }
                None
            }
        };
        let Some(state) = state else {
            *self.sticky.borrow_mut() = notes;
            self.show_notes(&[]);
            return;
        };
        self.forget.set_hidden(false);
        if self.widget.sets_state() {
            // The first computation (`Ctx::adopt`) draws what is set here.
            let refused = set_state(&self.host, self.widget.as_ref(), &state.controls);
            if !refused.is_empty() {
                notes.push(format!("Estas entradas não valem para este widget e foram ignoradas: {}.", refused.join(", ")));
            }
            if !self.site {
                if let Some(storage) = storage() {
                    let _ = storage.set_item(&self.storage_key(), &state.to_json());
                }
            }
            *self.sticky.borrow_mut() = notes;
            self.show_notes(&[]);
            return;
        }
        *self.sticky.borrow_mut() = notes;
        self.show_notes(&[]);
        let leftovers = self.apply(&state.controls);
        if leftovers.is_empty() {
            return;
        }
        // Controls the first computation creates: set them once the widget has drawn.
        let weak = Rc::downgrade(self);
        wasm_bindgen_futures::spawn_local(async move {
            let mut waited = 0;
            loop {
                dom::sleep(100).await;
                waited += 100;
                let Some(keeper) = weak.upgrade() else { return };
                if keeper.host.get_attribute("data-state").as_deref() != Some("loading") || waited >= LATE_CONTROLS_WAIT_MS {
                    keeper.apply(&leftovers);
                    return;
                }
            }
        });
    }

    /// Puts the mount-time values back and forgets the saved state.
    fn forget(self: &Rc<Self>) {
        if self.widget.sets_state() {
            set_state(&self.host, self.widget.as_ref(), &self.defaults);
            self.widget.clone().recompute();
        } else {
            self.apply(&self.defaults);
        }
        if let Some(storage) = storage() {
            let _ = storage.remove_item(&self.storage_key());
        }
        if self.site {
            self.write_param(None);
        }
        self.save_generation.set(self.save_generation.get().wrapping_add(1));
        self.forget.set_hidden(true);
        self.link.set_hidden(true);
        self.status.set_text_content(None);
        *self.sticky.borrow_mut() = vec!["Edições descartadas: de volta ao exemplo.".into()];
        self.show_notes(&[]);
    }

    /// Writes a link that opens this page with this widget's inputs, shows it (selected) and
    /// copies it where the browser allows.
    fn share(&self) {
        let mut state = self.current();
        let edited = self.edited(&state);
        let left_out = state.fit_link();
        let mut query = if self.site { address_query(true).unwrap_or_default() } else { Default::default() };
        query.set(&self.param(), edited.then(|| state.to_link()));
        let url = address_with(self.site, &query);
        self.link.set_value(&url);
        self.link.set_hidden(false);
        self.link.select();
        if !left_out.is_empty() {
            let note = format!("O link não leva {}: grande demais para um link. Leva todo o resto.", names(&left_out));
            let mut sticky = self.sticky.borrow_mut();
            if !sticky.contains(&note) {
                sticky.push(note);
            }
        }
        self.show_notes(&[]);
        let status = self.status.clone();
        status.set_text_content(Some("Copiando…"));
        wasm_bindgen_futures::spawn_local(async move {
            // navigator.clipboard is undefined outside secure contexts: check before calling.
            let navigator = dom::window().map(|w| w.navigator());
            let clipboard =
                navigator.filter(|n| js_sys::Reflect::get(n, &"clipboard".into()).is_ok_and(|c| !c.is_undefined())).map(|n| n.clipboard());
            let copied = match clipboard {
                Some(clipboard) => JsFuture::from(clipboard.write_text(&url)).await.is_ok(),
                None => false,
            };
            status.set_text_content(Some(if copied { "Link copiado." } else { "Link pronto: está selecionado, use Ctrl+C." }));
        });
    }
}
