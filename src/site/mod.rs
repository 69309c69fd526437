//! The site's table of contents, generated at build time from `content/` by build.rs, which
//! also prerenders every page from the same files (Markdown + LaTeX → HTML + MathML, the
//! table of contents, the neighbouring pages): one static file per page, `slug.html`
//! ([`page_href`]), readable before the wasm arrives and with no JavaScript. The wasm reads
//! this list to know the pages (old `#/slug` links, the page-not-found message). `widgets`
//! documents every widget kind (the catalogue page and the widgets' placeholders);
//! `wgsl_highlight` colours WGSL for both.

pub mod widgets;
/// WGSL syntax highlighting, for the kernels quoted in the prose and shown in the "por dentro" panel.
pub mod wgsl_highlight;
/// The colour scales of the heatmaps, and text contrast on them (pure functions, tested natively).
pub mod palette;
/// `W^Q`, `d_k` in plain strings, split for typesetting with `<sup>` and `<sub>`.
pub mod notation;

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

/// The address of page `slug` (an article, a section, the catalogue, the benchmark) relative
/// to the site's root, so the site works under a sub-path: `slug.html`, the home page `./`.
/// build.rs writes the same file names.
pub fn page_href(slug: &str) -> String {
    match slug {
        "" | "inicio" | "index" => "./".to_string(),
        other => format!("{other}.html"),
    }
}

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
