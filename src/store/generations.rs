//! A map of what the writer wrote last, bounded by two generations.
//!
//! Entries go into the newer generation; when it holds `capacity` and a
//! new key comes, it becomes the older one and the older is dropped. A key
//! the writer keeps touching is noted again into the newer generation and
//! survives, where emptying the whole map at a bound would drop the hot
//! entries with the cold ones. Used by the pack cache (`packs.rs`) and
//! the block cache (`blocks.rs`).

use std::collections::HashMap;
use std::hash::Hash;

#[derive(Debug)]
pub(super) struct Generations<K, V> {
    capacity: usize,
    newer: HashMap<K, V>,
    older: HashMap<K, V>,
}

impl<K: Hash + Eq, V> Generations<K, V> {
    /// At most `capacity` entries per generation.
    pub(super) fn new(capacity: usize) -> Self {
        Generations {
            capacity,
            newer: HashMap::new(),
            older: HashMap::new(),
        }
    }

    /// The latest value noted for `key`.
    pub(super) fn get(&self, key: &K) -> Option<&V> {
        self.newer.get(key).or_else(|| self.older.get(key))
    }

    /// Notes `value` for `key`; a note in the newer generation hides any
    /// older one of the same key, which goes with the older generation.
    pub(super) fn insert(&mut self, key: K, value: V) {
        if self.newer.len() >= self.capacity && !self.newer.contains_key(&key) {
            self.older = std::mem::take(&mut self.newer);
        }
        self.newer.insert(key, value);
    }

    pub(super) fn clear(&mut self) {
        self.newer.clear();
        self.older.clear();
    }

    /// Entries held, counting a key noted in both generations twice.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.newer.len() + self.older.len()
    }

    /// Every key with its latest value.
    #[cfg(test)]
    pub(super) fn iter(&self) -> impl Iterator<Item = (&K, &V)> + '_ {
        let older = self
            .older
            .iter()
            .filter(|(key, _)| !self.newer.contains_key(key));
        self.newer.iter().chain(older)
    }
}
