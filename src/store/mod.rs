//! The URL log of SPEC §3 over sled: every URL the crawler met, in
//! discovery order, with its state, verdict, fetch outcome and trace, plus
//! the persisted frontier the crawl resumes from.
//!
//! This is the only module that names sled, and it imports nothing else
//! of crawlspace: the crawler and the console see [`UrlLog`] and plain
//! record types. Keeping the surface this narrow leaves room to swap the
//! engine (sled 0.34 has a reported panic on recovery after a hard kill).
//!
//! Trees (key layouts in `index.rs`):
//! - `record_packs`: id / 8 → the records of those 8 ids (`packs.rs`; each
//!   record in the codec of `record.rs`). Ids start at 1, are dense and
//!   follow discovery order, so a range over `record_packs` is the log in
//!   order. Eight records to an entry because sled's memory and write
//!   cost go with entries (layouts 1 to 4 had an entry per record, in
//!   `urls`).
//! - `url_buckets`: URL → id, for deduplication and look-up by URL: keyed
//!   128-bit fingerprints of the URLs packed in hash buckets that split as
//!   they fill, about 40 URLs to an entry (`url_index.rs`; layouts 1 to 4
//!   had `by_url`, an entry per URL).
//! - `state_blocks`: state byte ++ block of 4096 ids → a bitmap of that
//!   block's ids in that state (`bitmap.rs`): a secondary index, so paging
//!   one state walks only that state's ids, in order, never the whole log.
//! - `frontier_blocks`: level ++ queue ++ block → bitmap: the URLs waiting
//!   to be fetched, FIFO per (level, queue) because ids grow with
//!   discovery.
//! - `meta`: the counters (next id, per-state counts, frontier length,
//!   since layout 6 the ids skipped:
//!   one packed key since layout 3; `counters.rs`), the layout version,
//!   the URL index's hash key (`url_hash_key`, written with the layout by
//!   the migration's flip), the content-type table of `briefs`, and when
//!   the refresh crawl under way started (`refresh.rs`), and the rules its
//!   verdicts were last reached by (`rules_seen.rs`).
//! - `briefs`: every URL's [`Brief`] packed many to an entry, for walks
//!   over every URL (`briefs.rs`).
//!
//! Logs of layouts 1 to 4 (an entry per record in `urls` and an entry
//! per URL in `by_url`; 1 to 3 also an entry per URL in the state index
//! and the frontier, counters a key each in 1 and 2, no briefs in 1) are
//! rebuilt in layout 6 when opened (`migrate.rs`, `migrate_packs.rs`,
//! `migrate_index.rs`), with one flip of the layout key at the end. A
//! damaged state or frontier block is rebuilt from the records when a
//! write, the resume, the open-time recount or a reader paging through
//! it (`crawlspace log --state`, a refresh: [`UrlLog::repair_damaged`])
//! meets it (`repair.rs`), a damaged URL index bucket when a write meets
//! it (`url_index.rs`).
//!
//! Consistency: every write is a batch of [`Change`]s applied in one sled
//! transaction over all six trees ([`UrlLog::apply`]; `discover`,
//! `update`, `enqueue` and `dequeue` are one-change batches), so after a
//! crash a URL is either fully recorded (record, URL index, state index,
//! counts, frontier entry) or not at all. `apply` holds a writer lock
//! around its transaction, so writes never conflict and retry, and what
//! the writer keeps in memory (the counters; the record packs it wrote
//! lately: `packs.rs`; the state and frontier blocks it wrote lately:
//! `blocks.rs`) is exactly what is on disk, which spares the
//! transactions most reads. The per-state counts and the frontier
//! length are persisted in `meta` inside those transactions and mirrored in
//! atomics for the status bar. Open never trusts them blindly: the next id
//! is at least the one after the last record's (and one past the URL
//! index's limit falls back to it), and the counts plus the ids skipped
//! (`counters.rs`) must be exactly the ids given out, else the counts are
//! rebuilt from `state_blocks` (the frontier length from
//! `frontier_blocks`).
//!
//! Opening the log (sled, migrations, the counts' check) is in `open.rs`,
//! reading it in `read.rs`, writing it in `write.rs`.
//!
//! The frontier stays right across a crash when the caller groups its
//! writes: a fetched page's update with its new links (discovered with
//! `enqueue`) in one batch, and the in-flight update with its `Dequeue` in
//! one batch. [`UrlLog::requeue_in_flight`] puts URLs that were in flight
//! back in their queues.

mod bitmap;
mod blocks;
mod brief;
mod briefs;
mod counters;
pub(crate) mod generations;
mod index;
mod migrate;
mod migrate_index;
mod migrate_packs;
mod open;
mod packs;
mod read;
mod record;
mod refresh;
mod repair;
mod rules_seen;
#[cfg(test)]
mod tests;
mod url_index;
mod write;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use sled::Tree;

pub use brief::Brief;
pub use index::{LEVELS, QUEUE_NAMES, frontier_slot};
pub use open::panic_is_expected;
pub use read::RecordReader;
pub use record::{
    DecodeError, ErrorClass, ErrorInfo, ParseStateError, State, TraceLine, UrlRecord, export_json,
};
pub use write::Change;

use bitmap::Bitmap;
use counters::Counters;
use generations::Generations;
use index::{STATE_BLOCKS, parse_state_block_key};
use url_index::{Fingerprint, UrlHash};

/// Why a URL log operation failed. A damaged record or index entry is one
/// of these, never a panic.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the URL log at {}: {message}", path.display())]
    Open { path: PathBuf, message: String },
    #[error("URL log: {0}")]
    Db(#[source] DbError),
    /// The record's bytes do not decode. Paging stops here; resume with
    /// `after = id` (or `before = id`) to read past it.
    #[error("URL log record {id} is damaged: {source}")]
    Corrupt {
        id: u64,
        #[source]
        source: DecodeError,
    },
    #[error("URL log {tree} tree: damaged entry {key:?}")]
    BadEntry { tree: &'static str, key: Vec<u8> },
    #[error("URL log has no record {0}")]
    NotFound(u64),
    /// `update` was given a record whose URL is not the stored one: the
    /// URL index would go stale, so the write is refused.
    #[error("record {id} cannot become {url}: a record's URL never changes")]
    UrlChanged { id: u64, url: String },
    #[error("no frontier queue at level {level}, queue {queue} (levels 0..5, queues 0..6)")]
    BadSlot { level: u8, queue: u8 },
    #[error("cannot encode the record of {url}: {message}")]
    Encode { url: String, message: String },
    /// A broken invariant of the store itself (a bug, not damage).
    #[error("URL log internal error: {0}")]
    Internal(String),
}

/// A storage engine error, kept opaque so that callers never name sled.
#[derive(Debug)]
pub struct DbError(sled::Error);

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&sled_words(&self.0))
    }
}

/// What a damaged log needs, said after what sled found.
pub(crate) const DAMAGED_FIX: &str =
    "a copy of the folder from before the damage, or a new --db, is needed";

/// sled's error in words: its corruption error prints as `Read corrupted
/// data at file offset None backtrace ()`, which says nothing of what to do.
pub(crate) fn sled_words(e: &sled::Error) -> String {
    match e {
        sled::Error::Corruption { at, .. } => {
            // `Inline(1152456)`, `Blob(…)`: the file offset is the number.
            let offset = at
                .map(|at| format!("{at:?}"))
                .and_then(|text| {
                    let digits: String = text
                        .chars()
                        .skip_while(|c| !c.is_ascii_digit())
                        .take_while(char::is_ascii_digit)
                        .collect();
                    (!digits.is_empty()).then(|| format!(" at byte {digits} of its file `db`"))
                })
                .unwrap_or_default();
            format!("its files are damaged (sled found corrupted data{offset}); {DAMAGED_FIX}")
        }
        sled::Error::Io(e) => format!("cannot read or write its files: {}", io_words(e)),
        other => other.to_string(),
    }
}

/// An I/O error as the system says it (`No space left on device (os error
/// 28)`). sled hands its I/O errors on as copies whose text is the
/// original's debug form (`Os { code: 28, kind: StorageFull, message: … }`):
/// the system's code is read back out of that.
fn io_words(e: &std::io::Error) -> String {
    if e.raw_os_error().is_some() {
        return e.to_string();
    }
    let text = e.to_string();
    let debug_form = ["Os {", "Custom {", "Error {", "Kind("]
        .iter()
        .any(|start| text.starts_with(start));
    if !debug_form {
        return text;
    }
    // `Os { code: 28, … }`: the system's words for its code.
    let code = text
        .split_once("code: ")
        .map(|(_, rest)| {
            rest.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
        })
        .and_then(|digits| digits.parse::<i32>().ok());
    if let Some(code) = code.filter(|_| text.starts_with("Os {")) {
        return std::io::Error::from_raw_os_error(code).to_string();
    }
    // `Custom { kind: Other, error: "disk gone" }`, `Error { kind: …,
    // message: "…" }`: the message; `Kind(NotFound)`: the kind's words.
    let quoted = ["error: \"", "message: \""].iter().find_map(|key| {
        let (_, rest) = text.split_once(key)?;
        let end = rest.rfind('"')?;
        Some(rest[..end].to_string())
    });
    quoted.unwrap_or_else(|| e.kind().to_string())
}

impl std::error::Error for DbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

impl From<sled::Error> for StoreError {
    fn from(error: sled::Error) -> StoreError {
        StoreError::Db(DbError(error))
    }
}

/// What to list: one state (walks the state index) and/or a regex searched
/// in each record's URL and reason.
#[derive(Clone, Debug, Default)]
pub struct Query {
    pub state: Option<State>,
    /// Only records routed to this queue (`index_follow`, `none`, ...).
    pub queue: Option<String>,
    pub text: Option<regex::Regex>,
}

impl Query {
    /// Whether `record` is one the query lists.
    pub fn matches(&self, record: &UrlRecord) -> bool {
        self.state.is_none_or(|s| s == record.state)
            && self.queue.as_ref().is_none_or(|q| *q == record.queue)
            && self.text.as_ref().is_none_or(|re| {
                re.is_match(&record.url)
                    || re.is_match(&record.reason)
                    || readable_url(&record.url).is_some_and(|url| re.is_match(&url))
            })
    }
}

/// `url` as people write it, when that differs from its normalized form:
/// percent-encoded bytes decoded (lossily, as UTF-8) and a punycode host
/// (`xn--bcher-kva.example`) in Unicode, so that a text filter `café` or
/// `bücher` finds the URLs that hold them. `None` for a URL with neither.
fn readable_url(url: &str) -> Option<String> {
    if !url.contains('%') && !url.contains("xn--") {
        return None;
    }
    let decoded = percent_encoding::percent_decode_str(url)
        .decode_utf8_lossy()
        .into_owned();
    let Some((scheme, rest)) = decoded.split_once("://") else {
        return Some(decoded);
    };
    let host_end = rest.find(['/', '?', ':']).unwrap_or(rest.len());
    let (host, tail) = rest.split_at(host_end);
    let (unicode, _) = idna::domain_to_unicode(host);
    Some(format!("{scheme}://{unicode}{tail}"))
}

/// How many records are in each state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StateCounts {
    pub queued: u64,
    pub in_flight: u64,
    pub fetched: u64,
    pub saved: u64,
    pub filtered: u64,
    pub error: u64,
    pub deleted: u64,
}

impl StateCounts {
    fn from_array(c: [u64; 7]) -> StateCounts {
        let [queued, in_flight, fetched, saved, filtered, error, deleted] = c;
        StateCounts {
            queued,
            in_flight,
            fetched,
            saved,
            filtered,
            error,
            deleted,
        }
    }

    /// The count of one state.
    pub fn get(&self, state: State) -> u64 {
        match state {
            State::Queued => self.queued,
            State::InFlight => self.in_flight,
            State::Fetched => self.fetched,
            State::Saved => self.saved,
            State::Filtered => self.filtered,
            State::Error => self.error,
            State::Deleted => self.deleted,
        }
    }

    /// All records.
    pub fn total(&self) -> u64 {
        State::ALL.iter().map(|s| self.get(*s)).sum()
    }
}

/// A step of the migration of an older log on open, reported by
/// [`UrlLog::open_reporting`]; layouts are those of `index.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Migration {
    /// Rebuilding a log of layout `from` in layout `to` has started.
    Started { from: u8, to: u8 },
    /// It has ended: the log is in layout `to` now.
    Finished { from: u8, to: u8 },
}

/// The reason written on a record that [`UrlLog::requeue_in_flight`] puts
/// back in the queue.
pub const REQUEUED_REASON: &str = "re-queued: it was in flight when the crawl stopped";

/// In-flight records re-queued per transaction by `requeue_in_flight`.
const REQUEUE_BATCH: usize = 1_000;
/// URLs a generation of [`UrlLog::known_urls`] holds: an entry is 32
/// bytes in a table of 65,536 slots, so the two generations take about
/// 4 MB, whatever the size of the log.
const KNOWN_URLS: usize = 32_768;

/// The URL log: a sled database and its trees. Cheap to share behind an
/// `Arc`; every method takes `&self` and is safe to call from many threads.
#[derive(Debug)]
pub struct UrlLog {
    db: sled::Db,
    /// The folder the log was opened from, for the errors that refuse it.
    dir: PathBuf,
    /// The `record_packs` tree: the records, eight to an entry (layout 6).
    packs: Tree,
    /// The `url_buckets` tree: the URL index in hash buckets
    /// (`url_index.rs`).
    url_buckets: Tree,
    /// The keyed hash of the URL index, read (or made) on open.
    url_hash: Option<UrlHash>,
    /// The `state_blocks` tree: bitmaps per state and block (layout 4).
    by_state: Tree,
    /// The `frontier_blocks` tree: bitmaps per queue and block (layout 4).
    frontier: Tree,
    meta: Tree,
    briefs: Tree,
    /// Held by [`UrlLog::apply`] around each transaction: one writer at a
    /// time, and what it keeps in memory for the next transaction.
    writer: Mutex<Writer>,
    /// The ids of URLs looked up or written last, by fingerprint
    /// (`url_index.rs`): a crawl meets most links again soon after their
    /// first sighting (navigation, neighbours), and a hit here saves a
    /// read of the index. Only URLs in the log are noted; they are never
    /// removed and keep their id, so a note never goes stale.
    known_urls: Mutex<Generations<Fingerprint, u64>>,
    /// The content-type table of `briefs` as this process last knew it:
    /// it only grows, so a type found here has its code for good.
    content_types: Mutex<Arc<Vec<String>>>,
    /// Per-state counts, mirroring the persisted `meta` counts: set to the
    /// writer's counters after each commit, under the writer lock, so they
    /// are set in commit order; `Relaxed` because each is an independent
    /// statistic.
    counts: [AtomicU64; 7],
    /// Frontier entries, mirroring `meta` `frontier_len` the same way.
    frontier_len: AtomicU64,
    /// Transactions committed since open, for the benchmarks: sled's cost
    /// is mostly per transaction. `Relaxed`: a statistic.
    transactions: AtomicU64,
    /// Nanoseconds spent in [`UrlLog::apply`] since open, for the
    /// benchmarks: the crawl engine dispatches nothing while it writes.
    write_nanos: AtomicU64,
    /// The most changes one [`UrlLog::apply`] was given since open: what
    /// a batch holds in memory while it is written grows with it.
    largest_batch: AtomicUsize,
}

/// What the writer knows without reading the log, exact because only
/// `apply` writes and it holds the lock (see `blocks.rs`).
#[derive(Debug, Default)]
struct Writer {
    /// The counters as persisted; `counts` and `frontier_len` mirror them.
    counters: Counters,
    /// The record packs it wrote lately (`packs.rs`).
    packs: packs::Cached,
    /// The state and frontier blocks it wrote lately (`blocks.rs`).
    blocks: blocks::Cached,
}

impl UrlLog {
    /// The writer lock (see [`Writer`]). A panic while it was held (none
    /// is known) does not stop later writes; the packs and blocks the
    /// writer cached are dropped then, in case the panic came between a
    /// commit and its notes.
    fn lock_writer(&self) -> std::sync::MutexGuard<'_, Writer> {
        self.writer.lock().unwrap_or_else(|poisoned| {
            self.writer.clear_poison();
            let mut writer = poisoned.into_inner();
            writer.packs.clear();
            writer.blocks.clear();
            writer
        })
    }

    /// Entries in the frontier, all queues.
    pub fn frontier_len(&self) -> u64 {
        self.frontier_len.load(Ordering::Relaxed)
    }

    /// Write transactions committed since the log was opened.
    pub fn transactions(&self) -> u64 {
        self.transactions.load(Ordering::Relaxed)
    }

    /// The most changes a single [`UrlLog::apply`] was given since the
    /// log was opened.
    pub fn largest_batch(&self) -> usize {
        self.largest_batch.load(Ordering::Relaxed)
    }

    /// Time spent in [`UrlLog::apply`] since the log was opened, waiting
    /// for the writer lock included.
    pub fn write_time(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.write_nanos.load(Ordering::Relaxed))
    }

    /// After a crash: every record in flight goes back to queued, with
    /// [`REQUEUED_REASON`], into the frontier slot of its priority and
    /// queue ([`frontier_slot`]). Returns how many. Call it on open, before
    /// crawling. A damaged record is left as it is; the others are
    /// re-queued all the same and the first such error is returned.
    pub fn requeue_in_flight(&self) -> Result<u64, StoreError> {
        let mut ids = Vec::new();
        let mut damaged = Vec::new();
        for entry in self.by_state.scan_prefix([State::InFlight.byte()]) {
            let (key, value) = entry?;
            let block = parse_state_block_key(&key).map(|(_, block)| block);
            match (block, Bitmap::decode(&value)) {
                (Some(block), Some(bits)) => ids.extend(bits.ids(block)),
                _ => damaged.push(key),
            }
        }
        if !damaged.is_empty() {
            // A damaged block must not keep the crawl from resuming: it is
            // rebuilt from its records (`repair.rs`) under the writer lock,
            // and what it holds now is re-queued with the rest.
            let mut writer = self.lock_writer();
            writer.blocks.clear();
            for key in damaged {
                self.repair(STATE_BLOCKS, &key)?;
                if let Some((_, block)) = parse_state_block_key(&key)
                    && let Some(bits) = self.by_state.get(&key)?.and_then(|v| Bitmap::decode(&v))
                {
                    ids.extend(bits.ids(block));
                }
            }
            self.recount_after_repair(&mut writer)?;
            drop(writer);
            ids.sort_unstable();
        }
        let mut requeued = 0;
        let mut first_error = None;
        // Batches bound the size of one transaction; in-flight URLs are few
        // (at most the crawl's concurrency) so this is usually one batch.
        for chunk in ids.chunks(REQUEUE_BATCH) {
            let mut records = Vec::with_capacity(chunk.len());
            for &id in chunk {
                match self.get(id) {
                    Ok(Some(mut record)) if record.state == State::InFlight => {
                        record.state = State::Queued;
                        record.reason = REQUEUED_REASON.to_string();
                        records.push((id, record));
                    }
                    Ok(_) => {}
                    Err(e) => {
                        first_error.get_or_insert(e);
                    }
                }
            }
            let changes: Vec<Change<'_>> = records
                .iter()
                .map(|(id, record)| Change::Update {
                    id: *id,
                    record,
                    enqueue: Some(frontier_slot(record.priority, &record.queue)),
                })
                .collect();
            self.apply(&changes)?;
            requeued += changes.len() as u64;
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(requeued),
        }
    }

    /// Writes everything to disk now (sled also does it every 500 ms).
    pub fn flush(&self) -> Result<(), StoreError> {
        self.db.flush()?;
        Ok(())
    }

    /// Bytes the database takes on disk.
    pub fn size_on_disk(&self) -> Result<u64, StoreError> {
        Ok(self.db.size_on_disk()?)
    }
}
