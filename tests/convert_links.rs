//! `crawlspace convert-links` on a real crawl's mirror: a site served on
//! 127.0.0.1 is crawled by the engine into a sled log and a mirror, then
//! the real binary rewrites the saved pages' links. Checked: links to saved
//! copies become relative paths (fragments kept, redirects followed, query
//! names encoded, `<base href>` honoured then removed), relative links to
//! URLs without a copy become absolute (each candidate of a `srcset` too,
//! its images fetched and saved by the crawl; a stylesheet's `url()` and
//! `@import` too, relative to the sheet, what it said kept in a comment,
//! and the CSS of `<style>` and `style="…"` in the page),
//! each keeping what the page said in
//! `data-crawlspace-*`, everything else stays byte for byte, a second run
//! changes nothing (and counts the links as the first did), and a stale
//! link is converted again from what the page
//! said.

mod util;

use std::time::Duration;

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect};
use axum::routing::get;
use crawlspace::crawl::mirror::path_for;
use tokio::sync::mpsc;
use url::Url;

fn html(body: &'static str) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/html")], body)
}

const HOME: &str = "<!DOCTYPE html><html><head><title>home</title>\n\
<link rel=\"stylesheet\" href=\"/style.css\"><style>b{background:url(/img/bg.png)}</style></head>\n\
<body>  Odd   spacing &amp; entities stay.\n\
<p style=\"background:url(/img/bg.png)\">styled</p>\n\
<a href=\"/docs/b.html#part\">b</a> <a href=\"docs/\">docs</a> <a href=\"/old\">moved</a>\n\
<a href=\"/list?p=2&amp;q=a\">list</a> <a href=\"/private/x.html?a=1&amp;b=2\">private</a>\n\
<a href=\"http://example.invalid/out\">out</a> <a href=\"#top\">top</a> <a href=\"mailto:a@b.c\">m</a>\n\
<img src=\"logo.png\" srcset=\"/img/big.png 2x, nope.png 3x\">\n\
<picture><source srcset=\"img/pic.webp\"></picture></body></html>";

/// A stylesheet: its import and image are fetched and saved by the crawl,
/// and the image's root-relative URL becomes relative to the sheet.
const STYLE: &str = "@import \"more.css\";\nb{background:url(/img/bg.png) no-repeat}";

fn css(body: &'static str) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "text/css")], body)
}

const IN_DOCS: &str = "<html><head><base href=\"/docs/deeper/\"></head>\
<body><a href=\"../b.html\">b</a><a href=\"../../\">home</a></body></html>";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_point_at_the_saved_copies() {
    let router = Router::new()
        .route("/", get(|| async { html(HOME) }))
        .route("/style.css", get(|| async { css(STYLE) }))
        .route(
            "/more.css",
            get(|| async { css("i{background:url(img/bg.png)}") }),
        )
        .route(
            "/img/bg.png",
            get(|| async { ([(header::CONTENT_TYPE, "image/png")], "PNG") }),
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
        .route(
            "/img/big.png",
            get(|| async { ([(header::CONTENT_TYPE, "image/png")], "PNG") }),
        )
        .route(
            "/img/pic.webp",
            get(|| async { ([(header::CONTENT_TYPE, "image/webp")], "WEBP") }),
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
    assert!(
        said == "2 pages and 1 stylesheet converted, 3 files already right; links: 15 to saved copies, 2 made absolute (no copy)\n",
        "{said}"
    );
    let copy = |path: &str| {
        let url = Url::parse(&format!("{origin}{path}")).expect("url");
        path_for(&dir.join("mirror"), &url)
    };
    let home = std::fs::read_to_string(copy("/")).expect("home saved");
    let host = origin.trim_start_matches("http://");
    let want = format!(
        "<!DOCTYPE html><html><head><title>home</title>\n\
<link rel=\"stylesheet\" href=\"style.css\" data-crawlspace-href=\"/style.css\">\
<style>b{{background:url(img/bg.png)/*crawlspace-url: /img/bg.png*/}}</style></head>\n\
<body>  Odd   spacing &amp; entities stay.\n\
<p style=\"background:url(img/bg.png)\" data-crawlspace-style=\"background:url(/img/bg.png)\">styled</p>\n\
<a href=\"docs/b.html#part\" data-crawlspace-href=\"/docs/b.html#part\">b</a> \
<a href=\"docs/index.html\" data-crawlspace-href=\"docs/\">docs</a> \
<a href=\"docs/b.html\" data-crawlspace-href=\"/old\">moved</a>\n\
<a href=\"list/index@p=2%26q=a.html\" data-crawlspace-href=\"/list?p=2&amp;q=a\">list</a> \
<a href=\"http://{host}/private/x.html?a=1&amp;b=2\" data-crawlspace-href=\"/private/x.html?a=1&amp;b=2\">private</a>\n\
<a href=\"http://example.invalid/out\">out</a> <a href=\"#top\">top</a> <a href=\"mailto:a@b.c\">m</a>\n\
<img src=\"logo.png\" srcset=\"img/big.png 2x, http://{host}/nope.png 3x\" \
data-crawlspace-srcset=\"/img/big.png 2x, nope.png 3x\">\n\
<picture><source srcset=\"img/pic.webp\"></picture></body></html>"
    );
    assert_eq!(home, want);
    assert!(copy("/list?p=2&q=a").exists(), "the name the link gives");
    // The images of `srcset` were fetched and saved by the crawl.
    assert!(copy("/img/big.png").exists() && copy("/img/pic.webp").exists());
    // So were the stylesheet's import and image; the image's URL is now
    // the copy's path from the sheet, what it said kept in a comment.
    assert!(copy("/more.css").exists() && copy("/img/bg.png").exists());
    let style = std::fs::read_to_string(copy("/style.css")).expect("style saved");
    assert_eq!(
        style,
        "@import \"more.css\";\n\
         b{background:url(img/bg.png)/*crawlspace-url: /img/bg.png*/ no-repeat}"
    );
    // Resolved against <base href>, which then keeps it only for a next run.
    let docs = std::fs::read_to_string(copy("/docs/")).expect("docs saved");
    assert!(
        docs.starts_with(
            "<html><head><base data-crawlspace-href=\"/docs/deeper/\"></head><body>\
             <a href=\"b.html\" data-crawlspace-href=\"../b.html\">b</a>\
             <a href=\"../index.html\" data-crawlspace-href=\"../../\">home</a>"
        ),
        "{docs}"
    );

    // Again: nothing to change, nothing written.
    let said = String::from_utf8_lossy(&convert().await.stdout).into_owned();
    assert!(
        said == "0 pages converted, 6 files already right; links: 15 to saved copies, 2 made absolute (no copy)\n",
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(copy("/")).expect("home"), want);
    // A link gone stale (as when a refresh deleted its copy) is converted
    // again from what the page said, kept beside it.
    let stale = home.replace("href=\"docs/b.html#part\"", "href=\"gone.html\"");
    std::fs::write(copy("/"), stale).expect("write");
    let said = String::from_utf8_lossy(&convert().await.stdout).into_owned();
    assert!(
        said == "1 page converted, 5 files already right; links: 15 to saved copies, 2 made absolute (no copy)\n",
        "{said}"
    );
    assert_eq!(std::fs::read_to_string(copy("/")).expect("home"), want);

    // No copy where the log says (run from another folder, say): said once.
    std::fs::rename(dir.join("mirror"), dir.join("moved")).expect("move");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_crawlspace"))
        .args(["convert-links", "--db"])
        .arg(dir.join("db"))
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("none of the 6 saved pages and stylesheets is where the log says")
            && err.contains("run convert-links in the folder the crawl ran in")
            && err.lines().count() == 1,
        "{err}"
    );
}
