//! The XML side of [`super`]: a `quick-xml` event loop and the little
//! state machine that turns `<url>`/`<sitemap>` elements into entries.

use std::io::{BufReader, Read};

use quick_xml::Reader;
use quick_xml::events::{BytesRef, BytesStart, Event};

use super::{
    BUFFER, Capped, MAX_DEPTH, MAX_EXAMPLE_CHARS, MAX_FIELD_BYTES, MAX_LOC_BYTES, Sink,
    SitemapEntry, SitemapError, SitemapKind, read_error,
};

/// The element whose text is being collected inside an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Loc,
    Lastmod,
    Changefreq,
    Priority,
}

/// Collected element text with a byte cap.
#[derive(Debug, Default)]
struct FieldText {
    text: String,
    overflow: bool,
}

impl FieldText {
    fn push(&mut self, piece: &str, max: usize) {
        if self.text.len() + piece.len() > max {
            self.overflow = true;
            let mut end = max.saturating_sub(self.text.len()).min(piece.len());
            while !piece.is_char_boundary(end) {
                end -= 1;
            }
            self.text.push_str(&piece[..end]);
        } else {
            self.text.push_str(piece);
        }
    }

    /// The trimmed text of a short field (`lastmod`…); `None` if blank.
    fn value(field: Option<FieldText>) -> Option<String> {
        let field = field?;
        let value = field.text.trim();
        (!value.is_empty()).then(|| value.to_string())
    }
}

/// The parts of one `<url>` or `<sitemap>` seen so far. The first of each
/// element counts; repeats are ignored.
#[derive(Debug, Default)]
struct EntryParts {
    loc: Option<FieldText>,
    lastmod: Option<FieldText>,
    changefreq: Option<FieldText>,
    priority: Option<FieldText>,
}

impl EntryParts {
    fn slot(&mut self, field: Field) -> &mut Option<FieldText> {
        match field {
            Field::Loc => &mut self.loc,
            Field::Lastmod => &mut self.lastmod,
            Field::Changefreq => &mut self.changefreq,
            Field::Priority => &mut self.priority,
        }
    }
}

/// What the event loop does next.
enum Step {
    Go,
    Stop,
}

/// Where the XML parse is: element depth, the root, the open entry.
#[derive(Debug, Default)]
struct XmlState {
    /// Open elements.
    depth: usize,
    /// The root's namespace prefix (empty when none); entries and their
    /// fields must use the same.
    root_prefix: String,
    /// The root's name as written, for a truncation error.
    root_name: String,
    /// Inside an entry (`depth` ≥ 2).
    entry: Option<EntryParts>,
    /// Collecting this field's text (`depth` == 3).
    field: Option<Field>,
}

impl XmlState {
    fn start(&mut self, e: &BytesStart<'_>, sink: &mut Sink<'_>) -> Result<Step, String> {
        let name = e.name();
        let local = name.local_name().into_inner();
        let prefix = name.prefix().map_or("", |p| p.into_inner());
        let same_prefix = prefix == self.root_prefix;
        match self.depth {
            0 => {
                sink.report.kind = if local.eq_ignore_ascii_case("urlset") {
                    SitemapKind::Urlset
                } else if local.eq_ignore_ascii_case("sitemapindex") {
                    SitemapKind::Index
                } else {
                    sink.report.kind = SitemapKind::Other;
                    sink.report.error = Some(SitemapError::NotASitemap {
                        root: name.into_inner().chars().take(MAX_EXAMPLE_CHARS).collect(),
                    });
                    return Ok(Step::Stop);
                };
                self.root_prefix = prefix.to_string();
                self.root_name = name.into_inner().to_string();
            }
            1 if same_prefix => {
                let entry_name = match sink.report.kind {
                    SitemapKind::Index => "sitemap",
                    _ => "url",
                };
                if local.eq_ignore_ascii_case(entry_name) {
                    self.entry = Some(EntryParts::default());
                }
            }
            2 if same_prefix => {
                if let Some(entry) = &mut self.entry {
                    let page = sink.report.kind == SitemapKind::Urlset;
                    let field = if local.eq_ignore_ascii_case("loc") {
                        Some(Field::Loc)
                    } else if local.eq_ignore_ascii_case("lastmod") {
                        Some(Field::Lastmod)
                    } else if page && local.eq_ignore_ascii_case("changefreq") {
                        Some(Field::Changefreq)
                    } else if page && local.eq_ignore_ascii_case("priority") {
                        Some(Field::Priority)
                    } else {
                        None
                    };
                    if let Some(field) = field {
                        let slot = entry.slot(field);
                        if slot.is_none() {
                            *slot = Some(FieldText::default());
                            self.field = Some(field);
                        }
                    }
                }
            }
            MAX_DEPTH.. => return Err(format!("elements nested deeper than {MAX_DEPTH}")),
            _ => {}
        }
        self.depth += 1;
        Ok(Step::Go)
    }

    fn end(&mut self, sink: &mut Sink<'_>) -> Step {
        self.depth = self.depth.saturating_sub(1);
        match self.depth {
            0 => return Step::Stop,
            1 => {
                if let Some(entry) = self.entry.take()
                    && !self.finish_entry(entry, sink)
                {
                    return Step::Stop;
                }
            }
            2 => self.field = None,
            _ => {}
        }
        Step::Go
    }

    /// Text (already decoded) inside the current element.
    fn text(&mut self, piece: &str) {
        if self.depth != 3 {
            return;
        }
        let (Some(field), Some(entry)) = (self.field, &mut self.entry) else {
            return;
        };
        let max = if field == Field::Loc {
            MAX_LOC_BYTES
        } else {
            MAX_FIELD_BYTES
        };
        if let Some(slot) = entry.slot(field) {
            slot.push(piece, max);
        }
    }

    /// `&name;` or `&#N;` inside the current element.
    fn reference(&mut self, r: &BytesRef<'_>) {
        if self.depth != 3 || self.field.is_none() {
            return;
        }
        let name: &str = r;
        let c = match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => r.resolve_char_ref().ok().flatten(),
        };
        match c {
            Some(c) => self.text(c.encode_utf8(&mut [0u8; 4])),
            // Unknown entities stay as written.
            None => self.text(&format!("&{name};")),
        }
    }

    /// Hands over one complete entry; false when the URL cap stops the parse.
    fn finish_entry(&mut self, entry: EntryParts, sink: &mut Sink<'_>) -> bool {
        let Some(loc) = entry.loc else {
            sink.skip("(no <loc>)");
            return true;
        };
        let text = loc.text.trim();
        if loc.overflow {
            sink.skip(&format!("{text}…"));
            return true;
        }
        if text.is_empty() {
            sink.skip("(empty <loc>)");
            return true;
        }
        let lastmod = FieldText::value(entry.lastmod);
        if sink.report.kind == SitemapKind::Index {
            sink.offer(text, |url| SitemapEntry::Sitemap { url, lastmod })
        } else {
            let changefreq = FieldText::value(entry.changefreq);
            let priority = FieldText::value(entry.priority);
            sink.offer(text, |url| SitemapEntry::Page {
                url,
                lastmod,
                changefreq,
                priority,
            })
        }
    }
}

/// The XML event loop. `offset` is where the tokenizer starts in the stream
/// (after a BOM and leading whitespace).
pub(super) fn parse_xml<D: Read>(
    input: &mut BufReader<Capped<D>>,
    offset: u64,
    sink: &mut Sink<'_>,
) {
    let mut reader = Reader::from_reader(input);
    let config = reader.config_mut();
    // `http://x/?a=1&b=2` is a common mistake; take the `&` literally.
    config.allow_dangling_amp = true;
    config.check_end_names = true;
    config.trim_text(false);
    reader.get_mut().get_mut().item_mark = Some(offset);
    let mut state = XmlState::default();
    let mut buf: Vec<u8> = Vec::with_capacity(4 << 10);
    loop {
        let step = match reader.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => state.start(&e, sink),
            Ok(Event::Empty(e)) => state.start(&e, sink).map(|step| match step {
                Step::Go => state.end(sink),
                Step::Stop => Step::Stop,
            }),
            Ok(Event::End(_)) => Ok(state.end(sink)),
            Ok(Event::Text(t)) => {
                state.text(&t);
                Ok(Step::Go)
            }
            Ok(Event::CData(c)) => {
                state.text(&c);
                Ok(Step::Go)
            }
            Ok(Event::GeneralRef(r)) => {
                state.reference(&r);
                Ok(Step::Go)
            }
            Ok(Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_)) => {
                Ok(Step::Go)
            }
            Ok(Event::Eof) => {
                let capped = reader.get_ref().get_ref();
                if state.depth > 0 && !capped.over {
                    sink.report.error = Some(SitemapError::Truncated {
                        position: offset + reader.buffer_position(),
                        open: state.root_name.clone(),
                    });
                }
                Ok(Step::Stop)
            }
            Err(e) => {
                let capped = reader.get_ref().get_ref();
                if !capped.over {
                    let error = if capped.stop.is_some() {
                        read_error(capped, offset + reader.buffer_position(), &e)
                    } else {
                        SitemapError::Xml {
                            position: offset + reader.error_position(),
                            message: e.to_string(),
                        }
                    };
                    sink.report.error = Some(error);
                }
                Ok(Step::Stop)
            }
        };
        match step {
            Ok(Step::Go) => {}
            Ok(Step::Stop) => return,
            Err(message) => {
                sink.report.error = Some(SitemapError::Xml {
                    position: offset + reader.buffer_position(),
                    message,
                });
                return;
            }
        }
        let position = offset + reader.buffer_position();
        reader.get_mut().get_mut().item_mark = Some(position);
        buf.clear();
        // One large (but allowed) event must not pin its buffer for the
        // rest of the file.
        if buf.capacity() > BUFFER {
            buf = Vec::with_capacity(4 << 10);
        }
    }
}
