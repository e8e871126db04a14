//! The rule model of SPEC §1: plain data, no I/O and no compiled state.
//!
//! Every dialect importer produces a [`RuleSet`]; the compiler
//! ([`crate::rules::CompiledRules`]) turns it into the evaluation form; the
//! native writer ([`crate::rules::dialect::write::to_toml`]) prints it back.
//! Each rule keeps the line it came from so that errors and traces can point
//! at the user's own file.

use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

/// A part of a URL (or of its fetch) that a test can look at (SPEC §1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Field {
    Url,
    Scheme,
    Host,
    Port,
    Authority,
    Path,
    Query,
    PathQuery,
    AuthorityPathQuery,
    Extension,
    PathDepth,
    LinkDepth,
    /// Known only once response headers arrive (phase 2).
    ContentType,
    /// Known only once DNS has answered (phase 1b).
    Address,
}

impl Field {
    /// Every field, in the order SPEC §1.1 lists them.
    pub const ALL: [Field; 14] = [
        Field::Url,
        Field::Scheme,
        Field::Host,
        Field::Port,
        Field::Authority,
        Field::Path,
        Field::Query,
        Field::PathQuery,
        Field::AuthorityPathQuery,
        Field::Extension,
        Field::PathDepth,
        Field::LinkDepth,
        Field::ContentType,
        Field::Address,
    ];

    /// The name used in native TOML, traces and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Field::Url => "url",
            Field::Scheme => "scheme",
            Field::Host => "host",
            Field::Port => "port",
            Field::Authority => "authority",
            Field::Path => "path",
            Field::Query => "query",
            Field::PathQuery => "path_query",
            Field::AuthorityPathQuery => "authority_path_query",
            Field::Extension => "extension",
            Field::PathDepth => "path_depth",
            Field::LinkDepth => "link_depth",
            Field::ContentType => "content_type",
            Field::Address => "address",
        }
    }

    /// Fields whose value is a number; `range` compares the number itself
    /// rather than the length of the text.
    pub fn is_numeric(self) -> bool {
        matches!(self, Field::Port | Field::PathDepth | Field::LinkDepth)
    }

    /// Fields that are unknown when a URL is first met, so rules on them are
    /// deferred (SPEC §1.3 step 3).
    pub fn is_deferred(self) -> bool {
        matches!(self, Field::ContentType | Field::Address)
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Field {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Field::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Field::ALL.iter().map(|f| f.name()).collect();
                format!("unknown field `{s}` (expected one of {})", names.join(", "))
            })
    }
}

/// Whether literal and regex comparisons ignore ASCII case (SPEC §1.2:
/// insensitive by default, like Exalead).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Case {
    #[default]
    Insensitive,
    Sensitive,
}

impl Case {
    pub fn name(self) -> &'static str {
        match self {
            Case::Insensitive => "insensitive",
            Case::Sensitive => "sensitive",
        }
    }
}

/// An inclusive numeric interval `[lo:hi]`, either end open (Exalead `Length`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Range {
    pub lo: Option<u64>,
    pub hi: Option<u64>,
}

impl Range {
    pub fn contains(self, value: u64) -> bool {
        self.lo.is_none_or(|lo| value >= lo) && self.hi.is_none_or(|hi| value <= hi)
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let end = |v: Option<u64>| v.map(|n| n.to_string()).unwrap_or_default();
        write!(f, "[{}:{}]", end(self.lo), end(self.hi))
    }
}

impl FromStr for Range {
    type Err = String;
    /// Parses `[lo:hi]`, `[:hi]`, `[lo:]` (brackets optional, spaces allowed).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad =
            || format!("bad range `{s}`: expected [lo:hi], [:hi] or [lo:] with whole numbers");
        let inner = s.trim();
        let inner = inner.strip_prefix('[').unwrap_or(inner);
        let inner = inner.strip_suffix(']').unwrap_or(inner);
        let (lo, hi) = inner.split_once(':').ok_or_else(bad)?;
        let end = |t: &str| -> Result<Option<u64>, String> {
            let t = t.trim();
            if t.is_empty() {
                Ok(None)
            } else {
                t.parse::<u64>().map(Some).map_err(|_| bad())
            }
        };
        let range = Range {
            lo: end(lo)?,
            hi: end(hi)?,
        };
        if let (Some(lo), Some(hi)) = (range.lo, range.hi)
            && lo > hi
        {
            return Err(format!(
                "bad range `{s}`: the low end {lo} is above the high end {hi}"
            ));
        }
        Ok(range)
    }
}

/// An address pattern: the address bits that the mask keeps must be equal
/// (WCA: "a zero in the netmask acts as a wildcard"), so masks need not be
/// contiguous. Written `a.b.c.d/n`, `a.b.c.d m.m.m.m`, or the IPv6 forms,
/// optionally in brackets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cidr {
    V4 { addr: u32, mask: u32 },
    V6 { addr: u128, mask: u128 },
}

impl Cidr {
    pub fn contains(self, ip: IpAddr) -> bool {
        match (self, ip) {
            (Cidr::V4 { addr, mask }, IpAddr::V4(ip)) => u32::from(ip) & mask == addr & mask,
            (Cidr::V6 { addr, mask }, IpAddr::V6(ip)) => u128::from(ip) & mask == addr & mask,
            // An IPv4 rule also covers the IPv4-mapped IPv6 form of its addresses.
            (Cidr::V4 { addr, mask }, IpAddr::V6(ip)) => ip
                .to_ipv4_mapped()
                .is_some_and(|v4| u32::from(v4) & mask == addr & mask),
            (Cidr::V6 { .. }, IpAddr::V4(_)) => false,
        }
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Cidr::V4 { addr, mask } => {
                let ip = std::net::Ipv4Addr::from(addr);
                if mask.leading_ones() + mask.trailing_zeros() == 32 {
                    write!(f, "{ip}/{}", mask.leading_ones())
                } else {
                    write!(f, "{ip} {}", std::net::Ipv4Addr::from(mask))
                }
            }
            Cidr::V6 { addr, mask } => {
                let ip = std::net::Ipv6Addr::from(addr);
                if mask.leading_ones() + mask.trailing_zeros() == 128 {
                    write!(f, "{ip}/{}", mask.leading_ones())
                } else {
                    write!(f, "{ip} {}", std::net::Ipv6Addr::from(mask))
                }
            }
        }
    }
}

impl FromStr for Cidr {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let text = s.trim();
        let (addr_text, mask_text) = match text.split_once('/') {
            Some((a, m)) => (a.trim(), Some(MaskText::Bits(m.trim()))),
            None => match text.split_once(char::is_whitespace) {
                Some((a, m)) => (a.trim(), Some(MaskText::Netmask(m.trim()))),
                None => (text, None),
            },
        };
        let unbracket = |t: &str| -> String {
            t.strip_prefix('[')
                .and_then(|t| t.strip_suffix(']'))
                .unwrap_or(t)
                .to_string()
        };
        let addr: IpAddr = unbracket(addr_text)
            .parse()
            .map_err(|_| format!("bad address `{addr_text}` in `{s}`"))?;
        match addr {
            IpAddr::V4(a) => {
                let mask = match mask_text {
                    None => u32::MAX,
                    Some(MaskText::Bits(b)) => {
                        let bits: u32 = b.parse().ok().filter(|n| *n <= 32).ok_or_else(|| {
                            format!("bad prefix length `/{b}` in `{s}` (0 to 32)")
                        })?;
                        u32::MAX.checked_shl(32 - bits).unwrap_or(0)
                    }
                    Some(MaskText::Netmask(m)) => match unbracket(m).parse::<IpAddr>() {
                        Ok(IpAddr::V4(m)) => u32::from(m),
                        _ => {
                            return Err(format!(
                                "bad netmask `{m}` in `{s}`: expected an IPv4 netmask like 255.255.0.0"
                            ));
                        }
                    },
                };
                Ok(Cidr::V4 {
                    addr: u32::from(a),
                    mask,
                })
            }
            IpAddr::V6(a) => {
                let mask = match mask_text {
                    None => u128::MAX,
                    Some(MaskText::Bits(b)) => {
                        let bits: u32 = b.parse().ok().filter(|n| *n <= 128).ok_or_else(|| {
                            format!("bad prefix length `/{b}` in `{s}` (0 to 128)")
                        })?;
                        u128::MAX.checked_shl(128 - bits).unwrap_or(0)
                    }
                    Some(MaskText::Netmask(m)) => match unbracket(m).parse::<IpAddr>() {
                        Ok(IpAddr::V6(m)) => u128::from(m),
                        _ => {
                            return Err(format!(
                                "bad netmask `{m}` in `{s}`: expected an IPv6 netmask like ffff:ffff::"
                            ));
                        }
                    },
                };
                Ok(Cidr::V6 {
                    addr: u128::from(a),
                    mask,
                })
            }
        }
    }
}

enum MaskText<'a> {
    Bits(&'a str),
    Netmask(&'a str),
}

/// How a test compares its field (SPEC §1.2).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Matcher {
    /// Rust `regex` syntax, unanchored search.
    Regex(String),
    Exact(String),
    Prefix(String),
    Suffix(String),
    Contains(String),
    /// `*` matches any run of characters; anchored at both ends.
    Wildcard(String),
    /// The host equals the value or ends with `.` + value.
    Domain(String),
    Cidr(Cidr),
    Range(Range),
}

impl Matcher {
    /// The native TOML key of this matcher.
    pub fn key(&self) -> &'static str {
        match self {
            Matcher::Regex(_) => "regex",
            Matcher::Exact(_) => "exact",
            Matcher::Prefix(_) => "prefix",
            Matcher::Suffix(_) => "suffix",
            Matcher::Contains(_) => "contains",
            Matcher::Wildcard(_) => "wildcard",
            Matcher::Domain(_) => "domain",
            Matcher::Cidr(_) => "cidr",
            Matcher::Range(_) => "range",
        }
    }

    /// The matcher's value as the user would write it.
    pub fn value_text(&self) -> String {
        match self {
            Matcher::Regex(s)
            | Matcher::Exact(s)
            | Matcher::Prefix(s)
            | Matcher::Suffix(s)
            | Matcher::Contains(s)
            | Matcher::Wildcard(s)
            | Matcher::Domain(s) => s.clone(),
            Matcher::Cidr(c) => c.to_string(),
            Matcher::Range(r) => r.to_string(),
        }
    }
}

/// The seven matchers that take text, each with `text`, in declaration
/// order: tests that must cover every text matcher loop over these.
#[cfg(test)]
pub(crate) fn text_matchers(text: &str) -> Vec<Matcher> {
    let text = text.to_string();
    vec![
        Matcher::Regex(text.clone()),
        Matcher::Exact(text.clone()),
        Matcher::Prefix(text.clone()),
        Matcher::Suffix(text.clone()),
        Matcher::Contains(text.clone()),
        Matcher::Wildcard(text.clone()),
        Matcher::Domain(text),
    ]
}

/// One atom: a field, a matcher and a case mode.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Test {
    pub field: Field,
    pub matcher: Matcher,
    pub case: Case,
}

impl fmt::Display for Test {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {}",
            self.field,
            self.matcher.key(),
            quoted(&self.matcher.value_text())
        )?;
        if self.case == Case::Sensitive {
            f.write_str(" (case-sensitive)")?;
        }
        Ok(())
    }
}

/// A test's value as a config file would write it: a regex such as
/// `\.(png|gif)$` in single quotes as written (TOML's literal string),
/// since the double-quoted form would show every backslash twice; any other
/// value, or one holding a quote or a character that needs an escape to be
/// seen (a control or an invisible format character), double-quoted with
/// escapes.
fn quoted(value: &str) -> String {
    use crate::rules::dialect::write::needs_escape;
    if value.contains('\\') && !value.contains('\'') && !value.chars().any(needs_escape) {
        format!("'{value}'")
    } else {
        format!("{value:?}")
    }
}

/// A boolean combination of tests, to any depth.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Condition {
    Test(Test),
    All(Vec<Condition>),
    Any(Vec<Condition>),
    Not(Box<Condition>),
}

impl Condition {
    /// Calls `visit` on every test in the condition, depth first.
    pub fn for_each_test<'a>(&'a self, visit: &mut impl FnMut(&'a Test)) {
        match self {
            Condition::Test(t) => visit(t),
            Condition::All(cs) | Condition::Any(cs) => {
                cs.iter().for_each(|c| c.for_each_test(visit))
            }
            Condition::Not(c) => c.for_each_test(visit),
        }
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, word: &str, cs: &[Condition]| {
            write!(f, "{word}(")?;
            for (i, c) in cs.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{c}")?;
            }
            f.write_str(")")
        };
        match self {
            Condition::Test(t) => write!(f, "{t}"),
            Condition::All(cs) => list(f, "all", cs),
            Condition::Any(cs) => list(f, "any", cs),
            Condition::Not(c) => write!(f, "not({c})"),
        }
    }
}

/// The four WebCopy presets (SPEC §1.3), each setting all three flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    Exclude,
    ExcludeScan,
    Download,
    DownloadNoScan,
}

impl Action {
    pub const ALL: [Action; 4] = [
        Action::Exclude,
        Action::ExcludeScan,
        Action::Download,
        Action::DownloadNoScan,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Action::Exclude => "exclude",
            Action::ExcludeScan => "exclude-scan",
            Action::Download => "download",
            Action::DownloadNoScan => "download-no-scan",
        }
    }

    /// The (fetch, save, follow) flags this preset sets.
    pub fn flags(self) -> Flags {
        let (fetch, save, follow) = match self {
            Action::Exclude => (false, false, false),
            Action::ExcludeScan => (true, false, true),
            Action::Download => (true, true, true),
            Action::DownloadNoScan => (true, true, false),
        };
        Flags {
            fetch: Some(fetch),
            save: Some(save),
            follow: Some(follow),
        }
    }
}

impl FromStr for Action {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Action::ALL.into_iter().find(|a| a.name() == s).ok_or_else(|| {
            format!("unknown action `{s}` (expected exclude, exclude-scan, download or download-no-scan)")
        })
    }
}

/// Individual verdict flags a rule sets; `None` leaves the flag as it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Flags {
    pub fetch: Option<bool>,
    pub save: Option<bool>,
    pub follow: Option<bool>,
}

impl Flags {
    pub fn is_empty(self) -> bool {
        self.fetch.is_none() && self.save.is_none() && self.follow.is_none()
    }

    /// `self` with every flag that `later` sets overridden (last setting wins).
    pub fn then(self, later: Flags) -> Flags {
        Flags {
            fetch: later.fetch.or(self.fetch),
            save: later.save.or(self.save),
            follow: later.follow.or(self.follow),
        }
    }
}

/// Download priority, Exalead shift −2 (highest) … +2 (lowest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Priority {
    Highest,
    High,
    #[default]
    Normal,
    Low,
    Lowest,
}

impl Priority {
    pub const ALL: [Priority; 5] = [
        Priority::Highest,
        Priority::High,
        Priority::Normal,
        Priority::Low,
        Priority::Lowest,
    ];

    /// The Exalead shift: −2 for highest up to +2 for lowest.
    pub fn shift(self) -> i8 {
        match self {
            Priority::Highest => -2,
            Priority::High => -1,
            Priority::Normal => 0,
            Priority::Low => 1,
            Priority::Lowest => 2,
        }
    }

    pub fn from_shift(shift: i64) -> Option<Priority> {
        Priority::ALL
            .into_iter()
            .find(|p| i64::from(p.shift()) == shift)
    }

    pub fn name(self) -> &'static str {
        match self {
            Priority::Highest => "highest",
            Priority::High => "high",
            Priority::Normal => "normal",
            Priority::Low => "low",
            Priority::Lowest => "lowest",
        }
    }
}

impl FromStr for Priority {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Priority::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| {
                format!("unknown priority `{s}` (expected highest, high, normal, low or lowest)")
            })
    }
}

/// A veto (SPEC §1.3): once a filter marks a URL, no later rule can undo it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Filter {
    /// Filtered when the rule does NOT hold.
    MustHave,
    /// Filtered when the rule holds.
    MayNotHave,
}

impl Filter {
    pub fn name(self) -> &'static str {
        match self {
            Filter::MustHave => "must-have",
            Filter::MayNotHave => "may-not-have",
        }
    }
}

impl FromStr for Filter {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "must-have" => Ok(Filter::MustHave),
            "may-not-have" => Ok(Filter::MayNotHave),
            _ => Err(format!(
                "unknown filter `{s}` (expected must-have or may-not-have)"
            )),
        }
    }
}

/// Where a rule came from: the line of the source file that produced it
/// (1-based; 0 when built in code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Origin {
    pub line: usize,
}

/// One ordered rule (SPEC §1.3). `condition: None` always holds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Rule {
    pub name: String,
    pub enabled: bool,
    pub condition: Option<Condition>,
    pub negate: bool,
    pub action: Option<Action>,
    /// Flags set individually; applied after `action`.
    pub set: Flags,
    pub priority: Option<Priority>,
    /// Whether a URL that this rule filters or excludes is kept in the log.
    pub log: Option<bool>,
    pub filter: Option<Filter>,
    pub stop: bool,
    pub meta: Vec<(String, String)>,
    pub source: Option<String>,
    /// Evaluated only when this rule holds.
    pub rules: Vec<Rule>,
    /// Only the first nested rule that holds takes effect.
    pub first_match: bool,
    pub origin: Origin,
}

impl Rule {
    /// Forgets the source lines of the rule and its nested rules.
    pub fn forget_lines(&mut self) {
        self.origin = Origin::default();
        for rule in &mut self.rules {
            rule.forget_lines();
        }
    }

    /// An enabled rule with nothing set yet.
    pub fn new(name: impl Into<String>, line: usize) -> Rule {
        Rule {
            name: name.into(),
            enabled: true,
            origin: Origin { line },
            ..Rule::default()
        }
    }

    /// The flags this rule sets when it holds: the preset, then `set`.
    pub fn flags(&self) -> Flags {
        self.action
            .map(Action::flags)
            .unwrap_or_default()
            .then(self.set)
    }
}

/// What happens to a URL that no rule decides (IBM Watson Explorer's default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Disposition {
    /// Crawled.
    #[default]
    Allow,
    /// Not crawled, no record kept.
    Disallow,
    /// Not crawled, the reason recorded.
    DisallowLog,
}

impl Disposition {
    pub fn name(self) -> &'static str {
        match self {
            Disposition::Allow => "allow",
            Disposition::Disallow => "disallow",
            Disposition::DisallowLog => "disallow-log",
        }
    }
}

impl FromStr for Disposition {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "allow" => Ok(Disposition::Allow),
            "disallow" => Ok(Disposition::Disallow),
            "disallow-log" => Ok(Disposition::DisallowLog),
            _ => Err(format!(
                "unknown disposition `{s}` (expected allow, disallow or disallow-log)"
            )),
        }
    }
}

/// A whole rule list with its global default, as read from one file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RuleSet {
    pub disposition: Disposition,
    pub rules: Vec<Rule>,
}

impl RuleSet {
    /// The same rules with no source lines, for text that must not depend
    /// on where they stood in a file (the writer prints lines as `# line N`
    /// comments): an edited rule's, or the rules a URL log records.
    pub fn without_lines(&self) -> RuleSet {
        let mut set = self.clone();
        for rule in &mut set.rules {
            rule.forget_lines();
        }
        set
    }

    /// Visits every rule depth first (document order) with its number path,
    /// e.g. `[3, 2]` for the second rule nested in the third (1-based).
    pub fn walk<'a>(&'a self, visit: &mut impl FnMut(&[usize], &'a Rule)) {
        fn go<'a>(
            rules: &'a [Rule],
            path: &mut Vec<usize>,
            visit: &mut impl FnMut(&[usize], &'a Rule),
        ) {
            for (i, rule) in rules.iter().enumerate() {
                path.push(i + 1);
                visit(path, rule);
                go(&rule.rules, path, visit);
                path.pop();
            }
        }
        go(&self.rules, &mut Vec::new(), visit);
    }
}

/// Formats a rule number path as `3.2`.
pub fn rule_number(path: &[usize]) -> String {
    let parts: Vec<String> = path.iter().map(|n| n.to_string()).collect();
    parts.join(".")
}

#[cfg(test)]
mod tests;
