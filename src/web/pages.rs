//! Page shell and hash routing (`#/slug`): the table of contents, the home page, article
//! and section pages, all generated from `site::ARTICLES` (one data source).
//!
//! Page prose is our own build-time HTML (Markdown + MathML from content/, served as
//! `prose/<slug>.html` next to index.html), so it is the one thing inserted as HTML; anything
//! from the reader or the URL is inserted as text. It is fetched when a page opens, so the
//! first page downloads none of it; the page (title, prose, widgets) appears once it arrives.

use std::cell::Cell;
use std::rc::Rc;

use web_sys::{Element, HtmlElement};

use crate::site::{self, Article, Route, ARTICLES};

use crate::web::dom::{self, Listener};
use super::kit::Ctx;
use super::widgets;

/// Fills `#toc` with every article and its sections, and wires the menu button.
pub fn build_shell() {
    let Some(document) = dom::document() else { return };
    let Some(toc) = document.get_element_by_id("toc") else { return };
    toc.set_text_content(None);
    let list = dom::el("ol", "toc-articles");
    for article in ARTICLES {
        let item = dom::el("li", "");
        dom::append(&item, &link(&format!("#/{}", article.slug), article.title, "toc-article"));
        let sections = dom::el("ol", "toc-sections");
        for section in article.sections {
            let li = dom::el("li", "");
            dom::append(&li, &link(&format!("#/{}", section.slug), section.title, ""));
            dom::append(&sections, &li);
        }
        dom::append(&item, &sections);
        dom::append(&list, &item);
    }
    dom::append(&toc, &list);
    // The catalogue is not an article page: its link sits in the footer, not in the contents.
    if let Ok(Some(footer)) = document.query_selector(".site-footer") {
        dom::append(&footer, &link(&format!("#/{}", site::CATALOGUE_SLUG), "catálogo de widgets", "footer-link"));
    }
}

fn link(href: &str, label: &str, class: &str) -> HtmlElement {
    let a = dom::text("a", class, label);
    dom::set_attr(&a, "href", href);
    a
}

/// Renders the current hash and re-renders on every `hashchange`.
pub fn start_router(ctx: Rc<Ctx>) {
    let Some(window) = dom::window() else { return };
    render(&ctx);
    let ctx_for_route = ctx.clone();
    let listener = Listener::new(&window, "hashchange", move |_| render(&ctx_for_route));
    ctx.keep_document_listener(listener);
    // Canvases take their colours from the theme: redraw when the reader's system switches it.
    if let Some(query) = window.match_media("(prefers-color-scheme: dark)").ok().flatten() {
        let ctx_for_theme = ctx.clone();
        ctx.keep_document_listener(Listener::new(&query, "change", move |_| ctx_for_theme.recompute_all()));
    }
    if let Some(button) = dom::document().and_then(|d| d.get_element_by_id("menu-button")) {
        let toggle = Listener::new(&button, "click", |_| {
            let Some(document) = dom::document() else { return };
            let (Some(body), Some(button)) = (document.body(), document.get_element_by_id("menu-button")) else { return };
            let open = body.class_list().toggle("menu-open").unwrap_or(false);
            dom::set_attr(&button, "aria-expanded", if open { "true" } else { "false" });
        });
        ctx.keep_document_listener(toggle);
    }
}

thread_local! {
    /// Counts renders: a page whose prose arrives after the reader moved on is dropped.
    static RENDERS: Cell<u64> = const { Cell::new(0) };
}

fn render(ctx: &Rc<Ctx>) {
    let Some(document) = dom::document() else { return };
    let Some(app) = document.get_element_by_id("app") else { return };
    let hash = dom::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
    let render_id = RENDERS.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    ctx.leave_page();
    app.set_text_content(None);
    let _ = app.remove_attribute("aria-busy");
    let title = match site::resolve(&hash) {
        Route::Home => render_home(&app),
        Route::Catalogue => super::catalogue::render(&app, ctx),
        Route::Bench => super::bench::render(&app, ctx),
        Route::Article(article) => {
            load_prose(&app, ctx, render_id, article.slug, article.title, move |app, prose| render_article(app, article, prose));
            article.title.to_string()
        }
        Route::Section { article, index } => {
            let section = &article.sections[index];
            load_prose(&app, ctx, render_id, section.slug, section.title, move |app, prose| render_section(app, article, index, prose));
            section.title.to_string()
        }
        Route::NotFound(slug) => {
            let h1 = dom::text("h1", "", "Página não encontrada");
            dom::append(&app, &h1);
            // The slug comes from the URL: text only.
            dom::append(&app, &dom::text("p", "", &format!("Não há página chamada «{slug}». Escolha uma seção no sumário.")));
            "Página não encontrada".to_string()
        }
    };
    document.set_title(&format!("{title} · atenção"));
    mark_current(&document, &hash);
    if let Some(body) = document.body() {
        let _ = body.class_list().remove_1("menu-open");
    }
    widgets::mount_all(&app, ctx);
    if let Some(window) = dom::window() {
        window.scroll_to_with_x_and_y(0.0, 0.0);
    }
}

fn mark_current(document: &web_sys::Document, hash: &str) {
    let Ok(links) = document.query_selector_all("#toc a") else { return };
    // Widget state rides in the hash's parameters (`#/slug?w0=…`): only the route names the page.
    let route = hash.split('?').next().unwrap_or_default();
    let current = if route.is_empty() { "#/" } else { route };
    for i in 0..links.length() {
        let Some(a) = links.item(i).and_then(|n| wasm_bindgen::JsCast::dyn_into::<Element>(n).ok()) else { continue };
        if a.get_attribute("href").as_deref() == Some(current) {
            dom::set_attr(&a, "aria-current", "page");
        } else {
            let _ = a.remove_attribute("aria-current");
        }
    }
}

fn render_home(app: &Element) -> String {
    dom::append(app, &dom::text("h1", "", "Atenção, passo a passo"));
    dom::append(
        app,
        &dom::text(
            "p",
            "lead",
            "Um tutorial interativo sobre como Transformers funcionam: de vetores e TF-IDF a cadeias de Markov, \
             atenção e um pequeno modelo de linguagem. Edite os exemplos e veja cada número ser recalculado \
             no seu navegador, na GPU (WebGPU) ou na CPU.",
        ),
    );
    let grid = dom::el("div", "cards");
    for article in ARTICLES {
        let card = dom::el("article", "card");
        let h2 = dom::el("h2", "");
        dom::append(&h2, &link(&format!("#/{}", article.slug), article.title, ""));
        dom::append(&card, &h2);
        dom::append(&card, &dom::text("p", "", article.summary));
        dom::append(&card, &dom::text("p", "muted", &format!("{} seções", article.sections.len())));
        dom::append(&grid, &card);
    }
    dom::append(app, &grid);
    let embed = dom::el("p", "muted");
    dom::append(&embed, &dom::text("span", "", "Todos os widgets também funcionam no seu blog: veja o "));
    dom::append(&embed, &link(&format!("#/{}", site::CATALOGUE_SLUG), "catálogo de widgets", ""));
    dom::append(&embed, &dom::text("span", "", "."));
    dom::append(app, &embed);
    "Início".to_string()
}

/// Shows "carregando" in `app`, fetches the prose of page `slug`, then lets `draw` build the
/// page around it and mounts its widgets; on failure, a message with a retry button. Nothing
/// happens if another page was rendered meanwhile.
fn load_prose(app: &Element, ctx: &Rc<Ctx>, render_id: u64, slug: &'static str, title: &'static str, draw: impl Fn(&Element, &str) + 'static) {
    dom::set_attr(app, "aria-busy", "true");
    dom::append(app, &dom::text("p", "muted page-loading", "Carregando o texto da página…"));
    let (app, ctx) = (app.clone(), ctx.clone());
    wasm_bindgen_futures::spawn_local(async move {
        let fetched = fetch_text(&site::prose_path(slug)).await;
        if RENDERS.with(|n| n.get()) != render_id {
            return;
        }
        app.set_text_content(None);
        let _ = app.remove_attribute("aria-busy");
        match fetched {
            Ok(prose) => {
                draw(&app, &prose);
                widgets::mount_all(&app, &ctx);
            }
            Err(why) => {
                dom::append(&app, &dom::text("h1", "", title));
                let message = dom::text("p", "widget-error page-error", &format!("Não foi possível carregar o texto desta página. {why}"));
                dom::set_attr(&message, "role", "alert");
                dom::append(&app, &message);
                let retry = dom::button("tentar de novo", "retry-page");
                let ctx_for_retry = ctx.clone();
                ctx.keep_route_listener(Listener::new(&retry, "click", move |_| render(&ctx_for_retry)));
                dom::append(&app, &retry);
            }
        }
    });
}

/// The body of a same-site text file (through the decoder's fetch); an error in Portuguese
/// otherwise (offline on a first visit, a server that lost the file).
async fn fetch_text(url: &str) -> Result<String, String> {
    let bytes = crate::web::model_store::fetch_bytes(url, 0.0, &|_, _| {}).await?;
    String::from_utf8(bytes).map_err(|_| format!("A resposta a {url} não é texto UTF-8."))
}

fn render_article(app: &Element, article: &Article, prose: &str) {
    dom::append(app, &dom::text("h1", "", article.title));
    let intro = dom::el("div", "prose");
    intro.set_inner_html(prose);
    dom::append(app, &intro);
    let list = dom::el("ol", "section-list");
    for section in article.sections {
        let li = dom::el("li", "");
        dom::append(&li, &link(&format!("#/{}", section.slug), section.title, ""));
        dom::append(&list, &li);
    }
    dom::append(app, &list);
}

fn render_section(app: &Element, article: &Article, index: usize, prose_html: &str) {
    let section = &article.sections[index];
    let crumb = dom::el("p", "breadcrumb");
    dom::append(&crumb, &link(&format!("#/{}", article.slug), article.title, ""));
    dom::append(app, &crumb);
    dom::append(app, &dom::text("h1", "", section.title));
    let prose = dom::el("div", "prose");
    prose.set_inner_html(prose_html);
    dom::append(app, &prose);

    let nav = dom::el("nav", "pager");
    dom::set_attr(&nav, "aria-label", "Seções vizinhas");
    if let Some(prev) = index.checked_sub(1).map(|i| &article.sections[i]) {
        dom::append(&nav, &link(&format!("#/{}", prev.slug), &format!("← {}", prev.title), "prev"));
    }
    if let Some(next) = article.sections.get(index + 1) {
        dom::append(&nav, &link(&format!("#/{}", next.slug), &format!("{} →", next.title), "next"));
    }
    dom::append(app, &nav);
}
