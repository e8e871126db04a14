//! Discover, update, the frontier, batches, reopening and re-queueing.

use super::*;

#[test]
fn discover_dedupes_and_keeps_discovery_order() {
    let (_dir, log) = fresh();
    assert!(log.is_empty());
    let urls = ["http://a/", "http://b/", "http://c/"];
    let got: Vec<_> = urls
        .iter()
        .map(|u| log.discover(&rec(u, State::Queued)).unwrap())
        .collect();
    assert_eq!(got, [Some(1), Some(2), Some(3)]);
    // Known URLs are not recorded again, whatever the new record says.
    assert_eq!(
        log.discover(&rec("http://b/", State::Filtered)).unwrap(),
        None
    );
    assert_eq!(log.discover(&rich("http://d/")).unwrap(), Some(4));
    assert_eq!(log.len(), 4);
    assert_eq!(log.counts().queued, 3);
    assert_eq!(log.counts().error, 1);
    assert_eq!(log.id_of("http://b/").unwrap(), Some(2));
    assert_eq!(log.id_of("http://zzz/").unwrap(), None);
    assert_eq!(log.get(2).unwrap(), Some(rec("http://b/", State::Queued)));
    assert_eq!(log.get(4).unwrap(), Some(rich("http://d/")));
    assert_eq!(log.get(99).unwrap(), None);
    let all = log.page(&Query::default(), None, 10).unwrap();
    assert_eq!(ids(&all), [1, 2, 3, 4]);
    assert_eq!(all[0].1.url, "http://a/");
}

#[test]
fn concurrent_discovers_give_dense_unique_ids() {
    let (_dir, log) = fresh();
    let log = std::sync::Arc::new(log);
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let log = log.clone();
            std::thread::spawn(move || {
                // Every thread offers the same 200 URLs plus 50 of its own.
                let mut mine = Vec::new();
                for i in 0..200 {
                    mine.extend(
                        log.discover(&rec(&format!("http://s/{i}"), State::Queued))
                            .unwrap(),
                    );
                }
                for i in 0..50 {
                    mine.extend(
                        log.discover(&rec(&format!("http://t{t}/{i}"), State::Queued))
                            .unwrap(),
                    );
                }
                mine
            })
        })
        .collect();
    let mut all: Vec<u64> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    all.sort_unstable();
    assert_eq!(all, (1..=400).collect::<Vec<_>>());
    assert_eq!(log.len(), 400);
    assert_eq!(log.counts().queued, 400);
}

#[test]
fn update_moves_records_between_state_indexes() {
    let (_dir, log) = fresh();
    for i in 0..10 {
        log.discover(&rec(&format!("http://h/{i}"), State::Queued))
            .unwrap();
    }
    // (id, new state) in order; counts after all of them are checked below.
    let moves = [
        (1, State::InFlight),
        (1, State::Fetched),
        (2, State::InFlight),
        (2, State::Error),
        (3, State::Filtered),
        (4, State::Saved),
        (4, State::Deleted),
        (5, State::Queued),
        (2, State::Queued),
    ];
    for (id, state) in moves {
        let mut r = log.get(id).unwrap().unwrap();
        r.state = state;
        r.reason = format!("now {}", state.name());
        log.update(id, &r).unwrap();
        assert_eq!(log.get(id).unwrap().unwrap().state, state);
    }
    let want = StateCounts {
        queued: 7,
        in_flight: 0,
        fetched: 1,
        saved: 0,
        filtered: 1,
        error: 0,
        deleted: 1,
    };
    assert_eq!(log.counts(), want);
    assert_eq!(log.len(), 10);
    for state in State::ALL {
        let query = Query {
            state: Some(state),
            text: None,
            ..Query::default()
        };
        let page = log.page(&query, None, 100).unwrap();
        assert_eq!(page.len() as u64, want.get(state), "{state}");
        assert!(page.iter().all(|(_, r)| r.state == state));
    }
    assert_eq!(
        ids(&log
            .page(
                &Query {
                    state: Some(State::Queued),
                    text: None,
                    ..Query::default()
                },
                None,
                100
            )
            .unwrap()),
        [2, 5, 6, 7, 8, 9, 10]
    );

    // A record keeps its URL, and only known ids can be updated.
    let mut moved = log.get(6).unwrap().unwrap();
    moved.url = "http://h/elsewhere".into();
    assert!(matches!(
        log.update(6, &moved),
        Err(StoreError::UrlChanged { id: 6, .. })
    ));
    moved.url = "http://h/7".into(); // id 8's URL
    assert!(matches!(
        log.update(6, &moved),
        Err(StoreError::UrlChanged { id: 6, .. })
    ));
    assert!(matches!(
        log.update(77, &rec("http://h/1", State::Fetched)),
        Err(StoreError::NotFound(77))
    ));
    assert_eq!(log.counts(), want);
}

#[test]
fn frontier_is_fifo_per_queue_and_pages() {
    let (_dir, log) = fresh();
    // Enqueued out of id order: a queue still yields ids in order.
    let entries = [
        (5, 2, 4),
        (3, 2, 4),
        (9, 2, 4),
        (4, 0, 0),
        (1, 2, 4),
        (2, 2, 5),
        (7, 4, 4),
    ];
    for (id, level, queue) in entries {
        log.enqueue(id, level, queue).unwrap();
    }
    log.enqueue(3, 2, 4).unwrap(); // again: no change
    assert_eq!(log.frontier_len(), 7);
    assert_eq!(log.frontier(2, 4, None, 10).unwrap(), [1, 3, 5, 9]);
    assert_eq!(log.frontier(2, 4, None, 2).unwrap(), [1, 3]);
    assert_eq!(log.frontier(2, 4, Some(3), 2).unwrap(), [5, 9]);
    assert_eq!(log.frontier(2, 4, Some(9), 2).unwrap(), Vec::<u64>::new());
    assert_eq!(
        log.frontier(2, 4, Some(u64::MAX), 2).unwrap(),
        Vec::<u64>::new()
    );
    assert_eq!(log.frontier(2, 5, None, 10).unwrap(), [2]);
    assert_eq!(log.frontier(0, 0, None, 10).unwrap(), [4]);
    assert_eq!(log.frontier(4, 4, None, 10).unwrap(), [7]);
    assert_eq!(log.frontier(1, 4, None, 10).unwrap(), Vec::<u64>::new());
    log.dequeue(3, 2, 4).unwrap();
    log.dequeue(3, 2, 4).unwrap(); // again: no change
    log.dequeue(4, 1, 0).unwrap(); // wrong slot: no change
    assert_eq!(log.frontier(2, 4, None, 10).unwrap(), [1, 5, 9]);
    assert_eq!(log.frontier_len(), 6);
    for (level, queue) in [(5, 0), (0, 6), (255, 255)] {
        assert!(matches!(
            log.enqueue(1, level, queue),
            Err(StoreError::BadSlot { .. })
        ));
        assert!(matches!(
            log.dequeue(1, level, queue),
            Err(StoreError::BadSlot { .. })
        ));
        assert!(matches!(
            log.frontier(level, queue, None, 1),
            Err(StoreError::BadSlot { .. })
        ));
    }
}

#[test]
fn apply_writes_a_whole_batch_or_nothing() {
    let (_dir, log) = fresh();
    let start = rec("http://p/", State::Queued);
    assert_eq!(
        log.apply(&[Change::Discover {
            record: &start,
            enqueue: Some((0, 0))
        }])
        .unwrap(),
        [Some(1)]
    );
    assert_eq!(log.frontier(0, 0, None, 10).unwrap(), [1]);

    // Taking it to fetch: in flight and out of the frontier together.
    let in_flight = UrlRecord {
        state: State::InFlight,
        ..start.clone()
    };
    let taken = log
        .apply(&[
            Change::Update {
                id: 1,
                record: &in_flight,
                enqueue: None,
            },
            Change::Dequeue {
                id: 1,
                level: 0,
                queue: 0,
            },
        ])
        .unwrap();
    assert_eq!(taken, [Some(1), Some(1)]);
    assert_eq!(log.frontier_len(), 0);

    // The page's outcome and its links in one batch: a known URL and a
    // repeat within the batch are skipped and not enqueued.
    let done = UrlRecord {
        state: State::Saved,
        status: Some(200),
        ..start.clone()
    };
    let (a, b, filtered) = (
        rec("http://p/a", State::Queued),
        rec("http://p/b", State::Queued),
        rec("http://p/x.png", State::Filtered),
    );
    let page = [
        Change::Update {
            id: 1,
            record: &done,
            enqueue: None,
        },
        Change::Discover {
            record: &a,
            enqueue: Some((2, 3)),
        },
        Change::Discover {
            record: &start,
            enqueue: Some((2, 3)),
        },
        Change::Discover {
            record: &filtered,
            enqueue: None,
        },
        Change::Discover {
            record: &a,
            enqueue: Some((2, 3)),
        },
        Change::Discover {
            record: &b,
            enqueue: Some((2, 4)),
        },
        Change::Enqueue {
            id: 3,
            level: 2,
            queue: 4,
        },
        Change::Dequeue {
            id: 9,
            level: 2,
            queue: 4,
        },
    ];
    assert_eq!(
        log.apply(&page).unwrap(),
        [
            Some(1),
            Some(2),
            None,
            Some(3),
            None,
            Some(4),
            Some(3),
            None
        ]
    );
    assert_eq!(log.frontier(2, 3, None, 10).unwrap(), [2]);
    assert_eq!(log.frontier(2, 4, None, 10).unwrap(), [3, 4]);
    assert_eq!(log.frontier_len(), 3);
    let counts = log.counts();
    assert_eq!(
        (
            counts.saved,
            counts.queued,
            counts.filtered,
            counts.in_flight
        ),
        (1, 2, 1, 0)
    );

    // All known: nothing to write, no transaction.
    let again = [
        Change::Discover {
            record: &a,
            enqueue: None,
        },
        Change::Discover {
            record: &b,
            enqueue: Some((1, 1)),
        },
    ];
    assert_eq!(log.apply(&again).unwrap(), [None, None]);
    assert_eq!(log.apply(&[]).unwrap(), Vec::<Option<u64>>::new());

    // One failing change: nothing of the batch is written.
    let c = rec("http://p/c", State::Queued);
    let failing = [
        Change::Discover {
            record: &c,
            enqueue: Some((2, 3)),
        },
        Change::Enqueue {
            id: 4,
            level: 0,
            queue: 0,
        },
        Change::Update {
            id: 99,
            record: &c,
            enqueue: None,
        },
    ];
    assert!(matches!(log.apply(&failing), Err(StoreError::NotFound(99))));
    let bad_slot = [
        Change::Discover {
            record: &c,
            enqueue: None,
        },
        Change::Discover {
            record: &rec("http://p/d", State::Queued),
            enqueue: Some((9, 0)),
        },
    ];
    assert!(matches!(
        log.apply(&bad_slot),
        Err(StoreError::BadSlot { level: 9, queue: 0 })
    ));
    assert_eq!(log.id_of("http://p/c").unwrap(), None);
    assert_eq!(log.counts(), counts);
    assert_eq!(log.frontier_len(), 3);
    assert_eq!(log.frontier(0, 0, None, 10).unwrap(), Vec::<u64>::new());
    // Ids go on densely after an aborted batch.
    assert_eq!(log.discover(&c).unwrap(), Some(5));
}

#[test]
fn reopening_keeps_everything() {
    let dir = tempfile::tempdir().unwrap();
    let (records, counts, frontier) = {
        let log = open(dir.path());
        for i in 0..50 {
            let mut r = rich(&format!("http://r/{i}"));
            r.state = State::ALL[i % 7];
            log.discover(&r).unwrap();
        }
        let mut r = log.get(10).unwrap().unwrap();
        r.state = State::Saved;
        log.update(10, &r).unwrap();
        log.enqueue(3, 1, 2).unwrap();
        log.enqueue(8, 1, 2).unwrap();
        let records = log.page(&Query::default(), None, 100).unwrap();
        (records, log.counts(), log.frontier(1, 2, None, 10).unwrap())
        // Dropped here without `flush`: sled flushes when the last tree
        // handle goes.
    };
    let log = open(dir.path());
    assert_eq!(log.page(&Query::default(), None, 100).unwrap(), records);
    assert_eq!(log.counts(), counts);
    assert_eq!(log.len(), 50);
    assert_eq!(log.frontier(1, 2, None, 10).unwrap(), frontier);
    assert_eq!(log.frontier_len(), 2);
    assert_eq!(log.id_of("http://r/7").unwrap(), Some(8));
    // Ids go on from where they stopped.
    assert_eq!(
        log.discover(&rec("http://r/new", State::Queued)).unwrap(),
        Some(51)
    );
}

#[test]
fn requeue_in_flight_puts_urls_back_in_their_queue() {
    let dir = tempfile::tempdir().unwrap();
    {
        let log = open(dir.path());
        let cases = [(-2, "user"), (0, "index"), (1, "follow"), (0, "none")];
        for (i, (priority, queue)) in cases.iter().enumerate() {
            let mut r = rec(&format!("http://f/{i}"), State::InFlight);
            r.priority = *priority;
            r.queue = queue.to_string();
            log.discover(&r).unwrap();
        }
        log.discover(&rec("http://f/done", State::Fetched)).unwrap();
        log.flush().unwrap();
    }
    let log = open(dir.path());
    assert_eq!(log.counts().in_flight, 4);
    assert_eq!(log.requeue_in_flight().unwrap(), 4);
    assert_eq!(log.counts().in_flight, 0);
    assert_eq!(log.counts().queued, 4);
    assert_eq!(log.counts().fetched, 1);
    assert_eq!(log.frontier_len(), 4);
    assert_eq!(log.frontier(0, 0, None, 10).unwrap(), [1]);
    assert_eq!(log.frontier(2, 2, None, 10).unwrap(), [2]);
    assert_eq!(log.frontier(3, 4, None, 10).unwrap(), [3]);
    assert_eq!(log.frontier(2, 4, None, 10).unwrap(), [4]);
    let r = log.get(2).unwrap().unwrap();
    assert_eq!(
        (r.state, r.reason.as_str()),
        (State::Queued, REQUEUED_REASON)
    );
    assert_eq!(log.requeue_in_flight().unwrap(), 0);
}

/// The writer's cache of the packs it wrote (`packs.rs`) spares updates a
/// read; it must never say what the disk does not. Past the cache's
/// bound (two generations of 512 packs), after a batch that failed, and
/// for a record written twice in one batch, the state index stays exact.
#[test]
fn updates_stay_right_whatever_the_writer_remembers() {
    let (dir, log) = fresh();
    let records: Vec<UrlRecord> = (0..20_000)
        .map(|i| rec(&format!("http://w/{i}"), State::Queued))
        .collect();
    discover_records(&log, &records, 1000);
    // Ids long forgotten by the writer, and ids it still knows.
    for id in [1, 2, 9_000, 19_999, 20_000] {
        let mut record = log.get(id).unwrap().unwrap();
        record.state = State::InFlight;
        log.update(id, &record).unwrap();
    }
    assert_eq!(log.counts().in_flight, 5);
    check_consistent(&log);

    // One record twice in a batch (one the writer knows), after a
    // discovery twice in it: the second update moves it from where the
    // first left it, not from where the writer last saw it.
    let fresh_url = rec("http://w/new", State::Queued);
    let in_flight = UrlRecord {
        state: State::InFlight,
        ..log.get(19_998).unwrap().unwrap()
    };
    let saved = UrlRecord {
        state: State::Saved,
        ..in_flight.clone()
    };
    let ids = log
        .apply(&[
            Change::Discover {
                record: &fresh_url,
                enqueue: None,
            },
            Change::Update {
                id: 19_998,
                record: &in_flight,
                enqueue: None,
            },
            Change::Discover {
                record: &fresh_url,
                enqueue: None,
            },
            Change::Update {
                id: 19_998,
                record: &saved,
                enqueue: None,
            },
        ])
        .unwrap();
    assert_eq!(ids, [Some(20_001), Some(19_998), None, Some(19_998)]);
    assert_eq!(log.counts().saved, 1);
    check_consistent(&log);

    // A batch that fails writes nothing, and leaves no note behind: its
    // first update must not count as done.
    let fetched = UrlRecord {
        state: State::Fetched,
        ..log.get(1).unwrap().unwrap()
    };
    let renamed = rec("http://w/renamed", State::Fetched);
    let failed = log.apply(&[
        Change::Update {
            id: 1,
            record: &fetched,
            enqueue: None,
        },
        Change::Update {
            id: 2,
            record: &renamed,
            enqueue: None,
        },
    ]);
    assert!(matches!(failed, Err(StoreError::UrlChanged { id: 2, .. })));
    assert_eq!(log.get(1).unwrap().unwrap().state, State::InFlight);
    let error = UrlRecord {
        state: State::Error,
        ..fetched.clone()
    };
    log.update(1, &error).unwrap();
    check_consistent(&log);

    // A URL the writer knows cannot change either.
    assert!(matches!(
        log.update(20_000, &renamed),
        Err(StoreError::UrlChanged { id: 20_000, .. })
    ));

    // Reopened, with no notes: the same, read from the records.
    drop(log);
    let log = open(dir.path());
    let mut record = log.get(20_000).unwrap().unwrap();
    record.state = State::Deleted;
    log.update(20_000, &record).unwrap();
    assert_eq!(log.counts().deleted, 1);
    check_consistent(&log);
}

/// A batch that moves many ids of one block writes that block once and
/// keeps it in the writer's memory; a batch that fails leaves neither
/// sled nor that memory changed, so the next batch moves from what sled
/// holds.
#[test]
fn blocks_coalesce_and_a_failed_batch_leaves_them_as_sled_has_them() {
    let (_dir, log) = fresh();
    let records: Vec<UrlRecord> = (0..50)
        .map(|i| rec(&format!("http://b/{i}"), State::Queued))
        .collect();
    let discover: Vec<Change<'_>> = records
        .iter()
        .map(|record| Change::Discover {
            record,
            enqueue: Some((2, 4)),
        })
        .collect();
    log.apply(&discover).unwrap();
    // One key per state block and per frontier block, not per URL.
    assert_eq!(log.by_state.len(), 1);
    assert_eq!(log.frontier.len(), 1);
    assert_eq!(log.lock_writer().blocks.len(), 2);

    // Ten moves and a change that fails: nothing of it stays.
    let taken: Vec<(u64, UrlRecord)> = (1..=10)
        .map(|id| {
            let mut r = log.get(id).unwrap().unwrap();
            r.state = State::InFlight;
            (id, r)
        })
        .collect();
    let mut batch: Vec<Change<'_>> = Change::updates(&taken).collect();
    batch.extend((1..=10).map(|id| Change::Dequeue {
        id,
        level: 2,
        queue: 4,
    }));
    let missing = rec("http://b/missing", State::Saved);
    batch.push(Change::Update {
        id: 999,
        record: &missing,
        enqueue: None,
    });
    assert!(matches!(log.apply(&batch), Err(StoreError::NotFound(999))));
    assert_eq!(
        log.lock_writer().blocks.len(),
        0,
        "forgotten after a failure"
    );
    assert_eq!(log.counts().queued, 50);
    assert_eq!(log.frontier(2, 4, None, 3).unwrap(), [1, 2, 3]);

    // The same batch without the failing change: all in.
    batch.pop();
    log.apply(&batch).unwrap();
    assert_eq!(log.counts().in_flight, 10);
    assert_eq!(log.frontier(2, 4, None, 3).unwrap(), [11, 12, 13]);
    assert_eq!(log.frontier_len(), 40);
    check_consistent(&log);
    // Moved back from memory, and the same after reopening.
    assert_eq!(log.requeue_in_flight().unwrap(), 10);
    assert_eq!(log.frontier(2, 4, None, 3).unwrap(), [1, 2, 3]);
    check_consistent(&log);
}

/// A discovery that enqueues an id already in that queue (enqueued
/// before it was discovered) counts it in the frontier once.
#[test]
fn discovering_into_a_queue_that_holds_the_id_counts_it_once() {
    let (dir, log) = fresh();
    for i in 0..3 {
        log.discover(&rec(&format!("http://q/{i}"), State::Fetched))
            .unwrap();
    }
    log.enqueue(4, 2, 4).unwrap();
    assert_eq!(log.frontier_len(), 1);
    let id = log
        .apply(&[Change::Discover {
            record: &rec("http://q/3", State::Queued),
            enqueue: Some((2, 4)),
        }])
        .unwrap()[0];
    assert_eq!(id, Some(4));
    assert_eq!(log.frontier(2, 4, None, 10).unwrap(), [4]);
    assert_eq!(log.frontier_len(), 1);
    check_consistent(&log);
    drop(log);
    let log = open(dir.path());
    assert_eq!(log.frontier_len(), 1);
}

/// Each queue's content, not only its order and the total, against a
/// model of the changes applied: discoveries with and without a queue,
/// enqueues (some twice), dequeues (some from the wrong queue), over
/// several blocks, in batches.
#[test]
fn each_queue_holds_exactly_what_the_changes_put_there() {
    use std::collections::{BTreeMap, BTreeSet};
    let (dir, log) = fresh();
    let mut model: BTreeMap<(u8, u8), BTreeSet<u64>> = BTreeMap::new();
    let records: Vec<UrlRecord> = (0..9000u64)
        .map(|i| rec(&format!("http://f/{i}"), State::Queued))
        .collect();
    // A cheap deterministic mix (no RNG dependency): slot of step n.
    let slot = |n: u64| (((n * 7) % 5) as u8, ((n * 11 + n / 3) % 6) as u8);
    for (c, chunk) in records.chunks(1500).enumerate() {
        let changes: Vec<Change<'_>> = chunk
            .iter()
            .enumerate()
            .map(|(i, record)| {
                let n = (c * 1500 + i) as u64;
                Change::Discover {
                    record,
                    enqueue: (!n.is_multiple_of(4)).then(|| slot(n)),
                }
            })
            .collect();
        let got = log.apply(&changes).unwrap();
        for (change, id) in changes.iter().zip(got) {
            if let (
                Change::Discover {
                    enqueue: Some(s), ..
                },
                Some(id),
            ) = (change, id)
            {
                model.entry(*s).or_default().insert(id);
            }
        }
    }
    for round in 0..3u64 {
        let mut changes = Vec::new();
        for id in (1 + round..=9000).step_by(7) {
            let (level, queue) = slot(id * 3 + round);
            changes.push(if (id + round) % 3 == 0 {
                Change::Dequeue { id, level, queue }
            } else {
                Change::Enqueue { id, level, queue }
            });
        }
        log.apply(&changes).unwrap();
        for change in &changes {
            match *change {
                Change::Enqueue { id, level, queue } => {
                    model.entry((level, queue)).or_default().insert(id);
                }
                Change::Dequeue { id, level, queue } => {
                    model.entry((level, queue)).or_default().remove(&id);
                }
                _ => {}
            }
        }
    }
    let check = |log: &UrlLog| {
        let mut total = 0;
        for level in 0..LEVELS {
            for queue in 0..QUEUE_NAMES.len() as u8 {
                let want: Vec<u64> = model
                    .get(&(level, queue))
                    .map(|s| s.iter().copied().collect())
                    .unwrap_or_default();
                let mut got: Vec<u64> = Vec::new();
                loop {
                    let chunk = log
                        .frontier(level, queue, got.last().copied(), 777)
                        .unwrap();
                    if chunk.is_empty() {
                        break;
                    }
                    got.extend(chunk);
                }
                assert_eq!(got, want, "queue ({level}, {queue})");
                total += want.len() as u64;
            }
        }
        assert_eq!(log.frontier_len(), total);
    };
    check(&log);
    check_consistent(&log);
    drop(log);
    let log = open(dir.path());
    check(&log);
}

/// A URL discovered and updated in the same batch: the update finds the
/// record the batch just wrote into its pack (same URL: the new state
/// stands; another URL: `UrlChanged`, and nothing of the batch is
/// written).
#[test]
fn a_discovery_then_its_update_in_one_batch() {
    let (_dir, log) = fresh();
    log.discover(&rec("http://b/0", State::Queued)).unwrap();
    let new = rec("http://b/1", State::Queued);
    let mut fetched = rec("http://b/1", State::Fetched);
    fetched.link_depth = 3;
    let ids = log
        .apply(&[
            Change::Discover {
                record: &new,
                enqueue: Some((2, 4)),
            },
            Change::Update {
                id: 2,
                record: &fetched,
                enqueue: None,
            },
        ])
        .unwrap();
    assert_eq!(ids, [Some(2), Some(2)]);
    assert_eq!(log.get(2).unwrap(), Some(fetched));
    assert_eq!(log.counts().fetched, 1);
    assert_eq!(log.counts().queued, 1);
    check_consistent(&log);

    let other = rec("http://b/2", State::Queued);
    let renamed = rec("http://b/elsewhere", State::Fetched);
    assert!(matches!(
        log.apply(&[
            Change::Discover {
                record: &other,
                enqueue: None,
            },
            Change::Update {
                id: 3,
                record: &renamed,
                enqueue: None,
            },
        ]),
        Err(StoreError::UrlChanged { id: 3, .. })
    ));
    assert_eq!(log.get(3).unwrap(), None);
    assert_eq!(log.id_of("http://b/2").unwrap(), None);
    assert_eq!(log.len(), 2);
    assert_eq!(log.discover(&other).unwrap(), Some(3), "id 3 not spent");
    check_consistent(&log);
}

/// Ids no record has: id 0 (never given out), the next id, the last
/// possible one. An update of any is `NotFound`, never a panic, and
/// pages from the ends of the id space are empty.
#[test]
fn ids_outside_the_log_are_not_found() {
    let (_dir, log) = fresh();
    discover_each(&log, "o", 10);
    for id in [0, 11, 12, u64::MAX / 8 * 8, u64::MAX - 1, u64::MAX] {
        let record = rec("http://o/0", State::Fetched);
        assert!(
            matches!(log.update(id, &record), Err(StoreError::NotFound(i)) if i == id),
            "update {id}"
        );
        assert_eq!(log.get(id).unwrap(), None, "get {id}");
    }
    let all = Query::default();
    let queued = Query {
        state: Some(State::Queued),
        ..Query::default()
    };
    for query in [&all, &queued] {
        assert!(log.page(query, Some(u64::MAX - 1), 10).unwrap().is_empty());
        assert!(log.page(query, Some(u64::MAX), 10).unwrap().is_empty());
        assert!(log.page_back(query, Some(1), 10).unwrap().is_empty());
        assert!(log.page_back(query, Some(0), 10).unwrap().is_empty());
    }
    assert_eq!(log.len(), 10);
    check_consistent(&log);
}
