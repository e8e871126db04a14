//! The `exalead` dialect: Exalead CloudView crawl rules (seed 002).
//!
//! The file is XML: a `<Rules>` element (its `group`/`key` attributes do not
//! change meaning and are ignored) holding `<Rule>` elements. The `<Rules>`
//! may sit inside a wrapper such as `CrawlConfig.xml`; every `<Rules>` or
//! `<Rule>` found anywhere is read, `<Rules>` groups nested in groups are
//! flattened in document order. Element names may carry any namespace prefix
//! (`ar:Atom`, `exa:Rule`): the seed's own example uses one, and all its objects
//! live in one namespace, so the prefix is dropped before matching.
//!
//! Mapping onto the rule model (SPEC §1.4), one [`Rule`] per `<Rule>`, named
//! by its `name` attribute or `rule N` (`rule N.M` when nested), with the line
//! of its start tag:
//!
//! - conditions: `And` → all, `Or` → any, `Not` → not (exactly one child).
//!   Several conditions directly in one `<Rule>` must all hold; a rule with
//!   none always holds.
//! - `Atom field kind norm value`: `field` is url, scheme, host, path or
//!   query; `kind` exact, prefix, suffix, inside or length; `norm="none"` is a
//!   case-sensitive match, anything else (and no `norm`) insensitive, the
//!   seed's default. The seed says the value is a regular expression whose
//!   metacharacters `^$.*+?[](){}|` are escaped with `\`, yet its own examples
//!   (`foo.com`, `.gif`) leave the dot bare and mean it literally. So a value
//!   is read literally when `litteral="true"` says so, when it holds none of
//!   `^$*+?[](){}|\`, or when every metacharacter in it (dots included) is
//!   escaped; it then becomes a literal exact/prefix/suffix/contains matcher.
//!   Otherwise it stays a regex anchored by its kind: exact `^(?:v)$`, prefix
//!   `^(?:v)`, suffix `(?:v)$`, inside unanchored. `length` reads a `[lo:hi]`
//!   range and tests the field's length.
//! - shortcuts (value in `val`, `value` also accepted): `Domain` → domain
//!   matcher on host, `Path` → path prefix, `Ext` → path suffix, `Host` → host
//!   exact, `Url` → url exact, `Scheme` → scheme exact, `Query` → query exact,
//!   `InQuery` → query contains, `Length field` → length range (field path by
//!   default). They follow the same literal-or-regex reading as `Atom`.
//! - actions set single flags, never a preset, so that a rule keeps exactly
//!   what it said: `Index`/`NoIndex` → save, `Follow`/`NoFollow` → follow,
//!   `Accept`/`Ignore` → fetch; `Source name` → source, `AddMeta name value`
//!   → meta, `Priority shift` (−2…2) → priority.
//! - a `<Rule>` inside a `<Rule>` is a nested rule.
//!
//! Anything unknown inside a rule, malformed XML and a file without rules are
//! errors with the line; unknown attributes and stray text become notes.

use quick_xml::XmlVersion;
use quick_xml::escape::EscapeError;
use quick_xml::events::attributes::AttrError;
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;

use super::Parsed;
use crate::rules::error::{LineError, LineIndex, Note};
use crate::rules::model::{
    Case, Condition, Field, Matcher, Priority, Range, Rule, RuleSet, Test, rule_number,
};

/// Deepest element nesting accepted. The tree is walked recursively, so a
/// hostile file of endlessly nested tags must stop here rather than
/// overflow the stack; real rule files are a few levels deep.
const MAX_DEPTH: usize = 200;

/// Characters that make a value a regular expression (the seed's list,
/// without the dot: its examples use bare dots as plain dots).
const REGEX_META: &[char] = &[
    '^', '$', '*', '+', '?', '[', ']', '(', ')', '{', '}', '|', '\\',
];

/// Parses an Exalead CloudView rule file.
pub fn parse(text: &str) -> Result<Parsed, LineError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let roots = read_tree(text)?;
    let mut importer = Importer::default();
    let mut rules = Vec::new();
    for root in &roots {
        importer.search(root, &mut rules)?;
    }
    // Notes come out of the walk parent first; the user reads them by line.
    importer.notes.sort_by_key(|n| n.line);
    if !importer.found {
        // The file as a whole: its first line.
        return Err(LineError::new(
            1,
            "no <Rules> or <Rule> element found: an Exalead rule file holds <Rules><Rule>…</Rule></Rules>",
        ));
    }
    Ok(Parsed {
        rules: RuleSet {
            rules,
            ..RuleSet::default()
        },
        notes: importer.notes,
    })
}

/// One XML element, read whole before interpretation so that a rule can be
/// judged with all its children at hand.
#[derive(Debug)]
struct Element {
    /// As written, prefix included, for messages.
    name: String,
    /// Without the namespace prefix, for matching.
    local: String,
    line: usize,
    /// (local key, normalized value), `xmlns` declarations left out.
    attrs: Vec<(String, String)>,
    children: Vec<Element>,
    /// Line of the first non-blank text directly inside, if any.
    text_line: Option<usize>,
}

impl Element {
    /// The value of the first of `keys` present.
    fn attr(&self, keys: &[&str]) -> Option<&str> {
        keys.iter()
            .find_map(|k| self.attrs.iter().find(|(key, _)| key == k))
            .map(|(_, v)| v.as_str())
    }
}

fn offset(position: u64) -> usize {
    usize::try_from(position).unwrap_or(usize::MAX)
}

/// Reads the whole document into a tree. quick-xml checks well-formedness
/// of each tag and of end-tag names; elements left open at the end are
/// caught here, as quick-xml reports a plain end of file for them.
fn read_tree(text: &str) -> Result<Vec<Element>, LineError> {
    // Asked for every element: one pass to index lines, not one per element.
    let lines = LineIndex::new(text);
    let mut reader = Reader::from_str(text);
    let mut stack: Vec<Element> = Vec::new();
    let mut roots: Vec<Element> = Vec::new();
    loop {
        // No trimming is configured, so the reader stands at the `<` of the
        // next tag here: this is the tag's own position, not the end of it.
        let start = offset(reader.buffer_position());
        let event = reader.read_event().map_err(|e| {
            LineError::new(
                lines.line(offset(reader.error_position())),
                format!("malformed XML: {e}"),
            )
        })?;
        // XML has one root element: a second is a file cut and pasted
        // together, whose rules would otherwise join the first's unseen.
        if let (Event::Start(tag) | Event::Empty(tag), true, Some(first)) =
            (&event, stack.is_empty(), roots.first())
        {
            let name = tag.name().into_inner().to_string();
            return Err(LineError::new(
                lines.line(start),
                format!(
                    "malformed XML: a second root element <{name}> (the first, <{}>, is at line {}); a file has one",
                    first.name, first.line
                ),
            ));
        }
        match event {
            Event::Start(tag) => {
                if stack.len() >= MAX_DEPTH {
                    return Err(LineError::new(
                        lines.line(start),
                        format!("elements nested more than {MAX_DEPTH} deep"),
                    ));
                }
                stack.push(element(&lines, start, &tag)?);
            }
            Event::Empty(tag) => {
                let el = element(&lines, start, &tag)?;
                attach(&mut stack, &mut roots, el);
            }
            Event::End(_) => {
                // quick-xml has already checked that this end tag closes the
                // innermost open element, so the pop is the matching one.
                if let Some(el) = stack.pop() {
                    attach(&mut stack, &mut roots, el);
                }
            }
            Event::Text(t) if t.trim().is_empty() => {}
            Event::Text(t) => {
                // Point at the text itself, not at the line break before it.
                let lead = t.len() - t.trim_start().len();
                let line = lines.line(start.saturating_add(lead));
                match (stack.last_mut(), roots.first()) {
                    (Some(top), _) => {
                        top.text_line.get_or_insert(line);
                    }
                    // Not XML: what is left of a file cut or pasted together.
                    (None, Some(root)) => {
                        return Err(LineError::new(
                            line,
                            format!(
                                "malformed XML: text after the root element <{}> (line {}); a file holds nothing after it",
                                root.name, root.line
                            ),
                        ));
                    }
                    // Before any element: a file that is not XML at all is
                    // told so once no <Rules> is found.
                    (None, None) => {}
                }
            }
            Event::CData(_) | Event::GeneralRef(_) => {
                if let Some(top) = stack.last_mut() {
                    top.text_line.get_or_insert(lines.line(start));
                }
            }
            Event::Eof => {
                if let Some(open) = stack.last() {
                    // The last line that holds anything, not the empty
                    // one after the final newline.
                    return Err(LineError::new(
                        lines.line(text.trim_end().len().saturating_sub(1)),
                        format!(
                            "the file ends before <{}> (opened at line {}) is closed",
                            open.name, open.line
                        ),
                    ));
                }
                return Ok(roots);
            }
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
}

fn attach(stack: &mut [Element], roots: &mut Vec<Element>, el: Element) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(el),
        None => roots.push(el),
    }
}

/// Builds an element from a start or empty tag found at byte `start`.
fn element(lines: &LineIndex, start: usize, tag: &BytesStart<'_>) -> Result<Element, LineError> {
    let line = lines.line(start);
    let name = tag.name().into_inner().to_string();
    let local = tag.local_name().into_inner().to_string();
    let mut attrs = Vec::new();
    for attr in tag.attributes() {
        let attr = attr.map_err(|e| {
            let (at, message) = attr_error(&e);
            // quick-xml counts from just after the `<`.
            let at = start.saturating_add(1).saturating_add(at);
            LineError::new(
                lines.line(at),
                format!("bad attribute in <{name}>: {message}"),
            )
        })?;
        if attr.key.as_namespace_binding().is_some() {
            continue;
        }
        let value = attr
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| {
                LineError::new(
                    line,
                    format!("bad attribute value in <{name}>: {}", value_error(&e)),
                )
            })?;
        attrs.push((
            attr.key.local_name().into_inner().to_string(),
            value.into_owned(),
        ));
    }
    Ok(Element {
        name,
        local,
        line,
        attrs,
        children: Vec::new(),
        text_line: None,
    })
}

/// Where (relative to the tag) and what went wrong in an attribute, in
/// words of our own: quick-xml's messages lead with that relative
/// position, which would only confuse next to a line number.
fn attr_error(e: &AttrError) -> (usize, String) {
    match *e {
        AttrError::ExpectedEq(at) => (at, "an attribute name must be followed by `=`".to_string()),
        AttrError::ExpectedValue(at) => (at, "`=` must be followed by a quoted value".to_string()),
        AttrError::UnquotedValue(at) => (at, "attribute values must be in quotes".to_string()),
        AttrError::ExpectedQuote(at, quote) => {
            (at, format!("missing closing quote `{}`", char::from(quote)))
        }
        AttrError::Duplicated(at, _) => (at, "the same attribute is given twice".to_string()),
    }
}

/// An entity problem in an attribute value, without quick-xml's relative
/// byte ranges. A bare `&` is the usual one: URLs with several query
/// parameters must write it `&amp;` in XML.
fn value_error(e: &quick_xml::Error) -> String {
    match e {
        quick_xml::Error::Escape(EscapeError::UnrecognizedEntity(_, name)) => {
            format!("unknown entity `&{name};` (write `&amp;` for a plain `&`)")
        }
        quick_xml::Error::Escape(EscapeError::UnterminatedEntity(_)) => {
            "a bare `&` (write `&amp;` for a plain `&`)".to_string()
        }
        other => other.to_string(),
    }
}

/// The flag or setting an action element changes.
#[derive(Debug, Clone, Copy)]
enum ActionKind {
    Index,
    NoIndex,
    Follow,
    NoFollow,
    Accept,
    Ignore,
    Source,
    AddMeta,
    Priority,
}

impl ActionKind {
    fn from_name(name: &str) -> Option<ActionKind> {
        Some(match name {
            "Index" => ActionKind::Index,
            "NoIndex" => ActionKind::NoIndex,
            "Follow" => ActionKind::Follow,
            "NoFollow" => ActionKind::NoFollow,
            "Accept" => ActionKind::Accept,
            "Ignore" => ActionKind::Ignore,
            "Source" => ActionKind::Source,
            "AddMeta" => ActionKind::AddMeta,
            "Priority" => ActionKind::Priority,
            _ => return None,
        })
    }

    fn known_attrs(self) -> &'static [&'static str] {
        match self {
            ActionKind::Source => &["name"],
            ActionKind::AddMeta => &["name", "value"],
            ActionKind::Priority => &["shift"],
            _ => &[],
        }
    }
}

/// How an atom compares (the seed's `kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Exact,
    Prefix,
    Suffix,
    Inside,
    Length,
    /// Host equal to the value or below it (the `Domain` shortcut).
    Domain,
}

/// The fixed field and kind of each shortcut; `Length` takes its field
/// from an attribute, so it gets the default here.
fn shortcut(name: &str) -> Option<(Field, Kind)> {
    Some(match name {
        "Domain" => (Field::Host, Kind::Domain),
        "Path" => (Field::Path, Kind::Prefix),
        "Ext" => (Field::Path, Kind::Suffix),
        "Host" => (Field::Host, Kind::Exact),
        "Url" => (Field::Url, Kind::Exact),
        "Scheme" => (Field::Scheme, Kind::Exact),
        "Query" => (Field::Query, Kind::Exact),
        "InQuery" => (Field::Query, Kind::Inside),
        "Length" => (Field::Path, Kind::Length),
        _ => return None,
    })
}

/// The attributes each kind of condition element reads; others are noted.
const ATOM_ATTRS: &[&str] = &[
    "field", "kind", "norm", "value", "val", "litteral", "literal",
];
const SHORTCUT_ATTRS: &[&str] = &["val", "value", "norm", "litteral", "literal"];
const LENGTH_ATTRS: &[&str] = &["field", "val", "value", "norm", "litteral", "literal"];

/// Walks the tree, collecting rules and notes.
#[derive(Debug, Default)]
struct Importer {
    notes: Vec<Note>,
    /// Whether any `<Rules>` or `<Rule>` was met (an empty `<Rules/>` counts).
    found: bool,
}

impl Importer {
    fn note(&mut self, line: usize, message: String) {
        self.notes.push(Note { line, message });
    }

    /// Notes attributes that this element does not use, so that nothing the
    /// user wrote disappears silently.
    fn note_unknown_attrs(&mut self, el: &Element, known: &[&str]) {
        for (key, _) in &el.attrs {
            if !known.contains(&key.as_str()) {
                self.note(
                    el.line,
                    format!(
                        "attribute `{key}` on <{}> is not used and was ignored",
                        el.name
                    ),
                );
            }
        }
    }

    fn note_text(&mut self, el: &Element) {
        if let Some(line) = el.text_line {
            self.note(
                line,
                format!("text inside <{}> is not used and was ignored", el.name),
            );
        }
    }

    /// Looks for rules in elements that are not themselves rule elements (a
    /// wrapper document such as CrawlConfig.xml).
    fn search(&mut self, el: &Element, out: &mut Vec<Rule>) -> Result<(), LineError> {
        match el.local.as_str() {
            "Rules" => {
                self.found = true;
                self.rules_group(el, out)
            }
            "Rule" => {
                self.found = true;
                let rule = self.rule(el, &[out.len() + 1])?;
                out.push(rule);
                Ok(())
            }
            _ => el
                .children
                .iter()
                .try_for_each(|child| self.search(child, out)),
        }
    }

    /// A `<Rules>` group: its rules, and those of groups inside it, in order.
    fn rules_group(&mut self, el: &Element, out: &mut Vec<Rule>) -> Result<(), LineError> {
        self.note_text(el);
        for child in &el.children {
            match child.local.as_str() {
                "Rule" => {
                    let rule = self.rule(child, &[out.len() + 1])?;
                    out.push(rule);
                }
                "Rules" => self.rules_group(child, out)?,
                _ => {
                    return Err(LineError::new(
                        child.line,
                        format!(
                            "unknown element <{}> in <{}>: only <Rule> and <Rules> belong there",
                            child.name, el.name
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// One `<Rule>`; `path` is its number (with its parents' when nested).
    fn rule(&mut self, el: &Element, path: &[usize]) -> Result<Rule, LineError> {
        self.note_unknown_attrs(el, &["name"]);
        self.note_text(el);
        let name = el
            .attr(&["name"])
            .map_or_else(|| format!("rule {}", rule_number(path)), str::to_string);
        let mut rule = Rule::new(name, el.line);
        let mut conditions = Vec::new();
        for child in &el.children {
            if child.local == "Rule" {
                let mut nested_path = path.to_vec();
                nested_path.push(rule.rules.len() + 1);
                let nested = self.rule(child, &nested_path)?;
                rule.rules.push(nested);
            } else if let Some(kind) = ActionKind::from_name(&child.local) {
                self.action(child, kind, &mut rule)?;
            } else if let Some(condition) = self.condition(child)? {
                conditions.push(condition);
            } else {
                return Err(LineError::new(
                    child.line,
                    format!(
                        "unknown element <{}> in <{}>: expected a condition (And, Or, Not, Atom, Domain, Path, Ext, \
                         Host, Url, Scheme, Query, InQuery, Length), an action (Index, NoIndex, Follow, NoFollow, \
                         Accept, Ignore, Source, AddMeta, Priority) or a nested Rule",
                        child.name, el.name
                    ),
                ));
            }
        }
        rule.condition = match conditions.len() {
            0 => None,
            1 => conditions.pop(),
            _ => Some(Condition::All(conditions)),
        };
        Ok(rule)
    }

    fn action(&mut self, el: &Element, kind: ActionKind, rule: &mut Rule) -> Result<(), LineError> {
        self.leaf(el)?;
        self.note_unknown_attrs(el, kind.known_attrs());
        let required = |key: &str| {
            el.attr(&[key]).ok_or_else(|| {
                LineError::new(el.line, format!("<{}> needs a `{key}` attribute", el.name))
            })
        };
        match kind {
            ActionKind::Index => rule.set.save = Some(true),
            ActionKind::NoIndex => rule.set.save = Some(false),
            ActionKind::Follow => rule.set.follow = Some(true),
            ActionKind::NoFollow => rule.set.follow = Some(false),
            ActionKind::Accept => rule.set.fetch = Some(true),
            ActionKind::Ignore => rule.set.fetch = Some(false),
            ActionKind::Source => rule.source = Some(required("name")?.to_string()),
            ActionKind::AddMeta => {
                let name = required("name")?.to_string();
                let value = required("value")?.to_string();
                rule.meta.push((name, value));
            }
            ActionKind::Priority => {
                let shift = required("shift")?;
                let text = shift.trim();
                let priority = text
                    .strip_prefix('+')
                    .unwrap_or(text)
                    .parse::<i64>()
                    .ok()
                    .and_then(Priority::from_shift)
                    .ok_or_else(|| {
                        LineError::new(
                            el.line,
                            format!(
                                "bad priority shift `{shift}`: expected -2 (highest) to 2 (lowest)"
                            ),
                        )
                    })?;
                rule.priority = Some(priority);
            }
        }
        Ok(())
    }

    /// The condition an element stands for, `None` when it is not a
    /// condition element at all.
    fn condition(&mut self, el: &Element) -> Result<Option<Condition>, LineError> {
        let local = el.local.as_str();
        if matches!(local, "And" | "Or" | "Not") {
            self.note_unknown_attrs(el, &[]);
            self.note_text(el);
            let mut parts = Vec::with_capacity(el.children.len());
            for child in &el.children {
                match self.condition(child)? {
                    Some(c) => parts.push(c),
                    None => {
                        return Err(LineError::new(
                            child.line,
                            format!(
                                "<{}> cannot appear inside <{}>: only conditions can",
                                child.name, el.name
                            ),
                        ));
                    }
                }
            }
            if parts.is_empty() && local != "Not" {
                let holds = if local == "Or" { "never" } else { "always" };
                let message = format!("<{}> holds no condition, so it {holds} holds", el.name);
                self.note(el.line, message);
            }
            return Ok(Some(match local {
                "And" => Condition::All(parts),
                "Or" => Condition::Any(parts),
                _ => match <[Condition; 1]>::try_from(parts) {
                    Ok([only]) => Condition::Not(Box::new(only)),
                    Err(parts) => {
                        return Err(LineError::new(
                            el.line,
                            format!(
                                "<{}> takes exactly one condition, found {}",
                                el.name,
                                parts.len()
                            ),
                        ));
                    }
                },
            }));
        }
        let (field, kind) = if local == "Atom" {
            self.note_unknown_attrs(el, ATOM_ATTRS);
            (atom_field(el)?, atom_kind(el)?)
        } else if let Some((default_field, kind)) = shortcut(local) {
            if kind == Kind::Length {
                self.note_unknown_attrs(el, LENGTH_ATTRS);
                let field = match el.attr(&["field"]) {
                    Some(_) => atom_field(el)?,
                    None => default_field,
                };
                (field, kind)
            } else {
                self.note_unknown_attrs(el, SHORTCUT_ATTRS);
                (default_field, kind)
            }
        } else {
            return Ok(None);
        };
        self.leaf(el)?;
        // The seed writes `value` on Atom and `val` on shortcuts, and mixes
        // them in its prose; either is taken on both.
        let value = el.attr(&["value", "val"]).ok_or_else(|| {
            LineError::new(
                el.line,
                format!("<{}> needs a `val` (or `value`) attribute", el.name),
            )
        })?;
        let case = norm(el)?;
        let literal = literal_flag(el)?;
        let mut matcher = matcher(kind, value, literal)
            .map_err(|e| LineError::new(el.line, format!("in <{}>: {e}", el.name)))?;
        // A URL written as text is compared with normalized URLs: written
        // normalized too, or `http://WWW.Example.com` would never match.
        if field == Field::Url {
            match &mut matcher {
                Matcher::Exact(text) => *text = super::url_start_normalized(text, true),
                Matcher::Prefix(text) | Matcher::Contains(text) => {
                    *text = super::url_start_normalized(text, false);
                }
                _ => {}
            }
        }
        // So is a host outside ASCII (punycode) or an IPv6 address.
        if field == Field::Host
            && let Matcher::Exact(text) | Matcher::Domain(text) = &mut matcher
        {
            *text = super::host_normalized(text);
        }
        Ok(Some(Condition::Test(Test {
            field,
            matcher,
            case,
        })))
    }

    /// Checks that an atom or action has no child elements (text is noted).
    fn leaf(&mut self, el: &Element) -> Result<(), LineError> {
        if let Some(child) = el.children.first() {
            return Err(LineError::new(
                child.line,
                format!(
                    "<{}> cannot appear inside <{}>, which takes no child elements",
                    child.name, el.name
                ),
            ));
        }
        self.note_text(el);
        Ok(())
    }
}

fn atom_field(el: &Element) -> Result<Field, LineError> {
    let text = el.attr(&["field"]).ok_or_else(|| {
        LineError::new(el.line, format!("<{}> needs a `field` attribute", el.name))
    })?;
    match text.trim().to_ascii_lowercase().as_str() {
        "url" => Ok(Field::Url),
        "scheme" => Ok(Field::Scheme),
        "host" => Ok(Field::Host),
        "path" => Ok(Field::Path),
        "query" => Ok(Field::Query),
        _ => Err(LineError::new(
            el.line,
            format!(
                "unknown field `{text}` in <{}> (expected url, scheme, host, path or query)",
                el.name
            ),
        )),
    }
}

fn atom_kind(el: &Element) -> Result<Kind, LineError> {
    let text = el.attr(&["kind"]).ok_or_else(|| {
        LineError::new(el.line, format!("<{}> needs a `kind` attribute", el.name))
    })?;
    match text.trim().to_ascii_lowercase().as_str() {
        "exact" => Ok(Kind::Exact),
        "prefix" => Ok(Kind::Prefix),
        "suffix" => Ok(Kind::Suffix),
        "inside" => Ok(Kind::Inside),
        "length" => Ok(Kind::Length),
        _ => Err(LineError::new(
            el.line,
            format!(
                "unknown kind `{text}` in <{}> (expected exact, prefix, suffix, inside or length)",
                el.name
            ),
        )),
    }
}

/// `norm="none"` compares as written; the seed's other levels (`norm`,
/// `lower`, its default `non`) all ignore case.
fn norm(el: &Element) -> Result<Case, LineError> {
    let Some(text) = el.attr(&["norm"]) else {
        return Ok(Case::Insensitive);
    };
    match text.trim().to_ascii_lowercase().as_str() {
        "none" => Ok(Case::Sensitive),
        "" | "non" | "norm" | "lower" => Ok(Case::Insensitive),
        _ => Err(LineError::new(
            el.line,
            format!(
                "unknown norm `{text}` in <{}> (expected none, norm, lower or non)",
                el.name
            ),
        )),
    }
}

/// The seed spells it `litteral`; `literal` is taken too.
fn literal_flag(el: &Element) -> Result<bool, LineError> {
    let Some(text) = el.attr(&["litteral", "literal"]) else {
        return Ok(false);
    };
    match text.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" => Ok(true),
        "false" | "0" | "no" | "" => Ok(false),
        _ => Err(LineError::new(
            el.line,
            format!(
                "bad boolean `{text}` in <{}> (expected true or false)",
                el.name
            ),
        )),
    }
}

/// The matcher for a value of the given kind: a range for `length`, else
/// a literal matcher or an anchored regex (see the module doc).
fn matcher(kind: Kind, value: &str, literal: bool) -> Result<Matcher, String> {
    let text = if literal {
        Some(value.to_string())
    } else {
        as_literal(value)
    };
    let regex = |pattern: String| move || Matcher::Regex(pattern);
    Ok(match kind {
        Kind::Length => Matcher::Range(value.parse::<Range>()?),
        Kind::Exact => text.map_or_else(regex(format!("^(?:{value})$")), Matcher::Exact),
        Kind::Prefix => text.map_or_else(regex(format!("^(?:{value})")), Matcher::Prefix),
        Kind::Suffix => text.map_or_else(regex(format!("(?:{value})$")), Matcher::Suffix),
        Kind::Inside => text.map_or_else(regex(value.to_string()), Matcher::Contains),
        // The seed defines Domain as "host exact v, or host suffix .v".
        Kind::Domain => text.map_or_else(regex(format!(r"(?:^|\.)(?:{value})$")), Matcher::Domain),
    })
}

/// The plain text a value stands for, if it is not really a regex: either
/// it has no regex metacharacters at all (a bare dot then means a dot, as
/// in the seed's examples), or every metacharacter in it, dots included, is
/// escaped with `\` as the seed asks.
fn as_literal(value: &str) -> Option<String> {
    if !value.contains(REGEX_META) {
        return Some(value.to_string());
    }
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            // Only escapes of punctuation that is plainly itself; `\d`,
            // `\b`, `\<` and the like are regex classes or assertions.
            let next = chars.next()?;
            if REGEX_META.contains(&next) || matches!(next, '.' | '/' | '-') {
                out.push(next);
            } else {
                return None;
            }
        } else if REGEX_META.contains(&c) || c == '.' {
            return None;
        } else {
            out.push(c);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests;
