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
}

/// Bytes of the packed value: nine u64 BE.
const PACKED_LEN: usize = 9 * 8;

impl Counters {
    /// The packed value: next id, frontier length, then the counts in
    /// state order.
    pub(crate) fn pack(&self) -> [u8; PACKED_LEN] {
        let mut out = [0; PACKED_LEN];
        let values = [self.next_id, self.frontier_len]
            .into_iter()
            .chain(self.counts);
        for (slot, value) in out.chunks_exact_mut(8).zip(values) {
            slot.copy_from_slice(&value.to_be_bytes());
        }
        out
    }

    /// Reads a packed value; `None` when it is not one (damage).
    pub(crate) fn unpack(bytes: &[u8]) -> Option<Counters> {
        if bytes.len() != PACKED_LEN {
            return None;
        }
        let mut values = bytes.chunks_exact(8).map(parse_id);
        let next_id = values.next()??;
        let frontier_len = values.next()??;
        let mut counts = [0; 7];
        for count in &mut counts {
            *count = values.next()??;
        }
        Some(Counters {
            next_id,
            frontier_len,
            counts,
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
        };
        let packed = counters.pack();
        assert_eq!(Counters::unpack(&packed), Some(counters));
        assert_eq!(Counters::unpack(&packed[1..]), None);
        assert_eq!(Counters::unpack(b"junk"), None);
        assert_eq!(Counters::unpack(&[]), None);
        let moved = counters.moved(Some(1_000_003), &[-2, 1, 0, 0, 0, 0, 0], -50);
        assert_eq!(moved.next_id, 1_000_003);
        assert_eq!(moved.counts[..2], [0, 3]);
        assert_eq!(moved.frontier_len, 0);
        assert_eq!(counters.moved(None, &[0; 7], 0), counters);
    }
}
