//! The site's table of contents, generated at build time from `content/` by build.rs. The
//! navigation, the home page and the routes all read this one list. Each page's prose
//! (Markdown + LaTeX → HTML + MathML, also rendered by build.rs) is a file of its own,
//! `prose/<slug>.html` ([`prose_path`]), fetched when the page opens. `widgets` documents
//! every widget kind (the catalogue page); `wgsl_highlight` colours WGSL for both.

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

/// One page: a section of an article, routed at `#/slug`.
#[derive(Debug)]
pub struct Section {
    pub slug: &'static str,
    pub title: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/content.rs"));

/// Where the site serves the prose of page `slug` (an article's introduction or a section),
/// relative to index.html so the site works under a sub-path. Our own build-time HTML.
pub fn prose_path(slug: &str) -> String {
    format!("prose/{slug}.html")
}

/// The route of the widget catalogue (`#/catalogo`).
pub const CATALOGUE_SLUG: &str = "catalogo";

/// The route of the benchmark page (`#/bench`).
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

/// Resolves a hash route (`#/slug`, `#/`, empty) to a page.
pub fn resolve(hash: &str) -> Route {
    let slug = hash.trim_start_matches('#').trim_start_matches('/');
    let slug = slug.split(['?', '#']).next().unwrap_or_default();
    if slug.is_empty() || slug == "inicio" {
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
