//! The page prose that build.rs renders from content/ into target/prose/<slug>.html, which the
//! site fetches when a page opens (site::prose_path): one file per page of the table of
//! contents, real MathML, no LaTeX left over.

use atencao::site::{prose_path, ARTICLES};

#[test]
fn every_page_has_its_rendered_prose() {
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    let mut with_math = 0;
    let mut pages = 0;
    for article in ARTICLES {
        let slugs = std::iter::once(article.slug).chain(article.sections.iter().map(|s| s.slug));
        for slug in slugs {
            let path = target.join(prose_path(slug));
            let html = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(html.len() > 200, "{slug}: prose too short ({} bytes)", html.len());
            // MathML keeps its LaTeX source in <annotation>, which browsers do not show.
            let shown = without_annotations(&html);
            assert!(!shown.contains("$$") && !shown.contains("\\frac"), "{slug}: raw LaTeX left in the prose");
            assert!(!html.contains("<merror"), "{slug}: a formula failed to render");
            if html.contains("<math") {
                with_math += 1;
            }
            pages += 1;
        }
    }
    assert!(pages >= 30, "only {pages} pages");
    assert!(with_math >= 20, "only {with_math} pages with formulas");
}

fn without_annotations(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(start) = rest.find("<annotation") {
        out.push_str(&rest[..start]);
        rest = rest[start..].find("</annotation>").map_or("", |end| &rest[start + end + "</annotation>".len()..]);
    }
    out.push_str(rest);
    out
}
