//! The text excerpt of a page (SPEC §2.3): its visible text, entities
//! decoded and whitespace collapsed, leaving out the regions a site marks as
//! not for indexing.
//!
//! A pass of its own over the start of the page, separate from link
//! extraction: reading text and comments puts lol_html in its full lexer
//! mode, which would slow link extraction over the whole page about
//! threefold, while the excerpt needs only the start. The page is written to
//! the tokenizer 16 KiB at a time and the pass stops as soon as the excerpt
//! is full, or after [`MAX_EXCERPT_SCAN`] bytes. Nothing is buffered beyond
//! the excerpt itself and one entity reference.
//!
//! Visible text is text in the HTML data state: not in `script style
//! noscript title textarea` (raw or RCDATA text), nor in `template` or SVG's
//! `title desc style script`. Block elements (`p div li td h1`…) separate
//! words; inline ones (`b a span`…) do not.
//!
//! Regions, from comments (trimmed, compared case-insensitively):
//! - `<!--noindex-->` … `<!--endnoindex-->` (Funnelback; `<!--/noindex-->`,
//!   Yandex's closing form, also closes). They nest: a region opened twice
//!   needs closing twice, so a region wrapped in another never leaks out.
//! - `<!--googleoff: KIND-->` … `<!--googleon: KIND-->` (Google Search
//!   Appliance) with KIND `index`, `anchor`, `snippet` or `all` (all three).
//!   Each kind is a switch; text is left out while any kind is off, since
//!   every kind means "not in the snippet".
//!
//! A region never closed hides the rest of the page. A region in the count
//! is a stretch of hidden text that starts before the excerpt is complete
//! (the pass reads no further): markers that start hiding while text is
//! already hidden (nesting, overlapping syntaxes) do not add to it.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::LazyLock;

use lol_html::html_content::{Comment, Element, EndTag, TextChunk, TextType};
use lol_html::{
    DocumentContentHandlers, ElementContentHandlers, HtmlRewriter, MemorySettings, Selector,
    Settings,
};

/// Longest excerpt kept, in characters.
pub const MAX_EXCERPT_CHARS: usize = 500;

/// Bytes of a page read for the excerpt at most: text that only starts
/// after a megabyte of markup and scripts is not worth a longer pass.
pub const MAX_EXCERPT_SCAN: usize = 1 << 20;

/// Bytes written to the tokenizer at a time, checking in between whether
/// the excerpt is full.
const CHUNK: usize = 16 << 10;

/// Longest entity reference collected before giving up on it
/// (`&CounterClockwiseContourIntegral;` is 33 bytes).
const MAX_ENTITY: usize = 40;

/// `googleoff`/`googleon` kinds as bits.
const INDEX: u8 = 1;
const ANCHOR: u8 = 2;
const SNIPPET: u8 = 4;

/// Selectors parsed once per process.
struct Selectors {
    /// Elements whose start and end separate words.
    block: Selector,
    /// Elements whose text is not visible although the tokenizer reads it
    /// as ordinary text (`script`, `style`, `noscript`, `title` are raw or
    /// RCDATA text, left out by type).
    hidden_text: Selector,
}

static SELECTORS: LazyLock<Selectors> = LazyLock::new(|| {
    let parse = |s: &str| s.parse::<Selector>().expect("static selector parses");
    Selectors {
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
pub(super) fn excerpt(html: &[u8]) -> (String, u32) {
    let sel = &*SELECTORS;
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
                MemorySettings::new().with_max_allowed_memory_usage(super::TOKENIZER_MEMORY),
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

/// The excerpt being built and the region state.
#[derive(Debug, Default)]
struct Excerpt {
    text: String,
    /// Characters in `text`.
    chars: usize,
    /// A separator is due before the next visible character.
    space: bool,
    /// An entity reference being read, from its `&`.
    entity: String,
    /// `noindex` regions open.
    noindex: u32,
    /// `googleoff` kinds in force.
    off: u8,
    /// Hidden stretches started.
    regions: u32,
}

impl Excerpt {
    fn hidden(&self) -> bool {
        self.noindex > 0 || self.off != 0
    }

    fn full(&self) -> bool {
        self.chars >= MAX_EXCERPT_CHARS
    }

    /// Whether text chunks are worth passing in: not hidden and not full.
    fn wants_text(&self) -> bool {
        !self.hidden() && !self.full()
    }

    /// A block element started or ended: words on either side are apart.
    fn boundary(&mut self) {
        self.space = true;
    }

    /// One comment's text: opens or closes a region if it is a marker.
    fn comment(&mut self, text: &str) {
        // Past the excerpt's end, regions are not "left out of it".
        if self.full() {
            return;
        }
        let was_hidden = self.hidden();
        let marker = text.trim();
        if marker.eq_ignore_ascii_case("noindex") {
            self.noindex = self.noindex.saturating_add(1);
        } else if marker.eq_ignore_ascii_case("endnoindex")
            || marker.eq_ignore_ascii_case("/noindex")
        {
            self.noindex = self.noindex.saturating_sub(1);
        } else if let Some(kind) = google_kind(marker, "googleoff") {
            self.off |= kind;
        } else if let Some(kind) = google_kind(marker, "googleon") {
            self.off &= !kind;
        } else {
            return;
        }
        match (was_hidden, self.hidden()) {
            (false, true) => {
                self.regions = self.regions.saturating_add(1);
                self.end_of_text_node();
                self.space = true;
            }
            (true, false) => self.space = true,
            _ => {}
        }
    }

    /// Raw (entity-encoded) visible text. Callers check [`Self::wants_text`].
    fn text(&mut self, raw: &str) {
        for c in raw.chars() {
            if self.full() {
                return;
            }
            if !self.entity.is_empty() {
                if (c.is_ascii_alphanumeric() || c == '#') && self.entity.len() < MAX_ENTITY {
                    self.entity.push(c);
                    continue;
                }
                if c == ';' {
                    self.entity.push(c);
                    self.flush_entity();
                    continue;
                }
                self.flush_entity();
            }
            if c == '&' {
                self.entity.push(c);
            } else {
                self.push(c);
            }
        }
    }

    /// The text node ended: a pending entity reference is complete.
    fn end_of_text_node(&mut self) {
        self.flush_entity();
    }

    fn flush_entity(&mut self) {
        if self.entity.is_empty() {
            return;
        }
        let entity = std::mem::take(&mut self.entity);
        // `&amp;`, `&#38;`, and the legacy forms without `;` (`&copy 2024`)
        // as HTML text decodes them; anything else stays as written.
        for c in htmlize::unescape(entity.as_str()).chars() {
            self.push(c);
        }
        self.entity = entity;
        self.entity.clear();
    }

    /// One decoded character: runs of whitespace (and control characters)
    /// become one space, never leading.
    fn push(&mut self, c: char) {
        if self.full() {
            return;
        }
        if c.is_whitespace() || c.is_control() {
            self.space = true;
            return;
        }
        if self.space && !self.text.is_empty() {
            self.text.push(' ');
            self.chars += 1;
            if self.full() {
                return;
            }
        }
        self.space = false;
        self.text.push(c);
        self.chars += 1;
    }

    /// The excerpt (trimmed) and the number of hidden regions.
    fn finish(mut self) -> (String, u32) {
        self.flush_entity();
        let len = self.text.trim_end().len();
        self.text.truncate(len);
        (self.text, self.regions)
    }
}

/// The kind bits of `googleoff: KIND` (for `name` = `googleoff`), or `None`.
fn google_kind(marker: &str, name: &str) -> Option<u8> {
    let head = marker.get(..name.len())?;
    if !head.eq_ignore_ascii_case(name) {
        return None;
    }
    let rest = marker[name.len()..].trim_start().strip_prefix(':')?.trim();
    [
        ("index", INDEX),
        ("anchor", ANCHOR),
        ("snippet", SNIPPET),
        ("all", INDEX | ANCHOR | SNIPPET),
    ]
    .into_iter()
    .find(|(kind, _)| rest.eq_ignore_ascii_case(kind))
    .map(|(_, bits)| bits)
}
