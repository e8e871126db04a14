//! The URL log benchmark: a real sled database in a temporary folder,
//! filled with 1,000,000 synthetic URLs (half of them then updated to
//! `fetched`), with a 64 MiB page cache.
//!
//! Measured on that log:
//! - `discover`: recording one new URL alone (one sled transaction over the
//!   record, URL index, state index and counters);
//! - `discover_known`: offering a URL already in the log (no transaction);
//! - `apply_100_links`: one batch of 100 new URLs, each enqueued, the way
//!   the crawler records a page's links;
//! - `update`: moving one record to another state;
//! - `take`: marking one URL in flight and dequeueing it, one batch;
//! - `get`, `id_of`: point reads;
//! - `page`: a 50-record page of one state (first, middle, tail), of the
//!   whole log, and of a text search that matches one record in 100;
//! - `frontier`: a 50-id page of one frontier queue.
//!
//! The fill itself is timed and printed (URLs per second, size on disk): it
//! discovers in batches of 100 and updates in batches of 100.
//! `cargo bench --bench store` runs criterion. With
//! `CRAWLSPACE_BENCH_SUMMARY=1` it skips criterion and prints a table from
//! plain timed loops.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crawlspace::store::{Change, Query, State, TraceLine, UrlLog, UrlRecord};
use criterion::{Criterion, Throughput};
use regex::Regex;

/// URLs in the log before measuring.
const URLS: u64 = 1_000_000;
const CACHE: u64 = 64 << 20;
const PAGE: usize = 50;
/// Changes per batch in the fill and in `apply_100_links`.
const BATCH: usize = 100;

/// A record shaped like the crawler's: a realistic URL, reason and a
/// three-line trace. One URL in 100 has `/archive/` in its path, for the
/// text search.
fn record(i: u64) -> UrlRecord {
    let section = if i % 100 == 7 { "archive" } else { "docs" };
    UrlRecord {
        url: format!(
            "http://host{}.example.com/{section}/{}/page-{i}.html?lang=en",
            i % 500,
            i % 37
        ),
        state: State::Queued,
        reason: "link from a fetched page; rule 2 \"docs\" downloads it".into(),
        fetch: true,
        save: true,
        follow: true,
        queue: "index_follow".into(),
        link_depth: (i % 9) as u32,
        referrer: i.checked_sub(40),
        discovered_ms: 1_700_000_000_000 + i,
        trace: vec![
            TraceLine {
                rule: "robots".into(),
                name: "robots.txt".into(),
                line: 3,
                step: "allowed".into(),
                detail: "Allow: /".into(),
            },
            TraceLine {
                rule: "1".into(),
                name: "no images".into(),
                line: 8,
                step: "no match".into(),
                detail: String::new(),
            },
            TraceLine {
                rule: "2".into(),
                name: "docs".into(),
                line: 14,
                step: "matched".into(),
                detail: "download".into(),
            },
        ],
        ..UrlRecord::default()
    }
}

fn fetched(mut r: UrlRecord) -> UrlRecord {
    r.state = State::Fetched;
    r.reason = "fetched: HTTP 200".into();
    r.status = Some(200);
    r.content_type = Some("text/html".into());
    r.size = Some(24_000);
    r.fetched_ms = Some(r.discovered_ms + 900);
    r
}

/// The filled log and the folder that holds it.
struct Filled {
    log: UrlLog,
    _dir: tempfile::TempDir,
}

fn fill() -> Filled {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = UrlLog::open(&dir.path().join("db"), CACHE).expect("open");
    let start = Instant::now();
    for first in (0..URLS).step_by(BATCH) {
        let records: Vec<UrlRecord> = (first..first + BATCH as u64).map(record).collect();
        let changes: Vec<Change> = records
            .iter()
            .map(|record| Change::Discover {
                record,
                enqueue: None,
            })
            .collect();
        let ids = log.apply(&changes).expect("discover");
        assert_eq!(ids.last().copied().flatten(), Some(first + BATCH as u64));
    }
    let discover = start.elapsed();
    let start = Instant::now();
    let evens: Vec<u64> = (2..=URLS).step_by(2).collect();
    for chunk in evens.chunks(BATCH) {
        let records: Vec<UrlRecord> = chunk.iter().map(|id| fetched(record(id - 1))).collect();
        let changes: Vec<Change> = chunk
            .iter()
            .zip(&records)
            .map(|(&id, record)| Change::Update {
                id,
                record,
                enqueue: None,
            })
            .collect();
        log.apply(&changes).expect("update");
    }
    let update = start.elapsed();
    for id in (1..=URLS).step_by(2).take(200_000) {
        log.enqueue(id, 2, 3).expect("enqueue");
    }
    log.flush().expect("flush");
    let disk = log.size_on_disk().expect("size");
    let rate = |n: u64, d: Duration| n as f64 / d.as_secs_f64();
    println!(
        "fill, batches of {BATCH}: {URLS} discovers in {:.1} s ({:.0}/s), {} updates in {:.1} s ({:.0}/s), {:.0} MiB on disk",
        discover.as_secs_f64(),
        rate(URLS, discover),
        URLS / 2,
        update.as_secs_f64(),
        rate(URLS / 2, update),
        disk as f64 / f64::from(1 << 20),
    );
    assert_eq!(log.counts().fetched, URLS / 2);
    Filled { log, _dir: dir }
}

/// The measured operations, each one call.
struct Ops<'a> {
    log: &'a UrlLog,
    next_url: u64,
    fetched: Query,
    all: Query,
    search: Query,
}

impl<'a> Ops<'a> {
    fn new(log: &'a UrlLog) -> Ops<'a> {
        Ops {
            log,
            next_url: URLS,
            fetched: Query {
                state: Some(State::Fetched),
                ..Query::default()
            },
            all: Query::default(),
            search: Query {
                text: Some(Regex::new("/archive/").expect("regex")),
                ..Query::default()
            },
        }
    }

    fn discover(&mut self) -> usize {
        self.next_url += 1;
        let id = self.log.discover(&record(self.next_url)).expect("discover");
        usize::from(id.is_some())
    }

    /// A page's worth of new links in one batch, each enqueued.
    fn links(&mut self) -> usize {
        let records: Vec<UrlRecord> = (self.next_url + 1..=self.next_url + BATCH as u64)
            .map(record)
            .collect();
        self.next_url += BATCH as u64;
        let changes: Vec<Change> = records
            .iter()
            .map(|record| Change::Discover {
                record,
                enqueue: Some((2, 4)),
            })
            .collect();
        let ids = self.log.apply(&changes).expect("apply");
        ids.iter().flatten().count()
    }

    fn page(&self, query: &Query, after: Option<u64>) -> usize {
        let page = self.log.page(query, after, PAGE).expect("page");
        assert_eq!(page.len(), PAGE);
        page.len()
    }

    fn tail(&self) -> usize {
        let page = self.log.page_back(&self.fetched, None, PAGE).expect("page");
        assert_eq!(page.len(), PAGE);
        page.len()
    }
}

/// (name, items per call, operation) shared by criterion and the summary.
type Op = (&'static str, u64, fn(&mut Ops, u64) -> usize);

const OPS: [Op; 14] = [
    ("discover", 1, |o, _| o.discover()),
    ("discover_known", 1, |o, i| {
        let known = o.log.discover(&record(i * 7919 % URLS)).expect("discover");
        usize::from(known.is_none())
    }),
    ("apply_100_links", BATCH as u64, |o, _| o.links()),
    ("update", 1, |o, i| {
        let id = 2 + 2 * (i % (URLS / 2 - 1));
        let mut r = fetched(record(id - 1));
        r.reason = format!("refetched {i}");
        o.log.update(id, &r).expect("update");
        1
    }),
    ("take", 1, |o, i| {
        // An odd (queued) id goes in flight and leaves the frontier.
        let id = 1 + 2 * (i % (URLS / 2));
        let mut r = record(id - 1);
        r.state = State::InFlight;
        let changes = [
            Change::Update {
                id,
                record: &r,
                enqueue: None,
            },
            Change::Dequeue {
                id,
                level: 2,
                queue: 3,
            },
        ];
        o.log.apply(&changes).expect("take").len()
    }),
    ("get", 1, |o, i| {
        usize::from(o.log.get(1 + i * 7919 % URLS).expect("get").is_some())
    }),
    ("id_of", 1, |o, i| {
        let url = record(i * 7919 % URLS).url;
        usize::from(o.log.id_of(&url).expect("id_of").is_some())
    }),
    ("page_state_first", 1, |o, _| o.page(&o.fetched, None)),
    ("page_state_middle", 1, |o, _| {
        o.page(&o.fetched, Some(URLS / 2))
    }),
    ("page_back_state_tail", 1, |o, _| o.tail()),
    ("page_all_middle", 1, |o, _| o.page(&o.all, Some(URLS / 2))),
    ("page_text_1_in_100", 1, |o, _| {
        o.page(&o.search, Some(URLS / 2))
    }),
    ("page_state_text", 1, |o, _| {
        let q = Query {
            state: Some(State::Fetched),
            text: o.search.text.clone(),
            ..Query::default()
        };
        o.page(&q, Some(URLS / 2))
    }),
    ("frontier_page", 1, |o, _| {
        o.log
            .frontier(2, 3, Some(URLS / 4), PAGE)
            .expect("frontier")
            .len()
    }),
];

fn main() {
    let filled = fill();
    let mut ops = Ops::new(&filled.log);
    if std::env::var_os("CRAWLSPACE_BENCH_SUMMARY").is_some_and(|v| v == "1") {
        summary(&mut ops);
        return;
    }
    let mut c = Criterion::default()
        .sample_size(20)
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    let mut group = c.benchmark_group("store_1m");
    for (name, items, op) in OPS {
        let mut i = 0;
        group.throughput(Throughput::Elements(items));
        group.bench_function(name, |b| {
            b.iter(|| {
                i += 1;
                black_box(op(&mut ops, i))
            })
        });
    }
    group.finish();
    c.final_summary();
}

/// Times each operation for about a second and prints a table.
fn summary(ops: &mut Ops) {
    println!(
        "store benchmark summary: {URLS} URLs, {PAGE}-record pages, cache {} MiB",
        CACHE >> 20
    );
    println!("{:<24} {:>12} {:>12}", "operation", "µs/call", "items/s");
    for (name, items, op) in OPS {
        let start = Instant::now();
        let mut n = 0u64;
        while start.elapsed() < Duration::from_secs(1) || n < 10 {
            n += 1;
            black_box(op(ops, n));
        }
        let per = start.elapsed().as_secs_f64() / n as f64;
        println!(
            "{name:<24} {:>12.1} {:>12.0}",
            per * 1e6,
            items as f64 / per
        );
    }
    println!(
        "after: {} URLs, {} in the frontier, {:.0} MiB on disk",
        ops.log.len(),
        ops.log.frontier_len(),
        ops.log.size_on_disk().expect("size") as f64 / f64::from(1 << 20)
    );
}
