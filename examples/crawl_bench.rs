//! The crawl benchmark: a generated site of N pages (default 20,000, about
//! 28 KB of HTML each) served by a separate process on 127.0.0.1, first hit
//! by a plain load generator (every page once, same concurrency), then
//! crawled by the real engine with a sled log. Reports pages/s, the
//! crawler's CPU seconds per 1,000 pages (all of it, and its engine
//! thread's alone), its peak RSS, and the CPU per 1,000 pages of the load
//! generator and of the server in each phase, with the share of the two
//! cores left idle and the context switches per page of each side (what
//! tells a crawl short of CPU from one that waits on hand-offs).
//!
//! ```sh
//! cargo run --release --example crawl_bench            # 20,000 pages
//! cargo run --release --example crawl_bench -- 5000    # a quicker run
//! cargo run --release --example crawl_bench -- 20000 --console
//! cargo run --release --example crawl_bench -- 20000 --rounds 5
//! ```
//!
//! With `--crawl-only`, the two load-generator passes are skipped (for
//! profiling the crawl alone). With `--concurrency N`, the load generator
//! and the crawl both keep N requests in flight instead of 16. With
//! `--rounds N`, the passes and the crawl run N times over, one after the
//! other, and the medians of the load generator's and the crawl's rates
//! are printed at the end.
//!
//! With `--minimal`, each round also runs the least a crawler does with the
//! same parts after the two load-generator passes: the crawler's fetcher and
//! link scanner in `concurrency` tasks, fed one URL at a time by a
//! coordinator on this thread that keeps its queue and the URLs met in
//! memory (no rules, no URL log, no politeness); its rate against the load
//! generator's is what the crawl's own work is measured against. It then
//! runs once more with that coordination done by the fetch tasks under a
//! lock instead of on this thread ([`minimal_shared_crawl`]): the
//! difference is what handing every page to another thread and back costs.
//!
//! With `--timeline`, each crawl prints, every 50 ms, the cores' idle
//! share, the engine thread's busy share, the pages fetched and the URLs
//! known, then the rate while URLs were still being discovered and after
//! ([`Timeline`]).
//!
//! With `--console`, the console's own loop (the same `tui::drive` the
//! terminal uses, drawing into a 200x60 test buffer) watches the crawl from
//! a thread of its own, on the URL log view following the tail; its frames
//! per second and that thread's CPU share are reported.
//!
//! The crawl uses `exclude-scan` for every page (fetched and scanned, not
//! saved), so that the figures measure crawling, not writing a 560 MB mirror.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::Path;
use axum::http::header;
use axum::routing::get;
use crawlspace::config::Config;
use crawlspace::crawl::engine::{Engine, Plan, check_start};
use crawlspace::crawl::fetch::Fetcher;
use crawlspace::crawl::links::{LinkOptions, extract};
use crawlspace::rules::CompiledRules;
use crawlspace::rules::dialect::{Dialect, DialectChoice, parse_text};
use crawlspace::store::UrlLog;
use crawlspace::tui::action::Action;
use crawlspace::tui::app::App;
use crawlspace::tui::save::SaveTarget;
use crawlspace::tui::{Console, drive};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event as TermEvent, KeyCode, KeyEvent, KeyModifiers};
use url::Url;

/// The binary's allocator (src/main.rs), so that this measures what the
/// binary does.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Requests in flight, for the load generator and the crawl alike (the
/// crawl's `concurrency` and `per_host`), unless `--concurrency N` says.
const CONCURRENCY: usize = 16;

/// Page `n`: links to its ten children in a tree and to two other pages,
/// padded with text to about 28 KB.
fn page(n: u32, pages: u32) -> String {
    let mut body = format!("<html><head><title>Page {n}</title></head><body><h1>Page {n}</h1>\n");
    for child in (10 * n + 1..=10 * n + 10).chain([(n * 7919) % pages, (n + 1) % pages]) {
        if child < pages {
            body.push_str(&format!("<p><a href=\"/p/{child}\">page {child}</a></p>\n"));
        }
    }
    while body.len() < 28_000 {
        body.push_str("<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>\n");
    }
    body.push_str("</body></html>");
    body
}

fn serve(pages: u32) -> ! {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async move {
        let router = Router::new().route(
            "/p/{n}",
            get(move |Path(n): Path<u32>| async move {
                ([(header::CONTENT_TYPE, "text/html")], page(n, pages))
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        println!("{}", listener.local_addr().expect("addr"));
        let _ = axum::serve(listener, router).await;
    });
    std::process::exit(0)
}

/// User plus system CPU seconds of this process, from /proc.
fn cpu_seconds() -> f64 {
    cpu_seconds_of("/proc/self/stat")
}

/// User plus system CPU seconds in a `/proc/.../stat` file.
fn cpu_seconds_of(file: &str) -> f64 {
    let stat = std::fs::read_to_string(file).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

/// Jiffies the machine's cores spent idle (idle and iowait) and in all,
/// from the first line of /proc/stat: all processes, both cores.
fn machine_jiffies() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let fields: Vec<u64> = stat
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .skip(1)
        .filter_map(|f| f.parse().ok())
        .collect();
    let idle = fields.get(3).copied().unwrap_or(0) + fields.get(4).copied().unwrap_or(0);
    (idle, fields.iter().sum())
}

/// Context switches (voluntary and not) of every thread of process `pid`
/// ("self" for this one), from /proc/PID/task/*/status.
fn context_switches(pid: &str) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .filter_map(Result::ok)
        .map(|task| std::fs::read_to_string(task.path().join("status")).unwrap_or_default())
        .flat_map(|status| {
            status
                .lines()
                .filter(|l| l.contains("ctxt_switches:"))
                .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
                .collect::<Vec<_>>()
        })
        .sum()
}

/// User plus system CPU seconds of this process's tokio runtime workers
/// (the fetch tasks, and in the load generator's passes all of its work):
/// the part of the crawler's CPU that the engine thread does not spend.
fn worker_cpu_seconds() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0.0;
    };
    tasks
        .filter_map(Result::ok)
        .filter(|task| {
            std::fs::read_to_string(task.path().join("comm"))
                .is_ok_and(|name| name.starts_with("tokio-rt-worker"))
        })
        .map(|task| cpu_seconds_of(&task.path().join("stat").to_string_lossy()))
        .sum()
}

/// Peak resident set size of this process, in MB.
fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// What a [`Phase`] does with every page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Fetches it: the load generator.
    Plain,
    /// Fetches it and scans it for links.
    Scan,
    /// Crawls the site with the least a crawler does ([`minimal_crawl`]).
    Minimal,
    /// The same, coordinated on the fetch tasks ([`minimal_shared_crawl`]).
    MinimalShared,
}

/// One pass of plain requests over every page: its rate and the CPU it and
/// the server used.
struct Phase {
    rate: f64,
    cpu: f64,
    /// Its runtime workers' share of `cpu`.
    workers_cpu: f64,
    server_cpu: f64,
    /// As in [`Crawl`]: the cores' idle share, context switches.
    idle: f64,
    switches: u64,
    server_switches: u64,
}

impl Phase {
    /// Fetches every page once, `concurrency` at a time, as `pass` says.
    fn run(
        runtime: &tokio::runtime::Runtime,
        server_stat: &str,
        origin: &str,
        pages: u32,
        concurrency: usize,
        pass: Pass,
    ) -> Phase {
        let scan = pass != Pass::Plain;
        let (cpu_before, server_before) = (cpu_seconds(), cpu_seconds_of(server_stat));
        let workers_before = worker_cpu_seconds();
        let server_pid = server_stat
            .trim_start_matches("/proc/")
            .trim_end_matches("/stat");
        let switches_before = (context_switches("self"), context_switches(server_pid));
        let jiffies_before = machine_jiffies();
        let rate = runtime.block_on(async {
            match pass {
                Pass::Minimal => return minimal_crawl(origin, pages, concurrency).await,
                Pass::MinimalShared => {
                    return minimal_shared_crawl(origin, pages, concurrency).await;
                }
                Pass::Plain | Pass::Scan => {}
            }
            let client = reqwest::Client::new();
            let next = Arc::new(std::sync::atomic::AtomicU32::new(0));
            let options = LinkOptions {
                resources: false,
                max_links: 100_000,
            };
            let started = Instant::now();
            let mut tasks = Vec::new();
            for _ in 0..concurrency {
                let (client, next, origin) = (client.clone(), next.clone(), origin.to_owned());
                tasks.push(tokio::spawn(async move {
                    let mut links = 0;
                    loop {
                        let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if n >= pages {
                            break;
                        }
                        let Ok(url) = Url::parse(&format!("{origin}/p/{n}")) else {
                            continue;
                        };
                        if let Ok(r) = client.get(url.clone()).send().await
                            && let Ok(body) = r.bytes().await
                            && scan
                        {
                            links += extract(&body, &url, &options, "crawlspace").links.len();
                        }
                    }
                    links
                }));
            }
            let mut links = 0;
            for t in tasks {
                links += t.await.unwrap_or(0);
            }
            // Used, so that the scan cannot be optimized away.
            assert!(!scan || links > 0, "the scan found links");
            f64::from(pages) / started.elapsed().as_secs_f64()
        });
        let jiffies_after = machine_jiffies();
        Phase {
            rate,
            cpu: cpu_seconds() - cpu_before,
            workers_cpu: worker_cpu_seconds() - workers_before,
            server_cpu: cpu_seconds_of(server_stat) - server_before,
            idle: (jiffies_after.0 - jiffies_before.0) as f64
                / (jiffies_after.1 - jiffies_before.1).max(1) as f64,
            switches: context_switches("self").saturating_sub(switches_before.0),
            server_switches: context_switches(server_pid).saturating_sub(switches_before.1),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("serve") {
        serve(args.get(2).and_then(|n| n.parse().ok()).unwrap_or(20_000));
    }
    let pages: u32 = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(20_000);
    let with_console = args.iter().any(|a| a == "--console");
    let mut server = Server(
        Command::new(std::env::current_exe().expect("exe"))
            .args(["serve", &pages.to_string()])
            .stdout(Stdio::piped())
            .spawn()
            .expect("server starts"),
    );
    let mut line = String::new();
    BufReader::new(server.0.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("address");
    let origin = format!("http://{}", line.trim());
    // The server's CPU (all its threads), read around each phase: what a
    // page costs the server sets how much CPU the other side can have on
    // two cores.
    let server_stat = format!("/proc/{}/stat", server.0.id());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");

    let _ = rustls::crypto::ring::default_provider().install_default();
    let crawl_only = args.iter().any(|a| a == "--crawl-only");
    // `--rounds N`: the three phases N times over, one after the other,
    // and the medians: the load generator's rate moves from run to run by
    // more than the crawl's, so that one run's ratio says little.
    let rounds: usize = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(1)
        .max(1);
    let concurrency: usize = args
        .iter()
        .position(|a| a == "--concurrency")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(CONCURRENCY)
        .max(1);
    println!("pages: {pages}, concurrency {concurrency}, one host on 127.0.0.1");
    let mut results = Vec::new();
    let mut minimal_rates = Vec::new();
    for round in 1..=rounds {
        if rounds > 1 {
            println!("round {round} of {rounds}");
        }
        // 1. The load generator: every page once, `concurrency` at a time;
        // then the same with each page scanned for links as the crawler
        // does, the part of a crawler's work that needs no URL log.
        // `--crawl-only` skips them, for profiling the crawl alone.
        let pass = |kind| Phase::run(&runtime, &server_stat, &origin, pages, concurrency, kind);
        let (raw, scanned) = if crawl_only {
            let none = || Phase {
                rate: f64::NAN,
                cpu: f64::NAN,
                workers_cpu: f64::NAN,
                server_cpu: f64::NAN,
                idle: f64::NAN,
                switches: 0,
                server_switches: 0,
            };
            (none(), none())
        } else {
            (pass(Pass::Plain), pass(Pass::Scan))
        };
        // 2. The least crawler, with `--minimal`.
        let with_minimal = !crawl_only && args.iter().any(|a| a == "--minimal");
        let minimal = with_minimal.then(|| (pass(Pass::Minimal), pass(Pass::MinimalShared)));
        // 3. The crawl.
        let crawl = Crawl::run(
            &runtime,
            &server_stat,
            &origin,
            round,
            concurrency,
            with_console,
            args.iter().any(|a| a == "--timeline"),
        );
        report(pages, &raw, &scanned, &crawl);
        if let Some((minimal, shared)) = minimal {
            for (name, phase) in [
                ("minimal crawler", &minimal),
                ("minimal crawler coordinated on its fetch tasks", &shared),
            ] {
                println!(
                    "{name}: {:.0} pages/s ({:.0}% of the load generator); its CPU {:.3} s (runtime workers {:.3} s), the server's {:.3} s per 1,000 pages; cores idle {:.0}%; context switches per page {:.2}, the server's {:.2}",
                    phase.rate,
                    100.0 * phase.rate / raw.rate,
                    phase.cpu * 1000.0 / f64::from(pages),
                    phase.workers_cpu * 1000.0 / f64::from(pages),
                    phase.server_cpu * 1000.0 / f64::from(pages),
                    100.0 * phase.idle,
                    phase.switches as f64 / f64::from(pages),
                    phase.server_switches as f64 / f64::from(pages)
                );
            }
            minimal_rates.push((minimal.rate, shared.rate));
        }
        results.push((raw.rate, crawl.rate()));
    }
    drop(server);
    if crawl_only && rounds > 1 {
        let crawl = median(results.iter().map(|r| r.1).collect());
        println!("median of {rounds} rounds: crawl {crawl:.0} pages/s");
    } else if rounds > 1 {
        let raw = median(results.iter().map(|r| r.0).collect());
        let crawl = median(results.iter().map(|r| r.1).collect());
        let ratios: Vec<f64> = results.iter().map(|r| 100.0 * r.1 / r.0).collect();
        let (low, high) = ratios
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), r| {
                (l.min(*r), h.max(*r))
            });
        println!(
            "medians of {rounds} rounds: load generator {raw:.0} pages/s, crawl {crawl:.0} pages/s = {:.0}% (rounds {low:.0}-{high:.0}%)",
            100.0 * crawl / raw
        );
        if !minimal_rates.is_empty() {
            let minimal = median(minimal_rates.iter().map(|r| r.0).collect());
            let shared = median(minimal_rates.iter().map(|r| r.1).collect());
            println!(
                "median of the minimal crawler: {minimal:.0} pages/s = {:.0}% of the load generator; coordinated on its fetch tasks: {shared:.0} pages/s = {:.0}%",
                100.0 * minimal / raw,
                100.0 * shared / raw
            );
        }
    }
}

/// The least a crawler does with the same parts: a coordinator on this
/// thread (as the engine runs) keeps an in-memory queue and a set of the
/// URLs met, and hands one URL at a time to `concurrency` fetch tasks,
/// which fetch it, scan it for links and send the links back. No rules,
/// no URL log, no politeness. Returns pages per second.
async fn minimal_crawl(origin: &str, pages: u32, concurrency: usize) -> f64 {
    use std::collections::{HashSet, VecDeque};
    let options = LinkOptions {
        resources: false,
        max_links: 100_000,
    };
    let fetcher = Fetcher::new("crawlspace", Duration::from_secs(30), 10 << 20).expect("fetcher");
    let started = Instant::now();
    let (done_tx, mut done_rx) = tokio::sync::mpsc::channel::<(usize, Vec<Url>)>(concurrency);
    let mut inboxes = Vec::new();
    for task in 0..concurrency {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<Url>(1);
        inboxes.push(tx);
        let (fetcher, done_tx) = (fetcher.clone(), done_tx.clone());
        tokio::spawn(async move {
            while let Some(url) = rx.recv().await {
                let links = links_of(&fetcher, &url, &options).await;
                if done_tx.send((task, links)).await.is_err() {
                    break;
                }
            }
        });
    }
    let first = Url::parse(&format!("{origin}/p/0")).expect("start");
    let mut seen: HashSet<String> = HashSet::from([first.as_str().to_owned()]);
    let mut queue = VecDeque::from([first]);
    let mut idle: Vec<usize> = (0..concurrency).collect();
    let mut fetched = 0u32;
    loop {
        while !queue.is_empty() && !idle.is_empty() {
            let (Some(task), Some(url)) = (idle.pop(), queue.pop_front()) else {
                break;
            };
            let _ = inboxes[task].send(url).await;
        }
        if idle.len() == concurrency {
            break;
        }
        let Some((task, links)) = done_rx.recv().await else {
            break;
        };
        fetched += 1;
        idle.push(task);
        for link in links {
            if seen.insert(link.as_str().to_owned()) {
                queue.push_back(link);
            }
        }
    }
    assert_eq!(fetched, pages, "the minimal crawler fetched every page");
    f64::from(fetched) / started.elapsed().as_secs_f64()
}

/// What the least crawlers do with a URL: fetch it, scan it, and return
/// its links (none when the fetch fails).
async fn links_of(fetcher: &Fetcher, url: &Url, options: &LinkOptions) -> Vec<Url> {
    match fetcher.get(url, None, |_| true).await {
        Ok(fetched) => match fetched.body {
            Some(body) => extract(&body, url, options, "crawlspace")
                .links
                .into_iter()
                .map(|link| link.url)
                .collect(),
            None => Vec::new(),
        },
        Err(_) => Vec::new(),
    }
}

/// [`minimal_crawl`] without the coordinator's thread: each fetch task,
/// its page scanned, takes a lock on the queue and the URLs met, adds its
/// links, takes its next URL and lets go, so that no page is handed between
/// threads (no channel, no wake-up of another thread but a task waiting for
/// URLs). What this gains over [`minimal_crawl`] is what handing every page
/// to a coordinator thread and back costs. Returns pages per second.
async fn minimal_shared_crawl(origin: &str, pages: u32, concurrency: usize) -> f64 {
    use std::collections::{HashSet, VecDeque};
    /// What the tasks share, under one lock.
    struct Shared {
        seen: HashSet<String>,
        queue: VecDeque<Url>,
        /// Tasks fetching a page: while any is, an empty queue may fill.
        busy: usize,
        fetched: u32,
    }
    let options = Arc::new(LinkOptions {
        resources: false,
        max_links: 100_000,
    });
    let fetcher = Fetcher::new("crawlspace", Duration::from_secs(30), 10 << 20).expect("fetcher");
    let first = Url::parse(&format!("{origin}/p/0")).expect("start");
    let shared = Arc::new(std::sync::Mutex::new(Shared {
        seen: HashSet::from([first.as_str().to_owned()]),
        queue: VecDeque::from([first]),
        busy: 0,
        fetched: 0,
    }));
    let more = Arc::new(tokio::sync::Notify::new());
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..concurrency {
        let (fetcher, shared, more, options) = (
            fetcher.clone(),
            shared.clone(),
            more.clone(),
            options.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let mut links: Vec<Url> = Vec::new();
            let mut fetching = false;
            loop {
                let waiting = more.notified();
                tokio::pin!(waiting);
                let (next, finished, queued) = {
                    let mut s = shared.lock().unwrap_or_else(|e| e.into_inner());
                    if fetching {
                        s.busy -= 1;
                        s.fetched += 1;
                    }
                    for link in links.drain(..) {
                        if s.seen.insert(link.as_str().to_owned()) {
                            s.queue.push_back(link);
                        }
                    }
                    let next = s.queue.pop_front();
                    s.busy += usize::from(next.is_some());
                    if next.is_none() && s.busy > 0 {
                        // Registered under the lock: a task that adds URLs
                        // after this wakes it.
                        waiting.as_mut().enable();
                    }
                    (next, s.busy == 0, !s.queue.is_empty())
                };
                if queued || finished {
                    more.notify_waiters();
                }
                fetching = next.is_some();
                let Some(url) = next else {
                    if finished {
                        break;
                    }
                    waiting.await;
                    continue;
                };
                links = links_of(&fetcher, &url, &options).await;
            }
        }));
    }
    for task in tasks {
        let _ = task.await;
    }
    let fetched = shared.lock().unwrap_or_else(|e| e.into_inner()).fetched;
    assert_eq!(fetched, pages, "the minimal crawler fetched every page");
    f64::from(fetched) / started.elapsed().as_secs_f64()
}

/// The median of some rates (not empty).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    if values.len() % 2 == 1 {
        values[mid]
    } else {
        (values[mid - 1] + values[mid]) / 2.0
    }
}

/// `--timeline`: every 50 ms of a crawl, the share of the two cores left
/// idle, the share of the time the engine thread ran (from its CPU time
/// in /proc, counted in 10 ms ticks: in steps of about 20%), the pages the
/// log counts as fetched since the last line (the counts move when a group
/// of outcomes is written, so lines alternate) and the URLs it knows.
/// Shows the discovery phase, when each page brings new URLs, apart from
/// the rest of the crawl, and ends with the rate of each phase.
struct Timeline {
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<(Vec<String>, Vec<Sample>)>,
}

/// One line of the timeline: when, the pages the log counted as fetched by
/// then, and the URLs it knew.
#[derive(Clone, Copy)]
struct Sample {
    ms: u128,
    fetched: u64,
    known: u64,
}

impl Timeline {
    fn start(log: Arc<UrlLog>) -> Timeline {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopped = stop.clone();
        // The engine runs on this thread (`Crawl::run`): its CPU, read from
        // the timeline's own thread.
        let engine_stat = std::fs::read_link("/proc/thread-self")
            .map(|task| format!("/proc/{}/stat", task.display()))
            .unwrap_or_default();
        let thread = std::thread::spawn(move || {
            let started = Instant::now();
            let (mut jiffies, mut fetched) = (machine_jiffies(), 0);
            let mut engine = (cpu_seconds_of(&engine_stat), Instant::now());
            let (mut lines, mut samples) = (Vec::new(), Vec::new());
            while !stopped.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
                let (now, counts) = (machine_jiffies(), log.counts());
                let idle = (now.0 - jiffies.0) as f64 / (now.1 - jiffies.1).max(1) as f64;
                let engine_now = (cpu_seconds_of(&engine_stat), Instant::now());
                let busy = (engine_now.0 - engine.0)
                    / engine_now
                        .1
                        .duration_since(engine.1)
                        .as_secs_f64()
                        .max(1e-9);
                lines.push(format!(
                    "{:5} ms: cores idle {:3.0}%, engine thread busy {:3.0}%, fetched +{:5}, URLs known {:6}",
                    started.elapsed().as_millis(),
                    100.0 * idle,
                    100.0 * busy,
                    counts.fetched.saturating_sub(fetched),
                    counts.total()
                ));
                samples.push(Sample {
                    ms: started.elapsed().as_millis(),
                    fetched: counts.fetched,
                    known: counts.total(),
                });
                (jiffies, fetched, engine) = (now, counts.fetched, engine_now);
            }
            (lines, samples)
        });
        Timeline { stop, thread }
    }

    /// Stops it and prints its lines (after the crawl: printing during it
    /// would take time from it).
    fn print(self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let (lines, samples) = self.thread.join().unwrap_or_default();
        for line in lines {
            println!("{line}");
        }
        if let Some(phases) = phases(&samples) {
            println!("{phases}");
        }
    }
}

/// The rate while pages still brought new URLs (up to the first line that
/// counts every URL the crawl will know) and after (up to the line before
/// the last, which holds the crawl's tail).
fn phases(samples: &[Sample]) -> Option<String> {
    let known = samples.iter().map(|s| s.known).max()?;
    let split = samples.iter().position(|s| s.known == known)?;
    let (first, end) = (samples[split], samples[samples.len().checked_sub(2)?]);
    let rate = |pages: u64, ms: u128| pages as f64 * 1000.0 / (ms.max(1) as f64);
    let mut text = format!(
        "discovering: {} pages in {} ms = {:.0} pages/s",
        first.fetched,
        first.ms,
        rate(first.fetched, first.ms)
    );
    if end.ms > first.ms {
        let pages = end.fetched.saturating_sub(first.fetched);
        let ms = end.ms - first.ms;
        text.push_str(&format!(
            "; after: {pages} pages in {ms} ms = {:.0} pages/s",
            rate(pages, ms)
        ));
    }
    Some(text)
}

/// The site's server process, killed when this one ends or panics.
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One crawl of the site by the real engine, with a fresh sled log.
struct Crawl {
    fetched: u64,
    secs: f64,
    cpu: f64,
    engine_cpu: f64,
    /// The runtime workers' CPU: the fetch tasks.
    workers_cpu: f64,
    server_cpu: f64,
    transactions: u64,
    /// Time the engine spent writing the URL log: it dispatches nothing
    /// meanwhile.
    write_secs: f64,
    /// Share of the two cores' time that was idle during the crawl.
    idle: f64,
    /// Context switches during the crawl: the crawler's threads, the
    /// server's.
    switches: u64,
    server_switches: u64,
}

impl Crawl {
    fn rate(&self) -> f64 {
        self.fetched as f64 / self.secs
    }

    fn run(
        runtime: &tokio::runtime::Runtime,
        server_stat: &str,
        origin: &str,
        round: usize,
        concurrency: usize,
        with_console: bool,
        timeline: bool,
    ) -> Crawl {
        let dir =
            std::env::temp_dir().join(format!("crawlspace-bench-{}-{round}", std::process::id()));
        let text = format!(
            "[crawl]\nstart = [\"{origin}/p/0\"]\nconcurrency = {concurrency}\nper_host = {concurrency}\nmax_link_depth = 1000\n\
             [[rules]]\nname = \"scan, do not save\"\naction = \"exclude-scan\"\n"
        );
        let config = Config::from_toml("bench.toml", &text).expect("config");
        let rules =
            parse_text("bench.toml", &text, DialectChoice::Given(Dialect::Native)).expect("rules");
        let compiled = CompiledRules::new(&rules.parsed.rules);
        let start = check_start(&compiled, &config.crawl.start).expect("start");
        let q = config.queues;
        let cpu_before = cpu_seconds();
        let server_before = cpu_seconds_of(server_stat);
        let server_pid = server_stat
            .trim_start_matches("/proc/")
            .trim_end_matches("/stat");
        let switches_before = (context_switches("self"), context_switches(server_pid));
        let jiffies_before = machine_jiffies();
        // The engine runs on this thread (`block_on`): its own CPU, the part
        // of the crawl that does not spread over cores.
        let engine_before = cpu_seconds_of("/proc/thread-self/stat");
        let workers_before = worker_cpu_seconds();
        let started = Instant::now();
        let log = Arc::new(UrlLog::open(&dir.join("db"), 64 << 20).expect("log"));
        let watch = timeline.then(|| Timeline::start(log.clone()));
        let stats = runtime.block_on(async {
            let log = log.clone();
            let plan = Plan {
                settings: config.crawl,
                weights: q.in_order(),
                start,
                out: dir.join("mirror"),
            };
            let engine = Engine::new(plan, log.clone(), Arc::new(compiled)).expect("engine");
            let (events, mut events_rx) = tokio::sync::mpsc::channel(16);
            let (control, control_rx) = crawlspace::crawl::engine::control_channel(16);
            if !with_console {
                tokio::spawn(async move { while events_rx.recv().await.is_some() {} });
                return engine
                    .run(events, control_rx, Duration::from_millis(500))
                    .await
                    .expect("crawl");
            }
            // The console on a thread of its own, so its CPU time is its own.
            let (keys, keys_rx) = tokio::sync::mpsc::channel(8);
            let console_log = log.clone();
            let console = std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("console runtime");
                let rules = parse_text("bench.toml", &text, DialectChoice::Given(Dialect::Native))
                    .expect("rules")
                    .parsed
                    .rules;
                let save = SaveTarget::for_config(std::path::Path::new("bench.toml"), &text);
                let mut app = App::new("bench".into(), rules, save, [10000, 2000, 1000, 100, 10, 1]);
                app.update(Action::Key(KeyEvent::new(KeyCode::Char('3'), KeyModifiers::NONE)));
                let console = Console {
                    app,
                    log: console_log,
                    control,
                    events: events_rx,
                    // The engine's own go to stderr (`Engine::new`).
                    notices: Arc::new(crawlspace::crawl::notices::Notices::held()),
                };
                let mut terminal = Terminal::new(TestBackend::new(200, 60)).expect("terminal");
                let started = Instant::now();
                let frames = runtime
                    .block_on(drive(&mut terminal, console, keys_rx))
                    .expect("console");
                let cpu = cpu_seconds_of("/proc/thread-self/stat");
                (frames, started.elapsed(), cpu)
            });
            let stats = engine
                .run(events, control_rx, Duration::from_millis(100))
                .await
                .expect("crawl");
            let quit = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE);
            let _ = keys.send(TermEvent::Key(quit)).await;
            let (frames, wall, cpu) = console.join().expect("console thread");
            println!(
                "console: {frames} frames in {:.1} s = {:.1} frames/s; its thread used {cpu:.2} s CPU = {:.1}% of a core",
                wall.as_secs_f64(),
                frames as f64 / wall.as_secs_f64(),
                100.0 * cpu / wall.as_secs_f64()
            );
            stats
        });
        let secs = started.elapsed().as_secs_f64();
        if let Some(watch) = watch {
            watch.print();
        }
        let jiffies_after = machine_jiffies();
        let idle = (jiffies_after.0 - jiffies_before.0) as f64
            / (jiffies_after.1 - jiffies_before.1).max(1) as f64;
        let switches = context_switches("self").saturating_sub(switches_before.0);
        let server_switches = context_switches(server_pid).saturating_sub(switches_before.1);
        let cpu = cpu_seconds() - cpu_before;
        let server_cpu = cpu_seconds_of(server_stat) - server_before;
        let engine_cpu = cpu_seconds_of("/proc/thread-self/stat") - engine_before;
        let workers_cpu = worker_cpu_seconds() - workers_before;
        let transactions = log.transactions();
        let write_secs = log.write_time().as_secs_f64();
        drop(log);
        let _ = std::fs::remove_dir_all(&dir);
        Crawl {
            fetched: stats.fetched + stats.saved,
            secs,
            cpu,
            engine_cpu,
            workers_cpu,
            server_cpu,
            transactions,
            write_secs,
            idle,
            switches,
            server_switches,
        }
    }
}

/// Prints one round's figures.
fn report(pages: u32, raw: &Phase, scanned: &Phase, crawl: &Crawl) {
    let per_thousand = |seconds: f64, pages: u64| seconds * 1000.0 / pages.max(1) as f64;
    // `--crawl-only` ran neither pass: no lines, and no share of a rate.
    let passes = [("load generator", raw), ("fetch and scan only", scanned)];
    for (name, phase) in passes.into_iter().filter(|(_, p)| p.rate.is_finite()) {
        println!(
            "{name}: {:.0} pages/s; its CPU {:.3} s (runtime workers {:.3} s) and the server's {:.3} s per 1,000 pages; cores idle {:.0}%; context switches per page {:.2} and the server's {:.2}",
            phase.rate,
            per_thousand(phase.cpu, u64::from(pages)),
            per_thousand(phase.workers_cpu, u64::from(pages)),
            per_thousand(phase.server_cpu, u64::from(pages)),
            100.0 * phase.idle,
            phase.switches as f64 / f64::from(pages),
            phase.server_switches as f64 / f64::from(pages)
        );
    }
    let fetched = crawl.fetched;
    let share = if raw.rate.is_finite() {
        format!(
            " ({:.0}% of the load generator)",
            100.0 * crawl.rate() / raw.rate
        )
    } else {
        String::new()
    };
    println!(
        "crawl: {fetched} pages in {:.1} s = {:.0} pages/s{share}",
        crawl.secs,
        crawl.rate(),
    );
    println!(
        "crawler CPU: {:.2} s = {:.3} s per 1,000 pages",
        crawl.cpu,
        per_thousand(crawl.cpu, fetched)
    );
    println!(
        "engine thread CPU: {:.2} s = {:.3} s per 1,000 pages; runtime workers (the fetch tasks) {:.3} s per 1,000 pages",
        crawl.engine_cpu,
        per_thousand(crawl.engine_cpu, fetched),
        per_thousand(crawl.workers_cpu, fetched)
    );
    println!(
        "server CPU during the crawl: {:.3} s per 1,000 pages",
        per_thousand(crawl.server_cpu, fetched)
    );
    println!(
        "cores idle during the crawl: {:.0}%; context switches per page: crawler {:.2}, server {:.2}",
        100.0 * crawl.idle,
        crawl.switches as f64 / fetched.max(1) as f64,
        crawl.server_switches as f64 / fetched.max(1) as f64
    );
    println!("crawler peak RSS so far: {:.0} MB", peak_rss_mb());
    println!(
        "URL log: {} transactions = {:.1} per 1,000 pages, written in {:.3} s ({:.0}% of the crawl)",
        crawl.transactions,
        per_thousand(crawl.transactions as f64, fetched),
        crawl.write_secs,
        100.0 * crawl.write_secs / crawl.secs
    );
}
