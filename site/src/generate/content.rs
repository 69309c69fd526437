//! The content as pages: `content/` read into articles, sections and the home page's text,
//! each with its front matter, its meta description and its prose as HTML.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use super::files::sorted_entries;
use super::glossary;
use super::markdown::render_markdown;

/// The whole site's content: the articles in order, each with its sections, the home page's
/// own text, and the pages that belong to no article (`content/NN-slug.md`: the original
/// articles, the notation), linked from every page's footer.
pub struct Site {
    pub articles: Vec<(Page, Vec<Page>)>,
    pub start: Page,
    pub pages: Vec<Page>,
}


/// The pages of folder `dir`: its `NN-slug.md` files in order (not `_…`, which open an
/// article or the home page), each slug new to `slugs`.
fn read_pages(dir: &Path, shaders: &Path, slugs: &mut BTreeSet<String>, links: &mut Vec<(String, String)>) -> Vec<Page> {
    let mut pages = Vec::new();
    for file in sorted_entries(dir).into_iter().filter(|p| p.is_file()) {
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        if !name.ends_with(".md") || name.starts_with('_') {
            continue;
        }
        let page = read_page(&file, strip_order(&file), shaders, links);
        if !slugs.insert(page.slug.clone()) {
            panic!("{}: the slug `{}` is used twice", file.display(), page.slug);
        }
        pages.push(page);
    }
    pages
}

/// Reads `content` (layout in the module's documentation of `generate`), checking that slugs
/// are well formed and unique, that none takes a reserved route, and that every `#/slug`
/// link leads to a page. Quoted kernels are checked against the files in `shaders`.
pub fn read_site(content: &Path, shaders: &Path) -> Site {
    let mut articles = Vec::new();
    let mut slugs = BTreeSet::new();
    let mut links = Vec::new();
    for dir in sorted_entries(content).into_iter().filter(|p| p.is_dir()) {
        let article = read_page(&dir.join("_artigo.md"), strip_order(&dir), shaders, &mut links);
        let sections = read_pages(&dir, shaders, &mut slugs, &mut links);
        if !slugs.insert(article.slug.clone()) {
            panic!("{}: the slug `{}` is used twice", dir.display(), article.slug);
        }
        articles.push((article, sections));
    }
    // Pages of no article: `content/NN-slug.md`, and the glossary (`content/_glossario.md`).
    let mut pages = read_pages(content, shaders, &mut slugs, &mut links);
    let glossary = read_glossary(&content.join(glossary::FILE), shaders, &mut links);
    for reserved in RESERVED_ROUTES {
        if slugs.contains(*reserved) {
            panic!("content/: the slug `{reserved}` is the name of a page the site draws itself");
        }
    }
    // The home page's own text (lead, description, the "comece aqui" path): content/_inicio.md.
    let start = read_page(&content.join("_inicio.md"), "index".to_string(), shaders, &mut links);
    if glossary.is_some() && !slugs.insert(glossary::SLUG.to_string()) {
        panic!("content/: the slug `{}` is the glossary's", glossary::SLUG);
    }
    for (file, target) in links {
        // `#/slug#id`: the page must exist, and a glossary term must be defined.
        let (page, id) = target.split_once('#').map_or((target.as_str(), None), |(p, id)| (p, Some(id)));
        if !page.is_empty() && !slugs.contains(page) && !RESERVED_ROUTES.contains(&page) {
            panic!("{file}: link to `#/{page}`, which no page has");
        }
        if let (Some((_, glossary)), Some(id)) = (&glossary, id.filter(|_| page == glossary::SLUG)) {
            if !glossary.defines(id) {
                panic!("{file}: link to the glossary term `{id}`, which content/{} does not define", glossary::FILE);
            }
        }
    }
    // The first use of each term on every page links to the glossary (issue 38).
    if let Some((page, glossary)) = glossary {
        for page in articles.iter_mut().flat_map(|(a, s)| std::iter::once(a).chain(s.iter_mut())).chain(pages.iter_mut()) {
            page.html = glossary.link_terms(&page.html);
        }
        pages.push(page);
    }
    Site { articles, start, pages }
}

/// The glossary at `path`, if the content has one: its page (title, description and the
/// notation's check as for any page; its prose the terms' list) and its terms.
fn read_glossary(path: &Path, shaders: &Path, links: &mut Vec<(String, String)>) -> Option<(Page, glossary::Glossary)> {
    if !path.is_file() {
        return None;
    }
    let mut page = read_page(path, glossary::SLUG.to_string(), shaders, links);
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (_, body) = split_front_matter(&text).unwrap_or_else(|| panic!("{}: missing --- front matter ---", path.display()));
    let glossary = glossary::read(body, &path.display().to_string(), shaders, links);
    page.html = glossary.html.clone();
    Some((page, glossary))
}

/// One page of the content: an article's introduction, a section, or the home page's text.
pub struct Page {
    pub slug: String,
    pub title: String,
    pub summary: String,
    /// The meta description: front matter `descricao`, else `resumo`, else the opening
    /// sentences of the prose (those without formulas).
    pub description: String,
    pub html: String,
    /// Front matter `destaques` of an article (`_artigo.md`): the widget kinds its card on the
    /// home page names first, each of which must appear in the article.
    pub highlights: Vec<String>,
}

/// Pages the site draws itself (the wasm's `site::resolve`), which content may link to: the home page
/// (`#/inicio`), the widget catalogue, the benchmark. No slug may take their names, nor
/// `index` (the home page's file).
pub const RESERVED_ROUTES: &[&str] = &["inicio", "catalogo", "bench", "index"];

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

fn read_page(path: &Path, slug: String, shaders: &Path, links: &mut Vec<(String, String)>) -> Page {
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
    let file = path.display().to_string();
    super::notation::check(&text, &file, &slug);
    let mut html = super::checkpoints::place(&render_markdown(body, &file, shaders, links), &slug, &file);
    // Optional depth (`aprofundamento:` in the front matter, the page's result in one paragraph):
    // the page opens with that paragraph, marked, so a reader who skips the rest keeps the result.
    if let Some(result) = field("aprofundamento") {
        html = format!("{}{html}", depth_note(&result, &file, shaders, links));
    }
    let highlights = field("destaques")
        .map(|list| list.split(',').map(|k| k.trim().to_string()).filter(|k| !k.is_empty()).collect())
        .unwrap_or_default();
    Page { slug, title, summary, description, html, highlights }
}

/// The box that opens a page of optional depth: what it is, and its result in one paragraph
/// (`result`, Markdown with formulas) for the reader who skips the derivations.
fn depth_note(result: &str, file: &str, shaders: &Path, links: &mut Vec<(String, String)>) -> String {
    let rendered = render_markdown(result, file, shaders, links);
    let inner = rendered.trim().strip_prefix("<p>").and_then(|r| r.strip_suffix("</p>")).unwrap_or_else(|| {
        panic!("{file}: `aprofundamento:` holds the page's result as one paragraph, not «{result}»")
    });
    format!(
        "<div class=\"aprofundamento\" role=\"note\"><p class=\"aprofundamento-rotulo\">Aprofundamento opcional</p>\n\
         <p>O resto desta página deriva o resultado abaixo; quem preferir pode ler só ele e seguir para a próxima página.</p>\n\
         <p class=\"aprofundamento-resultado\"><strong>O resultado:</strong> {inner}</p></div>\n"
    )
}

/// How long a meta description from the prose gets (search engines show about 155 characters).
const DESCRIPTION_MIN: usize = 60;

const DESCRIPTION_TARGET: usize = 110;

const DESCRIPTION_MAX: usize = 200;

/// The page's opening as plain text, for its meta description: the first run of whole
/// sentences (ending in `.`, `?` or `!`) of one top-level paragraph with no formula in them
/// (LaTeX reads badly as text) that is at least `DESCRIPTION_MIN` characters long, up to about
/// `DESCRIPTION_TARGET`. Empty if the page has none (the generator then asks for a `descricao:`).
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::SOURCES_SLUG;
    use std::path::PathBuf;

    /// A content tree in a fresh temporary folder: one article with two sections, and the
    /// home page's text. `extra` is added to the second section's body.
    pub(crate) fn tiny_content(name: &str, extra: &str) -> PathBuf {
        let root = std::env::temp_dir().join(format!("atencao-site-{name}-{}", std::process::id()));
        let article = root.join("01-vetores");
        fs::create_dir_all(&article).expect("a temporary folder");
        fs::write(root.join("_inicio.md"), "---\ntitulo: Início\nresumo: O começo de tudo.\n---\n## Comece aqui\n\n[Vetores](#/vetores)\n").unwrap();
        fs::write(article.join("_artigo.md"), "---\ntitulo: Vetores\nresumo: Setas e números.\ndestaques: bow\n---\nUma introdução curta que fala de vetores e de mais nada além deles.\n").unwrap();
        fs::write(article.join("01-soma.md"), "---\ntitulo: Soma de vetores\ndescricao: Como somar.\n---\nSomar é juntar.\n\n<div data-widget=\"bow\"></div>\n").unwrap();
        fs::write(article.join("02-produto.md"), format!("---\ntitulo: Produto $W^Q$\n---\nO produto escalar mede o quanto duas setas apontam para o mesmo lado, sem fórmula aqui. Depois vem $x$.\n{extra}")).unwrap();
        // The home page's "experimente" box links to this page.
        fs::write(article.join("03-decodificador.md"), "---\ntitulo: O decodificador\ndescricao: Um modelo.\n---\nTexto.\n").unwrap();
        root
    }

    #[test]
    fn the_site_reads_in_order_with_slugs_from_file_names() {
        let root = tiny_content("read", "");
        let site = read_site(&root, Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../src/gpu/shaders")));
        fs::remove_dir_all(&root).ok();
        let (article, sections) = &site.articles[0];
        assert_eq!((article.slug.as_str(), article.title.as_str(), article.summary.as_str()), ("vetores", "Vetores", "Setas e números."));
        assert_eq!(article.highlights, vec!["bow".to_string()]);
        assert_eq!(sections.iter().map(|s| s.slug.as_str()).collect::<Vec<_>>(), ["soma", "produto", "decodificador"]);
        assert_eq!(sections[0].description, "Como somar.", "descricao wins");
        assert_eq!(article.description, "Setas e números.", "then resumo");
        assert_eq!(
            sections[1].description,
            "O produto escalar mede o quanto duas setas apontam para o mesmo lado, sem fórmula aqui.",
            "then the opening sentences without a formula"
        );
        assert!(sections[0].html.contains("widget-placeholder"));
        assert_eq!(site.start.slug, "index");
        assert!(site.start.html.contains("href=\"vetores.html\""));
    }

    #[test]
    #[should_panic(expected = "link to `#/nenhuma`, which no page has")]
    fn a_link_to_no_page_fails_the_build() {
        let root = tiny_content("link", "\n[perdido](#/nenhuma)\n");
        let result = std::panic::catch_unwind(|| read_site(&root, Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../src/gpu/shaders"))));
        fs::remove_dir_all(&root).ok();
        std::panic::resume_unwind(result.err().expect("the link is refused"));
    }

    #[test]
    fn pages_of_no_article_and_pages_of_optional_depth() {
        let root = tiny_content("avulsas", "");
        fs::write(root.join("01-artigos-originais.md"), "---\ntitulo: Os artigos originais\ndescricao: De onde vem o texto.\n---\nCinco posts.\n").unwrap();
        fs::write(
            root.join("01-vetores").join("04-fundo.md"),
            "---\ntitulo: Fundo\ndescricao: As contas.\naprofundamento: a derivada de $x^2$ é $2x$.\n---\nA derivação.\n",
        )
        .unwrap();
        let site = read_site(&root, Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../src/gpu/shaders")));
        fs::remove_dir_all(&root).ok();
        assert_eq!(site.pages.iter().map(|p| p.slug.as_str()).collect::<Vec<_>>(), [SOURCES_SLUG]);
        assert_eq!(site.articles[0].1.len(), 4, "a top-level page is no article's section");
        let depth = &site.articles[0].1[3].html;
        assert!(depth.starts_with("<div class=\"aprofundamento\" role=\"note\"><p class=\"aprofundamento-rotulo\">Aprofundamento opcional</p>"), "{depth}");
        assert!(depth.contains("<strong>O resultado:</strong> a derivada de <math") && depth.contains("<p>A derivação.</p>"), "{depth}");
    }

    #[test]
    fn the_running_example_is_the_same_sentence_on_every_page_that_carries_it() {
        // Issue 37: one sentence from the tokenizer to the block; a page that drifts to
        // another text would break the thread the prose promises.
        let article = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../content/05-explicando-transformers"));
        let attribute = format!("data-text=\"{}\"", atencao_core::transformer::RUNNING_EXAMPLE);
        for (page, widget) in [("03-tokenizacao-por-caractere.md", "char-tokenizer"), ("05-embeddings.md", "embedding-lookup"), ("11-bloco-transformer.md", "transformer-block")] {
            let text = fs::read_to_string(article.join(page)).unwrap();
            assert!(text.contains(&format!("<div data-widget=\"{widget}\" {attribute}></div>")), "{page}: the {widget} does not start from the running example");
            assert!(text.contains(&format!("\"{}\"", atencao_core::transformer::RUNNING_EXAMPLE)), "{page}: the prose does not name it");
        }
    }

    #[test]
    fn order_prefixes_are_not_part_of_the_slug() {
        assert_eq!(strip_order(Path::new("content/03-tf-idf.md")), "tf-idf");
        assert_eq!(strip_order(Path::new("content/tf-idf.md")), "tf-idf");
        assert!(std::panic::catch_unwind(|| strip_order(Path::new("content/01-Ação.md"))).is_err());
    }

    #[test]
    fn front_matter_is_split_from_the_body() {
        assert_eq!(split_front_matter("---\ntitulo: A\n---\n\ncorpo"), Some(("titulo: A", "corpo")));
        assert_eq!(split_front_matter("sem front matter"), None);
    }

    #[test]
    #[should_panic(expected = "link to the glossary term `inexistente`, which content/_glossario.md does not define")]
    fn a_link_to_an_undefined_term_fails_the_build() {
        let root = tiny_content("glossario-link", "\nVeja [isto](#/glossario#inexistente).\n");
        fs::write(root.join(glossary::FILE), "---\ntitulo: Glossário\ndescricao: Os termos.\n---\nOs termos.\n\n## vetor (vector)\nUma lista.\n").unwrap();
        let result = std::panic::catch_unwind(|| read_site(&root, Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../src/gpu/shaders"))));
        fs::remove_dir_all(&root).ok();
        std::panic::resume_unwind(result.err().expect("the link is refused"));
    }

    #[test]
    fn a_link_to_a_defined_term_is_written_and_the_pages_link_their_terms() {
        let root = tiny_content("glossario-ok", "\nVeja [o vetor](#/glossario#vetor); somar vetores.\n");
        fs::write(root.join(glossary::FILE), "---\ntitulo: Glossário\ndescricao: Os termos.\n---\nOs termos.\n\n## vetor (vector)\nformas: vetor, vetores\nUma lista.\n").unwrap();
        let site = read_site(&root, Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../src/gpu/shaders")));
        fs::remove_dir_all(&root).ok();
        let produto = &site.articles[0].1[1].html;
        assert!(produto.contains("<a href=\"glossario.html#vetor\" data-glossary=\"vetor\">o vetor</a>; somar vetores."), "{produto}");
        let intro = &site.articles[0].0.html;
        assert!(intro.contains("<a href=\"glossario.html#vetor\" data-glossary=\"vetor\">vetores</a>"), "{intro}");
        assert!(site.pages.iter().any(|p| p.slug == glossary::SLUG && !p.html.contains("data-glossary")), "the glossary page links none of its own terms");
    }

    #[test]
    fn the_sites_glossary_defines_at_least_forty_terms_that_the_pages_use() {
        let content = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../content"));
        let site = read_site(content, Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../src/gpu/shaders")));
        let glossary = site.pages.iter().find(|p| p.slug == glossary::SLUG).expect("the glossary page");
        let terms = glossary.html.matches("<dt id=\"").count();
        assert!(terms >= 40, "{terms} terms");
        let linking = site.articles.iter().flat_map(|(a, s)| std::iter::once(a).chain(s)).chain(&site.pages).filter(|p| p.html.contains(" data-glossary=\"")).count();
        assert!(linking >= 40, "{linking} pages link a term");
        // Every term with its English name: `(<span lang="en">…</span>)` in each <dt>.
        assert_eq!(glossary.html.matches("<span class=\"glossary-en\">(<span lang=\"en\">").count(), terms);
    }
}
