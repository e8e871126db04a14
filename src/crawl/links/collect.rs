//! The [`Sink`] that turns a page's tokens into a [`Page`]: links from the
//! tags that carry them, the first `<base href>`, robots metas, a `<meta
//! charset>` switch, the title and the excerpt.
//!
//! It keeps what lol_html's two passes did: once `max_links` is reached,
//! links, metas, the base and the title are no longer read (the link pass
//! stopped there), while the excerpt and the charset switch go on over the
//! first [`MAX_EXCERPT_SCAN`] bytes (the excerpt pass did not stop). The
//! open-element stack (module `open`) is kept only while the title or the
//! excerpt may still need it, which on most pages is the first few
//! kilobytes; after that, and once the excerpt is full, text is skipped
//! unread and only tags are looked at.

use std::borrow::Cow;
use std::hash::{Hash, Hasher};

use encoding_rs::{Encoding, UTF_8};
use rustc_hash::{FxHashMap, FxHasher};
use url::Url;

use super::excerpt::{Excerpt, MAX_EXCERPT_SCAN};
use super::foreign::Ns;
use super::open::{self, BOUNDARY, Open, TITLE};
use super::scan::{Flow, Name, Sink, Tag, TextKind};
use super::{
    Link, LinkKind, LinkOptions, MAX_RAW_CHARS, MAX_RAW_METAS, MAX_TITLE_BUFFER, MAX_TITLE_CHARS,
    Page,
};

/// Where the first title's text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TitleState {
    NotSeen,
    /// The first HTML `<title>` started: its text is the title.
    Reading,
    Done,
}

#[derive(Debug)]
pub(super) struct Collector<'a> {
    page_url: &'a Url,
    options: &'a LinkOptions,
    agent: &'a str,
    /// Decodes attribute values and text: the charset the response
    /// declared, else UTF-8 until a `<meta charset>` names another
    /// ASCII-compatible encoding (only the first counts).
    encoding: &'static Encoding,
    charset_set: bool,
    /// The first `<base href>` once seen (and valid); links resolve
    /// against it from then on.
    base: Option<Url>,
    base_seen: bool,
    seen: LinkIndex,
    /// `max_links` was passed: links, metas, the base and the title are
    /// no longer read.
    stopped: bool,
    title: TitleState,
    /// The title element being read is open.
    title_open: bool,
    title_raw: String,
    /// `None` once neither the title nor the excerpt needs it.
    open: Option<Open>,
    excerpt: Excerpt,
    /// The excerpt is full or the scan is past [`MAX_EXCERPT_SCAN`].
    excerpt_done: bool,
    /// A `<style>` start tag of a saved page was read: the text that
    /// follows is CSS to read for references.
    style_pending: bool,
    page: Page,
}

impl<'a> Collector<'a> {
    /// `declared`: the charset of the response's `Content-Type`, which
    /// no `<meta charset>` overrides.
    pub(super) fn new(
        page_url: &'a Url,
        options: &'a LinkOptions,
        agent: &'a str,
        declared: Option<&'static Encoding>,
    ) -> Self {
        Collector {
            page_url,
            options,
            agent,
            encoding: declared.unwrap_or(UTF_8),
            charset_set: declared.is_some(),
            base: None,
            base_seen: false,
            seen: LinkIndex::default(),
            stopped: false,
            title: TitleState::NotSeen,
            title_open: false,
            title_raw: String::new(),
            open: Some(Open::default()),
            excerpt: Excerpt::default(),
            excerpt_done: false,
            style_pending: false,
            page: Page::default(),
        }
    }

    /// Whether the scan is worth going on with.
    fn flow(&self) -> Flow {
        if self.stopped && self.excerpt_done {
            Flow::Break(())
        } else {
            Flow::Continue(())
        }
    }

    /// Drops the open-element stack once nothing needs it.
    fn update_needs(&mut self, at: usize) {
        if at >= MAX_EXCERPT_SCAN || self.excerpt.full() {
            self.excerpt_done = true;
        }
        let title_pending = !self.stopped && self.title != TitleState::Done;
        if self.open.is_some() && !title_pending && self.excerpt_done {
            self.open = None;
        }
    }

    fn base_url(&self) -> &Url {
        self.base.as_ref().unwrap_or(self.page_url)
    }

    /// An attribute value as text: decoded as lol_html's `get_attribute`
    /// decoded it (a byte-order mark at its start wins over the charset).
    fn attr_text<'v>(&self, raw: &'v [u8]) -> Cow<'v, str> {
        self.encoding.decode(raw).0
    }

    /// The link in attribute `attr` of `tag`, if any.
    fn link(&mut self, tag: &Tag<'_>, attr: &[u8], kind: LinkKind) {
        let Some(raw) = tag.attr(attr) else {
            return;
        };
        // `rel` means nothing on frames and resources: skip the lookup.
        let nofollow = matches!(kind, LinkKind::A | LinkKind::Area) && has_rel(tag, b"nofollow");
        self.add(raw, kind, nofollow);
    }

    /// `<link href>`: a stylesheet (a resource) or another link.
    fn link_element(&mut self, tag: &Tag<'_>) {
        let Some(raw) = tag.attr(b"href") else {
            return;
        };
        let kind = if has_rel(tag, b"stylesheet") {
            if !self.options.resources {
                return;
            }
            LinkKind::Stylesheet
        } else {
            LinkKind::Link
        };
        self.add(raw, kind, has_rel(tag, b"nofollow"));
    }

    /// Each image candidate of `<img srcset>` or `<source srcset>`
    /// (module `srcset`), as an image.
    fn srcset(&mut self, tag: &Tag<'_>) {
        let Some(raw) = tag.attr(b"srcset") else {
            return;
        };
        let text = self.attr_text(raw);
        let value = super::decode(&text);
        for range in super::srcset::url_ranges(&value) {
            if self.stopped {
                return;
            }
            if let Some(url) = value.get(range) {
                self.add_value(url, LinkKind::Img, false);
            }
        }
    }

    /// The references of CSS in the page (a `style` attribute, a `<style>`
    /// element) or of a stylesheet ([`super::extract_css`]), resolved
    /// against the page's base: `@import` as a
    /// stylesheet, `url(…)` as [`LinkKind::CssUrl`].
    pub(super) fn inline_css(&mut self, css: &str) {
        for reference in super::css::css_urls(css) {
            if self.stopped {
                return;
            }
            let kind = if reference.import {
                LinkKind::Stylesheet
            } else {
                LinkKind::CssUrl
            };
            self.add_value(&reference.url, kind, false);
        }
    }

    /// Resolves one attribute value and records the link; passing
    /// `max_links` stops reading links.
    fn add(&mut self, raw: &[u8], kind: LinkKind, nofollow: bool) {
        let text = self.attr_text(raw);
        let value = super::decode(&text);
        self.add_value(&value, kind, nofollow);
    }

    /// [`Self::add`] for a value already decoded.
    fn add_value(&mut self, value: &str, kind: LinkKind, nofollow: bool) {
        let Some(url) = self.resolve(value) else {
            return;
        };
        let links = &mut self.page.links;
        if let Some(at) = self.seen.find(links, &url, kind) {
            if let Some(link) = links.get_mut(at) {
                link.nofollow &= nofollow;
            }
            return;
        }
        if links.len() >= self.options.max_links {
            self.page.truncated_links = true;
            self.stopped = true;
            return;
        }
        self.seen.insert(&url, kind, links.len());
        links.push(Link {
            url,
            kind,
            nofollow,
        });
    }

    /// The http(s) URL a decoded attribute value points to, or `None`
    /// (counting the values that are not URLs at all).
    fn resolve(&mut self, value: &str) -> Option<Url> {
        let value = value.trim_matches(|c: char| c.is_ascii_whitespace() || c.is_ascii_control());
        if value.is_empty() || super::is_skipped_scheme(value) {
            return None;
        }
        match self.join(value) {
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

    /// `value` resolved against the base. On a page in another charset
    /// than UTF-8 the query is encoded in it (WHATWG URL's encoding
    /// override: `?q=café` on a Latin-1 page is `?q=caf%E9`), characters it
    /// cannot encode as `&#N;`, as a browser sends them.
    fn join(&self, value: &str) -> Result<Url, url::ParseError> {
        if self.encoding == UTF_8 {
            return self.base_url().join(value);
        }
        let encoding = self.encoding;
        let encode: &dyn Fn(&str) -> Cow<'_, [u8]> = &move |text| encoding.encode(text).0;
        Url::options()
            .base_url(Some(self.base_url()))
            .encoding_override(Some(encode))
            .parse(value)
    }

    fn base(&mut self, tag: &Tag<'_>) {
        let Some(raw) = tag.attr(b"href") else {
            return;
        };
        // Only the first <base href> counts, even when it is unusable
        // (HTML's "frozen base URL"); later ones are ignored.
        if self.base_seen {
            return;
        }
        self.base_seen = true;
        let text = self.attr_text(raw);
        let value = super::decode(&text);
        if let Ok(mut base) = self.page_url.join(value.trim())
            && !base.cannot_be_a_base()
        {
            base.set_fragment(None);
            self.base = Some(base);
        }
    }

    /// `<meta charset>` or `<meta http-equiv=Content-Type content=…>`: the
    /// first one naming an ASCII-compatible encoding switches decoding for
    /// the rest of the page (including this tag's other attributes, as
    /// lol_html's handler ran first).
    fn charset(&mut self, tag: &Tag<'_>) {
        if self.charset_set {
            return;
        }
        let label = tag.attr(b"charset").or_else(|| {
            let http_equiv = tag.attr(b"http-equiv")?;
            if !http_equiv.eq_ignore_ascii_case(b"content-type") {
                return None;
            }
            charset_param(tag.attr(b"content")?)
        });
        let encoding = label
            .and_then(Encoding::for_label_no_replacement)
            .filter(|e| e.is_ascii_compatible());
        if let Some(encoding) = encoding {
            self.encoding = encoding;
            self.charset_set = true;
        }
    }

    fn robots_meta(&mut self, tag: &Tag<'_>) {
        let (Some(name), Some(content)) = (tag.attr(b"name"), tag.attr(b"content")) else {
            return;
        };
        let name = self.attr_text(name);
        let name = name.trim();
        let ours = name.eq_ignore_ascii_case("robots")
            || (!self.agent.is_empty() && name.eq_ignore_ascii_case(self.agent));
        if !ours {
            return;
        }
        let name = name.to_ascii_lowercase();
        let content = self.attr_text(content).into_owned();
        let content = super::decode(&content);
        let robots = &mut self.page.robots;
        robots.apply(&content);
        if robots.raw.len() < MAX_RAW_METAS {
            let content: String = content.trim().chars().take(MAX_RAW_CHARS).collect();
            robots.raw.push(format!("{name}: {content}"));
        }
    }

    /// A `<title>` start tag; returns the flag for its element when it is
    /// the one to read.
    fn title_start(&mut self) -> u8 {
        // An SVG <title> is a tooltip, not the page title; a second HTML
        // title is ignored, as browsers do.
        let svg = self.open.as_ref().is_some_and(Open::in_svg);
        self.title = match self.title {
            TitleState::NotSeen if svg => TitleState::NotSeen,
            TitleState::NotSeen => return TITLE,
            TitleState::Reading | TitleState::Done => TitleState::Done,
        };
        0
    }

    fn title_text(&mut self, text: &[u8]) {
        let text = self.encoding.decode_without_bom_handling(text).0;
        // Collapse as we go so that a megabyte of indentation cannot fill
        // the buffer before the words arrive.
        for c in text.chars() {
            if self.title_raw.len() >= MAX_TITLE_BUFFER {
                break;
            }
            // Control characters count as space (`finish`).
            if c.is_whitespace() || c.is_control() {
                if !self.title_raw.is_empty() && !self.title_raw.ends_with(' ') {
                    self.title_raw.push(' ');
                }
            } else {
                self.title_raw.push(c);
            }
        }
        self.title = TitleState::Done;
    }

    /// The visible part of `text` at `at`, for the excerpt.
    fn excerpt_text(&mut self, at: usize, text: &[u8]) {
        let hidden = self.open.as_ref().is_some_and(Open::hidden);
        if hidden {
            return;
        }
        let text = window(at, text);
        let text = self.encoding.decode_without_bom_handling(text).0;
        if self.excerpt.wants_text() {
            self.excerpt.text(&text);
        }
        self.excerpt.end_of_text_node();
    }

    pub(super) fn finish(mut self) -> Page {
        let decoded = htmlize::unescape(self.title_raw.as_str());
        // Control characters, raw or from references (`&#27;`), count as
        // space: they have no place in a title shown on a terminal.
        let title: String = decoded
            .split(|c: char| c.is_whitespace() || c.is_control())
            .filter(|word| !word.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(MAX_TITLE_CHARS)
            .collect();
        let title = title.trim_end();
        if !title.is_empty() {
            self.page.title = Some(title.to_string());
        }
        (self.page.excerpt, self.page.noindex_regions) = self.excerpt.finish();
        self.page
    }
}

/// What [`Collector::start_tag`](Sink::start_tag) reads in a start tag
/// for itself; tags not listed only matter to the open-element stack and
/// the excerpt's word boundaries. One list for both the reading and
/// [`Sink::wants_start_tag`], so that no tag that is read is stepped over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reads {
    /// The link in this attribute.
    Link(&'static [u8], LinkKind),
    /// The link in this attribute, when resources are asked for.
    Resource(&'static [u8], LinkKind),
    /// `<img src srcset>`, when resources are asked for.
    Image,
    /// `<source src>` (in `<video>`, `<audio>`) and `<source srcset>` (in
    /// `<picture>`), when resources are asked for.
    Source,
    /// `<video src poster>`, when resources are asked for.
    Video,
    /// `<input type=image src>`, when resources are asked for.
    Input,
    /// `<link href>`: a stylesheet or another link.
    LinkElement,
    Base,
    /// Robots metas and the charset.
    Meta,
    Title,
}

impl Reads {
    #[inline]
    fn of(name: &[u8]) -> Option<Reads> {
        Some(match name {
            b"a" => Reads::Link(b"href", LinkKind::A),
            b"area" => Reads::Link(b"href", LinkKind::Area),
            b"frame" => Reads::Link(b"src", LinkKind::Frame),
            b"iframe" => Reads::Link(b"src", LinkKind::Iframe),
            b"img" => Reads::Image,
            b"source" => Reads::Source,
            b"script" => Reads::Resource(b"src", LinkKind::Script),
            b"video" => Reads::Video,
            b"audio" => Reads::Resource(b"src", LinkKind::Media),
            b"track" => Reads::Resource(b"src", LinkKind::Media),
            b"embed" => Reads::Resource(b"src", LinkKind::Media),
            b"object" => Reads::Resource(b"data", LinkKind::Media),
            b"input" => Reads::Input,
            b"link" => Reads::LinkElement,
            b"base" => Reads::Base,
            b"meta" => Reads::Meta,
            b"title" => Reads::Title,
            _ => return None,
        })
    }
}

impl Sink for Collector<'_> {
    #[inline]
    fn wants_start_tag(&self, name: &[u8]) -> bool {
        // Once the open-element stack is gone (the title and excerpt are
        // done), any other tag would change nothing. The stack is dropped
        // only once the excerpt is done (`update_needs`), so
        // `excerpt_done` need not be tested here.
        debug_assert!(self.open.is_some() || self.excerpt_done);
        self.wants_all_start_tags() || Reads::of(name).is_some()
    }

    #[inline]
    fn wants_all_start_tags(&self) -> bool {
        // As in `wants_start_tag`: the open-element stack needs every tag;
        // so does a saved page, for the images of `style` attributes.
        self.open.is_some() || self.options.resources
    }

    #[inline]
    fn wants_end_tags(&self) -> bool {
        // End tags only close elements of the open-element stack.
        self.open.is_some()
    }

    fn start_tag(&mut self, tag: &Tag<'_>) -> Flow {
        let name = tag.name.bytes();
        let reads = Reads::of(name);
        let mut flags = 0;
        if reads == Some(Reads::Meta) {
            self.charset(tag);
        }
        if !self.stopped {
            match reads {
                Some(Reads::Link(attr, kind)) => self.link(tag, attr, kind),
                Some(Reads::Resource(attr, kind)) if self.options.resources => {
                    self.link(tag, attr, kind);
                }
                Some(Reads::Image) if self.options.resources => {
                    self.link(tag, b"src", LinkKind::Img);
                    self.srcset(tag);
                }
                Some(Reads::Source) if self.options.resources => {
                    self.link(tag, b"src", LinkKind::Media);
                    self.srcset(tag);
                }
                Some(Reads::Video) if self.options.resources => {
                    self.link(tag, b"src", LinkKind::Media);
                    self.link(tag, b"poster", LinkKind::Img);
                }
                Some(Reads::Input) if self.options.resources => {
                    let image = tag.attr(b"type").is_some_and(|raw| {
                        let text = self.attr_text(raw);
                        super::decode(&text)
                            .trim_matches(|c: char| c.is_ascii_whitespace())
                            .eq_ignore_ascii_case("image")
                    });
                    if image {
                        self.link(tag, b"src", LinkKind::Img);
                    }
                }
                Some(Reads::LinkElement) => self.link_element(tag),
                Some(Reads::Base) => self.base(tag),
                Some(Reads::Meta) => self.robots_meta(tag),
                Some(Reads::Title) => flags |= self.title_start(),
                Some(
                    Reads::Resource(..)
                    | Reads::Image
                    | Reads::Source
                    | Reads::Video
                    | Reads::Input,
                )
                | None => {}
            }
            if self.options.resources {
                if let Some(style) = tag.attr(b"style") {
                    let text = self.attr_text(style);
                    self.inline_css(&super::decode(&text));
                }
                // Its text comes next (raw text, in HTML only).
                self.style_pending = name == b"style" && tag.ns == Ns::Html;
            }
        }
        self.update_needs(tag.at);
        if !self.excerpt_done && self.excerpt.wants_text() && open::is_block(name) {
            self.excerpt.boundary();
            flags |= BOUNDARY;
        }
        if let Some(open) = &mut self.open {
            let opened = open.start_tag(tag, flags);
            if flags & TITLE != 0 {
                self.title = TitleState::Reading;
                self.title_open = opened;
            }
        }
        self.flow()
    }

    fn end_tag(&mut self, name: &Name) -> Flow {
        self.style_pending = false;
        if let Some(open) = &mut self.open {
            let flags = open.end_tag(name);
            if flags & BOUNDARY != 0 {
                self.excerpt.boundary();
            }
            if flags & TITLE != 0 {
                self.title_open = false;
            }
        }
        self.flow()
    }

    fn wants_text(&self) -> bool {
        let title = !self.stopped && self.title == TitleState::Reading && self.title_open;
        title || !self.excerpt_done || self.style_pending
    }

    fn text(&mut self, at: usize, text: &[u8], kind: TextKind) -> Flow {
        if std::mem::take(&mut self.style_pending) && kind == TextKind::RawText && !self.stopped {
            let css = self.encoding.decode_without_bom_handling(text).0;
            self.inline_css(&css);
        }
        if !self.stopped && self.title == TitleState::Reading && self.title_open {
            self.title_text(text);
        }
        if !self.excerpt_done && at < MAX_EXCERPT_SCAN && kind == TextKind::Data {
            self.excerpt_text(at, text);
        }
        self.update_needs(at);
        self.flow()
    }

    fn comment(&mut self, at: usize, text: &[u8]) -> Flow {
        self.update_needs(at);
        if !self.excerpt_done {
            let text = window(at, text);
            let text = self.encoding.decode_without_bom_handling(text).0;
            self.excerpt.comment(&text);
            self.update_needs(at);
        }
        self.flow()
    }
}

/// The part of `text` (at offset `at`) inside the excerpt's window: what
/// the excerpt pass saw when it stopped reading at [`MAX_EXCERPT_SCAN`].
fn window(at: usize, text: &[u8]) -> &[u8] {
    let room = MAX_EXCERPT_SCAN.saturating_sub(at);
    text.get(..room).unwrap_or(text)
}

/// Whether `rel` has the token `token` (ASCII, case-insensitive).
fn has_rel(tag: &Tag<'_>, token: &[u8]) -> bool {
    tag.attr(b"rel").is_some_and(|rel| {
        rel.split(u8::is_ascii_whitespace)
            .any(|t| t.eq_ignore_ascii_case(token))
    })
}

/// The `charset` parameter of a media type (`text/html; charset=utf-8`),
/// quotes removed; `None` unless the value looks like a media type.
pub(super) fn charset_param(content: &[u8]) -> Option<&[u8]> {
    let mut parts = content.split(|&b| b == b';');
    let essence = parts.next()?.trim_ascii();
    let (kind, subtype) = essence.split_at(essence.iter().position(|&b| b == b'/')?);
    if kind.is_empty() || subtype.len() < 2 {
        return None;
    }
    parts.find_map(|param| {
        let eq = param.iter().position(|&b| b == b'=')?;
        let (name, value) = param.split_at(eq);
        let value = value.get(1..)?.trim_ascii();
        let value = value
            .strip_prefix(b"\"")
            .and_then(|v| v.strip_suffix(b"\""))
            .unwrap_or(value);
        name.trim_ascii()
            .eq_ignore_ascii_case(b"charset")
            .then_some(value)
    })
}

/// Distinct (URL, kind) pairs: their index in the page's links by hash,
/// without a copy of each URL as a key.
#[derive(Debug, Default)]
struct LinkIndex {
    /// Hash → index of the latest link with that hash.
    heads: FxHashMap<u64, usize>,
    /// For each link, the index of the previous link with the same hash.
    older: Vec<Option<usize>>,
}

impl LinkIndex {
    fn hash(url: &Url, kind: LinkKind) -> u64 {
        let mut hasher = FxHasher::default();
        url.as_str().hash(&mut hasher);
        kind.hash(&mut hasher);
        hasher.finish()
    }

    fn find(&self, links: &[Link], url: &Url, kind: LinkKind) -> Option<usize> {
        let mut next = self.heads.get(&Self::hash(url, kind)).copied();
        while let Some(at) = next {
            let link = links.get(at)?;
            if link.kind == kind && link.url.as_str() == url.as_str() {
                return Some(at);
            }
            next = self.older.get(at).copied().flatten();
        }
        None
    }

    fn insert(&mut self, url: &Url, kind: LinkKind, at: usize) {
        let older = self.heads.insert(Self::hash(url, kind), at);
        self.older.push(older);
    }
}
