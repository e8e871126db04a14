//! The text excerpt of a page (SPEC §2.3): its visible text, entities
//! decoded and whitespace collapsed, leaving out the regions a site marks as
//! not for indexing.
//!
//! [`Excerpt`] is fed by the same single pass that finds the links (module
//! `collect`), with the text nodes and comments of the first
//! [`MAX_EXCERPT_SCAN`] bytes, until it is full; after that the pass skips
//! text unread. Nothing is buffered beyond the excerpt itself and one
//! entity reference.
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

/// Longest excerpt kept, in characters.
pub const MAX_EXCERPT_CHARS: usize = 500;

/// Bytes of a page read for the excerpt at most: text that only starts
/// after a megabyte of markup and scripts is not worth a longer pass.
pub const MAX_EXCERPT_SCAN: usize = 1 << 20;

/// Longest entity reference collected before giving up on it
/// (`&CounterClockwiseContourIntegral;` is 33 bytes).
const MAX_ENTITY: usize = 40;

/// `googleoff`/`googleon` kinds as bits.
const INDEX: u8 = 1;
const ANCHOR: u8 = 2;
const SNIPPET: u8 = 4;

/// The excerpt being built and the region state.
#[derive(Debug, Default)]
pub(super) struct Excerpt {
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

    pub(super) fn full(&self) -> bool {
        self.chars >= MAX_EXCERPT_CHARS
    }

    /// Whether text chunks are worth passing in: not hidden and not full.
    pub(super) fn wants_text(&self) -> bool {
        !self.hidden() && !self.full()
    }

    /// A block element started or ended: words on either side are apart.
    pub(super) fn boundary(&mut self) {
        self.space = true;
    }

    /// One comment's text: opens or closes a region if it is a marker.
    pub(super) fn comment(&mut self, text: &str) {
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
    pub(super) fn text(&mut self, raw: &str) {
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            if self.full() {
                return;
            }
            if self.entity.is_empty() && c.is_ascii() {
                // Runs of plain characters and of spacing (indentation
                // between tags) are most text: taken whole, not one
                // character at a time.
                let start = raw.len() - chars.as_str().len() - 1;
                if let Some(end) = self.ascii_run(raw, start) {
                    chars = raw.get(end..).unwrap_or_default().chars();
                    continue;
                }
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

    /// The run of [`is_plain`] or of [`is_blank`] bytes at `start` of
    /// `raw`, added as [`Self::push`] of each character would add it; the
    /// offset after it, or `None` when neither starts there (`&`).
    fn ascii_run(&mut self, raw: &str, start: usize) -> Option<usize> {
        let rest = raw.as_bytes().get(start..)?;
        let &first = rest.first()?;
        if is_plain(first) {
            let end = start + plain_run(rest);
            self.push_plain(raw.get(start..end)?);
            Some(end)
        } else if is_blank(first) {
            // Each would set the pending separator, and nothing more.
            self.space = true;
            let len = rest.iter().position(|&b| !is_blank(b));
            Some(start + len.unwrap_or(rest.len()))
        } else {
            None
        }
    }

    /// A [`plain_run`] (one byte a character), as [`Self::push`] of each
    /// character would add it: the pending separator first, then the run
    /// whole, up to the cap.
    fn push_plain(&mut self, word: &str) {
        if !self.separate() {
            return;
        }
        let room = MAX_EXCERPT_CHARS.saturating_sub(self.chars).min(word.len());
        if let Some(kept) = word.get(..room) {
            self.text.push_str(kept);
            self.chars += room;
        }
    }

    /// The text node ended: a pending entity reference is complete.
    pub(super) fn end_of_text_node(&mut self) {
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
        if !self.separate() {
            return;
        }
        self.text.push(c);
        self.chars += 1;
    }

    /// Before a visible character: the pending separator, if any (never
    /// leading), which counts toward the cap. Whether there is still room
    /// for the character.
    #[inline]
    fn separate(&mut self) -> bool {
        if self.full() {
            return false;
        }
        if self.text.capacity() == 0 {
            // Most pages fill the excerpt: 500 bytes at once, the whole
            // cap for ASCII text (multi-byte text grows from there), not
            // six regrowths on the way (about 3,000 instructions a page in
            // `crawl_bench`). A page without visible text allocates nothing.
            self.text.reserve(MAX_EXCERPT_CHARS);
        }
        if self.space && !self.text.is_empty() {
            self.text.push(' ');
            self.chars += 1;
            if self.full() {
                return false;
            }
        }
        self.space = false;
        true
    }

    /// The excerpt (trimmed) and the number of hidden regions.
    pub(super) fn finish(mut self) -> (String, u32) {
        self.flush_entity();
        let len = self.text.trim_end().len();
        self.text.truncate(len);
        (self.text, self.regions)
    }
}

/// Printable ASCII other than `&`: text that needs no entity decoding
/// and no whitespace collapsing, one character per byte.
fn is_plain(b: u8) -> bool {
    b.is_ascii_graphic() && b != b'&'
}

/// The length of the run of [`is_plain`] bytes at the start of `text`,
/// with the single spaces between them: the excerpt keeps such a run as
/// it is (a lone space between two visible characters stays one space).
fn plain_run(text: &[u8]) -> usize {
    let mut end = 0;
    loop {
        match text.get(end..end + 2) {
            Some(&[b' ', next]) if end > 0 && is_plain(next) => end += 2,
            _ if text.get(end).is_some_and(|&b| is_plain(b)) => end += 1,
            _ => return end,
        }
    }
}

/// ASCII whitespace and control characters: each only makes the separator
/// pending ([`Excerpt::push`]).
fn is_blank(b: u8) -> bool {
    b <= b' ' || b == 0x7f
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
