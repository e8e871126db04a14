//! Link extraction from an HTML body (SPEC §2.1, §2.3): the URLs a page
//! offers, its robots meta, its title and a text excerpt. Pure: bytes in,
//! [`Page`] out. [`RobotsMeta::apply_header`] reads `X-Robots-Tag` headers
//! into the same [`RobotsMeta`].
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
//! The excerpt ([`Page::excerpt`], module `excerpt`) is the visible text:
//! not inside `script style noscript template title` (nor SVG's `title
//! desc style script`), and without `<!--noindex-->` and `googleoff`
//! regions. Links inside those regions are still extracted: the regions
//! keep text out of the excerpt, not links out of the crawl.
//!
//! Speed: ~90-110 MB/s on a link-dense page (one link per ~200 bytes),
//! ~150-350 MB/s on real documentation pages; lol_html's selector machinery
//! is most of the cost (see `measure_speed` in the tests). The excerpt pass
//! usually stops within the first kilobytes; on a page with no visible text
//! it reads up to 1 MiB at ~65 MB/s (the link-dense page, all in a noindex
//! region: ~40 MB/s for both passes).
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

pub use excerpt::{MAX_EXCERPT_CHARS, MAX_EXCERPT_SCAN};

mod excerpt;

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

/// Robots directives from `<meta name="robots">`, `<meta name="AGENT">` and
/// `X-Robots-Tag` headers. Directives only ever add restrictions: `all`,
/// `index` and `follow` leave the flags false, so several metas and headers
/// combine by union.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RobotsMeta {
    pub noindex: bool,
    pub nofollow: bool,
    pub noarchive: bool,
    pub nosnippet: bool,
    /// Each matching meta as `name: content` (name lower-cased), in page
    /// order, and each `X-Robots-Tag` header as `X-Robots-Tag: value` (also
    /// one addressed to another crawler, so the log shows it was seen), for
    /// the log; at most [`MAX_RAW_METAS`] entries.
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

    /// Applies one `X-Robots-Tag` header value; call it once per header, in
    /// order. `agent` is our product token (empty: only directives for all
    /// crawlers apply).
    ///
    /// A value is a comma-separated list of directives, some of which may be
    /// addressed to one crawler: `googlebot: noindex, nofollow` addresses
    /// both to googlebot. An item `NAME: rest` starts such a group when NAME
    /// looks like a product token (ASCII letters, digits, `_`, `-`, with at
    /// least one letter), is not itself a directive name, and the first word
    /// of `rest` is a directive name. So `unavailable_after: 25 Jun 2010
    /// 15:00:00 PST` and `max-snippet: 20` stay directives, the times inside
    /// a date never look like crawlers, and `otherbot: foo` is ignored as a
    /// whole. A group runs to the next group or the end of the value, and
    /// applies when NAME equals `agent` case-insensitively; items before
    /// any group apply to every crawler.
    pub fn apply_header(&mut self, value: &str, agent: &str) {
        let agent = agent.trim();
        // Whether the items read now are addressed to us.
        let mut ours = true;
        for item in value.split(',') {
            let mut directives = item;
            if let Some((name, rest)) = item.split_once(':') {
                let name = name.trim();
                if is_agent_prefix(name, rest) {
                    ours = !agent.is_empty() && name.eq_ignore_ascii_case(agent);
                    directives = rest;
                }
            }
            if ours {
                self.apply(directives);
            }
        }
        if self.raw.len() < MAX_RAW_METAS {
            let value: String = value.trim().chars().take(MAX_RAW_CHARS).collect();
            self.raw.push(format!("X-Robots-Tag: {value}"));
        }
    }

    /// [`Self::apply_header`] for every `X-Robots-Tag` header of a response.
    pub fn apply_headers<'v>(&mut self, values: impl IntoIterator<Item = &'v str>, agent: &str) {
        for value in values {
            self.apply_header(value, agent);
        }
    }
}

/// Robots directive names (Google's list, plus `index` and `follow`): a
/// word before a colon that is one of these is a directive with a value,
/// never a crawler's name.
const ROBOTS_DIRECTIVES: [&str; 16] = [
    "all",
    "index",
    "follow",
    "noindex",
    "nofollow",
    "none",
    "noarchive",
    "nosnippet",
    "notranslate",
    "noimageindex",
    "unavailable_after",
    "max-snippet",
    "max-image-preview",
    "max-video-preview",
    "indexifembedded",
    "nocache",
];

fn is_directive(word: &str) -> bool {
    ROBOTS_DIRECTIVES
        .iter()
        .any(|d| d.eq_ignore_ascii_case(word))
}

/// Whether `name: rest` (one item of an `X-Robots-Tag` value) addresses
/// `rest` to the crawler `name`; see [`RobotsMeta::apply_header`].
fn is_agent_prefix(name: &str, rest: &str) -> bool {
    let token = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && name.bytes().any(|b| b.is_ascii_alphabetic());
    let first_word = rest
        .trim_start()
        .split(|c: char| c == ':' || c == ',' || c.is_ascii_whitespace())
        .next()
        .unwrap_or("");
    token && !is_directive(name) && is_directive(first_word)
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
    /// The page's visible text, entities decoded, whitespace collapsed, at
    /// most [`MAX_EXCERPT_CHARS`] characters, without the `noindex` and
    /// `googleoff` regions; empty when there is none. Only the first
    /// [`MAX_EXCERPT_SCAN`] bytes of the page are read for it.
    pub excerpt: String,
    /// Stretches of text left out of the excerpt by `<!--noindex-->` or
    /// `<!--googleoff: …-->` markers, for the log: those met before the
    /// excerpt was complete (the excerpt pass reads no further).
    pub noindex_regions: u32,
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

/// Extracts the links, robots meta, title and excerpt of one HTML page.
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
    let mut page = state.into_inner().finish();
    (page.excerpt, page.noindex_regions) = excerpt::excerpt(html);
    page
}

#[cfg(test)]
mod tests;
