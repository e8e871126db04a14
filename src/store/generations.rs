//! A map of what the writer wrote last, bounded by two generations.
//!
//! Entries go into the newer generation; when it holds `capacity` (or,
//! for a weighted map, its values weigh `max_weight`) and a new key
//! comes, it becomes the older one and the older is dropped. A key
//! the writer keeps touching is noted again into the newer generation and
//! survives, where emptying the whole map at a bound would drop the hot
//! entries with the cold ones. Used by the pack cache (`packs.rs`) and
//! the block cache (`blocks.rs`), the URLs met last (`url_index.rs`), and
//! the crawl engine's records read or written last (`Engine::recent`).

use rustc_hash::FxHashMap;
use std::hash::Hash;

#[derive(Debug)]
pub(crate) struct Generations<K, V> {
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
    pub(crate) fn new(capacity: usize) -> Self {
        Generations::weighted(capacity, usize::MAX, |_| 0)
    }

    /// At most `capacity` entries per generation, whose values weigh at
    /// most `max_weight` together (a single heavier value still goes in,
    /// alone).
    pub(crate) fn weighted(capacity: usize, max_weight: usize, weight: fn(&V) -> usize) -> Self {
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
    pub(crate) fn get(&self, key: &K) -> Option<&V> {
        self.newer.get(key).or_else(|| self.older.get(key))
    }

    /// Notes `value` for `key`; a note in the newer generation hides any
    /// older one of the same key, which goes with the older generation.
    pub(crate) fn insert(&mut self, key: K, value: V) {
        let weight = (self.weight)(&value);
        let replaced = self.newer.get(&key).map(self.weight);
        let kept = self.newer_weight - replaced.unwrap_or(0);
        let full =
            self.newer.len() >= self.capacity || kept.saturating_add(weight) > self.max_weight;
        if full && !self.newer.is_empty() && replaced.is_none() {
            // The older generation's table, emptied, is the newer one:
            // it has the room a generation needs, where a new table
            // would grow to it by rehashing every entry several times.
            std::mem::swap(&mut self.older, &mut self.newer);
            self.newer.clear();
            self.older_weight = std::mem::take(&mut self.newer_weight);
        } else {
            self.newer_weight = kept;
        }
        self.newer_weight += weight;
        self.newer.insert(key, value);
    }

    /// Like [`Generations::get`], and a value found only in the older
    /// generation is noted again in the newer one: a key met often
    /// survives the turn of the generations.
    pub(crate) fn renewed(&mut self, key: &K) -> Option<V>
    where
        K: Clone,
        V: Clone,
    {
        if let Some(value) = self.newer.get(key) {
            return Some(value.clone());
        }
        let value = self.older.get(key)?.clone();
        self.insert(key.clone(), value.clone());
        Some(value)
    }

    /// Takes `key`'s latest value out, forgetting any older one.
    pub(crate) fn remove(&mut self, key: &K) -> Option<V> {
        let older = self.older.remove(key);
        if let Some(value) = &older {
            self.older_weight -= (self.weight)(value);
        }
        let newer = self.newer.remove(key);
        if let Some(value) = &newer {
            self.newer_weight -= (self.weight)(value);
        }
        newer.or(older)
    }

    pub(crate) fn clear(&mut self) {
        self.newer.clear();
        self.older.clear();
        self.newer_weight = 0;
        self.older_weight = 0;
    }

    /// What the values of both generations weigh.
    #[cfg(test)]
    pub(crate) fn weight(&self) -> usize {
        self.newer_weight + self.older_weight
    }

    /// Entries held, counting a key noted in both generations twice.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.newer.len() + self.older.len()
    }

    /// Every key with its latest value.
    #[cfg(test)]
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&K, &V)> + '_ {
        let older = self
            .older
            .iter()
            .filter(|(key, _)| !self.newer.contains_key(key));
        self.newer.iter().chain(older)
    }
}

#[cfg(test)]
mod tests {
    use super::Generations;

    #[test]
    fn two_generations_bound_it_and_remove_takes_the_latest() {
        let mut map = Generations::weighted(2, usize::MAX, |v: &String| v.len());
        map.insert(1, "a".to_string());
        map.insert(2, "bb".to_string());
        // The newer generation is full: it becomes the older.
        map.insert(3, "ccc".to_string());
        assert_eq!(map.get(&1).map(String::as_str), Some("a"));
        // Noted again: in the newer generation, hiding the older note.
        map.insert(1, "dddd".to_string());
        assert_eq!((map.len(), map.weight()), (4, 10));
        assert_eq!(map.remove(&1).as_deref(), Some("dddd"));
        assert_eq!(map.get(&1), None);
        assert_eq!((map.len(), map.weight()), (2, 5));
        assert_eq!(map.remove(&2).as_deref(), Some("bb"));
        assert_eq!(map.remove(&2), None);
        // Two more generations: 3, 4 older, then dropped with them.
        for (key, value) in [(4, "e"), (5, "f"), (6, "g"), (7, "h")] {
            map.insert(key, value.to_string());
        }
        assert_eq!(map.get(&3), None);
        assert_eq!(map.get(&4), None);
        assert_eq!((map.len(), map.weight()), (3, 3));
    }

    /// At a turn the newer generation starts in the emptied table of the
    /// generation dropped, with the room it had: it does not grow again
    /// from nothing (the engine's generations hold 4,096 records each).
    #[test]
    fn a_turn_reuses_the_dropped_generations_table() {
        let mut map = Generations::new(64);
        for key in 0..=128 {
            map.insert(key, key);
        }
        // Two turns: 0-63 dropped, 64-127 older, 128 alone in the newer.
        assert_eq!(
            (map.get(&63), map.get(&64), map.get(&128)),
            (None, Some(&64), Some(&128))
        );
        assert_eq!(map.newer.len(), 1);
        assert!(map.newer.capacity() >= 64, "{}", map.newer.capacity());
    }

    /// A key found in the older generation is noted again in the newer
    /// one, and so survives the next turn; one left unread goes.
    #[test]
    fn a_key_met_again_survives_the_turn() {
        let mut map = Generations::new(2);
        for key in [1, 2, 3] {
            map.insert(key, key * 10);
        }
        // 1 and 2 are older now; 3 is newer.
        assert_eq!(map.renewed(&1), Some(10));
        assert_eq!(map.renewed(&3), Some(30));
        assert_eq!(map.renewed(&9), None);
        map.insert(4, 40);
        assert_eq!(map.get(&1), Some(&10), "renewed: in the newer generation");
        assert_eq!(map.get(&2), None, "left unread: dropped with the older one");
    }
}
