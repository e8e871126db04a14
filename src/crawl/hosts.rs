//! Per-host politeness (SPEC §2.2): at most N requests in flight per host,
//! an optional pause between requests (raised by robots.txt `Crawl-delay`),
//! and backoff after temporary errors. robots.txt itself is cached per host
//! by `robots_cache`, under the same host ids.
//! Pure data with the clock passed in; the engine asks which hosts are ready
//! and when the next one will be.

use std::borrow::Cow;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use url::{Position, Url};

/// The longest pause a server's `Retry-After` gets.
const MAX_BACKOFF: Duration = Duration::from_secs(300);

/// Rounds of failures (each a backoff apart) a host is given up after at
/// the least, however long `give_up_host_s` has run.
const GIVE_UP_ROUNDS: u32 = 3;

/// The longest backoff the crawler chooses after repeated temporary errors
/// (2, 4, 8 … seconds): a server back up is noticed within a minute.
const MAX_ERROR_BACKOFF: Duration = Duration::from_secs(60);

/// What the crawler knows about one host (scheme, host, port).
#[derive(Debug, Clone)]
pub struct HostState {
    /// `http://example.com:8080`.
    pub origin: String,
    pub in_flight: usize,
    /// No request starts before this (politeness delay).
    pub next_allowed: Instant,
    /// After temporary errors: no request before this.
    pub backoff_until: Option<Instant>,
    /// Temporary errors in a row, for the backoff length.
    pub errors_in_row: u32,
    /// When the first and the last of those errors came (none since a
    /// request ended well): how long every request to the host has failed.
    pub failing_since: Option<Instant>,
    pub last_failure: Option<Instant>,
    /// Pause between requests to this host.
    pub delay: Duration,
    pub fetched: u64,
}

/// Why a host with waiting URLs is not being fetched right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Idle {
    Ready,
    /// `per_host` requests already in flight.
    Busy,
    /// Waiting out the delay between requests.
    Politeness(Duration),
    /// Waiting out a backoff after errors.
    Backoff(Duration),
    /// Every request failed for `give_up_host_s`: its URLs are given up
    /// without a request.
    GivenUp(Duration),
}

/// Every host met, by id.
#[derive(Debug)]
pub struct Hosts {
    ids: HashMap<String, u32>,
    states: Vec<HostState>,
    per_host: usize,
    delay: Duration,
    /// How long a host may fail every request before it is given up.
    give_up_after: Option<Duration>,
}

/// A request to the host ended well. A backoff under way is kept: a
/// request that started before the error (or the server's Retry-After)
/// and ended well does not mean the host asked for no pause.
fn succeeded(h: &mut HostState) {
    h.errors_in_row = 0;
    h.failing_since = None;
    h.last_failure = None;
    h.fetched += 1;
}

/// The URL's origin as `Url::origin` serializes it (`http://host:port`,
/// the port only when not the scheme's default), but for an http(s) URL
/// without user info read straight from the URL's text: a host look-up per
/// link met, and serializing the origin cost a string built with `format!`.
fn origin_of(url: &Url) -> Cow<'_, str> {
    if matches!(url.scheme(), "http" | "https")
        && url.username().is_empty()
        && url.password().is_none()
    {
        Cow::Borrowed(&url[..Position::AfterPort])
    } else {
        Cow::Owned(url.origin().ascii_serialization())
    }
}

impl Hosts {
    pub fn new(per_host: usize, delay: Duration) -> Hosts {
        Hosts {
            ids: HashMap::new(),
            states: Vec::new(),
            per_host: per_host.max(1),
            delay,
            give_up_after: None,
        }
    }

    /// Hosts that fail every request for `after` are given up
    /// ([`Idle::GivenUp`]); `None` never gives up.
    pub fn with_give_up(mut self, after: Option<Duration>) -> Hosts {
        self.give_up_after = after;
        self
    }

    /// The id of the URL's host, made on first sight.
    pub fn id(&mut self, url: &Url, now: Instant) -> u32 {
        let origin = origin_of(url);
        if let Some(&id) = self.ids.get(origin.as_ref()) {
            return id;
        }
        let origin = origin.into_owned();
        let id = self.states.len() as u32;
        self.states.push(HostState {
            origin: origin.clone(),
            in_flight: 0,
            next_allowed: now,
            backoff_until: None,
            errors_in_row: 0,
            failing_since: None,
            last_failure: None,
            delay: self.delay,
            fetched: 0,
        });
        self.ids.insert(origin, id);
        id
    }

    /// The id of the URL's host if it has been met, without making one.
    pub fn find(&self, url: &Url) -> Option<u32> {
        self.ids.get(origin_of(url).as_ref()).copied()
    }

    pub fn get(&self, id: u32) -> Option<&HostState> {
        self.states.get(id as usize)
    }

    pub fn all(&self) -> &[HostState] {
        &self.states
    }

    /// Whether a request to this host may start now, and if not, why.
    pub fn idle(&self, id: u32, now: Instant) -> Idle {
        let Some(h) = self.states.get(id as usize) else {
            return Idle::Ready;
        };
        // Checked once the backoff is out and nothing is under way (a
        // request in flight may still end well).
        // Failures, not time: from the first failure to the last, over at
        // least three rounds, so that a pause, a long delay between
        // requests or a host with nothing queued for a while never counts.
        // Decided at the failure that reaches the limit (once no request
        // is under way), not after its backoff: a server back by then
        // would be given up unasked.
        if let (Some(after), Some(since), Some(last)) =
            (self.give_up_after, h.failing_since, h.last_failure)
            && h.errors_in_row >= GIVE_UP_ROUNDS
            && h.in_flight == 0
            && last.saturating_duration_since(since) >= after
        {
            return Idle::GivenUp(last.saturating_duration_since(since));
        }
        if let Some(until) = h.backoff_until
            && until > now
        {
            return Idle::Backoff(until - now);
        }
        if h.in_flight >= self.per_host {
            return Idle::Busy;
        }
        if h.next_allowed > now {
            return Idle::Politeness(h.next_allowed - now);
        }
        Idle::Ready
    }

    /// Whether the host's next URL may go now: to a request, or, when the
    /// host is given up, to be given up in turn.
    pub fn ready(&self, id: u32, now: Instant) -> bool {
        matches!(self.idle(id, now), Idle::Ready | Idle::GivenUp(_))
    }

    /// How long every request to the host has failed, when that is long
    /// enough to give it up.
    pub fn given_up(&self, id: u32, now: Instant) -> Option<Duration> {
        match self.idle(id, now) {
            Idle::GivenUp(failing) => Some(failing),
            _ => None,
        }
    }

    /// A request to the host starts.
    pub fn started(&mut self, id: u32, now: Instant) {
        if let Some(h) = self.states.get_mut(id as usize) {
            h.in_flight += 1;
            h.next_allowed = now + h.delay;
        }
    }

    /// A request ended; `temporary_error` starts or extends the backoff,
    /// `retry_after` (from the server) overrides its length.
    pub fn finished(
        &mut self,
        id: u32,
        now: Instant,
        temporary_error: bool,
        retry_after: Option<Duration>,
    ) {
        let Some(h) = self.states.get_mut(id as usize) else {
            return;
        };
        h.in_flight = h.in_flight.saturating_sub(1);
        h.next_allowed = h.next_allowed.max(now + h.delay);
        if temporary_error {
            // The requests already under way when one failed mostly fail
            // too (a server down): one round of failures counts once, or
            // eight in flight would make a backoff of 2^8 s at once.
            let waiting = h.backoff_until.filter(|&until| until > now);
            if waiting.is_none() {
                h.errors_in_row += 1;
            }
            h.failing_since.get_or_insert(now);
            h.last_failure = Some(now);
            let exponential =
                Duration::from_secs(1u64 << h.errors_in_row.min(6)).min(MAX_ERROR_BACKOFF);
            let until = now + retry_after.map_or(exponential, |r| r.min(MAX_BACKOFF));
            h.backoff_until = Some(waiting.map_or(until, |w| w.max(until)));
        } else {
            succeeded(h);
        }
    }

    /// Whether a request to the host may follow the one before on the same
    /// fetch slot the moment it ends (`engine::relay`): no pause between
    /// its requests, no backoff.
    pub fn relays(&self, id: u32, now: Instant) -> bool {
        self.states.get(id as usize).is_some_and(|h| {
            h.delay.is_zero()
                && h.next_allowed <= now
                && h.backoff_until.is_none_or(|until| until <= now)
        })
    }

    /// A request ended well and the next one to the host started on the
    /// same slot at once: as [`Hosts::finished`] without an error, then
    /// [`Hosts::started`], the requests in flight unchanged.
    pub fn relayed(&mut self, id: u32) {
        if let Some(h) = self.states.get_mut(id as usize) {
            succeeded(h);
        }
    }

    /// Raises the host's delay (robots.txt `Crawl-delay`).
    pub fn set_delay(&mut self, id: u32, delay: Duration) {
        if let Some(h) = self.states.get_mut(id as usize) {
            h.delay = h.delay.max(delay);
        }
    }

    /// When the first of `hosts` that is waiting on time (not on its own
    /// requests) becomes ready.
    pub fn next_ready(&self, hosts: impl Iterator<Item = u32>, now: Instant) -> Option<Instant> {
        hosts
            .filter_map(|id| match self.idle(id, now) {
                Idle::Politeness(d) | Idle::Backoff(d) => Some(now + d),
                Idle::Ready | Idle::GivenUp(_) => Some(now),
                Idle::Busy => None,
            })
            .min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origin_of_matches_the_url_crates_origin() {
        for text in [
            "http://example.com/a?b#c",
            "https://example.com:8443/",
            "http://example.com:80/x",
            "https://EXAMPLE.com:443",
            "http://[::1]:8080/",
            "http://127.0.0.1/",
            "http://bücher.example/",
            "http://user:pw@example.com/",
            "http://user@example.com:81/",
            "ftp://example.com/file",
            "file:///tmp/x",
            "mailto:someone@example.com",
        ] {
            let url = Url::parse(text).unwrap();
            assert_eq!(
                origin_of(&url),
                url.origin().ascii_serialization(),
                "{text}"
            );
        }
    }

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn per_host_limit_and_delay() {
        let t0 = Instant::now();
        let mut hosts = Hosts::new(2, Duration::from_millis(100));
        let a = hosts.id(&url("http://a.example/x"), t0);
        assert_eq!(
            hosts.id(&url("http://a.example/y"), t0),
            a,
            "same origin, same host"
        );
        assert_ne!(
            hosts.id(&url("http://a.example:81/"), t0),
            a,
            "the port is part of the host"
        );
        assert!(hosts.ready(a, t0));
        hosts.started(a, t0);
        assert_eq!(
            hosts.idle(a, t0),
            Idle::Politeness(Duration::from_millis(100))
        );
        let t1 = t0 + Duration::from_millis(100);
        hosts.started(a, t1);
        assert_eq!(hosts.idle(a, t1 + Duration::from_secs(1)), Idle::Busy);
        hosts.finished(a, t1, false, None);
        assert!(hosts.ready(a, t1 + Duration::from_millis(100)));
    }

    #[test]
    fn backoff_grows_and_honours_retry_after() {
        let t0 = Instant::now();
        let mut hosts = Hosts::new(1, Duration::ZERO);
        let a = hosts.id(&url("http://a.example/"), t0);
        hosts.started(a, t0);
        hosts.finished(a, t0, true, None);
        assert_eq!(hosts.idle(a, t0), Idle::Backoff(Duration::from_secs(2)));
        hosts.started(a, t0);
        hosts.finished(a, t0, true, Some(Duration::from_secs(7)));
        assert_eq!(hosts.idle(a, t0), Idle::Backoff(Duration::from_secs(7)));
        // A request under way when the server asked for the pause ends
        // well: the pause stands (and the count of errors starts again).
        hosts.started(a, t0);
        hosts.finished(a, t0, false, None);
        assert_eq!(hosts.idle(a, t0), Idle::Backoff(Duration::from_secs(7)));
        assert!(!hosts.relays(a, t0));
        let t7 = t0 + Duration::from_secs(7);
        assert!(hosts.ready(a, t7) && hosts.relays(a, t7));
        assert_eq!(hosts.next_ready([a].into_iter(), t0), Some(t7));
        hosts.started(a, t7);
        hosts.finished(a, t7, true, None);
        assert_eq!(hosts.idle(a, t7), Idle::Backoff(Duration::from_secs(2)));
    }

    /// A server down fails every request in flight: each round of failures
    /// doubles the backoff once, not once per request, and the backoff
    /// stops growing at a minute so that the server is tried again soon
    /// after it is back.
    #[test]
    fn a_round_of_failures_counts_once() {
        let t0 = Instant::now();
        let mut hosts = Hosts::new(8, Duration::ZERO);
        let a = hosts.id(&url("http://a.example/"), t0);
        let mut now = t0;
        let mut waits = Vec::new();
        for _round in 0..8 {
            (0..8).for_each(|_| hosts.started(a, now));
            for i in 0..8 {
                hosts.finished(a, now + Duration::from_millis(i), true, None);
            }
            let Idle::Backoff(wait) = hosts.idle(a, now) else {
                panic!("in backoff");
            };
            waits.push(wait.as_secs());
            now += wait + Duration::from_millis(10);
            assert!(hosts.ready(a, now));
        }
        assert_eq!(waits, [2, 4, 8, 16, 32, 60, 60, 60]);
    }

    /// A host given up once every request has failed for the set time:
    /// not while a backoff or a request is under way, and never once a
    /// request ends well in between.
    #[test]
    fn a_host_failing_long_enough_is_given_up() {
        let t0 = Instant::now();
        let mut hosts = Hosts::new(2, Duration::ZERO).with_give_up(Some(Duration::from_secs(5)));
        let a = hosts.id(&url("http://a.example/"), t0);
        let fail = |hosts: &mut Hosts, at: Instant| {
            hosts.started(a, at);
            hosts.finished(a, at, true, None);
        };
        fail(&mut hosts, t0);
        // Time alone is not failing: a long wait after one failure.
        assert_eq!(hosts.given_up(a, t0 + Duration::from_secs(3600)), None);
        let t2 = t0 + Duration::from_secs(2);
        fail(&mut hosts, t2);
        let t6 = t2 + Duration::from_secs(4);
        hosts.started(a, t6);
        assert_eq!(hosts.given_up(a, t6), None, "a request under way");
        hosts.finished(a, t6, true, None);
        // At once: the third round took it past the limit.
        assert_eq!(hosts.given_up(a, t6), Some(Duration::from_secs(6)));
        let t14 = t6 + Duration::from_secs(8);
        assert_eq!(hosts.given_up(a, t14), Some(Duration::from_secs(6)));
        assert!(hosts.ready(a, t14), "its URLs go, to be given up");
        // Never, without the setting; and a success starts again.
        let mut never = Hosts::new(2, Duration::ZERO);
        let b = never.id(&url("http://b.example/"), t0);
        never.started(b, t0);
        never.finished(b, t0, true, None);
        assert_eq!(never.given_up(b, t0 + Duration::from_secs(3600)), None);
        let mut hosts = Hosts::new(2, Duration::ZERO).with_give_up(Some(Duration::from_secs(5)));
        let c = hosts.id(&url("http://c.example/"), t0);
        hosts.started(c, t0);
        hosts.finished(c, t0, true, None);
        hosts.started(c, t2);
        hosts.finished(c, t2, false, None);
        assert_eq!(hosts.given_up(c, t0 + Duration::from_secs(60)), None);
    }
}
