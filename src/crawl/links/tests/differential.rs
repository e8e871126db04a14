//! The scanner against the lol_html extraction it replaced (module
//! `reference`): the same [`Page`] on random HTML-ish input, on the demo
//! site, and (when `CRAWLSPACE_HTML_DIR` names a folder) on real pages.

use super::*;

/// Everything extraction produces, for comparing two extractions.
fn full_summary(page: &Page) -> String {
    format!(
        "links: {}\nrobots: {:?}\ntitle: {:?}\ntruncated: {} bad: {}\nexcerpt: {:?} regions: {}",
        summary(page),
        robots_summary(&page.robots),
        page.title,
        page.truncated_links,
        page.bad_urls,
        page.excerpt,
        page.noindex_regions
    )
}

/// Whether `html` has `=` then `>` (whitespace between allowed) after a
/// `<` and the name of an element whose content is raw text or RCDATA,
/// with no `>` between: an attribute with a missing value ending such a
/// start tag. (Any such `<` since the last `>` counts, since attribute
/// names may hold `<`; one in a comment or a quoted value only leaves a
/// page out needlessly.)
fn has_missing_value_end(html: &[u8]) -> bool {
    const RAW: [&[u8]; 9] = [
        b"title",
        b"textarea",
        b"style",
        b"script",
        b"xmp",
        b"iframe",
        b"noembed",
        b"noframes",
        b"noscript",
    ];
    let raw_tag_at = |open: usize| {
        let name: Vec<u8> = html[open + 1..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric())
            .map(u8::to_ascii_lowercase)
            .collect();
        RAW.contains(&name.as_slice())
    };
    html.iter().enumerate().any(|(i, &b)| {
        let ends_tag = b == b'='
            && html[i + 1..]
                .iter()
                .find(|c| !c.is_ascii_whitespace())
                .is_some_and(|&c| c == b'>');
        let since = html[..i]
            .iter()
            .rposition(|&c| c == b'>')
            .map_or(0, |p| p + 1);
        ends_tag && (since..i).any(|p| html[p] == b'<' && raw_tag_at(p))
    })
}

/// Runs the scanner and the lol_html extraction it replaced on `html`;
/// `Some(report)` when they differ, `None` also when the page is one where
/// they are known to differ on purpose.
///
/// That is a start tag ending in `name=>`, as in `<title a=>` or `<style
/// a=>`: browsers (and the scanner) read the raw text that follows such a
/// tag as they would after `<title>`, while lol_html's full lexer goes on
/// in the data state, taking the text for markup (its faster tag scanner,
/// used when no handler needs text, does as browsers do). So those pages
/// are left out.
pub(super) fn differs(html: &[u8], options: &LinkOptions) -> Option<String> {
    if has_missing_value_end(html) {
        return None;
    }
    let url = page_url();
    let new = full_summary(&extract(html, &url, options, "crawlspace"));
    let old = full_summary(&reference::extract(html, &url, options, "crawlspace"));
    (new != old).then(|| {
        format!(
            "html: {:?}\n  new: {new}\n  old: {old}",
            String::from_utf8_lossy(html)
        )
    })
}

/// Pieces of HTML that reach the tokenizer states links depend on.
#[rustfmt::skip]
const DIFF_PIECES: &[&str] = &[
    "<a", "<A", "<area", "<link", "<frame", "<iframe", "<img", "<script", "<base", "<meta",
    "<title", "<svg", "<math", "<style", "<textarea", "<template", "<p", "<div", "<br", "<font",
    "<desc", "<foreignObject", "<mi", "<annotation-xml", "<noscript", "<xmp", "<b", "<li",
    "</a>", "</script>", "</title>", "</svg>", "</p>", "</style>", "</textarea>", "</template>",
    "</div>", "</math>", "</foreignObject>", "</mi>", "</script ", "</SCRIPT>", "</li>",
    " href=", " HREF=", " src=", " rel=nofollow", " rel=\"stylesheet\"", " name=robots",
    " content=\"noindex\"", " content=nofollow", " charset=windows-1252", " encoding=text/html",
    " color=red", " a", "\"/x\"", "'/y?a=1&amp;b=2'", "/z", "\"a>b\"", "x.html", "#f",
    ">", ">", ">", "/>", "=", " ", "\"", "'", "<!--", "-->", "--!>", "<!-->", "-", "--",
    "<!--noindex-->", "<!--endnoindex-->", "<!--googleoff: all-->", "<!--googleon: all-->",
    "<![CDATA[", "]]>", "<!DOCTYPE html>", "<?x>", "</", "<", "word ", "more text ", "&amp;",
    "&", "&lt", "é", "\u{a0}", "\n", "<!--<script>", "<plaintext>", "<title>T</title>",
    "<a href=/l>", "<base href=/b/>", "<meta name=robots content=none>",
    "<p>", "<P>", "</P>", "<br/>", "<span>", "</span>", "<div class=x>",
    "<source", "<picture>", " srcset=", " SRCSET=", "\"a.jpg 1x, /b.jpg 2x\"",
    "'c.png (1x, 2x),d.png,,'", "e.webp,f.webp", "<img src=g.png srcset='g.png 1x, h.png 2x'>",
    " style=", " STYLE=", "\"background:url(s.png)\"", "'b:url(&quot;q.png&quot;)'",
    "<style>b{background:url(t.png)} @import 'u.css';</style>", "url(v.png)", "</style>",
    "<video", " poster=", "<video poster=w.png>", "<audio", "<track", "<embed", "<object",
    " data=", "<input", " type=image", " TYPE=' Image '", "<source src=m.mp4>",
];

/// Text that fills the excerpt, so that what follows it is scanned as on
/// most of a real page: with the open-element stack gone and text skipped,
/// where tags that change nothing are only stepped over.
fn filled_excerpt(with_title: bool) -> String {
    let title = if with_title { "<title>T</title>" } else { "" };
    format!("{title}<p>{}</p>", "lorem ipsum ".repeat(50))
}

#[test]
fn same_page_as_lol_html_on_random_html() {
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    let mut bad = Vec::new();
    let mut compared = 0;
    for round in 0..40_000 {
        let len = (rng.next() % 60) as usize;
        // A third of the pages start with a full excerpt (half of those
        // with the title before it, so the rest is read for links only).
        let mut html = match (round / 2) % 6 {
            0 => filled_excerpt(true),
            1 => filled_excerpt(false),
            _ => String::new(),
        };
        for _ in 0..len {
            html.push_str(DIFF_PIECES[(rng.next() % DIFF_PIECES.len() as u64) as usize]);
        }
        let options = LinkOptions {
            resources: round % 2 == 0,
            max_links: if round % 7 == 0 { 2 } else { 1000 },
        };
        compared += usize::from(!has_missing_value_end(html.as_bytes()));
        if let Some(report) = differs(html.as_bytes(), &options) {
            bad.push(report);
        }
    }
    println!("{compared} of 40000 random pages compared");
    assert!(compared > 10_000, "only {compared} pages compared");
    let shown: Vec<&String> = bad.iter().take(10).collect();
    assert!(bad.is_empty(), "{} differ:\n{shown:#?}", bad.len());
}

/// The `.html` files under `dir`, at most `max`, in a stable order.
pub(super) fn html_files(dir: &std::path::Path, max: usize) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "html") && found.len() < max {
                found.push(path);
            }
        }
    }
    found
}

/// Every page under `dir` compared, with and without resources.
fn compare_files(dir: &std::path::Path, max: usize) -> (usize, Vec<String>) {
    let files = html_files(dir, max);
    let mut bad = Vec::new();
    for path in &files {
        let html = std::fs::read(path).unwrap();
        for resources in [false, true] {
            let options = LinkOptions {
                resources,
                max_links: 100_000,
            };
            if let Some(report) = differs(&html, &options) {
                bad.push(format!("{}: {report}", path.display()));
            }
        }
    }
    (files.len(), bad)
}

#[test]
fn same_page_as_lol_html_on_the_demo_site() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/site");
    let (pages, bad) = compare_files(&dir, usize::MAX);
    assert!(pages > 100, "found {pages} pages");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Real pages, e.g. the HTML documentation that rustup installs:
///
/// ```sh
/// CRAWLSPACE_HTML_DIR=~/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html \
///   cargo test --release --lib crawl::links -- --ignored same_page_as_lol_html_on_real_pages
/// ```
#[test]
#[ignore = "needs CRAWLSPACE_HTML_DIR"]
fn same_page_as_lol_html_on_real_pages() {
    let dir = std::env::var("CRAWLSPACE_HTML_DIR").expect("CRAWLSPACE_HTML_DIR");
    let (pages, bad) = compare_files(std::path::Path::new(&dir), 5_000);
    println!("{pages} pages compared, {} differ", bad.len());
    let shown: Vec<&String> = bad.iter().take(5).collect();
    assert!(bad.is_empty(), "{shown:#?}");
}

/// Prints both extractions of each page in `DIFF_HTML` (separated by
/// lines `----`).
#[test]
#[ignore = "a debugging aid"]
fn diff_debug() {
    for html in std::env::var("DIFF_HTML")
        .unwrap_or_default()
        .split("\n----\n")
    {
        let url = page_url();
        let new = full_summary(&extract(html.as_bytes(), &url, &opts(true), "crawlspace"));
        let old = full_summary(&reference::extract(
            html.as_bytes(),
            &url,
            &opts(true),
            "crawlspace",
        ));
        println!("html: {html:?}\n new: {new}\n old: {old}\n");
    }
}
