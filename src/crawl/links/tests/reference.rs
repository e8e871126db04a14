//! The extraction this module replaced: lol_html driven with one selector
//! per link tag, plus a second lol_html pass for the excerpt, kept (as of
//! commit 8928e6e) as the reference for the differential tests and the
//! speed comparison. Test-only: lol_html is a dev-dependency.
//!
//! Not all of it is the old code: the excerpt pass feeds the live
//! [`Excerpt`] (module `excerpt`), so the differential tests check how text
//! reaches the excerpt (tokenization, visibility, blocks, regions) but not
//! what the excerpt makes of it. That is checked against fixed strings
//! (`excerpt_runs_follow_the_per_character_rules` and the other excerpt
//! tests).

#![allow(clippy::all)]

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::LazyLock;

use lol_html::html_content::{Comment, Element, EndTag, TextChunk, TextType};
use lol_html::{
    DocumentContentHandlers, ElementContentHandlers, HandlerResult, HtmlRewriter, MemorySettings,
    Selector, Settings,
};
use rustc_hash::FxHashMap;
use url::Url;

use super::super::excerpt::{Excerpt, MAX_EXCERPT_SCAN};
use super::super::{
    Link, LinkKind, LinkOptions, MAX_RAW_CHARS, MAX_RAW_METAS, MAX_TITLE_BUFFER, MAX_TITLE_CHARS,
    Page, css, decode, is_skipped_scheme, srcset,
};

const TOKENIZER_MEMORY: usize = 32 << 20;

/// Bytes written to the tokenizer at a time by the excerpt pass.
const CHUNK: usize = 16 << 10;

/// Selectors parsed once per process: parsing them costs more than a small
/// page's extraction.
struct Selectors {
    a: Selector,
    area: Selector,
    link: Selector,
    frame: Selector,
    iframe: Selector,
    img: Selector,
    img_srcset: Selector,
    video_poster: Selector,
    video_src: Selector,
    source_src: Selector,
    audio: Selector,
    track: Selector,
    embed: Selector,
    object: Selector,
    input: Selector,
    source_srcset: Selector,
    style_attr: Selector,
    style: Selector,
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
        img_srcset: parse("img[srcset]"),
        video_poster: parse("video[poster]"),
        video_src: parse("video[src]"),
        source_src: parse("source[src]"),
        audio: parse("audio[src]"),
        track: parse("track[src]"),
        embed: parse("embed[src]"),
        object: parse("object[data]"),
        input: parse("input[src]"),
        source_srcset: parse("source[srcset]"),
        style_attr: parse("[style]"),
        style: parse("style"),
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
    /// The text of the `<style>` element being read.
    style_text: String,
    page: Page,
}

impl State<'_> {
    fn base(&self) -> &Url {
        self.base.as_ref().unwrap_or(self.page_url)
    }

    /// Resolves one attribute value and records the link. Errors only to stop
    /// the tokenizer at `max_links`.
    fn add(&mut self, raw: &str, kind: LinkKind, nofollow: bool) -> HandlerResult {
        self.add_value(&decode(raw), kind, nofollow)
    }

    /// The references of CSS in the page: `@import` a stylesheet, the
    /// others `url()`.
    fn add_css(&mut self, css: &str) -> HandlerResult {
        for reference in css::css_urls(css) {
            let kind = if reference.import {
                LinkKind::Stylesheet
            } else {
                LinkKind::CssUrl
            };
            self.add_value(&reference.url, kind, false)?;
        }
        Ok(())
    }

    /// Each image candidate of a `srcset` value, as an image.
    fn add_srcset(&mut self, raw: &str) -> HandlerResult {
        let value = decode(raw);
        for range in srcset::url_ranges(&value) {
            self.add_value(&value[range], LinkKind::Img, false)?;
        }
        Ok(())
    }

    /// [`Self::add`] for a value already decoded.
    fn add_value(&mut self, value: &str, kind: LinkKind, nofollow: bool) -> HandlerResult {
        let Some(url) = self.resolve(value) else {
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
    fn resolve(&mut self, value: &str) -> Option<Url> {
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
            if c.is_whitespace() || c.is_control() {
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
        self.page
    }
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

/// A handler for the image candidates of a `srcset`.
fn srcset_handler<'h>(state: &'h RefCell<State<'_>>, selector: &'static Selector) -> Handlers<'h> {
    let handler = move |el: &mut Element<'_, '_>| {
        let Some(raw) = el.get_attribute("srcset") else {
            return Ok(());
        };
        state.borrow_mut().add_srcset(&raw)
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
pub(super) fn extract(html: &[u8], page_url: &Url, options: &LinkOptions, agent: &str) -> Page {
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
        style_text: String::new(),
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
                .append_element_content_handler(srcset_handler(state, &sel.img_srcset))
                .append_element_content_handler(link_handler(
                    state,
                    &sel.source_src,
                    "src",
                    LinkKind::Media,
                ))
                .append_element_content_handler(srcset_handler(state, &sel.source_srcset))
                .append_element_content_handler(link_handler(
                    state,
                    &sel.video_src,
                    "src",
                    LinkKind::Media,
                ))
                .append_element_content_handler(link_handler(
                    state,
                    &sel.video_poster,
                    "poster",
                    LinkKind::Img,
                ))
                .append_element_content_handler(link_handler(
                    state,
                    &sel.audio,
                    "src",
                    LinkKind::Media,
                ))
                .append_element_content_handler(link_handler(
                    state,
                    &sel.track,
                    "src",
                    LinkKind::Media,
                ))
                .append_element_content_handler(link_handler(
                    state,
                    &sel.embed,
                    "src",
                    LinkKind::Media,
                ))
                .append_element_content_handler(link_handler(
                    state,
                    &sel.object,
                    "data",
                    LinkKind::Media,
                ))
                .append_element_content_handler((
                    Cow::Borrowed(&sel.input),
                    ElementContentHandlers::default().element(move |el: &mut Element<'_, '_>| {
                        let image = el.get_attribute("type").is_some_and(|t| {
                            decode(&t)
                                .trim_matches(|c: char| c.is_ascii_whitespace())
                                .eq_ignore_ascii_case("image")
                        });
                        match (image, el.get_attribute("src")) {
                            (true, Some(raw)) => state.borrow_mut().add(&raw, LinkKind::Img, false),
                            _ => Ok(()),
                        }
                    }),
                ))
                .append_element_content_handler(link_handler(
                    state,
                    &sel.script,
                    "src",
                    LinkKind::Script,
                ))
                // After every other handler of an element, as the scanner
                // reads `style` after the tag's links.
                .append_element_content_handler((
                    Cow::Borrowed(&sel.style_attr),
                    ElementContentHandlers::default().element(move |el: &mut Element<'_, '_>| {
                        let Some(raw) = el.get_attribute("style") else {
                            return Ok(());
                        };
                        state.borrow_mut().add_css(&decode(&raw))
                    }),
                ))
                .append_element_content_handler((
                    Cow::Borrowed(&sel.style),
                    ElementContentHandlers::default().text(move |chunk: &mut TextChunk<'_>| {
                        // HTML's `<style>` only: in SVG it is not raw text.
                        if chunk.text_type() != TextType::RawText {
                            return Ok(());
                        }
                        let mut state = state.borrow_mut();
                        state.style_text.push_str(chunk.as_str());
                        if !chunk.last_in_text_node() {
                            return Ok(());
                        }
                        let css = std::mem::take(&mut state.style_text);
                        state.add_css(&css)
                    }),
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
    (page.excerpt, page.noindex_regions) = excerpt(html);
    page
}

/// Selectors parsed once per process.
struct ExcerptSelectors {
    /// Elements whose start and end separate words.
    block: Selector,
    /// Elements whose text is not visible although the tokenizer reads it
    /// as ordinary text (`script`, `style`, `noscript`, `title` are raw or
    /// RCDATA text, left out by type).
    hidden_text: Selector,
}

static EXCERPT_SELECTORS: LazyLock<ExcerptSelectors> = LazyLock::new(|| {
    let parse = |s: &str| s.parse::<Selector>().expect("static selector parses");
    ExcerptSelectors {
        block: parse(
            "address, article, aside, blockquote, br, button, caption, dd, details, dialog, \
             div, dl, dt, fieldset, figcaption, figure, footer, form, h1, h2, h3, h4, h5, h6, \
             header, hgroup, hr, li, main, nav, ol, option, p, pre, section, summary, table, \
             tbody, td, tfoot, th, thead, tr, ul",
        ),
        hidden_text: parse("template, svg title, svg desc, svg style, svg script"),
    }
});

/// The excerpt of `html` and the number of regions left out of it.
fn excerpt(html: &[u8]) -> (String, u32) {
    let sel = &*EXCERPT_SELECTORS;
    let state = RefCell::new(Excerpt::default());
    // Set by the `hidden_text` handler for the text chunk being dispatched,
    // which the document text handler (registered later, so called after
    // it: lol_html runs element content handlers before document ones, in
    // registration order) then skips.
    let hidden_chunk = Cell::new(false);
    // Set by end-tag handlers of block elements, which must be `'static`
    // and so cannot borrow `state`.
    let block_ended = Rc::new(Cell::new(false));
    {
        let state = &state;
        let hidden_chunk = &hidden_chunk;
        let block_ended_in_text = Rc::clone(&block_ended);
        let settings = Settings::new()
            .with_strict(false)
            .with_adjust_charset_on_meta_tag(true)
            .with_memory_settings(
                MemorySettings::new().with_max_allowed_memory_usage(TOKENIZER_MEMORY),
            )
            .append_element_content_handler((
                Cow::Borrowed(&sel.block),
                ElementContentHandlers::default().element(move |el: &mut Element<'_, '_>| {
                    let mut state = state.borrow_mut();
                    // Inside a region, boundaries do not matter: its end
                    // separates words anyway.
                    if !state.wants_text() {
                        return Ok(());
                    }
                    state.boundary();
                    if let Some(handlers) = el.end_tag_handlers() {
                        let flag = Rc::clone(&block_ended);
                        handlers.push(Box::new(move |_: &mut EndTag<'_>| {
                            flag.set(true);
                            Ok(())
                        }));
                    }
                    Ok(())
                }),
            ))
            .append_element_content_handler((
                Cow::Borrowed(&sel.hidden_text),
                ElementContentHandlers::default().text(move |_: &mut TextChunk<'_>| {
                    hidden_chunk.set(true);
                    Ok(())
                }),
            ))
            .append_document_content_handler(
                DocumentContentHandlers::default()
                    .text(move |chunk: &mut TextChunk<'_>| {
                        let hidden = hidden_chunk.replace(false);
                        let mut state = state.borrow_mut();
                        if block_ended_in_text.replace(false) {
                            state.boundary();
                        }
                        if hidden || chunk.text_type() != TextType::Data {
                            return Ok(());
                        }
                        if state.wants_text() {
                            state.text(chunk.as_str());
                        }
                        if chunk.last_in_text_node() {
                            state.end_of_text_node();
                        }
                        Ok(())
                    })
                    .comments(move |comment: &mut Comment<'_>| {
                        state.borrow_mut().comment(&comment.text());
                        Ok(())
                    }),
            );
        let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
        let scan = &html[..html.len().min(MAX_EXCERPT_SCAN)];
        let mut clean = true;
        for chunk in scan.chunks(CHUNK) {
            // A rewriter that returned an error is poisoned: stop there.
            if rewriter.write(chunk).is_err() {
                clean = false;
                break;
            }
            if state.borrow().full() {
                break;
            }
        }
        // `end` flushes text held at the end of the input.
        if clean && !state.borrow().full() {
            let _ = rewriter.end();
        }
    }
    state.into_inner().finish()
}
