//! SPEC §3: the URL log survives `kill -9` at any moment. A real crawl
//! process is killed several times mid-crawl (each time the test server has
//! answered another batch of requests), restarted on the same database, and
//! its final log must match that of an uninterrupted crawl of the same site:
//! the same URLs, each in the same state.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::header;
use axum::routing::get;
use crawlspace::store::{Query, UrlLog};
use tokio::sync::watch;

mod util;

const PAGES: u32 = 300;

/// A site of `PAGES` pages in a tree with cross links; every answer bumps
/// the request counter the test waits on.
async fn site() -> (String, watch::Receiver<usize>) {
    let (tx, rx) = watch::channel(0usize);
    let hits = Arc::new((AtomicUsize::new(0), tx));
    let router = Router::new()
        .route(
            "/p/{n}",
            get(
                |State(hits): State<Arc<(AtomicUsize, watch::Sender<usize>)>>,
                 Path(n): Path<u32>| async move {
                    let count = hits.0.fetch_add(1, Ordering::SeqCst) + 1;
                    hits.1.send_replace(count);
                    let mut body = String::from("<html><body>");
                    for child in (5 * n + 1..=5 * n + 5).chain([(n * 7 + 3) % PAGES]) {
                        if child < PAGES {
                            body.push_str(&format!("<a href=\"/p/{child}\">page {child}</a>\n"));
                        }
                    }
                    body.push_str("</body></html>");
                    ([(header::CONTENT_TYPE, "text/html")], body)
                },
            ),
        )
        .with_state(hits);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    (format!("http://{addr}"), rx)
}

fn crawl_command(config: &std::path::Path, db: &std::path::Path, out: &std::path::Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_crawlspace"));
    command
        .args(["crawl", "--headless", "--config"])
        .arg(config)
        .arg("--db")
        .arg(db)
        .arg("--out")
        .arg(out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

/// url → state of every record in the log at `db`.
fn states(db: &std::path::Path) -> BTreeMap<String, String> {
    let log = UrlLog::open(db, 16 << 20).expect("the log opens after the crash");
    let mut out = BTreeMap::new();
    let mut after = None;
    loop {
        let page = log.page(&Query::default(), after, 1000).expect("page");
        let Some((last, _)) = page.last() else { break };
        after = Some(*last);
        for (_, r) in page {
            assert!(
                out.insert(r.url.clone(), r.state.name().to_string())
                    .is_none(),
                "{} logged twice",
                r.url
            );
        }
    }
    out
}

/// The reference for [`site`] at `origin`: the config of its crawl, in a
/// new temp folder, and the states of one uninterrupted crawl of it.
async fn reference_crawl(
    origin: &str,
) -> (
    tempfile::TempDir,
    std::path::PathBuf,
    BTreeMap<String, String>,
) {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("crawl.toml");
    std::fs::write(
        &config,
        format!("[crawl]\nstart = [\"{origin}/p/0\"]\nconcurrency = 4\nper_host = 4\nmax_link_depth = 100\n"),
    )
    .expect("config");
    let (ref_db, ref_out) = (dir.path().join("ref.db"), dir.path().join("ref.out"));
    util::run_to_the_end(crawl_command(&config, &ref_db, &ref_out)).await;
    let reference = states(&ref_db);
    assert_eq!(reference.len(), PAGES as usize);
    assert!(reference.values().all(|s| s == "saved"), "{reference:?}");
    (dir, config, reference)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_crawls_resume_to_the_same_log() {
    let (origin, mut hits) = site().await;
    let (dir, config, reference) = reference_crawl(&origin).await;

    // The same crawl, killed with SIGKILL three times along the way.
    let (db, out) = (dir.path().join("killed.db"), dir.path().join("killed.out"));
    let mut kills = 0;
    for _ in 0..3 {
        let before = *hits.borrow();
        let mut child = crawl_command(&config, &db, &out).spawn().expect("starts");
        // Kill once the server has answered another 40 requests: mid-crawl,
        // with requests in flight and log writes under way.
        hits.wait_for(|h| *h >= before + 40)
            .await
            .expect("server alive");
        if child.try_wait().expect("status").is_none() {
            child.kill().expect("SIGKILL");
            kills += 1;
        }
        let _ = child.wait();
    }
    assert!(kills >= 2, "the crawl was killed mid-way at least twice");
    util::run_to_the_end(crawl_command(&config, &db, &out)).await;
    assert_eq!(
        states(&db),
        reference,
        "the resumed crawl's log matches the uninterrupted one"
    );
}

/// A log that cannot be written (here a file size limit, as a full disk
/// would) stops the crawl at its first failed write: the summary says why
/// and how to go on, the exit status is a failure, the log opens with what
/// it wrote before; the same command, once the log can be written,
/// resumes, and the final log matches an uninterrupted crawl's.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_that_cannot_be_written_stops_the_crawl_which_resumes_later() {
    let (origin, _hits) = site().await;
    let (dir, config, reference) = reference_crawl(&origin).await;

    // The same crawl under a limit of 600 KB a file (`ulimit -f` counts
    // 512- or 1024-byte blocks by shell): sled's file passes it mid-crawl.
    // SIGXFSZ left at its default, which would kill the process: the
    // program listens for it, so that the write fails with EFBIG instead,
    // as a write to a full disk fails.
    let (db, out) = (dir.path().join("db"), dir.path().join("out"));
    let limited = crawl_command(&config, &db, &out);
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("ulimit -f 600 && exec \"$0\" \"$@\"")
        .arg(limited.get_program())
        .args(limited.get_args())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .expect("joins")
        .expect("runs");
    let (summary, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert_eq!(output.status.code(), Some(1), "{summary}\n{stderr}");
    assert!(
        summary.contains("crawl STOPPED: the URL log could not be written, after"),
        "{summary}\n{stderr}"
    );
    assert!(
        summary.contains("URL log: cannot read or write its files: "),
        "{summary}"
    );
    assert!(
        summary.contains("resume:  once the log can be written"),
        "{summary}"
    );
    assert!(
        stderr.contains("the URL log could not be written: cannot read or write its files"),
        "{stderr}"
    );
    // Said once, not once a write.
    assert_eq!(
        stderr.matches("cannot read or write").count(),
        1,
        "{stderr}"
    );
    let partial = states(&db);
    let saved = partial.values().filter(|s| *s == "saved").count();
    assert!(saved < reference.len(), "stopped mid-crawl: {partial:?}");

    util::run_to_the_end(crawl_command(&config, &db, &out)).await;
    assert_eq!(
        states(&db),
        reference,
        "the resumed crawl's log matches the uninterrupted one"
    );
}

/// Ctrl-C (SIGINT) stops a crawl cleanly: the process exits successfully
/// with its summary, the log opens, and running the command again finishes
/// the crawl.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_stops_cleanly_and_the_crawl_resumes() {
    a_signal_stops_cleanly_and_the_crawl_resumes("-INT", "interrupted").await;
}

/// So does a plain `kill` (SIGTERM).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_stops_cleanly_as_ctrl_c_does() {
    a_signal_stops_cleanly_and_the_crawl_resumes("-TERM", "terminated (SIGTERM)").await;
}

/// `signal` (as `kill` takes it) sent to a crawl mid-way, which says it
/// stops because of `said`.
async fn a_signal_stops_cleanly_and_the_crawl_resumes(signal: &str, said: &str) {
    // Pages other than the first wait at the server until released, so the
    // crawl is mid-way, with requests in flight, when it is interrupted.
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let (tx, mut hits) = watch::channel(0usize);
    let count = Arc::new(AtomicUsize::new(0));
    let held = gate.clone();
    let router = Router::new().route(
        "/p/{n}",
        get(move |Path(n): Path<u32>| {
            let (held, count, tx) = (held.clone(), count.clone(), tx.clone());
            async move {
                tx.send_replace(count.fetch_add(1, Ordering::SeqCst) + 1);
                if n > 0 {
                    let _permit = held.acquire().await;
                }
                let links: String = (1..=8)
                    .filter(|_| n == 0)
                    .map(|c| format!("<a href=\"/p/{c}\">{c}</a>"))
                    .collect();
                (
                    [(header::CONTENT_TYPE, "text/html")],
                    format!("<html><body>{links}</body></html>"),
                )
            }
        }),
    );
    let origin = util::serve(router).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("crawl.toml");
    std::fs::write(
        &config,
        format!("[crawl]\nstart = [\"{origin}/p/0\"]\nconcurrency = 4\nper_host = 4\n"),
    )
    .expect("config");
    let (db, out) = (dir.path().join("db"), dir.path().join("out"));

    let mut child = crawl_command(&config, &db, &out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    // The start page and some of its links have been requested.
    hits.wait_for(|h| *h >= 3).await.expect("server alive");
    let interrupted = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(interrupted.success());
    let output = tokio::task::spawn_blocking(move || {
        let _ = child.stdin.take();
        child.wait_with_output()
    })
    .await
    .expect("joins")
    .expect("exits");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!("crawlspace: {said}: stopping the crawl")),
        "{stderr}"
    );
    assert!(!db.join("log.sock").exists(), "its socket removed");
    // The summary says the crawl stopped with URLs left, and how to go on.
    let summary = String::from_utf8_lossy(&output.stdout);
    assert!(summary.contains("crawl stopped with "), "{summary}");
    assert!(summary.contains("URLs still queued"), "{summary}");
    assert!(
        summary.contains("resume:  run the same command again"),
        "{summary}"
    );
    let partial = states(&db);
    assert_eq!(
        partial.get(&format!("{origin}/p/0")).map(String::as_str),
        Some("saved")
    );
    // At least two links were requested and wait at the server (the gate
    // is shut) when the crawl stops: they go back to the queue with the
    // others, so the log shows none in flight.
    let count = |state: &str| partial.values().filter(|s| *s == state).count();
    assert_eq!(count("in-flight"), 0, "{partial:?}");
    assert_eq!(count("queued"), 8, "{partial:?}");

    gate.add_permits(1000);
    let mut command = crawl_command(&config, &db, &out);
    command.stdout(Stdio::piped());
    let finished = util::run_to_the_end(command).await;
    let summary = String::from_utf8_lossy(&finished.stdout);
    assert!(summary.contains("crawl finished in "), "{summary}");
    assert!(!summary.contains("resume:"), "{summary}");
    // It counts the whole crawl, as the log does, and says how many pages
    // were done before it (its rate leaves them out).
    assert!(
        summary.contains(": 9 URLs met, 0 fetched, 9 saved, 0 filtered"),
        "{summary}"
    );
    assert!(
        summary.contains("(1 page fetched before this run)"),
        "{summary}"
    );
    let done = states(&db);
    assert_eq!(done.len(), 9);
    assert!(done.values().all(|s| s == "saved"), "{done:?}");
}

/// Serves each (path, HTML body) on 127.0.0.1; returns the origin.
async fn serve_pages(pages: &[(&'static str, &'static str)]) -> String {
    let mut router = Router::new();
    for &(path, body) in pages {
        router = router.route(
            path,
            get(move || async move { ([(header::CONTENT_TYPE, "text/html")], body) }),
        );
    }
    util::serve(router).await
}

/// Crawls `origin` once from each of `starts` in turn, each a process of
/// its own on the same log (`dir/db`) and mirror (`dir/out`), as a resume
/// is; `after` is called on the log's states after each run.
async fn runs_on_one_log(
    origin: &str,
    starts: &[&str],
    dir: &std::path::Path,
    mut after: impl FnMut(&BTreeMap<String, String>),
) {
    let (db, out) = (dir.join("db"), dir.join("out"));
    for start in starts {
        let config = dir.join("c.toml");
        std::fs::write(
            &config,
            format!("[crawl]\nstart = [\"{origin}{start}\"]\nobey_robots = false\n"),
        )
        .expect("config");
        util::run_to_the_end(crawl_command(&config, &db, &out)).await;
        after(&states(&db));
    }
}

/// A copy saved by an earlier run keeps its mirror file: a later run (a
/// resume, another process) that saves another URL of the same file
/// (`/dir/index.html` after `/dir/`) puts it beside, as the URL log says
/// which URL the file is for; each record names the file holding its copy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_copy_an_earlier_run_saved_keeps_its_file() {
    let origin = serve_pages(&[
        ("/", "<a href=\"/dir/\">dir</a>"),
        ("/two", "<a href=\"/dir/index.html\">index</a>"),
        ("/dir/", "SLASH"),
        ("/dir/index.html", "INDEX"),
    ])
    .await;
    let dir = tempfile::tempdir().expect("temp");
    // Run one meets /dir/ only; run two, on the same log, /dir/index.html.
    runs_on_one_log(&origin, &["/", "/two"], dir.path(), |_| {}).await;
    let log = UrlLog::open(&dir.path().join("db"), 16 << 20).expect("log");
    let copy = |path: &str| {
        let id = log
            .id_of(&format!("{origin}{path}"))
            .expect("log")
            .expect("logged");
        let record = log.get(id).expect("log").expect("record");
        let saved = record.saved_path.expect("saved");
        (
            saved.clone(),
            std::fs::read_to_string(&saved).expect("the copy"),
        )
    };
    let (slash_path, slash) = copy("/dir/");
    let (index_path, index) = copy("/dir/index.html");
    assert_ne!(slash_path, index_path);
    assert!(slash.contains("SLASH"), "{slash}");
    assert!(index.contains("INDEX"), "{index}");
}

/// A URL an earlier run logged as filtered only for rel=nofollow is
/// crawled when a later run (a resume) meets a followed link to it, as
/// the first run would have.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_nofollowed_url_is_crawled_after_a_resume_meets_a_plain_link() {
    let origin = serve_pages(&[
        ("/nf", "<a rel=\"nofollow\" href=\"/hidden\">x</a>"),
        ("/plain", "<a href=\"/hidden\">x</a>"),
        ("/hidden", "HIDDEN"),
    ])
    .await;
    let dir = tempfile::tempdir().expect("temp");
    let mut after = Vec::new();
    let hidden = format!("{origin}/hidden");
    runs_on_one_log(&origin, &["/nf", "/plain"], dir.path(), |states| {
        after.push(states[&hidden].clone());
    })
    .await;
    assert_eq!(after, ["filtered", "saved"]);
}
