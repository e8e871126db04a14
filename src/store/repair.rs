//! Rebuilding a damaged state block or frontier block from the records,
//! so that one damaged entry does not block writes, resume or open (an
//! entry per URL, before layout 4, never did: a damaged entry only hid
//! its own URL).
//!
//! The records say all the state index holds: each record's header names
//! its state. The frontier is rebuilt as
//! [`super::UrlLog::requeue_in_flight`] would put URLs back: each queued
//! record in the slot of its priority and queue ([`frontier_slot`]). A
//! URL the crawler had put in another slot is found in that one after a
//! repair; one queued but left out of the frontier is put in.
//!
//! Repairs write outside the write transaction, as the migration does:
//! a block is a set of ids the records determine, so writing it again is
//! idempotent and a crash between the repair and the write that needed it
//! loses nothing. Callers hold the writer lock (or run on open, alone)
//! and forget the blocks the writer cached.

use std::sync::atomic::Ordering;

use sled::Tree;

use super::bitmap::{BLOCK_IDS, Bitmap};
use super::counters::Counters;
use super::index::{
    FRONTIER_BLOCKS, STATE_BLOCKS, frontier_slot, parse_frontier_block_key, parse_state_block_key,
};
use super::packs::Records;
use super::record::{State, decode, header_state};
use super::url_index::URL_BUCKETS;
use super::{StoreError, UrlLog, Writer};

impl UrlLog {
    /// Rebuilds the damaged entry `error` names when it is a state block,
    /// a frontier block or a URL index bucket ([`StoreError::BadEntry`]),
    /// as a write that met it would; whether it did. For readers that met
    /// it (a refresh, `crawlspace log`): paging cannot go on past such an
    /// entry (it names no id), but can read it again once rebuilt.
    pub fn repair_damaged(&self, error: &StoreError) -> Result<bool, StoreError> {
        let StoreError::BadEntry { tree, key } = error else {
            return Ok(false);
        };
        if !UrlLog::repairable(tree) {
            return Ok(false);
        }
        let mut writer = self.lock_writer();
        writer.blocks.clear();
        self.repair(tree, key)?;
        if *tree != URL_BUCKETS {
            self.recount_after_repair(&mut writer)?;
        }
        Ok(true)
    }

    /// Whether a damaged entry of `tree` can be rebuilt by [`UrlLog::repair`].
    pub(super) fn repairable(tree: &str) -> bool {
        [STATE_BLOCKS, FRONTIER_BLOCKS, URL_BUCKETS].contains(&tree)
    }

    /// Rebuilds entry `key` of `tree` (a state block, a frontier block or
    /// a URL index bucket: `url_index.rs`) from the records. A key that
    /// names no block is removed: no read can reach the ids it held under
    /// another key.
    pub(super) fn repair(&self, tree: &str, key: &[u8]) -> Result<(), StoreError> {
        match tree {
            STATE_BLOCKS => match parse_state_block_key(key) {
                Some((state, block)) => self.rebuild_block(&self.by_state, key, block, |bytes| {
                    header_state(bytes).is_ok_and(|s| s == state)
                }),
                None => self.by_state.remove(key).map(|_| ()).map_err(Into::into),
            },
            FRONTIER_BLOCKS => match parse_frontier_block_key(key) {
                Some((level, queue, block)) => {
                    self.rebuild_block(&self.frontier, key, block, |bytes| {
                        decode(bytes).is_ok_and(|r| {
                            r.state == State::Queued
                                && frontier_slot(r.priority, &r.queue) == (level, queue)
                        })
                    })
                }
                None => self.frontier.remove(key).map(|_| ()).map_err(Into::into),
            },
            URL_BUCKETS => self.repair_url_bucket(key),
            _ => Ok(()),
        }
    }

    /// Writes block `block` of `tree` under `key`: the ids of its records
    /// that `holds` says belong there.
    fn rebuild_block(
        &self,
        tree: &Tree,
        key: &[u8],
        block: u64,
        holds: impl Fn(&[u8]) -> bool,
    ) -> Result<(), StoreError> {
        // `parse_*_block_key` refused blocks past the id space, so this
        // does not overflow.
        let first = block * BLOCK_IDS;
        let mut bits = Bitmap::default();
        for entry in Records::new(&self.packs, first, first + (BLOCK_IDS - 1), false) {
            // A damaged pack holds no record this can read (damaged
            // keys are passed over by `Records`).
            if let (id, Ok(Some(bytes))) = entry?
                && holds(&bytes)
            {
                bits.insert(id);
            }
        }
        match bits.encode() {
            Some(value) => tree.insert(key, value)?,
            None => tree.remove(key)?,
        };
        Ok(())
    }

    /// The counts and the frontier's length from the blocks again, after
    /// a repair under the writer lock: a rebuilt block need not hold what
    /// the damaged one was counted with (a frontier block is rebuilt from
    /// the records' slots). A scan of both block trees, a few entries per
    /// 4,096 ids: cheap next to the repair, and only on damage.
    pub(super) fn recount_after_repair(&self, writer: &mut Writer) -> Result<(), StoreError> {
        let counters = Counters::rebuilt(
            writer.counters.next_id,
            self.count_frontier()?,
            self.recount()?,
        );
        if counters != writer.counters {
            self.persist_counters(&counters)?;
            writer.counters = counters;
            for (atomic, n) in self.counts.iter().zip(counters.counts) {
                atomic.store(n, Ordering::Relaxed);
            }
            self.frontier_len
                .store(counters.frontier_len, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Repairs every entry of `tree` (`name`: state or frontier blocks)
    /// whose key or value does not read, and returns how many: on open,
    /// before counting them.
    pub(super) fn repair_damaged_blocks(
        &self,
        tree: &Tree,
        name: &'static str,
    ) -> Result<usize, StoreError> {
        let mut damaged = Vec::new();
        for entry in tree.iter() {
            let (key, value) = entry?;
            let key_reads = match name {
                STATE_BLOCKS => parse_state_block_key(&key).is_some(),
                _ => parse_frontier_block_key(&key).is_some(),
            };
            if !key_reads || Bitmap::decode(&value).is_none() {
                damaged.push(key);
            }
        }
        for key in &damaged {
            self.repair(name, key)?;
        }
        Ok(damaged.len())
    }
}
