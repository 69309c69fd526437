//! The data attributes a widget reads. Those that carry data, `data-matrices` (JSON) and
//! `data-corpus` (one document per line), fail the mount with a message when wrong. Settings
//! (numbers, choices, on/off) never do: an out-of-range or unknown value is clamped or
//! replaced by the default, and the widget shows a warning (`.widget-warning`) above its
//! inputs. Parsing and every message live in `core::widget_input`.

use std::cell::RefCell;
use std::collections::BTreeMap;

use web_sys::HtmlElement;

use crate::core::widget_input::{choice_setting, flag_setting, number_setting, parse_corpus, parse_matrices, NumberRange, Setting};
use crate::core::Matrix;

use super::super::dom;

thread_local! {
    /// Warnings of the widget being mounted. A widget reads its settings before it builds its
    /// DOM (which replaces the host's content), so `widgets::mount_one` shows them afterwards;
    /// it empties the list before and after every mount.
    static PENDING: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// The matrices of `data-matrices` by name (none if the attribute is absent).
pub fn matrices(host: &HtmlElement, allowed: &[&str]) -> Result<BTreeMap<String, Matrix>, String> {
    match host.get_attribute("data-matrices") {
        Some(json) => parse_matrices(&json, allowed),
        None => Ok(BTreeMap::new()),
    }
}

/// The documents of `data-corpus`, if the attribute is there.
pub fn corpus(host: &HtmlElement) -> Result<Option<Vec<String>>, String> {
    host.get_attribute("data-corpus").map(|text| parse_corpus(&text)).transpose()
}

/// The setting's value, its warning (if any) kept for the widget to show.
pub fn noted<T>(setting: Setting<T>) -> T {
    if let Some(warning) = setting.warning {
        warn(warning);
    }
    setting.value
}

/// Numeric attribute `name`, clamped to `range` (absent or unreadable: the default).
pub fn number(host: &HtmlElement, name: &str, range: &NumberRange) -> f64 {
    noted(number_setting(name, host.get_attribute(name).as_deref(), range))
}

/// Choice attribute `name`: one of `choices`, else `default`.
pub fn choice<'a>(host: &HtmlElement, name: &str, choices: &[&'a str], default: &'a str) -> &'a str {
    noted(choice_setting(name, host.get_attribute(name).as_deref(), choices, default))
}

/// On/off attribute `name` (absent: off).
pub fn flag(host: &HtmlElement, name: &str) -> bool {
    noted(flag_setting(name, host.get_attribute(name).as_deref()))
}

/// A warning about the widget being mounted that only the widget can tell (a setting that
/// depends on another one, such as a document number beyond the chosen corpus).
pub fn warn(message: String) {
    PENDING.with(|p| p.borrow_mut().push(message));
}

/// The warnings gathered since the last call.
pub(super) fn take_warnings() -> Vec<String> {
    PENDING.with(|p| std::mem::take(&mut *p.borrow_mut()))
}

/// Shows `warnings` under the widget's title (as text), one `<p class="widget-warning">` each.
pub(super) fn show_warnings(host: &HtmlElement, warnings: &[String]) {
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
