//! Renders the page prose in `content/` (Markdown with LaTeX math) to HTML with MathML at
//! build time, and generates the table of contents from the same files: one data source,
//! no math rendering at run time, no CDN.
//!
//! Layout: `content/NN-article-slug/_artigo.md` (front matter `titulo`, `resumo`, optionally
//! `destaques`, the widget kinds its card on the home page names, then an introduction),
//! `content/NN-article-slug/NN-section-slug.md` (front matter `titulo`, and optionally
//! `descricao`, the page's meta description) and `content/_inicio.md`, the home page's own text
//! (`titulo`, `resumo` as its lead, `descricao`, and the "comece aqui" path as Markdown whose
//! `#/slug` links are checked like any page's). Slugs name the pages (`slug.html`) and must be
//! unique across the site.
//!
//! Two outputs:
//! - `OUT_DIR/content.rs`, the table of contents compiled into the wasm (`site::ARTICLES`);
//! - `target/site/`, the parts of every prerendered page (issue 21): for each page `NAME` (the
//!   home page `index`, each article and section slug, `catalogo`, `bench`), `NAME.head.html`
//!   (title, meta description, Open Graph), `NAME.toc.html` (the table of contents, this page
//!   marked current) and `NAME.main.html` (the whole `<main>`: heading, prose with MathML,
//!   previous and next page, a placeholder in each widget), and `pages.txt` listing the names.
//!   trunk's post-build hook (scripts/pages.sh) fills the built index.html with them, one
//!   `NAME.html` per page, so every page reads with no JavaScript and before the wasm arrives.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use pulldown_cmark::{html, CodeBlockKind, CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use pulldown_latex::config::DisplayMode;
use pulldown_latex::{RenderConfig, Storage};

/// The WGSL highlighter of the web layer, shared so quoted kernel code looks the same here.
#[path = "src/site/wgsl_highlight.rs"]
#[allow(dead_code)]
mod wgsl_highlight;

/// Notation in plain strings (`W^Q`, `d_k`), typeset in the catalogue's summaries as the web
/// layer typesets them.
#[path = "src/site/notation.rs"]
#[allow(dead_code)]
mod notation;

/// The widgets' documentation (plain data), for the placeholders of the prerendered pages.
#[path = "src/site/widgets.rs"]
#[allow(dead_code)]
mod widget_docs;

/// What src/site/widgets.rs names from the compute core: `crate::core::widget_input::NumberRange`,
/// a numeric attribute's range (the build script has no atencao-core). Only the widgets'
/// summaries are read here, so a stand-in with the same fields and constructor does; were the
/// core's type to change in a way widgets.rs follows, this would fail to compile, not drift.
mod core {
    pub mod widget_input {
        #[derive(Clone, Copy, Debug)]
        #[allow(dead_code)]
        pub struct NumberRange {
            pub min: f64,
            pub max: f64,
            pub default: f64,
            pub step: f64,
        }

        impl NumberRange {
            pub const fn integer(min: f64, max: f64, default: f64) -> NumberRange {
                NumberRange { min, max, default, step: 1.0 }
            }
        }
    }
}

struct Page {
    slug: String,
    title: String,
    summary: String,
    /// The meta description: front matter `descricao`, else `resumo`, else the opening
    /// sentences of the prose (those without formulas).
    description: String,
    html: String,
    /// Front matter `destaques` of an article (`_artigo.md`): the widget kinds its card on the
    /// home page names first, each of which must appear in the article.
    highlights: Vec<String>,
}

fn main() {
    let root = Path::new("content");
    println!("cargo:rerun-if-changed=content");
    println!("cargo:rerun-if-changed=src/gpu/shaders");
    println!("cargo:rerun-if-changed=src/site/wgsl_highlight.rs");
    println!("cargo:rerun-if-changed=src/site/widgets.rs");
    println!("cargo:rerun-if-changed=src/web/widgets");
    println!("cargo:rerun-if-changed=styles");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    for sheet in ["main.css", "embed.css"] {
        let css = std::fs::read_to_string(Path::new("styles").join(sheet)).unwrap_or_else(|e| panic!("styles/{sheet}: {e}"));
        write_if_changed(&out.join(sheet), &without_css_comments(&css));
    }
    let mut articles = Vec::new();
    let mut slugs = BTreeSet::new();
    let mut links = Vec::new();
    for dir in sorted_entries(root).into_iter().filter(|p| p.is_dir()) {
        let article = read_page(&dir.join("_artigo.md"), strip_order(&dir), &mut links);
        let mut sections = Vec::new();
        for file in sorted_entries(&dir) {
            let name = file.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            if !name.ends_with(".md") || name.starts_with('_') {
                continue;
            }
            let section = read_page(&file, strip_order(&file), &mut links);
            if !slugs.insert(section.slug.clone()) {
                panic!("{}: the slug `{}` is used twice", file.display(), section.slug);
            }
            sections.push(section);
        }
        if !slugs.insert(article.slug.clone()) {
            panic!("{}: the slug `{}` is used twice", dir.display(), article.slug);
        }
        articles.push((article, sections));
    }
    for reserved in RESERVED_ROUTES {
        if slugs.contains(*reserved) {
            panic!("content/: the slug `{reserved}` is the name of a page the site draws itself");
        }
    }
    // The home page's own text (lead, description, the "comece aqui" path): content/_inicio.md.
    let start = read_page(&root.join("_inicio.md"), "index".to_string(), &mut links);
    for (file, target) in links {
        if !target.is_empty() && !slugs.contains(&target) && !RESERVED_ROUTES.contains(&target.as_str()) {
            panic!("{file}: link to `#/{target}`, which no page has");
        }
    }

    // The table of contents goes into the wasm; the pages, prerendered, into target/site/.
    let mut out = String::from("// Generated by build.rs from content/. Do not edit.\n");
    out.push_str("pub static ARTICLES: &[Article] = &[\n");
    for (article, sections) in &articles {
        writeln!(out, "Article {{ slug: {:?}, title: {:?}, summary: {:?}, sections: &[", article.slug, article.title, article.summary).unwrap();
        for s in sections {
            writeln!(out, "  Section {{ slug: {:?}, title: {:?} }},", s.slug, s.title).unwrap();
        }
        out.push_str("]},\n");
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("content.rs");
    fs::write(dest, out).expect("write content.rs");
    prerender(&articles, &start);
}

/// Where the parts of the prerendered pages go, relative to the crate: trunk's post_build hook
/// (scripts/pages.sh) assembles the site's pages from them. A fixed place inside the ignored
/// `target/`, not OUT_DIR, because the hook cannot know which OUT_DIR a build used.
const SITE_DIR: &str = "target/site";

/// `css` without its `/* … */` comments: the stylesheets compiled into the wasm for embedded
/// widgets (src/web/embed.rs) need no explanations (no string in them holds `/*`).
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

/// Native and wasm builds write the same files, maybe at once: only rewrite what changed.
fn write_if_changed(path: &Path, text: &str) {
    if fs::read_to_string(path).ok().as_deref() != Some(text) {
        fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

/// Pages the site draws itself (src/site/mod.rs), which content may link to: the home page
/// (`#/inicio`), the widget catalogue, the benchmark. No slug may take their names, nor
/// `index` (the home page's file).
const RESERVED_ROUTES: &[&str] = &["inicio", "catalogo", "bench", "index"];

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable directory entry").path())
        .collect();
    entries.sort();
    entries
}

/// `03-tf-idf.md` → `tf-idf`.
fn strip_order(path: &Path) -> String {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let slug = stem.split_once('-').map_or(stem, |(order, rest)| {
        if order.chars().all(|c| c.is_ascii_digit()) { rest } else { stem }
    });
    assert!(
        !slug.is_empty() && slug.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
        "{}: slugs are lowercase ASCII letters, digits and hyphens",
        path.display()
    );
    slug.to_string()
}

fn read_page(path: &Path, slug: String, links: &mut Vec<(String, String)>) -> Page {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (front, body) = split_front_matter(&text).unwrap_or_else(|| panic!("{}: missing --- front matter ---", path.display()));
    let field = |key: &str| {
        front
            .lines()
            .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(':')).map(|v| v.trim().to_string()))
    };
    let title = field("titulo").unwrap_or_else(|| panic!("{}: front matter needs `titulo:`", path.display()));
    let summary = field("resumo").unwrap_or_default();
    let description = field("descricao")
        .or_else(|| Some(summary.clone()).filter(|s| !s.is_empty()))
        .unwrap_or_else(|| opening_sentences(body));
    if description.is_empty() {
        panic!("{}: no description: give the page a `descricao:` in its front matter", path.display());
    }
    let html = render_markdown(body, &path.display().to_string(), links);
    let highlights = field("destaques")
        .map(|list| list.split(',').map(|k| k.trim().to_string()).filter(|k| !k.is_empty()).collect())
        .unwrap_or_default();
    Page { slug, title, summary, description, html, highlights }
}

/// How long a meta description from the prose gets (search engines show about 155 characters).
const DESCRIPTION_MIN: usize = 60;
const DESCRIPTION_TARGET: usize = 110;
const DESCRIPTION_MAX: usize = 200;

/// The page's opening as plain text, for its meta description: the first run of whole
/// sentences (ending in `.`, `?` or `!`) of one top-level paragraph with no formula in them
/// (LaTeX reads badly as text) that is at least `DESCRIPTION_MIN` characters long, up to about
/// `DESCRIPTION_TARGET`. Empty if the page has none (build.rs then asks for a `descricao:`).
fn opening_sentences(body: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_MATH | Options::ENABLE_STRIKETHROUGH;
    // The sentences of each top-level paragraph, and whether a formula is in each.
    let mut paragraphs: Vec<Vec<(String, bool)>> = Vec::new();
    let mut depth = 0usize;
    let mut in_paragraph = false;
    let mut current = String::new();
    let mut has_math = false;
    let flush = |current: &mut String, has_math: &mut bool, paragraphs: &mut Vec<Vec<(String, bool)>>| {
        let text = current.split_whitespace().collect::<Vec<_>>().join(" ");
        if !text.is_empty() {
            if let Some(last) = paragraphs.last_mut() {
                last.push((text, *has_math));
            }
        }
        current.clear();
        *has_math = false;
    };
    for event in Parser::new_ext(body, options) {
        match event {
            Event::Start(Tag::Paragraph) if depth == 0 => {
                in_paragraph = true;
                paragraphs.push(Vec::new());
            }
            Event::End(TagEnd::Paragraph) if in_paragraph => {
                in_paragraph = false;
                flush(&mut current, &mut has_math, &mut paragraphs);
            }
            Event::Start(Tag::BlockQuote(_) | Tag::List(_) | Tag::Table(_) | Tag::HtmlBlock) => depth += 1,
            Event::End(TagEnd::BlockQuote(_) | TagEnd::List(_) | TagEnd::Table | TagEnd::HtmlBlock) => depth = depth.saturating_sub(1),
            Event::Text(text) | Event::Code(text) if in_paragraph => {
                // A sentence ends at ". ", "? " or "! " (the split keeps the mark).
                let mut rest: &str = &text;
                while let Some(end) = [". ", "? ", "! "].iter().filter_map(|m| rest.find(m)).min() {
                    current.push_str(&rest[..=end]);
                    flush(&mut current, &mut has_math, &mut paragraphs);
                    rest = &rest[end + 2..];
                }
                current.push_str(rest);
            }
            Event::SoftBreak | Event::HardBreak if in_paragraph => current.push(' '),
            Event::InlineMath(_) | Event::DisplayMath(_) if in_paragraph => has_math = true,
            _ => {}
        }
    }
    let length = |run: &[String]| run.iter().map(|s| s.chars().count() + 1).sum::<usize>();
    for paragraph in paragraphs {
        let mut run: Vec<String> = Vec::new();
        for (sentence, math) in paragraph {
            let whole = sentence.ends_with(['.', '?', '!']) || sentence.ends_with(".\"") || sentence.ends_with(".»");
            if math || !whole {
                if length(&run) >= DESCRIPTION_MIN {
                    break;
                }
                run.clear();
                continue;
            }
            if !run.is_empty() && length(&run) + sentence.chars().count() > DESCRIPTION_MAX {
                break;
            }
            run.push(sentence);
            if length(&run) >= DESCRIPTION_TARGET {
                break;
            }
        }
        if length(&run) >= DESCRIPTION_MIN {
            let description = run.join(" ");
            if description.chars().count() <= DESCRIPTION_MAX {
                return description;
            }
            let cut: String = description.chars().take(DESCRIPTION_MAX - 1).collect();
            return format!("{}…", cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head).trim_end_matches([',', ';', ':']));
        }
    }
    String::new()
}

fn split_front_matter(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix("---")?.trim_start_matches(['\r', '\n']);
    let end = rest.find("\n---")?;
    let body = &rest[end + 4..];
    Some((&rest[..end], body.trim_start_matches(['\r', '\n'])))
}

fn render_markdown(body: &str, file: &str, links: &mut Vec<(String, String)>) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_MATH | Options::ENABLE_STRIKETHROUGH;
    let mut events: Vec<Event> = Vec::new();
    // Text of a ```wgsl block being read, until its end.
    let mut wgsl: Option<String> = None;
    // Heading levels as the page shows them: under the page's <h1>, none skips a level (a
    // page whose sections open with `###` gets <h2>), so the outline reads right to assistive
    // technology. `outline` holds the enclosing headings: (level written, level shown).
    let mut outline: Vec<(usize, usize)> = Vec::new();
    let mut shown = HeadingLevel::H2;
    for event in Parser::new_ext(body, options) {
        match event {
            Event::Start(Tag::Heading { level, id, classes, attrs }) => {
                let written = level as usize;
                while outline.last().is_some_and(|&(w, _)| w >= written) {
                    outline.pop();
                }
                let level_shown = (outline.last().map_or(1, |&(_, s)| s) + 1).min(6);
                outline.push((written, level_shown));
                shown = HeadingLevel::try_from(level_shown).expect("a level from 2 to 6");
                events.push(Event::Start(Tag::Heading { level: shown, id, classes, attrs }));
            }
            Event::End(TagEnd::Heading(_)) => events.push(Event::End(TagEnd::Heading(shown))),
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(ref info))) if info.trim() == "wgsl" => wgsl = Some(String::new()),
            Event::Text(ref text) if wgsl.is_some() => wgsl.as_mut().expect("inside a wgsl block").push_str(text),
            Event::End(TagEnd::CodeBlock) if wgsl.is_some() => {
                let code = wgsl.take().expect("inside a wgsl block");
                events.push(Event::Html(CowStr::from(render_wgsl_excerpt(&code, file))));
            }
            Event::InlineMath(tex) => events.push(Event::InlineHtml(CowStr::from(render_math(&tex, false, file)))),
            Event::DisplayMath(tex) => events.push(Event::Html(CowStr::from(render_math(&tex, true, file)))),
            Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
                // Content links to pages as `#/slug` (`#/decodificador?preset=chaves`): checked
                // here, and written as the page's file, relative (`decodificador.html?preset=chaves`).
                let dest_url = match dest_url.strip_prefix("#/") {
                    Some(route) => {
                        let (page, query) = route.split_once('?').map_or((route, None), |(p, q)| (p, Some(q)));
                        links.push((file.to_string(), page.to_string()));
                        CowStr::from(format!("{}{}", page_href(page), query.map(|q| format!("?{q}")).unwrap_or_default()))
                    }
                    None => dest_url,
                };
                events.push(Event::Start(Tag::Link { link_type, dest_url, title, id }));
            }
            Event::Html(html) if html.contains("data-widget") => events.push(Event::Html(CowStr::from(with_placeholders(&html, file)))),
            other => events.push(other),
        }
    }
    glue_punctuation(&mut events);
    let corrections = fold_corrections(&mut events, file);
    let mut out = String::new();
    if corrections > 0 {
        let (points, notes) = if corrections == 1 { ("ponto", "nota recolhida") } else { ("pontos", "notas recolhidas") };
        writeln!(
            out,
            "<p class=\"correcoes-contagem\" data-correcoes=\"{corrections}\">Esta página corrige {corrections} {points} do artigo original ({notes} abaixo).</p>"
        )
        .expect("writing to a String");
    }
    html::push_html(&mut out, events.into_iter());
    out
}

/// The marker that opens a correction note: `> **Correção:** gist` as the first paragraph of a
/// blockquote, then one or more paragraphs saying what the article prints, the right value and why.
const CORRECTION_MARK: &str = "Correção:";

/// Turns each correction blockquote into a note collapsed by default,
/// `<details class="correcao"><summary>Correção ao artigo: gist</summary>body</details>`, and
/// returns how many the page has. The notes correct an article the reader may never have read,
/// so the page's own prose states the right values and the note only explains the difference:
/// collapsed, it stays out of the way. (`correcao`, not `correction`: widgets draw their own
/// `.correction` elements.)
fn fold_corrections(events: &mut Vec<Event>, file: &str) -> usize {
    let mut count = 0;
    let mut i = 0;
    while i < events.len() {
        let opens_note = matches!(events[i], Event::Start(Tag::BlockQuote(_)))
            && matches!(events.get(i + 1), Some(Event::Start(Tag::Paragraph)))
            && matches!(events.get(i + 2), Some(Event::Start(Tag::Strong)))
            && matches!(events.get(i + 3), Some(Event::Text(t)) if t.trim() == CORRECTION_MARK)
            && matches!(events.get(i + 4), Some(Event::End(TagEnd::Strong)));
        if !opens_note {
            i += 1;
            continue;
        }
        count += 1;
        // The matching end of this blockquote (notes hold no nested blockquotes, but count anyway).
        let mut depth = 0;
        let end = (i..events.len())
            .find(|&j| {
                match events[j] {
                    Event::Start(Tag::BlockQuote(_)) => depth += 1,
                    Event::End(TagEnd::BlockQuote(_)) => depth -= 1,
                    _ => {}
                }
                depth == 0
            })
            .unwrap_or_else(|| panic!("{file}: a correction note that never ends"));
        // The first paragraph, after the mark, is the gist shown in the summary.
        let gist_end = (i + 5..end)
            .find(|&j| matches!(events[j], Event::End(TagEnd::Paragraph)))
            .unwrap_or_else(|| panic!("{file}: correction note #{count} has no first paragraph"));
        let gist_is_empty = events[i + 5..gist_end].iter().all(|e| matches!(e, Event::Text(t) if t.trim().is_empty()) || matches!(e, Event::SoftBreak));
        let has_body = events[gist_end + 1..end].iter().any(|e| matches!(e, Event::Start(Tag::Paragraph)));
        if gist_is_empty || !has_body {
            panic!(
                "{file}: correction note #{count} needs a gist and a body: `> **Correção:** gist` on its first line, \
                 then `>` and the paragraph saying what the article prints, the right value and why"
            );
        }
        if let Event::Text(text) = &events[i + 5] {
            events[i + 5] = Event::Text(CowStr::from(text.trim_start().to_string()));
        }
        events[end] = Event::Html(CowStr::from("</details>\n"));
        events[gist_end] = Event::Html(CowStr::from("</summary>\n"));
        events.splice(
            i..i + 5,
            [Event::Html(CowStr::from(
                "<details class=\"correcao\">\n<summary><span class=\"correcao-rotulo\">Correção ao artigo:</span> ",
            ))],
        );
        i += 1;
    }
    count
}

/// A ```wgsl block quotes a kernel: it must be a verbatim excerpt of a file in
/// src/gpu/shaders/ (so the prose cannot drift from the code the GPU runs), and is
/// highlighted like the "por dentro" panels.
fn render_wgsl_excerpt(code: &str, file: &str) -> String {
    let excerpt = code.trim_end_matches('\n');
    let kernel = sorted_entries(Path::new("src/gpu/shaders"))
        .into_iter()
        .find(|path| fs::read_to_string(path).is_ok_and(|source| source.contains(excerpt)))
        .unwrap_or_else(|| panic!("{file}: this ```wgsl block is not a verbatim excerpt of any file in src/gpu/shaders/:\n{excerpt}"));
    let name = kernel.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let mut html = format!("<pre class=\"wgsl\" data-excerpt-of=\"{name}\"><code>");
    for (class, piece) in wgsl_highlight::highlight(excerpt) {
        let escaped = piece.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
        match class.css() {
            Some(css) => write!(html, "<span class=\"{css}\">{escaped}</span>").expect("writing to a String"),
            None => html.push_str(&escaped),
        }
    }
    html.push_str("</code></pre>\n");
    html
}

/// A comma between two digits is a decimal comma: written `{,}` here, the one place it still
/// differs from a list comma (the parser drops the space of "1, 0"), so that `render_math` can
/// write the number as one `<mn>` (`SPLIT_DECIMAL`). Indices such as `A_{1,2}` come out tight
/// too, which suits them.
fn decimal_commas(tex: &str) -> String {
    let chars: Vec<char> = tex.chars().collect();
    let mut out = String::with_capacity(tex.len());
    for (i, &c) in chars.iter().enumerate() {
        let between_digits = c == ',' && i > 0 && chars[i - 1].is_ascii_digit() && chars.get(i + 1).is_some_and(char::is_ascii_digit);
        if between_digits {
            out.push_str("{,}");
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` as HTML with its notation typeset (`W^Q` as W<sup>Q</sup>), each piece escaped.
fn typeset(text: &str) -> String {
    use notation::Piece;
    notation::pieces(text)
        .into_iter()
        .map(|piece| match piece {
            Piece::Text(t) => esc(t),
            Piece::Sup(t) => format!("<sup>{}</sup>", esc(t)),
            Piece::Sub(t) => format!("<sub>{}</sub>", esc(t)),
        })
        .collect()
}

/// The MathML of a decimal comma (`0{,}5` gives `<mn>0</mn><mrow><mo>,</mo></mrow><mn>5</mn>`):
/// browsers space an operator even inside its own `<mrow>`, so "0,5" read like the list "0, 5".
const SPLIT_DECIMAL: &str = "</mn><mrow><mo>,</mo></mrow><mn>";

/// LaTeX → MathML; a formula that does not parse fails the build with its file and source. A
/// decimal number comes out as one `<mn>` ("0,5119"), as MathML writes a number.
fn render_math(tex: &str, display: bool, file: &str) -> String {
    let tex = &decimal_commas(tex);
    let storage = Storage::new();
    let events: Vec<_> = pulldown_latex::Parser::new(tex, &storage).collect();
    if let Some(Err(error)) = events.iter().find(|e| e.is_err()) {
        panic!("{file}: LaTeX error in `{tex}`: {error}");
    }
    let config = RenderConfig {
        display_mode: if display { DisplayMode::Block } else { DisplayMode::Inline },
        annotation: Some(tex),
        ..Default::default()
    };
    let mut mathml = String::new();
    pulldown_latex::push_mathml(&mut mathml, events.into_iter(), config).expect("writing to a String");
    mathml.replace(SPLIT_DECIMAL, ",")
}

/// Punctuation that belongs to the formula before it: a line may not start with it.
fn closes_formula(c: char) -> bool {
    matches!(c, '.' | ',' | ';' | ':' | '!' | '?' | ')' | ']' | '»' | '”' | '…')
}

/// A formula and the punctuation right after it ("… = 0." or "$x$,") go in one
/// `<span class="nw">` that does not wrap: browsers may break a line after an inline formula, so
/// the full stop would otherwise start the next line.
fn glue_punctuation(events: &mut Vec<Event>) {
    let mut i = 0;
    while i + 1 < events.len() {
        if let (Event::InlineHtml(math), Event::Text(text)) = (&events[i], &events[i + 1]) {
            let punctuation: String = text.chars().take_while(|&c| closes_formula(c)).collect();
            if math.starts_with("<math") && !punctuation.is_empty() {
                let rest = text[punctuation.len()..].to_string();
                events[i] = Event::InlineHtml(CowStr::from(format!("<span class=\"nw\">{math}{}</span>", esc(&punctuation))));
                events[i + 1] = Event::Text(CowStr::from(rest));
            }
        }
        i += 1;
    }
}

/// The relative address of page `slug` in the built site: `slug.html`, the home page `./`.
fn page_href(slug: &str) -> String {
    match slug {
        "" | "inicio" | "index" => "./".to_string(),
        other => format!("{other}.html"),
    }
}

/// Text or an attribute value as HTML.
fn esc(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Puts a placeholder in every empty widget element of an HTML block of the content
/// (`<div data-widget="bow"></div>`): one line saying what the widget will show (its summary in
/// `site::widgets`), read with no JavaScript and until the wasm mounts it (src/web/pages.rs takes
/// it out). An element the author filled with a fallback of their own keeps it; a kind with no
/// documentation fails the build.
fn with_placeholders(html: &str, file: &str) -> String {
    const OPEN: &str = "<div data-widget=\"";
    let mut out = String::with_capacity(html.len() + 256);
    let mut rest = html;
    while let Some(start) = rest.find(OPEN) {
        let Some(tag_end) = rest[start..].find('>').map(|i| start + i + 1) else { break };
        out.push_str(&rest[..tag_end]);
        let kind = rest[start + OPEN.len()..].split('"').next().unwrap_or_default();
        let doc = widget_docs::doc(kind).unwrap_or_else(|| panic!("{file}: no widget «{kind}» is documented in src/site/widgets.rs"));
        rest = &rest[tag_end..];
        if rest.starts_with("</div>") {
            write!(
                out,
                "<p class=\"widget-placeholder\"><strong class=\"widget-placeholder-label\">Exemplo interativo.</strong> {}</p>",
                typeset(doc.summary)
            )
            .expect("writing to a String");
        }
    }
    out.push_str(rest);
    out
}

/// One page of the built site, as `prerender` writes it.
struct Prerendered {
    /// File name without `.html` (`index` for the home page), also `<main data-page>`.
    name: String,
    title: String,
    description: String,
    og_type: &'static str,
    main: String,
}

/// Writes the parts of every page into `SITE_DIR` (see the module's documentation).
fn prerender(articles: &[(Page, Vec<Page>)], start: &Page) {
    let dir = Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join(SITE_DIR);
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    // Reading order: each article's introduction, then its sections.
    let order: Vec<(&Page, Option<&Page>)> = articles
        .iter()
        .flat_map(|(article, sections)| std::iter::once((article, None)).chain(sections.iter().map(move |s| (s, Some(article)))))
        .collect();
    let mut pages = vec![home(articles, start)];
    for (i, (page, article)) in order.iter().enumerate() {
        let mut main = String::new();
        if let Some(article) = article {
            writeln!(main, "<p class=\"breadcrumb\"><a href=\"{}\">{}</a></p>", page_href(&article.slug), esc(&article.title)).unwrap();
        }
        writeln!(main, "<h1>{}</h1>\n<div class=\"prose\">\n{}</div>", esc(&page.title), page.html).unwrap();
        if article.is_none() {
            // An article's introduction lists its sections.
            let (_, sections) = articles.iter().find(|(a, _)| a.slug == page.slug).expect("an article of the list");
            main.push_str("<ol class=\"section-list\">\n");
            for s in sections {
                writeln!(main, "<li><a href=\"{}\">{}</a></li>", page_href(&s.slug), esc(&s.title)).unwrap();
            }
            main.push_str("</ol>\n");
        }
        // The previous and next pages in reading order, across articles.
        main.push_str("<nav class=\"pager\" aria-label=\"Páginas vizinhas\">");
        if let Some((prev, _)) = i.checked_sub(1).map(|j| order[j]) {
            write!(main, "<a class=\"prev\" rel=\"prev\" href=\"{}\">← {}</a>", page_href(&prev.slug), esc(&prev.title)).unwrap();
        }
        if let Some((next, _)) = order.get(i + 1) {
            write!(main, "<a class=\"next\" rel=\"next\" href=\"{}\">{} →</a>", page_href(&next.slug), esc(&next.title)).unwrap();
        }
        main.push_str("</nav>\n");
        pages.push(Prerendered {
            name: page.slug.clone(),
            title: page.title.clone(),
            description: page.description.clone(),
            og_type: "article",
            main,
        });
    }
    pages.push(Prerendered {
        name: "catalogo".into(),
        title: "Catálogo de widgets".into(),
        description: "Cada widget do tutorial, com os atributos que aceita, o trecho de HTML para colar num blog e um exemplo vivo.".into(),
        og_type: "website",
        main: catalogue_main(),
    });
    pages.push(Prerendered {
        name: "bench".into(),
        title: "Desempenho neste navegador".into(),
        description: "Quanto tempo cada kernel do núcleo de cálculo e o decodificador pré-treinado levam neste navegador, na GPU (WebGPU) ou na CPU.".into(),
        og_type: "website",
        main: format!(
            "<h1>Desempenho neste navegador</h1>\n<p class=\"lead\">Cada kernel do núcleo de cálculo roda aqui, no backend ativo, em tamanhos que o site usa; \
             depois, o decodificador pré-treinado lê um texto e gera tokens.</p>\n{}",
            NEEDS_WASM
        ),
    });

    let mut names = String::new();
    for page in &pages {
        let head = head(page);
        let main = format!("<main id=\"app\" data-site data-page=\"{}\" tabindex=\"-1\">\n{}</main>\n", page.name, page.main);
        let toc = toc_items(articles, &page.name);
        write_if_changed(&dir.join(format!("{}.head.html", page.name)), &head);
        write_if_changed(&dir.join(format!("{}.toc.html", page.name)), &format!("<nav id=\"toc\" aria-label=\"Sumário\">\n{toc}</nav>\n"));
        write_if_changed(&dir.join(format!("{}.main.html", page.name)), &main);
        names.push_str(&page.name);
        names.push('\n');
    }
    write_if_changed(&dir.join("pages.txt"), &names);
}

/// What a page drawn by the wasm says until (or unless) it arrives.
const NEEDS_WASM: &str = "<p class=\"muted page-loading\">Esta página é desenhada pelo WebAssembly do site: ela aparece aqui assim que ele carregar \
                          (precisa de JavaScript).</p>\n";

/// The table of contents: every article and its sections, the page `current` marked
/// (`aria-current`). Each article's sections fold under a native `<details>` (issue 22), open on
/// the pages of the current article and closed elsewhere, so the contents stay short and fold
/// without JavaScript; the article's own link stays outside the fold, always in view. The
/// summary is the fold's button (a chevron drawn by the stylesheet, named for screen readers).
/// static/site.js marks the pages already read.
fn toc_items(articles: &[(Page, Vec<Page>)], current: &str) -> String {
    let link = |slug: &str, class: &str, title: &str| {
        let class = if class.is_empty() { String::new() } else { format!(" class=\"{class}\"") };
        let mark = if slug == current { " aria-current=\"page\"" } else { "" };
        format!("<a{class} href=\"{}\"{mark}>{}</a>", page_href(slug), esc(title))
    };
    let mut toc = String::from("<ol class=\"toc-articles\">\n");
    for (article, sections) in articles {
        let open = article.slug == current || sections.iter().any(|s| s.slug == current);
        write!(
            toc,
            "<li class=\"toc-group\">{}\n<details{}><summary><span class=\"visually-hidden\">Seções de {}</span></summary>\n<ol class=\"toc-sections\">\n",
            link(&article.slug, "toc-article", &article.title),
            if open { " open" } else { "" },
            esc(&article.title)
        )
        .unwrap();
        for s in sections {
            writeln!(toc, "<li>{}</li>", link(&s.slug, "", &s.title)).unwrap();
        }
        toc.push_str("</ol></details></li>\n");
    }
    toc.push_str("</ol>\n");
    toc
}

/// The title each widget kind shows (`WidgetKind { name: "…", title: "…", … }` in
/// src/web/widgets/), read from the source: the build script does not link the wasm layer.
fn widget_titles() -> Vec<(String, String)> {
    const OPEN: &str = "WidgetKind { name: \"";
    let mut titles = Vec::new();
    let mut dirs = vec![PathBuf::from("src/web/widgets")];
    while let Some(dir) = dirs.pop() {
        for path in sorted_entries(&dir) {
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let source = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            for piece in source.split(OPEN).skip(1) {
                let Some((name, rest)) = piece.split_once('"') else { continue };
                let Some(title) = rest.strip_prefix(", title: \"").and_then(|t| t.split_once('"')).map(|(t, _)| t) else { continue };
                titles.push((name.to_string(), title.to_string()));
            }
        }
    }
    titles
}

/// The widget kinds of an HTML block, in order, each once.
fn widget_kinds(html: &str) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    for piece in html.split("data-widget=\"").skip(1) {
        let kind = piece.split('"').next().unwrap_or_default().to_string();
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    kinds
}

/// How many widgets an article's home card names.
const CARD_WIDGETS: usize = 3;

/// The home page (issue 22): a live widget at the top, mounted on demand; the "comece aqui"
/// path (content/_inicio.md); the five articles as a map of what each teaches, one card each
/// from the articles' front matter (`resumo`, `destaques`) and their pages (sections, widgets).
fn home(articles: &[(Page, Vec<Page>)], start: &Page) -> Prerendered {
    let mut main = format!("<h1>{}</h1>\n<p class=\"lead\">{}</p>\n", esc(&start.title), esc(&start.summary));

    // The widget at the top. Compiling the wasm during the load would cost the home page its
    // speed (issue 21's targets), so this one waits for the reader: its placeholder is a static
    // preview with a button (static/site.js mounts it on the click, or at once when the address
    // carries its saved state).
    assert!(widget_docs::doc("attention").is_some(), "the attention widget is documented");
    let formula = render_math(r"\operatorname{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V", true, "build.rs (home)");
    write!(
        main,
        "<section class=\"home-try\" aria-labelledby=\"experimente\">\n<h2 id=\"experimente\">Experimente: a atenção, calculada aqui</h2>\n\
         <p>Três palavras e três matrizes de pesos: mude qualquer número e veja os escores, os pesos do softmax e a saída \
         serem recalculados no seu navegador. Cada passo é explicado na página <a href=\"{qkv}\">{qkv_title}</a>.</p>\n\
         <div data-widget=\"attention\" data-on-demand><div class=\"widget-placeholder on-demand\">\
         <p><strong class=\"widget-placeholder-label\">Exemplo interativo.</strong> A autoatenção inteira, com os números do \
         Exemplo 2 do livro-texto: X, W<sup>Q</sup>, W<sup>K</sup> e W<sup>V</sup> editáveis; Q, K, V, os escores, os pesos e a saída.</p>\n{formula}\
         <button type=\"button\" class=\"btn on-demand-start\">experimentar aqui</button></div></div>\n</section>\n",
        qkv = page_href("queries-keys-values"),
        qkv_title = esc(&title_of(articles, "queries-keys-values")),
    )
    .unwrap();

    // Comece aqui: the path, written in content/_inicio.md (its links checked like any page's).
    writeln!(main, "<section class=\"start-path\" aria-labelledby=\"comece-aqui\">\n{}</section>", start.html.replacen("<h2>", "<h2 id=\"comece-aqui\">", 1)).unwrap();

    // The map of the series.
    let titles = widget_titles();
    main.push_str("<section class=\"series-map\" aria-labelledby=\"os-artigos\">\n<h2 id=\"os-artigos\">Os cinco artigos</h2>\n<p>O que cada artigo ensina e o que dá para experimentar nele.</p>\n<div class=\"cards\">\n");
    for (n, (article, sections)) in articles.iter().enumerate() {
        // Each widget kind of the article with the first page that has it.
        let mut kinds: Vec<(String, &Page)> = Vec::new();
        let mut widgets = 0;
        for page in std::iter::once(article).chain(sections) {
            widgets += page.html.matches("data-widget=\"").count();
            for kind in widget_kinds(&page.html) {
                if !kinds.iter().any(|(k, _)| *k == kind) {
                    kinds.push((kind, page));
                }
            }
        }
        let mut shown: Vec<&(String, &Page)> = Vec::new();
        for kind in &article.highlights {
            let found = kinds
                .iter()
                .find(|(k, _)| k == kind)
                .unwrap_or_else(|| panic!("content/…/_artigo.md of «{}»: `destaques` names «{kind}», which no page of the article has", article.slug));
            shown.push(found);
        }
        for found in &kinds {
            if shown.len() >= CARD_WIDGETS {
                break;
            }
            if !shown.iter().any(|(k, _)| *k == found.0) {
                shown.push(found);
            }
        }
        write!(
            main,
            "<article class=\"card\" data-article=\"{slug}\">\n<p class=\"card-kicker\">Artigo {n} · {sections} seções · {widgets} exemplos interativos</p>\n\
             <h3><a href=\"{href}\">{title}</a></h3>\n<p>{summary}</p>\n",
            slug = article.slug,
            n = n + 1,
            sections = sections.len(),
            href = page_href(&article.slug),
            title = esc(&article.title),
            summary = esc(&article.summary),
        )
        .unwrap();
        if !shown.is_empty() {
            main.push_str("<p class=\"card-widgets-label\">Para experimentar:</p>\n<ul class=\"card-widgets\">\n");
            for (kind, page) in shown {
                let title = titles
                    .iter()
                    .find(|(k, _)| k == kind)
                    .map(|(_, t)| t.as_str())
                    .unwrap_or_else(|| panic!("src/web/widgets: no `WidgetKind {{ name: \"{kind}\", title: … }}`"));
                writeln!(main, "<li><a href=\"{}\" data-widget-kind=\"{kind}\">{}</a></li>", page_href(&page.slug), esc(title)).unwrap();
            }
            main.push_str("</ul>\n");
        }
        main.push_str("</article>\n");
    }
    main.push_str("</div>\n</section>\n<p class=\"muted\">Todos os widgets também funcionam no seu blog: veja o <a href=\"catalogo.html\">catálogo de widgets</a>.</p>\n");
    Prerendered {
        name: "index".into(),
        title: "Transformers passo a passo".into(),
        description: start.description.clone(),
        og_type: "website",
        main,
    }
}

/// The title of page `slug` (an article or a section).
fn title_of(articles: &[(Page, Vec<Page>)], slug: &str) -> String {
    articles
        .iter()
        .flat_map(|(a, s)| std::iter::once(a).chain(s))
        .find(|p| p.slug == slug)
        .map(|p| p.title.clone())
        .unwrap_or_else(|| panic!("build.rs: no page «{slug}»"))
}

/// The catalogue as text (what each widget shows); the wasm replaces it with the live catalogue.
fn catalogue_main() -> String {
    let mut main = String::from(
        "<h1>Catálogo de widgets</h1>\n<p class=\"lead\">Cada widget deste tutorial funciona em qualquer página, por exemplo num post de blog: \
         carregue o script uma vez e ponha um elemento com data-widget onde quiser que o widget apareça.</p>\n",
    );
    main.push_str(NEEDS_WASM);
    main.push_str("<ul class=\"catalogue-summary\">\n");
    for doc in widget_docs::WIDGETS {
        writeln!(main, "<li><code>{}</code>: {}</li>", esc(doc.name), typeset(doc.summary)).unwrap();
    }
    main.push_str("</ul>\n");
    main
}

/// The page's `<title>`, meta description and Open Graph tags (no og:url or og:image: they
/// must be absolute, and the site does not know where it is published).
fn head(page: &Prerendered) -> String {
    let title = if page.name == "index" { format!("atenção · {}", page.title) } else { format!("{} · atenção", page.title) };
    let (title, og_title, description) = (esc(&title), esc(&page.title), esc(&page.description));
    format!(
        "    <title>{title}</title>\n\
         \x20   <meta name=\"description\" content=\"{description}\" />\n\
         \x20   <meta property=\"og:type\" content=\"{}\" />\n\
         \x20   <meta property=\"og:site_name\" content=\"atenção\" />\n\
         \x20   <meta property=\"og:locale\" content=\"pt_BR\" />\n\
         \x20   <meta property=\"og:title\" content=\"{og_title}\" />\n\
         \x20   <meta property=\"og:description\" content=\"{description}\" />\n\
         \x20   <meta name=\"twitter:card\" content=\"summary\" />\n",
        page.og_type
    )
}
