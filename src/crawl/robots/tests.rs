//! robots.txt cases written from RFC 9309: each names the rule it checks.

use std::time::Duration;

use proptest::prelude::*;

use super::*;

const UA: &str = "crawlspace/0.1 (+https://example.com/bot)";

/// One path decided against one robots.txt: allowed or not, and the line
/// that decided (`None`: no rule did).
struct Case {
    name: &'static str,
    robots: &'static str,
    agent: &'static str,
    path: &'static str,
    allowed: bool,
    line: Option<u32>,
}

const fn case(
    name: &'static str,
    robots: &'static str,
    agent: &'static str,
    path: &'static str,
    allowed: bool,
    line: Option<u32>,
) -> Case {
    Case {
        name,
        robots,
        agent,
        path,
        allowed,
        line,
    }
}

const SPECIFIC_AND_STAR: &str = "\
User-agent: *
Disallow: /

User-agent: crawlspace
Disallow: /private/
";

const MERGED: &str = "\
User-agent: crawlspace
Disallow: /a/

User-agent: other
Disallow: /b/

User-agent: crawlspace
Disallow: /c/
";

const CASES: &[Case] = &[
    // §2.2.1: the group naming the product token applies, not `*`.
    case(
        "specific group beats *",
        SPECIFIC_AND_STAR,
        UA,
        "/public",
        true,
        None,
    ),
    case(
        "specific group's rule",
        SPECIFIC_AND_STAR,
        UA,
        "/private/x",
        false,
        Some(5),
    ),
    case(
        "other agents fall back to *",
        SPECIFIC_AND_STAR,
        "otherbot/2.0",
        "/public",
        false,
        Some(2),
    ),
    case(
        "agent matched without regard to case",
        "User-agent: CrawlSpace\nDisallow: /x\n",
        "CRAWLSPACE/9",
        "/x/y",
        false,
        Some(2),
    ),
    case(
        "a version in the file's user-agent value is ignored",
        "User-agent: crawlspace/0.1\nDisallow: /x\n",
        UA,
        "/x",
        false,
        Some(2),
    ),
    case(
        "a longer name is another agent",
        "User-agent: crawlspacex\nDisallow: /\n",
        UA,
        "/x",
        true,
        None,
    ),
    case("merged groups: first", MERGED, UA, "/a/1", false, Some(2)),
    case("merged groups: second", MERGED, UA, "/c/1", false, Some(8)),
    case(
        "merged groups: another agent's rule",
        MERGED,
        UA,
        "/b/1",
        true,
        None,
    ),
    case(
        "several user-agent lines open one group",
        "User-agent: alpha\nUser-agent: crawlspace\nDisallow: /shared/\n",
        UA,
        "/shared/x",
        false,
        Some(3),
    ),
    case(
        "a user-agent line after a rule opens a new group",
        "User-agent: alpha\nDisallow: /a/\nUser-agent: crawlspace\nDisallow: /c/\n",
        UA,
        "/a/x",
        true,
        None,
    ),
    case(
        "blank lines and comments do not end the user-agent lines",
        "User-agent: alpha\n\n# note\nUser-agent: crawlspace\nDisallow: /s/\n",
        UA,
        "/s/",
        false,
        Some(5),
    ),
    case(
        "a sitemap line does not end the user-agent lines",
        "User-agent: alpha\nSitemap: http://h/s.xml\nUser-agent: crawlspace\nDisallow: /s/\n",
        "alpha",
        "/s/",
        false,
        Some(4),
    ),
    case(
        "empty Disallow in the specific group allows all",
        "User-agent: *\nDisallow: /\nUser-agent: crawlspace\nDisallow:\n",
        UA,
        "/anything",
        true,
        None,
    ),
    case(
        "empty Disallow allows all",
        "User-agent: *\nDisallow:\n",
        UA,
        "/x",
        true,
        None,
    ),
    case(
        "no user-agent line: no group",
        "Disallow: /\n",
        UA,
        "/x",
        true,
        None,
    ),
    case(
        "a rule before the first user-agent line is ignored",
        "Disallow: /a\nUser-agent: *\nDisallow: /b\n",
        UA,
        "/a",
        true,
        None,
    ),
    case(
        "no matching group and no *",
        "User-agent: other\nDisallow: /\n",
        UA,
        "/x",
        true,
        None,
    ),
    case(
        "/robots.txt is always allowed",
        "User-agent: *\nDisallow: /\n",
        UA,
        "/robots.txt",
        true,
        None,
    ),
    case(
        "keys without regard to case",
        "USER-AGENT: *\nDISALLOW: /x\n",
        UA,
        "/x",
        false,
        Some(2),
    ),
    case(
        "a comment ends the value",
        "User-agent: * # all\nDisallow: /x # tail\n",
        UA,
        "/x",
        false,
        Some(2),
    ),
    case(
        "a pattern not starting with / or * is unusable",
        "User-agent: *\nDisallow: private\n",
        UA,
        "/private",
        true,
        None,
    ),
    // §2.2.2: the longest match decides; Allow wins a tie.
    case(
        "longer Allow beats shorter Disallow",
        "User-agent: *\nDisallow: /shop/\nAllow: /shop/public/\n",
        UA,
        "/shop/public/a",
        true,
        Some(3),
    ),
    case(
        "shorter Allow loses to longer Disallow",
        "User-agent: *\nAllow: /docs/\nDisallow: /docs/drafts/\n",
        UA,
        "/docs/drafts/1",
        false,
        Some(3),
    ),
    case(
        "order in the file does not matter",
        "User-agent: *\nAllow: /docs/drafts/\nDisallow: /docs/\n",
        UA,
        "/docs/drafts/1",
        true,
        Some(2),
    ),
    case(
        "Allow wins a tie of the same pattern",
        "User-agent: *\nDisallow: /page\nAllow: /page\n",
        UA,
        "/page",
        true,
        Some(3),
    ),
    case(
        "Allow wins a tie of equal lengths",
        "User-agent: *\nAllow: /abc\nDisallow: /a*c\n",
        UA,
        "/abc",
        true,
        Some(2),
    ),
    case(
        "the longest match across merged groups",
        "User-agent: crawlspace\nDisallow: /a/\nUser-agent: x\nUser-agent: crawlspace\nAllow: /a/b/\n",
        UA,
        "/a/b/c",
        true,
        Some(5),
    ),
    case(
        "of two equal rules the first line is named",
        "User-agent: *\nDisallow: /x\nDisallow: /x\n",
        UA,
        "/x",
        false,
        Some(2),
    ),
    // §2.2.3: `*` and `$`.
    case(
        "* inside",
        "User-agent: *\nDisallow: /*.pdf\n",
        UA,
        "/docs/a.pdf",
        false,
        Some(2),
    ),
    case(
        "* then more text",
        "User-agent: *\nDisallow: /*.pdf\n",
        UA,
        "/a.pdf?x=1",
        false,
        Some(2),
    ),
    case(
        "* needs the rest",
        "User-agent: *\nDisallow: /*.pdf\n",
        UA,
        "/a.html",
        true,
        None,
    ),
    case(
        "* between segments",
        "User-agent: *\nDisallow: /*/edit\n",
        UA,
        "/a/b/edit",
        false,
        Some(2),
    ),
    case(
        "several *",
        "User-agent: *\nDisallow: /a*b*c\n",
        UA,
        "/xa",
        true,
        None,
    ),
    case(
        "several * in order",
        "User-agent: *\nDisallow: /a*b*c\n",
        UA,
        "/a-b-c",
        false,
        Some(2),
    ),
    case(
        "several * out of order",
        "User-agent: *\nDisallow: /a*b*c\n",
        UA,
        "/a-c-b",
        true,
        None,
    ),
    case(
        "a lone *",
        "User-agent: *\nDisallow: *\n",
        UA,
        "/x",
        false,
        Some(2),
    ),
    case(
        "query by wildcard",
        "User-agent: *\nDisallow: /*?\n",
        UA,
        "/a?b=1",
        false,
        Some(2),
    ),
    case(
        "no query, no match",
        "User-agent: *\nDisallow: /*?\n",
        UA,
        "/a",
        true,
        None,
    ),
    case(
        "$ anchors",
        "User-agent: *\nDisallow: /*.pdf$\n",
        UA,
        "/a.pdf",
        false,
        Some(2),
    ),
    case(
        "$ rejects a longer path",
        "User-agent: *\nDisallow: /*.pdf$\n",
        UA,
        "/a.pdfs",
        true,
        None,
    ),
    case(
        "$ rejects a query",
        "User-agent: *\nDisallow: /*.pdf$\n",
        UA,
        "/a.pdf?x",
        true,
        None,
    ),
    case(
        "$ without *",
        "User-agent: *\nDisallow: /exact$\n",
        UA,
        "/exact",
        false,
        Some(2),
    ),
    case(
        "$ without *, longer path",
        "User-agent: *\nDisallow: /exact$\n",
        UA,
        "/exact/",
        true,
        None,
    ),
    case(
        "Allow /$ keeps the home page",
        "User-agent: *\nDisallow: /\nAllow: /$\n",
        UA,
        "/",
        true,
        Some(3),
    ),
    case(
        "…and only it",
        "User-agent: *\nDisallow: /\nAllow: /$\n",
        UA,
        "/x",
        false,
        Some(2),
    ),
    case(
        "$ inside is literal",
        "User-agent: *\nDisallow: /a$b\n",
        UA,
        "/a$b",
        false,
        Some(2),
    ),
    case(
        "anchored tail cannot overlap the head",
        "User-agent: *\nDisallow: /ab*b$\n",
        UA,
        "/ab",
        true,
        None,
    ),
    // §2.2.2: percent-encoding.
    case(
        "%62 in the pattern is b",
        "User-agent: *\nDisallow: /a%62c\n",
        UA,
        "/abc",
        false,
        Some(2),
    ),
    case(
        "%62 in the path is b",
        "User-agent: *\nDisallow: /abc\n",
        UA,
        "/a%62c",
        false,
        Some(2),
    ),
    case(
        "hex case does not matter",
        "User-agent: *\nDisallow: /x%2fy\n",
        UA,
        "/x%2Fy",
        false,
        Some(2),
    ),
    case(
        "%2F is not /",
        "User-agent: *\nDisallow: /x%2Fy\n",
        UA,
        "/x/y",
        true,
        None,
    ),
    case(
        "/ is not %2F",
        "User-agent: *\nDisallow: /x/y\n",
        UA,
        "/x%2Fy",
        true,
        None,
    ),
    case(
        "%7E is ~",
        "User-agent: *\nDisallow: /~user/\n",
        UA,
        "/%7euser/notes",
        false,
        Some(2),
    ),
    case(
        "UTF-8 in a pattern is percent-encoded",
        "User-agent: *\nDisallow: /ツ\n",
        UA,
        "/%E3%83%84",
        false,
        Some(2),
    ),
    case(
        "encoded UTF-8 in a pattern, lower case",
        "User-agent: *\nDisallow: /%e3%83%84\n",
        UA,
        "/%E3%83%84/x",
        false,
        Some(2),
    ),
    case(
        "the decoded form counts for length",
        "User-agent: *\nDisallow: /a%62\nAllow: /ab\n",
        UA,
        "/ab",
        true,
        Some(3),
    ),
    case(
        "empty path is /",
        "User-agent: *\nDisallow: /$\n",
        UA,
        "",
        false,
        Some(2),
    ),
];

#[test]
fn decisions_follow_rfc_9309() {
    let mut failures = Vec::new();
    for c in CASES {
        let robots = Robots::parse(c.robots.as_bytes());
        let d = robots.check(c.agent, c.path);
        if d.allowed != c.allowed || d.line() != c.line {
            failures.push(format!(
                "{}: {} → allowed {} line {:?}, expected allowed {} line {:?} ({:?})",
                c.name,
                c.path,
                d.allowed,
                d.line(),
                c.allowed,
                c.line,
                d.reason
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn the_decision_names_line_text_and_group() {
    let robots = Robots::parse(
        b"# site robots\nUser-agent: *\nAllow: /private/ok\n\n  Disallow: /private/   # staff only\n",
    );
    let d = robots.check(UA, "/private/x");
    assert_eq!(
        d.reason,
        RobotsReason::Rule {
            line: 5,
            text: "Disallow: /private/   # staff only".into(),
            group: "*".into(),
        }
    );
    assert_eq!(
        d.describe("http://h/robots.txt"),
        r#"robots.txt http://h/robots.txt line 5 "Disallow: /private/   # staff only" (group *)"#
    );
    let d = robots.check(UA, "/public");
    assert_eq!(d.reason, RobotsReason::NoMatch { group: "*".into() });
    assert_eq!(
        d.describe("http://h/robots.txt"),
        "robots.txt http://h/robots.txt: no rule matches (group *)"
    );

    let robots = Robots::parse(b"User-agent: CrawlSpace\nUser-agent: x\nDisallow: /\n");
    let d = robots.check(UA, "/x");
    assert_eq!(
        (d.line(), d.rule(), d.group()),
        (Some(3), Some("Disallow: /"), Some("CrawlSpace"))
    );
    let d = robots.check("nobody", "/x");
    assert_eq!(d.reason, RobotsReason::NoGroup);
    assert_eq!(
        d.describe("f"),
        "robots.txt f: no group for this user agent and no * group"
    );
    assert_eq!(robots.for_agent(UA).group(), Some("CrawlSpace"));
    assert_eq!(robots.for_agent("nobody").group(), None);
}

#[test]
fn control_characters_in_a_rule_are_escaped_in_the_description() {
    let robots = Robots::parse(b"User-agent: *\nDisallow: /a\x1b[2J\n");
    let text = robots.check(UA, "/a%1B[2J").describe("f");
    assert!(!text.contains('\x1b'), "{text:?}");
    assert!(text.contains(r"\u{1b}"), "{text:?}");
}

#[test]
fn line_ends_cr_lf_and_crlf_count_the_same() {
    for (name, end) in [("LF", "\n"), ("CRLF", "\r\n"), ("CR", "\r")] {
        let text = ["User-agent: *", "", "Allow: /a/b", "Disallow: /a/"].join(end);
        let robots = Robots::parse(text.as_bytes());
        let d = robots.check(UA, "/a/c");
        assert_eq!((d.allowed, d.line()), (false, Some(4)), "{name}");
        assert_eq!(d.rule(), Some("Disallow: /a/"), "{name}");
        assert_eq!(robots.line_count(), 4, "{name}");
    }
    // Mixed: CR LF counts once, LF CR twice.
    let robots = Robots::parse(b"User-agent: *\r\n\n\rDisallow: /x\n");
    assert_eq!(robots.check(UA, "/x").line(), Some(4));
}

#[test]
fn a_utf8_bom_is_skipped() {
    let robots = Robots::parse(b"\xEF\xBB\xBFUser-agent: *\nDisallow: /x\n");
    let d = robots.check(UA, "/x");
    assert_eq!((d.allowed, d.line()), (false, Some(2)));
    assert_eq!(robots.ignored_lines(), 0);
}

#[test]
fn invalid_utf8_is_replaced_not_fatal() {
    let robots = Robots::parse(b"User-agent: *\nDisallow: /\xFF\xFEx\nDisallow: /y\n");
    assert!(!robots.check(UA, "/y").allowed);
    // U+FFFD is percent-encoded UTF-8 like any other character.
    assert!(!robots.check(UA, "/%EF%BF%BD%EF%BF%BDx").allowed);
}

/// A body of `size` bytes: a `*` group, then comment lines up to `at`, then
/// `tail` (and more comments to reach `size`).
fn big_robots(at: usize, tail: &str, size: usize) -> Vec<u8> {
    let mut body = b"User-agent: *\nDisallow: /early/\n".to_vec();
    while body.len() + 40 < at {
        body.extend_from_slice(b"# ...................................\n");
    }
    body.resize(at - 1, b'#');
    body.push(b'\n');
    body.extend_from_slice(tail.as_bytes());
    while body.len() < size {
        body.extend_from_slice(b"# ...................................\n");
    }
    body
}

#[test]
fn only_the_first_500_kib_are_parsed() {
    let body = big_robots(
        PARSE_LIMIT - 100,
        "Disallow: /before/\n",
        PARSE_LIMIT + 1000,
    );
    let body = [&body[..], b"Disallow: /after/\n"].concat();
    let robots = Robots::parse(&body);
    assert!(robots.truncated());
    assert!(!robots.check(UA, "/early/x").allowed);
    assert!(!robots.check(UA, "/before/x").allowed);
    assert!(
        robots.check(UA, "/after/x").allowed,
        "rules past the limit are ignored"
    );

    let small = Robots::parse(&big_robots(1000, "Disallow: /after/\n", 2000));
    assert!(!small.truncated());
    assert!(!small.check(UA, "/after/x").allowed);
}

#[test]
fn a_line_cut_by_the_limit_is_dropped() {
    // "Disallow: /private/" cut after "/priv" would disallow /privacy.
    let body = big_robots(PARSE_LIMIT - 15, "Disallow: /private/\n", PARSE_LIMIT + 100);
    let robots = Robots::parse(&body);
    assert!(robots.truncated());
    assert!(robots.check(UA, "/privacy").allowed);
    assert!(robots.check(UA, "/private/x").allowed);
    assert!(!robots.check(UA, "/early/").allowed);
}

#[test]
fn lines_that_cannot_be_used_are_counted() {
    let robots = Robots::parse(
        b"garbage line\nDisallow: /before-any-agent\nUser-agent: *\nHost: example.com\n\
          Crawl-delay: soon\nDisallow: nopath\nUser-agent:\nDisallow:\n# fine\n\nAllow: /ok\n",
    );
    assert_eq!(robots.ignored_lines(), 6);
    assert_eq!(robots.line_count(), 11);
    assert!(!robots.truncated());
}

#[test]
fn crawl_delay() {
    let cases: &[(&str, &str, Option<Duration>)] = &[
        (
            "whole seconds",
            "User-agent: *\nCrawl-delay: 5\n",
            Some(Duration::from_secs(5)),
        ),
        (
            "fractions",
            "User-agent: *\nCrawl-delay: 0.5\n",
            Some(Duration::from_millis(500)),
        ),
        (
            "capped",
            "User-agent: *\nCrawl-delay: 86400\n",
            Some(MAX_CRAWL_DELAY),
        ),
        (
            "huge is capped",
            "User-agent: *\nCrawl-delay: 1e300\n",
            Some(MAX_CRAWL_DELAY),
        ),
        ("negative", "User-agent: *\nCrawl-delay: -1\n", None),
        ("not a number", "User-agent: *\nCrawl-delay: soon\n", None),
        ("NaN", "User-agent: *\nCrawl-delay: NaN\n", None),
        ("infinite", "User-agent: *\nCrawl-delay: inf\n", None),
        (
            "key case",
            "user-agent: *\nCRAWL-DELAY: 2\n",
            Some(Duration::from_secs(2)),
        ),
        (
            "first valid wins",
            "User-agent: *\nCrawl-delay: x\nCrawl-delay: 3\nCrawl-delay: 4\n",
            Some(Duration::from_secs(3)),
        ),
        (
            "from the specific group",
            "User-agent: *\nCrawl-delay: 9\nUser-agent: crawlspace\nCrawl-delay: 1\n",
            Some(Duration::from_secs(1)),
        ),
        (
            "not from * when a specific group applies",
            "User-agent: *\nCrawl-delay: 9\nUser-agent: crawlspace\nDisallow: /x\n",
            None,
        ),
        (
            "from a merged group",
            "User-agent: crawlspace\nDisallow: /x\nUser-agent: crawlspace\nCrawl-delay: 7\n",
            Some(Duration::from_secs(7)),
        ),
        ("before any group", "Crawl-delay: 5\nUser-agent: *\n", None),
    ];
    for (name, text, expected) in cases {
        let robots = Robots::parse(text.as_bytes());
        assert_eq!(robots.crawl_delay(UA), *expected, "{name}");
    }
}

#[test]
fn every_sitemap_line_is_kept_in_order() {
    let robots = Robots::parse(
        b"Sitemap: http://h/a.xml\nUser-agent: other\nDisallow: /\nSITEMAP:http://h/b.xml.gz\n\
          User-agent: *\nsitemap: http://h/c.xml # last\nSitemap:\n",
    );
    assert_eq!(
        robots.sitemaps(),
        ["http://h/a.xml", "http://h/b.xml.gz", "http://h/c.xml"]
    );
}

#[test]
fn product_tokens() {
    for (ua, token) in [
        ("crawlspace/0.1", "crawlspace"),
        ("crawlspace/0.1 (+http://x/)", "crawlspace"),
        ("  Crawl_Space extra", "Crawl_Space"),
        ("crawlspace", "crawlspace"),
        ("", ""),
        ("/0.1", ""),
    ] {
        assert_eq!(product_token(ua), token, "{ua:?}");
    }
}

#[test]
fn canonical_form() {
    for (input, expected) in [
        ("/abc", "/abc"),
        ("/a%62c", "/abc"),
        ("/a%2fb", "/a%2Fb"),
        ("/a%2Fb", "/a%2Fb"),
        ("/%7e", "/~"),
        ("/a b", "/a%20b"),
        ("/ツ", "/%E3%83%84"),
        ("/100%", "/100%25"),
        ("/%zz", "/%25zz"),
        ("/%4", "/%254"),
        ("/%%330", "/%2530"),
        ("/*.pdf$", "/*.pdf$"),
        ("/%2A", "/%2A"),
    ] {
        let got = canonical(input.as_bytes());
        assert_eq!(String::from_utf8_lossy(&got), expected, "{input:?}");
    }
}

#[test]
fn robots_status_from_http() {
    let cases: &[(&str, u16, &str, bool, &str)] = &[
        ("2xx is parsed", 200, "/private/x", false, "line 2"),
        ("2xx, allowed path", 200, "/public", true, "no rule matches"),
        (
            "404: all allowed",
            404,
            "/private/x",
            true,
            "HTTP 404, all allowed",
        ),
        ("410: all allowed", 410, "/x", true, "HTTP 410, all allowed"),
        (
            "redirects ran out: all allowed",
            301,
            "/x",
            true,
            "HTTP 301, all allowed",
        ),
        (
            "503: all disallowed",
            503,
            "/x",
            false,
            "HTTP 503, all disallowed until retried",
        ),
        (
            "429 counts as unreachable",
            429,
            "/x",
            false,
            "HTTP 429, all disallowed",
        ),
        ("1xx: disallowed", 100, "/x", false, "all disallowed"),
        (
            "robots.txt itself under 5xx",
            500,
            "/robots.txt",
            true,
            "always allowed",
        ),
    ];
    for (name, status, path, allowed, text) in cases {
        let s = RobotsStatus::from_response(*status, b"User-agent: *\nDisallow: /private/\n");
        let (d, reason) = s.explain(UA, path, "http://h/robots.txt");
        assert_eq!(d.allowed, *allowed, "{name}: {reason}");
        assert!(
            reason.starts_with("robots.txt http://h/robots.txt"),
            "{name}: {reason}"
        );
        assert!(reason.contains(text), "{name}: {reason}");
    }
    let (d, reason) = RobotsStatus::Off.explain(UA, "/private/x", "http://h/robots.txt");
    assert!(d.allowed);
    assert_eq!(d.reason, RobotsReason::Off);
    assert_eq!(reason, "robots.txt not consulted (obey_robots = false)");
    let (d, _) = RobotsStatus::DisallowAll {
        why: "connection refused".into(),
    }
    .explain(UA, "/", "u");
    assert_eq!(
        d.reason,
        RobotsReason::Unreachable {
            why: "connection refused".into()
        }
    );
    assert!(!d.allowed);
}

/// The reference for `*` and `$`: a plain recursive matcher, slow but
/// obviously right.
fn reference_match(pattern: &[u8], path: &[u8]) -> bool {
    match pattern {
        [] => true,
        [b'$'] => path.is_empty(),
        [b'*', rest @ ..] => (0..=path.len()).any(|i| reference_match(rest, &path[i..])),
        [c, rest @ ..] => path.first() == Some(c) && reference_match(rest, &path[1..]),
    }
}

proptest! {
    #[test]
    fn random_bytes_never_panic(body in proptest::collection::vec(any::<u8>(), 0..2000),
                                path in "\\PC{0,40}") {
        let robots = Robots::parse(&body);
        let _ = robots.check(UA, &path);
        let _ = robots.crawl_delay(UA);
        prop_assert!(robots.line_count() as usize <= body.len());
    }

    #[test]
    fn random_directives_never_panic(
        lines in proptest::collection::vec(
            "(?i)(user-agent|allow|disallow|crawl-delay|sitemap|x)? ?:? ?[*$/%a-fA-F0-9ツ\\r\\n #.-]{0,12}",
            0..40),
        path in "[/*$%a-f0-9?]{0,20}",
    ) {
        let body = lines.join("\n");
        let robots = Robots::parse(body.as_bytes());
        let d = robots.check(UA, &path);
        let _ = d.describe("f");
        if let Some(line) = d.line() {
            prop_assert!(line >= 1 && line <= robots.line_count());
        }
    }

    #[test]
    fn wildcards_match_like_the_reference(
        pattern in "/[ab*]{0,6}\\$?",
        path in "/[ab]{0,8}",
    ) {
        let compiled = Pattern::compile(&pattern).expect("starts with /");
        prop_assert_eq!(
            compiled.matches(path.as_bytes()),
            reference_match(pattern.as_bytes(), path.as_bytes()),
            "{} on {}", pattern, path
        );
    }

    #[test]
    fn canonical_form_is_stable(input in "[/%a-fA-F0-9ツ ~*$]{0,20}") {
        let once = canonical(input.as_bytes()).into_owned();
        let twice = canonical(&once).into_owned();
        prop_assert_eq!(once, twice);
    }
}

/// The trace's text for every reason, as the console shows it.
#[test]
fn every_reason_is_described() {
    let cases = [
        (
            RobotsReason::Rule {
                line: 3,
                text: "Disallow: /a\u{1b}".into(),
                group: "*".into(),
            },
            r#"robots.txt f line 3 "Disallow: /a\u{1b}" (group *)"#,
        ),
        (
            RobotsReason::NoMatch {
                group: "bot".into(),
            },
            "robots.txt f: no rule matches (group bot)",
        ),
        (
            RobotsReason::NoGroup,
            "robots.txt f: no group for this user agent and no * group",
        ),
        (
            RobotsReason::RobotsTxt,
            "robots.txt f: /robots.txt itself is always allowed",
        ),
        (
            RobotsReason::Unavailable {
                why: "HTTP 404".into(),
            },
            "robots.txt f: HTTP 404, all allowed",
        ),
        (
            RobotsReason::Unreachable {
                why: "HTTP 503".into(),
            },
            "robots.txt f: HTTP 503, all disallowed until retried",
        ),
        (
            RobotsReason::Off,
            "robots.txt not consulted (obey_robots = false)",
        ),
    ];
    for (reason, expected) in cases {
        let decision = RobotsDecision::new(true, reason);
        assert_eq!(decision.describe("f"), expected);
    }
}
