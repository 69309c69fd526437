//! The site never parses HTML from a string at run time. The only HTML it has is the
//! build-time prose, which build.rs renders from content/ into the prerendered pages
//! themselves (issue 21: `slug.html`), so the browser parses it as the document it loads.
//! Everything a reader or an embedder supplies goes in as text.

/// The audit of issue 9, kept true and made stricter by issue 21: no HTML sink at all in the
/// site's code (until then, the two places that inserted the fetched prose). The reader's text,
/// the URL's and the data attributes' are set as text.
#[test]
fn html_is_never_parsed_from_strings() {
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
    let sinks = [
        "inner_html", "innerHTML", "outer_html", "outerHTML", "insertAdjacentHTML", "insert_adjacent_html", "document.write",
        "set_html_unsafe", "setHTMLUnsafe", "eval(", "parseFromString", "parse_from_string", "createContextualFragment",
        "create_contextual_fragment", "srcdoc", "new Function",
    ];
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
    assert!(found.is_empty(), "HTML parsed from a string at run time (the prose belongs in the prerendered pages):\n{found:#?}");
}
