use super::*;

mod differential;
mod reference;
mod scanner;
mod speed;

const PAGE: &str = "http://ex.com/d/p.html";

fn page_url() -> Url {
    Url::parse(PAGE).unwrap()
}

fn opts(resources: bool) -> LinkOptions {
    LinkOptions {
        resources,
        max_links: 1000,
    }
}

fn run(html: &str, resources: bool) -> Page {
    extract(html.as_bytes(), &page_url(), &opts(resources), "crawlspace")
}

/// The links as `url kind[ +nofollow]`, joined by ` | `.
fn summary(page: &Page) -> String {
    let links: Vec<String> = page
        .links
        .iter()
        .map(|l| {
            let nf = if l.nofollow { " +nofollow" } else { "" };
            format!("{} {}{nf}", l.url, l.kind.name())
        })
        .collect();
    links.join(" | ")
}

/// Runs a table of (html, expected summary) and reports every mismatch.
fn check(resources: bool, cases: &[(&str, &str)]) {
    let bad: Vec<String> = cases
        .iter()
        .filter_map(|(html, want)| {
            let got = summary(&run(html, resources));
            (got != *want).then(|| format!("{html}\n   got: {got}\n  want: {want}"))
        })
        .collect();
    assert!(bad.is_empty(), "resources={resources}:\n{}", bad.join("\n"));
}

/// Found whether or not resources are asked for.
#[rustfmt::skip]
const PAGE_LINKS: &[(&str, &str)] = &[
    (r#"<a href="a.html">x</a>"#,                 "http://ex.com/d/a.html a"),
    (r#"<map><area href="/m"></map>"#,            "http://ex.com/m area"),
    (r#"<link rel="canonical" href="/c">"#,       "http://ex.com/c link"),
    (r#"<link rel=alternate hreflang=de href=/de/>"#, "http://ex.com/de/ link"),
    (r#"<frameset><frame src="f.html">"#,         "http://ex.com/d/f.html frame"),
    (r#"<iframe src="//other.org/i"></iframe>"#,  "http://other.org/i iframe"),
    (r#"<A HREF="UP.html">upper-case</A>"#,       "http://ex.com/d/UP.html a"),
    // Attribute-less or wrong-attribute tags carry no link.
    (r#"<a name="top">x</a><img href="x.png"><iframe href="x">"#, ""),
    // Text in scripts, comments and textareas is not markup.
    (r#"<script>document.write('<a href="s.html">')</script>"#, ""),
    (r#"<!-- <a href="c.html"> --><textarea><a href="t.html"></textarea>"#, ""),
    // Same URL and kind once; same URL, other kind, kept.
    (r#"<a href="a">1</a><a href="a#x">2</a><link href="a">"#,
        "http://ex.com/d/a a | http://ex.com/d/a link"),
    // Fragments dropped, dot segments and default ports resolved.
    (r#"<a href="../x/./y.html#frag">"#,          "http://ex.com/x/y.html a"),
    (r#"<a href="HTTP://EX.com:80/Z">"#,          "http://ex.com/Z a"),
    (r#"<a href="  /trimmed  ">"#,                "http://ex.com/trimmed a"),
    (r#"<a href="?q=1">"#,                        "http://ex.com/d/p.html?q=1 a"),
    (r#"<a href="https://s.ex.com:8443/">"#,      "https://s.ex.com:8443/ a"),
];

#[rustfmt::skip]
const WITHOUT_RESOURCES: &[(&str, &str)] = &[
    (r#"<link rel="stylesheet" href="s.css">"#, ""),
    (r#"<img src="p.png"><script src="j.js"></script>"#, ""),
    (r#"<img srcset="a.png 1x, b.png 2x"><picture><source srcset="c.webp"></picture>"#, ""),
    (r#"<p style="background:url(/bg.png)"><style>b{background:url(i.png)}</style>"#, ""),
    (r#"<video poster="v.jpg" src="v.mp4"></video><audio src="a.ogg"><input type=image src=i.png>"#, ""),
];

#[rustfmt::skip]
const WITH_RESOURCES: &[(&str, &str)] = &[
    (r#"<link rel="stylesheet" href="s.css">"#,   "http://ex.com/d/s.css stylesheet"),
    (r#"<link rel="Alternate StyleSheet" href="t.css">"#, "http://ex.com/d/t.css stylesheet"),
    (r#"<img src="p.png">"#,                      "http://ex.com/d/p.png img"),
    (r#"<script src="j.js"></script>"#,           "http://ex.com/d/j.js script"),
    // Media and the images of forms, each once.
    (r#"<video poster="v.jpg" src="v.mp4"><source src="v.webm"><track src="v.vtt"></video>"#,
        "http://ex.com/d/v.mp4 media | http://ex.com/d/v.jpg img | http://ex.com/d/v.webm media | http://ex.com/d/v.vtt media"),
    (r#"<audio src="a.ogg"></audio><embed src="e.swf"><object data="o.svg"></object>"#,
        "http://ex.com/d/a.ogg media | http://ex.com/d/e.swf media | http://ex.com/d/o.svg media"),
    (r#"<input type=" IMAGE " src="go.png"><input type="text" src="no.png"><input src="no.png">"#,
        "http://ex.com/d/go.png img"),
    // Responsive images: each candidate of `srcset`, after `src`.
    (r#"<img src="p.png" srcset="p.png 1x, /big/p.png 2x,q,r.png 3x">"#,
        "http://ex.com/d/p.png img | http://ex.com/big/p.png img | http://ex.com/d/q,r.png img"),
    (r#"<picture><source srcset="a.webp 100w,b.webp (x, y), c.webp,"><img src="a.jpg"></picture>"#,
        "http://ex.com/d/a.webp img | http://ex.com/d/b.webp img | http://ex.com/d/c.webp img | http://ex.com/d/a.jpg img"),
    (r#"<img srcset="data:image/png;base64,iVB= 1x, &#47;e.png 2x, s&amp;t.png">"#,
        "http://ex.com/e.png img | http://ex.com/d/s&t.png img"),
    // CSS in the page: `style` attributes (after the tag's own links) and
    // `<style>` elements, resolved against the page.
    (r#"<p style="background:url(/bg.png)">x</p><img src=a.png style="b:url(&quot;c.png&quot;)">"#,
        "http://ex.com/bg.png css url | http://ex.com/d/a.png img | http://ex.com/d/c.png css url"),
    (r#"<style>@import "s.css"; /* url(no.png) */ b{background:url('i.png')}</style><style></style>x"#,
        "http://ex.com/d/s.css stylesheet | http://ex.com/d/i.png css url"),
];

#[test]
fn every_tag_kind() {
    check(false, PAGE_LINKS);
    check(true, PAGE_LINKS);
    check(false, WITHOUT_RESOURCES);
    check(true, WITH_RESOURCES);
}

#[rustfmt::skip]
const BASES: &[(&str, &str)] = &[
    (r#"<base href="sub/"><a href="a.html">"#,    "http://ex.com/d/sub/a.html a"),
    (r#"<base href="http://cdn.org/root/"><a href="a.html"><a href="/b">"#,
        "http://cdn.org/root/a.html a | http://cdn.org/b a"),
    // Only the first base counts, even when it is unusable.
    (r#"<base href="/one/"><base href="/two/"><a href="a">"#, "http://ex.com/one/a a"),
    (r#"<base href="javascript:x"><base href="/2/"><a href="a">"#, "http://ex.com/d/a a"),
    (r#"<base target="_blank"><base href="/2/"><a href="a">"#, "http://ex.com/2/a a"),
    // Streaming: a link before the base resolves against the page.
    (r#"<a href="a"><base href="/late/"><a href="b">"#,
        "http://ex.com/d/a a | http://ex.com/late/b a"),
    (r#"<base href="/b&amp;c/#frag"><a href="x">"#, "http://ex.com/b&c/x a"),
];

#[test]
fn base_href() {
    check(false, BASES);
}

#[rustfmt::skip]
const ENTITIES: &[(&str, &str)] = &[
    (r#"<a href="/p?a=1&amp;b=2">"#,              "http://ex.com/p?a=1&b=2 a"),
    (r#"<a href="/p?a=1&amp;amp;b=2">"#,          "http://ex.com/p?a=1&amp;b=2 a"),
    (r#"<a href="&#x2F;hex&#47;dec">"#,           "http://ex.com/hex/dec a"),
    // In attributes `&copy=` is not an entity (HTML's legacy rule).
    (r#"<a href="/p?x=1&copy=2">"#,               "http://ex.com/p?x=1&copy=2 a"),
    (r#"<a href="/caf&eacute;">"#,                "http://ex.com/caf%C3%A9 a"),
    (r#"<a href="&#106;avascript:alert(1)">"#,    ""),
];

#[test]
fn entities_in_attributes() {
    check(false, ENTITIES);
}

#[rustfmt::skip]
const NOFOLLOW: &[(&str, &str)] = &[
    (r#"<a href="/1" rel="nofollow">"#,           "http://ex.com/1 a +nofollow"),
    (r#"<a href="/2" rel="NoFollow">"#,           "http://ex.com/2 a +nofollow"),
    (r#"<a href="/3" rel="noopener  nofollow ugc">"#, "http://ex.com/3 a +nofollow"),
    (r#"<a href="/4" rel=" nofollow	">"#,         "http://ex.com/4 a +nofollow"),
    (r#"<a href="/5" rel="nofollowing">"#,        "http://ex.com/5 a"),
    (r#"<a href="/6" rel="sponsored">"#,          "http://ex.com/6 a"),
    (r#"<area href="/7" rel="nofollow">"#,        "http://ex.com/7 area +nofollow"),
    (r#"<link href="/8" rel="next nofollow">"#,   "http://ex.com/8 link +nofollow"),
    // One plain occurrence makes the link followable.
    (r#"<a href="/9" rel="nofollow"><a href="/9">"#, "http://ex.com/9 a"),
    (r#"<a href="/10"><a href="/10" rel="nofollow">"#, "http://ex.com/10 a"),
];

#[test]
fn rel_nofollow() {
    check(false, NOFOLLOW);
}

/// (html, flags set, raw entries joined by ` ; `), agent `crawlspace`.
#[rustfmt::skip]
const ROBOTS: &[(&str, &str, &str)] = &[
    ("", "", ""),
    (r#"<meta name="robots" content="noindex">"#,  "noindex", "robots: noindex"),
    (r#"<meta name="robots" content="nofollow">"#, "nofollow", "robots: nofollow"),
    (r#"<meta name="robots" content="none">"#,     "noindex nofollow", "robots: none"),
    (r#"<meta name="ROBOTS" content="NoIndex, NOFOLLOW">"#,
        "noindex nofollow", "robots: NoIndex, NOFOLLOW"),
    (r#"<meta name=robots content="noarchive,nosnippet">"#,
        "noarchive nosnippet", "robots: noarchive,nosnippet"),
    (r#"<meta name="robots" content="all">"#,      "", "robots: all"),
    (r#"<meta name="robots" content="index, follow">"#, "", "robots: index, follow"),
    (r#"<meta name=robots content="max-snippet:5">"#, "", "robots: max-snippet:5"),
    (r#"<meta name=robots content="noindex nofollow">"#,
        "noindex nofollow", "robots: noindex nofollow"),
    (r#"<meta name=robots content="noindex&#44;none">"#,
        "noindex nofollow", "robots: noindex,none"),
    (r#"<meta content="noindex" name=" robots ">"#, "noindex", "robots: noindex"),
    (r#"<meta name="description" content="noindex">"#, "", ""),
    (r#"<meta name="robots">"#,                    "", ""),
    // Our product token, any case; another crawler's is not ours.
    (r#"<meta name="CrawlSpace" content="nofollow">"#, "nofollow", "crawlspace: nofollow"),
    (r#"<meta name="googlebot" content="noindex">"#, "", ""),
    // Several metas combine.
    (r#"<meta name=robots content=noarchive><meta name=googlebot content=none>
        <meta name=crawlspace content=noindex>"#,
        "noindex noarchive", "robots: noarchive ; crawlspace: noindex"),
];

fn robots_summary(robots: &RobotsMeta) -> (String, String) {
    let flags = [
        (robots.noindex, "noindex"),
        (robots.nofollow, "nofollow"),
        (robots.noarchive, "noarchive"),
        (robots.nosnippet, "nosnippet"),
    ];
    let set: Vec<&str> = flags.iter().filter(|f| f.0).map(|f| f.1).collect();
    (set.join(" "), robots.raw.join(" ; "))
}

#[test]
fn robots_meta() {
    for (html, flags, raw) in ROBOTS {
        let got = robots_summary(&run(html, false).robots);
        assert_eq!(got, (flags.to_string(), raw.to_string()), "html: {html:?}");
    }
    // With no agent, only `robots` counts.
    let html = br#"<meta name="" content="noindex"><meta name="robots" content="nofollow">"#;
    let robots = extract(html, &page_url(), &opts(false), "").robots;
    assert_eq!(robots_summary(&robots).0, "nofollow");
}

#[test]
fn skipped_and_bad_hrefs() {
    // (html, bad_urls): none of these yields a link.
    let cases: &[(&str, usize)] = &[
        (r#"<a href="javascript:void(0)">"#, 0),
        (r#"<a href=" JavaScript:go()">"#, 0),
        (r#"<a href="java&#x09;script:go()">"#, 0),
        (r#"<a href="mailto:me@ex.com">"#, 0),
        (r#"<a href="MAILTO:me@ex.com">"#, 0),
        (r#"<img src="data:image/png;base64,AAAA">"#, 0),
        (r#"<a href="tel:+331234">"#, 0),
        (r#"<a href="">"#, 0),
        (r#"<a href="   ">"#, 0),
        (r#"<a href="ftp://ex.com/f">"#, 0),
        (r#"<a href="file:///etc/passwd">"#, 0),
        (r#"<a href="about:blank">"#, 0),
        (r#"<a href="http://[::1">"#, 1),
        (r#"<a href="http://">"#, 1),
        (r#"<a href="https://ex.com:99999/">"#, 1),
        (r#"<a href="http://a b/">"#, 1),
    ];
    for (html, bad) in cases {
        let page = run(html, true);
        assert_eq!(summary(&page), "", "html: {html:?}");
        assert_eq!(page.bad_urls, *bad, "html: {html:?}");
    }
}

#[rustfmt::skip]
const MALFORMED: &[(&str, &str)] = &[
    ("<a href=x>unquoted</a>",                    "http://ex.com/d/x a"),
    ("<a href=/y?a=1&b=2>unquoted query</a>",     "http://ex.com/y?a=1&b=2 a"),
    ("<a href='single'>",                         "http://ex.com/d/single a"),
    // An unclosed quote swallows the markup up to the next quote.
    (r#"<a href="open>text</a><a href="/next">"#,
        "http://ex.com/d/open%3Etext%3C/a%3E%3Ca%20href= a"),
    (r#"<a title="<a href='/fake'>" href="/real">"#, "http://ex.com/real a"),
    // lol_html passes NUL through; the URL parser escapes it.
    ("<a href=\"/n\0ul\">",                       "http://ex.com/n%00ul a"),
    ("<a href=\"/\u{1}ctl\">",                    "http://ex.com/%01ctl a"),
    (r#"<a href="/never-closed"#,                 ""),
    (r#"<div><a href="/unclosed"><p><table><a href="/t">"#,
        "http://ex.com/unclosed a | http://ex.com/t a"),
    (r#"<a href="/x" href="/second-ignored">"#,   "http://ex.com/x a"),
    (r#"</a><a/href="/slash">"#,                  "http://ex.com/slash a"),
    ("<<a href=/after-lt>",                       "http://ex.com/after-lt a"),
    ("<svg><a href=\"/svg-a\"></a></svg>",        "http://ex.com/svg-a a"),
];

#[test]
fn malformed_html() {
    check(false, MALFORMED);
    // Invalid UTF-8 becomes U+FFFD, and the links after it still count.
    let html = b"<a href=\"/bad\xff\xfe\">x</a>\xc3<a href=\"/ok\">";
    let page = extract(html, &page_url(), &opts(false), "");
    assert_eq!(
        summary(&page),
        "http://ex.com/bad%EF%BF%BD%EF%BF%BD a | http://ex.com/ok a"
    );
}

#[test]
fn declared_charset_is_used() {
    let html = b"<meta charset=\"windows-1252\"><title>Caf\xe9</title><a href=\"/caf\xe9\">";
    let page = extract(html, &page_url(), &opts(false), "");
    assert_eq!(summary(&page), "http://ex.com/caf%C3%A9 a");
    assert_eq!(page.title.as_deref(), Some("Café"));
}

/// The charset of the response's `Content-Type` decodes the page, wins
/// over a `<meta charset>`, and puts a query in that charset while the path
/// stays UTF-8 (WHATWG URL); an unknown or ASCII-incompatible label is
/// ignored (UTF-8, or the meta's).
#[test]
fn the_charset_the_response_declares_decodes_the_page() {
    let html = b"<title>Caf\xe9</title><a href=\"/caf\xe9?q=cr\xe8me\">";
    let latin1 = extract_in(html, &page_url(), &opts(false), "", Some("ISO-8859-1"));
    assert_eq!(summary(&latin1), "http://ex.com/caf%C3%A9?q=cr%E8me a");
    assert_eq!(latin1.title.as_deref(), Some("Café"));
    let undeclared = extract(html, &page_url(), &opts(false), "");
    assert_eq!(
        summary(&undeclared),
        "http://ex.com/caf%EF%BF%BD?q=cr%EF%BF%BDme a"
    );
    // The transport's charset wins over the document's.
    let meta = b"<meta charset=\"utf-8\"><a href=\"/\xe9\">";
    let page = extract_in(meta, &page_url(), &opts(false), "", Some("windows-1252"));
    assert_eq!(summary(&page), "http://ex.com/%C3%A9 a");
    // A character the charset cannot hold is sent as a browser sends it.
    let html = b"<a href=\"?q=&#20013;\">";
    let page = extract_in(html, &page_url(), &opts(false), "", Some("latin1"));
    assert_eq!(summary(&page), "http://ex.com/d/p.html?q=&%2320013; a");
    for ignored in ["no-such-charset", ""] {
        let meta = b"<meta charset=\"windows-1252\"><a href=\"/\xe9\">";
        let page = extract_in(meta, &page_url(), &opts(false), "", Some(ignored));
        assert_eq!(summary(&page), "http://ex.com/%C3%A9 a", "{ignored}");
    }
    assert_eq!(
        charset_of("text/html; charset=\"ISO-8859-1\""),
        Some("ISO-8859-1")
    );
    assert_eq!(charset_of("text/html;CHARSET=utf-8 "), Some("utf-8"));
    // A UTF-8 byte-order mark wins over the declared charset.
    let bom = "\u{feff}<title>Café</title>".as_bytes();
    let page = extract_in(bom, &page_url(), &opts(false), "", Some("iso-8859-1"));
    assert_eq!(page.title.as_deref(), Some("Café"));
    assert_eq!(charset_of("text/html"), None);
    // UTF-16, declared or by its byte-order mark, is decoded whole first.
    let utf16 = |text: &str, bom: bool| {
        let mut bytes = if bom { vec![0xff, 0xfe] } else { Vec::new() };
        bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        bytes
    };
    let html = "<title>Café</title><a href=\"/é\">";
    for (body, declared) in [
        (utf16(html, false), Some("utf-16le")),
        (utf16(html, true), None),
        (utf16(html, true), Some("iso-8859-1")),
    ] {
        let page = extract_in(&body, &page_url(), &opts(false), "", declared);
        assert_eq!(page.title.as_deref(), Some("Café"), "{declared:?}");
        assert_eq!(summary(&page), "http://ex.com/%C3%A9 a", "{declared:?}");
    }
}

#[test]
fn title() {
    let long = "word ".repeat(200);
    let long_title = format!("<title>{long}</title>");
    #[rustfmt::skip]
    let cases: &[(&str, Option<&str>)] = &[
        ("<title>Hello</title>",                          Some("Hello")),
        ("<title>\n  Hello \t\n  world  </title>",        Some("Hello world")),
        ("<title>Fish &amp; Chips&nbsp;&nbsp;Shop</title>", Some("Fish & Chips Shop")),
        ("<title><b>not a tag</b></title>",               Some("<b>not a tag</b>")),
        ("<title>First</title><title>Second</title>",     Some("First")),
        ("<title>   </title>",                            None),
        ("<title></title><title>Second</title>",          None),
        ("<svg><title>Tooltip</title></svg><title>Real</title>", Some("Real")),
        ("<p>no title",                                   None),
        ("<title>Unclosed",                               Some("Unclosed")),
        // Control characters, raw or as references, count as space (a
        // reference in the C1 range means the windows-1252 character).
        ("<title>a\u{1b}[2Jb\u{9b}c</title>",              Some("a [2Jb c")),
        ("<title>x&#27;y&#x9b;z&#127;</title>",           Some("x y\u{203a}z")),
    ];
    for (html, want) in cases {
        assert_eq!(run(html, false).title.as_deref(), *want, "html: {html:?}");
    }
    let title = run(&long_title, false).title.unwrap();
    assert_eq!(
        title.chars().count(),
        MAX_TITLE_CHARS - 1,
        "cut then trimmed"
    );
    assert!(title.starts_with("word word"));
    let spaces = format!("<title>{}x</title>", " ".repeat(1 << 20));
    assert_eq!(run(&spaces, false).title.as_deref(), Some("x"));
}

/// (headers, flags set, raw entries joined by ` ; `), agent `crawlspace`.
#[rustfmt::skip]
const X_ROBOTS_TAG: &[(&[&str], &str, &str)] = &[
    (&[], "", ""),
    // For every crawler.
    (&["noindex"],                     "noindex", "X-Robots-Tag: noindex"),
    (&["noindex, nofollow"],           "noindex nofollow", "X-Robots-Tag: noindex, nofollow"),
    (&["none"],                        "noindex nofollow", "X-Robots-Tag: none"),
    (&["noarchive"],                   "noarchive", "X-Robots-Tag: noarchive"),
    (&["nosnippet"],                   "nosnippet", "X-Robots-Tag: nosnippet"),
    (&[" NoArchive,NOSNIPPET "],       "noarchive nosnippet", "X-Robots-Tag: NoArchive,NOSNIPPET"),
    (&["all"],                         "", "X-Robots-Tag: all"),
    (&["index, follow"],               "", "X-Robots-Tag: index, follow"),
    // For us by name, in any case; for another crawler, ignored.
    (&["crawlspace: noindex"],         "noindex", "X-Robots-Tag: crawlspace: noindex"),
    (&["CrawlSpace: nofollow, noarchive"], "nofollow noarchive",
        "X-Robots-Tag: CrawlSpace: nofollow, noarchive"),
    (&["  crawlspace :none"],          "noindex nofollow", "X-Robots-Tag: crawlspace :none"),
    (&["googlebot: noindex"],          "", "X-Robots-Tag: googlebot: noindex"),
    (&["googlebot: noindex, nofollow"], "", "X-Robots-Tag: googlebot: noindex, nofollow"),
    (&["crawlspace-extra: noindex"],   "", "X-Robots-Tag: crawlspace-extra: noindex"),
    // Groups within one value; each header starts for every crawler again.
    (&["googlebot: noindex, crawlspace: nofollow"], "nofollow",
        "X-Robots-Tag: googlebot: noindex, crawlspace: nofollow"),
    (&["noarchive, googlebot: noindex"], "noarchive", "X-Robots-Tag: noarchive, googlebot: noindex"),
    (&["googlebot: noindex", "nofollow"], "nofollow",
        "X-Robots-Tag: googlebot: noindex ; X-Robots-Tag: nofollow"),
    (&["crawlspace: noindex", "googlebot: nofollow", "otherbot: none"], "noindex",
        "X-Robots-Tag: crawlspace: noindex ; X-Robots-Tag: googlebot: nofollow ; X-Robots-Tag: otherbot: none"),
    // Directives with a colon are not crawler names.
    (&["unavailable_after: 25 Jun 2010 15:00:00 PST"], "",
        "X-Robots-Tag: unavailable_after: 25 Jun 2010 15:00:00 PST"),
    (&["unavailable_after: Sunday, 01-Sep-13 00:00:00 PST, noindex"], "noindex",
        "X-Robots-Tag: unavailable_after: Sunday, 01-Sep-13 00:00:00 PST, noindex"),
    (&["max-snippet: 20, noindex"],    "noindex", "X-Robots-Tag: max-snippet: 20, noindex"),
    (&["MAX-IMAGE-PREVIEW: large, nofollow"], "nofollow",
        "X-Robots-Tag: MAX-IMAGE-PREVIEW: large, nofollow"),
    (&["crawlspace: unavailable_after: 25 Jun 2010 15:00:00 PST"], "",
        "X-Robots-Tag: crawlspace: unavailable_after: 25 Jun 2010 15:00:00 PST"),
    (&["crawlspace: max-snippet: 0, nosnippet"], "nosnippet",
        "X-Robots-Tag: crawlspace: max-snippet: 0, nosnippet"),
    (&["googlebot: unavailable_after: 25 Jun 2010 15:00:00 PST, noindex"], "",
        "X-Robots-Tag: googlebot: unavailable_after: 25 Jun 2010 15:00:00 PST, noindex"),
    // `NAME:` followed by no directive is not a group: it has no effect.
    (&["otherbot: foo, noindex"],      "noindex", "X-Robots-Tag: otherbot: foo, noindex"),
    (&["12: noindex"],                 "noindex", "X-Robots-Tag: 12: noindex"),
    (&[""],                            "", "X-Robots-Tag: "),
];

#[test]
fn x_robots_tag() {
    let mut bad = Vec::new();
    for (headers, flags, raw) in X_ROBOTS_TAG {
        let mut robots = RobotsMeta::default();
        robots.apply_headers(headers.iter().copied(), "crawlspace");
        let got = robots_summary(&robots);
        if got != (flags.to_string(), raw.to_string()) {
            bad.push(format!(
                "{headers:?}\n   got: {got:?}\n  want: {flags:?} {raw:?}"
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));

    // With no product token, only what is for every crawler applies.
    let mut robots = RobotsMeta::default();
    robots.apply_headers(["crawlspace: noindex", "noarchive"], "");
    assert_eq!(robots_summary(&robots).0, "noarchive");
    // Another token, with digits, `_` and `-`.
    let mut robots = RobotsMeta::default();
    robots.apply_header("Bot_2-x: nofollow, crawlspace: noindex", " bot_2-X ");
    assert_eq!(robots_summary(&robots).0, "nofollow");
    // Raw entries stay bounded.
    let mut robots = RobotsMeta::default();
    let long = format!("noindex, {}", "x".repeat(2_000));
    robots.apply_headers(std::iter::repeat_n(long.as_str(), 40), "crawlspace");
    assert_eq!(robots.raw.len(), MAX_RAW_METAS);
    assert_eq!(robots.raw[0].chars().count(), "X-Robots-Tag: ".len() + 500);
}

#[test]
fn x_robots_tag_combines_with_meta_robots() {
    let html = r#"<meta name=robots content="noarchive"><meta name=crawlspace content=nosnippet>"#;
    let mut page = run(html, false);
    page.robots
        .apply_headers(["googlebot: noindex", "crawlspace: nofollow"], "crawlspace");
    assert_eq!(
        robots_summary(&page.robots),
        (
            "nofollow noarchive nosnippet".to_string(),
            "robots: noarchive ; crawlspace: nosnippet ; X-Robots-Tag: googlebot: noindex \
             ; X-Robots-Tag: crawlspace: nofollow"
                .to_string()
        )
    );
    // A header and a meta saying the same thing: still one flag.
    let mut page = run(r#"<meta name=robots content=none>"#, false);
    page.robots.apply_header("noindex", "crawlspace");
    assert_eq!(robots_summary(&page.robots).0, "noindex nofollow");
}

/// (html, excerpt, regions left out).
#[rustfmt::skip]
const EXCERPTS: &[(&str, &str, u32)] = &[
    ("", "", 0),
    ("<p>Hello   <b>world</b>\n\t!</p>",           "Hello world !", 0),
    ("<p>  \n </p>",                                 "", 0),
    // Invisible text.
    ("<title>T</title><script>var x = '<p>no</p>';</script><style>p { }</style>\
      <noscript>ns</noscript><template><p>tpl</p></template><textarea>ta</textarea><p>Body</p>",
        "Body", 0),
    ("<svg><title>Tip</title><desc>D</desc><style>s</style><text>Shown</text></svg> after",
        "Shown after", 0),
    ("<head><title>Only a title</title></head>",     "", 0),
    // Entities decoded.
    ("<p>Fish &amp; Chips&nbsp;&nbsp;Shop &lt;b&gt; &#169; &#x41;&#66; AT&T &unknown; 5 &lt 6</p>",
        "Fish & Chips Shop <b> © AB AT&T &unknown; 5 < 6", 0),
    // Blocks separate words, inline elements do not.
    ("<h1>Title</h1>Intro<ul><li>one</li><li>two</li></ul><p>a<br>b</p>\
      <table><tr><td>x</td><td>y</td></tr></table>z",
        "Title Intro one two a b x y z", 0),
    ("Click <a href=/x>here</a>. Don't <em>stop</em>! Hel<b>lo</b>", "Click here. Don't stop! Hello", 0),
    // Regions, every syntax: left out, counted.
    ("<p>Before</p><!--noindex--><p>Secret</p><!--endnoindex--><p>After</p>", "Before After", 1),
    ("A <!-- NoIndex --> B <!-- /NOINDEX --> C",      "A C", 1),
    ("A <!--googleoff: index--> B <!--googleon: index--> C", "A C", 1),
    ("A <!--googleoff: all--> B <!--googleon: all--> C", "A C", 1),
    ("A <!--googleoff: anchor--> B <!--googleon: anchor--> C", "A C", 1),
    ("A <!--googleoff: snippet--> B <!--googleon: snippet--> C", "A C", 1),
    ("A <!--GOOGLEOFF:INDEX--> B <!--  googleon :  index  --> C", "A C", 1),
    ("A<!--noindex-->B<!--endnoindex-->C",            "A C", 1),
    // Two regions; nested and overlapping ones are one stretch.
    ("A <!--noindex--> B <!--endnoindex--> C <!--googleoff: snippet--> D \
      <!--googleon: snippet--> E", "A C E", 2),
    ("A <!--noindex--> B <!--noindex--> C <!--endnoindex--> D <!--endnoindex--> E", "A E", 1),
    ("A <!--noindex--> B <!--googleoff: all--> C <!--endnoindex--> D <!--googleon: all--> E",
        "A E", 1),
    // googleoff kinds are switches: `all` needs every kind back on.
    ("A <!--googleoff: all--> B <!--googleon: index--> C <!--googleon: all--> D", "A D", 1),
    ("A <!--googleoff: index--> B <!--googleoff: index--> C <!--googleon: index--> D",
        "A D", 1),
    // Unclosed: the rest of the page is left out.
    ("A <!--noindex--> B <p>C</p>",                   "A", 1),
    ("A <!--googleoff: snippet--> B",                 "A", 1),
    // Not markers: stray closers, other comments, unknown kinds, script text.
    ("A <!--endnoindex--> B <!--googleon: all--> C",  "A B C", 0),
    ("A <!--noindexing--> B <!-- googleoff: foo --> C <!--googleoff--> D", "A B C D", 0),
    ("<script>/*<!--noindex-->*/</script>Visible",    "Visible", 0),
];

#[test]
fn excerpt_and_noindex_regions() {
    let bad: Vec<String> = EXCERPTS
        .iter()
        .filter_map(|(html, excerpt, regions)| {
            let page = run(html, false);
            let got = (page.excerpt.as_str(), page.noindex_regions);
            (got != (*excerpt, *regions))
                .then(|| format!("{html}\n   got: {got:?}\n  want: {:?}", (excerpt, regions)))
        })
        .collect();
    assert!(bad.is_empty(), "\n{}", bad.join("\n"));
}

#[test]
fn links_inside_regions_are_still_extracted() {
    let html = r#"<a href="/before">b</a><!--noindex--><p>Secret <a href="/in-noindex">x</a></p>
        <!--endnoindex--><!--googleoff: all--><a href="/in-googleoff" rel=nofollow>y</a>
        <!--googleon: all--><!--googleoff: index--><a href="/unclosed">z</a>"#;
    let page = run(html, false);
    assert_eq!(
        summary(&page),
        "http://ex.com/before a | http://ex.com/in-noindex a \
         | http://ex.com/in-googleoff a +nofollow | http://ex.com/unclosed a"
    );
    assert_eq!((page.excerpt.as_str(), page.noindex_regions), ("b", 3));
}

#[test]
fn excerpt_is_capped_and_stops_reading() {
    // Cut at MAX_EXCERPT_CHARS (then trimmed), from the start of the text.
    let words = format!("<p>{}</p>", "word ".repeat(300));
    let page = run(&words, false);
    assert_eq!(page.excerpt.chars().count(), MAX_EXCERPT_CHARS - 1);
    assert!(page.excerpt.starts_with("word word"));
    // Regions after the excerpt is full are not counted.
    let page = run(&format!("{words}<!--noindex-->x<!--endnoindex-->"), false);
    assert_eq!(page.noindex_regions, 0);
    let page = run(&format!("<!--noindex-->x<!--endnoindex-->{words}"), false);
    assert_eq!(page.noindex_regions, 1);
    // Multi-byte characters count as one.
    let page = run(&"é".repeat(2_000), false);
    assert_eq!(page.excerpt, "é".repeat(MAX_EXCERPT_CHARS));
    // Half a megabyte of whitespace collapses to one space.
    let page = run(&format!("<p>a{}b</p>", " ".repeat(512 << 10)), false);
    assert_eq!(page.excerpt, "a b");
    // Text that starts after the scan window is not read.
    let late = |pad: usize| format!("<script>{}</script><p>late</p>", "x".repeat(pad));
    assert_eq!(run(&late(1_000), false).excerpt, "late");
    assert_eq!(run(&late(excerpt::MAX_EXCERPT_SCAN), false).excerpt, "");
}

/// (html, excerpt) for text the excerpt takes in runs (plain ASCII and
/// spacing) rather than one character at a time. The expectations follow
/// from the per-character rules (whitespace collapsed to one space, never
/// leading, a separator counting toward the cap, cut at exactly
/// [`MAX_EXCERPT_CHARS`], then trimmed), as the code before the runs
/// applied them. They are fixed strings because the lol_html reference
/// shares [`excerpt::Excerpt`] and so cannot catch a regression here.
fn excerpt_run_cases() -> Vec<(String, String)> {
    let tens = "abcdefghij";
    let cases: Vec<(String, String)> = vec![
        // A run crossing the cap: cut inside it, exactly at the cap.
        (format!("<p>{}</p>", tens.repeat(60)), tens.repeat(50)),
        // The same with single spaces inside the run: 55 words of 8 and
        // their separators make 494 + 1 characters, then 5 of the next.
        (
            format!("<p>{}</p>", "abcdefgh ".repeat(60)),
            format!("{}abcde", "abcdefgh ".repeat(55)),
        ),
        // The separator is the 500th character: trimmed away.
        (format!("{} yz", "x".repeat(499)), "x".repeat(499)),
        (
            format!("{} yz", "x".repeat(498)),
            format!("{} y", "x".repeat(498)),
        ),
        (format!("{} yz", "x".repeat(500)), "x".repeat(500)),
        // The cap reached by an entity right after a run.
        (
            format!("{}&amp;yz", "x".repeat(499)),
            format!("{}&", "x".repeat(499)),
        ),
        (format!("{}&amp;yz", "x".repeat(500)), "x".repeat(500)),
        // Entities inside and between runs.
        ("a&amp;b&c d".into(), "a&b&c d".into()),
        (
            "one &amp; two &lt;p&gt; &#65;&#x42;C".into(),
            "one & two <p> ABC".into(),
        ),
        ("a&amp;<b>b&c</b> d".into(), "a&b&c d".into()),
        ("<p>a&amp;</p><p>&amp;b</p>".into(), "a& &b".into()),
        // An entity split by a tag is two text nodes: neither part decodes.
        ("a&am<b>p;b</b>".into(), "a&amp;b".into()),
        ("x&amp<i>;</i>y".into(), "x&;y".into()),
        ("&copy 2024 &amp".into(), "© 2024 &".into()),
        // Runs of spacing between and around words, and across tags.
        ("<p>\t\t a \n\n b\t  c  \r\n</p>".into(), "a b c".into()),
        (
            "<p>   lead</p><p>\n\ttrail\t\n</p>".into(),
            "lead trail".into(),
        ),
        ("a<b> </b>b<i>\n</i> <i> </i>c".into(), "a b c".into()),
        ("a\u{1}b\u{7f}c \u{c} d".into(), "a b c d".into()),
        ("  &amp;  x  ".into(), "& x".into()),
        // Non-ASCII between ASCII runs; no-break spaces are spacing.
        ("abc é def".into(), "abc é def".into()),
        ("abcédef — ghi".into(), "abcédef — ghi".into()),
        ("a\u{a0}\u{a0}b &nbsp; c\u{3000}d".into(), "a b c d".into()),
        ("ünï cödé and ascii".into(), "ünï cödé and ascii".into()),
        // Text after the excerpt is complete changes nothing.
        (
            format!("<p>{}</p><p>more text &amp; é</p>", tens.repeat(50)),
            tens.repeat(50),
        ),
        (
            format!("<p>{}</p> <b>x</b>", "é".repeat(500)),
            "é".repeat(500),
        ),
        (
            format!("{} {}", "y".repeat(499), "z".repeat(600)),
            "y".repeat(499),
        ),
    ];
    cases
}

#[test]
fn excerpt_runs_follow_the_per_character_rules() {
    let bad: Vec<String> = excerpt_run_cases()
        .iter()
        .filter_map(|(html, want)| {
            let got = run(html, false).excerpt;
            (got != *want).then(|| format!("{html:?}\n   got: {got:?}\n  want: {want:?}"))
        })
        .collect();
    assert!(bad.is_empty(), "\n{}", bad.join("\n"));
}

#[test]
fn entities_split_across_writes() {
    // The excerpt pass writes 16 KiB at a time: put `&amp;` across every
    // possible seam, and a character reference too.
    for shift in 0..12 {
        for entity in ["&amp;", "&#x26;", "&#38;"] {
            let pad = 16_384 - shift - "<script>".len() - "</script>a".len();
            let html = format!("<script>{}</script>a{entity}b", "x".repeat(pad));
            assert_eq!(run(&html, false).excerpt, "a&b", "shift {shift} {entity}");
        }
    }
}

#[test]
fn excerpt_follows_the_declared_charset() {
    let html = b"<meta charset=\"windows-1252\"><p>Caf\xe9 cr\xe8me</p>";
    let page = extract(html, &page_url(), &opts(false), "");
    assert_eq!(page.excerpt, "Café crème");
}

fn many_links(n: usize) -> String {
    let mut html = String::from("<html><head><title>Many</title></head><body>\n");
    for i in 0..n {
        html.push_str(&format!(
            "<p>Item {i}: <a href=\"/item/{i}?ref=list&amp;page=1\">item {i}</a></p>\n"
        ));
    }
    html
}

#[test]
fn max_links_caps_a_huge_page() {
    let html = many_links(100_000);
    let options = LinkOptions {
        resources: false,
        max_links: 5_000,
    };
    let page = extract(html.as_bytes(), &page_url(), &options, "");
    assert_eq!(page.links.len(), 5_000);
    assert!(page.truncated_links);
    assert_eq!(page.title.as_deref(), Some("Many"));
    assert_eq!(
        page.links[4_999].url.as_str(),
        "http://ex.com/item/4999?ref=list&page=1"
    );
    // Exactly at the cap is not truncation.
    let html = many_links(10);
    let options = LinkOptions {
        resources: false,
        max_links: 10,
    };
    let page = extract(html.as_bytes(), &page_url(), &options, "");
    assert_eq!((page.links.len(), page.truncated_links), (10, false));
    let zero = LinkOptions {
        resources: false,
        max_links: 0,
    };
    let page = extract(html.as_bytes(), &page_url(), &zero, "");
    assert_eq!((page.links.len(), page.truncated_links), (0, true));
    // The candidates of one `srcset` stop at the cap as links do.
    let candidates: Vec<String> = (0..50).map(|i| format!("/s/{i}.png {i}w")).collect();
    let html = format!("<img srcset=\"{}\">", candidates.join(", "));
    let capped = LinkOptions {
        resources: true,
        max_links: 10,
    };
    let page = extract(html.as_bytes(), &page_url(), &capped, "");
    assert_eq!((page.links.len(), page.truncated_links), (10, true));
    assert_eq!(page.links[9].url.as_str(), "http://ex.com/s/9.png");
}

#[test]
fn huge_pages_do_not_break_extraction() {
    // A 5 MB attribute value, a 5 MB comment, then a link.
    let mut html = String::from("<a href=\"/big?");
    html.push_str(&"x".repeat(5 << 20));
    html.push_str("\">");
    html.push_str("<!--");
    html.push_str(&"<a href=/no>".repeat(400_000));
    html.push_str("--><a href=\"/after\">");
    let page = run(&html, false);
    let got: Vec<&str> = page.links.iter().map(|l| l.url.path()).collect();
    assert_eq!(got, ["/big", "/after"]);
}

/// Deterministic noise: xorshift64*.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[test]
fn random_bytes_never_panic() {
    // Pure noise, and noise built from HTML-ish pieces, which reaches far
    // more tokenizer states than random bytes do.
    #[rustfmt::skip]
    const PIECES: &[&[u8]] = &[
        b"<a href=", b"<base href=\"", b"<meta name=robots content=\"", b"<title>",
        b"</title>", b"<script>", b"</script>", b"<!--", b"-->", b"<![CDATA[", b"<svg>",
        b"<math>", b"<frame src=", b"<link rel=stylesheet href=", b"\"", b"'", b">", b"<",
        b"&amp;", b"&#x", b"&", b"javascript:", b"http://", b"//", b"../", b"#", b"?",
        b"\0", b"\xff", b"\xc3", b"\n", b" ", b"noindex", b"nofollow", b"<plaintext>",
        b"<textarea>", b"<select><xmp>", b"<!DOCTYPE", b"<?xml", b"</", b"=",
    ];
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let url = page_url();
    for round in 0..3_000 {
        let len = (rng.next() % 400) as usize;
        let mut html = Vec::with_capacity(len * 4);
        for _ in 0..len {
            let r = rng.next();
            if round % 2 == 0 {
                html.push(r as u8);
            } else {
                html.extend_from_slice(PIECES[(r % PIECES.len() as u64) as usize]);
            }
        }
        let options = LinkOptions {
            resources: rng.next().is_multiple_of(2),
            // Now and then a tiny cap, to stop mid-page.
            max_links: if rng.next().is_multiple_of(4) {
                (rng.next() % 5) as usize
            } else {
                1000
            },
        };
        let page = extract(&html, &url, &options, "crawlspace");
        assert!(page.links.len() <= options.max_links);
        assert!(page.excerpt.chars().count() <= MAX_EXCERPT_CHARS);
        assert_eq!(page.excerpt, page.excerpt.trim());
        for link in &page.links {
            assert!(matches!(link.url.scheme(), "http" | "https"));
            assert_eq!(link.url.fragment(), None);
        }
    }
}

/// A stylesheet's references as links: resolved against the sheet, each
/// once, `@import` a stylesheet, the rest `url()`; `data:` skipped, a URL
/// that does not parse counted, the cap applied.
#[test]
fn stylesheet_references() {
    let sheet = Url::parse("http://ex.com/css/site.css").unwrap();
    let css = b"@import 'print.css' print;\n\
        b { background: url(../img/a.png#x) } i { background: url('/img/a.png') }\n\
        @font-face { src: url(f.woff2) format('woff2') }\n\
        u { background: url(data:image/png;base64,iVBO=) } s { background: url('http://[x') }";
    let page = extract_css(css, &sheet, 100, None);
    assert_eq!(
        summary(&page),
        "http://ex.com/css/print.css stylesheet | http://ex.com/img/a.png css url | \
         http://ex.com/css/f.woff2 css url"
    );
    assert_eq!((page.bad_urls, page.truncated_links), (1, false));
    let capped = extract_css(css, &sheet, 2, None);
    assert_eq!((capped.links.len(), capped.truncated_links), (2, true));
    // The declared charset decodes it (a Latin-1 `é` in a path).
    let latin = extract_css(
        b"b{background:url(caf\xe9.png)}",
        &sheet,
        10,
        Some("iso-8859-1"),
    );
    assert_eq!(summary(&latin), "http://ex.com/css/caf%C3%A9.png css url");
    // Without one, the sheet's own `@charset`; the response's wins over it.
    let own = b"@charset \"windows-1252\";\nb{background:url(caf\xe9.png)}";
    assert_eq!(
        summary(&extract_css(own, &sheet, 10, None)),
        "http://ex.com/css/caf%C3%A9.png css url"
    );
    let overridden = extract_css(own, &sheet, 10, Some("utf-8"));
    assert_eq!(
        summary(&overridden),
        "http://ex.com/css/caf%EF%BF%BD.png css url"
    );
    // Only the exact form counts (single quotes are not it); UTF-16 means
    // UTF-8; an unknown label falls back to UTF-8.
    for not_it in [
        &b"@charset 'windows-1252';b{background:url(caf\xe9.png)}"[..],
        b"@charset \"utf-16le\";b{background:url(caf\xe9.png)}",
        b"@charset \"klingon\";b{background:url(caf\xe9.png)}",
        b"@charset \"windows-1252 b{background:url(caf\xe9.png)}",
    ] {
        let page = extract_css(not_it, &sheet, 10, None);
        assert!(
            page.links
                .iter()
                .all(|l| !l.url.as_str().contains("%C3%A9")),
            "{}",
            summary(&page)
        );
    }
}
