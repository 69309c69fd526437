//! The site's table of contents, generated at build time from `content/` by the page
//! generator (`atencao_site::generate`, run by build.rs), which also prerenders every page from
//! the same files: one static file per page, `slug.html` ([`page_href`]), readable before the
//! wasm arrives and with no JavaScript. The wasm reads this list to know the pages (old
//! `#/slug` links, the page-not-found message). From the `atencao-site` crate, shared with the
//! generator: `widgets` documents every widget kind (name, title, summary, attributes: the
//! catalogue, the headings, the placeholders); `notation` typesets `W^Q`, `d_k`;
//! `wgsl_highlight` colours WGSL for the prose and the "por dentro" panel.

pub use atencao_site::{notation, page_href, wgsl_highlight, widgets};
/// The colour scales of the heatmaps, and text contrast on them (pure functions, tested natively).
pub mod palette;

/// One article of the series.
#[derive(Debug)]
pub struct Article {
    pub slug: &'static str,
    pub title: &'static str,
    pub summary: &'static str,
    pub sections: &'static [Section],
}

/// One page: a section of an article, at `slug.html`.
#[derive(Debug)]
pub struct Section {
    pub slug: &'static str,
    pub title: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/content.rs"));

/// The widget catalogue (`catalogo.html`, formerly `#/catalogo`).
pub const CATALOGUE_SLUG: &str = "catalogo";

/// The benchmark page (`bench.html`, formerly `#/bench`).
pub const BENCH_SLUG: &str = "bench";

/// Where a route leads.
pub enum Route {
    Home,
    /// How fast this browser runs the kernels and the decoder.
    Bench,
    /// Every widget kind, its attributes, a snippet and a live example.
    Catalogue,
    Article(&'static Article),
    Section { article: &'static Article, index: usize },
    NotFound(String),
}

/// Resolves a page name or an old hash route (`#/slug`, `#/`, empty; `index` is the home
/// page's file) to a page.
pub fn resolve(hash: &str) -> Route {
    let slug = hash.trim_start_matches('#').trim_start_matches('/');
    let slug = slug.split(['?', '#']).next().unwrap_or_default();
    if slug.is_empty() || slug == "inicio" || slug == "index" {
        return Route::Home;
    }
    if slug == CATALOGUE_SLUG {
        return Route::Catalogue;
    }
    if slug == BENCH_SLUG {
        return Route::Bench;
    }
    for article in ARTICLES {
        if article.slug == slug {
            return Route::Article(article);
        }
        if let Some(index) = article.sections.iter().position(|s| s.slug == slug) {
            return Route::Section { article, index };
        }
    }
    Route::NotFound(slug.to_string())
}

/// Every section, in reading order, with its article.
pub fn all_sections() -> impl Iterator<Item = (&'static Article, &'static Section)> {
    ARTICLES.iter().flat_map(|a| a.sections.iter().map(move |s| (a, s)))
}
