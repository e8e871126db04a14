//! The state index and frontier blocks a write transaction touches
//! (`bitmap.rs`), and the blocks the writer wrote lately.
//!
//! In a transaction every block is read at most once and written at most
//! once, however many of its ids the batch moves: [`BlockWrites`] gathers
//! the changes and [`BlockWrites::finish`] writes each changed block.
//!
//! Between transactions the writer keeps the blocks it last wrote
//! ([`Cached`]), so that the next move in them reads nothing. Why that can
//! be trusted is the argument of `written.rs`: every write to the two
//! trees goes through [`super::UrlLog::apply`] under the writer lock, which
//! notes what a transaction wrote only once it has committed and forgets
//! everything when one fails. A crawl works at a few places of the id
//! space (the tail it discovers, the front it fetches), so a few hundred
//! blocks cover it.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use super::StoreError;
use super::bitmap::{Bitmap, block_of};
use super::index::{frontier_key, state_key};
use super::record::State;

type TxResult<T> = Result<T, ConflictableTransactionError<StoreError>>;

/// Blocks the writer keeps between transactions: at most about 512 bytes
/// each, so at most about 300 KB.
const MAX_CACHED: usize = 512;

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
    fn bytes(self) -> Vec<u8> {
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
/// exactly as sled holds them (an empty bitmap: no key).
#[derive(Debug, Default)]
pub(super) struct Cached {
    blocks: HashMap<BlockKey, Bitmap>,
}

impl Cached {
    fn get(&self, key: BlockKey) -> Option<&Bitmap> {
        self.blocks.get(&key)
    }

    /// Notes what a committed transaction left in the blocks it touched.
    /// Past [`MAX_CACHED`] the older blocks are dropped, all at once: the
    /// ones a crawl needs next are the ones just written.
    pub(super) fn note(&mut self, touched: Vec<(BlockKey, Bitmap)>) {
        if self.blocks.len() + touched.len() > MAX_CACHED {
            self.blocks.clear();
        }
        if touched.len() > MAX_CACHED {
            return;
        }
        self.blocks.extend(touched);
    }

    /// Forgets everything: after a failed transaction, or when a test
    /// damages blocks behind the log's back.
    pub(super) fn clear(&mut self) {
        self.blocks.clear();
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.blocks.len()
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
    touched: HashMap<BlockKey, (Bitmap, bool)>,
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
            touched: HashMap::new(),
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
