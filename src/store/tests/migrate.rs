//! Logs of layouts 1 to 4 opened by this build: rebuilt in layout 6
//! (`migrate.rs`, `migrate_packs.rs`, `migrate_index.rs`: records in
//! packs, the URL index in buckets), they read exactly as before, also
//! when a migration was interrupted.

use super::*;

/// URLs in the test log: three blocks of ids and a part.
const URLS: u64 = 3 * 4096 + 500;

/// A log spanning several blocks, with every state, URLs in five frontier
/// slots (some queued twice, some taken out again), content types and a
/// few records rewritten.
fn filled(dir: &Path) -> UrlLog {
    let log = open(dir);
    let records: Vec<UrlRecord> = (0..URLS)
        .map(|i| UrlRecord {
            content_type: (i % 5 == 0).then(|| "text/html".to_string()),
            link_depth: (i % 9) as u32,
            ..rec(
                &format!("http://m{}/p/{i}", i % 7),
                State::ALL[((i * 7 + i / 11) % 7) as usize],
            )
        })
        .collect();
    for chunk in records.chunks(1000) {
        let changes: Vec<Change<'_>> = chunk
            .iter()
            .enumerate()
            .map(|(i, record)| Change::Discover {
                record,
                enqueue: (i % 3 != 0).then_some(((i % 5) as u8, (i % 6) as u8)),
            })
            .collect();
        log.apply(&changes).unwrap();
    }
    let mut changes = Vec::new();
    for id in (1..=URLS).step_by(13) {
        changes.push(Change::Dequeue {
            id,
            level: 1,
            queue: 1,
        });
        changes.push(Change::Enqueue {
            id,
            level: 4,
            queue: 5,
        });
    }
    log.apply(&changes).unwrap();
    check_consistent(&log);
    log
}

/// Everything the public API reads of a log: counts, every state paged
/// forward and back in pages, every frontier queue in chunks, the briefs
/// and every record.
#[derive(Debug, PartialEq)]
struct Snapshot {
    counts: StateCounts,
    frontier_len: u64,
    by_state: Vec<(State, Vec<u64>, Vec<u64>)>,
    frontier: Vec<Vec<u64>>,
    briefs: Vec<super::briefs::Owned>,
    records: Vec<(u64, UrlRecord)>,
}

/// A filled log in `dir` rewritten as layout `layout` left it (6: kept
/// as it is), then `change`d and flushed; what it read before.
fn old_log(dir: &Path, layout: u8, change: impl FnOnce(&UrlLog)) -> Snapshot {
    let log = filled(dir);
    let before = snapshot(&log);
    if layout < LAYOUT_VERSION {
        downgrade(&log, layout);
    }
    change(&log);
    log.flush().unwrap();
    before
}

fn snapshot(log: &UrlLog) -> Snapshot {
    let mut by_state = Vec::new();
    for state in State::ALL {
        let query = Query {
            state: Some(state),
            ..Query::default()
        };
        let (mut forward, mut back) = (Vec::new(), Vec::new());
        loop {
            let page = log.page(&query, forward.last().copied(), 333).unwrap();
            if page.is_empty() {
                break;
            }
            forward.extend(ids(&page));
        }
        loop {
            let page = log.page_back(&query, back.last().copied(), 333).unwrap();
            if page.is_empty() {
                break;
            }
            back.extend(ids(&page));
        }
        by_state.push((state, forward, back));
    }
    let mut frontier = Vec::new();
    for level in 0..LEVELS {
        for queue in 0..QUEUE_NAMES.len() as u8 {
            let mut queued: Vec<u64> = Vec::new();
            loop {
                let chunk = log
                    .frontier(level, queue, queued.last().copied(), 1000)
                    .unwrap();
                if chunk.is_empty() {
                    break;
                }
                queued.extend(chunk);
            }
            frontier.push(queued);
        }
    }
    let briefs = super::briefs::packed(log, None, None);
    Snapshot {
        counts: log.counts(),
        frontier_len: log.frontier_len(),
        by_state,
        frontier,
        briefs,
        records: log.page(&Query::default(), None, usize::MAX).unwrap(),
    }
}

/// The snapshot against the records it lists: each state's ids in id
/// order forward, the reverse back; each queue in id order, as many in
/// all as the frontier's length.
fn assert_snapshot_matches_records(snapshot: &Snapshot) {
    for (state, forward, back) in &snapshot.by_state {
        let expected: Vec<u64> = snapshot
            .records
            .iter()
            .filter(|(_, r)| r.state == *state)
            .map(|(id, _)| *id)
            .collect();
        assert_eq!(forward, &expected, "{state}");
        assert!(back.iter().rev().eq(expected.iter()), "{state} back");
        assert_eq!(expected.len() as u64, snapshot.counts.get(*state));
    }
    let mut queued = 0;
    for queue in &snapshot.frontier {
        assert!(queue.windows(2).all(|w| w[0] < w[1]), "FIFO by id");
        queued += queue.len() as u64;
    }
    assert_eq!(queued, snapshot.frontier_len);
    assert!(queued > URLS / 2, "most URLs queued, some in two queues");
}

fn layout_of(log: &UrlLog) -> Option<u8> {
    log.meta.get(LAYOUT).unwrap().map(|v| v[0])
}

/// After migration the log is still written and read right: a new URL,
/// a move, and a resume after a crash.
fn still_writes(log: &UrlLog) {
    let id = log
        .apply(&[Change::Discover {
            record: &rec("http://m/new", State::Queued),
            enqueue: Some((2, 4)),
        }])
        .unwrap()[0]
        .unwrap();
    assert_eq!(id, URLS + 1);
    let mut record = log.get(id).unwrap().unwrap();
    record.state = State::InFlight;
    log.apply(&[
        Change::Update {
            id,
            record: &record,
            enqueue: None,
        },
        Change::Dequeue {
            id,
            level: 2,
            queue: 4,
        },
    ])
    .unwrap();
    let in_flight = log.counts().in_flight;
    assert_eq!(log.requeue_in_flight().unwrap(), in_flight);
    assert_eq!(log.counts().in_flight, 0);
    assert_eq!(log.frontier(2, 4, Some(URLS), 10).unwrap(), [id]);
    check_consistent(log);
}

#[test]
fn logs_of_layouts_1_to_4_read_the_same_after_migration() {
    for layout in [1, 2, 3, 4] {
        let dir = tempfile::tempdir().unwrap();
        // The records as the old layout holds them, an entry each.
        let mut records = Vec::new();
        let before = old_log(dir.path(), layout, |log| {
            for entry in log.db.open_tree(OLD_URLS).unwrap().iter() {
                let (key, value) = entry.unwrap();
                records.push((parse_id(&key).unwrap(), value.to_vec()));
            }
        });
        assert_eq!(records.len() as u64, URLS);
        let log = open(dir.path());
        assert_eq!(layout_of(&log), Some(LAYOUT_VERSION), "layout {layout}");
        assert_snapshot_matches_records(&before);
        assert!(!log.meta.contains_key(NEXT_ID).unwrap(), "layout {layout}");
        assert!(log.by_state.len() < 40, "a key per block, not per URL");
        assert_eq!(log.packs.len() as u64, URLS / 8 + 1, "a key per 8 records");
        // Every record byte for byte as it was stored.
        assert!(stored_records(&log) == records, "layout {layout}");
        let buckets = url_buckets(&log).len() as u64;
        assert!(buckets < URLS / 30, "{buckets} buckets, not a key per URL");
        assert_eq!(snapshot(&log), before, "layout {layout}");
        check_consistent(&log);
        still_writes(&log);
        drop(log);
        let log = open(dir.path());
        assert_eq!(log.len(), URLS + 1);
        check_consistent(&log);
    }
}

/// A migration that stopped while building the new trees left them
/// partial (and, for layout 1, the briefs): the next open clears them and
/// starts again. One that stopped after writing layout 6 left the old
/// trees: the next open drops them.
#[test]
fn interrupted_migrations_start_again() {
    for layout in [1, 3, 4] {
        let dir = tempfile::tempdir().unwrap();
        let before = {
            let log = filled(dir.path());
            let before = snapshot(&log);
            // What a half-done migration leaves: some blocks right, one
            // with wrong bits, one that is not a bitmap.
            let kept: Vec<_> = log.by_state.iter().take(3).map(Result::unwrap).collect();
            let frontier_kept: Vec<_> = log.frontier.iter().take(2).map(Result::unwrap).collect();
            let packs_kept: Vec<_> = log.packs.iter().take(5).map(Result::unwrap).collect();
            downgrade(&log, layout);
            // Packs: some right, one that does not parse, one past the
            // last record, one of another record's bytes.
            for (key, value) in packs_kept {
                log.packs.insert(key, value).unwrap();
            }
            log.packs.insert(pack_key(7), &b"junk"[..]).unwrap();
            log.packs
                .insert(pack_key(URLS), &[1, 3, 9, 9, 0, 0, 0, 0, 0, 0][..])
                .unwrap();
            let other = crate::store::packs::encode([Some(&b"x"[..])]);
            log.packs.insert(pack_key(9), other).unwrap();
            for (key, value) in kept {
                log.by_state.insert(key, value).unwrap();
            }
            for (key, value) in frontier_kept {
                log.frontier.insert(key, value).unwrap();
            }
            // Layout 4's blocks are kept, not rebuilt: only the packs
            // are half-built then.
            if layout < 4 {
                let mut wrong = Bitmap::default();
                wrong.insert(7);
                let wrong = wrong.encode().unwrap();
                log.by_state
                    .insert(state_key(State::Error, 0), wrong.clone())
                    .unwrap();
                log.by_state
                    .insert(state_key(State::Saved, 1), &b"junk"[..])
                    .unwrap();
                log.frontier
                    .insert(frontier_key(0, 0, 0), &b"\xff"[..])
                    .unwrap();
            }
            if layout == 1 {
                log.briefs
                    .insert(&b"r\0\0\0\0\0\0\0\x01"[..], &b"half"[..])
                    .unwrap();
            }
            log.flush().unwrap();
            before
        };
        let log = open(dir.path());
        assert_eq!(layout_of(&log), Some(LAYOUT_VERSION), "layout {layout}");
        assert_eq!(snapshot(&log), before, "layout {layout}");
        check_consistent(&log);
    }

    // Stopped after the flip to layout 6, before the old trees were
    // dropped.
    let dir = tempfile::tempdir().unwrap();
    let before = {
        let log = filled(dir.path());
        let before = snapshot(&log);
        let old = log.db.open_tree(OLD_BY_STATE).unwrap();
        old.insert(state_key(State::Queued, 1), &[][..]).unwrap();
        log.db.open_tree(OLD_FRONTIER).unwrap();
        let urls = log.db.open_tree(OLD_URLS).unwrap();
        urls.insert(id_key(1), &b"old"[..]).unwrap();
        log.flush().unwrap();
        before
    };
    let log = open(dir.path());
    assert_eq!(snapshot(&log), before);
    check_consistent(&log);
}

/// A build that knows layout 6 refuses a layout it does not know, rather
/// than migrate or write it: 5 too (used for other forms in this
/// repository's history, never released), and its trees are kept.
#[test]
fn an_unknown_layout_is_refused_not_migrated() {
    for layout in [5u8, 7, 9, 255] {
        let dir = tempfile::tempdir().unwrap();
        {
            let log = filled(dir.path());
            log.meta.insert(LAYOUT, &[layout][..]).unwrap();
        }
        assert!(
            matches!(
                UrlLog::open(&dir.path().join("db"), CACHE),
                Err(StoreError::Open { .. })
            ),
            "layout {layout}"
        );
    }
}

/// A log that says 5 with data in it, in either form it may have (this
/// build's trees, or records in `urls` and URLs in `by_url` beside other
/// trees): refused, and every tree kept as it was, the layout key too.
#[test]
fn a_log_labelled_5_is_refused_and_keeps_its_trees() {
    for (old_trees, only_old) in [(false, false), (true, false), (true, true)] {
        let dir = tempfile::tempdir().unwrap();
        let trees = {
            let log = filled(dir.path());
            if old_trees {
                downgrade(&log, 4);
            }
            if only_old {
                // None of this layout's trees: an open that made them
                // (empty) before it read the layout would change the
                // list of trees.
                for tree in [
                    RECORD_PACKS,
                    URL_BUCKETS,
                    STATE_BLOCKS,
                    FRONTIER_BLOCKS,
                    "briefs",
                ] {
                    log.db.drop_tree(tree).unwrap();
                }
            }
            if old_trees {
                // The URL index of that layout 5, in another tree.
                log.db
                    .open_tree("url_buckets_fnv")
                    .unwrap()
                    .insert(&[0u8; 4][..], &b"bucket"[..])
                    .unwrap();
            }
            log.meta.insert(LAYOUT, &[5u8][..]).unwrap();
            log.flush().unwrap();
            tree_contents(&log.db)
        };
        // Opened with sled alone: nothing was written or dropped.
        let db = refused(dir.path(), "key layout 5");
        assert!(
            tree_contents(&db) == trees,
            "old trees {old_trees}, only old {only_old}"
        );
        let records = if old_trees { "urls" } else { RECORD_PACKS };
        assert!(
            !db.open_tree(records).unwrap().is_empty(),
            "old trees {old_trees}"
        );
    }
}

/// Opens the log in `dir`, which must be refused with a message naming
/// `naming`; then the database with sled alone, to see what was kept.
fn refused(dir: &Path, naming: &str) -> sled::Db {
    let refused = UrlLog::open(&dir.join("db"), CACHE);
    assert!(
        matches!(&refused, Err(StoreError::Open { message, .. }) if message.contains(naming)),
        "{refused:?}"
    );
    drop(refused);
    // As the log opens it: sled lets go of the lock a moment after the
    // refused log's database is dropped.
    super::super::open::open_sled(&dir.join("db"), CACHE)
        .expect("no panic")
        .expect("sled opens it")
}

/// A tree's name and entries.
type TreeContents = (Vec<u8>, Vec<(Vec<u8>, Vec<u8>)>);

/// Every tree's name and entries.
fn tree_contents(db: &sled::Db) -> Vec<TreeContents> {
    let mut names = db.tree_names();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let tree = db.open_tree(&name).unwrap();
            let entries = tree
                .iter()
                .map(|entry| {
                    let (key, value) = entry.unwrap();
                    (key.to_vec(), value.to_vec())
                })
                .collect();
            (name.to_vec(), entries)
        })
        .collect()
}

/// A migration cut short after each of its stages (records packed; all
/// the new trees built, before the flip; after the flip, before the old
/// trees are dropped) reopens as the log it was: no record lost or
/// changed, byte for byte, and the log writes on.
#[test]
fn a_migration_cut_short_after_any_stage_loses_nothing() {
    for layout in [1, 3, 4] {
        for stage in ["packed", "built", "flipped"] {
            let case = format!("layout {layout}, {stage}");
            let dir = tempfile::tempdir().unwrap();
            let (before, records) = {
                let log = filled(dir.path());
                let before = snapshot(&log);
                let records = stored_records(&log);
                downgrade(&log, layout);
                match stage {
                    "packed" => log.migrate_record_packs().unwrap(),
                    "built" => {
                        log.build_new_trees(layout).unwrap();
                    }
                    _ => {
                        let hash = log.build_new_trees(layout).unwrap();
                        log.flip_layout(hash).unwrap();
                    }
                }
                assert!(!log.packs.is_empty(), "{case}");
                log.flush().unwrap();
                (before, records)
            };
            for round in 0..2 {
                let log = open(dir.path());
                assert_eq!(layout_of(&log), Some(LAYOUT_VERSION), "{case}, {round}");
                assert!(stored_records(&log) == records, "{case}, {round}");
                assert_eq!(snapshot(&log), before, "{case}, {round}");
                check_consistent(&log);
            }
            let log = open(dir.path());
            still_writes(&log);
        }
    }
}

/// A migration that flipped the layout and then stopped while it dropped
/// the old trees (in the order `by_state`, `frontier`, `urls`, `by_url`),
/// in a log that then lost its `layout` key: the URL index's key, written
/// with the layout in one batch, says layout 6, and the old trees left
/// are dropped. Taken for layout 1 (a `frontier` left), it would get an
/// empty state index; taken for layout 4 (a `by_url` left), it would be
/// refused for good.
#[test]
fn a_flipped_log_without_its_layout_key_drops_what_is_left_of_its_old_trees() {
    let drops = [OLD_BY_STATE, OLD_FRONTIER, OLD_URLS, BY_URL];
    for dropped in 1..drops.len() {
        let case = format!("{dropped} old trees dropped");
        let dir = tempfile::tempdir().unwrap();
        let (before, records) = {
            let log = filled(dir.path());
            let before = snapshot(&log);
            let records = stored_records(&log);
            downgrade(&log, 1);
            let hash = log.build_new_trees(1).unwrap();
            log.flip_layout(hash).unwrap();
            for old in &drops[..dropped] {
                log.db.drop_tree(old).unwrap();
            }
            log.meta.remove(LAYOUT).unwrap();
            log.flush().unwrap();
            (before, records)
        };
        for round in 0..2 {
            let log = open(dir.path());
            assert_eq!(layout_of(&log), Some(LAYOUT_VERSION), "{case}, {round}");
            assert!(stored_records(&log) == records, "{case}, {round}");
            assert_eq!(snapshot(&log), before, "{case}, {round}");
            let names = log.db.tree_names();
            for old in drops {
                assert!(
                    !names.iter().any(|name| name == old.as_bytes()),
                    "{case}, {round}: {old} dropped"
                );
            }
            check_consistent(&log);
        }
        let log = open(dir.path());
        still_writes(&log);
    }
}

/// A log taken for layout 1 to 3 that has no `by_state` is refused, not
/// given an empty state index.
#[test]
fn a_migration_from_layouts_1_to_3_without_by_state_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    {
        let log = filled(dir.path());
        downgrade(&log, 1);
        log.db.drop_tree(OLD_BY_STATE).unwrap();
        log.flush().unwrap();
    }
    let db = refused(dir.path(), "no `by_state`");
    assert!(
        !db.tree_names()
            .iter()
            .any(|name| name == OLD_BY_STATE.as_bytes())
    );
    assert!(!db.open_tree(OLD_URLS).unwrap().is_empty());
}

/// A log whose `meta` lost its `layout` key is not taken for a new log:
/// layouts 1 to 3 (old per-URL trees) are migrated as from layout 1, a
/// layout 4 log (records in `urls`, URLs in `by_url`) as from layout 4,
/// and a log of this layout is kept. Written as new, the next open would
/// drop its old trees with its records, index and frontier.
#[test]
fn a_log_without_its_layout_key_is_migrated_not_taken_for_new() {
    for layout in [2, 3, 4, LAYOUT_VERSION] {
        let dir = tempfile::tempdir().unwrap();
        let before = old_log(dir.path(), layout, |log| {
            log.meta.remove(LAYOUT).unwrap();
        });
        for round in 0..2 {
            let log = open(dir.path());
            assert_eq!(
                layout_of(&log),
                Some(LAYOUT_VERSION),
                "layout {layout}, open {round}"
            );
            assert_eq!(snapshot(&log), before, "layout {layout}, open {round}");
            check_consistent(&log);
        }
    }
}

/// Keys of `urls` (or of `record_packs`) that are not ids (packs) keep
/// neither a layout 1 log from migrating (its briefs are built from the
/// records) nor any log from opening; the ids of the others are not given
/// out again.
#[test]
fn malformed_record_keys_do_not_stop_a_migration() {
    for layout in [1, 4, LAYOUT_VERSION] {
        let dir = tempfile::tempdir().unwrap();
        old_log(dir.path(), layout, |log| {
            let tree = match layout {
                LAYOUT_VERSION => log.packs.clone(),
                _ => log.db.open_tree(OLD_URLS).unwrap(),
            };
            // Right after id (pack) 5, and after every id.
            tree.insert(&[0, 0, 0, 0, 0, 0, 0, 5, 0][..], &b"x"[..])
                .unwrap();
            tree.insert(&[0xff][..], &b"x"[..]).unwrap();
        });
        let log = open(dir.path());
        assert_eq!(layout_of(&log), Some(LAYOUT_VERSION), "layout {layout}");
        let briefs = log.scan_briefs(None, None, |_, _| true).unwrap();
        assert_eq!(briefs, URLS, "layout {layout}");
        assert_eq!(log.len(), URLS, "layout {layout}");
        let id = log.discover(&rec("http://m/new", State::Queued)).unwrap();
        assert_eq!(id, Some(URLS + 1), "layout {layout}");
    }
}

/// A next id stored above the one after the last record (ids given out
/// to records since lost) survives the migration, read from its own key
/// (layouts 1, 2) or the packed counters (3).
#[test]
fn a_migration_keeps_a_higher_stored_next_id() {
    for layout in [1, 2, 3] {
        let dir = tempfile::tempdir().unwrap();
        {
            let log = filled(dir.path());
            let mut counters = log.lock_writer().counters;
            downgrade(&log, layout);
            counters.next_id = URLS + 50;
            if layout <= 2 {
                log.meta
                    .insert(NEXT_ID, &counters.next_id.to_be_bytes())
                    .unwrap();
            } else {
                log.meta.insert(COUNTERS, &counters.pack()[..]).unwrap();
            }
            log.flush().unwrap();
        }
        let log = open(dir.path());
        assert_eq!(layout_of(&log), Some(LAYOUT_VERSION), "layout {layout}");
        let id = log.discover(&rec("http://m/new", State::Queued)).unwrap();
        assert_eq!(id, Some(URLS + 50), "layout {layout}");
    }
}

/// Damaged entries of the old trees (keys that are not keys of theirs)
/// are passed over: the migration completes and every good entry is
/// there.
#[test]
fn a_migration_passes_over_damaged_old_entries() {
    for layout in [1, 3] {
        let dir = tempfile::tempdir().unwrap();
        let before = old_log(dir.path(), layout, |log| {
            let old_by_state = log.db.open_tree(OLD_BY_STATE).unwrap();
            old_by_state.insert(&[99u8, 0, 0][..], &[][..]).unwrap();
            old_by_state
                .insert(&[State::Queued.byte(), 1][..], &[][..])
                .unwrap();
            let old_frontier = log.db.open_tree(OLD_FRONTIER).unwrap();
            old_frontier.insert(&[2u8, 4, 0, 1][..], &[][..]).unwrap();
            old_frontier.insert(&[9u8][..], &[][..]).unwrap();
        });
        let log = open(dir.path());
        assert_eq!(layout_of(&log), Some(LAYOUT_VERSION), "layout {layout}");
        assert_eq!(snapshot(&log), before, "layout {layout}");
        check_consistent(&log);
    }
}

/// The caller is told when a migration starts and ends (the CLI prints
/// it), and told nothing when the log is already of this layout.
#[test]
fn a_migration_is_reported_to_the_caller() {
    let dir = tempfile::tempdir().unwrap();
    {
        let log = filled(dir.path());
        downgrade(&log, 3);
    }
    let mut steps = Vec::new();
    let log =
        UrlLog::open_reporting(&dir.path().join("db"), CACHE, &mut |m| steps.push(m)).unwrap();
    assert_eq!(
        steps,
        [
            Migration::Started {
                from: 3,
                to: LAYOUT_VERSION
            },
            Migration::Finished {
                from: 3,
                to: LAYOUT_VERSION
            }
        ]
    );
    drop(log);
    steps.clear();
    let _log =
        UrlLog::open_reporting(&dir.path().join("db"), CACHE, &mut |m| steps.push(m)).unwrap();
    assert!(steps.is_empty());
}

/// The records are never dropped or cleared when they are the only ones
/// left: a log that says 6 with records in `urls` and none in
/// `record_packs`, and a log that lost its `layout` key with packs, a
/// `by_url` and no `urls` (taken for layout 4, whose migration would
/// clear the packs), are refused with their trees kept.
#[test]
fn a_migration_never_drops_the_only_records() {
    let dir = tempfile::tempdir().unwrap();
    {
        let log = filled(dir.path());
        let urls = log.db.open_tree(OLD_URLS).unwrap();
        for (id, bytes) in stored_records(&log) {
            urls.insert(id_key(id), bytes).unwrap();
        }
        log.packs.clear().unwrap();
        log.flush().unwrap();
    }
    let db = refused(dir.path(), "`urls`");
    assert_eq!(db.open_tree(OLD_URLS).unwrap().len() as u64, URLS);
    drop(db);

    let dir = tempfile::tempdir().unwrap();
    let packs = {
        let log = filled(dir.path());
        let by_url = log.db.open_tree(BY_URL).unwrap();
        by_url.insert("http://m/0", &id_key(1)).unwrap();
        // Without the URL index's key too: with it, the log was flipped
        // to this layout and `by_url` is a leftover to drop.
        log.meta.remove(LAYOUT).unwrap();
        log.meta.remove(URL_HASH_KEY).unwrap();
        log.flush().unwrap();
        log.packs.len()
    };
    let db = refused(dir.path(), "record_packs");
    assert_eq!(db.open_tree(RECORD_PACKS).unwrap().len(), packs);
}
