//! The rule-file dialects of SPEC §1.4 and their detection.
//!
//! Each importer is a pure function from the file's text to a [`Parsed`]
//! rule set (or a [`LineError`]); [`load`] reads the file and attaches its
//! name to any error. Every produced rule keeps the line it came from.

mod decode;
pub mod exalead;
pub mod funnelback;
mod java_regex;
pub mod native;
pub mod nutch;
pub mod wca;
pub mod write;

pub use decode::decode;

use std::fmt;
use std::str::FromStr;

use super::error::{LineError, Note, RuleFileError};
use super::model::RuleSet;

/// A host, or a host pattern with `*` (WCA's `*.ibm.com`), written the way
/// URLs are normalized before rules see them, or a test on it could never
/// match: lower case, a name outside ASCII in punycode (`bücher.de` →
/// `xn--bcher-kva.de`), an IPv6 address compressed (`[2001:db8:0:1:0:0:0:1]`
/// → `[2001:db8:0:1::1]`) and an IPv4 one in dotted decimal. A label with
/// `*` is only lower-cased; text the URL parser refuses is too.
pub(crate) fn host_normalized(host: &str) -> String {
    let parse = |text: &str| url::Host::parse(text).ok().map(|h| h.to_string());
    if !host.contains('*') {
        // IPv6 written without its brackets is what a URL holds with them.
        let bracketed = host.contains(':') && !host.starts_with('[');
        let parsed = if bracketed {
            parse(&format!("[{host}]"))
        } else {
            parse(host)
        };
        return parsed.unwrap_or_else(|| host.to_ascii_lowercase());
    }
    labels_normalized(host)
}

/// A host pattern label by label: only a name outside ASCII changes (`10`
/// in `*.10.example` is a label, not the address 0.0.0.10).
fn labels_normalized(host: &str) -> String {
    host.split('.')
        .map(|label| match label.contains('*') || label.is_ascii() {
            true => label.to_ascii_lowercase(),
            false => url::Host::parse(label)
                .map(|h| h.to_string())
                .unwrap_or_else(|_| label.to_ascii_lowercase()),
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// A path (with its query) as a URL's is normalized: `.` and `..`
/// segments resolved, characters outside ASCII, spaces and the like
/// percent-encoded (`/a/../b/caf é` → `/b/caf%20%C3%A9`). A `*` and what
/// follows it is left as it is (a pattern). Left as written: a path the
/// URL parser refuses, one with a fragment or with spaces at its ends
/// (which the parser would drop), and, when the text is only a URL's
/// start (`whole` false), one ending in `.` or `..` (`/.` meant for
/// dot-files, not the folder).
fn path_normalized(path: &str, whole: bool) -> String {
    let (literal, pattern) = path.find('*').map_or((path, ""), |i| path.split_at(i));
    let open_end = !whole || !pattern.is_empty();
    let last = literal.rsplit('/').next().unwrap_or("");
    let as_written = !literal.starts_with('/')
        || literal.contains('#')
        || literal.trim() != literal
        || (open_end && (last == "." || last == ".."));
    if as_written {
        return path.to_string();
    }
    let Ok(url) = url::Url::parse(&format!("http://h{literal}")) else {
        return path.to_string();
    };
    let mut out = url[url::Position::BeforePath..url::Position::AfterQuery].to_string();
    out.push_str(pattern);
    out
}

/// URL text written the way URLs are normalized before rules see them
/// (lower-case scheme, the host as [`host_normalized`] writes it, no
/// default port, the path as [`path_normalized`] does), or a test on it
/// could never match: `HTTP://Sales.IBM.com:80/x*` becomes
/// `http://sales.ibm.com/x*`. The path keeps its case. With `whole` (the
/// text is a whole URL, not its start) a URL with no path gets the `/` its
/// normalized form has (`http://example.com` → `http://example.com/`).
/// Text without `scheme://` is returned as it is.
pub(crate) fn url_start_normalized(text: &str, whole: bool) -> String {
    let Some((scheme, rest)) = text.split_once("://") else {
        return text.to_string();
    };
    let scheme = scheme.to_ascii_lowercase();
    let (authority, path) = rest
        .find(['/', '?', '#'])
        .map_or((rest, ""), |i| rest.split_at(i));
    let path = &path_normalized(path, whole);
    // A URL's start that ends inside its host (`http://192.168.1`,
    // `http://intra`) names only the start of the host's last label.
    let open_host = !whole && path.is_empty();
    let mut authority = authority_normalized(authority, open_host);
    let default_port = match scheme.as_str() {
        "http" => Some(":80"),
        "https" => Some(":443"),
        _ => None,
    };
    let mut port_dropped = false;
    if let Some(port) = default_port
        && authority.ends_with(port)
    {
        authority.truncate(authority.len() - port.len());
        port_dropped = true;
    }
    // `http://example.com:80` ended at the port: the host ends there too,
    // which the `/` says (without it, `http://example.com.evil.org`
    // would match as well).
    let ends_host = whole || (port_dropped && path.is_empty());
    let slash = if ends_host && !path.starts_with('/') {
        "/"
    } else {
        ""
    };
    format!("{scheme}://{authority}{slash}{path}")
}

/// `user@host:port` with its host as [`host_normalized`] writes it; with
/// `open` (the text may end inside the host) and no port, the host's last
/// label only lower-cased, as it may be cut short (`192.168.1` is not the
/// address 192.168.0.1 there).
fn authority_normalized(authority: &str, open: bool) -> String {
    let (user, host_port) = authority
        .rsplit_once('@')
        .map_or(("", authority), |(user, rest)| (user, rest));
    // A colon inside brackets is IPv6 text, not a port separator.
    let (host, port) = match host_port.rfind(':') {
        Some(i) if !host_port[i..].contains(']') => host_port.split_at(i),
        _ => (host_port, ""),
    };
    let at = if authority.contains('@') { "@" } else { "" };
    let host = match host.rsplit_once('.') {
        _ if !open || !port.is_empty() || host.ends_with(']') => host_normalized(host),
        Some((done, last)) => format!("{}.{}", labels_normalized(done), last.to_ascii_lowercase()),
        None => host.to_ascii_lowercase(),
    };
    // The user part keeps its case, as a URL's does.
    format!("{user}{at}{host}{port}")
}

/// A rule-file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    Native,
    Funnelback,
    Wca,
    Exalead,
    Nutch,
}

impl Dialect {
    pub const ALL: [Dialect; 5] = [
        Dialect::Native,
        Dialect::Funnelback,
        Dialect::Wca,
        Dialect::Exalead,
        Dialect::Nutch,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Dialect::Native => "native",
            Dialect::Funnelback => "funnelback",
            Dialect::Wca => "wca",
            Dialect::Exalead => "exalead",
            Dialect::Nutch => "nutch",
        }
    }

    /// Parses `text` as this dialect.
    pub fn parse(self, text: &str) -> Result<Parsed, LineError> {
        match self {
            Dialect::Native => native::parse(text),
            Dialect::Funnelback => funnelback::parse(text),
            Dialect::Wca => wca::parse(text),
            Dialect::Exalead => exalead::parse(text),
            Dialect::Nutch => nutch::parse(text),
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The `--dialect` choice: one dialect, or detection from the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DialectChoice {
    #[default]
    Auto,
    Given(Dialect),
}

impl FromStr for DialectChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "auto" {
            return Ok(DialectChoice::Auto);
        }
        Dialect::ALL
            .into_iter()
            .find(|d| d.name() == s)
            .map(DialectChoice::Given)
            .ok_or_else(|| {
                format!("unknown dialect `{s}` (expected auto, native, funnelback, wca, exalead or nutch)")
            })
    }
}

/// What an importer produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parsed {
    pub rules: RuleSet,
    /// Things the importer skipped or interpreted, with their lines.
    pub notes: Vec<Note>,
}

/// A rule file read from disk, with its dialect.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub file: String,
    /// The file's text as parsed (decoded, its byte-order mark dropped).
    pub text: String,
    pub dialect: Dialect,
    pub parsed: Parsed,
}

/// Guesses the dialect of `text` from its first meaningful line.
///
/// XML → exalead; `include_patterns=`/`exclude_patterns=` → funnelback;
/// `allow`/`forbid` lines → wca; `+`/`-` lines → nutch; anything else is
/// taken as native TOML (whose own parser then reports what is wrong),
/// unless a pattern line further down shows a Funnelback collection.cfg.
pub fn detect(text: &str) -> Dialect {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with('<') {
            return Dialect::Exalead;
        }
        let lower = line.to_ascii_lowercase();
        let key = lower.split(['=', ' ', '\t']).next().unwrap_or("");
        if key == "include_patterns" || key == "exclude_patterns" || key.starts_with("crawler.") {
            return Dialect::Funnelback;
        }
        if matches!(key, "allow" | "forbid") {
            return Dialect::Wca;
        }
        if line.starts_with('+') || line.starts_with('-') {
            return Dialect::Nutch;
        }
        // A TOML table first, or a file that reads as TOML (which no
        // Funnelback configuration does: `include_patterns=/red` is not a
        // TOML value): native, whatever its strings hold.
        if line.starts_with('[') || text.parse::<toml::Table>().is_ok() {
            return Dialect::Native;
        }
        // A whole Funnelback collection.cfg starts with other settings
        // (`service_name=…`): its pattern lines, anywhere, say what it is.
        let funnelback = text.lines().any(|line| {
            let key = line
                .trim_start()
                .split(['=', ' ', '\t'])
                .next()
                .unwrap_or("");
            key.eq_ignore_ascii_case("include_patterns")
                || key.eq_ignore_ascii_case("exclude_patterns")
        });
        return if funnelback {
            Dialect::Funnelback
        } else {
            Dialect::Native
        };
    }
    Dialect::Native
}

/// Reads and parses a rule file (`-` for stdin is not supported: rules
/// must have a name for their errors).
pub fn load(path: &str, choice: DialectChoice) -> Result<Loaded, RuleFileError> {
    let bytes = std::fs::read(path).map_err(|e| RuleFileError {
        file: path.to_string(),
        line: 0,
        message: format!("cannot read the rules file: {e}"),
    })?;
    let text = decode(path, &bytes)?;
    parse_text(path, &text, choice)
}

/// Parses rule text already in memory; `file` names it in errors.
pub fn parse_text(file: &str, text: &str, choice: DialectChoice) -> Result<Loaded, RuleFileError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let dialect = match choice {
        DialectChoice::Given(d) => d,
        DialectChoice::Auto => detect(text),
    };
    let parsed = dialect.parse(text).map_err(|mut e| {
        // Native is the guess for whatever no other dialect claims: a file
        // of another kind must not read as a TOML typo only.
        if choice == DialectChoice::Auto
            && dialect == Dialect::Native
            && e.message.starts_with("bad TOML")
            && !file.ends_with(".toml")
        {
            e.message.push_str(
                " (read as native TOML: no other dialect's lines were recognised; --dialect names one)",
            );
        }
        RuleFileError::at(file, e)
    })?;
    Ok(Loaded {
        file: file.to_string(),
        text: text.to_string(),
        dialect,
        parsed,
    })
}

#[cfg(test)]
mod detect_tests {
    use super::{Dialect, detect, host_normalized, url_start_normalized};

    /// Rule targets are written as URLs are normalized, or they could
    /// never match: IPv6 compressed, names outside ASCII in punycode, dot
    /// segments resolved, spaces and non-ASCII in paths percent-encoded;
    /// patterns after `*` and text the URL parser refuses as written.
    #[test]
    fn targets_are_written_as_urls_are_normalized() {
        for (host, want) in [
            ("[2001:DB8:0:1:0:0:0:1]", "[2001:db8:0:1::1]"),
            ("2001:db8:0::2", "[2001:db8::2]"),
            ("Bücher.DE", "xn--bcher-kva.de"),
            ("*.Bücher.de", "*.xn--bcher-kva.de"),
            ("*.10.Example", "*.10.example"),
            ("WWW.ibm.com", "www.ibm.com"),
            ("*", "*"),
            ("bad host!", "bad host!"),
        ] {
            assert_eq!(host_normalized(host), want, "{host}");
        }
        for (text, whole, want) in [
            (
                "HTTP://Sales.IBM.com:80/x*",
                false,
                "http://sales.ibm.com/x*",
            ),
            (
                "http://[2001:db8:0:1:0:0:0:1]/p/",
                false,
                "http://[2001:db8:0:1::1]/p/",
            ),
            ("http://[::1]:8080/", false, "http://[::1]:8080/"),
            ("http://x.com/a/../b/*", false, "http://x.com/b/*"),
            ("http://x.com/a/./b", false, "http://x.com/a/b"),
            (
                "http://x.com/caf é?q=ü",
                false,
                "http://x.com/caf%20%C3%A9?q=%C3%BC",
            ),
            ("http://x.com/a.*", false, "http://x.com/a.*"),
            // A start that may end inside its host or its last segment.
            ("http://192.168.1", false, "http://192.168.1"),
            ("http://Bücher.Ex", false, "http://xn--bcher-kva.ex"),
            ("http://x.com/.", false, "http://x.com/."),
            ("http://x.com/a/..", false, "http://x.com/a/.."),
            ("http://x.com/a/..", true, "http://x.com/"),
            ("http://x.com/my ", false, "http://x.com/my "),
            ("http://x.com/a/../b#top", false, "http://x.com/a/../b#top"),
            ("http://x.com/a{b}", false, "http://x.com/a%7Bb%7D"),
            ("http://192.168.1:8080", false, "http://192.168.0.1:8080"),
            (
                "http://User@Bücher.de",
                true,
                "http://User@xn--bcher-kva.de/",
            ),
            ("http://x.com/Keep/Case", false, "http://x.com/Keep/Case"),
            ("/just/a/path", false, "/just/a/path"),
        ] {
            assert_eq!(url_start_normalized(text, whole), want, "{text}");
        }
    }

    /// A native file whose strings hold a line of another dialect stays
    /// native; a Funnelback collection.cfg with its patterns further down
    /// is still found.
    #[test]
    fn detection_reads_toml_as_toml() {
        let toml = "[[rules]]\nname = \"old config\"\nmeta = { note = \"\"\"\ninclude_patterns=/red\n\"\"\" }\n";
        assert_eq!(detect(toml), Dialect::Native);
        let keyed_first = "disposition = \"allow\"\nnote = \"\"\"\ninclude_patterns=/red\n\"\"\"\n";
        assert_eq!(detect(keyed_first), Dialect::Native);
        let cfg = "service_name=intranet\ncollection=docs\ninclude_patterns=/red\n";
        assert_eq!(detect(cfg), Dialect::Funnelback);
        assert_eq!(detect("exclude_patterns=/x\n"), Dialect::Funnelback);
        assert_eq!(detect("allow domain *.ibm.com\n"), Dialect::Wca);
        assert_eq!(detect("+^https?://x/\n-.\n"), Dialect::Nutch);
        assert_eq!(detect("<Rules/>\n"), Dialect::Exalead);
    }
}
