//! The elements open at the current point of a page, kept only while the
//! title or the excerpt needs them: whether text is inside a `template` or
//! an SVG `title desc style script` (not visible), whether a `<title>` is
//! SVG's (a tooltip, not the page title), and which open block elements an
//! end tag closes (a word boundary for the excerpt).
//!
//! It keeps lol_html's rules, so the excerpt and title come out as they did
//! with lol_html: every start tag is pushed except HTML void elements
//! (`br img meta`…) and self-closing tags in SVG or MathML, with no
//! implied end tags (`<p>a<p>b` leaves two `p` open); an end tag closes the
//! nearest open element of its name and everything opened after it, and is
//! ignored when none is open. At most [`MAX_OPEN`] elements are kept; past
//! that, start tags are not pushed, which only blurs the excerpt of a page
//! nested that deep.

use rustc_hash::FxHashMap;

use super::foreign::Ns;
use super::scan::{Name, Tag};

/// Open elements kept at most.
const MAX_OPEN: usize = 1 << 16;

/// An open `<svg>`.
const SVG: u8 = 1;
/// Text inside is not visible.
pub(super) const HIDDEN: u8 = 2;
/// A block element opened while the excerpt was taking text: its end
/// separates words.
pub(super) const BOUNDARY: u8 = 4;
/// The `<title>` being read as the page title.
pub(super) const TITLE: u8 = 8;

#[derive(Debug, Clone, Copy)]
struct Item {
    hash: u64,
    flags: u8,
}

#[derive(Debug, Default)]
pub(super) struct Open {
    items: Vec<Item>,
    /// How many open elements have each name hash: an end tag whose name is
    /// not open costs one lookup, not a walk down the stack.
    counts: FxHashMap<u64, u32>,
    /// Open elements with [`SVG`], [`HIDDEN`].
    svg: u32,
    hidden: u32,
}

impl Open {
    /// Inside an `<svg>` element.
    pub(super) fn in_svg(&self) -> bool {
        self.svg > 0
    }

    /// Text here is not visible (inside `template` or SVG's `title desc
    /// style script`).
    pub(super) fn hidden(&self) -> bool {
        self.hidden > 0
    }

    /// A start tag, with the caller's flags ([`BOUNDARY`], [`TITLE`]) for
    /// its element. Returns whether the element was opened (void and
    /// self-closing foreign elements are not).
    pub(super) fn start_tag(&mut self, tag: &Tag<'_>, mut flags: u8) -> bool {
        let name = tag.name.bytes();
        let opens = match tag.ns {
            Ns::Html => !is_void(name),
            Ns::Svg | Ns::MathMl => !tag.self_closing,
        };
        if !opens || self.items.len() >= MAX_OPEN {
            return false;
        }
        if name == b"svg" {
            flags |= SVG;
        }
        if name == b"template"
            || (self.in_svg() && matches!(name, b"title" | b"desc" | b"style" | b"script"))
        {
            flags |= HIDDEN;
        }
        self.svg += u32::from(flags & SVG != 0);
        self.hidden += u32::from(flags & HIDDEN != 0);
        *self.counts.entry(tag.name.hash).or_default() += 1;
        self.items.push(Item {
            hash: tag.name.hash,
            flags,
        });
        true
    }

    /// An end tag: closes the nearest open element of that name and all
    /// opened after it. Returns the union of their flags.
    pub(super) fn end_tag(&mut self, name: &Name) -> u8 {
        if !self.counts.contains_key(&name.hash) {
            return 0;
        }
        let Some(at) = self.items.iter().rposition(|i| i.hash == name.hash) else {
            return 0;
        };
        let mut all = 0;
        for item in self.items.drain(at..) {
            all |= item.flags;
            self.svg -= u32::from(item.flags & SVG != 0);
            self.hidden -= u32::from(item.flags & HIDDEN != 0);
            if let Some(count) = self.counts.get_mut(&item.hash) {
                *count -= 1;
                if *count == 0 {
                    self.counts.remove(&item.hash);
                }
            }
        }
        all
    }
}

/// HTML void elements, as lol_html lists them.
fn is_void(name: &[u8]) -> bool {
    matches!(
        name,
        b"area"
            | b"base"
            | b"basefont"
            | b"bgsound"
            | b"br"
            | b"col"
            | b"embed"
            | b"hr"
            | b"img"
            | b"input"
            | b"keygen"
            | b"link"
            | b"meta"
            | b"param"
            | b"source"
            | b"track"
            | b"wbr"
    )
}

/// Elements whose start and end separate words in the excerpt.
pub(super) fn is_block(name: &[u8]) -> bool {
    matches!(
        name,
        b"address"
            | b"article"
            | b"aside"
            | b"blockquote"
            | b"br"
            | b"button"
            | b"caption"
            | b"dd"
            | b"details"
            | b"dialog"
            | b"div"
            | b"dl"
            | b"dt"
            | b"fieldset"
            | b"figcaption"
            | b"figure"
            | b"footer"
            | b"form"
            | b"h1"
            | b"h2"
            | b"h3"
            | b"h4"
            | b"h5"
            | b"h6"
            | b"header"
            | b"hgroup"
            | b"hr"
            | b"li"
            | b"main"
            | b"nav"
            | b"ol"
            | b"option"
            | b"p"
            | b"pre"
            | b"section"
            | b"summary"
            | b"table"
            | b"tbody"
            | b"td"
            | b"tfoot"
            | b"th"
            | b"thead"
            | b"tr"
            | b"ul"
    )
}
