//! The native writer: prints a [`RuleSet`] as crawlspace TOML (SPEC §5).
//!
//! `crawlspace import` and `crawlspace rules` show any dialect in the native
//! form, so the output must be read back by [`super::native::parse`] to the
//! same rule set (only the source lines differ: they are kept as `# line N`
//! comments instead). It is also meant to be read by people, so it follows
//! the SPEC example: one `[[rules]]` table per rule, nested rules indented
//! two spaces per level, conditions as one inline `match` table, and only
//! the keys that differ from their defaults.

use std::fmt::Write as _;

use crate::rules::model::{Case, Condition, Matcher, Rule, RuleSet, Test};

/// Width past which a `match` line puts each part of its top-level `all` or
/// `any` list on a line of its own, as the SPEC example does.
const WIDTH: usize = 100;

/// Prints `rules` as native TOML, `header` first as `#` comment lines
/// (e.g. "imported from rules.txt (wca)").
///
/// Every rule prints its `name`, because the parser names an unnamed rule
/// after its position. The output parses back to an equal rule set for any
/// rule set the native parser itself accepts; a model it would reject (a
/// `cidr` test on a field other than `address`, an `address` test that is
/// not `cidr`, `exact` or `regex`, a range whose low end is above its high
/// end) is printed as it is, and reading it back names the offending line.
pub fn to_toml(rules: &RuleSet, header: &str) -> String {
    let mut out = String::new();
    for line in header.lines() {
        if line.is_empty() {
            out.push_str("#\n");
        } else {
            let _ = writeln!(out, "# {}", comment_text(line));
        }
    }
    if !header.is_empty() {
        out.push('\n');
    }
    // Always explicit, so the reader need not know the default.
    out.push_str("[crawl]\n");
    let _ = writeln!(out, "disposition = {}", basic(rules.disposition.name()));
    for rule in &rules.rules {
        write_rule(&mut out, rule, 0);
    }
    out
}

/// Prints one top-level rule (its `[[rules]]` table, then its nested
/// rules) as [`to_toml`] does inside a rule set, without the blank line
/// before it: for a file that keeps the text of the rules left unchanged
/// and writes only the others (the console's save, `tui::save`).
pub fn rule_to_toml(rule: &Rule) -> String {
    let mut out = String::new();
    write_rule(&mut out, rule, 0);
    out.split_off(1)
}

/// Prints one rule and, after all of its own keys, its nested rules.
///
/// Depth-first order is what TOML needs: a `[[rules.rules]]` header appends
/// to the last `[[rules]]` table opened before it, and any key after it
/// belongs to the nested table, not to the parent.
fn write_rule(out: &mut String, rule: &Rule, depth: usize) {
    let indent = "  ".repeat(depth);
    out.push('\n');
    if rule.origin.line > 0 {
        let _ = writeln!(out, "{indent}# line {}", rule.origin.line);
    }
    let _ = writeln!(out, "{indent}[[{}]]", vec!["rules"; depth + 1].join("."));
    let mut key = |name: &str, value: &str| {
        let _ = writeln!(out, "{indent}{name} = {value}");
    };
    key("name", &basic(&rule.name));
    if !rule.enabled {
        key("enabled", "false");
    }
    if let Some(condition) = &rule.condition {
        key("match", &match_value(condition, indent.len()));
    }
    if rule.negate {
        key("negate", "true");
    }
    if let Some(action) = rule.action {
        key("action", &basic(action.name()));
    }
    if !rule.set.is_empty() {
        let flags = [
            ("fetch", rule.set.fetch),
            ("save", rule.set.save),
            ("follow", rule.set.follow),
        ];
        let parts: Vec<String> = flags
            .iter()
            .filter_map(|(name, value)| value.map(|v| format!("{name} = {v}")))
            .collect();
        key("set", &inline_table(&parts));
    }
    if let Some(priority) = rule.priority {
        key("priority", &basic(priority.name()));
    }
    if let Some(log) = rule.log {
        key("log", &log.to_string());
    }
    if let Some(filter) = rule.filter {
        key("filter", &basic(filter.name()));
    }
    if rule.stop {
        key("stop", "true");
    }
    if !rule.meta.is_empty() {
        key("meta", &meta_value(&rule.meta));
    }
    if let Some(source) = &rule.source {
        key("source", &basic(source));
    }
    // The parser rejects `first_match` on a rule without nested rules, and
    // there it has no effect, so it is left out rather than made unreadable.
    if rule.first_match && !rule.rules.is_empty() {
        key("first_match", "true");
    }
    for child in &rule.rules {
        write_rule(out, child, depth + 1);
    }
}

/// The value of a `match` key, wrapped one part per line when a top-level
/// `all`/`any` list would make the line too long to read.
fn match_value(condition: &Condition, indent: usize) -> String {
    let one_line = condition_text(condition);
    let (word, parts) = match condition {
        Condition::All(parts) => ("all", parts),
        Condition::Any(parts) => ("any", parts),
        _ => return one_line,
    };
    if parts.len() < 2 || indent + "match = ".len() + one_line.chars().count() <= WIDTH {
        return one_line;
    }
    // A newline inside an array is valid TOML even within an inline table;
    // the parts line up under the first one.
    let opener = format!("{{ {word} = [ ");
    let pad = " ".repeat(indent + "match = ".len() + opener.len());
    let parts: Vec<String> = parts.iter().map(condition_text).collect();
    format!("{opener}{} ] }}", parts.join(&format!(",\n{pad}")))
}

/// A condition as one inline table, as a `match` key holds it: what the
/// console's rule form shows of a combined condition, to edit and read
/// back with [`super::native::parse_condition`].
pub fn condition_text(condition: &Condition) -> String {
    let list = |word: &str, parts: &[Condition]| {
        let parts: Vec<String> = parts.iter().map(condition_text).collect();
        let array = if parts.is_empty() {
            "[]".to_string()
        } else {
            format!("[ {} ]", parts.join(", "))
        };
        format!("{{ {word} = {array} }}")
    };
    match condition {
        Condition::Test(test) => test_text(test),
        Condition::All(parts) => list("all", parts),
        Condition::Any(parts) => list("any", parts),
        Condition::Not(inner) => format!("{{ not = {} }}", condition_text(inner)),
    }
}

fn test_text(test: &Test) -> String {
    let value = match &test.matcher {
        // Patterns are where backslashes live, so they get literal strings
        // when they can: `'\.html$'` rather than `"\\.html$"`.
        Matcher::Regex(s) | Matcher::Wildcard(s) => pattern(s),
        Matcher::Exact(s)
        | Matcher::Prefix(s)
        | Matcher::Suffix(s)
        | Matcher::Contains(s)
        | Matcher::Domain(s) => basic(s),
        Matcher::Cidr(c) => basic(&c.to_string()),
        Matcher::Range(r) => basic(&r.to_string()),
    };
    let mut parts = vec![
        format!("field = {}", basic(test.field.name())),
        format!("{} = {value}", test.matcher.key()),
    ];
    if test.case == Case::Sensitive {
        parts.push(format!("case = {}", basic(Case::Sensitive.name())));
    }
    inline_table(&parts)
}

/// `meta` as a table when that reads back the same, else as a list of pairs.
///
/// The parser collects the table form into a sorted map, so only names that
/// are unique and already in sorted order survive it unchanged; repeated
/// names (several values for one name) and any other order need the list.
fn meta_value(meta: &[(String, String)]) -> String {
    let table_safe = meta.windows(2).all(|w| w[0].0 < w[1].0);
    if table_safe {
        let parts: Vec<String> = meta
            .iter()
            .map(|(name, value)| format!("{} = {}", key_text(name), basic(value)))
            .collect();
        inline_table(&parts)
    } else {
        let parts: Vec<String> = meta
            .iter()
            .map(|(name, value)| {
                inline_table(&[
                    format!("name = {}", basic(name)),
                    format!("value = {}", basic(value)),
                ])
            })
            .collect();
        format!("[ {} ]", parts.join(", "))
    }
}

fn inline_table(parts: &[String]) -> String {
    if parts.is_empty() {
        "{}".to_string()
    } else {
        format!("{{ {} }}", parts.join(", "))
    }
}

/// A key as written: bare when TOML allows it, quoted otherwise (a bare key
/// with a dot would be read as a nested table).
fn key_text(name: &str) -> String {
    let bare = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if bare { name.to_string() } else { basic(name) }
}

/// A literal string `'...'` when the text allows one (no `'`, no control
/// characters, which literal strings cannot escape), else a basic string.
fn pattern(text: &str) -> String {
    if text.contains('\'') || text.chars().any(needs_escape) {
        basic(text)
    } else {
        format!("'{text}'")
    }
}

/// A TOML basic string. Control characters are escaped even where TOML would
/// allow them raw (tab, C1 controls), so the file shows them and a terminal
/// printing it is not driven by them; so are the invisible characters of
/// [`crate::rules::is_invisible`].
fn basic(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if needs_escape(c) && u32::from(c) > 0xFFFF => {
                let _ = write!(out, "\\U{:08X}", u32::from(c));
            }
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Characters written as escapes: control characters, and those that
/// draw nothing yet reorder or hide the text around them (a name typed
/// with U+202E would read backwards in an editor, and unseen).
pub(crate) fn needs_escape(c: char) -> bool {
    c.is_control() || crate::rules::is_invisible(c)
}

/// Header text made safe for a comment: TOML forbids control characters
/// there, so they are shown as `\u{..}` escapes instead.
fn comment_text(line: &str) -> String {
    line.chars()
        .map(|c| {
            if needs_escape(c) && c != '\t' {
                format!("\\u{{{:X}}}", u32::from(c))
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
