//! What a fetch outcome changes (SPEC §2.1, §2.4): its host's turn
//! ([`Engine::release`]), then its record, its links and the counts
//! ([`Engine::settle`]). A 2xx page's links are met before its own update,
//! so that they are written in the same transaction; a redirect's target
//! is met as a new URL, at most [`MAX_REDIRECTS`] hops from the first; a
//! temporary error is retried with backoff (honouring `Retry-After`) up to
//! `max_retries`, a permanent one ends the URL in state `error` (in a
//! refresh crawl, a page gone is marked deleted: `refresh`).

use std::cmp::Reverse;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::discover::Origin;
use super::refresh::{self, NOT_REFETCHED};
use super::web;
use super::{Engine, Item, MAX_REDIRECTS};
use crate::crawl::fetch::{Fetched, Head};
use crate::crawl::report::{
    HEADERS_LAYER, now_ms, refusal, requested_for_headers, retrace, set_layer, trace_lines,
};
use crate::crawl::task::{Content, Outcome};
use crate::rules::{CompiledRules, Queue, Verdict, normalize};
use crate::store::{ErrorClass, ErrorInfo, State};

/// The longest a URL waits for its retry, whatever the server's
/// `Retry-After` asks: as long as a host's backoff, and robots.txt's.
pub(crate) const MAX_RETRY_WAIT: Duration = Duration::from_secs(300);

impl Engine {
    pub(super) fn handle(&mut self, outcome: Outcome) {
        self.release(&outcome, Instant::now());
        self.settle(outcome);
    }

    /// A page's fetch ended: its host may take the next request (after a
    /// pause when the server asked for one, or a backoff after a
    /// temporary error). robots.txt and sitemap outcomes free their host
    /// when they are settled.
    pub(super) fn release(&mut self, outcome: &Outcome, now: Instant) {
        match outcome {
            Outcome::Done { host, fetched, .. } => {
                // 503 with Retry-After is the server asking for a pause.
                let pause = fetched
                    .head
                    .retry_after
                    .filter(|_| fetched.head.status == 503);
                self.hosts.finished(*host, now, pause.is_some(), pause);
            }
            Outcome::Refused { host, .. } => self.hosts.finished(*host, now, false, None),
            Outcome::Failed { host, error, .. } => {
                self.hosts.finished(*host, now, error.is_temporary(), None);
            }
            Outcome::Robots { .. } | Outcome::Sitemap { .. } => {}
        }
    }

    /// Everything an outcome changes but its host's requests in flight
    /// ([`Engine::release`]): its record, its links, the counts.
    pub(super) fn settle(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Done {
                item,
                host,
                address,
                fetched,
                verdict,
                rules,
                content,
            } => {
                if let Some(verdict) = &verdict {
                    self.count_hits_under(&rules, verdict);
                }
                let judged = verdict.map(|verdict| (verdict, rules));
                self.done(item, host, address, fetched, judged, *content);
            }
            Outcome::Refused {
                item,
                host: _,
                address,
                head,
                verdict,
                rules,
            } => {
                self.count_hits_under(&rules, &verdict);
                let mut reason = refusal(&rules, &verdict);
                if item.queue == Queue::Refresh {
                    reason.push_str(NOT_REFETCHED);
                }
                let trace = trace_lines(&rules, &verdict);
                self.stats.filtered += 1;
                self.update_and(item.id, Some(&item), |r| {
                    r.state = State::Filtered;
                    r.reason = reason;
                    r.filtered = verdict.filtered;
                    (r.fetch, r.save, r.follow) = (false, verdict.save, verdict.follow);
                    r.status = head.as_ref().map(|h| h.status);
                    // Requested as far as its headers: say for which rules.
                    if head.is_some()
                        && let Some(asked) = requested_for_headers(&r.trace)
                    {
                        set_layer(&mut r.trace, asked);
                    }
                    r.content_type = head.and_then(|h| h.content_type);
                    r.address = Some(address);
                    retrace(&mut r.trace, trace);
                });
                // Refused under rules the crawl has replaced since.
                if !Arc::ptr_eq(&rules, &self.rules) {
                    self.unfilter_late(item.id, &rules);
                }
            }
            Outcome::Failed {
                item,
                host,
                address,
                error,
            } => {
                // This attempt's address, or none: not an earlier fetch's.
                self.update_and(item.id, None, |r| r.address = address);
                let temporary = error.is_temporary();
                self.failed(item, host, temporary, error.to_string(), None, None);
            }
            Outcome::Robots { host, fetch } => self.robots_learned(host, fetch),
            Outcome::Sitemap {
                item,
                host,
                address,
                verdict,
                rules,
                head,
                read,
            } => {
                // As a page's: the address, the flags and the trace of the
                // rules judged with it (the type too, when they waited for
                // it). Its entries are met whatever `follow` says, as the
                // README's Sitemaps paragraph has it.
                let trace = trace_lines(&rules, &verdict);
                self.update_and(item.id, None, |r| {
                    r.address = Some(address);
                    (r.fetch, r.save, r.follow) = (verdict.fetch, verdict.save, verdict.follow);
                    retrace(&mut r.trace, trace);
                });
                self.sitemap_done(item, host, head, read);
            }
        }
    }

    /// A temporary failure is retried with backoff up to `max_retries`.
    pub(super) fn failed(
        &mut self,
        mut item: Item,
        host: u32,
        temporary: bool,
        message: String,
        status: Option<u16>,
        retry_after: Option<Duration>,
    ) {
        // Saturating: a damaged record may bring any count back.
        item.attempts = item.attempts.saturating_add(1);
        let class = if temporary {
            ErrorClass::Temporary
        } else {
            ErrorClass::Permanent
        };
        let retry = temporary && item.attempts <= self.plan.settings.max_retries;
        let count = item.attempts;
        // The server's Retry-After, up to the longest the crawl waits: a
        // day's wait would hold the crawl's end for days. The wait is said,
        // so that a URL queued that long is not taken for a stuck one.
        let backoff = retry_after
            .unwrap_or(Duration::from_secs(1u64 << count.min(6)))
            .min(MAX_RETRY_WAIT);
        let reason = if retry {
            format!(
                "retry {count} of {} in {} s, after: {message}",
                self.plan.settings.max_retries,
                backoff.as_secs()
            )
        } else if temporary {
            let errors =
                crate::text::counted(u64::from(count), "temporary error", "temporary errors");
            format!("gave up after {errors}: {message}")
        } else {
            format!("permanent error: {message}")
        };
        // A URL given up leaves its queue in the same transaction.
        let leaving = (!retry).then_some(&item);
        if leaving.is_some() && item.queue == Queue::Refresh {
            let error = ErrorInfo {
                class,
                count,
                message: message.clone(),
            };
            // Counted there: a page gone (deleted), or not refreshed.
            if self.refresh_failed(&item, error, status) {
                return;
            }
        }
        let refresh_given_up = leaving.is_some() && item.queue == Queue::Refresh;
        self.update_and(item.id, leaving, |r| {
            r.state = if retry { State::Queued } else { State::Error };
            if refresh_given_up {
                // A URL without a copy (an error before, say): its refresh
                // line says how this attempt ended, not that it is queued.
                refresh::set_outcome(r, format!("failed again: {reason}"));
            }
            r.reason = reason;
            r.status = status.or(r.status);
            r.error = Some(ErrorInfo {
                class,
                count,
                message,
            });
            r.fetched_ms = Some(now_ms());
        });
        if retry {
            self.stats.retries += 1;
            let when = Instant::now() + backoff;
            self.delayed.push(Reverse((when, item.id)));
            self.delayed_items.insert(item.id, (host, item));
        } else {
            self.stats.errors += 1;
        }
    }

    /// A page's answer, from `address`.
    pub(super) fn done(
        &mut self,
        item: Item,
        host: u32,
        address: IpAddr,
        fetched: Fetched,
        verdict: Option<(Verdict, Arc<CompiledRules>)>,
        content: Content,
    ) {
        // An error or a redirect was still judged with the address: its
        // trace says so, rather than the address rules "deferred".
        if !(200..300).contains(&fetched.head.status) {
            let trace = verdict.as_ref().map(|(v, rules)| trace_lines(rules, v));
            // Not leaving its queue here: a retried URL (503 with
            // Retry-After) stays in it, and the update that settles the
            // outcome takes it out when it is done.
            self.update_and(item.id, None, |r| {
                if let Some(trace) = trace {
                    retrace(&mut r.trace, trace);
                }
                r.address = Some(address);
            });
        }
        let Some(item) = self.non_success(item, host, &fetched.head) else {
            return;
        };
        let Content {
            page,
            header_robots,
            size,
            saved,
        } = content;
        let (saved, save_error) = match saved {
            Some(Ok(path)) => (Some(path), None),
            Some(Err(e)) => (None, Some(e)),
            None => (None, None),
        };
        let head = fetched.head;
        let status = head.status;
        // 2xx: the links first (crash safety), then the page itself.
        let directives = self.directives(page.as_ref(), header_robots);
        let follow = verdict.as_ref().is_none_or(|(v, _)| v.follow);
        let mut nofollow_links = 0;
        if let Some(page) = &page
            && follow
            && !directives.nofollow()
        {
            nofollow_links = self.meet_links(&item, page);
        }
        let was_saved = saved.is_some();
        if was_saved {
            self.stats.saved += 1;
        } else {
            self.stats.fetched += 1;
        }
        let trace = verdict
            .as_ref()
            .map(|(v, rules)| trace_lines(rules, v))
            .unwrap_or_default();
        let mut extra = Vec::new();
        if fetched.truncated {
            extra.push(format!(
                "body cut at max_body_bytes {}",
                self.plan.settings.max_body_bytes
            ));
        }
        if let Some(e) = &save_error {
            extra.push(format!("not saved: the mirror could not write it: {e}"));
            self.stats.unsaved += 1;
            if self.stats.first_unsaved.is_none() {
                self.stats.first_unsaved = Some(e.clone());
            }
        }
        if verdict.as_ref().is_some_and(|(v, _)| v.save) {
            extra.extend(directives.not_saved());
        }
        if follow {
            extra.extend(directives.not_followed());
        }
        if nofollow_links > 0 {
            extra.push(format!("{nofollow_links} rel=nofollow links not followed"));
        }
        let page_robots = web::page_robots(&directives, page.as_ref());
        let refreshing = item.queue == Queue::Refresh;
        self.update_and(item.id, Some(&item), |r| {
            // What a refresh asked with, before the answer's validators.
            let sent = refreshing.then(|| refresh::validators_of(r));
            r.state = if was_saved {
                State::Saved
            } else {
                State::Fetched
            };
            r.status = Some(status);
            // The flags as the rules decided with everything known (the
            // queued verdict may have waited for the type or address).
            if let Some((v, _)) = &verdict {
                (r.fetch, r.save, r.follow) = (v.fetch, v.save, v.follow);
            }
            r.content_type = head.content_type.clone();
            r.size = size;
            r.fetched_ms = Some(now_ms());
            // The validators stand for the copy kept: with none written, a
            // refresh must ask in full (a 304 would leave it unsaved).
            let copy_lost = save_error.is_some();
            r.etag = head.etag.clone().filter(|_| !copy_lost);
            r.last_modified = head.last_modified.clone().filter(|_| !copy_lost);
            r.saved_path = saved.clone();
            r.address = Some(address);
            r.error = None;
            // Fetched after all (new rules, a refresh): no longer refused
            // at its headers.
            r.trace.retain(|t| t.rule != HEADERS_LAYER);
            retrace(&mut r.trace, trace);
            // Written over the in-flight reason, in its buffer.
            r.reason.clear();
            // Piece by piece: `write!` cost about 1,500 instructions a page.
            let mut number = itoa::Buffer::new();
            let verb = if was_saved { "saved" } else { "fetched" };
            r.reason.push_str(verb);
            r.reason.push_str(" (HTTP ");
            r.reason.push_str(number.format(status));
            if let Some(content_type) = &head.content_type {
                r.reason.push_str(", ");
                r.reason.push_str(content_type);
            }
            if let Some(size) = size {
                r.reason.push_str(", ");
                r.reason.push_str(number.format(size));
                r.reason.push_str(" bytes");
            }
            r.reason.push(')');
            if !extra.is_empty() {
                r.reason.push_str("; ");
                r.reason.push_str(&extra.join("; "));
            }
            page_robots.apply(r);
            if let Some(sent) = sent {
                refresh::changed(r, sent.as_ref());
            }
        });
    }

    /// Answers that are not a 2xx body: a redirect (each hop a new URL
    /// through the rules), 304, 503 with `Retry-After` (temporary) and
    /// other 4xx/5xx (permanent). `None` when handled here; the item back
    /// when the response is a success for the caller to read.
    pub(super) fn non_success(&mut self, item: Item, host: u32, head: &Head) -> Option<Item> {
        let status = head.status;
        if (300..400).contains(&status) && status != 304 {
            self.redirected(item, host, head);
            return None;
        }
        // A refresh's conditional request answered 304: handled there;
        // any other 304 goes on as the error below.
        let item = match status {
            304 => self.not_modified(item, head)?,
            _ => item,
        };
        let (temporary, message) = match status {
            304 => (false, "HTTP 304 to an unconditional request".to_string()),
            503 if head.retry_after.is_some() => (true, format!("HTTP {status} with Retry-After")),
            400.. => (false, format!("HTTP {status}")),
            _ => return Some(item),
        };
        let retry_after = head.retry_after.filter(|_| temporary);
        self.failed(item, host, temporary, message, Some(status), retry_after);
        None
    }

    /// A 3xx: the target is met as a new URL (a sitemap's target is read
    /// as a sitemap), at most [`MAX_REDIRECTS`] hops from the first URL.
    pub(super) fn redirected(&mut self, item: Item, host: u32, head: &Head) {
        let status = head.status;
        let Some(location) = head.location.clone() else {
            let message = format!("HTTP {status} without Location");
            return self.failed(item, host, false, message, Some(status), None);
        };
        let joined = item.url.join(&location).ok();
        // Another scheme (`ftp:`, `mailto:`) is logged with where it
        // points, as a link to it on a page is not followed: the crawler
        // fetches http and https only. Checked before normalizing, which
        // refuses URLs without a host such as `mailto:`.
        if let Some(other) = joined
            .as_ref()
            .filter(|u| !matches!(u.scheme(), "http" | "https"))
        {
            let reason = format!(
                "HTTP {status} redirect to {other} (not followed: only http and https are crawled)"
            );
            return self.redirect_logged(item, status, other.to_string(), reason);
        }
        let target = joined.and_then(|u| normalize(u.as_str()).ok());
        let Some(target) = target else {
            let message = format!("redirect to a malformed URL {location:?}");
            return self.failed(item, host, false, message, Some(status), None);
        };
        let hops = item.hops + 1;
        if hops > MAX_REDIRECTS {
            let message = format!("more than {MAX_REDIRECTS} redirects");
            return self.failed(item, host, false, message, Some(status), None);
        }
        let known = self.pending_at.contains_key(target.as_str())
            || matches!(self.log.id_of(target.as_str()), Ok(Some(_)));
        self.met(
            target.clone(),
            Some(item.id),
            item.link_depth,
            Origin::Redirect {
                hops,
                kind: item.kind,
            },
        );
        // On a refresh every target is known from the crawl before: there
        // that says nothing about loops.
        let reason = match (known, item.queue == Queue::Refresh) {
            (false, _) => format!("HTTP {status} redirect to {target}"),
            (true, true) => format!("HTTP {status} redirect to {target} (already in the log)"),
            (true, false) => {
                format!("HTTP {status} redirect to {target} (already known: a loop or a duplicate)")
            }
        };
        self.redirect_logged(item, status, target.to_string(), reason);
    }

    /// Logs a redirect answer as fetched, with its target and why.
    fn redirect_logged(&mut self, item: Item, status: u16, target: String, reason: String) {
        self.stats.fetched += 1;
        self.update_and(item.id, Some(&item), |r| {
            r.state = State::Fetched;
            r.status = Some(status);
            r.fetched_ms = Some(now_ms());
            r.redirect_to = Some(target);
            r.reason = reason;
        });
    }
}
