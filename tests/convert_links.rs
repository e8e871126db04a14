//! `crawlspace convert-links` on a real crawl's mirror: a site served on
//! 127.0.0.1 is crawled by the engine into a sled log and a mirror, then
//! the real binary rewrites the saved pages' links. Checked: links to saved
//! copies become relative paths (fragments kept, redirects followed, query
//! names encoded, `<base href>` honoured then removed), relative links to
//! URLs without a copy become absolute, everything else stays byte for
//! byte, and a second run leaves converted pages alone.

mod util;

use std::time::Duration;

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect};
use axum::routing::get;
use crawlspace::crawl::mirror::{CONVERTED_MARK, path_for};
use tokio::sync::mpsc;
use url::Url;

fn html(body: &'static str) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/html")], body)
}

const HOME: &str = "<!DOCTYPE html><html><head><title>home</title>\n\
<link rel=\"stylesheet\" href=\"/style.css\"></head>\n\
<body>  Odd   spacing &amp; entities stay.\n\
<a href=\"/docs/b.html#part\">b</a> <a href=\"docs/\">docs</a> <a href=\"/old\">moved</a>\n\
<a href=\"/list?p=2&amp;q=a\">list</a> <a href=\"/private/x.html?a=1&amp;b=2\">private</a>\n\
<a href=\"http://example.invalid/out\">out</a> <a href=\"#top\">top</a> <a href=\"mailto:a@b.c\">m</a>\n\
<img src=\"logo.png\"></body></html>";

const IN_DOCS: &str = "<html><head><base href=\"/docs/deeper/\"></head>\
<body><a href=\"../b.html\">b</a><a href=\"../../\">home</a></body></html>";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_point_at_the_saved_copies() {
    let router = Router::new()
        .route("/", get(|| async { html(HOME) }))
        .route(
            "/style.css",
            get(|| async { ([(header::CONTENT_TYPE, "text/css")], "b{}") }),
        )
        .route("/docs/b.html", get(|| async { html("<p>b</p>") }))
        .route("/docs/", get(|| async { html(IN_DOCS) }))
        .route(
            "/old",
            get(|| async { Redirect::permanent("/docs/b.html") }),
        )
        .route("/list", get(|| async { html("<p>list</p>") }))
        .route(
            "/logo.png",
            get(|| async { ([(header::CONTENT_TYPE, "image/png")], "PNG") }),
        )
        .fallback(|| async { StatusCode::NOT_FOUND });
    let origin = util::serve(router).await;
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    let rules = "[[rules]]\nname = \"no private\"\nmatch = { field = \"path\", prefix = \"/private/\" }\naction = \"exclude\"\nlog = true\n";
    let text = format!("[crawl]\nstart = [\"{origin}/\"]\nobey_robots = false\n{rules}");
    let (engine, log) = util::engine_for(&text, dir);
    let (events, mut events_rx) = mpsc::channel(64);
    tokio::spawn(async move { while events_rx.recv().await.is_some() {} });
    let (_control, control_rx) = crawlspace::crawl::engine::control_channel(4);
    engine
        .run(events, control_rx, Duration::from_millis(20))
        .await
        .expect("crawl runs");
    drop(log);

    let convert = || {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_crawlspace"));
        command.args(["convert-links", "--db"]).arg(dir.join("db"));
        util::run_to_the_end(command)
    };
    let said = String::from_utf8_lossy(&convert().await.stdout).into_owned();
    assert!(said.starts_with("4 pages converted: "), "{said}");
    let copy = |path: &str| {
        let url = Url::parse(&format!("{origin}{path}")).expect("url");
        path_for(&dir.join("mirror"), &url)
    };
    let home = std::fs::read_to_string(copy("/")).expect("home saved");
    let host = origin.trim_start_matches("http://");
    let want = format!(
        "<!DOCTYPE html><html><head><title>home</title>\n\
<link rel=\"stylesheet\" href=\"style.css\"></head>\n\
<body>  Odd   spacing &amp; entities stay.\n\
<a href=\"docs/b.html#part\">b</a> <a href=\"docs/index.html\">docs</a> <a href=\"docs/b.html\">moved</a>\n\
<a href=\"list/index@p=2%26q=a.html\">list</a> <a href=\"http://{host}/private/x.html?a=1&amp;b=2\">private</a>\n\
<a href=\"http://example.invalid/out\">out</a> <a href=\"#top\">top</a> <a href=\"mailto:a@b.c\">m</a>\n\
<img src=\"logo.png\"></body></html>\n{CONVERTED_MARK}\n"
    );
    assert_eq!(home, want);
    assert!(copy("/list?p=2&q=a").exists(), "the name the link gives");
    // Resolved against <base href>, which then goes.
    let docs = std::fs::read_to_string(copy("/docs/")).expect("docs saved");
    assert!(
        docs.starts_with(
            "<html><head></head><body><a href=\"b.html\">b</a><a href=\"../index.html\">home</a>"
        ),
        "{docs}"
    );

    let said = String::from_utf8_lossy(&convert().await.stdout).into_owned();
    assert!(
        said.starts_with("0 pages converted: ")
            && said.contains("4 pages converted before, left alone"),
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(copy("/")).expect("home"), want);
}
