//! The state index and frontier blocks a write transaction touches
//! (`bitmap.rs`), and the blocks the writer wrote lately.
//!
//! In a transaction every block is read at most once and written at most
//! once, however many of its ids the batch moves: [`BlockWrites`] gathers
//! the changes and [`BlockWrites::finish`] writes each changed block.
//!
//! Between transactions the writer keeps the blocks it last wrote
//! ([`Cached`]), so that the next move in them reads nothing. Why that can
//! be trusted: every write to the two
//! trees goes through [`super::UrlLog::apply`] under the writer lock, which
//! notes what a transaction wrote only once it has committed and forgets
//! everything when one fails. Two writers do write the trees outside
//! `apply`: the migration on open (`migrate.rs`), which runs before the
//! log is handed out and so before anything is cached, and the repair of
//! a damaged block (`repair.rs`), which runs under the writer lock and
//! forgets the cache. A crawl works at a few places of the id
//! space (the tail it discovers, the front it fetches), so a few hundred
//! blocks cover it.

use rustc_hash::FxHashMap;
use std::collections::hash_map::Entry;

use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use super::StoreError;
use super::bitmap::{Bitmap, block_of};
use super::generations::Generations;
use super::index::{frontier_key, state_key};
use super::record::State;

type TxResult<T> = Result<T, ConflictableTransactionError<StoreError>>;

/// Blocks per generation of the writer's cache: 512 bytes of bits each,
/// so two generations hold at most 512 KiB of bits.
const GENERATION: usize = 512;

/// One block of the state index or of a frontier queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum BlockKey {
    /// State, block number.
    State(State, u64),
    /// Level, queue, block number.
    Frontier(u8, u8, u64),
}

impl BlockKey {
    pub(super) fn state(state: State, id: u64) -> BlockKey {
        BlockKey::State(state, block_of(id))
    }

    pub(super) fn frontier(level: u8, queue: u8, id: u64) -> BlockKey {
        BlockKey::Frontier(level, queue, block_of(id))
    }

    /// The key in its tree (`state_blocks` or `frontier_blocks`).
    pub(super) fn bytes(self) -> Vec<u8> {
        match self {
            BlockKey::State(state, block) => state_key(state, block).to_vec(),
            BlockKey::Frontier(level, queue, block) => frontier_key(level, queue, block).to_vec(),
        }
    }

    fn tree_name(self) -> &'static str {
        match self {
            BlockKey::State(..) => "state_blocks",
            BlockKey::Frontier(..) => "frontier_blocks",
        }
    }
}

/// The blocks the writer last wrote or read in a committed transaction,
/// exactly as sled holds them (an empty bitmap: no key). Two generations
/// (`generations.rs`), so that the blocks a crawl keeps touching (the
/// tail it discovers into, the front it fetches from) survive a bound.
#[derive(Debug)]
pub(super) struct Cached(Generations<BlockKey, Bitmap>);

impl Default for Cached {
    fn default() -> Self {
        Cached(Generations::new(GENERATION))
    }
}

impl Cached {
    fn get(&self, key: BlockKey) -> Option<&Bitmap> {
        self.0.get(&key)
    }

    /// Notes what a committed transaction left in the blocks it touched.
    /// A note in the newer generation hides any older one of the same
    /// block, which goes when the older generation is dropped.
    pub(super) fn note(&mut self, touched: Vec<(BlockKey, Bitmap)>) {
        for (key, bits) in touched {
            self.0.insert(key, bits);
        }
    }

    /// Forgets everything: after a failed transaction, a repair, or when
    /// a test damages blocks behind the log's back.
    pub(super) fn clear(&mut self) {
        self.0.clear();
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }

    /// Every block noted, as [`Cached::get`] finds it, with its key in its
    /// tree: for the tests' check against sled.
    #[cfg(test)]
    pub(super) fn iter(&self) -> impl Iterator<Item = (BlockKey, Vec<u8>, &Bitmap)> + '_ {
        self.0.iter().map(|(key, bits)| (*key, key.bytes(), bits))
    }
}

/// Block `key` as stored; a value that is not a bitmap is
/// [`StoreError::BadEntry`].
fn read(tree: &TransactionalTree, key: BlockKey) -> TxResult<Bitmap> {
    let Some(bytes) = tree.get(key.bytes())? else {
        return Ok(Bitmap::default());
    };
    Bitmap::decode(&bytes).ok_or_else(|| {
        ConflictableTransactionError::Abort(StoreError::BadEntry {
            tree: key.tree_name(),
            key: key.bytes(),
        })
    })
}

/// The blocks one transaction touches, read once and written once.
pub(super) struct BlockWrites<'a> {
    cached: &'a Cached,
    by_state: &'a TransactionalTree,
    frontier: &'a TransactionalTree,
    /// Block, its bits as the batch left them, whether they changed.
    touched: FxHashMap<BlockKey, (Bitmap, bool)>,
}

impl<'a> BlockWrites<'a> {
    pub(super) fn new(
        cached: &'a Cached,
        by_state: &'a TransactionalTree,
        frontier: &'a TransactionalTree,
    ) -> BlockWrites<'a> {
        BlockWrites {
            cached,
            by_state,
            frontier,
            touched: FxHashMap::default(),
        }
    }

    /// The block as the batch has it so far: from the batch, the writer's
    /// cache, or read once. A value that is not a bitmap aborts the batch
    /// with [`StoreError::BadEntry`]: rewriting it would lose the ids it
    /// held.
    fn block(&mut self, key: BlockKey) -> TxResult<&mut (Bitmap, bool)> {
        match self.touched.entry(key) {
            Entry::Occupied(entry) => Ok(entry.into_mut()),
            Entry::Vacant(entry) => {
                let bits = match self.cached.get(key) {
                    Some(bits) => bits.clone(),
                    None => {
                        let tree = match key {
                            BlockKey::State(..) => self.by_state,
                            BlockKey::Frontier(..) => self.frontier,
                        };
                        read(tree, key)?
                    }
                };
                Ok(entry.insert((bits, false)))
            }
        }
    }

    /// Sets the bit of `id` in `key`'s block; whether it was clear.
    pub(super) fn insert(&mut self, key: BlockKey, id: u64) -> TxResult<bool> {
        let (bits, changed) = self.block(key)?;
        let was_clear = bits.insert(id);
        *changed |= was_clear;
        Ok(was_clear)
    }

    /// Clears the bit of `id` in `key`'s block; whether it was set.
    pub(super) fn remove(&mut self, key: BlockKey, id: u64) -> TxResult<bool> {
        let (bits, changed) = self.block(key)?;
        let was_set = bits.remove(id);
        *changed |= was_set;
        Ok(was_set)
    }

    /// Writes each changed block once (deleting the emptied ones) and
    /// returns every touched block for the writer's cache.
    pub(super) fn finish(self) -> TxResult<Vec<(BlockKey, Bitmap)>> {
        let mut touched = Vec::with_capacity(self.touched.len());
        for (key, (bits, changed)) in self.touched {
            if changed {
                let tree = match key {
                    BlockKey::State(..) => self.by_state,
                    BlockKey::Frontier(..) => self.frontier,
                };
                match bits.encode() {
                    Some(value) => tree.insert(key.bytes(), value)?,
                    None => tree.remove(key.bytes())?,
                };
            }
            touched.push((key, bits));
        }
        Ok(touched)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(id: u64) -> Bitmap {
        let mut bits = Bitmap::default();
        bits.insert(id);
        bits
    }

    /// A block noted again and again (the tail a crawl discovers into)
    /// stays cached while others come and go; the latest note wins.
    #[test]
    fn hot_blocks_survive_a_full_generation() {
        let mut cached = Cached::default();
        let hot = BlockKey::State(State::Queued, 0);
        cached.note(vec![(hot, bits(1))]);
        for block in 1..=3 * GENERATION as u64 {
            cached.note(vec![(BlockKey::State(State::Fetched, block), bits(block))]);
            if block % 100 == 0 {
                cached.note(vec![(hot, bits(block))]);
            }
        }
        assert_eq!(cached.get(hot), Some(&bits(1500)));
        assert!(cached.len() <= 2 * GENERATION);
        assert_eq!(cached.get(BlockKey::State(State::Fetched, 1)), None);
        let listed: Vec<_> = cached.iter().filter(|(key, _, _)| *key == hot).collect();
        assert_eq!(listed.len(), 1, "an older note of a block is not listed");
        assert_eq!(listed[0].2, &bits(1500));
        cached.clear();
        assert_eq!(cached.len(), 0);
    }
}
