//! Link extraction from an HTML body (SPEC §2.1, §2.3): the URLs a page
//! offers, its robots meta, its title and a text excerpt. Pure: bytes in,
//! [`Page`] out. [`RobotsMeta::apply_header`] reads `X-Robots-Tag` headers
//! into the same [`RobotsMeta`].
//!
//! One pass over the bytes does everything: module `scan` is a tokenizer
//! written for this job (HTML5 tokenization rules, `memchr` to skip to the
//! next `<`; modules `foreign` and `open` keep the little tree state it and
//! the excerpt need), and module `collect` reads the tokens. Links are read
//! from `a area link frame iframe` (and `img script`, stylesheets, media,
//! `video` posters, the images of `srcset`, module `srcset`, and the
//! references of the page's CSS, module `css`, when saving a mirror),
//! entity-decoded, resolved against the first `<base
//! href>` or the page URL, normalized like [`crate::rules::normalize`]
//! (fragment dropped) and kept only when http or https. Bytes are decoded
//! in the charset the response's `Content-Type` declares ([`extract_in`]),
//! else UTF-8 until a `<meta charset>` names another; a non-UTF-8 page's
//! links carry their query in that charset, as browsers send them (the
//! path is always UTF-8, WHATWG URL).
//!
//! The excerpt ([`Page::excerpt`], module `excerpt`) is the visible text:
//! not inside `script style noscript template title` (nor SVG's `title
//! desc style script`), and without `<!--noindex-->` and `googleoff`
//! regions. Links inside those regions are still extracted: the regions
//! keep text out of the excerpt, not links out of the crawl. Once the
//! excerpt and the title are complete, text is skipped unread.
//!
//! The scanner replaced two lol_html passes (one for links, one for the
//! title and excerpt) and gives the same [`Page`]: the tests compare it
//! with that code (kept as a test-only reference) on random HTML, the demo
//! site and 5,000 real documentation pages. Speed, against lol_html in the
//! same run (`measure_speed` in the tests, two runs on a shared machine,
//! the build before in between): 2.2 GB/s on the crawl benchmark's 28 KB
//! pages (18x; 1.5 GB/s, 12x, before tags that change nothing were stepped
//! over), 700 MB/s on 400 real documentation pages (5.6x; 571 MB/s
//! before), 351-354 MB/s on a page with a link every 200 bytes (3.3-3.6x),
//! where resolving the URLs is most of the cost.
//!
//! Tokens are read in order, so a link is resolved against whatever base is
//! in force when its tag is read: links *before* the `<base>` element
//! resolve against the page URL. Browsers resolve every link against the
//! frozen base, but `<base>` belongs in `<head>` before any link, so this
//! only differs on pages that are already broken.
//!
//! Nothing here panics on hostile input, and memory is bounded: the scanner
//! never looks back and keeps at most a few hundred attributes of a tag,
//! and the element and namespace stacks are capped.

use std::borrow::Cow;

use url::Url;

pub use excerpt::{MAX_EXCERPT_CHARS, MAX_EXCERPT_SCAN};

mod collect;
pub(crate) mod css;
mod excerpt;
mod foreign;
mod open;
mod scan;
pub(crate) mod srcset;

/// What to extract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinkOptions {
    /// Also `img[src]`, `script[src]`, `link[rel=stylesheet][href]`,
    /// `input[type=image][src]`, `video[poster]`, the images of
    /// `img[srcset]` and `source[srcset]`, media ([`LinkKind::Media`]) and
    /// the references of the page's CSS (`style` attributes, `<style>`
    /// elements): the resources a browsable mirror needs, which a crawl
    /// that only follows pages does not.
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
    /// `<link rel="stylesheet" href>`, or an `@import` in a stylesheet.
    Stylesheet,
    /// `url(…)` in a stylesheet: an image, a font, a cursor.
    CssUrl,
    /// Audio, video, their tracks, embedded objects: `src` of `audio`,
    /// `video`, `source`, `track`, `embed`, `data` of `object`.
    Media,
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
            LinkKind::CssUrl => "css url",
            LinkKind::Media => "media",
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

/// Entity-decodes an attribute value: the scanner hands values over as
/// written, so `?a=1&amp;b=2` would otherwise become a different URL.
pub(crate) fn decode(raw: &str) -> Cow<'_, str> {
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

/// Extracts the links, robots meta, title and excerpt of one HTML page.
///
/// `page_url` is the URL the body was fetched from (after redirects);
/// `agent` is the crawler's product token, whose own `<meta name=AGENT>`
/// counts like `<meta name="robots">` (empty: only `robots`).
pub fn extract(html: &[u8], page_url: &Url, options: &LinkOptions, agent: &str) -> Page {
    extract_in(html, page_url, options, agent, None)
}

/// [`extract`] for a body whose response declared a charset (the
/// `charset` parameter of its `Content-Type`, as [`charset_of`] reads it):
/// that charset, when `encoding_rs` knows it and it is ASCII-compatible,
/// decodes the page and a `<meta charset>` no longer switches it, as in
/// browsers (the transport's charset wins over the document's, and a
/// UTF-8 byte-order mark over both).
pub fn extract_in(
    html: &[u8],
    page_url: &Url,
    options: &LinkOptions,
    agent: &str,
    declared: Option<&str>,
) -> Page {
    let declared = match encoding_rs::Encoding::for_bom(html) {
        // A byte-order mark wins over the transport's charset, as in
        // browsers.
        Some((bom, _)) => Some(bom),
        None => declared
            .and_then(|label| encoding_rs::Encoding::for_label_no_replacement(label.as_bytes())),
    };
    // The scanner reads ASCII-compatible bytes; a page in UTF-16 (or
    // ISO-2022-JP) is decoded whole first and read as the UTF-8 it becomes
    // (at most half as large again as the body, which the fetch capped).
    if let Some(encoding) = declared
        && !encoding.is_ascii_compatible()
    {
        let (text, _) = encoding.decode_with_bom_removal(html);
        return extract_in(text.as_bytes(), page_url, options, agent, Some("utf-8"));
    }
    let mut collector = collect::Collector::new(page_url, options, agent.trim(), declared);
    scan::scan(html, &mut collector);
    collector.finish()
}

/// The URLs a stylesheet refers to (module `css`), as a [`Page`] of links
/// only: `@import`ed stylesheets as [`LinkKind::Stylesheet`], the others
/// (`url(…)`) as [`LinkKind::CssUrl`], resolved against the stylesheet's
/// own URL, fragment dropped, http and https only, each once, at most
/// `max_links` ([`Page::truncated_links`] beyond). Decoded in the charset
/// the response declared, else UTF-8 (a byte-order mark wins over both;
/// `@charset` is not read).
pub fn extract_css(css: &[u8], sheet_url: &Url, max_links: usize, declared: Option<&str>) -> Page {
    // CSS Syntax 3.2: the BOM, then the response's charset, then the
    // sheet's own `@charset`, then UTF-8.
    let encoding = encoding_rs::Encoding::for_bom(css)
        .map(|(bom, _)| bom)
        .or_else(|| {
            declared
                .and_then(|label| encoding_rs::Encoding::for_label_no_replacement(label.as_bytes()))
        })
        .or_else(|| charset_rule(css))
        .unwrap_or(encoding_rs::UTF_8);
    let (text, _) = encoding.decode_with_bom_removal(css);
    // The references read as a saved page's `<style>` is: the collector
    // resolves, dedupes and caps them (URLs in CSS are UTF-8, so no page
    // charset for their queries).
    let options = LinkOptions {
        resources: true,
        max_links,
    };
    let mut collector = collect::Collector::new(sheet_url, &options, "", None);
    collector.inline_css(&text);
    collector.finish()
}

/// The encoding a stylesheet names in its first bytes, written exactly as
/// CSS Syntax 3.2 reads it: `@charset "label";` at the very start, double
/// quotes, one space. A UTF-16 label means UTF-8 there (the bytes that
/// spell it are ASCII, so the sheet cannot be UTF-16).
fn charset_rule(css: &[u8]) -> Option<&'static encoding_rs::Encoding> {
    let rest = css.strip_prefix(b"@charset \"")?;
    let head = &rest[..rest.len().min(1024)];
    let end = head.windows(2).position(|w| w == b"\";")?;
    let encoding = encoding_rs::Encoding::for_label_no_replacement(&head[..end])?;
    Some(
        if encoding == encoding_rs::UTF_16BE || encoding == encoding_rs::UTF_16LE {
            encoding_rs::UTF_8
        } else {
            encoding
        },
    )
}

/// The `charset` parameter of a media type (`text/html; charset=utf-8`),
/// quotes removed; `None` unless the value looks like a media type.
pub fn charset_of(content_type: &str) -> Option<&str> {
    let param = collect::charset_param(content_type.as_bytes())?;
    std::str::from_utf8(param).ok()
}

#[cfg(test)]
mod tests;
