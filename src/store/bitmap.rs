//! Bitmaps of ids per block: the values of the state index and the
//! frontier since layout 4 (`index.rs`).
//!
//! Why: sled keeps a page-table entry and cache bookkeeping resident for
//! every tree page, and splits leaves at a few entries, so an index with an
//! entry per URL costs resident memory per URL and a sled key write per
//! move. One entry per block of [`BLOCK_IDS`] ids holds the same set in
//! about 1/4096 of the entries, and a batch that moves many ids of one
//! block writes that block once.
//!
//! A block is [`BLOCK_IDS`] bits, bit `id % BLOCK_IDS` for `id`. Stored
//! trimmed: the offset of the first non-zero byte (u16 BE), then the bytes
//! from it to the last non-zero byte. The front of a FIFO queue empties
//! and its tail fills, so the trimmed value is short at both ends; a block
//! with no id set is not stored at all (its key is deleted).

/// Ids per block: 512 bytes of bits at most. Large enough that a log of
/// 1,000,000 URLs has a few hundred entries per state, small enough that
/// rewriting a block on each move costs little next to sled's per
/// transaction cost.
pub(crate) const BLOCK_IDS: u64 = 4096;

const WORDS: usize = (BLOCK_IDS / 64) as usize;
const BYTES: usize = WORDS * 8;

/// The block of `id`.
pub(crate) fn block_of(id: u64) -> u64 {
    id / BLOCK_IDS
}

/// The ids of one block, as bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bitmap {
    words: Box<[u64; WORDS]>,
}

impl Default for Bitmap {
    fn default() -> Bitmap {
        Bitmap {
            words: Box::new([0; WORDS]),
        }
    }
}

impl Bitmap {
    /// Reads a stored value; `None` when it is not one (damage).
    pub(crate) fn decode(bytes: &[u8]) -> Option<Bitmap> {
        let (offset, rest) = bytes.split_first_chunk::<2>()?;
        let offset = usize::from(u16::from_be_bytes(*offset));
        if offset.checked_add(rest.len())? > BYTES {
            return None;
        }
        let mut bitmap = Bitmap::default();
        for (i, byte) in rest.iter().enumerate() {
            let at = offset + i;
            bitmap.words[at / 8] |= u64::from(*byte) << (8 * (at % 8));
        }
        Some(bitmap)
    }

    /// The stored value, trimmed of zero bytes at both ends; `None` when
    /// no bit is set (the key is deleted then).
    pub(crate) fn encode(&self) -> Option<Vec<u8>> {
        let bytes: Vec<u8> = self.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let first = bytes.iter().position(|b| *b != 0)?;
        let last = bytes.iter().rposition(|b| *b != 0)?;
        let mut out = Vec::with_capacity(2 + last + 1 - first);
        out.extend_from_slice(&(first as u16).to_be_bytes());
        out.extend_from_slice(&bytes[first..=last]);
        Some(out)
    }

    fn at(id: u64) -> (usize, u64) {
        let bit = (id % BLOCK_IDS) as usize;
        (bit / 64, 1 << (bit % 64))
    }

    /// Sets the bit of `id`; whether it was clear.
    pub(crate) fn insert(&mut self, id: u64) -> bool {
        let (word, mask) = Bitmap::at(id);
        let was_clear = self.words[word] & mask == 0;
        self.words[word] |= mask;
        was_clear
    }

    /// Clears the bit of `id`; whether it was set.
    pub(crate) fn remove(&mut self, id: u64) -> bool {
        let (word, mask) = Bitmap::at(id);
        let was_set = self.words[word] & mask != 0;
        self.words[word] &= !mask;
        was_set
    }

    pub(crate) fn contains(&self, id: u64) -> bool {
        let (word, mask) = Bitmap::at(id);
        self.words[word] & mask != 0
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }

    /// Ids set.
    pub(crate) fn len(&self) -> u64 {
        self.words.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// The ids set in block `block`, ascending.
    pub(crate) fn ids(&self, block: u64) -> Ids<'_> {
        self.ids_between(block, 0, u64::MAX)
    }

    /// The ids set in block `block` from `lo` to `hi` (both included,
    /// clamped to the block), ascending: a page that starts or ends inside
    /// a block starts at its bit rather than walking the bits before it.
    /// The caller keeps `block` at most `u64::MAX / BLOCK_IDS` (the block
    /// key parsers refuse the others).
    pub(crate) fn ids_between(&self, block: u64, lo: u64, hi: u64) -> Ids<'_> {
        let base = block.saturating_mul(BLOCK_IDS);
        let last = base.saturating_add(BLOCK_IDS - 1);
        let (lo, hi) = (lo.max(base), hi.min(last));
        if lo > hi {
            return Ids::empty(&self.words, base);
        }
        let (lo, hi) = ((lo - base) as usize, (hi - base) as usize);
        let (front, back) = (lo / 64, hi / 64);
        let from = u64::MAX << (lo % 64);
        let upto = u64::MAX >> (63 - hi % 64);
        let mut ids = Ids {
            words: &self.words,
            base,
            front,
            front_bits: self.words[front] & from,
            back,
            back_bits: self.words[back] & upto,
        };
        if front == back {
            ids.front_bits &= upto;
            ids.back_bits = ids.front_bits;
        }
        ids
    }
}

/// The set bits of a range of a block, found word by word with
/// `trailing_zeros` / `leading_zeros` rather than bit by bit, from either
/// end. When both ends are in one word, `front_bits` and `back_bits` are
/// that word's remaining bits, kept equal.
pub(crate) struct Ids<'a> {
    words: &'a [u64; WORDS],
    base: u64,
    front: usize,
    front_bits: u64,
    back: usize,
    back_bits: u64,
}

impl<'a> Ids<'a> {
    fn empty(words: &'a [u64; WORDS], base: u64) -> Ids<'a> {
        Ids {
            words,
            base,
            front: 0,
            front_bits: 0,
            back: 0,
            back_bits: 0,
        }
    }

    fn id(&self, word: usize, bit: u32) -> u64 {
        self.base.saturating_add(word as u64 * 64 + u64::from(bit))
    }
}

impl Iterator for Ids<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        loop {
            if self.front_bits != 0 {
                let bit = self.front_bits.trailing_zeros();
                self.front_bits &= self.front_bits - 1;
                if self.front == self.back {
                    self.back_bits = self.front_bits;
                }
                return Some(self.id(self.front, bit));
            }
            if self.front >= self.back {
                return None;
            }
            self.front += 1;
            self.front_bits = if self.front == self.back {
                self.back_bits
            } else {
                self.words[self.front]
            };
        }
    }
}

impl DoubleEndedIterator for Ids<'_> {
    fn next_back(&mut self) -> Option<u64> {
        loop {
            if self.back_bits != 0 {
                let bit = 63 - self.back_bits.leading_zeros();
                self.back_bits &= !(1 << bit);
                if self.front == self.back {
                    self.front_bits = self.back_bits;
                }
                return Some(self.id(self.back, bit));
            }
            if self.back <= self.front {
                return None;
            }
            self.back -= 1;
            self.back_bits = if self.back == self.front {
                self.front_bits
            } else {
                self.words[self.back]
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_round_trip_trimmed_and_in_order() {
        let block = 7;
        let base = block * BLOCK_IDS;
        let mut bitmap = Bitmap::default();
        assert_eq!(bitmap.encode(), None, "an empty block is not stored");
        for id in [base + 4095, base + 9, base + 64, base + 65] {
            assert!(bitmap.insert(id));
        }
        assert!(!bitmap.insert(base + 9), "already set");
        assert_eq!(bitmap.len(), 4);
        let ids: Vec<u64> = bitmap.ids(block).collect();
        assert_eq!(ids, [base + 9, base + 64, base + 65, base + 4095]);
        let back: Vec<u64> = bitmap.ids(block).rev().collect();
        assert_eq!(back, [base + 4095, base + 65, base + 64, base + 9]);
        let stored = bitmap.encode().unwrap();
        assert_eq!(Bitmap::decode(&stored), Some(bitmap.clone()));
        assert_eq!(stored.len(), 2 + BYTES - 1, "byte 1 to byte 511");
        assert!(bitmap.remove(base + 4095));
        assert!(!bitmap.remove(base + 4095));
        let stored = bitmap.encode().unwrap();
        assert_eq!(stored[..2], 1u16.to_be_bytes(), "starts at byte 1");
        assert_eq!(stored.len(), 2 + 8, "bytes 1 to 8");
        assert_eq!(Bitmap::decode(&stored), Some(bitmap.clone()));
        assert!(bitmap.contains(base + 64) && !bitmap.contains(base + 63));
        for id in [base + 9, base + 64, base + 65] {
            bitmap.remove(id);
        }
        assert!(bitmap.is_empty());
    }

    /// The word-by-word iterator against a bit-by-bit model, over ranges
    /// inside and across words, from both ends and meeting in the middle.
    #[test]
    fn ids_between_match_the_bits_from_both_ends() {
        let block = 3;
        let base = block * BLOCK_IDS;
        let mut bitmap = Bitmap::default();
        let set = [0, 1, 63, 64, 65, 127, 128, 700, 4094, 4095];
        for bit in set {
            bitmap.insert(base + bit);
        }
        for (lo, hi) in [
            (0, 4095),
            (1, 64),
            (2, 62),
            (63, 63),
            (64, 128),
            (65, 700),
            (129, 699),
            (4095, 4095),
            (100, 50),
        ] {
            let model: Vec<u64> = set
                .iter()
                .filter(|b| (lo..=hi).contains(*b))
                .map(|b| base + b)
                .collect();
            let got: Vec<u64> = bitmap.ids_between(block, base + lo, base + hi).collect();
            assert_eq!(got, model, "{lo}..={hi}");
            let back: Vec<u64> = bitmap
                .ids_between(block, base + lo, base + hi)
                .rev()
                .collect();
            assert!(back.iter().rev().eq(model.iter()), "{lo}..={hi} back");
            // Alternating ends yields each id once.
            let mut ids = bitmap.ids_between(block, base + lo, base + hi);
            let mut seen = Vec::new();
            while let Some(id) = if seen.len() % 2 == 0 {
                ids.next()
            } else {
                ids.next_back()
            } {
                seen.push(id);
            }
            seen.sort_unstable();
            assert_eq!(seen, model, "{lo}..={hi} both ends");
        }
        assert_eq!(bitmap.ids_between(block, 0, base - 1).count(), 0);
        assert_eq!(
            bitmap
                .ids_between(block, base + BLOCK_IDS, u64::MAX)
                .count(),
            0
        );
        assert_eq!(bitmap.ids(block).count(), set.len());
    }

    #[test]
    fn damaged_values_are_refused_without_panic() {
        let cases: [&[u8]; 5] = [
            &[],
            &[0],
            &[0x02, 0x00, 1],
            &[0x01, 0xff, 1, 2],
            &[0xff, 0xff],
        ];
        for bytes in cases {
            assert_eq!(Bitmap::decode(bytes), None, "{bytes:?}");
        }
        let full = [&[0u8, 0][..], &[0xff; BYTES][..]].concat();
        assert_eq!(Bitmap::decode(&full).map(|b| b.len()), Some(BLOCK_IDS));
        let too_long = [&full[..], &[1][..]].concat();
        assert_eq!(Bitmap::decode(&too_long), None);
        // An offset with nothing after it reads as an empty block.
        assert_eq!(Bitmap::decode(&[0, 3]).map(|b| b.is_empty()), Some(true));
    }
}
