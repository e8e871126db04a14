//! robots.txt (RFC 9309): parsing, group selection, and the decision for
//! one path, carrying the line that decided it. Pure: bytes in, values out;
//! fetching and caching per host belong to the crawler.
//!
//! - [`Robots::parse`] never fails: it strips a UTF-8 BOM, reads CR, LF and
//!   CRLF line ends, replaces invalid UTF-8, parses the first
//!   [`PARSE_LIMIT`] bytes (RFC 9309 §2.5) and counts the lines it could not
//!   use instead of rejecting the file.
//! - Groups: consecutive `User-agent` lines open one group, which runs until
//!   the next `User-agent` line that follows a rule. The crawler's product
//!   token (its user agent up to the first `/` or space) is compared without
//!   regard to case; every group naming it applies, merged; failing that,
//!   every `*` group; failing that, everything is allowed (§2.2.1).
//! - Rules: the matching `Allow`/`Disallow` with the longest pattern decides,
//!   `Allow` on a tie (§2.2.2); `*` matches any run of octets, a final `$`
//!   anchors the end (§2.2.3). Pattern and path are compared in one
//!   canonical form: `%xx` of an unreserved character is that character, hex
//!   is upper case, other octets outside the URI character set are
//!   percent-encoded (so `/a%62c` is `/abc`, `%2F` is not `/`, and `ツ` is
//!   `%E3%83%84`). Pattern length is counted in that form, `*` and `$`
//!   included. `/robots.txt` itself is always allowed.
//! - `Crawl-delay` (a group's first valid one, capped at
//!   [`MAX_CRAWL_DELAY`]) and `Sitemap` lines (all of them, in any group).
//!
//! Patterns are compiled once at parse time: a literal prefix, an exact path
//! (`…$` without `*`), or literal pieces between `*`s matched leftmost-first;
//! each group's rules are sorted most specific first, so a check stops at
//! the first match in each group that applies.
//!
//! Why not a crate: `robotxt` (the maintained one) answers a path with a
//! bool (`is_relative_allowed`) and never says which line decided, which the
//! crawl trace must show (STYLE habit 4); adding that would mean forking its
//! matcher, which also builds a `Regex` per wildcard rule.

#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::cmp::Reverse;
use std::fmt::Write as _;
use std::ops::Range;
use std::time::Duration;

use rustc_hash::FxHashMap;

/// How many bytes of a robots.txt are parsed (RFC 9309 §2.5: at least 500
/// KiB); the rest is ignored.
pub const PARSE_LIMIT: usize = 500 * 1024;

/// The longest `Crawl-delay` honoured: a larger value is read as this, so
/// a typo cannot stall a host for hours.
pub const MAX_CRAWL_DELAY: Duration = Duration::from_secs(60);

/// A parsed robots.txt: every group, compiled, plus sitemaps and counts.
#[derive(Debug, Clone, Default)]
pub struct Robots {
    /// The parsed text (after the BOM, up to the limit), for rule texts.
    source: String,
    groups: Vec<Group>,
    /// Lower-cased product token → the groups naming it, in file order.
    agents: FxHashMap<String, Selection>,
    /// The `User-agent: *` groups.
    star: Option<Selection>,
    sitemaps: Vec<String>,
    lines: u32,
    ignored: u32,
    truncated: bool,
}

/// The groups that apply to one agent, and the name to show for them.
#[derive(Debug, Clone)]
struct Selection {
    /// The user-agent value as first written in the file (`*`, `CrawlSpace`).
    label: String,
    groups: Vec<u32>,
}

#[derive(Debug, Clone, Default)]
struct Group {
    /// Most specific first: longest pattern, then Allow, then earlier line.
    rules: Vec<Rule>,
    crawl_delay: Option<Duration>,
}

#[derive(Debug, Clone)]
struct Rule {
    allow: bool,
    /// 1-based line in the file.
    line: u32,
    /// The whole line, trimmed, as a range of `Robots::source`.
    text: Range<usize>,
    pattern: Pattern,
}

impl Rule {
    /// Orders rules by precedence: a greater key wins.
    fn rank(&self) -> (usize, bool, Reverse<u32>) {
        (self.pattern.len, self.allow, Reverse(self.line))
    }
}

/// One `Allow`/`Disallow` value in canonical form, compiled.
#[derive(Debug, Clone)]
struct Pattern {
    /// The canonical pattern without a final `$` (and, when not anchored,
    /// without final `*`s, which match anything).
    bytes: Box<[u8]>,
    /// Specificity: octets of the canonical pattern as written.
    len: usize,
    kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The path starts with `bytes`.
    Prefix,
    /// The path is `bytes` (`$` and no `*`).
    Exact,
    /// `bytes` holds `*`: the first at `head`, the last just before `tail`.
    Wild {
        head: usize,
        tail: usize,
        anchored: bool,
    },
}

impl Pattern {
    /// `None` for a value that is not a path pattern (it must start with `/`
    /// or `*`, RFC 9309 §2.2.2).
    fn compile(value: &str) -> Option<Pattern> {
        if !value.starts_with(['/', '*']) {
            return None;
        }
        let canonical = canonical(value.as_bytes());
        let len = canonical.len();
        let (mut body, anchored) = match canonical.strip_suffix(b"$") {
            Some(body) => (body, true),
            None => (&canonical[..], false),
        };
        if !anchored {
            while let Some(rest) = body.strip_suffix(b"*") {
                body = rest;
            }
        }
        let star = |b: &u8| *b == b'*';
        let kind = match (body.iter().position(star), body.iter().rposition(star)) {
            (Some(head), Some(last)) => Kind::Wild {
                head,
                tail: last + 1,
                anchored,
            },
            _ if anchored => Kind::Exact,
            _ => Kind::Prefix,
        };
        Some(Pattern {
            bytes: body.into(),
            len,
            kind,
        })
    }

    /// Whether the canonical `path` matches.
    fn matches(&self, path: &[u8]) -> bool {
        let p = &self.bytes[..];
        match self.kind {
            Kind::Prefix => path.starts_with(p),
            Kind::Exact => path == p,
            Kind::Wild {
                head,
                tail,
                anchored,
            } => {
                let (first, last) = (&p[..head], &p[tail..]);
                if !path.starts_with(first) {
                    return false;
                }
                // Literal pieces between `*`s, each taken at its leftmost
                // place: any later place leaves less room for the rest.
                let mut at = head;
                let middle = p.get(head + 1..tail - 1).unwrap_or(&[]);
                for piece in middle.split(|b| *b == b'*') {
                    match find(&path[at..], piece) {
                        Some(i) => at += i + piece.len(),
                        None => return false,
                    }
                }
                if anchored {
                    path.len() >= at + last.len() && path.ends_with(last)
                } else {
                    find(&path[at..], last).is_some()
                }
            }
        }
    }
}

/// The first index of `needle` in `hay`: each place of its first octet,
/// then the rest compared.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let Some((&first, rest)) = needle.split_first() else {
        return Some(0);
    };
    let mut from = 0;
    while let Some(i) = hay.get(from..)?.iter().position(|&b| b == first) {
        let at = from + i;
        if hay.get(at + 1..)?.starts_with(rest) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// Octets kept as they are in canonical form: unreserved and reserved
/// characters of RFC 3986 (`*` and `$` among them).
fn is_plain(b: u8) -> bool {
    is_unreserved(b)
        || matches!(
            b,
            b':' | b'/'
                | b'?'
                | b'#'
                | b'['
                | b']'
                | b'@'
                | b'!'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
        )
}

fn hex_value(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// The canonical form of a path or pattern: `%xx` of an unreserved octet
/// decoded, other `%xx` with upper-case hex, octets that are neither
/// unreserved nor reserved percent-encoded, a `%` without two hex digits
/// among them (so the form is stable: canonical twice is canonical once).
/// Borrowed when already canonical (the usual case).
fn canonical(input: &[u8]) -> Cow<'_, [u8]> {
    if input.iter().all(|&b| is_plain(b)) {
        return Cow::Borrowed(input);
    }
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let encode = |out: &mut Vec<u8>, b: u8| {
        out.extend_from_slice(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
    };
    let mut out = Vec::with_capacity(input.len() + 8);
    let mut i = 0;
    while i < input.len() {
        let b = input[i];
        let escaped = match (b, input.get(i + 1), input.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) => hex_value(h).zip(hex_value(l)).map(|(h, l)| h << 4 | l),
            _ => None,
        };
        if let Some(v) = escaped {
            if is_unreserved(v) {
                out.push(v);
            } else {
                encode(&mut out, v);
            }
            i += 3;
            continue;
        }
        if is_plain(b) {
            out.push(b);
        } else {
            encode(&mut out, b);
        }
        i += 1;
    }
    Cow::Owned(out)
}

/// The product token of a user agent: up to the first `/` or white space
/// (`crawlspace/0.1 (+http://…)` → `crawlspace`).
pub fn product_token(user_agent: &str) -> &str {
    let ua = user_agent.trim_start();
    let end = ua
        .find(|c: char| c == '/' || c.is_whitespace())
        .unwrap_or(ua.len());
    &ua[..end]
}

/// `Crawl-delay` seconds, fractions allowed; negative, non-numeric and
/// non-finite values are invalid.
fn parse_delay(value: &str) -> Option<Duration> {
    let secs: f64 = value.parse().ok()?;
    if !secs.is_finite() || secs < 0.0 {
        return None;
    }
    Duration::try_from_secs_f64(secs.min(MAX_CRAWL_DELAY.as_secs_f64())).ok()
}

/// The bytes to parse: all of them, or up to the last line end within the
/// limit (a line cut in half could be a shorter, wider rule).
fn within_limit(bytes: &[u8]) -> (&[u8], bool) {
    if bytes.len() <= PARSE_LIMIT {
        return (bytes, false);
    }
    let kept = &bytes[..PARSE_LIMIT];
    if matches!(bytes[PARSE_LIMIT], b'\n' | b'\r') {
        return (kept, true);
    }
    let end = kept
        .iter()
        .rposition(|b| matches!(b, b'\n' | b'\r'))
        .map_or(0, |i| i + 1);
    (&kept[..end], true)
}

/// Parsing state: the groups so far and whether user-agent lines are
/// still adding agents to the current one.
#[derive(Default)]
struct Builder {
    robots: Robots,
    current: Option<usize>,
    collecting_agents: bool,
}

impl Builder {
    fn line(&mut self, source: &str, number: u32, range: Range<usize>) {
        let raw = &source[range.clone()];
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            return;
        }
        let Some((key, value)) = content.split_once(':') else {
            self.robots.ignored += 1;
            return;
        };
        let (key, value) = (key.trim(), value.trim());
        let is = |name: &str| key.eq_ignore_ascii_case(name);
        if is("user-agent") {
            self.user_agent(value);
        } else if is("allow") || is("disallow") {
            let start = range.start + (raw.len() - raw.trim_start().len());
            let text = start..start + raw.trim().len();
            self.rule(is("allow"), number, text, value);
        } else if is("crawl-delay") {
            self.crawl_delay(value);
        } else if is("sitemap") && !value.is_empty() {
            self.robots.sitemaps.push(value.to_string());
        } else {
            self.robots.ignored += 1;
        }
    }

    fn user_agent(&mut self, value: &str) {
        let token = product_token(value);
        if token.is_empty() {
            self.robots.ignored += 1;
            return;
        }
        let group = match self.current {
            Some(g) if self.collecting_agents => g,
            _ => {
                self.robots.groups.push(Group::default());
                self.robots.groups.len() - 1
            }
        };
        self.current = Some(group);
        self.collecting_agents = true;
        let new = || Selection {
            label: token.to_string(),
            groups: Vec::new(),
        };
        let selection = if token == "*" {
            self.robots.star.get_or_insert_with(new)
        } else {
            self.robots
                .agents
                .entry(token.to_ascii_lowercase())
                .or_insert_with(new)
        };
        let group = group as u32;
        if selection.groups.last() != Some(&group) {
            selection.groups.push(group);
        }
    }

    /// The group a rule or crawl-delay line belongs to; such a line also
    /// ends the run of user-agent lines. `None` (and counted as ignored)
    /// before any user-agent line.
    fn member(&mut self) -> Option<&mut Group> {
        let Some(g) = self.current else {
            self.robots.ignored += 1;
            return None;
        };
        self.collecting_agents = false;
        self.robots.groups.get_mut(g)
    }

    fn rule(&mut self, allow: bool, line: u32, text: Range<usize>, value: &str) {
        let pattern = Pattern::compile(value);
        let Some(group) = self.member() else { return };
        match pattern {
            Some(pattern) => group.rules.push(Rule {
                allow,
                line,
                text,
                pattern,
            }),
            // An empty value has no effect (RFC 9309 §2.2.2); any other
            // value that is not a path is unusable.
            None if value.is_empty() => {}
            None => self.robots.ignored += 1,
        }
    }

    fn crawl_delay(&mut self, value: &str) {
        let delay = parse_delay(value);
        let Some(group) = self.member() else { return };
        match delay {
            Some(d) => {
                group.crawl_delay.get_or_insert(d);
            }
            None => self.robots.ignored += 1,
        }
    }
}

impl Robots {
    /// Parses a robots.txt body. Never fails: what cannot be used is
    /// counted in [`Robots::ignored_lines`].
    pub fn parse(bytes: &[u8]) -> Robots {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let (kept, truncated) = within_limit(bytes);
        let source = String::from_utf8_lossy(kept).into_owned();
        let mut builder = Builder::default();
        let s = source.as_bytes();
        let (mut at, mut number) = (0, 0u32);
        while at < s.len() {
            let end = s[at..]
                .iter()
                .position(|b| matches!(b, b'\n' | b'\r'))
                .map_or(s.len(), |i| at + i);
            number += 1;
            builder.line(&source, number, at..end);
            at = end + if s[end..].starts_with(b"\r\n") { 2 } else { 1 };
        }
        let mut robots = builder.robots;
        for group in &mut robots.groups {
            group.rules.sort_by_key(|r| Reverse(r.rank()));
        }
        robots.source = source;
        robots.lines = number;
        robots.truncated = truncated;
        robots
    }

    /// The rules for one user agent (its product token is used), selected
    /// once; check many paths with [`AgentRules::check`].
    pub fn for_agent(&self, user_agent: &str) -> AgentRules<'_> {
        let token = product_token(user_agent);
        let specific = if token.is_empty() || token == "*" {
            None
        } else if token.bytes().any(|b| b.is_ascii_uppercase()) {
            self.agents.get(&token.to_ascii_lowercase())
        } else {
            self.agents.get(token)
        };
        AgentRules {
            robots: self,
            selection: specific.or(self.star.as_ref()),
        }
    }

    /// Shorthand for `for_agent(user_agent).check(path_and_query)`.
    pub fn check(&self, user_agent: &str, path_and_query: &str) -> RobotsDecision {
        self.for_agent(user_agent).check(path_and_query)
    }

    /// Shorthand for `for_agent(user_agent).crawl_delay()`.
    pub fn crawl_delay(&self, user_agent: &str) -> Option<Duration> {
        self.for_agent(user_agent).crawl_delay()
    }

    /// Every `Sitemap:` value, in file order, whatever group it sits in.
    pub fn sitemaps(&self) -> &[String] {
        &self.sitemaps
    }

    /// Lines parsed (within the limit).
    pub fn line_count(&self) -> u32 {
        self.lines
    }

    /// Lines that are neither blank, a comment, nor a usable directive:
    /// no `:`, an unknown key, a rule before any user-agent line, a
    /// pattern not starting with `/` or `*`, an invalid crawl-delay.
    pub fn ignored_lines(&self) -> u32 {
        self.ignored
    }

    /// Whether the body was longer than [`PARSE_LIMIT`] and the rest ignored.
    pub fn truncated(&self) -> bool {
        self.truncated
    }
}

/// The groups of one robots.txt that apply to one user agent.
#[derive(Debug, Clone, Copy)]
pub struct AgentRules<'a> {
    robots: &'a Robots,
    /// `None`: no group names the agent and there is no `*` group.
    selection: Option<&'a Selection>,
}

impl AgentRules<'_> {
    /// The group label shown in decisions (`*`, `crawlspace`), if any
    /// group applies.
    pub fn group(&self) -> Option<&str> {
        self.selection.map(|s| s.label.as_str())
    }

    /// Decides `path_and_query` (`/a/b?c`, as in the request line; empty
    /// means `/`).
    pub fn check(&self, path_and_query: &str) -> RobotsDecision {
        let path = if path_and_query.is_empty() {
            "/"
        } else {
            path_and_query
        };
        let path = canonical(path.as_bytes());
        if &path[..] == b"/robots.txt" {
            return RobotsDecision::new(true, RobotsReason::RobotsTxt);
        }
        let Some(selection) = self.selection else {
            return RobotsDecision::new(true, RobotsReason::NoGroup);
        };
        let mut best: Option<&Rule> = None;
        for &g in &selection.groups {
            let Some(group) = self.robots.groups.get(g as usize) else {
                continue;
            };
            for rule in &group.rules {
                if best.is_some_and(|b| rule.rank() <= b.rank()) {
                    break; // sorted: nothing later in this group can win
                }
                if rule.pattern.matches(&path) {
                    best = Some(rule);
                    break;
                }
            }
        }
        let group = selection.label.clone();
        match best {
            Some(rule) => RobotsDecision::new(
                rule.allow,
                RobotsReason::Rule {
                    line: rule.line,
                    text: self
                        .robots
                        .source
                        .get(rule.text.clone())
                        .unwrap_or("")
                        .to_string(),
                    group,
                },
            ),
            None => RobotsDecision::new(true, RobotsReason::NoMatch { group }),
        }
    }

    /// The first valid `Crawl-delay` among the groups that apply.
    pub fn crawl_delay(&self) -> Option<Duration> {
        let selection = self.selection?;
        selection
            .groups
            .iter()
            .find_map(|&g| self.robots.groups.get(g as usize)?.crawl_delay)
    }
}

/// Whether robots.txt lets the crawler fetch a path, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RobotsDecision {
    pub allowed: bool,
    pub reason: RobotsReason,
}

/// What decided a [`RobotsDecision`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RobotsReason {
    /// The most specific matching rule: its 1-based line, the line as
    /// written (trimmed), and the group's user-agent value.
    Rule {
        line: u32,
        text: String,
        group: String,
    },
    /// A group applies but none of its rules matches: allowed.
    NoMatch { group: String },
    /// No group names the agent and there is no `*` group: allowed.
    NoGroup,
    /// `/robots.txt` itself is always allowed.
    RobotsTxt,
    /// robots.txt is unavailable (4xx): everything is allowed.
    Unavailable { why: String },
    /// robots.txt is unreachable (5xx, network): everything is disallowed
    /// until it is fetched again.
    Unreachable { why: String },
    /// `obey_robots = false`.
    Off,
}

impl RobotsDecision {
    fn new(allowed: bool, reason: RobotsReason) -> RobotsDecision {
        RobotsDecision { allowed, reason }
    }

    /// The deciding rule's line, when a rule decided.
    pub fn line(&self) -> Option<u32> {
        match &self.reason {
            RobotsReason::Rule { line, .. } => Some(*line),
            _ => None,
        }
    }

    /// The deciding rule's text, when a rule decided.
    pub fn rule(&self) -> Option<&str> {
        match &self.reason {
            RobotsReason::Rule { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The group that applied, when one did.
    pub fn group(&self) -> Option<&str> {
        match &self.reason {
            RobotsReason::Rule { group, .. } | RobotsReason::NoMatch { group } => Some(group),
            _ => None,
        }
    }

    /// One line for the trace, naming `robots_url` (or file):
    /// `robots.txt http://h/robots.txt line 7 "Disallow: /private/" (group *)`.
    /// Rule text is quoted with Rust escapes, so control characters from
    /// the file cannot reach a terminal.
    ///
    /// Written piece by piece rather than through `format!`: every URL
    /// fetched gets one, and the formatting machinery cost the crawl's
    /// coordinator about 3,500 instructions a page.
    pub fn describe(&self, robots_url: &str) -> String {
        if self.reason == RobotsReason::Off {
            return "robots.txt not consulted (obey_robots = false)".into();
        }
        let mut out = String::with_capacity(robots_url.len() + 64);
        out.push_str("robots.txt ");
        out.push_str(robots_url);
        match &self.reason {
            RobotsReason::Rule { line, text, group } => {
                let _ = write!(out, " line {line} {text:?} (group {group})");
            }
            RobotsReason::NoMatch { group } => {
                out.push_str(": no rule matches (group ");
                out.push_str(group);
                out.push(')');
            }
            RobotsReason::NoGroup => out.push_str(": no group for this user agent and no * group"),
            RobotsReason::RobotsTxt => out.push_str(": /robots.txt itself is always allowed"),
            RobotsReason::Unavailable { why } => {
                out.push_str(": ");
                out.push_str(why);
                out.push_str(", all allowed");
            }
            RobotsReason::Unreachable { why } => {
                out.push_str(": ");
                out.push_str(why);
                out.push_str(", all disallowed until retried");
            }
            RobotsReason::Off => {}
        }
        out
    }
}

/// What the crawler knows of a host's robots.txt (RFC 9309 §2.3.1).
#[derive(Debug, Clone)]
pub enum RobotsStatus {
    /// Fetched (2xx) and parsed.
    Parsed(Robots),
    /// Unavailable (4xx, or redirects that lead nowhere): all allowed. `why`
    /// is shown in the trace, e.g. `HTTP 404`.
    AllowAll { why: String },
    /// Unreachable (5xx, 429, network error): all disallowed until retried.
    DisallowAll { why: String },
    /// `obey_robots = false`: not fetched, everything allowed.
    Off,
}

impl RobotsStatus {
    /// The status for an HTTP answer to `GET /robots.txt`, after redirects
    /// (at most five, RFC 9309 §2.3.1.2; a 3xx here means they ran out).
    /// 429 counts as unreachable: the server asks us to slow down.
    pub fn from_response(status: u16, body: &[u8]) -> RobotsStatus {
        let why = format!("HTTP {status}");
        match status {
            200..=299 => RobotsStatus::Parsed(Robots::parse(body)),
            429 | 500..=599 => RobotsStatus::DisallowAll { why },
            300..=499 => RobotsStatus::AllowAll { why },
            _ => RobotsStatus::DisallowAll { why },
        }
    }

    /// Decides `path_and_query` for `user_agent`.
    pub fn decide(&self, user_agent: &str, path_and_query: &str) -> RobotsDecision {
        let reason = match self {
            RobotsStatus::Parsed(robots) => return robots.check(user_agent, path_and_query),
            RobotsStatus::Off => return RobotsDecision::new(true, RobotsReason::Off),
            _ if canonical(path_and_query.as_bytes()).as_ref() == b"/robots.txt" => {
                return RobotsDecision::new(true, RobotsReason::RobotsTxt);
            }
            RobotsStatus::AllowAll { why } => RobotsReason::Unavailable { why: why.clone() },
            RobotsStatus::DisallowAll { why } => RobotsReason::Unreachable { why: why.clone() },
        };
        let allowed = matches!(reason, RobotsReason::Unavailable { .. });
        RobotsDecision::new(allowed, reason)
    }

    /// [`RobotsStatus::decide`] plus its one-line reason for the trace.
    pub fn explain(
        &self,
        user_agent: &str,
        path_and_query: &str,
        robots_url: &str,
    ) -> (RobotsDecision, String) {
        let decision = self.decide(user_agent, path_and_query);
        let text = decision.describe(robots_url);
        (decision, text)
    }
}
