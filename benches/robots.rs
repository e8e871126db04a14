//! The robots.txt benchmark ([`crawlspace::crawl::robots`]):
//!
//! - `parse/500KiB`: [`Robots::parse`] of a generated body just under the
//!   500 KiB limit (groups of literal and wildcard rules, comments, sitemaps);
//! - `check/50_rules`: one path decided against a realistic robots.txt of
//!   about 50 rules, from the selected view ([`Robots::for_agent`] once, then
//!   [`AgentRules::check`]) and through [`Robots::check`] (agent selection
//!   included), over a mix of paths allowed and disallowed, literal and
//!   percent-encoded.
//!
//! `cargo bench --bench robots`.

use std::hint::black_box;
use std::time::Duration;

use crawlspace::crawl::robots::{PARSE_LIMIT, Robots};
use criterion::{Criterion, Throughput};

const UA: &str = "crawlspace/0.1";

/// A robots.txt in the shape of a large site's: 50 rules in the `*`
/// group, which is the one that applies to crawlspace.
const REALISTIC: &str = "\
# robots.txt for www.example.com
User-agent: *
Disallow: /search
Disallow: /cgi-bin/
Disallow: /admin/
Disallow: /account/
Disallow: /cart
Disallow: /checkout/
Disallow: /login
Disallow: /logout
Disallow: /register
Disallow: /api/
Allow: /api/public/
Disallow: /tmp/
Disallow: /private/
Allow: /private/press/
Disallow: /*?sort=
Disallow: /*?filter=
Disallow: /*&sessionid=
Disallow: /*.pdf$
Disallow: /*.doc$
Disallow: /*.xls$
Disallow: /print/
Disallow: /share/
Disallow: /compare/
Disallow: /wishlist/
Disallow: /preview/
Disallow: /drafts/
Allow: /drafts/published/
Disallow: /internal/
Disallow: /staging/
Disallow: /test/
Disallow: /beta/
Disallow: /calendar/*/*/*/
Disallow: /tag/*/page/
Disallow: /feeds/
Allow: /feeds/main.xml$
Disallow: /%7Euser/
Disallow: /archive/19
Disallow: /archive/200
Disallow: /gallery/*/slideshow
Disallow: /*/comments/feed/
Disallow: /*/trackback/
Disallow: /wp-admin/
Allow: /wp-admin/admin-ajax.php
Disallow: /xmlrpc.php
Disallow: /newsletter/unsubscribe
Disallow: /out/
Disallow: /redirect
Disallow: /*?utm_
Disallow: /*?ref=
Disallow: /assets/private/
Crawl-delay: 1

User-agent: otherbot
Disallow: /

Sitemap: https://www.example.com/sitemap.xml
";

/// Paths a crawler of such a site would ask about.
const PATHS: &[&str] = &[
    "/",
    "/products/shoes/red-runner-42.html",
    "/search?q=shoes",
    "/private/press/2024/launch.html",
    "/private/hr/salaries.xlsx",
    "/docs/manual.pdf",
    "/docs/manual.pdf?download=1",
    "/catalog/shoes?sort=price&page=2",
    "/calendar/2024/05/17/",
    "/blog/2024/05/robots-txt-explained",
    "/%7Euser/notes",
    "/archive/1999/index.html",
];

/// A body just under the parse limit: many groups of literal and
/// wildcard rules with comments and sitemaps between them.
fn big_robots() -> Vec<u8> {
    let mut body = String::with_capacity(PARSE_LIMIT);
    let mut group = 0;
    while body.len() < PARSE_LIMIT - 2_000 {
        body.push_str(&format!("# group {group}\nUser-agent: bot{group}\n"));
        if group % 10 == 0 {
            body.push_str("User-agent: *\n");
        }
        for rule in 0..20 {
            let line = match rule % 5 {
                0 => format!("Disallow: /section{group}/page{rule}/\n"),
                1 => format!("Allow: /section{group}/page{rule}/public/\n"),
                2 => format!("Disallow: /*/item{rule}?session=*&g={group}\n"),
                3 => format!("Disallow: /files/{group}/*.pdf$\n"),
                _ => format!("Disallow: /caf%C3%A9/{group}/%7Emenu{rule}\n"),
            };
            body.push_str(&line);
        }
        body.push_str(&format!(
            "Crawl-delay: 0.5\nSitemap: https://example.com/sitemap-{group}.xml\n\n"
        ));
        group += 1;
    }
    body.into_bytes()
}

fn main() {
    let mut c = Criterion::default()
        .sample_size(20)
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1))
        .configure_from_args();

    let big = big_robots();
    let parsed = Robots::parse(&big);
    assert!(!parsed.truncated(), "the generated body fits the limit");
    assert_eq!(parsed.ignored_lines(), 0);
    eprintln!(
        "parse: {} bytes, {} lines, {} sitemaps",
        big.len(),
        parsed.line_count(),
        parsed.sitemaps().len()
    );
    let mut group = c.benchmark_group("parse");
    group.throughput(Throughput::Bytes(big.len() as u64));
    group.bench_function("500KiB", |b| b.iter(|| Robots::parse(black_box(&big))));
    group.finish();

    let robots = Robots::parse(REALISTIC.as_bytes());
    let agent = robots.for_agent(UA);
    let disallowed = PATHS.iter().filter(|p| !agent.check(p).allowed).count();
    eprintln!(
        "check: {} paths, {disallowed} disallowed, group {:?}",
        PATHS.len(),
        agent.group()
    );
    assert!(disallowed > 0 && disallowed < PATHS.len());
    let mut group = c.benchmark_group("check");
    group.throughput(Throughput::Elements(PATHS.len() as u64));
    group.bench_function("50_rules_selected", |b| {
        b.iter(|| {
            PATHS
                .iter()
                .filter(|p| agent.check(black_box(p)).allowed)
                .count()
        })
    });
    group.bench_function("50_rules_with_agent_lookup", |b| {
        b.iter(|| {
            PATHS
                .iter()
                .filter(|p| robots.check(black_box(UA), black_box(p)).allowed)
                .count()
        })
    });
    group.finish();
    c.final_summary();
}
