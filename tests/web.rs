//! The web conventions of SPEC §2.3 in real crawls (issue 4): each test
//! serves a small site on 127.0.0.1:0, crawls it with the real engine and a
//! real sled log in a temp folder, and reads the outcome from the log, where
//! every robots.txt, robots meta, X-Robots-Tag, rel=nofollow and sitemap
//! decision must be in the URL's trace.
//!
//! Covered: robots.txt that disallows (the deciding line logged), redirects
//! (followed up to 5 hops; 6 means unavailable), answers 404/403 (all
//! allowed), 500 (all disallowed: retried, then given up, or allowed once
//! it recovers), stalls past the timeout; `Crawl-delay` in the engine's
//! detail; `obey_robots = false`; a sitemap index named in robots.txt with a
//! gzipped child and nesting past the limit; sitemaps over the URL and size
//! caps; a plain-text sitemap from `[crawl] sitemaps`; meta robots ×
//! X-Robots-Tag in every combination; noindex regions and the excerpt;
//! rel=nofollow targets.

mod util;

use std::collections::HashMap;
use std::convert::Infallible;
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State as AxumState;
use axum::http::{HeaderName, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use crawlspace::crawl::detail::Detail;
use crawlspace::crawl::engine::{Control, Event, Stats};
use crawlspace::crawl::sitemap::synth::SyntheticSitemap;
use crawlspace::store::{ErrorClass, Query, State, TraceLine, UrlLog, UrlRecord};
use tokio::sync::{Notify, Semaphore, mpsc};

/// What the test server answers for one path.
#[derive(Clone)]
enum Answer {
    Reply {
        status: u16,
        headers: Vec<(&'static str, String)>,
        body: Vec<u8>,
    },
    /// Headers never come (the crawler's timeout must end it).
    Stall,
    /// The nth request gets the nth answer; the last one repeats.
    Seq(Vec<Answer>),
    /// Says it was asked (`arrived`), then waits for a permit of `gate`.
    Gated {
        arrived: Arc<Notify>,
        gate: Arc<Semaphore>,
        then: Box<Answer>,
    },
    /// A body produced by `make` while it is sent.
    Stream(fn() -> Box<dyn Read + Send>),
}

fn reply(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Answer {
    Answer::Reply {
        status,
        headers: vec![("content-type", content_type.to_string())],
        body: body.into(),
    }
}

fn html(body: impl Into<String>) -> Answer {
    reply(200, "text/html; charset=utf-8", body.into())
}

fn text(body: impl Into<String>) -> Answer {
    reply(200, "text/plain", body.into())
}

fn status(code: u16) -> Answer {
    reply(code, "text/plain", format!("status {code}"))
}

fn redirect(to: &str) -> Answer {
    Answer::Reply {
        status: 301,
        headers: vec![("location", to.to_string())],
        body: Vec::new(),
    }
}

impl Answer {
    fn with_header(mut self, name: &'static str, value: &str) -> Answer {
        if let Answer::Reply { headers, .. } = &mut self {
            headers.push((name, value.to_string()));
        }
        self
    }
}

/// A page with these links (`<a href>`, or `<a rel="nofollow" href>` for
/// a link starting with `!`).
fn links(paths: &[&str]) -> Answer {
    let body: String = paths
        .iter()
        .map(|p| match p.strip_prefix('!') {
            Some(p) => format!("<a rel=\"nofollow\" href=\"{p}\">{p}</a>\n"),
            None => format!("<a href=\"{p}\">{p}</a>\n"),
        })
        .collect();
    html(format!("<html><body>{body}</body></html>"))
}

struct Served {
    answers: HashMap<String, Answer>,
    /// Requests per path (with query).
    hits: Mutex<HashMap<String, usize>>,
}

/// A running test site.
struct Site {
    origin: String,
    served: Arc<Served>,
}

impl Site {
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.origin)
    }

    fn hits(&self, path: &str) -> usize {
        let hits = self.served.hits.lock().expect("hits");
        hits.get(path).copied().unwrap_or(0)
    }
}

/// Serves the site `pages` makes from its origin (sitemaps need absolute
/// URLs) on 127.0.0.1:0. Unknown paths are 404.
async fn serve(pages: impl FnOnce(&str) -> Vec<(String, Answer)>) -> Site {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let origin = format!("http://{}", listener.local_addr().expect("addr"));
    let served = Arc::new(Served {
        answers: pages(&origin).into_iter().collect(),
        hits: Mutex::new(HashMap::new()),
    });
    let router = Router::new()
        .fallback(answer_request)
        .with_state(served.clone());
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    Site { origin, served }
}

async fn answer_request(AxumState(served): AxumState<Arc<Served>>, uri: Uri) -> Response {
    let path = uri
        .path_and_query()
        .map_or("/".to_string(), |p| p.as_str().to_string());
    let nth = {
        let mut hits = served.hits.lock().expect("hits");
        let n = hits.entry(path.clone()).or_insert(0);
        *n += 1;
        *n - 1
    };
    let Some(mut answer) = served.answers.get(&path).cloned() else {
        return StatusCode::NOT_FOUND.into_response();
    };
    loop {
        answer = match answer {
            Answer::Seq(list) => {
                let at = nth.min(list.len().saturating_sub(1));
                list.into_iter().nth(at).unwrap_or(Answer::Stall)
            }
            Answer::Gated {
                arrived,
                gate,
                then,
            } => {
                arrived.notify_one();
                let _permit = gate.acquire().await;
                *then
            }
            Answer::Stall => {
                std::future::pending::<()>().await;
                unreachable!("pending never ends")
            }
            Answer::Stream(make) => {
                let mut reader = make();
                let chunks = futures_util::stream::iter(std::iter::from_fn(move || {
                    let mut buf = vec![0u8; 64 << 10];
                    match reader.read(&mut buf) {
                        Ok(0) | Err(_) => None,
                        Ok(n) => {
                            buf.truncate(n);
                            Some(Ok::<_, Infallible>(Bytes::from(buf)))
                        }
                    }
                }));
                return (
                    [("content-type", "application/xml")],
                    Body::from_stream(chunks),
                )
                    .into_response();
            }
            Answer::Reply {
                status,
                headers,
                body,
            } => {
                let mut response = Response::new(Body::from(body));
                *response.status_mut() = StatusCode::from_u16(status).expect("status");
                for (name, value) in headers {
                    response.headers_mut().append(
                        HeaderName::from_static(name),
                        HeaderValue::from_str(&value).expect("header value"),
                    );
                }
                return response;
            }
        };
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes).expect("gzip");
    encoder.finish().expect("gzip")
}

fn urlset(locs: &[String]) -> String {
    let entries: String = locs
        .iter()
        .map(|l| format!("  <url><loc>{l}</loc></url>\n"))
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n{entries}</urlset>\n"
    )
}

fn sitemap_index(locs: &[String]) -> String {
    let entries: String = locs
        .iter()
        .map(|l| format!("  <sitemap><loc>{l}</loc></sitemap>\n"))
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n{entries}</sitemapindex>\n"
    )
}

/// A crawl running on its own task, with its control channel.
struct Running {
    log: Arc<UrlLog>,
    run: tokio::task::JoinHandle<Stats>,
    events: mpsc::Receiver<Event>,
    control: crawlspace::crawl::engine::ControlSender,
    _dir: tempfile::TempDir,
}

/// Starts a crawl of `start` with `settings` (TOML lines for [crawl]) and
/// `rules` (native [[rules]]).
fn start(start: &[String], settings: &str, rules: &str) -> Running {
    let dir = tempfile::tempdir().expect("temp dir");
    let start_list: Vec<String> = start.iter().map(|s| format!("{s:?}")).collect();
    let text = format!(
        "[crawl]\nstart = [{}]\n{settings}\n{rules}",
        start_list.join(", ")
    );
    let (engine, log) = util::engine_for(&text, dir.path());
    let (events_tx, events) = mpsc::channel(64);
    let (control, control_rx) = crawlspace::crawl::engine::control_channel(8);
    let run = tokio::spawn(async move {
        engine
            .run(events_tx, control_rx, Duration::from_millis(20))
            .await
            .expect("crawl runs")
    });
    Running {
        log,
        run,
        events,
        control,
        _dir: dir,
    }
}

/// The log of a finished crawl, by URL.
struct Crawled {
    records: HashMap<String, UrlRecord>,
    ids: HashMap<u64, String>,
    stats: Stats,
    _dir: tempfile::TempDir,
}

impl Running {
    async fn finish(self) -> Crawled {
        let Running {
            log,
            run,
            mut events,
            control,
            _dir,
        } = self;
        tokio::spawn(async move { while events.recv().await.is_some() {} });
        let stats = run.await.expect("the crawl task joins");
        drop(control);
        let mut records = HashMap::new();
        let mut ids = HashMap::new();
        let mut after = None;
        loop {
            let page = log.page(&Query::default(), after, 500).expect("page");
            let Some((last, _)) = page.last() else { break };
            after = Some(*last);
            for (id, r) in page {
                ids.insert(id, r.url.clone());
                records.insert(r.url.clone(), r);
            }
        }
        Crawled {
            records,
            ids,
            stats,
            _dir,
        }
    }
}

async fn crawl(start_urls: &[String], settings: &str, rules: &str) -> Crawled {
    start(start_urls, settings, rules).finish().await
}

impl Crawled {
    fn get(&self, url: &str) -> &UrlRecord {
        self.records
            .get(url)
            .unwrap_or_else(|| panic!("{url} not in the log: {:#?}", self.records.keys()))
    }

    fn layer(&self, url: &str, rule: &str) -> Option<&TraceLine> {
        self.get(url).trace.iter().find(|t| t.rule == rule)
    }

    fn referrer_url(&self, url: &str) -> Option<&str> {
        let id = self.get(url).referrer?;
        self.ids.get(&id).map(String::as_str)
    }
}

/// Fast settings for a loopback crawl.
const FAST: &str = "timeout_s = 1\nmax_retries = 1\nconcurrency = 4\nper_host = 2\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robots_txt_disallows_with_the_deciding_line_in_the_trace() {
    let robots = "# test\nUser-agent: otherbot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\nAllow: /private/ok.html\nDisallow: /*.bak$\n";
    let site = serve(|_| {
        vec![
            ("/robots.txt".into(), text(robots)),
            (
                "/".into(),
                links(&[
                    "/private/a.html",
                    "/private/ok.html",
                    "/x.bak",
                    "/public.html",
                ]),
            ),
            ("/private/a.html".into(), html("secret")),
            ("/private/ok.html".into(), html("ok")),
            ("/x.bak".into(), html("backup")),
            ("/public.html".into(), links(&["/private/late.html"])),
        ]
    })
    .await;
    let c = crawl(&[site.url("/")], FAST, "").await;
    let robots_url = site.url("/robots.txt");
    for (path, line, rule) in [
        ("/private/a.html", 6, "Disallow: /private/"),
        ("/x.bak", 8, "Disallow: /*.bak$"),
        // Met once robots.txt is known: refused at once, never queued.
        ("/private/late.html", 6, "Disallow: /private/"),
    ] {
        let r = c.get(&site.url(path));
        let expected = format!("robots.txt {robots_url} line {line} {rule:?} (group *)");
        assert_eq!(r.state, State::Filtered, "{path}: {r:?}");
        assert!(!r.fetch, "{path}");
        assert_eq!(r.reason, format!("disallowed by {expected}"), "{path}");
        assert_eq!(r.robots.as_deref(), Some(expected.as_str()), "{path}");
        let t = c
            .layer(&site.url(path), "robots")
            .expect("a robots trace line");
        assert_eq!((t.line, t.step.as_str()), (line, "disallowed"), "{path}");
        assert_eq!(t.detail, expected);
        assert_eq!(site.hits(path), 0, "{path} was never requested");
    }
    let ok = c.get(&site.url("/private/ok.html"));
    assert_eq!(ok.state, State::Saved);
    assert_eq!(
        ok.robots.as_deref(),
        Some(
            format!("robots.txt {robots_url} line 7 \"Allow: /private/ok.html\" (group *)")
                .as_str()
        )
    );
    let public = c.get(&site.url("/public.html"));
    assert_eq!(public.state, State::Saved);
    let t = c
        .layer(&site.url("/public.html"), "robots")
        .expect("robots line");
    assert_eq!(t.step, "allowed");
    assert_eq!(
        t.detail,
        format!("robots.txt {robots_url}: no rule matches (group *)")
    );
    assert_eq!(site.hits("/robots.txt"), 1, "cached for the host");
}

/// How one robots.txt answer maps (RFC 9309 §2.3.1), with the settings
/// that make the outcome quick to reach.
struct RobotsCase {
    name: &'static str,
    /// Routes besides `/`, `/page.html` and `/private/page.html`.
    robots: Vec<(&'static str, Answer)>,
    settings: &'static str,
    expect: Expect,
    /// Requests for /robots.txt.
    fetches: usize,
}

enum Expect {
    /// Parsed (`Disallow: /private/` applies); the source named in the
    /// trace, after `robots.txt `.
    Parsed(&'static str),
    /// Everything allowed; the robots text after `robots.txt ` says why.
    AllowAll(&'static str),
    /// Everything disallowed, given up; the start URL says why.
    GaveUp(&'static str),
}

fn chain(hops: usize) -> Vec<(&'static str, Answer)> {
    const PATHS: [&str; 7] = [
        "/robots.txt",
        "/r/1",
        "/r/2",
        "/r/3",
        "/r/4",
        "/r/5",
        "/r/6",
    ];
    let mut routes: Vec<(&str, Answer)> = (0..hops)
        .map(|i| (PATHS[i], redirect(PATHS[i + 1])))
        .collect();
    routes.push((PATHS[hops], text("User-agent: *\nDisallow: /private/\n")));
    routes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn robots_txt_answers_map_as_rfc_9309_says() {
    let cases = vec![
        RobotsCase {
            name: "200",
            robots: chain(0),
            settings: FAST,
            expect: Expect::Parsed("{o}/robots.txt line 2"),
            fetches: 1,
        },
        RobotsCase {
            name: "2 redirects",
            robots: chain(2),
            settings: FAST,
            expect: Expect::Parsed("{o}/robots.txt (redirected to {o}/r/2) line 2"),
            fetches: 1,
        },
        RobotsCase {
            name: "5 redirects: still followed",
            robots: chain(5),
            settings: FAST,
            expect: Expect::Parsed("{o}/robots.txt (redirected to {o}/r/5) line 2"),
            fetches: 1,
        },
        RobotsCase {
            name: "6 redirects: unavailable",
            robots: chain(6),
            settings: FAST,
            expect: Expect::AllowAll(
                "{o}/robots.txt (redirected to {o}/r/5): HTTP 301 after 5 redirects, all allowed",
            ),
            fetches: 1,
        },
        RobotsCase {
            name: "404",
            robots: vec![("/robots.txt", status(404))],
            settings: FAST,
            expect: Expect::AllowAll("{o}/robots.txt: HTTP 404, all allowed"),
            fetches: 1,
        },
        RobotsCase {
            name: "403",
            robots: vec![("/robots.txt", status(403))],
            settings: FAST,
            expect: Expect::AllowAll("{o}/robots.txt: HTTP 403, all allowed"),
            fetches: 1,
        },
        RobotsCase {
            name: "500 then 200: held, then allowed once it recovers",
            robots: vec![(
                "/robots.txt",
                Answer::Seq(vec![
                    status(500),
                    text("User-agent: *\nDisallow: /private/\n"),
                ]),
            )],
            settings: FAST,
            expect: Expect::Parsed("{o}/robots.txt line 2"),
            fetches: 2,
        },
        RobotsCase {
            name: "500 for good: given up after max_retries",
            robots: vec![("/robots.txt", status(500))],
            settings: FAST,
            expect: Expect::GaveUp(
                "HTTP 500, all disallowed (gave up after 2 failed fetches of robots.txt)",
            ),
            fetches: 2,
        },
        RobotsCase {
            name: "stalls past the timeout, then answers",
            robots: vec![(
                "/robots.txt",
                Answer::Seq(vec![
                    Answer::Stall,
                    text("User-agent: *\nDisallow: /private/\n"),
                ]),
            )],
            settings: FAST,
            expect: Expect::Parsed("{o}/robots.txt line 2"),
            fetches: 2,
        },
        RobotsCase {
            name: "stalls for good, no retries",
            robots: vec![("/robots.txt", Answer::Stall)],
            settings: "timeout_s = 1\nmax_retries = 0\n",
            expect: Expect::GaveUp("timed out"),
            fetches: 1,
        },
    ];
    for case in cases {
        let robots = case.robots.clone();
        let site = serve(move |_| {
            let mut routes: Vec<(String, Answer)> = vec![
                ("/".into(), links(&["/page.html", "/private/page.html"])),
                ("/page.html".into(), html("page")),
                ("/private/page.html".into(), html("private")),
            ];
            routes.extend(robots.into_iter().map(|(p, a)| (p.to_string(), a)));
            routes
        })
        .await;
        let c = crawl(&[site.url("/")], case.settings, "").await;
        let name = case.name;
        let o = &site.origin;
        let start = c.get(&site.url("/"));
        match case.expect {
            Expect::Parsed(source) => {
                let source = source.replace("{o}", o);
                assert_eq!(start.state, State::Saved, "{name}");
                assert_eq!(c.get(&site.url("/page.html")).state, State::Saved, "{name}");
                let private = c.get(&site.url("/private/page.html"));
                assert_eq!(private.state, State::Filtered, "{name}");
                assert_eq!(
                    private.reason,
                    format!("disallowed by robots.txt {source} \"Disallow: /private/\" (group *)"),
                    "{name}"
                );
            }
            Expect::AllowAll(why) => {
                let why = why.replace("{o}", o);
                for path in ["/", "/page.html", "/private/page.html"] {
                    let r = c.get(&site.url(path));
                    assert_eq!(r.state, State::Saved, "{name}: {path}");
                    assert_eq!(
                        r.robots,
                        Some(format!("robots.txt {why}")),
                        "{name}: {path}"
                    );
                }
            }
            Expect::GaveUp(why) => {
                // Not the owner's wish but the host's state: an error (a
                // temporary one, which --refresh asks again), not filtered.
                assert_eq!(start.state, State::Error, "{name}: {start:?}");
                assert!(
                    start
                        .reason
                        .starts_with(&format!("not fetched: robots.txt {o}/robots.txt: "))
                        && start.reason.contains(why)
                        && start.reason.contains("gave up"),
                    "{name}: {}",
                    start.reason
                );
                let class = start.error.as_ref().map(|e| e.class);
                assert_eq!(class, Some(ErrorClass::Temporary), "{name}");
                assert_eq!((c.stats.errors, c.stats.filtered), (1, 0), "{name}");
                assert_eq!(site.hits("/"), 0, "{name}: nothing fetched");
            }
        }
        assert_eq!(site.hits("/robots.txt"), case.fetches, "{name}");
        // The pages answer at once: the retries are robots.txt's.
        assert_eq!(c.stats.retries as usize, case.fetches - 1, "{name}");
        assert_eq!(c.stats.in_flight, 0, "{name}");
    }
}

/// While a host's robots.txt is being fetched, its URL waiting for it
/// counts as queued (the robots.txt fetch is in flight, but no URL of the
/// frontier), as the log and the final summary count it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_waiting_for_robots_txt_counts_as_queued() {
    let arrived = Arc::new(Notify::new());
    let gate = Arc::new(Semaphore::new(0));
    let held = Answer::Gated {
        arrived: arrived.clone(),
        gate: gate.clone(),
        then: Box::new(text("User-agent: *\nAllow: /\n")),
    };
    let site = serve(move |_| vec![("/robots.txt".into(), held), ("/".into(), html("home"))]).await;
    let mut running = start(&[site.url("/")], FAST, "");
    arrived.notified().await;
    // Bounded, so that a wrong count fails rather than waits for ever.
    let counted = util::stats_until(&mut running.events, |s| s.in_flight == 1 && s.queued == 1);
    tokio::time::timeout(Duration::from_secs(30), counted)
        .await
        .expect("the waiting URL counted as queued");
    gate.add_permits(1);
    let c = running.finish().await;
    assert_eq!(c.get(&site.url("/")).state, State::Saved);
}

/// `Crawl-delay` raises the host's delay, visible in the engine's detail
/// (no timing needed: the crawl is held on a page while the test asks).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crawl_delay_raises_the_host_delay() {
    let arrived = Arc::new(Notify::new());
    let gate = Arc::new(Semaphore::new(0));
    let held = Answer::Gated {
        arrived: arrived.clone(),
        gate: gate.clone(),
        then: Box::new(html("held")),
    };
    let site = serve(move |_| {
        vec![
            (
                "/robots.txt".into(),
                text("User-agent: *\nCrawl-delay: 0.2\n"),
            ),
            ("/".into(), links(&["/held"])),
            ("/held".into(), held),
        ]
    })
    .await;
    let mut running = start(&[site.url("/")], FAST, "");
    arrived.notified().await;
    running.control.send(Control::Detail).await.expect("send");
    let detail: Box<Detail> = loop {
        match running.events.recv().await.expect("events") {
            Event::Detail(d) => break d,
            _ => continue,
        }
    };
    let host = detail
        .hosts
        .iter()
        .find(|h| h.origin == site.origin)
        .expect("the host's row");
    assert_eq!(host.delay, Duration::from_millis(200));
    assert_eq!(host.robots, "parsed: 2 lines, group *, crawl-delay 0.2s");
    assert_eq!(host.in_flight, 1);
    gate.add_permits(1);
    let c = running.finish().await;
    assert_eq!(c.get(&site.url("/held")).state, State::Saved);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn obey_robots_false_fetches_no_robots_txt_and_logs_so() {
    let site = serve(|_| {
        vec![
            ("/robots.txt".into(), text("User-agent: *\nDisallow: /\n")),
            ("/".into(), links(&["/a.html"])),
            ("/a.html".into(), html("a")),
        ]
    })
    .await;
    let c = crawl(&[site.url("/")], "obey_robots = false\n", "").await;
    for path in ["/", "/a.html"] {
        let r = c.get(&site.url(path));
        assert_eq!(r.state, State::Saved, "{path}");
        assert_eq!(
            r.robots.as_deref(),
            Some("robots.txt not consulted (obey_robots = false)")
        );
        let t = c.layer(&site.url(path), "robots").expect("robots line");
        assert_eq!(t.detail, "robots.txt not consulted (obey_robots = false)");
    }
    assert_eq!(site.hits("/robots.txt"), 0);
}

/// robots.txt names a sitemap index (twice, and the config names it too:
/// read once); the index lists a gzipped urlset and a chain of indexes
/// deeper than the nesting limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sitemap_index_from_robots_txt_with_a_gzipped_child() {
    let site = serve(|o| {
        let robots = format!(
            "User-agent: *\nDisallow: /blocked/\nSitemap: {o}/sitemap_index.xml\nSitemap: {o}/sitemap_index.xml\nSitemap: relative.xml\n"
        );
        let children = [
            format!("{o}/pages.xml.gz"),
            format!("{o}/deep1.xml"),
            format!("{o}/pages.xml.gz"),
        ];
        let pages = urlset(&[
            format!("{o}/orphan.html"),
            format!("{o}/private/secret.html"),
            format!("{o}/blocked/x.html"),
            format!("{o}/"),
        ]);
        vec![
            ("/robots.txt".into(), text(robots)),
            ("/".into(), html("no links")),
            ("/sitemap_index.xml".into(), reply(200, "application/xml", sitemap_index(&children))),
            ("/pages.xml.gz".into(), reply(200, "application/gzip", gzip(pages.as_bytes()))),
            ("/deep1.xml".into(), reply(200, "application/xml", sitemap_index(&[format!("{o}/deep2.xml")]))),
            ("/deep2.xml".into(), reply(200, "application/xml", sitemap_index(&[format!("{o}/deep3.xml")]))),
            ("/deep3.xml".into(), reply(200, "application/xml", urlset(&[format!("{o}/too-deep.html")]))),
            ("/orphan.html".into(), html("<title>Orphan</title><p>found through the sitemap</p>")),
            ("/private/secret.html".into(), html("secret")),
        ]
    })
    .await;
    let o = &site.origin;
    let rules = "[[rules]]\nname = \"no private pages\"\nmatch = { field = \"path\", prefix = \"/private/\" }\naction = \"exclude\"\nlog = true\n";
    let settings = format!("{FAST}sitemaps = [\"{o}/sitemap_index.xml\"]\n");
    let c = crawl(&[site.url("/")], &settings, rules).await;

    let index = c.get(&site.url("/sitemap_index.xml"));
    assert_eq!(index.state, State::Fetched, "{index:?}");
    assert_eq!(
        index.reason,
        "sitemap read: sitemap index: 0 pages, 3 sitemaps"
    );
    // Where it was fetched from, as a page keeps it.
    assert_eq!(index.address, Some([127, 0, 0, 1].into()), "{index:?}");
    assert!(
        c.layer(&site.url("/sitemap_index.xml"), "sitemap-file")
            .is_some_and(|t| t.detail == "sitemap listed in [crawl] sitemaps"
                || t.detail == format!("sitemap named in robots.txt {o}/robots.txt")),
        "{index:?}"
    );
    assert_eq!(site.hits("/sitemap_index.xml"), 1, "read once");
    assert_eq!(site.hits("/pages.xml.gz"), 1, "listed twice, read once");

    let gz = c.get(&site.url("/pages.xml.gz"));
    assert_eq!(gz.state, State::Fetched, "{gz:?}");
    assert_eq!(gz.reason, "sitemap read: urlset (gzip): 4 pages");
    assert_eq!(
        c.referrer_url(&site.url("/pages.xml.gz")),
        Some(site.url("/sitemap_index.xml").as_str())
    );
    assert_eq!(
        c.layer(&site.url("/pages.xml.gz"), "sitemap-file")
            .map(|t| t.detail.as_str()),
        Some(
            format!("child sitemap (level 2) listed in sitemap index {o}/sitemap_index.xml")
                .as_str()
        )
    );

    // The orphan page, linked from nowhere, is crawled through the sitemap.
    let orphan = c.get(&site.url("/orphan.html"));
    assert_eq!(orphan.state, State::Saved, "{orphan:?}");
    assert_eq!(orphan.title.as_deref(), Some("Orphan"));
    assert_eq!(
        c.layer(&site.url("/orphan.html"), "sitemap")
            .map(|t| t.detail.as_str()),
        Some(format!("sitemap entry from {o}/pages.xml.gz").as_str())
    );
    assert_eq!(
        c.referrer_url(&site.url("/orphan.html")),
        Some(site.url("/pages.xml.gz").as_str())
    );
    // Entries still go through the rules and robots.txt.
    let secret = c.get(&site.url("/private/secret.html"));
    assert_eq!(secret.state, State::Filtered);
    assert!(
        secret.reason.contains("rule 1 \"no private pages\""),
        "{}",
        secret.reason
    );
    let blocked = c.get(&site.url("/blocked/x.html"));
    assert_eq!(blocked.state, State::Filtered);
    assert!(
        blocked.reason.contains("\"Disallow: /blocked/\""),
        "{}",
        blocked.reason
    );
    assert_eq!(
        site.hits("/private/secret.html") + site.hits("/blocked/x.html"),
        0
    );
    // Nesting: index (1) → deep1 (2) → deep2 (3); deep3 would be level 4.
    assert!(c.records.contains_key(&site.url("/deep2.xml")));
    let deep2 = c.get(&site.url("/deep2.xml"));
    assert_eq!(
        deep2.reason,
        "sitemap read: sitemap index: 0 pages, 1 sitemap; 1 child sitemap not read: nested deeper than 3 levels"
    );
    assert!(!c.records.contains_key(&site.url("/deep3.xml")));
    assert_eq!(site.hits("/deep3.xml"), 0);
    // A relative Sitemap: line is not a URL to fetch.
    assert!(!c.records.keys().any(|u| u.ends_with("relative.xml")));
}

/// A sitemap over the 50,000-URL cap and one over the 50 MiB cap: logged
/// with the cap, what was read stands, and the crawl goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sitemaps_over_the_caps_are_logged_not_fatal() {
    fn huge() -> Box<dyn Read + Send> {
        // 30,000 entries of 2 KiB: about 61 MB, past 50 MiB before 50,000 entries.
        Box::new(SyntheticSitemap::new(30_000, 2048))
    }
    let site = serve(|o| {
        let many: Vec<String> = (0..50_001).map(|i| format!("{o}/many/{i}")).collect();
        vec![
            ("/".into(), html("start")),
            (
                "/many.xml".into(),
                reply(200, "application/xml", urlset(&many)),
            ),
            ("/huge.xml".into(), Answer::Stream(huge)),
        ]
    })
    .await;
    let o = &site.origin;
    // The entries need not be crawled: kept out silently by the rules.
    let rules = "[[rules]]\nname = \"the start page and the sitemaps only\"\nmatch = { any = [ { field = \"path\", exact = \"/\" }, { field = \"extension\", exact = \"xml\" } ] }\nfilter = \"must-have\"\nlog = false\n";
    let settings = format!("{FAST}sitemaps = [\"{o}/many.xml\", \"{o}/huge.xml\"]\n");
    let c = crawl(&[site.url("/")], &settings, rules).await;
    let many = c.get(&site.url("/many.xml"));
    assert_eq!(many.state, State::Fetched, "{many:?}");
    assert_eq!(
        many.reason,
        "sitemap read: urlset: 50000 pages; stopped at the URL cap (at most 50000 entries per file: the rest is not read)"
    );
    let huge = c.get(&site.url("/huge.xml"));
    assert_eq!(huge.state, State::Fetched, "{huge:?}");
    assert!(
        huge.reason
            .contains("stopped at the size cap (at most 50 MiB uncompressed per file"),
        "{}",
        huge.reason
    );
    assert_eq!(c.get(&site.url("/")).state, State::Saved);
    assert_eq!(c.records.len(), 3, "entries filtered without a record");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_text_sitemap_from_the_config() {
    let site = serve(|o| {
        vec![
            ("/".into(), html("start")),
            (
                "/urls.txt".into(),
                text(format!("{o}/a.html\n\nnot a url\n{o}/b.html")),
            ),
            ("/a.html".into(), html("a")),
            ("/b.html".into(), html("b")),
        ]
    })
    .await;
    let o = &site.origin;
    let settings = format!("{FAST}sitemaps = [\"{o}/urls.txt\"]\n");
    let c = crawl(&[site.url("/")], &settings, "").await;
    let list = c.get(&site.url("/urls.txt"));
    assert_eq!(list.state, State::Fetched);
    assert_eq!(
        list.reason,
        "sitemap read: text: 2 pages, 1 skipped (e.g. \"not a url\")"
    );
    assert_eq!(list.saved_path, None, "a sitemap is never saved");
    for path in ["/a.html", "/b.html"] {
        assert_eq!(c.get(&site.url(path)).state, State::Saved, "{path}");
        assert_eq!(
            c.layer(&site.url(path), "sitemap")
                .map(|t| t.detail.clone()),
            Some(format!("sitemap entry from {o}/urls.txt"))
        );
        assert_eq!(c.get(&site.url(path)).link_depth, 1);
    }
}

/// A crawl of a site whose config names a plain-text sitemap, `/urls.txt`
/// (served as `text/plain`), listing `/a.html`, with `rules`.
async fn crawl_with_a_text_sitemap(rules: &str) -> (Site, Crawled) {
    let site = serve(|o| {
        vec![
            ("/".into(), html("start")),
            ("/urls.txt".into(), text(format!("{o}/a.html\n"))),
            ("/a.html".into(), html("a")),
        ]
    })
    .await;
    let settings = format!("{FAST}sitemaps = [\"{}/urls.txt\"]\n", site.origin);
    let c = crawl(&[site.url("/")], &settings, rules).await;
    (site, c)
}

/// A sitemap is a URL the rules judge like any: one whose verdict waits
/// for its type is refused at its headers when the type is excluded, and
/// its entries are not met.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sitemap_the_rules_refuse_by_type_is_not_read() {
    let rules = "[[rules]]\nname = \"no plain text\"\nmatch = { field = \"content_type\", exact = \"text/plain\" }\naction = \"exclude\"\nlog = true\n";
    let (site, c) = crawl_with_a_text_sitemap(rules).await;
    let list = c.get(&site.url("/urls.txt"));
    assert_eq!(list.state, State::Filtered, "{list:?}");
    assert!(
        list.reason.contains("rule 1 \"no plain text\""),
        "{}",
        list.reason
    );
    assert!(
        !c.records.contains_key(&site.url("/a.html")),
        "its entry not met"
    );
}

/// A sitemap keeps the flags its rules gave at its headers (here a
/// non-HTML rule that neither saves nor follows), as a page does, and its
/// entries are met all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sitemap_keeps_the_flags_its_type_rules_gave() {
    let rules = "[[rules]]\nname = \"not HTML\"\nmatch = { field = \"content_type\", exact = \"text/plain\" }\nset = { save = false, follow = false }\n";
    let (site, c) = crawl_with_a_text_sitemap(rules).await;
    let list = c.get(&site.url("/urls.txt"));
    assert_eq!(list.state, State::Fetched, "{list:?}");
    assert!(list.fetch && !list.save && !list.follow, "{list:?}");
    assert_eq!(c.get(&site.url("/a.html")).state, State::Saved);
}

/// Meta robots × X-Robots-Tag, in every combination, with and without
/// `ignore_nofollow`: noindex → not saved, nofollow → links not followed,
/// each source named in the trace.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn meta_robots_and_x_robots_tag_in_every_combination() {
    // (meta content, its noindex, its nofollow, its trace line)
    let metas: [(&str, bool, bool, Option<&str>); 4] = [
        ("", false, false, None),
        ("noindex", true, false, Some("meta robots noindex")),
        ("nofollow", false, true, Some("meta robots nofollow")),
        ("none", true, true, Some("meta robots noindex, nofollow")),
    ];
    // (X-Robots-Tag value, its noindex, its nofollow, its trace line)
    let headers: [(&str, bool, bool, Option<&str>); 6] = [
        ("", false, false, None),
        ("noindex", true, false, Some("X-Robots-Tag: noindex")),
        ("nofollow", false, true, Some("X-Robots-Tag: nofollow")),
        (
            "noindex, nofollow",
            true,
            true,
            Some("X-Robots-Tag: noindex, nofollow"),
        ),
        (
            "otherbot: noindex, nofollow",
            false,
            false,
            Some("X-Robots-Tag: no restriction for this crawler"),
        ),
        (
            "crawlspace: nofollow",
            false,
            true,
            Some("X-Robots-Tag: nofollow"),
        ),
    ];
    let mut pages = Vec::new();
    let mut start_links = Vec::new();
    for (m, meta) in metas.iter().enumerate() {
        for (h, header) in headers.iter().enumerate() {
            let path = format!("/p/{m}-{h}");
            let head = if meta.0.is_empty() {
                String::new()
            } else {
                format!("<meta name=\"robots\" content=\"{}\">", meta.0)
            };
            let body = format!(
                "<html><head><title>page {m}-{h}</title>{head}</head><body><p>Text of {m}-{h}.</p><a href=\"/t/{m}-{h}\">t</a></body></html>"
            );
            let mut answer = html(body);
            if !header.0.is_empty() {
                answer = answer.with_header("x-robots-tag", header.0);
            }
            pages.push((path.clone(), answer));
            pages.push((format!("/t/{m}-{h}"), html("target")));
            start_links.push(path);
        }
    }
    // Not HTML: only the header can say noindex.
    pages.push((
        "/doc.pdf".into(),
        reply(200, "application/pdf", "%PDF-1.4").with_header("x-robots-tag", "noindex"),
    ));
    start_links.push("/doc.pdf".into());
    // noarchive and nosnippet are recorded; nosnippet keeps the excerpt out.
    pages.push((
        "/snippet.html".into(),
        html("<p>Some text.</p>").with_header("x-robots-tag", "noarchive, nosnippet"),
    ));
    start_links.push("/snippet.html".into());
    let index: Vec<&str> = start_links.iter().map(String::as_str).collect();
    pages.push(("/".into(), links(&index)));

    for ignore in [false, true] {
        let pages = pages.clone();
        let site = serve(move |_| pages).await;
        let settings =
            format!("timeout_s = 1\nconcurrency = 8\nper_host = 4\nignore_nofollow = {ignore}\n");
        let c = crawl(&[site.url("/")], &settings, "").await;
        for (m, meta) in metas.iter().enumerate() {
            for (h, header) in headers.iter().enumerate() {
                let case = format!(
                    "meta {:?}, header {:?}, ignore_nofollow {ignore}",
                    meta.0, header.0
                );
                let url = site.url(&format!("/p/{m}-{h}"));
                let r = c.get(&url);
                let noindex = meta.1 || header.1;
                let nofollow = (meta.2 || header.2) && !ignore;
                assert_eq!(
                    r.state,
                    if noindex {
                        State::Fetched
                    } else {
                        State::Saved
                    },
                    "{case}: {r:?}"
                );
                assert_eq!(
                    r.reason.contains("not saved: noindex"),
                    noindex,
                    "{case}: {}",
                    r.reason
                );
                assert_eq!(
                    c.records.contains_key(&site.url(&format!("/t/{m}-{h}"))),
                    !nofollow,
                    "{case}: link followed?"
                );
                assert_eq!(
                    r.reason.contains("links not followed: nofollow"),
                    nofollow,
                    "{case}: {}",
                    r.reason
                );
                let meta_line = c.layer(&url, "robots-meta").map(|t| t.detail.clone());
                let expected_meta = meta.3.map(|t| {
                    if ignore && meta.2 {
                        format!("{t} (nofollow ignored: ignore_nofollow = true)")
                    } else {
                        t.to_string()
                    }
                });
                assert_eq!(meta_line, expected_meta, "{case}");
                let header_line = c.layer(&url, "x-robots-tag").map(|t| t.detail.clone());
                let expected_header = header.3.map(|t| {
                    if ignore && header.2 {
                        format!("{t} (nofollow ignored: ignore_nofollow = true)")
                    } else {
                        t.to_string()
                    }
                });
                assert_eq!(header_line, expected_header, "{case}");
                // The title is kept; the excerpt only when indexed.
                assert_eq!(
                    r.title.as_deref(),
                    Some(format!("page {m}-{h}").as_str()),
                    "{case}"
                );
                assert_eq!(r.excerpt.is_some(), !noindex, "{case}: {:?}", r.excerpt);
                if !header.0.is_empty() {
                    let robots = r.robots.as_deref().unwrap_or_default();
                    assert!(
                        robots.contains(&format!("X-Robots-Tag: {}", header.0)),
                        "{case}: {robots}"
                    );
                }
            }
        }
        let pdf = c.get(&site.url("/doc.pdf"));
        assert_eq!(pdf.state, State::Fetched, "{pdf:?}");
        assert!(
            pdf.reason.contains("not saved: noindex (X-Robots-Tag)"),
            "{}",
            pdf.reason
        );
        let snippet = c.get(&site.url("/snippet.html"));
        assert_eq!(snippet.state, State::Saved);
        assert_eq!(snippet.excerpt, None, "nosnippet");
        let robots = snippet.robots.as_deref().unwrap_or_default();
        assert!(
            robots.contains("X-Robots-Tag: noarchive, nosnippet"),
            "{robots}"
        );
        assert_eq!(
            c.layer(&site.url("/snippet.html"), "x-robots-tag")
                .map(|t| t.detail.as_str()),
            Some("X-Robots-Tag: noarchive, nosnippet")
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn noindex_regions_are_left_out_of_the_excerpt_but_their_links_followed() {
    let page = "<html><head><title>Regions</title></head><body>\
        <p>Indexed text.</p>\
        <!--noindex--><p>Secret words <a href=\"/in-region.html\">a link</a>.</p><!--endnoindex-->\
        <!--googleoff: all--><p>Also hidden.</p><!--googleon: all-->\
        <p>More indexed text.</p></body></html>";
    let site = serve(|_| {
        vec![
            ("/".into(), html(page)),
            ("/in-region.html".into(), html("found")),
        ]
    })
    .await;
    let c = crawl(&[site.url("/")], FAST, "").await;
    let r = c.get(&site.url("/"));
    assert_eq!(r.state, State::Saved);
    assert_eq!(r.title.as_deref(), Some("Regions"));
    let excerpt = r.excerpt.as_deref().expect("an excerpt");
    assert!(
        excerpt.contains("Indexed text.") && excerpt.contains("More indexed text."),
        "{excerpt}"
    );
    assert!(
        !excerpt.contains("Secret") && !excerpt.contains("hidden"),
        "{excerpt}"
    );
    assert_eq!(
        c.layer(&site.url("/"), "noindex-regions")
            .map(|t| t.detail.as_str()),
        Some("2 noindex regions left out of the excerpt")
    );
    assert!(
        r.robots
            .as_deref()
            .is_some_and(|t| t.ends_with("; 2 noindex regions left out of the excerpt")),
        "{:?}",
        r.robots
    );
    assert_eq!(c.get(&site.url("/in-region.html")).state, State::Saved);
}

/// A link that says rel=nofollow is logged with its reason; met later
/// through a plain link, the same URL is crawled after all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rel_nofollow_targets_are_logged_with_their_reason() {
    let site = serve(|_| {
        vec![
            (
                "/".into(),
                links(&["!/only-nofollow.html", "!/later.html", "/next.html"]),
            ),
            ("/next.html".into(), links(&["/later.html"])),
            ("/only-nofollow.html".into(), html("hidden")),
            ("/later.html".into(), html("later")),
        ]
    })
    .await;
    // One at a time, so `/` is read before `/next.html`.
    let settings = "concurrency = 1\nper_host = 1\n";
    let c = crawl(&[site.url("/")], settings, "").await;
    let hidden = c.get(&site.url("/only-nofollow.html"));
    let why = format!("rel=nofollow on link from {}", site.url("/"));
    assert_eq!(hidden.state, State::Filtered, "{hidden:?}");
    assert!(!hidden.fetch);
    assert_eq!(hidden.reason, format!("not followed: {why}"));
    assert_eq!(
        c.layer(&site.url("/only-nofollow.html"), "rel-nofollow")
            .map(|t| t.detail.clone()),
        Some(why)
    );
    assert_eq!(site.hits("/only-nofollow.html"), 0);
    let later = c.get(&site.url("/later.html"));
    assert_eq!(later.state, State::Saved, "{later:?}");
    assert_eq!(
        c.referrer_url(&site.url("/later.html")),
        Some(site.url("/next.html").as_str())
    );
    assert!(
        c.get(&site.url("/"))
            .reason
            .contains("2 rel=nofollow links not followed")
    );

    let c = crawl(&[site.url("/")], "ignore_nofollow = true\n", "").await;
    assert_eq!(c.get(&site.url("/only-nofollow.html")).state, State::Saved);
}

/// Address rules (phase 1b) that refuse a host's address keep its
/// robots.txt unfetched too: no connection is made there at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn address_rules_keep_robots_txt_unfetched_too() {
    let site = serve(|_| {
        vec![
            ("/robots.txt".into(), text("User-agent: *\nDisallow: /\n")),
            ("/".into(), html("start")),
        ]
    })
    .await;
    let rules = "[[rules]]\nname = \"intranet addresses only\"\nmatch = { field = \"address\", cidr = \"10.0.0.0/8\" }\nfilter = \"must-have\"\nlog = true\n";
    let c = crawl(&[site.url("/")], FAST, rules).await;
    let start = c.get(&site.url("/"));
    assert_eq!(start.state, State::Filtered, "{start:?}");
    assert!(
        start.reason.contains("rule 1 \"intranet addresses only\""),
        "{}",
        start.reason
    );
    assert_eq!(site.hits("/robots.txt") + site.hits("/"), 0);
    assert_eq!(
        start.robots,
        Some(format!(
            "robots.txt {}: not fetched: the address rules refuse 127.0.0.1, all allowed",
            site.url("/robots.txt")
        ))
    );
}
