//! Table twins: the numbers behind a drawing as a `<table>`, for screen readers and tests
//! (`data-matrix` / `data-bars` / `data-plot` name it). Every drawing of the kit writes its
//! twin with these functions, so every twin has the same shape: a caption, a header row of
//! column labels, then one row per item with its label as a row header.

use web_sys::HtmlElement;

use crate::core::Matrix;
use crate::web::dom;

/// An empty twin `<table class="twin" {attr}=key>`, hidden until "ver números".
pub fn table(attr: &str, key: &str) -> HtmlElement {
    let table = dom::el("table", "twin");
    dom::set_attr(&table, attr, key);
    table.set_hidden(true);
    table
}

/// Replaces `table`'s content: `caption`, a header row (`corner` above the row labels, then
/// `cols`), and each (row label, cells). Labels are plain text (see `fill_typeset`).
pub fn fill<I>(table: &HtmlElement, caption: &str, corner: &str, cols: &[String], rows: I)
where
    I: IntoIterator<Item = (String, Vec<String>)>,
{
    fill_typeset(table, caption, corner, cols, rows, false);
}

/// `fill`, with the row labels' notation typeset when `typeset` (labels the widget wrote, such
/// as `h_{meus}`; never a reader's words, where `_` and `^` are just characters).
pub fn fill_typeset<I>(table: &HtmlElement, caption: &str, corner: &str, cols: &[String], rows: I, typeset: bool)
where
    I: IntoIterator<Item = (String, Vec<String>)>,
{
    table.set_text_content(None);
    dom::append(table, &dom::text("caption", "", caption));
    if !cols.is_empty() {
        let head = dom::el("tr", "");
        let corner_cell = dom::text("th", "", corner);
        dom::append(&head, &corner_cell);
        for c in cols {
            dom::append(&head, &header(c, "col", false));
        }
        dom::append(table, &head);
    }
    for (label, cells) in rows {
        let tr = dom::el("tr", "");
        dom::append(&tr, &header(&label, "row", typeset));
        for cell in cells {
            dom::append(&tr, &dom::text("td", "", &cell));
        }
        dom::append(table, &tr);
    }
}

/// A header cell; when `typeset`, with its label's notation typeset (`h_{meus}`) and named as
/// spoken ("h meus").
fn header(label: &str, scope: &str, typeset: bool) -> HtmlElement {
    if !typeset {
        let th = dom::text("th", "", label);
        dom::set_attr(&th, "scope", scope);
        return th;
    }
    let th = dom::notation("th", "", label);
    dom::set_attr(&th, "scope", scope);
    let spoken = crate::site::notation::spoken(label);
    if spoken != label {
        dom::set_attr(&th, "aria-label", &spoken);
    }
    th
}

/// The rows of a matrix for `fill`: each row's label and its values written by `cell`.
pub fn matrix_rows<'a>(m: &'a Matrix, labels: &'a [String], cell: impl Fn(usize, usize) -> String + 'a) -> impl Iterator<Item = (String, Vec<String>)> + 'a {
    (0..m.rows()).map(move |r| (labels.get(r).cloned().unwrap_or_default(), (0..m.cols()).map(|c| cell(r, c)).collect()))
}

/// A twin `data-matrix=key` for numbers shown by something other than a heatmap; `cell`
/// writes each value.
pub fn twin_table(key: &str, caption: &str, rows: &[String], cols: &[String], m: &Matrix, cell: impl Fn(f32) -> String) -> HtmlElement {
    let t = table("data-matrix", key);
    fill(&t, caption, "", cols, matrix_rows(m, rows, |r, c| cell(m.get(r, c))));
    t
}

/// Whether the "ver números" button of `host` is on (so a rebuilt twin starts visible).
pub fn twins_visible(host: &HtmlElement) -> bool {
    host.query_selector("[data-action=twins]").ok().flatten().is_some_and(|b| b.get_attribute("aria-expanded").as_deref() == Some("true"))
}
