//! The tokenizer behind link extraction: one forward pass over a page's
//! bytes that finds its tags, comments and text the way an HTML5 tokenizer
//! does (WHATWG HTML §13.2.5), builds nothing, and hands each token to a
//! [`Sink`].
//!
//! What it gets right, because getting it wrong would invent or hide links:
//! quoted and unquoted attribute values (a `>` inside quotes does not end a
//! tag), case-insensitive names, comments (`<!-- -->`, `<!-->`, `--!>`) and
//! bogus comments (`<!…>`, `<?…>`, `</…>`), the text of `script` (with its
//! `<!--` escape states), `style`, `textarea`, `title` and the other raw
//! text elements, which is not markup, `<plaintext>`, and CDATA sections in
//! SVG and MathML. Which elements switch to raw text depends on whether the
//! parser is in HTML, SVG or MathML content; module `foreign` simulates that
//! part of the tree builder as lol_html does, so pages tokenize as they did
//! with lol_html. A tag cut by the end of the input is dropped.
//!
//! Speed comes from reading few bytes: `memchr` jumps to the next `<` (or
//! quote, or the end of a comment or raw text), and text between tags is
//! only handed over when the sink asks for it ([`Sink::wants_text`]). Tags
//! are handed over only when the sink or the namespace simulation needs
//! them ([`Sink::wants_start_tag`], [`Sink::wants_end_tags`]); the others
//! (on most pages, once the title and excerpt are done, nearly every `<p>`
//! and `</p>`) are only stepped over, their attributes parsed without being
//! kept, so that a `>` in a quoted value still does not end the tag. The
//! only allocation is the attribute list, reused from tag to tag and capped
//! at [`MAX_ATTRS`]; nothing indexes past the input, and the position only
//! moves forward, so any input ends in linear time without a panic.

use std::ops::{ControlFlow, Range};

use memchr::{memchr, memchr2, memmem};

use super::foreign::{Foreign, Ns};

/// What sink methods return: `Break` ends the scan.
pub(super) type Flow = ControlFlow<()>;

/// Where scanning goes on after a token, or `Break` to stop.
type Step = ControlFlow<(), usize>;

/// Attributes kept per tag; later ones are parsed but not kept. Only the
/// first of each name counts anyway, and this bounds a tag with a million
/// attributes to a few kilobytes.
pub(super) const MAX_ATTRS: usize = 256;

/// The attributes link extraction reads (modules `collect` and
/// `foreign`): kept even on a tag with more than [`MAX_ATTRS`] attributes.
const READ_ATTRS: [&[u8]; 16] = [
    b"href",
    b"src",
    b"srcset",
    b"style",
    b"poster",
    b"data",
    b"type",
    b"rel",
    b"name",
    b"content",
    b"charset",
    b"http-equiv",
    b"color",
    b"size",
    b"face",
    b"encoding",
];

/// Tag name bytes kept lower-cased; no name we look for is longer.
const NAME_BYTES: usize = 16;

/// HTML's whitespace: tab, line feed, form feed, carriage return, space.
pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ')
}

/// How text is tokenized, as lol_html's `TextType` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TextKind {
    /// Ordinary text, where tags are recognized.
    Data,
    /// `title`, `textarea`: no tags until the element's end tag.
    RcData,
    /// `style`, `iframe`, `xmp`, `noembed`, `noframes`, `noscript`.
    RawText,
    /// `script`.
    Script,
    /// After `<plaintext>`: the rest of the page.
    PlainText,
    /// `<![CDATA[ … ]]>` in SVG or MathML.
    CData,
}

/// A tag name: the first bytes lower-cased, and a hash of the whole name
/// (lower-cased) for matching end tags to open elements.
#[derive(Debug, Clone, Copy)]
pub(super) struct Name {
    lower: [u8; NAME_BYTES],
    len: usize,
    pub(super) hash: u64,
}

/// Where a tag name starting at `at` ends: at whitespace, `/` or `>` (or
/// the end of the input).
fn name_end(input: &[u8], at: usize) -> usize {
    let name = input.get(at..).unwrap_or_default();
    let len = name
        .iter()
        .position(|&b| is_space(b) || b == b'/' || b == b'>')
        .unwrap_or(name.len());
    at + len
}

/// A tag name's first [`NAME_BYTES`] bytes lower-cased, without the hash
/// [`Name`] computes: enough to decide whether a tag is stepped over.
struct Lower {
    bytes: [u8; NAME_BYTES],
    len: usize,
}

impl Lower {
    /// As [`Name::bytes`]: empty when longer than any name we look for.
    fn bytes(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or(&[])
    }
}

/// Reads a name from `at` as [`Name::read`] does, without its hash.
#[inline]
fn lower_name(input: &[u8], at: usize) -> (Lower, usize) {
    let mut lower = Lower {
        bytes: [0; NAME_BYTES],
        len: 0,
    };
    let mut p = at;
    while let Some(&b) = input.get(p) {
        if is_space(b) || b == b'/' || b == b'>' {
            break;
        }
        if let Some(slot) = lower.bytes.get_mut(lower.len) {
            *slot = b.to_ascii_lowercase();
        }
        lower.len += 1;
        p += 1;
    }
    (lower, p)
}

impl Name {
    /// Reads a name from `at` up to whitespace, `/` or `>` (or the end).
    fn read(input: &[u8], at: usize) -> (Name, usize) {
        let mut name = Name {
            lower: [0; NAME_BYTES],
            len: 0,
            hash: 0xcbf2_9ce4_8422_2325,
        };
        let mut p = at;
        while let Some(&b) = input.get(p) {
            if is_space(b) || b == b'/' || b == b'>' {
                break;
            }
            let b = b.to_ascii_lowercase();
            if let Some(slot) = name.lower.get_mut(name.len) {
                *slot = b;
            }
            name.len += 1;
            // FNV-1a: names are short, so a simple byte hash is enough.
            name.hash = (name.hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            p += 1;
        }
        (name, p)
    }

    /// The name [`lower_name`] read at `at` as `lower`, without reading
    /// it again unless it is longer than the bytes `lower` keeps.
    fn from_lower(lower: &Lower, input: &[u8], at: usize) -> Name {
        let Some(bytes) = lower.bytes.get(..lower.len) else {
            return Name::read(input, at).0;
        };
        let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
            (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        Name {
            lower: lower.bytes,
            len: lower.len,
            hash,
        }
    }

    /// The lower-case name; empty when it is longer than any name we look
    /// for, so that it matches none of them.
    pub(super) fn bytes(&self) -> &[u8] {
        self.lower.get(..self.len).unwrap_or(&[])
    }
}

/// One attribute, as spans of the input.
#[derive(Debug, Clone)]
pub(super) struct Attr {
    name: Range<usize>,
    value: Range<usize>,
}

/// A start tag.
#[derive(Debug)]
pub(super) struct Tag<'a> {
    pub(super) name: &'a Name,
    attrs: &'a [Attr],
    input: &'a [u8],
    pub(super) self_closing: bool,
    /// The namespace the element is in (after this tag's own effect: an
    /// `<svg>` tag is in SVG).
    pub(super) ns: Ns,
    /// Offset of its `<`.
    pub(super) at: usize,
}

impl<'a> Tag<'a> {
    /// The value of the first attribute called `name` (given in lower
    /// case), as written: entities and charset not decoded.
    pub(super) fn attr(&self, name: &[u8]) -> Option<&'a [u8]> {
        let input = self.input;
        self.attrs
            .iter()
            .find(|a| {
                input
                    .get(a.name.clone())
                    .is_some_and(|n| n.eq_ignore_ascii_case(name))
            })
            .and_then(|a| input.get(a.value.clone()))
    }

    /// Every attribute as (name, value), in order, for callers that need
    /// more than a lookup.
    pub(super) fn attrs(&self) -> impl Iterator<Item = (&'a [u8], &'a [u8])> + '_ {
        let input = self.input;
        self.attrs
            .iter()
            .filter_map(move |a| Some((input.get(a.name.clone())?, input.get(a.value.clone())?)))
    }
}

/// Receives the tokens of a page in order.
pub(super) trait Sink {
    /// Whether a start tag called `name` ([`Name::bytes`]) is wanted now;
    /// when not, and the namespace simulation has no use for it either,
    /// the scanner only finds its end. Saying no must be safe: a tag the
    /// sink does not get must be one it would have done nothing with.
    fn wants_start_tag(&self, name: &[u8]) -> bool;
    /// Whether every start tag is wanted now, whatever its name (then
    /// [`Self::wants_start_tag`] says yes to all): the scanner then reads
    /// names without first asking.
    fn wants_all_start_tags(&self) -> bool;
    /// The same for end tags, whatever their name.
    fn wants_end_tags(&self) -> bool;
    fn start_tag(&mut self, tag: &Tag<'_>) -> Flow;
    fn end_tag(&mut self, name: &Name) -> Flow;
    /// Whether text is wanted now; when not, text is skipped unread.
    fn wants_text(&self) -> bool;
    /// One text node (all the text between two other tokens) starting at
    /// offset `at`.
    fn text(&mut self, at: usize, text: &[u8], kind: TextKind) -> Flow;
    /// One comment's text, starting at offset `at`. Bogus comments count.
    fn comment(&mut self, at: usize, text: &[u8]) -> Flow;
}

/// Tokenizes `input` into `sink`, until its end or until `sink` says stop.
pub(super) fn scan(input: &[u8], sink: &mut impl Sink) {
    let mut scanner = Scanner {
        input,
        attrs: Vec::new(),
        foreign: Foreign::default(),
    };
    let _ = scanner.run(sink);
}

/// The end of a tag.
#[derive(Debug, Clone, Copy)]
struct TagEnd {
    /// Just after its `>`.
    end: usize,
    self_closing: bool,
}

struct Scanner<'a> {
    input: &'a [u8],
    /// The current start tag's attributes (reused).
    attrs: Vec<Attr>,
    foreign: Foreign,
}

impl Scanner<'_> {
    fn run(&mut self, sink: &mut impl Sink) -> Flow {
        let input = self.input;
        // Where the text being read started, and where to look for `<`.
        let mut text_start = 0;
        let mut pos = 0;
        let lts = Lts::new();
        while let Some(lt) = next_lt_by(input, pos, |rest| lts.find(rest)) {
            // `<` and whatever follows it that is not markup is text.
            let Some(&next) = input.get(lt + 1) else {
                break;
            };
            let after = match next {
                b'a'..=b'z' | b'A'..=b'Z' => {
                    flush(sink, input, text_start, lt)?;
                    self.start_tag(sink, lt)?
                }
                b'/' => match input.get(lt + 2) {
                    None => break,
                    Some(b) if b.is_ascii_alphabetic() => {
                        flush(sink, input, text_start, lt)?;
                        self.end_tag(sink, lt + 2)?
                    }
                    // `</>` is dropped.
                    Some(b'>') => {
                        flush(sink, input, text_start, lt)?;
                        lt + 3
                    }
                    Some(_) => {
                        flush(sink, input, text_start, lt)?;
                        bogus_comment(sink, input, lt + 2)?
                    }
                },
                b'!' => {
                    flush(sink, input, text_start, lt)?;
                    self.markup_declaration(sink, lt)?
                }
                b'?' => {
                    flush(sink, input, text_start, lt)?;
                    bogus_comment(sink, input, lt + 1)?
                }
                _ => {
                    pos = lt + 1;
                    continue;
                }
            };
            pos = after;
            text_start = after;
        }
        flush(sink, input, text_start, input.len())
    }

    /// A start tag at `lt`, and the text after it if that is raw text.
    /// Returns where data-state scanning resumes (the end of the input
    /// when the tag is cut or the rest is text).
    fn start_tag(&mut self, sink: &mut impl Sink, lt: usize) -> Step {
        let input = self.input;
        // In foreign content, or while the sink wants every tag, there is
        // nothing to decide: the name is read once, with its hash.
        let (name, p) = if self.foreign.current() == Ns::Html && !sink.wants_all_start_tags() {
            if let Some(after) = self.short_start_tag(sink, lt) {
                return Step::Continue(after);
            }
            // Deciding needs only the lower-case name, not its hash, and
            // most tags are then stepped over.
            let (lower, p) = lower_name(input, lt + 1);
            if !self.foreign.start_tag_matters(lower.bytes())
                && !sink.wants_start_tag(lower.bytes())
            {
                // Most tags of a page (`<p>`, `<div class=…>`) once the
                // title and excerpt are done: only their end matters.
                return Step::Continue(self.skip_attributes(p));
            }
            (Name::from_lower(&lower, input, lt + 1), p)
        } else {
            Name::read(input, lt + 1)
        };
        let Some(end) = self.attributes(p, true) else {
            return Step::Continue(input.len());
        };
        let tag = Tag {
            name: &name,
            attrs: &self.attrs,
            input,
            self_closing: end.self_closing,
            ns: Ns::Html,
            at: lt,
        };
        let raw = self.foreign.start_tag(name.bytes(), &tag);
        let tag = Tag {
            ns: self.foreign.current(),
            ..tag
        };
        sink.start_tag(&tag)?;
        // A tag ending in `name=>` is followed by raw text too, as in
        // browsers and lol_html's tag scanner (its full lexer, used for the
        // excerpt pass, went on in the data state).
        let kind = raw.unwrap_or(TextKind::Data);
        let from = end.end;
        let until = match kind {
            TextKind::Data | TextKind::CData => return Step::Continue(from),
            TextKind::PlainText => None,
            TextKind::Script => script_end(input, from),
            TextKind::RcData | TextKind::RawText => raw_text_end(input, from, name.bytes()),
        };
        let Some((lt, name_end)) = until else {
            emit(sink, input, from, input.len(), kind)?;
            return Step::Continue(input.len());
        };
        emit(sink, input, from, lt, kind)?;
        let Some(end) = self.attributes(name_end, false) else {
            return Step::Continue(input.len());
        };
        self.foreign.end_tag(name.bytes());
        sink.end_tag(&name)?;
        Step::Continue(end.end)
    }

    /// The commonest tags of a page, a short name closed at once (`<p>`,
    /// `<li>`, `<div>`), stepped over from one 8-byte word when nobody
    /// wants them: just after the `>`. `None` leaves the tag to the general
    /// path (as does any doubt: a name byte that may be whitespace or `/`,
    /// a longer name, a tag within 8 bytes of the end of the input).
    #[inline]
    fn short_start_tag(&self, sink: &impl Sink, lt: usize) -> Option<usize> {
        const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
        const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
        const GTS: u64 = u64::from_ne_bytes([b'>'; 8]);
        let word = self.input.get(lt + 1..)?.first_chunk::<8>()?;
        // The first `>` of the word, as in `next_lt_by`.
        let x = u64::from_le_bytes(*word) ^ GTS;
        let zeros = x.wrapping_sub(ONES) & !x & HIGHS;
        let after = match zeros.trailing_zeros() / 8 {
            1 => self.short_name::<1>(sink, word),
            2 => self.short_name::<2>(sink, word),
            3 => self.short_name::<3>(sink, word),
            4 => self.short_name::<4>(sink, word),
            _ => None,
        }?;
        Some(lt + 1 + after)
    }

    /// For [`Self::short_start_tag`]: whether the `N`-byte name at the start
    /// of `word`, followed by `>`, is stepped over; then the offset after
    /// the `>` in `word`. A constant `N` lets the name tests fold.
    #[inline]
    fn short_name<const N: usize>(&self, sink: &impl Sink, word: &[u8; 8]) -> Option<usize> {
        let mut name = [0; N];
        for (lower, &b) in name.iter_mut().zip(word) {
            // Whitespace is at or below ` `; both would end the name.
            if b <= b' ' || b == b'/' {
                return None;
            }
            *lower = b.to_ascii_lowercase();
        }
        let wanted = self.foreign.start_tag_matters(&name) || sink.wants_start_tag(&name);
        (!wanted).then_some(N + 1)
    }

    /// An end tag whose name starts at `at` (after `</`).
    fn end_tag(&mut self, sink: &mut impl Sink, at: usize) -> Step {
        if !self.foreign.end_tag_matters() && !sink.wants_end_tags() {
            // Nobody reads the name: step over it unread.
            return Step::Continue(self.skip_attributes(name_end(self.input, at)));
        }
        let (name, p) = Name::read(self.input, at);
        let Some(end) = self.attributes(p, false) else {
            return Step::Continue(self.input.len());
        };
        self.foreign.end_tag(name.bytes());
        sink.end_tag(&name)?;
        Step::Continue(end.end)
    }

    /// `<!` at `lt`: a comment, a doctype, a CDATA section or a bogus
    /// comment.
    fn markup_declaration(&mut self, sink: &mut impl Sink, lt: usize) -> Step {
        let input = self.input;
        let rest = input.get(lt + 2..).unwrap_or(&[]);
        if rest.starts_with(b"--") {
            return comment(sink, input, lt + 4);
        }
        if rest
            .get(..7)
            .is_some_and(|word| word.eq_ignore_ascii_case(b"doctype"))
        {
            // A doctype ends at the first `>`, quotes or not.
            return Step::Continue(find(input, lt + 9, b'>').map_or(input.len(), |gt| gt + 1));
        }
        if rest.starts_with(b"[CDATA[") && self.foreign.cdata_allowed() {
            let from = lt + 9;
            let close = input
                .get(from..)
                .and_then(|text| memmem::find(text, b"]]>"))
                .map(|i| from + i);
            let until = close.unwrap_or(input.len());
            emit(sink, input, from, until, TextKind::CData)?;
            return Step::Continue(close.map_or(input.len(), |c| c + 3));
        }
        bogus_comment(sink, input, lt + 2)
    }

    /// Where a tag whose attributes start at `p` ends (just after its
    /// `>`; the end of the input when it is cut), its attributes unread.
    fn skip_attributes(&mut self, p: usize) -> usize {
        // `<p>`: no attribute state to go through.
        if self.input.get(p) == Some(&b'>') {
            return p + 1;
        }
        self.attributes(p, false)
            .map_or(self.input.len(), |end| end.end)
    }

    /// Reads attributes from `p` (just after the tag name) to the tag's
    /// `>`, following the tokenizer's attribute states. `None`: the input
    /// ended inside the tag. With `keep`, the attributes are kept in
    /// `self.attrs`.
    fn attributes(&mut self, mut p: usize, keep: bool) -> Option<TagEnd> {
        let input = self.input;
        self.attrs.clear();
        let done = |end, self_closing| Some(TagEnd { end, self_closing });
        loop {
            // Before an attribute name.
            let b = *input.get(p)?;
            if is_space(b) {
                p += 1;
                continue;
            }
            match b {
                b'>' => return done(p + 1, false),
                b'/' => {
                    // `/>` closes; a `/` elsewhere is skipped.
                    if *input.get(p + 1)? == b'>' {
                        return done(p + 2, true);
                    }
                    p += 1;
                    continue;
                }
                _ => {}
            }
            // An attribute name: its first byte is part of it even if `=`.
            let name_start = p;
            p += 1;
            while let Some(&b) = input.get(p) {
                if is_space(b) || matches!(b, b'/' | b'>' | b'=') {
                    break;
                }
                p += 1;
            }
            let name = name_start..p;
            // After the name: `=` and a value, or another attribute.
            while input.get(p).is_some_and(|&b| is_space(b)) {
                p += 1;
            }
            let mut value = p..p;
            if *input.get(p)? == b'=' {
                p += 1;
                while input.get(p).is_some_and(|&b| is_space(b)) {
                    p += 1;
                }
                match *input.get(p)? {
                    quote @ (b'"' | b'\'') => {
                        let close = find(input, p + 1, quote)?;
                        value = p + 1..close;
                        p = close + 1;
                    }
                    b'>' => {
                        self.keep(keep, input, name, value);
                        return done(p + 1, false);
                    }
                    _ => {
                        let start = p;
                        while let Some(&b) = input.get(p) {
                            if is_space(b) || b == b'>' {
                                break;
                            }
                            p += 1;
                        }
                        // The input may end inside an unquoted value.
                        input.get(p)?;
                        value = start..p;
                    }
                }
            }
            self.keep(keep, input, name, value);
        }
    }

    /// Keeps an attribute: any of the first [`MAX_ATTRS`], and past them
    /// (up to as many again) the ones link extraction reads, so that
    /// padding a tag with junk attributes cannot hide its `href` or `rel`.
    fn keep(&mut self, keep: bool, input: &[u8], name: Range<usize>, value: Range<usize>) {
        let read = || {
            input
                .get(name.clone())
                .is_some_and(|n| READ_ATTRS.iter().any(|r| n.eq_ignore_ascii_case(r)))
        };
        let room = self.attrs.len() < MAX_ATTRS || (self.attrs.len() < 2 * MAX_ATTRS && read());
        if keep && room {
            self.attrs.push(Attr { name, value });
        }
    }
}

/// Hands the data text `from..to` over, if any and if wanted.
fn flush(sink: &mut impl Sink, input: &[u8], from: usize, to: usize) -> Flow {
    emit(sink, input, from, to, TextKind::Data)
}

fn emit(sink: &mut impl Sink, input: &[u8], from: usize, to: usize, kind: TextKind) -> Flow {
    // Most tokens are followed by text (a line feed at least) that is not
    // wanted once the excerpt is done: asking first costs the least.
    if from < to
        && sink.wants_text()
        && let Some(text) = input.get(from..to)
    {
        return sink.text(from, text, kind);
    }
    Flow::Continue(())
}

/// [`next_lt_by`] as the scanner calls it, for the tests.
#[cfg(test)]
pub(super) fn next_lt(input: &[u8], from: usize) -> Option<usize> {
    let lts = Lts::new();
    next_lt_by(input, from, |rest| lts.find(rest))
}

/// The first `<` at or after `from`, `far` finding it past the first
/// word. Markup often has the next one within a few bytes (`</p>\n<p>`),
/// where testing one 8-byte word costs less than `memchr`'s set-up;
/// farther ones are left to `memchr` ([`Lts`]).
#[inline]
fn next_lt_by(input: &[u8], from: usize, far: impl Fn(&[u8]) -> Option<usize>) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    const LTS: u64 = u64::from_ne_bytes([b'<'; 8]);
    let rest = input.get(from..)?;
    let Some(word) = rest.first_chunk::<8>() else {
        return far(rest).map(|i| from + i);
    };
    // The bytes equal to `<` become zero; the lowest byte flagged by the
    // classic zero-byte test is always a real one (later flags may be
    // false, but only the first is read).
    let x = u64::from_le_bytes(*word) ^ LTS;
    let zeros = x.wrapping_sub(ONES) & !x & HIGHS;
    if zeros != 0 {
        return Some(from + (zeros.trailing_zeros() / 8) as usize);
    }
    far(rest.get(8..)?).map(|i| from + 8 + i)
}

/// Finds `<` for [`next_lt_by`]: `memchr` picks its AVX2 searcher anew at
/// each call, through a function pointer and a few layers; on a page of
/// short paragraphs that costs about as much as the search, so it is
/// picked once per page where the CPU has AVX2.
struct Lts {
    #[cfg(target_arch = "x86_64")]
    avx2: Option<memchr::arch::x86_64::avx2::memchr::One>,
}

impl Lts {
    fn new() -> Lts {
        Lts {
            #[cfg(target_arch = "x86_64")]
            avx2: memchr::arch::x86_64::avx2::memchr::One::new(b'<'),
        }
    }

    /// The offset of the first `<` in `haystack`.
    #[inline]
    fn find(&self, haystack: &[u8]) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if let Some(one) = &self.avx2 {
            return one.find(haystack);
        }
        memchr(b'<', haystack)
    }
}

/// The first `byte` at or after `from`.
fn find(input: &[u8], from: usize, byte: u8) -> Option<usize> {
    memchr(byte, input.get(from..)?).map(|i| from + i)
}

/// A bogus comment whose text starts at `from`: it runs to the next `>`.
fn bogus_comment(sink: &mut impl Sink, input: &[u8], from: usize) -> Step {
    let close = find(input, from, b'>');
    let until = close.unwrap_or(input.len());
    if let Some(text) = input.get(from..until) {
        sink.comment(from, text)?;
    }
    Step::Continue(close.map_or(input.len(), |c| c + 1))
}

/// A comment whose text starts at `from` (after `<!--`). It ends at the
/// first `-->` or `--!>` after its start (`<!-->` and `<!--->` are empty
/// comments); unterminated, it runs to the end of the input.
fn comment(sink: &mut impl Sink, input: &[u8], from: usize) -> Step {
    let rest = input.get(from..).unwrap_or(&[]);
    if rest.starts_with(b">") {
        sink.comment(from, &[])?;
        return Step::Continue(from + 1);
    }
    if rest.starts_with(b"->") {
        sink.comment(from, &[])?;
        return Step::Continue(from + 2);
    }
    let mut p = from;
    while let Some(gt) = find(input, p, b'>') {
        let body = input.get(from..gt).unwrap_or(&[]);
        let text = body
            .strip_suffix(b"--")
            .or_else(|| body.strip_suffix(b"--!"));
        if let Some(text) = text {
            sink.comment(from, text)?;
            return Step::Continue(gt + 1);
        }
        p = gt + 1;
    }
    // Unterminated: the dashes of a `--` or `--!` cut by the end are not
    // text (the tokenizer had taken them for the start of `-->`).
    let text = [&b"--!"[..], b"--", b"-"]
        .iter()
        .find_map(|end| rest.strip_suffix(*end))
        .unwrap_or(rest);
    sink.comment(from, text)?;
    Step::Continue(input.len())
}

/// Whether `name` (lower case) is at `at`, followed by whitespace, `/` or
/// `>`; then the offset of that byte.
fn name_at(input: &[u8], at: usize, name: &[u8]) -> Option<usize> {
    let end = at + name.len();
    let found = input.get(at..end)?.eq_ignore_ascii_case(name);
    let ends = input
        .get(end)
        .is_some_and(|&b| is_space(b) || b == b'/' || b == b'>');
    (found && ends).then_some(end)
}

/// Whether the end tag `</name` is at `lt`; then where its name ends.
fn end_tag_at(input: &[u8], lt: usize, name: &[u8]) -> Option<usize> {
    if input.get(lt + 1) != Some(&b'/') {
        return None;
    }
    name_at(input, lt + 2, name)
}

/// The end tag of a raw text or RCDATA element named `name`, searched from
/// `from`: the offset of its `<` and of the end of its name.
fn raw_text_end(input: &[u8], from: usize, name: &[u8]) -> Option<(usize, usize)> {
    let mut p = from;
    loop {
        let lt = find(input, p, b'<')?;
        if let Some(end) = end_tag_at(input, lt, name) {
            return Some((lt, end));
        }
        p = lt + 1;
    }
}

/// The end tag of a script, searched from `from`, following the script
/// data states: inside `<!--` a `</script>` still ends the script, but
/// after `<!--<script>` it only closes that inner `<script>`, and `-->`
/// returns to plain script text.
fn script_end(input: &[u8], from: usize) -> Option<(usize, usize)> {
    const SCRIPT: &[u8] = b"script";
    let mut p = from;
    'plain: loop {
        let lt = find(input, p, b'<')?;
        if let Some(end) = end_tag_at(input, lt, SCRIPT) {
            return Some((lt, end));
        }
        if input.get(lt + 1..lt + 4) != Some(b"!--") {
            p = lt + 1;
            continue;
        }
        // Escaped: `<!--` counts as the two dashes of a `-->`.
        p = lt + 4;
        let mut dashes = 2;
        let mut double = false;
        loop {
            match *input.get(p)? {
                b'-' => {
                    dashes += 1;
                    p += 1;
                }
                b'>' if dashes >= 2 => {
                    p += 1;
                    continue 'plain;
                }
                b'<' => {
                    dashes = 0;
                    if double {
                        if input.get(p + 1) == Some(&b'/')
                            && let Some(end) = name_at(input, p + 2, SCRIPT)
                        {
                            double = false;
                            p = end + 1;
                            continue;
                        }
                    } else {
                        if let Some(end) = end_tag_at(input, p, SCRIPT) {
                            return Some((p, end));
                        }
                        if let Some(end) = name_at(input, p + 1, SCRIPT) {
                            double = true;
                            p = end + 1;
                            continue;
                        }
                    }
                    p += 1;
                }
                _ => {
                    dashes = 0;
                    p += 1;
                    p += memchr2(b'-', b'<', input.get(p..)?)?;
                }
            }
        }
    }
}

#[cfg(test)]
mod name_tests {
    use super::*;

    /// The fast path's name ([`Name::from_lower`] on what [`lower_name`]
    /// read) is the name [`Name::read`] gives: same bytes, same hash (the
    /// open-element tracking looks names up by it), same end. Names of 1
    /// to 40 bytes (past the bytes a name keeps), mixed case, NUL, control
    /// and non-ASCII bytes.
    #[test]
    fn a_name_from_its_lower_case_bytes_is_the_name_read() {
        let alphabet: &[u8] = b"aZq-\0\x01\xc3\xa9X9:_";
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for len in 1..=40 {
            for round in 0..20 {
                let mut input = b"<".to_vec();
                for _ in 0..len {
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    input.push(alphabet[(seed >> 33) as usize % alphabet.len()]);
                }
                let tail: &[u8] = match round % 3 {
                    0 => b" x>",
                    1 => b">",
                    _ => b"",
                };
                input.extend_from_slice(tail);
                let (read, end) = Name::read(&input, 1);
                let (lower, lower_end) = lower_name(&input, 1);
                let fast = Name::from_lower(&lower, &input, 1);
                assert_eq!(
                    (fast.hash, fast.bytes(), lower_end),
                    (read.hash, read.bytes(), end),
                    "{input:?}"
                );
            }
        }
    }
}
