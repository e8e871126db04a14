//! The web conventions of SPEC §2.3 in the running crawl, each outcome
//! written to the URL's trace next to the rule trace:
//! - robots.txt: fetched per host before any of its URLs (they wait in the
//!   frontier; other hosts go on), cached in [`RobotsCache`]; a URL it
//!   disallows is logged as filtered with the deciding line; `Crawl-delay`
//!   raises the host's delay; `Sitemap:` lines are read as sitemaps;
//! - sitemaps from robots.txt and `[crawl] sitemaps`, nested indexes up to
//!   [`MAX_NESTING`]: each file is logged with what it held, each page
//!   entry met like a link (`sitemap entry from URL`);
//! - robots meta and `X-Robots-Tag` ([`Directives`]), rel=nofollow links
//!   (logged as not followed), the title and the excerpt of a page.

use std::time::{Duration, Instant};

use url::Url;

use super::discover::Origin;
use super::{Engine, Item, ItemKind};
use crate::crawl::directives::{Directives, HEADER_LAYER, META_LAYER, REGIONS_LAYER};
use crate::crawl::fetch::Head;
use crate::crawl::hosts::Idle;
use crate::crawl::links::{Page, RobotsMeta};
use crate::crawl::report::{layer, now_ms, robots_line, set_layer};
use crate::crawl::robots_cache::{Check, Gate, RobotsFetch};
use crate::crawl::sitemap::{MAX_NESTING, SitemapEntry};
use crate::crawl::sitemaps::{self, FILE_LAYER, SitemapRead};
use crate::rules::{Queue, normalize};
use crate::store::{ErrorClass, ErrorInfo, State, TraceLine, UrlRecord};

/// Sitemap entries met between two writes of the log: a 50,000-entry
/// sitemap is not one huge transaction (entries are deduplicated if a
/// crash makes the sitemap be read again).
const COMMIT_EVERY: usize = 1000;

/// What the dispatcher starts next.
#[derive(Debug)]
pub(super) enum Job {
    /// The host's robots.txt, before any of its URLs (`page` is one, a
    /// copy: it stays queued).
    Robots { host: u32, page: Item },
    /// A URL robots.txt allows (or that it was told not to consult).
    Fetch {
        host: u32,
        item: Item,
        robots: Check,
    },
}

/// What a queued record is fetched as, on resume: a sitemap file is
/// recognized by its trace, its nesting level by its link depth.
pub(super) fn kind_of(record: &UrlRecord) -> ItemKind {
    if record.trace.iter().any(|t| t.rule == FILE_LAYER) {
        let level = (record.link_depth.saturating_add(1)).min(MAX_NESTING as u32) as u8;
        ItemKind::Sitemap { level }
    } else {
        ItemKind::Page
    }
}

impl Engine {
    /// The next job among hosts that may be fetched now: a URL robots.txt
    /// allows, or the robots.txt fetch its host needs first. URLs robots.txt
    /// disallows are logged as filtered on the way.
    pub(super) fn next_job(&mut self, now: Instant) -> Option<Job> {
        loop {
            let (hosts, robots) = (&self.hosts, &self.robots);
            // One look at each host: a given-up host's URLs go (to be
            // given up in turn) whatever its robots.txt.
            let (level, queue, host, item) = self.frontier.pop(|h| match hosts.idle(h, now) {
                Idle::GivenUp(_) => true,
                Idle::Ready => robots.gate(h, now).may_pop(),
                _ => false,
            })?;
            if let Some(failing) = self.hosts.given_up(host, now) {
                self.host_given_up(item, host, failing);
                continue;
            }
            if self.robots.gate(host, now) == Gate::Fetch {
                let page = item.clone();
                self.frontier.unpop(level, queue, host, item);
                self.robots.fetching(host);
                self.hosts.started(host, now);
                return Some(Job::Robots { host, page });
            }
            let Some(check) = self.robots.check(host, &item.url, now) else {
                // Not open after all (cannot happen: `pop` skipped it).
                self.frontier.unpop(level, queue, host, item);
                return None;
            };
            if !check.allowed {
                self.robots_refused(item, check);
                continue;
            }
            self.hosts.started(host, now);
            return Some(Job::Fetch {
                host,
                item,
                robots: check,
            });
        }
    }

    /// The next page of `host` for a fetch slot already busy with that host
    /// (module `relay`), with robots.txt's answer: none when the host's
    /// robots.txt is not known yet, or when its next URL is a sitemap or a
    /// refresh (dispatched the usual way). URLs robots.txt disallows are
    /// logged as filtered on the way, as in [`Engine::next_job`]; the
    /// host's requests in flight do not change.
    pub(super) fn next_job_for(&mut self, host: u32, now: Instant) -> Option<(Item, Check)> {
        if self.robots.gate(host, now) != Gate::Open {
            return None;
        }
        loop {
            let (level, queue, item) = self.frontier.pop_for(host)?;
            if item.kind != ItemKind::Page || item.queue == Queue::Refresh {
                self.frontier.unpop(level, queue, host, item);
                return None;
            }
            let Some(check) = self.robots.check(host, &item.url, now) else {
                self.frontier.unpop(level, queue, host, item);
                return None;
            };
            if !check.allowed {
                self.robots_refused(item, check);
                continue;
            }
            return Some((item, check));
        }
    }

    /// robots.txt's answer for a URL being met, when its host's robots.txt
    /// is known now; `None` otherwise (decided at dispatch).
    pub(super) fn robots_known(&self, url: &Url) -> Option<Check> {
        if !self.plan.settings.obey_robots {
            return None;
        }
        let host = self.hosts.find(url)?;
        // Unreachable is decided at dispatch, as an error of the queued URL.
        self.robots
            .check(host, url, Instant::now())
            .filter(|check| !check.unreachable)
    }

    /// A queued URL robots.txt disallows: filtered, with the deciding line.
    /// One disallowed only because robots.txt could not be had is an error
    /// instead ([`Engine::robots_unreachable`]).
    fn robots_refused(&mut self, item: Item, check: Check) {
        if check.unreachable {
            return self.robots_unreachable(item, check);
        }
        self.stats.filtered += 1;
        let mut reason = check.refusal();
        if item.queue == crate::rules::Queue::Refresh {
            reason.push_str(super::NOT_REFETCHED);
        }
        self.update_and(item.id, Some(&item), |r| {
            r.state = State::Filtered;
            r.reason = reason;
            r.fetch = false;
            r.filtered = true;
            r.queue = "none".into();
            set_layer(&mut r.trace, robots_line(&check));
            r.robots = Some(check.text);
        });
    }

    /// A queued URL of a host that failed every request for
    /// `give_up_host_s`: given up without a request, as a temporary error
    /// (`--refresh` asks again; a refreshed page keeps its copy).
    fn host_given_up(&mut self, item: Item, host: u32, failing: Duration) {
        let origin = self.hosts.get(host).map_or("", |h| h.origin.as_str());
        let again = if item.attempts > 0 { " again" } else { "" };
        let message = format!(
            "not requested{again}: every request to {origin} failed for {} s with temporary \
             errors (give_up_host_s {})",
            failing.as_secs(),
            self.plan.settings.give_up_host_s
        );
        let error = ErrorInfo {
            class: ErrorClass::Temporary,
            // As a refresh's reason counts them: the host's failures stand
            // for this URL's when it had none of its own.
            count: item.attempts.max(1),
            message: message.clone(),
        };
        self.give_up_unasked(item, error, format!("gave up: {message}"), None);
    }

    /// A queued URL whose host's robots.txt could not be had, after its
    /// retries: not fetched (RFC 9309 §2.3.1.4: unreachable means all
    /// disallowed), and logged as given up after a temporary error rather
    /// than filtered, since nothing says its owner keeps it out: `--refresh`
    /// asks again, and a refreshed page keeps its copy and state.
    fn robots_unreachable(&mut self, item: Item, check: Check) {
        let error = ErrorInfo {
            class: ErrorClass::Temporary,
            count: 1,
            message: check.text.clone(),
        };
        let reason = format!("not fetched: {}", check.text);
        let robots = |r: &mut UrlRecord| {
            set_layer(&mut r.trace, robots_line(&check));
            r.robots = Some(check.text.clone());
        };
        self.give_up_unasked(item, error, reason, Some(&robots));
    }

    /// A queued URL given up without a request, for a temporary state of
    /// its host: a page a refresh re-fetches keeps its copy and state (not
    /// refreshed); any other URL is an error, keeping its own last error
    /// when it had one. `mark` adds what the cause adds to the record.
    fn give_up_unasked(
        &mut self,
        item: Item,
        error: ErrorInfo,
        reason: String,
        mark: Option<&dyn Fn(&mut UrlRecord)>,
    ) {
        if item.queue == Queue::Refresh && self.refresh_failed(&item, error.clone(), None) {
            if let Some(mark) = mark {
                self.update_and(item.id, None, mark);
            }
            return;
        }
        self.stats.errors += 1;
        let refresh = item.queue == Queue::Refresh;
        self.update_and(item.id, Some(&item), |r| {
            r.state = State::Error;
            if refresh {
                super::refresh::set_outcome(r, format!("failed again: {reason}"));
            }
            r.reason = reason;
            if r.error.is_none() {
                r.error = Some(error);
            }
            r.queue = "none".into();
            if let Some(mark) = mark {
                mark(r);
            }
        });
    }

    /// A host's robots.txt arrived: cached, its `Crawl-delay` applied, its
    /// `Sitemap:` lines met as sitemaps (once each per crawl: the log
    /// deduplicates them).
    pub(super) fn robots_learned(&mut self, host: u32, fetch: RobotsFetch) {
        self.robots_in_flight = self.robots_in_flight.saturating_sub(1);
        let now = Instant::now();
        let source = fetch.source.clone();
        let learned = self.robots.learned(host, fetch, now);
        if learned.retried {
            self.stats.retries += 1;
        }
        if let Some(delay) = learned.crawl_delay {
            self.hosts.set_delay(host, delay);
        }
        // After the delay is raised, so the host's first page waits for it.
        self.hosts.finished(host, now, false, None);
        for text in learned.sitemaps {
            // RFC 9309 §2.2.4: the value is a fully qualified URL; anything
            // else cannot be fetched and is left out.
            let Some(url) = normalize(&text)
                .ok()
                .filter(|u| matches!(u.scheme(), "http" | "https"))
            else {
                continue;
            };
            let why = sitemaps::named_in_robots(&source);
            self.met(url, None, 0, Origin::Sitemap { level: 1, why });
        }
        self.commit(&[]);
    }

    /// `[crawl] sitemaps`, met at the start of the crawl.
    pub(super) fn meet_config_sitemaps(&mut self) {
        for url in self.sitemaps.clone() {
            let why = sitemaps::named_in_config();
            self.met(url, None, 0, Origin::Sitemap { level: 1, why });
        }
    }

    /// A sitemap file answered: a 2xx body was parsed (`read`); other
    /// statuses are handled as for pages (redirect, retry, error).
    pub(super) fn sitemap_done(
        &mut self,
        item: Item,
        host: u32,
        head: Head,
        read: Option<SitemapRead>,
    ) {
        let now = Instant::now();
        let pause = head.retry_after.filter(|_| head.status == 503);
        self.hosts.finished(host, now, pause.is_some(), pause);
        let Some(read) = read else {
            if let Some(item) = self.non_success(item, host, &head) {
                let message = format!("HTTP {}", head.status);
                self.failed(item, host, false, message, Some(head.status), None);
            }
            return;
        };
        let level = match item.kind {
            ItemKind::Sitemap { level } => level,
            ItemKind::Page => 1,
        };
        let from = item.url.to_string();
        let depth = item.link_depth.saturating_add(1);
        let mut too_deep = 0;
        for (i, entry) in read.entries.iter().enumerate() {
            let Ok(url) = normalize(entry.url().as_str()) else {
                continue;
            };
            match entry {
                SitemapEntry::Page { .. } => {
                    let origin = Origin::SitemapEntry(from.clone());
                    self.met(url, Some(item.id), depth, origin);
                }
                SitemapEntry::Sitemap { .. } if usize::from(level) < MAX_NESTING => {
                    let why = sitemaps::listed_in_index(&item.url, level + 1);
                    let origin = Origin::Sitemap {
                        level: level + 1,
                        why,
                    };
                    self.met(url, Some(item.id), depth, origin);
                }
                SitemapEntry::Sitemap { .. } => too_deep += 1,
            }
            if (i + 1) % COMMIT_EVERY == 0 {
                self.commit(&[]);
            }
        }
        let reason = sitemaps::reason(&read, too_deep);
        // A file that gave nothing because it could not be read is an
        // error; one read in part keeps what it gave, the reason says why.
        let error = read
            .report
            .error
            .as_ref()
            .filter(|_| read.report.entries() == 0)
            .map(|e| ErrorInfo {
                class: ErrorClass::Permanent,
                count: 1,
                message: e.to_string(),
            });
        if error.is_some() {
            self.stats.errors += 1;
        } else {
            self.stats.fetched += 1;
        }
        let report = read.report.to_string();
        self.update_and(item.id, Some(&item), |r| {
            r.state = if error.is_some() {
                State::Error
            } else {
                State::Fetched
            };
            r.status = Some(head.status);
            r.content_type = head.content_type.clone();
            r.size = Some(read.received);
            r.fetched_ms = Some(now_ms());
            r.error = error;
            r.reason = reason;
            set_layer(&mut r.trace, layer("sitemap-read", report));
        });
    }

    /// The robots directives of a fetched page.
    pub(super) fn directives(&self, page: Option<&Page>, header: RobotsMeta) -> Directives {
        Directives {
            meta: page.map(|p| p.robots.clone()).unwrap_or_default(),
            header,
            ignore_nofollow: self.plan.settings.ignore_nofollow,
        }
    }

    /// Meets a followed page's links; those that say rel=nofollow (and
    /// `ignore_nofollow` is off) are logged as not followed. Followed links
    /// go first, so a URL linked both ways on one page is followed.
    /// Returns how many were nofollow.
    pub(super) fn meet_links(&mut self, item: &Item, page: &Page) -> usize {
        let ignore = self.plan.settings.ignore_nofollow;
        let depth = item.link_depth.saturating_add(1);
        for link in page.links.iter().filter(|l| ignore || !l.nofollow) {
            self.met(link.url.clone(), Some(item.id), depth, Origin::Link);
            self.write_if_many_met();
        }
        if ignore {
            return 0;
        }
        let from = item.url.to_string();
        let mut nofollow = 0;
        for link in page.links.iter().filter(|l| l.nofollow) {
            nofollow += 1;
            let origin = Origin::Nofollow(from.clone());
            self.met(link.url.clone(), Some(item.id), depth, origin);
            self.write_if_many_met();
        }
        nofollow
    }
}

/// What a fetched page adds to its record besides the fetch itself: its
/// robots directives (trace lines and robots text), title and excerpt.
#[derive(Debug)]
pub(super) struct PageRobots {
    trace: Vec<TraceLine>,
    /// Appended to robots.txt's answer in the record's robots text.
    text: Vec<String>,
    title: Option<String>,
    excerpt: Option<String>,
}

pub(super) fn page_robots(directives: &Directives, page: Option<&Page>) -> PageRobots {
    let mut trace = directives.trace();
    let mut text: Vec<String> = directives.text().into_iter().collect();
    let mut excerpt = None;
    if let Some(page) = page {
        if page.noindex_regions > 0 {
            let regions = format!(
                "{} noindex regions left out of the excerpt",
                page.noindex_regions
            );
            trace.push(layer(REGIONS_LAYER, regions.clone()));
            text.push(regions);
        }
        if !page.excerpt.is_empty() {
            if directives.no_excerpt() {
                text.push("excerpt not kept (noindex or nosnippet)".into());
            } else {
                excerpt = Some(page.excerpt.clone());
            }
        }
    }
    PageRobots {
        trace,
        text,
        title: page.and_then(|p| p.title.clone()),
        excerpt,
    }
}

impl PageRobots {
    /// Writes into the page's record; robots.txt's answer (written at
    /// dispatch) stays first in the robots text.
    pub(super) fn apply(self, r: &mut UrlRecord) {
        r.trace
            .retain(|t| ![META_LAYER, HEADER_LAYER, REGIONS_LAYER].contains(&t.rule.as_str()));
        r.trace.extend(self.trace);
        if !self.text.is_empty() {
            let mut parts: Vec<String> = r.robots.take().into_iter().collect();
            parts.extend(self.text);
            r.robots = Some(parts.join("; "));
        }
        r.title = self.title;
        r.excerpt = self.excerpt;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A resumed crawl reads a queued sitemap as a sitemap again, at the
    /// level its link depth gives (capped at the nesting limit).
    #[test]
    fn a_queued_sitemap_is_recognized_on_resume() {
        let record = |depth: u32, rule: &str| UrlRecord {
            link_depth: depth,
            trace: vec![layer(rule, "why".into())],
            ..UrlRecord::default()
        };
        let cases = [
            (record(0, FILE_LAYER), ItemKind::Sitemap { level: 1 }),
            (record(2, FILE_LAYER), ItemKind::Sitemap { level: 3 }),
            (record(9, FILE_LAYER), ItemKind::Sitemap { level: 3 }),
            (record(1, sitemaps::ENTRY_LAYER), ItemKind::Page),
            (UrlRecord::default(), ItemKind::Page),
        ];
        for (record, kind) in cases {
            assert_eq!(kind_of(&record), kind, "{record:?}");
        }
    }
}
