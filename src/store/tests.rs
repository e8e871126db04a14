//! Tests of the URL log on real sled databases in temporary folders.

use std::path::Path;

use regex::Regex;
use tempfile::TempDir;

use super::index::{LAYOUT, count_key, id_key, parse_frontier_key, parse_id, state_key};
use super::record::{FORMAT, decode, encode};
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
    }
}

fn ids(page: &[(u64, UrlRecord)]) -> Vec<u64> {
    page.iter().map(|(id, _)| *id).collect()
}

#[test]
fn state_names_round_trip() {
    for state in State::ALL {
        assert_eq!(state.name().parse::<State>(), Ok(state));
        assert_eq!(State::from_byte(state.byte()), Some(state));
    }
    assert_eq!("IN_FLIGHT".parse::<State>(), Ok(State::InFlight));
    assert!("fetching".parse::<State>().is_err());
    assert_eq!(State::from_byte(7), None);
    assert_eq!(ErrorClass::Temporary.name(), "temporary");
    assert_eq!(ErrorClass::Permanent.name(), "permanent");
}

#[test]
fn frontier_slots_follow_spec_order() {
    let cases = [
        (-2, "user", (0, 0)),
        (-5, "redirect", (0, 1)),
        (0, "index", (2, 2)),
        (1, "index_follow", (3, 3)),
        (2, "follow", (4, 4)),
        (9, "refresh", (4, 5)),
        (0, "none", (2, 4)),
        (0, "", (2, 4)),
    ];
    for (priority, queue, slot) in cases {
        assert_eq!(frontier_slot(priority, queue), slot, "{priority} {queue}");
    }
}

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
                    text: None
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

#[test]
fn paging_by_state_respects_after_before_and_limit() {
    let (_dir, log, model) = mixed_log();
    let states = State::ALL.into_iter().map(Some).chain([None]);
    for state in states {
        let query = Query { state, text: None };
        let listed: Vec<u64> = model
            .iter()
            .filter(|(_, s)| state.is_none_or(|w| w == *s))
            .map(|(id, _)| *id)
            .collect();
        for bound in [
            None,
            Some(0),
            Some(1),
            Some(17),
            Some(30),
            Some(59),
            Some(60),
            Some(u64::MAX),
        ] {
            for limit in [0, 1, 3, 100] {
                let forward = log.page(&query, bound, limit).unwrap();
                let want: Vec<u64> = listed
                    .iter()
                    .copied()
                    .filter(|id| bound.is_none_or(|a| *id > a))
                    .take(limit)
                    .collect();
                assert_eq!(
                    ids(&forward),
                    want,
                    "{state:?} after {bound:?} limit {limit}"
                );
                assert!(forward.iter().all(|(_, r)| query.matches(r)));

                let back = log.page_back(&query, bound, limit).unwrap();
                let want: Vec<u64> = listed
                    .iter()
                    .rev()
                    .copied()
                    .filter(|id| bound.is_none_or(|b| *id < b))
                    .take(limit)
                    .collect();
                assert_eq!(ids(&back), want, "{state:?} before {bound:?} limit {limit}");
                assert!(back.iter().all(|(_, r)| query.matches(r)));
            }
        }
    }
}

#[test]
fn paging_walks_a_whole_state_page_by_page() {
    let (_dir, log, model) = mixed_log();
    let query = Query {
        state: Some(State::Queued),
        text: None,
    };
    let want: Vec<u64> = model
        .iter()
        .filter(|(_, s)| *s == State::Queued)
        .map(|(id, _)| *id)
        .collect();
    let (mut seen, mut after) = (Vec::new(), None);
    loop {
        let page = log.page(&query, after, 2).unwrap();
        let Some((last, _)) = page.last() else { break };
        after = Some(*last);
        seen.extend(ids(&page));
    }
    assert_eq!(seen, want);
    let (mut seen, mut before) = (Vec::new(), None);
    loop {
        let page = log.page_back(&query, before, 2).unwrap();
        let Some((last, _)) = page.last() else { break };
        before = Some(*last);
        seen.extend(ids(&page));
    }
    seen.reverse();
    assert_eq!(seen, want);
}

#[test]
fn text_filter_searches_url_and_reason() {
    let (_dir, log) = fresh();
    let rows = [
        ("http://x/docs/a", State::Fetched, "fetched: HTTP 200"),
        (
            "http://x/img/b.png",
            State::Filtered,
            "rule 2 \"no images\" excludes it",
        ),
        (
            "http://x/docs/c",
            State::Filtered,
            "robots.txt disallows /docs/c",
        ),
        ("http://x/d", State::Error, "HTTP 404"),
        ("http://x/docs/e", State::Queued, "link from 1"),
    ];
    for (url, state, reason) in rows {
        let mut r = rec(url, state);
        r.reason = reason.into();
        log.discover(&r).unwrap();
    }
    let cases: [(Option<State>, &str, &[u64]); 7] = [
        (None, "docs", &[1, 3, 5]),
        (None, "robots", &[3]),
        (None, "(?i)NO IMAGES", &[2]),
        (Some(State::Filtered), "docs", &[3]),
        (Some(State::Filtered), "x/", &[2, 3]),
        (Some(State::Fetched), "404", &[]),
        (None, "404$", &[4]),
    ];
    for (state, re, want) in cases {
        let query = Query {
            state,
            text: Some(Regex::new(re).unwrap()),
        };
        assert_eq!(
            ids(&log.page(&query, None, 10).unwrap()),
            want,
            "{state:?} {re}"
        );
        let mut back = ids(&log.page_back(&query, None, 10).unwrap());
        back.reverse();
        assert_eq!(back, want, "back {state:?} {re}");
        // The filter applies before the limit: one match per page.
        if let Some(first) = want.first() {
            assert_eq!(ids(&log.page(&query, None, 1).unwrap()), [*first]);
        }
    }
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
        log.urls.insert(id_key(5), bytes).unwrap();
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
    log.urls.insert(id_key(5), bytes).unwrap();
    let mut fixed = rec("http://c/4", State::Fetched);
    fixed.reason = "rewritten".into();
    log.update(5, &fixed).unwrap();
    assert_eq!(log.get(5).unwrap(), Some(fixed));
    assert_eq!(log.counts().fetched, 1);
    assert_eq!(log.counts().queued, 11);
    // An unreadable header cannot be moved between indexes: an error.
    log.urls.insert(id_key(6), vec![]).unwrap();
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
    log.urls
        .insert(id_key(7), vec![FORMAT, State::InFlight.byte(), 9])
        .unwrap();
    assert!(matches!(
        log.requeue_in_flight(),
        Err(StoreError::Corrupt { id: 7, .. })
    ));
    assert_eq!(log.get(8).unwrap().unwrap().state, State::Queued);
}

#[test]
fn damaged_index_entries_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    {
        let log = open(dir.path());
        for i in 0..20 {
            log.discover(&rec(&format!("http://i/{i}"), State::ALL[i % 3]))
                .unwrap();
        }
        // Counts that no longer add up are rebuilt from the index on open.
        log.meta
            .insert(count_key(State::Fetched), &99u64.to_be_bytes())
            .unwrap();
        log.meta
            .insert(count_key(State::Queued), b"junk".as_slice())
            .unwrap();
        log.flush().unwrap();
    }
    let log = open(dir.path());
    assert_eq!(log.counts().queued, 7);
    assert_eq!(log.counts().in_flight, 7);
    assert_eq!(log.counts().fetched, 6);
    assert_eq!(log.len(), 20);

    // A malformed index key is an error; so is a bad URL index value.
    log.by_state
        .insert([State::Fetched.byte(), 1, 2], Vec::new())
        .unwrap();
    let fetched = Query {
        state: Some(State::Fetched),
        text: None,
    };
    assert!(matches!(
        log.page(&fetched, None, 100),
        Err(StoreError::BadEntry {
            tree: "by_state",
            ..
        })
    ));
    log.by_url.insert("http://i/3", b"xy".as_slice()).unwrap();
    assert!(matches!(
        log.id_of("http://i/3"),
        Err(StoreError::BadEntry { tree: "by_url", .. })
    ));
    // A layout this build does not know is refused on open.
    log.meta.insert(LAYOUT, [9u8].as_slice()).unwrap();
    drop(log);
    assert!(matches!(
        UrlLog::open(&dir.path().join("db"), CACHE),
        Err(StoreError::Open { .. })
    ));
}

#[test]
fn export_json_has_the_log_keys() {
    let value = export_json(&rich("http://j/"), 12);
    assert_eq!(value["id"], 12);
    assert_eq!(value["url"], "http://j/");
    assert_eq!(value["state"], "error");
    assert_eq!(value["status"], 503);
    assert_eq!(value["reason"], "HTTP 503, retry 2 of 3");
    assert_eq!(value["error"]["class"], "temporary");
    assert_eq!(value["error"]["count"], 2);
    assert_eq!(value["trace"][0]["rule"], "3.2");
    assert_eq!(value["trace"][1]["line"], 4);
    assert_eq!(value["meta"][1]["value"], "fr");
    assert_eq!(value["priority"], -2);
    assert_eq!(value["referrer"], 42);
    assert!(value["redirect_to"].is_null());
    let mut bare = rec("http://j/2", State::InFlight);
    bare.status = None;
    let value = export_json(&bare, 1);
    assert_eq!(value["state"], "in-flight");
    assert!(value["status"].is_null());
    assert!(value["error"].is_null());
    // Every record field is exported.
    let fields = serde_json::to_value(UrlRecord::default()).unwrap();
    for key in fields.as_object().unwrap().keys() {
        assert!(value.get(key).is_some(), "missing {key}");
    }
}

#[test]
fn two_hundred_thousand_urls_page_by_state() {
    const N: u64 = 200_000;
    let (_dir, log) = fresh();
    // Discovered the way the crawler does, a page's links per batch, and
    // each link offered twice (the second time it is known).
    const LINKS: u64 = 250;
    for first in (0..N).step_by(LINKS as usize) {
        let records: Vec<UrlRecord> = (first..first + LINKS)
            .map(|i| UrlRecord {
                discovered_ms: i,
                ..rec(
                    &format!("http://host{}.example/p/{i}", i % 97),
                    State::Queued,
                )
            })
            .collect();
        let changes: Vec<Change<'_>> = records
            .iter()
            .chain(&records)
            .map(|record| Change::Discover {
                record,
                enqueue: None,
            })
            .collect();
        let ids = log.apply(&changes).unwrap();
        let want: Vec<Option<u64>> = (first + 1..=first + LINKS)
            .map(Some)
            .chain((0..LINKS).map(|_| None))
            .collect();
        assert_eq!(ids, want);
    }
    // Every even id becomes fetched, a batch of pages at a time.
    let evens: Vec<u64> = (2..=N).step_by(2).collect();
    for chunk in evens.chunks(LINKS as usize) {
        let records: Vec<(u64, UrlRecord)> = chunk
            .iter()
            .map(|&id| {
                let mut r = log.get(id).unwrap().unwrap();
                r.state = State::Fetched;
                r.status = Some(200);
                (id, r)
            })
            .collect();
        let changes: Vec<Change<'_>> = records
            .iter()
            .map(|(id, record)| Change::Update {
                id: *id,
                record,
                enqueue: None,
            })
            .collect();
        log.apply(&changes).unwrap();
    }
    assert_eq!(log.len(), N);
    assert_eq!(log.counts().fetched, N / 2);
    assert_eq!(log.counts().queued, N / 2);
    for (state, parity) in [(State::Fetched, 0), (State::Queued, 1)] {
        let query = Query {
            state: Some(state),
            text: None,
        };
        let (mut after, mut seen, mut expect) = (None, 0u64, 2 - parity);
        loop {
            let page = log.page(&query, after, 1_000).unwrap();
            let Some((last, _)) = page.last() else { break };
            for (id, r) in &page {
                assert_eq!((*id, r.state), (expect, state));
                assert_eq!(r.discovered_ms, id - 1);
                expect += 2;
            }
            seen += page.len() as u64;
            after = Some(*last);
        }
        assert_eq!(seen, N / 2, "{state}");
        let tail = log.page_back(&query, None, 3).unwrap();
        assert_eq!(ids(&tail), [N - parity, N - parity - 2, N - parity - 4]);
        let middle = log.page(&query, Some(N / 2 + 1), 2).unwrap();
        assert_eq!(ids(&middle), [N / 2 + 2 + parity, N / 2 + 4 + parity]);
    }
    let none = Query {
        state: Some(State::Error),
        text: None,
    };
    assert!(log.page(&none, None, 10).unwrap().is_empty());
}

/// Checks every invariant the transactions keep: records decode, ids are
/// dense, the URL and state indexes match the records exactly, the counts
/// match the state index, and frontier entries name records.
fn check_consistent(log: &UrlLog) {
    let mut counts = [0u64; 7];
    let mut records = 0u64;
    for entry in log.urls.iter() {
        let (key, value) = entry.unwrap();
        let id = parse_id(&key).expect("8-byte id key");
        records += 1;
        assert_eq!(id, records, "ids are dense from 1");
        let record = decode(&value).unwrap_or_else(|e| panic!("record {id}: {e}"));
        assert_eq!(log.id_of(&record.url).unwrap(), Some(id), "by_url of {id}");
        assert!(
            log.by_state
                .contains_key(state_key(record.state, id))
                .unwrap()
        );
        counts[record.state as usize] += 1;
    }
    assert_eq!(
        log.by_url.len() as u64,
        records,
        "by_url has one entry per record"
    );
    assert_eq!(
        log.by_state.len() as u64,
        records,
        "by_state has one entry per record"
    );
    assert_eq!(log.counts(), StateCounts::from_array(counts));
    assert_eq!(log.len(), records);
    let mut frontier = 0;
    for key in log.frontier.iter().keys() {
        let (_, _, id) = parse_frontier_key(&key.unwrap()).expect("frontier key");
        assert!(id >= 1 && id <= records, "frontier names record {id}");
        frontier += 1;
    }
    assert_eq!(log.frontier_len(), frontier);
}

#[test]
fn consistency_checker_sees_the_other_tests_logs_as_consistent() {
    let (_dir, log, _) = mixed_log();
    check_consistent(&log);
    let (_dir, log) = fresh();
    check_consistent(&log);
}

/// The environment variable that makes [`crash_writer`] run: the database
/// folder to write to.
const CRASH_DB: &str = "CRAWLSPACE_STORE_CRASH_DB";

/// The child of [`kill_9_at_any_moment_loses_nothing_flushed`]: crawls a
/// synthetic site in the log the way the crawler does (take three queued
/// URLs in flight, then record each page with its new links) until it is
/// killed. After every flush it prints the number of records.
#[test]
#[ignore = "a child process of kill_9_at_any_moment_loses_nothing_flushed"]
fn crash_writer() {
    let Some(db) = std::env::var_os(CRASH_DB) else {
        return;
    };
    let log = UrlLog::open(Path::new(&db), CACHE).unwrap();
    log.requeue_in_flight().unwrap();
    let seed = rec("http://k/", State::Queued);
    log.apply(&[Change::Discover {
        record: &seed,
        enqueue: Some((2, 4)),
    }])
    .unwrap();
    for round in 0u64.. {
        let ids = log.frontier(2, 4, None, 3).unwrap();
        assert!(!ids.is_empty(), "the synthetic site never runs out");
        let taken: Vec<(u64, UrlRecord)> = ids
            .iter()
            .map(|&id| {
                let mut r = log.get(id).unwrap().unwrap();
                r.state = State::InFlight;
                (id, r)
            })
            .collect();
        let mut take = Vec::new();
        for (id, record) in &taken {
            take.push(Change::Update {
                id: *id,
                record,
                enqueue: None,
            });
            take.push(Change::Dequeue {
                id: *id,
                level: 2,
                queue: 4,
            });
        }
        log.apply(&take).unwrap();
        for (id, mut page) in taken {
            page.state = if id % 5 == 0 {
                State::Error
            } else {
                State::Saved
            };
            page.status = Some(200);
            // Seven new links and one the log already has.
            let links: Vec<UrlRecord> = (0..7)
                .map(|j| rec(&format!("http://k/{id}/{j}"), State::Queued))
                .chain([seed.clone()])
                .collect();
            let mut changes = vec![Change::Update {
                id,
                record: &page,
                enqueue: None,
            }];
            changes.extend(links.iter().map(|record| Change::Discover {
                record,
                enqueue: Some((2, 4)),
            }));
            log.apply(&changes).unwrap();
        }
        if round % 20 == 19 {
            log.flush().unwrap();
            println!("flushed {}", log.len());
        }
    }
}

/// SPEC §3: the log survives `kill -9` at any moment. A child process
/// writes like the crawler and is killed (SIGKILL) while writing, three
/// times (`CRAWLSPACE_STORE_KILL_ROUNDS`) over the same database; after each kill the log reopens
/// consistent (no half-written batch), keeps everything flushed before the
/// kill, and re-queues what was in flight.
#[test]
fn kill_9_at_any_moment_loses_nothing_flushed() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::{Command, Stdio};

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db");
    let mut durable = 0;
    // CRAWLSPACE_STORE_KILL_ROUNDS=50 soaks it; 3 rounds by default.
    let rounds: u64 = std::env::var("CRAWLSPACE_STORE_KILL_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    for round in 0..rounds {
        // Kills land after 3 to 15 flushes, at varying points of a batch.
        let flushes = 3 + round * 5 % 13;
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["store::tests::crash_writer", "--exact", "--include-ignored"])
            .args(["--nocapture", "--test-threads=1"])
            .env(CRASH_DB, &db)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut seen = 0;
        for line in stdout.lines() {
            let line = line.unwrap();
            if let Some(n) = line.strip_prefix("flushed ") {
                durable = n.parse().unwrap();
                seen += 1;
                if seen == flushes {
                    break;
                }
            }
        }
        child.kill().unwrap(); // SIGKILL on Unix: no destructor runs
        child.wait().unwrap();
        if seen < flushes {
            let mut stderr = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut stderr)
                .unwrap();
            panic!("the writer stopped early:\n{stderr}");
        }

        let log = UrlLog::open(&db, CACHE).expect("reopen after kill -9");
        check_consistent(&log);
        assert!(
            log.len() >= durable,
            "{} records, {durable} were flushed",
            log.len()
        );
        let in_flight = log.counts().in_flight;
        assert_eq!(log.requeue_in_flight().unwrap(), in_flight);
        assert_eq!(log.counts().in_flight, 0);
        check_consistent(&log);
    }
}
