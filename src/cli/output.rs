//! How verdicts, traces and rule lists are written: JSON lines for
//! programs (the SPEC §5 keys), aligned text for people.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::value::RawValue;

use crate::crawl::robots::RobotsDecision;
use crate::rules::compile::Disabled;
use crate::rules::verdict::{Pending, Step, TraceEntry, Verdict};
use crate::rules::{CompiledRules, RuleInfo};

/// One verdict as SPEC §5's JSON object (borrowing, so `check` can write
/// millions of them without building owned copies). `T` is a trace entry:
/// [`TraceJson`], or for `check` the same already rendered ([`TraceCache`]).
#[derive(Serialize)]
pub struct VerdictJson<'a, T = TraceJson<'a>> {
    pub url: &'a str,
    pub fetch: bool,
    pub save: bool,
    pub follow: bool,
    pub filtered: bool,
    pub priority: i8,
    pub queue: &'static str,
    pub log: bool,
    /// Fields that deferred rules still wait for (`content_type`, `address`).
    pub pending: Vec<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub meta: Vec<MetaJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<&'a str>,
    /// What `explain --robots` found; absent without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub robots: Option<RobotsJson<'a>>,
    pub trace: Vec<T>,
}

/// robots.txt's answer for one URL: `line`, `rule` and `group` are null
/// when no rule (or no group) decided.
#[derive(Serialize)]
pub struct RobotsJson<'a> {
    pub allowed: bool,
    pub line: Option<u32>,
    pub rule: Option<&'a str>,
    pub group: Option<&'a str>,
}

/// robots.txt's decision on one URL in `explain --robots`, with its
/// one-line description (`robots.txt FILE line 7 "Disallow: /p/" (group *)`).
#[derive(Debug)]
pub struct RobotsView {
    pub decision: RobotsDecision,
    pub text: String,
}

#[derive(Serialize)]
pub struct MetaJson<'a> {
    pub name: &'a str,
    pub value: &'a str,
}

/// One trace entry: which rule, where it is, what happened, what it did.
#[derive(Serialize)]
pub struct TraceJson<'a> {
    pub rule: &'a str,
    pub name: &'a str,
    /// The rule's line in its file; null for what no line holds (a
    /// dialect's implied rule, robots.txt's answer).
    pub line: Option<usize>,
    pub step: &'static str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub filtered: bool,
    /// What the rule set, for rules that matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub did: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub priority_ignored: bool,
}

impl<'a> VerdictJson<'a> {
    pub fn new(url: &'a str, verdict: &'a Verdict, rules: &'a CompiledRules) -> VerdictJson<'a> {
        let info = rules.rule_info();
        let trace = verdict
            .trace
            .iter()
            .map(|e| trace_json(e, &info[e.rule as usize]))
            .collect();
        VerdictJson::with_trace(url, verdict, trace)
    }
}

impl<'a, T> VerdictJson<'a, T> {
    /// The verdict with its trace entries given.
    pub fn with_trace(url: &'a str, verdict: &'a Verdict, trace: Vec<T>) -> VerdictJson<'a, T> {
        VerdictJson {
            url,
            fetch: verdict.fetch,
            save: verdict.save,
            follow: verdict.follow,
            filtered: verdict.filtered,
            priority: verdict.priority,
            queue: verdict.queue().name(),
            log: verdict.log,
            pending: verdict.pending.names(),
            meta: verdict
                .meta
                .iter()
                .map(|(name, value)| MetaJson { name, value })
                .collect(),
            source: verdict.source.as_deref(),
            robots: None,
            trace,
        }
    }
}

impl<'a> VerdictJson<'a> {
    /// Adds robots.txt's answer. A URL robots.txt disallows is not fetched,
    /// whatever the rules say: the flags go false, the queue `none`, and the
    /// trace ends with a `robots` entry naming the deciding line.
    pub fn with_robots(mut self, robots: &'a RobotsView) -> VerdictJson<'a> {
        let d = &robots.decision;
        self.robots = Some(RobotsJson {
            allowed: d.allowed,
            line: d.line(),
            rule: d.rule(),
            group: d.group(),
        });
        if !d.allowed {
            self.fetch = false;
            self.save = false;
            self.follow = false;
            self.queue = "none";
            self.trace.push(TraceJson {
                rule: "robots",
                name: "robots.txt",
                line: d.line().map(|l| l as usize),
                step: "matched",
                filtered: false,
                did: Some("not fetched"),
                why: Some(&robots.text),
                priority_ignored: false,
            });
        }
        self
    }
}

/// Trace entries rendered as JSON once per rule and outcome, for `check`:
/// a rule's entry depends only on the rule and what happened to it, and
/// escaping its number, name and effects for every URL took a sixth of
/// `check`'s time.
#[derive(Default)]
pub struct TraceCache {
    /// By rule, step and the two flags ([`TraceCache::key`]).
    rendered: HashMap<u64, Box<RawValue>, rustc_hash::FxBuildHasher>,
}

impl TraceCache {
    /// `verdict`'s trace entries, rendered.
    pub fn entries(&mut self, verdict: &Verdict, rules: &CompiledRules) -> Vec<&RawValue> {
        let info = rules.rule_info();
        for entry in &verdict.trace {
            self.rendered.entry(Self::key(entry)).or_insert_with(|| {
                serde_json::value::to_raw_value(&trace_json(entry, &info[entry.rule as usize]))
                    .expect("a trace entry serializes")
            });
        }
        verdict
            .trace
            .iter()
            .map(|e| &*self.rendered[&Self::key(e)])
            .collect()
    }

    fn key(entry: &TraceEntry) -> u64 {
        u64::from(entry.rule) << 8
            | (entry.step as u64) << 2
            | u64::from(entry.filtered) << 1
            | u64::from(entry.priority_ignored)
    }
}

fn trace_json<'a>(entry: &TraceEntry, info: &'a RuleInfo) -> TraceJson<'a> {
    TraceJson {
        rule: &info.number,
        name: &info.name,
        line: (info.line > 0).then_some(info.line),
        step: entry.step.name(),
        filtered: entry.filtered,
        did: (entry.step == Step::Matched).then_some(info.effects.as_str()),
        why: if entry.step == Step::Disabled {
            info.disabled.as_ref().map(Disabled::text)
        } else {
            None
        },
        priority_ignored: entry.priority_ignored,
    }
}

/// The priority name for a shift.
pub fn priority_name(shift: i8) -> &'static str {
    crate::rules::model::Priority::from_shift(i64::from(shift)).map_or("normal", |p| p.name())
}

/// What the pending line of [`verdict_text`] tells the user to do; the
/// console says it its own way.
pub const PENDING_HINT: &str = "(use OPTIONS)";

/// [`PENDING_HINT`] with the options that give the pending fields.
fn pending_hint(pending: Pending) -> String {
    let options: Vec<&str> = pending
        .names()
        .iter()
        .map(|name| match *name {
            "content_type" => "--content-type",
            _ => "--address",
        })
        .collect();
    PENDING_HINT.replace("OPTIONS", &options.join(" / "))
}

/// A verdict and its trace as text for a person.
pub fn verdict_text(url: &str, verdict: &Verdict, rules: &CompiledRules) -> String {
    verdict_robots_text(url, verdict, rules, None)
}

/// [`verdict_text`] with robots.txt's answer (`explain --robots`): a
/// `robots:` line under the verdict and, when robots.txt disallows, "not
/// fetched" and a last trace line for it.
pub fn verdict_robots_text(
    url: &str,
    verdict: &Verdict,
    rules: &CompiledRules,
    robots: Option<&RobotsView>,
) -> String {
    let info = rules.rule_info();
    let disallowed = robots.filter(|r| !r.decision.allowed);
    let mut out = String::new();
    let _ = writeln!(out, "{}", escape_control(url));
    let summary = if verdict.filtered {
        "FILTERED (not fetched)".to_string()
    } else if !verdict.fetch || disallowed.is_some() {
        "not fetched".to_string()
    } else {
        let mut what = vec!["fetch"];
        if verdict.save {
            what.push("save");
        }
        if verdict.follow {
            what.push("follow");
        }
        what.join(" + ")
    };
    let queue = if disallowed.is_some() {
        "none"
    } else {
        verdict.queue().name()
    };
    let _ = writeln!(
        out,
        "  verdict: {summary}; queue {queue}, priority {}, {}",
        priority_name(verdict.priority),
        if verdict.log { "logged" } else { "not logged" }
    );
    if let Some(r) = robots {
        let how = match (r.decision.allowed, r.decision.line().is_some()) {
            (true, true) => "allowed by",
            (false, _) => "disallowed by",
            (true, false) => "allowed:",
        };
        let _ = writeln!(out, "  robots: {how} {}", escape_control(&r.text));
    }
    for &rule in &verdict.filtered_by {
        let i = &info[rule as usize];
        let _ = writeln!(
            out,
            "  filtered by rule {} {} ({})",
            i.number,
            quoted_name(&i.name),
            i.place()
        );
    }
    match verdict.fetch_set_by {
        _ if disallowed.is_some() => {
            let _ = writeln!(out, "  fetch decided by robots.txt");
        }
        Some(rule) => {
            let i = &info[rule as usize];
            // A deferred rule that may allow the URL decides once its
            // field is known: the crawler fetches that far to learn it.
            let deferred = verdict
                .trace
                .iter()
                .any(|t| t.rule == rule && t.step == Step::Deferred);
            let (how, then) = if verdict.filtered {
                // The flags the rules set stand beside the filter, which
                // keeps the URL from being fetched whatever they say.
                ("set by", ", overruled by the filter")
            } else if deferred {
                (
                    "waits for",
                    ", deferred: fetched as far as its field, then judged",
                )
            } else {
                ("decided by", "")
            };
            let _ = writeln!(
                out,
                "  fetch {how} rule {} {} ({}){then}",
                i.number,
                quoted_name(&i.name),
                i.place()
            );
        }
        None if !verdict.filtered => {
            let _ = writeln!(
                out,
                "  fetch decided by the disposition `{}`",
                rules.disposition().name()
            );
        }
        None => {}
    }
    if !verdict.pending.is_empty() {
        let plural = verdict.pending.names().len() > 1;
        // A filter is final: no rule judged later can take it back.
        let hint = if verdict.filtered {
            format!(
                "(filtered already: {} cannot change that)",
                if plural { "they" } else { "it" }
            )
        } else {
            pending_hint(verdict.pending)
        };
        let _ = writeln!(
            out,
            "  pending: rules on {} are deferred until {} known {hint}",
            verdict.pending.names().join(" and "),
            if plural { "they are" } else { "it is" },
        );
    }
    for (name, value) in &verdict.meta {
        let _ = writeln!(
            out,
            "  meta {}={}",
            escape_control(name),
            escape_control(value)
        );
    }
    if let Some(source) = &verdict.source {
        let _ = writeln!(out, "  source {}", escape_control(source));
    }
    let _ = writeln!(out, "  trace:");
    if verdict.trace.is_empty() {
        let _ = writeln!(out, "    (no rules)");
    }
    for entry in &verdict.trace {
        let i = &info[entry.rule as usize];
        let indent = "  ".repeat(i.depth);
        let label = format!(
            "{indent}#{} {} ({})",
            i.number,
            quoted_name(&i.name),
            i.place()
        );
        let what = match entry.step {
            Step::Matched => {
                let mut s = format!("matched → {}", escape_control(&i.effects));
                if entry.filtered {
                    s.push_str(" → FILTERED");
                }
                if entry.priority_ignored {
                    s.push_str(" (priority ignored: content-type rule)");
                }
                s
            }
            Step::NotMatched if entry.filtered => "not matched → FILTERED (must-have)".to_string(),
            Step::Disabled => format!(
                "disabled: {}",
                escape_control(i.disabled.as_ref().map_or("", Disabled::text))
            ),
            step => step.name().replace('-', " "),
        };
        let _ = writeln!(out, "    {} {what}", padded(&label, 48));
    }
    if let Some(r) = disallowed {
        let label = match r.decision.line() {
            Some(line) => format!("robots.txt (line {line})"),
            None => "robots.txt".to_string(),
        };
        let _ = writeln!(out, "    {} disallowed → not fetched", padded(&label, 48));
    }
    out
}

/// `text` padded with spaces to `columns` display columns (`{:<48}` counts
/// characters, so a rule named in CJK or with an emoji pushed its row's
/// verdict out of line).
fn padded(text: &str, columns: usize) -> String {
    let width = unicode_width::UnicodeWidthStr::width(text);
    format!("{text}{}", " ".repeat(columns.saturating_sub(width)))
}

/// The crawl's depth limits, when the rules come from a native config
/// (other dialects hold rules only).
#[derive(Debug, Clone, Copy)]
pub struct DepthLimits {
    pub link: u32,
    pub path: u32,
}

impl DepthLimits {
    /// Why the crawler would refuse `url` at `link_depth` after the rules
    /// let it through, as the crawl's log would say it.
    pub fn beyond(self, url: &url::Url, link_depth: u32) -> Option<String> {
        crate::crawl::beyond_depth(url, link_depth, self.link, self.path).map(|(why, _)| why)
    }
}

/// Why the crawler itself would not fetch a URL the rules let through: a
/// scheme it does not fetch, or (with a config) its depth limits.
pub fn crawler_refusal(
    url: &url::Url,
    link_depth: u32,
    limits: Option<DepthLimits>,
) -> Option<String> {
    if !matches!(url.scheme(), "http" | "https") {
        return Some(format!(
            "scheme `{}`: the crawler fetches only http and https, and keeps no link to any other",
            url.scheme()
        ));
    }
    let beyond = limits?.beyond(url, link_depth)?;
    Some(format!(
        "{beyond}: a crawl with this config logs it as filtered"
    ))
}

pub use crate::rules::is_invisible;
pub use crate::text::escape_control;

/// Writes `value` as JSON made safe for a terminal ([`json_safe`]), without
/// a line break.
pub fn write_json(out: &mut impl std::io::Write, value: &impl Serialize) -> std::io::Result<()> {
    let json = serde_json::to_string(value).map_err(std::io::Error::other)?;
    out.write_all(json_safe(&json).as_bytes())
}

/// A line of JSON made safe to print on a terminal: serde_json leaves
/// DEL, the C1 controls and the invisible characters of [`is_invisible`]
/// as they are; they can only stand inside strings, where `\uXXXX` (a
/// surrogate pair beyond the first plane) means the same character.
pub fn json_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_control() || is_invisible(c) {
            for unit in c.encode_utf16(&mut [0; 2]) {
                let _ = write!(out, "\\u{unit:04x}");
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The most characters of a name or reason a warning line shows.
const WARNING_CHARS: usize = 300;

/// `text` escaped ([`escape_control`]) and cut at [`WARNING_CHARS`]
/// characters, saying how many more there were: a rule named with
/// megabytes of text (or a regex as long, quoted in its compile error)
/// makes a warning line, not a screenful.
pub fn capped(text: &str) -> String {
    let total = text.chars().count();
    if total <= WARNING_CHARS {
        return escape_control(text);
    }
    let head: String = text.chars().take(WARNING_CHARS).collect();
    format!(
        "{}… ({} more characters)",
        escape_control(&head),
        total - WARNING_CHARS
    )
}

/// A rule's name in quotes, as the file has it: control characters
/// escaped (a name may hold anything), a quote too, so that the name's
/// end stays plain, and nothing else: `{:?}` would double every backslash
/// of a Nutch rule named by its regex (`-\.gif$`).
fn quoted_name(name: &str) -> String {
    format!("\"{}\"", escape_control(name).replace('"', "\\\""))
}

/// One warning line per disabled rule, naming the file and line: what
/// `rules`, `explain`, `check` and a crawl print on stderr.
pub fn disabled_warnings(file: &str, rules: &CompiledRules) -> Vec<String> {
    rules
        .disabled()
        .filter_map(|info| {
            let reason = info.disabled.as_ref()?;
            // A rule switched off on purpose (and what it holds) is no
            // news on every run; the rule list shows it off.
            if reason.on_purpose() {
                return None;
            }
            // Quoted by hand: the name is escaped already, and `{:?}`
            // would escape its escapes again.
            Some(format!(
                "warning: {}:{}: rule {} \"{}\" is disabled: {}",
                escape_control(file),
                info.line,
                info.number,
                capped(&info.name),
                capped(reason.text())
            ))
        })
        .collect()
}

#[cfg(test)]
mod escape_tests {
    use super::*;

    /// Warning lines stay lines: long text is cut, and says by how much.
    #[test]
    fn long_text_in_a_warning_is_cut() {
        assert_eq!(capped("a\u{1b}b"), "a\\u{1b}b");
        let long = "é".repeat(WARNING_CHARS + 700);
        let cut = capped(&long);
        assert!(cut.starts_with(&"é".repeat(WARNING_CHARS)), "{cut}");
        assert!(cut.ends_with("é… (700 more characters)"), "{cut}");
        assert_eq!(
            capped(&"x".repeat(WARNING_CHARS)),
            "x".repeat(WARNING_CHARS)
        );
    }

    /// Controls and invisible characters become escapes; other text,
    /// right-to-left scripts included, is left alone.
    #[test]
    fn controls_and_invisible_characters_are_escaped() {
        assert_eq!(escape_control("a\u{1b}[2J"), "a\\u{1b}[2J");
        assert_eq!(escape_control("\u{202e}gnp.exe"), "\\u{202e}gnp.exe");
        assert_eq!(escape_control("x\u{e0041}y"), "x\\u{e0041}y");
        assert_eq!(escape_control("שלום, café"), "שלום, café");
    }

    /// The trace's verdicts line up in display columns, whatever script a
    /// rule is named in.
    #[test]
    fn trace_rows_line_up_with_wide_names() {
        let rules = CompiledRules::new(
            &crate::rules::dialect::native::parse(
                "[[rules]]\nname='日本語 🎉'\nmatch={field='path',prefix='/x'}\n\
                 [[rules]]\nname='plain'\nmatch={field='path',prefix='/y'}\n",
            )
            .expect("rules")
            .rules,
        );
        let url = url::Url::parse("http://h/z").unwrap();
        let known = crate::rules::Known::default();
        let facts = crate::rules::UrlFacts::new(&url, &known);
        let verdict = rules.evaluate(&facts, &mut rules.scratch(), crate::rules::TraceMode::Full);
        let text = verdict_text("http://h/z", &verdict, &rules);
        let columns: Vec<usize> = text
            .lines()
            .filter(|l| l.ends_with("not matched"))
            .map(|l| unicode_width::UnicodeWidthStr::width(&l[..l.find("not matched").unwrap()]))
            .collect();
        assert_eq!(columns.len(), 2, "{text}");
        assert_eq!(columns[0], columns[1], "{text}");
    }

    /// JSON keeps meaning the same text: beyond the first plane as a
    /// surrogate pair.
    #[test]
    fn json_lines_escape_what_serde_json_leaves_raw() {
        let text = "a\u{9b}b\u{7f}\u{202e}\u{e0041}é";
        let json = serde_json::to_string(&text).expect("json");
        let safe = json_safe(&json);
        assert_eq!(safe, "\"a\\u009bb\\u007f\\u202e\\udb40\\udc41é\"");
        let back: String = serde_json::from_str(&safe).expect("valid JSON");
        assert_eq!(back, text);
    }
}
