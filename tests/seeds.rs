//! Verdict tests for every example in the five seed documents (SPEC §1,
//! `seeds/`), one table per example.
//!
//! Each test is named after its seed (`seed_000_webcopy_…` … `seed_004_funnelback_…`)
//! and its doc comment quotes the sentence it checks. Rules are written in
//! the seed's own dialect where crawlspace imports it (Funnelback, WCA,
//! Exalead) and in native TOML otherwise (WebCopy, Watson Explorer). The last
//! section loads the example files in `config/examples/` (one per
//! dialect, also used by the CLI tests) with dialect detection.
//!
//! Every verdict is computed three ways and they must agree: the fast path
//! with the decisive trace (what `explain` and the crawler use), the fast
//! path with the full trace, and the naive reference walk.

use std::net::IpAddr;

use crawlspace::rules::dialect::{self, Dialect, DialectChoice};
use crawlspace::rules::verdict::Pending;
use crawlspace::rules::{
    CompiledRules, Known, Step, TraceEntry, TraceMode, UrlFacts, Verdict, normalize,
};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// What a case expects of a verdict: the effective flags, whether a filter
/// vetoed the URL, and the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Outcome {
    fetch: bool,
    save: bool,
    follow: bool,
    filtered: bool,
    queue: &'static str,
}

const fn outcome(fetch: bool, save: bool, follow: bool, filtered: bool) -> Outcome {
    let queue = if !fetch || filtered {
        "none"
    } else if save && follow {
        "index_follow"
    } else if save {
        "index"
    } else {
        "follow"
    };
    Outcome {
        fetch,
        save,
        follow,
        filtered,
        queue,
    }
}

/// Crawled: fetched, saved, links followed (the default `allow`).
const PASS: Outcome = outcome(true, true, true, false);
/// Vetoed by a filter: never fetched.
const FILTERED: Outcome = outcome(false, false, false, true);
/// Not fetched because a rule (or the disposition) said so; no filter.
const EXCLUDED: Outcome = outcome(false, false, false, false);
/// Fetched and scanned for links, not saved (`exclude-scan`, Exalead follow).
const SCAN: Outcome = outcome(true, false, true, false);
/// Fetched and saved, links not followed (`download-no-scan`, Exalead index).
const INDEX: Outcome = outcome(true, true, false, false);
/// Fetched, neither saved nor followed.
const FETCH_ONLY: Outcome = outcome(true, false, false, false);

fn outcome_of(v: &Verdict) -> Outcome {
    Outcome {
        fetch: v.fetch,
        save: v.save,
        follow: v.follow,
        filtered: v.filtered,
        queue: v.queue().name(),
    }
}

/// Parses rules in a given dialect and compiles them.
fn compile(dialect: Dialect, text: &str) -> CompiledRules {
    let loaded = dialect::parse_text(dialect.name(), text, DialectChoice::Given(dialect))
        .unwrap_or_else(|e| panic!("{dialect} rules do not parse: {e:?}\n{text}"));
    CompiledRules::new(&loaded.parsed.rules)
}

fn native(text: &str) -> CompiledRules {
    compile(Dialect::Native, text)
}

/// Loads a file of `config/examples/` with dialect detection.
fn fixture(name: &str) -> (Dialect, CompiledRules) {
    let path = format!("{}/config/examples/{name}", env!("CARGO_MANIFEST_DIR"));
    let loaded = dialect::load(&path, DialectChoice::Auto)
        .unwrap_or_else(|e| panic!("{path} does not load: {e:?}"));
    (loaded.dialect, CompiledRules::new(&loaded.parsed.rules))
}

fn ip(text: &str) -> IpAddr {
    text.parse()
        .unwrap_or_else(|e| panic!("{text} is not an address: {e}"))
}

fn at_address(text: &str) -> Known {
    Known {
        address: Some(ip(text)),
        ..Known::default()
    }
}

fn with_type(content_type: &str) -> Known {
    Known::default().with_content_type(content_type)
}

/// The verdict for `url`, with the full trace. Checks on the way that the
/// decisive trace (fast path over candidate rules only) and the naive walk
/// reach the same decision.
fn evaluate(c: &CompiledRules, url: &str, known: &Known) -> Verdict {
    let parsed = normalize(url).unwrap_or_else(|e| panic!("{url}: {e}"));
    let facts = UrlFacts::new(&parsed, known);
    let mut scratch = c.scratch();
    let full = c.evaluate(&facts, &mut scratch, TraceMode::Full);
    let naive = c.evaluate_naive(&facts, &mut scratch, TraceMode::Full);
    assert_eq!(full, naive, "{url}: fast and naive evaluation disagree");
    let (_, decisive) = c
        .verdict(url, known)
        .unwrap_or_else(|e| panic!("{url}: {e}"));
    let decisive_of_full: Vec<TraceEntry> = full
        .trace
        .iter()
        .filter(|t| t.filtered || matches!(t.step, Step::Matched | Step::Deferred))
        .copied()
        .collect();
    assert_eq!(
        decisive.trace, decisive_of_full,
        "{url}: the decisive trace is not the decisive part of the full trace"
    );
    assert_eq!(
        Verdict {
            trace: Vec::new(),
            ..decisive
        },
        Verdict {
            trace: Vec::new(),
            ..full.clone()
        },
        "{url}: the decisive and full evaluations disagree"
    );
    full
}

/// The trace in words, for failure messages.
fn trace_text(c: &CompiledRules, v: &Verdict) -> String {
    let info = c.rule_info();
    let lines: Vec<String> = v
        .trace
        .iter()
        .map(|t| {
            let rule = &info[t.rule as usize];
            let mut line = format!("{} `{}`: {}", rule.number, rule.name, t.step.name());
            if t.filtered {
                line.push_str(", filtered");
            }
            if t.priority_ignored {
                line.push_str(", priority ignored");
            }
            line
        })
        .collect();
    lines.join("; ")
}

/// Checks a table of `(url, facts, expected outcome)` and reports every
/// wrong row at once.
fn check_known(table: &str, c: &CompiledRules, cases: &[(&str, Known, Outcome)]) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(url, known, want)| {
            let v = evaluate(c, url, known);
            let got = outcome_of(&v);
            (got != *want).then(|| {
                format!(
                    "  {url} ({known:?})\n    want {want:?}\n     got {got:?}\n   trace {}",
                    trace_text(c, &v)
                )
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{table}: {} of {} cases wrong:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// [`check_known`] for URLs met before DNS and headers.
fn check(table: &str, c: &CompiledRules, cases: &[(&str, Outcome)]) {
    let cases: Vec<(&str, Known, Outcome)> = cases
        .iter()
        .map(|(url, want)| (*url, Known::default(), *want))
        .collect();
    check_known(table, c, &cases);
}

/// The index of the rule called `name` (panics when there is none).
fn rule_named(c: &CompiledRules, name: &str) -> u32 {
    let found = c.rule_info().iter().position(|r| r.name == name);
    let index = found.unwrap_or_else(|| {
        let names: Vec<&str> = c.rule_info().iter().map(|r| r.name.as_str()).collect();
        panic!("no rule named `{name}` among {names:?}")
    });
    u32::try_from(index).expect("rule index fits u32")
}

/// What the trace says happened at `rule`, if it was visited.
fn step_of(v: &Verdict, rule: u32) -> Option<Step> {
    v.trace.iter().find(|t| t.rule == rule).map(|t| t.step)
}

/// The names of the rules whose filters vetoed the URL.
fn filtered_by(c: &CompiledRules, v: &Verdict) -> Vec<String> {
    v.filtered_by
        .iter()
        .map(|&i| c.rule_info()[i as usize].name.clone())
        .collect()
}

// ---------------------------------------------------------------------------
// Seed 004: Funnelback include/exclude patterns
// ---------------------------------------------------------------------------

/// Seed 004: "include_patterns=/red,/green,/blue exclude_patterns=/green/olive
/// Then the following URLs will be included or excluded… /orange FAIL fails
/// include; /green/emerald PASS passes include, passes exclude; /green/olive
/// FAIL passes include, fails exclude".
#[test]
fn seed_004_funnelback_include_exclude_example() {
    let c = compile(
        Dialect::Funnelback,
        "include_patterns=/red,/green,/blue\nexclude_patterns=/green/olive\n",
    );
    check(
        "seed 004 include/exclude",
        &c,
        &[
            ("http://example.com/orange", FILTERED),
            ("http://example.com/green/emerald", PASS),
            ("http://example.com/green/olive", FILTERED),
            ("http://example.com/red/", PASS),
            ("http://example.com/blue/sky.html", PASS),
            ("http://example.com/green/olive/tree.html", FILTERED),
        ],
    );
    // The seed's "Comments" column: which pattern each URL fails.
    let reasons: [(&str, &[&str]); 3] = [
        ("http://example.com/orange", &["include_patterns"]),
        ("http://example.com/green/emerald", &[]),
        ("http://example.com/green/olive", &["exclude_patterns"]),
    ];
    for (url, want) in reasons {
        let v = evaluate(&c, url, &Known::default());
        assert_eq!(filtered_by(&c, &v), want, "{url}");
        // Both rules log what they filter, so "why not?" has an answer.
        assert!(v.log, "{url}: log");
    }
}

/// Seed 004: "exclude_patterns=regexp:search\?date=|^https:|\?OpenImageResource|/cgi-bin/|\.pdf$
/// which combines five alternative patterns into one overall pattern
/// expression to match: search?date= …, HTTPS urls, … ?OpenImageResource,
/// … CGI scripts, PDF files."
#[test]
fn seed_004_funnelback_regexp_exclude() {
    let c = compile(
        Dialect::Funnelback,
        r"exclude_patterns=regexp:search\?date=|^https:|\?OpenImageResource|/cgi-bin/|\.pdf$",
    );
    check(
        "seed 004 regexp exclude",
        &c,
        &[
            // 1. search?date=, to exclude calendars
            ("http://example.com/search?date=2024-05-01", FILTERED),
            ("http://example.com/events/search?date=today&x=1", FILTERED),
            // 2. HTTPS URLs
            ("https://example.com/", FILTERED),
            ("https://example.com/about.html", FILTERED),
            // 3. ?OpenImageResource
            ("http://example.com/db.nsf/img?OpenImageResource", FILTERED),
            // 4. CGI scripts
            ("http://example.com/cgi-bin/search.pl", FILTERED),
            ("http://example.com/a/cgi-bin/x", FILTERED),
            // 5. PDF files
            ("http://example.com/reports/annual.pdf", FILTERED),
            // none of the five
            ("http://example.com/", PASS),
            ("http://example.com/search?q=date", PASS),
            ("http://example.com/search?dates=1", PASS),
            ("http://example.com/?next=https:x", PASS),
            ("http://example.com/img?OpenDocument", PASS),
            ("http://example.com/cgi-bin", PASS),
            ("http://example.com/annual.pdf.html", PASS),
            ("http://example.com/pdf", PASS),
        ],
    );
}

/// Seed 004: "regex special characters that appear in patterns must be
/// escaped (e.g. \? and \.): include_patterns=regexp:\.anu\.edu\.au".
#[test]
fn seed_004_funnelback_regexp_include() {
    let c = compile(
        Dialect::Funnelback,
        r"include_patterns=regexp:\.anu\.edu\.au",
    );
    check(
        "seed 004 regexp include",
        &c,
        &[
            ("http://www.anu.edu.au/", PASS),
            ("http://cs.anu.edu.au/courses/", PASS),
            ("https://www.anu.edu.au/search?q=x", PASS),
            // The escaped dots are plain dots.
            ("http://wwwXanuXeduXau.example/", FILTERED),
            ("http://www.anuedu.au/", FILTERED),
            ("http://example.com/", FILTERED),
        ],
    );
}

// ---------------------------------------------------------------------------
// Seed 003: IBM Watson Content Analytics crawl space
// ---------------------------------------------------------------------------

/// Seed 003: "Because the crawler, by default, accepts any URL that it
/// discovers, you must specify rules that identify which URLs you want to
/// include" and "you can specify that the entire www.ibm.com domain is to
/// be crawled: allow domain www.ibm.com" — with "forbid domain *", the
/// final rule that "prevents the crawl space from including the entire
/// Internet".
#[test]
fn seed_003_wca_allow_domain() {
    let alone = compile(Dialect::Wca, "allow domain www.ibm.com\n");
    check(
        "seed 003 allow alone accepts everything",
        &alone,
        &[
            ("http://www.ibm.com/", PASS),
            ("http://www.example.org/", PASS),
        ],
    );
    let c = compile(Dialect::Wca, "allow domain www.ibm.com\nforbid domain *\n");
    check(
        "seed 003 allow domain www.ibm.com",
        &c,
        &[
            ("http://www.ibm.com/", PASS),
            ("https://www.ibm.com/products/index.html", PASS),
            ("http://www.ibm.com:8080/x", PASS),
            ("http://w3.ibm.com/", FILTERED),
            ("http://ibm.com/", FILTERED),
            ("http://www.example.org/", FILTERED),
        ],
    );
}

/// Seed 003: "you can specify that no domains that begin with server and
/// end in ibm.com are to be crawled: forbid domain server*.ibm.com".
#[test]
fn seed_003_wca_forbid_domain_wildcard() {
    let c = compile(Dialect::Wca, "forbid domain server*.ibm.com\n");
    check(
        "seed 003 forbid domain server*.ibm.com",
        &c,
        &[
            ("http://server1.ibm.com/", FILTERED),
            ("http://server.ibm.com/", FILTERED),
            ("http://server-east.dev.ibm.com/", FILTERED),
            ("http://www.ibm.com/", PASS),
            ("http://myserver.ibm.com/", PASS),
            ("http://server1.ibm.com.example.org/", PASS),
        ],
    );
}

/// Seed 003: "Host name matching is case sensitive … *.user.ibm.com matches
/// joe.user.ibm.com and mary.smith.user.ibm.com, but not joe.user.IBM.com."
///
/// Deliberate, spec-mandated difference: SPEC §1.1 normalizes every URL by
/// WHATWG parsing, which lower-cases the host, so a link to
/// `joe.user.IBM.com` reaches the rules as `joe.user.ibm.com` and matches.
/// A target written with capitals (`*.user.IBM.com`) is lower-cased by the
/// importer for the same reason: it could otherwise match no normalized host.
#[test]
fn seed_003_wca_domain_wildcard_and_case() {
    let c = compile(
        Dialect::Wca,
        "allow domain *.user.ibm.com\nforbid domain *\n",
    );
    check(
        "seed 003 *.user.ibm.com",
        &c,
        &[
            ("http://joe.user.ibm.com/", PASS),
            ("http://mary.smith.user.ibm.com/", PASS),
            // See the doc comment: the host is lower-cased before matching.
            ("http://joe.user.IBM.com/", PASS),
            ("http://user.ibm.com/", FILTERED),
            ("http://joe.user.ibm.com.example.org/", FILTERED),
            ("http://joe.sales.ibm.com/", FILTERED),
        ],
    );
    let host = normalize("http://joe.user.IBM.com/").map(|u| u.host_str().map(str::to_string));
    assert_eq!(host, Ok(Some("joe.user.ibm.com".to_string())));

    let upper = compile(
        Dialect::Wca,
        "allow domain *.user.IBM.com\nforbid domain *\n",
    );
    check(
        "seed 003 target written with capitals",
        &upper,
        &[
            ("http://joe.user.IBM.com/", PASS),
            ("http://joe.user.ibm.com/", PASS),
            ("http://joe.sales.ibm.com/", FILTERED),
        ],
    );
}

/// Seed 003: "If a domain rule specifies a port number, then the rule
/// applies only to that port. In the following example, only port 443 on
/// the sales domain is allowed: allow domain sales.ibm.com:443".
#[test]
fn seed_003_wca_domain_port() {
    let c = compile(
        Dialect::Wca,
        "allow domain sales.ibm.com:443\nforbid domain *\n",
    );
    check(
        "seed 003 allow domain sales.ibm.com:443",
        &c,
        &[
            ("https://sales.ibm.com/", PASS),
            ("https://sales.ibm.com:443/orders", PASS),
            ("http://sales.ibm.com:443/", PASS),
            ("http://sales.ibm.com:8080/", FILTERED),
            ("http://sales.ibm.com/", FILTERED),
            ("https://sales.ibm.com:8443/", FILTERED),
            ("https://www.ibm.com/", FILTERED),
        ],
    );
}

/// Seed 003: "A domain rule that does not specify a port number applies to
/// all ports on that domain. In the following example, all ports on the
/// sales domain are allowed: allow domain sales.ibm.com".
#[test]
fn seed_003_wca_domain_all_ports() {
    let c = compile(
        Dialect::Wca,
        "allow domain sales.ibm.com\nforbid domain *\n",
    );
    check(
        "seed 003 allow domain sales.ibm.com",
        &c,
        &[
            ("http://sales.ibm.com/", PASS),
            ("https://sales.ibm.com/", PASS),
            ("http://sales.ibm.com:8080/", PASS),
            ("http://sales.ibm.com:9080/", PASS),
            ("http://www.ibm.com/", FILTERED),
        ],
    );
}

/// Seed 003: "the following rules work together to allow the crawler to
/// crawl everything in the public directory at sales.ibm.com, but forbid the
/// crawler from accessing any other pages on the site: allow prefix
/// http://sales.ibm.com/public/* forbid prefix http://sales.ibm.com/*".
#[test]
fn seed_003_wca_prefix_rules() {
    let c = compile(
        Dialect::Wca,
        "allow prefix http://sales.ibm.com/public/*\nforbid prefix http://sales.ibm.com/*\n",
    );
    check(
        "seed 003 prefix rules",
        &c,
        &[
            ("http://sales.ibm.com/public/", PASS),
            ("http://sales.ibm.com/public/a/b/report.html", PASS),
            ("http://sales.ibm.com/", FILTERED),
            ("http://sales.ibm.com/private/plan.html", FILTERED),
            ("http://sales.ibm.com/publications/", FILTERED),
            // Other sites and schemes: no prefix rule applies.
            ("http://www.ibm.com/public/", PASS),
            ("https://sales.ibm.com/private/", PASS),
        ],
    );
}

/// Seed 003: "the following rule forbids the crawler from crawling any
/// documents in a top-level directory of the sales.ibm.com site if the
/// directory name ends in fs: forbid http://sales.ibm.com/*fs/*".
#[test]
fn seed_003_wca_prefix_inner_wildcard() {
    let c = compile(Dialect::Wca, "forbid http://sales.ibm.com/*fs/*\n");
    check(
        "seed 003 forbid http://sales.ibm.com/*fs/*",
        &c,
        &[
            ("http://sales.ibm.com/nfs/x", FILTERED),
            ("http://sales.ibm.com/afs/", FILTERED),
            ("http://sales.ibm.com/homefs/a/b.html", FILTERED),
            ("http://sales.ibm.com/docs/x", PASS),
            ("http://sales.ibm.com/fsdocs/x", PASS),
            ("http://sales.ibm.com/nfs", PASS),
            ("http://www.ibm.com/nfs/x", PASS),
        ],
    );
}

/// Seed 003: "A prefix rule controls the crawling of URLs that begin with a
/// specified string. The target is a single URL". Rules only ever see
/// normalized URLs (SPEC §1.1: scheme and host lower-cased, default port
/// dropped), so a target written with an upper-case scheme or host, or
/// with its default port, must be read the same way; otherwise the rule
/// silently never applies.
#[test]
fn seed_003_wca_prefix_target_normalized_like_urls() {
    for text in [
        "forbid HTTP://sales.ibm.com/*",
        "forbid prefix http://Sales.IBM.com/*",
        "forbid prefix http://sales.ibm.com:80/*",
        "forbid prefix https://sales.ibm.com:443/*",
    ] {
        let c = compile(Dialect::Wca, text);
        let scheme = if text.contains("https") {
            "https"
        } else {
            "http"
        };
        check(
            text,
            &c,
            &[
                (&format!("{scheme}://sales.ibm.com/x"), FILTERED),
                (&format!("{scheme}://www.ibm.com/x"), PASS),
            ],
        );
    }
}

/// Seed 003: "allow address 9.0.0.0 255.0.0.0 … the allow rule applies to
/// any IP address with 9 in the first octet" and "forbid address 0.0.0.0
/// 0.0.0.0 … forbids all addresses that are not allowed by a preceding
/// rule". The address is known only after DNS: until then the rules wait.
#[test]
fn seed_003_wca_address_netmask() {
    let c = compile(
        Dialect::Wca,
        "allow address 9.0.0.0 255.0.0.0\nforbid address 0.0.0.0 0.0.0.0\n",
    );
    check_known(
        "seed 003 address rules",
        &c,
        &[
            ("http://w3.ibm.com/", at_address("9.1.2.3"), PASS),
            ("http://w3.ibm.com/", at_address("9.255.0.1"), PASS),
            ("http://w3.ibm.com/", at_address("10.1.2.3"), FILTERED),
            ("http://w3.ibm.com/", at_address("192.0.2.9"), FILTERED),
        ],
    );
    let allow = rule_named(&c, "allow address 9.0.0.0 255.0.0.0");
    let forbid = rule_named(&c, "forbid address 0.0.0.0 0.0.0.0");
    let v = evaluate(&c, "http://w3.ibm.com/", &at_address("10.1.2.3"));
    assert_eq!(v.filtered_by, vec![forbid]);
    assert!(v.log, "a forbidden URL is logged");

    // Before DNS: the allow rule is deferred, and the forbid after it in
    // the first-match list waits for it; nothing is decided yet.
    let v = evaluate(&c, "http://w3.ibm.com/", &Known::default());
    assert!(v.pending.contains(Pending::ADDRESS), "{:?}", v.pending);
    assert_eq!(v.pending.names(), vec!["address"]);
    assert!(!v.filtered);
    assert_eq!(step_of(&v, allow), Some(Step::Deferred));
    assert_eq!(step_of(&v, forbid), Some(Step::WaitsForDeferred));
    let (_, decisive) = c
        .verdict("http://w3.ibm.com/", &Known::default())
        .expect("a URL");
    assert!(
        decisive
            .trace
            .iter()
            .any(|t| t.rule == allow && t.step == Step::Deferred),
        "the decisive trace shows the deferral"
    );
    // Once known, nothing is pending.
    let v = evaluate(&c, "http://w3.ibm.com/", &at_address("9.1.2.3"));
    assert!(v.pending.is_empty());
    assert_eq!(step_of(&v, allow), Some(Step::Matched));
    assert_eq!(step_of(&v, forbid), Some(Step::SkippedByFirstMatch));
}

/// Seed 003: "IPv6 … allow address [2001:db8:0:1:0:0:0:1]" and "forbid
/// address :: ::".
#[test]
fn seed_003_wca_address_ipv6() {
    let c = compile(
        Dialect::Wca,
        "allow address [2001:db8:0:1:0:0:0:1]\nforbid address :: ::\n",
    );
    check_known(
        "seed 003 IPv6 address rules",
        &c,
        &[
            (
                "http://[2001:db8:0:1::1]/",
                at_address("2001:db8:0:1::1"),
                PASS,
            ),
            (
                "http://intranet.example/",
                at_address("2001:db8:0:1:0:0:0:1"),
                PASS,
            ),
            (
                "http://intranet.example/",
                at_address("2001:db8:0:1::2"),
                FILTERED,
            ),
            ("http://intranet.example/", at_address("::1"), FILTERED),
        ],
    );
}

/// Seed 003: "Within the set of rules for a single type, the crawler tests
/// a candidate domain, address, or URL against each rule, from the first
/// specified rule to the last, until it finds a rule that applies. The
/// action specified for the first rule that applies is used."
#[test]
fn seed_003_wca_first_match_wins_within_a_type() {
    let allow_first = compile(
        Dialect::Wca,
        "allow domain www.ibm.com\nforbid domain *.ibm.com\n",
    );
    check(
        "seed 003 allow before forbid",
        &allow_first,
        &[
            ("http://www.ibm.com/", PASS),
            ("http://w3.ibm.com/", FILTERED),
        ],
    );
    let forbid_first = compile(
        Dialect::Wca,
        "forbid domain *.ibm.com\nallow domain www.ibm.com\n",
    );
    check(
        "seed 003 forbid before allow",
        &forbid_first,
        &[
            ("http://www.ibm.com/", FILTERED),
            ("http://w3.ibm.com/", FILTERED),
        ],
    );
    let addresses = compile(
        Dialect::Wca,
        "forbid address 9.1.0.0 255.255.0.0\nallow address 9.0.0.0 255.0.0.0\nforbid address 0.0.0.0 0.0.0.0\n",
    );
    check_known(
        "seed 003 address order",
        &addresses,
        &[
            ("http://h.ibm.com/", at_address("9.1.2.3"), FILTERED),
            ("http://h.ibm.com/", at_address("9.2.3.4"), PASS),
            ("http://h.ibm.com/", at_address("10.0.0.1"), FILTERED),
        ],
    );
    // The trace says which rule decided and that the rest were skipped.
    let v = evaluate(&allow_first, "http://www.ibm.com/", &Known::default());
    let allow = rule_named(&allow_first, "allow domain www.ibm.com");
    let forbid = rule_named(&allow_first, "forbid domain *.ibm.com");
    assert_eq!(step_of(&v, allow), Some(Step::Matched));
    assert_eq!(step_of(&v, forbid), Some(Step::SkippedByFirstMatch));
}

/// Seed 003: "The order of the rules is important, but only within the
/// rules of a each type. … it makes no difference whether an address rule
/// comes before or after a prefix rule, because the crawler does not apply
/// the rules at the same time."
#[test]
fn seed_003_wca_order_across_types_does_not_matter() {
    let domain = [
        "forbid domain server*.ibm.com",
        "allow domain *.ibm.com",
        "forbid domain *",
    ];
    let address = [
        "allow address 9.0.0.0 255.0.0.0",
        "forbid address 0.0.0.0 0.0.0.0",
    ];
    let prefix = [
        "allow prefix http://sales.ibm.com/public/*",
        "forbid prefix http://sales.ibm.com/*",
    ];
    let grouped: Vec<&str> = domain
        .iter()
        .chain(&address)
        .chain(&prefix)
        .copied()
        .collect();
    let reversed_types: Vec<&str> = prefix
        .iter()
        .chain(&address)
        .chain(&domain)
        .copied()
        .collect();
    // Interleaved: each type keeps its own order, the types are mixed.
    let interleaved = vec![
        prefix[0], address[0], domain[0], prefix[1], domain[1], address[1], domain[2],
    ];
    let files = [grouped, reversed_types, interleaved].map(|lines| lines.join("\n"));
    let compiled: Vec<CompiledRules> = files.iter().map(|f| compile(Dialect::Wca, f)).collect();

    let urls = [
        "http://sales.ibm.com/public/a.html",
        "http://sales.ibm.com/private/",
        "http://server1.ibm.com/",
        "http://www.ibm.com/",
        "http://www.example.org/",
    ];
    let facts = [
        Known::default(),
        at_address("9.1.2.3"),
        at_address("10.1.2.3"),
    ];
    for url in urls {
        for known in &facts {
            let outcomes: Vec<(Outcome, bool)> = compiled
                .iter()
                .map(|c| {
                    let v = evaluate(c, url, known);
                    (outcome_of(&v), v.pending.is_empty())
                })
                .collect();
            assert!(
                outcomes.windows(2).all(|w| w[0] == w[1]),
                "{url} ({known:?}): the order of the types changed the verdict: {outcomes:?}\n{files:#?}"
            );
        }
    }
    // And what they agree on is the seed's meaning.
    check_known(
        "seed 003 mixed types",
        &compiled[2],
        &[
            (
                "http://sales.ibm.com/public/a.html",
                at_address("9.1.2.3"),
                PASS,
            ),
            (
                "http://sales.ibm.com/private/",
                at_address("9.1.2.3"),
                FILTERED,
            ),
            (
                "http://sales.ibm.com/public/a.html",
                at_address("10.1.2.3"),
                FILTERED,
            ),
            ("http://server1.ibm.com/", at_address("9.1.2.3"), FILTERED),
            ("http://www.example.org/", at_address("9.1.2.3"), FILTERED),
        ],
    );
    // An allow of one type never undoes a forbid of another, whatever the
    // order in the file.
    for text in [
        "allow prefix http://www.ibm.com/*\nforbid domain www.ibm.com\n",
        "forbid domain www.ibm.com\nallow prefix http://www.ibm.com/*\n",
    ] {
        let c = compile(Dialect::Wca, text);
        check(
            "seed 003 allow prefix vs forbid domain",
            &c,
            &[("http://www.ibm.com/a", FILTERED)],
        );
    }
}

// ---------------------------------------------------------------------------
// Seed 002: Exalead CloudView crawl rules
// ---------------------------------------------------------------------------

/// One Exalead rule with `condition` that ignores what it matches.
fn exalead_condition(condition: &str) -> CompiledRules {
    compile(
        Dialect::Exalead,
        &format!(
            "<Rules>\n<Rule>\n{condition}\n<NoIndex/><NoFollow/><Ignore/>\n</Rule>\n</Rules>\n"
        ),
    )
}

/// Checks, for each `(condition, [(url, holds)])`, that the one rule's
/// condition holds exactly for the URLs marked so (trace and verdict).
fn check_conditions(table: &str, rows: &[(&str, &[(&str, bool)])]) {
    let mut failures = Vec::new();
    for (condition, cases) in rows {
        let c = exalead_condition(condition);
        for (url, holds) in *cases {
            let v = evaluate(&c, url, &Known::default());
            let step = step_of(&v, 0);
            let want_step = if *holds {
                Step::Matched
            } else {
                Step::NotMatched
            };
            let want = if *holds { EXCLUDED } else { PASS };
            if step != Some(want_step) || outcome_of(&v) != want {
                failures.push(format!(
                    "  {condition} on {url}: want {}, got {step:?} / {:?}",
                    want_step.name(),
                    outcome_of(&v)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{table}:\n{}", failures.join("\n"));
}

/// Seed 002, the shortcut table: "Domain: Exact match on domain. For
/// example, <Domain val="foo.com" /> Matches http://foo.com/ and
/// http://bar.foo.com but not http://barfoo.com"; Path "a left anchored
/// match on the path"; Ext "a right anchored match on the path"; Host "an
/// exact match on host"; Url "atom url-exact"; Scheme "scheme-exact"; Query
/// "an exact match on the query"; InQuery "a match on the query not
/// anchored"; Length "<Length field="path" val="[30:]" /> matches URLs with
/// a path length >= 30".
#[test]
fn seed_002_exalead_shortcuts() {
    check_conditions(
        "seed 002 shortcuts",
        &[
            (
                r#"<Domain val="foo.com"/>"#,
                &[
                    ("http://foo.com/", true),
                    ("http://bar.foo.com", true),
                    ("http://a.b.foo.com/x", true),
                    ("http://barfoo.com/", false),
                    ("http://foo.com.example/", false),
                ],
            ),
            (
                r#"<Path val="/cgi-bin"/>"#,
                &[
                    ("http://h/cgi-bin/search.cgi", true),
                    ("http://h/cgi-bin", true),
                    ("http://h/docs/cgi-bin/x", false),
                    ("http://h/?p=/cgi-bin", false),
                ],
            ),
            (
                r#"<Ext val=".gif"/>"#,
                &[
                    ("http://h/img/logo.gif", true),
                    ("http://h/logo.gif?v=2", true),
                    ("http://h/LOGO.GIF", true),
                    ("http://h/logo.gifx", false),
                    ("http://h/gif/logo.png", false),
                ],
            ),
            (
                r#"<Host val="www.wikipedia.org"/>"#,
                &[
                    ("http://www.wikipedia.org/wiki/Main_Page", true),
                    ("https://www.wikipedia.org/", true),
                    ("http://en.wikipedia.org/", false),
                    ("http://www.wikipedia.org.example/", false),
                ],
            ),
            (
                r#"<Url val="http://en.wikipedia.org/wiki"/>"#,
                &[
                    ("http://en.wikipedia.org/wiki", true),
                    ("http://en.wikipedia.org/wiki/Main_Page", false),
                    ("https://en.wikipedia.org/wiki", false),
                ],
            ),
            (
                r#"<Scheme val="http"/>"#,
                &[("http://h/", true), ("https://h/", false)],
            ),
            (
                r#"<Query val="q=foo"/>"#,
                &[
                    ("http://h/search?q=foo", true),
                    ("http://h/search?q=foo&page=2", false),
                    ("http://h/search?q=foobar", false),
                    ("http://h/search", false),
                ],
            ),
            (
                r#"<InQuery val="q=foo"/>"#,
                &[
                    ("http://h/search?q=foo", true),
                    ("http://h/search?lang=en&q=foo&page=2", true),
                    ("http://h/search?q=bar", false),
                    ("http://h/q=foo", false),
                ],
            ),
            (
                r#"<Length field="path" val="[30:]"/>"#,
                &[
                    // 30 characters, leading slash included
                    ("http://h/abcdefghijklmnopqrstuvwxyz012", true),
                    ("http://h/abcdefghijklmnopqrstuvwxyz0123456789", true),
                    // 29
                    ("http://h/abcdefghijklmnopqrstuvwxyz01", false),
                    ("http://h/?abcdefghijklmnopqrstuvwxyz0123456789", false),
                ],
            ),
        ],
    );
}

/// Seed 002: "<Atom field="path" kind="prefix" norm="none" value="/watch"
/// />"; "kind … exact|prefix|suffix, inside where you specify a regexp …,
/// length where you specify the length of a field ([:10], [11:12], [30:])";
/// "norm … The default is a case insensitive match"; and "the val attribute
/// is a regular expression. However, you must escape the special characters
/// of a regexp ^$.*+?[](){}| with a \".
#[test]
fn seed_002_exalead_atoms() {
    check_conditions(
        "seed 002 atoms",
        &[
            (
                r#"<Atom field="path" kind="prefix" norm="none" value="/watch"/>"#,
                &[
                    ("http://video.example/watch?v=42", true),
                    ("http://video.example/watch/later", true),
                    ("http://video.example/Watch?v=42", false),
                    ("http://video.example/x/watch", false),
                ],
            ),
            (
                r#"<Atom field="path" kind="prefix" value="/watch"/>"#,
                &[
                    ("http://video.example/Watch?v=42", true),
                    ("http://video.example/WATCH", true),
                ],
            ),
            (
                r#"<Atom field="host" kind="exact" value="foo.com"/>"#,
                &[("http://foo.com/", true), ("http://bar.foo.com/", false)],
            ),
            (
                r#"<Atom field="host" kind="suffix" value=".foo.com"/>"#,
                &[
                    ("http://bar.foo.com/", true),
                    ("http://foo.com/", false),
                    ("http://barfoo.com/", false),
                ],
            ),
            (
                r#"<Atom field="url" kind="inside" value="sid=[0-9]+"/>"#,
                &[
                    ("http://h/page?sid=42", true),
                    ("http://h/a/sid=7/b", true),
                    ("http://h/page?sid=x", false),
                ],
            ),
            (
                r#"<Atom field="path" kind="exact" value="/page[0-9]+\.html"/>"#,
                &[
                    ("http://h/page12.html", true),
                    ("http://h/page12.html5", false),
                    ("http://h/x/page12.html", false),
                    ("http://h/pageX.html", false),
                ],
            ),
            (
                r#"<Path val="/a\+b"/>"#,
                &[("http://h/a+b/c", true), ("http://h/aab/c", false)],
            ),
            (
                r#"<Atom field="path" kind="length" value="[:10]"/>"#,
                &[
                    ("http://h/123456789", true),
                    ("http://h/", true),
                    ("http://h/1234567890", false),
                ],
            ),
            (
                r#"<Atom field="path" kind="length" value="[11:12]"/>"#,
                &[
                    ("http://h/123456789", false),
                    ("http://h/1234567890", true),
                    ("http://h/12345678901", true),
                    ("http://h/123456789012", false),
                ],
            ),
        ],
    );
}

/// Seed 002: "This is a shortcut for this combination of rule: <Or><Atom
/// field="host" kind="suffix" value=".foo.com" /><Atom field="host"
/// kind="exact" value="foo.com" /></Or>" — the shortcut and its expansion
/// agree.
#[test]
fn seed_002_exalead_domain_expansion() {
    let shortcut = exalead_condition(r#"<Domain val="foo.com"/>"#);
    let expansion = exalead_condition(
        r#"<Or><Atom field="host" kind="suffix" value=".foo.com" /><Atom field="host" kind="exact" value="foo.com" /></Or>"#,
    );
    for url in [
        "http://foo.com/",
        "http://bar.foo.com",
        "http://barfoo.com/",
        "http://FOO.com/",
        "http://foo.com.example/",
    ] {
        let a = outcome_of(&evaluate(&shortcut, url, &Known::default()));
        let b = outcome_of(&evaluate(&expansion, url, &Known::default()));
        assert_eq!(a, b, "{url}: Domain and its expansion disagree");
    }
}

/// Seed 002: "Boolean: And, Not, Or … Performs Boolean matching for the
/// nested rules defined."
#[test]
fn seed_002_exalead_boolean() {
    check_conditions(
        "seed 002 And/Or/Not",
        &[
            (
                r#"<And><Domain val="foo.com"/><Not><Path val="/private"/></Not></And>"#,
                &[
                    ("http://foo.com/public/", true),
                    ("http://www.foo.com/", true),
                    ("http://foo.com/private/x", false),
                    ("http://bar.com/public/", false),
                ],
            ),
            (
                r#"<Or><Ext val=".gif"/><Ext val=".png"/><InQuery val="format=image"/></Or>"#,
                &[
                    ("http://h/a.gif", true),
                    ("http://h/a.png", true),
                    ("http://h/render?format=image", true),
                    ("http://h/a.html", false),
                ],
            ),
            (
                r#"<Not><Scheme val="https"/></Not>"#,
                &[("http://h/", true), ("https://h/", false)],
            ),
            (
                r#"<Or><And><Host val="a.example"/><Path val="/x"/></And><Not><Or><Host val="a.example"/><Host val="b.example"/></Or></Not></Or>"#,
                &[
                    ("http://a.example/x/1", true),
                    ("http://a.example/y", false),
                    ("http://b.example/x", false),
                    ("http://c.example/", true),
                ],
            ),
            // Several conditions directly in one rule must all hold.
            (
                r#"<Host val="www.wikipedia.org"/><Scheme val="https"/>"#,
                &[
                    ("https://www.wikipedia.org/", true),
                    ("http://www.wikipedia.org/", false),
                ],
            ),
        ],
    );
}

/// Seed 002: "For example, a crawl rule with an index and follow action is
/// written as follows: <Rules group="example" key="auto"> <Rule> <ar:Atom
/// litteral="true" value="http://www.example.com/" norm="none" kind="prefix"
/// field="url"/> <Index/> <Follow/> <Accept/> </Rule> </Rules>" (verbatim).
#[test]
fn seed_002_exalead_rules_example() {
    let c = compile(
        Dialect::Exalead,
        r#"<Rules group="example" key="auto">
<Rule>
<ar:Atom litteral="true" value="http://www.example.com/"
norm="none" kind="prefix" field="url"/>
<Index/>
<Follow/>
<Accept/>
</Rule>
</Rules>"#,
    );
    assert_eq!(c.rule_info().len(), 1);
    assert_eq!(c.rule_info()[0].line, 2);
    for (url, holds) in [
        ("http://www.example.com/", true),
        ("http://www.example.com/products/list.html?page=2", true),
        ("http://www.example.com", true),
        ("https://www.example.com/", false),
        ("http://www.example.org/", false),
        ("http://example.com/", false),
    ] {
        let v = evaluate(&c, url, &Known::default());
        assert_eq!(outcome_of(&v), PASS, "{url}");
        assert_eq!(v.queue().name(), "index_follow", "{url}");
        let want = if holds {
            Step::Matched
        } else {
            Step::NotMatched
        };
        assert_eq!(step_of(&v, 0), Some(want), "{url}");
    }
}

/// Seed 002, "Crawl Rule Actions": every row of the table, on its own after
/// the default (everything crawled), and after a rule that already turned
/// indexing and following off (so that a row that leaves a flag alone
/// shows it). The queue follows the seed's fifos: "index: Documents that
/// are indexed but whose links are not be followed", "index_follow:
/// Documents that are indexed and whose links are followed", "follow:
/// Documents whose links are followed, but which are not indexed".
#[test]
fn seed_002_exalead_actions() {
    // (seed row, its XML tags, after the default, after "nothing" so far)
    let rows: [(&str, &str, Outcome, Outcome); 8] = [
        ("Index and follow", "<Index/><Follow/><Accept/>", PASS, PASS),
        (
            "Index and don't follow",
            "<Index/><NoFollow/><Accept/>",
            INDEX,
            INDEX,
        ),
        (
            "Follow but don't index",
            "<NoIndex/><Follow/><Accept/>",
            SCAN,
            SCAN,
        ),
        ("Index", "<Index/><Accept/>", PASS, INDEX),
        ("Follow", "<Follow/><Accept/>", PASS, SCAN),
        ("Don't index", "<NoIndex/>", SCAN, FETCH_ONLY),
        ("Don't follow", "<NoFollow/>", INDEX, FETCH_ONLY),
        (
            "Ignore",
            "<NoIndex/><NoFollow/><Ignore/>",
            EXCLUDED,
            EXCLUDED,
        ),
    ];
    let mut failures = Vec::new();
    for (row, tags, after_default, after_nothing) in rows {
        let alone = compile(
            Dialect::Exalead,
            &format!("<Rules><Rule><Path val=\"/\"/>{tags}</Rule></Rules>"),
        );
        let after = compile(
            Dialect::Exalead,
            &format!(
                "<Rules><Rule><NoIndex/><NoFollow/><Accept/></Rule><Rule><Path val=\"/\"/>{tags}</Rule></Rules>"
            ),
        );
        for (context, c, want) in [
            ("after the default", &alone, after_default),
            ("after NoIndex+NoFollow", &after, after_nothing),
        ] {
            let v = evaluate(c, "http://www.example.com/page.html", &Known::default());
            if outcome_of(&v) != want {
                failures.push(format!(
                    "  {row} {tags} {context}: want {want:?}, got {:?}",
                    outcome_of(&v)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "seed 002 actions:\n{}",
        failures.join("\n")
    );
}

/// Seed 002: "<Priority shift=""/> Possible values: -2 = Highest -1 =
/// Higher 0 = Normal 1 = Lower 2 = Lowest" — the same scale as native
/// `priority` names.
#[test]
fn seed_002_exalead_priority() {
    let rows = [
        ("-2", "highest", -2),
        ("-1", "high", -1),
        ("0", "normal", 0),
        ("1", "low", 1),
        ("2", "lowest", 2),
    ];
    for (shift, name, want) in rows {
        let exalead = compile(
            Dialect::Exalead,
            &format!(
                "<Rules><Rule><Domain val=\"example.com\"/><Priority shift=\"{shift}\"/></Rule></Rules>"
            ),
        );
        let toml = native(&format!(
            "[[rules]]\nmatch = {{ field = \"host\", domain = \"example.com\" }}\npriority = \"{name}\"\n"
        ));
        for c in [&exalead, &toml] {
            let v = evaluate(c, "http://www.example.com/", &Known::default());
            assert_eq!(v.priority, want, "shift {shift} / {name}");
            assert_eq!(outcome_of(&v), PASS, "priority changes no flag");
            let other = evaluate(c, "http://other.example/", &Known::default());
            assert_eq!(other.priority, 0, "unmatched URLs keep normal priority");
        }
    }
    for bad in ["3", "-3", "high", ""] {
        let text = format!("<Rules><Rule><Priority shift=\"{bad}\"/></Rule></Rules>");
        let err = dialect::parse_text("bad.xml", &text, DialectChoice::Given(Dialect::Exalead));
        assert!(err.is_err(), "shift {bad:?} should be rejected");
    }
}

/// Seed 002: "Source <Source name=""/>", "Add meta <AddMeta value=""
/// name=""/>": recorded with the URL.
#[test]
fn seed_002_exalead_source_and_meta() {
    let c = compile(
        Dialect::Exalead,
        r#"<Rules>
<Rule><Domain val="intranet.example"/><Source name="intranet"/><AddMeta name="lang" value="en"/></Rule>
<Rule><Path val="/fr/"/><AddMeta name="lang" value="fr"/></Rule>
</Rules>"#,
    );
    let v = evaluate(
        &c,
        "http://docs.intranet.example/fr/a.html",
        &Known::default(),
    );
    assert_eq!(v.source.as_deref(), Some("intranet"));
    assert_eq!(
        v.meta,
        vec![
            ("lang".to_string(), "en".to_string()),
            ("lang".to_string(), "fr".to_string())
        ]
    );
    let v = evaluate(&c, "http://www.example.org/", &Known::default());
    assert_eq!(v.source, None);
    assert!(v.meta.is_empty());
}

// ---------------------------------------------------------------------------
// Seed 000: Cyotek WebCopy crawler rules (native TOML)
// ---------------------------------------------------------------------------

/// The seed's sample address.
const SAMPLE: &str = "http://www.example.com/folder/products?sort=name&order=asc";

/// One native rule on `field` with `regex` and `action`.
fn webcopy_rule(field: &str, regex: &str, action: &str) -> CompiledRules {
    native(&format!(
        "[[rules]]\nname = \"rule\"\nmatch = {{ field = \"{field}\", regex = '{regex}' }}\naction = \"{action}\"\n"
    ))
}

/// Seed 000: "The example match is based on the following sample address
/// http://www.example.com/folder/products?sort=name&order=asc": Authority
/// "www.example.com"; Authority, Path, and Query String
/// "www.example.com/folder/products?sort=name&order=asc"; Content Type
/// "text/html"; Entire URL; Path "folder/products"; Path and Query String
/// "folder/products?sort=name&order=asc"; Query String
/// "sort=name&order=asc". Our `path` keeps its leading slash (SPEC §1.1),
/// so a WebCopy path regex anchored at `^folder` must allow for it.
#[test]
fn seed_000_webcopy_compare_options() {
    let rows: [(&str, &str, bool); 9] = [
        ("authority", r"^www\.example\.com$", true),
        (
            "authority_path_query",
            r"^www\.example\.com/folder/products\?sort=name&order=asc$",
            true,
        ),
        (
            "url",
            r"^http://www\.example\.com/folder/products\?sort=name&order=asc$",
            true,
        ),
        ("path", r"^/folder/products$", true),
        (
            "path_query",
            r"^/folder/products\?sort=name&order=asc$",
            true,
        ),
        ("query", r"^sort=name&order=asc$", true),
        // WebCopy's own examples, written without the slash.
        ("path", r"^folder/products$", false),
        ("path", r"^/?folder/products$", true),
        ("path_query", r"folder/products\?sort=name&order=asc$", true),
    ];
    let mut failures = Vec::new();
    for (field, regex, holds) in rows {
        let c = webcopy_rule(field, regex, "exclude");
        for (url, want) in [
            (SAMPLE, if holds { EXCLUDED } else { PASS }),
            ("http://www.example.org/other/list?sort=date", PASS),
        ] {
            let got = outcome_of(&evaluate(&c, url, &Known::default()));
            if got != want {
                failures.push(format!(
                    "  {field} ~ {regex} on {url}: want {want:?}, got {got:?}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "seed 000 compare options:\n{}",
        failures.join("\n")
    );

    // Content Type: "text/html", known once headers arrive.
    let c = webcopy_rule("content_type", "^text/html$", "exclude");
    check_known(
        "seed 000 content type",
        &c,
        &[
            (SAMPLE, with_type("text/html; charset=utf-8"), EXCLUDED),
            (SAMPLE, with_type("image/png"), PASS),
        ],
    );
    let v = evaluate(&c, SAMPLE, &Known::default());
    assert!(v.pending.contains(Pending::CONTENT_TYPE));
    assert_eq!(step_of(&v, 0), Some(Step::Deferred));
}

/// Seed 000: "Matches: Specifies the rule will be processed if the given
/// input matches the rule expression. Does Not Match: Specifies the rule
/// will be processed if the given input does not match the rule
/// expression."
#[test]
fn seed_000_webcopy_matches_and_does_not_match() {
    for (negate, inside, outside) in [(false, EXCLUDED, PASS), (true, PASS, EXCLUDED)] {
        let c = native(&format!(
            "[[rules]]\nname = \"folder\"\nmatch = {{ field = \"path\", regex = '^/folder/' }}\nnegate = {negate}\naction = \"exclude\"\n"
        ));
        check(
            &format!("seed 000 negate = {negate}"),
            &c,
            &[
                (SAMPLE, inside),
                ("http://www.example.com/folder/", inside),
                ("http://www.example.com/other/folder/", outside),
                ("http://www.example.com/", outside),
            ],
        );
    }
}

/// Seed 000, the actions: "Exclude: the URL should not be downloaded";
/// "Exclude, but scan for additional content: … a temporary copy is still
/// made in order to scan for additional URLs"; "Download"; "Download, but
/// do not scan for additional content: … it will not be scanned for
/// additional URLs to crawl."
#[test]
fn seed_000_webcopy_actions() {
    let rows = [
        ("exclude", EXCLUDED, "none"),
        ("exclude-scan", SCAN, "follow"),
        ("download", PASS, "index_follow"),
        ("download-no-scan", INDEX, "index"),
    ];
    for (action, want, queue) in rows {
        assert_eq!(want.queue, queue, "{action}");
        let c = webcopy_rule("path", "^/folder/", action);
        check(
            &format!("seed 000 action {action}"),
            &c,
            &[(SAMPLE, want), ("http://www.example.com/", PASS)],
        );
    }
}

/// Seed 000: "Download: … This allows you to have a wider rule to exclude
/// content, and then a narrower rule to include specific content."
#[test]
fn seed_000_webcopy_wider_exclude_narrower_download() {
    let c = native(
        r#"
[[rules]]
name = "wider: exclude /folder/"
match = { field = "path", regex = '^/folder/' }
action = "exclude"

[[rules]]
name = "narrower: download the products"
match = { field = "path", regex = '^/folder/products' }
action = "download"
"#,
    );
    check(
        "seed 000 wider then narrower",
        &c,
        &[
            (SAMPLE, PASS),
            ("http://www.example.com/folder/about.html", EXCLUDED),
            ("http://www.example.com/", PASS),
        ],
    );
}

/// Seed 000: "Stop processing more rules: By default all rules are
/// processed sequentially. … if set and the rule is matched, no further
/// rules will be processed".
#[test]
fn seed_000_webcopy_stop_processing() {
    let rules = |stop: bool| {
        native(&format!(
            r#"
[[rules]]
name = "private: exclude"
match = {{ field = "path", regex = '^/private/' }}
action = "exclude"
stop = {stop}

[[rules]]
name = "everything: download"
action = "download"
"#
        ))
    };
    let with_stop = rules(true);
    check(
        "seed 000 with stop",
        &with_stop,
        &[
            ("http://www.example.com/private/a.html", EXCLUDED),
            ("http://www.example.com/public/a.html", PASS),
        ],
    );
    let v = evaluate(
        &with_stop,
        "http://www.example.com/private/a.html",
        &Known::default(),
    );
    assert_eq!(step_of(&v, 0), Some(Step::Matched));
    assert_eq!(step_of(&v, 1), Some(Step::SkippedByStop));
    // A stop rule that does not match stops nothing.
    let v = evaluate(
        &with_stop,
        "http://www.example.com/public/a.html",
        &Known::default(),
    );
    assert_eq!(step_of(&v, 1), Some(Step::Matched));

    let without = rules(false);
    check(
        "seed 000 without stop",
        &without,
        &[("http://www.example.com/private/a.html", PASS)],
    );
}

/// Seed 000: "Download Priority: Allows the download priority for URLs
/// matching the rule to be changed. High priority will mean the URL will be
/// downloaded immediately, while Low means the URL will be downloaded when
/// all other URLs have been processed."
#[test]
fn seed_000_webcopy_download_priority() {
    for (name, shift) in [
        ("highest", -2),
        ("high", -1),
        ("normal", 0),
        ("low", 1),
        ("lowest", 2),
    ] {
        let c = native(&format!(
            "[[rules]]\nmatch = {{ field = \"path\", regex = '^/folder/' }}\npriority = \"{name}\"\n"
        ));
        let v = evaluate(&c, SAMPLE, &Known::default());
        assert_eq!(v.priority, shift, "{name}");
        assert_eq!(outcome_of(&v), PASS, "{name}: priority changes no flag");
        assert_eq!(
            evaluate(&c, "http://www.example.com/", &Known::default()).priority,
            0
        );
    }
}

/// Seed 000, footnote 1: "The Download Priority options is only supported
/// for rules that match against a URL, it is ignored for rules matching
/// against content types."
#[test]
fn seed_000_webcopy_priority_ignored_for_content_type() {
    let c = native(
        r#"
[[rules]]
name = "PDF documents first"
match = { field = "content_type", regex = '^application/pdf$' }
priority = "highest"

[[rules]]
name = "reports last"
match = { field = "path", regex = '^/reports/' }
priority = "low"
"#,
    );
    let by_type = rule_named(&c, "PDF documents first");
    let by_url = rule_named(&c, "reports last");
    let rows = [
        ("http://www.example.com/a.pdf", "application/pdf", 0, true),
        (
            "http://www.example.com/reports/a.pdf",
            "application/pdf",
            1,
            true,
        ),
        ("http://www.example.com/a.html", "text/html", 0, false),
    ];
    for (url, content_type, priority, type_rule_matches) in rows {
        let v = evaluate(&c, url, &with_type(content_type));
        assert_eq!(v.priority, priority, "{url} as {content_type}");
        assert_eq!(outcome_of(&v), PASS, "{url}");
        let entry = v.trace.iter().find(|t| t.rule == by_type).copied();
        let want_step = if type_rule_matches {
            Step::Matched
        } else {
            Step::NotMatched
        };
        assert_eq!(entry.map(|t| t.step), Some(want_step), "{url}");
        assert_eq!(
            entry.map(|t| t.priority_ignored),
            Some(type_rule_matches),
            "{url}: priority_ignored"
        );
        // The URL rule's priority is never ignored.
        assert!(
            v.trace
                .iter()
                .filter(|t| t.rule == by_url)
                .all(|t| !t.priority_ignored)
        );
    }
    // Before the headers, the content-type rule waits.
    let v = evaluate(&c, "http://www.example.com/a.pdf", &Known::default());
    assert_eq!(step_of(&v, by_type), Some(Step::Deferred));
    assert!(v.pending.contains(Pending::CONTENT_TYPE));
    assert_eq!(v.priority, 0);
}

/// Seed 000: "If a rule fails to execute, for example due to an invalid
/// regular expression, the rule will be automatically disabled." and
/// "Enable this rule: … Disabled rules will be ignored".
#[test]
fn seed_000_webcopy_invalid_rule_is_disabled() {
    let c = native(
        r#"
[[rules]]
name = "broken"
match = { field = "path", regex = '(unclosed' }
action = "exclude"

[[rules]]
name = "switched off"
enabled = false
match = { field = "path", regex = '\.zip$' }
action = "exclude"

[[rules]]
name = "no PDFs"
match = { field = "path", regex = '\.pdf$' }
action = "exclude"
"#,
    );
    let info = c.rule_info();
    let broken = info[0].disabled.as_ref().map_or("", |d| d.text());
    assert!(
        broken.contains("(unclosed"),
        "the message names the regex: {broken:?}"
    );
    assert_eq!(
        info[1].disabled,
        Some(crawlspace::rules::compile::Disabled::SwitchedOff),
        "enabled = false disables"
    );
    assert_eq!(info[2].disabled, None);
    assert_eq!(c.disabled().count(), 2);
    check(
        "seed 000 evaluation goes on",
        &c,
        &[
            ("http://www.example.com/report.pdf", EXCLUDED),
            ("http://www.example.com/(unclosed", PASS),
            ("http://www.example.com/archive.zip", PASS),
        ],
    );
    let v = evaluate(&c, "http://www.example.com/report.pdf", &Known::default());
    assert_eq!(step_of(&v, 0), Some(Step::Disabled));
    assert_eq!(step_of(&v, 1), Some(Step::Disabled));
    assert_eq!(step_of(&v, 2), Some(Step::Matched));
}

/// Seed 000: "if your expression was application/epub+zip this would need
/// to be written as application/epub\+zip otherwise the + character would
/// have a special meaning and no matches would be made. Similarly, if the
/// expression was example.com, this should be written as example\.com, as .
/// means "any character" which could lead to unexpected matches."
#[test]
fn seed_000_webcopy_escaping() {
    let epub = [
        (r"application/epub+zip", "application/epub+zip", false),
        (r"application/epub\+zip", "application/epub+zip", true),
        // What the unescaped `+` means: one or more `b`.
        (r"application/epub+zip", "application/epubbzip", true),
        (r"application/epub\+zip", "application/epubbzip", false),
    ];
    for (regex, content_type, holds) in epub {
        let c = webcopy_rule("content_type", regex, "exclude");
        let want = if holds { EXCLUDED } else { PASS };
        check_known(
            &format!("seed 000 content type {regex}"),
            &c,
            &[("http://www.example.com/book", with_type(content_type), want)],
        );
    }
    let dots = [
        (r"example.com", "http://www.example.com/", true),
        (r"example\.com", "http://www.example.com/", true),
        (r"example.com", "http://www.examplexcom.org/", true),
        (r"example\.com", "http://www.examplexcom.org/", false),
    ];
    for (regex, url, holds) in dots {
        let c = webcopy_rule("authority", regex, "exclude");
        let want = if holds { EXCLUDED } else { PASS };
        check(&format!("seed 000 authority {regex}"), &c, &[(url, want)]);
    }
}

// ---------------------------------------------------------------------------
// Seed 001: IBM Watson Explorer recursive conditions (native TOML)
// ---------------------------------------------------------------------------

/// Seed 001: "If it is a Conditions apply for a rule and the condition is
/// matched by the URL, then all options are assigned. Processing continues
/// for each of the rules contained therein. If it is not matched, none of
/// the rules contained within this rule will be evaluated."
#[test]
fn seed_001_wex_conditions_apply_for() {
    let c = native(
        r#"
[[rules]]
name = "conditions apply for: example.com"
match = { field = "host", domain = "example.com" }
priority = "high"

  [[rules.rules]]
  name = "URLs may not have: /private/"
  match = { field = "path", prefix = "/private/" }
  filter = "may-not-have"
"#,
    );
    check(
        "seed 001 conditions apply for",
        &c,
        &[
            ("http://example.com/private/x", FILTERED),
            ("http://www.example.com/private/", FILTERED),
            ("http://example.com/public/x", PASS),
            ("http://other.org/private/x", PASS),
        ],
    );
    let nested = rule_named(&c, "URLs may not have: /private/");
    let v = evaluate(&c, "http://example.com/public/x", &Known::default());
    assert_eq!(v.priority, -1, "the options were assigned");
    assert_eq!(step_of(&v, nested), Some(Step::NotMatched));
    let v = evaluate(&c, "http://other.org/private/x", &Known::default());
    assert_eq!(v.priority, 0);
    assert_eq!(step_of(&v, 0), Some(Step::NotMatched));
    assert_eq!(
        step_of(&v, nested),
        None,
        "the nested rule is never evaluated"
    );
}

/// Seed 001: "If it is a Conditions apply except for a rule and the
/// condition is not matched by the URL, then all options are assigned.
/// Processing continues for each of the rules contained therein. If it is
/// matched, none of the rules contained within this rule will be
/// evaluated."
#[test]
fn seed_001_wex_conditions_apply_except_for() {
    let c = native(
        r#"
[[rules]]
name = "conditions apply except for: example.com"
match = { field = "host", domain = "example.com" }
negate = true
priority = "low"

  [[rules.rules]]
  name = "URLs must have: /public/"
  match = { field = "path", prefix = "/public/" }
  filter = "must-have"
"#,
    );
    check(
        "seed 001 conditions apply except for",
        &c,
        &[
            ("http://other.org/x", FILTERED),
            ("http://other.org/public/x", PASS),
            ("http://example.com/x", PASS),
            ("http://www.example.com/private/", PASS),
        ],
    );
    let nested = rule_named(&c, "URLs must have: /public/");
    let v = evaluate(&c, "http://other.org/public/x", &Known::default());
    assert_eq!(v.priority, 1, "the options were assigned");
    let v = evaluate(&c, "http://example.com/x", &Known::default());
    assert_eq!(v.priority, 0);
    assert_eq!(
        step_of(&v, nested),
        None,
        "the nested rule is never evaluated"
    );
}

/// Seed 001: "If it is a URLs may not have a rule and the condition is
/// matched by the URL, then it is marked as filtered. If it is a URLs must
/// have a rule and the condition is not matched by the URL, then it is
/// marked as filtered. If the URL was filtered then it will not be
/// crawled."
#[test]
fn seed_001_wex_filters() {
    let c = native(
        r#"
[[rules]]
name = "URLs must have: example.com"
match = { field = "host", domain = "example.com" }
filter = "must-have"

[[rules]]
name = "URLs may not have: a session id"
match = { field = "query", contains = "sessionid=" }
filter = "may-not-have"

[[rules]]
name = "everything: download (cannot undo a filter)"
action = "download"
"#,
    );
    check(
        "seed 001 filters",
        &c,
        &[
            ("http://example.com/", PASS),
            ("http://www.example.com/a?lang=en", PASS),
            ("http://other.org/", FILTERED),
            ("http://example.com/a?sessionid=42", FILTERED),
            ("http://other.org/a?sessionid=42", FILTERED),
        ],
    );
    let reasons: [(&str, &[&str]); 3] = [
        ("http://other.org/", &["URLs must have: example.com"]),
        (
            "http://example.com/a?sessionid=42",
            &["URLs may not have: a session id"],
        ),
        (
            "http://other.org/a?sessionid=42",
            &[
                "URLs must have: example.com",
                "URLs may not have: a session id",
            ],
        ),
    ];
    for (url, want) in reasons {
        let v = evaluate(&c, url, &Known::default());
        assert_eq!(filtered_by(&c, &v), want, "{url}");
    }
}

/// Seed 001: "If one or more of the rules that filtered the URL enabled the
/// Log URLs that don't pass this condition flag, it will be logged in the
/// URLs section. If none of the rules set this flag, it will not be crawled
/// and no record of it will be kept."
#[test]
fn seed_001_wex_log_flag() {
    for disposition in ["allow", "disallow", "disallow-log"] {
        let c = native(&format!(
            r#"
[crawl]
disposition = "{disposition}"

[[rules]]
name = "URLs may not have: /tmp/ (logged)"
match = {{ field = "path", prefix = "/tmp/" }}
filter = "may-not-have"
log = true

[[rules]]
name = "URLs may not have: .bak (not logged)"
match = {{ field = "path", suffix = ".bak" }}
filter = "may-not-have"
log = false
"#
        ));
        for (url, logged) in [
            ("http://example.com/tmp/a", true),
            ("http://example.com/a.bak", false),
            ("http://example.com/tmp/a.bak", true),
        ] {
            let v = evaluate(&c, url, &Known::default());
            assert_eq!(outcome_of(&v), FILTERED, "{disposition}: {url}");
            assert_eq!(v.log, logged, "{disposition}: {url}: log");
        }
    }
}

/// Seed 001: "Otherwise, the default-allow option determines the
/// disposition of the URL: allow - the URL will be crawled. disallow - the
/// URL will not be crawled and no record of it will be kept. disallow-log -
/// the URL will not be crawled and the reason will be recorded in the URLs
/// section." — and "All global options are assigned" first, so a rule
/// that matches can still allow a URL.
#[test]
fn seed_001_wex_disposition() {
    // (disposition, unmatched URL: outcome and log)
    let rows = [
        ("allow", PASS, true),
        ("disallow", EXCLUDED, false),
        ("disallow-log", EXCLUDED, true),
    ];
    for (disposition, unmatched, logged) in rows {
        let c = native(&format!(
            r#"
[crawl]
disposition = "{disposition}"

[[rules]]
name = "conditions apply for: example.com"
match = {{ field = "host", domain = "example.com" }}
action = "download"
"#
        ));
        check(
            &format!("seed 001 disposition {disposition}"),
            &c,
            &[
                ("http://other.org/", unmatched),
                ("http://www.example.com/", PASS),
            ],
        );
        let v = evaluate(&c, "http://other.org/", &Known::default());
        assert_eq!(v.log, logged, "{disposition}: log of an unmatched URL");
        assert_eq!(v.fetch_set_by, None, "{disposition}: no rule decided");
        let v = evaluate(&c, "http://www.example.com/", &Known::default());
        assert!(v.log, "{disposition}: a crawled URL is logged");
        assert_eq!(v.fetch_set_by, Some(0));
    }
}

/// Seed 001: "Implicit in this description is the fact that when an option
/// is set multiple times, the last setting takes precedence."
#[test]
fn seed_001_wex_last_setting_wins() {
    let rules = [
        r#"
[[rules]]
name = "example.com: download, high"
match = { field = "host", domain = "example.com" }
action = "download"
priority = "high"
"#,
        r#"
[[rules]]
name = "/archive/: scan only, low"
match = { field = "path", prefix = "/archive/" }
action = "exclude-scan"
priority = "low"
"#,
        r#"
[[rules]]
name = "yearly indexes: keep, don't scan"
match = { field = "path", regex = '^/archive/\d{4}/$' }
action = "download-no-scan"
"#,
    ];
    let forward = native(&rules.concat());
    let cases = [
        ("http://example.com/x", PASS, -1),
        ("http://example.com/archive/x", SCAN, 1),
        ("http://example.com/archive/2020/", INDEX, 1),
    ];
    for (url, want, priority) in cases {
        let v = evaluate(&forward, url, &Known::default());
        assert_eq!(outcome_of(&v), want, "{url}");
        assert_eq!(v.priority, priority, "{url}");
    }
    // The same rules in reverse order: the general rule now comes last and wins.
    let mut reversed = rules;
    reversed.reverse();
    let backward = native(&reversed.concat());
    for url in [
        "http://example.com/x",
        "http://example.com/archive/x",
        "http://example.com/archive/2020/",
    ] {
        let v = evaluate(&backward, url, &Known::default());
        assert_eq!(outcome_of(&v), PASS, "{url}");
        assert_eq!(v.priority, -1, "{url}");
    }
    // A nested rule's setting comes after its parent's.
    let c = native(
        r#"
[[rules]]
name = "example.com: download"
match = { field = "host", domain = "example.com" }
action = "download"
  [[rules.rules]]
  name = "its /drafts/: exclude"
  match = { field = "path", prefix = "/drafts/" }
  action = "exclude"
"#,
    );
    check(
        "seed 001 nested last setting",
        &c,
        &[
            ("http://example.com/drafts/a", EXCLUDED),
            ("http://example.com/a", PASS),
        ],
    );
}

// ---------------------------------------------------------------------------
// The example rule files, one per dialect
// ---------------------------------------------------------------------------

/// `webcopy.toml`: seed 000's rules as native TOML.
#[test]
fn fixture_webcopy_toml() {
    let (dialect, c) = fixture("webcopy.toml");
    assert_eq!(dialect, Dialect::Native);
    let disabled: Vec<&str> = c.disabled().map(|r| r.name.as_str()).collect();
    assert_eq!(disabled, ["an invalid expression: disabled automatically"]);
    check_known(
        "webcopy.toml",
        &c,
        &[
            ("http://other.org/", Known::default(), EXCLUDED),
            (SAMPLE, Known::default(), PASS),
            ("http://example.com/folder/products", Known::default(), PASS),
            (
                "http://example.com/folder/about.html",
                Known::default(),
                EXCLUDED,
            ),
            ("http://example.com/archive/2020/", Known::default(), SCAN),
            (
                "http://example.com/docs/manual.pdf",
                Known::default(),
                INDEX,
            ),
            (
                "http://example.com/folder/manual.pdf",
                Known::default(),
                INDEX,
            ),
            ("http://example.com/(unclosed", Known::default(), PASS),
            (
                "http://example.com/book",
                with_type("application/epub+zip"),
                EXCLUDED,
            ),
            ("http://example.com/book", with_type("text/html"), PASS),
        ],
    );
    let priorities = [
        ("http://example.com/folder/products", -1),
        (SAMPLE, 2), // "sorted listings last" comes after the products rule
        ("http://example.com/docs/manual.pdf", 1),
        ("http://example.com/", 0),
    ];
    for (url, want) in priorities {
        assert_eq!(evaluate(&c, url, &Known::default()).priority, want, "{url}");
    }
    // The stop rule ends processing for other sites.
    let v = evaluate(&c, "http://other.org/folder/products", &Known::default());
    assert_eq!(step_of(&v, 0), Some(Step::Matched));
    assert!(v.trace[1..].iter().all(|t| t.step == Step::SkippedByStop));
    // The EPUB rule's priority is ignored.
    let epub = rule_named(&c, "no EPUB books (the + escaped)");
    let v = evaluate(
        &c,
        "http://example.com/book",
        &with_type("application/epub+zip"),
    );
    assert_eq!(v.priority, 0);
    assert!(v.trace.iter().any(|t| t.rule == epub && t.priority_ignored));
}

/// `wex.toml`: seed 001's recursive conditions with `disallow-log`.
#[test]
fn fixture_wex_toml() {
    let (dialect, c) = fixture("wex.toml");
    assert_eq!(dialect, Dialect::Native);
    assert_eq!(c.disabled().count(), 0);
    // (url, outcome, log, priority)
    let rows = [
        ("http://example.com/", PASS, true, 1),
        ("http://example.com/docs/a/b/c/d.html", PASS, true, 0),
        ("http://example.com/a?sessionid=1", FILTERED, true, 1),
        ("http://example.com/a/print", FILTERED, false, 1),
        ("http://example.com/a/b/c/d.html", FILTERED, true, 1),
        ("http://partner.example.org/", SCAN, true, 0),
        ("http://example.com/archive/2020.html", INDEX, true, 1),
        ("http://elsewhere.net/", EXCLUDED, true, 0),
    ];
    for (url, want, log, priority) in rows {
        let v = evaluate(&c, url, &Known::default());
        assert_eq!(
            (outcome_of(&v), v.log, v.priority),
            (want, log, priority),
            "{url}: {}",
            trace_text(&c, &v)
        );
    }
}

/// `exalead.xml`: seed 002's example and actions.
#[test]
fn fixture_exalead_xml() {
    let (dialect, c) = fixture("exalead.xml");
    assert_eq!(dialect, Dialect::Exalead);
    assert_eq!(c.disabled().count(), 0);
    check(
        "exalead.xml",
        &c,
        &[
            ("http://www.example.com/", PASS),
            ("http://foo.com/", INDEX),
            ("http://bar.foo.com/a.html", INDEX),
            ("http://foo.com/private/a.html", PASS),
            ("http://barfoo.com/", PASS),
            ("https://www.wikipedia.org/wiki/Crawler", SCAN),
            ("http://www.wikipedia.org/", PASS),
            ("http://www.example.com/cgi-bin/search", EXCLUDED),
            ("http://foo.com/logo.gif", EXCLUDED),
            ("http://www.example.com/a?sessionid=7", EXCLUDED),
        ],
    );
    let v = evaluate(&c, "http://foo.com/", &Known::default());
    assert_eq!(v.priority, -2);
    assert_eq!(v.source.as_deref(), Some("foo"));
    assert_eq!(v.meta, vec![("site".to_string(), "foo.com".to_string())]);
    let long = "http://www.example.com/abcdefghijklmnopqrstuvwxyz0123";
    assert_eq!(evaluate(&c, long, &Known::default()).priority, 2);
}

/// `wca.txt`: seed 003's rules of all three types.
#[test]
fn fixture_wca_txt() {
    let (dialect, c) = fixture("wca.txt");
    assert_eq!(dialect, Dialect::Wca);
    let blocks: Vec<&str> = c
        .rule_info()
        .iter()
        .filter(|r| r.depth == 0)
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(blocks, ["domain rules", "address rules", "prefix rules"]);
    let nine = || at_address("9.20.30.40");
    check_known(
        "wca.txt",
        &c,
        &[
            ("http://www.ibm.com/", nine(), PASS),
            ("http://joe.user.ibm.com/", nine(), PASS),
            ("http://server1.ibm.com/", nine(), FILTERED),
            ("http://w3.ibm.com/", nine(), FILTERED),
            ("http://www.example.org/", nine(), FILTERED),
            ("http://www.ibm.com/", at_address("10.0.0.1"), FILTERED),
            ("http://www.ibm.com/", at_address("2001:db8:0:1::1"), PASS),
            ("http://www.ibm.com/", at_address("2001:db8::2"), FILTERED),
            ("http://sales.ibm.com/public/a.html", nine(), PASS),
            ("http://sales.ibm.com:8080/", nine(), PASS),
            ("http://sales.ibm.com/private/", nine(), FILTERED),
            ("http://sales.ibm.com/nfs/x", nine(), FILTERED),
            ("http://sales.ibm.com/public/nfs/x", nine(), PASS),
        ],
    );
    let v = evaluate(&c, "http://www.ibm.com/", &Known::default());
    assert!(v.pending.contains(Pending::ADDRESS));
    assert!(!v.filtered);
}

/// `funnelback.cfg`: seed 004's include list and exclude expression.
#[test]
fn fixture_funnelback_cfg() {
    let (dialect, c) = fixture("funnelback.cfg");
    assert_eq!(dialect, Dialect::Funnelback);
    assert_eq!(c.disabled().count(), 0);
    check(
        "funnelback.cfg",
        &c,
        &[
            ("http://example.com/orange", FILTERED),
            ("http://example.com/green/emerald", PASS),
            ("http://example.com/green/olive", FILTERED),
            ("http://example.com/red/report.pdf", FILTERED),
            ("https://example.com/blue/", FILTERED),
            ("http://example.com/blue/cgi-bin/x", FILTERED),
            ("http://example.com/red/search?date=1", FILTERED),
            ("http://example.com/red/search?q=1", PASS),
        ],
    );
}

/// `nutch.txt`: Nutch's first-match list with its default reject.
#[test]
fn fixture_nutch_txt() {
    let (dialect, c) = fixture("nutch.txt");
    assert_eq!(dialect, Dialect::Nutch);
    assert_eq!(c.disabled().count(), 0);
    check(
        "nutch.txt",
        &c,
        &[
            ("http://example.com/", PASS),
            ("https://www.example.com/a/b.html", PASS),
            ("http://example.com/logo.GIF", FILTERED),
            ("http://example.com/search?q=1", FILTERED),
            ("ftp://example.com/pub/", FILTERED),
            ("http://other.org/", FILTERED),
            ("http://example.com.other.org/", FILTERED),
        ],
    );
}
