//! SPEC §1.3 evaluation rules as tables: last setting wins, sticky filters,
//! `stop`, `first_match` inside and outside blocks, `negate` on leaf and
//! nested rules, deferral of content type and address, logging, priority.
//! Every case runs through both the fast evaluator and the naive reference
//! loop, which must agree.

use std::net::IpAddr;

use crawlspace::rules::compile::Disabled;
use crawlspace::rules::dialect::{Dialect, DialectChoice, parse_text};
use crawlspace::rules::verdict::Step;
use crawlspace::rules::{CompiledRules, Known, TraceMode, UrlFacts, Verdict, normalize};

fn compile(toml: &str) -> CompiledRules {
    let loaded =
        parse_text("test.toml", toml, DialectChoice::Given(Dialect::Native)).expect("rules parse");
    CompiledRules::new(&loaded.parsed.rules)
}

/// Evaluates with the fast path (full and decisive traces) and the naive
/// loop, checks they agree, and returns the full-trace verdict.
fn judge(rules: &CompiledRules, url: &str, known: &Known) -> Verdict {
    let url = normalize(url).expect("test URL parses");
    let facts = UrlFacts::new(&url, known);
    let mut scratch = rules.scratch();
    let full = rules.evaluate(&facts, &mut scratch, TraceMode::Full);
    let decisive = rules.evaluate(&facts, &mut scratch, TraceMode::Decisive);
    let naive = rules.evaluate_naive(&facts, &mut scratch, TraceMode::Decisive);
    // Without a trace, runs of rules are folded: the same verdict still.
    let off = rules.evaluate(&facts, &mut scratch, TraceMode::Off);
    let strip = |v: &Verdict| Verdict {
        trace: Vec::new(),
        ..v.clone()
    };
    assert_eq!(strip(&full), strip(&decisive), "full vs decisive for {url}");
    assert_eq!(strip(&off), strip(&decisive), "off vs decisive for {url}");
    assert_eq!(decisive, naive, "fast vs naive for {url}");
    full
}

fn steps(rules: &CompiledRules, v: &Verdict) -> Vec<(String, Step)> {
    v.trace
        .iter()
        .map(|e| (rules.rule_info()[e.rule as usize].number.clone(), e.step))
        .collect()
}

/// (url, fetch, save, follow, filtered, priority)
type Row = (&'static str, bool, bool, bool, bool, i8);

fn table(rules: &str, rows: &[Row]) {
    let compiled = compile(rules);
    for &(url, fetch, save, follow, filtered, priority) in rows {
        let v = judge(&compiled, url, &Known::default());
        assert_eq!(
            (v.fetch, v.save, v.follow, v.filtered, v.priority),
            (fetch, save, follow, filtered, priority),
            "{url} under\n{rules}"
        );
    }
}

#[test]
fn last_setting_wins() {
    table(
        r#"
[[rules]]
match = { field = "path", prefix = "/docs/" }
action = "exclude"
priority = "low"
[[rules]]
match = { field = "extension", exact = "pdf" }
action = "download-no-scan"
[[rules]]
match = { field = "query", contains = "print" }
set = { save = false }
priority = "highest"
"#,
        &[
            ("http://h/docs/a.html", false, false, false, false, 1),
            ("http://h/docs/a.pdf", true, true, false, false, 1),
            ("http://h/docs/a.pdf?print=1", true, false, false, false, -2),
            ("http://h/other", true, true, true, false, 0),
        ],
    );
}

#[test]
fn filters_veto_and_later_rules_cannot_undo() {
    table(
        r#"
[[rules]]
match = { field = "path", prefix = "/private/" }
filter = "may-not-have"
[[rules]]
match = { field = "host", domain = "example.com" }
filter = "must-have"
[[rules]]
match = { field = "url", contains = "/" }
action = "download"
priority = "high"
"#,
        &[
            (
                "http://www.example.com/private/x",
                false,
                false,
                false,
                true,
                -1,
            ),
            ("http://other.org/public", false, false, false, true, -1),
            ("http://example.com/public", true, true, true, false, -1),
        ],
    );
}

#[test]
fn stop_ends_all_processing_including_outer_rules() {
    let rules = compile(
        r#"
[[rules]]
name = "block"
match = { field = "host", exact = "h" }
  [[rules.rules]]
  name = "stopper"
  match = { field = "path", prefix = "/keep" }
  action = "download"
  stop = true
  [[rules.rules]]
  name = "inner after"
  match = { field = "path", prefix = "/" }
  action = "exclude"
[[rules]]
name = "outer after"
match = { field = "path", prefix = "/" }
filter = "may-not-have"
"#,
    );
    let v = judge(&rules, "http://h/keep/this", &Known::default());
    assert!(v.fetch && !v.filtered);
    assert_eq!(
        steps(&rules, &v),
        [
            ("1".into(), Step::Matched),
            ("1.1".into(), Step::Matched),
            ("1.2".into(), Step::SkippedByStop),
            ("2".into(), Step::SkippedByStop)
        ]
    );
    let v = judge(&rules, "http://h/other", &Known::default());
    assert!(v.filtered, "without the stop, the outer filter applies");
}

#[test]
fn first_match_ends_only_its_block() {
    let rules = compile(
        r#"
[[rules]]
name = "block"
first_match = true
  [[rules.rules]]
  name = "pdf"
  match = { field = "extension", exact = "pdf" }
  action = "download-no-scan"
  [[rules.rules]]
  name = "docs"
  match = { field = "path", prefix = "/docs/" }
  action = "exclude"
[[rules]]
name = "after the block"
match = { field = "path", prefix = "/docs/" }
priority = "lowest"
"#,
    );
    let v = judge(&rules, "http://h/docs/a.pdf", &Known::default());
    assert_eq!(
        (v.fetch, v.save, v.follow, v.priority),
        (true, true, false, 2)
    );
    assert_eq!(
        steps(&rules, &v),
        [
            ("1".into(), Step::Matched),
            ("1.1".into(), Step::Matched),
            ("1.2".into(), Step::SkippedByFirstMatch),
            ("2".into(), Step::Matched)
        ]
    );
    let v = judge(&rules, "http://h/docs/a.html", &Known::default());
    assert_eq!(
        (v.fetch, v.priority),
        (false, 2),
        "second child takes effect when the first does not match"
    );
}

#[test]
fn first_match_filter_in_block_and_catch_all() {
    // Nutch-style: accept, reject, and a final reject-everything.
    table(
        r#"
[[rules]]
first_match = true
  [[rules.rules]]
  match = { field = "url", regex = '^http://good\.' }
  [[rules.rules]]
  match = { field = "url", contains = "bad" }
  filter = "may-not-have"
  [[rules.rules]]
  filter = "may-not-have"
"#,
        &[
            ("http://good.example/bad", true, true, true, false, 0),
            ("http://other.example/bad", false, false, false, true, 0),
            ("http://other.example/fine", false, false, false, true, 0),
        ],
    );
}

#[test]
fn negate_on_leaf_and_nested_rules() {
    table(
        r#"
[[rules]]
name = "everything not html is saved only"
match = { field = "extension", exact = "html" }
negate = true
set = { follow = false }
[[rules]]
name = "apply except for the intranet"
match = { field = "host", domain = "corp.example" }
negate = true
  [[rules.rules]]
  match = { field = "path", prefix = "/admin" }
  filter = "may-not-have"
"#,
        &[
            (
                "http://www.corp.example/admin/x.html",
                true,
                true,
                true,
                false,
                0,
            ),
            (
                "http://www.public.example/admin/x.html",
                false,
                false,
                false,
                true,
                0,
            ),
            (
                "http://www.public.example/page.html",
                true,
                true,
                true,
                false,
                0,
            ),
            (
                "http://www.public.example/a.pdf",
                true,
                true,
                false,
                false,
                0,
            ),
        ],
    );
}

#[test]
fn not_any_all_to_depth() {
    table(
        r#"
[[rules]]
match = { all = [ { field = "host", domain = "example.com" },
                  { not = { any = [ { field = "path", prefix = "/a" },
                                    { all = [ { field = "query", contains = "x" }, { field = "port", range = "[8000:8999]" } ] } ] } } ] }
action = "exclude"
"#,
        &[
            ("http://example.com/b", false, false, false, false, 0),
            ("http://example.com/a", true, true, true, false, 0),
            ("http://example.com:8080/b?x", true, true, true, false, 0),
            ("http://example.com/b?x", false, false, false, false, 0),
            ("http://example.org/b", true, true, true, false, 0),
        ],
    );
}

#[test]
fn content_type_and_address_rules_are_deferred() {
    let rules = compile(
        r#"
[[rules]]
name = "no images by type"
match = { field = "content_type", prefix = "image/" }
action = "exclude"
priority = "highest"
[[rules]]
name = "internal network only"
match = { field = "address", cidr = "10.0.0.0/8" }
filter = "must-have"
"#,
    );
    let v = judge(&rules, "http://h/x", &Known::default());
    assert!(v.fetch && !v.filtered);
    assert_eq!(v.pending.names(), ["address", "content_type"]);
    assert_eq!(
        steps(&rules, &v),
        [("1".into(), Step::Deferred), ("2".into(), Step::Deferred)]
    );

    let ip: IpAddr = "10.1.2.3".parse().unwrap();
    let known = Known {
        address: Some(ip),
        ..Known::default()
    }
    .with_content_type("image/png; q=1");
    let v = judge(&rules, "http://h/x", &known);
    assert!(!v.fetch && !v.filtered && v.pending.is_empty());
    assert_eq!(
        v.priority, 0,
        "priority from a content-type rule is ignored"
    );
    assert!(v.trace[0].priority_ignored);

    let known = Known {
        address: Some("192.0.2.1".parse().unwrap()),
        ..Known::default()
    };
    let v = judge(&rules, "http://h/x", &known);
    assert!(v.filtered);
    assert_eq!(v.pending.names(), ["content_type"]);
}

/// What a deferred rule may do is not settled without its field: a later
/// rule that its `stop` or its `first_match` block would skip waits with
/// it, and a URL it may allow is fetched as far as learning the field
/// (SPEC 1.3 step 3). Found by a walkthrough: a WebCopy-style "HTML pages:
/// download, stop" first, or a WCA address allow before a catch-all
/// forbid, had the later rule filter every URL before its type or address
/// was known, so that it was never fetched.
#[test]
fn a_deferred_rule_holds_back_what_it_may_skip_or_allow() {
    let at = |ip: &str| Known {
        address: Some(ip.parse().unwrap()),
        ..Known::default()
    };
    let typed = |t: &str| Known::default().with_content_type(t);

    // A deferred `stop`: the filter after it waits.
    let rules = compile(
        r#"
[[rules]]
name = "html pages: download, stop"
match = { field = "content_type", exact = "text/html" }
action = "download"
stop = true
[[rules]]
name = "no b.html"
match = { field = "path", suffix = "b.html" }
filter = "may-not-have"
"#,
    );
    let v = judge(&rules, "http://h/b.html", &Known::default());
    assert!(v.fetch && !v.filtered, "{v:?}");
    assert_eq!(
        steps(&rules, &v),
        [
            ("1".into(), Step::Deferred),
            ("2".into(), Step::WaitsForDeferred)
        ]
    );
    let v = judge(&rules, "http://h/b.html", &typed("text/html"));
    assert!(v.fetch && v.save && !v.filtered, "{v:?}");
    assert_eq!(steps(&rules, &v)[1], ("2".into(), Step::SkippedByStop));
    let v = judge(&rules, "http://h/b.html", &typed("image/png"));
    assert!(!v.fetch && v.filtered, "{v:?}");

    // The stop of a rule nested in a deferred one counts too.
    let rules = compile(
        r#"
[[rules]]
name = "html"
match = { field = "content_type", exact = "text/html" }
  [[rules.rules]]
  name = "keep, stop"
  action = "download"
  stop = true
[[rules]]
name = "no b.html"
match = { field = "path", suffix = "b.html" }
filter = "may-not-have"
"#,
    );
    let v = judge(&rules, "http://h/b.html", &Known::default());
    assert!(!v.filtered, "{v:?}");

    // Nothing to skip: a later filter is final at once.
    let rules = compile(
        r#"
[[rules]]
name = "images: not kept"
match = { field = "content_type", prefix = "image/" }
action = "exclude"
[[rules]]
name = "no b.html"
match = { field = "path", suffix = "b.html" }
filter = "may-not-have"
"#,
    );
    let v = judge(&rules, "http://h/b.html", &Known::default());
    assert!(v.filtered && !v.fetch, "{v:?}");

    // A deferred rule that may allow what the disposition refuses: the
    // URL is fetched far enough to learn its type, then judged.
    let rules = compile(
        r#"
[crawl]
disposition = "disallow"
[[rules]]
name = "html: download"
match = { field = "content_type", exact = "text/html" }
action = "download"
"#,
    );
    let v = judge(&rules, "http://h/x", &Known::default());
    assert!(v.fetch && !v.filtered, "{v:?}");
    assert_eq!(v.fetch_set_by, Some(0));
    assert!(judge(&rules, "http://h/x", &typed("text/html")).save);
    assert!(!judge(&rules, "http://h/x", &typed("image/png")).fetch);
    // A later rule that refuses settles it without the type.
    let rules = compile(
        r#"
[crawl]
disposition = "disallow"
[[rules]]
name = "html: download"
match = { field = "content_type", exact = "text/html" }
action = "download"
[[rules]]
name = "not /private"
match = { field = "path", prefix = "/private" }
action = "exclude"
"#,
    );
    assert!(!judge(&rules, "http://h/private/x", &Known::default()).fetch);
    assert!(judge(&rules, "http://h/x", &Known::default()).fetch);

    // A rule that waits may itself allow the fetch: the URL is not refused
    // for the disposition while it waits (a review found this refused).
    let rules = compile(
        r#"
[crawl]
disposition = "disallow"
[[rules]]
name = "images: skip, stop"
match = { field = "content_type", prefix = "image/" }
action = "exclude"
stop = true
[[rules]]
name = "site"
match = { field = "host", exact = "h" }
action = "download"
"#,
    );
    let v = judge(&rules, "http://h/a.html", &Known::default());
    assert!(v.fetch && !v.filtered, "{v:?}");
    assert_eq!(v.fetch_set_by, Some(0), "waits for rule 1");
    assert!(!judge(&rules, "http://other/a.html", &Known::default()).fetch);
    assert!(judge(&rules, "http://h/a.html", &typed("text/html")).save);
    assert!(!judge(&rules, "http://h/a.png", &typed("image/png")).fetch);

    // The same through a run of negated rules, which a walk without a
    // trace folds (the `judge` above compares it): one of them may allow.
    let rules = compile(
        r#"
[crawl]
disposition = "disallow"
[[rules]]
match = { field = "content_type", prefix = "image/" }
action = "exclude"
stop = true
[[rules]]
match = { field = "path", prefix = "/x" }
negate = true
action = "download"
stop = true
[[rules]]
match = { field = "path", prefix = "/y" }
negate = true
action = "exclude"
"#,
    );
    let v = judge(&rules, "http://h/a", &Known::default());
    assert!(v.fetch && !v.filtered, "{v:?}");

    // A later rule of the block with `stop`, which the deferred one may
    // keep from applying: the rules after the block wait too.
    let rules = compile(
        r#"
[[rules]]
name = "b"
first_match = true
  [[rules.rules]]
  match = { field = "content_type", prefix = "image/" }
  action = "exclude"
  [[rules.rules]]
  action = "download"
  stop = true
[[rules]]
match = { field = "path", suffix = "b.html" }
filter = "may-not-have"
"#,
    );
    let v = judge(&rules, "http://h/b.html", &Known::default());
    assert!(v.fetch && !v.filtered, "{v:?}");
    assert!(judge(&rules, "http://h/b.html", &typed("text/html")).save);

    // A filtered URL does not wait for a fetch it can no longer have, and
    // the fields of rules that wait are pending too.
    let rules = compile(
        r#"
[[rules]]
name = "only h"
match = { field = "host", exact = "h" }
filter = "must-have"
[[rules]]
name = "html: stop"
match = { field = "content_type", exact = "text/html" }
action = "download"
stop = true
[[rules]]
name = "intranet"
match = { field = "address", cidr = "10.0.0.0/8" }
filter = "must-have"
"#,
    );
    let v = judge(&rules, "http://other/x", &Known::default());
    assert!(v.filtered && !v.fetch && v.fetch_set_by.is_none(), "{v:?}");
    let v = judge(&rules, "http://h/x", &Known::default());
    assert_eq!(v.pending.names(), ["address", "content_type"]);

    // First match (WCA, Nutch): a deferred address rule holds back the
    // rest of its block, not the rules after the block.
    let rules = compile(
        r#"
[[rules]]
name = "network list"
first_match = true
  [[rules.rules]]
  name = "allow 9.x"
  match = { field = "address", cidr = "9.0.0.0/8" }
  action = "download"
  [[rules.rules]]
  name = "forbid every host"
  match = { field = "host", wildcard = "*" }
  filter = "may-not-have"
[[rules]]
name = "no /tmp"
match = { field = "path", prefix = "/tmp" }
filter = "may-not-have"
"#,
    );
    let v = judge(&rules, "http://a.com/", &Known::default());
    assert!(v.fetch && !v.filtered, "{v:?}");
    assert_eq!(
        steps(&rules, &v),
        [
            ("1".into(), Step::Matched),
            ("1.1".into(), Step::Deferred),
            ("1.2".into(), Step::WaitsForDeferred),
            ("2".into(), Step::NotMatched)
        ]
    );
    assert!(judge(&rules, "http://a.com/tmp/x", &Known::default()).filtered);
    assert!(!judge(&rules, "http://a.com/", &at("9.1.1.1")).filtered);
    assert!(judge(&rules, "http://a.com/", &at("10.1.1.1")).filtered);
}

#[test]
fn log_follows_rules_then_disposition() {
    // (disposition, rule log flag, url) → logged?
    let cases = [
        ("allow", "", "http://h/x", true),
        ("allow", "log = false", "http://h/skip", false),
        ("allow", "", "http://h/skip", true),
        ("disallow", "", "http://h/x", false),
        ("disallow", "log = true", "http://h/skip", true),
        ("disallow", "", "http://h/skip", false),
        ("disallow-log", "", "http://h/x", true),
        ("disallow-log", "log = false", "http://h/skip", false),
    ];
    for (disposition, log, url, expect) in cases {
        let text = format!(
            "[crawl]\ndisposition = \"{disposition}\"\n[[rules]]\nmatch = {{ field = \"path\", prefix = \"/skip\" }}\nfilter = \"may-not-have\"\n{log}\n"
        );
        let v = judge(&compile(&text), url, &Known::default());
        assert_eq!(v.log, expect, "{disposition} / {log:?} / {url}");
    }
    // Disallow: only rules that allow fetch.
    table(
        "[crawl]\ndisposition = \"disallow\"\n[[rules]]\nmatch = { field = \"host\", exact = \"ok\" }\naction = \"download\"\n",
        &[
            ("http://ok/", true, true, true, false, 0),
            ("http://no/", false, false, false, false, 0),
        ],
    );
}

#[test]
fn case_modes() {
    table(
        r#"
[[rules]]
match = { field = "path", prefix = "/Docs/", case = "sensitive" }
action = "exclude"
[[rules]]
match = { field = "path", regex = 'SECRET' }
filter = "may-not-have"
"#,
        &[
            ("http://h/Docs/a", false, false, false, false, 0),
            ("http://h/docs/a", true, true, true, false, 0),
            ("http://h/x/secret", false, false, false, true, 0),
        ],
    );
}

#[test]
fn bad_regex_disables_only_its_rule() {
    let rules = compile(
        r#"
[[rules]]
name = "broken"
match = { field = "path", regex = '([unclosed' }
action = "exclude"
[[rules]]
name = "fine"
match = { field = "path", suffix = ".gif" }
action = "exclude"
"#,
    );
    let info = rules.rule_info();
    assert!(
        matches!(&info[0].disabled, Some(Disabled::Broken(m)) if m.contains("does not compile"))
    );
    assert!(info[1].disabled.is_none());
    let v = judge(&rules, "http://h/([unclosed.gif", &Known::default());
    assert!(!v.fetch);
    assert_eq!(
        steps(&rules, &v),
        [("1".into(), Step::Disabled), ("2".into(), Step::Matched)]
    );
}

#[test]
fn too_costly_regex_is_reported_as_such() {
    let rules = compile(
        "[[rules]]\nmatch = { field = \"url\", regex = '(\\w{100}){100}' }\naction = \"exclude\"\n",
    );
    let reason = rules.rule_info()[0].disabled.clone().expect("disabled");
    assert!(reason.text().contains("too costly"), "{reason:?}");
    assert!(!reason.on_purpose(), "warned about");
    // A long pattern is shortened in the reason, which stays one line.
    let long = (0..3000)
        .map(|i| format!("(a{i}{{99}}){{99}}"))
        .collect::<Vec<_>>();
    let rules = compile(&format!(
        "[[rules]]\nmatch = {{ field = \"url\", regex = '{}' }}\naction = \"exclude\"\n",
        long.join("|")
    ));
    let reason = rules.rule_info()[0].disabled.clone().expect("disabled");
    assert!(reason.text().contains("too costly"), "{reason:?}");
    assert!(reason.text().len() < 400, "{}", reason.text().len());
}

#[test]
fn wildcards_and_domains() {
    table(
        r#"
[[rules]]
match = { field = "host", wildcard = "server*.ibm.com" }
filter = "may-not-have"
[[rules]]
match = { field = "url", wildcard = "http://sales.ibm.com/*fs/*" }
filter = "may-not-have"
[[rules]]
match = { field = "host", domain = "foo.com" }
action = "exclude"
"#,
        &[
            ("http://server7.ibm.com/", false, false, false, true, 0),
            ("http://www.ibm.com/", true, true, true, false, 0),
            ("http://sales.ibm.com/nfs/x", false, false, false, true, 0),
            ("http://sales.ibm.com/docs/x", true, true, true, false, 0),
            ("http://bar.foo.com/", false, false, false, false, 0),
            ("http://foo.com/", false, false, false, false, 0),
            ("http://barfoo.com/", true, true, true, false, 0),
        ],
    );
}

#[test]
fn queue_follows_the_flags() {
    let rules = compile(
        r#"
[[rules]]
match = { field = "path", prefix = "/scan" }
action = "exclude-scan"
[[rules]]
match = { field = "path", prefix = "/leaf" }
action = "download-no-scan"
[[rules]]
match = { field = "path", prefix = "/no" }
action = "exclude"
"#,
    );
    for (url, queue) in [
        ("http://h/scan", "follow"),
        ("http://h/leaf", "index"),
        ("http://h/no", "none"),
        ("http://h/any", "index_follow"),
    ] {
        assert_eq!(
            judge(&rules, url, &Known::default()).queue().name(),
            queue,
            "{url}"
        );
    }
}

/// Case-insensitive regexes fold as the regex crate does: `ſ` (long s) is
/// `s` and the Kelvin sign is `k`, so these rules match plain ASCII URLs,
/// in the fast path as in the naive loop.
#[test]
fn unicode_case_folding_in_regexes() {
    table(
        "[[rules]]\nname = 'store'\nmatch = { field = 'path', regex = 'ſtore' }\naction = 'exclude'\n\
         [[rules]]\nname = 'kit'\nmatch = { field = 'path', regex = '/\\x{212A}it' }\naction = 'exclude'\n",
        &[
            ("http://h/store/1", false, false, false, false, 0),
            ("http://h/STORE", false, false, false, false, 0),
            ("http://h/kit", false, false, false, false, 0),
            ("http://h/other", true, true, true, false, 0),
        ],
    );
}

/// Thousands of `contains` needles that are prefixes of one another
/// (`/x1`, `/x12`, `/x123`): one automaton holds them, built with the
/// vendored aho-corasick's linear remapping (vendor/aho-corasick), and
/// each URL matches exactly the rules whose needle it contains, as the
/// naive loop finds (`judge` checks both agree).
#[test]
fn needles_that_prefix_one_another_match_exactly() {
    let rules: String = (0..5000)
        .map(|i| {
            format!(
                "[[rules]]\nname = \"x{i}\"\nmatch = {{ field = \"path\", contains = \"/x{i}\" }}\naction = \"exclude\"\n"
            )
        })
        .collect();
    let rules = compile(&rules);
    for (url, expected) in [
        ("http://h/x1234", vec!["2", "13", "124", "1235"]),
        ("http://h/x4999/x7", vec!["5", "50", "500", "5000", "8"]),
        ("http://h/y1", vec![]),
    ] {
        let v = judge(&rules, url, &Known::default());
        let mut matched: Vec<String> = steps(&rules, &v)
            .into_iter()
            .filter(|(_, step)| *step == Step::Matched)
            .map(|(number, _)| number)
            .collect();
        matched.sort();
        let mut expected: Vec<String> = expected.into_iter().map(String::from).collect();
        expected.sort();
        assert_eq!(matched, expected, "{url}");
    }
}
