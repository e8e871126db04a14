//! Opening the URL log: sled's database (a panic while sled recovers is
//! caught, a lock held a moment by a handle just dropped is waited for),
//! the migration of older key layouts, and the counts read back and
//! checked against what the log holds (recounted when they disagree).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::bitmap::{Bitmap, block_of};
use super::counters::{COUNTERS, Counters};
use super::generations::Generations;
use super::index::{
    BY_URL, FRONTIER_BLOCKS, LAYOUT, LAYOUT_BITMAPS, LAYOUT_PACKED_COUNTERS,
    LAYOUT_SEPARATE_COUNTERS, LAYOUT_VERSION, LAYOUT_WITHOUT_BRIEFS, NEXT_ID, OLD_BY_STATE,
    OLD_FRONTIER, OLD_URLS, STATE_BLOCKS, parse_frontier_block_key, parse_state_block_key,
    state_key,
};
use super::packs::{PACK_IDS, RECORD_PACKS, first_id, frame, parse_pack_key};
use super::url_index::{MAX_ID, URL_BUCKETS, URL_HASH_KEY};
use super::*;

impl UrlLog {
    /// Whether `dir` holds a database to open (a URL log, or one of an
    /// older layout that opening migrates), judged by sled's files alone:
    /// nothing is opened or created. For commands that only read a log,
    /// which must not turn any folder they are pointed at into one.
    pub fn exists_in(dir: &Path) -> bool {
        // sled 0.34 keeps its configuration in `conf` and its pages in `db`.
        dir.join("conf").is_file() && dir.join("db").is_file()
    }

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
            Ok(Err(e)) => return Err(failed(sled_words(&e))),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                return Err(failed(format!(
                    "its files are damaged (sled failed reading them: {what}); {DAMAGED_FIX}"
                )));
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
            largest_batch: AtomicUsize::new(0),
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
    pub(super) fn migrate_reporting(
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
    pub(super) fn unlabelled_layout(&self) -> Result<Option<u8>, StoreError> {
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
    pub(super) fn load_counts(&self) -> Result<(), StoreError> {
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
    pub(super) fn checked(&self, stored: Counters, damaged: bool) -> Result<Counters, StoreError> {
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
    pub(super) fn past_max_id(&self, after_last: u64) -> StoreError {
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
    pub(super) fn persist_counters(&self, counters: &Counters) -> Result<(), StoreError> {
        self.meta.insert(COUNTERS, &counters.pack()[..])?;
        Ok(())
    }

    /// The packed counters of layouts 3, 4 and 6 (all zero when missing: a new log),
    /// and whether the value did not read.
    pub(super) fn load_packed_counters(&self) -> Result<(Counters, bool), StoreError> {
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
    pub(super) fn id_after_last(&self) -> Result<u64, StoreError> {
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
    pub(super) fn last_in_packs(&self, precise: bool) -> Result<Option<u64>, StoreError> {
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
    pub(super) fn was_given_out(&self, id: u64) -> Result<bool, StoreError> {
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
    pub(super) fn recount(&self) -> Result<[u64; 7], StoreError> {
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
    pub(super) fn count_frontier(&self) -> Result<u64, StoreError> {
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
}

thread_local! {
    /// Set while this thread opens sled, whose panics on some damaged files
    /// are caught and reported as an error: see [`panic_is_expected`].
    static OPENING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a panic on this thread is one [`UrlLog::open`] catches and
/// reports itself: the binary's panic hook leaves such a panic's message
/// (a backtrace into sled) off the terminal, before the clear error.
pub fn panic_is_expected() -> bool {
    OPENING.with(std::cell::Cell::get)
}

/// sled's database in `dir`, opened as [`UrlLog::open`] does: a panic in
/// sled is caught, and a lock still held by a database just dropped in
/// this process (sled's IO threads let go of its file a moment after the
/// drop) is waited for, for about a second, before it counts as another
/// process's.
pub(super) fn open_sled(
    dir: &Path,
    cache_bytes: u64,
) -> std::thread::Result<sled::Result<sled::Db>> {
    let attempt = || {
        OPENING.with(|opening| opening.set(true));
        let opened = catch_unwind(AssertUnwindSafe(|| {
            sled::Config::new()
                .path(dir)
                .cache_capacity(cache_bytes)
                .open()
        }));
        OPENING.with(|opening| opening.set(false));
        opened
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
pub(super) fn is_lock_conflict(e: &sled::Error) -> bool {
    matches!(e, sled::Error::Io(io)
        if io.kind() == std::io::ErrorKind::WouldBlock
            || io.to_string().contains("could not acquire lock"))
}
