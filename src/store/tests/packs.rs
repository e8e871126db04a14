//! The records packed eight to a sled entry (`packs.rs`): a log of
//! 10,000 records reads exactly as a plain list of them, written through
//! the writer's pack cache or around it, and a damaged pack hides its
//! own records and nothing else.

use super::*;

const RECORDS: u64 = 10_000;

/// The state record `i` (0-based) is given, mixing runs and strides.
fn state_of(i: u64) -> State {
    State::ALL[((i * 5 + i / 17) % 7) as usize]
}

/// A log of [`RECORDS`] records in batches of 700 (batches end inside
/// packs), and the same as a list by id.
fn big_log() -> (TempDir, UrlLog, Vec<UrlRecord>) {
    let (dir, log) = fresh();
    let records: Vec<UrlRecord> = (0..RECORDS)
        .map(|i| UrlRecord {
            link_depth: (i % 4) as u32,
            ..rec(&format!("http://p{}/{i}", i % 13), state_of(i))
        })
        .collect();
    discover_records(&log, &records, 700);
    (dir, log, records)
}

/// Every read of the public API against `reference` (record of id
/// `i + 1` at `i`): each get, all records paged forward and back, each
/// state paged forward and back, pages of a size that is no multiple of
/// eight.
fn assert_reads_as(log: &UrlLog, reference: &[UrlRecord]) {
    for (i, expected) in reference.iter().enumerate() {
        let id = i as u64 + 1;
        assert_eq!(log.get(id).unwrap().as_ref(), Some(expected), "get {id}");
    }
    assert_eq!(log.get(0).unwrap(), None);
    assert_eq!(log.get(reference.len() as u64 + 1).unwrap(), None);
    // One reader for every id, as the crawler's window reads them: the
    // pack it keeps serves eight ids in a row, then the next is read.
    let mut reader = log.reader();
    for (i, expected) in reference.iter().enumerate() {
        let id = i as u64 + 1;
        assert_eq!(
            reader.get(id).unwrap().as_ref(),
            Some(expected),
            "reader {id}"
        );
    }
    assert_eq!(reader.get(reference.len() as u64 + 1).unwrap(), None);
    assert_eq!(reader.get(3).unwrap().as_ref(), reference.get(2), "back");
    assert_eq!(log.last_id().unwrap(), Some(reference.len() as u64));
    let all: Vec<(u64, UrlRecord)> = reference
        .iter()
        .enumerate()
        .map(|(i, r)| (i as u64 + 1, r.clone()))
        .collect();
    let mut queries = vec![Query::default()];
    queries.extend(State::ALL.map(|state| Query {
        state: Some(state),
        ..Query::default()
    }));
    for query in &queries {
        let expected: Vec<(u64, UrlRecord)> = all
            .iter()
            .filter(|(_, r)| query.matches(r))
            .cloned()
            .collect();
        let (mut forward, mut after) = (Vec::new(), None);
        loop {
            let page = log.page(query, after, 333).unwrap();
            let Some(&(last, _)) = page.last() else {
                break;
            };
            after = Some(last);
            forward.extend(page);
        }
        assert!(forward == expected, "forward, {:?}", query.state);
        let (mut back, mut before) = (Vec::new(), None);
        loop {
            let page = log.page_back(query, before, 251).unwrap();
            let Some(&(last, _)) = page.last() else {
                break;
            };
            before = Some(last);
            back.extend(page);
        }
        back.reverse();
        assert!(back == expected, "back, {:?}", query.state);
    }
    let (records, _) = log.scan_raw(None, None).unwrap();
    assert_eq!(records, reference.len() as u64);
    assert_eq!(log.scan_raw(Some(5), Some(21)).unwrap().0, 16);
}

#[test]
fn ten_thousand_records_read_as_a_list_of_them() {
    let (_dir, log, records) = big_log();
    assert_eq!(log.packs.len() as u64, RECORDS / 8 + 1, "a key per 8 ids");
    assert_reads_as(&log, &records);
    check_consistent(&log);
}

/// Updates in packs the writer has cached (written just now) and in
/// packs it has not (after reopening, and past the cache's bound),
/// several to one pack in a batch, one record twice: the log reads as the
/// reference after each, and after reopening.
#[test]
fn updates_in_cached_and_uncached_packs() {
    let (dir, log, mut reference) = big_log();
    let update = |log: &UrlLog, reference: &mut Vec<UrlRecord>, ids: &[u64], round: u64| {
        let changed: Vec<(u64, UrlRecord)> = ids
            .iter()
            .map(|&id| {
                let mut record = reference[(id - 1) as usize].clone();
                record.state = State::ALL[((id + round) % 7) as usize];
                record.reason = format!("round {round}");
                record.title = Some("x".repeat((id % 50) as usize));
                (id, record)
            })
            .collect();
        log.apply(&Change::updates(&changed).collect::<Vec<_>>())
            .unwrap();
        for (id, record) in changed {
            reference[(id - 1) as usize] = record;
        }
    };
    // The tail: cached from the discoveries.
    update(
        &log,
        &mut reference,
        &[RECORDS, RECORDS - 1, RECORDS - 9],
        1,
    );
    // The front: long out of the cache. A whole pack and a record twice.
    let pack: Vec<u64> = (8..16).collect();
    update(&log, &mut reference, &pack, 2);
    update(&log, &mut reference, &[1, 3, 3, 17], 3);
    assert_reads_as(&log, &reference);
    check_consistent(&log);
    // Reopened: nothing cached, every pack read once.
    drop(log);
    let log = open(dir.path());
    update(&log, &mut reference, &[9, 10, 5_000, RECORDS], 4);
    // Again in the same packs: from the cache now.
    update(&log, &mut reference, &[11, 5_001, RECORDS - 2], 5);
    // Spread over more packs than the cache holds.
    let spread: Vec<u64> = (1..=RECORDS).step_by(3).collect();
    for chunk in spread.chunks(500) {
        update(&log, &mut reference, chunk, 6);
    }
    update(&log, &mut reference, &[2, 4, RECORDS], 7);
    assert_reads_as(&log, &reference);
    check_consistent(&log);
    // Discoveries after reopening go on in the last pack.
    let new = rec("http://p/new", State::Queued);
    assert_eq!(log.discover(&new).unwrap(), Some(RECORDS + 1));
    reference.push(new);
    drop(log);
    let log = open(dir.path());
    assert_reads_as(&log, &reference);
    check_consistent(&log);
}

/// A pack whose frame does not parse hides its eight records and no
/// other: each is `Corrupt` when read, paging stops at it and goes on
/// past it, a write into it is refused (rewriting it would lose the
/// others), the rest of the log is written as usual, and open gives out
/// no id of it again.
#[test]
fn a_damaged_pack_hides_its_eight_records_only() {
    let (dir, log) = fresh();
    discover_each(&log, "d", 30);
    damage_pack(&log, 1, b"\x01\xff\xff".to_vec());
    for id in 8..16 {
        assert!(
            matches!(log.get(id), Err(StoreError::Corrupt { id: i, source: DecodeError::Pack(_) }) if i == id),
            "get {id}"
        );
    }
    assert_eq!(log.get(7).unwrap().unwrap().url, "http://d/6");
    assert_eq!(log.get(16).unwrap().unwrap().url, "http://d/15");
    let all = Query::default();
    let queued = Query {
        state: Some(State::Queued),
        ..Query::default()
    };
    for query in [&all, &queued] {
        assert!(matches!(
            log.page(query, None, 100),
            Err(StoreError::Corrupt { id: 8, .. })
        ));
        assert!(matches!(
            log.page_back(query, None, 100),
            Err(StoreError::Corrupt { id: 15, .. })
        ));
        assert_eq!(
            ids(&log.page(query, None, 7).unwrap()),
            (1..=7).collect::<Vec<_>>()
        );
        assert_eq!(
            ids(&log.page(query, Some(15), 100).unwrap()),
            (16..=30).collect::<Vec<_>>()
        );
        assert!(matches!(
            log.page(query, Some(8), 100),
            Err(StoreError::Corrupt { id: 9, .. })
        ));
        assert_eq!(
            ids(&log.page_back(query, Some(8), 100).unwrap()),
            (1..=7).rev().collect::<Vec<_>>()
        );
    }
    let mut moved = rec("http://d/9", State::Fetched);
    assert!(matches!(
        log.update(10, &moved),
        Err(StoreError::Corrupt { id: 10, .. })
    ));
    moved.url = "http://d/20".into();
    log.update(21, &moved).unwrap();
    assert_eq!(log.counts().fetched, 1);
    // Walks over every URL pass it over (briefs are their own tree).
    assert_eq!(log.scan_briefs(None, None, |_, _| true).unwrap(), 30);
    assert_eq!(log.scan_raw(None, None).unwrap().0, 22);

    // The last pack damaged (ids 24 to 31, records up to 30): its ids
    // are not given out again, and an id it never held (31) is neither
    // the last id nor a damaged record when paging back from the end.
    damage_pack(&log, 3, b"junk".to_vec());
    drop(log);
    let log = open(dir.path());
    assert_eq!(log.last_id().unwrap(), Some(30));
    assert!(matches!(
        log.page_back(&all, None, 100),
        Err(StoreError::Corrupt { id: 30, .. })
    ));
    assert!(matches!(
        log.page(&all, Some(29), 100),
        Err(StoreError::Corrupt { id: 30, .. })
    ));
    assert!(log.page(&all, Some(30), 100).unwrap().is_empty());
    // That open moved the counters past the pack and saved them: the
    // next one finds them level with the records and recounts nothing
    // (a recount would rebuild this junk block, and remove it).
    let stored = Counters::unpack(&log.meta.get(COUNTERS).unwrap().unwrap()).unwrap();
    assert_eq!(stored.next_id, 32);
    assert_eq!(stored.counts.iter().sum::<u64>(), 30);
    let junk = state_key(State::Error, 900);
    log.by_state.insert(junk, &b"junk"[..]).unwrap();
    drop(log);
    let log = open(dir.path());
    assert!(
        log.by_state.contains_key(junk).unwrap(),
        "no recount on the second open"
    );
    log.by_state.remove(junk).unwrap();
    assert_eq!(log.len(), 30);
    let id = log.discover(&rec("http://d/new", State::Queued)).unwrap();
    assert_eq!(id, Some(32));
    assert_eq!(log.get(32).unwrap().unwrap().url, "http://d/new");
    assert_eq!(log.get(20).unwrap().unwrap().url, "http://d/19");
    assert_eq!(log.last_id().unwrap(), Some(32));
    assert_eq!(
        ids(&log.page_back(&all, None, 1).unwrap()),
        [32],
        "the new record"
    );
}

/// A last pack that parses with every slot empty (no writer leaves one;
/// damage can) holds no last id: the one before it has it, and open
/// gives out the ids after that pack's last record.
#[test]
fn a_last_pack_with_every_slot_empty_holds_no_last_id() {
    let (dir, log) = fresh();
    discover_each(&log, "e", 10);
    damage_pack(&log, 2, super::super::packs::encode([None; 8]));
    assert_eq!(log.last_id().unwrap(), Some(10));
    assert_eq!(
        ids(&log.page_back(&Query::default(), None, 2).unwrap()),
        [10, 9]
    );
    drop(log);
    let log = open(dir.path());
    assert_eq!(log.last_id().unwrap(), Some(10));
    assert_eq!(
        log.discover(&rec("http://e/new", State::Queued)).unwrap(),
        Some(11)
    );
    check_consistent(&log);
}

/// A key of `record_packs` that is no pack's names no id, so no page
/// could resume past it: paging passes it over, as open and the walks
/// over every URL do, never a panic or an error that stops the page.
#[test]
fn a_key_that_is_no_packs_is_passed_over() {
    let (dir, log) = fresh();
    discover_each(&log, "k", 20);
    log.packs
        .insert(&[0, 0, 0, 0, 0, 0, 0, 1, 7][..], &b"x"[..])
        .unwrap();
    log.packs.insert(&[0xff][..], &b"x"[..]).unwrap();
    let all = Query::default();
    assert_eq!(
        ids(&log.page(&all, Some(7), 100).unwrap()),
        (8..=20).collect::<Vec<_>>()
    );
    assert_eq!(
        ids(&log.page(&all, None, 100).unwrap()),
        (1..=20).collect::<Vec<_>>()
    );
    assert_eq!(
        ids(&log.page_back(&all, None, 100).unwrap()),
        (1..=20).rev().collect::<Vec<_>>()
    );
    assert_eq!(log.last_id().unwrap(), Some(20));
    drop(log);
    let log = open(dir.path());
    assert_eq!(
        log.discover(&rec("http://k/new", State::Queued)).unwrap(),
        Some(21)
    );
}

#[test]
fn a_reader_sees_a_write_once_it_forgets_its_pack() {
    let (_dir, log) = fresh();
    let records: Vec<UrlRecord> = (0..8)
        .map(|i| rec(&format!("http://r/{i}"), State::Queued))
        .collect();
    discover_records(&log, &records, 8);
    let mut reader = log.reader();
    assert_eq!(reader.get(1).unwrap().as_ref(), Some(&records[0]));
    let fetched = UrlRecord {
        state: State::Fetched,
        ..records[1].clone()
    };
    log.apply(&[Change::Update {
        id: 2,
        record: &fetched,
        enqueue: None,
    }])
    .unwrap();
    reader.forget();
    assert_eq!(reader.get(2).unwrap(), Some(fetched));
    assert_eq!(reader.get(1).unwrap().as_ref(), Some(&records[0]));
}
