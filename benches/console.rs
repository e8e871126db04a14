//! The console benchmark (issue 5's speed targets), on a real sled log of
//! 1,000,000 URLs in a temporary folder:
//! - drawing one full frame of each view at 200x60 (into ratatui's
//!   `TestBackend`), with the log view showing a page read from that log
//!   and the detail pane a record with its referrer chain;
//! - reading the pages the log view asks for (the tail, the middle, a state
//!   filter), which the console does off its UI task;
//! - the what-if count over all 1,000,000 URLs, with one and two threads,
//!   and the walks it is made of.
//!
//! `cargo bench --bench console` prints a table (plain timed loops; the
//! figures are means).
//!
//! Two environment variables make the what-if quick to re-measure:
//! - `CRAWLSPACE_BENCH_DB=DIR` keeps the filled log in `DIR` instead of a
//!   temporary folder: the first run fills it, later runs find the
//!   1,000,000 URLs there and skip the fill (about 2 minutes). Delete `DIR`
//!   after changing [`record`].
//! - `CRAWLSPACE_BENCH_ONLY=whatif` runs only the walks and the what-if,
//!   each `CRAWLSPACE_BENCH_RUNS` times (default 1), printing every run.
//! - `CRAWLSPACE_BENCH_CACHE_MB=N` opens the log with an N MiB page cache
//!   instead of the console's 64: with room for the whole log, the runs
//!   after the first show what the walks cost without reading from disk.
//!
//! Each walk prints its wall-clock time and the CPU time of the process
//! over it: on a busy machine the CPU time is the steadier figure, and on
//! two threads it shows whether they ran side by side.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crawlspace::crawl::detail::{Detail, HostIdle, HostRow, QueueRow};
use crawlspace::crawl::engine::Stats;
use crawlspace::crawl::frontier::QUEUES;
use crawlspace::rules::dialect::native;
use crawlspace::rules::{CompiledRules, Known, TraceMode, UrlFacts};
use crawlspace::store::{Change, State, TraceLine, UrlLog, UrlRecord};
use crawlspace::tui::action::Action;
use crawlspace::tui::app::App;
use crawlspace::tui::log_reader::{LogQuery, PageFrom, read_page, read_record};
use crawlspace::tui::save::SaveTarget;
use crawlspace::tui::view::draw;
use crawlspace::tui::whatif::{Probe, count_log};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

const URLS: u64 = 1_000_000;
const BATCH: u64 = 1000;
const SIZE: (u16, u16) = (200, 60);

const RULES: &str = include_str!("../config/demo.toml");

fn state_of(i: u64) -> State {
    [
        State::Saved,
        State::Fetched,
        State::Queued,
        State::Filtered,
        State::Saved,
        State::Error,
    ][(i % 6) as usize]
}

fn record(i: u64) -> UrlRecord {
    let state = state_of(i);
    UrlRecord {
        // One host, 500 ports: the demo's rules keep 127.0.0.1 only.
        url: format!(
            "http://127.0.0.1:{}/docs/{}/page-{i}.html?lang=en",
            8000 + i % 500,
            i % 37
        ),
        state,
        reason: "link from a fetched page; rule 5 \"pages: saved and scanned\"".into(),
        fetch: state != State::Filtered,
        save: true,
        follow: true,
        queue: "index_follow".into(),
        link_depth: (i % 9) as u32,
        referrer: i.checked_sub(40).filter(|r| *r > 0),
        status: matches!(state, State::Saved | State::Fetched).then_some(200),
        content_type: matches!(state, State::Saved).then(|| "text/html".into()),
        trace: vec![
            TraceLine {
                rule: "1".into(),
                name: "stay on the demo host".into(),
                line: 34,
                step: "matched".into(),
                detail: "filter must-have, log".into(),
            },
            TraceLine {
                rule: "5".into(),
                name: "pages: saved and scanned".into(),
                line: 62,
                step: "matched".into(),
                detail: "download".into(),
            },
        ],
        ..UrlRecord::default()
    }
}

fn fill(log: &UrlLog) -> Duration {
    let start = Instant::now();
    for first in (1..=URLS).step_by(BATCH as usize) {
        let records: Vec<UrlRecord> = (first..first + BATCH).map(record).collect();
        let changes: Vec<Change> = records
            .iter()
            .map(|record| Change::Discover {
                record,
                enqueue: None,
            })
            .collect();
        log.apply(&changes).expect("fill");
    }
    log.flush().expect("flush");
    start.elapsed()
}

fn mean(runs: u32, mut f: impl FnMut()) -> Duration {
    f(); // warm
    let start = Instant::now();
    for _ in 0..runs {
        f();
    }
    start.elapsed() / runs
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn key(app: &mut App, code: KeyCode) {
    app.update(Action::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

/// The log to measure: in `CRAWLSPACE_BENCH_DB` when set (filled only if it
/// does not hold the benchmark's URLs yet), else in a temporary folder.
fn open_log() -> (Option<tempfile::TempDir>, Arc<UrlLog>) {
    let (temp, path) = match std::env::var_os("CRAWLSPACE_BENCH_DB") {
        Some(dir) => (None, std::path::PathBuf::from(dir)),
        None => {
            let temp = tempfile::tempdir().expect("temp dir");
            let path = temp.path().join("db");
            (Some(temp), path)
        }
    };
    let cache_mb = std::env::var("CRAWLSPACE_BENCH_CACHE_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64u64);
    let log = Arc::new(UrlLog::open(&path, cache_mb << 20).expect("open"));
    if log.len() == URLS && log.last_id().expect("last id") == Some(URLS) {
        println!("reusing the {URLS} URLs in {}", path.display());
    } else {
        assert_eq!(log.len(), 0, "{} holds another log", path.display());
        let filled = fill(&log);
        println!("fill: {URLS} URLs in {:.1} s", filled.as_secs_f64());
    }
    (temp, log)
}

fn main() {
    let (_dir, log) = open_log();
    let rules = native::parse(RULES).expect("demo rules").rules;
    if std::env::var("CRAWLSPACE_BENCH_ONLY").is_ok_and(|v| v == "whatif") {
        let runs = std::env::var("CRAWLSPACE_BENCH_RUNS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1);
        for _ in 0..runs {
            whatif(&log, &rules, false);
        }
        return;
    }

    // Reads the log view makes (off the UI task in the console).
    let rows = crawlspace::tui::view::layout::log_list_rows(SIZE);
    let all = LogQuery::default();
    let queued = LogQuery {
        state: Some(State::Queued),
        ..LogQuery::default()
    };
    println!("| operation (1,000,000 URLs in the log) | mean |");
    println!("|---|---|");
    for (name, query, from) in [
        ("log page: the tail (following)", &all, PageFrom::End),
        ("log page: from the middle", &all, PageFrom::After(URLS / 2)),
        (
            "log page: one state, from the middle",
            &queued,
            PageFrom::After(URLS / 2),
        ),
    ] {
        let t = mean(200, || {
            black_box(read_page(&log, query, from, rows, 1));
        });
        println!("| {name} ({rows} rows) | {} |", ms(t));
    }
    let t = mean(200, || {
        black_box(read_record(&log, URLS / 2).expect("read"));
    });
    println!("| one record with its referrer chain | {} |", ms(t));

    // The console mid-crawl, at 200x60.
    let save = SaveTarget::for_config(std::path::Path::new("demo.toml"), RULES);
    let mut app = App::new(
        "crawlspace/0.1".into(),
        rules.clone(),
        save,
        [10000, 2000, 1000, 100, 10, 1],
    );
    app.update(Action::Resize(SIZE.0, SIZE.1));
    app.update(Action::Stats(Stats {
        discovered: URLS,
        fetched: URLS / 3,
        saved: URLS / 3,
        elapsed: Duration::from_secs(600),
        ..Stats::default()
    }));
    app.update(Action::Detail(Box::new(Detail {
        queues: QUEUES
            .iter()
            .map(|&queue| QueueRow {
                queue,
                weight: 100,
                length: 1000,
                picks: 5000,
            })
            .collect(),
        hosts: (0..200)
            .map(|i| HostRow {
                origin: format!("http://host{i}.example.com"),
                pending: 5000 - i,
                in_flight: 2,
                fetched: 1000,
                delay: Duration::from_millis(10),
                errors_in_row: 0,
                idle: HostIdle::Politeness(Duration::from_millis(4)),
                robots: "parsed".into(),
            })
            .collect(),
        hosts_total: 500,
        rule_hits: vec![1000; 20],
        rules_version: 0,
    })));
    for _ in 0..200 {
        app.update(Action::Tick);
    }
    let mut terminal = Terminal::new(TestBackend::new(SIZE.0, SIZE.1)).expect("terminal");
    println!("| draw one frame at 200x60 | mean |");
    println!("|---|---|");
    for (name, view) in [
        ("Rules", '1'),
        ("Queues", '2'),
        ("URL log", '3'),
        ("Explain", '4'),
    ] {
        key(&mut app, KeyCode::Esc);
        key(&mut app, KeyCode::Char(view));
        if view == '3' {
            let page = read_page(&log, &all, PageFrom::End, rows, 0);
            let mut page = page;
            for r in app.take_requests() {
                if let crawlspace::tui::app::Request::LogPage { seq, .. } = r {
                    page.seq = seq;
                }
            }
            app.update(Action::LogPage(page));
            app.update(Action::Tick);
            let id = app.log.selected_id().expect("a row");
            let view = read_record(&log, id).expect("read").expect("record");
            app.update(Action::Record(id, Ok(Box::new(view))));
        }
        if view == '4' {
            for c in "http://127.0.0.1:8080/products/widgets/item-7".chars() {
                key(&mut app, KeyCode::Char(c));
            }
        }
        let t = mean(300, || {
            terminal.draw(|f| draw(f, &app)).expect("draw");
        });
        println!("| {name} view | {} |", ms(t));
    }
    whatif(&log, &rules, true);
}

/// The walks over the whole log and the what-if count made of them; the
/// walk over whole records (several seconds) only when `whole`.
fn whatif(log: &UrlLog, rules: &crawlspace::rules::model::RuleSet, whole: bool) {
    // What-if over the whole log: the demo rules against a copy with one
    // more exclusion.
    let old = Arc::new(CompiledRules::new(rules));
    let mut edited = rules.clone();
    // Last, so that its exclusion is the last setting (it wins).
    edited.rules.push(
        native::parse(
            "[[rules]]\nname='no page-1xx'\nmatch={field='path',regex='page-1[0-9][0-9]\\.html$'}\naction='exclude'\n",
        )
        .expect("rule")
        .rules
        .rules
        .remove(0),
    );
    let new = Arc::new(CompiledRules::new(&edited));
    // The walks alone: whole records (as the log view reads them), the
    // raw stored bytes (the floor), briefs (as the what-if reads them);
    // then the what-if itself.
    if whole {
        let (took, walked) = timed(|| {
            let (mut after, mut walked) = (None, 0u64);
            loop {
                let page = log
                    .page(&crawlspace::store::Query::default(), after, 20_000)
                    .expect("page");
                let Some(&(last, _)) = page.last() else {
                    break walked;
                };
                after = Some(last);
                walked += page.len() as u64;
            }
        });
        println!("reading all {walked} whole records alone: {took}");
    }
    let (took, (entries, bytes)) = timed(|| log.scan_raw(None, None).expect("walk"));
    println!(
        "reading all {entries} stored keys and values ({} MB), decoding nothing: {took}",
        bytes >> 20
    );
    let (took, (entries, waits)) = timed(|| {
        std::thread::scope(|scope| {
            let walks = [(0, URLS / 2), (URLS / 2, URLS)].map(|(lo, hi)| {
                scope.spawn(move || {
                    let (wall, before) = (Instant::now(), schedstat());
                    let walked = log.scan_raw(Some(lo), Some(hi)).expect("walk").0;
                    (walked, thread_waits(wall.elapsed(), before))
                })
            });
            let walks = walks.map(|w| w.join().expect("walk"));
            (
                walks.iter().map(|w| w.0).sum::<u64>(),
                walks.map(|w| w.1).join("; "),
            )
        })
    });
    println!("the same on 2 threads, half each ({entries}): {took}; per thread: {waits}");
    let (took, briefs) = timed(|| {
        log.scan_briefs(None, None, |_, b| black_box(b).link_depth < u32::MAX)
            .expect("walk")
    });
    println!("reading all {briefs} briefs alone: {took}");
    // The per-URL work without the log: cutting URLs into fields (parsing
    // them, or the quick cut of a normalized URL), then evaluating them
    // under both rule sets.
    let urls: Vec<String> = (1..=URLS).map(|i| record(i).url).collect();
    let known = Known::default();
    let (took, parsed) = timed(|| {
        urls.iter()
            .filter_map(|u| url::Url::parse(u).ok())
            .map(|u| black_box(UrlFacts::new(&u, &known)).port as u64)
            .sum::<u64>()
    });
    println!("parsing {URLS} URLs into facts: {took} ({parsed})");
    let (took, cut) = timed(|| {
        urls.iter()
            .filter_map(|u| UrlFacts::from_normalized(u, &known))
            .map(|f| black_box(f).port as u64)
            .sum::<u64>()
    });
    println!("cutting {URLS} normalized URLs into facts: {took} ({cut})");
    let evaluate_all = |urls: &[String]| {
        let (mut old_scratch, mut new_scratch) = (old.scratch(), new.scratch());
        urls.iter()
            .filter_map(|u| UrlFacts::from_normalized(u, &known))
            .map(|f| {
                let a = old.evaluate(&f, &mut old_scratch, TraceMode::Off);
                let b = new.evaluate(&f, &mut new_scratch, TraceMode::Decisive);
                u64::from(a.fetches()) + u64::from(b.fetches())
            })
            .sum::<u64>()
    };
    let (took, fetched) = timed(|| evaluate_all(&urls));
    println!("cutting and evaluating {URLS} URLs under both rule sets: {took} ({fetched})");
    // The same on two threads, no sled involved: whether this machine gives
    // the process two cores right now (the control for the walks on two
    // threads).
    let (took, fetched) = timed(|| {
        let (a, b) = urls.split_at(urls.len() / 2);
        std::thread::scope(|scope| {
            let halves = [a, b].map(|half| scope.spawn(move || evaluate_all(half)));
            halves
                .map(|h| h.join().expect("evaluate"))
                .iter()
                .sum::<u64>()
        })
    });
    println!("the same on 2 threads, half each: {took} ({fetched})");
    drop(urls);
    // The what-if's work per record on one thread without its tallies,
    // with the URL parsed in full (as before the quick cut) and cut.
    for parse in [true, false] {
        let (took, fetched) = timed(|| {
            let (mut old_scratch, mut new_scratch) = (old.scratch(), new.scratch());
            let mut fetched = 0u64;
            log.scan_briefs(None, None, |_, brief| {
                let known = Known {
                    link_depth: brief.link_depth,
                    content_type: brief.content_type.map(str::to_string),
                    address: None,
                };
                let parsed;
                let facts = if parse {
                    let Ok(url) = url::Url::parse(brief.url) else {
                        return true;
                    };
                    parsed = url;
                    UrlFacts::new(&parsed, &known)
                } else {
                    let Some(facts) = UrlFacts::from_normalized(brief.url, &known) else {
                        return true;
                    };
                    facts
                };
                let a = old.evaluate(&facts, &mut old_scratch, TraceMode::Off);
                let b = new.evaluate(&facts, &mut new_scratch, TraceMode::Decisive);
                fetched += u64::from(a.fetches()) + u64::from(b.fetches());
                true
            })
            .expect("walk");
            fetched
        });
        let how = if parse { "parsed" } else { "cut" };
        println!(
            "walking the briefs and evaluating every URL, URLs {how}, 1 thread: {took} ({fetched})"
        );
    }
    // As the console runs it: only the URLs the probe marks evaluated
    // under both rule sets; then every URL (what an edit the probe cannot
    // narrow costs: a changed disposition, a touched must-have filter).
    let probe = Probe::of_edit(rules, &edited).map(Arc::new);
    let touched = probe.as_ref().map_or(0, |p| p.touched);
    for (how, probe) in [
        ("probe of the touched rules", probe.as_ref()),
        ("every URL evaluated", None),
    ] {
        for workers in [1, 2] {
            let (took, report) =
                timed(|| count_log(log, &old, &new, probe, workers, &|_| {}, &|| false));
            println!(
                "what-if over {} URLs, {how}, {workers} thread(s): {took} ({} would change verdict)",
                report.scanned,
                report.changed()
            );
        }
    }
    println!("(the probe held {touched} touched rule(s))");
}

/// Runs `f` once: its result, and its wall-clock and CPU time (all of the
/// process's threads) as text. The CPU time tells a busy machine (wall time
/// above CPU time) from work that does not run in parallel (CPU time close
/// to wall time on two threads).
fn timed<T>(f: impl FnOnce() -> T) -> (String, T) {
    let (cpu, start) = (cpu_seconds(), Instant::now());
    let out = f();
    let wall = start.elapsed().as_secs_f64();
    let took = match (cpu, cpu_seconds()) {
        (Some(a), Some(b)) => format!("{wall:.2} s (CPU {:.2} s)", b - a),
        _ => format!("{wall:.2} s"),
    };
    (took, out)
}

/// User plus system time of this process so far, from `/proc/self/stat`
/// (Linux; `None` elsewhere), assuming the usual 100 ticks a second.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces), from field 3.
    let rest = stat.rsplit_once(')')?.1;
    let mut fields = rest.split_whitespace().skip(11);
    let user: f64 = fields.next()?.parse().ok()?;
    let system: f64 = fields.next()?.parse().ok()?;
    Some((user + system) / 100.0)
}

/// This thread's time on a CPU and time waiting for one (runnable, but
/// other work ran), in nanoseconds, from `/proc/thread-self/schedstat`.
fn schedstat() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let mut fields = text.split_whitespace().map(|f| f.parse::<u64>().ok());
    Some((fields.next()??, fields.next()??))
}

/// How a thread spent `wall` since `before`: running, waiting for a CPU
/// (a busy machine), or neither (blocked, e.g. on a lock).
fn thread_waits(wall: Duration, before: Option<(u64, u64)>) -> String {
    let (Some((run0, queued0)), Some((run1, queued1))) = (before, schedstat()) else {
        return "no schedstat".into();
    };
    let secs = |ns: u64| ns as f64 / 1e9;
    let (run, queued) = (secs(run1 - run0), secs(queued1 - queued0));
    let blocked = (wall.as_secs_f64() - run - queued).max(0.0);
    format!("ran {run:.2} s, waited for a CPU {queued:.2} s, blocked {blocked:.2} s")
}
