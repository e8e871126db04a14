//! Key layout of the URL log's trees, in one place.
//!
//! Every integer in a key is big-endian so that sled's byte order is
//! numeric order: a range over keys is a range over ids, which is what
//! makes discovery-order paging and FIFO queues plain range scans.
//!
//! | tree       | key                                   | value                 |
//! |------------|---------------------------------------|-----------------------|
//! | `record_packs` | id / 8 (u64 BE)                   | the records of those 8 ids, each in the [`super::record`] codec (`packs.rs`) |
//! | `url_buckets` | lowest top 64 bits of its fingerprints (u64 BE) | format byte ++ sorted (fingerprint: 16 bytes ++ id: 6 bytes BE) (`url_index.rs`) |
//! | `state_blocks` | state byte ++ id / 4096 (u64 BE)  | bitmap of that block's ids in that state (`bitmap.rs`) |
//! | `frontier_blocks` | level byte ++ queue byte ++ id / 4096 (u64 BE) | bitmap of that block's ids in that queue |
//! | `briefs`   | `r` ++ first id, `s` ++ id / 256 (u64 BE) | runs of URLs, status blocks (`briefs.rs`) |
//! | `meta`     | `counters` (layouts 3, 4, 6), or [`NEXT_ID`], [`FRONTIER_LEN`], `count/<state>` (layouts 1, 2); [`LAYOUT`], [`REFRESH_SINCE`], [`RULES_SEEN`]; `url_hash_key` (layout 6) | u64 BE (rules: UTF-8 text), `counters` ten of them (nine in layouts 3 and 4; `counters.rs`); layout: one byte; the URL index's 16-byte SipHash key |
//!
//! Layouts 1 to 3 kept an entry per URL instead of a bitmap per block, in
//! trees of other names: `by_state` (state byte ++ id → empty) and
//! `frontier` (level ++ queue ++ id → empty). Sled keeps resident memory
//! and a key write per entry, so layout 4 packs them; a log of an older
//! layout gets the bitmaps when it is opened (`migrate.rs`, on its way to
//! layout 6). The new trees have new names so that the two forms never
//! mix.
//!
//! Layouts 1 to 4 kept an entry per record in `urls` (id (u64 BE) →
//! record); layout 6 packs eight to an entry in `record_packs`, for the
//! same reason (`packs.rs`). They also kept an entry per URL in the URL
//! index, `by_url` (URL bytes → id, u64 BE); layout 6 packs it in
//! `url_buckets`, about 40 URLs to an entry, in buckets that split as
//! they fill (`url_index.rs`). A log of layouts 1 to 4 gets both when it
//! is opened (`migrate.rs`, `migrate_packs.rs`, `migrate_index.rs`), in
//! one migration with one write of the layout key at its end, and `urls`
//! and `by_url` are dropped after it.
//!
//! | layout | what it added |
//! |--------|---------------|
//! | 1 | `urls`, `by_url`, `by_state`, `frontier`, a `meta` key per counter |
//! | 2 | `briefs` |
//! | 3 | the counters packed in one `meta` key |
//! | 4 | `state_blocks` and `frontier_blocks` in place of `by_state` and `frontier` |
//! | 5 | tried and never kept: refused |
//! | 6 | `record_packs` in place of `urls`, `url_buckets` (and `meta` `url_hash_key`) in place of `by_url` |
//!
//! A layout 5 was committed and dropped in this repository's history (the
//! URL index in 2^18 fixed buckets under an unkeyed hash, records in
//! `urls`), and two branches later used 5 for the packs and the buckets
//! apart: a log that says 5 may be any of those, so it is refused like
//! a log that says 7 or more (an error, nothing dropped), never migrated.

use super::bitmap::{BLOCK_IDS, block_of};
use super::record::State;

/// Layouts 1 and 2 only: the id the next discovered URL got, a `meta`
/// key of its own. Since layout 3 it is packed with the other counters
/// (`counters.rs`); a migration reads it (it keeps the higher of it and
/// the id after the last record) and then removes it, and a `meta` that
/// still holds it with no `layout` key is taken for layout 1.
pub(crate) const NEXT_ID: &[u8] = b"next_id";
/// Layouts 1 and 2 only: the frontier's length, a `meta` key of its
/// own; packed with the other counters since layout 3, and removed by
/// the migration.
pub(crate) const FRONTIER_LEN: &[u8] = b"frontier_len";
/// The key layout version, checked on open: a later layout must not be
/// read as this one.
pub(crate) const LAYOUT: &[u8] = b"layout";
/// When the refresh crawl under way started (ms since the Unix epoch);
/// absent when none is. A key added beside the others: builds that do not
/// know it ignore it, so the layout version stays.
pub(crate) const REFRESH_SINCE: &[u8] = b"refresh_since";
/// The rules the log's verdicts were last reached by, as native TOML
/// (`rules_seen.rs`). Added beside the others like [`REFRESH_SINCE`].
pub(crate) const RULES_SEEN: &[u8] = b"rules_seen";
/// The layout this build reads and writes: 6 keeps the records eight to
/// an entry (`packs.rs`) and the URL index in hash buckets
/// (`url_index.rs`). Builds that read only layouts 1 to 4 refuse it,
/// since they would find `urls` and `by_url` empty.
pub(crate) const LAYOUT_VERSION: u8 = 6;
/// The layout with a record per entry in `urls`, an entry per URL in
/// `by_url` and the state index and frontier as bitmaps per block of ids
/// (`bitmap.rs`): its records are packed and its URL index rebuilt in
/// buckets on open.
pub(crate) const LAYOUT_BITMAPS: u8 = 4;
/// The layout with the counters packed in one `meta` key and an entry per
/// URL in `by_state` and `frontier`: migrated on open.
pub(crate) const LAYOUT_PACKED_COUNTERS: u8 = 3;
/// The layout that added the `briefs` tree, with a `meta` key per
/// counter: migrated on open.
pub(crate) const LAYOUT_SEPARATE_COUNTERS: u8 = 2;
/// The first layout, without `briefs`: migrated on open (its briefs are
/// built from the records).
pub(crate) const LAYOUT_WITHOUT_BRIEFS: u8 = 1;

/// Tree names of layout 4's state index and frontier.
pub(crate) const STATE_BLOCKS: &str = "state_blocks";
pub(crate) const FRONTIER_BLOCKS: &str = "frontier_blocks";
/// Tree name of the URL index of layouts 1 to 4: URL → id, an entry per
/// URL; dropped once the log is of layout 6.
pub(crate) const BY_URL: &str = "by_url";
/// Tree name of the records of layouts 1 to 4: id → record.
pub(crate) const OLD_URLS: &str = "urls";
/// Tree names of the per-URL state index and frontier of layouts 1 to 3.
pub(crate) const OLD_BY_STATE: &str = "by_state";
pub(crate) const OLD_FRONTIER: &str = "frontier";

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

/// A key of `urls` (layouts 1 to 4): the tests write old logs with it.
#[cfg(test)]
pub(crate) fn id_key(id: u64) -> [u8; 8] {
    id.to_be_bytes()
}

/// The id in an 8-byte key or value; `None` for any other length.
pub(crate) fn parse_id(bytes: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(bytes.try_into().ok()?))
}

/// A layout 1-3 `by_state` key; since layout 4, with the block number in
/// place of the id.
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

/// A layout 1-3 `frontier` key; since layout 4, with the block number in
/// place of the id.
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

/// The state and block number of a `state_blocks` key. A block number
/// above [`MAX_BLOCK`] is refused (damage): its ids would not fit a u64.
pub(crate) fn parse_state_block_key(bytes: &[u8]) -> Option<(State, u64)> {
    parse_state_key(bytes).filter(|(_, block)| *block <= MAX_BLOCK)
}

/// The last block whose ids all fit a u64.
pub(crate) const MAX_BLOCK: u64 = u64::MAX / BLOCK_IDS;

/// The `frontier_blocks` key of the block of `id` in a queue.
pub(crate) fn frontier_block_key(level: u8, queue: u8, id: u64) -> [u8; 10] {
    frontier_key(level, queue, block_of(id))
}

/// The level, queue and block number of a `frontier_blocks` key.
pub(crate) fn parse_frontier_block_key(bytes: &[u8]) -> Option<(u8, u8, u64)> {
    parse_frontier_key(bytes).filter(|(_, _, block)| *block <= MAX_BLOCK)
}

/// The `meta` key of one state's record count.
pub(crate) fn count_key(state: State) -> Vec<u8> {
    [b"count/", state.name().as_bytes()].concat()
}
