//! What the console shows about a running crawl beyond the counters: the
//! queues with their weights and picks, the busiest hosts and why each is
//! idle, and how often each rule matched. Plain data, built by the engine
//! when asked ([`super::engine::Control::Detail`]) so a headless crawl never
//! pays for it.

use std::time::Duration;

use crate::rules::Queue;

/// At most this many hosts are listed, those with the most waiting or in
/// flight first.
pub const MAX_HOST_ROWS: usize = 200;

/// One queue of SPEC §2.2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueRow {
    pub queue: Queue,
    pub weight: u32,
    /// URLs waiting in it (all priority levels): those in memory plus those
    /// this run left on disk only; a backlog from before a restart counts
    /// as it is loaded (the exact total is `Stats::queued`).
    pub length: usize,
    /// URLs taken from it since the crawl started.
    pub picks: u64,
}

/// Why a host with waiting URLs is not fetching right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostIdle {
    /// Nothing waiting for it.
    Empty,
    /// It may fetch now (waiting for a free slot overall, if anything).
    Ready,
    /// `per_host` requests already in flight.
    Busy,
    /// Waiting out the pause between requests (`delay_ms` or robots.txt
    /// `Crawl-delay`).
    Politeness(Duration),
    /// Waiting out a backoff after temporary errors.
    Backoff(Duration),
    /// Given up after failing every request for this long
    /// (`give_up_host_s`): its URLs are logged as errors without a request.
    GivenUp(Duration),
}

/// One host (scheme, host, port).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostRow {
    pub origin: String,
    /// URLs waiting for it in the in-memory part of the queues.
    pub pending: usize,
    pub in_flight: usize,
    pub fetched: u64,
    /// Pause between its requests.
    pub delay: Duration,
    pub errors_in_row: u32,
    pub idle: HostIdle,
    /// Its robots.txt, one line: `not fetched yet`, `fetching`, `parsed:
    /// 12 lines, group *, crawl-delay 2s`, `HTTP 404: all allowed`, `HTTP
    /// 503: all disallowed, retry in 40s`, `off (obey_robots = false)`.
    /// While robots.txt is being fetched the host's `idle` is `Ready`; while
    /// an unreachable one waits to be retried, `Backoff`.
    pub robots: String,
}

/// The detail of a running crawl at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Detail {
    pub queues: Vec<QueueRow>,
    /// The busiest hosts, at most [`MAX_HOST_ROWS`].
    pub hosts: Vec<HostRow>,
    /// All hosts met, listed or not.
    pub hosts_total: usize,
    /// Matches per rule (by rule index, document order) of the rule set in
    /// force, counted since it took effect.
    pub rule_hits: Vec<u64>,
    /// How many rule sets have been applied during the crawl (0: the first),
    /// so a viewer can tell which rule list `rule_hits` counts for.
    pub rules_version: u64,
}
