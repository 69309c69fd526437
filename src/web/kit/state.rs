//! What the reader set in a widget survives a reload and travels in a link, for every widget
//! alike. A widget's state is a `core::widget_state::WidgetState`: its controls' values by key,
//! in page order (`data-control` names, `editor@row.col` cells, `editor@size` sizes), read from
//! the widget's own element (so it works inside an embedded widget's shadow root). Old links
//! and saved states decode to the same state (tests/fixtures/state_links.json).
//!
//! Restoring sets that state on the widget directly and renders once (`controls::set_state`):
//! plain controls take their values (as text, never HTML), what is more than a value (a preset
//! that fills the fields after it, an editor's size) the widget sets (`Widget::restore`), a
//! value that a control filled later cannot take yet (a token of a restored size) waits on it
//! until the widget offers it, and the widget's first computation (`Ctx::adopt`) draws it all.
//! No event is dispatched, nothing is replayed; what nothing takes is named in a note.
//!
//! Where it is kept (`address`): on the site in the page's query string (`slug.html?w2=…`,
//! rewritten as the reader edits; old `#/slug?w2=…` links are sent there by static/site.js),
//! with what is too large for a link in localStorage; embedded in someone's blog, in
//! localStorage (keyed by the post's path, the widget's slot and kind), and "copiar link"
//! writes `post.html#?w2=…`, read once then removed from the address.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Event, HtmlElement, HtmlInputElement};

use crate::core::widget_state::{describe_dropped, slot_param, WidgetState};

use super::address::{address_query, address_with, location_pathname, on_site, replace_address, storage};
use super::{controls::controls, controls::set_state, listen, Widget};
use crate::web::dom::{self, Listener};

/// Pause after the last edit before the state is written (fast typing writes once).
const SAVE_DELAY_MS: i32 = 300;
const STORAGE_PREFIX: &str = "atencao.estado ";

/// Keeps one widget's state: saves it as the reader edits, restores it at mount, shares it.
pub struct Keeper {
    host: HtmlElement,
    widget: Rc<dyn Widget>,
    kind: String,
    /// This widget's parameter (`w2`) and localStorage key.
    param: String,
    storage_key: String,
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
    save_generation: Cell<u32>,
    _listeners: RefCell<Vec<Listener>>,
}

/// Adds the state bar to a freshly mounted widget, restores its saved or linked state and
/// keeps saving it. `slot` is the widget's index among the page's widgets.
pub fn keep(host: &HtmlElement, kind: &str, slot: usize, widget: Rc<dyn Widget>) -> Rc<dyn Widget> {
    let bar = dom::el("div", "widget-share");
    let share = super::ui::button("copiar link", "share");
    dom::set_attr(&share, "title", "Um link que abre este widget com as suas entradas");
    let link = dom::el("input", "share-link").unchecked_into::<HtmlInputElement>();
    link.set_type("text");
    link.set_read_only(true);
    link.set_hidden(true);
    dom::set_attr(&link, "aria-label", "Link para este widget com as suas entradas");
    let (status, note) = (dom::el("span", "share-status"), dom::el("span", "state-note"));
    for element in [&status, &note] {
        dom::set_attr(element, "role", "status");
    }
    let forget = super::ui::button("descartar edições", "forget-state");
    forget.set_hidden(true);
    dom::append_all(&bar, &[&share, &link, &status, &forget, &note]);
    dom::append(host, &bar);
    let page = location_pathname();
    let keeper = Rc::new(Keeper {
        host: host.clone(),
        widget: widget.clone(),
        kind: kind.to_string(),
        param: slot_param(slot),
        storage_key: format!("{STORAGE_PREFIX}{page} {slot} {kind}"),
        site: on_site(),
        page,
        defaults: controls(host).into_iter().map(|(k, c)| (k, c.value())).collect(),
        note,
        link,
        status,
        forget: forget.clone(),
        sticky: RefCell::new(Vec::new()),
        save_generation: Cell::new(0),
        _listeners: RefCell::new(Vec::new()),
    });
    // Only the reader's edits raise events: each one is saved after a pause.
    let on_edit = |k: &Rc<Keeper>, event: &Event| {
        if event.type_() != "click" {
            k.sticky.borrow_mut().clear();
        }
        k.schedule_save();
    };
    let mut listeners: Vec<Listener> = ["input", "change", "click"].into_iter().map(|kind| listen(&keeper, host, kind, on_edit)).collect();
    listeners.push(listen(&keeper, &share, "click", |k, _| k.share()));
    listeners.push(listen(&keeper, &forget, "click", |k, _| k.forget()));
    *keeper._listeners.borrow_mut() = listeners;
    keeper.restore();
    // The widget and its keeper live and go together.
    Rc::new(super::context::Holding { widget, _kept: keeper })
}

impl Keeper {
    /// The controls' values: choices always, text fields where they differ from the mount.
    fn current(&self) -> WidgetState {
        let values = controls(&self.host).into_iter().map(|(key, c)| (key, c.is_choice(), c.value())).collect();
        WidgetState::of_controls(&self.kind, values, &self.defaults)
    }

    fn stored(&self) -> Option<WidgetState> {
        let text = storage()?.get_item(&self.storage_key).ok().flatten()?;
        WidgetState::from_json(&text).ok().filter(|s| s.kind == self.kind)
    }

    fn schedule_save(self: &Rc<Self>) {
        let generation = self.save_generation.get().wrapping_add(1);
        self.save_generation.set(generation);
        let weak: Weak<Keeper> = Rc::downgrade(self);
        wasm_bindgen_futures::spawn_local(async move {
            dom::sleep(SAVE_DELAY_MS).await;
            let Some(k) = weak.upgrade() else { return };
            // A save that fires after the reader moved on must not write into the next page.
            if k.save_generation.get() == generation && k.host.is_connected() && location_pathname() == k.page {
                k.save();
            }
        });
    }

    /// Writes the state: into the address (site) and, for what the address cannot hold or on
    /// an embedding page, into localStorage; says what could not be kept.
    fn save(&self) {
        let state = self.current();
        let edited = state.differs_from(&self.defaults);
        let mut notes = Vec::new();
        let mut to_store = (edited && !self.site).then(|| state.clone());
        if self.site {
            let mut in_link = state.clone();
            let left_out = if edited { in_link.fit_link() } else { Vec::new() };
            self.write_param(edited.then(|| in_link.to_link()));
            if !left_out.is_empty() {
                notes.push(format!("{} não cabe no endereço da página: fica guardado neste navegador, mas não vai num link.", describe_dropped(&left_out)));
                to_store = Some(state);
            }
        }
        if let Some(storage) = storage() {
            match to_store {
                None => {
                    let _ = storage.remove_item(&self.storage_key);
                }
                Some(mut state) => {
                    let too_big = state.fit_storage();
                    if !too_big.is_empty() {
                        notes.push(format!("{} é grande demais para ser guardado neste navegador: ao recarregar a página, o campo volta ao texto do exemplo.", describe_dropped(&too_big)));
                    }
                    if storage.set_item(&self.storage_key, &state.to_json()).is_err() {
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

    /// Sets (or removes) this widget's parameter in the site's address.
    fn write_param(&self, value: Option<String>) {
        let Ok(mut query) = address_query(true) else { return };
        if location_pathname() == self.page {
            query.set(&self.param, value);
            replace_address(&address_with(true, &query));
        }
    }

    /// The state of a link (the address's parameter for this slot), else on an embedding page
    /// the one saved in localStorage, with what to tell the reader about it.
    fn saved(&self, notes: &mut Vec<String>) -> Option<WidgetState> {
        let linked = match address_query(self.site).map(|query| query.get(&self.param).map(WidgetState::from_link)) {
            Err(why) => Err(format!("O endereço tem um erro ({why}); as entradas do link foram ignoradas.")),
            Ok(None) => Ok(None),
            Ok(Some(Err(why))) => Err(format!("As entradas deste widget no link foram ignoradas: {why}.")),
            Ok(Some(Ok(state))) if state.kind != self.kind => Err(format!("O link traz entradas de outro widget («{}») para esta posição; foram ignoradas.", state.kind)),
            Ok(Some(Ok(state))) => Ok(Some(state)),
        };
        match linked.unwrap_or_else(|why| {
            notes.push(why);
            None
        }) {
            Some(mut state) => {
                // What was too large for the link may be in this browser's storage.
                let missing = state.fill_omitted(self.stored().as_ref());
                notes.push("Entradas restauradas do link.".into());
                if !missing.is_empty() {
                    notes.push(format!("O link não trouxe {} (grande demais para um link).", missing.iter().map(|k| format!("«{k}»")).collect::<Vec<_>>().join(", ")));
                }
                if !self.site {
                    // The post's address is the author's: read once, then edits are kept in storage.
                    if let Ok(mut query) = address_query(false) {
                        query.set(&self.param, None);
                        replace_address(&address_with(false, &query));
                    }
                    if let Some(storage) = storage() {
                        let _ = storage.set_item(&self.storage_key, &state.to_json());
                    }
                }
                Some(state)
            }
            None if !self.site => self.stored().inspect(|_| notes.push("Suas edições anteriores foram restauradas.".into())),
            None => {
                // Nothing in the address refers to a stored value any more: free the storage.
                if let Some(storage) = storage() {
                    let _ = storage.remove_item(&self.storage_key);
                }
                None
            }
        }
    }

    /// Restores the saved or linked state (`saved`) onto the widget; the widget's first
    /// computation draws it.
    fn restore(&self) {
        let mut notes = Vec::new();
        if let Some(state) = self.saved(&mut notes) {
            self.forget.set_hidden(false);
            let refused = set_state(&self.host, self.widget.as_ref(), &state.controls);
            if !refused.is_empty() {
                notes.push(format!("Estas entradas não valem para este widget e foram ignoradas: {}.", refused.join(", ")));
            }
        }
        *self.sticky.borrow_mut() = notes;
        self.show_notes(&[]);
    }

    /// Puts the mount-time values back, draws them and forgets the saved state.
    fn forget(&self) {
        set_state(&self.host, self.widget.as_ref(), &self.defaults);
        self.widget.clone().recompute();
        if let Some(storage) = storage() {
            let _ = storage.remove_item(&self.storage_key);
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
        let edited = state.differs_from(&self.defaults);
        let left_out = state.fit_link();
        let mut query = if self.site { address_query(true).unwrap_or_default() } else { Default::default() };
        query.set(&self.param, edited.then(|| state.to_link()));
        let url = address_with(self.site, &query);
        self.link.set_value(&url);
        self.link.set_hidden(false);
        self.link.select();
        if !left_out.is_empty() {
            let note = format!("O link não leva {}: grande demais para um link. Leva todo o resto.", describe_dropped(&left_out));
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
            let clipboard = navigator.filter(|n| js_sys::Reflect::get(n, &"clipboard".into()).is_ok_and(|c| !c.is_undefined())).map(|n| n.clipboard());
            let copied = match clipboard {
                Some(clipboard) => JsFuture::from(clipboard.write_text(&url)).await.is_ok(),
                None => false,
            };
            status.set_text_content(Some(if copied { "Link copiado." } else { "Link pronto: está selecionado, use Ctrl+C." }));
        });
    }
}
