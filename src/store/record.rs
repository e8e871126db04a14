//! The URL record (SPEC §3) and its on-disk codec.
//!
//! A stored value is two header bytes and a postcard body:
//!
//! ```text
//! [FORMAT] [state byte] postcard(UrlRecord)
//! ```
//!
//! The format byte lets a later crawlspace refuse (rather than misread) a
//! log written with a different record layout: postcard is not
//! self-describing, so adding a field changes the meaning of every byte
//! after it. The state byte repeats the record's state outside the body so
//! that `update` can fix the state index and the counts without decoding
//! the old record, and so that a record whose body is damaged can still be
//! overwritten. Decoding checks both copies agree.
//!
//! Decoding never panics: every failure (unknown format, truncated body,
//! trailing bytes, state bytes out of range) is a [`DecodeError`].

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The record layout version written in the first byte of every value.
/// 2: `title` and `excerpt` added (a log of format 1 is refused, not misread).
/// 3: `address` added last; format 2 is still read ([`FORMAT_WITHOUT_ADDRESS`]).
pub(crate) const FORMAT: u8 = 3;

/// Records written before `address`: the same bytes but the last field's,
/// so they read as format 3 with no address (postcard's `None` is one zero
/// byte). A log holds both formats once a newer build writes to it.
pub(crate) const FORMAT_WITHOUT_ADDRESS: u8 = 2;

/// Where a URL is in its life (SPEC §2.1).
///
/// The discriminants are the on-disk state bytes (value header, `by_state`
/// keys, count keys): never renumber them.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum State {
    /// Waiting in the frontier.
    #[default]
    Queued = 0,
    /// Being fetched now; re-queued by [`super::UrlLog::requeue_in_flight`]
    /// after a crash.
    InFlight = 1,
    /// Fetched, body not kept (`exclude-scan`, or `save` off).
    Fetched = 2,
    /// Fetched and written to the mirror.
    Saved = 3,
    /// Never to be fetched: a rule, robots.txt or a limit said no.
    Filtered = 4,
    /// Fetching failed; see [`UrlRecord::error`].
    Error = 5,
    /// Saved once, gone on refresh (SPEC §2.4).
    Deleted = 6,
}

impl State {
    /// Every state, in state-byte order.
    pub const ALL: [State; 7] = [
        State::Queued,
        State::InFlight,
        State::Fetched,
        State::Saved,
        State::Filtered,
        State::Error,
        State::Deleted,
    ];

    /// The name used by `log --state` and `log --json` (SPEC §5).
    pub fn name(self) -> &'static str {
        match self {
            State::Queued => "queued",
            State::InFlight => "in-flight",
            State::Fetched => "fetched",
            State::Saved => "saved",
            State::Filtered => "filtered",
            State::Error => "error",
            State::Deleted => "deleted",
        }
    }

    /// The state byte of the key layout.
    pub(crate) fn byte(self) -> u8 {
        self as u8
    }

    /// The state of a state byte; `None` for a byte no state has.
    pub(crate) fn from_byte(byte: u8) -> Option<State> {
        State::ALL.get(usize::from(byte)).copied()
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A state name that is none of [`State::name`]'s.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown URL state {0:?}: expected one of queued, in-flight, fetched, saved, filtered, error, deleted"
)]
pub struct ParseStateError(pub String);

impl FromStr for State {
    type Err = ParseStateError;

    /// Accepts the names of [`State::name`], in any case, and `in_flight`
    /// (people type the Rust spelling too).
    fn from_str(text: &str) -> Result<State, ParseStateError> {
        let lower = text.trim().to_ascii_lowercase();
        let wanted = if lower == "in_flight" {
            "in-flight"
        } else {
            &lower
        };
        State::ALL
            .into_iter()
            .find(|s| s.name() == wanted)
            .ok_or_else(|| ParseStateError(text.to_string()))
    }
}

/// The two error classes of SPEC §2.4: temporary errors are retried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorClass {
    Temporary,
    Permanent,
}

impl ErrorClass {
    /// `temporary` or `permanent`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorClass::Temporary => "temporary",
            ErrorClass::Permanent => "permanent",
        }
    }
}

/// The last fetch error of a URL and how many times fetching it failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorInfo {
    pub class: ErrorClass,
    pub count: u32,
    pub message: String,
}

/// One line of the stored trace: a rule or a layer (robots, depth limit,
/// dedupe…) and what it did to the URL.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceLine {
    /// The rule's path (`"3.2"`) or a layer name like `"robots"`.
    pub rule: String,
    pub name: String,
    /// The line in the rules (or robots.txt) file; 0 when none.
    pub line: u32,
    pub step: String,
    pub detail: String,
}

/// Everything the log keeps about one URL (SPEC §3).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UrlRecord {
    /// The normalized URL; the `by_url` key.
    pub url: String,
    pub state: State,
    /// One line: why it is in this state.
    pub reason: String,
    pub fetch: bool,
    pub save: bool,
    pub follow: bool,
    pub filtered: bool,
    /// Queue name (`user`, `redirect`, `index`, `index_follow`, `follow`,
    /// `refresh`, `none`).
    pub queue: String,
    /// Exalead shift, −2 (highest) … 2 (lowest).
    pub priority: i8,
    pub link_depth: u32,
    /// Id of the page it was found on.
    pub referrer: Option<u64>,
    /// Milliseconds since the Unix epoch.
    pub discovered_ms: u64,
    pub fetched_ms: Option<u64>,
    pub status: Option<u16>,
    pub content_type: Option<String>,
    pub size: Option<u64>,
    pub error: Option<ErrorInfo>,
    /// The robots outcome, e.g. the deciding robots.txt line.
    pub robots: Option<String>,
    pub meta: Vec<(String, String)>,
    pub source: Option<String>,
    pub trace: Vec<TraceLine>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    pub redirect_to: Option<String>,
    pub saved_path: Option<String>,
    /// The HTML `<title>` of a fetched page.
    pub title: Option<String>,
    /// The start of the page's visible text, without its `noindex` and
    /// `googleoff` regions (SPEC §2.3); not kept for `noindex` or
    /// `nosnippet` pages.
    pub excerpt: Option<String>,
    /// The address DNS gave and the fetch went to, once resolved: what
    /// address rules judged (SPEC §1.1), so that changed rules can judge a
    /// URL an address rule refused again. Last: see [`FORMAT_WITHOUT_ADDRESS`].
    pub address: Option<std::net::IpAddr>,
}

impl UrlRecord {
    /// About the bytes it takes in memory: the struct and the text it
    /// holds (lengths, not capacities). For bounding caches of records by
    /// size rather than by count: a record's title, excerpt, meta and trace
    /// can make it several times larger than another's.
    pub fn approx_size(&self) -> usize {
        let text = |s: &Option<String>| s.as_ref().map_or(0, String::len);
        let optional = [
            &self.content_type,
            &self.robots,
            &self.source,
            &self.etag,
            &self.last_modified,
            &self.redirect_to,
            &self.saved_path,
            &self.title,
            &self.excerpt,
        ];
        std::mem::size_of::<UrlRecord>()
            + self.url.len()
            + self.reason.len()
            + self.queue.len()
            + optional.into_iter().map(text).sum::<usize>()
            + self.error.as_ref().map_or(0, |e| e.message.len())
            + (self.meta.iter())
                .map(|(k, v)| std::mem::size_of::<(String, String)>() + k.len() + v.len())
                .sum::<usize>()
            + (self.trace.iter())
                .map(|t| {
                    std::mem::size_of::<TraceLine>()
                        + t.rule.len()
                        + t.name.len()
                        + t.step.len()
                        + t.detail.len()
                })
                .sum::<usize>()
    }
}

/// Why stored bytes are not a record.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("empty value")]
    Empty,
    #[error("record format {0}, this build reads formats {FORMAT_WITHOUT_ADDRESS} and {FORMAT}")]
    Format(u8),
    #[error("state byte {0} names no state")]
    StateByte(u8),
    #[error("body: {0}")]
    Body(String),
    #[error("{0} trailing bytes after the record")]
    Trailing(usize),
    #[error("header says {header}, body says {body}")]
    StateMismatch { header: State, body: State },
    /// The pack of eight records holding this one does not parse
    /// (`packs.rs`): all eight are hidden.
    #[error("its pack of records is damaged: {0}")]
    Pack(&'static str),
}

/// The stored bytes of a record.
pub(crate) fn encode(record: &UrlRecord) -> Result<Vec<u8>, postcard::Error> {
    let mut value = Vec::with_capacity(encoded_size_guess(record));
    value.extend_from_slice(&[FORMAT, record.state.byte()]);
    postcard::to_extend(record, value)
}

/// Bytes reserved for a record's fields other than its URL, title and
/// excerpt: enough for the trace, reason and headers of a typical fetched
/// page, so that encoding grows the buffer rarely.
const ENCODE_CAPACITY: usize = 384;

/// A first guess at a record's encoded size: encoding into a buffer that
/// starts empty reallocated it several times per record, on the engine
/// thread that every log write goes through.
fn encoded_size_guess(record: &UrlRecord) -> usize {
    let text = |field: &Option<String>| field.as_ref().map_or(0, String::len);
    ENCODE_CAPACITY + record.url.len() + text(&record.title) + text(&record.excerpt)
}

/// The state in a value's header, without decoding the body.
pub(crate) fn header_state(bytes: &[u8]) -> Result<State, DecodeError> {
    match bytes {
        [] => Err(DecodeError::Empty),
        [FORMAT | FORMAT_WITHOUT_ADDRESS, state, ..] => {
            State::from_byte(*state).ok_or(DecodeError::StateByte(*state))
        }
        [FORMAT | FORMAT_WITHOUT_ADDRESS] => Err(DecodeError::Body("no state byte".into())),
        [other, ..] => Err(DecodeError::Format(*other)),
    }
}

/// The URL at the start of a stored record's body (postcard writes the
/// `url` field first: a varint length, then the bytes), without decoding
/// the rest; `None` when those bytes do not hold one.
pub(crate) fn stored_url(bytes: &[u8]) -> Option<&[u8]> {
    let body = bytes.get(2..)?;
    let mut len: u64 = 0;
    for (i, &byte) in body.iter().enumerate().take(10) {
        len |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            let start = i + 1;
            let end = start.checked_add(usize::try_from(len).ok()?)?;
            return body.get(start..end);
        }
    }
    None
}

/// The record in stored bytes.
pub(crate) fn decode(bytes: &[u8]) -> Result<UrlRecord, DecodeError> {
    let header = header_state(bytes)?;
    // `take_from_bytes`, not `from_bytes`: the latter ignores trailing
    // bytes, and a value with leftovers is not one we wrote.
    let body = bytes.get(2..).unwrap_or_default();
    let without_address;
    let body = if bytes[0] == FORMAT_WITHOUT_ADDRESS {
        without_address = [body, &[0]].concat();
        &without_address[..]
    } else {
        body
    };
    let (record, rest) = postcard::take_from_bytes::<UrlRecord>(body)
        .map_err(|e| DecodeError::Body(e.to_string()))?;
    if !rest.is_empty() {
        return Err(DecodeError::Trailing(rest.len()));
    }
    if record.state != header {
        return Err(DecodeError::StateMismatch {
            header,
            body: record.state,
        });
    }
    Ok(record)
}

/// The `log --json` object of SPEC §5 for record `id`: `url`, `state` (the
/// [`State::name`]s), `status` (number or null) and `reason`, then every
/// other field under its own name. `meta` is a list of `{name, value}`
/// objects because names may repeat.
pub fn export_json(record: &UrlRecord, id: u64) -> Value {
    let error = record
        .error
        .as_ref()
        .map(|e| json!({ "class": e.class.name(), "count": e.count, "message": e.message }));
    let meta: Vec<Value> = record
        .meta
        .iter()
        .map(|(name, value)| json!({ "name": name, "value": value }))
        .collect();
    let trace: Vec<Value> = record
        .trace
        .iter()
        .map(|t| {
            json!({
                "rule": t.rule, "name": t.name, "line": (t.line > 0).then_some(t.line),
                "step": t.step, "detail": t.detail,
            })
        })
        .collect();
    json!({
        "id": id,
        "url": record.url,
        "state": record.state.name(),
        "status": record.status,
        "reason": record.reason,
        "fetch": record.fetch,
        "save": record.save,
        "follow": record.follow,
        "filtered": record.filtered,
        "queue": record.queue,
        "priority": record.priority,
        "link_depth": record.link_depth,
        "referrer": record.referrer,
        "discovered_ms": record.discovered_ms,
        "fetched_ms": record.fetched_ms,
        "content_type": record.content_type,
        "size": record.size,
        "error": error,
        "robots": record.robots,
        "meta": meta,
        "source": record.source,
        "trace": trace,
        "etag": record.etag,
        "last_modified": record.last_modified,
        "redirect_to": record.redirect_to,
        "saved_path": record.saved_path,
        "title": record.title,
        "excerpt": record.excerpt,
        "address": record.address.map(|a| a.to_string()),
    })
}
