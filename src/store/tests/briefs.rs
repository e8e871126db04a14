//! The packed `briefs` tree against the records it mirrors: every walk
//! through it gives what the same walk through the records gives.

use super::*;

/// A brief with its id, owned.
pub(super) type Owned = (u64, String, State, u32, Option<String>);

/// Every brief of `(after, upto]` as `scan_briefs` walks it (the packed
/// tree, on a log that has one).
pub(super) fn packed(log: &UrlLog, after: Option<u64>, upto: Option<u64>) -> Vec<Owned> {
    collect(|visit| log.scan_briefs(after, upto, visit))
}

/// The same through the records.
fn from_records(log: &UrlLog, after: Option<u64>, upto: Option<u64>) -> Vec<Owned> {
    collect(|visit| log.walk_record_briefs(after, upto, visit))
}

fn collect(
    walk: impl FnOnce(&mut dyn FnMut(u64, Brief<'_>) -> bool) -> Result<u64, StoreError>,
) -> Vec<Owned> {
    let mut got = Vec::new();
    walk(&mut |id, b| {
        got.push((
            id,
            b.url.to_string(),
            b.state,
            b.link_depth,
            b.content_type.map(str::to_string),
        ));
        true
    })
    .expect("walk");
    got
}

/// Batches of discoveries and updates over several runs and blocks, with
/// content types that the table holds and ones it cannot.
fn fill(log: &UrlLog, content_types: &[Option<String>]) -> u64 {
    let mut id = 0;
    for batch in 0..6u32 {
        let records: Vec<UrlRecord> = (0..150u32)
            .map(|i| UrlRecord {
                link_depth: (i * 7 + batch) % 13,
                ..rec(
                    &format!("http://h{}/b{batch}/s{}/page-{i}.html", batch % 2, i % 4),
                    State::ALL[(i as usize) % State::ALL.len()],
                )
            })
            .collect();
        // A duplicate in the batch: not a new id, not a new run entry.
        let dup = rec("http://h0/b0/s0/page-0.html", State::Queued);
        let mut changes: Vec<Change<'_>> = records
            .iter()
            .map(|record| Change::Discover {
                record,
                enqueue: None,
            })
            .collect();
        changes.push(Change::Discover {
            record: &dup,
            enqueue: None,
        });
        let ids = log.apply(&changes).expect("discover");
        id = ids.iter().flatten().copied().max().unwrap_or(id);
        // Every third URL of the batch fetched, with a content type.
        let updated: Vec<(u64, UrlRecord)> = ids
            .iter()
            .zip(&records)
            .enumerate()
            .filter_map(|(i, (id, record))| Some((i, (*id)?, record)))
            .filter(|(i, ..)| i % 3 == 0)
            .map(|(i, id, record)| {
                let n = i / 3 + 50 * batch as usize;
                let content_type = content_types[n % content_types.len()].clone();
                (
                    id,
                    UrlRecord {
                        state: State::Saved,
                        content_type,
                        // Some come back at another depth (a URL revived
                        // from a nofollow link).
                        link_depth: record.link_depth + u32::from(batch < 2 && i % 4 == 0),
                        ..record.clone()
                    },
                )
            })
            .collect();
        let changes: Vec<Change<'_>> = Change::updates(&updated).collect();
        log.apply(&changes).expect("update");
    }
    id
}

fn assert_walks_agree(log: &UrlLog, last: u64) {
    let whole = from_records(log, None, None);
    assert_eq!(whole.len() as u64, last, "one brief per id");
    assert_eq!(packed(log, None, None), whole);
    for (after, upto) in [
        (Some(0), Some(1)),
        (Some(1), Some(255)),
        (Some(200), Some(600)),
        (Some(255), Some(256)),
        (Some(512), None),
        (None, Some(77)),
        (Some(last), None),
        (Some(400), Some(300)),
    ] {
        assert_eq!(
            packed(log, after, upto),
            from_records(log, after, upto),
            "({after:?}, {upto:?}]"
        );
    }
    // A walk that stops early.
    let mut seen = 0;
    let visited = log
        .scan_briefs(None, None, |_, _| {
            seen += 1;
            seen < 10
        })
        .expect("walk");
    assert_eq!((visited, seen), (10, 10));
}

#[test]
fn packed_briefs_match_the_records() {
    let (dir, log) = fresh();
    let types = [
        None,
        Some("text/html".to_string()),
        Some("application/pdf".to_string()),
        Some("odd\ntype".to_string()),
        Some(String::new()),
    ];
    let last = fill(&log, &types);
    assert_eq!(last, 900);
    assert_walks_agree(&log, last);
    // Runs of a transaction's URLs, blocks of 256 ids: the walk reads far
    // fewer entries than there are URLs.
    assert!(log.briefs.len() <= 6 + 4, "{} entries", log.briefs.len());
    // Reopened: the table and the walks are the same.
    drop(log);
    let log = open(dir.path());
    assert_eq!(log.content_types_known().len(), 2);
    assert_walks_agree(&log, last);
}

#[test]
fn content_types_past_the_table_are_read_from_the_record() {
    let (_dir, log) = fresh();
    let types: Vec<Option<String>> = (0..300).map(|i| Some(format!("type/{i}"))).collect();
    let last = fill(&log, &types);
    assert_eq!(log.content_types_known().len(), 254, "the table is full");
    assert_walks_agree(&log, last);
}

/// A log of the first layout has no briefs: opening it builds them from
/// the records (`migrate.rs`).
#[test]
fn logs_of_the_first_layout_get_their_briefs_built() {
    let dir = tempfile::tempdir().expect("temp dir");
    let last = {
        let log = open(dir.path());
        let types = [Some("text/html".into()), None, Some("image/png".into())];
        let last = fill(&log, &types);
        downgrade(&log, 1);
        assert!(log.briefs.is_empty());
        last
    };
    let log = open(dir.path());
    assert_eq!(
        log.meta.get(LAYOUT).unwrap().as_deref(),
        Some(&[LAYOUT_VERSION][..])
    );
    assert!(!log.briefs.is_empty(), "briefs built");
    assert_walks_agree(&log, last);
    assert_eq!(log.content_types_known().len(), 2);
}

/// A crawl that commits one or two new URLs at a time still packs many
/// URLs to a run; a damaged last run is left alone and a new one started.
#[test]
fn small_transactions_append_to_the_last_run() {
    let (_dir, log) = fresh();
    for i in 0..2000 {
        let record = UrlRecord {
            link_depth: i % 7,
            ..rec(
                &format!("http://h/section/{}/page-{i}.html", i % 10),
                State::Queued,
            )
        };
        log.discover(&record).expect("discover");
    }
    let runs = log.briefs.scan_prefix(b"r").count();
    assert!(runs <= 40, "{runs} runs for 2,000 URLs");
    assert_walks_agree(&log, 2000);
    // Damage the last run: the next URL starts a run of its own, and the
    // walk passes over what it cannot read without a panic.
    let (key, _) = log
        .briefs
        .scan_prefix(b"r")
        .last()
        .expect("a run")
        .expect("read");
    log.briefs.insert(&key, &[0xff, 0xff][..]).expect("damage");
    let next = rec("http://h/after-the-damage", State::Queued);
    log.discover(&next).expect("discover");
    assert_eq!(log.briefs.scan_prefix(b"r").count(), runs + 1);
    let walked = packed(&log, None, None);
    assert_eq!(
        walked.last().map(|b| b.1.as_str()),
        Some("http://h/after-the-damage")
    );
    assert!(
        walked.len() < 2001,
        "the damaged run's URLs are passed over"
    );
}
