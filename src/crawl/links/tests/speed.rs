//! Extraction speed, the scanner against the lol_html extraction it
//! replaced, in the same run:
//!
//! ```sh
//! cargo test --release --lib crawl::links -- --ignored --nocapture measure_speed
//! CRAWLSPACE_HTML_DIR=~/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html \
//!   cargo test --release --lib crawl::links -- --ignored --nocapture measure_speed
//! ```

use std::time::Instant;

use super::*;

/// A generated ~500 KB page: cards with a heading, text, a link (every
/// fifth nofollow) and an image; one link per ~200 bytes.
fn cards() -> String {
    let mut html = String::from("<!DOCTYPE html><html><head><title>Speed</title>");
    html.push_str("<meta name=robots content=\"index,follow\">");
    html.push_str(
        "<link rel=stylesheet href=\"/s.css\"><script src=\"/j.js\"></script></head><body>",
    );
    let mut i = 0;
    while html.len() < 500_000 {
        html.push_str(&format!(
            "<div class=\"card\"><h2>Heading {i}</h2><p>Some text about item {i}, with \
             <em>emphasis</em> and a <a href=\"/cat/{}/item-{i}.html?ref=home&amp;p=2\" \
             rel=\"{}\">link</a>.</p><img src=\"/img/{i}.jpg\" alt=\"\"></div>\n",
            i % 17,
            if i % 5 == 0 { "nofollow" } else { "bookmark" },
        ));
        i += 1;
    }
    html
}

/// A page of `examples/crawl_bench.rs`: 12 links, padded to ~28 KB.
fn bench_page() -> String {
    let n = 123;
    let mut body = format!("<html><head><title>Page {n}</title></head><body><h1>Page {n}</h1>\n");
    for child in (10 * n + 1..=10 * n + 10).chain([(n * 7919) % 20_000, n + 1]) {
        body.push_str(&format!("<p><a href=\"/p/{child}\">page {child}</a></p>\n"));
    }
    while body.len() < 28_000 {
        body.push_str(
            "<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>\n",
        );
    }
    body.push_str("</body></html>");
    body
}

/// MB/s of `run` over `pages`, best of three timed rounds of at least
/// `bytes` in all (best, because other work on the machine only slows).
fn speed(pages: &[Vec<u8>], bytes: usize, mut run: impl FnMut(&[u8]) -> usize) -> (f64, usize) {
    let size: usize = pages.iter().map(Vec::len).sum();
    let rounds = bytes.div_ceil(size).max(1);
    let mut best = 0.0f64;
    let mut links = 0;
    for _ in 0..3 {
        let start = Instant::now();
        links = 0;
        for _ in 0..rounds {
            for page in pages {
                links += run(page);
            }
        }
        let mb = (size * rounds) as f64 / 1e6;
        best = best.max(mb / start.elapsed().as_secs_f64());
    }
    (best, links / rounds)
}

#[test]
#[ignore = "a measurement, not a check"]
fn measure_speed() {
    let cards = cards();
    // The worst case for the excerpt: no visible text, so it reads up to
    // its window instead of stopping after the first few hundred bytes.
    let hidden = cards.replacen("<body>", "<body><!--noindex-->", 1);
    let untitled_hidden = bench_page()
        .replacen("<title>Page 123</title>", "", 1)
        .replacen("<body>", "<body><!--noindex-->", 1);
    let mut cases: Vec<(String, Vec<Vec<u8>>, bool)> = vec![
        (
            "crawl_bench page (28 KB)".into(),
            vec![bench_page().into_bytes()],
            false,
        ),
        // Saving a page reads every tag, for `style` attributes.
        (
            "crawl_bench page, resources".into(),
            vec![bench_page().into_bytes()],
            true,
        ),
        // The scanner's worst case: no title and no visible text, so it
        // keeps the open elements and reads text to the end.
        (
            "crawl_bench page, no title, all in noindex".into(),
            vec![untitled_hidden.into_bytes()],
            false,
        ),
        (
            "cards (500 KB)".into(),
            vec![cards.clone().into_bytes()],
            false,
        ),
        ("cards, resources".into(), vec![cards.into_bytes()], true),
        (
            "cards, all in noindex".into(),
            vec![hidden.into_bytes()],
            false,
        ),
    ];
    if let Ok(dir) = std::env::var("CRAWLSPACE_HTML_DIR") {
        let files = differential::html_files(std::path::Path::new(&dir), 400);
        let pages: Vec<Vec<u8>> = files.iter().filter_map(|f| std::fs::read(f).ok()).collect();
        let mb = pages.iter().map(Vec::len).sum::<usize>() as f64 / 1e6;
        cases.push((
            format!("{} real pages ({mb:.1} MB)", pages.len()),
            pages,
            false,
        ));
    }
    let url = page_url();
    println!("| page | links/page | lol_html (before) MB/s | scanner MB/s | speed-up |");
    println!("|---|---:|---:|---:|---:|");
    for (name, pages, resources) in &cases {
        let options = LinkOptions {
            resources: *resources,
            max_links: 100_000,
        };
        let new = |html: &[u8]| extract(html, &url, &options, "crawlspace").links.len();
        let old = |html: &[u8]| {
            reference::extract(html, &url, &options, "crawlspace")
                .links
                .len()
        };
        let (old_speed, old_links) = speed(pages, 50 << 20, old);
        let (new_speed, new_links) = speed(pages, 200 << 20, new);
        assert_eq!(old_links, new_links, "{name}");
        println!(
            "| {name} | {} | {old_speed:.0} | {new_speed:.0} | {:.1}x |",
            new_links / pages.len(),
            new_speed / old_speed
        );
    }
}

/// Extracts one page `CRAWLSPACE_ROUNDS` times (default 100), for
/// instruction counts: run it under callgrind or cachegrind with two
/// different counts and divide the difference, so that start-up cancels.
/// `CRAWLSPACE_PAGE` picks the page: `bench` (the default), `untitled`
/// (the bench page with no title, all in noindex), `cards`, `hidden`
/// (cards, all in noindex), or a file's path.
#[test]
#[ignore = "a measurement, not a check"]
fn count_page() {
    let rounds: usize = std::env::var("CRAWLSPACE_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(100);
    let which = std::env::var("CRAWLSPACE_PAGE").unwrap_or_default();
    let page = match which.as_str() {
        "" | "bench" => bench_page(),
        "untitled" => bench_page()
            .replacen("<title>Page 123</title>", "", 1)
            .replacen("<body>", "<body><!--noindex-->", 1),
        "cards" => cards(),
        "hidden" => cards().replacen("<body>", "<body><!--noindex-->", 1),
        path => String::from_utf8_lossy(&std::fs::read(path).expect("a page")).into_owned(),
    }
    .into_bytes();
    let url = page_url();
    let options = LinkOptions {
        resources: false,
        max_links: 100_000,
    };
    for _ in 0..rounds {
        let page = extract(std::hint::black_box(&page), &url, &options, "crawlspace");
        std::hint::black_box(page);
    }
}
