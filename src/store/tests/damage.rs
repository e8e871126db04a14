//! Damaged bytes are errors, never panics: records, index entries, counts.

use super::*;

/// Stored bytes that are not a record, with what makes them wrong.
fn damaged_values() -> Vec<(&'static str, Vec<u8>)> {
    let good = encode(&rich("http://bad/")).unwrap();
    let mut mismatch = good.clone();
    mismatch[1] = State::Saved.byte();
    let mut trailing = good.clone();
    trailing.push(0);
    vec![
        ("empty", vec![]),
        ("format only", vec![FORMAT]),
        ("unknown format", vec![99, 0, 1, 2]),
        ("state byte out of range", vec![FORMAT, 7, 0]),
        ("header only", vec![FORMAT, 0]),
        ("truncated", good[..good.len() / 2].to_vec()),
        ("trailing byte", trailing),
        ("header and body disagree", mismatch),
        (
            "huge length prefix",
            vec![FORMAT, 0, 0xff, 0xff, 0xff, 0xff, 0x0f],
        ),
        ("bad UTF-8", vec![FORMAT, 0, 2, 0xc3, 0x28]),
    ]
}

#[test]
fn every_truncation_and_byte_flip_decodes_to_an_error_or_a_record() {
    let good = encode(&rich("http://codec/")).unwrap();
    assert_eq!(decode(&good), Ok(rich("http://codec/")));
    for len in 0..good.len() {
        assert!(decode(&good[..len]).is_err(), "truncated to {len}");
    }
    // Flipped bytes may still decode (a changed character), but never panic.
    for i in 0..good.len() {
        for flip in [0x01, 0x80, 0xff] {
            let mut bytes = good.clone();
            bytes[i] ^= flip;
            let _ = decode(&bytes);
        }
    }
    for (what, bytes) in damaged_values() {
        assert!(decode(&bytes).is_err(), "{what}");
    }
}

#[test]
fn corrupt_records_are_errors_not_panics() {
    let (_dir, log) = fresh();
    for i in 0..12 {
        log.discover(&rec(&format!("http://c/{i}"), State::Queued))
            .unwrap();
    }
    for (what, bytes) in damaged_values() {
        damage_record(&log, 5, bytes);
        assert!(
            matches!(log.get(5), Err(StoreError::Corrupt { id: 5, .. })),
            "get: {what}"
        );
        let all = Query::default();
        assert!(
            matches!(
                log.page(&all, None, 100),
                Err(StoreError::Corrupt { id: 5, .. })
            ),
            "page: {what}"
        );
        assert!(
            matches!(
                log.page_back(&all, None, 100),
                Err(StoreError::Corrupt { id: 5, .. })
            ),
            "page_back: {what}"
        );
        // The error names the id, so a reader can go on past it.
        assert_eq!(
            ids(&log.page(&all, Some(5), 100).unwrap()),
            (6..=12).collect::<Vec<_>>()
        );
        assert_eq!(ids(&log.page(&all, None, 4).unwrap()), [1, 2, 3, 4]);
        assert_eq!(
            ids(&log.page_back(&all, Some(5), 100).unwrap()),
            [4, 3, 2, 1]
        );
    }
    // A damaged body under a good header can be overwritten by update.
    let mut bytes = encode(&rec("http://c/4", State::Queued)).unwrap();
    bytes.truncate(5);
    damage_record(&log, 5, bytes);
    let mut fixed = rec("http://c/4", State::Fetched);
    fixed.reason = "rewritten".into();
    log.update(5, &fixed).unwrap();
    assert_eq!(log.get(5).unwrap(), Some(fixed));
    assert_eq!(log.counts().fetched, 1);
    assert_eq!(log.counts().queued, 11);
    // An unreadable header cannot be moved between indexes: an error.
    damage_record(&log, 6, vec![]);
    assert!(matches!(
        log.update(6, &rec("http://c/5", State::Fetched)),
        Err(StoreError::Corrupt { id: 6, .. })
    ));
    // requeue_in_flight reports a damaged record and still does the rest.
    for id in [7, 8] {
        let mut r = log.get(id).unwrap().unwrap();
        r.state = State::InFlight;
        log.update(id, &r).unwrap();
    }
    damage_record(&log, 7, vec![FORMAT, State::InFlight.byte(), 9]);
    assert!(matches!(
        log.requeue_in_flight(),
        Err(StoreError::Corrupt { id: 7, .. })
    ));
    assert_eq!(log.get(8).unwrap().unwrap().state, State::Queued);
}

/// A log of 20 URLs in three states, 5 of them in the frontier, written
/// in `layout` (2: a counter per key; 3: packed; 4: packed, bitmaps,
/// `urls` and `by_url`, all migrated on open; 6: this layout), then
/// damaged by `damage` and reopened.
fn reopened_after(dir: &Path, layout: u8, damage: impl FnOnce(&UrlLog)) -> UrlLog {
    {
        let log = open(dir);
        for i in 0..20 {
            let record = rec(&format!("http://i/{i}"), State::ALL[i % 3]);
            let enqueue = (i < 5).then_some((2, 4));
            log.apply(&[Change::Discover {
                record: &record,
                enqueue,
            }])
            .unwrap();
        }
        if layout < LAYOUT_VERSION {
            downgrade(&log, layout);
        }
        damage(&log);
        log.flush().unwrap();
    }
    open(dir)
}

/// Counts that no longer add up are rebuilt from the index on open, in
/// any layout; a packed value that does not read is rebuilt whole. Old
/// layouts are migrated, and the migration does not trust their counters
/// either.
#[test]
fn damaged_counts_are_rebuilt_on_open() {
    let bad_count = |log: &UrlLog| {
        log.meta
            .insert(count_key(State::Fetched), &99u64.to_be_bytes())
            .unwrap();
    };
    let junk_count = |log: &UrlLog| {
        log.meta
            .insert(count_key(State::Queued), b"junk".as_slice())
            .unwrap();
    };
    let bad_packed = |log: &UrlLog| {
        let mut counters = log.lock_writer().counters;
        counters.counts[State::Fetched as usize] = 99;
        log.meta.insert(COUNTERS, &counters.pack()[..]).unwrap();
    };
    // A count lowered: the counts add up to fewer ids than were given
    // out, which a gap (skipped ids) must not be mistaken for.
    let low_packed = |log: &UrlLog| {
        let mut counters = log.lock_writer().counters;
        counters.counts[State::Fetched as usize] = 0;
        log.meta.insert(COUNTERS, &counters.pack()[..]).unwrap();
    };
    // A next id past the URL index's limit would refuse every discovery:
    // it falls back to the one after the last record's.
    let huge_packed = |log: &UrlLog| {
        let mut counters = log.lock_writer().counters;
        counters.next_id = MAX_ID + 2;
        log.meta.insert(COUNTERS, &counters.pack()[..]).unwrap();
    };
    let huge_next_id = |log: &UrlLog| {
        log.meta
            .insert(NEXT_ID, &(u64::MAX - 1).to_be_bytes())
            .unwrap();
    };
    let junk_packed = |log: &UrlLog| {
        log.meta.insert(COUNTERS, b"junk".as_slice()).unwrap();
    };
    // A next id that gives out ids again: without a check against the
    // last record, the next discovery would overwrite record 3.
    let lost_packed = |log: &UrlLog| {
        log.meta.remove(COUNTERS).unwrap();
    };
    let small_packed = |log: &UrlLog| {
        let counters = Counters {
            next_id: 3,
            frontier_len: 5,
            counts: [1, 1, 0, 0, 0, 0, 0],
            skipped: 0,
        };
        log.meta.insert(COUNTERS, &counters.pack()[..]).unwrap();
    };
    let lost_next_id = |log: &UrlLog| {
        log.meta.remove(NEXT_ID).unwrap();
    };
    let small_next_id = |log: &UrlLog| {
        log.meta.insert(NEXT_ID, &3u64.to_be_bytes()).unwrap();
    };
    type Damage<'a> = &'a dyn Fn(&UrlLog);
    let cases: [(u8, Damage<'_>); 25] = [
        (2, &|log| {
            bad_count(log);
            junk_count(log);
        }),
        (2, &|_| {}),
        (2, &lost_next_id),
        (2, &small_next_id),
        (2, &huge_next_id),
        (3, &bad_packed),
        (3, &junk_packed),
        (3, &lost_packed),
        (3, &small_packed),
        (3, &low_packed),
        (3, &huge_packed),
        (3, &|_| {}),
        (4, &bad_packed),
        (4, &junk_packed),
        (4, &lost_packed),
        (4, &small_packed),
        (4, &huge_packed),
        (4, &|_| {}),
        (6, &bad_packed),
        (6, &junk_packed),
        (6, &lost_packed),
        (6, &small_packed),
        (6, &low_packed),
        (6, &huge_packed),
        (6, &|_| {}),
    ];
    for (case, (layout, damage)) in cases.into_iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let log = reopened_after(dir.path(), layout, damage);
        assert_eq!(
            log.meta.get(LAYOUT).unwrap().as_deref(),
            Some(&[LAYOUT_VERSION][..]),
            "case {case}: migrated"
        );
        assert!(log.meta.contains_key(COUNTERS).unwrap(), "case {case}");
        assert!(!log.meta.contains_key(NEXT_ID).unwrap(), "case {case}");
        assert_eq!(log.counts().queued, 7, "case {case}");
        assert_eq!(log.counts().in_flight, 7, "case {case}");
        assert_eq!(log.counts().fetched, 6, "case {case}");
        assert_eq!(log.len(), 20, "case {case}");
        assert_eq!(log.frontier_len(), 5, "case {case}");
        // The next id follows on, and the counters move from there; no
        // record is overwritten.
        let id = log.discover(&rec("http://i/new", State::Error)).unwrap();
        assert_eq!(id, Some(21), "case {case}");
        assert_eq!(
            log.get(3).unwrap().unwrap().url,
            "http://i/2",
            "case {case}"
        );
        check_consistent(&log);
        drop(log);
        let log = open(dir.path());
        assert_eq!(log.counts().error, 1, "case {case}");
        check_consistent(&log);
    }
}

#[test]
fn damaged_index_entries() {
    let dir = tempfile::tempdir().unwrap();
    let log = open(dir.path());
    for i in 0..20 {
        log.discover(&rec(&format!("http://i/{i}"), State::ALL[i % 3]))
            .unwrap();
    }

    // A malformed index key is an error; so is a bad URL index value.
    log.by_state
        .insert([State::Fetched.byte(), 1, 2], Vec::new())
        .unwrap();
    let fetched = Query {
        state: Some(State::Fetched),
        text: None,
        ..Query::default()
    };
    assert!(matches!(
        log.page(&fetched, None, 100),
        Err(StoreError::BadEntry {
            tree: "state_blocks",
            ..
        })
    ));
    // Writes never meet that key (no block has it): a repair on open
    // would drop it.
    log.by_state.remove([State::Fetched.byte(), 1, 2]).unwrap();
    // 20 URLs: one URL index bucket, key 0. Damaged, it hides its URLs
    // from look-ups (an error naming it); a write that meets it rebuilds
    // it from the records, so the URL is still known.
    log.url_buckets.insert([0u8; 8], b"xy".as_slice()).unwrap();
    log.forget_known_urls();
    assert!(matches!(
        log.id_of("http://i/3"),
        Err(StoreError::BadEntry { tree: "url_buckets", key }) if key == [0u8; 8]
    ));
    assert_eq!(
        log.discover(&rec("http://i/3", State::Queued)).unwrap(),
        None
    );
    assert_eq!(log.id_of("http://i/3").unwrap(), Some(4));
    check_consistent(&log);
    damaged_blocks(&log);
    // A layout this build does not know is refused on open.
    log.meta.insert(LAYOUT, [9u8].as_slice()).unwrap();
    drop(log);
    assert!(matches!(
        UrlLog::open(&dir.path().join("db"), CACHE),
        Err(StoreError::Open { .. })
    ));
}

/// A state or frontier block whose value is not a bitmap: reads through
/// it are [`StoreError::BadEntry`]; a write that meets it rebuilds it from
/// the records of its ids first (rewriting it as it stands would lose
/// them), as do resume and open, so that one damaged block blocks no
/// write. Called on the 21-URL log of [`damaged_index_entries`], all in
/// block 0.
fn damaged_blocks(log: &UrlLog) {
    let bad = |result: Result<_, StoreError>, tree: &str| {
        assert!(
            matches!(result, Err(StoreError::BadEntry { tree: t, .. }) if t == tree),
            "{tree}: {result:?}"
        );
    };
    let queued = Query {
        state: Some(State::Queued),
        ..Query::default()
    };
    let queued_ids = ids(&log.page(&queued, None, 100).unwrap());
    log.by_state
        .insert(state_key(State::Queued, 0), &b"\x01\xff\x01\x02"[..])
        .unwrap();
    forget_writes(log);
    bad(log.page(&queued, None, 10).map(|_| ()), "state_blocks");
    bad(log.page_back(&queued, None, 10).map(|_| ()), "state_blocks");
    let mut moved = log.get(1).unwrap().unwrap();
    assert_eq!(moved.state, State::Queued);
    moved.state = State::Error;
    log.update(1, &moved).unwrap();
    assert_eq!(
        ids(&log.page(&queued, None, 100).unwrap()),
        queued_ids[1..],
        "rebuilt, with the move"
    );
    check_consistent(log);

    // Resume: a damaged in-flight block is rebuilt and its URLs re-queued.
    let mut other = log.get(2).unwrap().unwrap();
    assert_eq!(other.state, State::InFlight);
    log.by_state
        .insert(state_key(State::InFlight, 0), &b""[..])
        .unwrap();
    forget_writes(log);
    let in_flight = log.counts().in_flight;
    assert_eq!(log.requeue_in_flight().unwrap(), in_flight);
    assert_eq!(log.counts().in_flight, 0);
    other = log.get(2).unwrap().unwrap();
    assert_eq!(other.state, State::Queued);
    assert_eq!(other.reason, REQUEUED_REASON);
    check_consistent(log);

    // The frontier block: rebuilt from the queued records' slots.
    log.frontier
        .insert(frontier_key(2, 4, 0), &b""[..])
        .unwrap();
    forget_writes(log);
    bad(log.frontier(2, 4, None, 10).map(|_| ()), "frontier_blocks");
    log.enqueue(3, 2, 4).unwrap();
    let slot = frontier_slot(0, "follow");
    assert_eq!(slot, (2, 4), "the slot of the test records");
    let expected: Vec<u64> = log
        .page(&queued, None, 100)
        .unwrap()
        .iter()
        .map(|(id, _)| *id)
        .chain([3])
        .collect::<std::collections::BTreeSet<u64>>()
        .into_iter()
        .collect();
    assert_eq!(log.frontier(2, 4, None, 100).unwrap(), expected);
    assert_eq!(log.frontier(2, 3, None, 10).unwrap(), Vec::<u64>::new());
    log.enqueue(3, 2, 3).unwrap();
    assert_eq!(log.frontier(2, 3, None, 10).unwrap(), [3]);
    // The frontier's length counts what the rebuilt block holds.
    check_consistent(log);
}

/// A damaged block found on open, when the counts are rebuilt, is
/// rebuilt from its records too (and an unreadable key dropped), rather
/// than keeping the log from opening.
#[test]
fn damaged_blocks_are_rebuilt_on_open() {
    let dir = tempfile::tempdir().unwrap();
    {
        let log = open(dir.path());
        for i in 0..20 {
            let record = rec(&format!("http://o/{i}"), State::ALL[i % 3]);
            log.apply(&[Change::Discover {
                record: &record,
                enqueue: (i % 3 == 0).then_some((2, 4)),
            }])
            .unwrap();
        }
        log.by_state
            .insert(state_key(State::Fetched, 0), &b"junk"[..])
            .unwrap();
        log.by_state.insert(&b"xy"[..], &b""[..]).unwrap();
        log.frontier
            .insert(frontier_key(2, 4, 0), &b""[..])
            .unwrap();
        log.frontier.insert(&b"z"[..], &b""[..]).unwrap();
        log.meta.insert(COUNTERS, &b"junk"[..]).unwrap();
        log.flush().unwrap();
    }
    let log = open(dir.path());
    assert_eq!(log.counts().fetched, 6);
    assert_eq!(log.len(), 20);
    assert_eq!(log.frontier_len(), 7);
    assert_eq!(
        log.frontier(2, 4, None, 100).unwrap(),
        [1, 4, 7, 10, 13, 16, 19]
    );
    check_consistent(&log);
}

/// A block number whose ids would not fit a u64 is a damaged key, not a
/// block of ids that all saturate to `u64::MAX`.
#[test]
fn block_numbers_past_the_id_space_are_damage() {
    use super::super::index::MAX_BLOCK;
    assert!(parse_state_block_key(&state_key(State::Queued, MAX_BLOCK)).is_some());
    assert!(parse_state_block_key(&state_key(State::Queued, MAX_BLOCK + 1)).is_none());
    assert!(parse_frontier_block_key(&frontier_key(1, 2, MAX_BLOCK)).is_some());
    assert!(parse_frontier_block_key(&frontier_key(1, 2, u64::MAX)).is_none());
    let (_dir, log) = fresh();
    log.discover(&rec("http://b/1", State::Queued)).unwrap();
    let mut bits = Bitmap::default();
    bits.insert(0);
    bits.insert(1);
    let bits = bits.encode().unwrap();
    log.by_state
        .insert(state_key(State::Queued, u64::MAX), bits.clone())
        .unwrap();
    log.frontier
        .insert(frontier_key(1, 2, u64::MAX), bits)
        .unwrap();
    let queued = Query {
        state: Some(State::Queued),
        ..Query::default()
    };
    assert!(matches!(
        log.page(&queued, Some(1), 10),
        Err(StoreError::BadEntry {
            tree: "state_blocks",
            ..
        })
    ));
    assert!(matches!(
        log.frontier(1, 2, None, 10),
        Err(StoreError::BadEntry {
            tree: "frontier_blocks",
            ..
        })
    ));
}

/// A reader that pages a state and meets its damaged block
/// ([`UrlLog::repair_damaged`], as `crawlspace log --state` and a refresh
/// do): the block is rebuilt from the records, the counts are right, and
/// paging again returns that state's ids; an error that names no block is
/// not repaired.
#[test]
fn a_reader_repairs_a_damaged_state_block_and_pages_on() {
    let (_dir, log) = fresh();
    for i in 0..30 {
        log.discover(&rec(&format!("http://r/{i}"), State::ALL[i % 3]))
            .unwrap();
    }
    let fetched: Vec<u64> = (1..=30).filter(|id| (id - 1) % 3 == 2).collect();
    let counts = log.counts();
    let key = state_key(State::Fetched, 0);
    log.by_state.insert(key, &b"junk"[..]).unwrap();
    forget_writes(&log);
    let query = Query {
        state: Some(State::Fetched),
        ..Query::default()
    };
    let error = log.page(&query, None, 100).unwrap_err();
    assert!(
        matches!(&error, StoreError::BadEntry { tree: "state_blocks", key: k } if *k == key),
        "{error:?}"
    );
    assert!(log.repair_damaged(&error).unwrap());
    assert_eq!(ids(&log.page(&query, None, 100).unwrap()), fetched);
    assert_eq!(ids(&log.page(&query, Some(9), 2).unwrap()), [12, 15]);
    assert_eq!(log.counts(), counts);
    check_consistent(&log);
    assert!(!log.repair_damaged(&StoreError::NotFound(3)).unwrap());
}

/// sled's corruption error is said in words, with what to do, not as its
/// debug text (`Read corrupted data at file offset None backtrace ()`).
#[test]
fn a_damaged_log_is_said_in_words() {
    let said = sled_words(&sled::Error::Corruption { at: None, bt: () });
    assert_eq!(
        said,
        format!("its files are damaged (sled found corrupted data); {DAMAGED_FIX}")
    );
    let io = sled::Error::Io(std::io::Error::other("disk gone"));
    assert_eq!(sled_words(&io), "cannot read or write its files: disk gone");
}

/// A write that failed (a full disk) is said as the system says it, also
/// when sled hands on a copy of the error whose text is its debug form
/// (what a file size limit gave in a real crawl).
#[test]
fn a_failed_write_is_said_as_the_system_says_it() {
    let full = std::io::Error::from_raw_os_error(28);
    let system = full.to_string();
    assert!(system.contains("os error 28"), "{system}");
    let direct = sled::Error::Io(std::io::Error::from_raw_os_error(28));
    assert_eq!(
        sled_words(&direct),
        format!("cannot read or write its files: {system}")
    );
    let copied = sled::Error::Io(std::io::Error::new(full.kind(), format!("{full:?}")));
    assert!(copied.to_string().contains("Os {"), "{copied}");
    assert_eq!(
        sled_words(&copied),
        format!("cannot read or write its files: {system}")
    );
    // The other debug forms a copy can have: the message, or the kind.
    let other = std::io::Error::other("disk gone");
    let copied = sled::Error::Io(std::io::Error::new(other.kind(), format!("{other:?}")));
    assert!(copied.to_string().contains("Custom {"), "{copied}");
    assert_eq!(
        sled_words(&copied),
        "cannot read or write its files: disk gone"
    );
    let kind = std::io::Error::from(std::io::ErrorKind::WriteZero);
    let copied = sled::Error::Io(std::io::Error::new(kind.kind(), format!("{kind:?}")));
    assert_eq!(
        sled_words(&copied),
        format!(
            "cannot read or write its files: {}",
            std::io::ErrorKind::WriteZero
        )
    );
}
