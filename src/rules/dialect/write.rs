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

/// A condition as one inline table.
fn condition_text(condition: &Condition) -> String {
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
    if text.contains('\'') || text.chars().any(char::is_control) {
        basic(text)
    } else {
        format!("'{text}'")
    }
}

/// A TOML basic string. Control characters are escaped even where TOML would
/// allow them raw (tab, C1 controls), so the file shows them and a terminal
/// printing it is not driven by them.
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
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Header text made safe for a comment: TOML forbids control characters
/// there, so they are shown as `\u{..}` escapes instead.
fn comment_text(line: &str) -> String {
    line.chars()
        .map(|c| {
            if c.is_control() && c != '\t' {
                format!("\\u{{{:X}}}", u32::from(c))
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::rules::dialect::native::{self, SPEC_EXAMPLE};
    use crate::rules::model::{
        Action, Cidr, Disposition, Field, Filter, Flags, Origin, Priority, Range, text_matchers,
    };

    /// Source lines are not part of the printed rules (they become
    /// comments), so comparisons leave them out.
    fn without_lines(mut set: RuleSet) -> RuleSet {
        fn clear(rules: &mut [Rule]) {
            for rule in rules {
                rule.origin = Origin::default();
                clear(&mut rule.rules);
            }
        }
        clear(&mut set.rules);
        set
    }

    /// Prints `set`, reads it back and returns the text, failing with the
    /// text when it does not parse or comes back different.
    fn assert_round_trip(set: &RuleSet) -> String {
        let text = to_toml(set, "round trip");
        let back = match native::parse(&text) {
            Ok(parsed) => parsed.rules,
            Err(e) => panic!("output does not parse: {e:?}\n{text}"),
        };
        assert_eq!(without_lines(back), without_lines(set.clone()), "\n{text}");
        text
    }

    fn test(field: Field, matcher: Matcher, case: Case) -> Condition {
        Condition::Test(Test {
            field,
            matcher,
            case,
        })
    }

    #[test]
    fn spec_example_round_trips() {
        let Ok(parsed) = native::parse(SPEC_EXAMPLE) else {
            panic!("the SPEC example must parse")
        };
        let text = assert_round_trip(&parsed.rules);
        // The SPEC's own spelling of the two interesting values survives.
        assert!(text.contains(r#"match = { field = "path", regex = '\.(png|gif|jpe?g)$' }"#));
        assert!(text.contains(r#"set = { fetch = true, follow = true }"#));
        assert!(
            text.contains("\n  # line 47\n  [[rules.rules]]\n  name = \"no private area\"\n"),
            "{text}"
        );
    }

    /// The exact layout, so that a change to it is a visible decision.
    #[test]
    fn layout_follows_the_spec_example() {
        let mut parent = Rule::new("intranet only", 12);
        parent.condition = Some(test(
            Field::Host,
            Matcher::Wildcard("*.corp.example".into()),
            Case::Insensitive,
        ));
        parent.set = Flags {
            fetch: Some(true),
            save: None,
            follow: Some(true),
        };
        parent.first_match = true;
        let mut child = Rule::new("no private area", 13);
        child.condition = Some(test(
            Field::Path,
            Matcher::Prefix("/private/".into()),
            Case::Sensitive,
        ));
        child.filter = Some(Filter::MayNotHave);
        parent.rules.push(child);
        let mut last = Rule::new("built in", 0);
        last.enabled = false;
        last.condition = Some(Condition::All(vec![
            test(
                Field::Host,
                Matcher::Domain("a-rather-long-host-name.example.com".into()),
                Case::Insensitive,
            ),
            test(
                Field::Path,
                Matcher::Suffix("/and-a-long-path/logo.png".into()),
                Case::Sensitive,
            ),
        ]));
        last.action = Some(Action::Download);
        let set = RuleSet {
            disposition: Disposition::DisallowLog,
            rules: vec![parent, last],
        };
        let expected = r#"# imported from rules.txt (wca)
# second line

[crawl]
disposition = "disallow-log"

# line 12
[[rules]]
name = "intranet only"
match = { field = "host", wildcard = '*.corp.example' }
set = { fetch = true, follow = true }
first_match = true

  # line 13
  [[rules.rules]]
  name = "no private area"
  match = { field = "path", prefix = "/private/", case = "sensitive" }
  filter = "may-not-have"

[[rules]]
name = "built in"
enabled = false
match = { all = [ { field = "host", domain = "a-rather-long-host-name.example.com" },
                  { field = "path", suffix = "/and-a-long-path/logo.png", case = "sensitive" } ] }
action = "download"
"#;
        assert_eq!(
            to_toml(&set, "imported from rules.txt (wca)\nsecond line"),
            expected
        );
        assert_round_trip(&set);
    }

    /// Every matcher, case, field, combinator, action, flag, priority,
    /// filter and rule key, with awkward strings everywhere.
    #[test]
    fn every_part_of_the_model_round_trips() {
        let awkward = [
            "plain",
            "it's \"quoted\"",
            r"C:\dir\file \d+",
            "two\nlines",
            "tab\there",
            "unicode é 日本 🦀 \u{202e}",
            "controls \u{0} \u{1} \u{8} \u{c} \u{1b} \r \u{7f} \u{85} \u{9f}",
            "",
            "'",
            "\\",
            "]] [[rules]] # not a table",
        ];
        let mut tests = Vec::new();
        for (i, s) in awkward.iter().enumerate() {
            let case = if i % 2 == 0 {
                Case::Sensitive
            } else {
                Case::Insensitive
            };
            for matcher in text_matchers(s) {
                tests.push(test(Field::Path, matcher, case));
            }
        }
        for field in Field::ALL {
            for case in [Case::Insensitive, Case::Sensitive] {
                tests.push(test(field, Matcher::Exact(field.name().into()), case));
            }
        }
        for cidr in [
            "9.0.0.0/8",
            "10.0.0.0 255.0.255.0",
            "0.0.0.0/0",
            "192.168.1.7",
            "2001:db8::/32",
            ":: ::",
            "2001:db8::1 ffff:0:ffff::",
            "::ffff:1.2.3.4/128",
        ] {
            let Ok(c) = cidr.parse::<Cidr>() else {
                panic!("{cidr}")
            };
            tests.push(test(Field::Address, Matcher::Cidr(c), Case::Insensitive));
            tests.push(test(Field::Address, Matcher::Cidr(c), Case::Sensitive));
        }
        for (lo, hi) in [
            (Some(1), Some(3)),
            (None, Some(10)),
            (Some(30), None),
            (None, None),
            (Some(7), Some(7)),
            (Some(u64::MAX), None),
        ] {
            tests.push(test(
                Field::PathDepth,
                Matcher::Range(Range { lo, hi }),
                Case::Insensitive,
            ));
        }

        // all/any/not nested three deep, plus the empty lists.
        let deep = Condition::All(vec![
            Condition::Any(vec![
                Condition::Not(Box::new(Condition::All(vec![
                    tests[0].clone(),
                    Condition::Not(Box::new(tests[3].clone())),
                ]))),
                tests[1].clone(),
            ]),
            Condition::Not(Box::new(Condition::Any(vec![tests[2].clone()]))),
            Condition::All(vec![]),
            Condition::Any(vec![]),
        ]);

        let mut rules = Vec::new();
        for (i, t) in tests.iter().enumerate() {
            let mut rule = Rule::new(awkward[i % awkward.len()], i + 1);
            rule.condition = Some(t.clone());
            rules.push(rule);
        }
        for (i, action) in Action::ALL.into_iter().enumerate() {
            let mut rule = Rule::new(format!("action {}", action.name()), 0);
            rule.action = Some(action);
            rule.priority = Some(Priority::ALL[i]);
            rule.log = Some(i % 2 == 0);
            rule.negate = i % 2 == 1;
            rules.push(rule);
        }
        let mut rule = Rule::new("lowest", 0);
        rule.priority = Some(Priority::Lowest);
        rule.filter = Some(Filter::MustHave);
        rule.stop = true;
        rule.condition = Some(deep);
        rules.push(rule);
        for fetch in [None, Some(true), Some(false)] {
            for save in [None, Some(true), Some(false)] {
                for follow in [None, Some(true), Some(false)] {
                    let mut rule = Rule::new("flags", 0);
                    rule.set = Flags {
                        fetch,
                        save,
                        follow,
                    };
                    rules.push(rule);
                }
            }
        }
        let meta_of = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect()
        };
        for meta in [
            meta_of(&[("a", "1"), ("b-c_d", "2"), ("with space", "x\ny")]),
            meta_of(&[("n", "1"), ("n", "2")]),
            meta_of(&[("z", "last"), ("a", "first")]),
            meta_of(&[("", "empty name"), ("a.b", "dotted"), ("é", "\"")]),
            meta_of(&[("it's", "'"), ("\n", "\t")]),
        ] {
            let mut rule = Rule::new("meta", 0);
            rule.meta = meta;
            rule.source = Some("src \"1\"".into());
            rules.push(rule);
        }
        let mut rule = Rule::new("empty source, disabled, negated", 0);
        rule.source = Some(String::new());
        rule.enabled = false;
        rule.negate = true;
        rule.filter = Some(Filter::MayNotHave);
        rules.push(rule);

        // first_match blocks nested two deep, with siblings after each block.
        let mut inner = Rule::new("inner block", 90);
        inner.first_match = true;
        inner.condition = Some(tests[5].clone());
        inner.rules = vec![Rule::new("inner 1", 91), Rule::new("inner 2", 92)];
        let mut outer = Rule::new("outer block", 89);
        outer.first_match = true;
        outer.rules = vec![inner, Rule::new("after inner", 93)];
        outer.action = Some(Action::ExcludeScan);
        rules.push(outer);
        let mut plain_parent = Rule::new("parent without first_match", 94);
        plain_parent.rules = vec![Rule::new("only child", 95)];
        rules.push(plain_parent);
        rules.push(Rule::new("after everything", 96));

        for disposition in [
            Disposition::Allow,
            Disposition::Disallow,
            Disposition::DisallowLog,
        ] {
            let set = RuleSet {
                disposition,
                rules: rules.clone(),
            };
            let text = assert_round_trip(&set);
            assert!(text.contains("    [[rules.rules.rules]]\n"), "{text}");
        }
    }

    #[test]
    fn strings_are_readable() {
        assert_eq!(pattern(r"\.html$"), r"'\.html$'");
        assert_eq!(pattern("it's"), r#""it's""#);
        assert_eq!(pattern("a\tb"), r#""a\tb""#);
        assert_eq!(basic("a\"b\\c\nd\u{1}"), r#""a\"b\\c\nd\u0001""#);
        assert_eq!(key_text("Content-Type_2"), "Content-Type_2");
        assert_eq!(key_text("a.b"), r#""a.b""#);
        assert_eq!(key_text(""), r#""""#);
    }

    #[test]
    fn header_and_oddities_still_parse() {
        let mut rule = Rule::new("lonely first_match", 3);
        rule.first_match = true;
        let set = RuleSet {
            disposition: Disposition::Allow,
            rules: vec![rule],
        };
        let text = to_toml(&set, "bad \u{0} header\r\n\nline\u{7f}\r");
        let Ok(parsed) = native::parse(&text) else {
            panic!("{text}")
        };
        // A first_match without nested rules has no effect and is dropped.
        assert!(!parsed.rules.rules[0].first_match);
        assert!(text.starts_with("# bad \\u{0} header\n#\n# line\\u{7F}\\u{D}\n"));
        let empty = to_toml(&RuleSet::default(), "");
        assert_eq!(empty, "[crawl]\ndisposition = \"allow\"\n");
    }

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            proptest::collection::vec(any::<char>(), 0..10).prop_map(String::from_iter),
            "[a-z'\\\\\"\\.\\*\\n\\t ]{0,6}",
        ]
    }

    fn cidr() -> impl Strategy<Value = Cidr> {
        prop_oneof![
            (any::<u32>(), 0u32..=32).prop_map(|(addr, bits)| Cidr::V4 {
                addr,
                mask: u32::MAX.checked_shl(32 - bits).unwrap_or(0),
            }),
            (any::<u32>(), any::<u32>()).prop_map(|(addr, mask)| Cidr::V4 { addr, mask }),
            (any::<u128>(), 0u32..=128).prop_map(|(addr, bits)| Cidr::V6 {
                addr,
                mask: u128::MAX.checked_shl(128 - bits).unwrap_or(0),
            }),
            (any::<u128>(), any::<u128>()).prop_map(|(addr, mask)| Cidr::V6 { addr, mask }),
        ]
    }

    fn range() -> impl Strategy<Value = Range> {
        (any::<Option<u64>>(), any::<Option<u64>>()).prop_map(|(a, b)| match (a, b) {
            (Some(a), Some(b)) => Range {
                lo: Some(a.min(b)),
                hi: Some(a.max(b)),
            },
            (lo, hi) => Range { lo, hi },
        })
    }

    /// Tests the native parser accepts: the `address` field takes only
    /// `cidr`, `exact` and `regex`, and `cidr` only tests `address`.
    fn leaf() -> impl Strategy<Value = Condition> {
        let case = prop_oneof![Just(Case::Insensitive), Just(Case::Sensitive)];
        let other_field = proptest::sample::select(
            Field::ALL
                .into_iter()
                .filter(|f| *f != Field::Address)
                .collect::<Vec<_>>(),
        );
        let other = (
            other_field,
            prop_oneof![
                text().prop_map(Matcher::Regex),
                text().prop_map(Matcher::Exact),
                text().prop_map(Matcher::Prefix),
                text().prop_map(Matcher::Suffix),
                text().prop_map(Matcher::Contains),
                text().prop_map(Matcher::Wildcard),
                text().prop_map(Matcher::Domain),
                range().prop_map(Matcher::Range),
            ],
        );
        let address = (
            Just(Field::Address),
            prop_oneof![
                cidr().prop_map(Matcher::Cidr),
                text().prop_map(Matcher::Exact),
                text().prop_map(Matcher::Regex),
            ],
        );
        (prop_oneof![3 => other, 1 => address], case).prop_map(|((field, matcher), case)| {
            Condition::Test(Test {
                field,
                matcher,
                case,
            })
        })
    }

    fn condition() -> impl Strategy<Value = Condition> {
        leaf().prop_recursive(3, 12, 3, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..3).prop_map(Condition::All),
                proptest::collection::vec(inner.clone(), 0..3).prop_map(Condition::Any),
                inner.prop_map(|c| Condition::Not(Box::new(c))),
            ]
        })
    }

    /// Meta names come mostly from a small set so that repeats are common.
    fn meta() -> impl Strategy<Value = Vec<(String, String)>> {
        let name = prop_oneof![
            proptest::sample::select(vec!["a", "b", "x-y", "a.b", ""]).prop_map(String::from),
            text(),
        ];
        proptest::collection::vec((name, text()), 0..4)
    }

    /// A rule without nested rules.
    fn single_rule() -> impl Strategy<Value = Rule> {
        let action = proptest::option::of(proptest::sample::select(Action::ALL.to_vec()));
        let priority = proptest::option::of(proptest::sample::select(Priority::ALL.to_vec()));
        let filter = proptest::option::of(prop_oneof![
            Just(Filter::MustHave),
            Just(Filter::MayNotHave)
        ]);
        let flags = any::<(Option<bool>, Option<bool>, Option<bool>)>().prop_map(
            |(fetch, save, follow)| Flags {
                fetch,
                save,
                follow,
            },
        );
        (
            (text(), any::<bool>(), proptest::option::of(condition())),
            (any::<bool>(), action, flags, priority),
            (any::<Option<bool>>(), filter, any::<bool>()),
            (meta(), proptest::option::of(text()), 0usize..1000),
        )
            .prop_map(
                |(
                    (name, enabled, condition),
                    (negate, action, set, priority),
                    (log, filter, stop),
                    (meta, source, line),
                )| Rule {
                    name,
                    enabled,
                    condition,
                    negate,
                    action,
                    set,
                    priority,
                    log,
                    filter,
                    stop,
                    meta,
                    source,
                    rules: Vec::new(),
                    first_match: false,
                    origin: Origin { line },
                },
            )
    }

    fn rule_set() -> impl Strategy<Value = RuleSet> {
        let rule = single_rule().prop_recursive(3, 16, 3, |inner| {
            (
                single_rule(),
                proptest::collection::vec(inner, 0..3),
                any::<bool>(),
            )
                .prop_map(|(mut rule, rules, first_match)| {
                    // The parser only accepts first_match with something to choose among.
                    rule.first_match = first_match && !rules.is_empty();
                    rule.rules = rules;
                    rule
                })
        });
        let disposition = prop_oneof![
            Just(Disposition::Allow),
            Just(Disposition::Disallow),
            Just(Disposition::DisallowLog)
        ];
        (disposition, proptest::collection::vec(rule, 0..4))
            .prop_map(|(disposition, rules)| RuleSet { disposition, rules })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn random_rule_sets_round_trip(set in rule_set(), header in text()) {
            let text = to_toml(&set, &header);
            let back = native::parse(&text);
            prop_assert!(back.is_ok(), "{:?}\n{}", back.err(), text);
            if let Ok(back) = back {
                prop_assert_eq!(without_lines(back.rules), without_lines(set), "\n{}", text);
            }
        }
    }
}
