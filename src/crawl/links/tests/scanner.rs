//! Cases the single-pass scanner makes risky: attribute syntax, `>` in
//! quotes, case, input that ends anywhere, raw text, entities, size.

use super::differential::differs;
use super::*;

/// [`check`], and the same page as lol_html gave.
fn check_both(cases: &[(&str, &str)]) {
    check(false, cases);
    for (html, _) in cases {
        for resources in [false, true] {
            let report = differs(html.as_bytes(), &opts(resources));
            assert!(report.is_none(), "{}", report.unwrap_or_default());
        }
    }
}

#[rustfmt::skip]
const ATTRIBUTES: &[(&str, &str)] = &[
    // `>` and other markup inside quoted values.
    (r#"<a title="x > y" href="/gt">"#,                  "http://ex.com/gt a"),
    (r#"<a title='<a href="/no">' href='/yes'>"#,         "http://ex.com/yes a"),
    (r#"<a data-x="a'b" href="/mixed">"#,                 "http://ex.com/mixed a"),
    // Attributes split oddly: around `=`, by newlines, with no space
    // between them, or by a `/`.
    ("<a\nhref\n=\n\"/nl\"\n>",                           "http://ex.com/nl a"),
    ("<a\thref =\t'/tab'>",                               "http://ex.com/tab a"),
    (r#"<a class="c"href="/glued">"#,                     "http://ex.com/glued a"),
    (r#"<a / href="/slash-between">"#,                    "http://ex.com/slash-between a"),
    (r#"<a href=/self-closing/>"#,                        "http://ex.com/self-closing/ a"),
    (r#"<a href="/quoted-self-closing"/>"#,               "http://ex.com/quoted-self-closing a"),
    // A name starting with `=` is a name; a value-less attribute is empty.
    (r#"<a =href="/no" href="/yes">"#,                    "http://ex.com/yes a"),
    (r#"<a href class=x>"#,                               ""),
    // Upper and mixed case, in tag and attribute names and `rel`.
    (r#"<A HREF="/A">"#,                                  "http://ex.com/A a"),
    (r#"<IfRaMe SrC="/frame">"#,                          "http://ex.com/frame iframe"),
    (r#"<LINK REL="NoFollow" HREF="/l">"#,                "http://ex.com/l link +nofollow"),
    // A tag name runs to whitespace, `/` or `>`: these are not `a`.
    (r#"<a:b href="/ns">"#,                               ""),
    (r#"<a<b href="/lt">"#,                               ""),
    (r#"<abbr href="/abbr">"#,                            ""),
    // End tags carry no links, and their attributes are skipped properly.
    (r#"</a href="/end"><a href="/next">"#,               "http://ex.com/next a"),
    (r#"</p title=">"><a href="/after-end">"#,            "http://ex.com/after-end a"),
];

#[test]
fn attribute_syntax() {
    check_both(ATTRIBUTES);
}

#[rustfmt::skip]
const RAW_TEXT: &[(&str, &str)] = &[
    (r#"<script>if (a<b) { x = "<a href='/s'>"; }</script><a href="/after">"#,
        "http://ex.com/after a"),
    (r#"<SCRIPT>"<a href=/s>"</Script ><a href="/case">"#, "http://ex.com/case a"),
    // `</script` must be followed by whitespace, `/` or `>`.
    (r#"<script></scripts><a href="/no"></script><a href="/yes">"#, "http://ex.com/yes a"),
    // Inside `<!--`, `</script>` still ends the script; after
    // `<!--<script>` it only closes the inner one.
    (r#"<script><!-- <a href="/no"> --></script><a href="/yes">"#, "http://ex.com/yes a"),
    (r#"<script><!--<script></script><a href="/no">--></script><a href="/yes">"#,
        "http://ex.com/yes a"),
    (r#"<style>a[href="/css"] { }</style><a href="/after-style">"#,
        "http://ex.com/after-style a"),
    (r#"<textarea><a href="/ta"></TEXTAREA><a href="/after-ta">"#,
        "http://ex.com/after-ta a"),
    (r#"<title><a href="/t"></title><a href="/after-title">"#,
        "http://ex.com/after-title a"),
    (r#"<noscript><a href="/ns"></noscript><a href="/after-noscript">"#,
        "http://ex.com/after-noscript a"),
    (r#"<xmp><a href="/x"></xmp><iframe><a href="/i"></iframe>"#, ""),
    (r#"<plaintext></plaintext><a href="/never">"#,      ""),
    // In SVG, script and style are ordinary elements and CDATA is text.
    (r#"<svg><style><a href="/svg-style"></style></svg>"#,
        "http://ex.com/svg-style a"),
    (r#"<svg><![CDATA[<a href="/cdata">]]></svg><a href="/after">"#,
        "http://ex.com/after a"),
    // In HTML, `<![CDATA[` is a bogus comment up to the first `>`.
    (r#"<![CDATA[<a href="/bogus">]]><a href="/real">"#, "http://ex.com/real a"),
];

#[test]
fn raw_text_is_not_markup() {
    check_both(RAW_TEXT);
}

#[rustfmt::skip]
const COMMENTS: &[(&str, &str)] = &[
    (r#"<!--><a href="/1">"#,                            "http://ex.com/1 a"),
    (r#"<!---><a href="/2">"#,                           "http://ex.com/2 a"),
    (r#"<!-- x --!><a href="/3">"#,                      "http://ex.com/3 a"),
    (r#"<!-- -- > <a href="/no"> ---><a href="/4">"#,    "http://ex.com/4 a"),
    (r#"<!DOCTYPE html PUBLIC "a>b"><a href="/5">"#,     "http://ex.com/5 a"),
    // A processing instruction is a bogus comment: it ends at the first `>`.
    (r#"<?php echo '<a href="/6">'; ?><a href="/7">"#,   "http://ex.com/7 a"),
    (r#"</ x><a href="/8">"#,                            "http://ex.com/8 a"),
    (r#"</><a href="/9">"#,                              "http://ex.com/9 a"),
];

#[test]
fn comments_and_declarations() {
    check_both(COMMENTS);
}

/// Foreign content that a tag stepped over must still enter or leave.
#[rustfmt::skip]
const FOREIGN: &[(&str, &str)] = &[
    (r#"<svg></svg><script><a href="/no"></script><a href="/yes">"#, "http://ex.com/yes a"),
    (r#"<SVG><g></g></SVG><style><a href="/no"></style><a href="/yes">"#, "http://ex.com/yes a"),
    (r#"<math><mi></mi></math><textarea><a href="/no"></textarea><a href="/yes">"#,
        "http://ex.com/yes a"),
    // `<p>` leaves SVG: the style after it is raw text again.
    (r#"<svg><p><style><a href="/no"></style><a href="/yes">"#, "http://ex.com/yes a"),
    // Back in SVG after its integration point: style is an element there.
    (r#"<svg><foreignObject><div></div></foreignObject><style><a href="/svg"></style></svg>"#,
        "http://ex.com/svg a"),
    (r#"<svg><desc><b>x</b></desc><script><a href="/svg"></script></svg>"#,
        "http://ex.com/svg a"),
];

/// The cases above after a page start that completes the title and the
/// excerpt: from there on the scanner steps over tags that change nothing
/// without reading their attributes, and must still find their ends, raw
/// text and foreign content as before.
#[test]
fn after_the_title_and_excerpt_are_complete() {
    let start = format!("<title>T</title><p>{}</p>", "lorem ipsum ".repeat(50));
    let cases = ATTRIBUTES
        .iter()
        .chain(RAW_TEXT)
        .chain(COMMENTS)
        .chain(FOREIGN);
    for (html, links) in cases {
        let html = format!("{start}{html}");
        check_both(&[(&html, links)]);
    }
    // And the foreign cases from the start too.
    check_both(FOREIGN);
}

/// Tags the scanner steps over once the title and excerpt are done
/// (`<p>`, `<div>`, `<span>`, end tags): their ends must still be found
/// as an HTML5 tokenizer finds them, through quoted values holding `>` or
/// markup, and with `<` inside a tag as part of an attribute name.
#[rustfmt::skip]
const STEPPED_OVER: &[(&str, &str)] = &[
    (r#"<p title="a>b"><a href="/yes">"#,                 "http://ex.com/yes a"),
    // A tag ended at the first `>` would take these values' links as tags.
    (r#"<p title="><a href=/no>"><a href=/yes>"#,         "http://ex.com/yes a"),
    (r#"<div data-x='><a href="/no">'><a href="/yes">"#,  "http://ex.com/yes a"),
    (r#"<div\ttitle = "x" data-x=' ><a href=/no>'>"#,     ""),
    (r#"<div data-x='<a href="/no">'><a href="/yes">"#,   "http://ex.com/yes a"),
    (r#"<div title='"' data-x="<a href=/no>"><a href=/yes>"#, "http://ex.com/yes a"),
    (r#"<p data-x="a'b>"><a href=/yes>"#,                 "http://ex.com/yes a"),
    ("<p\ntitle='>'\n><a href=/yes>",                     "http://ex.com/yes a"),
    // An unquoted value runs to whitespace or `>`: `x/` here, then `>`.
    (r#"<p class=x/><a href=/yes>"#,                      "http://ex.com/yes a"),
    (r#"<p title=a>b"><a href=/yes>"#,                    "http://ex.com/yes a"),
    (r#"<br title=">"/><a href=/yes>"#,                   "http://ex.com/yes a"),
    // `<a` inside a tag is an attribute name, not a tag.
    (r#"<span title="x" <a href=/no>"#,                   ""),
    (r#"<span <a href=/no>><a href=/yes>"#,               "http://ex.com/yes a"),
    (r#"</p title=">"><a href=/yes>"#,                    "http://ex.com/yes a"),
    (r#"</div data-x='<a href=/no>'><a href=/yes>"#,      "http://ex.com/yes a"),
    (r#"</p title="><a href=/no>"><a href=/yes>"#,        "http://ex.com/yes a"),
];

/// [`STEPPED_OVER`] after a full excerpt (so that the tags are stepped
/// over unread), and from the start (so that they are read).
#[test]
fn stepped_over_tags_end_where_html5_says() {
    let start = format!("<title>T</title><p>{}</p>", "lorem ipsum ".repeat(50));
    for (html, links) in STEPPED_OVER {
        let html = format!("{start}{html}");
        check_both(&[(&html, links)]);
    }
    check_both(STEPPED_OVER);
}

#[test]
fn input_may_end_anywhere() {
    // Every prefix of a page, cut at every byte: no panic, and the links
    // found are those whose tag was complete.
    let html = r#"<!DOCTYPE html><title>T &amp; U</title><!--noindex--><a href="/a" rel=nofollow>x</a><!--endnoindex--><script>"<a href=/no>"</script><base href="/b/"><a href='c'>c</a><svg><![CDATA[x]]></svg><a href=/d>"#;
    // Each link and the length of the page up to the end of its tag.
    let complete: Vec<(usize, &str)> = [
        (r#"<a href="/a" rel=nofollow>"#, "/a"),
        (r#"<a href='c'>"#, "/b/c"),
        (r#"<a href=/d>"#, "/d"),
    ]
    .iter()
    .map(|(tag, path)| (html.find(tag).unwrap() + tag.len(), *path))
    .collect();
    for cut in 0..=html.len() {
        let Some(prefix) = html.get(..cut) else {
            continue;
        };
        let page = run(prefix, false);
        let report = differs(prefix.as_bytes(), &opts(false));
        assert!(report.is_none(), "{}", report.unwrap_or_default());
        let want: Vec<&str> = complete
            .iter()
            .filter(|(end, _)| cut >= *end)
            .map(|(_, path)| *path)
            .collect();
        let got: Vec<&str> = page.links.iter().map(|l| l.url.path()).collect();
        assert!(
            got.len() <= want.len() && want.starts_with(&got),
            "cut {cut}: {got:?} (complete: {want:?})"
        );
    }
    // Unterminated comments, tags, values and raw text at the end.
    #[rustfmt::skip]
    let cases: &[(&str, &str)] = &[
        (r#"<a href="/x"><!-- <a href="/no">"#,          "http://ex.com/x a"),
        (r#"<a href="/x"><a href="/no"#,                  "http://ex.com/x a"),
        (r#"<a href="/x"><a href=/no"#,                   "http://ex.com/x a"),
        (r#"<a href="/x"><script><a href="/no">"#,        "http://ex.com/x a"),
        (r#"<a href="/x"><a"#,                            "http://ex.com/x a"),
        (r#"<a href="/x"></a"#,                           "http://ex.com/x a"),
        (r#"<a href="/x"><"#,                             "http://ex.com/x a"),
        (r#"<a href="/x"><!"#,                            "http://ex.com/x a"),
        (r#"<a href="/x"><![CDATA["#,                     "http://ex.com/x a"),
    ];
    check_both(cases);
}

#[rustfmt::skip]
const ENTITY_EDGES: &[(&str, &str)] = &[
    // Named, numeric, hex, upper-case hex, without `;`, unknown.
    (r#"<a href="/a&amp;b">"#,                           "http://ex.com/a&b a"),
    (r#"<a href="/&#x41;&#X42;&#67;">"#,                  "http://ex.com/ABC a"),
    (r#"<a href="/q?a&ampb">"#,                          "http://ex.com/q?a&ampb a"),
    (r#"<a href="/q?a=1&amp">"#,                         "http://ex.com/q?a=1& a"),
    (r#"<a href="/q?x=&notanentity;">"#,                 "http://ex.com/q?x=&notanentity; a"),
    (r#"<a href="/q?lt=&lt;">"#,                         "http://ex.com/q?lt=%3C a"),
    // Out-of-range and NUL references become U+FFFD.
    (r#"<a href="/&#0;&#x110000;">"#,                     "http://ex.com/%EF%BF%BD%EF%BF%BD a"),
    (r#"<a href="/&">"#,                                 "http://ex.com/& a"),
    // An entity making a scheme is still skipped.
    (r#"<a href="mailto&colon;x@ex.com">"#,              ""),
];

#[test]
fn entity_edge_cases() {
    check_both(ENTITY_EDGES);
}

#[test]
fn a_5_mb_page() {
    // 5 MB of text and markup with a link at the start, the middle and
    // the end; the excerpt is the text at the start.
    let mut html = String::from("<title>Big</title><p>Start <a href=/first>here</a></p>");
    let filler = "<div class=x><p>Lorem ipsum <b>dolor</b> sit amet.</p></div>\n";
    while html.len() < (5 << 20) / 2 {
        html.push_str(filler);
    }
    html.push_str("<a href=/middle>m</a>");
    while html.len() < 5 << 20 {
        html.push_str(filler);
    }
    html.push_str("<a href=/last>l</a>");
    let page = run(&html, false);
    let got: Vec<&str> = page.links.iter().map(|l| l.url.path()).collect();
    assert_eq!(got, ["/first", "/middle", "/last"]);
    assert_eq!(page.title.as_deref(), Some("Big"));
    assert!(
        page.excerpt
            .starts_with("Start here Lorem ipsum dolor sit amet.")
    );
}

#[test]
fn a_100_000_link_page() {
    let html = many_links(100_000);
    let options = LinkOptions {
        resources: false,
        max_links: 100_000,
    };
    let page = extract(html.as_bytes(), &page_url(), &options, "");
    assert_eq!((page.links.len(), page.truncated_links), (100_000, false));
    assert_eq!(
        page.links[99_999].url.as_str(),
        "http://ex.com/item/99999?ref=list&page=1"
    );
    // The same links twice over: still 100,000, deduplicated.
    let twice = format!("{html}{html}");
    let page = extract(twice.as_bytes(), &page_url(), &options, "");
    assert_eq!((page.links.len(), page.truncated_links), (100_000, false));
}

#[test]
fn deep_nesting_and_many_attributes_stay_bounded() {
    // A million unclosed elements and a tag with a million attributes:
    // both end, and the link after them is found.
    let mut html = "<div>".repeat(1_000_000);
    html.push_str("<svg>".repeat(100_000).as_str());
    html.push_str("</svg>".repeat(100_000).as_str());
    html.push_str("<a ");
    html.push_str(&"x=1 ".repeat(1_000_000));
    html.push_str("href=/late>");
    html.push_str("<a href=/after>");
    let page = run(&html, false);
    let got: Vec<&str> = page.links.iter().map(|l| l.url.path()).collect();
    // `href` came after a million junk attributes: kept, since link
    // extraction reads it (the junk past MAX_ATTRS is not kept).
    assert_eq!(got, ["/late", "/after"]);
}

#[test]
fn junk_attributes_do_not_hide_href_or_rel() {
    // Past the first MAX_ATTRS attributes, those link extraction reads are
    // still kept, so padding cannot hide a link or its nofollow.
    let junk = "x=1 ".repeat(300);
    let html = format!("<a {junk}href=/late>a</a><a href=/quiet {junk}rel=nofollow>b</a>");
    assert_eq!(
        summary(&run(&html, false)),
        "http://ex.com/late a | http://ex.com/quiet a +nofollow"
    );
}

#[test]
fn next_lt_finds_the_first_lt() {
    // Bytes next to `<` in value or in the zero-byte test's arithmetic
    // (`<` with the high bit set, `=`, `;`), so that a false flag in the
    // word test would show.
    const BYTES: [u8; 8] = [b'<', b'<' | 0x80, b'=', b';', 0, 0xff, b'a', b'\n'];
    let mut rng = XorShift(0x1234_5678_9abc_def1);
    // Short inputs with `<` everywhere test the word; then long ones with
    // `<` one byte in a hundred, so that the search past the first word
    // runs through memchr's vector loops (with AVX2, 128 bytes at a time,
    // then 32) and their tails.
    for round in 0..21_000 {
        let (len, lt_one_in) = if round < 20_000 {
            ((rng.next() % 40) as usize, None)
        } else {
            ((rng.next() % 400) as usize, Some(100))
        };
        let input: Vec<u8> = (0..len)
            .map(|_| match lt_one_in {
                Some(n) if !rng.next().is_multiple_of(n) => BYTES[1 + (rng.next() % 7) as usize],
                Some(_) => b'<',
                None => BYTES[(rng.next() % BYTES.len() as u64) as usize],
            })
            .collect();
        for from in 0..=len + 1 {
            let want = input
                .get(from..)
                .and_then(|rest| rest.iter().position(|&b| b == b'<'))
                .map(|i| from + i);
            assert_eq!(
                super::super::scan::next_lt(&input, from),
                want,
                "{input:?} from {from}"
            );
        }
    }
}

/// Short tags closed at once, which the scanner may step over from one
/// 8-byte word (`<p>`, `<li>`, `<div>`): names it must not step over
/// although short (`<a>`, `<xmp>`, `<svg>`, `<math>`, `<meta>`, `<base>`,
/// in any case), names that only start like a short one, and name bytes
/// that end a name or may look as if they did.
#[rustfmt::skip]
const SHORT_TAGS: &[(&str, &str)] = &[
    ("<p><a href=/yes>",                                  "http://ex.com/yes a"),
    ("<P><li><DIV><Span><br><hr><em><td><tr><a href=/yes>", "http://ex.com/yes a"),
    ("<p ><p/><p\t><p\n/><a href=/yes>",                  "http://ex.com/yes a"),
    ("<pre><param><para><progress><a href=/yes>",         "http://ex.com/yes a"),
    // Wanted although short: a link, raw text, foreign content, a base.
    ("<a><A><a href=/yes>",                               "http://ex.com/yes a"),
    ("<xmp><a href=/no></xmp><a href=/yes>",              "http://ex.com/yes a"),
    ("<XmP><a href=/no></xMp><a href=/yes>",              "http://ex.com/yes a"),
    ("<svg><title><a href=/yes></title></svg>",           "http://ex.com/yes a"),
    ("<SVG><![CDATA[<a href=/no>]]></svg><a href=/yes>",  "http://ex.com/yes a"),
    ("<math><![CDATA[<a href=/no>]]></math><a href=/yes>", "http://ex.com/yes a"),
    ("<base><a href=/yes>",                               "http://ex.com/yes a"),
    ("<meta><a href=/yes>",                               "http://ex.com/yes a"),
    ("<svg><p><a href=/yes>",                             "http://ex.com/yes a"),
    // Bytes that are part of a name: NUL, control bytes, `<`, `=`, quotes,
    // non-ASCII.
    ("<p\0><p\x01><p\x1f><p\x7f><a href=/yes>",           "http://ex.com/yes a"),
    ("<p<a><a<p><a=><p\"><p'><a href=/yes>",               "http://ex.com/yes a"),
    ("<é><pé><aé><a href=/yes>",                          "http://ex.com/yes a"),
    // A name ended by whitespace or `/` before its `>`.
    ("<a\t><a/><a\x0c><a\r><a href=/yes>",                "http://ex.com/yes a"),
    ("<p title='<a href=/no>'><a href=/yes>",             "http://ex.com/yes a"),
    ("<p/ title='<a href=/no>'><a href=/yes>",            "http://ex.com/yes a"),
    ("<p x=\"<a href=/no>\"><a href=/yes>",                "http://ex.com/yes a"),
    // End tags.
    ("</p></P></p ></p/></li></div><a href=/yes>",        "http://ex.com/yes a"),
    ("</p x></p x='>'><a href=/yes>",                     "http://ex.com/yes a"),
    ("</p x='<a href=/no>'><a href=/yes>",                "http://ex.com/yes a"),
];

/// [`SHORT_TAGS`] after a full excerpt (stepped over) and from the start
/// (read); then every prefix of them after a full excerpt, so that a short
/// tag meets the end of the input at every byte.
#[test]
fn short_tags_stepped_over() {
    let start = format!("<title>T</title><p>{}</p>", "lorem ipsum ".repeat(50));
    for (html, links) in SHORT_TAGS {
        check_both(&[(&format!("{start}{html}"), links)]);
    }
    check_both(SHORT_TAGS);
    let all: String = SHORT_TAGS.iter().map(|(html, _)| *html).collect();
    let html = format!("{start}{all}");
    for cut in start.len()..=html.len() {
        let Some(prefix) = html.get(..cut) else {
            continue;
        };
        for resources in [false, true] {
            let report = differs(prefix.as_bytes(), &opts(resources));
            assert!(report.is_none(), "{}", report.unwrap_or_default());
        }
    }
}

/// Random runs of short tags and text after a full excerpt, the same page
/// as lol_html gave.
#[test]
fn random_short_tags_same_as_lol_html() {
    #[rustfmt::skip]
    const NAMES: &[&str] = &[
        "p", "P", "a", "A", "b", "i", "li", "br", "em", "Li", "div", "DiV", "xmp", "XMP", "svg",
        "pre", "img", "nav", "span", "math", "meta", "base", "link", "area", "form", "param",
        "title", "Title", "style", "script", "frame", "font", "desc", "mi",
    ];
    #[rustfmt::skip]
    const ENDS: &[&str] = &[
        ">", ">", ">", " >", "/>", "\t>", "\0>", "\x01>", "<", "=>", " x=\">\">", " href=/r>",
        " src=/s>", "", "\n", "é>",
    ];
    #[rustfmt::skip]
    const TEXT: &[&str] = &[
        "", "", "text", "\n", "<", "</", "<!-- c -->", "<![CDATA[x]]>", "<a href=/t>", "&amp;",
    ];
    let start = format!("<title>T</title><p>{}</p>", "lorem ipsum ".repeat(50));
    let mut rng = XorShift(0x0bad_cafe_f00d_1234);
    let mut pick = |list: &[&'static str]| list[(rng.next() % list.len() as u64) as usize];
    for _ in 0..3000 {
        let mut html = start.clone();
        for _ in 0..8 {
            html.push_str(pick(&["<", "<", "</"]));
            html.push_str(pick(NAMES));
            html.push_str(pick(ENDS));
            html.push_str(pick(TEXT));
        }
        for resources in [false, true] {
            let report = differs(html.as_bytes(), &opts(resources));
            assert!(report.is_none(), "{}", report.unwrap_or_default());
        }
    }
}
