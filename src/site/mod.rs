//! The site's table of contents and page prose, generated at build time from `content/`
//! by build.rs (Markdown + LaTeX → HTML + MathML). The navigation, the home page and the
//! routes all read this one list. `widgets` documents every widget kind (the catalogue page).

pub mod widgets;

/// One article of the series.
#[derive(Debug)]
pub struct Article {
    pub slug: &'static str,
    pub title: &'static str,
    pub summary: &'static str,
    /// Rendered introduction (our own build-time HTML, never user data).
    pub intro_html: &'static str,
    pub sections: &'static [Section],
}

/// One page: a section of an article, routed at `#/slug`.
#[derive(Debug)]
pub struct Section {
    pub slug: &'static str,
    pub title: &'static str,
    pub html: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/content.rs"));

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
