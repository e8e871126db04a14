//! The log's counters (next id, frontier length, records per state) and
//! where they live in `meta`.
//!
//! Layouts 1 and 2 kept each counter under a key of its own (`next_id`,
//! `frontier_len`, `count/<state>`); a transaction read and wrote each
//! one it changed, up to five keys. Since layout 3 all nine are packed into
//! one value under [`COUNTERS`], written whole by every transaction that
//! changes any, from the values the writer holds in memory (it is the
//! only writer: see `write.rs`), so a transaction reads none of them.
//! Older logs get theirs packed when they are migrated (`migrate.rs`).
//!
//! Layout 6 adds a tenth: the ids below the next id that no record holds
//! (`skipped`: the ids of a damaged last pack that an open had to count
//! as given out, or a next id kept above the last record's), so that the
//! counts plus it add up to exactly the ids given out, and open can tell
//! a count lowered by damage from a gap. A value of nine (layouts 3 and
//! 4) reads with none skipped.

use super::index::parse_id;

/// The `meta` key of the packed counters (layout 3).
pub(crate) const COUNTERS: &[u8] = b"counters";

/// The counters, in memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counters {
    /// The id the next discovered URL gets (ids start at 1).
    pub(crate) next_id: u64,
    pub(crate) frontier_len: u64,
    pub(crate) counts: [u64; 7],
    /// Ids below `next_id` in no state (see the module's comment).
    pub(crate) skipped: u64,
}

/// Bytes of the packed value: ten u64 BE.
const PACKED_LEN: usize = 10 * 8;

/// Bytes of the packed value of layouts 3 and 4: nine u64 BE, nothing
/// skipped.
const PACKED_LEN_NINE: usize = 9 * 8;

impl Counters {
    /// Counters rebuilt from the trees: the ids below `next_id` that the
    /// counts leave out are the skipped ones.
    pub(crate) fn rebuilt(next_id: u64, frontier_len: u64, counts: [u64; 7]) -> Counters {
        let sum = counts.iter().fold(0u64, |sum, n| sum.saturating_add(*n));
        Counters {
            next_id,
            frontier_len,
            counts,
            skipped: next_id.saturating_sub(1).saturating_sub(sum),
        }
    }

    /// Whether the counts plus the skipped ids are exactly the ids given
    /// out (below the next id); when not, a count was damaged.
    pub(crate) fn add_up(&self) -> bool {
        self.counts
            .iter()
            .try_fold(self.skipped, |sum, n| sum.checked_add(*n))
            == Some(self.next_id.saturating_sub(1))
    }

    /// The packed value: next id, frontier length, the counts in state
    /// order, then the skipped ids.
    pub(crate) fn pack(&self) -> [u8; PACKED_LEN] {
        let mut out = [0; PACKED_LEN];
        let values = [self.next_id, self.frontier_len]
            .into_iter()
            .chain(self.counts)
            .chain([self.skipped]);
        for (slot, value) in out.chunks_exact_mut(8).zip(values) {
            slot.copy_from_slice(&value.to_be_bytes());
        }
        out
    }

    /// Reads a packed value, of ten or (layouts 3 and 4) nine; `None`
    /// when it is not one (damage).
    pub(crate) fn unpack(bytes: &[u8]) -> Option<Counters> {
        if bytes.len() != PACKED_LEN && bytes.len() != PACKED_LEN_NINE {
            return None;
        }
        let mut values = bytes.chunks_exact(8).map(parse_id);
        let next_id = values.next()??;
        let frontier_len = values.next()??;
        let mut counts = [0; 7];
        for count in &mut counts {
            *count = values.next()??;
        }
        let skipped = match values.next() {
            Some(value) => value?,
            None => 0,
        };
        Some(Counters {
            next_id,
            frontier_len,
            counts,
            skipped,
        })
    }

    /// These counters moved by a committed batch's deltas; a counter
    /// never goes below zero.
    pub(crate) fn moved(&self, next_id: Option<u64>, counts: &[i64; 7], frontier: i64) -> Counters {
        let mut moved = *self;
        if let Some(next) = next_id {
            moved.next_id = next;
        }
        for (count, d) in moved.counts.iter_mut().zip(counts) {
            *count = count.saturating_add_signed(*d);
        }
        moved.frontier_len = moved.frontier_len.saturating_add_signed(frontier);
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_counters_round_trip_and_damage_is_refused() {
        let counters = Counters {
            next_id: 1_000_001,
            frontier_len: 42,
            counts: [1, 2, 3, 4, 5, 6, u64::MAX],
            skipped: 7,
        };
        let packed = counters.pack();
        assert_eq!(Counters::unpack(&packed), Some(counters));
        assert_eq!(Counters::unpack(&packed[1..]), None);
        // Nine values (layouts 3 and 4): nothing skipped.
        assert_eq!(
            Counters::unpack(&packed[..72]),
            Some(Counters {
                skipped: 0,
                ..counters
            })
        );
        assert_eq!(Counters::unpack(&packed[..71]), None);
        let rebuilt = Counters::rebuilt(11, 0, [1, 2, 3, 0, 0, 0, 0]);
        assert_eq!(rebuilt.skipped, 4);
        assert!(rebuilt.add_up());
        let lowered = Counters {
            counts: [1, 0, 3, 0, 0, 0, 0],
            ..rebuilt
        };
        assert!(!lowered.add_up());
        assert!(!counters.add_up());
        assert!(Counters::default().add_up());
        assert_eq!(Counters::unpack(b"junk"), None);
        assert_eq!(Counters::unpack(&[]), None);
        let moved = counters.moved(Some(1_000_003), &[-2, 1, 0, 0, 0, 0, 0], -50);
        assert_eq!(moved.next_id, 1_000_003);
        assert_eq!(moved.counts[..2], [0, 3]);
        assert_eq!(moved.frontier_len, 0);
        assert_eq!(counters.moved(None, &[0; 7], 0), counters);
    }
}
