//! The prerendered pages that build.rs writes into target/site/ (issue 21), which
//! scripts/pages.sh turns into the site's `slug.html` files: one per page of the table of
//! contents plus the home page, the catalogue and the benchmark; real MathML, no LaTeX left
//! over; a meta description and Open Graph tags; the table of contents with the page marked;
//! a placeholder saying what each widget will show; only relative links between pages; the
//! contents folded per article, and the home page's widget, path and map (issue 22); the page on
//! the original articles, which every correction note links to (issue 37).

use atencao::site::{page_href, ARTICLES};
use atencao_site::without_annotations;

fn site_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/site")
}

fn part(name: &str, part: &str) -> String {
    let path = site_dir().join(format!("{name}.{part}.html"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn slugs() -> Vec<&'static str> {
    ARTICLES.iter().flat_map(|a| std::iter::once(a.slug).chain(a.sections.iter().map(|s| s.slug))).collect()
}

/// The pages of no article (content/NN-slug.md, issue 37): the original articles, the notation;
/// and the glossary (content/_glossario.md, issue 38).
const STANDALONE: [&str; 3] = ["artigos-originais", "notacao", "glossario"];

/// Issue 37: the original articles are introduced on a page of their own, and every page that
/// corrects them links to it, in the line that counts the notes and in each note.
#[test]
fn every_correction_links_to_the_page_on_the_original_articles() {
    let sources = part("artigos-originais", "main");
    assert!(sources.contains("<h1>Os artigos originais</h1>") && sources.contains("<h2 id=\"correcoes\">"), "the page and its section on corrections");
    assert!(sources.contains("href=\"notacao.html\""), "it links the notation table");
    let mut pages = 0;
    for name in slugs() {
        let main = part(name, "main");
        let notes = main.matches("<details class=\"correcao\">").count();
        if notes == 0 {
            continue;
        }
        pages += 1;
        assert!(main.contains("Esta página corrige") && main.contains("<a href=\"artigos-originais.html\">artigo original</a>"), "{name}: the count line links the page");
        assert_eq!(main.matches("<p class=\"correcao-fonte\"><a href=\"artigos-originais.html#correcoes\">").count(), notes, "{name}: every note links the page");
    }
    assert!(pages >= 20, "only {pages} pages with correction notes");
}

#[test]
fn every_page_has_its_rendered_prose() {
    let mut with_math = 0;
    let mut pages = 0;
    for slug in slugs() {
        let html = part(slug, "main");
        assert!(html.len() > 200, "{slug}: page too short ({} bytes)", html.len());
        assert!(html.starts_with(&format!("<main id=\"app\" data-site data-page=\"{slug}\"")), "{slug}: {}", &html[..80]);
        assert_eq!(html.matches("<h1>").count(), 1, "{slug}: one heading");
        // MathML keeps its LaTeX source in <annotation>, which browsers do not show.
        let shown = without_annotations(&html);
        assert!(!shown.contains("$$") && !shown.contains("\\frac"), "{slug}: raw LaTeX left in the prose");
        assert!(!html.contains("<merror"), "{slug}: a formula failed to render");
        assert!(!html.contains("href=\"#/"), "{slug}: a link still in the old #/slug form");
        assert!(html.contains("class=\"pager\""), "{slug}: no links to the neighbouring pages");
        if html.contains("<math") {
            with_math += 1;
        }
        pages += 1;
    }
    assert!(pages >= 30, "only {pages} pages");
    assert!(with_math >= 20, "only {with_math} pages with formulas");
}

#[test]
fn the_page_list_names_every_page() {
    let listed = std::fs::read_to_string(site_dir().join("pages.txt")).expect("target/site/pages.txt");
    let listed: Vec<&str> = listed.lines().collect();
    let mut want = vec!["index"];
    want.extend(slugs());
    want.extend(STANDALONE);
    want.extend(["catalogo", "bench"]);
    assert_eq!(listed, want);
}

#[test]
fn every_page_has_a_description_and_open_graph_tags() {
    let mut names = vec!["index", "catalogo", "bench"];
    names.extend(slugs());
    names.extend(STANDALONE);
    let mut descriptions = std::collections::BTreeSet::new();
    for name in names {
        let head = part(name, "head");
        let description = head
            .split("<meta name=\"description\" content=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_else(|| panic!("{name}: no meta description"));
        let text = description.replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
        let length = text.chars().count();
        assert!((40..=210).contains(&length), "{name}: a description of {length} characters: {description}");
        assert!(!description.contains('$') && !description.contains('\\'), "{name}: LaTeX in the description: {description}");
        descriptions.insert(description.to_string());
        for property in ["og:title", "og:description", "og:type"] {
            assert!(head.contains(&format!("<meta property=\"{property}\" content=\"")), "{name}: no {property}");
        }
        assert_eq!(head.matches("<title>").count(), 1, "{name}: one title");
    }
    // Every page says something of its own.
    assert!(descriptions.len() >= slugs().len(), "pages share descriptions");
}

#[test]
fn the_table_of_contents_marks_the_page() {
    for slug in slugs() {
        let toc = part(slug, "toc");
        assert!(toc.starts_with("<nav id=\"toc\""), "{slug}");
        let current = format!("href=\"{}\" aria-current=\"page\"", page_href(slug));
        assert_eq!(toc.matches(&current).count(), 1, "{slug}: its own link marked once");
        assert_eq!(toc.matches("aria-current").count(), 1, "{slug}: only its own link marked");
    }
    assert!(!part("index", "toc").contains("aria-current"), "the home page is not in the contents");
}

#[test]
fn widgets_have_placeholders() {
    let mut widgets = 0;
    for slug in slugs() {
        let html = part(slug, "main");
        for piece in html.split("<div data-widget=\"").skip(1) {
            let after_tag = &piece[piece.find('>').expect("a closed tag") + 1..];
            assert!(after_tag.starts_with("<p class=\"widget-placeholder\">"), "{slug}: a widget without a placeholder");
            widgets += 1;
        }
    }
    assert!(widgets >= 30, "only {widgets} widgets");
}

#[test]
fn the_contents_fold_per_article_with_the_current_one_open() {
    let mut names = vec!["index", "catalogo", "bench"];
    names.extend(slugs());
    for name in names {
        let toc = part(name, "toc");
        assert_eq!(toc.matches("<details").count(), ARTICLES.len(), "{name}: one fold per article");
        let open: Vec<&str> = ARTICLES
            .iter()
            .filter(|a| {
                let after = toc.split(&format!("class=\"toc-article\" href=\"{}\"", page_href(a.slug))).nth(1).expect("the article's link");
                after.split("<details").nth(1).is_some_and(|rest| rest.starts_with(" open>"))
            })
            .map(|a| a.slug)
            .collect();
        let current = ARTICLES.iter().find(|a| a.slug == name || a.sections.iter().any(|s| s.slug == name)).map(|a| a.slug);
        assert_eq!(open, current.into_iter().collect::<Vec<_>>(), "{name}: the open folds");
    }
}

#[test]
fn the_home_page_has_its_widget_path_and_map() {
    let home = part("index", "main");
    // The widget at the top waits for the reader, with a preview that reads without JavaScript.
    let top = home.split("<section class=\"start-path\"").next().expect("the path after the widget");
    // The real thing: the shipped decoder on a sentence of Machado (issue 37).
    assert!(top.contains("<div data-widget=\"decoder\" data-preset=\"machado\" data-on-demand>"), "no on-demand decoder at the top");
    assert!(top.contains("class=\"widget-placeholder on-demand\"") && top.contains("«Uma noite destas, vindo da cidade para o Engenho Novo»") && top.contains("on-demand-start"), "the preview");
    // "Comece aqui": an ordered list of pages that exist.
    let path = home.split("<section class=\"start-path\"").nth(1).and_then(|s| s.split("</section>").next()).expect("the path");
    let steps: Vec<&str> = path.split("<li><a href=\"").skip(1).map(|s| s.split('"').next().unwrap_or_default()).collect();
    assert!((4..=8).contains(&steps.len()), "{} steps", steps.len());
    for href in &steps {
        assert!(slugs().iter().any(|s| page_href(s) == *href), "the path links {href}, no page");
    }
    // The map: one card per article, linking its first page.
    assert_eq!(home.matches("<article class=\"card\"").count(), ARTICLES.len());
    for article in ARTICLES {
        let card = home.split(&format!("data-article=\"{}\"", article.slug)).nth(1).and_then(|s| s.split("</article>").next()).expect("a card per article");
        assert!(card.contains(&format!("<h3><a href=\"{}\">", page_href(article.slug))), "{}: the card's link", article.slug);
        assert!(card.contains(&format!("{} seções", article.sections.len())), "{}: the section count", article.slug);
        assert!(card.matches("data-widget-kind=").count() >= 2, "{}: the card names its widgets", article.slug);
    }
}

/// A decimal number in a formula is one `<mn>` ("0,03995"): split into digits, a comma operator
/// and digits, browsers space it like the list "0, 03995".
#[test]
fn decimal_numbers_in_formulas_are_one_number() {
    for slug in slugs() {
        let html = part(slug, "main");
        assert!(!html.contains("</mn><mrow><mo>,</mo></mrow><mn>"), "{slug}: a decimal comma split into an operator");
    }
    let html = part("mascaramento-com-embeddings", "main");
    assert!(html.contains("<mn>0,03995</mn>"), "the scores of the masking example are not single numbers");
}

/// Punctuation right after an inline formula stays on the formula's line: the two go in one
/// `<span class="nw">`, since a browser may break a line after a formula.
#[test]
fn punctuation_after_an_inline_formula_does_not_start_a_line() {
    let mut glued = 0;
    for slug in slugs() {
        let html = part(slug, "main");
        let mut rest = html.as_str();
        while let Some(start) = rest.find("<math display=\"inline\"") {
            let end = start + rest[start..].find("</math>").expect("a closed formula") + "</math>".len();
            let after = rest[end..].chars().next().unwrap_or(' ');
            if matches!(after, '.' | ',' | ';' | ':' | '!' | '?' | ')') {
                assert!(rest[..start].ends_with("<span class=\"nw\">"), "{slug}: «{after}» can start a line after {}", &rest[start..end.min(start + 120)]);
                glued += 1;
            }
            rest = &rest[end..];
        }
    }
    assert!(glued > 100, "only {glued} formulas followed by punctuation");
}

/// Every page of an article opens with the map of the model (issue 37), prerendered, its own
/// part marked once; each part links to a page, and the page is named among its part's pages.
#[test]
fn every_article_page_has_the_map_with_its_part_marked() {
    for slug in slugs() {
        let html = part(slug, "main");
        let start = html.find("<nav class=\"model-map\" data-model-map data-pagefind-ignore").unwrap_or_else(|| panic!("{slug}: no map of the model"));
        let map = &html[start..start + html[start..].find("</nav>").expect("the map ends")];
        assert_eq!(map.matches("aria-current").count(), 1, "{slug}: one part marked");
        assert!(map.matches("<li data-part=").count() >= 10, "{slug}: the whole model, road included");
        assert!(map.contains("Nesta parte:") && map.contains("<strong>"), "{slug}");
    }
    for other in ["index", "catalogo", "bench"] {
        assert!(!part(other, "main").contains("data-model-map"), "{other}: the map is for the articles' pages");
    }
}
