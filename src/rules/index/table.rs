//! The hash table behind the per-field lookups (exact values, and the keys
//! looked up at each `/` and `.`), laid out so that a hit reads one cache
//! line of it.
//!
//! At 10,000 rules these tables are far larger than the data cache and
//! each lookup lands on a cold slot. A slot is 64 bytes, aligned to a cache
//! line, and holds the key (up to [`INLINE`] bytes, which covers hosts such
//! as `dept1234.corp-example.com` and prefixes such as
//! `https://news12.example.com/section/`) and what it means (one value in
//! place, more behind a pointer): with `compact_str` keys a slot was 48
//! bytes, half of them across two lines, and keys over 24 bytes were a
//! third line on the heap; keys over 38 bytes still read a second cache
//! line, from the heap. The caller gives the hash, so that the lookups
//! at each separator reuse the hash their walk builds anyway.

use hashbrown::HashTable;

use super::cuts::Few;

/// The longest key kept in its slot; longer keys live on the heap.
const INLINE: usize = 38;

/// A key, in its slot when short.
#[derive(Debug)]
enum Key {
    Inline { len: u8, bytes: [u8; INLINE] },
    Long(Box<[u8]>),
}

impl Key {
    fn new(key: &[u8]) -> Key {
        let mut bytes = [0; INLINE];
        match (bytes.get_mut(..key.len()), u8::try_from(key.len())) {
            (Some(slot), Ok(len)) => {
                slot.copy_from_slice(key);
                Key::Inline { len, bytes }
            }
            _ => Key::Long(key.into()),
        }
    }

    fn as_bytes(&self) -> &[u8] {
        match self {
            Key::Inline { len, bytes } => bytes.get(..usize::from(*len)).unwrap_or_default(),
            Key::Long(bytes) => bytes,
        }
    }
}

/// One slot: a cache line (for the values the index keeps, see the test).
#[derive(Debug)]
#[repr(align(64))]
struct Slot<T> {
    key: Key,
    values: Few<T>,
}

/// Keys (byte strings) and the values each one names.
#[derive(Debug)]
pub(super) struct Table<T> {
    slots: HashTable<Slot<T>>,
}

impl<T> Default for Table<T> {
    fn default() -> Table<T> {
        Table {
            slots: HashTable::new(),
        }
    }
}

impl<T: Copy> Table<T> {
    pub(super) fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Adds `value` to those `key` names; `hash` is how the caller hashes
    /// keys (the same for every key of the table).
    pub(super) fn insert(&mut self, key: &[u8], value: T, hash: impl Fn(&[u8]) -> u64) {
        let h = hash(key);
        match self
            .slots
            .entry(h, |s| s.key.as_bytes() == key, |s| hash(s.key.as_bytes()))
        {
            hashbrown::hash_table::Entry::Occupied(mut slot) => slot.get_mut().values.push(value),
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(Slot {
                    key: Key::new(key),
                    values: Few::One(value),
                });
            }
        }
    }

    /// The values `key` names; `hash` is the table's hash of `key`.
    #[inline]
    pub(super) fn get(&self, hash: u64, key: &[u8]) -> Option<&[T]> {
        self.slots
            .find(hash, |s| s.key.as_bytes() == key)
            .map(|s| s.values.as_slice())
    }

    /// The bytes of the keys (test-only).
    #[cfg(test)]
    pub(super) fn key_bytes(&self) -> usize {
        self.slots.iter().map(|s| s.key.as_bytes().len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Slot<u32>>(), 64);
        assert_eq!(std::mem::size_of::<Slot<super::super::Use>>(), 64);
    }

    #[test]
    fn short_and_long_keys_are_found() {
        let hash = |k: &[u8]| -> u64 { k.iter().map(|&b| u64::from(b)).sum() };
        let mut table = Table::default();
        let long = [b'a'; 100];
        let keys: [&[u8]; 5] = [b"", b"a", &long[..INLINE], &long[..INLINE + 1], &long];
        for (i, key) in keys.iter().enumerate() {
            table.insert(key, i, hash);
            table.insert(key, i + 10, hash);
        }
        for (i, key) in keys.iter().enumerate() {
            assert_eq!(table.get(hash(key), key), Some(&[i, i + 10][..]));
        }
        assert_eq!(table.get(hash(b"b"), b"b"), None);
        assert_eq!(table.get(hash(&long[..50]), &long[..50]), None);
    }
}
