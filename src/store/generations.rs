//! A map of what the writer wrote last, bounded by two generations.
//!
//! Entries go into the newer generation; when it holds `capacity` (or,
//! for a weighted map, its values weigh `max_weight`) and a new key
//! comes, it becomes the older one and the older is dropped. A key
//! the writer keeps touching is noted again into the newer generation and
//! survives, where emptying the whole map at a bound would drop the hot
//! entries with the cold ones. Used by the pack cache (`packs.rs`) and
//! the block cache (`blocks.rs`).

use rustc_hash::FxHashMap;
use std::hash::Hash;

#[derive(Debug)]
pub(super) struct Generations<K, V> {
    capacity: usize,
    /// The most the values of one generation weigh (`weight` of each).
    max_weight: usize,
    weight: fn(&V) -> usize,
    newer: FxHashMap<K, V>,
    older: FxHashMap<K, V>,
    newer_weight: usize,
    older_weight: usize,
}

impl<K: Hash + Eq, V> Generations<K, V> {
    /// At most `capacity` entries per generation.
    pub(super) fn new(capacity: usize) -> Self {
        Generations::weighted(capacity, usize::MAX, |_| 0)
    }

    /// At most `capacity` entries per generation, whose values weigh at
    /// most `max_weight` together (a single heavier value still goes in,
    /// alone).
    pub(super) fn weighted(capacity: usize, max_weight: usize, weight: fn(&V) -> usize) -> Self {
        Generations {
            capacity,
            max_weight,
            weight,
            newer: FxHashMap::default(),
            older: FxHashMap::default(),
            newer_weight: 0,
            older_weight: 0,
        }
    }

    /// The latest value noted for `key`.
    pub(super) fn get(&self, key: &K) -> Option<&V> {
        self.newer.get(key).or_else(|| self.older.get(key))
    }

    /// Notes `value` for `key`; a note in the newer generation hides any
    /// older one of the same key, which goes with the older generation.
    pub(super) fn insert(&mut self, key: K, value: V) {
        let weight = (self.weight)(&value);
        let replaced = self.newer.get(&key).map(self.weight);
        let kept = self.newer_weight - replaced.unwrap_or(0);
        let full =
            self.newer.len() >= self.capacity || kept.saturating_add(weight) > self.max_weight;
        if full && !self.newer.is_empty() && replaced.is_none() {
            self.older = std::mem::take(&mut self.newer);
            self.older_weight = std::mem::take(&mut self.newer_weight);
        } else {
            self.newer_weight = kept;
        }
        self.newer_weight += weight;
        self.newer.insert(key, value);
    }

    pub(super) fn clear(&mut self) {
        self.newer.clear();
        self.older.clear();
        self.newer_weight = 0;
        self.older_weight = 0;
    }

    /// What the values of both generations weigh.
    #[cfg(test)]
    pub(super) fn weight(&self) -> usize {
        self.newer_weight + self.older_weight
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
