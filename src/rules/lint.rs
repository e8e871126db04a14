//! Lint on save (SPEC §4): rule mistakes that compile but cannot do what the
//! author meant. These are the escaping traps seed 000 (WebCopy) warns about
//! (`example.com`, `application/epub+zip`), anchors that no value of the chosen
//! field can satisfy, and matchers aimed at the wrong field.
//!
//! Everything here is pure. [`lint_rules`] walks a whole [`RuleSet`] for the
//! save hook and the `rules` command; [`lint_test`] checks one test, so a live
//! editor can lint as the user types. Regexes are read with `regex-syntax`, the
//! parser the `regex` crate itself uses, so escapes, classes, `(?x)` and case
//! flags mean here exactly what they mean to the compiler. A regex that does
//! not parse gets no lint: the compiler already reports it (SPEC §1.2).
//!
//! The field shapes assumed are those of SPEC §1.1 as `facts.rs` builds them:
//! normalized by the `url` crate, fragment dropped, `path` with its leading
//! `/`, `query` without its `?`, `extension` lower-cased and without its `.`.

use std::borrow::Cow;

use regex_syntax::ast::{self, Ast, RepetitionKind};
use regex_syntax::hir::literal::{ExtractKind, Extractor};
use regex_syntax::hir::{Hir, HirKind, Look, translate::TranslatorBuilder};

use super::model::{Case, Condition, Field, Matcher, RuleSet, Test};

/// One finding, located the way the rest of the engine names rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lint {
    /// Rule number path as in [`RuleSet::walk`], e.g. `[3, 2]`.
    pub path: Vec<usize>,
    /// The rule's line in its source file (`rule.origin.line`).
    pub line: usize,
    pub kind: LintKind,
    /// One line: what is wrong and how to fix it.
    pub message: String,
}

/// What kind of mistake a [`Lint`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LintKind {
    /// A `.` between host-label characters: it matches any character.
    UnescapedDot,
    /// A `+` inside a media type (`epub+zip`): it repeats the letter before it.
    UnescapedPlus,
    /// Text anchored at the start (or, for `suffix`, the end) of the field
    /// that no value of that field can have there.
    ImpossibleAnchor,
    /// Any other test that can never hold: wrong matcher for the field, text
    /// the field never contains, upper case on a lower-cased field.
    NeverMatches,
    /// `url` text that ends at the scheme's default port (`http://h:80`):
    /// normalization drops that port, so the text only matches longer ports
    /// (`:8080`), never the port it names.
    OpenDefaultPort,
    /// `any = []` (never holds) or `all = []` (always holds): a list whose
    /// tests were left out.
    EmptyList,
}

/// Lints every test of every rule, nested rules included, in document order.
/// Disabled rules are linted too: they are usually about to be re-enabled.
pub fn lint_rules(rules: &RuleSet) -> Vec<Lint> {
    let mut lints = Vec::new();
    rules.walk(&mut |path, rule| {
        let Some(condition) = &rule.condition else {
            return;
        };
        for (kind, message) in lint_condition(condition) {
            lints.push(Lint {
                path: path.to_vec(),
                line: rule.origin.line,
                kind,
                message,
            });
        }
    });
    lints
}

/// The findings for a rule's whole condition: its empty lists, then each
/// test's (the console's rule form lints a condition as it is typed).
pub fn lint_condition(condition: &Condition) -> Vec<(LintKind, String)> {
    let mut lints = Vec::new();
    for_each_empty_list(condition, true, &mut |empty| {
        lints.push((LintKind::EmptyList, empty.to_string()));
    });
    condition.for_each_test(&mut |test| lints.extend(lint_test(test)));
    lints
}

/// Calls `found` with a message for each empty `any` or `all` list in
/// `condition`, at any depth; `whole` when `condition` is the rule's
/// entire condition, whose consequence for the rule can then be said.
fn for_each_empty_list(condition: &Condition, whole: bool, found: &mut impl FnMut(&'static str)) {
    match condition {
        Condition::Any(list) if list.is_empty() => found(if whole {
            "`any = []` lists no test, so it never holds: the rule never matches"
        } else {
            "`any = []` lists no test, so it never holds"
        }),
        Condition::All(list) if list.is_empty() => found(if whole {
            "`all = []` lists no test, so it always holds: the rule matches every URL"
        } else {
            "`all = []` lists no test, so it always holds"
        }),
        Condition::Any(list) | Condition::All(list) => list
            .iter()
            .for_each(|c| for_each_empty_list(c, false, found)),
        Condition::Not(inner) => for_each_empty_list(inner, false, found),
        Condition::Test(_) => {}
    }
}

/// The findings for one test, each with a one-line message.
pub fn lint_test(test: &Test) -> Vec<(LintKind, String)> {
    let field = test.field;
    let subject = Subject {
        key: test.matcher.key(),
        value: test.matcher.value_text(),
        field,
    };
    let never = |why: &str| vec![(LintKind::NeverMatches, format!("{subject}: {why}"))];
    match &test.matcher {
        Matcher::Regex(pattern) => regex_lints(&subject, pattern, test.case),
        Matcher::Domain(_) if field != Field::Host => {
            never("`domain` compares host names only; use field = \"host\"")
        }
        Matcher::Cidr(_) if field != Field::Address => {
            never("`cidr` compares the resolved IP address only; use field = \"address\"")
        }
        Matcher::Range(_) if field == Field::Address => never(
            "`range` compares a number or a text length, and an address is neither; use `cidr`",
        ),
        Matcher::Cidr(_) | Matcher::Range(_) => Vec::new(),
        Matcher::Exact(value)
        | Matcher::Prefix(value)
        | Matcher::Suffix(value)
        | Matcher::Contains(value)
        | Matcher::Wildcard(value)
        | Matcher::Domain(value) => literal_lints(&subject, &test.matcher, value, test.case),
    }
}

/// The test being linted, shown at the head of every message.
struct Subject {
    key: &'static str,
    value: String,
    field: Field,
}

impl std::fmt::Display for Subject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} `{}` on {}", self.key, show(&self.value), self.field)
    }
}

fn regex_lints(subject: &Subject, pattern: &str, case: Case) -> Vec<(LintKind, String)> {
    let mut out = Vec::new();
    let Ok(ast) = ast::parse::Parser::new().parse(pattern) else {
        return out;
    };
    // Translated case-sensitively whatever the test says: letters stay
    // literals instead of fanning out into `[Hh]` classes, which would blow
    // the literal extractor's limits. The checks fold case themselves.
    let Ok(hir) = TranslatorBuilder::new().build().translate(pattern, &ast) else {
        return out;
    };

    let mut escapes = Escapes::default();
    escapes.scan(&ast);
    if !escapes.dots.is_empty() {
        let fix = escape_at(pattern, &escapes.dots);
        let why = format!(
            "`.` matches any character, not just a dot; write `{}`",
            show(&fix)
        );
        out.push((LintKind::UnescapedDot, format!("{subject}: {why}")));
    }
    if let Some(&(_, repeated)) = escapes.pluses.first() {
        let offsets: Vec<usize> = escapes.pluses.iter().map(|&(at, _)| at).collect();
        let fix = escape_at(pattern, &offsets);
        let why = format!(
            "`+` repeats the `{repeated}` before it instead of matching a plus, \
             so the media type never matches; write `{}`",
            show(&fix)
        );
        out.push((LintKind::UnescapedPlus, format!("{subject}: {why}")));
    }

    if let Some(problem) = anchored_problem(&hir, subject.field, case) {
        let why = problem.explain(subject, Some(pattern));
        out.push((LintKind::ImpossibleAnchor, format!("{subject}: {why}")));
        return out;
    }
    let mut required = Vec::new();
    required_literals(&hir, &mut required);
    // Unanchored too: a capital the match needs, on a field normalization
    // lower-cases, compared case-sensitively (`Example` on host).
    let upper = |text: &String| text.bytes().any(|b| b.is_ascii_uppercase());
    if case == Case::Sensitive && is_lower_cased(subject.field) && required.iter().any(upper) {
        let why = Problem::UpperCase.explain(subject, Some(pattern));
        out.push((LintKind::NeverMatches, format!("{subject}: {why}")));
        return out;
    }
    if let Some(problem) = required
        .iter()
        .find_map(|text| char_problem(subject.field, text))
    {
        let why = problem.explain(subject, Some(pattern));
        out.push((LintKind::NeverMatches, format!("{subject}: {why}")));
    }
    out
}

fn literal_lints(
    subject: &Subject,
    matcher: &Matcher,
    value: &str,
    case: Case,
) -> Vec<(LintKind, String)> {
    let mut out = Vec::new();
    let field = subject.field;
    let mut push = |kind, problem: Problem| {
        out.push((
            kind,
            format!("{subject}: {}", problem.explain(subject, None)),
        ))
    };
    // Comparisons ignore ASCII case unless the test says otherwise, so the
    // shape checks below look at the lower-cased text; a case-sensitive upper
    // case letter on a lower-cased field is reported once, here.
    let upper = value.bytes().any(|b| b.is_ascii_uppercase());
    if upper && case == Case::Sensitive && is_lower_cased(field) {
        push(LintKind::NeverMatches, Problem::UpperCase);
    }
    let fold = upper && (case == Case::Insensitive || is_lower_cased(field));
    let text = if fold {
        Cow::Owned(value.to_ascii_lowercase())
    } else {
        Cow::Borrowed(value)
    };

    let found = match matcher {
        // An exact `http://h:80` matches nothing at all (a URL always has
        // a path): the plain default-port problem, not the open one.
        Matcher::Exact(_) => start_problem(field, &text)
            .or_else(|| url_host_problem(field, &text))
            .map(|p| match p {
                Problem::UrlOpenDefaultPort(port) => Problem::UrlDefaultPort(port),
                p => p,
            })
            .map(|p| (LintKind::ImpossibleAnchor, p)),
        Matcher::Prefix(_) => start_problem(field, &text)
            .or_else(|| url_host_problem(field, &text))
            .map(|p| p.kind_or(LintKind::ImpossibleAnchor)),
        // A suffix is anchored at the end; only what the field can never
        // contain is checked there.
        Matcher::Suffix(_) => char_problem(field, &text).map(|p| (LintKind::ImpossibleAnchor, p)),
        Matcher::Contains(_) => char_problem(field, &text)
            .or_else(|| url_host_problem(field, &text))
            .map(|p| p.kind_or(LintKind::NeverMatches)),
        Matcher::Wildcard(_) => {
            let mut pieces = text.split('*');
            let head = pieces.next().unwrap_or_default();
            start_problem(field, head)
                .or_else(|| url_host_problem(field, head))
                .or_else(|| pieces.find_map(|piece| char_problem(field, piece)))
                .map(|p| p.kind_or(LintKind::ImpossibleAnchor))
        }
        // Only reached on `host`: the value must itself look like a host.
        Matcher::Domain(_) if text.starts_with('.') => {
            Some((LintKind::NeverMatches, Problem::DomainDot))
        }
        Matcher::Domain(_) => start_problem(field, &text).map(|p| (LintKind::NeverMatches, p)),
        Matcher::Regex(_) | Matcher::Cidr(_) | Matcher::Range(_) => None,
    };
    if let Some((kind, problem)) = found {
        push(kind, problem);
    }
    out
}

/// Offsets of the unescaped `.` and `+` that look like host or media-type
/// mistakes, found on the parsed pattern so that `\.`, `[.]`, `.*`, `\w+`
/// and `(?x)` whitespace are all understood as the compiler sees them.
#[derive(Default)]
struct Escapes {
    dots: Vec<usize>,
    /// The `+` offset and the character it repeats.
    pluses: Vec<(usize, char)>,
}

impl Escapes {
    fn scan(&mut self, ast: &Ast) {
        match ast {
            Ast::Concat(concat) => {
                let items = &concat.asts;
                for (i, item) in items.iter().enumerate() {
                    if let Ast::Dot(span) = item
                        && i.checked_sub(1)
                            .and_then(|j| items.get(j))
                            .is_some_and(is_label_char)
                        && items.get(i + 1).is_some_and(is_label_char)
                    {
                        self.dots.push(span.start.offset);
                    }
                    if let Some(found) = media_type_plus(items, i) {
                        self.pluses.push(found);
                    }
                    self.scan(item);
                }
            }
            Ast::Repetition(rep) => self.scan(&rep.ast),
            Ast::Group(group) => self.scan(&group.ast),
            Ast::Alternation(alt) => alt.asts.iter().for_each(|a| self.scan(a)),
            _ => {}
        }
    }
}

/// A literal that can sit in a host label: letter, digit or hyphen.
fn is_label_char(ast: &Ast) -> bool {
    matches!(ast, Ast::Literal(lit) if lit.c.is_alphanumeric() || lit.c == '-')
}

fn is_word_literal(ast: &Ast) -> bool {
    matches!(ast, Ast::Literal(lit) if lit.c.is_alphanumeric() || lit.c == '_')
}

/// `items[i]` is `x+` followed by a word character, inside `word/word+word`:
/// the shape of `application/epub+zip` or `image/svg+xml`.
fn media_type_plus(items: &[Ast], i: usize) -> Option<(usize, char)> {
    let Ast::Repetition(rep) = items.get(i)? else {
        return None;
    };
    let Ast::Literal(repeated) = &*rep.ast else {
        return None;
    };
    let is_plus = matches!(rep.op.kind, RepetitionKind::OneOrMore) && rep.greedy;
    if !is_plus || !is_word_literal(&rep.ast) || !items.get(i + 1).is_some_and(is_word_literal) {
        return None;
    }
    // Walk back over the rest of the subtype (`vnd.ms-excel` style) to the `/`.
    let mut j = i;
    loop {
        j = j.checked_sub(1)?;
        match items.get(j)? {
            Ast::Literal(lit) if lit.c == '/' => break,
            Ast::Literal(lit) if lit.c.is_alphanumeric() || matches!(lit.c, '_' | '-' | '.') => {}
            Ast::Dot(_) => {}
            _ => return None,
        }
    }
    let before_slash = items.get(j.checked_sub(1)?)?;
    is_word_literal(before_slash).then_some((rep.op.span.start.offset, repeated.c))
}

/// `pattern` with a backslash inserted before each of the byte offsets.
fn escape_at(pattern: &str, offsets: &[usize]) -> String {
    let mut out = String::with_capacity(pattern.len() + offsets.len());
    for (at, c) in pattern.char_indices() {
        if offsets.contains(&at) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// For a regex anchored at the start of the field: the problem shared by
/// every literal text a match can begin with, or `None` when one of them is
/// possible (or the beginnings cannot be listed, as after `^.*`).
fn anchored_problem(hir: &Hir, field: Field, case: Case) -> Option<Problem> {
    let looks = hir.properties().look_set_prefix();
    // Field values never contain a line break, so `(?m)^` is a start anchor too.
    if ![Look::Start, Look::StartLF, Look::StartCRLF]
        .iter()
        .any(|&l| looks.contains(l))
    {
        return None;
    }
    let beginnings = Extractor::new().kind(ExtractKind::Prefix).extract(hir);
    let mut first = None;
    for literal in beginnings.literals()? {
        let text = valid_utf8_prefix(literal.as_bytes());
        let text = match case {
            Case::Insensitive => Cow::Owned(text.to_ascii_lowercase()),
            Case::Sensitive => Cow::Borrowed(text),
        };
        match start_problem(field, &text) {
            None => return None,
            Some(problem) => {
                first.get_or_insert(problem);
            }
        }
    }
    first
}

/// The extractor may cut a literal inside a multi-byte character; what comes
/// before the cut is still a true beginning.
fn valid_utf8_prefix(bytes: &[u8]) -> &str {
    match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
    }
}

/// Literal runs that every match must contain: those of the top-level
/// sequence, looking through groups and repetitions that happen at least once.
fn required_literals(hir: &Hir, out: &mut Vec<String>) {
    match hir.kind() {
        HirKind::Literal(lit) => out.push(String::from_utf8_lossy(&lit.0).into_owned()),
        HirKind::Concat(subs) => subs.iter().for_each(|sub| required_literals(sub, out)),
        HirKind::Capture(capture) => required_literals(&capture.sub, out),
        HirKind::Repetition(rep) if rep.min >= 1 => required_literals(&rep.sub, out),
        _ => {}
    }
}

/// Why a literal text can never be (part of) a field value.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Problem {
    /// `url` begins with a lower-case scheme, not with this.
    UrlNotScheme,
    /// `url` beginning with what looks like a host (`www`, `example.com`).
    UrlHost,
    /// `url` beginning with `/`.
    UrlPath,
    /// `http:` etc. not followed by `//`.
    UrlNoSlashes(String),
    /// `path` / `path_query` not beginning with `/`.
    PathNoSlash,
    /// `path` / `path_query` beginning with a scheme or `www.`.
    PathHasScheme,
    /// `host` / `authority…` beginning with `scheme://`.
    SchemeFirst,
    /// `authority…` beginning with something other than the host.
    NoHost(char),
    /// `authority…`: what follows the host is neither `:port` nor (with the
    /// path) `/`.
    AfterHost(char),
    /// A character the field never contains.
    Has(char),
    /// A character the field holds only percent-encoded (or, in a host,
    /// as punycode).
    Encoded(char),
    QueryMark,
    ExtensionDot,
    DomainDot,
    /// Upper case on a field that normalization lower-cases.
    UpperCase,
    /// Upper case in the host of a URL written in `url` text.
    UrlHostCase,
    /// A default port (`:80` after `http://`) written in `url` text.
    UrlDefaultPort(&'static str),
    /// The default port with nothing after it: only the start of a longer
    /// port can match.
    UrlOpenDefaultPort(&'static str),
}

/// Fields whose whole value is lower-case after normalization.
fn is_lower_cased(field: Field) -> bool {
    matches!(
        field,
        Field::Scheme | Field::Host | Field::Extension | Field::ContentType
    )
}

/// Schemes whose URLs always continue with `//` (the WHATWG special schemes).
const SPECIAL_SCHEMES: [&str; 6] = ["http", "https", "ws", "wss", "ftp", "file"];

/// Text that starts with `scheme://`.
fn starts_with_scheme(text: &str) -> bool {
    text.split_once("://").is_some_and(|(scheme, _)| {
        scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    })
}

/// Why a field value can never begin with `text`.
fn start_problem(field: Field, text: &str) -> Option<Problem> {
    if text.is_empty() {
        return None;
    }
    let shape = match field {
        Field::Url => url_start(text),
        Field::Path | Field::PathQuery if !text.starts_with('/') => {
            let lower = text.to_ascii_lowercase();
            Some(
                if lower.starts_with("http")
                    || lower.starts_with("www.")
                    || starts_with_scheme(text)
                {
                    Problem::PathHasScheme
                } else {
                    Problem::PathNoSlash
                },
            )
        }
        Field::Host if starts_with_scheme(text) => Some(Problem::SchemeFirst),
        // Only a bracketed IPv6 host holds a `:`, and it starts with `[`.
        Field::Host if text.contains(':') && !text.starts_with('[') => Some(Problem::Has(':')),
        Field::Authority | Field::AuthorityPathQuery => authority_start(field, text),
        Field::Query if text.starts_with('?') => Some(Problem::QueryMark),
        _ => None,
    };
    shape.or_else(|| char_problem(field, text)).or_else(|| {
        (is_lower_cased(field) && text.bytes().any(|b| b.is_ascii_uppercase()))
            .then_some(Problem::UpperCase)
    })
}

/// `url` is `scheme:` then, for the web schemes, `//`. A `.` before the
/// first `:` is taken as a host rather than one of the rare dotted schemes.
fn url_start(text: &str) -> Option<Problem> {
    let first = text.chars().next()?;
    if first == '/' {
        return Some(Problem::UrlPath);
    }
    if first.is_ascii_uppercase() {
        return Some(Problem::UpperCase);
    }
    if !first.is_ascii_lowercase() {
        return Some(Problem::UrlNotScheme);
    }
    // No scheme starts with `www`; this is the `^www` mistake.
    if text.starts_with("www") {
        return Some(Problem::UrlHost);
    }
    let end = text
        .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '+' || c == '-'))
        .unwrap_or(text.len());
    let (scheme, rest) = text.split_at(end);
    let after = rest.strip_prefix(':');
    match (rest.chars().next(), after) {
        // `httpfoo` (a WCA line `forbid httpfoo` reads as a URL prefix):
        // longer than `https` and no web scheme, though shaped like one.
        (None, _) if scheme.starts_with("http") && !"https".starts_with(scheme) => {
            Some(Problem::UrlNotScheme)
        }
        (None, _) => None,
        (_, Some(after))
            if SPECIAL_SCHEMES.contains(&scheme)
                && !("//".starts_with(after) || after.starts_with("//")) =>
        {
            Some(Problem::UrlNoSlashes(scheme.to_string()))
        }
        (_, Some(_)) => None,
        (Some('.'), _) => Some(Problem::UrlHost),
        (Some(c), _) if c.is_ascii_uppercase() => Some(Problem::UpperCase),
        (Some(_), _) => Some(Problem::UrlNotScheme),
    }
}

/// What the host part of `url` text can never hold: capitals, or the
/// scheme's default port (normalization lower-cases hosts and drops default
/// ports, so `http://WWW.Example.com:80/` matches nothing). The host is
/// what follows `http://`, or, without a scheme, a leading dotted name
/// followed by a path (`WWW.Example.com/Private`, a Funnelback pattern).
fn url_host_problem(field: Field, text: &str) -> Option<Problem> {
    if field != Field::Url {
        return None;
    }
    let (scheme, rest) = match text.split_once("://") {
        Some((scheme, rest)) if SPECIAL_SCHEMES.contains(&scheme) => (Some(scheme), rest),
        Some(_) => return None,
        None => (None, text),
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let followed = end < rest.len();
    let looks_like_host = |a: &str| {
        rest[end..].starts_with('/')
            && a.contains('.')
            && a.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':'))
    };
    if scheme.is_none() && !looks_like_host(authority) {
        return None;
    }
    if authority.bytes().any(|b| b.is_ascii_uppercase()) {
        return Some(Problem::UrlHostCase);
    }
    let default = match scheme? {
        "http" | "ws" => ":80",
        "https" | "wss" => ":443",
        "ftp" => ":21",
        _ => return None,
    };
    // `http://h:80` with nothing after it still matches `http://h:8080`,
    // but never the default port it names; the importers read such a
    // pattern as `http://h/` (`url_start_normalized`), which the lint
    // suggests.
    match authority.ends_with(default) {
        false => None,
        true if followed => Some(Problem::UrlDefaultPort(default)),
        true => Some(Problem::UrlOpenDefaultPort(default)),
    }
}

/// `authority` is `host[:port]`; `authority_path_query` adds `/path[?query]`.
fn authority_start(field: Field, text: &str) -> Option<Problem> {
    if starts_with_scheme(text) {
        return Some(Problem::SchemeFirst);
    }
    let host_end = if text.starts_with('[') {
        text.find(']').map_or(text.len(), |i| i + 1)
    } else {
        text.find(['/', ':', '?', '#']).unwrap_or(text.len())
    };
    let (host, rest) = text.split_at(host_end);
    let next = rest.chars().next()?;
    if host.is_empty() {
        return Some(Problem::NoHost(next));
    }
    let after_port = match rest.strip_prefix(':') {
        Some(port) => {
            let digits = port
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(port.len());
            if digits == 0 && !port.is_empty() {
                return Some(Problem::AfterHost(':'));
            }
            &port[digits..]
        }
        None => rest,
    };
    match after_port.chars().next() {
        None => None,
        Some('/') if field == Field::AuthorityPathQuery => None,
        Some(c @ ('/' | '?')) if field == Field::Authority => Some(Problem::Has(c)),
        Some(c) => Some(Problem::AfterHost(c)),
    }
}

/// A character of `text` that the field never contains.
fn char_problem(field: Field, text: &str) -> Option<Problem> {
    let find = |bad: &[char]| text.chars().find(|c| bad.contains(c)).map(Problem::Has);
    let shape = shape_problem(field, text, find);
    shape.or_else(|| encoded_problem(field, text))
}

/// A character a normalized URL holds only encoded: past ASCII (percent-
/// encoded in a path or query, punycode in a host) or a space (`%20`).
/// Only a pattern written encoded can match (`/%C3%BCber`).
fn encoded_problem(field: Field, text: &str) -> Option<Problem> {
    let url_text = matches!(
        field,
        Field::Url
            | Field::Path
            | Field::Query
            | Field::PathQuery
            | Field::AuthorityPathQuery
            | Field::Authority
            | Field::Host
            | Field::Extension
    );
    url_text
        .then(|| text.chars().find(|c| !c.is_ascii() || *c == ' '))
        .flatten()
        .map(Problem::Encoded)
}

/// The characters `field` can never hold where they stand, and shapes it
/// never has, from the field's own syntax.
fn shape_problem(
    field: Field,
    text: &str,
    find: impl Fn(&[char]) -> Option<Problem>,
) -> Option<Problem> {
    match field {
        // The fragment is dropped when URLs are normalized (SPEC §1.1).
        Field::Url | Field::Path | Field::Query | Field::PathQuery | Field::AuthorityPathQuery => {
            find(&['#'])
        }
        Field::Authority => find(&['/', '?', '#', '@']),
        Field::Host => find(&['/', '?', '#', '@']).or_else(|| {
            let ipv6 = text
                .chars()
                .all(|c| c.is_ascii_hexdigit() || matches!(c, ':' | '.' | '[' | ']'));
            (text.contains(':') && (!ipv6 || text.contains("]:"))).then_some(Problem::Has(':'))
        }),
        Field::Scheme => text
            .chars()
            .find(|&c| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map(Problem::Has),
        Field::Extension if text.contains('.') => Some(Problem::ExtensionDot),
        Field::Extension => find(&['/', '?', '#']),
        Field::Port | Field::PathDepth | Field::LinkDepth => {
            text.chars().find(|c| !c.is_ascii_digit()).map(Problem::Has)
        }
        // The media type alone (SPEC §1.1): `text/html`, never its
        // `; charset=…` parameters.
        Field::ContentType => find(&[';', ' ', ',']),
        Field::Address => None,
    }
}

impl Problem {
    /// The problem with its kind: `usual` unless the problem has its own
    /// (an open default port matches something, just not what it names).
    fn kind_or(self, usual: LintKind) -> (LintKind, Problem) {
        match self {
            Problem::UrlOpenDefaultPort(_) => (LintKind::OpenDefaultPort, self),
            _ => (usual, self),
        }
    }

    /// The reason and the fix, for `subject`; `pattern` is set for regexes,
    /// whose fix is spelled as a rewritten pattern when that is mechanical.
    fn explain(&self, subject: &Subject, pattern: Option<&str>) -> String {
        let field = subject.field;
        let value = subject.value.as_str();
        // A `^` regex is fixed by editing just after its `^`; a literal by
        // editing its value.
        let after = |head: &str| pattern.and_then(|p| p.strip_prefix(head));
        let write = |fix: Option<String>, otherwise: &str| match fix {
            Some(fix) => format!("write `{}`", show(&fix)),
            None => otherwise.to_string(),
        };
        let sensitive = "or drop case = \"sensitive\"";
        match self {
            Problem::UrlNotScheme => "url always starts with its scheme, e.g. `http://`; \
                 start with `https?://` or match on host or path"
                .to_string(),
            Problem::UrlHost => {
                let fix = match pattern {
                    Some(_) => after("^").map(|rest| format!("^https?://{rest}")),
                    None => Some(format!("https://{value}")),
                };
                let fix = write(fix, "put `https?://` in front");
                format!(
                    "url starts with the scheme, never the host; {fix} or match on field = \"host\""
                )
            }
            Problem::UrlPath => "url starts with the scheme and host, never `/`; \
                 match on field = \"path\" instead"
                .to_string(),
            Problem::UrlNoSlashes(scheme) => {
                format!("url always has `//` after `{scheme}:`; add it")
            }
            Problem::PathNoSlash => {
                let fix = match pattern {
                    Some(_) => after("^").map(|rest| format!("^/{rest}")),
                    None => Some(format!("/{value}")),
                };
                format!(
                    "{field} always starts with `/`; {}",
                    write(fix, "start it with `/`")
                )
            }
            Problem::PathHasScheme => format!(
                "{field} always starts with `/` and never holds the scheme or host; \
                 match on field = \"url\" instead"
            ),
            Problem::SchemeFirst => {
                let what = match field {
                    Field::Host => "is just the host name",
                    _ => "starts with the host",
                };
                format!("{field} {what}, never a scheme; drop the `scheme://` part or match on url")
            }
            Problem::NoHost(c) => format!(
                "{field} always starts with the host, never `{}`; match on path instead",
                show_char(*c)
            ),
            Problem::AfterHost(c) => {
                let allowed = match field {
                    Field::AuthorityPathQuery => "`:port` or the path `/…`",
                    _ => "`:port`",
                };
                let c = show_char(*c);
                format!("in {field} the host is followed only by {allowed}, never `{c}`")
            }
            Problem::Has(c) => has_reason(field, *c),
            Problem::Encoded(c) => encoded_reason(field, *c, value),
            Problem::QueryMark => {
                let fix = match pattern {
                    Some(_) => after(r"^\?").map(|rest| format!("^{rest}")),
                    None => value.strip_prefix('?').map(str::to_string),
                };
                format!(
                    "query never includes the leading `?`; {}",
                    write(fix, "drop the `?`")
                )
            }
            Problem::ExtensionDot => {
                let fix = match pattern {
                    Some(_) => after(r"^\.")
                        .map(|rest| format!("^{rest}"))
                        .or_else(|| after(r"\.").map(str::to_string)),
                    None => value.strip_prefix('.').map(str::to_ascii_lowercase),
                };
                let fix = write(fix, "drop the `.`");
                format!("extension never contains `.` (`file.PDF` has extension `pdf`); {fix}")
            }
            Problem::DomainDot => format!(
                "`domain` adds the `.` itself and already covers subdomains; write `{}`",
                show(value.trim_start_matches('.'))
            ),
            Problem::UpperCase if field == Field::Url => format!(
                "the scheme at the start of url is lower-case after normalization; \
                 write it in lower case {sensitive}"
            ),
            Problem::UrlHostCase => format!(
                "the host in url is lower-case after normalization; \
                 write it in lower case {sensitive}"
            ),
            Problem::UrlDefaultPort(port) => format!(
                "url never holds its scheme's default port `{port}`: normalization drops it; \
                 leave it out"
            ),
            Problem::UrlOpenDefaultPort(port) => format!(
                "url never holds its scheme's default port `{port}` (normalization drops it), \
                 so this matches only longer ports such as `{port}80`; for the default port, \
                 end the host with `/` instead of `{port}`"
            ),
            Problem::UpperCase => {
                let fix = match pattern {
                    Some(_) => "write the pattern in lower case".to_string(),
                    None => format!("write `{}`", show(&value.to_ascii_lowercase())),
                };
                format!("{field} is lower-case after normalization; {fix} {sensitive}")
            }
        }
    }
}

fn encoded_reason(field: Field, c: char, value: &str) -> String {
    let shown = show_char(c);
    if c == ' ' && field == Field::Host {
        return "host never contains a space".to_string();
    }
    // In a host, or the host part of a longer field: punycode, not `%XX`.
    if let Some(host) = host_part(field, value).filter(|h| h.contains(c))
        && c != ' '
    {
        // The host as the URL parser writes it, when it is one.
        let ascii = url::Url::parse(&format!("http://{host}/"))
            .ok()
            .and_then(|u| u.host_str().map(str::to_string));
        return match ascii {
            Some(ascii) => format!(
                "{field} never contains `{shown}`: host names are normalized to ASCII (punycode); write `{}`",
                show(&value.replacen(host, &ascii, 1))
            ),
            None => format!(
                "{field} never contains `{shown}`: host names are normalized to ASCII (punycode, `xn--…`)"
            ),
        };
    }
    let encoded: String = c
        .encode_utf8(&mut [0; 4])
        .bytes()
        .map(|b| format!("%{b:02X}"))
        .collect();
    // A piece of a URL without its scheme (a Funnelback pattern,
    // `bücher.de/x`): a dotted name before any `/` may be a host.
    let head = value.split(['/', '?', '#']).next().unwrap_or("");
    if field == Field::Url && !value.contains("://") && head.contains(c) && head.contains('.') {
        let ascii = url::Host::parse(head).ok().map(|h| h.to_string());
        let host = ascii.map_or("punycode, `xn--…`".to_string(), |a| {
            format!("`{}`", show(&a))
        });
        return format!(
            "{field} never contains `{shown}`: normalized URLs hold it as `{encoded}` in a path or query, and a host name outside ASCII in punycode ({host})"
        );
    }
    format!(
        "{field} never contains `{shown}`: normalized URLs hold it percent-encoded, as `{encoded}`; write it so"
    )
}

/// The host in a literal of `field`: all of a host, the start of an
/// authority, what follows `scheme://` in a URL; up to a port, a path, a
/// query or a fragment.
fn host_part(field: Field, value: &str) -> Option<&str> {
    let rest = match field {
        Field::Host => return Some(value),
        Field::Authority | Field::AuthorityPathQuery => value,
        Field::Url => value.split_once("://")?.1,
        _ => return None,
    };
    // After any user info.
    let rest = rest.rsplit_once('@').map_or(rest, |(_, host)| host);
    let end = rest.find(['/', '?', '#', ':']).unwrap_or(rest.len());
    Some(&rest[..end])
}

fn has_reason(field: Field, c: char) -> String {
    let shown = show_char(c);
    match (field, c) {
        (_, '#') => {
            format!("{field} never contains `#`: the fragment is dropped when URLs are normalized")
        }
        (Field::Host, '/') => {
            "host never contains `/`; match on url or authority_path_query".to_string()
        }
        (Field::Host, ':') => "host never contains `:` (the port is not part of it, \
             IPv6 hosts are bracketed); match on authority"
            .to_string(),
        (Field::Authority, '/' | '?') => format!(
            "authority never contains `{shown}` (it ends after the port); \
             match on authority_path_query"
        ),
        (Field::Scheme, _) => {
            format!("scheme is just the name, e.g. `http`, and never contains `{shown}`")
        }
        (Field::ContentType, _) => format!(
            "content_type is the media type alone (`text/html`), without the header's \
             parameters, and never contains `{shown}`; drop the `; charset=…` part"
        ),
        (Field::Port | Field::PathDepth | Field::LinkDepth, _) => format!(
            "{field} is a number and never contains `{shown}`; match digits only, or use `range`"
        ),
        _ => format!("{field} never contains `{shown}`"),
    }
}

fn show_char(c: char) -> String {
    show(c.encode_utf8(&mut [0; 4]))
}

/// A value as it appears inside backticks in a one-line message: control
/// characters escaped and long values shortened.
fn show(text: &str) -> String {
    const MAX_CHARS: usize = 160;
    let mut out = String::new();
    for (i, c) in text.chars().enumerate() {
        if i == MAX_CHARS {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests;
