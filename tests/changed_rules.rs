//! Rules edited between two runs on the same URL log (SPEC §2.6 across a
//! restart): the second run compares its rules with those the log recorded
//! and applies the change as one made during the crawl would.

mod util;

use std::sync::Arc;
use std::time::Duration;

use crawlspace::crawl::engine::{Control, Stats};
use crawlspace::store::{State, UrlLog, UrlRecord};
use tokio::sync::{Semaphore, mpsc};

/// Links to `/page/0` to `/page/9` on `/`.
fn ten_links() -> String {
    (0..10)
        .map(|i| format!("<a href=\"/page/{i}\">{i}</a>"))
        .collect()
}

const NO_ODD_PAGES: &str = "[[rules]]\nname = \"no odd pages\"\nmatch = { field = \"path\", regex = '[13579]$' }\nfilter = \"may-not-have\"\nlog = true\n";

/// A config for `origin` with one request at a time and `rules`.
fn config(origin: &str, rules: &str) -> String {
    format!("[crawl]\nstart = [\"{origin}/\"]\nconcurrency = 1\nper_host = 1\n\n{rules}")
}

/// Runs a crawl of `text` on the log in `dir` to its end.
async fn crawl_to_the_end(text: &str, dir: &std::path::Path) -> (Stats, Arc<UrlLog>) {
    let (engine, log) = util::engine_for(text, dir);
    let (events, mut events_rx) = mpsc::channel(64);
    let (_control, control_rx) = crawlspace::crawl::engine::control_channel(8);
    let run = tokio::spawn(engine.run(events, control_rx, Duration::from_millis(10)));
    tokio::spawn(async move { while events_rx.recv().await.is_some() {} });
    let stats = run.await.expect("joins").expect("crawl runs");
    (stats, log)
}

fn page(log: &UrlLog, origin: &str, n: u32) -> UrlRecord {
    let id = log
        .id_of(&format!("{origin}/page/{n}"))
        .expect("read")
        .expect("logged");
    log.get(id).expect("read").expect("record")
}

/// Checks that the odd pages of `ten_links` were filtered by
/// `NO_ODD_PAGES`, the reason saying `why`, and never fetched, and that
/// the even ones were saved; the odd pages' records.
fn odd_pages_filtered(log: &UrlLog, origin: &str, why: &str) -> Vec<UrlRecord> {
    let mut odd = Vec::new();
    for n in 0..10 {
        let r = page(log, origin, n);
        if n % 2 == 0 {
            assert_eq!(r.state, State::Saved, "page {n}: {}", r.reason);
            continue;
        }
        assert_eq!(r.state, State::Filtered, "page {n}");
        assert!(
            r.reason.contains("rule 1 \"no odd pages\"") && r.reason.contains(why),
            "{}",
            r.reason
        );
        assert_eq!(r.fetched_ms, None, "page {n} was not fetched");
        odd.push(r);
    }
    odd
}

/// A rule removed between two runs: the URLs it filtered are fetched by
/// the next run, with a `changed-rules` line first in their trace; a third
/// run with the same rules changes nothing more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_removed_between_runs_lets_its_filtered_urls_be_fetched() {
    let gate = Arc::new(Semaphore::new(Semaphore::MAX_PERMITS));
    let origin = util::serve(util::gated_pages(ten_links(), gate)).await;
    let dir = tempfile::tempdir().expect("temp dir");

    let (first, log) = crawl_to_the_end(&config(&origin, NO_ODD_PAGES), dir.path()).await;
    assert_eq!(first.fetched + first.saved, 6, "/ and the five even pages");
    for n in (1..10).step_by(2) {
        assert_eq!(page(&log, &origin, n).state, State::Filtered, "page {n}");
    }
    drop(log);

    let (second, log) = crawl_to_the_end(&config(&origin, ""), dir.path()).await;
    assert_eq!(second.queued_by_new_rules, 5);
    assert_eq!(second.dropped_by_new_rules, 0);
    for n in 0..10 {
        let r = page(&log, &origin, n);
        assert_eq!(r.state, State::Saved, "page {n}: {}", r.reason);
        let first_layer = r.trace.first().map(|t| t.rule.as_str());
        if n % 2 == 1 {
            assert_eq!(
                first_layer,
                Some("changed-rules"),
                "page {n}: {:?}",
                r.trace
            );
            assert!(
                r.trace[0].detail.contains("rules of an earlier run"),
                "{:?}",
                r.trace[0]
            );
        } else {
            assert_ne!(first_layer, Some("changed-rules"), "page {n}");
        }
    }
    drop(log);

    let (third, _log) = crawl_to_the_end(&config(&origin, ""), dir.path()).await;
    assert_eq!(
        (third.queued_by_new_rules, third.dropped_by_new_rules),
        (0, 0)
    );
    assert_eq!(third.fetched + third.saved, 11);
    assert_eq!(third.done_before, 11, "nothing fetched again: {third:?}");
}

/// A rule added between two runs: the URLs a stopped crawl left queued
/// that it filters are not fetched by the next run but logged as filtered
/// by it, saying the rules changed since the last run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_added_between_runs_filters_the_urls_left_queued() {
    added_rule_filters_the_urls_left_queued(None).await;
}

/// The same when the log's record of the rules does not read (as with no
/// record, from a build before it): queued URLs are still judged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queued_urls_are_judged_also_without_a_readable_record_of_the_rules() {
    added_rule_filters_the_urls_left_queued(Some("[[rules]\nname = ")).await;
}

/// Filtered URLs are not met again when the log's record of the rules
/// does not read: what refused them is not known.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filtered_urls_stay_so_without_a_readable_record_of_the_rules() {
    let gate = Arc::new(Semaphore::new(Semaphore::MAX_PERMITS));
    let origin = util::serve(util::gated_pages(ten_links(), gate)).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let (_, log) = crawl_to_the_end(&config(&origin, NO_ODD_PAGES), dir.path()).await;
    log.set_rules_seen("[[rules]\nname = ").expect("write");
    drop(log);
    let (second, log) = crawl_to_the_end(&config(&origin, ""), dir.path()).await;
    assert_eq!(second.queued_by_new_rules, 0);
    assert_eq!(page(&log, &origin, 1).state, State::Filtered);
    drop(log);
    // The rules in force were recorded in its place: a third run with
    // them changes nothing either.
    let (third, _log) = crawl_to_the_end(&config(&origin, ""), dir.path()).await;
    assert_eq!(third.queued_by_new_rules, 0);
}

/// Said to the user, headless as in the console (`tests/console.rs`): a
/// whole line on stderr, while the crawl goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_of_the_rules_that_does_not_read_is_said() {
    let gate = Arc::new(Semaphore::new(Semaphore::MAX_PERMITS));
    let origin = util::serve(util::gated_pages(ten_links(), gate)).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("db");
    {
        let log = UrlLog::open(&db, 16 << 20).expect("log");
        log.set_rules_seen("[[rules]\nname = ").expect("write");
        log.flush().expect("flush");
    }
    let file = dir.path().join("crawl.toml");
    std::fs::write(&file, config(&origin, NO_ODD_PAGES)).expect("write");
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_crawlspace"));
    command
        .args(["crawl", "--headless", "--config"])
        .arg(&file)
        .arg("--db")
        .arg(&db)
        .arg("--out")
        .arg(dir.path().join("out"));
    // Off the runtime, which serves the site.
    let crawl = tokio::task::spawn_blocking(move || command.output())
        .await
        .expect("joins")
        .expect("runs");
    assert!(crawl.status.success());
    let stderr = String::from_utf8_lossy(&crawl.stderr);
    assert!(
        stderr.lines().any(|line| line
            .starts_with("crawlspace: the rules of the log's last run do not read (")
            && line.ends_with("URLs they filtered are not judged again")),
        "{stderr}"
    );
    let log = UrlLog::open(&db, 16 << 20).expect("log");
    odd_pages_filtered(&log, &origin, "no odd pages");
}

/// A crawl stopped with pages queued, the log's record of the rules then
/// replaced by `recorded` (when given), and a next run with a rule that
/// filters half of them.
async fn added_rule_filters_the_urls_left_queued(recorded: Option<&str>) {
    let gate = Arc::new(Semaphore::new(0));
    let origin = util::serve(util::gated_pages(ten_links(), gate.clone())).await;
    let dir = tempfile::tempdir().expect("temp dir");

    // The first run stops with page/0 held at the server and nine pages
    // queued.
    let (engine, log) = util::engine_for(&config(&origin, ""), dir.path());
    let (events, mut events_rx) = mpsc::channel(64);
    let (control, control_rx) = crawlspace::crawl::engine::control_channel(8);
    let run = tokio::spawn(engine.run(events, control_rx, Duration::from_millis(10)));
    util::stats_until(&mut events_rx, |s| s.queued == 9 && s.in_flight == 1).await;
    control.send(Control::Stop).await.expect("send");
    tokio::spawn(async move { while events_rx.recv().await.is_some() {} });
    run.await.expect("joins").expect("crawl runs");
    if let Some(text) = recorded {
        log.set_rules_seen(text).expect("write");
    }
    drop(log);

    gate.add_permits(Semaphore::MAX_PERMITS);
    let (second, log) = crawl_to_the_end(&config(&origin, NO_ODD_PAGES), dir.path()).await;
    assert_eq!(second.dropped_by_new_rules, 5);
    assert_eq!(second.queued_by_new_rules, 0);
    for r in odd_pages_filtered(&log, &origin, "rules changed since the last run") {
        assert!(r.trace.iter().any(|t| t.rule == "changed-rules"));
    }
}

/// A redirect target met again keeps how it was met: its trace still says
/// it is a redirect hop, and it waits in the `redirect` queue.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_target_met_again_is_still_one() {
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse;
    use axum::routing::get;
    let site = axum::Router::new()
        .route(
            "/",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/html")],
                    "<a href=\"/old\">old</a>",
                )
            }),
        )
        .route(
            "/old",
            get(|| async {
                (StatusCode::MOVED_PERMANENTLY, [(header::LOCATION, "/new")]).into_response()
            }),
        )
        .route(
            "/new",
            get(|| async { ([(header::CONTENT_TYPE, "text/html")], "new") }),
        );
    let origin = util::serve(site).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let no_new = "[[rules]]\nname = \"not new\"\nmatch = { field = \"path\", exact = \"/new\" }\naction = \"exclude\"\n";
    let (_, log) = crawl_to_the_end(&config(&origin, no_new), dir.path()).await;
    let record = |log: &UrlLog| {
        let id = log
            .id_of(&format!("{origin}/new"))
            .expect("read")
            .expect("logged");
        log.get(id).expect("read").expect("record")
    };
    assert_eq!(record(&log).state, State::Filtered);
    drop(log);
    let (second, log) = crawl_to_the_end(&config(&origin, ""), dir.path()).await;
    assert_eq!(second.queued_by_new_rules, 1);
    let new = record(&log);
    assert_eq!(new.state, State::Saved, "{}", new.reason);
    assert_eq!(new.queue, "redirect");
    let layers: Vec<(&str, &str)> = new
        .trace
        .iter()
        .take(2)
        .map(|t| (t.rule.as_str(), t.detail.as_str()))
        .collect();
    assert_eq!(layers[0].0, "changed-rules");
    assert_eq!(layers[1], ("redirect", "redirect hop 1"));
}

/// An address rule: odd pages are refused once DNS gives their address.
const NO_ODD_PAGES_ON_LOOPBACK: &str = "[[rules]]\nname = \"no odd pages on loopback\"\nmatch = { all = [ { field = \"path\", regex = '[13579]$' }, { field = \"address\", cidr = \"127.0.0.0/8\" } ] }\nfilter = \"may-not-have\"\nlog = true\n";

/// A URL an address rule refused keeps the address it was refused on, and
/// a rule change that no longer refuses that address fetches it; one that
/// still does leaves it filtered. Fetched pages keep their address too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn urls_an_address_rule_refused_are_judged_again_on_their_address() {
    let gate = Arc::new(Semaphore::new(Semaphore::MAX_PERMITS));
    let origin = util::serve(util::gated_pages(ten_links(), gate)).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let loopback: std::net::IpAddr = "127.0.0.1".parse().expect("an address");

    let (first, log) =
        crawl_to_the_end(&config(&origin, NO_ODD_PAGES_ON_LOOPBACK), dir.path()).await;
    assert_eq!(first.fetched + first.saved, 6, "/ and the five even pages");
    for n in 0..10 {
        let r = page(&log, &origin, n);
        let want = if n % 2 == 1 {
            State::Filtered
        } else {
            State::Saved
        };
        assert_eq!(r.state, want, "page {n}: {}", r.reason);
        assert_eq!(r.address, Some(loopback), "page {n} keeps its address");
    }
    drop(log);

    // The same refusal in other words: nothing changes for the odd pages.
    let same = NO_ODD_PAGES_ON_LOOPBACK.replace("127.0.0.0/8", "127.0.0.1/32");
    let (second, log) = crawl_to_the_end(&config(&origin, &same), dir.path()).await;
    assert_eq!(second.queued_by_new_rules, 0, "{second:?}");
    assert_eq!(page(&log, &origin, 1).state, State::Filtered);
    drop(log);

    // A rule that refuses another address: the odd pages are fetched.
    let elsewhere = NO_ODD_PAGES_ON_LOOPBACK.replace("127.0.0.0/8", "10.0.0.0/8");
    let (third, log) = crawl_to_the_end(&config(&origin, &elsewhere), dir.path()).await;
    assert_eq!(third.queued_by_new_rules, 5, "{third:?}");
    for n in (1..10).step_by(2) {
        let r = page(&log, &origin, n);
        assert_eq!(r.state, State::Saved, "page {n}: {}", r.reason);
        assert_eq!(
            r.trace.first().map(|t| t.rule.as_str()),
            Some("changed-rules"),
            "page {n}: {:?}",
            r.trace
        );
    }
}

/// `crawl --headless` watches its config file: saved with the rules in
/// force, it says so and applies nothing; emptied, it keeps the rules in
/// force; saved with a rule whose regex does not compile, it keeps them
/// too; saved with a new rule, the running crawl takes it, and the queued URLs the rule filters are logged
/// as filtered by it and never fetched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_headless_crawl_takes_the_rules_saved_in_its_config_file() {
    use std::io::BufRead;
    let gate = Arc::new(Semaphore::new(0));
    let (site, mut arrivals) = util::counted_gated_pages(ten_links(), gate.clone());
    let origin = util::serve(site).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("crawl.toml");
    std::fs::write(&file, config(&origin, "")).expect("write");
    let mut crawl = std::process::Command::new(env!("CARGO_BIN_EXE_crawlspace"))
        .args(["crawl", "--headless", "--config"])
        .arg(&file)
        .arg("--db")
        .arg(dir.path().join("db"))
        .arg("--out")
        .arg(dir.path().join("out"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let (lines_tx, mut lines) = mpsc::unbounded_channel();
    let stderr = crawl.stderr.take().expect("piped");
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = lines_tx.send(line);
        }
    });
    // The next line about the config file, the progress lines skipped.
    async fn said_of_the_file(lines: &mut mpsc::UnboundedReceiver<String>) -> String {
        loop {
            let line = lines.recv().await.expect("the crawl still runs");
            if line.contains("crawl.toml changed") {
                return line;
            }
        }
    }

    // page/0 is held at the server, the other nine queued behind it.
    arrivals
        .wait_for(|&n| n >= 1)
        .await
        .expect("a page asked for");
    // Saved again, its time set a second on: a file system that keeps
    // coarse times would otherwise show no change.
    let save = |text: String, seconds: u64| {
        std::fs::write(&file, text).expect("write");
        let later = std::time::SystemTime::now() + Duration::from_secs(seconds);
        let opened = std::fs::File::options()
            .write(true)
            .open(&file)
            .expect("open");
        opened.set_modified(later).expect("set its time");
    };
    save(config(&origin, ""), 1);
    let said = said_of_the_file(&mut lines).await;
    assert!(
        said.contains("its rules are those in force, nothing to apply"),
        "{said}"
    );

    // Emptied (a save that truncates first): not taken for "no rules".
    save(String::new(), 2);
    let said = said_of_the_file(&mut lines).await;
    assert!(
        said.contains("it is empty (the rules in force stay)"),
        "{said}"
    );

    // With a rule that a regex which does not compile would switch off:
    // not applied (a filter with a typo would let the crawl through it),
    // and the warning the start gives says which.
    let broken = "[[rules]]\nname = \"broken\"\nmatch = { field = \"path\", regex = \"[\" }\nfilter = \"may-not-have\"\n";
    save(config(&origin, &format!("{NO_ODD_PAGES}{broken}")), 3);
    let said = said_of_the_file(&mut lines).await;
    assert!(
        said.contains("not applied, the rules in force stay: a rule in it does not compile"),
        "{said}"
    );
    // The next line that is not a progress line (they go to stderr too).
    let warned = loop {
        let line = lines.recv().await.expect("the crawl still runs");
        if !line.starts_with("fetched ") {
            break line;
        }
    };
    assert!(
        warned.contains("warning: ") && warned.contains("rule 2 \"broken\" is disabled"),
        "{warned}"
    );
    // Fixed: applied.
    save(config(&origin, NO_ODD_PAGES), 4);
    let said = said_of_the_file(&mut lines).await;
    assert!(
        said.contains("new rules applied to the running crawl"),
        "{said}"
    );
    gate.add_permits(Semaphore::MAX_PERMITS);
    let status = tokio::task::spawn_blocking(move || crawl.wait())
        .await
        .expect("joins")
        .expect("waits");
    assert!(status.success());

    let log = UrlLog::open(&dir.path().join("db"), 16 << 20).expect("log");
    odd_pages_filtered(&log, &origin, "new rules applied during the crawl");
}
