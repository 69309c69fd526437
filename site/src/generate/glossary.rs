//! The glossary (issue 38): `content/_glossario.md` defines the site's terms, one entry each,
//! `## termo (english term)`, an optional line `formas: a, b, …` (the spellings that the pages
//! link to it, matched as whole words in any case; without it, the term itself) and its
//! definition in Markdown. From it come the page `glossario.html` (a `<dl>` whose `<dt>` carry
//! the terms' ids) and, at build time, the first use of each term on every other page written
//! as a link to its entry (`a[data-glossary]`). The definitions of the terms a page links ride
//! in that page, in a `<template data-glossary-defs>`, so the popover (static/site.js) needs no
//! fetch; without JavaScript the link is a plain link. A content link `#/glossario#id` to a
//! term the glossary does not define fails the build (`read_site`).

use std::path::Path;

use super::markdown::{esc, render_markdown};
use crate::without_annotations;

/// The glossary's source, in `content/`.
pub const FILE: &str = "_glossario.md";

/// The glossary page's slug (`glossario.html`); content links to a term as `#/glossario#id`.
pub const SLUG: &str = "glossario";

/// One term of the glossary.
pub struct Term {
    /// The entry's id on the glossary page: the term folded to ASCII (`máscara causal` →
    /// `mascara-causal`).
    pub id: String,
    pub name: String,
    pub english: String,
    /// The spellings linked in the pages, lowercased.
    pub forms: Vec<String>,
    /// The definition as HTML (MathML for its formulas).
    pub html: String,
}

/// The glossary's terms, in the page's order (alphabetical, accents aside), and the page's prose.
pub struct Glossary {
    pub terms: Vec<Term>,
    /// The glossary page's prose: its introduction, then a `<dl>` of the terms.
    pub html: String,
}

/// Reads the glossary's Markdown `body` (after its front matter, which `content` reads as any
/// page's) from `file`; a malformed entry fails the build with the file and the entry. Its links
/// go to `links`, checked like any page's.
pub fn read(body: &str, file: &str, shaders: &Path, links: &mut Vec<(String, String)>) -> Glossary {
    let mut entries = body.split("\n## ");
    let intro = entries.next().unwrap_or_default();
    let mut terms: Vec<Term> = entries.map(|entry| term(entry, file, shaders, links)).collect();
    terms.sort_by_key(|t| fold(&t.name));
    for (i, t) in terms.iter().enumerate() {
        if terms[..i].iter().any(|u| u.id == t.id) {
            panic!("{file}: two entries have the id `{}`", t.id);
        }
        if let Some(u) = terms[..i].iter().find(|u| u.forms.iter().any(|f| t.forms.contains(f))) {
            panic!("{file}: «{}» and «{}» claim the same spelling", u.name, t.name);
        }
    }
    let mut html = render_markdown(intro, file, shaders, links);
    html.push_str("<dl class=\"glossary\">\n");
    for t in &terms {
        html.push_str(&format!("<dt id=\"{}\">{}</dt>\n<dd>{}</dd>\n", t.id, t.title("dfn"), t.html.trim_end()));
    }
    html.push_str("</dl>\n");
    Glossary { terms, html }
}

/// One entry: `termo (english)`, then `formas: …` or not, then the definition.
fn term(entry: &str, file: &str, shaders: &Path, links: &mut Vec<(String, String)>) -> Term {
    let (head, rest) = entry.split_once('\n').unwrap_or((entry, ""));
    let head = head.trim_start_matches("## ").trim();
    let (name, english) = head
        .strip_suffix(')')
        .and_then(|h| h.rsplit_once(" ("))
        .map(|(n, e)| (n.trim().to_string(), e.trim().to_string()))
        .filter(|(n, e)| !n.is_empty() && !e.is_empty())
        .unwrap_or_else(|| panic!("{file}: the entry «{head}» needs its English term in parentheses: `## termo (english term)`"));
    let (forms, definition) = match rest.strip_prefix("formas:") {
        Some(more) => {
            let (line, definition) = more.split_once('\n').unwrap_or((more, ""));
            (line.split(',').map(|f| lower(f.trim())).filter(|f| !f.is_empty()).collect(), definition)
        }
        None => (vec![lower(&name)], rest),
    };
    if definition.trim().is_empty() {
        panic!("{file}: the entry «{name}» has no definition");
    }
    let html = render_markdown(definition.trim(), file, shaders, links);
    Term { id: fold(&name), name, english, forms, html }
}

impl Term {
    /// The term in a `tag` and its English name after it, as the glossary page and the popover
    /// title the definition.
    fn title(&self, tag: &str) -> String {
        format!("<{tag}>{}</{tag}> <span class=\"glossary-en\">(<span lang=\"en\">{}</span>)</span>", esc(&self.name), esc(&self.english))
    }
}

/// `máscara causal` → `mascara-causal`: lowercase ASCII letters and digits joined by hyphens.
fn fold(name: &str) -> String {
    let mut id = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        let c = match c {
            'á' | 'à' | 'â' | 'ã' | 'ä' => 'a',
            'é' | 'ê' | 'è' => 'e',
            'í' | 'î' => 'i',
            'ó' | 'ô' | 'õ' | 'ö' => 'o',
            'ú' | 'ü' => 'u',
            'ç' => 'c',
            c => c,
        };
        if c.is_ascii_alphanumeric() {
            id.push(c);
        } else if !id.is_empty() && !id.ends_with('-') {
            id.push('-');
        }
    }
    id.trim_end_matches('-').to_string()
}

/// `text` lowercased letter by letter where that keeps its length in bytes, so that offsets
/// into it are offsets into `text`.
fn lower(text: &str) -> String {
    text.chars()
        .map(|c| {
            let mut l = c.to_lowercase();
            match (l.next(), l.next()) {
                (Some(d), None) if d.len_utf8() == c.len_utf8() => d,
                _ => c,
            }
        })
        .collect()
}

/// Elements whose text is never linked: headings, links, code, formulas, a correction note's
/// summary (the fold's button), form controls, and (by `data-widget`) a widget's placeholder.
const SKIPPED: &[&str] = &[
    "h1", "h2", "h3", "h4", "h5", "h6", "a", "code", "pre", "kbd", "samp", "math", "svg", "summary", "button", "label", "select", "textarea",
    "figcaption", "dfn", "script", "style", "template",
];

/// Elements with no end tag.
const VOID: &[&str] = &["br", "hr", "img", "input", "wbr", "col", "source", "meta", "link", "area", "embed", "track"];

/// Whether a letter, digit, hyphen or underscore: a term is linked only as a whole word ("TF"
/// not inside "TF-IDF", "key" not inside "keys").
fn joins(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
}

impl Glossary {
    /// `html` (a page's prose) with the first use of each term linked to its entry, outside the
    /// elements in `SKIPPED`; an explicit link to an entry (`glossario.html#id`) is marked too
    /// and counts as the term's first use. The definitions of the terms linked follow in a
    /// `<template data-glossary-defs>`, which neither readers nor the search index see.
    pub fn link_terms(&self, html: &str) -> String {
        let mut out = String::with_capacity(html.len() + 1024);
        let mut used: Vec<usize> = Vec::new();
        // Open elements: (name, whether its text is skipped).
        let mut open: Vec<(String, bool)> = Vec::new();
        let mut rest = html;
        while !rest.is_empty() {
            let Some(lt) = rest.find('<') else {
                self.link_text(rest, open.iter().any(|(_, skip)| *skip), &mut used, &mut out);
                break;
            };
            self.link_text(&rest[..lt], open.iter().any(|(_, skip)| *skip), &mut used, &mut out);
            rest = &rest[lt..];
            let end = if rest.starts_with("<!--") { rest.find("-->").map(|i| i + 3) } else { rest.find('>').map(|i| i + 1) };
            let tag = &rest[..end.unwrap_or(rest.len())];
            rest = &rest[tag.len()..];
            if let Some(closing) = tag.strip_prefix("</") {
                let name = closing.trim_end_matches('>').trim().to_ascii_lowercase();
                if let Some(at) = open.iter().rposition(|(n, _)| *n == name) {
                    open.truncate(at);
                }
                out.push_str(tag);
                continue;
            }
            if tag.starts_with("<!") || tag.starts_with("<?") {
                out.push_str(tag);
                continue;
            }
            let name: String = tag[1..].chars().take_while(|c| c.is_ascii_alphanumeric()).collect::<String>().to_ascii_lowercase();
            let href = format!("href=\"{}.html#", SLUG);
            match tag.find(&href).filter(|_| name == "a") {
                Some(at) => {
                    let id = tag[at + href.len()..].split('"').next().unwrap_or_default();
                    if let Some(i) = self.terms.iter().position(|t| t.id == id) {
                        if !used.contains(&i) {
                            used.push(i);
                        }
                    }
                    out.push_str(&tag[..tag.len() - 1]);
                    out.push_str(&format!(" data-glossary=\"{id}\">"));
                }
                None => out.push_str(tag),
            }
            if !VOID.contains(&name.as_str()) && !tag.ends_with("/>") {
                open.push((name.clone(), SKIPPED.contains(&name.as_str()) || tag.contains(" data-widget=")));
            }
        }
        if !used.is_empty() {
            out.push_str("<template data-glossary-defs data-pagefind-ignore>");
            for &i in &used {
                let t = &self.terms[i];
                // A popover never shows a formula's LaTeX source: the definitions every page carries stay short.
                out.push_str(&format!("<div data-term=\"{}\"><p>{}</p>{}</div>", t.id, t.title("strong"), without_annotations(t.html.trim_end())));
            }
            out.push_str("</template>\n");
        }
        out
    }

    /// Writes `text` (HTML text, between tags) to `out`, each term not `used` yet linked at its
    /// first whole-word use; the longest spelling wins where several start at one place.
    fn link_text(&self, text: &str, skip: bool, used: &mut Vec<usize>, out: &mut String) {
        if skip {
            out.push_str(text);
            return;
        }
        let lowered = lower(text);
        let mut from = 0;
        loop {
            // The earliest use of a term: (start, length, term). A term linked already is still
            // looked for, so that a shorter one inside it ("atenção" in "atenção cruzada") is not
            // linked there.
            let mut best: Option<(usize, usize, usize)> = None;
            for (i, t) in self.terms.iter().enumerate() {
                for form in &t.forms {
                    let found = lowered[from..].match_indices(form.as_str()).map(|(at, _)| from + at).find(|&at| {
                        !joins(text[..at].chars().next_back()) && !joins(text[at + form.len()..].chars().next())
                    });
                    if let Some(at) = found {
                        if best.is_none_or(|(b, len, _)| at < b || (at == b && form.len() > len)) {
                            best = Some((at, form.len(), i));
                        }
                    }
                }
            }
            let Some((at, len, i)) = best else { break };
            if used.contains(&i) {
                out.push_str(&text[from..at + len]);
                from = at + len;
                continue;
            }
            let id = &self.terms[i].id;
            out.push_str(&text[from..at]);
            out.push_str(&format!("<a href=\"{SLUG}.html#{id}\" data-glossary=\"{id}\">{}</a>", &text[at..at + len]));
            used.push(i);
            from = at + len;
        }
        out.push_str(&text[from..]);
    }

    /// Whether `id` names a term.
    pub fn defines(&self, id: &str) -> bool {
        self.terms.iter().any(|t| t.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shaders() -> &'static Path {
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../src/gpu/shaders"))
    }

    fn tiny_glossary() -> Glossary {
        let body = "Os termos.\n\n## TF (term frequency)\nA frequência.\n\n## TF-IDF (TF-IDF)\nO peso.\n\n\
                    ## máscara causal (causal mask)\nformas: máscara causal, máscaras causais\nO triângulo de $-\\infty$.\n\n\
                    ## key (key)\nformas: key, keys\nA chave.\n";
        read(body, "_glossario.md", shaders(), &mut Vec::new())
    }

    #[test]
    fn entries_are_read_sorted_with_their_ids_and_english_terms() {
        let g = tiny_glossary();
        let names: Vec<_> = g.terms.iter().map(|t| (t.id.as_str(), t.english.as_str())).collect();
        assert_eq!(names, [("key", "key"), ("mascara-causal", "causal mask"), ("tf", "term frequency"), ("tf-idf", "TF-IDF")]);
        assert_eq!(g.terms[1].forms, ["máscara causal", "máscaras causais"]);
        assert_eq!(g.terms[2].forms, ["tf"], "without `formas:`, the term itself");
        assert!(g.html.contains("<dt id=\"mascara-causal\"><dfn>máscara causal</dfn> <span class=\"glossary-en\">(<span lang=\"en\">causal mask</span>)</span></dt>\n<dd><p>O triângulo de <"), "{}", g.html);
        assert_eq!(g.html.matches("<dt id=").count(), 4);
    }

    #[test]
    fn the_first_whole_word_use_of_each_term_is_linked_outside_headings_code_math_and_links() {
        let g = tiny_glossary();
        let html = "<h2>TF e keys</h2>\n<p>O <code>TF</code> e <a href=\"x.html\">TF</a>: o TF-IDF soma o TF, e o TF de novo; as Keys, a key.</p>\n\
                    <div data-widget=\"tf\"><p class=\"widget-placeholder\">TF</p></div><p><math><mi>key</mi></math> máscara causal</p>\n\
                    <details><summary>máscara causal</summary><p>nada</p></details>";
        let linked = g.link_terms(html);
        assert!(linked.starts_with("<h2>TF e keys</h2>\n<p>O <code>TF</code> e <a href=\"x.html\">TF</a>: o <a href=\"glossario.html#tf-idf\" data-glossary=\"tf-idf\">TF-IDF</a> soma o <a href=\"glossario.html#tf\" data-glossary=\"tf\">TF</a>, e o TF de novo;"), "{linked}");
        assert!(linked.contains("as <a href=\"glossario.html#key\" data-glossary=\"key\">Keys</a>, a key."), "one link per term, its case kept: {linked}");
        assert!(linked.contains("<p class=\"widget-placeholder\">TF</p>") && linked.contains("<mi>key</mi>"), "{linked}");
        assert!(linked.contains("</math> <a href=\"glossario.html#mascara-causal\" data-glossary=\"mascara-causal\">máscara causal</a></p>"), "{linked}");
        assert!(g.html.contains("<annotation") && !linked.contains("<annotation"), "the popover's formulas without their LaTeX source: {linked}");
        assert!(linked.contains("<summary>máscara causal</summary>"), "{linked}");
        let defs = linked.split("<template data-glossary-defs data-pagefind-ignore>").nth(1).expect("the definitions follow");
        assert_eq!(defs.matches("<div data-term=").count(), 4, "{defs}");
        assert!(defs.starts_with("<div data-term=\"tf-idf\"><p><strong>TF-IDF</strong> <span class=\"glossary-en\">(<span lang=\"en\">TF-IDF</span>)</span></p><p>O peso.</p></div>"), "{defs}");
        assert_eq!(g.link_terms("<p>nada aqui</p>"), "<p>nada aqui</p>", "no term, no template");
        let inside = g.link_terms("<p>O TF-IDF e o TF-IDF de novo, e só então o TF.</p>");
        assert!(inside.contains("e o TF-IDF de novo, e só então o <a href=\"glossario.html#tf\""), "no TF linked inside the second TF-IDF: {inside}");
    }

    #[test]
    fn an_explicit_link_to_an_entry_is_marked_and_counts_as_the_first_use() {
        let g = tiny_glossary();
        let linked = g.link_terms("<p><a href=\"glossario.html#key\">a chave</a> e a key.</p>");
        assert!(linked.starts_with("<p><a href=\"glossario.html#key\" data-glossary=\"key\">a chave</a> e a key.</p><template"), "{linked}");
    }

    #[test]
    fn ids_fold_accents_and_spaces() {
        assert_eq!(fold("máscara causal"), "mascara-causal");
        assert_eq!(fold("N-grama"), "n-grama");
        assert_eq!(fold("atenção multi-head"), "atencao-multi-head");
        assert_eq!(lower("Máscara TF"), "máscara tf");
    }
}
