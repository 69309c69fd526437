//! The site's words and pages, shared by the build and the wasm: every widget kind's
//! documentation (`widgets`: name, title, summary, attributes), the notation of plain strings
//! (`notation`: `W^Q` → W<sup>Q</sup>), WGSL highlighting (`wgsl_highlight`) and page addresses
//! ([`page_href`]); and, with the feature `generate` (build.rs only), the page generator that
//! prerenders every page from `content/`.

pub mod notation;
pub mod wgsl_highlight;
pub mod widgets;

#[cfg(feature = "generate")]
pub mod generate;

/// The page about the original articles (the five posts this site follows): every correction
/// note links to it, so it must exist.
pub const SOURCES_SLUG: &str = "artigos-originais";

/// The page with the notation table (`generate::notation` holds the variants it retires).
pub const NOTATION_SLUG: &str = "notacao";

/// The address of page `slug` (an article, a section, the catalogue, the benchmark) relative
/// to the site's root, so the site works under a sub-path: `slug.html`, the home page `./`.
pub fn page_href(slug: &str) -> String {
    match slug {
        "" | "inicio" | "index" => "./".to_string(),
        other => format!("{other}.html"),
    }
}

/// `html` without the LaTeX source that its MathML keeps in `<annotation>`, which browsers never
/// show: the glossary's popovers carry their formulas without it, and tests read prose as shown.
/// Not in the wasm, which has no use for it (present there, it cost 0,1 KB gzipped).
#[cfg(any(feature = "generate", not(target_arch = "wasm32")))]
pub fn without_annotations(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(start) = rest.find("<annotation") {
        out.push_str(&rest[..start]);
        rest = rest[start..].find("</annotation>").map_or("", |end| &rest[start + end + "</annotation>".len()..]);
    }
    out.push_str(rest);
    out
}
