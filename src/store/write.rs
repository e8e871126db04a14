//! Every write to the URL log: a batch of [`Change`]s applied in one sled
//! transaction, so the record, the URL index, the state index, the
//! frontier, the packed briefs (`briefs.rs`) and the counters move together
//! or not at all.
//!
//! Batching is also what makes writing fast. Sled 0.34 gives each
//! transaction a fixed cost of roughly 80 µs here (it rolls its IO buffer
//! twice to make the batch atomic on recovery), against a few µs per key
//! written inside it: a page's outcome and all its new links in one batch
//! cost about what one URL costs alone.
//!
//! Reads inside a transaction cost too, so `apply` avoids them: it holds
//! the writer lock from its checks to its notes, so the counters it keeps
//! in memory are the persisted ones, the URL index it reads before the
//! transaction is the one the transaction writes over (so the buckets a
//! batch changes are worked out beforehand: `url_index.rs`), a pack of
//! records it wrote lately (`packs.rs`) needs no read (the old state of a
//! record it rewrites is in its slot), and a state or frontier block it
//! wrote lately (`blocks.rs`) needs no read either. The records one batch
//! writes into a pack are one write of it, as are the moves of one batch
//! within a block.

use std::cell::Cell;
use std::collections::HashSet;
use std::sync::atomic::Ordering;

use sled::transaction::{ConflictableTransactionError, TransactionError, Transactional};

use super::blocks::{BlockKey, BlockWrites};
use super::brief::decode_brief;
use super::briefs::BriefWrites;
use super::counters::COUNTERS;
use super::packs::PackWrites;
use super::record::{State, UrlRecord, encode, header_state, stored_url};
use super::url_index::{IndexBatch, URL_BUCKETS};
use super::{LEVELS, QUEUE_NAMES, StoreError, UrlLog, Writer};

/// One write in an [`UrlLog::apply`] batch. Frontier slots are
/// `(level, queue)`: level 0 (`highest`) … 4 (`lowest`), queue an index
/// into [`QUEUE_NAMES`].
#[derive(Clone, Copy, Debug)]
pub enum Change<'a> {
    /// Record a newly met URL; when `enqueue` is set, also put it in that
    /// frontier queue. A URL already in the log (or earlier in the batch)
    /// is left alone and not enqueued.
    Discover {
        record: &'a UrlRecord,
        enqueue: Option<(u8, u8)>,
    },
    /// Replace record `id` (same URL), moving it between state indexes;
    /// when `enqueue` is set, also put it in that frontier queue.
    Update {
        id: u64,
        record: &'a UrlRecord,
        enqueue: Option<(u8, u8)>,
    },
    /// Put `id` in a frontier queue (no change if already there).
    Enqueue { id: u64, level: u8, queue: u8 },
    /// Take `id` out of a frontier queue (no change if not there).
    Dequeue { id: u64, level: u8, queue: u8 },
}

impl<'a> Change<'a> {
    /// Each of `records` (id, new record) replacing its record, none
    /// enqueued.
    pub fn updates(records: &'a [(u64, UrlRecord)]) -> impl Iterator<Item = Change<'a>> {
        records.iter().map(|(id, record)| Change::Update {
            id: *id,
            record,
            enqueue: None,
        })
    }
}

type TxResult<T> = Result<T, ConflictableTransactionError<StoreError>>;

/// Damaged entries one batch repairs before giving up: a batch touches
/// few blocks, so more than this is not damage a repair can keep up with.
const MAX_REPAIRS: usize = 16;

fn abort<T>(error: StoreError) -> TxResult<T> {
    Err(ConflictableTransactionError::Abort(error))
}

fn tx_error(error: TransactionError<StoreError>) -> StoreError {
    match error {
        TransactionError::Abort(e) => e,
        TransactionError::Storage(e) => e.into(),
    }
}

/// What a batch changes in the counts.
#[derive(Default)]
struct Delta {
    counts: [i64; 7],
    frontier: i64,
}

/// The old state of record `id` and its link depth when readable, from
/// its stored bytes `old_bytes` (as the batch has them so far: from the
/// batch, the writer's cached pack, or read). Refuses an update that
/// would change the URL.
///
/// When the old body cannot name its URL (damage), the URL index says
/// whether `id` is `record`'s URL, but it cannot be read in here (a range
/// read; and sled holds its lock over the closure): the update is
/// aborted as [`StoreError::UrlChanged`] with `id` in `unnamed`, and
/// `apply_locked` asks the index and runs the transaction again with `id`
/// in `verified` when the index names it. A body that names another URL
/// is refused at once, without asking the index: an update never changes
/// a record's URL.
fn old_of(
    old_bytes: &[u8],
    verified: &HashSet<u64>,
    unnamed: &Cell<Option<u64>>,
    id: u64,
    record: &UrlRecord,
) -> TxResult<(State, Option<u32>)> {
    // The header alone names the old state, so a record with a damaged
    // body can be rewritten.
    let old = match header_state(old_bytes) {
        Ok(state) => state,
        Err(source) => return abort(StoreError::Corrupt { id, source }),
    };
    // The old body's leading URL says whether the URL is the same, without
    // decoding the rest; when it cannot (a damaged body), the URL index
    // says (`verified`).
    let same_url = match stored_url(old_bytes) {
        Some(url) => url == record.url.as_bytes(),
        None => {
            unnamed.set(Some(id));
            verified.contains(&id)
        }
    };
    if !same_url {
        return abort(StoreError::UrlChanged {
            id,
            url: record.url.clone(),
        });
    }
    let depth = decode_brief(old_bytes).ok().map(|old| old.link_depth);
    Ok((old, depth))
}

/// Refuses a frontier slot outside 5 levels × 6 queues.
pub(super) fn check_slot(level: u8, queue: u8) -> Result<(), StoreError> {
    if level < LEVELS && usize::from(queue) < QUEUE_NAMES.len() {
        Ok(())
    } else {
        Err(StoreError::BadSlot { level, queue })
    }
}

fn encode_record(record: &UrlRecord) -> Result<Vec<u8>, StoreError> {
    encode(record).map_err(|e| StoreError::Encode {
        url: record.url.clone(),
        message: e.to_string(),
    })
}

impl UrlLog {
    /// Applies `changes` in order, in one transaction: all of them or, on
    /// any error, none. Returns one entry per change: for a discover, the
    /// new id (ids strictly increase in order of commit) or `None` when the
    /// URL was known; for the others, `Some(id)` when something changed.
    ///
    /// Crash safety comes from grouping: a fetched page's update and its
    /// new links (discovered with `enqueue`) in one batch; taking a URL to
    /// fetch as `Update` (in flight) plus `Dequeue` in one batch.
    ///
    /// A state or frontier block or a URL index bucket that does not read
    /// (damage) is rebuilt from the records (`repair.rs`,
    /// `url_index.rs`) and the batch tried again, a few times at most:
    /// rewriting the damaged value as it stands would lose the ids it
    /// held, and refusing every write that meets it would stop a crawl
    /// for one bad entry.
    pub fn apply(&self, changes: &[Change<'_>]) -> Result<Vec<Option<u64>>, StoreError> {
        let started = std::time::Instant::now();
        self.largest_batch
            .fetch_max(changes.len(), Ordering::Relaxed);
        let applied = self.apply_unmeasured(changes);
        let nanos = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.write_nanos.fetch_add(nanos, Ordering::Relaxed);
        applied
    }

    /// [`UrlLog::apply`] without its clock.
    fn apply_unmeasured(&self, changes: &[Change<'_>]) -> Result<Vec<Option<u64>>, StoreError> {
        // One writer at a time, from the checks below to the notes after
        // the commit: what it reads before the transaction and keeps in
        // memory stays true until its transaction is written.
        let mut writer = self.lock_writer();
        let mut repaired: Vec<Vec<u8>> = Vec::new();
        loop {
            match self.apply_locked(&mut writer, changes) {
                Err(StoreError::BadEntry { tree, key })
                    if UrlLog::repairable(tree)
                        && repaired.len() < MAX_REPAIRS
                        && !repaired.contains(&key) =>
                {
                    writer.blocks.clear();
                    self.repair(tree, &key)?;
                    if tree != URL_BUCKETS {
                        self.recount_after_repair(&mut writer)?;
                    }
                    repaired.push(key);
                }
                done => return done,
            }
        }
    }

    /// [`UrlLog::apply`] once, under the writer lock.
    fn apply_locked(
        &self,
        writer: &mut Writer,
        changes: &[Change<'_>],
    ) -> Result<Vec<Option<u64>>, StoreError> {
        // Everything that can fail without the database fails before the
        // transaction, and records are encoded once: sled may run the
        // closure more than once.
        let mut values = Vec::with_capacity(changes.len());
        // Whether every change is a discovery of a known URL: then there is
        // nothing to write.
        let mut all_known = true;
        // The id each new URL gets, and the URL index buckets the batch
        // changes (`url_index.rs`), all worked out here: the transaction
        // cannot read a range, and only writes them.
        let mut new_ids = vec![None; changes.len()];
        let mut next_id = writer.counters.next_id;
        let mut index = IndexBatch::new(&self.url_buckets, self.url_hash()?);
        for (i, change) in changes.iter().enumerate() {
            let (value, is_known) = match change {
                Change::Discover { record, enqueue } => {
                    if let Some((level, queue)) = enqueue {
                        check_slot(*level, *queue)?;
                    }
                    // URLs are never removed, so a URL found here (in the
                    // log, or earlier in the batch) is known for good: the
                    // common duplicate link costs one read and no
                    // transaction. One not found is not in the log when
                    // the transaction runs either (the writer lock).
                    let is_known = index.find_or_insert(&record.url, next_id)?.is_some();
                    let value = if is_known {
                        Vec::new()
                    } else {
                        new_ids[i] = Some(next_id);
                        next_id += 1;
                        encode_record(record)?
                    };
                    (value, is_known)
                }
                Change::Update {
                    record, enqueue, ..
                } => {
                    if let Some((level, queue)) = enqueue {
                        check_slot(*level, *queue)?;
                    }
                    (encode_record(record)?, false)
                }
                Change::Enqueue { level, queue, .. } | Change::Dequeue { level, queue, .. } => {
                    check_slot(*level, *queue)?;
                    (Vec::new(), false)
                }
            };
            values.push(value);
            all_known &= is_known;
        }
        if all_known {
            return Ok(vec![None; changes.len()]);
        }
        let index_writes = index.finish();
        let trees = (
            &self.packs,
            &self.url_buckets,
            &self.by_state,
            &self.frontier,
            &self.meta,
            &self.briefs,
        );
        let content_types = self.content_types_known();
        let before = writer.counters;
        let cached_packs = &writer.packs;
        let cached = &writer.blocks;
        // Ids the URL index confirmed for updates whose stored body could
        // not name its URL (`old_of`).
        let mut verified = HashSet::new();
        // The id of the last update whose stored body could not name its URL.
        let unnamed = Cell::new(None);
        let committed = loop {
            unnamed.set(None);
            let attempt =
                trees.transaction(|(packs, url_buckets, by_state, frontier, meta, briefs)| {
                    let mut brief_writes = BriefWrites::new(&content_types);
                    // Each pack, state and frontier block is read and written once.
                    let mut packs = PackWrites::new(cached_packs, packs, before.next_id);
                    let mut blocks = BlockWrites::new(cached, by_state, frontier);
                    let mut ids = vec![None; changes.len()];
                    let mut delta = Delta::default();
                    for (i, change) in changes.iter().enumerate() {
                        ids[i] = match *change {
                            Change::Discover { record, enqueue } => {
                                // Known, or met earlier in the batch: no id.
                                let Some(id) = new_ids[i] else {
                                    continue;
                                };
                                packs.put(id, values[i].as_slice())?;
                                blocks.insert(BlockKey::state(record.state, id), id)?;
                                delta.counts[record.state as usize] += 1;
                                // Counted only when the bit was clear: an id
                                // enqueued before it was discovered is in the
                                // frontier once.
                                if let Some((level, queue)) = enqueue
                                    && blocks.insert(BlockKey::frontier(level, queue, id), id)?
                                {
                                    delta.frontier += 1;
                                }
                                brief_writes.discovered(briefs, meta, id, record)?;
                                Some(id)
                            }
                            Change::Update {
                                id,
                                record,
                                enqueue,
                            } => {
                                // The old record as the batch has it so far:
                                // written earlier in it, in the writer's
                                // cached pack, or read.
                                let (old, old_depth) = match packs.stored(id)? {
                                    Some(old_bytes) => {
                                        old_of(old_bytes, &verified, &unnamed, id, record)?
                                    }
                                    None => return abort(StoreError::NotFound(id)),
                                };
                                packs.put(id, values[i].as_slice())?;
                                // A URL revived from a nofollow link comes back at
                                // the depth it was met again.
                                let depth_moved = old_depth != Some(record.link_depth);
                                brief_writes.updated(briefs, meta, id, record, depth_moved)?;
                                let new = record.state;
                                if old != new {
                                    blocks.remove(BlockKey::state(old, id), id)?;
                                    blocks.insert(BlockKey::state(new, id), id)?;
                                    delta.counts[old as usize] -= 1;
                                    delta.counts[new as usize] += 1;
                                }
                                if let Some((level, queue)) = enqueue
                                    && blocks.insert(BlockKey::frontier(level, queue, id), id)?
                                {
                                    delta.frontier += 1;
                                }
                                Some(id)
                            }
                            Change::Enqueue { id, level, queue } => blocks
                                .insert(BlockKey::frontier(level, queue, id), id)?
                                .then(|| {
                                    delta.frontier += 1;
                                    id
                                }),
                            Change::Dequeue { id, level, queue } => blocks
                                .remove(BlockKey::frontier(level, queue, id), id)?
                                .then(|| {
                                    delta.frontier -= 1;
                                    id
                                }),
                        };
                    }
                    for (key, value) in &index_writes {
                        url_buckets.insert(&key[..], value.as_slice())?;
                    }
                    let next = (next_id != before.next_id).then_some(next_id);
                    let after = before.moved(next, &delta.counts, delta.frontier);
                    // Counters are written once per batch, not once per change.
                    if after != before {
                        meta.insert(COUNTERS, &after.pack()[..])?;
                    }
                    let grown_table = brief_writes.finish(briefs, meta)?;
                    let touched = blocks.finish()?;
                    let written = packs.finish()?;
                    Ok((ids, after, grown_table, written, touched))
                });
            match attempt {
                Err(TransactionError::Abort(StoreError::UrlChanged { id, ref url }))
                    if unnamed.get() == Some(id)
                        && !verified.contains(&id)
                        && index.id_of(url)? == Some(id) =>
                {
                    verified.insert(id);
                }
                attempt => break attempt,
            }
        };
        let (ids, after, grown_table, written, touched) = match committed {
            Ok(committed) => committed,
            Err(e) => {
                // Nothing was written; forgetting is only caution.
                writer.packs.clear();
                writer.blocks.clear();
                return Err(tx_error(e));
            }
        };
        self.transactions.fetch_add(1, Ordering::Relaxed);
        self.note_known_urls(index.added());
        writer.counters = after;
        writer.blocks.note(touched);
        writer.packs.note(written);
        // Mirrors of what was just persisted, stored under the writer lock
        // so that two writers' stores land in commit order and the last
        // one stands; readers see each counter move on its own (`Relaxed`).
        for (count, n) in self.counts.iter().zip(after.counts) {
            count.store(n, Ordering::Relaxed);
        }
        self.frontier_len
            .store(after.frontier_len, Ordering::Relaxed);
        if let Some(table) = grown_table {
            self.learn_content_types(table);
        }
        Ok(ids)
    }

    /// Records a newly met URL: its id, or `None` when the URL is already
    /// in the log (then nothing is written).
    pub fn discover(&self, record: &UrlRecord) -> Result<Option<u64>, StoreError> {
        let ids = self.apply(&[Change::Discover {
            record,
            enqueue: None,
        }])?;
        Ok(ids.first().copied().flatten())
    }

    /// Replaces record `id`, keeping the state index and counts right. The
    /// URL must stay the same ([`StoreError::UrlChanged`]); the id must
    /// exist ([`StoreError::NotFound`]). A record whose stored body is
    /// damaged can be overwritten as long as its header is readable.
    pub fn update(&self, id: u64, record: &UrlRecord) -> Result<(), StoreError> {
        self.apply(&[Change::Update {
            id,
            record,
            enqueue: None,
        }])?;
        Ok(())
    }

    /// Puts `id` in frontier queue (`level`, `queue`); FIFO by id within
    /// the queue. Enqueueing an id already there changes nothing.
    pub fn enqueue(&self, id: u64, level: u8, queue: u8) -> Result<(), StoreError> {
        self.apply(&[Change::Enqueue { id, level, queue }])?;
        Ok(())
    }

    /// Takes `id` out of frontier queue (`level`, `queue`); an id not there
    /// changes nothing.
    pub fn dequeue(&self, id: u64, level: u8, queue: u8) -> Result<(), StoreError> {
        self.apply(&[Change::Dequeue { id, level, queue }])?;
        Ok(())
    }
}
