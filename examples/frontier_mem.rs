//! Memory of the crawler with a large frontier (issue 3: resident memory
//! must not grow with the number of known URLs beyond sled's cache). A child
//! process fills a URL log with N queued URLs (spread over 1,000 hosts); a
//! second child opens it with the real engine (64 MiB sled cache, as the
//! crawl command does), which loads its window of the frontier, and reports
//! its resident memory once the engine is running (paused, so nothing is
//! fetched and nothing else grows).
//!
//! ```sh
//! cargo run --release --example frontier_mem            # 10,000 then 1,000,000 URLs
//! cargo run --release --example frontier_mem -- 200000  # one size
//! ```

use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crawlspace::config::Config;
use crawlspace::crawl::engine::{Control, Engine, Event, Plan};
use crawlspace::rules::CompiledRules;
use crawlspace::store::{Change, State, UrlLog, UrlRecord, frontier_slot};

/// The binary's allocator (src/main.rs), so that this measures what the
/// binary does.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

const CACHE: u64 = 64 << 20;

fn status_kb(key: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse().ok())
        .unwrap_or(0)
}

fn fill(n: u64, dir: &str) {
    let log = UrlLog::open(std::path::Path::new(dir), CACHE).expect("log");
    let slot = frontier_slot(0, "follow");
    let started = Instant::now();
    for first in (0..n).step_by(1000) {
        let records: Vec<UrlRecord> = (first..(first + 1000).min(n))
            .map(|i| UrlRecord {
                url: format!(
                    "http://host{}.invalid/section/{}/page-{i}.html",
                    i % 1000,
                    i % 37
                ),
                state: State::Queued,
                reason: "queued in follow".into(),
                fetch: true,
                follow: true,
                queue: "follow".into(),
                link_depth: 2,
                ..UrlRecord::default()
            })
            .collect();
        let changes: Vec<Change> = records
            .iter()
            .map(|record| Change::Discover {
                record,
                enqueue: Some(slot),
            })
            .collect();
        log.apply(&changes).expect("fill");
    }
    log.flush().expect("flush");
    eprintln!(
        "filled {n} queued URLs in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

fn run(dir: &str) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let before = status_kb("VmRSS:");
    runtime.block_on(async {
        let log = Arc::new(UrlLog::open(std::path::Path::new(dir), CACHE).expect("log"));
        let opened = status_kb("VmRSS:");
        let config = Config::defaults();
        let q = config.queues;
        let plan = Plan {
            settings: config.crawl,
            weights: q.in_order(),
            start: Vec::new(),
            out: std::env::temp_dir().join("frontier-mem-mirror"),
        };
        let rules = Arc::new(CompiledRules::new(&Default::default()));
        let engine = Engine::new(plan, log, rules).expect("engine");
        let (events, mut events_rx) = tokio::sync::mpsc::channel(16);
        let (control, control_rx) = crawlspace::crawl::engine::control_channel(8);
        // Paused before it starts: it loads the frontier and waits.
        control.send(Control::Pause).await.expect("pause");
        let started = Instant::now();
        let run = tokio::spawn(engine.run(events, control_rx, Duration::from_millis(50)));
        let queued = loop {
            if let Some(Event::Stats(s)) = events_rx.recv().await {
                break s.queued;
            }
        };
        let loaded = started.elapsed();
        println!(
            "queued {queued}: engine started in {:.2} s; resident {} MB (before opening the log {} MB, log opened {} MB; peak {} MB)",
            loaded.as_secs_f64(),
            status_kb("VmRSS:") / 1024,
            before / 1024,
            opened / 1024,
            status_kb("VmHWM:") / 1024
        );
        control.send(Control::Stop).await.expect("stop");
        tokio::spawn(async move { while events_rx.recv().await.is_some() {} });
        let _ = run.await;
    });
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("fill") => return fill(args[2].parse().expect("n"), &args[3]),
        Some("run") => return run(&args[2]),
        _ => {}
    }
    let sizes: Vec<u64> = match args.get(1).and_then(|n| n.parse().ok()) {
        Some(n) => vec![n],
        None => vec![10_000, 1_000_000],
    };
    let exe = std::env::current_exe().expect("exe");
    for n in sizes {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("db");
        let db = db.to_string_lossy();
        let ok = Command::new(&exe)
            .args(["fill", &n.to_string(), &db])
            .status();
        assert!(ok.is_ok_and(|s| s.success()), "fill");
        let ok = Command::new(&exe).args(["run", &db]).status();
        assert!(ok.is_ok_and(|s| s.success()), "run");
    }
}
