//! Reading the URL log: a record by id or URL, pages of records in
//! order (by state through the state index, or every id), walks over the
//! briefs, the frontier's ids, and [`RecordReader`], which keeps the last
//! pack it read for readers that go through ids in order.

use std::ops::Bound;
use std::sync::atomic::Ordering;

use sled::IVec;

use super::bitmap::{Bitmap, block_of};
use super::index::{
    FRONTIER_BLOCKS, STATE_BLOCKS, frontier_block_key, frontier_key, parse_frontier_block_key,
    parse_state_block_key, state_key,
};
use super::packs::{PackReader, Records, Slot};
use super::record::decode;
use super::write::check_slot;
use super::*;

impl UrlLog {
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
    pub(super) fn record_bytes(&self, id: u64) -> Result<Slot, StoreError> {
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
    pub(super) fn walk_record_briefs(
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

    pub(super) fn walk(
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
}

/// The ids in `(after, upto]` as an inclusive range; `None` when empty.
pub(super) fn id_bounds(after: Option<u64>, upto: Option<u64>) -> Option<(u64, u64)> {
    let first = after.map_or(Some(0), |id| id.checked_add(1))?;
    let last = upto.unwrap_or(u64::MAX);
    (first <= last).then_some((first, last))
}

/// Forward or newest-first over a sled range.
pub(super) fn directed(
    range: sled::Iter,
    back: bool,
) -> Box<dyn Iterator<Item = sled::Result<(IVec, IVec)>>> {
    if back {
        Box::new(range.rev())
    } else {
        Box::new(range)
    }
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
