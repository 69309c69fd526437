//! The data attributes a widget reads, as its kind declares them (`site::widgets`: name,
//! meaning, choice / number range / flag / text). Settings never break a widget: a value out of
//! range or unknown is clamped or replaced by the declared default, and the widget shows a
//! warning (`.widget-warning`) under its title. Attributes that carry data (`data-matrices`,
//! `data-corpus`) fail the mount with a message when wrong. Parsing and every message live in
//! `core::widget_input`; the warnings of one mount are kept by its `Attributes`, not globally.

use std::cell::RefCell;
use std::collections::BTreeMap;

use web_sys::HtmlElement;

use crate::core::widget_input::{choice_setting, flag_setting, number_setting, parse_corpus, parse_matrices, NumberRange, Setting};
use crate::core::Matrix;
use crate::site::widgets::{doc, AttrKind, AttributeDoc, WidgetDoc};
use crate::web::dom;

/// The attributes of one widget being mounted, read as its kind declares them.
pub struct Attributes {
    host: HtmlElement,
    doc: Option<&'static WidgetDoc>,
    warnings: RefCell<Vec<String>>,
}

impl Attributes {
    /// The attributes of `host`, a widget of kind `kind`.
    pub fn of(host: &HtmlElement, kind: &str) -> Attributes {
        Attributes { host: host.clone(), doc: doc(kind), warnings: RefCell::new(Vec::new()) }
    }

    fn declared(&self, name: &str) -> Option<&'static AttributeDoc> {
        let found = self.doc.and_then(|d| d.attribute(name));
        if found.is_none() {
            dom::log_warn(&format!("atencao: {name} is read but not declared in site::widgets"));
        }
        found
    }

    fn raw(&self, name: &str) -> Option<String> {
        self.host.get_attribute(name)
    }

    /// The declared choice `name`: one of its values, else its default (with a warning).
    pub fn choice(&self, name: &str) -> &'static str {
        match self.declared(name).map(|a| a.kind) {
            Some(AttrKind::Choice { values, default }) => self.noted(choice_setting(name, self.raw(name).as_deref(), values, default)),
            _ => "",
        }
    }

    /// The declared number `name`, clamped to its range.
    pub fn number(&self, name: &str) -> f64 {
        match self.declared(name).map(|a| a.kind) {
            Some(AttrKind::Number(range)) => self.noted(number_setting(name, self.raw(name).as_deref(), &range)),
            _ => 0.0,
        }
    }

    /// The declared index `name`, in `range` (which depends on the widget's other settings).
    pub fn index(&self, name: &str, range: &NumberRange) -> f64 {
        self.declared(name);
        self.noted(number_setting(name, self.raw(name).as_deref(), range))
    }

    /// The declared flag `name` (absent: off).
    pub fn flag(&self, name: &str) -> bool {
        self.declared(name);
        self.noted(flag_setting(name, self.raw(name).as_deref()))
    }

    /// The declared text `name`, as written (None when absent).
    pub fn text(&self, name: &str) -> Option<String> {
        self.declared(name);
        self.raw(name)
    }

    /// The matrices of `data-matrices` by name (none if the attribute is absent).
    pub fn matrices(&self, allowed: &[&str]) -> Result<BTreeMap<String, Matrix>, String> {
        match self.text("data-matrices") {
            Some(json) => parse_matrices(&json, allowed),
            None => Ok(BTreeMap::new()),
        }
    }

    /// The documents of `data-corpus`, if the attribute is there.
    pub fn corpus(&self) -> Result<Option<Vec<String>>, String> {
        self.text("data-corpus").map(|text| parse_corpus(&text)).transpose()
    }

    /// A setting's value; its warning (if any) is kept to show.
    pub fn noted<T>(&self, setting: Setting<T>) -> T {
        if let Some(warning) = setting.warning {
            self.warn(warning);
        }
        setting.value
    }

    /// A warning only the widget can tell (a setting that depends on another one).
    pub fn warn(&self, message: String) {
        self.warnings.borrow_mut().push(message);
    }

    /// The warnings of this mount.
    pub fn into_warnings(self) -> Vec<String> {
        self.warnings.into_inner()
    }
}

/// Shows `warnings` under the widget's title (as text), one `<p class="widget-warning">` each.
pub(crate) fn show_warnings(host: &HtmlElement, warnings: &[String]) {
    if warnings.is_empty() {
        return;
    }
    let list = dom::el("div", "widget-warnings");
    for warning in warnings {
        let p = dom::text("p", "widget-warning", warning);
        dom::set_attr(&p, "role", "status");
        dom::append(&list, &p);
    }
    match host.query_selector(":scope > .widget-title").ok().flatten() {
        Some(title) => {
            let _ = title.after_with_node_1(&list);
        }
        None => {
            let _ = host.prepend_with_node_1(&list);
        }
    }
}
