//! Checkpoints on the pages (issue 38): content places one with `<div data-checkpoint="KIND"></div>`
//! (a kind of `atencao_core::checkpoints::KINDS`); the page gets it prerendered (its first
//! instance, readable without JavaScript, the solution folded until asked for), the page's head
//! loads `static/checkpoints.js` and `static/checkpoints.css` (only pages with checkpoints do),
//! and `static/checkpoints/ID.json` (`{"t": title, "i": instances}`) holds the instances "outro exemplo" fetches. The script
//! builds an instance from that JSON into the same elements `body` writes here.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use atencao_core::checkpoints::{self, Answer, Block, Checkpoint};

use super::files::write_if_changed;
use super::markdown::esc;

/// Instances per checkpoint beyond the prerendered one: "outro exemplo" cycles through them.
pub const INSTANCES: u64 = 40;

/// What content writes to place a checkpoint.
const OPEN: &str = "<div data-checkpoint=\"";

/// The lines a page with checkpoints adds to its head: the script and its stylesheet.
pub const HEAD: &str = "    <link rel=\"stylesheet\" href=\"static/checkpoints.css\" />\n    <script type=\"module\" src=\"static/checkpoints.js\"></script>\n";

/// Replaces every `<div data-checkpoint="KIND"></div>` of page `slug`'s HTML by the prerendered
/// checkpoint `SLUG-KIND`. An unknown kind, or a kind placed twice on a page, fails the build.
pub fn place(html: &str, slug: &str, file: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    let mut placed: Vec<String> = Vec::new();
    while let Some(start) = rest.find(OPEN) {
        out.push_str(&rest[..start]);
        let after = &rest[start + OPEN.len()..];
        let kind = after.split('"').next().unwrap_or_default();
        let close = "\"></div>";
        if !after[kind.len()..].starts_with(close) {
            panic!("{file}: a checkpoint is written `<div data-checkpoint=\"KIND\"></div>`, on one line");
        }
        let k = checkpoints::kind(kind).unwrap_or_else(|| panic!("{file}: no checkpoint «{kind}» (atencao_core::checkpoints::KINDS)"));
        if placed.iter().any(|p| p == kind) {
            panic!("{file}: the checkpoint «{kind}» is placed twice on one page");
        }
        placed.push(kind.to_string());
        let id = format!("{slug}-{kind}");
        out.push_str(&section(&id, k.title, &(k.make)(checkpoints::seed(&id, 0))));
        rest = &after[kind.len() + close.len()..];
    }
    out.push_str(rest);
    out
}

/// The ids of the checkpoints in a page's HTML, in order.
pub fn ids(html: &str) -> Vec<String> {
    html.split("<section class=\"checkpoint\" data-checkpoint=\"").skip(1).map(|p| p.split('"').next().unwrap_or_default().to_string()).collect()
}

/// A checkpoint as the page shows it, around instance 0.
fn section(id: &str, title: &str, c: &Checkpoint) -> String {
    format!(
        "<section class=\"checkpoint\" data-checkpoint=\"{id}\" data-kind=\"{kind}\" aria-label=\"Pare e calcule: {title}\">\n\
         <p class=\"checkpoint-label\">Pare e calcule: {title}</p>\n{body}\
         <p class=\"checkpoint-actions\"><button type=\"button\" class=\"btn\" data-action=\"check\">conferir</button> \
         <button type=\"button\" class=\"btn\" data-action=\"reveal\">ver solução</button> \
         <button type=\"button\" class=\"btn\" data-action=\"another\">outro exemplo</button></p>\n\
         <p class=\"checkpoint-status\" role=\"status\"></p>\n</section>\n",
        kind = c.kind,
        title = esc(title),
        body = body(c),
    )
}

/// The part of a checkpoint that changes with the instance: question, answer field or
/// options, folded solution, slips. static/checkpoints.js builds the same from `json`.
pub fn body(c: &Checkpoint) -> String {
    let (expect, decimals) = match &c.answer {
        Answer::Number { decimals, .. } => (c.answer.typed(), decimals.to_string()),
        Answer::Choice { correct, .. } => (correct.to_string(), String::new()),
    };
    let mut out = format!("<div class=\"checkpoint-body\" data-expect=\"{}\" data-decimals=\"{decimals}\">\n<div class=\"checkpoint-question\">", esc(&expect));
    for block in &c.question {
        match block {
            Block::Text(t) => write!(out, "<p>{}</p>", esc(t)).unwrap(),
            Block::Table { caption, head, rows } => {
                write!(out, "<table class=\"checkpoint-data\"><caption>{}</caption><thead><tr>", esc(caption)).unwrap();
                for h in head {
                    write!(out, "<th scope=\"col\">{}</th>", esc(h)).unwrap();
                }
                out.push_str("</tr></thead><tbody>");
                for (label, cells) in rows {
                    write!(out, "<tr><th scope=\"row\">{}</th>", esc(label)).unwrap();
                    for cell in cells {
                        write!(out, "<td>{}</td>", esc(cell)).unwrap();
                    }
                    out.push_str("</tr>");
                }
                out.push_str("</tbody></table>");
            }
        }
    }
    out.push_str("</div>\n");
    match &c.answer {
        Answer::Number { .. } => out.push_str("<p class=\"checkpoint-answer\"><label>Sua resposta: <input type=\"text\" inputmode=\"decimal\" autocomplete=\"off\" spellcheck=\"false\" data-answer></label></p>\n"),
        Answer::Choice { options, .. } => {
            out.push_str("<p class=\"checkpoint-choices\" role=\"group\" aria-label=\"Opções\">");
            for (i, o) in options.iter().enumerate() {
                write!(out, "<button type=\"button\" class=\"btn\" data-choice=\"{i}\" aria-pressed=\"false\">{}</button> ", esc(o)).unwrap();
            }
            out.push_str("</p>\n");
        }
    }
    out.push_str("<div class=\"checkpoint-solution\" data-solution hidden><p>Solução:</p><ol>");
    for s in &c.steps {
        write!(out, "<li>{}</li>", esc(s)).unwrap();
    }
    write!(out, "</ol><p>Resposta: <strong data-value>{}</strong></p></div>\n<ul data-slips hidden>", esc(&c.answer.typed())).unwrap();
    for w in &c.wrong {
        write!(out, "<li data-slip=\"{}\">{}</li>", esc(&w.answer), esc(&w.why)).unwrap();
    }
    out.push_str("</ul>\n</div>\n");
    out
}

/// A JSON string.
fn js(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => write!(out, "\\u{:04x}", c as u32).unwrap(),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn list(items: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(","))
}

/// One instance as the script reads it: `q` the question (`{"t": text}` or `{"c": caption,
/// "h": head, "r": [[label, cells…]]}`), `e` what is expected (the typed number, or the
/// option's index), `d` the places (numbers only), `o` the options (choices only), `s` the
/// steps, `v` the answer as typed, `w` the slips `[answer, why]`.
pub fn instance_json(c: &Checkpoint) -> String {
    let question = list(c.question.iter().map(|b| match b {
        Block::Text(t) => format!("{{\"t\":{}}}", js(t)),
        Block::Table { caption, head, rows } => format!(
            "{{\"c\":{},\"h\":{},\"r\":{}}}",
            js(caption),
            list(head.iter().map(|h| js(h))),
            list(rows.iter().map(|(l, cells)| list(std::iter::once(js(l)).chain(cells.iter().map(|x| js(x))))))
        ),
    }));
    let answer = match &c.answer {
        Answer::Number { decimals, .. } => format!("\"e\":{},\"d\":{decimals}", js(&c.answer.typed())),
        Answer::Choice { options, correct } => format!("\"e\":\"{correct}\",\"o\":{}", list(options.iter().map(|o| js(o)))),
    };
    format!(
        "{{\"q\":{question},{answer},\"s\":{},\"v\":{},\"w\":{}}}",
        list(c.steps.iter().map(|s| js(s))),
        js(&c.answer.typed()),
        list(c.wrong.iter().map(|w| format!("[{},{}]", js(&w.answer), js(&w.why))))
    )
}

/// Instances 0 to `INSTANCES` of checkpoint `id`: seeds 0, 1, 2 … of the placement, skipping
/// one whose question repeats the one before, so "outro exemplo" always changes the question.
pub fn instances(id: &str, kind: &checkpoints::Kind) -> Vec<Checkpoint> {
    let mut out: Vec<Checkpoint> = Vec::new();
    for n in 0.. {
        let c = (kind.make)(checkpoints::seed(id, n));
        if out.last().is_none_or(|last| last.question != c.question) {
            out.push(c);
        }
        if out.len() as u64 > INSTANCES {
            break;
        }
    }
    out
}

/// Writes `checkpoints/ID.json` under `dir` (scripts/pages.sh puts them in `static/checkpoints/`)
/// for every checkpoint of `pages` (slug, HTML): `{"t": title, "i": instances}`, instances 0
/// (the prerendered one, for a blog that embeds it) to `INSTANCES`. Returns how many.
pub fn write_data<'a>(pages: impl IntoIterator<Item = (&'a str, &'a str)>, dir: &Path) -> usize {
    let out = dir.join("checkpoints");
    fs::create_dir_all(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    let mut written: Vec<String> = Vec::new();
    for (slug, html) in pages {
        for id in ids(html) {
            let kind = id.strip_prefix(&format!("{slug}-")).and_then(checkpoints::kind).expect("placed by `place`");
            let instances = list(instances(&id, kind).iter().map(instance_json));
            write_if_changed(&out.join(format!("{id}.json")), &format!("{{\"t\":{},\"i\":{instances}}}\n", js(kind.title)));
            written.push(format!("{id}.json"));
        }
    }
    // A checkpoint taken out of the content takes its data with it.
    for old in super::files::sorted_entries(&out) {
        if !written.iter().any(|w| old.file_name().is_some_and(|n| n == w.as_str())) {
            fs::remove_file(&old).unwrap_or_else(|e| panic!("{}: {e}", old.display()));
        }
    }
    written.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_placed_checkpoint_is_prerendered_with_the_contract() {
        let html = place("<p>antes</p>\n<div data-checkpoint=\"score-escalonado\"></div>\n<p>depois</p>", "pagina", "test.md");
        assert!(html.starts_with("<p>antes</p>\n<section class=\"checkpoint\" data-checkpoint=\"pagina-score-escalonado\" data-kind=\"score-escalonado\""), "{html}");
        assert!(html.ends_with("</section>\n\n<p>depois</p>"), "{html}");
        for part in ["input type=\"text\" inputmode=\"decimal\" autocomplete=\"off\" spellcheck=\"false\" data-answer", "data-action=\"check\">conferir", "data-action=\"reveal\">ver solução", "data-action=\"another\">outro exemplo", "role=\"status\"", "data-solution hidden", "<strong data-value>"] {
            assert!(html.contains(part), "{part}: {html}");
        }
        // The answer shown is the core's for this placement's instance 0, and so is every slip.
        let c = (checkpoints::kind("score-escalonado").unwrap().make)(checkpoints::seed("pagina-score-escalonado", 0));
        assert!(html.contains(&format!("data-expect=\"{}\" data-decimals=\"4\"", c.answer.typed())), "{html}");
        assert!(html.contains(&format!("<strong data-value>{}</strong>", c.answer.typed())));
        for w in &c.wrong {
            assert!(html.contains(&format!("<li data-slip=\"{}\">{}</li>", w.answer, esc(&w.why))), "{html}");
        }
        assert_eq!(ids(&html), ["pagina-score-escalonado"]);
    }

    #[test]
    fn choices_are_buttons_and_the_json_carries_the_same_instance() {
        let c = (checkpoints::kind("formato-cabecas").unwrap().make)(3);
        let html = body(&c);
        let Answer::Choice { options, correct } = &c.answer else { panic!("a choice") };
        assert!(html.contains(&format!("data-expect=\"{correct}\" data-decimals=\"\"")), "{html}");
        assert_eq!(html.matches("data-choice=\"").count(), options.len());
        let json = instance_json(&c);
        assert!(json.starts_with("{\"q\":[{\"t\":\"Um lote de b = ") && json.contains(&format!("\"e\":\"{correct}\",\"o\":[\"{}\"", options[0])), "{json}");
        assert!(json.contains(&format!("\"v\":\"{}\"", options[*correct])), "{json}");
        assert_eq!(js("a\"b\\c\n"), "\"a\\\"b\\\\c\\n\"");
        // Instance 0 is the prerendered one; no two in a row ask the same.
        let kind = checkpoints::kind("ngramas-possiveis").unwrap();
        let all = instances("p-ngramas-possiveis", kind);
        assert_eq!(all.len() as u64, INSTANCES + 1);
        assert_eq!(all[0], (kind.make)(checkpoints::seed("p-ngramas-possiveis", 0)));
        assert!(all.windows(2).all(|w| w[0].question != w[1].question));
    }

    #[test]
    #[should_panic(expected = "no checkpoint «nada»")]
    fn an_unknown_kind_fails_the_build() {
        place("<div data-checkpoint=\"nada\"></div>", "p", "test.md");
    }

    #[test]
    #[should_panic(expected = "placed twice")]
    fn a_kind_twice_on_a_page_fails_the_build() {
        place("<div data-checkpoint=\"idf\"></div><div data-checkpoint=\"idf\"></div>", "p", "test.md");
    }
}
