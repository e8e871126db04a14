//! Helpers shared by the crawl test binaries (`mod util;` in each).

use std::path::Path;
use std::sync::Arc;

use crawlspace::config::Config;
use crawlspace::crawl::engine::{
    Control, ControlSender, Engine, Event, NewRules, Plan, Stats, check_start, native_text,
};
use crawlspace::rules::CompiledRules;
use crawlspace::rules::dialect::{Dialect, DialectChoice, parse_text};
use crawlspace::store::UrlLog;
use tokio::sync::{Semaphore, mpsc, watch};

/// The real engine for the native config `text` (settings and rules), with
/// its URL log in `dir/db` (16 MiB cache) and its mirror in `dir/mirror`.
/// The start URLs must be allowed.
#[allow(dead_code)] // not every test binary runs an engine of its own
pub fn engine_for(text: &str, dir: &Path) -> (Engine, Arc<UrlLog>) {
    let config = Config::from_toml("test.toml", text).expect("config");
    let loaded =
        parse_text("test.toml", text, DialectChoice::Given(Dialect::Native)).expect("rules");
    let compiled = CompiledRules::new(&loaded.parsed.rules);
    let start = check_start(&compiled, &config.crawl.start).expect("start URLs allowed");
    let log = Arc::new(UrlLog::open(&dir.join("db"), 16 << 20).expect("log"));
    let plan = Plan {
        weights: config.queues.in_order(),
        settings: config.crawl,
        start,
        out: dir.join("mirror"),
    };
    // As the app does: the log records the rules, and a later run on it
    // compares its own with them.
    let engine = Engine::new(plan, log.clone(), Arc::new(compiled))
        .expect("engine")
        .with_rules_text(native_text(&loaded.parsed.rules));
    (engine, log)
}

/// Serves `router` on 127.0.0.1:0 and returns its origin.
#[allow(dead_code)] // not every test binary serves its own site
pub async fn serve(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    format!("http://{addr}")
}

/// Waits on the engine's events for a status that `ready` accepts: the
/// events say when, nothing is slept.
#[allow(dead_code)] // not every test binary watches the events
pub async fn stats_until(events: &mut mpsc::Receiver<Event>, ready: impl Fn(&Stats) -> bool) {
    while let Some(event) = events.recv().await {
        if let Event::Stats(s) = event
            && ready(&s)
        {
            return;
        }
    }
    panic!("the crawl ended before the awaited status");
}

/// Sends the running crawl a new rule set, written in native TOML.
#[allow(dead_code)] // not every test binary changes rules
pub async fn send_rules(control: &ControlSender, toml: &str) {
    let new = parse_text("new.toml", toml, DialectChoice::Given(Dialect::Native)).expect("rules");
    let set = &new.parsed.rules;
    let rules = NewRules::new(set, Arc::new(CompiledRules::new(set)));
    control.send(Control::Rules(rules)).await.expect("send");
}

/// A site with `links` on its page `/` and pages `/page/{n}` that each wait
/// at the server for a permit of `gate`: the crawl's queue stays full and
/// still until the test lets them go.
#[allow(dead_code)] // not every test binary holds pages back
pub fn gated_pages(links: String, gate: Arc<Semaphore>) -> axum::Router {
    counted_gated_pages(links, gate).0
}

/// [`gated_pages`], and how many requests for a page have arrived at the
/// gate so far: what tells a test that the crawl is waiting there.
#[allow(dead_code)] // not every test binary holds pages back
pub fn counted_gated_pages(
    links: String,
    gate: Arc<Semaphore>,
) -> (axum::Router, watch::Receiver<usize>) {
    use axum::extract::Path;
    use axum::response::IntoResponse;
    use axum::routing::get;
    let html = |body: String| {
        (
            [(axum::http::header::CONTENT_TYPE, "text/html; charset=utf-8")],
            body,
        )
            .into_response()
    };
    let (arrived, arrivals) = watch::channel(0usize);
    let arrived = Arc::new(arrived);
    let router = axum::Router::new()
        .route("/", get(move || async move { html(links) }))
        .route(
            "/page/{n}",
            get(move |Path(n): Path<u32>| {
                let gate = gate.clone();
                let arrived = arrived.clone();
                async move {
                    arrived.send_modify(|count| *count += 1);
                    let _permit = gate.acquire().await;
                    html(format!("page {n}"))
                }
            }),
        );
    (router, arrivals)
}

/// Runs `command` (the real binary) to its end on the blocking pool and
/// checks that it succeeded; its output.
#[allow(dead_code)] // not every test binary runs the binary
pub async fn run_to_the_end(mut command: std::process::Command) -> std::process::Output {
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .expect("joins")
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}
