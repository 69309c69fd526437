//! The map of the model that opens every page of the articles: the road there (vectors,
//! TF-IDF, N-grams and Markov, votes and masks), then the Transformer in the order a token goes
//! through it (text → tokens → embeddings + positions → the block, repeated: attention, FFN,
//! residual and norm → logits → sampling), the page's own part marked. Written in
//! `content/_mapa.txt`, one part per line, each with the pages that explain it; every page of
//! an article is in exactly one part.
//!
//! Prerendered as HTML lists in a `<details>` rather than as an SVG: a list reflows at 390 px,
//! where a drawing scaled to the column would shrink its labels to about 7 px.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use super::content::Site;
use super::markdown::esc;
use crate::page_href;

/// Where a part sits: on the road to the model, in the model, or inside its repeated block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    Road,
    Model,
    Block,
}

/// One part of the map: the pages that explain it, in reading order.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    pub group: Group,
    pub id: String,
    pub label: String,
    pub pages: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModelMap {
    pub parts: Vec<Part>,
}

/// Reads the map at `path` and checks it against the site: every slug is a page of an article,
/// and every page of an article is in exactly one part. The block's parts are consecutive.
pub fn read_map(path: &Path, site: &Site) -> ModelMap {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let map = parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let article_pages: Vec<&str> = site.articles.iter().flat_map(|(a, s)| std::iter::once(a).chain(s)).map(|p| p.slug.as_str()).collect();
    for part in &map.parts {
        for slug in &part.pages {
            if !article_pages.contains(&slug.as_str()) {
                panic!("{}: part «{}» names `{slug}`, which is no page of an article", path.display(), part.id);
            }
        }
    }
    for slug in article_pages {
        let holders = map.parts.iter().filter(|p| p.pages.iter().any(|s| s == slug)).count();
        if holders != 1 {
            panic!("{}: the page `{slug}` is in {holders} parts of the map; it must be in exactly one", path.display());
        }
    }
    map
}

/// The map's lines (`group | id | label | slug, slug, …`; `#` starts a comment).
pub fn parse(text: &str) -> Result<ModelMap, String> {
    let mut parts: Vec<Part> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        let [group, id, label, pages] = fields[..] else {
            return Err(format!("line {}: want `group | id | label | pages`, got «{line}»", n + 1));
        };
        let group = match group {
            "caminho" => Group::Road,
            "modelo" => Group::Model,
            "bloco" => Group::Block,
            other => return Err(format!("line {}: the group is caminho, modelo or bloco, not «{other}»", n + 1)),
        };
        if id.is_empty() || label.is_empty() || parts.iter().any(|p| p.id == id) {
            return Err(format!("line {}: each part needs its own id and a label", n + 1));
        }
        let pages: Vec<String> = pages.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
        if pages.is_empty() {
            return Err(format!("line {}: the part «{id}» has no page", n + 1));
        }
        parts.push(Part { group, id: id.to_string(), label: label.to_string(), pages });
    }
    let blocks: Vec<usize> = parts.iter().enumerate().filter(|(_, p)| p.group == Group::Block).map(|(i, _)| i).collect();
    if blocks.windows(2).any(|w| w[1] != w[0] + 1) {
        return Err("the block's parts (bloco) must be consecutive".into());
    }
    if parts.iter().any(|p| p.group == Group::Road) && parts.iter().skip_while(|p| p.group == Group::Road).any(|p| p.group == Group::Road) {
        return Err("the road's parts (caminho) come first".into());
    }
    Ok(ModelMap { parts })
}

impl ModelMap {
    /// Checks that the pages `html` links to (as `slug.html`) come in the map's order: the home
    /// page's "comece aqui" path walks the model from the road to the sampling, never back.
    pub fn check_in_order(&self, html: &str, what: &str) -> Result<(), String> {
        let mut last: Option<(usize, &str)> = None;
        for piece in html.split("href=\"").skip(1) {
            let Some(slug) = piece.split('"').next().and_then(|h| h.strip_suffix(".html")) else { continue };
            let Some(at) = self.index_of(slug) else { continue };
            if let Some((before, previous)) = last {
                if at < before {
                    return Err(format!(
                        "{what}: `{slug}` («{}») comes after `{previous}` («{}»), but the map puts it before",
                        self.parts[at].label, self.parts[before].label
                    ));
                }
            }
            last = Some((at, slug));
        }
        Ok(())
    }

    /// Where in the map page `slug`'s part is.
    fn index_of(&self, slug: &str) -> Option<usize> {
        self.parts.iter().position(|p| p.pages.iter().any(|s| s == slug))
    }

    /// The part that page `slug` belongs to.
    pub fn part_of(&self, slug: &str) -> Option<&Part> {
        self.index_of(slug).map(|i| &self.parts[i])
    }

    /// The map as page `slug` shows it: `<nav data-model-map>` with the page's part marked
    /// `aria-current`, every part a link to its first page, and the pages of this part listed.
    /// Folded by default (one line on a phone); the page script opens it on a wide screen.
    pub fn html(&self, slug: &str, titles: &dyn Fn(&str) -> String) -> String {
        let here = self.part_of(slug).unwrap_or_else(|| panic!("content/_mapa.txt: no part holds `{slug}`"));
        let link = |part: &Part| {
            let current = if part.id == here.id { " aria-current=\"location\"" } else { "" };
            format!("<li data-part=\"{}\"><a href=\"{}\"{current}>{}</a></li>", part.id, page_href(&part.pages[0]), esc(&part.label))
        };
        let mut out = format!(
            "<nav class=\"model-map\" data-model-map data-pagefind-ignore aria-label=\"Mapa do modelo\">\n<details><summary>Mapa do modelo · esta página: <strong>{}</strong></summary>\n",
            esc(&here.label)
        );
        out.push_str("<p class=\"map-group\">O caminho até o modelo</p>\n<ol class=\"map-row\">");
        for part in self.parts.iter().filter(|p| p.group == Group::Road) {
            out.push_str(&link(part));
        }
        out.push_str("</ol>\n<p class=\"map-group\">O modelo, na ordem em que um token passa por ele</p>\n<ol class=\"map-row\">");
        let mut in_block = false;
        for part in self.parts.iter().filter(|p| p.group != Group::Road) {
            if part.group == Group::Block && !in_block {
                out.push_str("<li class=\"map-block\"><span class=\"map-block-label\">bloco × N</span><ol class=\"map-row\">");
                in_block = true;
            } else if part.group != Group::Block && in_block {
                out.push_str("</ol></li>");
                in_block = false;
            }
            out.push_str(&link(part));
        }
        if in_block {
            out.push_str("</ol></li>");
        }
        out.push_str("</ol>\n<p class=\"map-pages\">Nesta parte: ");
        for (i, page) in here.pages.iter().enumerate() {
            let sep = if i == 0 { "" } else { " · " };
            if page == slug {
                write!(out, "{sep}<strong>{}</strong>", esc(&titles(page))).expect("writing to a String");
            } else {
                write!(out, "{sep}<a href=\"{}\">{}</a>", page_href(page), esc(&titles(page))).expect("writing to a String");
            }
        }
        out.push_str("</p>\n</details>\n</nav>\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: &str = "# comentário\ncaminho | vetores | Vetores | a, b\nmodelo | tokens | Texto → tokens | c\nbloco | atencao | Atenção | d\nbloco | ffn | FFN | e\nmodelo | logits | Logits | f\n";

    #[test]
    fn the_page_is_marked_once_and_every_part_links_to_its_first_page() {
        let map = parse(MAP).unwrap();
        let html = map.html("d", &|s: &str| format!("Página {s}"));
        assert_eq!(html.matches("aria-current").count(), 1, "{html}");
        assert!(html.contains("<li data-part=\"atencao\"><a href=\"d.html\" aria-current=\"location\">Atenção</a></li>"), "{html}");
        assert!(html.contains("<li data-part=\"vetores\"><a href=\"a.html\">Vetores</a></li>"), "{html}");
        assert!(html.contains("<li class=\"map-block\"><span class=\"map-block-label\">bloco × N</span><ol class=\"map-row\"><li data-part=\"atencao\">"), "{html}");
        assert!(html.contains("<li data-part=\"ffn\"><a href=\"e.html\">FFN</a></li></ol></li><li data-part=\"logits\">"), "the block closes before the logits: {html}");
        assert!(html.contains("esta página: <strong>Atenção</strong>"), "{html}");
        assert!(html.contains("Nesta parte: <strong>Página d</strong></p>"), "{html}");
        let two = map.html("b", &|s: &str| s.to_uppercase());
        assert!(two.contains("Nesta parte: <a href=\"a.html\">A</a> · <strong>B</strong>"), "{two}");
        assert!(two.contains("Texto → tokens"), "labels are text, escaped: {two}");
    }

    #[test]
    fn a_path_must_follow_the_map() {
        let map = parse(MAP).unwrap();
        assert!(map.check_in_order("<a href=\"a.html\">1</a><a href=\"c.html\">2</a><a href=\"x.html\">fora</a><a href=\"f.html\">3</a>", "path").is_ok());
        let err = map.check_in_order("<a href=\"d.html\">1</a><a href=\"b.html\">2</a>", "path").unwrap_err();
        assert!(err.contains("`b` («Vetores») comes after `d` («Atenção»)"), "{err}");
    }

    #[test]
    fn malformed_maps_are_refused_with_their_line() {
        assert!(parse("caminho | x | X\n").unwrap_err().starts_with("line 1"));
        assert!(parse("estrada | x | X | a\n").unwrap_err().contains("caminho, modelo or bloco"));
        assert!(parse("caminho | x | X | a\ncaminho | x | Y | b\n").is_err(), "an id twice");
        assert!(parse("caminho | x | X | \n").unwrap_err().contains("no page"));
        assert!(parse("bloco | a | A | a\nmodelo | b | B | b\nbloco | c | C | c\n").unwrap_err().contains("consecutive"));
        assert!(parse("modelo | b | B | b\ncaminho | a | A | a\n").unwrap_err().contains("come first"));
    }
}
