//! The `nutch` dialect: Apache Nutch's `regex-urlfilter.txt`.
//!
//! Each rule line is a sign and a regular expression: `+REGEX` accepts the
//! URLs it matches, `-REGEX` rejects them. Nutch tries the rules top to
//! bottom against the whole URL with an unanchored search (`find()`), the
//! first one that matches decides, and a URL that no rule matches is
//! rejected. `#` lines and blank lines are skipped.
//!
//! So the file becomes one top-level block, "regex-urlfilter", that always
//! holds and is `first_match`, with one child per rule line in file order:
//!
//! - `+REGEX`: a child with `url regex REGEX` (case-sensitive) that sets
//!   nothing; holding ends the block, so the URL is accepted.
//! - `-REGEX`: the same test with `filter = may-not-have` (logged).
//! - last, a child that always holds with `filter = may-not-have`: it is
//!   reached only when no line matched, which is Nutch's default reject.
//!
//! The regex is everything after the sign, without trailing whitespace (a
//! CR left by a Windows editor would otherwise become part of it). It is not
//! checked here: the compiler disables a rule whose regex does not compile,
//! such as Nutch's own default `-.*(/[^/]+)/[^/]+\1/[^/]+\1/` (Java regexes
//! have backreferences, Rust's do not), and says so in every interface.
//! Its `\d`, `\w` and `\s` are read as ASCII classes, as Java reads them
//! ([`super::java_regex`]).

use super::Parsed;
use crate::rules::error::{LineError, Note};
use crate::rules::model::{Case, Condition, Field, Filter, Matcher, Rule, Test};

/// The name of the block the whole file becomes.
const BLOCK: &str = "regex-urlfilter";

/// The name of the closing child that stands for Nutch's default reject.
const DEFAULT_REJECT: &str = "no pattern matched (Nutch rejects by default)";

/// Parses a `regex-urlfilter.txt` into one `first_match` block.
pub fn parse(text: &str) -> Result<Parsed, LineError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut parsed = Parsed::default();
    let mut children = Vec::new();

    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.trim_end();
        let Some(first) = content.chars().next() else {
            continue;
        };
        let (reject, regex) = match first {
            '#' => continue,
            // Nutch skips a line that starts with a space, rule or not; say so,
            // because such a line usually looks like a rule to its reader.
            ' ' => {
                parsed.notes.push(Note {
                    line,
                    message: format!(
                        "`{}` starts with a space, which Nutch treats as a comment; skipped",
                        content.trim_start()
                    ),
                });
                continue;
            }
            '+' => (false, content.get(1..).unwrap_or_default()),
            '-' => (true, content.get(1..).unwrap_or_default()),
            _ => {
                return Err(LineError::new(
                    line,
                    format!(
                        "a rule line must start with `+` or `-` (or `#` for a comment), found `{content}`"
                    ),
                ));
            }
        };
        // The name is the line as written, so a trace shows the user's own rule.
        let mut rule = Rule::new(content, line);
        rule.condition = Some(Condition::Test(Test {
            field: Field::Url,
            matcher: Matcher::Regex(super::java_regex::ascii_perl_classes(regex)),
            case: Case::Sensitive,
        }));
        if reject {
            rule.filter = Some(Filter::MayNotHave);
            rule.log = Some(true);
        }
        children.push(rule);
    }

    if children.is_empty() {
        parsed.notes.push(Note {
            line: 0,
            message: "no `+` or `-` lines: Nutch rejects every URL".to_string(),
        });
    }
    // The block points at its first rule line so a trace can name a place in
    // the file; the default reject has no line of its own (0 = built in).
    let block_line = children.first().map_or(0, |rule| rule.origin.line);
    let mut default_reject = Rule::new(DEFAULT_REJECT, 0);
    default_reject.filter = Some(Filter::MayNotHave);
    default_reject.log = Some(true);
    children.push(default_reject);

    let mut block = Rule::new(BLOCK, block_line);
    block.first_match = true;
    block.rules = children;
    parsed.rules.rules.push(block);
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::fuzz;

    fn child(line: usize, text: &str) -> Rule {
        let (reject, regex) = match text.split_at(1) {
            ("-", r) => (true, r),
            (_, r) => (false, r),
        };
        let mut rule = Rule::new(text, line);
        rule.condition = Some(Condition::Test(Test {
            field: Field::Url,
            matcher: Matcher::Regex(regex.to_string()),
            case: Case::Sensitive,
        }));
        if reject {
            rule.filter = Some(Filter::MayNotHave);
            rule.log = Some(true);
        }
        rule
    }

    fn default_reject() -> Rule {
        let mut rule = Rule::new(DEFAULT_REJECT, 0);
        rule.filter = Some(Filter::MayNotHave);
        rule.log = Some(true);
        rule
    }

    fn block_of(text: &str) -> Rule {
        let parsed = parse(text);
        let Ok(mut parsed) = parsed else {
            panic!("{text:?}: {parsed:?}")
        };
        assert_eq!(parsed.rules.rules.len(), 1, "{text}");
        parsed.rules.rules.remove(0)
    }

    /// Nutch's shipped `regex-urlfilter.txt`: every rule line, in order,
    /// including the backreference rule that Rust's regex cannot compile.
    #[test]
    fn nutch_default_file() {
        let text = "\
# skip file: ftp: and mailto: urls
-^(?:file|ftp|mailto):

# skip image and other suffixes we can't yet parse
-(?i)\\.(?:gif|jpg|png|ico|css|sit|eps|wmf|zip|ppt|mpg|xls|gz|rpm|tgz|mov|exe|jpeg|bmp|js)$

# skip URLs containing certain characters as probable queries, etc.
-[?*!@=]

# skip URLs with slash-delimited segment that repeats 3+ times, to break loops
-.*(/[^/]+)/[^/]+\\1/[^/]+\\1/

# accept anything else
+.
";
        let block = block_of(text);
        assert_eq!(block.name, BLOCK);
        assert!(block.first_match && block.enabled && block.condition.is_none());
        assert!(block.filter.is_none() && block.log.is_none() && block.flags().is_empty());
        assert_eq!(block.origin.line, 2);
        assert_eq!(
            block.rules,
            vec![
                child(2, "-^(?:file|ftp|mailto):"),
                child(
                    5,
                    r"-(?i)\.(?:gif|jpg|png|ico|css|sit|eps|wmf|zip|ppt|mpg|xls|gz|rpm|tgz|mov|exe|jpeg|bmp|js)$"
                ),
                child(8, "-[?*!@=]"),
                child(11, r"-.*(/[^/]+)/[^/]+\1/[^/]+\1/"),
                child(14, "+."),
                default_reject(),
            ]
        );
    }

    /// Single lines: the sign, the regex kept verbatim up to trailing
    /// whitespace, CRLF and a BOM.
    #[test]
    fn rule_lines() {
        let cases: Vec<(&str, Vec<Rule>)> = vec![
            (
                "+^https?://([a-z0-9]*\\.)*example\\.com/",
                vec![child(1, "+^https?://([a-z0-9]*\\.)*example\\.com/")],
            ),
            ("-\\.pdf$   \t", vec![child(1, "-\\.pdf$")]),
            (
                "\u{feff}+a b\r\n-c\r\n",
                vec![child(1, "+a b"), child(2, "-c")],
            ),
            ("+", vec![child(1, "+")]),
            ("-- +", vec![child(1, "-- +")]),
        ];
        for (text, mut expect) in cases {
            expect.push(default_reject());
            assert_eq!(block_of(text).rules, expect, "{text:?}");
        }
    }

    /// A file without rule lines still rejects everything, as Nutch does, and
    /// says so; a line starting with a space is skipped with a note.
    #[test]
    fn notes() {
        let Ok(parsed) = parse("# nothing\n\n   \n") else {
            panic!()
        };
        assert_eq!(parsed.rules.rules.len(), 1);
        assert_eq!(parsed.rules.rules[0].rules, vec![default_reject()]);
        assert_eq!(parsed.notes.len(), 1);

        let Ok(parsed) = parse("+a\n +b\n-c") else {
            panic!()
        };
        assert_eq!(
            parsed.rules.rules[0].rules,
            vec![child(1, "+a"), child(3, "-c"), default_reject()]
        );
        let lines: Vec<usize> = parsed.notes.iter().map(|n| n.line).collect();
        assert_eq!(lines, vec![2]);
    }

    /// Any other first character is an error naming the line.
    #[test]
    fn malformed_lines_are_errors() {
        let cases = [
            ("*foo", 1),
            ("+a\n\tb", 2),
            ("# x\n\nhttp://example.com/", 3),
            ("é", 1),
            ("=x", 1),
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
            b"+",
            b"-",
            b"#",
            b" ",
            b"\n",
            b"\r\n",
            b"\\1",
            b"\xc3\xa9",
            b"\xef\xbb\xbf",
        ];
        for text in fuzz::inputs(0xd1b5_4a32_d192_ed03, 4000, 48, pieces) {
            let _ = parse(&text);
        }
    }
}
