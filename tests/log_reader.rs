//! `crawlspace log` on a log a running crawl holds open: the crawl answers
//! on a Unix socket in the log's folder and lists the log itself, as `log`
//! would (src/app/log_socket.rs). Real crawl and `log` processes, a real
//! site on loopback, real sled logs in temporary folders.
#![cfg(unix)]

mod util;

use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::extract::Path as UrlPath;
use axum::routing::get;
use crawlspace::app::{ListingRequest, LogServer, SOCKET_FILE, Source, write_listing};
use crawlspace::store::UrlLog;
use tokio::sync::{Semaphore, mpsc, watch};

/// Pages the site's `/` links to.
const PAGES: usize = 5;

/// `crawlspace log --db DB` with `args`, run to its end off the runtime.
async fn log_command(db: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_crawlspace"));
    command.arg("log").arg("--db").arg(db).args(args);
    tokio::task::spawn_blocking(move || command.output())
        .await
        .expect("joins")
        .expect("log runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// url → state of every line of `log --json`.
fn states(json_lines: &str) -> Vec<(String, String)> {
    json_lines
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
            (
                v["url"].as_str().expect("url").to_string(),
                v["state"].as_str().expect("state").to_string(),
            )
        })
        .collect()
}

/// A site whose `/` links to `/page/0` to `/page/4`, which wait at the
/// server for a permit of `gate`; every page request bumps the counter.
async fn gated_site(gate: Arc<Semaphore>) -> (String, watch::Receiver<usize>) {
    let (tx, rx) = watch::channel(0usize);
    let hits = Arc::new((AtomicUsize::new(0), tx));
    let links: String = (0..PAGES)
        .map(|i| format!("<a href=\"/page/{i}\">{i}</a>"))
        .collect();
    let html = |body: String| ([(axum::http::header::CONTENT_TYPE, "text/html")], body);
    let router = axum::Router::new()
        .route("/", get(move || async move { html(links) }))
        .route(
            "/page/{n}",
            get(move |UrlPath(n): UrlPath<u32>| {
                let (gate, hits) = (gate.clone(), hits.clone());
                async move {
                    let count = hits.0.fetch_add(1, Ordering::SeqCst) + 1;
                    hits.1.send_replace(count);
                    let _permit = gate.acquire().await;
                    html(format!("page {n}"))
                }
            }),
        );
    (util::serve(router).await, rx)
}

/// While a headless crawl runs with pages in flight, `log` (table, JSON,
/// a state) lists its log through the crawl; bad options are still the
/// usual input errors; once the crawl ends, its socket is gone and `log`
/// opens the log itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_lists_the_log_of_a_running_crawl() {
    let gate = Arc::new(Semaphore::new(0));
    let (origin, mut hits) = gated_site(gate.clone()).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let (config, db) = (dir.path().join("crawl.toml"), dir.path().join("db"));
    std::fs::write(
        &config,
        format!("[crawl]\nstart = [\"{origin}/\"]\nconcurrency = 8\nper_host = 8\n"),
    )
    .expect("config");
    let crawl = Command::new(env!("CARGO_BIN_EXE_crawlspace"))
        .args(["crawl", "--headless", "--config"])
        .arg(&config)
        .arg("--db")
        .arg(&db)
        .arg("--out")
        .arg(dir.path().join("mirror"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the crawl starts");
    // Every page is at the server, held there: the crawl is under way.
    hits.wait_for(|h| *h >= PAGES).await.expect("server alive");
    assert!(db.join(SOCKET_FILE).exists(), "the crawl listens");

    let json = log_command(&db, &["--json"]).await;
    assert!(json.status.success(), "{}", text(&json.stderr));
    let listed = states(&text(&json.stdout));
    let page = |n: usize| format!("{origin}/page/{n}");
    assert!(
        listed.contains(&(format!("{origin}/"), "saved".to_string())),
        "{listed:?}"
    );
    // In flight at the server; the log marks that with the crawl's next
    // write, so either state is right at this moment.
    for n in 0..PAGES {
        assert!(
            listed.contains(&(page(n), "queued".to_string()))
                || listed.contains(&(page(n), "in-flight".to_string())),
            "page {n} queued or in flight: {listed:?}"
        );
    }
    assert_eq!(listed.len(), 1 + PAGES, "{listed:?}");

    let table = log_command(&db, &["--state", "saved"]).await;
    assert!(table.status.success(), "{}", text(&table.stderr));
    let table = text(&table.stdout);
    let lines: Vec<&str> = table.lines().collect();
    assert!(
        lines[0].contains("state") && lines[0].contains("reason"),
        "{table}"
    );
    assert_eq!(lines.len(), 2, "the header and `/`: {table}");
    assert!(lines[1].contains(&format!("{origin}/ ")), "{table}");

    let grep = log_command(&db, &["--grep", "page/3$", "--json"]).await;
    let grep = states(&text(&grep.stdout));
    assert_eq!(grep.len(), 1, "{grep:?}");
    assert_eq!(grep[0].0, page(3));

    let bad = log_command(&db, &["--state", "sleeping"]).await;
    assert_eq!(bad.status.code(), Some(2), "an input error");
    assert!(
        text(&bad.stderr).contains("--state"),
        "{}",
        text(&bad.stderr)
    );
    let bad = log_command(&db, &["--grep", "(unclosed"]).await;
    assert_eq!(bad.status.code(), Some(2), "an input error");
    assert!(
        text(&bad.stderr).contains("--grep"),
        "{}",
        text(&bad.stderr)
    );

    gate.add_permits(PAGES);
    let finished = tokio::task::spawn_blocking(move || crawl.wait_with_output())
        .await
        .expect("joins")
        .expect("the crawl ends");
    assert!(finished.status.success(), "{}", text(&finished.stderr));
    assert!(
        !db.join(SOCKET_FILE).exists(),
        "the socket went with the crawl"
    );
    let after = log_command(&db, &["--json"]).await;
    assert!(after.status.success(), "{}", text(&after.stderr));
    let after = states(&text(&after.stdout));
    assert_eq!(after.len(), 1 + PAGES, "{after:?}");
    assert!(after.iter().all(|(_, state)| state == "saved"), "{after:?}");
}

/// What the crawl writes to a `log` reader is what `log` prints from a log
/// it opens: the same bytes, table and JSON, for a log of a finished crawl
/// kept open in this process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_socket_lists_what_log_prints() {
    let gate = Arc::new(Semaphore::new(Semaphore::MAX_PERMITS));
    let (origin, _hits) = gated_site(gate).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let text_config = format!(
        "[crawl]\nstart = [\"{origin}/\"]\n\n[[rules]]\nname = \"no page 2\"\nmatch = {{ field = \"path\", suffix = \"/2\" }}\nfilter = \"may-not-have\"\nlog = true\n"
    );
    let (engine, log) = util::engine_for(&text_config, dir.path());
    let (events, mut events_rx) = mpsc::channel(64);
    let (_control, control_rx) = crawlspace::crawl::engine::control_channel(8);
    let run = tokio::spawn(engine.run(events, control_rx, Duration::from_millis(10)));
    tokio::spawn(async move { while events_rx.recv().await.is_some() {} });
    run.await.expect("joins").expect("crawl runs");

    let db = dir.path().join("db");
    let server = LogServer::start(&db, &log).expect("listens");
    let page_2 = format!("{origin}/page/2");
    for (json, why) in [(false, false), (true, false), (false, true)] {
        let request = ListingRequest {
            json,
            why: if why {
                vec![page_2.clone()]
            } else {
                Vec::new()
            },
            ..ListingRequest::default()
        };
        let mut expected = Vec::new();
        let source = Source {
            log: Arc::downgrade(&log),
            dir: &db,
        };
        write_listing(&source, &request, &mut expected, &mut |note| {
            panic!("no repair expected: {note}")
        })
        .expect("lists");
        let args: &[&str] = match (json, why) {
            (true, _) => &["--json"],
            (false, true) => &["--why", &page_2],
            (false, false) => &[],
        };
        let printed = log_command(&db, args).await;
        assert!(printed.status.success(), "{}", text(&printed.stderr));
        assert_eq!(text(&printed.stdout), text(&expected));
        assert!(
            text(&expected).contains("no page 2"),
            "the filtered page is listed with its rule"
        );
    }
    // A URL the log lacks fails `log` with the crawl's message.
    let missing = log_command(&db, &["--why", &format!("{origin}/nowhere")]).await;
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        text(&missing.stderr).contains(&format!("{origin}/nowhere is not in the log in")),
        "{}",
        text(&missing.stderr)
    );
    drop(server);
    assert!(!db.join(SOCKET_FILE).exists(), "removed when dropped");
    drop(log);
}

/// A socket file left by a crawl that was killed: `log` finds nobody
/// answering and opens the log itself, and the next crawl's server
/// replaces the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_crawls_socket_is_passed_over_and_replaced() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("db");
    drop(UrlLog::open(&db, 16 << 20).expect("a new log"));
    // Bound and closed: the file stays, nobody listens.
    drop(UnixListener::bind(db.join(SOCKET_FILE)).expect("binds"));
    assert!(db.join(SOCKET_FILE).exists());

    let listed = log_command(&db, &[]).await;
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    assert_eq!(text(&listed.stdout).lines().count(), 1, "the header alone");

    let log = Arc::new(UrlLog::open(&db, 16 << 20).expect("opens"));
    let server = LogServer::start(&db, &log).expect("replaces the stale socket");
    assert_eq!(server.path(), db.join(SOCKET_FILE));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(server.path())
        .expect("socket")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600, "the crawl's user's alone");
    let listed = log_command(&db, &["--json"]).await;
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    // This process holds the log: `log` could not have opened it.
    assert_eq!(
        text(&listed.stdout),
        "",
        "an empty log, listed by the server"
    );
}

/// Sends `request` as a reader would, half-closed after it (a peer that
/// says no more), and returns the whole reply.
fn raw_exchange(socket: &Path, request: &[u8]) -> Vec<u8> {
    use std::io::{Read, Write};
    let mut stream = UnixStream::connect(socket).expect("connects");
    stream.write_all(request).expect("sends");
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).expect("reads to the end");
    reply
}

/// Requests that are no request: the crawl answers each with an input
/// error as its closing line, lists nothing, and goes on answering.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_an_error_and_nothing_else() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("db");
    let log = Arc::new(UrlLog::open(&db, 16 << 20).expect("a new log"));
    let server = LogServer::start(&db, &log).expect("listens");
    let socket = server.path().to_path_buf();
    // The cap's worth without a line break: read whole, then refused (a
    // longer one is cut at the cap, and the rest is never read).
    let oversized = vec![b'x'; 1 << 20];
    let unknown_field = br#"{"json": true, "follow": true}"#.to_vec();
    for (request, says) in [
        (b"not json\n".to_vec(), "a request this build does not read"),
        ([unknown_field, b"\n".to_vec()].concat(), "unknown field"),
        (oversized, "not ended by a line break"),
        (b"{}".to_vec(), "not ended by a line break"),
    ] {
        let socket = socket.clone();
        let reply = tokio::task::spawn_blocking(move || raw_exchange(&socket, &request))
            .await
            .expect("joins");
        let reply = text(&reply);
        assert!(reply.starts_with("\0input "), "{reply:?}");
        assert!(reply.contains(says), "{says}: {reply:?}");
        assert_eq!(
            reply.lines().count(),
            1,
            "the closing line alone: {reply:?}"
        );
    }
    // Still answering.
    let request = serde_json::to_vec(&ListingRequest::default()).expect("json");
    let reply = tokio::task::spawn_blocking(move || {
        raw_exchange(&socket, &[request, b"\n".to_vec()].concat())
    })
    .await
    .expect("joins");
    let reply = text(&reply);
    assert!(reply.starts_with("\0started\n"), "{reply:?}");
    assert!(reply.ends_with("\0ok\n"), "{reply:?}");
}

/// A socket that closes without a word (a crawl on its way out): `log`
/// opens the log itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_closed_before_a_word_is_passed_over() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("db");
    drop(UrlLog::open(&db, 16 << 20).expect("a new log"));
    let listener = UnixListener::bind(db.join(SOCKET_FILE)).expect("binds");
    let closer = std::thread::spawn(move || {
        // Takes one reader and hangs up on it.
        drop(listener.accept().expect("a reader comes"));
    });
    let listed = log_command(&db, &[]).await;
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    assert_eq!(text(&listed.stdout).lines().count(), 1, "the header alone");
    closer.join().expect("joins");
}
