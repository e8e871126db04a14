//! Tests of the demo site against a real server on 127.0.0.1:0, and of
//! `config/demo.toml` against the URLs the site serves.

use super::*;
use crate::rules::dialect::{Dialect, DialectChoice};
use crate::rules::{CompiledRules, Known};
use reqwest::redirect::Policy;
use std::collections::BTreeSet;

/// A client that shows redirects instead of following them.
fn client() -> reqwest::Client {
    // reqwest is built with `rustls-no-provider`: building any client
    // needs a process-wide crypto provider, even for plain http.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .redirect(Policy::none())
        .build()
        .expect("a plain client builds")
}

/// A running site, a client, and the handles to stop it.
async fn running() -> (
    DemoSite,
    reqwest::Client,
    JoinHandle<()>,
    oneshot::Sender<()>,
) {
    let (site, task, stop) = start().await.expect("binds 127.0.0.1:0");
    (site, client(), task, stop)
}

async fn fetch(client: &reqwest::Client, site: &DemoSite, path: &str) -> reqwest::Response {
    client
        .get(site.url(path))
        .send()
        .await
        .unwrap_or_else(|e| panic!("GET {path}: {e}"))
}

fn header<'a>(response: &'a reqwest::Response, name: &str) -> &'a str {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

#[tokio::test]
async fn home_page_is_html_with_the_origin_filled_in() {
    let (site, client, _task, _stop) = running().await;
    let response = fetch(&client, &site, "/").await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        header(&response, "content-type"),
        "text/html; charset=utf-8"
    );
    let body = response.text().await.unwrap();
    assert!(body.contains("<title>crawlspace demo site</title>"));
    assert!(body.contains(&format!("href=\"{}/about.html\"", site.origin())));
    assert!(!body.contains(ORIGIN_PLACEHOLDER));
}

#[tokio::test]
async fn files_are_typed_by_extension() {
    let (site, client, _task, _stop) = running().await;
    let table = [
        ("/images/logo.png", "image/png", &b"\x89PNG\r\n\x1a\n"[..]),
        ("/images/banner.gif", "image/gif", b"GIF89a"),
        ("/docs/manual.pdf", "application/pdf", b"%PDF-1.4"),
        ("/robots.txt", "text/plain; charset=utf-8", b"# robots.txt"),
        ("/sitemap.xml", "application/xml", b"<?xml"),
        ("/style.css", "text/css; charset=utf-8", b"body"),
        ("/docs/", "text/html; charset=utf-8", b"<!DOCTYPE html>"),
    ];
    for (path, media, start) in table {
        let response = fetch(&client, &site, path).await;
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(header(&response, "content-type"), media, "{path}");
        let body = response.bytes().await.unwrap();
        assert!(body.starts_with(start), "{path} starts with {start:?}");
    }
}

#[tokio::test]
async fn robots_txt_and_sitemap_name_the_running_origin() {
    let (site, client, _task, _stop) = running().await;
    let robots = fetch(&client, &site, "/robots.txt")
        .await
        .text()
        .await
        .unwrap();
    assert!(robots.contains(&format!("\nSitemap: {}/sitemap.xml\n", site.origin())));
    assert!(robots.contains("\nDisallow: /tmp/\n"));
    assert!(!robots.contains(ORIGIN_PLACEHOLDER));

    let sitemap = fetch(&client, &site, "/sitemap.xml")
        .await
        .text()
        .await
        .unwrap();
    // The orphan page: linked from nowhere, found through the sitemap only.
    assert!(sitemap.contains(&format!("<loc>{}/docs/orphan.html</loc>", site.origin())));
    assert!(!sitemap.contains(ORIGIN_PLACEHOLDER));
}

#[tokio::test]
async fn calendar_links_to_the_next_and_previous_month_forever() {
    let (site, client, _task, _stop) = running().await;
    let table = [
        (
            "/calendar/2025/06/",
            "/calendar/2025/05/",
            "/calendar/2025/07/",
        ),
        (
            "/calendar/2025/12/",
            "/calendar/2025/11/",
            "/calendar/2026/01/",
        ),
        (
            "/calendar/2025/01/",
            "/calendar/2024/12/",
            "/calendar/2025/02/",
        ),
        (
            "/calendar/7777/07/",
            "/calendar/7777/06/",
            "/calendar/7777/08/",
        ),
    ];
    for (month, prev, next) in table {
        let response = fetch(&client, &site, month).await;
        assert_eq!(response.status(), 200, "{month}");
        let body = response.text().await.unwrap();
        assert!(
            body.contains(&format!("href=\"{prev}\"")),
            "{month} → {prev}"
        );
        assert!(
            body.contains(&format!("href=\"{next}\"")),
            "{month} → {next}"
        );
        assert!(body.contains("href=\"event-1.html\""), "{month} has events");
    }
    let event = fetch(&client, &site, "/calendar/2025/06/event-2.html").await;
    assert_eq!(event.status(), 200);
    // Not canonical or not a month: no page, so the trap has one URL per month.
    for path in [
        "/calendar/2025/13/",
        "/calendar/2025/6/",
        "/calendar/0000/01/",
        "/calendar/2025/06/event-3.html",
    ] {
        assert_eq!(fetch(&client, &site, path).await.status(), 404, "{path}");
    }
}

/// Follows redirects by hand from `path`, at most `limit` hops; returns
/// each (status, location) and where it ended.
async fn hops(
    client: &reqwest::Client,
    site: &DemoSite,
    path: &str,
    limit: usize,
) -> Vec<(u16, String)> {
    let mut out = Vec::new();
    let mut url = site.url(path);
    for _ in 0..limit {
        let response = client.get(&url).send().await.unwrap();
        let status = response.status().as_u16();
        let location = header(&response, "location").to_string();
        out.push((status, location.clone()));
        if !response.status().is_redirection() {
            break;
        }
        url = reqwest::Url::parse(&url)
            .unwrap()
            .join(&location)
            .unwrap()
            .to_string();
    }
    out
}

#[tokio::test]
async fn redirects_move_chain_and_loop() {
    let (site, client, _task, _stop) = running().await;
    let chain = hops(&client, &site, "/chain/1", 10).await;
    let expected = vec![
        (301, "/chain/2".to_string()),
        (302, "/chain/3".to_string()),
        (307, site.url("/chain/4")),
        (308, "/docs/".to_string()),
        (200, String::new()),
    ];
    assert_eq!(chain, expected);

    assert_eq!(
        hops(&client, &site, "/old/", 10).await,
        vec![(301, "/docs/".to_string()), (200, String::new())]
    );
    assert_eq!(
        hops(&client, &site, "/docs", 10).await,
        vec![(301, "/docs/".to_string()), (200, String::new())]
    );
    let round = hops(&client, &site, "/loop/a", 4).await;
    let expected: Vec<_> = ["/loop/b", "/loop/a", "/loop/b", "/loop/a"]
        .iter()
        .map(|l| (302, l.to_string()))
        .collect();
    assert_eq!(round, expected);
}

#[tokio::test]
async fn errors_missing_pages_and_the_slow_page() {
    let (site, client, _task, _stop) = running().await;
    for path in [
        "/missing.html",
        "/docs/nope/",
        "/%1B%5B2Jcleared",
        "/chain/5",
    ] {
        let response = fetch(&client, &site, path).await;
        assert_eq!(response.status(), 404, "{path}");
        assert_eq!(
            header(&response, "content-type"),
            "text/html; charset=utf-8"
        );
        assert!(response.text().await.unwrap().contains("Not found"));
    }
    let response = fetch(&client, &site, "/error/500").await;
    assert_eq!(response.status(), 500);
    assert_eq!(header(&response, "retry-after"), "");
    let response = fetch(&client, &site, "/error/503").await;
    assert_eq!(response.status(), 503);
    assert_eq!(header(&response, "retry-after"), "1");

    let began = std::time::Instant::now();
    assert_eq!(fetch(&client, &site, "/slow").await.status(), 200);
    assert!(began.elapsed() >= SLOW_DELAY);
}

#[tokio::test]
async fn weird_page_keeps_control_characters_in_its_title() {
    let (site, client, _task, _stop) = running().await;
    let body = fetch(&client, &site, "/weird?x=%1B%5B31mred%3Cb%3E")
        .await
        .text()
        .await
        .unwrap();
    assert!(body.contains("<title>Weird: \x1b[31mred&lt;b&gt;</title>"));
    let escapes = fetch(&client, &site, "/links/escapes.html")
        .await
        .text()
        .await
        .unwrap();
    assert!(escapes.contains("\x1b]0;pwned\x07"));
}

#[tokio::test]
async fn etag_answers_conditional_requests_and_x_robots_tag_is_sent() {
    let (site, client, _task, _stop) = running().await;
    let first = fetch(&client, &site, "/docs/").await;
    let etag = header(&first, "etag").to_string();
    assert!(etag.starts_with('"'), "{etag:?}");
    let again = client
        .get(site.url("/docs/"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);

    let tagged = fetch(&client, &site, "/hidden/x-robots-tag.html").await;
    assert_eq!(header(&tagged, "x-robots-tag"), "noindex, nofollow");
    let plain = fetch(&client, &site, "/hidden/nofollowed.html").await;
    assert_eq!(header(&plain, "x-robots-tag"), "");
}

/// Every same-host link on every page answers, except the broken links
/// placed on purpose; this catches generator mistakes.
#[tokio::test]
async fn only_the_intended_links_are_broken() {
    let (site, client, _task, _stop) = running().await;
    let base_url = reqwest::Url::parse(&site.url("/")).unwrap();
    let attr = regex::Regex::new(r#"(?:href|src)="([^"]*)""#).unwrap();
    let base_tag = regex::Regex::new(r#"<base href="([^"]*)""#).unwrap();
    let mut targets = BTreeSet::new();
    for (key, file) in FILES.iter().filter(|(k, _)| k.ends_with(".html")) {
        let text = file
            .contents_utf8()
            .unwrap()
            .replace(ORIGIN_PLACEHOLDER, &site.origin());
        let page_path = key.strip_suffix("index.html").unwrap_or(key);
        let mut base = base_url.join(page_path).unwrap();
        if let Some(b) = base_tag.captures(&text) {
            base = base.join(&b[1]).unwrap();
        }
        for link in attr.captures_iter(&text) {
            let Ok(url) = base.join(&link[1].replace("&amp;", "&")) else {
                continue;
            };
            if url.origin() == base_url.origin() {
                targets.insert(url[url::Position::BeforePath..].to_string());
            }
        }
    }
    assert!(targets.len() > 300, "{} link targets", targets.len());
    let mut broken = BTreeSet::new();
    for target in &targets {
        if fetch(&client, &site, target).await.status() == 404 {
            broken.insert(target.as_str());
        }
    }
    let mut intended: BTreeSet<String> = [
        "/%1B%5B2Jcleared",
        "/blog/2019/01/lost-post.html",
        "/docs/nope/",
        "/docs/rules/deprecated-syntax.html",
        "/images/missing.png",
        "/missing.html",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for category in ["widgets", "gadgets", "gizmos", "doohickeys", "sprockets"] {
        intended.insert(format!("/products/{category}/item-99.html"));
        // Links the demo rules never fetch (no route serves them).
        for item in 1..=16 {
            intended.insert(format!("/cart/add?item={category}-{item:02}"));
        }
    }
    let intended: BTreeSet<&str> = intended.iter().map(String::as_str).collect();
    assert_eq!(broken, intended);
}

#[tokio::test]
async fn start_stops_when_told_or_when_the_sender_is_dropped() {
    for drop_it in [false, true] {
        let (site, client, task, stop) = running().await;
        // A kept-alive connection must not hold the shutdown up.
        assert_eq!(fetch(&client, &site, "/").await.status(), 200);
        if drop_it {
            drop(stop);
        } else {
            stop.send(()).unwrap();
        }
        tokio::time::timeout(Duration::from_secs(10), task)
            .await
            .expect("the server stops")
            .expect("the server task does not panic");
        assert!(tokio::net::TcpStream::connect(site.addr).await.is_err());
    }
}

#[tokio::test]
async fn serve_returns_after_its_shutdown_signal() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let site = DemoSite {
        addr: listener.local_addr().unwrap(),
    };
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(serve(listener, async {
        stopped.await.unwrap();
    }));
    let client = client();
    assert_eq!(fetch(&client, &site, "/").await.status(), 200);
    stop.send(()).unwrap();
    let result = tokio::time::timeout(Duration::from_secs(10), server)
        .await
        .expect("serve returns")
        .expect("no panic");
    assert!(result.is_ok());
}

#[test]
fn months_step_across_years_and_stop_at_the_ends() {
    let m = |year, month| Month { year, month };
    assert_eq!(m(2025, 12).next(), Some(m(2026, 1)));
    assert_eq!(m(2025, 1).prev(), Some(m(2024, 12)));
    assert_eq!(m(9999, 12).next(), None);
    assert_eq!(m(1, 1).prev(), None);
    assert_eq!(Month::parse("2025", "06"), Some(m(2025, 6)));
    assert_eq!(m(2025, 6).path(), "/calendar/2025/06/");
    for (y, mo) in [
        ("2025", "6"),
        ("25", "06"),
        ("2025", "00"),
        ("0000", "01"),
        ("２０２５", "06"),
    ] {
        assert_eq!(Month::parse(y, mo), None, "{y}/{mo}");
    }
}

/// How a verdict reads in the table below: the queue (which says fetch, save
/// and follow), then `filtered`, a priority other than normal, `unlogged`.
fn summary(v: &crate::rules::Verdict) -> String {
    let mut out = v.queue().name().to_string();
    if v.filtered {
        out += " filtered";
    }
    match v.priority {
        -2 => out += " highest",
        -1 => out += " high",
        0 => {}
        1 => out += " low",
        _ => out += " lowest",
    }
    if !v.log {
        out += " unlogged";
    }
    out
}

/// config/demo.toml parses, every rule compiles, lint has nothing to say,
/// and the rules decide the demo URLs as the file's comments promise.
#[test]
fn demo_rules_decide_the_demo_urls() {
    let text = include_str!("../../config/demo.toml");
    let config = crate::config::Config::from_toml("config/demo.toml", text).unwrap();
    assert!(
        config.crawl.start.is_empty(),
        "the demo command adds the start URL"
    );
    let native = DialectChoice::Given(Dialect::Native);
    let loaded = crate::rules::dialect::parse_text("config/demo.toml", text, native).unwrap();
    let lints = crate::rules::lint::lint_rules(&loaded.parsed.rules);
    assert!(lints.is_empty(), "{lints:?}");
    let rules = CompiledRules::new(&loaded.parsed.rules);
    let disabled: Vec<_> = rules.disabled().map(|r| r.name.as_str()).collect();
    assert_eq!(
        disabled,
        ["temporary files (off: robots.txt already keeps them out)"]
    );

    // Any port: the rules never look at it.
    let o = "http://127.0.0.1:1234";
    let table = [
        ("/", "text/html", "index_follow"),
        ("/docs/", "text/html", "follow high"),
        ("/docs/rules/filters.html", "text/html", "index_follow high"),
        ("/docs/manual.pdf", "application/pdf", "index high"),
        ("/blog/", "text/html", "follow"),
        ("/blog/page/3.html", "text/html", "follow"),
        ("/blog/2022/03/x-1.html", "text/html", "index_follow"),
        ("/blog/archive/2022/", "text/html", "follow lowest"),
        ("/products/?sort=price", "text/html", "follow low"),
        ("/products/widgets/", "text/html", "follow"),
        ("/products/widgets/item-01.html", "text/html", "index"),
        ("/images/logo.png", "image/png", "index low"),
        ("/style.css", "text/css", "index"),
        ("/private/salaries.html", "text/html", "none"),
        ("/calendar/2025/06/", "text/html", "index_follow"),
        ("/calendar/2027/01/", "text/html", "none filtered"),
        ("/calendar/2023/12/", "text/html", "none filtered"),
        ("/weird?x=%1B%5B31mred", "text/html", "index_follow"),
        ("http://external.invalid/", "text/html", "none filtered"),
        (
            "/cart/add?item=gadgets-03",
            "text/html",
            "none filtered unlogged",
        ),
        // Off the host too: the host rule's filter keeps a record, and
        // the cart rule's `stop` comes after it.
        (
            "http://external.invalid/cart/add?item=x",
            "text/html",
            "none filtered",
        ),
    ];
    for (url, media, expected) in table {
        let url = if url.starts_with('/') {
            format!("{o}{url}")
        } else {
            url.to_string()
        };
        let known = Known {
            address: Some(std::net::Ipv4Addr::LOCALHOST.into()),
            ..Known::default()
        }
        .with_content_type(media);
        let (_, verdict) = rules.verdict(&url, &known).unwrap();
        assert_eq!(summary(&verdict), expected, "{url}");
        assert!(verdict.pending.is_empty(), "{url}");
    }

    let (_, manual) = rules
        .verdict(&format!("{o}/docs/manual.pdf"), &Known::default())
        .unwrap();
    assert_eq!(manual.source.as_deref(), Some("demo manual"));
    assert!(
        manual
            .meta
            .contains(&("kind".to_string(), "manual".to_string()))
    );
    // Before DNS and headers, the address and content-type rules wait.
    assert_eq!(manual.pending.names(), ["address", "content_type"]);

    // Far from the start a blog post waits its turn; the docs stay first.
    let far = Known {
        link_depth: 12,
        ..Known::default()
    };
    let priority = |path: &str| {
        rules
            .verdict(&format!("{o}{path}"), &far)
            .unwrap()
            .1
            .priority
    };
    assert_eq!(priority("/blog/2022/03/x-1.html"), 1);
    assert_eq!(priority("/docs/rules/"), -1);
}
