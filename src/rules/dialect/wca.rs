//! The `wca` dialect: IBM Watson Content Analytics crawl space rules (seed 003).
//!
//! Each line is `action type target [netmask]`: `allow` or `forbid`, then
//! `domain`, `address` or `prefix`; a line whose second word is a URL
//! (starts with `http`) is a prefix rule without the word `prefix`
//! (`forbid http://sales.ibm.com/*fs/*`). `#` lines and blank lines are
//! skipped.
//!
//! WCA applies the rules of one type together, first to last, and the first
//! rule that applies decides; the order between types does not matter. So
//! the rules become up to three top-level blocks, "domain rules", "address
//! rules" and "prefix rules", each always holding and `first_match`, with the
//! lines of that type as children in file order:
//!
//! - `forbid …` is a child with `filter = may-not-have` (logged): the URL is
//!   filtered and the block ends.
//! - `allow …` is a child that sets nothing: holding is enough to end the
//!   block, so no later forbid of that type can apply.
//!
//! Matching, all case-sensitive as WCA documents ("host name matching is case
//! sensitive"). URLs reach the rules normalized (lower-case scheme and host,
//! no default port), so targets are normalized the same way on import; a
//! target written `Sales.IBM.com` would otherwise never match anything.
//!
//! - domain: `host wildcard TARGET`; with `:port` it is
//!   `all(host wildcard HOST, port exact PORT)`, since such a rule "applies
//!   only to that port" (the `port` field is the effective port).
//! - address: `address cidr TARGET [NETMASK]` (the netmask's zero bits are
//!   wildcards; IPv6 in brackets allowed). This needs DNS, so the engine
//!   defers it.
//! - prefix: `url wildcard TARGET*`: the rule covers URLs that begin with the
//!   target, so a `*` is added when the target does not already end in one.

use super::Parsed;
use crate::rules::error::LineError;
use crate::rules::model::{Case, Cidr, Condition, Field, Filter, Matcher, Rule, Test};

/// The three kinds of WCA rule, in the order their blocks are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Domain,
    Address,
    Prefix,
}

impl Kind {
    const ALL: [Kind; 3] = [Kind::Domain, Kind::Address, Kind::Prefix];

    fn block_name(self) -> &'static str {
        match self {
            Kind::Domain => "domain rules",
            Kind::Address => "address rules",
            Kind::Prefix => "prefix rules",
        }
    }

    /// The type word as written in a rule line.
    fn word(self) -> &'static str {
        match self {
            Kind::Domain => "domain",
            Kind::Address => "address",
            Kind::Prefix => "prefix",
        }
    }
}

/// Parses WCA crawl space rules into one `first_match` block per rule type.
pub fn parse(text: &str) -> Result<Parsed, LineError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut children: [Vec<Rule>; 3] = Default::default();

    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        // `trim` also drops a bare `\r` that `lines` keeps at the very end of a file.
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let (kind, rule) = parse_line(trimmed, line)?;
        // `Kind` discriminants follow `Kind::ALL`, so this is the kind's block.
        children[kind as usize].push(rule);
    }

    let mut parsed = Parsed::default();
    for (kind, rules) in Kind::ALL.into_iter().zip(children) {
        let Some(first) = rules.first() else { continue };
        // The block points at its first line so a trace can name a place in the file.
        let mut block = Rule::new(kind.block_name(), first.origin.line);
        block.first_match = true;
        block.rules = rules;
        parsed.rules.rules.push(block);
    }
    Ok(parsed)
}

/// One non-comment line: its kind and the child rule it becomes.
fn parse_line(trimmed: &str, line: usize) -> Result<(Kind, Rule), LineError> {
    let err = |message: String| LineError::new(line, message);
    let words: Vec<&str> = trimmed.split_whitespace().collect();
    let forbid = match words.first() {
        Some(w) if w.eq_ignore_ascii_case("forbid") => true,
        Some(w) if w.eq_ignore_ascii_case("allow") => false,
        _ => {
            return Err(err(format!(
                "expected `allow` or `forbid` at the start of a rule, found `{trimmed}`"
            )));
        }
    };
    let Some(second) = words.get(1) else {
        return Err(err(format!(
            "`{trimmed}` has no type and target (expected `domain`, `address` or `prefix` and a target)"
        )));
    };
    let is_url = second
        .get(..4)
        .is_some_and(|s| s.eq_ignore_ascii_case("http"));
    let (kind, args) = if second.eq_ignore_ascii_case("domain") {
        (Kind::Domain, words.get(2..).unwrap_or_default())
    } else if second.eq_ignore_ascii_case("address") {
        (Kind::Address, words.get(2..).unwrap_or_default())
    } else if second.eq_ignore_ascii_case("prefix") {
        (Kind::Prefix, words.get(2..).unwrap_or_default())
    } else if is_url {
        (Kind::Prefix, words.get(1..).unwrap_or_default())
    } else {
        return Err(err(format!(
            "unknown rule type `{second}` (expected `domain`, `address` or `prefix`, or a URL starting with http)"
        )));
    };
    let what = kind.word();
    // Only an address rule takes a second argument, its netmask.
    let most = if kind == Kind::Address { 2 } else { 1 };
    let Some(target) = args.first().copied() else {
        return Err(err(format!("the {what} rule `{trimmed}` has no target")));
    };
    if let Some(extra) = args.get(most..).filter(|extra| !extra.is_empty()) {
        return Err(err(format!(
            "unexpected `{}` after the target of the {what} rule `{trimmed}`",
            extra.join(" ")
        )));
    }

    let condition = match kind {
        Kind::Domain => domain_condition(target).map_err(err)?,
        Kind::Address => {
            let text = match args.get(1) {
                Some(netmask) => format!("{target} {netmask}"),
                None => target.to_string(),
            };
            let cidr: Cidr = text.parse().map_err(err)?;
            // A cidr test ignores case, so it keeps the default rather than
            // printing a meaningless `case = "sensitive"`.
            Condition::Test(Test {
                field: Field::Address,
                matcher: Matcher::Cidr(cidr),
                case: Case::default(),
            })
        }
        Kind::Prefix => {
            let target = super::url_start_normalized(target, false);
            let pattern = if target.ends_with('*') {
                target
            } else {
                format!("{target}*")
            };
            sensitive(Field::Url, Matcher::Wildcard(pattern))
        }
    };

    // The name is the line as written, so a trace shows the user's own rule.
    let mut rule = Rule::new(words.join(" "), line);
    rule.condition = Some(condition);
    if forbid {
        rule.filter = Some(Filter::MayNotHave);
        rule.log = Some(true);
    }
    Ok((kind, rule))
}

/// The condition of a domain rule: the host pattern, plus the port when the
/// target names one (`sales.ibm.com:443`, `[2001:db8::1]:8080`).
fn domain_condition(target: &str) -> Result<Condition, String> {
    // A colon inside an unbracketed host is IPv6 text, not a port separator.
    let split = target
        .rsplit_once(':')
        .filter(|(host, _)| !host.contains(':') || (host.starts_with('[') && host.ends_with(']')));
    let Some((host, port)) = split else {
        return Ok(sensitive(
            Field::Host,
            Matcher::Wildcard(super::host_normalized(target)),
        ));
    };
    if host.is_empty() {
        return Err(format!(
            "the domain rule target `{target}` has a port but no host"
        ));
    }
    let port: u16 = Some(port)
        .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|p| p.parse().ok())
        .ok_or_else(|| {
            format!("bad port `{port}` in `{target}` (expected a number from 0 to 65535)")
        })?;
    Ok(Condition::All(vec![
        sensitive(Field::Host, Matcher::Wildcard(super::host_normalized(host))),
        // The `port` field is the decimal effective port, so `0443` is written `443`.
        sensitive(Field::Port, Matcher::Exact(port.to_string())),
    ]))
}

fn sensitive(field: Field, matcher: Matcher) -> Condition {
    Condition::Test(Test {
        field,
        matcher,
        case: Case::Sensitive,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::fuzz;

    /// A block's name and line, and each child's line and whether it forbids.
    type BlockShape<'a> = (&'a str, usize, Vec<(usize, bool)>);

    fn wildcard(field: Field, s: &str) -> Condition {
        sensitive(field, Matcher::Wildcard(s.to_string()))
    }

    fn port(s: &str) -> Condition {
        sensitive(Field::Port, Matcher::Exact(s.to_string()))
    }

    fn cidr(s: &str) -> Condition {
        let Ok(c) = s.parse::<Cidr>() else {
            panic!("{s}")
        };
        Condition::Test(Test {
            field: Field::Address,
            matcher: Matcher::Cidr(c),
            case: Case::Insensitive,
        })
    }

    fn child(name: &str, line: usize, forbid: bool, condition: Condition) -> Rule {
        let mut rule = Rule::new(name, line);
        rule.condition = Some(condition);
        if forbid {
            rule.filter = Some(Filter::MayNotHave);
            rule.log = Some(true);
        }
        rule
    }

    fn only_block(text: &str) -> Rule {
        let parsed = parse(text);
        let Ok(mut parsed) = parsed else {
            panic!("{text:?}: {parsed:?}")
        };
        assert_eq!(parsed.rules.rules.len(), 1, "{text}");
        assert!(parsed.notes.is_empty(), "{text}");
        parsed.rules.rules.remove(0)
    }

    /// Seed 003: every example rule, alone: its block and its one child.
    #[test]
    fn seed_003_lines() {
        let cases: Vec<(&str, &str, bool, Condition)> = vec![
            (
                "allow domain www.ibm.com",
                "domain rules",
                false,
                wildcard(Field::Host, "www.ibm.com"),
            ),
            (
                "forbid domain server*.ibm.com",
                "domain rules",
                true,
                wildcard(Field::Host, "server*.ibm.com"),
            ),
            (
                "allow domain sales.ibm.com",
                "domain rules",
                false,
                wildcard(Field::Host, "sales.ibm.com"),
            ),
            (
                "allow domain sales.ibm.com:443",
                "domain rules",
                false,
                Condition::All(vec![wildcard(Field::Host, "sales.ibm.com"), port("443")]),
            ),
            (
                "forbid domain *",
                "domain rules",
                true,
                wildcard(Field::Host, "*"),
            ),
            (
                "allow prefix http://sales.ibm.com/public/*",
                "prefix rules",
                false,
                wildcard(Field::Url, "http://sales.ibm.com/public/*"),
            ),
            (
                "forbid prefix http://sales.ibm.com/*",
                "prefix rules",
                true,
                wildcard(Field::Url, "http://sales.ibm.com/*"),
            ),
            (
                "forbid http://sales.ibm.com/*fs/*",
                "prefix rules",
                true,
                wildcard(Field::Url, "http://sales.ibm.com/*fs/*"),
            ),
            (
                "allow address 9.0.0.0 255.0.0.0",
                "address rules",
                false,
                cidr("9.0.0.0/8"),
            ),
            (
                "allow address [2001:db8:0:1:0:0:0:1]",
                "address rules",
                false,
                cidr("2001:db8:0:1::1/128"),
            ),
            (
                "forbid address 0.0.0.0 0.0.0.0",
                "address rules",
                true,
                cidr("0.0.0.0/0"),
            ),
            ("forbid address :: ::", "address rules", true, cidr("::/0")),
        ];
        for (text, block_name, forbid, condition) in cases {
            let block = only_block(text);
            assert_eq!(block.name, block_name, "{text}");
            assert!(
                block.first_match && block.enabled && block.condition.is_none(),
                "{text}"
            );
            assert!(
                block.filter.is_none() && block.log.is_none() && block.flags().is_empty(),
                "{text}"
            );
            assert_eq!(block.origin.line, 1, "{text}");
            assert_eq!(
                block.rules,
                vec![child(text, 1, forbid, condition)],
                "{text}"
            );
        }
    }

    /// Seed 003: the rules of a realistic file land in their blocks, in file
    /// order within a block, whatever order the types are mixed in.
    #[test]
    fn seed_003_blocks_keep_file_order() {
        let text = "\u{feff}# intranet\r\n\
                    allow prefix http://sales.ibm.com/public/*\r\n\
                    forbid domain server*.ibm.com\r\n\
                    \r\n\
                    allow address 9.0.0.0 255.0.0.0\r\n\
                    forbid prefix http://sales.ibm.com/*\r\n\
                    allow domain *.ibm.com\r\n\
                    forbid domain *\r\n\
                    forbid address 0.0.0.0 0.0.0.0\r\n\
                    forbid http://sales.ibm.com/*fs/*";
        let Ok(parsed) = parse(text) else { panic!() };
        let shape: Vec<BlockShape> = parsed
            .rules
            .rules
            .iter()
            .map(|b| {
                let kids = b
                    .rules
                    .iter()
                    .map(|r| (r.origin.line, r.filter.is_some()))
                    .collect();
                (b.name.as_str(), b.origin.line, kids)
            })
            .collect();
        assert_eq!(
            shape,
            vec![
                ("domain rules", 3, vec![(3, true), (7, false), (8, true)]),
                ("address rules", 5, vec![(5, false), (9, true)]),
                ("prefix rules", 2, vec![(2, false), (6, true), (10, true)]),
            ]
        );
    }

    /// Targets: a prefix gets its trailing `*`, ports are normalized, IPv6
    /// hosts keep their colons, keywords ignore case.
    #[test]
    fn targets() {
        let cases: Vec<(&str, Condition)> = vec![
            (
                "allow prefix http://sales.ibm.com/public/",
                wildcard(Field::Url, "http://sales.ibm.com/public/*"),
            ),
            (
                "forbid HTTPS://x.example/a",
                wildcard(Field::Url, "https://x.example/a*"),
            ),
            (
                "forbid prefix http://Sales.IBM.com:80/Public/*",
                wildcard(Field::Url, "http://sales.ibm.com/Public/*"),
            ),
            (
                "forbid prefix https://h.example:443",
                wildcard(Field::Url, "https://h.example/*"),
            ),
            (
                "allow domain Sales.IBM.com",
                wildcard(Field::Host, "sales.ibm.com"),
            ),
            (
                "ALLOW Domain a.example:0443",
                Condition::All(vec![wildcard(Field::Host, "a.example"), port("443")]),
            ),
            (
                "allow domain [2001:db8::1]",
                wildcard(Field::Host, "[2001:db8::1]"),
            ),
            (
                "allow domain [2001:db8::1]:8080",
                Condition::All(vec![wildcard(Field::Host, "[2001:db8::1]"), port("8080")]),
            ),
            (
                "allow domain *.user.ibm.com",
                wildcard(Field::Host, "*.user.ibm.com"),
            ),
            ("allow address 10.1.0.0/16", cidr("10.1.0.0/16")),
            (
                "allow   address\t10.0.0.0   255.0.255.0",
                cidr("10.0.0.0 255.0.255.0"),
            ),
        ];
        for (text, condition) in cases {
            let block = only_block(text);
            assert_eq!(block.rules.len(), 1, "{text}");
            assert_eq!(
                block.rules[0].condition.as_ref(),
                Some(&condition),
                "{text}"
            );
        }
        // The name is the line with its spacing tidied.
        assert_eq!(
            only_block("allow   address\t10.0.0.0   255.0.255.0").rules[0].name,
            "allow address 10.0.0.0 255.0.255.0"
        );
    }

    /// Malformed lines are errors naming the line.
    #[test]
    fn malformed_lines_are_errors() {
        let cases = [
            ("allow address 9.0.0.0 255.0.0", 1, "netmask"),
            ("# x\nallow address 9.0.0.0/33", 2, "prefix length"),
            ("allow address not-an-ip", 1, "bad address"),
            ("allow address 9.0.0.0 ffff::", 1, "netmask"),
            ("allow host www.ibm.com", 1, "unknown rule type"),
            ("permit domain www.ibm.com", 1, "allow"),
            ("allow", 1, "no type"),
            ("\n\nforbid domain", 3, "no target"),
            ("forbid prefix", 1, "no target"),
            ("forbid address", 1, "no target"),
            (
                "allow domain a.example b.example",
                1,
                "unexpected `b.example`",
            ),
            ("forbid http://a/ http://b/", 1, "unexpected"),
            (
                "allow address 9.0.0.0 255.0.0.0 extra",
                1,
                "unexpected `extra`",
            ),
            ("allow domain a.example:", 1, "bad port"),
            ("allow domain a.example:https", 1, "bad port"),
            ("allow domain a.example:70000", 1, "bad port"),
            ("allow domain :80", 1, "no host"),
            ("some prose here", 1, "allow"),
        ];
        for (text, line, words) in cases {
            match parse(text) {
                Err(e) => {
                    assert_eq!(e.line, line, "{text}: {e:?}");
                    assert!(e.message.contains(words), "{text}: {}", e.message);
                }
                Ok(p) => panic!("{text:?} should fail, got {p:?}"),
            }
        }
    }

    /// An empty file, or one with only comments, has no blocks.
    #[test]
    fn empty_files_have_no_blocks() {
        for text in ["", "\n\n", "# only a comment\r\n", "\u{feff}"] {
            let Ok(parsed) = parse(text) else {
                panic!("{text:?}")
            };
            assert!(parsed.rules.rules.is_empty(), "{text:?}");
        }
    }

    /// No input makes the importer panic.
    #[test]
    fn random_input_never_panics() {
        // Half pure bytes, half built from pieces of the syntax so that the
        // deeper paths are reached too.
        let pieces: &[&[u8]] = &[
            b"allow ",
            b"forbid ",
            b"domain ",
            b"address ",
            b"prefix ",
            b"http",
            b":",
            b"[",
            b"]",
            b"*",
            b"/",
            b"255.0.0.0",
            b"::",
            b" ",
            b"\r\n",
            b"\xcc\x81",
        ];
        for text in fuzz::inputs(0x2545_f491_4f6c_dd1d, 4000, 48, pieces) {
            let _ = parse(&text);
        }
    }
}
