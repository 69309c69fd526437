//! The widget catalogue page (`catalogo.html`). The page generator writes it whole (every
//! documented kind: title, summary, attributes, the HTML to paste into a blog post and its
//! example's element: `site::generate::pages`), so the documentation's texts stay out of the
//! wasm. Here the full build brings it to life: each example mounted exactly as a blog mounts
//! it (`embed::attach`: own shadow root, on scrolling), the snippets' script line made the
//! absolute address of embed.js (right wherever the site is hosted), the copy buttons wired.
//! An entry whose kind this build does not have shows a visible error (`data-orphan-doc`,
//! which the e2e suite rejects), and so does a registered kind with no entry.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Element, HtmlElement};

use crate::web::dom::{self, Listener};
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

/// Every element of `app` that `selector` matches.
fn all(app: &Element, selector: &str) -> Vec<Element> {
    let Ok(list) = app.query_selector_all(selector) else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.item(i)?.dyn_into::<Element>().ok()).collect()
}

/// Brings the prerendered catalogue in `app` to life; returns the page title.
pub fn render(app: &Element, ctx: &Rc<Ctx>) -> String {
    for note in all(app, ".page-loading") {
        note.remove();
    }
    let script = script_line();
    for code in all(app, "[data-snippet]") {
        let text = code.text_content().unwrap_or_default();
        code.set_text_content(Some(&text.replacen(crate::site::widgets::EMBED_SCRIPT, &script, 1)));
    }
    let mut shown = Vec::new();
    for section in all(app, ".catalogue-entry") {
        let kind = section.get_attribute("data-kind").unwrap_or_default();
        match (widgets::find(&kind), section.query_selector(":scope > [data-widget]").ok().flatten()) {
            (Some(_), Some(live)) => {
                if let Ok(live) = live.dyn_into::<HtmlElement>() {
                    embed::attach(ctx, &live);
                }
                shown.push(kind);
            }
            _ => orphan(&section, &format!("Há documentação para «{kind}», mas nenhum widget com esse nome."), &kind),
        }
    }
    for kind in widgets::registry().filter(|k| !shown.iter().any(|s| s == k.name())) {
        orphan(app, &format!("O widget «{}» não tem entrada neste catálogo.", kind.name()), kind.name());
    }
    listen_for_copies(app);
    // Tests (and scripts) wait for this: the snippets are final and the examples attached.
    dom::set_attr(app, "data-catalogue", "live");
    "Catálogo de widgets".to_string()
}

/// A visible error in `parent` about `kind` (the e2e suite rejects any).
fn orphan(parent: &Element, message: &str, kind: &str) {
    let p = dom::text("p", "widget-error", message);
    dom::set_attr(&p, "data-orphan-doc", kind);
    dom::append(parent, &p);
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
