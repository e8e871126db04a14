//! The crawl loop (SPEC §2.1): one coordinator task owns the frontier, the
//! host table and every write to the URL log; fetch tasks do the network
//! work and send their outcome back on a bounded channel. A page task is
//! handed its host's next URLs while it fetches and goes straight on with
//! them (`relay`), so that a fetch slot does not wait for the coordinator,
//! nor the coordinator wake for every page.
//!
//! Crash safety: a fetched page's new links (logged and queued), its own
//! update and its removal from the persisted queue are one transaction, so
//! after a `kill -9` either all of it is there or the page is fetched again.
//!
//! Child modules: `discover` meets URLs (rules, depth, dedupe, batched
//! writes); `web` applies the web conventions of SPEC §2.3 (robots.txt per
//! host before its URLs, sitemaps, robots directives, rel=nofollow);
//! `refresh` re-fetches known URLs with conditional requests (`--refresh`);
//! `relay` hands running page tasks their next URLs and wakes the loop for
//! their outcomes a few at a time (the page task itself is there too);
//! `control` is the channel commands reach the loop by; `outcome` settles
//! what a fetch brought back (records, links, retries, redirects);
//! `window` keeps the in-memory frontier a window on the persisted one;
//! `records` reads and updates URL records through the writes held back;
//! `status` reports the counts and, for the console, the queues and hosts;
//! `rule_change` applies rules changed during the crawl or since the log's
//! last run, and `unfilter` meets again the filtered URLs they now fetch.

mod control;
mod discover;
mod outcome;
mod records;
mod refresh;
mod relay;
mod rule_change;
mod status;
mod unfilter;
pub use unfilter::refused_by_rules;
mod web;
mod window;

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustc_hash::{FxHashMap, FxHashSet};
use tokio::sync::mpsc;
use tokio::task::JoinSet;
use url::Url;

pub use self::control::{
    Control, ControlReceiver, ControlSender, NewRules, control_channel, native_text,
};
use self::discover::{Deferred, Discovered, Held, Origin};
use self::refresh::{NOT_REFETCHED, Refresh};
use self::relay::{Bell, Handoff, HostGate, Next, RUNWAY, Relay, Step, fetch_pages};
use self::web::Job;
use super::detail::{Detail, HostIdle, HostRow, MAX_HOST_ROWS, QueueRow};
use super::fetch::{FetchError, Fetcher};
use super::frontier::{Frontier, QUEUES};
use super::hosts::{Hosts, Idle};
use super::notices::Notices;
use super::report::{robots_line, set_layer};
use super::robots_cache::{Check, Gate, RobotsCache};
use super::sitemaps::fetch_sitemap;
use super::task::{Outcome, SaveTo, fetch_robots};
use crate::config::CrawlSettings;
use crate::rules::{
    CompiledRules, Known, Queue, TraceMode, UrlError, UrlFacts, Verdict, normalize,
};
use crate::store::generations::Generations;
use crate::store::{State, UrlLog, UrlRecord};

/// At most this many redirect hops from the first URL (SPEC §2.3).
pub const MAX_REDIRECTS: u8 = 10;

/// Records a generation of [`Engine::recent`] holds: room for a window
/// slot's queued URLs (2,048) and the pages in flight. With it,
/// `crawl_bench`'s peak RSS rose by 10-13 MB, about 1.5 KB for each of the
/// 8,192 records the two generations can hold (with 2,048 a generation, by
/// 5-6 MB, but twice as many outcomes read their record back).
const RECENT_RECORDS: usize = 4_096;
/// And at most this much a generation ([`UrlRecord::approx_size`]): records
/// with a title, an excerpt and meta (a refresh crawl's) are larger.
const RECENT_BYTES: usize = 8 << 20;

/// Everything the engine needs, validated.
#[derive(Debug, Clone)]
pub struct Plan {
    pub settings: CrawlSettings,
    pub weights: [u32; 6],
    pub start: Vec<Url>,
    pub out: PathBuf,
}

/// Counters for the progress display.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    pub discovered: u64,
    pub queued: u64,
    pub in_flight: u64,
    pub fetched: u64,
    pub saved: u64,
    pub filtered: u64,
    pub errors: u64,
    pub retries: u64,
    /// Links met to URLs the rules filter without a record (`log =
    /// false`): not in `filtered`, which counts the log's filtered URLs.
    /// Each link counts, since nothing remembers such a URL was met.
    pub unlogged: u64,
    /// Pages a refresh found gone (a permanent error) and marked deleted;
    /// not counted in `errors`, as the log's states do not.
    pub deleted: u64,
    /// Pages a refresh could not fetch (temporary errors, given up): the
    /// log keeps them as they were, with their copy and the error; not
    /// counted in `errors` either, as the log's states do not.
    pub unrefreshed: u64,
    /// Pages the rules save that the mirror could not write (a full disk,
    /// a file where a folder goes): logged as fetched, not saved, with the
    /// error; not counted in `errors`, as the log's states do not.
    pub unsaved: u64,
    /// The first of those failures (`path: error`), for the summary.
    pub first_unsaved: Option<String>,
    /// Queued URLs that changed rules filtered: rules applied during the
    /// crawl, or a config's rules changed since the log's last run.
    pub dropped_by_new_rules: u64,
    /// Filtered URLs that changed rules (as above) queued again.
    pub queued_by_new_rules: u64,
    pub paused: bool,
    /// With nothing in flight and URLs queued: how long until the next
    /// request may start (a host's backoff after errors, a retry's wait, a
    /// politeness delay, robots.txt retried), so that a crawl waiting is
    /// not taken for a crawl stuck.
    pub waiting: Option<Duration>,
    pub elapsed: Duration,
    /// Of `elapsed`, the time spent paused.
    pub paused_for: Duration,
    /// Of `fetched` and `saved`, the pages a resumed crawl's log held
    /// already: the counts start from the log, so that they agree with it.
    pub done_before: u64,
    /// Why the URL log could not be written, when it could not: the crawl
    /// stops at the first such failure (a full disk, a file size limit, an
    /// I/O error), since a page whose links were not written must not be
    /// logged as fetched after them. The log keeps all it wrote before;
    /// running the same command again resumes from there.
    pub log_error: Option<String>,
}

impl Stats {
    /// ` (+N not logged)`, for after the filtered count, when links to
    /// URLs the rules keep no record of were met (empty otherwise).
    pub fn unlogged_note(&self) -> String {
        if self.unlogged > 0 {
            format!(" (+{} not logged)", self.unlogged)
        } else {
            String::new()
        }
    }

    /// URLs fetched (and saved) per second by this run, paused time left
    /// out.
    pub fn rate(&self) -> f64 {
        let secs = self.elapsed.saturating_sub(self.paused_for).as_secs_f64();
        let pages = (self.fetched + self.saved).saturating_sub(self.done_before);
        if secs > 0.0 { pages as f64 / secs } else { 0.0 }
    }
}

/// What the engine tells its watcher.
#[derive(Debug, Clone)]
pub enum Event {
    Stats(Stats),
    /// The answer to [`Control::Detail`].
    Detail(Box<Detail>),
    Finished(Stats),
}

/// Why the crawl could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("start URL {url}: {why}")]
    StartUrl { url: String, why: String },
    #[error("[crawl] sitemaps: {url:?}: not an absolute http(s) URL")]
    Sitemap { url: String },
    #[error("the URL log: {0}")]
    Store(String),
    #[error("{0}")]
    Fetch(#[from] FetchError),
}

/// What a fetch task is doing (see `Engine::task_panicked`).
#[derive(Debug)]
enum Running {
    Robots(u32),
    Fetch(u32, Item),
    /// A page task, which may go on with the URLs its relay is offered.
    Pages(u32, Arc<Relay>),
}

/// A URL waiting in the frontier.
#[derive(Debug, Clone)]
pub(crate) struct Item {
    pub(crate) id: u64,
    pub(crate) url: Url,
    pub(crate) link_depth: u32,
    /// Redirect hops that led here.
    pub(crate) hops: u8,
    pub(crate) level: usize,
    pub(crate) queue: Queue,
    pub(crate) attempts: u32,
    pub(crate) kind: ItemKind,
}

impl Item {
    /// What `rules` say of this queued URL now (phase 1): new rules meet
    /// the URLs already queued with it.
    fn verdict_now(&self, rules: &CompiledRules, scratch: &mut crate::rules::Scratch) -> Verdict {
        let known = Known {
            link_depth: self.link_depth,
            ..Known::default()
        };
        rules.evaluate(
            &UrlFacts::new(&self.url, &known),
            scratch,
            TraceMode::Decisive,
        )
    }
}

/// What a queued URL is fetched as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ItemKind {
    /// A page (or any document): through phase 2, saved, its links met.
    Page,
    /// A sitemap file at this nesting level (1: named by robots.txt or the
    /// config): parsed, its entries met; never saved.
    Sitemap { level: u8 },
}

/// Checks the start URLs against the rules: each must be fully qualified
/// and allowed, or the crawl does not start (WCA).
pub fn check_start(rules: &CompiledRules, start: &[String]) -> Result<Vec<Url>, StartError> {
    check_start_at(rules, start, false)
}

/// [`check_start`], with a host that is an IP address judged at that
/// address (what the crawl's DNS step, [`check_start_addresses`], finds
/// for it): for the rule tools, which resolve nothing.
pub fn check_start_offline(
    rules: &CompiledRules,
    start: &[String],
) -> Result<Vec<Url>, StartError> {
    check_start_at(rules, start, true)
}

fn check_start_at(
    rules: &CompiledRules,
    start: &[String],
    literal_addresses: bool,
) -> Result<Vec<Url>, StartError> {
    let mut urls = Vec::new();
    for text in start {
        let unqualified = || StartError::StartUrl {
            url: text.clone(),
            why: "not a fully qualified http(s) URL (scheme, host, and port when not the default)"
                .into(),
        };
        let url = match normalize(text) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => url,
            // A scheme and a host, but one part wrong (a port above 65535,
            // a bad IPv4 address): the URL parser names it.
            Err(UrlError::Parse(e)) if e != url::ParseError::RelativeUrlWithoutBase => {
                return Err(StartError::StartUrl {
                    url: text.clone(),
                    why: format!("not a URL: {e}"),
                });
            }
            _ => return Err(unqualified()),
        };
        // A host that is an IP address is its own address: the rule tools
        // judge address rules now, as `explain` does.
        let literal = match url.host() {
            Some(url::Host::Ipv4(ip)) if literal_addresses => Some(IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) if literal_addresses => Some(IpAddr::V6(ip)),
            _ => None,
        };
        let verdict = start_verdict(rules, &url, literal);
        if !verdict.fetch {
            let at = literal.map_or(String::new(), |ip| format!(" at its address {ip}"));
            return Err(refused_start(rules, &url, &verdict, &at));
        }
        urls.push(url);
    }
    Ok(urls)
}

/// What `rules` say of start URL `url`, at `address` once known.
fn start_verdict(rules: &CompiledRules, url: &Url, address: Option<IpAddr>) -> Verdict {
    let known = Known {
        link_depth: 0,
        address,
        ..Known::default()
    };
    rules.evaluate(
        &UrlFacts::new(url, &known),
        &mut rules.scratch(),
        TraceMode::Decisive,
    )
}

/// The startup error for a start URL the rules refuse, naming the rule
/// (or the disposition); `at` tells where that was decided, if not from
/// the URL alone.
fn refused_start(rules: &CompiledRules, url: &Url, verdict: &Verdict, at: &str) -> StartError {
    let info = rules.rule_info();
    let rule = verdict
        .filtered_by
        .first()
        .copied()
        .or(verdict.fetch_set_by);
    let why = match rule.and_then(|r| info.get(r as usize)) {
        Some(i) => format!(
            "the rules do not allow it{at}: rule {} {:?} ({})",
            i.number,
            i.name,
            i.place()
        ),
        None => format!(
            "the rules do not allow it{at}: the disposition is `{}`",
            rules.disposition().name()
        ),
    };
    StartError::StartUrl {
        url: url.to_string(),
        why,
    }
}

/// Start URLs whose verdict waits for their address (an address rule):
/// their hosts resolved now, as the crawler resolves them
/// ([`Fetcher::resolve`]), so that one the rules refuse there stops the
/// crawl before it starts, as [`check_start`] does for the rest. A host
/// that does not resolve within `timeout_s` (10 seconds at most) is left to
/// the crawl, which logs why it could not be fetched.
pub async fn check_start_addresses(
    rules: &CompiledRules,
    start: &[Url],
    settings: &CrawlSettings,
) -> Result<(), StartError> {
    let wait = Duration::from_secs(settings.timeout_s.clamp(1, 10));
    // Made only when a start URL needs it: most configs have no address rule.
    let mut fetcher = None;
    for url in start {
        if !start_verdict(rules, url, None)
            .pending
            .contains(crate::rules::verdict::Pending::ADDRESS)
        {
            continue;
        }
        let fetcher = match &mut fetcher {
            Some(fetcher) => fetcher,
            None => fetcher.insert(Fetcher::new(
                &settings.user_agent,
                wait,
                settings.max_body_bytes,
            )?),
        };
        let Ok(Ok(address)) = tokio::time::timeout(wait, fetcher.resolve(url)).await else {
            continue;
        };
        let verdict = start_verdict(rules, url, Some(address));
        if !verdict.fetch {
            return Err(refused_start(
                rules,
                url,
                &verdict,
                &format!(" at its address {address}"),
            ));
        }
    }
    Ok(())
}

/// The crawl engine; [`Engine::run`] drives it to the end.
pub struct Engine {
    plan: Plan,
    log: Arc<UrlLog>,
    /// The rules in force; replaced whole by [`Control::Rules`].
    rules: Arc<CompiledRules>,
    /// `rules` as native TOML, when the engine was given it
    /// ([`Engine::with_rules_text`]): recorded in the log, and compared with
    /// what the log recorded when the crawl starts (`rule_change`).
    rules_text: Option<Arc<str>>,
    /// Reads and writes of the log that failed so far (changes refused or
    /// not written, records or queues that did not read; each said as a
    /// notice): the rules are not recorded as judged after a change whose
    /// work did not all go in.
    log_failures: u64,
    /// Where what the crawl has to say beside its counts goes: stderr,
    /// unless a display holds it ([`Engine::with_notices`]).
    notices: Arc<Notices>,
    frontier: Frontier<Item>,
    hosts: Hosts,
    /// Temporary failures waiting for their retry time.
    delayed: BinaryHeap<Reverse<(Instant, u64)>>,
    delayed_items: FxHashMap<u64, (u32, Item)>,
    fetcher: Fetcher,
    /// Working memory for the coordinator's own evaluations.
    scratch: crate::rules::Scratch,
    stats: Stats,
    started: Instant,
    /// Paused since then, and for how long before.
    paused_since: Option<Instant>,
    paused_before: Duration,
    paused: bool,
    stopping: bool,
    /// URLs met since the last write, written with the next one.
    pending: Vec<Discovered>,
    /// Where each URL of `pending` is: a URL met twice before the write
    /// (two pages of one group) is one discovery, and a plain link beats
    /// a rel=nofollow one met first, as it would once written.
    pending_at: HashMap<String, usize>,
    /// The hosts of the URLs of `pending` to be queued.
    pending_hosts: FxHashSet<u32>,
    /// Of the fetches in flight, those of a robots.txt: not URLs of the
    /// frontier, so not taken off its count of queued URLs.
    robots_in_flight: u64,
    /// URLs logged as not followed (rel=nofollow) and met since the last
    /// write through a followed link: rewritten as newly met with the next
    /// write, and queued once that write is in (`Engine::revive`).
    revived: Vec<(u64, discover::Discovered)>,
    /// The open group of outcomes: the writes held back to be committed
    /// in one transaction (`discover::Deferred`), once it is
    /// `[crawl] commit_ms` old, or sooner when the crawl would otherwise
    /// wait on it ([`Engine::group_stalls`]). sled's cost is mostly per
    /// transaction and per key written, and a group writes each record
    /// pack, bucket and index block it touches once.
    deferred: Option<Deferred>,
    /// In-flight marks of URLs dispatched since the last write: every
    /// write ([`Engine::commit`]) puts them first in its transaction, so
    /// that the log never has a later change without them, and the loop
    /// writes them on their own once the first of them is a tick old
    /// ([`Engine::marks_since`]), however busy it is with other events.
    /// At most the concurrency of records; carrying them to the next group
    /// of outcomes saves a transaction per dispatch round. While a group is
    /// open, marks go into it instead, in order with its other changes, and
    /// are written with it (within `commit_ms`).
    marks: Vec<(u64, UrlRecord)>,
    /// Records as the log holds them, read or written last: queued URLs
    /// the window loaded from the log or that were just discovered, and
    /// in-flight marks just written. Each is taken when its URL is marked
    /// in flight or its outcome comes, instead of read and decoded again;
    /// every other write of a record drops its copy here
    /// ([`Engine::write`]). Two generations of [`RECENT_RECORDS`] records and
    /// [`RECENT_BYTES`] each.
    recent: Generations<u64, UrlRecord>,
    /// The page tasks running, by host, that may be offered their next URL
    /// (module `relay`); those that ended are dropped as they are met.
    relays: Vec<(u32, Arc<Relay>)>,
    /// Commands that change what may be fetched taken in so far
    /// ([`ControlSender`]): a URL handed to a fetch task carries it, and is
    /// not started once more such commands have been sent.
    changes_taken: u64,
    /// Per host, the gate its page tasks share to go on or not
    /// (`relay::HostGate`), and the pauses they asked for that this loop
    /// has taken in.
    host_gates: FxHashMap<u32, (Arc<HostGate>, u64)>,
    /// When the oldest of `marks` was held back; `None` when there are none.
    /// A fixed deadline, not one reset by each pass of the loop, so that a
    /// steady stream of commands or joined tasks cannot put the write off.
    marks_since: Option<Instant>,
    /// Matches per rule of the rules in force (for the console's rule health).
    rule_hits: Vec<u64>,
    rules_version: u64,
    /// A [`Control::Detail`] arrived: answered on the events channel at the
    /// next turn of the loop.
    detail_wanted: bool,
    /// robots.txt per host, by the ids of `hosts`.
    robots: RobotsCache,
    /// `[crawl] sitemaps`, validated.
    sitemaps: Vec<Url>,
    /// URLs logged as filtered only because every link to them said
    /// rel=nofollow: met again through a followed link, they are queued
    /// after all. Read back from the log when a crawl resumes.
    nofollowed: FxHashSet<u64>,
    /// Whether this run refreshes known URLs (`--refresh`).
    refresh: Refresh,
    /// Which part of the persisted frontier is in `frontier` (memory).
    window: window::Window,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Engine {
    pub fn new(
        plan: Plan,
        log: Arc<UrlLog>,
        rules: Arc<CompiledRules>,
    ) -> Result<Engine, StartError> {
        let s = &plan.settings;
        let fetcher = Fetcher::new(
            &s.user_agent,
            Duration::from_secs(s.timeout_s),
            s.max_body_bytes,
        )?
        .with_max_fetch(Duration::from_secs(s.max_fetch_s));
        let give_up = (s.give_up_host_s > 0).then(|| Duration::from_secs(s.give_up_host_s));
        let hosts = Hosts::new(s.per_host, Duration::from_millis(s.delay_ms)).with_give_up(give_up);
        let sitemaps = s
            .sitemaps
            .iter()
            .map(|text| {
                crate::config::sitemap_url(text)
                    .ok_or_else(|| StartError::Sitemap { url: text.clone() })
            })
            .collect::<Result<Vec<Url>, StartError>>()?;
        let robots = RobotsCache::new(s.obey_robots, &s.user_agent, s.max_retries);
        Ok(Engine {
            robots,
            sitemaps,
            nofollowed: FxHashSet::default(),
            refresh: Refresh::Off,
            frontier: Frontier::new(plan.weights),
            window: window::Window::default(),
            hosts,
            delayed: BinaryHeap::new(),
            delayed_items: FxHashMap::default(),
            fetcher,
            scratch: rules.scratch(),
            stats: Stats::default(),
            started: Instant::now(),
            paused_since: None,
            paused_before: Duration::ZERO,
            paused: false,
            stopping: false,
            pending: Vec::new(),
            pending_at: HashMap::new(),
            pending_hosts: FxHashSet::default(),
            robots_in_flight: 0,
            revived: Vec::new(),
            deferred: None,
            marks: Vec::new(),
            recent: Generations::weighted(RECENT_RECORDS, RECENT_BYTES, UrlRecord::approx_size),
            relays: Vec::new(),
            changes_taken: 0,
            host_gates: FxHashMap::default(),
            marks_since: None,
            rule_hits: vec![0; rules.rule_info().len()],
            rules_version: 0,
            detail_wanted: false,
            plan,
            log,
            rules,
            rules_text: None,
            log_failures: 0,
            notices: Arc::new(Notices::to_stderr()),
        })
    }

    /// Hands what the crawl has to say to `notices`, for a display to show
    /// (a console's screen must not be written over).
    pub fn with_notices(mut self, notices: Arc<Notices>) -> Engine {
        self.notices = notices;
        self
    }

    /// Tells the user `text` (a damaged record skipped, a write refused):
    /// see [`Notices`].
    fn say(&self, text: &str) {
        self.notices.push(text);
    }

    /// Crawls until nothing is left, or until told to stop. `events` gets
    /// progress at most every `tick`; the engine never waits on it (a full
    /// channel just skips an update).
    pub async fn run(
        mut self,
        events: mpsc::Sender<Event>,
        control: ControlReceiver,
        tick: Duration,
    ) -> Result<Stats, StartError> {
        let ControlReceiver {
            rx: mut control,
            changes,
        } = control;
        // Before the persisted queues are loaded: they then hold its URLs.
        self.begin_refresh()?;
        self.resume()?;
        self.count_from_the_log();
        self.compare_rules_with_the_log();
        for url in self.plan.start.clone() {
            self.met(url, None, 0, Origin::Start);
        }
        self.meet_config_sitemaps();
        self.commit(&[]);
        let concurrency = self.plan.settings.concurrency.max(1);
        // Fetch tasks report here. A task holds at most a `RUNWAY` of
        // URLs to go on with, topped up between two looks at this channel
        // at most once: room for what a busy coordinator (writing a group,
        // say) can leave waiting, so that a task rarely waits to hand its
        // result over.
        let (done_tx, mut done_rx) =
            mpsc::channel::<(Outcome, Handoff)>(concurrency * (2 * RUNWAY.depth + 2));
        let mut tasks = JoinSet::new();
        // Rung by the tasks for their outcomes, a few at a time (`relay`).
        let bell = Arc::new(Bell::default());
        // What each task is doing, so that one that panics (a bug) is
        // accounted for instead of leaving its URL and host in flight and
        // the crawl unable to end.
        let mut running: FxHashMap<tokio::task::Id, Running> = FxHashMap::default();
        // Tasks that ended this turn, reaped once its outcomes are taken.
        let mut ended = Vec::new();
        let mut in_flight = 0usize;
        let mut last_tick = Instant::now();
        loop {
            // Commands first, so that a pause or new rules take effect
            // before anything more is dispatched.
            while let Ok(command) = control.try_recv() {
                // Stopped, or the log failed while carrying one out.
                if self.command(command) || self.stopping {
                    break;
                }
            }
            if self.stopping {
                break;
            }
            let now = Instant::now();
            // The marks a tick old, and the group `commit_ms` old, are
            // written whichever branch below ran last (the log lists what
            // is in flight within about a tick), before this turn's
            // dispatch round so that the group's new URLs can go in it.
            if self.write_due(tick).is_some_and(|due| due <= now) {
                self.commit_deferred();
                // The write failed: nothing more is dispatched.
                if self.stopping {
                    break;
                }
            }
            self.release_delayed(now);
            self.refill();
            let mut dispatched = Vec::new();
            while !self.paused && in_flight < concurrency {
                let Some(job) = self.next_job(now) else {
                    break;
                };
                in_flight += 1;
                let fetcher = self.fetcher.clone();
                let tx = done_tx.clone();
                let (host, item, robots) = match job {
                    Job::Robots { host, page } => {
                        let rules = self.rules.clone();
                        let bell = bell.clone();
                        let task = tasks.spawn(async move {
                            let outcome = fetch_robots(fetcher, rules, host, page).await;
                            let _ = tx.send((outcome, Handoff::Ended(Vec::new()))).await;
                            bell.outcome(true);
                        });
                        running.insert(task.id(), Running::Robots(host));
                        self.robots_in_flight += 1;
                        continue;
                    }
                    Job::Fetch { host, item, robots } => (host, item, robots),
                };
                let robots_for_mark = robots.clone();
                dispatched.push((item.id, item.queue, robots));
                let rules = self.rules.clone();
                match item.kind {
                    ItemKind::Page => {
                        let out = self.plan.out.clone();
                        let agent = self.plan.settings.user_agent.clone();
                        // A refresh asks whether the page changed.
                        let validators = self.conditional(&item);
                        let relay = Relay::new(item.clone(), self.host_gate(host));
                        self.relays.push((host, relay.clone()));
                        let first = Next {
                            item,
                            rules,
                            robots: robots_for_mark,
                            changes: self.changes_taken,
                        };
                        let save_to = SaveTo {
                            out,
                            log: self.log.clone(),
                        };
                        let task = tasks.spawn(fetch_pages(
                            (first, validators),
                            (relay.clone(), changes.clone()),
                            (fetcher, host, save_to, agent),
                            (tx, bell.clone()),
                        ));
                        running.insert(task.id(), Running::Pages(host, relay));
                    }
                    ItemKind::Sitemap { .. } => {
                        let fetching = Running::Fetch(host, item.clone());
                        let bell = bell.clone();
                        let task = tasks.spawn(async move {
                            let outcome = fetch_sitemap(fetcher, rules, item, host).await;
                            let _ = tx.send((outcome, Handoff::Ended(Vec::new()))).await;
                            bell.outcome(true);
                        });
                        running.insert(task.id(), fetching);
                    }
                }
            }
            // The running page tasks' next URLs, while they fetch.
            if !self.paused {
                self.offer_next(now);
            }
            // Held back in the open group, or to lead the next write
            // (`Engine::marks`); a crash before it leaves them queued,
            // which resumes the same way.
            self.mark_in_flight(&dispatched, now);
            self.stats.in_flight = in_flight as u64;
            if self.group_stalls(!self.paused && in_flight < concurrency, Instant::now()) {
                // Its discoveries could be fetched now: written, queued,
                // and dispatched on the next turn.
                self.commit_deferred();
                continue;
            }
            // An open group was written just above if it held discoveries.
            if in_flight == 0
                && self.frontier.is_empty()
                && self.delayed.is_empty()
                && !self.window.more_on_disk()
                && self.pending.is_empty()
                && self.revived.is_empty()
            {
                break;
            }
            if now.duration_since(last_tick) >= tick {
                last_tick = now;
                let _ = events.try_send(Event::Stats(self.snapshot()));
            }
            if std::mem::take(&mut self.detail_wanted) {
                let _ = events.try_send(Event::Detail(Box::new(self.detail(now))));
            }
            let can_dispatch = !self.paused && in_flight < concurrency;
            let wake = [self.next_wake(now, can_dispatch), self.write_due(tick)]
                .into_iter()
                .flatten()
                .fold(now + tick, Instant::min);
            // Outcomes the bell did not ring for are taken within a
            // millisecond, or ten for those sent while the loop sleeps.
            let wake = if bell.waiting() {
                wake.min(now + Duration::from_millis(1))
            } else if in_flight > 0 {
                wake.min(now + Duration::from_millis(10))
            } else {
                wake
            };
            tokio::select! {
                // The channel itself is not waited on, so that sending an
                // outcome wakes nobody (`relay::Bell`).
                // Outcomes are taken below the `select!`.
                () = bell.notify.notified() => {}
                command = control.recv() => {
                    if let Some(command) = command
                        && self.command(command)
                    {
                        break;
                    }
                }
                // A timer is up (a retry, a host ready, the marks due, the
                // next progress tick): the top of the loop does its work.
                _ = tokio::time::sleep_until(wake.into()) => {}
                Some(joined) = tasks.join_next_with_id(), if !tasks.is_empty() => {
                    // And every other task that has ended: a turn of the
                    // loop per task cost about as much as a burst. Reaped
                    // after the outcomes below, which these tasks sent
                    // before they ended.
                    let mut next = Some(joined);
                    while let Some(joined) = next {
                        ended.push(joined);
                        next = tasks.try_join_next_with_id();
                    }
                }
            }
            // Every outcome waiting, whichever branch woke the loop (the
            // bell rings for a few at a time; the others wait at most the
            // millisecond of `wake`), their writes held in the open group
            // (opened by the first outcome after a write) and committed in
            // one transaction, led by the in-flight marks held back; the
            // slots they free are refilled in one dispatch round. sled's
            // cost is mostly per transaction and per key written: one
            // outcome per round cost two transactions per page, a
            // transaction per burst 0.15 (docs/performance-log.md, crawler step 9).
            if let Ok((outcome, handoff)) = done_rx.try_recv() {
                self.deferred
                    .get_or_insert_with(|| Deferred::opened(Instant::now()));
                self.take_report(outcome, handoff, &mut in_flight);
                while let Ok((outcome, handoff)) = done_rx.try_recv() {
                    self.take_report(outcome, handoff, &mut in_flight);
                }
                bell.taken();
                if self
                    .write_due(tick)
                    .is_some_and(|due| due <= Instant::now())
                {
                    self.commit_deferred();
                }
            }
            for joined in ended.drain(..) {
                self.reap(joined, &mut running, &mut in_flight);
            }
        }
        // URLs still in flight when the crawl is stopped go back to the
        // queue in the log, as a resume would put them (a killed crawl
        // leaves them in flight, and its resume does this): a log read
        // after a clean stop shows nothing "being fetched".
        self.commit_deferred();
        tasks.abort_all();
        if self.stopping
            && self.stats.log_error.is_none()
            && let Err(e) = self.log.requeue_in_flight()
        {
            match e {
                crate::store::StoreError::Db(e) => self.log_failed(&e),
                e => {
                    self.say(&format!("URL log: {e}"));
                    self.log_failures += 1;
                }
            }
        }
        if !self.stopping {
            self.end_refresh();
        }
        // sled writes to disk in the background: its failure may show only
        // now, which the summary must say too.
        if self.stats.log_error.is_none()
            && let Err(crate::store::StoreError::Db(e)) = self.log.flush()
        {
            self.log_failed(&e);
        }
        let stats = self.snapshot();
        // The queues and hosts as they are left, so that a console shows
        // them as the crawl ended rather than as last asked.
        let last = Event::Detail(Box::new(self.detail(Instant::now())));
        let _ = events.send(last).await;
        let _ = events.send(Event::Finished(stats.clone())).await;
        Ok(stats)
    }

    /// A fetch task ended: forgotten, or, when it panicked (a bug),
    /// accounted for ([`Engine::task_panicked`]).
    fn reap(
        &mut self,
        joined: Result<(tokio::task::Id, ()), tokio::task::JoinError>,
        running: &mut FxHashMap<tokio::task::Id, Running>,
        in_flight: &mut usize,
    ) {
        match joined {
            Ok((id, ())) => {
                running.remove(&id);
            }
            Err(e) => {
                if let Some(task) = running.remove(&e.id())
                    && e.is_panic()
                {
                    *in_flight -= 1;
                    self.task_panicked(task);
                }
            }
        }
    }

    /// A fetch task panicked (a bug): its URL fails permanently, naming the
    /// cause, or its host's robots.txt counts as unreachable; either way the
    /// host is free again and the crawl can end.
    fn task_panicked(&mut self, task: Running) {
        let why = "internal error: the fetch task panicked (a crawlspace bug; please report it)";
        self.say(why);
        match task {
            Running::Pages(host, relay) => {
                // The URLs offered and not started go back to their queues
                // (ending it asks its host for a pause, taken in here).
                if let (Step::End(back), _) = relay.next(false, 0) {
                    self.give_back(host, back);
                }
                self.pause_taken(host);
                if let Some(item) = relay.current() {
                    self.hosts.finished(host, Instant::now(), false, None);
                    self.failed(item, host, false, why.into(), None, None);
                }
            }
            Running::Fetch(host, item) => {
                self.hosts.finished(host, Instant::now(), false, None);
                self.failed(item, host, false, why.into(), None, None);
            }
            Running::Robots(host) => {
                let fetch = super::robots_cache::RobotsFetch {
                    status: super::robots::RobotsStatus::DisallowAll { why: why.into() },
                    source: "robots.txt".into(),
                    retry_after: None,
                };
                self.robots_learned(host, fetch);
            }
        }
    }

    /// Applies a command; true when it says to stop.
    fn command(&mut self, command: Control) -> bool {
        // New rules must see every discovery of the open group queued (to
        // filter it), and pausing or stopping writes the log at once (the
        // outcomes of fetches still in flight follow as usual).
        // Each is one of the commands `ControlSender` counts.
        if matches!(command, Control::Pause | Control::Rules(_) | Control::Stop) {
            self.commit_deferred();
            self.changes_taken += 1;
        }
        // Paused, the running tasks end with their page; new rules see
        // every queued URL, those offered to tasks too.
        if matches!(command, Control::Pause | Control::Rules(_)) {
            self.recall_offered();
        }
        match command {
            Control::Pause => {
                self.paused_since = self.paused_since.or(Some(Instant::now()));
                self.paused = true;
            }
            Control::Resume => {
                if let Some(since) = self.paused_since.take() {
                    self.paused_before += since.elapsed();
                }
                self.paused = false;
            }
            Control::Rules(rules) => self.swap_rules(rules),
            Control::Weights(w) => self.frontier.set_weights(w),
            Control::Detail => self.detail_wanted = true,
            Control::Stop => self.stopping = true,
        }
        self.stopping
    }

    /// When something could next be done without a fetch finishing: a
    /// retry, a host's politeness or backoff ending, or an unreachable
    /// robots.txt to be fetched again. A host ready now counts only when
    /// a URL can be dispatched (`can_dispatch`: a slot is free and the
    /// crawl is not paused); otherwise waking for it would find nothing to
    /// do, and the loop would spin until a fetch finished.
    fn next_wake(&self, now: Instant, can_dispatch: bool) -> Option<Instant> {
        let delayed = self.delayed.peek().map(|Reverse((t, _))| *t);
        let mut robots = None;
        let hosts = (0..self.hosts.all().len() as u32)
            .filter(|&h| self.frontier.waiting_for(h) > 0)
            .filter(|&h| match self.robots.gate(h, now) {
                Gate::Open | Gate::Fetch => true,
                Gate::Wait(at) => {
                    // `None`: being fetched; its answer wakes the loop.
                    if let Some(t) = at {
                        robots = Some(robots.map_or(t, |r: Instant| r.min(t)));
                    }
                    false
                }
            })
            .collect::<Vec<u32>>();
        let host = hosts
            .into_iter()
            .filter_map(|h| self.hosts.next_ready(std::iter::once(h), now))
            .filter(|&at| can_dispatch || at > now)
            .min();
        [delayed, host, robots].into_iter().flatten().min()
    }

    /// When the writes held back are due: the in-flight marks a tick after
    /// the first of them was held back, the open group `commit_ms` after it
    /// was opened, whichever comes first.
    fn write_due(&self, tick: Duration) -> Option<Instant> {
        let commit = Duration::from_millis(self.plan.settings.commit_ms);
        let marks = self.marks_since.map(|since| since + tick);
        let group = self.deferred.as_ref().map(|d| d.since + commit);
        marks.into_iter().chain(group).min()
    }

    /// Whether waiting for the open group to be due would hold the crawl
    /// up: its discoveries (queued only once written) are all there is
    /// left, or a slot is free after a dispatch round (`can_dispatch`)
    /// that one of them could take at once, a URL of a host ready for
    /// another request (an idle host, or one more urgent than those
    /// queued). A crawl whose hosts are all busy (at `per_host`, or
    /// waiting out their delay) keeps the group open until it is due.
    fn group_stalls(&self, can_dispatch: bool, now: Instant) -> bool {
        if self.deferred.is_none() {
            return false;
        }
        if self.frontier.is_empty() && !self.window.more_on_disk() {
            return true;
        }
        // Only those to be queued: a link the rules filter is just logged.
        can_dispatch
            && (!self.revived.is_empty()
                || self.pending_hosts.iter().any(|&h| self.hosts.ready(h, now)))
    }

    /// Puts back what a previous run left: URLs in flight are queued again,
    /// and the persisted frontier is loaded (as much as the window holds).
    fn resume(&mut self) -> Result<(), StartError> {
        let store = |e: crate::store::StoreError| StartError::Store(e.to_string());
        self.log.requeue_in_flight().map_err(store)?;
        self.load_window()?;
        self.recall_nofollowed().map_err(store)?;
        Ok(())
    }

    /// The URLs an earlier run logged as filtered only for rel=nofollow,
    /// from their reasons: a resumed crawl queues them when it meets a
    /// followed link to one, as the run that logged them would have (one
    /// page of filtered records read at a time, through the state index).
    fn recall_nofollowed(&mut self) -> Result<(), crate::store::StoreError> {
        let query = crate::store::Query {
            state: Some(State::Filtered),
            ..crate::store::Query::default()
        };
        let mut after = None;
        loop {
            let page = self.log.page(&query, after, 1024)?;
            let Some(&(last, _)) = page.last() else {
                return Ok(());
            };
            after = Some(last);
            for (id, record) in page {
                if record.reason.starts_with(discover::NOT_FOLLOWED) {
                    self.nofollowed.insert(id);
                }
            }
        }
    }

    fn release_delayed(&mut self, now: Instant) {
        while let Some(Reverse((when, id))) = self.delayed.peek().copied() {
            if when > now {
                break;
            }
            self.delayed.pop();
            if let Some((host, item)) = self.delayed_items.remove(&id) {
                let _ = self.frontier.push(item.level, item.queue, host, item);
            }
        }
    }
}
