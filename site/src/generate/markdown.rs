//! Markdown with LaTeX → HTML with MathML: the prose of every page, at build time, so the
//! site needs no math rendering at run time and no CDN.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use pulldown_cmark::{html, CodeBlockKind, CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use pulldown_latex::config::DisplayMode;
use pulldown_latex::{RenderConfig, Storage};

use super::files::sorted_entries;
use crate::SOURCES_SLUG;
use crate::notation::Piece;
use crate::page_href;
use crate::wgsl_highlight::highlight;
use crate::widgets;

/// A page's Markdown body as HTML: headings that skip no level, MathML for the formulas,
/// `#/slug` links written as the page's file (and pushed onto `links` to be checked), quoted
/// kernels checked against `shaders`, correction notes folded, widget placeholders filled.
pub fn render_markdown(body: &str, file: &str, shaders: &Path, links: &mut Vec<(String, String)>) -> String {
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
                events.push(Event::Html(CowStr::from(render_wgsl_excerpt(&code, file, shaders))));
            }
            Event::InlineMath(tex) => events.push(Event::InlineHtml(CowStr::from(render_math(&tex, false, file)))),
            Event::DisplayMath(tex) => events.push(Event::Html(CowStr::from(render_math(&tex, true, file)))),
            Event::Start(Tag::Link { link_type, dest_url, title, id }) => {
                // Content links to pages as `#/slug` (`#/decodificador?preset=chaves`): checked
                // here, and written as the page's file, relative (`decodificador.html?preset=chaves`).
                // `#/glossario#softmax`, a place in a page, is checked with its fragment.
                let dest_url = match dest_url.strip_prefix("#/") {
                    Some(route) => {
                        let (route, fragment) = route.split_once('#').map_or((route, None), |(r, f)| (r, Some(f)));
                        let (page, query) = route.split_once('?').map_or((route, None), |(p, q)| (p, Some(q)));
                        links.push((file.to_string(), fragment.map_or_else(|| page.to_string(), |f| format!("{page}#{f}"))));
                        let (query, fragment) = (query.map(|q| format!("?{q}")).unwrap_or_default(), fragment.map(|f| format!("#{f}")).unwrap_or_default());
                        CowStr::from(format!("{}{query}{fragment}", page_href(page)))
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
        // The notes correct the original articles, which the page `artigos-originais` introduces:
        // the count line and every note link to it (checked like any `#/slug` link).
        links.push((file.to_string(), SOURCES_SLUG.to_string()));
        let (points, notes) = if corrections == 1 { ("ponto", "nota recolhida") } else { ("pontos", "notas recolhidas") };
        writeln!(
            out,
            "<p class=\"correcoes-contagem\" data-correcoes=\"{corrections}\">Esta página corrige {corrections} {points} do \
             <a href=\"{}\">artigo original</a> que ela acompanha ({notes} abaixo).</p>",
            page_href(SOURCES_SLUG)
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
/// `<details class="correcao"><summary>Correção ao artigo original: gist</summary>body, a link
/// to the page on the original articles</details>` (the link sits in the body, not in the
/// summary, which is the fold's button and holds nothing interactive), and
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
        events[end] = Event::Html(CowStr::from(format!(
            "<p class=\"correcao-fonte\"><a href=\"{}#correcoes\">O que é uma correção e de onde vêm os artigos originais</a></p>\n</details>\n",
            page_href(SOURCES_SLUG)
        )));
        events[gist_end] = Event::Html(CowStr::from("</summary>\n"));
        events.splice(
            i..i + 5,
            [Event::Html(CowStr::from(
                "<details class=\"correcao\">\n<summary><span class=\"correcao-rotulo\">Correção ao artigo original:</span> ",
            ))],
        );
        i += 1;
    }
    count
}

/// A ```wgsl block quotes a kernel: it must be a verbatim excerpt of a file in
/// src/gpu/shaders/ (so the prose cannot drift from the code the GPU runs), and is
/// highlighted like the "por dentro" panels.
fn render_wgsl_excerpt(code: &str, file: &str, shaders: &Path) -> String {
    let excerpt = code.trim_end_matches('\n');
    let kernel = sorted_entries(shaders)
        .into_iter()
        .find(|path| fs::read_to_string(path).is_ok_and(|source| source.contains(excerpt)))
        .unwrap_or_else(|| panic!("{file}: this ```wgsl block is not a verbatim excerpt of any file in src/gpu/shaders/:\n{excerpt}"));
    let name = kernel.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let mut html = format!("<pre class=\"wgsl\" data-excerpt-of=\"{name}\"><code>");
    for (class, piece) in highlight(excerpt) {
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
pub fn typeset(text: &str) -> String {
    crate::notation::pieces(text)
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
pub fn render_math(tex: &str, display: bool, file: &str) -> String {
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

/// Text or an attribute value as HTML.
pub fn esc(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Puts a placeholder in every empty widget element of an HTML block of the content
/// (`<div data-widget="bow"></div>`): one line saying what the widget will show (its summary in
/// `crate::widgets`), read with no JavaScript and until the wasm mounts it (src/web/pages.rs takes
/// it out). An element the author filled with a fallback of their own keeps it; a kind with no
/// documentation fails the build.
pub(super) fn with_placeholders(html: &str, file: &str) -> String {
    const OPEN: &str = "<div data-widget=\"";
    let mut out = String::with_capacity(html.len() + 256);
    let mut rest = html;
    while let Some(start) = rest.find(OPEN) {
        let Some(tag_end) = rest[start..].find('>').map(|i| start + i + 1) else { break };
        out.push_str(&rest[..tag_end]);
        let kind = rest[start + OPEN.len()..].split('"').next().unwrap_or_default();
        let doc = widgets::doc(kind).unwrap_or_else(|| panic!("{file}: no widget «{kind}» is documented in site/src/widgets.rs"));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn render(body: &str) -> (String, Vec<(String, String)>) {
        let mut links = Vec::new();
        let html = render_markdown(body, "test.md", Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../src/gpu/shaders")), &mut links);
        (html, links)
    }

    #[test]
    fn formulas_become_mathml_with_decimal_commas_as_one_number() {
        let (html, _) = render("A média é $0,5 + x$.");
        assert!(html.contains("<math"), "{html}");
        assert!(html.contains("<mn>0,5</mn>"), "one number, not 0 , 5: {html}");
        // The full stop stays with the formula.
        assert!(html.contains("<span class=\"nw\"><math") && html.contains("</math>.</span>"), "{html}");
        let display = render_math(r"\frac{a}{b}", true, "test");
        assert!(display.contains("display=\"block\"") && display.contains("<mfrac>"), "{display}");
    }

    #[test]
    #[should_panic(expected = "LaTeX error")]
    fn a_formula_that_does_not_parse_fails_the_build() {
        render_math(r"\frac{a}{", false, "test.md");
    }

    #[test]
    fn headings_skip_no_level_under_the_pages_h1() {
        let (html, _) = render("### Primeira\n\ntexto\n\n##### Dentro\n\n### Segunda\n");
        assert_eq!(html.matches("<h2>").count(), 2, "{html}");
        assert!(html.contains("<h3>Dentro</h3>"), "{html}");
        assert!(!html.contains("<h4>") && !html.contains("<h5>"), "{html}");
    }

    #[test]
    fn page_links_are_written_as_files_and_collected_for_checking() {
        let (html, links) = render("Veja [o decodificador](#/decodificador?preset=chaves) e [o início](#/).");
        assert!(html.contains("href=\"decodificador.html?preset=chaves\""), "{html}");
        assert!(html.contains("href=\"./\""), "{html}");
        assert_eq!(links, vec![("test.md".to_string(), "decodificador".to_string()), ("test.md".to_string(), String::new())]);
    }

    #[test]
    fn correction_notes_fold_and_are_counted() {
        let (html, links) = render("Texto.\n\n> **Correção:** o valor certo é 0,6.\n>\n> O artigo imprime 0,5 porque arredonda antes.\n");
        assert!(html.starts_with("<p class=\"correcoes-contagem\" data-correcoes=\"1\">Esta página corrige 1 ponto do <a href=\"artigos-originais.html\">artigo original</a>"), "{html}");
        assert!(html.contains("<details class=\"correcao\">\n<summary><span class=\"correcao-rotulo\">Correção ao artigo original:</span> o valor certo"), "{html}");
        assert!(html.contains("</summary>\n<p>O artigo imprime"), "{html}");
        assert!(html.contains("<p class=\"correcao-fonte\"><a href=\"artigos-originais.html#correcoes\">") && html.ends_with("</p>\n</details>\n"), "each note links to the page on the original articles: {html}");
        assert!(links.contains(&("test.md".to_string(), "artigos-originais".to_string())), "and that page must exist: {links:?}");
    }

    #[test]
    #[should_panic(expected = "needs a gist and a body")]
    fn a_correction_without_its_explanation_fails_the_build() {
        render("> **Correção:** só o resumo.\n");
    }

    #[test]
    fn empty_widgets_get_their_documented_summary_as_a_placeholder() {
        let html = with_placeholders("<div data-widget=\"attention\"></div><div data-widget=\"bow\"><p>meu</p></div>", "test.md");
        assert!(html.contains("<div data-widget=\"attention\"><p class=\"widget-placeholder\">"), "{html}");
        assert!(html.contains("W<sup>Q</sup>"), "the summary's notation is typeset: {html}");
        assert!(html.contains("<div data-widget=\"bow\"><p>meu</p></div>"), "an author's own fallback stays: {html}");
    }

    #[test]
    #[should_panic(expected = "no widget «nada» is documented")]
    fn an_undocumented_widget_fails_the_build() {
        with_placeholders("<div data-widget=\"nada\"></div>", "test.md");
    }

    #[test]
    fn quoted_kernels_must_be_verbatim_excerpts() {
        let shaders = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../src/gpu/shaders"));
        let source = fs::read_to_string(shaders.join("add.wgsl")).expect("a kernel to quote");
        let line = source.lines().find(|l| l.contains("fn ")).expect("a function line");
        let html = render_wgsl_excerpt(line, "test.md", shaders);
        assert!(html.starts_with("<pre class=\"wgsl\" data-excerpt-of=\""), "{html}");
        assert!(std::panic::catch_unwind(|| render_wgsl_excerpt("fn not_in_any_kernel() {}", "test.md", shaders)).is_err());
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(esc("<a href=\"x\">&</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;");
        assert_eq!(typeset("W^Q <b>"), "W<sup>Q</sup> &lt;b&gt;");
    }
}
