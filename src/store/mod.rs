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
//!   the refresh crawl under way started (`refresh.rs`).
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
mod packs;
mod record;
mod refresh;
mod repair;
#[cfg(test)]
mod tests;
mod url_index;
mod write;

use std::ops::Bound;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use sled::{IVec, Tree};

pub use brief::Brief;
pub use index::{LEVELS, QUEUE_NAMES, frontier_slot};
pub use record::{
    DecodeError, ErrorClass, ErrorInfo, ParseStateError, State, TraceLine, UrlRecord, export_json,
};
pub use write::Change;

use bitmap::{Bitmap, block_of};
use counters::{COUNTERS, Counters};
use generations::Generations;
use index::{
    BY_URL, FRONTIER_BLOCKS, LAYOUT, LAYOUT_BITMAPS, LAYOUT_PACKED_COUNTERS,
    LAYOUT_SEPARATE_COUNTERS, LAYOUT_VERSION, LAYOUT_WITHOUT_BRIEFS, NEXT_ID, OLD_BY_STATE,
    OLD_FRONTIER, OLD_URLS, STATE_BLOCKS, frontier_block_key, frontier_key,
    parse_frontier_block_key, parse_state_block_key, state_key,
};
use packs::{PACK_IDS, PackReader, RECORD_PACKS, Records, Slot, first_id, frame, parse_pack_key};
use record::decode;
use url_index::{Fingerprint, MAX_ID, URL_BUCKETS, URL_HASH_KEY, UrlHash};
use write::check_slot;

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
        self.0.fmt(f)
    }
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
            && self
                .text
                .as_ref()
                .is_none_or(|re| re.is_match(&record.url) || re.is_match(&record.reason))
    }
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
    /// Opens (creating if missing) the log in `dir`, with a page cache of
    /// about `cache_bytes` (sled's default is 1 GiB, too much to leave
    /// unset). A sled panic while recovering a damaged database is turned
    /// into [`StoreError::Open`] instead of taking the process down.
    ///
    /// sled locks the folder; a handle just dropped in this process can
    /// keep the lock for a moment (its flusher thread ends on its own), so a
    /// lock conflict is retried for up to a second before it is reported as
    /// the log being in use.
    pub fn open(dir: &Path, cache_bytes: u64) -> Result<UrlLog, StoreError> {
        UrlLog::open_reporting(dir, cache_bytes, &mut |_| {})
    }

    /// [`UrlLog::open`], telling `report` when a log of an older layout
    /// starts and ends being rebuilt in this one (`migrate.rs`): it
    /// writes the log, once and for good, even for a command that only
    /// reads, and takes a while on a large log, so the caller says so.
    /// This module prints nothing itself.
    pub fn open_reporting(
        dir: &Path,
        cache_bytes: u64,
        report: &mut dyn FnMut(Migration),
    ) -> Result<UrlLog, StoreError> {
        let opened = open_sled(dir, cache_bytes);
        let failed = |message: String| StoreError::Open {
            path: dir.to_path_buf(),
            message,
        };
        let db = match opened {
            Ok(Ok(db)) => db,
            Ok(Err(e)) if is_lock_conflict(&e) => {
                return Err(failed(
                    "the URL log is in use by another process (is a crawl running on it?)".into(),
                ));
            }
            Ok(Err(e)) => return Err(failed(e.to_string())),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                return Err(failed(format!("the database panicked on recovery: {what}")));
            }
        };
        // The layout is checked before any tree of this layout is opened:
        // opening one creates it, and a log this build refuses is left as
        // it was.
        let meta = db.open_tree("meta")?;
        let layout = meta.get(LAYOUT)?;
        if let Some(other) = layout.as_deref()
            && !matches!(
                other,
                [LAYOUT_WITHOUT_BRIEFS
                    | LAYOUT_SEPARATE_COUNTERS
                    | LAYOUT_PACKED_COUNTERS
                    | LAYOUT_BITMAPS
                    | LAYOUT_VERSION]
            )
        {
            return Err(failed(format!(
                "key layout {}, this build reads layouts {LAYOUT_WITHOUT_BRIEFS} to {LAYOUT_VERSION}",
                match other {
                    [n] => n.to_string(),
                    _ => format!("{other:?}"),
                }
            )));
        }
        let mut log = UrlLog {
            dir: dir.to_path_buf(),
            packs: db.open_tree(RECORD_PACKS)?,
            url_buckets: db.open_tree(URL_BUCKETS)?,
            // Read or made below, once the log is of this layout; until
            // then every use of it is an error (`UrlLog::url_hash`).
            url_hash: None,
            by_state: db.open_tree(STATE_BLOCKS)?,
            frontier: db.open_tree(FRONTIER_BLOCKS)?,
            meta,
            briefs: db.open_tree("briefs")?,
            writer: Mutex::default(),
            known_urls: Mutex::new(Generations::new(KNOWN_URLS)),
            content_types: Mutex::default(),
            db,
            counts: Default::default(),
            frontier_len: AtomicU64::new(0),
            transactions: AtomicU64::new(0),
            write_nanos: AtomicU64::new(0),
        };
        match layout.as_deref() {
            None => match log.unlabelled_layout()? {
                Some(old) => log.migrate_reporting(old, report)?,
                None => {
                    // Trees of older layouts left by a migration that
                    // stopped while it dropped them (`unlabelled_layout`).
                    log.drop_old_trees()?;
                    log.meta.insert(LAYOUT, &[LAYOUT_VERSION])?;
                }
            },
            Some([LAYOUT_VERSION]) => log.drop_old_trees()?,
            // Older layouts are rebuilt in this one (`migrate.rs`); any
            // other was refused above.
            Some(&[old]) => log.migrate_reporting(old, report)?,
            Some(_) => unreachable!("refused above"),
        }
        log.url_hash = Some(log.load_url_hash()?);
        log.load_counts()?;
        log.learn_content_types(briefs::parse_table(
            log.meta
                .get(briefs::CONTENT_TYPES)?
                .as_deref()
                .unwrap_or_default(),
        ));
        Ok(log)
    }

    /// [`UrlLog::migrate`] between two reports.
    fn migrate_reporting(
        &self,
        from: u8,
        report: &mut dyn FnMut(Migration),
    ) -> Result<(), StoreError> {
        report(Migration::Started {
            from,
            to: LAYOUT_VERSION,
        });
        self.migrate(from)?;
        report(Migration::Finished {
            from,
            to: LAYOUT_VERSION,
        });
        Ok(())
    }

    /// What to do with a log that has no `layout` key: `None` when it is
    /// new or of this layout (and any trees of older layouts left in it
    /// are to be dropped), else the layout to migrate it from. Layout 1
    /// wrote no `layout` key; a later one whose key was lost must not be
    /// taken for a new log either, since writing this layout over it would
    /// drop its old trees on the next open with its index and frontier in
    /// them.
    ///
    /// A URL index key (`url_hash_key`) with records in `record_packs`
    /// means this layout: the migration writes that key in the one
    /// atomic batch that writes the layout (`flip_layout`), so a log that
    /// has it was flipped, and whatever older trees it still has are
    /// leftovers of a crash while they were dropped (`drop_old_trees`,
    /// which drops `by_state` first: what is left of them must not be
    /// taken for layout 1). Neither form of the unreleased layout 5 has
    /// both (one had no packs, the other no hash key). Else the per-URL
    /// trees (`by_state`, `frontier`) or a `next_id` key mean layouts 1
    /// to 3: migrating from layout 1 rebuilds everything, briefs
    /// included. Records in `urls` or URLs in `by_url`, and none of
    /// these, mean layout 4: its records are packed and its URL index
    /// rebuilt in buckets (migrating it from layout 1 would clear its
    /// indexes and rebuild them from nothing). A log with none of these
    /// (with `record_packs` and `url_buckets` only) is of this layout.
    fn unlabelled_layout(&self) -> Result<Option<u8>, StoreError> {
        let names = self.db.tree_names();
        let has = |tree: &str| names.iter().any(|name| name == tree.as_bytes());
        if self.meta.contains_key(URL_HASH_KEY)? && !self.packs.is_empty() {
            Ok(None)
        } else if has(OLD_BY_STATE) || has(OLD_FRONTIER) || self.meta.contains_key(NEXT_ID)? {
            Ok(Some(LAYOUT_WITHOUT_BRIEFS))
        } else if (has(OLD_URLS) && !self.db.open_tree(OLD_URLS)?.is_empty())
            || (has(BY_URL) && !self.db.open_tree(BY_URL)?.is_empty())
        {
            Ok(Some(LAYOUT_BITMAPS))
        } else {
            Ok(None)
        }
    }

    /// Loads the persisted counters into the writer and the atomics,
    /// after checking them against the trees (`checked`) and writing back
    /// any they had wrong.
    fn load_counts(&self) -> Result<(), StoreError> {
        let (mut stored, damaged) = self.load_packed_counters()?;
        // Ids start at 1: a new log has no counters yet, and nothing to
        // write back.
        stored.next_id = stored.next_id.max(1);
        let counters = self.checked(stored, damaged)?;
        if damaged || counters != stored {
            self.persist_counters(&counters)?;
        }
        for (atomic, n) in self.counts.iter().zip(counters.counts) {
            atomic.store(n, Ordering::Relaxed);
        }
        self.frontier_len
            .store(counters.frontier_len, Ordering::Relaxed);
        self.lock_writer().counters = counters;
        Ok(())
    }

    /// The stored counters made safe to write from. The next id is never
    /// below the one after the last record's, in any layout: a missing or
    /// damaged counter that gave out an id again would overwrite a record
    /// and leave two URLs on one id (one read of the last pack). A next
    /// id past the URL index's last id plus one ([`MAX_ID`]) is damage too
    /// (the index would refuse every discovery from it): it falls back to
    /// the one after the last record's, and a log whose records are past
    /// that limit is refused. When the next id had to be moved, a counter
    /// did not read (`damaged`), or the counts plus the skipped ids
    /// (`counters.rs`) are not exactly the ids given out, the counts are
    /// rebuilt from the state index and the frontier length from the
    /// frontier, and the ids the counts leave out are the skipped ones
    /// (ids of a damaged last pack counted as given out, or a next id
    /// kept above the last record's). The caller persists what this
    /// returns, so the next open finds the counters adding up and
    /// recounts nothing.
    fn checked(&self, stored: Counters, damaged: bool) -> Result<Counters, StoreError> {
        let mut counters = stored;
        let after_last = self.id_after_last()?;
        if after_last > MAX_ID + 1 {
            return Err(self.past_max_id(after_last));
        }
        let past_max = counters.next_id > MAX_ID + 1;
        if past_max {
            counters.next_id = after_last;
        }
        let behind = after_last > counters.next_id;
        counters.next_id = counters.next_id.max(after_last);
        if damaged || behind || past_max || !counters.add_up() {
            counters = Counters::rebuilt(counters.next_id, self.count_frontier()?, self.recount()?);
        }
        Ok(counters)
    }

    /// The error that refuses a log whose last record's id is `after_last`
    /// - 1, past the ids the URL index can hold.
    fn past_max_id(&self, after_last: u64) -> StoreError {
        StoreError::Open {
            path: self.dir.clone(),
            message: format!(
                "its last record has id {}, past the URL index's limit of {MAX_ID} (a damaged \
                 `{RECORD_PACKS}` key?)",
                after_last - 1
            ),
        }
    }

    /// Writes counters repaired on open.
    fn persist_counters(&self, counters: &Counters) -> Result<(), StoreError> {
        self.meta.insert(COUNTERS, &counters.pack()[..])?;
        Ok(())
    }

    /// The packed counters of layouts 3, 4 and 6 (all zero when missing: a new log),
    /// and whether the value did not read.
    fn load_packed_counters(&self) -> Result<(Counters, bool), StoreError> {
        Ok(
            match self.meta.get(COUNTERS)?.as_deref().map(Counters::unpack) {
                None => (Counters::default(), false),
                Some(Some(counters)) => (counters, false),
                Some(None) => (Counters::default(), true),
            },
        )
    }

    /// The id after the last record's, read from the last pack. Keys
    /// that are not packs' (damage) are passed over from the end: they
    /// cannot be the key of an id given out again, and one must not keep
    /// the log from opening. A last pack that does not parse counts as
    /// full: none of its ids may be given out again. Usually one read.
    fn id_after_last(&self) -> Result<u64, StoreError> {
        Ok(self
            .last_in_packs(false)?
            .map_or(1, |id| id.saturating_add(1)))
    }

    /// The id of the last record in the packs: the last slot holding one
    /// in the last pack that holds any. For a pack that does not parse,
    /// its last id when `precise` is false (no id of it may be given out
    /// again), else the last of its ids the state index has (the ids
    /// past it were never given out, though the counters may have been
    /// moved past them by an open that counted the pack as full).
    fn last_in_packs(&self, precise: bool) -> Result<Option<u64>, StoreError> {
        for entry in self.packs.iter().rev() {
            let (key, value) = entry?;
            let Some(pack) = parse_pack_key(&key) else {
                continue;
            };
            // No overflow: a pack key's ids fit a u64 (`parse_pack_key`).
            let base = first_id(pack);
            let last = match frame(&value) {
                Ok(slots) => slots
                    .iter()
                    .rposition(Option::is_some)
                    .map(|s| base + s as u64),
                Err(_) if !precise => Some(base + (PACK_IDS - 1)),
                Err(_) => {
                    let mut given = None;
                    for id in (base.max(1)..=base + (PACK_IDS - 1)).rev() {
                        if self.was_given_out(id)? {
                            given = Some(id);
                            break;
                        }
                    }
                    given
                }
            };
            if last.is_some() {
                return Ok(last);
            }
        }
        Ok(None)
    }

    /// Whether id `id` was given to a record, as the state index says (a
    /// record is in one state from its discovery on): for the ids of a
    /// pack that does not parse, which cannot say it. A block that does
    /// not read says yes, as it cannot tell.
    fn was_given_out(&self, id: u64) -> Result<bool, StoreError> {
        for state in State::ALL {
            if let Some(value) = self.by_state.get(state_key(state, block_of(id)))? {
                match Bitmap::decode(&value) {
                    Some(bits) if !bits.contains(id) => {}
                    _ => return Ok(true),
                }
            }
        }
        Ok(false)
    }

    /// Counts the state index: the repair path, a full scan of the state
    /// blocks. A block that does not read is rebuilt from its records
    /// first (`repair.rs`), so that one damaged entry neither keeps the
    /// log from opening nor goes on miscounting. The caller persists the
    /// result.
    fn recount(&self) -> Result<[u64; 7], StoreError> {
        self.repair_damaged_blocks(&self.by_state, STATE_BLOCKS)?;
        let mut counts = [0u64; 7];
        for entry in self.by_state.iter() {
            let (key, value) = entry?;
            // Repaired just now; passed over should it still not read.
            if let (Some((state, _)), Some(bits)) =
                (parse_state_block_key(&key), Bitmap::decode(&value))
            {
                counts[state as usize] += bits.len();
            }
        }
        Ok(counts)
    }

    /// Counts the frontier: ids in all its blocks, after rebuilding those
    /// that do not read (as [`UrlLog::recount`]).
    fn count_frontier(&self) -> Result<u64, StoreError> {
        self.repair_damaged_blocks(&self.frontier, FRONTIER_BLOCKS)?;
        let mut n = 0;
        for entry in self.frontier.iter() {
            let (key, value) = entry?;
            if parse_frontier_block_key(&key).is_some()
                && let Some(bits) = Bitmap::decode(&value)
            {
                n += bits.len();
            }
        }
        Ok(n)
    }

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

    /// The id of a URL already in the log. A URL index bucket that does
    /// not read is [`StoreError::BadEntry`] naming its key (the next write
    /// that meets it rebuilds it).
    pub fn id_of(&self, url: &str) -> Result<Option<u64>, StoreError> {
        self.indexed_id(url)
    }

    /// The record with id `id`; [`StoreError::Corrupt`] when its bytes do
    /// not decode.
    pub fn get(&self, id: u64) -> Result<Option<UrlRecord>, StoreError> {
        self.reader().get(id)
    }

    /// The stored bytes of record `id`, found in its pack; an `Err` slot
    /// when the pack does not parse.
    fn record_bytes(&self, id: u64) -> Result<Slot, StoreError> {
        PackReader::default().get(&self.packs, id)
    }

    /// A reader of records by id that keeps the last pack it read: for
    /// reading many ids in order (the crawler's window refilling from the
    /// frontier), where [`UrlLog::get`] would read and parse each pack
    /// once per record in it. Records written after it read their pack
    /// are not seen: make a new one after a write.
    pub fn reader(&self) -> RecordReader<'_> {
        RecordReader {
            log: self,
            packs: PackReader::default(),
        }
    }

    /// Records in the log.
    pub fn len(&self) -> u64 {
        self.counts().total()
    }

    /// Whether no URL has been recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Records per state, from memory (no disk access).
    pub fn counts(&self) -> StateCounts {
        StateCounts::from_array(std::array::from_fn(|i| {
            self.counts[i].load(Ordering::Relaxed)
        }))
    }

    /// Up to `limit` records the query lists with ids above `after`, in
    /// discovery order. With a state, only that state's index is walked;
    /// with a text filter, records are read until the page is full, so a
    /// rare match costs a long walk.
    pub fn page(
        &self,
        query: &Query,
        after: Option<u64>,
        limit: usize,
    ) -> Result<Vec<(u64, UrlRecord)>, StoreError> {
        let lo = after.map_or(Bound::Unbounded, Bound::Excluded);
        self.walk(query, (lo, Bound::Unbounded), false, limit)
    }

    /// Walks the records with ids in `(after, upto]` in id order, each as
    /// its [`Brief`], until `visit` returns false; damaged entries are
    /// passed over. Returns how many were visited. For walks over every
    /// URL: it reads the packed `briefs` tree (a log of the first layout,
    /// which had none, has them built from its records when it is
    /// migrated on open).
    pub fn scan_briefs(
        &self,
        after: Option<u64>,
        upto: Option<u64>,
        visit: impl FnMut(u64, Brief<'_>) -> bool,
    ) -> Result<u64, StoreError> {
        self.walk_packed_briefs(after, upto, visit)
    }

    /// [`UrlLog::scan_briefs`] through the records (no trace or error
    /// decoded): how a log of the first layout gets its briefs when it is
    /// migrated (`migrate.rs`). Keys that are not ids and records that do
    /// not decode are passed over.
    fn walk_record_briefs(
        &self,
        after: Option<u64>,
        upto: Option<u64>,
        mut visit: impl FnMut(u64, Brief<'_>) -> bool,
    ) -> Result<u64, StoreError> {
        let mut visited = 0;
        let Some((first, last)) = id_bounds(after, upto) else {
            return Ok(0);
        };
        for entry in Records::new(&self.packs, first, last, false) {
            // A damaged pack or record is passed over (damaged keys are
            // by `Records`): one bad entry must not end a walk over
            // millions, nor keep a layout 1 log from migrating (`get`
            // reports a damaged record when asked for).
            let (id, bytes) = match entry? {
                (id, Ok(Some(bytes))) => (id, bytes),
                _ => continue,
            };
            let Ok(brief) = brief::decode_brief(&bytes) else {
                continue;
            };
            visited += 1;
            if !visit(id, brief) {
                break;
            }
        }
        Ok(visited)
    }

    /// Walks the stored records with ids in `(after, upto]`, doing
    /// nothing with them but counting them and their bytes (found in
    /// their packs, not decoded): the floor under any walk over every URL,
    /// which the console benchmark measures.
    #[doc(hidden)]
    pub fn scan_raw(
        &self,
        after: Option<u64>,
        upto: Option<u64>,
    ) -> Result<(u64, u64), StoreError> {
        let (mut entries, mut bytes) = (0, 0);
        let Some((first, last)) = id_bounds(after, upto) else {
            return Ok((0, 0));
        };
        for entry in Records::new(&self.packs, first, last, false) {
            if let (_, Ok(Some(record))) = entry? {
                entries += 1;
                bytes += record.len() as u64;
            }
        }
        Ok((entries, bytes))
    }

    /// The highest id in the log (the latest discovery), if any. When
    /// the last pack does not parse, the last of its ids the state index
    /// has: ids never given out are not reported.
    pub fn last_id(&self) -> Result<Option<u64>, StoreError> {
        Ok(self.last_in_packs(true)?.filter(|id| *id > 0))
    }

    /// Up to `limit` records the query lists with ids below `before`, the
    /// newest first: following the tail of a running crawl.
    pub fn page_back(
        &self,
        query: &Query,
        before: Option<u64>,
        limit: usize,
    ) -> Result<Vec<(u64, UrlRecord)>, StoreError> {
        let hi = before.map_or(Bound::Unbounded, Bound::Excluded);
        self.walk(query, (Bound::Unbounded, hi), true, limit)
    }

    fn walk(
        &self,
        query: &Query,
        ids: (Bound<u64>, Bound<u64>),
        back: bool,
        limit: usize,
    ) -> Result<Vec<(u64, UrlRecord)>, StoreError> {
        let mut page = Vec::new();
        if limit == 0 {
            return Ok(page);
        }
        // The bounds as ids included; none when they exclude every id.
        let first = match ids.0 {
            Bound::Included(id) => Some(id),
            Bound::Excluded(id) => id.checked_add(1),
            Bound::Unbounded => Some(0),
        };
        let last = match ids.1 {
            Bound::Included(id) => Some(id),
            Bound::Excluded(id) => id.checked_sub(1),
            Bound::Unbounded => Some(u64::MAX),
        };
        let (Some(first), Some(last)) = (first, last) else {
            return Ok(page);
        };
        if first > last {
            return Ok(page);
        }
        // A missing record is passed over (an index entry without a
        // record cannot come from our transactions; skipping it keeps the
        // rest readable); a damaged one, or one in a damaged pack, ends
        // the page with an error naming it.
        let mut take = |id: u64, slot: Slot| -> Result<bool, StoreError> {
            let bytes = match slot {
                Ok(Some(bytes)) => bytes,
                Ok(None) => return Ok(false),
                Err(source) => return Err(StoreError::Corrupt { id, source }),
            };
            let record = decode(&bytes).map_err(|source| StoreError::Corrupt { id, source })?;
            if query.matches(&record) {
                page.push((id, record));
            }
            Ok(page.len() >= limit)
        };
        match query.state {
            Some(state) => {
                let lo = match ids.0 {
                    Bound::Included(id) | Bound::Excluded(id) => block_of(id),
                    Bound::Unbounded => 0,
                };
                let hi = match ids.1 {
                    Bound::Included(id) | Bound::Excluded(id) => block_of(id),
                    Bound::Unbounded => u64::MAX,
                };
                let range = self
                    .by_state
                    .range(state_key(state, lo)..=state_key(state, hi));
                let mut packs = PackReader::default();
                'blocks: for entry in directed(range, back) {
                    let (k, v) = entry?;
                    let bad = || StoreError::BadEntry {
                        tree: STATE_BLOCKS,
                        key: k.to_vec(),
                    };
                    let block = match parse_state_block_key(&k) {
                        Some((s, block)) if s == state => block,
                        _ => return Err(bad()),
                    };
                    let bits = Bitmap::decode(&v).ok_or_else(bad)?;
                    // Only the bits within the bounds: a page starting
                    // inside a block does not walk the bits before it.
                    let in_block = bits.ids_between(block, first, last);
                    let in_block: Vec<u64> = if back {
                        in_block.rev().collect()
                    } else {
                        in_block.collect()
                    };
                    for id in in_block {
                        // Consecutive ids of a state share packs: read once.
                        if take(id, packs.get(&self.packs, id)?)? {
                            break 'blocks;
                        }
                    }
                }
            }
            None => {
                for entry in Records::new(&self.packs, first, last, back) {
                    let (id, slot) = entry?;
                    // A pack that does not parse hides its records, but
                    // not ids never given out (the end of a last pack).
                    if slot.is_err() && !self.was_given_out(id)? {
                        continue;
                    }
                    if take(id, slot)? {
                        break;
                    }
                }
            }
        }
        Ok(page)
    }

    /// Up to `limit` ids waiting in queue (`level`, `queue`) after `after`,
    /// oldest first: how the crawler refills its in-memory queues.
    pub fn frontier(
        &self,
        level: u8,
        queue: u8,
        after: Option<u64>,
        limit: usize,
    ) -> Result<Vec<u64>, StoreError> {
        check_slot(level, queue)?;
        let Some(first) = after.map_or(Some(0), |id| id.checked_add(1)) else {
            return Ok(Vec::new());
        };
        let lo = frontier_block_key(level, queue, first);
        let hi = frontier_key(level, queue, u64::MAX);
        let mut ids = Vec::new();
        for entry in self.frontier.range(lo..=hi) {
            if ids.len() >= limit {
                break;
            }
            let (key, value) = entry?;
            let bad = || StoreError::BadEntry {
                tree: FRONTIER_BLOCKS,
                key: key.to_vec(),
            };
            let block = match parse_frontier_block_key(&key) {
                Some((l, q, block)) if (l, q) == (level, queue) => block,
                _ => return Err(bad()),
            };
            let bits = Bitmap::decode(&value).ok_or_else(bad)?;
            let room = limit - ids.len();
            ids.extend(bits.ids_between(block, first, u64::MAX).take(room));
        }
        Ok(ids)
    }

    /// Entries in the frontier, all queues.
    pub fn frontier_len(&self) -> u64 {
        self.frontier_len.load(Ordering::Relaxed)
    }

    /// Write transactions committed since the log was opened.
    pub fn transactions(&self) -> u64 {
        self.transactions.load(Ordering::Relaxed)
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

/// The ids in `(after, upto]` as an inclusive range; `None` when empty.
fn id_bounds(after: Option<u64>, upto: Option<u64>) -> Option<(u64, u64)> {
    let first = after.map_or(Some(0), |id| id.checked_add(1))?;
    let last = upto.unwrap_or(u64::MAX);
    (first <= last).then_some((first, last))
}

/// Forward or newest-first over a sled range.
fn directed(range: sled::Iter, back: bool) -> Box<dyn Iterator<Item = sled::Result<(IVec, IVec)>>> {
    if back {
        Box::new(range.rev())
    } else {
        Box::new(range)
    }
}

/// sled's database in `dir`, opened as [`UrlLog::open`] does: a panic in
/// sled is caught, and a lock still held by a database just dropped in
/// this process (sled's IO threads let go of its file a moment after the
/// drop) is waited for, for about a second, before it counts as another
/// process's.
fn open_sled(dir: &Path, cache_bytes: u64) -> std::thread::Result<sled::Result<sled::Db>> {
    let attempt = || {
        catch_unwind(AssertUnwindSafe(|| {
            sled::Config::new()
                .path(dir)
                .cache_capacity(cache_bytes)
                .open()
        }))
    };
    let mut opened = attempt();
    for _ in 0..20 {
        match &opened {
            Ok(Err(e)) if is_lock_conflict(e) => {
                std::thread::sleep(std::time::Duration::from_millis(50));
                opened = attempt();
            }
            _ => break,
        }
    }
    opened
}

/// sled wraps the lock failure in an `io::Error` of its own text.
fn is_lock_conflict(e: &sled::Error) -> bool {
    matches!(e, sled::Error::Io(io)
        if io.kind() == std::io::ErrorKind::WouldBlock
            || io.to_string().contains("could not acquire lock"))
}

/// Reads records by id, keeping the last pack read ([`UrlLog::reader`]).
pub struct RecordReader<'a> {
    log: &'a UrlLog,
    packs: PackReader,
}

impl std::fmt::Debug for RecordReader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordReader").finish_non_exhaustive()
    }
}

impl RecordReader<'_> {
    /// Drops the pack it keeps: after a write, which may have changed it.
    pub fn forget(&mut self) {
        self.packs = PackReader::default();
    }

    /// As [`UrlLog::get`].
    pub fn get(&mut self, id: u64) -> Result<Option<UrlRecord>, StoreError> {
        match self.packs.get(&self.log.packs, id)? {
            Ok(None) => Ok(None),
            Ok(Some(bytes)) => decode(&bytes)
                .map(Some)
                .map_err(|source| StoreError::Corrupt { id, source }),
            Err(source) => Err(StoreError::Corrupt { id, source }),
        }
    }
}
