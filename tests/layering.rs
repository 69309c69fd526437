//! The code reads bottom-up: no file of `core/src`, `src/` or `site/src` reaches, through its
//! `crate::…`, `super::…` and `self::…` paths, a file that reaches back to it. In core that is
//! matrix → ops → op table → executor → models; in the web layer, the kit below the widgets.
//! A circle is reported with the files on it, so whoever adds one sees where.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `root`, by its path relative to `root`.
fn sources(root: &Path) -> BTreeMap<String, String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
        for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|x| x == "rs") {
                let rel = path.strip_prefix(root).expect("under root").to_string_lossy().replace('\\', "/");
                out.insert(rel, fs::read_to_string(&path).expect("readable source"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// The module path of a file: `decoder/model.rs` → [decoder, model]; `ops/mod.rs` → [ops].
fn module_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel.trim_end_matches(".rs").split('/').map(String::from).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The source without comments (line comments and doc comments), so prose naming a path is
/// not an import.
fn without_comments(src: &str) -> String {
    src.lines().map(|line| line.split_once("//").map_or(line, |(code, _)| code)).collect::<Vec<_>>().join("\n")
}

/// Expands `a::{b, c::{d, e}}` into `a::b`, `a::c::d`, `a::c::e`.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else { return vec![tree.to_string()] };
    let prefix = &tree[..open];
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let (mut parts, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, ch) in inner.char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&inner[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).flat_map(|p| expand(p)).map(|p| format!("{prefix}{p}")).collect()
}

/// Every path that starts with `crate`, `super` or `self`, from `use` trees and from code.
fn local_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    // `use` items: a line that starts with `use` or `pub … use`, up to its `;`.
    let mut lines = code.lines();
    while let Some(line) = lines.next() {
        let item = line.trim_start();
        let item = item.strip_prefix("pub(crate) ").or_else(|| item.strip_prefix("pub(super) ")).or_else(|| item.strip_prefix("pub ")).unwrap_or(item);
        let Some(tree) = item.strip_prefix("use ") else { continue };
        let mut tree = tree.to_string();
        while !tree.contains(';') {
            match lines.next() {
                Some(more) => tree.push_str(more),
                None => break,
            }
        }
        let tree = tree.split(';').next().unwrap_or_default();
        if tree.starts_with("crate") || tree.starts_with("super") || tree.starts_with("self") {
            paths.extend(expand(tree));
        }
    }
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(start) {
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_' || bytes[at - 1] == b':') {
                continue;
            }
            let end = code[at..].find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).map_or(code.len(), |e| at + e);
            paths.push(code[at..end].trim_end_matches(':').to_string());
        }
    }
    paths.into_iter().filter(|p| p.starts_with("crate") || p.starts_with("super") || p.starts_with("self")).collect()
}

/// The file a path names (the longest module prefix that is a file), if any.
fn resolve(from: &[String], path: &str, modules: &BTreeMap<Vec<String>, String>) -> Option<String> {
    let mut segments = path.split("::").map(str::trim).filter(|s| !s.is_empty()).peekable();
    let mut base: Vec<String> = match segments.peek().copied() {
        Some("crate") => {
            segments.next();
            Vec::new()
        }
        Some("self") => {
            segments.next();
            from.to_vec()
        }
        _ => {
            // `super` is the parent of the file's module (a/b.rs is a::b, a/mod.rs is a).
            let mut b = from.to_vec();
            while segments.peek() == Some(&"super") {
                segments.next();
                b.pop();
            }
            b
        }
    };
    base.extend(segments.map(|s| s.split(" as ").next().unwrap_or(s).trim().to_string()));
    (1..=base.len()).rev().find_map(|n| modules.get(&base[..n]).cloned())
}

/// The circles (strongly connected components of more than one file) of the import graph.
fn circles(root: &Path) -> Vec<Vec<String>> {
    let files = sources(root);
    let modules: BTreeMap<Vec<String>, String> = files.keys().map(|f| (module_of(f), f.clone())).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, src) in &files {
        let from = module_of(file);
        let targets = edges.entry(file.clone()).or_default();
        for path in local_paths(&without_comments(src)) {
            if let Some(target) = resolve(&from, &path, &modules) {
                if &target != file {
                    targets.insert(target);
                }
            }
        }
    }
    // Tarjan's algorithm.
    struct State<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(v: &'a str, s: &mut State<'a>) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        let edges = s.edges;
        for w in edges.get(v).into_iter().flatten() {
            if !s.index.contains_key(w.as_str()) {
                visit(w, s);
                let low = s.low[v].min(s.low[w.as_str()]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w.as_str()) {
                let low = s.low[v].min(s.index[w.as_str()]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State { edges: &edges, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), on_stack: BTreeSet::new(), found: Vec::new() };
    for v in edges.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(v, &mut state);
        }
    }
    state.found
}

fn assert_no_circle(dir: &str) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(dir);
    let found = circles(&root);
    assert!(found.is_empty(), "{dir}: files that import each other (directly or around a circle): {found:#?}");
}

#[test]
fn core_has_no_import_circle() {
    assert_no_circle("core/src");
}

#[test]
fn web_gpu_and_site_have_no_import_circle() {
    assert_no_circle("src");
}

/// The widgets draw; what computes where is the backend's and the runtime's (issue 36): no
/// widget reaches into the GPU layer.
#[test]
fn no_widget_imports_the_gpu_layer() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/web/widgets");
    let offenders: Vec<String> = sources(&root)
        .into_iter()
        .filter(|(_, code)| local_paths(&without_comments(code)).iter().any(|p| p == "crate::gpu" || p.starts_with("crate::gpu::")))
        .map(|(file, _)| file)
        .collect();
    assert!(offenders.is_empty(), "widgets that import crate::gpu: {offenders:?}");
}

#[test]
fn the_page_generator_has_no_import_circle() {
    assert_no_circle("site/src");
}

/// The checker itself finds a circle when there is one, through `super::` and a `use` group.
#[test]
fn a_circle_is_found() {
    let dir = std::env::temp_dir().join(format!("atencao-layering-{}", std::process::id()));
    fs::create_dir_all(dir.join("m")).unwrap();
    fs::write(dir.join("lib.rs"), "pub mod m;\npub mod base;\n").unwrap();
    fs::write(dir.join("base.rs"), "// crate::m::a is only named in prose here\npub struct B;\n").unwrap();
    fs::write(dir.join("m/mod.rs"), "pub mod a;\npub mod b;\n").unwrap();
    fs::write(dir.join("m/a.rs"), "use crate::{base::B, m::b::{self, Y}};\npub struct X;\n").unwrap();
    fs::write(dir.join("m/b.rs"), "pub struct Y;\nfn f() -> super::a::X { todo!() }\n").unwrap();
    let found = circles(&dir);
    fs::remove_dir_all(&dir).ok();
    assert_eq!(found, vec![vec!["m/a.rs".to_string(), "m/b.rs".to_string()]]);
}
