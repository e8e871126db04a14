//! The rule-file dialects of SPEC §1.4 and their detection.
//!
//! Each importer is a pure function from the file's text to a [`Parsed`]
//! rule set (or a [`LineError`]); [`load`] reads the file and attaches its
//! name to any error. Every produced rule keeps the line it came from.

pub mod exalead;
pub mod funnelback;
mod java_regex;
pub mod native;
pub mod nutch;
pub mod wca;
pub mod write;

use std::fmt;
use std::str::FromStr;

use super::error::{LineError, Note, RuleFileError};
use super::model::RuleSet;

/// URL text written the way URLs are normalized before rules see them
/// (lower-case scheme and host, no default port), or a test on it could
/// never match: `HTTP://Sales.IBM.com:80/x*` becomes
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
    let mut authority = authority.to_ascii_lowercase();
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
    let text = String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        RuleFileError {
            file: path.to_string(),
            line: super::error::line_of_offset(&String::from_utf8_lossy(e.as_bytes()), offset),
            message: "the file is not valid UTF-8".to_string(),
        }
    })?;
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
        dialect,
        parsed,
    })
}

#[cfg(test)]
mod detect_tests {
    use super::{Dialect, detect};

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
