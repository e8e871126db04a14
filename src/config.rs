//! Crawl settings: the `[crawl]` and `[queues]` tables of a config file,
//! validated into one plain value before anything starts (STYLE habit 6).
//!
//! The defaults are not written here: they are `config/default.toml`,
//! embedded, parsed first, and overlaid with the user's file, so the
//! documented file and the code cannot disagree. The `[[rules]]` of the same
//! file are read by the rule engine's native dialect.

use std::path::PathBuf;

use serde::Deserialize;

/// The longest `[crawl] commit_ms`: the URL log may lag the crawl by that
/// much, and a crash loses that much work.
pub const MAX_COMMIT_MS: u64 = 60_000;

/// The most requests in flight, overall or per host: far beyond what one
/// crawler process needs, and low enough that the buffers sized from it
/// stay small.
pub const MAX_CONCURRENCY: usize = 4096;

/// The longest `[crawl] user_agent`, in characters.
pub const MAX_USER_AGENT: usize = 512;

/// The longest `[crawl] timeout_s`: an hour without a byte is a dead
/// connection. (Far larger values would overflow the clock's arithmetic.)
pub const MAX_TIMEOUT_S: u64 = 3_600;

/// The longest `[crawl] max_fetch_s`: a day for one request.
pub const MAX_FETCH_S: u64 = 86_400;

/// The longest `[crawl] delay_ms` between two requests to a host: an hour.
pub const MAX_DELAY_MS: u64 = 3_600_000;

/// The longest `[crawl] give_up_host_s`: a week.
pub const MAX_GIVE_UP_HOST_S: u64 = 604_800;

/// Keys whose values are 32-bit: a larger integer is named with its line
/// here, where serde's message would not say which key it was.
const U32_KEYS: [&str; 3] = ["max_link_depth", "max_path_depth", "max_retries"];

/// The documented defaults, as shipped.
pub const DEFAULT_TOML: &str = include_str!("../config/default.toml");

/// Everything a crawl needs to know besides its rules.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub crawl: CrawlSettings,
    pub queues: QueueWeights,
}

/// `[crawl]` (SPEC §5).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrawlSettings {
    pub start: Vec<String>,
    /// Read by the rule engine; kept here so the key is known.
    pub disposition: String,
    pub max_link_depth: u32,
    pub max_path_depth: u32,
    pub obey_robots: bool,
    pub sitemaps: Vec<String>,
    pub ignore_nofollow: bool,
    pub concurrency: usize,
    pub per_host: usize,
    pub delay_ms: u64,
    pub timeout_s: u64,
    /// The longest one request may take in all, body included.
    pub max_fetch_s: u64,
    pub max_body_bytes: u64,
    pub max_retries: u32,
    /// How long a host may fail every request before its URLs are given
    /// up without one, in seconds (0: never).
    pub give_up_host_s: u64,
    /// Longest a group of fetch outcomes is held before its one URL log
    /// transaction, in milliseconds (0: a transaction per burst).
    pub commit_ms: u64,
    pub user_agent: String,
    pub db: PathBuf,
    pub out: PathBuf,
}

/// `[queues]`: the weight of each fetch queue (SPEC §2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueWeights {
    pub user: u32,
    pub redirect: u32,
    pub index: u32,
    pub index_follow: u32,
    pub follow: u32,
    pub refresh: u32,
}

impl QueueWeights {
    /// The weights in the order of SPEC §2.2 (`user`, `redirect`, `index`,
    /// `index_follow`, `follow`, `refresh`), as the frontier takes them.
    pub fn in_order(self) -> [u32; 6] {
        [
            self.user,
            self.redirect,
            self.index,
            self.index_follow,
            self.follow,
            self.refresh,
        ]
    }
}

/// A config file that cannot be used, naming the file and line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct ConfigError {
    pub file: String,
    pub line: Option<usize>,
    pub message: String,
}

impl Config {
    /// The shipped defaults.
    pub fn defaults() -> Config {
        Config::from_toml("config/default.toml", "").expect("the embedded default.toml is valid")
    }

    /// Reads `text` (the user's config) over the defaults.
    pub fn from_toml(file: &str, text: &str) -> Result<Config, ConfigError> {
        let error = |line: Option<usize>, message: String| ConfigError {
            file: file.to_string(),
            line,
            message,
        };
        let mut merged: toml::Table = toml::from_str(DEFAULT_TOML)
            .map_err(|e| error(None, format!("embedded defaults: {}", e.message())))?;
        let user: toml::Table = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].lines().count().max(1));
            error(line, format!("bad TOML: {}", e.message().trim()))
        })?;
        let max_fetch_given = user
            .get("crawl")
            .and_then(|crawl| crawl.get("max_fetch_s"))
            .is_some();
        for (section, value) in user {
            match (section.as_str(), value) {
                ("crawl" | "queues", toml::Value::Table(table)) => {
                    let target = merged
                        .get_mut(&section)
                        .and_then(toml::Value::as_table_mut)
                        .ok_or_else(|| {
                            error(None, format!("embedded defaults lack [{section}]"))
                        })?;
                    for (key, value) in table {
                        let Some(default) = target.get(&key) else {
                            return Err(error(
                                line_of(text, &section, &key),
                                format!("unknown key `{key}` in [{section}]"),
                            ));
                        };
                        // The default's type is the key's type.
                        if default.type_str() != value.type_str() {
                            return Err(error(
                                line_of(text, &section, &key),
                                format!(
                                    "`{key}` in [{section}] must be {}, not {}",
                                    a_type(default.type_str()),
                                    a_type(value.type_str())
                                ),
                            ));
                        }
                        if value.as_integer().is_some_and(|n| n < 0) {
                            return Err(error(
                                line_of(text, &section, &key),
                                format!("`{key}` in [{section}] must not be negative"),
                            ));
                        }
                        let is_u32 = section == "queues" || U32_KEYS.contains(&key.as_str());
                        if is_u32 && value.as_integer().is_some_and(|n| n > i64::from(u32::MAX)) {
                            return Err(error(
                                line_of(text, &section, &key),
                                format!("`{key}` in [{section}] must be at most {}", u32::MAX),
                            ));
                        }
                        target.insert(key, value);
                    }
                }
                ("rules", _) => {} // the rule engine reads these
                // `crawl = 1` or `[[crawl]]`: the section's name, not a table.
                ("crawl" | "queues", _) => {
                    return Err(error(
                        line_of_section(text, &section)
                            .or_else(|| line_of_top_level(text, &section)),
                        format!("`{section}` must be a table, written `[{section}]`"),
                    ));
                }
                // `start = […]` above `[crawl]`: a key, not a section.
                (key, value) if !value.is_table() => {
                    let home = ["crawl", "queues"].into_iter().find(|section| {
                        merged
                            .get(*section)
                            .and_then(toml::Value::as_table)
                            .is_some_and(|t| t.contains_key(key))
                    });
                    let hint = match home {
                        Some(section) => format!("it belongs under [{section}]"),
                        None => "settings go under [crawl] or [queues]".into(),
                    };
                    return Err(error(
                        line_of_top_level(text, key),
                        format!("`{key}` is outside any section: {hint}"),
                    ));
                }
                (other, _) => {
                    return Err(error(
                        line_of_section(text, other),
                        format!(
                            "unknown section `{other}` (expected [crawl], [queues] or [[rules]])"
                        ),
                    ));
                }
            }
        }
        let mut config: Config =
            toml::Value::Table(merged)
                .try_into()
                .map_err(|e: toml::de::Error| {
                    let message = e.message().trim().to_string();
                    // Name the offending key's line when the message quotes the key.
                    let line = ["crawl", "queues"].iter().find_map(|section| {
                        message
                            .split('`')
                            .nth(1)
                            .and_then(|key| line_of(text, section, key))
                    });
                    error(line, message)
                })?;
        // The whole request's limit, when not given, is never shorter than
        // the read timeout given: a config written before it existed, with
        // `timeout_s` above its default, still reads.
        if !max_fetch_given {
            config.crawl.max_fetch_s = config.crawl.max_fetch_s.max(config.crawl.timeout_s);
        }
        config
            .validate()
            .map_err(|(key, message)| error(line_of(text, "crawl", key), message))?;
        Ok(config)
    }

    /// Values that parse but make no sense.
    fn validate(&self) -> Result<(), (&'static str, String)> {
        let c = &self.crawl;
        if c.concurrency == 0 {
            return Err(("concurrency", "concurrency must be at least 1".into()));
        }
        if c.per_host == 0 {
            return Err(("per_host", "per_host must be at least 1".into()));
        }
        for (key, value) in [("concurrency", c.concurrency), ("per_host", c.per_host)] {
            if value > MAX_CONCURRENCY {
                return Err((key, format!("{key} must be at most {MAX_CONCURRENCY}")));
            }
        }
        if c.timeout_s == 0 {
            return Err(("timeout_s", "timeout_s must be at least 1".into()));
        }
        for (key, value, most, unit) in [
            ("timeout_s", c.timeout_s, MAX_TIMEOUT_S, "an hour"),
            ("max_fetch_s", c.max_fetch_s, MAX_FETCH_S, "a day"),
            ("delay_ms", c.delay_ms, MAX_DELAY_MS, "an hour"),
            (
                "give_up_host_s",
                c.give_up_host_s,
                MAX_GIVE_UP_HOST_S,
                "a week",
            ),
        ] {
            if value > most {
                return Err((key, format!("{key} must be at most {most} ({unit})")));
            }
        }
        if c.max_fetch_s < c.timeout_s {
            let message = format!("max_fetch_s must be at least timeout_s ({})", c.timeout_s);
            return Err(("max_fetch_s", message));
        }
        if c.commit_ms > MAX_COMMIT_MS {
            let message = format!("commit_ms must be at most {MAX_COMMIT_MS} (a minute)");
            return Err(("commit_ms", message));
        }
        if c.user_agent.trim().is_empty() || c.user_agent.chars().any(char::is_control) {
            return Err(("user_agent", "user_agent must be printable text".into()));
        }
        if c.user_agent.chars().count() > MAX_USER_AGENT {
            let message = format!("user_agent must be at most {MAX_USER_AGENT} characters");
            return Err(("user_agent", message));
        }
        for text in &c.sitemaps {
            if sitemap_url(text).is_none() {
                // Debug quoting escapes control characters.
                let message = format!("sitemaps: {text:?} is not an absolute http(s) URL");
                return Err(("sitemaps", message));
            }
        }
        Ok(())
    }
}

/// A `[crawl] sitemaps` entry as the crawl fetches it: an absolute http(s)
/// URL, normalized; `None` for anything else (refused with the config).
pub fn sitemap_url(text: &str) -> Option<url::Url> {
    crate::rules::normalize(text)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https"))
}

fn a_type(name: &str) -> String {
    match name {
        "integer" | "array" => format!("an {name}"),
        other => format!("a {other}"),
    }
}

/// The line of `key =` in `[section]`, for precise errors.
fn line_of(text: &str, section: &str, key: &str) -> Option<usize> {
    let header = format!("[{section}]");
    let mut inside = false;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with('[') {
            inside = t == header;
        } else if inside && t.split('=').next().map(str::trim) == Some(key) {
            return Some(i + 1);
        }
    }
    None
}

/// The line of `key` written before any section header.
fn line_of_top_level(text: &str, key: &str) -> Option<usize> {
    text.lines()
        .take_while(|l| !l.trim_start().starts_with('['))
        .position(|l| l.split('=').next().map(str::trim) == Some(key))
        .map(|i| i + 1)
}

fn line_of_section(text: &str, section: &str) -> Option<usize> {
    text.lines()
        .position(|l| {
            let t = l.trim().trim_start_matches('[').trim_end_matches(']');
            t == section || t.starts_with(&format!("{section}."))
        })
        .map(|i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_documented_ones() {
        let c = Config::defaults();
        assert_eq!(c.crawl.max_link_depth, 50);
        assert_eq!(c.crawl.max_path_depth, 20);
        assert!(c.crawl.obey_robots);
        assert_eq!(c.crawl.concurrency, 16);
        assert_eq!(c.crawl.per_host, 8);
        assert_eq!(c.crawl.timeout_s, 30);
        assert_eq!(c.crawl.max_fetch_s, 180);
        assert_eq!(c.crawl.max_body_bytes, 10_485_760);
        assert_eq!(c.crawl.max_retries, 3);
        assert_eq!(c.crawl.user_agent, "crawlspace/0.1");
        assert_eq!(c.crawl.db, PathBuf::from("crawl.db"));
        assert_eq!(
            c.queues,
            QueueWeights {
                user: 10000,
                redirect: 2000,
                index: 1000,
                index_follow: 100,
                follow: 10,
                refresh: 1
            }
        );
    }

    #[test]
    fn user_values_override_defaults() {
        let c = Config::from_toml(
            "my.toml",
            "[crawl]\nstart = [\"http://127.0.0.1:8080/\"]\nper_host = 2\n[queues]\nfollow = 50\n[[rules]]\nname = \"x\"\n",
        )
        .unwrap();
        assert_eq!(c.crawl.start, ["http://127.0.0.1:8080/"]);
        assert_eq!(c.crawl.per_host, 2);
        assert_eq!(c.crawl.concurrency, 16);
        assert_eq!(c.queues.follow, 50);
        assert_eq!(c.queues.user, 10000);
    }

    /// `max_fetch_s` not given follows a longer `timeout_s` (a config
    /// written before the setting existed still reads); given shorter, it
    /// is an error naming its line.
    #[test]
    fn max_fetch_s_is_never_shorter_than_timeout_s() {
        let c = Config::from_toml("my.toml", "[crawl]\ntimeout_s = 300\n").expect("reads");
        assert_eq!((c.crawl.timeout_s, c.crawl.max_fetch_s), (300, 300));
        let c = Config::from_toml("my.toml", "[crawl]\ntimeout_s = 10\n").expect("reads");
        assert_eq!(c.crawl.max_fetch_s, 180);
        let e = Config::from_toml("my.toml", "[crawl]\ntimeout_s = 300\nmax_fetch_s = 60\n")
            .expect_err("shorter");
        assert_eq!(e.line, Some(3), "{e}");
        assert!(
            e.message
                .contains("max_fetch_s must be at least timeout_s (300)"),
            "{e}"
        );
    }

    #[test]
    fn errors_name_file_and_line() {
        let cases = [
            (
                "[crawl]\nstart = []\nper_hots = 2\n",
                Some(3),
                "unknown key `per_hots`",
            ),
            (
                "[crawl]\nper_host = \"two\"\n",
                Some(2),
                "`per_host` in [crawl] must be an integer, not a string",
            ),
            ("[crawl]\nper_host = -1\n", Some(2), "per_host"),
            ("[crawl]\nper_host = 0\n", Some(2), "at least 1"),
            (
                "[crawl]\nconcurrency = 100000000000000000\n",
                Some(2),
                "concurrency must be at most 4096",
            ),
            (
                "[crawl]\nper_host = 4097\n",
                Some(2),
                "per_host must be at most",
            ),
            (
                "[crawl]\nstart = []\ncommit_ms = 60001\n",
                Some(3),
                "commit_ms must be at most 60000",
            ),
            (
                "[crawl]\nstart = []\ntimeout_s = 9223372036854775807\n",
                Some(3),
                "timeout_s must be at most 3600 (an hour)",
            ),
            (
                "[crawl]\nmax_fetch_s = 86401\n",
                Some(2),
                "max_fetch_s must be at most 86400 (a day)",
            ),
            (
                "[crawl]\n\ndelay_ms = 9223372036854775807\n",
                Some(3),
                "delay_ms must be at most 3600000 (an hour)",
            ),
            (
                "[crawl]\nmax_link_depth = 4294967296\n",
                Some(2),
                "`max_link_depth` in [crawl] must be at most 4294967295",
            ),
            (
                "[queues]\nuser = 9223372036854775807\n",
                Some(2),
                "`user` in [queues] must be at most 4294967295",
            ),
            (
                "[crawl]\nstart = []\nsitemaps = [\"http://h/s.xml\", \"nope\"]\n",
                Some(3),
                "sitemaps: \"nope\" is not an absolute http(s) URL",
            ),
            (
                "[crawl]\nsitemaps = [\"ftp://h/s.xml\"]\n",
                Some(2),
                "sitemaps: \"ftp://h/s.xml\"",
            ),
            ("[crawl\n", Some(1), "bad TOML"),
            ("[craw]\nx = 1\n", Some(1), "unknown section"),
            (
                "# a crawl\n\nstart = [\"http://h/\"]\n[crawl]\n",
                Some(3),
                "`start` is outside any section: it belongs under [crawl]",
            ),
            (
                "user = 3\n",
                Some(1),
                "`user` is outside any section: it belongs under [queues]",
            ),
            (
                "crawl = 1\n",
                Some(1),
                "`crawl` must be a table, written `[crawl]`",
            ),
            (
                "[[queues]]\nuser = 1\n",
                Some(1),
                "`queues` must be a table, written `[queues]`",
            ),
            (
                "speed = 3\n[crawl]\n",
                Some(1),
                "`speed` is outside any section: settings go under [crawl] or [queues]",
            ),
        ];
        for (text, line, needle) in cases {
            let err = Config::from_toml("my.toml", text).expect_err(text);
            assert_eq!(err.line, line, "{text:?}: {err}");
            assert!(err.to_string().contains(needle), "{err}");
            assert!(err.to_string().starts_with("my.toml"), "{err}");
        }
        let long = format!(
            "[crawl]\nuser_agent = \"{}\"\n",
            "a".repeat(MAX_USER_AGENT + 1)
        );
        let err = Config::from_toml("my.toml", &long).expect_err("too long");
        assert!(err.to_string().contains("at most 512 characters"), "{err}");
        let longest = format!("[crawl]\nuser_agent = \"{}\"\n", "a".repeat(MAX_USER_AGENT));
        assert!(Config::from_toml("my.toml", &longest).is_ok());
    }
}

#[cfg(test)]
mod random_tests {
    /// No config file makes the reader panic, whatever its numbers.
    #[test]
    fn random_input_never_panics() {
        let pieces: &[&[u8]] = &[
            b"[crawl]\n",
            b"[queues]\n",
            b"[[rules]]\n",
            b"start = [",
            b"\"http://127.0.0.1/\"",
            b"per_host = ",
            b"concurrency = ",
            b"commit_ms = ",
            b"timeout_s = ",
            b"max_fetch_s = ",
            b"max_body_bytes = ",
            b"delay_ms = ",
            b"follow = ",
            b"user = ",
            b"0",
            b"-1",
            b"18446744073709551615",
            b"1e309",
            b"\"x\"",
            b"]",
            b"\n",
            b" ",
        ];
        for text in crate::rules::fuzz::inputs(0x9e6c_63d0_676a_9a99, 4000, 24, pieces) {
            let _ = super::Config::from_toml("fuzz.toml", &text);
        }
    }
}

#[cfg(test)]
mod key_tests {
    /// The rule engine's native dialect checks `[crawl]` keys on its own
    /// (rules files are read without this module); both lists must agree.
    #[test]
    fn native_dialect_knows_every_crawl_key() {
        let defaults: toml::Table = toml::from_str(super::DEFAULT_TOML).unwrap();
        let mut keys: Vec<&str> = defaults["crawl"]
            .as_table()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut native = crate::rules::dialect::native::CRAWL_KEYS.to_vec();
        keys.sort_unstable();
        native.sort_unstable();
        assert_eq!(keys, native);
    }
}
