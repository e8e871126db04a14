//! A refresh crawl (`crawl --refresh`, SPEC §2.4) against real HTTP servers
//! on 127.0.0.1: a first crawl, then the site changes and a refresh crawl
//! runs on the same URL log and mirror. The servers record the conditional
//! headers they receive. Checked: 304 keeps the saved copy byte for byte,
//! a changed page is saved again, a page gone is marked deleted and its
//! mirror file removed, temporary errors are retried, rules changed since
//! apply, everything goes through the `refresh` queue, a finished refresh
//! can be run again, and a stopped or killed refresh resumes without
//! fetching any URL twice.

mod util;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State as Shared;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use crawlspace::crawl::engine::{Control, Stats};
use crawlspace::crawl::mirror::path_for;
use crawlspace::store::{Query, State, UrlLog, UrlRecord};
use tokio::sync::{Semaphore, mpsc, watch};
use url::Url;

/// The `Last-Modified` of `/lastmod`, the same in every run.
const LAST_MODIFIED: &str = "Wed, 21 Oct 2015 07:28:00 GMT";

/// A request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    run: usize,
    path: String,
    if_none_match: Option<String>,
    if_modified_since: Option<String>,
}

/// A test site's state: which run of the crawl it is serving (0 is the
/// first crawl; the site changes from run 1), every request, and a gate
/// that holds chosen pages until the test opens it.
struct Site {
    run: AtomicUsize,
    seen: Mutex<Vec<Seen>>,
    flaky: AtomicUsize,
    gate: Semaphore,
    /// Requests so far, for the tests to wait on.
    hits: watch::Sender<usize>,
}

impl Site {
    fn new() -> Arc<Site> {
        Arc::new(Site {
            run: AtomicUsize::new(0),
            seen: Mutex::new(Vec::new()),
            flaky: AtomicUsize::new(0),
            gate: Semaphore::new(0),
            hits: watch::channel(0).0,
        })
    }

    /// Records a request; returns the run it belongs to.
    fn record(&self, path: &str, headers: &HeaderMap) -> usize {
        let text = |name| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let run = self.run.load(Ordering::SeqCst);
        self.seen.lock().expect("lock").push(Seen {
            run,
            path: path.to_string(),
            if_none_match: text(header::IF_NONE_MATCH),
            if_modified_since: text(header::IF_MODIFIED_SINCE),
        });
        self.hits.send_modify(|n| *n += 1);
        run
    }

    /// The requests for `path` in run `run`.
    fn requests(&self, run: usize, path: &str) -> Vec<Seen> {
        let seen = self.seen.lock().expect("lock");
        seen.iter()
            .filter(|s| s.run == run && s.path == path)
            .cloned()
            .collect()
    }
}

/// Serves `site` with `handler` on 127.0.0.1:0 and returns its origin.
async fn serve<F, R>(site: Arc<Site>, handler: F) -> String
where
    F: Fn(Arc<Site>, Uri, HeaderMap) -> R + Clone + Send + Sync + 'static,
    R: std::future::Future<Output = Response> + Send + 'static,
{
    let router = Router::new()
        .fallback(
            move |Shared(site): Shared<Arc<Site>>, uri: Uri, headers: HeaderMap| {
                handler(site, uri, headers)
            },
        )
        .with_state(site);
    util::serve(router).await
}

fn html(body: &str) -> Response {
    ([(header::CONTENT_TYPE, "text/html")], body.to_string()).into_response()
}

/// A page with an `ETag`: 304 when the request names it.
fn tagged(headers: &HeaderMap, etag: &str, body: &str) -> Response {
    let asked = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok());
    if asked == Some(etag) {
        return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag.to_string())]).into_response();
    }
    (
        [
            (header::CONTENT_TYPE, "text/html".to_string()),
            (header::ETAG, etag.to_string()),
        ],
        body.to_string(),
    )
        .into_response()
}

/// The site that changes between the first crawl (run 0) and the refresh
/// (run 1 and later): `/etag` and `/lastmod` stay the same and can say so,
/// `/changed` changes (and links a new page), `/gone` goes, `/flaky` fails
/// once with 503 and `Retry-After`, `/dropped` is excluded by the rules of
/// the refresh; `/later` answers 503 with `Retry-After` in the first crawl
/// only, `/busy` from the refresh on; `/` has no validators and is fetched
/// in full each time.
async fn changing_site(site: Arc<Site>) -> String {
    serve(site, |site, uri, headers| async move {
        let path = uri.path();
        let run = site.record(path, &headers);
        match path {
            "/" => html(
                "<a href=\"/etag\">e</a><a href=\"/lastmod\">l</a><a href=\"/changed\">c</a>\
                 <a href=\"/gone\">g</a><a href=\"/flaky\">f</a><a href=\"/dropped\">d</a>\
                 <a href=\"/later\">l</a><a href=\"/busy\">b</a><a href=\"/down\">d</a>",
            ),
            "/etag" => tagged(&headers, "\"e1\"", "<p>the same in every run</p>"),
            "/lastmod" => {
                let since = headers
                    .get(header::IF_MODIFIED_SINCE)
                    .and_then(|v| v.to_str().ok());
                if since == Some(LAST_MODIFIED) {
                    return StatusCode::NOT_MODIFIED.into_response();
                }
                (
                    [
                        (header::CONTENT_TYPE, "text/html"),
                        (header::LAST_MODIFIED, LAST_MODIFIED),
                    ],
                    "<p>dated</p>",
                )
                    .into_response()
            }
            "/changed" if run == 0 => tagged(&headers, "\"c1\"", "<p>old</p>"),
            "/changed" => tagged(
                &headers,
                "\"c2\"",
                "<p>new</p><a href=\"/new-page\">new</a><a href=\"/etag\">e</a>",
            ),
            "/gone" if run == 0 => html("<p>here for now</p>"),
            "/flaky" if run > 0 && site.flaky.fetch_add(1, Ordering::SeqCst) == 0 => (
                StatusCode::SERVICE_UNAVAILABLE,
                [(header::RETRY_AFTER, "0")],
            )
                .into_response(),
            "/flaky" => html(&format!("<p>flaky, run {run}</p>")),
            "/dropped" => html("<p>dropped later</p>"),
            "/later" | "/busy" if (path == "/later") == (run == 0) => (
                StatusCode::SERVICE_UNAVAILABLE,
                [(header::RETRY_AFTER, "0")],
            )
                .into_response(),
            "/later" | "/busy" => html(&format!("<p>{path}, run {run}</p>")),
            "/down" => (
                StatusCode::SERVICE_UNAVAILABLE,
                [(header::RETRY_AFTER, "0")],
            )
                .into_response(),
            "/new-page" => html("<p>new</p>"),
            _ => StatusCode::NOT_FOUND.into_response(),
        }
    })
    .await
}

/// Pages `/p/0` … `/p/10`, each with an `ETag`; `/p/0` links to the others.
/// From run 1, every page answers 304, and pages 5 and up first wait at
/// the site's gate.
async fn gated_site(site: Arc<Site>) -> String {
    serve(site, |site, uri, headers| async move {
        let path = uri.path();
        let run = site.record(path, &headers);
        let Some(n) = path.strip_prefix("/p/").and_then(|n| n.parse::<u32>().ok()) else {
            return StatusCode::NOT_FOUND.into_response();
        };
        if run > 0 && n >= 5 {
            let _permit = site.gate.acquire().await;
        }
        let links: String = (1..=10)
            .filter(|_| n == 0)
            .map(|c| format!("<a href=\"/p/{c}\">{c}</a>"))
            .collect();
        tagged(
            &headers,
            &format!("\"p{n}\""),
            &format!("<p>{n}</p>{links}"),
        )
    })
    .await
}

/// A crawl of `origin/` (or `origin/p/0` for the gated site) on the log and
/// mirror in `dir`, with `settings` (TOML lines for [crawl]) and `rules`
/// (native [[rules]]); `refresh` is `--refresh`. Returns the running crawl
/// and its control channel.
fn start(
    dir: &Path,
    start: &str,
    settings: &str,
    rules: &str,
    refresh: bool,
) -> (
    tokio::task::JoinHandle<Stats>,
    crawlspace::crawl::engine::ControlSender,
) {
    let text = format!("[crawl]\nstart = [{start:?}]\n{settings}\n{rules}");
    let engine = util::engine_for(&text, dir).0.with_refresh(refresh);
    let (events, mut events_rx) = mpsc::channel(64);
    tokio::spawn(async move { while events_rx.recv().await.is_some() {} });
    let (control, control_rx) = crawlspace::crawl::engine::control_channel(8);
    let run = tokio::spawn(async move {
        engine
            .run(events, control_rx, Duration::from_millis(20))
            .await
            .expect("crawl runs")
    });
    (run, control)
}

/// [`start`], run to the end.
async fn crawl(dir: &Path, start_url: &str, settings: &str, rules: &str, refresh: bool) -> Stats {
    let (run, _control) = start(dir, start_url, settings, rules, refresh);
    run.await.expect("joins")
}

/// url → record, and when the refresh under way began, of the log in `dir`.
fn records(dir: &Path) -> (HashMap<String, UrlRecord>, Option<u64>) {
    let log = UrlLog::open(&dir.join("db"), 16 << 20).expect("log opens");
    let mut out = HashMap::new();
    let mut after = None;
    loop {
        let page = log.page(&Query::default(), after, 500).expect("page");
        let Some((last, _)) = page.last() else { break };
        after = Some(*last);
        for (_, r) in page {
            assert!(out.insert(r.url.clone(), r).is_none(), "logged twice");
        }
    }
    (out, log.refresh_since().expect("mark"))
}

/// Where `origin` + `path` is saved in the mirror under `dir`.
fn mirror_file(dir: &Path, origin: &str, path: &str) -> PathBuf {
    let url = Url::parse(&format!("{origin}{path}")).expect("url");
    path_for(&dir.join("mirror"), &url)
}

fn refresh_line(r: &UrlRecord) -> String {
    r.trace
        .iter()
        .find(|t| t.rule == "refresh")
        .map(|t| format!("{}: {}", t.step, t.detail))
        .unwrap_or_else(|| panic!("{} has no refresh line: {:?}", r.url, r.trace))
}

const DROP_RULE: &str = "[[rules]]\nname = \"no dropped page\"\nmatch = { field = \"path\", exact = \"/dropped\" }\nfilter = \"may-not-have\"\nlog = true\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refresh_keeps_unchanged_pages_saves_changed_ones_and_deletes_gone_ones() {
    let site = Site::new();
    let origin = changing_site(site.clone()).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let home = format!("{origin}/");
    let url = |path: &str| format!("{origin}{path}");

    crawl(dir, &home, "", "", false).await;
    let (first, mark) = records(dir);
    assert_eq!(mark, None, "a plain crawl is no refresh");
    let later = &first[&url("/later")];
    assert_eq!(later.state, State::Error, "given up: {later:?}");
    let paths = [
        "/", "/etag", "/lastmod", "/changed", "/gone", "/flaky", "/dropped", "/busy",
    ];
    for path in paths {
        let r = &first[&url(path)];
        assert_eq!(r.state, State::Saved, "{path}: {r:?}");
    }
    assert_eq!(first[&url("/etag")].etag.as_deref(), Some("\"e1\""));
    assert_eq!(
        first[&url("/lastmod")].last_modified.as_deref(),
        Some(LAST_MODIFIED)
    );
    let kept = |path| std::fs::read(mirror_file(dir, &origin, path)).expect("saved");
    let (etag_copy, lastmod_copy) = (kept("/etag"), kept("/lastmod"));
    let (dropped_copy, busy_copy) = (kept("/dropped"), kept("/busy"));

    // The site changes; the refresh runs under rules that now drop a page.
    site.run.store(1, Ordering::SeqCst);
    let refresh_started = now_ms();
    let refresh = crawl(dir, &home, "", DROP_RULE, true).await;
    // The page gone counts as deleted, /busy (given up after temporary
    // errors, its copy kept) as not refreshed: neither is an error, as the
    // log has them.
    // /down, an error with no copy before, is an error again.
    assert_eq!(
        (refresh.deleted, refresh.unrefreshed, refresh.errors),
        (1, 1, 1),
        "{refresh:?}"
    );
    let (after, mark) = records(dir);
    assert_eq!(mark, None, "a refresh that ran to the end is over");

    // Conditional requests: the validators each record had.
    let asked = |path| site.requests(1, path);
    assert_eq!(asked("/etag").len(), 1);
    assert_eq!(asked("/etag")[0].if_none_match.as_deref(), Some("\"e1\""));
    assert_eq!(
        asked("/lastmod")[0].if_modified_since.as_deref(),
        Some(LAST_MODIFIED)
    );
    assert_eq!(asked("/lastmod")[0].if_none_match, None);
    assert_eq!(
        asked("/changed")[0].if_none_match.as_deref(),
        Some("\"c1\"")
    );
    let home_asked = &asked("/")[0];
    assert_eq!(
        (&home_asked.if_none_match, &home_asked.if_modified_since),
        (&None, &None),
        "a page without validators is asked in full"
    );

    // 304: the copy byte for byte, the state, a new fetch time.
    for (path, copy) in [("/etag", &etag_copy), ("/lastmod", &lastmod_copy)] {
        let r = &after[&url(path)];
        assert_eq!(
            (r.state, r.status),
            (State::Saved, Some(304)),
            "{path}: {r:?}"
        );
        assert!(r.reason.contains("not modified (304)"), "{}", r.reason);
        assert_eq!(&kept(path), copy, "{path}: the mirror file is untouched");
        assert_eq!(r.saved_path, first[&url(path)].saved_path);
        assert!(r.fetched_ms.is_some_and(|t| t >= refresh_started));
        assert_eq!(r.queue, "refresh", "{path} went through the refresh queue");
        let line = refresh_line(r);
        assert!(line.starts_with("was saved: not modified (304)"), "{line}");
    }

    // 200 to a conditional request: saved again, its new links crawled.
    let changed = &after[&url("/changed")];
    assert_eq!((changed.state, changed.status), (State::Saved, Some(200)));
    assert_eq!(changed.etag.as_deref(), Some("\"c2\""));
    assert!(
        changed
            .reason
            .contains("refreshed: changed since the last fetch"),
        "{}",
        changed.reason
    );
    assert!(String::from_utf8_lossy(&kept("/changed")).contains("<p>new</p>"));
    let new_page = &after[&url("/new-page")];
    assert_eq!(new_page.state, State::Saved);
    assert_eq!(
        new_page.queue, "index_follow",
        "a new URL is crawled as usual"
    );

    // Gone: deleted, with the mirror file removed.
    let gone = &after[&url("/gone")];
    assert_eq!(
        (gone.state, gone.status),
        (State::Deleted, Some(404)),
        "{gone:?}"
    );
    assert!(
        gone.reason.starts_with("deleted: HTTP 404 on refresh"),
        "{}",
        gone.reason
    );
    assert!(gone.reason.contains("removed"), "{}", gone.reason);
    assert_eq!(gone.saved_path, None);
    // Nothing of the removed copy is said of it any more.
    assert_eq!(
        (gone.size, &gone.content_type, &gone.excerpt),
        (None, &None, &None)
    );
    assert!(!mirror_file(dir, &origin, "/gone").exists());

    // A temporary error is retried as usual.
    let flaky = &after[&url("/flaky")];
    assert_eq!(flaky.state, State::Saved, "{flaky:?}");
    assert_eq!(asked("/flaky").len(), 2, "a 503 with Retry-After, then 200");
    assert!(String::from_utf8_lossy(&kept("/flaky")).contains("run 1"));

    // Given up after temporary errors before: tried again, saved now.
    let later = &after[&url("/later")];
    assert_eq!(
        (later.state, later.error.as_ref()),
        (State::Saved, None),
        "{later:?}"
    );
    assert!(refresh_line(later).starts_with("was error"), "{later:?}");
    // An error before and after: its refresh line says how this one ended.
    let down = &after[&url("/down")];
    assert_eq!(down.state, State::Error, "{down:?}");
    assert_eq!(
        refresh_line(down),
        "was error: failed again: gave up after 4 temporary errors: HTTP 503 with Retry-After"
    );
    // Temporary errors on refresh, given up: the copy and state stay.
    let busy = &after[&url("/busy")];
    assert_eq!(busy.state, State::Saved, "{busy:?}");
    assert!(
        busy.reason
            .starts_with("refresh failed: gave up after 4 temporary errors"),
        "{}",
        busy.reason
    );
    assert_eq!(asked("/busy").len(), 4, "one try and max_retries 3");
    assert_eq!(kept("/busy"), busy_copy);

    // The rules of the refresh apply: filtered, not fetched, copy left.
    let dropped = &after[&url("/dropped")];
    assert_eq!(dropped.state, State::Filtered, "{dropped:?}");
    assert!(
        dropped.reason.contains("rule 1 \"no dropped page\"")
            && dropped.reason.contains("on refresh"),
        "{}",
        dropped.reason
    );
    assert!(asked("/dropped").is_empty());
    assert_eq!(kept("/dropped"), dropped_copy);

    // A second refresh refreshes again; deleted and filtered URLs stay so.
    site.run.store(2, Ordering::SeqCst);
    crawl(dir, &home, "", DROP_RULE, true).await;
    let (again, mark) = records(dir);
    assert_eq!(mark, None);
    assert_eq!(site.requests(2, "/etag").len(), 1);
    assert_eq!(
        site.requests(2, "/changed")[0].if_none_match.as_deref(),
        Some("\"c2\""),
        "the validators of the last refresh"
    );
    assert!(site.requests(2, "/gone").is_empty());
    assert!(site.requests(2, "/dropped").is_empty());
    assert_eq!(again[&url("/changed")].status, Some(304));
    assert_eq!(again[&url("/gone")].state, State::Deleted);
    assert_eq!(again[&url("/new-page")].queue, "refresh");
    assert_eq!(
        site.requests(2, "/busy").len(),
        4,
        "a kept copy is refreshed again"
    );

    // Without --refresh nothing known is fetched again.
    site.run.store(3, Ordering::SeqCst);
    let stats = crawl(dir, &home, "", DROP_RULE, false).await;
    // Its counts start from the log's: none of them is this run's.
    assert_eq!(stats.fetched + stats.saved, stats.done_before, "{stats:?}");
    assert!(
        site.seen
            .lock()
            .expect("lock")
            .iter()
            .all(|s| s.run != 3 || s.path == "/robots.txt")
    );
}

/// A refresh stopped mid-way resumes where it was: the URLs it refreshed
/// are not fetched again and the one in flight, queued again by the stop,
/// is fetched once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_refresh_resumes_without_fetching_anything_twice() {
    let site = Site::new();
    let origin = gated_site(site.clone()).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let home = format!("{origin}/p/0");
    // One request at a time: the refresh takes the pages in queue order.
    let settings = "concurrency = 1\nper_host = 1\n";
    crawl(dir, &home, settings, "", false).await;

    site.run.store(1, Ordering::SeqCst);
    let (run, control) = start(dir, &home, settings, "", true);
    // Pages 0 to 4 answer 304 at once; page 5 waits at the gate.
    let mut hits = site.hits.subscribe();
    hits.wait_for(|_| !site.requests(1, "/p/5").is_empty())
        .await
        .expect("server alive");
    control.send(Control::Stop).await.expect("send");
    run.await.expect("joins");
    let (stopped, mark) = records(dir);
    assert!(mark.is_some(), "the refresh is still under way");
    let state = |records: &HashMap<String, UrlRecord>, n: u32| {
        let r = &records[&format!("{origin}/p/{n}")];
        (r.state, r.status)
    };
    for n in 0..5 {
        assert_eq!(state(&stopped, n), (State::Saved, Some(304)), "page {n}");
    }
    // The page in flight went back to the refresh queue with the stop.
    for n in 5..=10 {
        let r = &stopped[&format!("{origin}/p/{n}")];
        assert_eq!(
            (r.state, r.queue.as_str()),
            (State::Queued, "refresh"),
            "page {n}"
        );
    }

    site.run.store(2, Ordering::SeqCst);
    site.gate.add_permits(100);
    crawl(dir, &home, settings, "", true).await;
    let (done, mark) = records(dir);
    assert_eq!(mark, None);
    for n in 0..=10 {
        let path = format!("/p/{n}");
        let wanted = usize::from(n >= 5);
        assert_eq!(site.requests(2, &path).len(), wanted, "page {n}");
        assert_eq!(state(&done, n), (State::Saved, Some(304)), "page {n}");
    }
    let p7 = &site.requests(2, "/p/7")[0];
    assert_eq!(p7.if_none_match.as_deref(), Some("\"p7\""));
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

fn cli(config: &Path, dir: &Path, refresh: bool) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_crawlspace"));
    command
        .args(["crawl", "--headless", "--config"])
        .arg(config)
        .arg("--db")
        .arg(dir.join("db"))
        .arg("--out")
        .arg(dir.join("mirror"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if refresh {
        command.arg("--refresh");
    }
    command
}

/// `crawlspace crawl --headless --refresh`, the real binary.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refresh_from_the_command_line() {
    let site = Site::new();
    let origin = changing_site(site.clone()).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let config = dir.join("crawl.toml");
    std::fs::write(&config, format!("[crawl]\nstart = [\"{origin}/\"]\n")).expect("config");
    util::run_to_the_end(cli(&config, dir, false)).await;
    let etag_copy = std::fs::read(mirror_file(dir, &origin, "/etag")).expect("saved");

    site.run.store(1, Ordering::SeqCst);
    let output = util::run_to_the_end(cli(&config, dir, true)).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("refresh: 1 URL deleted in the log   (crawlspace log"),
        "a pass begun in this run says nothing more: {stdout}"
    );
    // /busy, given up after temporary errors, kept its copy: the command
    // that lists such pages is given.
    assert!(
        stdout.contains("\n         1 URL not refreshed, its copy kept   (crawlspace log --db ")
            && stdout.contains(" --grep 'refresh failed')"),
        "{stdout}"
    );
    let (records, mark) = records(dir);
    assert_eq!(mark, None);
    let etag = &records[&format!("{origin}/etag")];
    assert_eq!((etag.state, etag.status), (State::Saved, Some(304)));
    assert_eq!(
        site.requests(1, "/etag")[0].if_none_match.as_deref(),
        Some("\"e1\"")
    );
    assert_eq!(
        std::fs::read(mirror_file(dir, &origin, "/etag")).expect("kept"),
        etag_copy
    );
    assert_eq!(records[&format!("{origin}/gone")].state, State::Deleted);
    assert!(!mirror_file(dir, &origin, "/gone").exists());

    // A pass a stopped run began (its start kept in the log) and this one
    // resumes: the summary says whose counts are whose.
    {
        let log = UrlLog::open(&dir.join("db"), 16 << 20).expect("log opens");
        log.set_refresh_since(Some(1)).expect("written");
        log.flush().expect("flushed");
    }
    let output = util::run_to_the_end(cli(&config, dir, true)).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("deleted in the log (a resumed pass: the counts above are this run's)"),
        "{stdout}"
    );
}

/// SPEC §3 for a refresh: `kill -9` mid-refresh, then `--refresh` again on
/// the same log finishes it. What the killed process wrote last may be
/// lost (sled writes to disk every half second), so a URL refreshed just
/// before the kill may be refreshed again; but within the resumed run no
/// URL is fetched twice, and every URL ends refreshed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_refresh_resumes_from_the_command_line() {
    let site = Site::new();
    let origin = gated_site(site.clone()).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let config = dir.join("crawl.toml");
    std::fs::write(
        &config,
        format!("[crawl]\nstart = [\"{origin}/p/0\"]\nconcurrency = 1\nper_host = 1\n"),
    )
    .expect("config");
    util::run_to_the_end(cli(&config, dir, false)).await;

    site.run.store(1, Ordering::SeqCst);
    let refresh_started = now_ms();
    let mut child = cli(&config, dir, true).spawn().expect("starts");
    let mut hits = site.hits.subscribe();
    hits.wait_for(|_| !site.requests(1, "/p/5").is_empty())
        .await
        .expect("server alive");
    assert!(
        child.try_wait().expect("status").is_none(),
        "waits on page 5"
    );
    child.kill().expect("SIGKILL");
    let _ = child.wait();

    site.run.store(2, Ordering::SeqCst);
    site.gate.add_permits(100);
    util::run_to_the_end(cli(&config, dir, true)).await;
    let (records, mark) = records(dir);
    assert_eq!(mark, None);
    for n in 0..=10 {
        let path = format!("/p/{n}");
        let again = site.requests(2, &path).len();
        assert!(
            again <= 1,
            "page {n} fetched {again} times in the resumed run"
        );
        if n >= 6 {
            assert_eq!(site.requests(1, &path).len(), 0, "page {n} waited");
            assert_eq!(again, 1, "page {n} is refreshed once");
        }
        let r = &records[&format!("{origin}{path}")];
        assert_eq!((r.state, r.status), (State::Saved, Some(304)), "page {n}");
        assert!(
            r.fetched_ms.is_some_and(|t| t >= refresh_started),
            "page {n}"
        );
    }
}

/// A refresh judges a known page by the type it was fetched with: rules
/// that now refuse that type refuse it before any request (a 304 would
/// otherwise keep its copy), and its copy is kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_refuses_by_the_type_a_page_was_fetched_with() {
    let site = Site::new();
    let origin = serve(site.clone(), |site, uri, headers| async move {
        let path = uri.path();
        site.record(path, &headers);
        match path {
            "/" => html("<a href=\"/doc.pdf\">pdf</a>"),
            _ => (
                [
                    (header::CONTENT_TYPE, "application/pdf"),
                    (header::ETAG, "\"p1\""),
                ],
                "%PDF-1.4",
            )
                .into_response(),
        }
    })
    .await;
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let home = format!("{origin}/");
    crawl(dir, &home, "", "", false).await;
    let pdf = format!("{origin}/doc.pdf");
    assert_eq!(records(dir).0[&pdf].state, State::Saved);

    site.run.store(1, Ordering::SeqCst);
    let no_pdf = "[[rules]]\nname = \"no pdf by type\"\nmatch = { field = \"content_type\", exact = \"application/pdf\" }\naction = \"exclude\"\nlog = true\n";
    crawl(dir, &home, "", no_pdf, true).await;
    assert!(site.requests(1, "/doc.pdf").is_empty(), "not asked again");
    let (after, _) = records(dir);
    let r = &after[&pdf];
    assert_eq!(r.state, State::Filtered, "{r:?}");
    assert!(
        r.reason.contains("rule 1 \"no pdf by type\""),
        "{}",
        r.reason
    );
    assert!(mirror_file(dir, &origin, "/doc.pdf").exists(), "copy kept");
}

/// Pages the mirror cannot write (a file where their host's folder goes)
/// are logged as fetched with the path and the error, counted apart from
/// errors, and keep no validators: once the mirror can write, a refresh
/// asks for them in full and saves them (a 304 would have left them
/// unsaved).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_the_mirror_could_not_write_are_saved_by_a_refresh() {
    let site = Site::new();
    let origin = gated_site(site.clone()).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let first = format!("{origin}/p/0");
    let page = mirror_file(dir, &origin, "/p/0");
    let host_folder = page
        .ancestors()
        .find(|a| a.parent() == Some(&dir.join("mirror")))
        .expect("a host folder")
        .to_path_buf();
    std::fs::create_dir_all(dir.join("mirror")).expect("mirror folder");
    std::fs::write(&host_folder, "in the way").expect("a file in the way");

    let stats = crawl(dir, &first, "", "", false).await;
    assert_eq!((stats.saved, stats.unsaved, stats.errors), (0, 11, 0));
    let said = stats.first_unsaved.expect("the first failure");
    assert!(
        said.starts_with(&host_folder.display().to_string()),
        "{said}"
    );
    let (before, _) = records(dir);
    let r = &before[&first];
    assert_eq!(r.state, State::Fetched, "{r:?}");
    assert!(
        r.reason
            .contains("not saved: the mirror could not write it: ")
            && r.reason.contains(&host_folder.display().to_string()),
        "{}",
        r.reason
    );
    assert_eq!(r.etag, None, "no copy, no validators");

    std::fs::remove_file(&host_folder).expect("out of the way");
    let stats = crawl(dir, &first, "", "", true).await;
    assert_eq!((stats.saved, stats.unsaved), (11, 0));
    let asked = site.requests(0, "/p/3");
    assert_eq!(asked.len(), 2, "fetched, then refreshed");
    assert_eq!(asked[1].if_none_match, None, "asked in full");
    assert!(page.exists(), "saved now");
    assert_eq!(records(dir).0[&first].state, State::Saved);
}

/// A refresh while robots.txt cannot be had (the server down, 5xx) keeps
/// every page as it was, copy and state, counted as not refreshed rather
/// than filtered for good; the next refresh, robots.txt back, asks again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_without_robots_txt_keeps_the_pages_for_the_next() {
    let site = Site::new();
    let origin = serve(site.clone(), |site, uri, headers| async move {
        let path = uri.path();
        let run = site.record(path, &headers);
        match path {
            "/robots.txt" if run == 1 => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
            "/robots.txt" => StatusCode::NOT_FOUND.into_response(),
            "/" => html("<a href=\"/a\">a</a>"),
            _ => html(&format!("<p>{path}, run {run}</p>")),
        }
    })
    .await;
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let home = format!("{origin}/");
    let settings = "max_retries = 0\n";
    crawl(dir, &home, settings, "", false).await;

    site.run.store(1, Ordering::SeqCst);
    let stats = crawl(dir, &home, settings, "", true).await;
    assert_eq!(
        (stats.unrefreshed, stats.filtered, stats.errors),
        (2, 0, 0),
        "{stats:?}"
    );
    assert!(site.requests(1, "/a").is_empty(), "robots.txt first");
    let (after, _) = records(dir);
    for path in ["/", "/a"] {
        let r = &after[&format!("{origin}{path}")];
        assert_eq!(r.state, State::Saved, "{path}: {r:?}");
        assert!(
            r.reason.starts_with("refresh failed: ")
                && r.reason.contains("HTTP 500")
                && r.reason.ends_with("; the copy is kept"),
            "{path}: {}",
            r.reason
        );
        assert!(
            mirror_file(dir, &origin, path).exists(),
            "{path}: copy kept"
        );
    }

    site.run.store(2, Ordering::SeqCst);
    let stats = crawl(dir, &home, settings, "", true).await;
    assert_eq!((stats.unrefreshed, stats.saved), (0, 2), "{stats:?}");
    assert_eq!(site.requests(2, "/a").len(), 1, "asked again");
}

/// A redirect refreshed: its target is in the log from the crawl before,
/// which on a refresh says nothing about a loop, so the reason does not
/// suggest one; a crawl's own second meeting of a target still does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refreshed_redirect_does_not_call_its_target_a_loop() {
    let site = Site::new();
    let origin = serve(site.clone(), |site, uri, headers| async move {
        let path = uri.path();
        site.record(path, &headers);
        match path {
            "/" => html("<a href=\"/new\">new</a> <a href=\"/old\">old</a>"),
            "/old" => axum::response::Redirect::permanent("/new").into_response(),
            _ => html(&format!("<p>{path}</p>")),
        }
    })
    .await;
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let home = format!("{origin}/");
    crawl(dir, &home, "", "", false).await;
    let old = format!("{origin}/old");
    let first = records(dir).0[&old].reason.clone();
    assert_eq!(
        first,
        format!("HTTP 308 redirect to {origin}/new (already known: a loop or a duplicate)")
    );
    site.run.store(1, Ordering::SeqCst);
    crawl(dir, &home, "", "", true).await;
    let again = records(dir).0[&old].reason.clone();
    assert_eq!(
        again,
        format!("HTTP 308 redirect to {origin}/new (already in the log)")
    );
}
