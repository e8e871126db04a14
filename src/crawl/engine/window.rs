//! The in-memory frontier as a window on the persisted one, so that the
//! crawler's memory does not grow with the number of URLs waiting (issue 3:
//! "resident memory that does not grow with the number of known URLs beyond
//! sled's configured cache").
//!
//! Every queued URL is in the URL log's frontier index (written with its
//! discovery); at most [`WINDOW`] per queue and level are also held in
//! memory, where the scheduler picks from. Per slot (level, queue) the
//! window remembers the highest id it loaded: ids are given out in discovery
//! order, so everything above that id and still in the index is "on disk
//! only", and a refill reads the next ids after it. A new discovery goes
//! into memory only while its slot has nothing on disk (so that order is
//! kept) and room in the window. URLs that come back to memory after being
//! loaded (a retry, a robots.txt wait) are at or below the cursor and stay
//! in memory; a URL revived after nofollow is queued again under its old
//! id, which may lie beyond the cursor, so it goes through the window too
//! ([`Engine::queue_known`]).
//!
//! A record the index names that cannot be read, or whose URL does not
//! parse, is taken out of the index and logged, never a reason to stop.
//! New rules reach the URLs on disk by a walk over the index in the
//! coordinator: with a large backlog that walk takes a while (one read and
//! one evaluation per URL), during which no fetch outcome is handled.
//!
//! The price: hosts take turns among the URLs in memory only, so a slot's
//! window filled by one host waits on that host's politeness until it
//! drains below [`REFILL_BELOW`] and more hosts come in from disk.

use std::time::Instant;

use url::Url;

use super::super::frontier::{LEVELS, QUEUES};
use super::{Engine, Item, StartError};
use crate::rules::Verdict;
use crate::store::{RecordReader, StoreError, UrlRecord};

/// URLs held in memory per slot (level, queue).
pub(super) const WINDOW: usize = 2048;

/// A slot with fewer URLs in memory than this is refilled from disk.
pub(super) const REFILL_BELOW: usize = WINDOW / 4;

/// Ids read from the index per call when walking it.
const CHUNK: usize = 1000;

/// Per slot: the highest id loaded, whether the index may hold more, and
/// how many URLs this run put on disk only.
///
/// Nothing here counts a slot's backlog at start: counting means walking
/// the whole index, and sled keeps what it walks in memory (1,000,000
/// queued URLs cost 165 MB more that way). The total is exact anyway
/// (`UrlLog::frontier_len`); per queue, a backlog from before a restart
/// shows as it is loaded.
#[derive(Debug, Default)]
pub(super) struct Window {
    cursor: [[Option<u64>; 6]; LEVELS],
    more: [[bool; 6]; LEVELS],
    spilled: [[u64; 6]; LEVELS],
}

impl Window {
    /// Some slot may have URLs on disk only.
    pub(super) fn more_on_disk(&self) -> bool {
        self.more.iter().flatten().any(|m| *m)
    }

    /// URLs this run put on disk only and not loaded yet, per queue.
    pub(super) fn spilled_per_queue(&self) -> [u64; 6] {
        std::array::from_fn(|q| self.spilled.iter().map(|level| level[q]).sum())
    }
}

impl Engine {
    /// Loads the persisted frontier after a restart: each slot's first
    /// [`WINDOW`] URLs into memory; the rest is read as they drain.
    pub(super) fn load_window(&mut self) -> Result<(), StartError> {
        for level in 0..LEVELS {
            for q in 0..QUEUES.len() {
                self.window.more[level][q] = true;
                self.fill_slot(level, q)
                    .map_err(|e| StartError::Store(e.to_string()))?;
            }
        }
        Ok(())
    }

    /// Tops up the slots that ran low, from disk.
    pub(super) fn refill(&mut self) {
        for level in 0..LEVELS {
            for q in 0..QUEUES.len() {
                if self.window.more[level][q]
                    && self.frontier.slot_len(level, q) < REFILL_BELOW
                    && let Err(e) = self.fill_slot(level, q)
                {
                    self.say(&format!("URL log: {e}"));
                }
            }
        }
    }

    /// Loads the slot's next ids after its cursor until the window is full.
    fn fill_slot(&mut self, level: usize, q: usize) -> Result<(), StoreError> {
        let room = WINDOW.saturating_sub(self.frontier.slot_len(level, q));
        if room == 0 {
            return Ok(());
        }
        let after = self.window.cursor[level][q];
        let ids = self.log.frontier(level as u8, q as u8, after, room)?;
        // The ids come in order, mostly consecutive: one pack read for
        // each eight records rather than one for each.
        let log = self.log.clone();
        let mut records = log.reader();
        for &id in &ids {
            let cursor = &mut self.window.cursor[level][q];
            *cursor = Some(cursor.map_or(id, |c| c.max(id)));
            self.window.spilled[level][q] = self.window.spilled[level][q].saturating_sub(1);
            if let Some((host, item, record)) = self.item_from_log(&mut records, id, level, q) {
                let _ = self.frontier.push(level, QUEUES[q], host, item);
                // Read again when it is marked in flight, unless kept.
                self.recent.insert(id, record);
            }
        }
        if ids.len() < room {
            // The index has no more for this slot.
            self.window.more[level][q] = false;
            self.window.spilled[level][q] = 0;
        }
        Ok(())
    }

    /// The queued item for index entry `id` of slot (`level`, `q`), with its
    /// host; a record that cannot be used is taken out of the index (and
    /// reported) so that it is not read again and again.
    /// The record comes with it, for [`Engine::recent`] when the item is
    /// queued.
    fn item_from_log(
        &mut self,
        records: &mut RecordReader<'_>,
        id: u64,
        level: usize,
        q: usize,
    ) -> Option<(u32, Item, UrlRecord)> {
        let unusable = |engine: &mut Engine, records: &mut RecordReader<'_>, why: String| {
            engine.say(&format!(
                "URL log: queued id {id}: {why}; taken out of the queue"
            ));
            let out = crate::store::Change::Dequeue {
                id,
                level: level as u8,
                queue: q as u8,
            };
            engine.commit(&[out]);
            records.forget();
            None
        };
        let record = match records.get(id) {
            Ok(Some(record)) => record,
            Ok(None) => return unusable(self, records, "no record".into()),
            Err(e) => return unusable(self, records, e.to_string()),
        };
        let Ok(url) = Url::parse(&record.url) else {
            return unusable(self, records, format!("{:?} is not a URL", record.url));
        };
        let host = self.hosts.id(&url, Instant::now());
        let item = Item {
            id,
            url,
            link_depth: record.link_depth,
            hops: 0,
            level,
            queue: QUEUES[q],
            attempts: record.error.as_ref().map_or(0, |e| e.count),
            kind: super::web::kind_of(&record),
        };
        Some((host, item, record))
    }

    /// Queues a URL already in the index under an id that may lie beyond
    /// the window's cursor (revived after nofollow).
    pub(super) fn queue_known(&mut self, host: u32, item: Item) {
        let (level, q) = (item.level, slot_of(&item));
        if self.window.cursor[level][q].is_some_and(|c| item.id <= c) {
            let _ = self.frontier.push(level, item.queue, host, item);
        } else {
            self.queue_new(host, item);
        }
    }

    /// Queues a newly discovered (just persisted) URL: in memory when its
    /// slot has room and nothing older on disk (`true`), else it waits on
    /// disk.
    pub(super) fn queue_new(&mut self, host: u32, item: Item) -> bool {
        let (level, q) = (item.level, slot_of(&item));
        if !self.window.more[level][q] && self.frontier.slot_len(level, q) < WINDOW {
            let cursor = &mut self.window.cursor[level][q];
            *cursor = Some(cursor.map_or(item.id, |c| c.max(item.id)));
            let _ = self.frontier.push(level, item.queue, host, item);
            true
        } else {
            self.window.more[level][q] = true;
            self.window.spilled[level][q] += 1;
            false
        }
    }

    /// New rules for the URLs waiting on disk only: those they no longer
    /// fetch are handed to `drop` (which logs them and takes them out of
    /// the index), reading the index a chunk at a time.
    pub(super) fn filter_on_disk(&mut self, mut drop: impl FnMut(&mut Engine, Item, Verdict)) {
        let rules = self.rules.clone();
        let mut scratch = rules.scratch();
        for level in 0..LEVELS {
            for q in 0..QUEUES.len() {
                if !self.window.more[level][q] {
                    continue;
                }
                let mut after = self.window.cursor[level][q];
                loop {
                    let ids = match self.log.frontier(level as u8, q as u8, after, CHUNK) {
                        Ok(ids) => ids,
                        Err(e) => {
                            self.say(&format!("URL log: {e}"));
                            // Not all judged: new rules are not recorded.
                            self.log_failures += 1;
                            break;
                        }
                    };
                    let Some(&last) = ids.last() else { break };
                    after = Some(last);
                    let log = self.log.clone();
                    let mut records = log.reader();
                    for id in ids {
                        // The record is not kept: this walks the whole
                        // backlog, which would push out the marks waiting
                        // for their outcomes.
                        let Some((_, item, _)) = self.item_from_log(&mut records, id, level, q)
                        else {
                            continue;
                        };
                        let verdict = item.verdict_now(&rules, &mut scratch);
                        if verdict.fetch {
                            continue;
                        }
                        self.window.spilled[level][q] =
                            self.window.spilled[level][q].saturating_sub(1);
                        drop(self, item, verdict);
                        records.forget(); // `drop` writes the record
                    }
                }
            }
        }
    }
}

fn slot_of(item: &Item) -> usize {
    super::super::frontier::slot(item.queue).unwrap_or(0)
}
