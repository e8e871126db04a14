//! Link extraction from an HTML body (SPEC §2.1, §2.3): the URLs a page
//! offers, its robots meta and its title. Pure: bytes in, [`Page`] out.
//!
//! The streaming `lol_html` tokenizer is driven with one selector per tag
//! that can carry a link: it builds no tree, and our code runs only for those
//! tags. Links are read from `a area link frame iframe` (and `img script`
//! and stylesheets when saving a mirror), entity-decoded, resolved against
//! the first `<base href>` or the page URL, normalized like
//! [`crate::rules::normalize`] (fragment dropped) and kept only when http or
//! https. A `<meta charset>` switches decoding, since the caller has no
//! better charset to give.
//!
//! Speed: ~90-110 MB/s on a link-dense page (one link per ~200 bytes),
//! ~150-350 MB/s on real documentation pages; lol_html's selector machinery
//! is most of the cost (see `measure_speed` in the tests).
//!
//! Because the tokenizer streams, a link is resolved against whatever base is
//! in force when its tag is read: links *before* the `<base>` element resolve
//! against the page URL. Browsers resolve every link against the frozen base,
//! but `<base>` belongs in `<head>` before any link, so this only differs on
//! pages that are already broken.
//!
//! Nothing here panics on hostile input: tokenizer errors (a memory limit, a
//! handler stopping at `max_links`) end extraction with what was found so far.

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::LazyLock;

use lol_html::html_content::{Element, TextChunk};
use lol_html::{
    ElementContentHandlers, HandlerResult, HtmlRewriter, MemorySettings, Selector, Settings,
};
use rustc_hash::FxHashMap;
use url::Url;

/// What to extract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkOptions {
    /// Also `img[src]`, `script[src]` and `link[rel=stylesheet][href]`: the
    /// resources a browsable mirror needs, which a crawl that only follows
    /// pages does not.
    pub resources: bool,
    /// Distinct links kept per page; reaching it stops extraction and sets
    /// [`Page::truncated_links`]. Bounds the memory one page can take.
    pub max_links: usize,
}

/// The element a link came from, for the log and for deciding what a link
/// is for (a page to follow or a resource to save).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkKind {
    A,
    Area,
    /// `<link href>` other than a stylesheet (canonical, alternate, icon…).
    Link,
    Frame,
    Iframe,
    Img,
    Script,
    /// `<link rel="stylesheet" href>`.
    Stylesheet,
}

impl LinkKind {
    /// The lower-case name written in the log.
    pub fn name(self) -> &'static str {
        match self {
            LinkKind::A => "a",
            LinkKind::Area => "area",
            LinkKind::Link => "link",
            LinkKind::Frame => "frame",
            LinkKind::Iframe => "iframe",
            LinkKind::Img => "img",
            LinkKind::Script => "script",
            LinkKind::Stylesheet => "stylesheet",
        }
    }
}

/// One link found in a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// Resolved and normalized; always http or https, never a fragment.
    pub url: Url,
    pub kind: LinkKind,
    /// `rel` has the `nofollow` token. When the same URL and kind occur more
    /// than once, this is true only if every occurrence says nofollow: one
    /// plain link is enough to follow it.
    pub nofollow: bool,
}

/// Robots directives from `<meta name="robots">` and `<meta name="AGENT">`.
/// Directives only ever add restrictions: `all`, `index` and `follow` leave
/// the flags false, so several metas combine by union.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RobotsMeta {
    pub noindex: bool,
    pub nofollow: bool,
    pub noarchive: bool,
    pub nosnippet: bool,
    /// Each matching meta as `name: content` (name lower-cased), in page
    /// order, for the log; at most [`MAX_RAW_METAS`] entries.
    pub raw: Vec<String>,
}

/// How many robots metas are kept verbatim in [`RobotsMeta::raw`].
pub const MAX_RAW_METAS: usize = 16;

/// Longest meta content kept verbatim, in characters.
const MAX_RAW_CHARS: usize = 500;

/// Longest title kept, in characters, after collapsing whitespace.
pub const MAX_TITLE_CHARS: usize = 300;

/// Raw title text buffered before giving up on the rest: a few times the
/// kept length, so entities and runs of whitespace still fit.
const MAX_TITLE_BUFFER: usize = 4 * MAX_TITLE_CHARS;

/// Hard cap on the tokenizer's own buffers. The whole body is written in one
/// call, so lol_html parses in place and only buffers a tag cut at the end;
/// this is a backstop, not a limit pages are expected to reach.
const TOKENIZER_MEMORY: usize = 32 << 20;

impl RobotsMeta {
    /// Applies one directive list (`noindex, nofollow`), as found in a meta
    /// `content` or an `X-Robots-Tag` value without its agent prefix. Tokens
    /// are separated by commas or whitespace and compared case-insensitively;
    /// unknown tokens (`max-snippet:50`, `noimageindex`) are ignored here
    /// and stay visible in `raw`.
    pub fn apply(&mut self, directives: &str) {
        for token in directives.split(|c: char| c == ',' || c.is_ascii_whitespace()) {
            let token = token.trim();
            if token.eq_ignore_ascii_case("noindex") {
                self.noindex = true;
            } else if token.eq_ignore_ascii_case("nofollow") {
                self.nofollow = true;
            } else if token.eq_ignore_ascii_case("none") {
                self.noindex = true;
                self.nofollow = true;
            } else if token.eq_ignore_ascii_case("noarchive") {
                self.noarchive = true;
            } else if token.eq_ignore_ascii_case("nosnippet") {
                self.nosnippet = true;
            }
        }
    }
}

/// What a page offers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Page {
    /// Distinct (URL, kind) pairs in page order.
    pub links: Vec<Link>,
    pub robots: RobotsMeta,
    /// The first HTML `<title>`, entities decoded, whitespace collapsed, at
    /// most [`MAX_TITLE_CHARS`] characters; `None` when absent or blank.
    pub title: Option<String>,
    /// A link beyond `max_links` was found: extraction stopped there, so
    /// later links, metas and the title (if after them) are missing.
    pub truncated_links: bool,
    /// Link attributes that did not resolve to a URL (`http://[::1`,
    /// `http://`), counted so the log can show a page's broken links.
    pub bad_urls: usize,
}

/// Selectors parsed once per process: parsing them costs more than a small
/// page's extraction.
struct Selectors {
    a: Selector,
    area: Selector,
    link: Selector,
    frame: Selector,
    iframe: Selector,
    img: Selector,
    script: Selector,
    base: Selector,
    meta: Selector,
    title: Selector,
    svg_title: Selector,
}

static SELECTORS: LazyLock<Selectors> = LazyLock::new(|| {
    let parse = |s: &str| s.parse::<Selector>().expect("static selector parses");
    Selectors {
        a: parse("a[href]"),
        area: parse("area[href]"),
        link: parse("link[href]"),
        frame: parse("frame[src]"),
        iframe: parse("iframe[src]"),
        img: parse("img[src]"),
        script: parse("script[src]"),
        base: parse("base[href]"),
        meta: parse("meta[name][content]"),
        title: parse("title"),
        svg_title: parse("svg title"),
    }
});

/// The handler error that stops the tokenizer once `max_links` is reached.
#[derive(Debug)]
struct LinkLimit;

impl std::fmt::Display for LinkLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("link limit reached")
    }
}

impl std::error::Error for LinkLimit {}

/// Where the first title's text is in the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TitleState {
    NotSeen,
    /// Inside the first HTML `<title>`: its text is being collected.
    Reading,
    Done,
}

/// Everything the handlers share while one page streams through.
struct State<'a> {
    page_url: &'a Url,
    options: &'a LinkOptions,
    agent: &'a str,
    /// The first `<base href>` once seen (and valid); links resolve against
    /// it from then on.
    base: Option<Url>,
    base_seen: bool,
    /// (serialized URL, kind) → index in `page.links`, for dedupe.
    seen: FxHashMap<(String, LinkKind), usize>,
    title_state: TitleState,
    /// Set by the `svg title` handler for the `title` handler that follows
    /// on the same element.
    in_svg_title: bool,
    title_raw: String,
    page: Page,
}

impl State<'_> {
    fn base(&self) -> &Url {
        self.base.as_ref().unwrap_or(self.page_url)
    }

    /// Resolves one attribute value and records the link. Errors only to stop
    /// the tokenizer at `max_links`.
    fn add(&mut self, raw: &str, kind: LinkKind, nofollow: bool) -> HandlerResult {
        let Some(url) = self.resolve(raw) else {
            return Ok(());
        };
        let key = (String::from(url.as_str()), kind);
        if let Some(&at) = self.seen.get(&key) {
            let link = &mut self.page.links[at];
            link.nofollow &= nofollow;
            return Ok(());
        }
        if self.page.links.len() >= self.options.max_links {
            self.page.truncated_links = true;
            return Err(Box::new(LinkLimit));
        }
        self.seen.insert(key, self.page.links.len());
        self.page.links.push(Link {
            url,
            kind,
            nofollow,
        });
        Ok(())
    }

    /// The http(s) URL an attribute value points to, or `None` (counting the
    /// values that are not URLs at all).
    fn resolve(&mut self, raw: &str) -> Option<Url> {
        let value = decode(raw);
        let value = value.trim_matches(|c: char| c.is_ascii_whitespace() || c.is_ascii_control());
        if value.is_empty() || is_skipped_scheme(value) {
            return None;
        }
        match self.base().join(value) {
            Ok(mut url) if matches!(url.scheme(), "http" | "https") => {
                url.set_fragment(None);
                Some(url)
            }
            Ok(_) => None,
            Err(_) => {
                self.page.bad_urls += 1;
                None
            }
        }
    }

    fn on_base(&mut self, el: &Element<'_, '_>) {
        // Only the first <base href> counts, even when it is unusable
        // (HTML's "frozen base URL"); later ones are ignored.
        if self.base_seen {
            return;
        }
        self.base_seen = true;
        let Some(raw) = el.get_attribute("href") else {
            return;
        };
        let value = decode(&raw);
        if let Ok(mut base) = self.page_url.join(value.trim()) {
            if !base.cannot_be_a_base() {
                base.set_fragment(None);
                self.base = Some(base);
            }
        }
    }

    fn on_meta(&mut self, el: &Element<'_, '_>) {
        let (Some(name), Some(content)) = (el.get_attribute("name"), el.get_attribute("content"))
        else {
            return;
        };
        let name = name.trim();
        let ours = name.eq_ignore_ascii_case("robots")
            || (!self.agent.is_empty() && name.eq_ignore_ascii_case(self.agent));
        if !ours {
            return;
        }
        let content = decode(&content);
        self.page.robots.apply(&content);
        if self.page.robots.raw.len() < MAX_RAW_METAS {
            let content: String = content.trim().chars().take(MAX_RAW_CHARS).collect();
            let entry = format!("{}: {content}", name.to_ascii_lowercase());
            self.page.robots.raw.push(entry);
        }
    }

    fn on_title_element(&mut self) {
        // An SVG <title> is a tooltip, not the page title (the `svg title`
        // handler runs first and says so: lol_html reports it in the HTML
        // namespace, as an integration point); a second HTML title is
        // ignored, as browsers do.
        let svg = std::mem::take(&mut self.in_svg_title);
        self.title_state = match self.title_state {
            TitleState::NotSeen if svg => TitleState::NotSeen,
            TitleState::NotSeen => TitleState::Reading,
            TitleState::Reading | TitleState::Done => TitleState::Done,
        };
    }

    fn on_title_text(&mut self, chunk: &TextChunk<'_>) {
        if self.title_state != TitleState::Reading {
            return;
        }
        // Collapse as we go so that a megabyte of indentation cannot fill
        // the buffer before the words arrive.
        for c in chunk.as_str().chars() {
            if self.title_raw.len() >= MAX_TITLE_BUFFER {
                break;
            }
            if c.is_whitespace() {
                if !self.title_raw.is_empty() && !self.title_raw.ends_with(' ') {
                    self.title_raw.push(' ');
                }
            } else {
                self.title_raw.push(c);
            }
        }
        if chunk.last_in_text_node() {
            self.title_state = TitleState::Done;
        }
    }

    fn finish(mut self) -> Page {
        let decoded = htmlize::unescape(self.title_raw.as_str());
        let title: String = decoded
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(MAX_TITLE_CHARS)
            .collect();
        let title = title.trim_end();
        if !title.is_empty() {
            self.page.title = Some(title.to_string());
        }
        self.page
    }
}

/// Entity-decodes an attribute value: lol_html hands values over as
/// written, so `?a=1&amp;b=2` would otherwise become a different URL.
fn decode(raw: &str) -> Cow<'_, str> {
    if raw.contains('&') {
        htmlize::unescape_attribute(raw)
    } else {
        Cow::Borrowed(raw)
    }
}

/// Schemes that are common in links and never fetchable; skipping them by
/// prefix avoids parsing (and copying) long `data:` URLs for nothing.
fn is_skipped_scheme(value: &str) -> bool {
    const SKIPPED: [&str; 4] = ["javascript:", "mailto:", "data:", "tel:"];
    SKIPPED.iter().any(|scheme| {
        value
            .get(..scheme.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(scheme))
    })
}

fn has_rel_token(el: &Element<'_, '_>, token: &str) -> bool {
    el.get_attribute("rel").is_some_and(|rel| {
        rel.split_ascii_whitespace()
            .any(|t| t.eq_ignore_ascii_case(token))
    })
}

type Handlers<'h> = (Cow<'static, Selector>, ElementContentHandlers<'h>);

/// A handler for a tag whose link is in `attr`.
fn link_handler<'h>(
    state: &'h RefCell<State<'_>>,
    selector: &'static Selector,
    attr: &'static str,
    kind: LinkKind,
) -> Handlers<'h> {
    let handler = move |el: &mut Element<'_, '_>| {
        let Some(raw) = el.get_attribute(attr) else {
            return Ok(());
        };
        // `rel` means nothing on frames and resources: skip the lookup.
        let nofollow =
            matches!(kind, LinkKind::A | LinkKind::Area) && has_rel_token(el, "nofollow");
        state.borrow_mut().add(&raw, kind, nofollow)
    };
    (
        Cow::Borrowed(selector),
        ElementContentHandlers::default().element(handler),
    )
}

/// Extracts the links, robots meta and title of one HTML page.
///
/// `page_url` is the URL the body was fetched from (after redirects);
/// `agent` is the crawler's product token, whose own `<meta name=AGENT>`
/// counts like `<meta name="robots">` (empty: only `robots`).
pub fn extract(html: &[u8], page_url: &Url, options: &LinkOptions, agent: &str) -> Page {
    let sel = &*SELECTORS;
    let state = RefCell::new(State {
        page_url,
        options,
        agent: agent.trim(),
        base: None,
        base_seen: false,
        seen: FxHashMap::default(),
        title_state: TitleState::NotSeen,
        in_svg_title: false,
        title_raw: String::new(),
        page: Page::default(),
    });
    {
        let state = &state;
        let mut settings = Settings::new()
            // Non-strict: on markup that could parse two ways, guess as a
            // browser would rather than give up on the rest of the page.
            .with_strict(false)
            .with_adjust_charset_on_meta_tag(true)
            .with_memory_settings(
                MemorySettings::new().with_max_allowed_memory_usage(TOKENIZER_MEMORY),
            )
            .append_element_content_handler(link_handler(state, &sel.a, "href", LinkKind::A))
            .append_element_content_handler(link_handler(state, &sel.area, "href", LinkKind::Area))
            .append_element_content_handler(link_handler(state, &sel.frame, "src", LinkKind::Frame))
            .append_element_content_handler(link_handler(
                state,
                &sel.iframe,
                "src",
                LinkKind::Iframe,
            ))
            .append_element_content_handler((
                Cow::Borrowed(&sel.link),
                ElementContentHandlers::default().element(move |el: &mut Element<'_, '_>| {
                    let Some(raw) = el.get_attribute("href") else {
                        return Ok(());
                    };
                    let kind = if has_rel_token(el, "stylesheet") {
                        if !options.resources {
                            return Ok(());
                        }
                        LinkKind::Stylesheet
                    } else {
                        LinkKind::Link
                    };
                    let nofollow = has_rel_token(el, "nofollow");
                    state.borrow_mut().add(&raw, kind, nofollow)
                }),
            ))
            .append_element_content_handler((
                Cow::Borrowed(&sel.base),
                ElementContentHandlers::default().element(move |el: &mut Element<'_, '_>| {
                    state.borrow_mut().on_base(el);
                    Ok(())
                }),
            ))
            .append_element_content_handler((
                Cow::Borrowed(&sel.meta),
                ElementContentHandlers::default().element(move |el: &mut Element<'_, '_>| {
                    state.borrow_mut().on_meta(el);
                    Ok(())
                }),
            ))
            // Registered before `title`: handlers on one element run in
            // registration order.
            .append_element_content_handler((
                Cow::Borrowed(&sel.svg_title),
                ElementContentHandlers::default().element(move |_: &mut Element<'_, '_>| {
                    state.borrow_mut().in_svg_title = true;
                    Ok(())
                }),
            ))
            .append_element_content_handler((
                Cow::Borrowed(&sel.title),
                ElementContentHandlers::default()
                    .element(move |_: &mut Element<'_, '_>| {
                        state.borrow_mut().on_title_element();
                        Ok(())
                    })
                    .text(move |chunk: &mut TextChunk<'_>| {
                        state.borrow_mut().on_title_text(chunk);
                        Ok(())
                    }),
            ));
        if options.resources {
            settings = settings
                .append_element_content_handler(link_handler(state, &sel.img, "src", LinkKind::Img))
                .append_element_content_handler(link_handler(
                    state,
                    &sel.script,
                    "src",
                    LinkKind::Script,
                ));
        }
        // The output is the unchanged page; nobody needs it.
        let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
        // A rewriter that returned an error is poisoned and panics if used
        // again, so `end` only runs after a clean write. Either error just
        // ends extraction: what was found so far stands.
        if rewriter.write(html).is_ok() {
            let _ = rewriter.end();
        }
    }
    state.into_inner().finish()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    ];

    #[rustfmt::skip]
    const WITH_RESOURCES: &[(&str, &str)] = &[
        (r#"<link rel="stylesheet" href="s.css">"#,   "http://ex.com/d/s.css stylesheet"),
        (r#"<link rel="Alternate StyleSheet" href="t.css">"#, "http://ex.com/d/t.css stylesheet"),
        (r#"<img src="p.png">"#,                      "http://ex.com/d/p.png img"),
        (r#"<script src="j.js"></script>"#,           "http://ex.com/d/j.js script"),
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
                resources: rng.next() % 2 == 0,
                // Now and then a tiny cap, to stop mid-page.
                max_links: if rng.next() % 4 == 0 {
                    (rng.next() % 5) as usize
                } else {
                    1000
                },
            };
            let page = extract(&html, &url, &options, "crawlspace");
            assert!(page.links.len() <= options.max_links);
            for link in &page.links {
                assert!(matches!(link.url.scheme(), "http" | "https"));
                assert_eq!(link.url.fragment(), None);
            }
        }
    }

    /// Extraction speed on a generated ~500 KB page. Run with
    /// `cargo test --release --lib crawl::links -- --ignored --nocapture`.
    #[test]
    #[ignore = "a measurement, not a check"]
    fn measure_speed() {
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
        let url = page_url();
        for resources in [false, true] {
            let options = LinkOptions {
                resources,
                max_links: 100_000,
            };
            let rounds = 50;
            let start = std::time::Instant::now();
            let mut links = 0;
            for _ in 0..rounds {
                links += extract(html.as_bytes(), &url, &options, "crawlspace")
                    .links
                    .len();
            }
            let secs = start.elapsed().as_secs_f64();
            let mb = (html.len() * rounds) as f64 / 1e6;
            println!(
                "resources={resources}: {} bytes, {} links/page, {:.1} MB/s",
                html.len(),
                links / rounds,
                mb / secs
            );
        }
    }
}
