//! robots.txt per host during a crawl (SPEC §2.3, RFC 9309 §2.3–2.4): for
//! each host (scheme, host, port) whether its robots.txt is still to be
//! fetched, being fetched, or known and until when; what it says about a
//! URL, as the line the log shows; and the one-line state the console's
//! Queues view shows. Pure data with the clock passed in: the engine fetches
//! robots.txt (`task::fetch_robots`) and reports the answer here.
//!
//! A host's URLs wait in the frontier until its robots.txt is known, so no
//! page is fetched before the rules that govern it; other hosts go on.
//!
//! How long an answer stands:
//! - parsed (2xx) or unavailable (4xx, too many redirects: all allowed):
//!   [`FRESH_FOR`], then fetched again when the host's next URL comes up;
//! - unreachable (5xx, 429, a network error or a timeout: all disallowed):
//!   the host's URLs stay queued while robots.txt is retried after 1, 2, 4…
//!   seconds (or the server's `Retry-After`), at most [`MAX_RETRY_DELAY`]
//!   apart. After `max_retries` failed retries the crawler gives up: the
//!   host's URLs are logged as errors (temporary: robots.txt could not be
//!   had, which says nothing of what its owner allows), naming the
//!   failure, and robots.txt is tried again after [`FRESH_FOR`], or by the
//!   next run.

use std::time::{Duration, Instant};

use url::{Position, Url};

use super::robots::{RobotsDecision, RobotsReason, RobotsStatus};

/// How long a fetched robots.txt (or a 4xx, or giving up) is trusted: RFC
/// 9309 §2.4 says crawlers should not use a cached copy longer than 24 hours.
pub(crate) const FRESH_FOR: Duration = Duration::from_secs(24 * 3600);

/// The longest wait between two fetches of an unreachable robots.txt.
pub(crate) const MAX_RETRY_DELAY: Duration = Duration::from_secs(300);

/// What a robots.txt fetch found.
#[derive(Debug, Clone)]
pub(crate) struct RobotsFetch {
    pub status: RobotsStatus,
    /// The robots.txt URL to name in the log, with where redirects led:
    /// `http://h/robots.txt (redirected to http://h/r.txt)`.
    pub source: String,
    /// The server's `Retry-After` on a 503 or 429.
    pub retry_after: Option<Duration>,
}

/// Whether a host's URLs may be dispatched now, as far as robots.txt goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gate {
    /// Known (or not consulted): decide each URL with [`RobotsCache::check`].
    Open,
    /// Not fetched yet, or expired: fetch it before any of the host's URLs.
    Fetch,
    /// Being fetched (`None`), or unreachable and to be retried at the given
    /// time: the host's URLs wait.
    Wait(Option<Instant>),
}

impl Gate {
    /// Whether the frontier may hand over one of the host's URLs: to be
    /// decided (open) or to trigger the robots.txt fetch.
    pub(crate) fn may_pop(self) -> bool {
        matches!(self, Gate::Open | Gate::Fetch)
    }
}

/// robots.txt's answer for one URL, ready for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Check {
    pub allowed: bool,
    /// The deciding robots.txt line, when a rule decided.
    pub line: Option<u32>,
    /// The trace text: `robots.txt http://h/robots.txt line 7 "Disallow:
    /// /private/" (group *)`.
    pub text: String,
    /// Disallowed only because robots.txt could not be had (5xx, a network
    /// error) and the crawler gave up on it: a temporary state of the
    /// host, not its owner's wish, so the URL is an error, not filtered.
    pub unreachable: bool,
}

impl Check {
    /// The one-line reason for a URL robots.txt keeps out.
    pub(crate) fn refusal(&self) -> String {
        format!("disallowed by {}", self.text)
    }
}

/// What the engine does with a newly known robots.txt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Learned {
    /// `Crawl-delay` for our user agent (already capped by the parser).
    pub crawl_delay: Option<Duration>,
    /// `Sitemap:` values, as written.
    pub sitemaps: Vec<String>,
    /// The fetch failed (a temporary error) and robots.txt is asked again
    /// after a backoff: a retry, counted with the pages' ones.
    pub retried: bool,
}

#[derive(Debug, Clone)]
enum Phase {
    NotFetched,
    Fetching,
    Known {
        /// Boxed: a parsed file is large, most hosts have none yet.
        status: Box<RobotsStatus>,
        source: String,
        expires: Instant,
    },
}

#[derive(Debug, Clone)]
struct HostRobots {
    phase: Phase,
    /// Fetches in a row that found robots.txt unreachable.
    failures: u32,
}

impl Default for HostRobots {
    fn default() -> Self {
        HostRobots {
            phase: Phase::NotFetched,
            failures: 0,
        }
    }
}

/// robots.txt of every host, by the engine's host id.
#[derive(Debug)]
pub(crate) struct RobotsCache {
    /// `obey_robots`: when false nothing is fetched and every URL is allowed.
    obey: bool,
    user_agent: String,
    max_retries: u32,
    hosts: Vec<HostRobots>,
}

impl RobotsCache {
    pub(crate) fn new(obey: bool, user_agent: &str, max_retries: u32) -> RobotsCache {
        RobotsCache {
            obey,
            user_agent: user_agent.to_string(),
            max_retries,
            hosts: Vec::new(),
        }
    }

    fn host(&self, host: u32) -> Option<&HostRobots> {
        self.hosts.get(host as usize)
    }

    fn host_mut(&mut self, host: u32) -> &mut HostRobots {
        let at = host as usize;
        if self.hosts.len() <= at {
            self.hosts.resize_with(at + 1, HostRobots::default);
        }
        &mut self.hosts[at]
    }

    /// Whether robots.txt failed so often that the crawler stopped waiting.
    fn gave_up(&self, h: &HostRobots) -> bool {
        h.failures > self.max_retries
    }

    /// Whether the host's URLs may go now (see [`Gate`]).
    pub(crate) fn gate(&self, host: u32, now: Instant) -> Gate {
        if !self.obey {
            return Gate::Open;
        }
        let Some(h) = self.host(host) else {
            return Gate::Fetch;
        };
        match &h.phase {
            Phase::NotFetched => Gate::Fetch,
            Phase::Fetching => Gate::Wait(None),
            Phase::Known { expires, .. } if now >= *expires => Gate::Fetch,
            Phase::Known {
                status, expires, ..
            } if matches!(**status, RobotsStatus::DisallowAll { .. }) && !self.gave_up(h) => {
                Gate::Wait(Some(*expires))
            }
            Phase::Known { .. } => Gate::Open,
        }
    }

    /// A fetch of the host's robots.txt starts.
    pub(crate) fn fetching(&mut self, host: u32) {
        self.host_mut(host).phase = Phase::Fetching;
    }

    /// The host's robots.txt arrived (or could not be had).
    pub(crate) fn learned(&mut self, host: u32, fetch: RobotsFetch, now: Instant) -> Learned {
        let max_retries = self.max_retries;
        let mut learned = match &fetch.status {
            RobotsStatus::Parsed(robots) => Learned {
                crawl_delay: robots.crawl_delay(&self.user_agent),
                sitemaps: robots.sitemaps().to_vec(),
                retried: false,
            },
            _ => Learned::default(),
        };
        let h = self.host_mut(host);
        let expires = if matches!(fetch.status, RobotsStatus::DisallowAll { .. }) {
            h.failures += 1;
            if h.failures > max_retries {
                now + FRESH_FOR
            } else {
                learned.retried = true;
                let backoff = Duration::from_secs(1u64 << (h.failures - 1).min(16));
                now + fetch.retry_after.unwrap_or(backoff).min(MAX_RETRY_DELAY)
            }
        } else {
            h.failures = 0;
            now + FRESH_FOR
        };
        h.phase = Phase::Known {
            status: Box::new(fetch.status),
            source: fetch.source,
            expires,
        };
        learned
    }

    /// robots.txt's answer for `url` of `host`; `None` while the gate is not
    /// open (the answer is not known, or is about to be retried).
    pub(crate) fn check(&self, host: u32, url: &Url, now: Instant) -> Option<Check> {
        if !self.obey {
            let decision = RobotsStatus::Off.decide(&self.user_agent, "/");
            return Some(Check {
                allowed: true,
                line: None,
                text: decision.describe(""),
                unreachable: false,
            });
        }
        if self.gate(host, now) != Gate::Open {
            return None;
        }
        let h = self.host(host)?;
        let Phase::Known { status, source, .. } = &h.phase else {
            return None;
        };
        let path = &url[Position::BeforePath..Position::AfterQuery];
        let decision = status.decide(&self.user_agent, path);
        let unreachable = matches!(decision.reason, RobotsReason::Unreachable { .. });
        let text = match &decision {
            // After giving up, "until retried" would not be true.
            RobotsDecision {
                allowed: false,
                reason: RobotsReason::Unreachable { why },
            } => format!(
                "robots.txt {source}: {why}, all disallowed (gave up after {} failed fetches of robots.txt)",
                h.failures
            ),
            _ => decision.describe(source),
        };
        Some(Check {
            allowed: decision.allowed,
            line: decision.line(),
            text,
            unreachable: unreachable && !decision.allowed,
        })
    }

    /// The host's robots.txt state in a few words, for the Queues view.
    pub(crate) fn describe(&self, host: u32, now: Instant) -> String {
        if !self.obey {
            return "off (obey_robots = false)".into();
        }
        let Some(h) = self.host(host) else {
            return "not fetched yet".into();
        };
        let (status, expires) = match &h.phase {
            Phase::NotFetched => return "not fetched yet".into(),
            Phase::Fetching if h.failures > 0 => {
                return format!("fetching (after {} failures)", h.failures);
            }
            Phase::Fetching => return "fetching".into(),
            Phase::Known {
                status, expires, ..
            } => (status, *expires),
        };
        let mut text = match &**status {
            RobotsStatus::Parsed(robots) => {
                let rules = robots.for_agent(&self.user_agent);
                let mut t = format!(
                    "parsed: {}, group {}",
                    crate::text::counted(u64::from(robots.line_count()), "line", "lines"),
                    rules.group().unwrap_or("none (all allowed)")
                );
                if let Some(delay) = rules.crawl_delay() {
                    t.push_str(&format!(", crawl-delay {}", seconds(delay)));
                }
                if !robots.sitemaps().is_empty() {
                    let n = robots.sitemaps().len() as u64;
                    t.push_str(&format!(
                        ", {}",
                        crate::text::counted(n, "sitemap", "sitemaps")
                    ));
                }
                t
            }
            RobotsStatus::AllowAll { why } => format!("{why}: all allowed"),
            RobotsStatus::DisallowAll { why } if self.gave_up(h) => format!(
                "{why}: all disallowed (gave up after {} failures)",
                h.failures
            ),
            RobotsStatus::DisallowAll { why } => format!(
                "{why}: all disallowed, retry in {}",
                seconds(expires.saturating_duration_since(now))
            ),
            RobotsStatus::Off => "off (obey_robots = false)".into(),
        };
        if now >= expires {
            text.push_str(" (expired: fetched again with the next URL)");
        }
        text
    }
}

/// `2s`, `1.5s`, `40s`.
fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crawl::robots::Robots;

    const AGENT: &str = "crawlspace/0.1";

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn parsed(text: &str) -> RobotsFetch {
        RobotsFetch {
            status: RobotsStatus::Parsed(Robots::parse(text.as_bytes())),
            source: "http://h/robots.txt".into(),
            retry_after: None,
        }
    }

    fn answer(status: u16) -> RobotsFetch {
        RobotsFetch {
            status: RobotsStatus::from_response(status, b""),
            source: "http://h/robots.txt".into(),
            retry_after: None,
        }
    }

    #[test]
    fn a_host_waits_for_its_robots_txt_then_follows_it() {
        let t0 = Instant::now();
        let mut cache = RobotsCache::new(true, AGENT, 3);
        assert_eq!(cache.gate(0, t0), Gate::Fetch);
        assert_eq!(cache.describe(0, t0), "not fetched yet");
        assert_eq!(cache.check(0, &url("http://h/a"), t0), None);
        cache.fetching(0);
        assert_eq!(cache.gate(0, t0), Gate::Wait(None));
        assert_eq!(cache.describe(0, t0), "fetching");
        let learned = cache.learned(
            0,
            parsed("User-agent: *\nDisallow: /private/\nCrawl-delay: 2\nSitemap: http://h/s.xml\n"),
            t0,
        );
        assert_eq!(learned.crawl_delay, Some(Duration::from_secs(2)));
        assert_eq!(learned.sitemaps, ["http://h/s.xml"]);
        assert_eq!(cache.gate(0, t0), Gate::Open);
        let no = cache.check(0, &url("http://h/private/x?y"), t0).unwrap();
        assert!(!no.allowed);
        assert_eq!(no.line, Some(2));
        assert_eq!(
            no.refusal(),
            "disallowed by robots.txt http://h/robots.txt line 2 \"Disallow: /private/\" (group *)"
        );
        assert!(cache.check(0, &url("http://h/public"), t0).unwrap().allowed);
        assert_eq!(
            cache.describe(0, t0),
            "parsed: 4 lines, group *, crawl-delay 2s, 1 sitemap"
        );
        // Other hosts are on their own.
        assert_eq!(cache.gate(1, t0), Gate::Fetch);
        // After a day it is fetched again.
        assert_eq!(cache.gate(0, t0 + FRESH_FOR), Gate::Fetch);
    }

    #[test]
    fn unavailable_allows_all_and_unreachable_holds_then_gives_up() {
        let t0 = Instant::now();
        let mut cache = RobotsCache::new(true, AGENT, 2);
        cache.learned(0, answer(404), t0);
        let yes = cache.check(0, &url("http://h/x"), t0).unwrap();
        assert!(yes.allowed);
        assert_eq!(
            yes.text,
            "robots.txt http://h/robots.txt: HTTP 404, all allowed"
        );
        assert_eq!(cache.describe(0, t0), "HTTP 404: all allowed");

        // 500: wait 1 s, then 2 s, then give up (max_retries 2).
        let cases = [
            (t0, Gate::Wait(Some(t0 + Duration::from_secs(1)))),
            (t0, Gate::Wait(Some(t0 + Duration::from_secs(2)))),
            (t0, Gate::Open),
        ];
        for (i, (now, gate)) in cases.into_iter().enumerate() {
            cache.fetching(1);
            cache.learned(1, answer(500), now);
            assert_eq!(cache.gate(1, now), gate, "failure {}", i + 1);
        }
        assert_eq!(
            cache.gate(1, t0 + Duration::from_secs(1)),
            Gate::Open,
            "given up: decided, not waited for"
        );
        let no = cache.check(1, &url("http://h/x"), t0).unwrap();
        assert!(!no.allowed);
        assert!(
            no.text.contains("HTTP 500") && no.text.contains("gave up after 3"),
            "{}",
            no.text
        );
        assert_eq!(
            cache.describe(1, t0),
            "HTTP 500: all disallowed (gave up after 3 failures)"
        );
        // A success later resets the count.
        cache.learned(1, answer(200), t0 + FRESH_FOR);
        assert!(
            cache
                .check(1, &url("http://h/x"), t0 + FRESH_FOR)
                .unwrap()
                .allowed
        );
    }

    #[test]
    fn retry_after_and_the_queue_view_text() {
        let t0 = Instant::now();
        let mut cache = RobotsCache::new(true, AGENT, 3);
        let mut fetch = answer(503);
        fetch.retry_after = Some(Duration::from_secs(40));
        cache.learned(0, fetch, t0);
        assert_eq!(
            cache.gate(0, t0),
            Gate::Wait(Some(t0 + Duration::from_secs(40)))
        );
        assert_eq!(
            cache.describe(0, t0),
            "HTTP 503: all disallowed, retry in 40s"
        );
        assert_eq!(cache.gate(0, t0 + Duration::from_secs(40)), Gate::Fetch);
    }

    #[test]
    fn obey_robots_false_fetches_nothing_and_says_so() {
        let t0 = Instant::now();
        let cache = RobotsCache::new(false, AGENT, 3);
        assert_eq!(cache.gate(0, t0), Gate::Open);
        let check = cache.check(0, &url("http://h/private/"), t0).unwrap();
        assert!(check.allowed);
        assert_eq!(check.text, "robots.txt not consulted (obey_robots = false)");
        assert_eq!(cache.describe(0, t0), "off (obey_robots = false)");
    }
}
