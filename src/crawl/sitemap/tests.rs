use std::collections::HashMap;
use std::io::Write;

use flate2::Compression;
use flate2::write::GzEncoder;
use proptest::prelude::*;

use super::synth::{HEADER, SyntheticSitemap};
use super::*;

fn parse(input: &[u8]) -> (Vec<SitemapEntry>, SitemapReport) {
    let mut entries = Vec::new();
    let report = parse_sitemap(input, |e| entries.push(e));
    (entries, report)
}

fn parse_limited(input: &[u8], limits: SitemapLimits) -> (Vec<SitemapEntry>, SitemapReport) {
    let mut entries = Vec::new();
    let report = parse_sitemap_with(input, &limits, |e| entries.push(e));
    (entries, report)
}

/// One entry as `page URL [lastmod changefreq priority]` or `sitemap URL
/// [lastmod]` (absent fields as `-`).
fn describe(entry: &SitemapEntry) -> String {
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".to_string());
    match entry {
        SitemapEntry::Page {
            url,
            lastmod,
            changefreq,
            priority,
        } => {
            if lastmod.is_none() && changefreq.is_none() && priority.is_none() {
                format!("page {url}")
            } else {
                format!(
                    "page {url} [{} {} {}]",
                    opt(lastmod),
                    opt(changefreq),
                    opt(priority)
                )
            }
        }
        SitemapEntry::Sitemap { url, lastmod } => match lastmod {
            Some(lastmod) => format!("sitemap {url} [{lastmod}]"),
            None => format!("sitemap {url}"),
        },
    }
}

fn summary(entries: &[SitemapEntry]) -> String {
    entries.iter().map(describe).collect::<Vec<_>>().join(" | ")
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

const NS: &str = r#"xmlns="http://www.sitemaps.org/schemas/sitemap/0.9""#;

fn urlset(body: &str) -> String {
    format!(r#"<?xml version="1.0" encoding="UTF-8"?><urlset {NS}>{body}</urlset>"#)
}

fn index(body: &str) -> String {
    format!(r#"<?xml version="1.0" encoding="UTF-8"?><sitemapindex {NS}>{body}</sitemapindex>"#)
}

/// (input, kind, entries, skipped examples joined by ` ; `): files that
/// parse to the end without error.
fn well_formed_cases() -> Vec<(String, SitemapKind, &'static str, &'static str)> {
    use SitemapKind::*;
    vec![
        (
            urlset("<url><loc>http://ex.com/a</loc></url><url><loc>https://ex.com/b</loc></url>"),
            Urlset,
            "page http://ex.com/a | page https://ex.com/b",
            "",
        ),
        (
            urlset(
                "<url><loc>http://ex.com/p</loc><lastmod>2024-05-01</lastmod>\
                 <changefreq>weekly</changefreq><priority> 0.8 </priority></url>",
            ),
            Urlset,
            "page http://ex.com/p [2024-05-01 weekly 0.8]",
            "",
        ),
        (
            index(
                "<sitemap><loc>http://ex.com/s1.xml</loc><lastmod>2024-01-02</lastmod></sitemap>\
                 <sitemap><loc>http://ex.com/s2.xml.gz</loc></sitemap>",
            ),
            Index,
            "sitemap http://ex.com/s1.xml [2024-01-02] | sitemap http://ex.com/s2.xml.gz",
            "",
        ),
        // A namespace prefix on everything.
        (
            r#"<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">
               <sm:url><sm:loc>http://ex.com/pre</sm:loc></sm:url></sm:urlset>"#
                .to_string(),
            Urlset,
            "page http://ex.com/pre",
            "",
        ),
        // Extensions' own `loc`s do not count, at any depth or prefix.
        (
            urlset(
                r#"<url xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
                   <image:loc>http://ex.com/stray.jpg</image:loc>
                   <loc>http://ex.com/page</loc>
                   <image:image><image:loc>http://ex.com/i.jpg</image:loc><loc>http://ex.com/deep</loc></image:image>
                   <xhtml:link rel="alternate" hreflang="de" href="http://ex.com/de"/>
                   </url>"#,
            ),
            Urlset,
            "page http://ex.com/page",
            "",
        ),
        (
            urlset("<url><image:loc>http://ex.com/only-image.jpg</image:loc></url>"),
            Urlset,
            "",
            "(no <loc>)",
        ),
        // Unprefixed entries under a prefixed root are not its entries.
        (
            r#"<sm:urlset xmlns:sm="x"><url><loc>http://ex.com/other-ns</loc></url></sm:urlset>"#
                .to_string(),
            Urlset,
            "",
            "",
        ),
        // Entities, character references, CDATA, a bare `&`.
        (
            urlset(
                "<url><loc>http://ex.com/?a=1&amp;b=2</loc></url>\
                 <url><loc>http://ex.com/?c=1&#38;d=2&#x26;e=3</loc></url>\
                 <url><loc><![CDATA[http://ex.com/cdata?x=1&y=2]]></loc></url>\
                 <url><loc>http://ex.com/q?f=1&g=2</loc></url>\
                 <url><loc>http://ex.com/&lt;&gt;&quot;&apos;</loc></url>\
                 <url><loc>http://ex.com/&nbsp;x</loc></url>",
            ),
            Urlset,
            "page http://ex.com/?a=1&b=2 | page http://ex.com/?c=1&d=2&e=3 \
             | page http://ex.com/cdata?x=1&y=2 | page http://ex.com/q?f=1&g=2 \
             | page http://ex.com/%3C%3E%22' | page http://ex.com/&nbsp;x",
            "",
        ),
        // Whitespace trimmed; the fragment dropped; case-insensitive names.
        (
            urlset(
                "<url><loc>\n   http://ex.com/ws   \n</loc></url>\
                 <url><loc>http://ex.com/f#frag</loc></url>\
                 <URL><LOC>http://ex.com/upper</LOC></URL>",
            ),
            Urlset,
            "page http://ex.com/ws | page http://ex.com/f | page http://ex.com/upper",
            "",
        ),
        // Not absolute http(s): skipped, counted, shown.
        (
            urlset(
                "<url><loc>/relative</loc></url><url><loc>ftp://ex.com/f</loc></url>\
                 <url><loc></loc></url><url><loc/></url><url><loc>http://ex.com/ok</loc></url>",
            ),
            Urlset,
            "page http://ex.com/ok",
            "/relative ; ftp://ex.com/f ; (empty <loc>) ; (empty <loc>)",
        ),
        (
            urlset(
                "<url><lastmod>2020</lastmod></url><url/><url><loc>http://</loc></url>\
                 <url><loc>mailto:a@ex.com</loc></url><url><loc>ex.com/no-scheme</loc></url>",
            ),
            Urlset,
            "",
            "(no <loc>) ; (no <loc>) ; http:// ; mailto:a@ex.com ; ex.com/no-scheme",
        ),
        // The first `loc` counts; the wrong entry kind for the root is ignored.
        (
            urlset(
                "<url><loc>http://ex.com/1</loc><loc>http://ex.com/2</loc></url>\
                 <sitemap><loc>http://ex.com/s.xml</loc></sitemap>",
            ),
            Urlset,
            "page http://ex.com/1",
            "",
        ),
        (
            index(
                "<url><loc>http://ex.com/page</loc></url><sitemap><loc>http://ex.com/s</loc></sitemap>",
            ),
            Index,
            "sitemap http://ex.com/s",
            "",
        ),
        // Duplicates are handed over as found: deduplication is the log's job.
        (
            urlset("<url><loc>http://ex.com/d</loc></url><url><loc>http://ex.com/d</loc></url>"),
            Urlset,
            "page http://ex.com/d | page http://ex.com/d",
            "",
        ),
        // BOM, leading whitespace, comments, DOCTYPE, processing instructions.
        (
            format!(
                "\u{feff}\n\n  <?xml version=\"1.0\"?>\n<!-- generated -->\n<!DOCTYPE urlset>\
                 <?xml-stylesheet href=\"s.xsl\"?>{}",
                urlset("<!-- c --><url><loc>http://ex.com/bom</loc></url>")
                    .trim_start_matches("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
            ),
            Urlset,
            "page http://ex.com/bom",
            "",
        ),
        (urlset(""), Urlset, "", ""),
        (format!("<urlset {NS}/>"), Urlset, "", ""),
        (format!("<sitemapindex {NS}/>"), Index, "", ""),
        // What follows the root is not read.
        (
            format!("{}<url><loc>http://ex.com/after</loc></url><<<", urlset("")),
            Urlset,
            "",
            "",
        ),
        (String::new(), Empty, "", ""),
        (" \n\t \r\n".to_string(), Empty, "", ""),
        ("\u{feff}".to_string(), Empty, "", ""),
        // Plain text: one URL per line, `#` not special.
        (
            "http://ex.com/a\n\nhttps://ex.com/b\r\n   http://ex.com/c   \n# comment\n\
             ftp://ex.com/f\n/rel\nhttp://ex.com/d#frag\nhttp://ex.com/last"
                .to_string(),
            Text,
            "page http://ex.com/a | page https://ex.com/b | page http://ex.com/c \
             | page http://ex.com/d | page http://ex.com/last",
            "# comment ; ftp://ex.com/f ; /rel",
        ),
        (
            "\u{feff}http://ex.com/bom-text\n".to_string(),
            Text,
            "page http://ex.com/bom-text",
            "",
        ),
    ]
}

#[test]
fn well_formed_files() {
    let mut bad = Vec::new();
    for (input, kind, want, skipped) in well_formed_cases() {
        // Plain, gzipped, and read one byte at a time: the same answer.
        for mode in ["plain", "gzip", "bytewise"] {
            let mut entries = Vec::new();
            let report = match mode {
                "plain" => parse_sitemap(input.as_bytes(), |e| entries.push(e)),
                "gzip" => parse_sitemap(gzip(input.as_bytes()).as_slice(), |e| entries.push(e)),
                _ => parse_sitemap(OneByte(input.as_bytes()), |e| entries.push(e)),
            };
            let got = (
                report.kind,
                summary(&entries),
                report.skipped_examples.join(" ; "),
                report.skipped,
                report.entries(),
                report.cap,
                report.error.clone(),
                report.gzip,
            );
            let want = (
                kind,
                want.to_string(),
                skipped.to_string(),
                skipped_count(skipped),
                entries.len(),
                None,
                None,
                mode == "gzip",
            );
            if got != want {
                bad.push(format!(
                    "{mode} {input:?}\n   got: {got:?}\n  want: {want:?}"
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

fn skipped_count(examples: &str) -> usize {
    if examples.is_empty() {
        0
    } else {
        examples.split(" ; ").count()
    }
}

/// A reader that hands out one byte per call, to reach every buffer seam.
struct OneByte<'a>(&'a [u8]);

impl Read for OneByte<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match (self.0.split_first(), buf.first_mut()) {
            (Some((&b, rest)), Some(slot)) => {
                *slot = b;
                self.0 = rest;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

#[test]
fn skipped_examples_are_capped_but_all_counted() {
    let body: String = (0..20)
        .map(|i| format!("<url><loc>relative/{i}</loc></url>"))
        .collect();
    let long = format!("<url><loc>http://ex.com/{}</loc></url>", "x".repeat(10_000));
    let (entries, report) = parse(urlset(&format!("{long}{body}")).as_bytes());
    assert!(entries.is_empty());
    assert_eq!(report.skipped, 21);
    assert_eq!(report.skipped_examples.len(), MAX_SKIPPED_EXAMPLES);
    // A location over 8 KiB is skipped, its example cut to 200 characters.
    let first = &report.skipped_examples[0];
    assert!(first.starts_with("http://ex.com/xxx") && first.ends_with('…'));
    assert_eq!(first.chars().count(), MAX_EXAMPLE_CHARS + 1);
    assert_eq!(report.skipped_examples[1], "relative/0");
    // The same in a text sitemap, and a line that is not UTF-8.
    let text = format!(
        "http://ex.com/{}\nhttp://ex.com/\u{ff}\n",
        "y".repeat(10_000)
    );
    let mut text = text.into_bytes();
    text.extend_from_slice(b"http://ex.com/\xff\xfe\nhttp://ex.com/fine\n");
    let (entries, report) = parse(&text);
    assert_eq!(
        summary(&entries),
        "page http://ex.com/%C3%BF | page http://ex.com/fine"
    );
    assert_eq!(report.skipped, 2);
    assert!(report.skipped_examples[0].ends_with('…'));
    assert_eq!(report.skipped_examples[1], "http://ex.com/\u{fffd}\u{fffd}");
}

/// (input, entries kept, the error as text): the parse stops at the
/// error and keeps what came before.
#[test]
fn malformed_xml_stops_with_its_position() {
    let two = "<url><loc>http://ex.com/1</loc></url><url><loc>http://ex.com/2</loc>";
    let mismatched = urlset(&format!("{two}</urx></urlset>"));
    let at = mismatched.find("</urx>").unwrap();
    let deep = urlset(&format!(
        "<url><loc>http://ex.com/1</loc></url>{}",
        "<a>".repeat(100)
    ));
    let cases: Vec<(String, &str, String)> = vec![
        (
            mismatched.clone(),
            "page http://ex.com/1",
            format!(
                "malformed XML at byte {at}: ill-formed document: expected `</url>`, but `</urx>` was found"
            ),
        ),
        (
            urlset(two).replace("</urlset>", ""),
            "page http://ex.com/1",
            format!(
                "file ends at byte {} inside <urlset>",
                urlset(two).len() - 9
            ),
        ),
        (
            "<html><head><title>Not found</title></head></html>".to_string(),
            "",
            "not a sitemap: the root element is <html>".to_string(),
        ),
        (
            "<!DOCTYPE html>\n<html>".to_string(),
            "",
            "not a sitemap: the root element is <html>".to_string(),
        ),
        (
            r#"<rss version="2.0"><channel></channel></rss>"#.to_string(),
            "",
            "not a sitemap: the root element is <rss>".to_string(),
        ),
        (
            urlset("<url><loc>http://ex.com/1</loc></url><url><loc a=\"1>x</loc></url>"),
            "page http://ex.com/1",
            String::new(),
        ),
        (
            urlset("<url><loc>http://ex.com/1</loc></url></url>"),
            "page http://ex.com/1",
            String::new(),
        ),
        (
            deep.clone(),
            "page http://ex.com/1",
            format!(
                "malformed XML at byte {}: elements nested deeper than 64",
                deep.find("<a>").unwrap() + 64 * 3
            ),
        ),
    ];
    let mut bad = Vec::new();
    for (input, want, error) in cases {
        let (entries, report) = parse(input.as_bytes());
        let got_error = report.error.as_ref().map(ToString::to_string);
        let error_ok = match &got_error {
            Some(e) => error.is_empty() || *e == error,
            None => false,
        };
        if summary(&entries) != want || !error_ok {
            bad.push(format!(
                "{input:?}\n   got: {} / {got_error:?}\n  want: {want} / {error:?}",
                summary(&entries)
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    let (_, report) = parse(mismatched.as_bytes());
    assert!(
        matches!(report.error, Some(SitemapError::Xml { position, .. }) if position == at as u64)
    );
    let (_, report) = parse(b"<html><body>");
    assert_eq!(report.kind, SitemapKind::Other);
}

/// A reader that fails after handing out some bytes.
struct FailsAfter<'a>(&'a [u8]);

impl Read for FailsAfter<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.0.is_empty() {
            return Err(io::Error::new(
                io::ErrorKind::ConnectionReset,
                "connection reset",
            ));
        }
        let n = buf.len().min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn broken_input_keeps_what_was_read() {
    let input =
        urlset("<url><loc>http://ex.com/1</loc></url><url><loc>http://ex.com/2</loc></url>");
    let cut = input.find("<url><loc>http://ex.com/2").unwrap();
    let mut entries = Vec::new();
    let report = parse_sitemap(FailsAfter(&input.as_bytes()[..cut + 3]), |e| {
        entries.push(e)
    });
    assert_eq!(summary(&entries), "page http://ex.com/1");
    assert_eq!(
        report.error,
        Some(SitemapError::Read {
            // Where reading stopped: after the `<ur` that was read.
            position: cut as u64 + 3,
            message: "connection reset".to_string()
        })
    );
    // The same in a text sitemap.
    let mut entries = Vec::new();
    let report = parse_sitemap(FailsAfter(b"http://ex.com/1\nhttp://ex.com/2"), |e| {
        entries.push(e)
    });
    assert_eq!(summary(&entries), "page http://ex.com/1");
    assert!(matches!(
        report.error,
        Some(SitemapError::Read { position: 31, .. })
    ));
    // Failing before the first byte.
    let report = parse_sitemap(FailsAfter(b""), |_| {});
    assert!(matches!(
        report.error,
        Some(SitemapError::Read { position: 0, .. })
    ));

    // A corrupt gzip stream, and a gzip stream cut short.
    let mut corrupt = gzip(input.as_bytes());
    let len = corrupt.len();
    corrupt[12..len - 8].fill(0xff);
    let (entries, report) = parse(&corrupt);
    assert!(report.gzip);
    assert!(entries.is_empty());
    assert!(
        matches!(report.error, Some(SitemapError::Read { .. })),
        "{report:?}"
    );
    let (_, report) = parse(&[0x1f, 0x8b, 0x08]);
    assert!(
        matches!(report.error, Some(SitemapError::Read { .. })),
        "{report:?}"
    );

    let many: String = (0..2_000)
        .map(|i| format!("<url><loc>http://ex.com/{i}</loc></url>"))
        .collect();
    let packed = gzip(urlset(&many).as_bytes());
    let (entries, report) = parse(&packed[..packed.len() / 2]);
    assert!(report.error.is_some(), "{report:?}");
    assert!(!entries.is_empty() && entries.len() < 2_000);
    for (i, entry) in entries.iter().enumerate() {
        assert_eq!(entry.url().path(), format!("/{i}"));
    }
}

/// An index, an index inside it, a gzipped urlset inside that, walked the
/// way the crawler does: children followed up to [`MAX_NESTING`] levels.
#[test]
fn nested_indexes_and_gzipped_children() {
    let mut files: HashMap<&str, Vec<u8>> = HashMap::new();
    files.insert(
        "http://ex.com/sitemap.xml",
        index(
            "<sitemap><loc>http://ex.com/level2.xml</loc></sitemap>\
             <sitemap><loc>http://ex.com/pages.txt.gz</loc></sitemap>",
        )
        .into_bytes(),
    );
    files.insert(
        "http://ex.com/level2.xml",
        gzip(
            index(
                "<sitemap><loc>http://ex.com/level3.xml.gz</loc></sitemap>\
                 <sitemap><loc>http://ex.com/level3-index.xml</loc></sitemap>",
            )
            .as_bytes(),
        ),
    );
    files.insert(
        "http://ex.com/level3.xml.gz",
        gzip(urlset("<url><loc>http://ex.com/deep-page</loc></url>").as_bytes()),
    );
    files.insert(
        "http://ex.com/level3-index.xml",
        index("<sitemap><loc>http://ex.com/level4.xml</loc></sitemap>").into_bytes(),
    );
    files.insert(
        "http://ex.com/level4.xml",
        urlset("<url><loc>http://ex.com/too-deep</loc></url>").into_bytes(),
    );
    files.insert(
        "http://ex.com/pages.txt.gz",
        gzip(b"http://ex.com/t1\nhttp://ex.com/t2\n"),
    );

    let mut pages = Vec::new();
    let mut log = Vec::new();
    let mut todo = vec![("http://ex.com/sitemap.xml".to_string(), 1)];
    while let Some((url, level)) = todo.pop() {
        let mut children = Vec::new();
        let report = parse_sitemap(files[url.as_str()].as_slice(), |entry| match entry {
            SitemapEntry::Page { url, .. } => pages.push(url.to_string()),
            SitemapEntry::Sitemap { url, .. } => children.push(url.to_string()),
        });
        log.push(format!("{url} (level {level}): {report}"));
        for child in children.into_iter().rev() {
            if level < MAX_NESTING {
                todo.push((child, level + 1));
            } else {
                log.push(format!("{child}: not fetched, nesting over {MAX_NESTING}"));
            }
        }
    }
    assert_eq!(
        pages,
        [
            "http://ex.com/deep-page",
            "http://ex.com/t1",
            "http://ex.com/t2"
        ]
    );
    assert_eq!(
        log,
        [
            "http://ex.com/sitemap.xml (level 1): sitemap index: 0 pages, 2 sitemaps",
            "http://ex.com/level2.xml (level 2): sitemap index (gzip): 0 pages, 2 sitemaps",
            "http://ex.com/level3.xml.gz (level 3): urlset (gzip): 1 page",
            "http://ex.com/level3-index.xml (level 3): sitemap index: 0 pages, 1 sitemap",
            "http://ex.com/level4.xml: not fetched, nesting over 3",
            "http://ex.com/pages.txt.gz (level 2): text (gzip): 2 pages",
        ]
    );
}

fn many_urls(n: usize) -> String {
    let body: String = (0..n)
        .map(|i| format!("<url><loc>https://ex.com/p/{i}</loc></url>\n"))
        .collect();
    urlset(&body)
}

#[test]
fn url_cap_stops_the_parse() {
    let (entries, report) = parse(many_urls(MAX_SITEMAP_URLS).as_bytes());
    assert_eq!(
        (entries.len(), report.cap, &report.error),
        (50_000, None, &None)
    );

    let (entries, report) = parse(many_urls(MAX_SITEMAP_URLS + 1_000).as_bytes());
    assert_eq!(entries.len(), MAX_SITEMAP_URLS);
    assert_eq!(report.cap, Some(SitemapCap::Urls));
    assert_eq!(report.error, None);
    assert_eq!(entries[49_999].url().path(), "/p/49999");
    assert!(
        report
            .to_string()
            .ends_with("50000 pages; stopped at the URL cap")
    );

    // Text sitemaps and indexes too; skipped locations do not count.
    let text: String = (0..MAX_SITEMAP_URLS + 5)
        .map(|i| format!("https://ex.com/t/{i}\nnot a url\n"))
        .collect();
    let (entries, report) = parse(text.as_bytes());
    assert_eq!(
        (entries.len(), report.cap),
        (50_000, Some(SitemapCap::Urls))
    );
    assert_eq!(report.skipped, 50_000);
    let small = SitemapLimits {
        max_urls: 2,
        ..SitemapLimits::default()
    };
    let children = index(
        "<sitemap><loc>http://ex.com/1</loc></sitemap><sitemap><loc>bad</loc></sitemap>\
         <sitemap><loc>http://ex.com/2</loc></sitemap><sitemap><loc>http://ex.com/3</loc></sitemap>",
    );
    let (entries, report) = parse_limited(children.as_bytes(), small);
    assert_eq!(
        summary(&entries),
        "sitemap http://ex.com/1 | sitemap http://ex.com/2"
    );
    assert_eq!((report.cap, report.skipped), (Some(SitemapCap::Urls), 1));
}

#[test]
fn byte_cap_stops_a_long_sitemap() {
    // 45,000 entries of 1,300 bytes: ~56 MiB, under the URL cap.
    let entry_len = 1_300;
    let lazy = SyntheticSitemap::new(45_000, entry_len);
    assert!(lazy.total_bytes() > MAX_SITEMAP_BYTES);
    let mut count = 0;
    let mut last = String::new();
    let report = parse_sitemap(lazy, |e| {
        count += 1;
        last = e.url().path().to_string();
    });
    let fit = (MAX_SITEMAP_BYTES as usize - HEADER.len()) / entry_len;
    assert_eq!(count, fit, "every entry that ends within the cap, no more");
    assert_eq!(last, format!("/catalogue/item-{:010}.html", fit - 1));
    assert_eq!(report.cap, Some(SitemapCap::Bytes));
    assert_eq!(report.error, None);
    assert_eq!(report.bytes, MAX_SITEMAP_BYTES);
    assert!(report.to_string().ends_with("stopped at the size cap"));

    // Exactly at the cap is not over it.
    let limits = SitemapLimits {
        max_bytes: SyntheticSitemap::new(10, 500).total_bytes(),
        ..SitemapLimits::default()
    };
    let report = parse_sitemap_with(SyntheticSitemap::new(10, 500), &limits, |_| {});
    assert_eq!((report.pages, report.cap, report.error), (10, None, None));
    let limits = SitemapLimits {
        max_bytes: limits.max_bytes - 2,
        ..limits
    };
    let report = parse_sitemap_with(SyntheticSitemap::new(10, 500), &limits, |_| {});
    assert_eq!(
        (report.pages, report.cap, report.error),
        (10, Some(SitemapCap::Bytes), None)
    );
    // A text sitemap cut by the cap drops its cut last line.
    let limits = SitemapLimits {
        max_bytes: 30,
        ..SitemapLimits::default()
    };
    let (entries, report) = parse_limited(b"http://ex.com/one\nhttp://ex.com/two\n", limits);
    assert_eq!(summary(&entries), "page http://ex.com/one");
    assert_eq!(report.cap, Some(SitemapCap::Bytes));
}

/// Compressed `chunk` repeated `times` as concatenated gzip members: a
/// small file that inflates to `times * chunk.len()` bytes.
fn gzip_members(chunk: &[u8], times: usize) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(chunk).unwrap();
    let member = encoder.finish().unwrap();
    member.repeat(times)
}

#[test]
fn gzip_bomb_stops_at_the_byte_cap() {
    // Three entries, then 60 MiB of comment padding, then two more.
    let head = urlset(
        "<url><loc>http://ex.com/1</loc></url><url><loc>http://ex.com/2</loc></url>\
         <url><loc>http://ex.com/3</loc></url>",
    )
    .replace("</urlset>", "");
    let padding = "<!-- padding padding padding padding padding padding -->\n".repeat(19_000);
    assert!(padding.len() > 1 << 20);
    let mut bomb = gzip(head.as_bytes());
    let times = (60 << 20) / padding.len() + 1;
    bomb.extend(gzip_members(padding.as_bytes(), times));
    bomb.extend(gzip(b"<url><loc>http://ex.com/never</loc></url></urlset>"));
    assert!(bomb.len() < 200_000, "a {} byte bomb", bomb.len());
    let (entries, report) = parse(&bomb);
    assert_eq!(
        summary(&entries),
        "page http://ex.com/1 | page http://ex.com/2 | page http://ex.com/3"
    );
    assert!(report.gzip);
    assert_eq!(report.cap, Some(SitemapCap::Bytes));
    assert_eq!(report.error, None);
    assert_eq!(report.bytes, MAX_SITEMAP_BYTES);
}

#[test]
fn one_huge_item_stops_early() {
    // 60 MiB of whitespace between two tags, one 2 MiB comment, one 2 MiB
    // location: each stops once the item passes 1 MiB, long before the
    // byte cap, so the parser never buffers more than about that.
    let first = "<url><loc>http://ex.com/1</loc></url>";
    let spaces = {
        let mut bomb = gzip(urlset(first).replace("</urlset>", "").as_bytes());
        bomb.extend(gzip_members(" ".repeat(1 << 20).as_bytes(), 60));
        bomb
    };
    let comment = urlset(&format!("{first}<!--{}-->", "c".repeat(2 << 20)));
    let loc = urlset(&format!(
        "{first}<url><loc>http://ex.com/{}</loc></url>",
        "l".repeat(2 << 20)
    ));
    let start = urlset(&first.replace("<url>", &format!("<url a=\"{}\">", "v".repeat(2 << 20))));
    for (name, input) in [
        ("spaces", spaces),
        ("comment", comment.into_bytes()),
        ("loc", loc.into_bytes()),
        ("start tag", start.into_bytes()),
    ] {
        let (entries, report) = parse(&input);
        let want = if name == "start tag" {
            ""
        } else {
            "page http://ex.com/1"
        };
        assert_eq!(summary(&entries), want, "{name}");
        assert!(
            matches!(
                report.error,
                Some(SitemapError::ItemTooLarge {
                    max: MAX_ITEM_BYTES,
                    ..
                })
            ),
            "{name}: {report:?}"
        );
        assert!(
            report.bytes < MAX_ITEM_BYTES + 2 * BUFFER as u64,
            "{name}: {report:?}"
        );
    }
    // Just under the item limit is fine.
    let comment = urlset(&format!(
        "<!--{}--><url><loc>http://ex.com/ok</loc></url>",
        "c".repeat(900 << 10)
    ));
    let (entries, report) = parse(comment.as_bytes());
    assert_eq!(
        (summary(&entries), report.error),
        ("page http://ex.com/ok".to_string(), None)
    );
}

#[test]
fn report_line() {
    let (_, report) =
        parse(urlset("<url><loc>http://ex.com/a</loc></url><url><loc>/rel</loc></url>").as_bytes());
    assert_eq!(
        report.to_string(),
        "urlset: 1 page, 1 skipped (e.g. \"/rel\")"
    );
    let cut = b"<urlset><url><loc>http://ex.com/a</loc></url>";
    let (_, report) = parse(cut);
    assert_eq!(
        report.to_string(),
        format!(
            "urlset: 1 page; file ends at byte {} inside <urlset>",
            cut.len()
        )
    );
    let (_, report) = parse(b"<feed/>");
    assert_eq!(
        report.to_string(),
        "other XML: 0 pages; not a sitemap: the root element is <feed>"
    );
}

/// Pieces that reach the interesting parser states far more often than
/// random bytes do.
const PIECES: &[&[u8]] = &[
    b"<urlset>",
    b"</urlset>",
    b"<sitemapindex>",
    b"</sitemapindex>",
    b"<url>",
    b"</url>",
    b"<sitemap>",
    b"</sitemap>",
    b"<loc>",
    b"</loc>",
    b"<lastmod>",
    b"</lastmod>",
    b"<sm:loc>",
    b"<image:loc>",
    b"http://ex.com/",
    b"https://",
    b"&amp;",
    b"&#x",
    b"&#",
    b"&",
    b";",
    b"<![CDATA[",
    b"]]>",
    b"<!--",
    b"-->",
    b"<?xml ?>",
    b"<!DOCTYPE x>",
    b"<",
    b">",
    b"/>",
    b"\"",
    b"'",
    b"=",
    b" ",
    b"\n",
    b"\r",
    b"\0",
    b"\xff",
    b"\xef\xbb\xbf",
    b"\x1f\x8b",
    b"#",
    b"a",
];

fn check_invariants(input: &[u8]) {
    let limits = SitemapLimits {
        max_urls: 20,
        max_bytes: 4_000,
        max_item_bytes: 1_000,
    };
    let mut entries = Vec::new();
    let report = parse_sitemap_with(input, &limits, |e| entries.push(e));
    assert_eq!(report.entries(), entries.len());
    assert!(entries.len() <= limits.max_urls);
    assert!(report.skipped_examples.len() <= MAX_SKIPPED_EXAMPLES);
    assert!(report.bytes <= limits.max_bytes);
    for entry in &entries {
        assert!(matches!(entry.url().scheme(), "http" | "https"));
        assert_eq!(entry.url().fragment(), None);
    }
    // The gzipped input gives the same entries.
    let mut again = Vec::new();
    let packed = parse_sitemap_with(gzip(input).as_slice(), &limits, |e| again.push(e));
    if !input.starts_with(&GZIP_MAGIC) {
        assert_eq!(again, entries);
        assert_eq!(packed.kind, report.kind);
    }
}

proptest! {
    #[test]
    fn random_bytes_never_panic(input in proptest::collection::vec(any::<u8>(), 0..600)) {
        check_invariants(&input);
    }

    #[test]
    fn random_pieces_never_panic(
        picks in proptest::collection::vec(0..PIECES.len(), 0..300),
        with_root in any::<bool>(),
    ) {
        let mut input: Vec<u8> = Vec::new();
        if with_root {
            input.extend_from_slice(b"<urlset><url><loc>");
        }
        for pick in picks {
            input.extend_from_slice(PIECES[pick]);
        }
        check_invariants(&input);
    }
}

#[test]
fn synthetic_sitemap_sizes_are_exact() {
    for (entries, entry_len) in [
        (0, 0),
        (1, 0),
        (3, 500),
        (2, SyntheticSitemap::MIN_ENTRY_LEN),
    ] {
        let synthetic = SyntheticSitemap::new(entries, entry_len);
        let want = synthetic.total_bytes();
        let mut bytes = Vec::new();
        let mut reader = SyntheticSitemap::new(entries, entry_len);
        reader.read_to_end(&mut bytes).unwrap();
        assert_eq!(bytes.len() as u64, want, "{entries} × {entry_len}");
        let (found, report) = parse(&bytes);
        assert_eq!((found.len(), report.error), (entries, None));
    }
}

/// Plain text none of whose lines is a URL is not a sitemap: binary data
/// served as one, a list of relative paths. One URL among other lines is.
#[test]
fn text_without_a_url_line_is_not_a_sitemap() {
    let binary: Vec<u8> = (0..5_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .filter(|&b| b != b'<' && !b.is_ascii_whitespace())
        .collect();
    let (entries, report) = parse(&binary);
    assert!(entries.is_empty());
    assert!(
        matches!(report.error, Some(SitemapError::NoUrlLine { lines }) if lines == report.skipped),
        "{report:?}"
    );
    // Its log line says so, without a line of the binary as an example.
    assert_eq!(
        report.to_string(),
        format!(
            "text: 0 pages, {} skipped; not a sitemap: none of its {0} non-blank lines is an \
             absolute http(s) URL",
            report.skipped
        )
    );
    // An example cut short otherwise.
    let long = format!("/{}\nhttp://ex.com/b\n", "x".repeat(500));
    let (_, report) = parse(long.as_bytes());
    let said = report.to_string();
    assert!(
        said.contains(&format!("(e.g. \"/{}…\")", "x".repeat(78))),
        "{said}"
    );
    let (_, report) = parse(b"/a.html\n/b.html\n");
    assert_eq!(
        report.error.map(|e| e.to_string()).as_deref(),
        Some("not a sitemap: none of its 2 non-blank lines is an absolute http(s) URL")
    );
    let (entries, report) = parse(b"/a.html\nhttp://ex.com/b\n");
    assert_eq!(summary(&entries), "page http://ex.com/b");
    assert_eq!(report.error, None);
}
