//! README's widget table and the widget documentation (`site::widgets::WIDGETS`, which the
//! site's catalogue page shows for every registered kind) name the same kinds with the same
//! data attributes, so the documentation cannot drift from the code.

use std::collections::{BTreeMap, BTreeSet};

use atencao::site::widgets::WIDGETS;

/// README's widget table: kind → the `data-…` attributes named in its last column.
fn readme_table() -> BTreeMap<String, BTreeSet<String>> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README.md");
    let table = readme
        .lines()
        .skip_while(|line| *line != "| kind | what | attributes |")
        .skip(2)
        .take_while(|line| line.starts_with('|'));
    let mut rows = BTreeMap::new();
    for line in table {
        let cells: Vec<&str> = line.split(" | ").collect();
        let kind = cells.first().and_then(|c| c.strip_prefix("| `")).and_then(|c| c.strip_suffix('`'));
        let kind = kind.unwrap_or_else(|| panic!("a widget row starts with | `kind` |: {line}"));
        let attributes = cells.last().unwrap_or(&"");
        let names = attributes
            .split('`')
            .skip(1)
            .step_by(2)
            .filter_map(|quoted| quoted.split(['=', ' ']).next())
            .filter(|name| name.starts_with("data-"))
            .map(str::to_string)
            .collect();
        assert!(rows.insert(kind.to_string(), names).is_none(), "README lists `{kind}` twice");
    }
    assert!(!rows.is_empty(), "README has no widget table (| kind | what | attributes |)");
    rows
}

#[test]
fn readme_lists_every_documented_widget_with_its_attributes() {
    let readme = readme_table();
    let documented: BTreeMap<String, BTreeSet<String>> = WIDGETS
        .iter()
        .map(|w| (w.name.to_string(), w.attributes.iter().map(|a| a.name.to_string()).collect()))
        .collect();
    let readme_kinds: BTreeSet<_> = readme.keys().collect();
    let documented_kinds: BTreeSet<_> = documented.keys().collect();
    assert_eq!(readme_kinds, documented_kinds, "README's widget table and site::widgets::WIDGETS list different kinds");
    for (kind, attributes) in &documented {
        assert_eq!(&readme[kind], attributes, "attributes of `{kind}`: README (left) vs site::widgets::WIDGETS (right)");
    }
}

#[test]
fn every_kind_is_documented_once() {
    let mut seen = BTreeSet::new();
    for widget in WIDGETS {
        assert!(seen.insert(widget.name), "{} documented twice", widget.name);
        assert!(!widget.summary.is_empty(), "{} has no summary", widget.name);
        for attribute in widget.attributes {
            assert!(attribute.name.starts_with("data-") && !attribute.meaning.is_empty(), "{}: {}", widget.name, attribute.name);
        }
    }
}
