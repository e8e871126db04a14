//! Tests of the URL log on real sled databases in temporary folders, by
//! concept: the record and its codec, writes, paging, damage, crashes, the
//! briefs, migrations, record packs, the URL index, and one log at scale. Shared here: record builders and an invariant checker.

mod briefs;
mod crash;
mod damage;
mod migrate;
mod packs;
mod paging;
mod record;
mod scale;
mod url_index;
mod writes;

use std::path::Path;

use regex::Regex;
use tempfile::TempDir;

use super::bitmap::{Bitmap, block_of};
use super::counters::COUNTERS;
use super::index::{
    BY_URL, FRONTIER_BLOCKS, FRONTIER_LEN, LAYOUT, LAYOUT_VERSION, NEXT_ID, OLD_BY_STATE,
    OLD_FRONTIER, OLD_URLS, count_key, frontier_key, id_key, parse_frontier_block_key, parse_id,
    parse_state_block_key, state_key,
};
use super::packs::{RECORD_PACKS, pack_key, pack_of, slot_of};
use super::record::{FORMAT, decode, encode};
use super::url_index::{
    Bucket, MAX_ENTRIES, MAX_ID, URL_BUCKETS, URL_HASH_KEY, bucket_key, parse_bucket_key, top,
};
use super::*;

const CACHE: u64 = 16 << 20;

fn open(dir: &Path) -> UrlLog {
    UrlLog::open(&dir.join("db"), CACHE).expect("open")
}

fn fresh() -> (TempDir, UrlLog) {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = open(dir.path());
    (dir, log)
}

/// Damages record `id` behind the log's back, as a disk would: its slot
/// holds `bytes`, in a pack whose frame still parses. The writer's cache
/// of the packs it wrote lately (`packs.rs`) goes with it: it would still
/// say what the pack held, whereas damage on disk is met by a process
/// that has just opened the log, with nothing cached yet.
fn damage_record(log: &UrlLog, id: u64, bytes: Vec<u8>) {
    let mut slots = pack_slots(log, pack_of(id));
    slots[slot_of(id)] = Some(bytes);
    let value = super::packs::encode(slots.iter().map(Option::as_deref));
    damage_pack(log, pack_of(id), value);
}

/// Pack `pack`'s value replaced by `bytes` behind the log's back.
fn damage_pack(log: &UrlLog, pack: u64, bytes: Vec<u8>) {
    log.packs.insert(pack_key(pack), bytes).expect("damage");
    forget_writes(log);
}

/// The records of pack `pack` by slot, from a pack that parses.
fn pack_slots(log: &UrlLog, pack: u64) -> Vec<Option<Vec<u8>>> {
    let value = log.packs.get(pack_key(pack)).unwrap();
    let value = value.as_deref().unwrap_or(&[1, 0, 0, 0, 0, 0, 0, 0, 0]);
    let frame = super::packs::frame(value).expect("a pack that parses");
    frame
        .iter()
        .map(|slot| slot.map(|(start, end)| value[start..end].to_vec()))
        .collect()
}

/// Drops what the writer remembers of packs and blocks (`packs.rs`,
/// `blocks.rs`), as a test that writes behind the log's back must.
fn forget_writes(log: &UrlLog) {
    let mut writer = log.lock_writer();
    writer.packs.clear();
    writer.blocks.clear();
}

/// Every stored record as (id, bytes), in id order, from the packs.
fn stored_records(log: &UrlLog) -> Vec<(u64, Vec<u8>)> {
    super::packs::Records::new(&log.packs, 0, u64::MAX, false)
        .map(|entry| {
            let (id, slot) = entry.expect("pack key");
            let bytes = slot.unwrap_or_else(|e| panic!("pack of {id}: {e}"));
            (id, bytes.expect("listed records exist").to_vec())
        })
        .collect()
}

/// Every id in a bitmap tree, with its key's prefix (state byte, or level
/// and queue): the per-URL entries of layouts 1 to 3.
fn bitmap_ids(tree: &sled::Tree, prefix_len: usize) -> Vec<(Vec<u8>, u64)> {
    let mut ids = Vec::new();
    for entry in tree.iter() {
        let (key, value) = entry.unwrap();
        let block = parse_id(&key[prefix_len..]).expect("block number");
        let bits = Bitmap::decode(&value).expect("bitmap");
        for id in bits.ids(block) {
            ids.push((key[..prefix_len].to_vec(), id));
        }
    }
    ids
}

/// Every bucket of the URL index in key order, checked: the first has
/// key 0, each holds at most [`MAX_ENTRIES`], and each entry lies in its
/// bucket's range (from its key to the next bucket's).
fn url_buckets(log: &UrlLog) -> Vec<(u64, Bucket)> {
    let mut buckets: Vec<(u64, Bucket)> = Vec::new();
    for entry in log.url_buckets.iter() {
        let (key, value) = entry.unwrap();
        let key = parse_bucket_key(&key).expect("8-byte bucket key");
        let bucket = Bucket::decode(key, &value).expect("a bucket");
        assert!(
            bucket.0.len() <= MAX_ENTRIES,
            "bucket {key:#x} within the limit"
        );
        if let Some((previous, last)) = buckets.last() {
            let last_top = last.0.last().map_or(*previous, |(f, _)| top(*f));
            assert!(last_top < key, "bucket {previous:#x} ends below {key:#x}");
        } else {
            assert_eq!(key, 0, "the first bucket has key 0");
        }
        buckets.push((key, bucket));
    }
    buckets
}

/// Rewrites a log of this layout as the builds that wrote `layout` (1 to
/// 4) would have left it: an entry per record in `urls` and an entry per
/// URL in `by_url` (1 to 4) instead of the packs and the buckets, an
/// entry per URL in `by_state` and `frontier` (1 to 3), a `meta` key per
/// counter (1, 2), no briefs and no layout key (1). Record bytes are kept
/// as they are, damaged or not.
fn downgrade(log: &UrlLog, layout: u8) {
    let by_url = log.db.open_tree(BY_URL).unwrap();
    log.walk_record_briefs(None, None, |id, brief| {
        by_url.insert(brief.url.as_bytes(), &id_key(id)).unwrap();
        true
    })
    .unwrap();
    let urls = log.db.open_tree(OLD_URLS).unwrap();
    for (id, bytes) in stored_records(log) {
        urls.insert(id_key(id), bytes).unwrap();
    }
    log.packs.clear().unwrap();
    log.url_buckets.clear().unwrap();
    log.meta.remove(URL_HASH_KEY).unwrap();
    forget_writes(log);
    log.meta.insert(LAYOUT, &[layout][..]).unwrap();
    if layout == 4 {
        log.flush().unwrap();
        return;
    }
    let old_by_state = log.db.open_tree(OLD_BY_STATE).unwrap();
    for (state, id) in bitmap_ids(&log.by_state, 1) {
        let state = State::from_byte(state[0]).unwrap();
        old_by_state.insert(state_key(state, id), &[][..]).unwrap();
    }
    let old_frontier = log.db.open_tree(OLD_FRONTIER).unwrap();
    for (slot, id) in bitmap_ids(&log.frontier, 2) {
        let key = frontier_key(slot[0], slot[1], id);
        old_frontier.insert(key, &[][..]).unwrap();
    }
    log.by_state.clear().unwrap();
    log.frontier.clear().unwrap();
    forget_writes(log);
    log.meta.insert(LAYOUT, &[layout][..]).unwrap();
    if layout <= 2 {
        let counters = log.lock_writer().counters;
        log.meta.remove(COUNTERS).unwrap();
        let meta = &log.meta;
        meta.insert(NEXT_ID, &counters.next_id.to_be_bytes())
            .unwrap();
        meta.insert(FRONTIER_LEN, &counters.frontier_len.to_be_bytes())
            .unwrap();
        for state in State::ALL {
            let n = counters.counts[state as usize];
            meta.insert(count_key(state), &n.to_be_bytes()).unwrap();
        }
    }
    if layout == 1 {
        log.briefs.clear().unwrap();
        log.meta.remove(super::briefs::LAST_RUN).unwrap();
        log.meta.remove(super::briefs::CONTENT_TYPES).unwrap();
        log.meta.remove(LAYOUT).unwrap();
    }
    log.flush().unwrap();
}

/// Discovers `records` in batches of `batch`, none enqueued; the ids
/// given.
fn discover_records(log: &UrlLog, records: &[UrlRecord], batch: usize) -> Vec<Option<u64>> {
    let mut ids = Vec::new();
    for chunk in records.chunks(batch) {
        let changes: Vec<Change<'_>> = chunk
            .iter()
            .map(|record| Change::Discover {
                record,
                enqueue: None,
            })
            .collect();
        ids.extend(log.apply(&changes).unwrap());
    }
    ids
}

/// Discovers `http://{host}/0` to `http://{host}/{n - 1}`, queued, one
/// at a time.
fn discover_each(log: &UrlLog, host: &str, n: u64) {
    for i in 0..n {
        log.discover(&rec(&format!("http://{host}/{i}"), State::Queued))
            .unwrap();
    }
}

fn rec(url: &str, state: State) -> UrlRecord {
    UrlRecord {
        url: url.to_string(),
        state,
        reason: format!("{} by test", state.name()),
        queue: "follow".into(),
        ..UrlRecord::default()
    }
}

/// A record with every field set, to exercise the whole codec.
fn rich(url: &str) -> UrlRecord {
    UrlRecord {
        url: url.to_string(),
        state: State::Error,
        reason: "HTTP 503, retry 2 of 3".into(),
        fetch: true,
        save: true,
        follow: false,
        filtered: false,
        queue: "index".into(),
        priority: -2,
        link_depth: 7,
        referrer: Some(42),
        discovered_ms: 1_700_000_000_000,
        fetched_ms: Some(1_700_000_000_500),
        status: Some(503),
        content_type: Some("text/html".into()),
        size: Some(12_345),
        error: Some(ErrorInfo {
            class: ErrorClass::Temporary,
            count: 2,
            message: "Service Unavailable".into(),
        }),
        robots: Some("robots.txt line 4: Allow: /".into()),
        meta: vec![("lang".into(), "en".into()), ("lang".into(), "fr".into())],
        source: Some("intranet".into()),
        trace: vec![
            TraceLine {
                rule: "3.2".into(),
                name: "docs".into(),
                line: 12,
                step: "matched".into(),
                detail: "path prefix /docs".into(),
            },
            TraceLine {
                rule: "robots".into(),
                name: "robots.txt".into(),
                line: 4,
                step: "allowed".into(),
                detail: String::new(),
            },
        ],
        etag: Some("\"abc\"".into()),
        last_modified: Some("Tue, 15 Nov 1994 12:45:26 GMT".into()),
        redirect_to: None,
        saved_path: Some("mirror/host/index.html".into()),
        title: Some("Staff pages".into()),
        excerpt: Some("Who is who, without the noindex region".into()),
        address: None,
    }
}

fn ids(page: &[(u64, UrlRecord)]) -> Vec<u64> {
    page.iter().map(|(id, _)| *id).collect()
}

/// A log of 60 URLs whose states cycle, and the same as a plain list.
fn mixed_log() -> (TempDir, UrlLog, Vec<(u64, State)>) {
    let (dir, log) = fresh();
    let mut model = Vec::new();
    for i in 0..60u64 {
        let state = State::ALL[((i * i + i / 3) % 7) as usize];
        let id = log
            .discover(&rec(&format!("http://m/{i}"), state))
            .unwrap()
            .unwrap();
        model.push((id, state));
    }
    (dir, log, model)
}

/// Checks every invariant the transactions keep: records decode, ids are
/// dense, the URL and state indexes match the records exactly, the counts
/// match the state index, and frontier entries name records.
fn check_consistent(log: &UrlLog) {
    let mut counts = [0u64; 7];
    let mut records = 0u64;
    for key in log.packs.iter().keys() {
        super::packs::parse_pack_key(&key.unwrap()).expect("pack key");
    }
    for (id, value) in stored_records(log) {
        records += 1;
        assert_eq!(id, records, "ids are dense from 1");
        let record = decode(&value).unwrap_or_else(|e| panic!("record {id}: {e}"));
        assert_eq!(
            log.id_of(&record.url).unwrap(),
            Some(id),
            "URL index of {id}"
        );
        let block = log
            .by_state
            .get(state_key(record.state, block_of(id)))
            .unwrap()
            .and_then(|v| Bitmap::decode(&v))
            .expect("a state block for each record");
        assert!(block.contains(id), "record {id} in its state's block");
        counts[record.state as usize] += 1;
    }
    let indexed: usize = url_buckets(log).iter().map(|(_, b)| b.0.len()).sum();
    assert_eq!(
        indexed as u64, records,
        "the URL index has one entry per record"
    );
    for key in log.by_state.iter().keys() {
        parse_state_block_key(&key.unwrap()).expect("state block key");
    }
    assert_eq!(
        bitmap_ids(&log.by_state, 1).len() as u64,
        records,
        "the state index has one bit per record"
    );
    assert_eq!(log.counts(), StateCounts::from_array(counts));
    assert_eq!(log.len(), records);
    let mut frontier = 0;
    for key in log.frontier.iter().keys() {
        parse_frontier_block_key(&key.unwrap()).expect("frontier key");
    }
    for (_, id) in bitmap_ids(&log.frontier, 2) {
        assert!(id >= 1 && id <= records, "frontier names record {id}");
        frontier += 1;
    }
    assert_eq!(log.frontier_len(), frontier);
    // What the writer keeps of blocks (`blocks.rs`) is what sled holds:
    // a write trusts it instead of reading.
    for (key, bytes, cached) in log.lock_writer().blocks.iter() {
        let tree = match key {
            super::blocks::BlockKey::State(..) => &log.by_state,
            super::blocks::BlockKey::Frontier(..) => &log.frontier,
        };
        let stored = tree.get(&bytes).unwrap();
        assert_eq!(
            stored.as_deref(),
            cached.encode().as_deref(),
            "cached block {key:?} as sled holds it"
        );
    }
    // And so are the packs it keeps (`packs.rs`).
    for (pack, cached) in log.lock_writer().packs.iter() {
        let stored = log.packs.get(pack_key(pack)).unwrap();
        assert_eq!(stored.as_ref(), Some(cached), "cached pack {pack}");
    }
    let names = log.db.tree_names();
    for old in [OLD_BY_STATE, OLD_FRONTIER, OLD_URLS, BY_URL] {
        assert!(!names.iter().any(|n| n == old.as_bytes()), "{old} dropped");
    }
}

/// A text filter finds a URL by its readable form too: `café` in a
/// percent-encoded path, `bücher` in a punycode host.
#[test]
fn a_text_filter_reads_urls_as_people_write_them() {
    let matches = |pattern: &str, url: &str| {
        Query {
            text: Some(Regex::new(pattern).expect("regex")),
            ..Query::default()
        }
        .matches(&rec(url, State::Fetched))
    };
    assert!(matches("café", "http://h/caf%C3%A9.html"));
    assert!(matches("caf%C3%A9", "http://h/caf%C3%A9.html"));
    assert!(matches(
        "bücher\\.example/über",
        "http://xn--bcher-kva.example/%C3%BCber"
    ));
    assert!(!matches("café", "http://h/cafe.html"));
    // Bytes that are not UTF-8 decode lossily, and match nothing wrongly.
    assert!(!matches("é", "http://h/%E9"));
}
