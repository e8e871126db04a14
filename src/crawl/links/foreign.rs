//! The part of HTML's tree builder that tokenization depends on, simulated
//! without a tree, as lol_html does (its `TreeBuilderSimulator`, which this
//! follows rule for rule so pages tokenize as they did with lol_html):
//! which start tags switch to raw text (`<script>`, `<title>`…), and
//! whether the parser is in HTML, SVG or MathML content, where those tags
//! are ordinary elements and `<![CDATA[` starts a CDATA section.
//!
//! A stack of namespaces: `<svg>` and `<math>` enter theirs; their end
//! tags, `</p>`, `</br>` and the HTML tags that break out of foreign
//! content (`<div>`, `<p>`, `<b>`…, `<font>` with `color`, `size` or
//! `face`) leave it; SVG's `desc`, `title`, `foreignObject` and MathML's
//! `mi mo mn ms mtext` and `annotation-xml` with an HTML encoding enter
//! HTML until their end tag. The stack is capped at [`MAX_DEPTH`]; deeper
//! nesting is ignored rather than remembered.

use super::scan::{Tag, TextKind};

/// Namespaces remembered at most; a page nesting `<svg>` deeper is broken
/// anyway, and this bounds its memory.
const MAX_DEPTH: usize = 4096;

/// The namespace content is parsed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum Ns {
    #[default]
    Html,
    Svg,
    MathMl,
}

/// The namespace stack (without the HTML document at its bottom).
#[derive(Debug, Default)]
pub(super) struct Foreign {
    stack: Vec<Ns>,
}

impl Foreign {
    pub(super) fn current(&self) -> Ns {
        self.stack.last().copied().unwrap_or_default()
    }

    /// `<![CDATA[` starts a CDATA section only in foreign content.
    pub(super) fn cdata_allowed(&self) -> bool {
        self.current() != Ns::Html
    }

    /// A start tag (`name` lower-cased): updates the namespace and says
    /// whether raw text follows.
    pub(super) fn start_tag(&mut self, name: &[u8], tag: &Tag<'_>) -> Option<TextKind> {
        match name {
            b"svg" => self.enter(Ns::Svg),
            b"math" => self.enter(Ns::MathMl),
            _ if self.current() == Ns::Html => return raw_text(name),
            _ => self.start_tag_in_foreign_content(name, tag),
        }
        None
    }

    /// Whether [`Self::start_tag`] would do anything for a start tag
    /// called `name`: change the namespace or start raw text.
    #[inline]
    pub(super) fn start_tag_matters(&self, name: &[u8]) -> bool {
        self.current() != Ns::Html || matches!(name, b"svg" | b"math") || raw_text(name).is_some()
    }

    /// Whether [`Self::end_tag`] may do anything: only in or under foreign
    /// content.
    #[inline]
    pub(super) fn end_tag_matters(&self) -> bool {
        !self.stack.is_empty()
    }

    fn start_tag_in_foreign_content(&mut self, name: &[u8], tag: &Tag<'_>) {
        let ns = self.current();
        if breaks_out(name) {
            self.leave();
        } else if is_integration_point(ns, name) {
            if !tag.self_closing {
                self.enter(Ns::Html);
            }
        } else if name == b"font" {
            let presentational = tag.attrs().any(|(attr, _)| {
                [&b"color"[..], b"size", b"face"]
                    .iter()
                    .any(|p| attr.eq_ignore_ascii_case(p))
            });
            if presentational {
                self.leave();
            }
        } else if ns == Ns::MathMl && name == b"annotation-xml" && !tag.self_closing {
            let html = tag.attr(b"encoding").is_some_and(|encoding| {
                encoding.eq_ignore_ascii_case(b"text/html")
                    || encoding.eq_ignore_ascii_case(b"application/xhtml+xml")
            });
            if html {
                self.enter(Ns::Html);
            }
        }
    }

    /// An end tag (`name` lower-cased).
    pub(super) fn end_tag(&mut self, name: &[u8]) {
        match self.current() {
            Ns::Html => {
                // Leaving an integration point back into SVG or MathML.
                if self.stack.is_empty() {
                    return;
                }
                let outer = self
                    .stack
                    .len()
                    .checked_sub(2)
                    .and_then(|i| self.stack.get(i))
                    .copied()
                    .unwrap_or_default();
                let exits = match outer {
                    Ns::Html => false,
                    Ns::MathMl => {
                        is_integration_point(Ns::MathMl, name) || name == b"annotation-xml"
                    }
                    Ns::Svg => is_integration_point(Ns::Svg, name),
                };
                if exits {
                    self.leave();
                }
            }
            ns => {
                let own = matches!((ns, name), (Ns::Svg, b"svg") | (Ns::MathMl, b"math"));
                if own || name == b"p" || name == b"br" {
                    self.leave();
                }
            }
        }
    }

    fn enter(&mut self, ns: Ns) {
        if self.stack.len() < MAX_DEPTH {
            self.stack.push(ns);
        }
    }

    fn leave(&mut self) {
        self.stack.pop();
    }
}

/// The text after a start tag in HTML content, when it is not ordinary.
#[inline]
fn raw_text(name: &[u8]) -> Option<TextKind> {
    Some(match name {
        b"textarea" | b"title" => TextKind::RcData,
        b"plaintext" => TextKind::PlainText,
        b"script" => TextKind::Script,
        b"style" | b"iframe" | b"xmp" | b"noembed" | b"noframes" | b"noscript" => TextKind::RawText,
        _ => return None,
    })
}

/// Elements whose content is HTML inside SVG or MathML (lol_html counts
/// MathML's text integration points as such too).
fn is_integration_point(ns: Ns, name: &[u8]) -> bool {
    match ns {
        Ns::Svg => matches!(name, b"desc" | b"title" | b"foreignobject"),
        Ns::MathMl => matches!(name, b"mi" | b"mo" | b"mn" | b"ms" | b"mtext"),
        Ns::Html => false,
    }
}

/// HTML start tags that end foreign content (HTML §13.2.6.5).
fn breaks_out(name: &[u8]) -> bool {
    matches!(
        name,
        b"b" | b"big"
            | b"blockquote"
            | b"body"
            | b"br"
            | b"center"
            | b"code"
            | b"dd"
            | b"div"
            | b"dl"
            | b"dt"
            | b"em"
            | b"embed"
            | b"h1"
            | b"h2"
            | b"h3"
            | b"h4"
            | b"h5"
            | b"h6"
            | b"head"
            | b"hr"
            | b"i"
            | b"img"
            | b"li"
            | b"listing"
            | b"menu"
            | b"meta"
            | b"nobr"
            | b"ol"
            | b"p"
            | b"pre"
            | b"ruby"
            | b"s"
            | b"small"
            | b"span"
            | b"strong"
            | b"strike"
            | b"sub"
            | b"sup"
            | b"table"
            | b"tt"
            | b"u"
            | b"ul"
            | b"var"
    )
}
