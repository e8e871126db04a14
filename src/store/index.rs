//! Key layout of the URL log's trees, in one place.
//!
//! Every integer in a key is big-endian so that sled's byte order is
//! numeric order: a range over keys is a range over ids, which is what
//! makes discovery-order paging and FIFO queues plain range scans.
//!
//! | tree       | key                                   | value                 |
//! |------------|---------------------------------------|-----------------------|
//! | `urls`     | id (u64 BE)                           | [`super::record`] codec |
//! | `by_url`   | URL bytes                             | id (u64 BE)           |
//! | `by_state` | state byte ++ id (u64 BE)             | empty                 |
//! | `frontier` | level byte ++ queue byte ++ id (u64 BE) | empty               |
//! | `briefs`   | `r` ++ first id, `s` ++ id / 256 (u64 BE) | runs of URLs, status blocks (`briefs.rs`) |
//! | `meta`     | `counters` (layout 3), or [`NEXT_ID`], [`FRONTIER_LEN`], `count/<state>` (layouts 1, 2); [`LAYOUT`], [`REFRESH_SINCE`] | u64 BE, `counters` nine of them (`counters.rs`); layout: one byte |

use super::record::State;

/// The id the next discovered URL gets. Ids start at 1 and are dense:
/// the counter moves in the same transaction as the record.
pub(crate) const NEXT_ID: &[u8] = b"next_id";
/// Entries in the `frontier` tree, kept with every enqueue and dequeue so
/// that [`super::UrlLog::frontier_len`] needs no scan.
pub(crate) const FRONTIER_LEN: &[u8] = b"frontier_len";
/// The key layout version, checked on open: a later layout must not be
/// read as this one.
pub(crate) const LAYOUT: &[u8] = b"layout";
/// When the refresh crawl under way started (ms since the Unix epoch);
/// absent when none is. A key added beside the others: builds that do not
/// know it ignore it, so the layout version stays.
pub(crate) const REFRESH_SINCE: &[u8] = b"refresh_since";
/// The layout this build writes for a new log: 3 packed the counters into
/// one `meta` key (`counters.rs`). Builds that read only layouts 1 and 2
/// refuse it, since they would read and write stale counters.
pub(crate) const LAYOUT_VERSION: u8 = 3;
/// The layout that added the `briefs` tree, with a `meta` key per
/// counter: still read and written as it is. Builds that read only layout
/// 1 refuse it, since their writes would leave `briefs` behind the records.
pub(crate) const LAYOUT_SEPARATE_COUNTERS: u8 = 2;
/// The first layout, without `briefs`: still read and written.
pub(crate) const LAYOUT_WITHOUT_BRIEFS: u8 = 1;

/// Priority levels in the frontier: 0 is `highest` … 4 is `lowest`.
pub const LEVELS: u8 = 5;
/// The queues of SPEC §2.2, in SPEC order: the frontier's queue bytes.
pub const QUEUE_NAMES: [&str; 6] = [
    "user",
    "redirect",
    "index",
    "index_follow",
    "follow",
    "refresh",
];

/// The frontier slot of a record's priority (Exalead shift −2…2, clamped)
/// and queue name, for re-queueing without the crawler's help. A queue
/// name outside [`QUEUE_NAMES`] (`none`, or damage) maps to `follow`, the
/// queue of plain discovered links, so that the URL is not lost.
pub fn frontier_slot(priority: i8, queue: &str) -> (u8, u8) {
    let level = (i16::from(priority) + 2).clamp(0, i16::from(LEVELS) - 1) as u8;
    let queue = QUEUE_NAMES.iter().position(|q| *q == queue).unwrap_or(4) as u8;
    (level, queue)
}

pub(crate) fn id_key(id: u64) -> [u8; 8] {
    id.to_be_bytes()
}

/// The id in an 8-byte key or value; `None` for any other length.
pub(crate) fn parse_id(bytes: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(bytes.try_into().ok()?))
}

pub(crate) fn state_key(state: State, id: u64) -> [u8; 9] {
    let mut key = [0; 9];
    key[0] = state.byte();
    key[1..].copy_from_slice(&id.to_be_bytes());
    key
}

pub(crate) fn parse_state_key(bytes: &[u8]) -> Option<(State, u64)> {
    let (state, id) = bytes.split_first()?;
    Some((State::from_byte(*state)?, parse_id(id)?))
}

pub(crate) fn frontier_key(level: u8, queue: u8, id: u64) -> [u8; 10] {
    let mut key = [0; 10];
    key[0] = level;
    key[1] = queue;
    key[2..].copy_from_slice(&id.to_be_bytes());
    key
}

pub(crate) fn parse_frontier_key(bytes: &[u8]) -> Option<(u8, u8, u64)> {
    match bytes {
        [level, queue, id @ ..] => Some((*level, *queue, parse_id(id)?)),
        _ => None,
    }
}

/// The `meta` key of one state's record count.
pub(crate) fn count_key(state: State) -> Vec<u8> {
    [b"count/", state.name().as_bytes()].concat()
}
