//! The native dialect: crawlspace's own TOML (SPEC §5).
//!
//! A rules file holds `[crawl] disposition` and `[[rules]]` (nested as
//! `[[rules.rules]]`); a full config file also holds the other `[crawl]`
//! settings and `[queues]`, which this importer accepts and leaves to the
//! config loader. Unknown keys are errors, so a typo never silently turns a
//! rule into something else. Each rule records the line of its table.

use serde::Deserialize;
use toml::Spanned;

use super::Parsed;
use crate::rules::error::{LineError, LineIndex, line_of_offset};
use crate::rules::model::{
    Action, Case, Cidr, Condition, Disposition, Field, Filter, Flags, Matcher, Origin, Priority,
    Range, Rule, RuleSet, Test,
};

/// The `[crawl]` keys of SPEC §5, plus `commit_ms` (how long the engine
/// groups URL log writes), `max_fetch_s` and `give_up_host_s`; any other
/// key there is a typo.
pub const CRAWL_KEYS: [&str; 19] = [
    "start",
    "disposition",
    "max_link_depth",
    "max_path_depth",
    "obey_robots",
    "sitemaps",
    "ignore_nofollow",
    "concurrency",
    "per_host",
    "delay_ms",
    "timeout_s",
    "max_fetch_s",
    "max_body_bytes",
    "max_retries",
    "give_up_host_s",
    "commit_ms",
    "user_agent",
    "db",
    "out",
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    #[serde(default)]
    crawl: Option<Spanned<toml::Table>>,
    #[serde(default)]
    queues: Option<toml::Table>,
    #[serde(default)]
    rules: Vec<Spanned<RawRule>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    name: Option<String>,
    enabled: Option<bool>,
    #[serde(rename = "match")]
    condition: Option<Spanned<RawCondition>>,
    negate: Option<bool>,
    action: Option<Spanned<String>>,
    set: Option<RawFlags>,
    priority: Option<Spanned<String>>,
    log: Option<bool>,
    filter: Option<Spanned<String>>,
    stop: Option<bool>,
    meta: Option<RawMeta>,
    source: Option<String>,
    #[serde(default)]
    rules: Vec<Spanned<RawRule>>,
    first_match: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFlags {
    fetch: Option<bool>,
    save: Option<bool>,
    follow: Option<bool>,
}

/// `meta = { name = "value" }`, or an array of `{ name, value }` tables
/// when one name is given several values.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawMeta {
    Table(toml::Table),
    List(Vec<MetaPair>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MetaPair {
    name: String,
    value: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCondition {
    field: Option<Spanned<String>>,
    regex: Option<String>,
    exact: Option<String>,
    prefix: Option<String>,
    suffix: Option<String>,
    contains: Option<String>,
    wildcard: Option<String>,
    domain: Option<String>,
    cidr: Option<String>,
    range: Option<RawRange>,
    case: Option<Spanned<String>>,
    all: Option<Vec<Spanned<RawCondition>>>,
    any: Option<Vec<Spanned<RawCondition>>>,
    not: Option<Box<Spanned<RawCondition>>>,
}

/// A range as `"[lo:hi]"` text or a single whole number.
#[derive(Deserialize)]
#[serde(untagged)]
enum RawRange {
    Text(String),
    Number(u64),
}

/// Parses a native TOML rules or config file.
pub fn parse(text: &str) -> Result<Parsed, LineError> {
    let doc: Doc = toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(0, |s| line_of_offset(text, s.start));
        let mut message = format!("bad TOML: {}", e.message().trim());
        // serde names the private types it tried; say what the key takes.
        for (ours, takes) in [
            (
                "untagged enum RawMeta",
                "`meta` takes a table of names and values (`meta = { owner = \"web\" }`) or a list of `{ name = ..., value = ... }` tables",
            ),
            (
                "untagged enum RawRange",
                "`range` takes a text such as \"[0:3]\" or a number",
            ),
            (
                "struct RawCondition",
                "`match` takes a table: one test (`{ field = \"path\", prefix = \"/a\" }`), \
                 or `{ all = [...] }`, `{ any = [...] }`, `{ not = {...} }`",
            ),
        ] {
            if message.contains(ours) {
                message = format!("bad TOML: {takes}");
            }
        }
        // serde's words for a list where one test goes say nothing of why.
        let source = text.lines().nth(line.saturating_sub(1)).unwrap_or("");
        let compact: String = source.chars().filter(|c| !c.is_whitespace()).collect();
        if message.contains("expected a sequence") && compact.starts_with("[[rules.") {
            // TOML made `rules` a table, for want of a `[[rules]]` above.
            message = "bad TOML: `[[rules.rules]]` nests a rule in the `[[rules]]` above it, \
                       and there is none: the first rule is a `[[rules]]`"
                .into();
        }
        if message.contains("invalid type") && compact.contains("not=[") {
            message.push_str(" (`not` takes one test as a table, `not = { field = ..., ... }`; `all` and `any` take lists)");
        }
        LineError::new(line, message)
    })?;
    let lines = LineIndex::new(text);
    let at = |offset: usize| lines.line(offset);
    let mut disposition = Disposition::default();
    if let Some(crawl) = &doc.crawl {
        let line = at(crawl.span().start);
        for (key, value) in crawl.get_ref() {
            if !CRAWL_KEYS.contains(&key.as_str()) {
                return Err(LineError::new(
                    line_of_key(text, key).unwrap_or(line),
                    format!(
                        "unknown key `{key}` in [crawl] (expected one of {})",
                        CRAWL_KEYS.join(", ")
                    ),
                ));
            }
            if key == "disposition" {
                let line = line_of_key(text, key).unwrap_or(line);
                let name = value
                    .as_str()
                    .ok_or_else(|| LineError::new(line, "disposition must be a string"))?;
                disposition = name.parse().map_err(|e: String| LineError::new(line, e))?;
            }
        }
    }
    let _ = &doc.queues; // validated by the config loader
    let rules = doc
        .rules
        .iter()
        .enumerate()
        .map(|(i, r)| rule(r, i, &at))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Parsed {
        rules: RuleSet { disposition, rules },
        notes: Vec::new(),
    })
}

/// A condition typed as the value of a `match` key, on one line
/// (`{ all = [ { field = "host", exact = "h" }, ... ] }`), read as the
/// rules file's own would be: the console's rule form edits a combined
/// condition as this text. `Err` holds why it does not read.
pub fn parse_condition(text: &str) -> Result<Condition, String> {
    // Read inside a rule of its own, so that every check of a rules
    // file's `match` applies; a line break could add keys to that rule.
    if text.contains(['\n', '\r']) {
        return Err("a condition is typed on one line".into());
    }
    let doc = format!("[[rules]]\nname = \"condition\"\nmatch = {text}\n");
    let parsed = parse(&doc).map_err(|e| e.message)?;
    // A `match` that parsed always gives a condition (what it takes is
    // said by `parse`, for a value that is no table).
    parsed
        .rules
        .rules
        .into_iter()
        .next()
        .and_then(|rule| rule.condition)
        .ok_or_else(|| "type a condition".into())
}

/// The line of `key =` inside the `[crawl]` table, for precise errors.
pub(crate) fn line_of_key(text: &str, key: &str) -> Option<usize> {
    let mut in_crawl = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with('[') {
            in_crawl = t == "[crawl]";
        } else if in_crawl && t.split('=').next().map(str::trim) == Some(key) {
            return Some(i + 1);
        }
    }
    None
}

fn rule(
    raw: &Spanned<RawRule>,
    index: usize,
    at: &impl Fn(usize) -> usize,
) -> Result<Rule, LineError> {
    let line = at(raw.span().start);
    let r = raw.get_ref();
    let parse_at =
        |s: &Spanned<String>| -> (String, usize) { (s.get_ref().clone(), at(s.span().start)) };
    let action = r
        .action
        .as_ref()
        .map(|a| {
            let (text, l) = parse_at(a);
            text.parse::<Action>().map_err(|e| LineError::new(l, e))
        })
        .transpose()?;
    let priority = r
        .priority
        .as_ref()
        .map(|p| {
            let (text, l) = parse_at(p);
            text.parse::<Priority>().map_err(|e| LineError::new(l, e))
        })
        .transpose()?;
    let filter = r
        .filter
        .as_ref()
        .map(|f| {
            let (text, l) = parse_at(f);
            text.parse::<Filter>().map_err(|e| LineError::new(l, e))
        })
        .transpose()?;
    let meta = match &r.meta {
        None => Vec::new(),
        Some(RawMeta::List(pairs)) => pairs
            .iter()
            .map(|p| (p.name.clone(), p.value.clone()))
            .collect(),
        Some(RawMeta::Table(table)) => table
            .iter()
            .map(|(k, v)| match v {
                toml::Value::String(s) => Ok((k.clone(), s.clone())),
                other => Ok((k.clone(), other.to_string())),
            })
            .collect::<Result<Vec<_>, LineError>>()?,
    };
    let condition = r.condition.as_ref().map(|c| condition(c, at)).transpose()?;
    let rules = r
        .rules
        .iter()
        .enumerate()
        .map(|(i, child)| rule(child, i, at))
        .collect::<Result<Vec<_>, _>>()?;
    let first_match = r.first_match.unwrap_or(false);
    if first_match && rules.is_empty() {
        return Err(LineError::new(
            line,
            "`first_match = true` needs nested [[rules.rules]] to choose among",
        ));
    }
    Ok(Rule {
        name: r
            .name
            .clone()
            .unwrap_or_else(|| format!("rule {}", index + 1)),
        enabled: r.enabled.unwrap_or(true),
        condition,
        negate: r.negate.unwrap_or(false),
        action,
        set: r.set.as_ref().map_or(Flags::default(), |s| Flags {
            fetch: s.fetch,
            save: s.save,
            follow: s.follow,
        }),
        priority,
        log: r.log,
        filter,
        stop: r.stop.unwrap_or(false),
        meta,
        source: r.source.clone(),
        rules,
        first_match,
        origin: Origin { line },
    })
}

fn condition(
    raw: &Spanned<RawCondition>,
    at: &impl Fn(usize) -> usize,
) -> Result<Condition, LineError> {
    let line = at(raw.span().start);
    let c = raw.get_ref();
    let err = |m: String| LineError::new(line, m);
    let combinators = [c.all.is_some(), c.any.is_some(), c.not.is_some()]
        .iter()
        .filter(|b| **b)
        .count();
    let matchers: Vec<(&str, Matcher)> = [
        c.regex.clone().map(|s| ("regex", Matcher::Regex(s))),
        c.exact.clone().map(|s| ("exact", Matcher::Exact(s))),
        c.prefix.clone().map(|s| ("prefix", Matcher::Prefix(s))),
        c.suffix.clone().map(|s| ("suffix", Matcher::Suffix(s))),
        c.contains
            .clone()
            .map(|s| ("contains", Matcher::Contains(s))),
        c.wildcard
            .clone()
            .map(|s| ("wildcard", Matcher::Wildcard(s))),
        c.domain.clone().map(|s| ("domain", Matcher::Domain(s))),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut matchers = matchers;
    if let Some(cidr) = &c.cidr {
        let parsed: Cidr = cidr.parse().map_err(|e: String| err(e))?;
        matchers.push(("cidr", Matcher::Cidr(parsed)));
    }
    if let Some(range) = &c.range {
        let parsed = match range {
            RawRange::Text(t) => t.parse::<Range>().map_err(|e: String| err(e))?,
            RawRange::Number(n) => Range {
                lo: Some(*n),
                hi: Some(*n),
            },
        };
        matchers.push(("range", Matcher::Range(parsed)));
    }
    if combinators > 0 {
        if combinators > 1 || !matchers.is_empty() || c.field.is_some() || c.case.is_some() {
            return Err(err(
                "a condition is either one test (`field` + one matcher) or one of `all`, `any`, `not`".to_string(),
            ));
        }
        if let Some(list) = &c.all {
            return Ok(Condition::All(
                list.iter()
                    .map(|x| condition(x, at))
                    .collect::<Result<_, _>>()?,
            ));
        }
        if let Some(list) = &c.any {
            return Ok(Condition::Any(
                list.iter()
                    .map(|x| condition(x, at))
                    .collect::<Result<_, _>>()?,
            ));
        }
        if let Some(inner) = &c.not {
            return Ok(Condition::Not(Box::new(condition(inner, at)?)));
        }
    }
    let field_text = c
        .field
        .as_ref()
        .ok_or_else(|| err("a test needs `field = \"...\"` (url, host, path, ...)".to_string()))?;
    let field: Field = field_text.get_ref().parse().map_err(|e: String| err(e))?;
    let matcher = match matchers.len() {
        1 => matchers.remove(0).1,
        0 => {
            return Err(err(
                "a test needs one matcher: regex, exact, prefix, suffix, contains, wildcard, domain, cidr or range"
                    .to_string(),
            ));
        }
        _ => {
            let names: Vec<&str> = matchers.iter().map(|(n, _)| *n).collect();
            return Err(err(format!(
                "a test has one matcher, this one has {}",
                names.join(" and ")
            )));
        }
    };
    let case = match &c.case {
        None => Case::default(),
        Some(s) => match s.get_ref().as_str() {
            "insensitive" => Case::Insensitive,
            "sensitive" => Case::Sensitive,
            other => {
                return Err(err(format!(
                    "unknown case `{other}` (expected insensitive or sensitive)"
                )));
            }
        },
    };
    field_takes(field, &matcher).map_err(err)?;
    Ok(Condition::Test(Test {
        field,
        matcher,
        case,
    }))
}

/// Whether `field` can be tested with `matcher`: `cidr` tests only the
/// address, and the address only `cidr`, `exact` or `regex` (it is no
/// text to cut into prefixes). The native parser refuses the others, and
/// so does the console's rule form, whose rules are written in this
/// format.
pub fn field_takes(field: Field, matcher: &Matcher) -> Result<(), String> {
    if matches!(matcher, Matcher::Cidr(_)) && field != Field::Address {
        return Err(format!("`cidr` tests the `address` field, not `{field}`"));
    }
    if field == Field::Address
        && !matches!(
            matcher,
            Matcher::Cidr(_) | Matcher::Exact(_) | Matcher::Regex(_)
        )
    {
        return Err(format!(
            "the `address` field takes `cidr`, `exact` or `regex`, not `{}`",
            matcher.key()
        ));
    }
    Ok(())
}

/// The SPEC §5 example, word for word, comments included; the `write`
/// tests print it back.
#[cfg(test)]
pub(crate) const SPEC_EXAMPLE: &str = r#"
[crawl]
start = ["http://127.0.0.1:8080/"]
disposition = "allow"                 # allow | disallow | disallow-log
max_link_depth = 50                   # hops from a start URL
max_path_depth = 20                   # slashes in the path
obey_robots = true
sitemaps = []                         # extra sitemap URLs; robots.txt Sitemap: lines are always read
ignore_nofollow = false
concurrency = 16                      # requests in flight overall
per_host = 8                          # requests in flight per host
delay_ms = 0                          # pause between requests to one host
timeout_s = 30
max_body_bytes = 10485760
max_retries = 3
user_agent = "crawlspace/0.1"
db = "crawl.db"                       # the sled URL log (overridden by --db)
out = "mirror"                        # where saved pages go (overridden by --out)

[queues]                              # weights (SPEC 2.2)
user = 10000
redirect = 2000
index = 1000
index_follow = 100
follow = 10
refresh = 1

[[rules]]
name = "no images"
match = { field = "path", regex = '\.(png|gif|jpe?g)$' }
action = "exclude"                    # exclude | exclude-scan | download | download-no-scan
log = true

[[rules]]
name = "but keep the logo"
match = { all = [ { field = "host", domain = "example.com" },
                  { field = "path", suffix = "/logo.png", case = "sensitive" } ] }
action = "download"
priority = "high"                     # highest | high | normal | low | lowest
stop = true

[[rules]]
name = "intranet only"                # 001: conditions apply for …
match = { field = "host", wildcard = "*.corp.example" }
negate = false
set = { fetch = true, follow = true }
  [[rules.rules]]
  name = "no private area"
  match = { field = "path", prefix = "/private/" }
  filter = "may-not-have"             # must-have | may-not-have
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Known;

    #[test]
    fn spec_section_5_example() {
        let parsed = parse(SPEC_EXAMPLE).unwrap();
        let rules = &parsed.rules.rules;
        assert_eq!(rules.len(), 3);
        assert_eq!(rules[0].name, "no images");
        assert_eq!(rules[0].action, Some(Action::Exclude));
        assert_eq!(rules[0].log, Some(true));
        assert_eq!(rules[0].origin.line, 28);
        assert_eq!(rules[1].priority, Some(Priority::High));
        assert!(rules[1].stop);
        let Some(Condition::All(parts)) = &rules[1].condition else {
            panic!("expected all")
        };
        assert_eq!(parts.len(), 2);
        assert_eq!(
            parts[1],
            Condition::Test(Test {
                field: Field::Path,
                matcher: Matcher::Suffix("/logo.png".into()),
                case: Case::Sensitive
            })
        );
        assert_eq!(
            rules[2].set,
            Flags {
                fetch: Some(true),
                save: None,
                follow: Some(true)
            }
        );
        assert_eq!(rules[2].rules.len(), 1);
        assert_eq!(rules[2].rules[0].filter, Some(Filter::MayNotHave));
        assert_eq!(rules[2].rules[0].origin.line, 47);
    }

    #[test]
    fn errors_name_the_line() {
        let cases: [(&str, usize, &str); 13] = [
            (
                "[[rules]]\nmatch = { field = \"path\", regex = 'a' }\nactoin = \"exclude\"\n",
                3,
                "unknown field",
            ),
            (
                "[[rules]]\nmatch = { field = \"colour\", exact = \"x\" }\n",
                2,
                "unknown field `colour`",
            ),
            (
                "[[rules]]\nmatch = { field = \"path\", glob = \"x\" }\n",
                2,
                "unknown field `glob`",
            ),
            (
                "[[rules]]\nmatch = { field = \"path\", exact = \"x\", prefix = \"y\" }\n",
                2,
                "one matcher",
            ),
            (
                "[[rules]]\nmatch = { field = \"address\", cidr = \"9.0.0.0 255.0.0\" }\n",
                2,
                "netmask",
            ),
            (
                "[[rules]]\nmatch = { field = \"path\", range = \"[5:2]\" }\n",
                2,
                "bad range",
            ),
            ("[[rules]]\naction = \"explode\"\n", 2, "unknown action"),
            (
                "[crawl]\ndisposition = \"maybe\"\n",
                2,
                "unknown disposition",
            ),
            ("[crawl]\nstrat = []\n", 2, "unknown key `strat`"),
            ("[[rules]\nname = 1\n", 1, "bad TOML"),
            (
                "[crawl]\ndisposition = \"allow\"\n[[rules.rules]]\nname = \"child\"\n",
                3,
                "`[[rules.rules]]` nests a rule in the `[[rules]]` above it, and there is none",
            ),
            (
                "[[rules]]\nname = \"x\"\nmatch = { not = [ { field = \"path\", prefix = \"/a\" } ] }\n",
                3,
                "`not` takes one test as a table",
            ),
            (
                "[[rules]]\nname = \"x\"\nmeta = [ { name = \"n\" } ]\n",
                3,
                "`meta` takes a table of names and values",
            ),
        ];
        for (text, line, needle) in cases {
            let err = parse(text).expect_err(text);
            assert_eq!(err.line, line, "{text:?} → {err:?}");
            assert!(
                err.message.contains(needle),
                "{text:?}: {} lacks {needle}",
                err.message
            );
        }
    }

    /// No rules file makes the importer panic, and no rule set it accepts
    /// makes the compiler or an evaluation panic, whatever its values,
    /// patterns, ranges or nesting.
    #[test]
    fn random_input_never_panics() {
        // Raw noise first: the TOML reader's errors.
        let pieces: &[&[u8]] = &[
            b"[[rules]]\n",
            b"match = { ",
            b"field = ",
            b"\"",
            b"}",
            b"\n",
        ];
        for text in crate::rules::fuzz::inputs(0x5851_f42d_4c95_7f2d, 1000, 40, pieces) {
            let _ = parse(&text);
        }
        // Then whole rule files of valid shape with odd values, so that most
        // get past the reader to the checks, the compiler and evaluation.
        let mut rng = crate::rules::fuzz::XorShift(0x2545_f491_4f6c_dd1d);
        let (mut accepted, rounds) = (0, 2000);
        for _ in 0..rounds {
            let mut text = String::from("[crawl]\ndisposition = \"disallow\"\n");
            for _ in 0..=rng.below(4) {
                text.push_str(&random_rule(&mut rng, "rules"));
                if rng.below(3) == 0 {
                    text.push_str(&random_rule(&mut rng, "rules.rules"));
                }
            }
            let Ok(parsed) = parse(&text) else { continue };
            accepted += 1;
            let rules = crate::rules::CompiledRules::new(&parsed.rules);
            for url in [
                "http://a.example/",
                "https://[::1]:8443/a/b/c.pdf?q=%ff",
                "http://10.0.0.1:65535/%zz/..//é",
            ] {
                let known = Known {
                    content_type: Some("text/html".into()),
                    address: "10.0.0.1".parse().ok(),
                    link_depth: u32::MAX,
                };
                let _ = rules.verdict(url, &known);
            }
        }
        // The generator must reach the compiler, or the test proves little.
        assert!(accepted > rounds / 4, "only {accepted} of {rounds} parsed");
    }

    /// One `[[table]]` rule of valid shape whose values are drawn from odd
    /// ones: empty, huge, reversed, malformed, non-ASCII.
    fn random_rule(rng: &mut crate::rules::fuzz::XorShift, table: &str) -> String {
        const ACTIONS: [&str; 4] = ["exclude", "exclude-scan", "download", "download-no-scan"];
        const PRIORITIES: [&str; 5] = ["highest", "high", "normal", "low", "lowest"];
        let mut pick = |list: &[&'static str]| list[rng.below(list.len())];
        let mut rule = format!(
            "[[{table}]]\nname = \"{}\"\n",
            pick(&["", "é", "a\\u0007b"])
        );
        rule.push_str(&format!("match = {}\n", random_condition(rng, 3)));
        let mut pick = |list: &[&'static str]| list[rng.below(list.len())];
        rule.push_str(&format!("action = \"{}\"\n", pick(&ACTIONS)));
        rule.push_str(&format!("priority = \"{}\"\n", pick(&PRIORITIES)));
        for line in [
            "stop = true",
            "negate = true",
            "first_match = true",
            "filter = \"must-have\"",
            "filter = \"may-not-have\"",
            "log = false",
            "set = { fetch = false, follow = true }",
            "enabled = false",
            "meta = { lang = \"\" }",
        ] {
            if rng.below(5) == 0 {
                rule.push_str(line);
                rule.push('\n');
            }
        }
        rule
    }

    /// A condition nested at most `depth` deep.
    fn random_condition(rng: &mut crate::rules::fuzz::XorShift, depth: usize) -> String {
        const FIELDS: [&str; 14] = [
            "url",
            "scheme",
            "host",
            "port",
            "authority",
            "path",
            "query",
            "path_query",
            "authority_path_query",
            "extension",
            "path_depth",
            "link_depth",
            "content_type",
            "address",
        ];
        const TESTS: [(&str, &[&str]); 10] = [
            (
                "regex",
                &[
                    "''",
                    "'(a|'",
                    "'^$'",
                    "'\\p{L}+'",
                    "'a{1000}{1000}'",
                    "'(?i)é'",
                ],
            ),
            ("exact", &["''", "'é'", "'/'"]),
            ("prefix", &["''", "'/a'", "'http://'"]),
            ("suffix", &["''", "'.pdf'"]),
            ("contains", &["''", "'%'"]),
            ("wildcard", &["''", "'*'", "'**a*'", "'*.example'"]),
            ("domain", &["''", "'.'", "'example'", "'é.example'"]),
            (
                "cidr",
                &[
                    "''",
                    "'10.0.0.0/8'",
                    "'9.0.0.0/33'",
                    "'1.2.3.4 255.0.255.0'",
                    "'[::1]/200'",
                    "'::/0'",
                ],
            ),
            (
                "range",
                &[
                    "''",
                    "'[5:2]'",
                    "'[:]'",
                    "'[0:99999999999999999999]'",
                    "'[-1:3]'",
                    "80",
                    "-1",
                    "99999999999",
                ],
            ),
            ("range", &["'[1:]'", "'[:1]'"]),
        ];
        match rng.below(if depth == 0 { 1 } else { 4 }) {
            1 => format!("{{ not = {} }}", random_condition(rng, depth - 1)),
            2 | 3 => {
                let parts: Vec<String> = (0..rng.below(3))
                    .map(|_| random_condition(rng, depth - 1))
                    .collect();
                let kind = if rng.below(2) == 0 { "all" } else { "any" };
                format!("{{ {kind} = [ {} ] }}", parts.join(", "))
            }
            _ => {
                let field = FIELDS[rng.below(FIELDS.len())];
                let (test, values) = TESTS[rng.below(TESTS.len())];
                let value = values[rng.below(values.len())];
                let case = ["", ", case = \"sensitive\""][rng.below(2)];
                format!("{{ field = \"{field}\", {test} = {value}{case} }}")
            }
        }
    }

    #[test]
    fn rules_only_file_and_defaults() {
        let parsed = parse("[crawl]\ndisposition = \"disallow-log\"\n[[rules]]\nmatch = { not = { field = \"port\", range = 80 } }\n").unwrap();
        assert_eq!(parsed.rules.disposition, Disposition::DisallowLog);
        let r = &parsed.rules.rules[0];
        assert_eq!(r.name, "rule 1");
        assert!(r.enabled);
        assert!(matches!(&r.condition, Some(Condition::Not(_))));
    }
}
