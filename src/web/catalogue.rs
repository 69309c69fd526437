//! The widget catalogue page (`catalogo.html`): every kind of the registry with its documentation
//! (`site::widgets`), the HTML to paste into a blog post with a copy button, and a live example
//! mounted exactly as a blog mounts it (`embed::attach`: own shadow root, on scrolling).
//!
//! The page opens with how to embed, then a jump index of every kind; it walks
//! `widgets::registry()`, so a new widget shows up here by being registered (its documentation
//! comes with it); documentation for a kind that does not exist shows a visible error
//! (`data-orphan-doc`, which the e2e suite rejects).

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Element, HtmlElement};

use crate::site::widgets::{self as docs, WidgetDoc};

use crate::web::dom::{self, Listener};
use crate::web::kit::ui;
use super::embed;
use super::kit::Ctx;
use super::widgets;

thread_local! {
    /// The page's delegated click listener for the copy buttons (replaced on each visit).
    static COPY: RefCell<Option<Listener>> = const { RefCell::new(None) };
}

/// The script line every snippet starts with: embed.js next to this page, as an absolute
/// URL, so it is right wherever the site is hosted (a sub-path, another domain).
fn script_line() -> String {
    let page = dom::document().and_then(|d| d.base_uri().ok().flatten()).unwrap_or_default();
    let src = web_sys::Url::new_with_base("embed.js", &page).map_or_else(|_| "embed.js".to_string(), |u| u.href());
    format!(r#"<script type="module" src="{src}"></script>"#)
}

/// Fills `app` with the catalogue; returns the page title.
pub fn render(app: &Element, ctx: &Rc<Ctx>) -> String {
    let title = "Catálogo de widgets";
    dom::page_heading(
        app,
        title,
        "Cada widget deste tutorial funciona em qualquer página, por exemplo num post de blog: carregue o script \
         uma vez e ponha um elemento com data-widget onde quiser que o widget apareça. Os atributos data-… \
         configuram cada um; sem eles, o widget mostra o exemplo do artigo original.",
    );
    let script = script_line();
    dom::append(app, &dom::text("h2", "", "Como incorporar"));
    dom::append(app, &snippet_block(&format!("{script}\n<div data-widget=\"attention\"></div>"), "como-incorporar"));
    dom::append(
        app,
        &dom::text(
            "p",
            "note",
            "O script é um módulo ES sem código inline: funciona sob uma Content-Security-Policy estrita \
             (script-src 'self' 'wasm-unsafe-eval'). Cada widget fica isolado num shadow root (o CSS da página não o \
             altera e o dele não vaza), só é montado quando chega perto da tela, e todos os widgets da página \
             compartilham um único módulo WebAssembly e uma única GPU. Servido de outro domínio, o site precisa \
             responder com o cabeçalho Access-Control-Allow-Origin, para que o blog possa carregar o script.",
        ),
    );

    // A jump index: every kind by its title, each a link to its entry below.
    let index = dom::el("nav", "catalogue-index");
    dom::set_attr(&index, "aria-label", "Índice dos widgets");
    dom::append(&index, &dom::text("h2", "", "Os widgets"));
    let list = dom::el("ul", "");
    for kind in widgets::registry() {
        let link = dom::notation("a", "", kind.title());
        dom::set_attr(&link, "href", &format!("#w-{}", kind.name()));
        let item = dom::el("li", "");
        dom::append(&item, &link);
        dom::append(&list, &item);
    }
    dom::append(&index, &list);
    dom::append(app, &index);
    for kind in widgets::registry() {
        dom::append(app, &entry(kind.doc, &script, ctx));
    }
    for orphan in docs::WIDGETS.iter().filter(|d| widgets::find(d.name).is_none()) {
        let p = dom::text("p", "widget-error", &format!("Há documentação para «{}», mas nenhum widget com esse nome.", orphan.name));
        dom::set_attr(&p, "data-orphan-doc", orphan.name);
        dom::append(app, &p);
    }
    listen_for_copies(app);
    title.to_string()
}

/// One kind: title, summary, attributes, snippet and live example.
fn entry(doc: &WidgetDoc, script: &str, ctx: &Rc<Ctx>) -> HtmlElement {
    let name = doc.name;
    let section = dom::el("section", "catalogue-entry");
    dom::set_attr(&section, "data-kind", name);
    dom::set_attr(&section, "id", &format!("w-{name}"));
    let h2 = dom::text("h2", "", doc.title);
    dom::append(&h2, &dom::text("code", "kind-name", name));
    dom::append(&section, &h2);
    dom::append_all(&section, &[&dom::notation("p", "", doc.summary), &attribute_table(doc)]);
    dom::append(&section, &snippet_block(&format!("{script}\n{}", docs::snippet(doc)), name));

    let live = dom::el("div", "");
    dom::set_attr(&live, "data-widget", name);
    for (attribute, value) in doc.example {
        dom::set_attr(&live, attribute, value);
    }
    dom::append(&section, &live);
    embed::attach(ctx, &live);
    section
}

fn attribute_table(doc: &WidgetDoc) -> HtmlElement {
    if doc.attributes.is_empty() {
        return dom::text("p", "note", "Sem atributos: o widget mostra o exemplo do artigo original.");
    }
    let table = dom::el("table", "catalogue-attributes");
    dom::append(&table, &dom::text("caption", "", "Atributos"));
    dom::append(&table, &dom::header_row(&["atributo", "o que define", "valores"]));
    for attribute in doc.attributes {
        let tr = dom::el("tr", "");
        dom::set_attr(&tr, "data-attribute", attribute.name);
        let th = dom::th("", "row");
        dom::append(&th, &dom::text("code", "", attribute.name));
        dom::append_all(&tr, &[&th, &dom::text("td", "", attribute.meaning), &dom::text("td", "", attribute.values)]);
        dom::append(&table, &tr);
    }
    table
}

/// The code to paste (as text) and its copy button.
fn snippet_block(code: &str, id: &str) -> HtmlElement {
    let block = dom::el("div", "snippet");
    let pre = dom::el("pre", "");
    let code_el = dom::text("code", "", code);
    dom::set_attr(&code_el, "data-snippet", id);
    dom::append(&pre, &code_el);
    dom::append(&block, &pre);
    let copy = ui::button("copiar", "copy");
    dom::set_attr(&copy, "aria-label", "copiar o código");
    dom::append(&block, &copy);
    let status = dom::el("span", "copy-status");
    dom::set_attr(&status, "role", "status");
    dom::append(&block, &status);
    block
}

/// One listener on the page for every copy button: copies the snippet beside the button; where
/// the clipboard is refused (no permission, an insecure origin), selects it for Ctrl+C.
fn listen_for_copies(app: &Element) {
    let listener = Listener::new(app, "click", |event| {
        let Some(button) = event.target().and_then(|t| t.dyn_into::<Element>().ok()).and_then(|t| t.closest("[data-action=copy]").ok().flatten()) else {
            return;
        };
        let Some(block) = button.parent_element() else { return };
        let (Ok(Some(code)), Ok(Some(status))) = (block.query_selector("code"), block.query_selector(".copy-status")) else { return };
        let text = code.text_content().unwrap_or_default();
        wasm_bindgen_futures::spawn_local(async move {
            // navigator.clipboard is undefined outside secure contexts: check before calling.
            let navigator = dom::window().map(|w| w.navigator());
            let clipboard = navigator
                .filter(|n| js_sys::Reflect::get(n, &"clipboard".into()).is_ok_and(|c| !c.is_undefined()))
                .map(|n| n.clipboard());
            let copied = match clipboard {
                Some(clipboard) => JsFuture::from(clipboard.write_text(&text)).await.is_ok(),
                None => false,
            };
            if copied {
                status.set_text_content(Some("copiado"));
            } else {
                if let Some(selection) = dom::window().and_then(|w| w.get_selection().ok().flatten()) {
                    let _ = selection.select_all_children(&code);
                }
                status.set_text_content(Some("o navegador não deixou copiar: o código está selecionado, use Ctrl+C"));
            }
        });
    });
    COPY.with(|c| *c.borrow_mut() = Some(listener));
}
