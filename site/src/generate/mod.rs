//! The page generator: renders the page prose in `content/` (Markdown with LaTeX math) to
//! HTML with MathML at build time, and generates the table of contents from the same files:
//! one data source, no math rendering at run time, no CDN. The site's build.rs calls [`run`].
//!
//! Layout: `content/NN-article-slug/_artigo.md` (front matter `titulo`, `resumo`, optionally
//! `destaques`, the widget kinds its card on the home page names, then an introduction),
//! `content/NN-article-slug/NN-section-slug.md` (front matter `titulo`, and optionally
//! `descricao`, the page's meta description) and `content/_inicio.md`, the home page's own text
//! (`titulo`, `resumo` as its lead, `descricao`, and the "comece aqui" path as Markdown whose
//! `#/slug` links are checked like any page's), and `content/NN-slug.md`, the pages of no
//! article (the original articles, the notation), linked from every page's footer. A section
//! of optional depth says so with `aprofundamento:` in its front matter, its result in one
//! paragraph, which then opens the page. Slugs name the pages (`slug.html`) and must be unique
//! across the site.
//!
//! Outputs:
//! - `OUT_DIR/content.rs`, the table of contents compiled into the wasm (`site::ARTICLES`),
//!   `OUT_DIR/shaders/*.wgsl`, the kernels without their comments (what the GPU compiles), and
//!   `OUT_DIR/embed.css`, the embedding rules without comments (the wasm carries them);
//! - `target/site/`, the stylesheet as the pages load it (`main.css`, `served_css`) and as
//!   embedded widgets get it (`embed-css.js`, `css_module`: embed.js imports it), and the
//!   parts of every prerendered page: for each page `NAME` (the home page
//!   `index`, each article and section slug, `catalogo`, `bench`), `NAME.head.html` (title,
//!   meta description, Open Graph), `NAME.toc.html` (the table of contents, this page marked
//!   current) and `NAME.main.html` (the whole `<main>`: heading, prose with MathML, previous
//!   and next page, a placeholder in each widget), and `pages.txt` listing the names. trunk's
//!   post-build hook (scripts/pages.sh) fills the built index.html with them, one `NAME.html`
//!   per page, so every page reads with no JavaScript and before the wasm arrives.
//!
//! Modules: `content` reads the pages, `glossary` the glossary (and links its terms in the
//! pages), `map` the map of the model (`content/_mapa.txt`),
//! `markdown` renders prose, `notation` fails the build on a retired variant of the site's
//! notation, `pages` writes the prerendered parts, `files` does the file chores.

pub mod checkpoints;
pub mod content;
pub mod files;
pub mod glossary;
pub mod map;
pub mod markdown;
pub mod notation;
pub mod pages;

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use content::Site;
use files::write_if_changed;

/// Where the parts of the prerendered pages go, relative to the crate being built: trunk's
/// post_build hook (scripts/pages.sh) assembles the site's pages from them. A fixed place
/// inside the ignored `target/`, not OUT_DIR, because the hook cannot know which OUT_DIR a
/// build used.
pub const SITE_DIR: &str = "target/site";

/// Generates everything for the crate at `crate_dir` (its `content/`, `styles/` and
/// `src/gpu/shaders/`) into `out_dir` (cargo's OUT_DIR) and `crate_dir/target/site/`.
/// A content error panics with its file: the build fails and says where.
pub fn run(crate_dir: &Path, out_dir: &Path) {
    let dir = crate_dir.join(SITE_DIR);
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for sheet in ["main.css", "embed.css"] {
        let path = crate_dir.join("styles").join(sheet);
        let css = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if sheet == "main.css" {
            // The sheet the pages load: scripts/strip-css.sh puts it in place of trunk's copy.
            write_if_changed(&dir.join(sheet), &served_css(&css));
            // The sheet embedded widgets carry, as a module embed.js imports (no copy of it
            // in every wasm build: a page of the site has the sheet already).
            write_if_changed(&dir.join("embed-css.js"), &css_module(&without_css_comments(&for_embedding(&css))));
        } else {
            write_if_changed(&out_dir.join(sheet), &without_css_comments(&css));
        }
    }
    // The kernels as the wasm carries them, without their comments (`wgsl_highlight::without_comments`).
    let shaders = out_dir.join("shaders");
    fs::create_dir_all(&shaders).unwrap_or_else(|e| panic!("{}: {e}", shaders.display()));
    for file in files::sorted_entries(&crate_dir.join("src/gpu/shaders")) {
        if file.extension().is_some_and(|x| x == "wgsl") {
            let source = fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            write_if_changed(&shaders.join(file.file_name().expect("a file")), &crate::wgsl_highlight::without_comments(&source));
        }
    }
    let site = content::read_site(&crate_dir.join("content"), &crate_dir.join("src/gpu/shaders"));
    let map = map::read_map(&crate_dir.join("content/_mapa.txt"), &site);
    if let Err(e) = map.check_in_order(&site.start.html, "content/_inicio.md (comece aqui)") {
        panic!("{e}");
    }
    write_if_changed(&out_dir.join("content.rs"), &contents_table(&site));
    pages::prerender(&site, &map, &dir);
    let pages = site.articles.iter().flat_map(|(a, s)| std::iter::once(a).chain(s)).chain(&site.pages);
    checkpoints::write_data(pages.map(|p| (p.slug.as_str(), p.html.as_str())), &dir);
}

/// The table of contents as Rust source: `ARTICLES`, included by the wasm's `site` module.
pub fn contents_table(site: &Site) -> String {
    let mut out = String::from("// Generated by atencao-site's page generator from content/. Do not edit.\n");
    out.push_str("pub static ARTICLES: &[Article] = &[\n");
    for (article, sections) in &site.articles {
        writeln!(out, "Article {{ slug: {:?}, title: {:?}, summary: {:?}, sections: &[", article.slug, article.title, article.summary).expect("writing to a String");
        for s in sections {
            writeln!(out, "  Section {{ slug: {:?}, title: {:?} }},", s.slug, s.title).expect("writing to a String");
        }
        out.push_str("]},\n");
    }
    out.push_str("];\n");
    out
}

/// The marks around the rules of the site's own pages (header, contents, the map of the model,
/// home page, pager, prose, correction notes, placeholders, catalogue), which an embedded
/// widget never shows.
const PAGE_ONLY: &str = "/* page only";
const END_OF_PAGE_ONLY: &str = "/* end of page only */";

/// `css` as embedded widgets carry it, compiled into the wasm (`web::embed`): without the
/// rules between a `/* page only … */` and its `/* end of page only */`. The site's pages load
/// the whole stylesheet from its file.
pub fn for_embedding(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(start) = rest.find(PAGE_ONLY) {
        out.push_str(&rest[..start]);
        let end = rest[start..].find(END_OF_PAGE_ONLY).unwrap_or_else(|| panic!("styles: a `{PAGE_ONLY}` with no `{END_OF_PAGE_ONLY}`"));
        rest = &rest[start + end + END_OF_PAGE_ONLY.len()..];
    }
    out.push_str(rest);
    out
}

/// `css` as an ES module whose default export is its text (a template literal, escaped), for
/// embed.js: a post's CSP that lets embed.js run lets this run too.
pub fn css_module(css: &str) -> String {
    let text = css.replace('\\', "\\\\").replace('`', "\\`").replace("${", "\\${");
    format!("export default `{text}`;\n")
}

/// The stylesheet as the site's pages load it: every rule, without the comments (the source
/// keeps its explanations; readers do not download them), blank lines and indentation.
pub fn served_css(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    for line in without_css_comments(css).lines().filter(|line| !line.trim().is_empty()) {
        out.push_str(line.trim_start());
        out.push('\n');
    }
    out
}

/// `css` without its `/* … */` comments: the stylesheets compiled into the wasm for embedded
/// widgets (the wasm's `web::embed`) need no explanations (no string in them holds `/*`).
fn without_css_comments(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        rest = rest[start..].find("*/").map_or("", |end| &rest[start + end + 2..]);
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_sheet_is_a_module_whose_text_is_the_sheet() {
        let module = css_module(".a::before { content: \"\\2014 `x` ${y}\"; }");
        assert_eq!(module, "export default `.a::before { content: \"\\\\2014 \\`x\\` \\${y}\"; }`;\n");
    }

    #[test]
    fn embedded_widgets_carry_no_page_only_rules_and_no_comments() {
        let css = "a { x: 1; }\n/* page only: chrome */\n.toc { y: 2; }\n/* end of page only */\n/* note */ b { z: 3; }\n";
        assert_eq!(without_css_comments(&for_embedding(css)), "a { x: 1; }\n\n b { z: 3; }\n");
        let sheet = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../styles/main.css")).expect("the site's stylesheet");
        let embedded = for_embedding(&sheet);
        assert!(!embedded.contains("#toc") && !embedded.contains(".model-map") && !embedded.contains(".site-header"), "page chrome left out");
        assert!(embedded.contains(".widget") && embedded.contains("--accent"), "the widgets' rules and the theme stay");
        // The served sheet keeps every rule, without comments or blank lines.
        assert_eq!(served_css("a { x: 1; }\n\n/* note */\n  /* more */\nb { y: 2; } /* tail */\n@media (x) {\n  c { z: 3; }\n}\n"), "a { x: 1; }\nb { y: 2; } \n@media (x) {\nc { z: 3; }\n}\n");
        let served = served_css(&sheet);
        assert!(served.contains("#toc") && !served.contains("/*") && !served.contains("\n\n"), "the page chrome stays, the comments go");
    }
}
