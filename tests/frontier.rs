//! The frontier beyond memory (issue 3): at most a window of queued URLs per
//! queue is held in memory, the rest waits in the URL log's frontier index
//! and is read back as the window drains. A crawl with many more queued URLs
//! than the window must still fetch every one exactly once, and new rules
//! must reach the URLs waiting on disk too.

mod util;

use std::sync::Arc;
use std::time::Duration;

use crawlspace::crawl::engine::{Control, Event, NewRules};
use crawlspace::rules::CompiledRules;
use crawlspace::rules::dialect::{Dialect, DialectChoice, parse_text};
use crawlspace::store::State;
use tokio::sync::{Semaphore, mpsc};

/// More than the engine's in-memory window of 2,048 per queue.
const PAGES: u32 = 6000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queued_urls_beyond_the_window_are_all_fetched_and_see_new_rules() {
    // `/` links to every page; pages wait for the gate, so the test can
    // change the rules while nearly all of them are queued.
    let links: String = (0..PAGES)
        .map(|n| format!("<a href=\"/page/{n}\">{n}</a>\n"))
        .collect();
    let gate = Arc::new(Semaphore::new(0));
    let held = gate.clone();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let origin = format!("http://{}", listener.local_addr().expect("addr"));
    let router = util::gated_pages(links, held);
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });

    let dir = tempfile::tempdir().expect("temp dir");
    let text = format!(
        "[crawl]\nstart = [\"{origin}/\"]\nconcurrency = 4\nper_host = 4\n\
         [[rules]]\nname = \"pages are only followed\"\nmatch = {{ field = \"path\", prefix = \"/page/\" }}\naction = \"exclude-scan\"\n"
    );
    let (engine, log) = util::engine_for(&text, dir.path());
    let (events, mut events_rx) = mpsc::channel(64);
    let (control, control_rx) = crawlspace::crawl::engine::control_channel(8);
    let run = tokio::spawn(engine.run(events, control_rx, Duration::from_millis(10)));
    // The start page is done when every page is queued or in flight.
    while let Some(event) = events_rx.recv().await {
        if let Event::Stats(s) = event
            && s.queued + s.in_flight == u64::from(PAGES)
        {
            break;
        }
    }
    // The queue's length counts the URLs on disk too.
    control.send(Control::Detail).await.expect("send");
    let follow = loop {
        if let Some(Event::Detail(d)) = events_rx.recv().await {
            break d.queues.iter().map(|q| q.length).sum::<usize>();
        }
    };
    assert!(
        follow + 4 >= PAGES as usize,
        "queued, in memory or on disk: {follow}"
    );
    let odd = "[[rules]]\nname = \"no odd pages\"\nmatch = { field = \"path\", regex = '[13579]$' }\nfilter = \"may-not-have\"\nlog = true\n\
               [[rules]]\nname = \"pages are only followed\"\nmatch = { field = \"path\", prefix = \"/page/\" }\naction = \"exclude-scan\"\n";
    let new = parse_text("new.toml", odd, DialectChoice::Given(Dialect::Native)).expect("rules");
    let set = &new.parsed.rules;
    control
        .send(Control::Rules(NewRules::new(
            set,
            Arc::new(CompiledRules::new(set)),
        )))
        .await
        .expect("send");
    gate.add_permits(PAGES as usize * 2);
    tokio::spawn(async move { while events_rx.recv().await.is_some() {} });
    let stats = run.await.expect("joins").expect("crawl runs");

    // At most the few in flight when the rules changed escaped them (the
    // URLs handed to a fetch slot to go on with are not started once new
    // rules are sent: they meet them as queued URLs).
    assert!(
        (u64::from(PAGES) / 2 - 4..=u64::from(PAGES) / 2).contains(&stats.dropped_by_new_rules),
        "{stats:?}"
    );
    let mut fetched = 0;
    for n in 0..PAGES {
        let id = log
            .id_of(&format!("{origin}/page/{n}"))
            .expect("read")
            .expect("every page is logged once");
        let r = log.get(id).expect("read").expect("record");
        match r.state {
            State::Fetched => fetched += 1,
            State::Filtered => {
                assert!(n % 2 == 1, "page {n}: {}", r.reason);
                assert!(r.reason.contains("no odd pages"), "{}", r.reason);
            }
            other => panic!("page {n} ended {other:?}: {}", r.reason),
        }
    }
    assert!(fetched >= PAGES / 2, "every even page fetched: {fetched}");
    assert_eq!(log.frontier_len(), 0, "nothing left queued");
    assert_eq!(
        stats.fetched,
        u64::from(fetched),
        "each fetched once (`/` is saved, not counted here)"
    );
}
