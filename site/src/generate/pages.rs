//! The parts of every prerendered page: its head (title, description, Open Graph), its table
//! of contents with itself marked, and its whole `<main>` (heading, prose, neighbours, widget
//! placeholders); and the pages the generator writes itself (the home page, the catalogue's
//! text, the benchmark's frame).

use std::fmt::Write as _;
use std::path::Path;

use super::content::{Page, Site};
use super::map::ModelMap;
use super::files::write_if_changed;
use super::glossary;
use super::markdown::{esc, typeset, with_placeholders};
use crate::page_href;
use crate::widgets;

/// One page of the built site, as `prerender` writes it.
struct Prerendered {
    /// File name without `.html` (`index` for the home page), also `<main data-page>`.
    name: String,
    title: String,
    description: String,
    og_type: &'static str,
    main: String,
}

/// Writes the parts of every page into `dir` (see `generate`'s documentation).
pub fn prerender(site: &Site, map: &ModelMap, dir: &Path) {
    let (articles, start) = (&site.articles, &site.start);
    let titles = |slug: &str| title_of(articles, slug);
    // Reading order: each article's introduction, then its sections.
    let order: Vec<(&Page, Option<&Page>)> = articles
        .iter()
        .flat_map(|(article, sections)| std::iter::once((article, None)).chain(sections.iter().map(move |s| (s, Some(article)))))
        .collect();
    let mut pages = vec![home(articles, start)];
    for (i, (page, article)) in order.iter().enumerate() {
        let mut main = String::new();
        if let Some(article) = article {
            writeln!(main, "<p class=\"breadcrumb\" data-pagefind-ignore><a href=\"{}\">{}</a></p>", page_href(&article.slug), esc(&article.title)).unwrap();
        }
        // Under the heading, where the page sits in the whole model.
        writeln!(main, "<h1>{}</h1>\n{}<div class=\"prose\">\n{}</div>", esc(&page.title), map.html(&page.slug, &titles), page.html).unwrap();
        if article.is_none() {
            // An article's introduction lists its sections: each with what it says (its
            // description) and what the reader can try there (its widgets, by title).
            let (_, sections) = articles.iter().find(|(a, _)| a.slug == page.slug).expect("an article of the list");
            main.push_str("<h2 id=\"secoes\">As seções</h2>\n<ol class=\"section-list\" data-pagefind-ignore>\n");
            for s in sections {
                write!(main, "<li><a href=\"{}\">{}</a>\n<p>{}</p>", page_href(&s.slug), esc(&s.title), esc(&s.description)).unwrap();
                let tried: Vec<String> = widget_kinds(&s.html).iter().filter_map(|k| widgets::doc(k)).map(|d| typeset(d.title)).collect();
                if !tried.is_empty() {
                    write!(main, "<p class=\"section-widgets\">Para experimentar: {}</p>", tried.join(" · ")).unwrap();
                }
                main.push_str("</li>\n");
            }
            main.push_str("</ol>\n");
        }
        // The previous and next pages in reading order, across articles.
        main.push_str("<nav class=\"pager\" data-pagefind-ignore aria-label=\"Páginas vizinhas\">");
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
    // Pages of no article (the original articles, the notation): heading and prose, linked from
    // the footer and from the prose.
    for page in &site.pages {
        pages.push(Prerendered {
            name: page.slug.clone(),
            title: page.title.clone(),
            description: page.description.clone(),
            og_type: "article",
            main: format!("<h1>{}</h1>\n<div class=\"prose\">\n{}</div>\n", esc(&page.title), page.html),
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
        let mut head = head(page);
        if page.main.contains("<section class=\"checkpoint\"") {
            head.push_str(super::checkpoints::HEAD);
        }
        // The search index (scripts/search-index.sh) reads the prose of the articles' pages and
        // of the pages of no article, not their navigation (marked data-pagefind-ignore).
        let body = if page.og_type == "article" { " data-pagefind-body" } else { "" };
        let module = page_module(page);
        let main = format!("<main id=\"app\" data-site data-page=\"{}\" data-module=\"{module}\" tabindex=\"-1\"{body}>\n{}</main>\n", page.name, page.main);
        let mut toc = toc_items(articles, &page.name);
        if let Some(glossary) = site.pages.iter().find(|p| p.slug == glossary::SLUG) {
            let mark = if page.name == glossary.slug { " aria-current=\"page\"" } else { "" };
            writeln!(toc, "<p class=\"toc-glossary\"><a href=\"{}\"{mark}>{}</a></p>", page_href(&glossary.slug), esc(&glossary.title)).unwrap();
        }
        write_if_changed(&dir.join(format!("{}.head.html", page.name)), &head);
        write_if_changed(&dir.join(format!("{}.toc.html", page.name)), &format!("<nav id=\"toc\" aria-label=\"Sumário\">\n{toc}</nav>\n"));
        write_if_changed(&dir.join(format!("{}.main.html", page.name)), &main);
        names.push_str(&page.name);
        names.push('\n');
    }
    write_if_changed(&dir.join("pages.txt"), &names);
    // The build each widget kind is in, for embed.js (scripts/pages.sh stamps it there).
    write_if_changed(&dir.join("embed-builds.js"), &format!("{}\n", widgets::builds_for_embed()));
}

/// The build of the page's module that static/site.js loads for `page` (issue 36): the one
/// whose widgets the page has. The catalogue mounts a live example of every kind; the
/// benchmark page times the decoder.
fn page_module(page: &Prerendered) -> &'static str {
    match page.name.as_str() {
        "catalogo" => widgets::module::FULL,
        "bench" => widgets::module::MODELS,
        _ => widgets::module_for(widget_kinds(&page.main).iter().map(String::as_str)),
    }
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
pub fn toc_items(articles: &[(Page, Vec<Page>)], current: &str) -> String {
    let link = |slug: &str, class: &str, title: &str| {
        let class = if class.is_empty() { String::new() } else { format!(" class=\"{class}\"") };
        let mark = if slug == current { " aria-current=\"page\"" } else { "" };
        format!("<a{class} href=\"{}\"{mark}>{}</a>", page_href(slug), esc(title))
    };
    let mut toc = String::from("<ol class=\"toc-articles\">\n");
    for (article, sections) in articles {
        let open = article.slug == current || sections.iter().any(|s| s.slug == current);
        // How many checkpoints the article has: static/checkpoints.js shows how many are solved.
        let checks: usize = std::iter::once(article).chain(sections).map(|p| super::checkpoints::ids(&p.html).len()).sum();
        let checks = if checks > 0 { format!(" data-checkpoints=\"{checks}\"") } else { String::new() };
        write!(
            toc,
            "<li class=\"toc-group\"{checks}>{}\n<details{}><summary><span class=\"visually-hidden\">Seções de {}</span></summary>\n<ol class=\"toc-sections\">\n",
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

/// The decoder's example the home page opens with (`core::decoder::presets`).
const HOME_PRESET: &str = "machado";

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
    // The real thing: a sentence of Machado de Assis going through the shipped model, its
    // tokens, the next token's probabilities and where each head looks (the decoder widget;
    // its model downloads only on the click).
    let preset = atencao_core::decoder::presets::preset(HOME_PRESET).expect("the home page's preset exists");
    assert!(widgets::doc("decoder").is_some_and(|d| d.attribute("data-preset").is_some()), "the decoder widget takes a preset");
    write!(
        main,
        "<section class=\"home-try\" aria-labelledby=\"experimente\">\n<h2 id=\"experimente\">Experimente: um modelo de linguagem, calculado aqui</h2>\n\
         <p>Uma frase de verdade passando por um Transformer de verdade, treinado em Machado de Assis: os tokens em que ela \
         se divide, a probabilidade de cada próximo token e para onde cada cabeça de atenção olha. Tudo roda no seu navegador; \
         a página <a href=\"{page}\">{title}</a> explica cada parte.</p>\n\
         <div data-widget=\"decoder\" data-preset=\"{id}\" data-on-demand><div class=\"widget-placeholder on-demand\">\
         <p><strong class=\"widget-placeholder-label\">Exemplo interativo.</strong> O decodificador pré-treinado lê \
         «{prompt}» e mostra os tokens, as barras do próximo token e a atenção; depois, gere o resto da frase. \
         O modelo (alguns MB) só é baixado quando você pedir.</p>\n\
         <button type=\"button\" class=\"btn on-demand-start\">experimentar aqui</button></div></div>\n</section>\n",
        page = page_href("decodificador"),
        title = esc(&title_of(articles, "decodificador")),
        id = preset.id,
        prompt = esc(preset.prompt.trim_end_matches(',')),
    )
    .unwrap();

    // Comece aqui: the path, written in content/_inicio.md (its links checked like any page's).
    writeln!(main, "<section class=\"start-path\" aria-labelledby=\"comece-aqui\">\n{}</section>", start.html.replacen("<h2>", "<h2 id=\"comece-aqui\">", 1)).unwrap();

    // The map of the series.
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
                let title = widgets::doc(kind).map(|d| d.title).unwrap_or_else(|| panic!("site/src/widgets.rs: no widget «{kind}»"));
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
        .unwrap_or_else(|| panic!("the home page links to «{slug}», which no page has"))
}

/// The catalogue, written whole: every documented kind with its title, summary, attributes,
/// the HTML to paste into a blog post and the element of its live example. The wasm (the full
/// build) then only mounts the examples, makes the snippets' script address absolute and wires
/// the copy buttons (`web::catalogue`), so the documentation's texts are not in any wasm.
fn catalogue_main() -> String {
    let mut main = String::from(
        "<h1>Catálogo de widgets</h1>\n<p class=\"lead\">Cada widget deste tutorial funciona em qualquer página, por exemplo num post de blog: \
         carregue o script uma vez e ponha um elemento com data-widget onde quiser que o widget apareça. Os atributos data-… configuram cada um; \
         sem eles, o widget mostra o exemplo do artigo original.</p>\n",
    );
    main.push_str(
        "<p class=\"muted page-loading\">Os exemplos ao vivo deste catálogo são desenhados pelo WebAssembly do site: aparecem assim que ele carregar \
         (precisa de JavaScript).</p>\n",
    );
    main.push_str("<h2>Como incorporar</h2>\n");
    main.push_str(&snippet_block(&format!("{}\n<div data-widget=\"attention\"></div>", widgets::EMBED_SCRIPT), "como-incorporar"));
    main.push_str(
        "<p class=\"note\">O script é um módulo ES sem código inline: funciona sob uma Content-Security-Policy estrita \
         (script-src 'self' 'wasm-unsafe-eval'). Cada widget fica isolado num shadow root (o CSS da página não o \
         altera e o dele não vaza), só é montado quando chega perto da tela, e todos os widgets da página \
         compartilham um único módulo WebAssembly e uma única GPU. Servido de outro domínio, o site precisa \
         responder com o cabeçalho Access-Control-Allow-Origin, para que o blog possa carregar o script.</p>\n",
    );
    main.push_str("<nav class=\"catalogue-index\" aria-label=\"Índice dos widgets\">\n<h2>Os widgets</h2>\n<ul>\n");
    for doc in widgets::WIDGETS {
        writeln!(main, "<li><a href=\"#w-{}\">{}</a></li>", esc(doc.name), typeset(doc.title)).unwrap();
    }
    main.push_str("</ul>\n</nav>\n");
    for doc in widgets::WIDGETS {
        let name = esc(doc.name);
        writeln!(main, "<section class=\"catalogue-entry\" data-kind=\"{name}\" id=\"w-{name}\">").unwrap();
        writeln!(main, "<h2>{}<code class=\"kind-name\">{name}</code></h2>\n<p>{}</p>", esc(doc.title), typeset(doc.summary)).unwrap();
        if doc.attributes.is_empty() {
            main.push_str("<p class=\"note\">Sem atributos: o widget mostra o exemplo do artigo original.</p>\n");
        } else {
            main.push_str("<table class=\"catalogue-attributes\">\n<caption>Atributos</caption>\n<tr><th>atributo</th><th>o que define</th><th>valores</th></tr>\n");
            for a in doc.attributes {
                let attribute = esc(a.name);
                writeln!(main, "<tr data-attribute=\"{attribute}\"><th scope=\"row\"><code>{attribute}</code></th><td>{}</td><td>{}</td></tr>", esc(a.meaning), esc(a.values)).unwrap();
            }
            main.push_str("</table>\n");
        }
        let snippet = widgets::snippet(doc);
        main.push_str(&snippet_block(&format!("{}\n{snippet}", widgets::EMBED_SCRIPT), doc.name));
        // The live example: the snippet's own element (with the placeholder a page without
        // JavaScript shows), mounted by the wasm as a blog mounts it.
        writeln!(main, "{}\n</section>", with_placeholders(&snippet, "catalogo")).unwrap();
    }
    main
}

/// A snippet to paste (its text escaped), a copy button and the copy's status.
fn snippet_block(code: &str, id: &str) -> String {
    format!(
        "<div class=\"snippet\"><pre><code data-snippet=\"{}\">{}</code></pre><button class=\"btn\" type=\"button\" data-action=\"copy\" aria-label=\"copiar o código\">copiar</button><span class=\"copy-status\" role=\"status\"></span></div>\n",
        esc(id),
        esc(code)
    )
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::content::{read_site, tests::tiny_content};
    use std::fs;

    #[test]
    fn every_page_is_written_with_its_head_contents_and_neighbours() {
        let root = tiny_content("pages", "");
        let site = read_site(&root, Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../src/gpu/shaders")));
        let out = root.join("out");
        fs::create_dir_all(&out).unwrap();
        fs::write(root.join("_mapa.txt"), "caminho | v | Vetores | vetores, soma\nmodelo | p | Produto | produto, decodificador\n").unwrap();
        let map = crate::generate::map::read_map(&root.join("_mapa.txt"), &site);
        prerender(&site, &map, &out);
        let read = |name: &str| fs::read_to_string(out.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(read("pages.txt"), "index\nvetores\nsoma\nproduto\ndecodificador\ncatalogo\nbench\n");
        let soma = read("soma.main.html");
        assert!(soma.starts_with("<main id=\"app\" data-site data-page=\"soma\" data-module=\"atencao-sequences\""), "{soma}");
        // Each page names the build of the page's module with its widgets: the home page's
        // decoder, the catalogue's every kind, the benchmark's decoder.
        let module = |page: &str| read(&format!("{page}.main.html")).split("data-module=\"").nth(1).and_then(|r| r.split('"').next()).map(str::to_string);
        assert_eq!(module("index").as_deref(), Some("atencao-resident"));
        assert_eq!(module("catalogo").as_deref(), Some("atencao"));
        assert_eq!(module("bench").as_deref(), Some("atencao-models"));
        assert!(soma.contains("<p class=\"breadcrumb\" data-pagefind-ignore><a href=\"vetores.html\">Vetores</a></p>"), "{soma}");
        assert!(soma.contains("rel=\"prev\" href=\"vetores.html\">← Vetores</a>") && soma.contains("rel=\"next\" href=\"produto.html\">Produto $W^Q$ →</a>"), "{soma}");
        let intro = read("vetores.main.html");
        assert!(intro.contains("<ol class=\"section-list\" data-pagefind-ignore>"), "an article lists its sections");
        assert!(intro.contains("<li><a href=\"soma.html\">Soma de vetores</a>\n<p>Como somar.</p><p class=\"section-widgets\">Para experimentar: "), "each with its description and its widgets: {intro}");
        assert!(soma.contains("<li data-part=\"v\"><a href=\"vetores.html\" aria-current=\"location\">Vetores</a></li>"), "the map marks the page's part: {soma}");
        assert!(!read("catalogo.main.html").contains("data-model-map"), "only the articles' pages carry the map");
        assert!(read("soma.head.html").contains("<title>Soma de vetores · atenção</title>") && read("soma.head.html").contains("content=\"Como somar.\""));
        let toc = read("soma.toc.html");
        assert!(toc.contains("<a href=\"soma.html\" aria-current=\"page\">Soma de vetores</a>") && toc.contains("<details open>"), "{toc}");
        assert!(!read("catalogo.toc.html").contains("<details open>"), "closed on pages of no article");
        let home = read("index.main.html");
        assert!(home.contains("data-article=\"vetores\"") && home.contains(&format!("data-widget-kind=\"bow\">{}</a>", esc(crate::widgets::BOW.title))), "{home}");
        fs::remove_dir_all(&root).ok();
    }

    #[test]
    fn the_contents_table_is_rust_the_wasm_includes() {
        let root = tiny_content("table", "");
        let site = read_site(&root, Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../src/gpu/shaders")));
        fs::remove_dir_all(&root).ok();
        let table = crate::generate::contents_table(&site);
        assert!(table.contains("Article { slug: \"vetores\", title: \"Vetores\", summary: \"Setas e números.\", sections: &["), "{table}");
        assert!(table.contains("  Section { slug: \"produto\", title: \"Produto $W^Q$\" },"), "{table}");
    }

    #[test]
    fn widget_kinds_are_listed_once_in_order() {
        assert_eq!(widget_kinds("<div data-widget=\"b\"></div><div data-widget=\"a\"></div><div data-widget=\"b\"></div>"), ["b", "a"]);
    }
}
