//! The `funnelback` dialect: include/exclude patterns from a Funnelback data
//! source configuration (seed 004).
//!
//! The file is `key=value` lines (`#` comments and blank lines skipped; the
//! key is case-insensitive and may have spaces around `=`). Two keys are
//! rules:
//!
//! - `include_patterns=/red,/green,/blue` becomes one rule named
//!   `include_patterns` with `filter = must-have` and the condition
//!   `any(url contains "/red", url contains "/green", url contains "/blue")`:
//!   a URL that contains none of them is filtered.
//! - `exclude_patterns=/green/olive` becomes one rule named
//!   `exclude_patterns` with `filter = may-not-have` and the same shape: a
//!   URL that contains any of them is filtered.
//!
//! A value that starts with `regexp:` is one regular expression instead of a
//! list (seed 004: "regex and simple patterns cannot be mixed"), so the
//! condition is a single `url regex` test. Every test looks at the whole
//! `url`, case-sensitively, as Funnelback does. Both rules log what they
//! filter, so "why was this not crawled?" has an answer.
//!
//! The regex is not checked here: the compiler disables a rule whose regex
//! does not compile (Funnelback's are Perl 5 syntax, Rust's is close but not
//! equal), which is visible in every interface instead of failing the import.
//! Its `\d`, `\w` and `\s` are read as ASCII classes, as Funnelback's Java
//! reads them ([`super::java_regex`]).
//!
//! - `crawler.monitor_url_reject_list=/red/bad` (seed 004: "additional
//!   URLs patterns to exclude while the crawler is running", from its next
//!   checkpoint) becomes a third rule of that name, shaped and filtering as
//!   `exclude_patterns` does (a running crawlspace crawl takes rules from
//!   its native config: import them into it, and the crawl applies them
//!   when the file changes); the note says to move them into
//!   `exclude_patterns` once the crawl is done, as the seed advises.
//!
//! Other keys (`crawler.ignore_robots_txt=true`, …) are settings, not rules:
//! they are skipped with a note. A key given twice keeps its last value,
//! as Funnelback's configuration does.

use super::Parsed;
use crate::rules::error::{LineError, Note};
use crate::rules::model::{Case, Condition, Field, Filter, Matcher, Rule, Test};

/// The two rule keys, in the canonical spelling used for rule names.
const INCLUDE: &str = "include_patterns";
const EXCLUDE: &str = "exclude_patterns";
/// Exclusions added while a crawl runs.
const REJECT_LIST: &str = "crawler.monitor_url_reject_list";

/// The value prefix that turns a pattern list into one regular expression.
const REGEXP: &str = "regexp:";

/// The last value seen for one of the two rule keys.
#[derive(Debug)]
struct Setting<'a> {
    line: usize,
    value: &'a str,
}

/// Parses a Funnelback configuration into its include/exclude filters.
pub fn parse(text: &str) -> Result<Parsed, LineError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut notes = Vec::new();
    let mut include: Option<Setting> = None;
    let mut exclude: Option<Setting> = None;
    let mut reject_list: Option<Setting> = None;

    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        // `trim` also drops a bare `\r` that `lines` keeps at the very end of a file.
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let Some((key, value)) = trimmed.split_once('=') else {
            return Err(LineError::new(
                line,
                format!(
                    "expected `key=value` (such as `include_patterns=/docs/`), found `{trimmed}`"
                ),
            ));
        };
        let key = key.trim();
        let value = value.trim();
        // A key with spaces in it is prose or a typo, not a configuration key.
        if key.is_empty() || key.contains(char::is_whitespace) {
            return Err(LineError::new(
                line,
                format!("expected `key=value` with a one-word key, found `{trimmed}`"),
            ));
        }
        let slot = if key.eq_ignore_ascii_case(INCLUDE) {
            &mut include
        } else if key.eq_ignore_ascii_case(EXCLUDE) {
            &mut exclude
        } else if key.eq_ignore_ascii_case(REJECT_LIST) {
            notes.push(Note {
                line,
                message: format!(
                    "{REJECT_LIST}: read as exclusions (import them into a running crawl's \
                     config and it applies them when the file changes); move them into \
                     {EXCLUDE} once the crawl is done"
                ),
            });
            &mut reject_list
        } else {
            notes.push(Note {
                line,
                message: format!("`{key}` is a setting, not an include/exclude rule; skipped"),
            });
            continue;
        };
        if let Some(earlier) = slot.replace(Setting { line, value }) {
            notes.push(Note {
                line,
                message: format!(
                    "{} given again: this value replaces the one on line {} (the last one counts)",
                    key.to_ascii_lowercase(),
                    earlier.line
                ),
            });
        }
    }

    // Both rules are vetoes, so their order does not change a verdict; file
    // order keeps the listing close to what the user wrote.
    let mut kept: Vec<(&str, Filter, Setting)> = Vec::new();
    if let Some(setting) = include {
        kept.push((INCLUDE, Filter::MustHave, setting));
    }
    if let Some(setting) = exclude {
        kept.push((EXCLUDE, Filter::MayNotHave, setting));
    }
    if let Some(setting) = reject_list {
        kept.push((REJECT_LIST, Filter::MayNotHave, setting));
    }
    kept.sort_by_key(|(_, _, setting)| setting.line);

    let mut parsed = Parsed {
        notes,
        ..Parsed::default()
    };
    for (name, filter, setting) in kept {
        // Seed 004: "Regex and simple include/exclude patterns cannot be
        // mixed within a single configuration option." A `regexp:` after
        // a comma is read as the plain text it is, and said so.
        let mixed = !setting.value.starts_with(REGEXP)
            && setting
                .value
                .split(',')
                .skip(1)
                .any(|item| item.trim().starts_with(REGEXP));
        if mixed {
            parsed.notes.push(Note {
                line: setting.line,
                message: format!(
                    "{name}: a `regexp:` item after a comma is plain text, not a regex \
                     (regex and simple patterns cannot be mixed in one option: put the \
                     regex alone in the value, after `regexp:`)"
                ),
            });
        }
        match condition(setting.value) {
            Some(condition) => {
                let mut rule = Rule::new(name, setting.line);
                rule.condition = Some(condition);
                rule.filter = Some(filter);
                rule.log = Some(true);
                parsed.rules.rules.push(rule);
            }
            None => parsed.notes.push(Note {
                line: setting.line,
                message: format!("{name} has no patterns, so it makes no rule"),
            }),
        }
    }
    parsed.notes.sort_by_key(|note| note.line);
    Ok(parsed)
}

/// The condition for one pattern value, or `None` when it names no pattern.
///
/// Plain items are trimmed: a normalized URL never contains a space, so a
/// space next to a comma can only be layout, never part of a pattern.
fn condition(value: &str) -> Option<Condition> {
    let test = |matcher| {
        Condition::Test(Test {
            field: Field::Url,
            matcher,
            case: Case::Sensitive,
        })
    };
    if let Some(regex) = value.strip_prefix(REGEXP) {
        let regex = super::java_regex::ascii_perl_classes(regex);
        return (!regex.is_empty()).then(|| test(Matcher::Regex(regex)));
    }
    let items: Vec<Condition> = value
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        // A URL in a pattern is compared with normalized URLs: written
        // normalized too (`HTTP://Example.COM/` → `http://example.com/`).
        .map(|item| test(Matcher::Contains(super::url_start_normalized(item, false))))
        .collect();
    (!items.is_empty()).then_some(Condition::Any(items))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::fuzz;
    use crate::rules::model::RuleSet;

    /// A rule's name and line.
    type NameLine<'a> = (&'a str, usize);

    fn contains(s: &str) -> Condition {
        Condition::Test(Test {
            field: Field::Url,
            matcher: Matcher::Contains(s.to_string()),
            case: Case::Sensitive,
        })
    }

    fn regex(s: &str) -> Condition {
        Condition::Test(Test {
            field: Field::Url,
            matcher: Matcher::Regex(s.to_string()),
            case: Case::Sensitive,
        })
    }

    fn filter_rule(name: &str, line: usize, filter: Filter, condition: Condition) -> Rule {
        let mut rule = Rule::new(name, line);
        rule.condition = Some(condition);
        rule.filter = Some(filter);
        rule.log = Some(true);
        rule
    }

    fn rules_of(text: &str) -> RuleSet {
        match parse(text) {
            Ok(parsed) => parsed.rules,
            Err(e) => panic!("{text:?} should parse, got {e:?}"),
        }
    }

    /// Seed 004: every example line, alone, and the rule it becomes.
    #[test]
    fn seed_004_lines() {
        let cases: Vec<(&str, Vec<Rule>)> = vec![
            (
                "include_patterns=/red,/green,/blue",
                vec![filter_rule(
                    INCLUDE,
                    1,
                    Filter::MustHave,
                    Condition::Any(vec![
                        contains("/red"),
                        contains("/green"),
                        contains("/blue"),
                    ]),
                )],
            ),
            (
                "exclude_patterns=/green/olive",
                vec![filter_rule(
                    EXCLUDE,
                    1,
                    Filter::MayNotHave,
                    Condition::Any(vec![contains("/green/olive")]),
                )],
            ),
            (
                r"exclude_patterns=regexp:search\?date=|^https:|\?OpenImageResource|/cgi-bin/|\.pdf$",
                vec![filter_rule(
                    EXCLUDE,
                    1,
                    Filter::MayNotHave,
                    regex(r"search\?date=|^https:|\?OpenImageResource|/cgi-bin/|\.pdf$"),
                )],
            ),
            (
                r"include_patterns=regexp:\.anu\.edu\.au",
                vec![filter_rule(
                    INCLUDE,
                    1,
                    Filter::MustHave,
                    regex(r"\.anu\.edu\.au"),
                )],
            ),
            ("crawler.ignore_robots_txt=true", vec![]),
            ("crawler.ignore_nofollow=true", vec![]),
            ("indexer_options= -ignore_noindex", vec![]),
        ];
        for (text, expect) in cases {
            assert_eq!(rules_of(text).rules, expect, "{text}");
        }
    }

    /// Seed 004: the include/exclude example together, with lines kept.
    #[test]
    fn seed_004_example_pair() {
        let parsed = parse("include_patterns=/red,/green,/blue\nexclude_patterns=/green/olive\n");
        let Ok(parsed) = parsed else {
            panic!("{parsed:?}")
        };
        let rules = &parsed.rules.rules;
        assert_eq!(rules.len(), 2);
        assert_eq!((rules[0].name.as_str(), rules[0].origin.line), (INCLUDE, 1));
        assert_eq!(rules[0].filter, Some(Filter::MustHave));
        assert_eq!((rules[1].name.as_str(), rules[1].origin.line), (EXCLUDE, 2));
        assert_eq!(rules[1].filter, Some(Filter::MayNotHave));
        assert!(
            rules
                .iter()
                .all(|r| r.rules.is_empty() && !r.first_match && r.flags().is_empty())
        );
        assert!(parsed.notes.is_empty(), "{:?}", parsed.notes);
    }

    /// Seed 004's running-crawl exclusions: a third may-not-have filter,
    /// and a note that says where they belong once the crawl is done.
    #[test]
    fn the_running_crawl_reject_list_excludes_too() {
        let parsed =
            parse("include_patterns=/red\nCrawler.Monitor_URL_Reject_List=/red/bad,/red/worse\n")
                .expect("parses");
        let rules = &parsed.rules.rules;
        assert_eq!(rules.len(), 2);
        assert_eq!(
            (
                rules[1].name.as_str(),
                rules[1].origin.line,
                rules[1].filter
            ),
            (REJECT_LIST, 2, Some(Filter::MayNotHave))
        );
        assert_eq!(
            rules[1].condition,
            Some(Condition::Any(vec![
                contains("/red/bad"),
                contains("/red/worse")
            ]))
        );
        assert!(
            parsed.notes[0]
                .message
                .contains("move them into exclude_patterns"),
            "{:?}",
            parsed.notes
        );
    }

    /// A pattern holding a URL is written as URLs are normalized, so that
    /// it can match; other substrings are kept as written.
    #[test]
    fn url_patterns_are_written_normalized() {
        let text = "exclude_patterns=HTTP://WWW.Example.com:80/Private,/Docs,http://a.com:80\n";
        let Ok(parsed) = parse(text) else {
            panic!("parses")
        };
        assert_eq!(
            parsed.rules.rules[0].condition,
            Some(Condition::Any(vec![
                contains("http://www.example.com/Private"),
                contains("/Docs"),
                // Ended at the port, so at the host: not `a.com.evil.org`.
                contains("http://a.com/"),
            ]))
        );
    }

    /// Layout: comments, blanks, CRLF, a BOM, key case, spaces, empty items.
    #[test]
    fn layout_is_forgiving() {
        let text = "\u{feff}# data source\r\n\r\n  Include_Patterns = /a, ,/b,\r\nEXCLUDE_PATTERNS =regexp:\\.pdf$ \r\n";
        let Ok(parsed) = parse(text) else { panic!() };
        assert_eq!(
            parsed.rules.rules,
            vec![
                filter_rule(
                    INCLUDE,
                    3,
                    Filter::MustHave,
                    Condition::Any(vec![contains("/a"), contains("/b")])
                ),
                filter_rule(EXCLUDE, 4, Filter::MayNotHave, regex(r"\.pdf$")),
            ]
        );
        assert!(parsed.notes.is_empty());
    }

    /// Settings and empty values are skipped with a note on their line; a
    /// repeated key keeps its last value.
    #[test]
    fn notes_name_their_lines() {
        let cases: Vec<(&str, Vec<usize>, Vec<NameLine>)> = vec![
            ("crawler.ignore_robots_txt=true", vec![1], vec![]),
            ("include_patterns=", vec![1], vec![]),
            ("include_patterns=,,", vec![1], vec![]),
            ("exclude_patterns=regexp:", vec![1], vec![]),
            (
                "include_patterns=/a\ninclude_patterns=/b",
                vec![2],
                vec![(INCLUDE, 2)],
            ),
            (
                "include_patterns=/a\n#\ninclude_patterns=",
                vec![3, 3],
                vec![],
            ),
            (
                "exclude_patterns=/x\ninclude_patterns=/a\nexclude_patterns=/y",
                vec![3],
                vec![(INCLUDE, 2), (EXCLUDE, 3)],
            ),
            // Seed 004: regex and simple patterns are not mixed in one
            // option; the `regexp:` item stays plain text, and is noted.
            (
                "\ninclude_patterns=/Red,/green,regexp:x{1,3}",
                vec![2],
                vec![(INCLUDE, 2)],
            ),
            (
                "include_patterns=regexp:a,regexp:b",
                vec![],
                vec![(INCLUDE, 1)],
            ),
        ];
        for (text, note_lines, rules) in cases {
            let Ok(parsed) = parse(text) else {
                panic!("{text}")
            };
            let lines: Vec<usize> = parsed.notes.iter().map(|n| n.line).collect();
            assert_eq!(lines, note_lines, "{text}: {:?}", parsed.notes);
            let got: Vec<(&str, usize)> = parsed
                .rules
                .rules
                .iter()
                .map(|r| (r.name.as_str(), r.origin.line))
                .collect();
            assert_eq!(got, rules, "{text}");
        }
        let Ok(parsed) = parse("include_patterns=/a\ninclude_patterns=/b") else {
            panic!()
        };
        assert_eq!(
            parsed.rules.rules[0].condition,
            Some(Condition::Any(vec![contains("/b")]))
        );
        let Ok(parsed) = parse("include_patterns=/a, regexp:b") else {
            panic!()
        };
        assert!(
            parsed.notes[0]
                .message
                .starts_with("include_patterns: a `regexp:` item after a comma is plain text"),
            "{:?}",
            parsed.notes
        );
        let Ok(parsed) = parse("crawler.ignore_robots_txt=true") else {
            panic!()
        };
        assert!(
            parsed.notes[0]
                .message
                .contains("crawler.ignore_robots_txt")
        );
        assert!(
            parsed.notes[0]
                .message
                .contains("not an include/exclude rule")
        );
    }

    /// Lines that are not `key=value` are errors naming the line.
    #[test]
    fn malformed_lines_are_errors() {
        let cases = [
            ("include_patterns /a", 1),
            ("# ok\nnot a setting", 2),
            ("\n\n=value", 3),
            ("include patterns=/a", 1),
            ("exclude_patterns=/a\r\nUser-agent: *", 2),
        ];
        for (text, line) in cases {
            match parse(text) {
                Err(e) => assert_eq!(e.line, line, "{text}: {e:?}"),
                Ok(p) => panic!("{text:?} should fail, got {p:?}"),
            }
        }
    }

    /// No input makes the importer panic.
    #[test]
    fn random_input_never_panics() {
        // Half pure bytes, half built from pieces of the syntax so that the
        // deeper paths are reached too.
        let pieces: &[&[u8]] = &[
            b"include_patterns",
            b"exclude_patterns",
            b"=",
            b",",
            b"regexp:",
            b"#",
            b"\r\n",
            b"\n",
            b" ",
            b"\xef\xbb\xbf",
        ];
        for text in fuzz::inputs(0x9e37_79b9_7f4a_7c15, 4000, 64, pieces) {
            let _ = parse(&text);
        }
    }
}
