//! Sitemaps (SPEC §2.3): XML sitemaps (`<urlset>`), sitemap indexes
//! (`<sitemapindex>`) and plain-text sitemaps, gzipped or not. Pure: a
//! [`Read`] in, entries out through a callback, and a [`SitemapReport`] that
//! says what the file was and what went wrong. The crawler fetches the files,
//! follows child sitemaps up to [`MAX_NESTING`] levels and sends every page
//! entry through the rules like any other discovered URL.
//!
//! Streaming, in bounded memory: the input is read through a 64 KiB buffer,
//! the XML is tokenized by `quick-xml` one event at a time, and entries are
//! handed over as soon as their `</url>` or `</sitemap>` is read, never
//! collected. The only buffer that grows with the input is the one holding
//! the current XML event, and no event (a tag, a text, a comment, or a run of
//! whitespace between them) may be longer than [`SitemapLimits::max_item_bytes`]:
//! a 50 MiB sitemap of ordinary entries is parsed with a few hundred KiB.
//!
//! Caps (sitemaps.org): at most [`MAX_SITEMAP_URLS`] entries and
//! [`MAX_SITEMAP_BYTES`] uncompressed bytes per file. Reaching one is not an
//! error: parsing stops there, what was read stands, and the report names
//! the cap ([`SitemapCap`]) for the log. Gzip is recognized by its magic
//! bytes (a `.xml.gz` usually arrives without `Content-Encoding`) and the
//! decompressed stream is cut at the byte cap, so a gzip bomb costs at most
//! 50 MiB of inflating, never 50 MiB of memory.
//!
//! What counts:
//! - XML: the root's local name decides the kind (`urlset` or
//!   `sitemapindex`; anything else is reported as not a sitemap). An entry is
//!   a `url` (or `sitemap`) directly inside the root, and its URL is the text
//!   of a `loc` directly inside that, with the same namespace prefix as the
//!   root: `<sm:urlset><sm:url><sm:loc>` works, and extensions' own `loc`s
//!   (`<image:image><image:loc>`, or a stray `<image:loc>` in `<url>`) do not
//!   count. Entities (`&amp;`, `&#38;`) and CDATA are decoded, whitespace is
//!   trimmed, a bare `&` is taken literally. `lastmod`, `changefreq` and
//!   `priority` are kept as written (trimmed, at most 64 bytes).
//! - Plain text: chosen when the first non-whitespace byte is not `<`; one
//!   URL per line, blank lines ignored, `#` is not special. Text none of
//!   whose lines is a URL (binary data, say) is not a sitemap: an error.
//! - A `loc` or line that is not an absolute http(s) URL is skipped, counted,
//!   and the first [`MAX_SKIPPED_EXAMPLES`] are kept for the log. Fragments
//!   are dropped, as for links.
//! - Malformed XML stops the parse at the error, keeping the entries before
//!   it; the error carries its byte offset in the uncompressed stream.
//!
//! Nothing here panics on hostile input (see the random-input tests).

use std::fmt;
use std::io::{self, BufRead, BufReader, Read};

use flate2::read::MultiGzDecoder;
use url::Url;

/// Entries kept per sitemap file (sitemaps.org); one more stops the parse.
pub const MAX_SITEMAP_URLS: usize = 50_000;

/// Uncompressed bytes read per sitemap file (sitemaps.org: 50 MiB).
pub const MAX_SITEMAP_BYTES: u64 = 50 << 20;

/// How deep sitemap files may nest. A sitemap named in robots.txt or the
/// configuration is level 1, a sitemap listed in a level-1 index is level
/// 2, and so on: with 3, `index → index → urlset` is read completely, and
/// child sitemaps listed at level 3 are not fetched (log them instead).
pub const MAX_NESTING: usize = 3;

/// Longest single XML event (tag, text, comment, or whitespace between
/// tags), in bytes: about 1 MiB, far above any real sitemap (a `<loc>` is at
/// most 2,048 characters) and what bounds the parser's memory.
pub const MAX_ITEM_BYTES: u64 = 1 << 20;

/// Skipped locations kept verbatim in [`SitemapReport::skipped_examples`].
pub const MAX_SKIPPED_EXAMPLES: usize = 5;

/// Longest location kept, in bytes; a longer one is skipped (and a longer
/// plain-text line is never buffered whole).
const MAX_LOC_BYTES: usize = 8 << 10;

/// Longest `lastmod`, `changefreq` or `priority` kept, in bytes.
const MAX_FIELD_BYTES: usize = 64;

/// Longest skipped example kept, in characters.
const MAX_EXAMPLE_CHARS: usize = 200;

/// Deepest element nesting accepted: sitemaps need four or five levels.
/// Deeper input is reported as malformed rather than tracked.
const MAX_DEPTH: usize = 64;

/// The read buffer between the (decompressed) input and the tokenizer.
const BUFFER: usize = 64 << 10;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const UTF8_BOM: [u8; 3] = [0xef, 0xbb, 0xbf];

/// The caps one file is read under. [`Default`] gives the sitemaps.org caps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SitemapLimits {
    /// Entries (pages or child sitemaps) handed over; one more sets
    /// [`SitemapCap::Urls`] and stops.
    pub max_urls: usize,
    /// Uncompressed bytes read; input beyond sets [`SitemapCap::Bytes`].
    pub max_bytes: u64,
    /// Longest single XML event; a longer one is [`SitemapError::ItemTooLarge`].
    pub max_item_bytes: u64,
}

impl Default for SitemapLimits {
    fn default() -> Self {
        SitemapLimits {
            max_urls: MAX_SITEMAP_URLS,
            max_bytes: MAX_SITEMAP_BYTES,
            max_item_bytes: MAX_ITEM_BYTES,
        }
    }
}

/// One entry of a sitemap file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SitemapEntry {
    /// A page to crawl: `<urlset><url><loc>`, or a line of a text sitemap.
    /// The optional fields are the element text as written (trimmed).
    Page {
        url: Url,
        lastmod: Option<String>,
        changefreq: Option<String>,
        priority: Option<String>,
    },
    /// A child sitemap to fetch: `<sitemapindex><sitemap><loc>`.
    Sitemap { url: Url, lastmod: Option<String> },
}

impl SitemapEntry {
    /// The page or child sitemap URL: absolute http(s), without fragment.
    pub fn url(&self) -> &Url {
        match self {
            SitemapEntry::Page { url, .. } | SitemapEntry::Sitemap { url, .. } => url,
        }
    }
}

/// What kind of file it turned out to be.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SitemapKind {
    /// Nothing but whitespace (or nothing at all).
    #[default]
    Empty,
    /// `<urlset>`: page entries.
    Urlset,
    /// `<sitemapindex>`: child sitemap entries.
    Index,
    /// One URL per line.
    Text,
    /// XML whose root is neither (an HTML page, a feed):
    /// [`SitemapError::NotASitemap`] says which.
    Other,
}

impl SitemapKind {
    /// The lower-case name written in the log.
    pub fn name(self) -> &'static str {
        match self {
            SitemapKind::Empty => "empty",
            SitemapKind::Urlset => "urlset",
            SitemapKind::Index => "sitemap index",
            SitemapKind::Text => "text",
            SitemapKind::Other => "other XML",
        }
    }
}

/// A cap that stopped the parse (not an error: what was read stands).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SitemapCap {
    /// More than [`SitemapLimits::max_urls`] entries.
    Urls,
    /// More than [`SitemapLimits::max_bytes`] uncompressed bytes.
    Bytes,
}

/// Why a parse stopped early. Positions are byte offsets in the
/// uncompressed stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SitemapError {
    #[error("malformed XML at byte {position}: {message}")]
    Xml { position: u64, message: String },
    #[error("file ends at byte {position} inside <{open}>")]
    Truncated { position: u64, open: String },
    #[error("not a sitemap: the root element is <{root}>")]
    NotASitemap { root: String },
    /// Plain text none of whose lines is a URL: binary data, an HTML page
    /// without its `<` first, a list of relative paths.
    #[error("not a sitemap: none of its {lines} non-blank lines is an absolute http(s) URL")]
    NoUrlLine { lines: usize },
    #[error("an XML item over {max} bytes at byte {position}")]
    ItemTooLarge { position: u64, max: u64 },
    /// The input failed: a broken gzip stream or a network error.
    #[error("read error at byte {position}: {message}")]
    Read { position: u64, message: String },
}

/// What one sitemap file held and how reading it ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SitemapReport {
    pub kind: SitemapKind,
    /// The input was gzip (by its magic bytes).
    pub gzip: bool,
    /// Page entries handed over.
    pub pages: usize,
    /// Child sitemap entries handed over.
    pub sitemaps: usize,
    /// Locations that were not absolute http(s) URLs (or were missing,
    /// too long, not UTF-8).
    pub skipped: usize,
    /// The first few skipped locations, cut to 200 characters.
    pub skipped_examples: Vec<String>,
    /// The cap that stopped the parse, if any.
    pub cap: Option<SitemapCap>,
    /// Uncompressed bytes read (the tokenizer may not have used the last
    /// buffer's worth when it stopped early).
    pub bytes: u64,
    /// What stopped the parse before the end, if anything but a cap.
    pub error: Option<SitemapError>,
}

impl SitemapReport {
    /// Entries handed over, pages and child sitemaps together.
    pub fn entries(&self) -> usize {
        self.pages + self.sitemaps
    }
}

/// One log line: `urlset (gzip): 3 pages, 1 skipped (e.g. "/rel"); cap: …`.
impl fmt::Display for SitemapReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.name())?;
        if self.gzip {
            f.write_str(" (gzip)")?;
        }
        let counted = |n: usize, one, many| crate::text::counted(n as u64, one, many);
        write!(f, ": {}", counted(self.pages, "page", "pages"))?;
        if self.sitemaps > 0 || self.kind == SitemapKind::Index {
            write!(f, ", {}", counted(self.sitemaps, "sitemap", "sitemaps"))?;
        }
        if self.skipped > 0 {
            write!(f, ", {} skipped", self.skipped)?;
            // Not when no line was a URL: the error says so, and the first
            // line of a binary file is a screenful of mojibake.
            let not_a_sitemap = matches!(self.error, Some(SitemapError::NoUrlLine { .. }));
            if let Some(first) = self.skipped_examples.first()
                && !not_a_sitemap
            {
                write!(f, " (e.g. {:?})", crate::text::shortened(first, 80))?;
            }
        }
        match self.cap {
            Some(SitemapCap::Urls) => f.write_str("; stopped at the URL cap")?,
            Some(SitemapCap::Bytes) => f.write_str("; stopped at the size cap")?,
            None => {}
        }
        if let Some(error) = &self.error {
            write!(f, "; {error}")?;
        }
        Ok(())
    }
}

/// Parses one sitemap file under the sitemaps.org caps, handing each entry
/// to `on_entry` as soon as it is complete. See the module doc for what
/// counts; the report says what the file was and why reading stopped.
pub fn parse_sitemap<R: Read>(input: R, on_entry: impl FnMut(SitemapEntry)) -> SitemapReport {
    parse_sitemap_with(input, &SitemapLimits::default(), on_entry)
}

/// [`parse_sitemap`] under other caps.
pub fn parse_sitemap_with<R: Read>(
    mut input: R,
    limits: &SitemapLimits,
    mut on_entry: impl FnMut(SitemapEntry),
) -> SitemapReport {
    let mut report = SitemapReport::default();
    let mut magic = [0u8; 2];
    let got = match read_head(&mut input, &mut magic) {
        Ok(got) => got,
        Err(e) => {
            report.error = Some(SitemapError::Read {
                position: 0,
                message: e.to_string(),
            });
            return report;
        }
    };
    let head = &magic[..got];
    let raw = head.chain(input);
    let mut sink = Sink {
        report: &mut report,
        on_entry: &mut on_entry,
        max_urls: limits.max_urls,
    };
    if head == GZIP_MAGIC {
        sink.report.gzip = true;
        parse_decoded(MultiGzDecoder::new(raw), limits, &mut sink);
    } else {
        parse_decoded(raw, limits, &mut sink);
    }
    report
}

/// Reads up to `magic.len()` bytes (fewer only at the end of the input).
fn read_head(input: &mut impl Read, magic: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < magic.len() {
        match input.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// Where parsed entries go, and the counts that go with them.
struct Sink<'a> {
    report: &'a mut SitemapReport,
    on_entry: &'a mut dyn FnMut(SitemapEntry),
    max_urls: usize,
}

impl Sink<'_> {
    /// Hands over one entry if `loc` is an absolute http(s) URL (else counts
    /// it as skipped). False when the URL cap stops the parse.
    fn offer(&mut self, loc: &str, entry: impl FnOnce(Url) -> SitemapEntry) -> bool {
        let Some(url) = absolute_http(loc) else {
            self.skip(loc);
            return true;
        };
        if self.report.entries() >= self.max_urls {
            self.report.cap = Some(SitemapCap::Urls);
            return false;
        }
        let entry = entry(url);
        match entry {
            SitemapEntry::Page { .. } => self.report.pages += 1,
            SitemapEntry::Sitemap { .. } => self.report.sitemaps += 1,
        }
        (self.on_entry)(entry);
        true
    }

    fn skip(&mut self, example: &str) {
        self.report.skipped += 1;
        if self.report.skipped_examples.len() < MAX_SKIPPED_EXAMPLES {
            let mut kept: String = example.chars().take(MAX_EXAMPLE_CHARS).collect();
            if kept.len() < example.len() {
                kept.push('…');
            }
            self.report.skipped_examples.push(kept);
        }
    }
}

/// `loc` as an absolute http(s) URL without fragment, or `None`.
fn absolute_http(loc: &str) -> Option<Url> {
    let mut url = Url::parse(loc).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    url.set_fragment(None);
    Some(url)
}

/// Why [`Capped`] refused to read on.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stop {
    /// The current XML event outgrew `max_item_bytes`.
    ItemTooLarge,
    /// The input itself failed (gzip or network).
    Read(String),
}

/// The decompressed input, counted and capped: at most `max_bytes` bytes
/// are handed out, and one more is probed to tell "exactly at the cap"
/// from "beyond it". While `item_mark` is set (XML), it also refuses to
/// hand out more than `max_item_bytes` past the end of the last event.
struct Capped<R> {
    inner: R,
    max_bytes: u64,
    max_item_bytes: u64,
    /// Bytes handed out so far.
    total: u64,
    /// The input goes on beyond `max_bytes`.
    over: bool,
    /// Stream offset where the last XML event ended.
    item_mark: Option<u64>,
    stop: Option<Stop>,
}

impl<R: Read> Capped<R> {
    fn new(inner: R, limits: &SitemapLimits) -> Self {
        Capped {
            inner,
            max_bytes: limits.max_bytes,
            max_item_bytes: limits.max_item_bytes,
            total: 0,
            over: false,
            item_mark: None,
            stop: None,
        }
    }

    /// Reads one byte past the cap, only to know whether there is one.
    fn probe(&mut self) {
        let mut byte = [0u8; 1];
        loop {
            match self.inner.read(&mut byte) {
                Ok(n) => {
                    self.over = n > 0;
                    return;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                // A failure past the cap changes nothing: the cap stands.
                Err(_) => {
                    self.over = true;
                    return;
                }
            }
        }
    }
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stop.is_some() {
            return Err(io::Error::other("sitemap reading stopped"));
        }
        if let Some(mark) = self.item_mark
            && self.total.saturating_sub(mark) > self.max_item_bytes
        {
            self.stop = Some(Stop::ItemTooLarge);
            return Err(io::Error::other("XML item too large"));
        }
        if self.total >= self.max_bytes {
            if !self.over {
                self.probe();
            }
            return Ok(0);
        }
        let room = usize::try_from(self.max_bytes - self.total)
            .unwrap_or(usize::MAX)
            .min(buf.len());
        match self.inner.read(&mut buf[..room]) {
            Ok(n) => {
                self.total += n as u64;
                Ok(n)
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
            Err(e) => {
                self.stop = Some(Stop::Read(e.to_string()));
                Err(e)
            }
        }
    }
}

/// Parses the decompressed stream: sniffs XML or text, then parses it.
fn parse_decoded<D: Read>(decoded: D, limits: &SitemapLimits, sink: &mut Sink<'_>) {
    let mut input = BufReader::with_capacity(BUFFER, Capped::new(decoded, limits));
    match skip_leading(&mut input) {
        Ok((None, _)) => sink.report.kind = SitemapKind::Empty,
        Ok((Some(b'<'), offset)) => xml::parse_xml(&mut input, offset, sink),
        Ok((Some(_), offset)) => {
            sink.report.kind = SitemapKind::Text;
            parse_text(&mut input, offset, sink);
            let report = &mut sink.report;
            if report.pages == 0 && report.skipped > 0 && report.error.is_none() {
                report.error = Some(SitemapError::NoUrlLine {
                    lines: report.skipped,
                });
            }
        }
        Err(e) => {
            sink.report.error = Some(read_error(input.get_ref(), input.get_ref().total, &e));
        }
    }
    let capped = input.get_ref();
    sink.report.bytes = capped.total;
    if capped.over && sink.report.cap.is_none() {
        sink.report.cap = Some(SitemapCap::Bytes);
    }
}

/// The error for a failed read, from what [`Capped`] recorded.
fn read_error<R>(capped: &Capped<R>, position: u64, e: &dyn fmt::Display) -> SitemapError {
    match &capped.stop {
        Some(Stop::ItemTooLarge) => SitemapError::ItemTooLarge {
            position,
            max: capped.max_item_bytes,
        },
        Some(Stop::Read(message)) => SitemapError::Read {
            position,
            message: message.clone(),
        },
        None => SitemapError::Read {
            position,
            message: e.to_string(),
        },
    }
}

/// Consumes a UTF-8 byte order mark and leading whitespace; returns the
/// first other byte (not consumed) and how many bytes went.
fn skip_leading<B: BufRead>(input: &mut B) -> io::Result<(Option<u8>, u64)> {
    let mut skipped = 0u64;
    // Bytes of the BOM matched so far; `None` once past the start.
    let mut bom = Some(0usize);
    loop {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok((None, skipped));
        }
        let mut first = None;
        let mut used = 0;
        for &b in buf {
            if let Some(matched) = bom {
                if matched < UTF8_BOM.len() && b == UTF8_BOM[matched] {
                    bom = Some(matched + 1);
                    used += 1;
                    continue;
                }
                bom = None;
            }
            if !b.is_ascii_whitespace() {
                first = Some(b);
                break;
            }
            used += 1;
        }
        input.consume(used);
        skipped += used as u64;
        if first.is_some() {
            return Ok((first, skipped));
        }
    }
}

/// Plain text: one URL per line. A line longer than [`MAX_LOC_BYTES`] is
/// skipped without being buffered whole; a line cut by the byte cap is
/// dropped.
fn parse_text<D: Read>(input: &mut BufReader<Capped<D>>, offset: u64, sink: &mut Sink<'_>) {
    let mut line: Vec<u8> = Vec::with_capacity(256);
    let mut overflow = false;
    let mut position = offset;
    loop {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                sink.report.error = Some(read_error(input.get_ref(), position, &e));
                return;
            }
        };
        if buf.is_empty() {
            // A last line without newline counts, unless the cap cut it.
            if !input.get_ref().over {
                text_line(&line, overflow, sink);
            }
            return;
        }
        let newline = buf.iter().position(|&b| b == b'\n');
        let piece = &buf[..newline.unwrap_or(buf.len())];
        let room = MAX_LOC_BYTES.saturating_sub(line.len());
        if piece.len() > room {
            overflow = true;
        }
        line.extend_from_slice(&piece[..piece.len().min(room)]);
        let used = piece.len() + usize::from(newline.is_some());
        input.consume(used);
        position += used as u64;
        if newline.is_some() {
            if !text_line(&line, overflow, sink) {
                return;
            }
            line.clear();
            overflow = false;
        }
    }
}

/// One line of a text sitemap; false when the URL cap stops the parse.
fn text_line(line: &[u8], overflow: bool, sink: &mut Sink<'_>) -> bool {
    let line = line.trim_ascii();
    if line.is_empty() && !overflow {
        return true;
    }
    let text = String::from_utf8_lossy(line);
    if overflow || matches!(text, std::borrow::Cow::Owned(_)) {
        // Too long, or not UTF-8: not a URL we would fetch.
        let mut example = text.into_owned();
        if overflow {
            example.push('…');
        }
        sink.skip(&example);
        return true;
    }
    sink.offer(&text, |url| SitemapEntry::Page {
        url,
        lastmod: None,
        changefreq: None,
        priority: None,
    })
}

pub mod synth;
#[cfg(test)]
mod tests;
mod xml;
