//! The site parses HTML from a string in exactly one place: the build-time prose (generated
//! from content/ by build.rs). Everything a reader or an embedder supplies goes in as text.

/// The audit of issue 9, kept true: HTML is parsed from strings in exactly two places, the
/// page prose that build.rs renders from content/ at build time (served as `prose/<slug>.html`). Every
/// other text, the reader's and the URL's and the data attributes' included, is set as text.
#[test]
fn html_is_parsed_only_from_build_time_prose() {
    fn sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                sources(&path, out);
            } else if matches!(path.extension().and_then(|e| e.to_str()), Some("rs" | "js" | "html")) {
                out.push(path);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "core/src", "embed", "static"] {
        sources(&root.join(dir), &mut files);
    }
    files.push(root.join("index.html"));
    files.push(root.join("sw.js"));
    let sinks = ["inner_html", "innerHTML", "outer_html", "outerHTML", "insertAdjacentHTML", "insert_adjacent_html", "document.write", "set_html_unsafe", "eval("];
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for (n, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            if sinks.iter().any(|s| code.contains(s)) {
                found.push(format!("{}:{}: {}", file.strip_prefix(root).unwrap().display(), n + 1, code));
            }
        }
    }
    let allowed = ["intro.set_inner_html(prose);", "prose.set_inner_html(prose_html);"];
    let unexpected: Vec<&String> = found.iter().filter(|f| !allowed.iter().any(|a| f.ends_with(a) && f.starts_with("src/web/pages.rs"))).collect();
    assert!(unexpected.is_empty(), "HTML parsed from a string outside the build-time prose:\n{unexpected:#?}");
    assert_eq!(found.len(), 2, "{found:#?}");
}
