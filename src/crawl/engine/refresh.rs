//! A refresh crawl (`crawl --refresh`, SPEC §2.4): the URLs the log holds
//! as fetched or saved, and those given up after temporary errors, are
//! fetched again through the `refresh` queue, with a conditional request
//! (`If-None-Match`, `If-Modified-Since`) when the record has an `ETag` or a
//! `Last-Modified`.
//!
//! - Beginning ([`Engine::begin_refresh`]), before the persisted frontier
//!   is loaded: a pass over the log's state index puts each such URL
//!   through the rules in force and the depth limits again (either may have
//!   changed since): one they no longer fetch is logged as filtered, the
//!   others are queued in `refresh` in the log (record and frontier entry
//!   in one transaction, in batches) and then loaded with the rest of the
//!   persisted queues. Start URLs and links met during the refresh go
//!   through their usual queues.
//! - Resuming: the log keeps when the refresh began
//!   ([`UrlLog::refresh_since`](crate::store::UrlLog::refresh_since)). Only
//!   URLs last fetched before then are queued, and only from the fetched,
//!   saved and error states, so a URL already refreshed (fetched since),
//!   queued or in flight is never queued twice by a refresh begun again
//!   after a stop or a `kill -9`. The mark is cleared when a refresh run
//!   ends with nothing left to fetch; the next `--refresh` begins anew.
//! - Outcomes, for a URL that had a copy (was fetched or saved): 304 keeps
//!   the copy, the record and the links found on it; 200 is fetched and
//!   saved again as usual; a permanent error marks it `deleted` and removes
//!   its mirror file; temporary errors are retried as usual and, given up,
//!   leave the copy as it was. A URL that had no copy (a temporary error
//!   before) ends as any other URL does.
//!
//! The state before the refresh is kept on the URL's `refresh` trace line
//! (step `was saved`, `was fetched`, `was error`), whose detail says what
//! the refresh did. A URL is a refresh fetch when it waits in the `refresh`
//! queue: that survives in the persisted frontier and in the record's
//! queue, so a resumed crawl treats it the same way without other state.

use url::Url;

use super::{Engine, Item, StartError};
use crate::crawl::fetch::{Head, Validators};
use crate::crawl::mirror::{self, Removal};
use crate::crawl::report::{beyond_depth, now_ms, refusal, retrace, set_layer, trace_lines};
use crate::rules::{Known, Queue, TraceMode, UrlFacts};
use crate::store::{
    Change, ErrorClass, ErrorInfo, Query, State, StoreError, TraceLine, UrlRecord, frontier_slot,
};

/// Trace layer of a refresh.
const REFRESH_LAYER: &str = "refresh";

/// Appended to the reason of a refreshed URL that the rules, the depth
/// limits or robots.txt now refuse.
pub(super) const NOT_REFETCHED: &str = " (on refresh: not fetched again)";

/// Records read and re-queued per transaction when a refresh begins.
const BATCH: usize = 1000;

/// Whether this run refreshes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refresh {
    /// A plain crawl. URLs an unfinished refresh left in the `refresh`
    /// queue are still fetched as refreshes, but no more are queued and the
    /// refresh is not marked over.
    Off,
    /// `--refresh`: begins, or resumes, when the crawl starts.
    Asked,
    /// Under way since this time (ms since the Unix epoch).
    Since(u64),
}

/// A known URL's record as a refresh begins: queued in `refresh` (with
/// its frontier slot) or filtered.
#[derive(Debug)]
struct Requeued {
    id: u64,
    record: UrlRecord,
    enqueue: Option<(u8, u8)>,
}

/// The validators a record gives a conditional request, if any.
pub(super) fn validators_of(record: &UrlRecord) -> Option<Validators> {
    (record.etag.is_some() || record.last_modified.is_some()).then(|| Validators {
        etag: record.etag.clone(),
        last_modified: record.last_modified.clone(),
    })
}

/// The request headers a refresh sends, for the log.
fn describe(validators: Option<&Validators>) -> String {
    let Some(v) = validators else {
        return "asked in full (no ETag or Last-Modified to ask with)".into();
    };
    let headers: Vec<String> = [
        v.etag.as_ref().map(|e| format!("If-None-Match {e}")),
        v.last_modified
            .as_ref()
            .map(|d| format!("If-Modified-Since {d}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    format!("asked with {}", headers.join(" and "))
}

/// The state a URL was in before its refresh, from its `refresh` line.
fn state_before(record: &UrlRecord) -> Option<State> {
    let line = record.trace.iter().find(|t| t.rule == REFRESH_LAYER)?;
    line.step.strip_prefix("was ")?.parse().ok()
}

/// Writes what the refresh did on the URL's `refresh` line, keeping the
/// state it was in before.
pub(super) fn set_outcome(record: &mut UrlRecord, detail: String) {
    let before = state_before(record).unwrap_or(record.state);
    set_layer(&mut record.trace, refresh_line(before, detail));
}

fn refresh_line(before: State, detail: String) -> TraceLine {
    TraceLine {
        rule: REFRESH_LAYER.into(),
        name: REFRESH_LAYER.into(),
        line: 0,
        step: format!("was {}", before.name()),
        detail,
    }
}

/// Notes on a 2xx answer to a refresh: the page changed (or could not be
/// asked about). `sent` is what the request carried.
pub(super) fn changed(record: &mut UrlRecord, sent: Option<&Validators>) {
    let (what, detail) = match sent {
        Some(_) => (
            "changed since the last fetch",
            format!("changed since the last fetch; {}", describe(sent)),
        ),
        None => (
            "fetched in full (no ETag or Last-Modified to ask with)",
            "fetched in full: no ETag or Last-Modified to ask with".into(),
        ),
    };
    record.reason.push_str("; refreshed: ");
    record.reason.push_str(what);
    set_outcome(record, detail);
}

impl Engine {
    /// Makes this run a refresh crawl (`--refresh`): see the module doc.
    pub fn with_refresh(mut self, refresh: bool) -> Engine {
        self.refresh = if refresh {
            Refresh::Asked
        } else {
            Refresh::Off
        };
        self
    }

    /// Begins the refresh asked for, or resumes the one under way: queues
    /// in `refresh` every URL fetched before it began that the rules still
    /// fetch. Before the persisted frontier is loaded, which then holds them.
    pub(super) fn begin_refresh(&mut self) -> Result<(), StartError> {
        if self.refresh != Refresh::Asked {
            return Ok(());
        }
        let store = |e: StoreError| StartError::Store(e.to_string());
        let since = match self.log.refresh_since().map_err(store)? {
            Some(since) => since,
            None => {
                let now = now_ms();
                self.log.set_refresh_since(Some(now)).map_err(store)?;
                now
            }
        };
        self.refresh = Refresh::Since(since);
        for state in [State::Saved, State::Fetched, State::Error] {
            let query = Query {
                state: Some(state),
                ..Query::default()
            };
            let mut after = None;
            // After a damaged record stops a page, the records before it are
            // read one at a time, and it is passed over.
            let mut careful = false;
            // A damaged state block is rebuilt from the records once and
            // the page read again; one that stays damaged ends this
            // state's walk, not the refresh.
            let mut repaired: Vec<Vec<u8>> = Vec::new();
            loop {
                let limit = if careful { 1 } else { BATCH };
                let page = match self.log.page(&query, after, limit) {
                    Ok(page) => page,
                    Err(StoreError::BadEntry { tree, key }) => {
                        let fresh = !repaired.contains(&key);
                        let e = StoreError::BadEntry { tree, key };
                        // A repair that fails (I/O) ends this state's
                        // walk like a block it cannot repair.
                        let repair = if fresh {
                            self.log.repair_damaged(&e)
                        } else {
                            Ok(false)
                        };
                        match repair {
                            Ok(true) => {
                                if let StoreError::BadEntry { key, .. } = e {
                                    repaired.push(key);
                                }
                                continue;
                            }
                            Ok(false) => self.say(&format!(
                                "refresh: {e}: the {} URLs past it are not refreshed",
                                state.name()
                            )),
                            Err(why) => self.say(&format!(
                                "refresh: {e}, and repairing it failed ({why}): \
                                 the {} URLs past it are not refreshed",
                                state.name()
                            )),
                        }
                        break;
                    }
                    Err(StoreError::Corrupt { id, source }) if careful => {
                        self.say(&format!(
                            "refresh: URL log record {id} is damaged ({source}): not refreshed"
                        ));
                        after = Some(id);
                        careful = false;
                        continue;
                    }
                    Err(StoreError::Corrupt { .. }) => {
                        careful = true;
                        continue;
                    }
                    Err(e) => return Err(store(e)),
                };
                let Some(&(last, _)) = page.last() else { break };
                after = Some(last);
                let requeued: Vec<Requeued> = page
                    .into_iter()
                    .filter_map(|(id, record)| self.requeue(id, record, since))
                    .collect();
                let changes: Vec<Change<'_>> = requeued
                    .iter()
                    .map(|r| Change::Update {
                        id: r.id,
                        record: &r.record,
                        enqueue: r.enqueue,
                    })
                    .collect();
                if !changes.is_empty() {
                    self.log.apply(&changes).map_err(store)?;
                }
            }
        }
        Ok(())
    }

    /// A known URL at the start of a refresh: `None` when it is not to be
    /// refreshed; else its record queued in `refresh` (with its frontier
    /// slot), or filtered when the rules or depth limits now refuse it.
    fn requeue(&mut self, id: u64, mut record: UrlRecord, since: u64) -> Option<Requeued> {
        let before = record.state;
        let wanted = match before {
            State::Saved | State::Fetched => true,
            // Permanent errors are not retried (SPEC §2.4); given-up
            // temporary ones get another chance.
            State::Error => record
                .error
                .as_ref()
                .is_some_and(|e| e.class == ErrorClass::Temporary),
            _ => false,
        };
        if !wanted || record.fetched_ms.is_some_and(|t| t >= since) {
            return None; // not a refresh's, or refreshed already
        }
        let url = Url::parse(&record.url).ok()?;
        let known = Known {
            link_depth: record.link_depth,
            ..Known::default()
        };
        // The type it was fetched with: rules that now refuse that type
        // refuse it here, rather than after a 304 that would keep it.
        let known = match &record.content_type {
            Some(media) => known.with_content_type(media),
            None => known,
        };
        let verdict = self.rules.evaluate(
            &UrlFacts::new(&url, &known),
            &mut self.scratch,
            TraceMode::Decisive,
        );
        retrace(&mut record.trace, trace_lines(&self.rules, &verdict));
        let refused = if verdict.fetch {
            self.beyond_limits(&url, &record)
        } else {
            Some(refusal(&self.rules, &verdict))
        };
        let sent = validators_of(&record);
        if let Some(why) = refused {
            self.count_hits(&verdict);
            self.stats.filtered += 1;
            record.state = State::Filtered;
            record.reason = format!("{why}{NOT_REFETCHED}");
            // As for a URL met: depth limits leave the rules' verdict.
            record.fetch = verdict.fetch;
            record.filtered = true;
            record.queue = "none".into();
            // Refused without a look-up today: an earlier fetch's address
            // is not what decided it.
            record.address = None;
            let detail = "not fetched again: refused under today's rules and limits".into();
            set_layer(&mut record.trace, refresh_line(before, detail));
            return Some(Requeued {
                id,
                record,
                enqueue: None,
            });
        }
        record.state = State::Queued;
        record.reason = format!("queued in refresh (was {})", before.name());
        record.fetch = true;
        record.save = verdict.save;
        record.follow = verdict.follow;
        record.filtered = verdict.filtered;
        record.priority = verdict.priority;
        record.queue = Queue::Refresh.name().into();
        record.meta = verdict.meta.clone();
        record.source = verdict.source.clone();
        // Attempts start again: a retry count from before would cut the
        // refresh's own retries short.
        record.error = None;
        let detail = format!("queued; to be {}", describe(sent.as_ref()));
        set_layer(&mut record.trace, refresh_line(before, detail));
        let slot = frontier_slot(record.priority, &record.queue);
        Some(Requeued {
            id,
            record,
            enqueue: Some(slot),
        })
    }

    /// The depth limits, as for a URL met for the first time (start URLs
    /// have none).
    fn beyond_limits(&self, url: &Url, record: &UrlRecord) -> Option<String> {
        if record.trace.iter().any(|t| t.rule == "start") {
            return None;
        }
        let s = &self.plan.settings;
        beyond_depth(url, record.link_depth, s.max_link_depth, s.max_path_depth).map(|(why, _)| why)
    }

    /// When a refresh run ends with nothing left to fetch, the refresh is
    /// over: the next `--refresh` begins a new one.
    pub(super) fn end_refresh(&mut self) {
        if let Refresh::Since(_) = self.refresh
            && let Err(e) = self.log.set_refresh_since(None)
        {
            self.say(&format!("URL log: {e}"));
        }
    }

    /// The validators to send for a page: those of its record when it is
    /// refreshed, none otherwise.
    pub(super) fn conditional(&self, item: &Item) -> Option<Validators> {
        if item.queue != Queue::Refresh {
            return None;
        }
        validators_of(&self.current_record(item.id).ok().flatten()?)
    }

    /// A 304 to a refresh's conditional request: the page did not change.
    /// Its copy, its record and the links found on it stay; the state goes
    /// back to saved or fetched, with the new fetch time and any validators
    /// the 304 carries (RFC 9110 §15.4.5 has it send them). Returns the
    /// item back when the request was not conditional: then the 304 is the
    /// permanent error of SPEC §2.4, as for any fetch.
    pub(super) fn not_modified(&mut self, item: Item, head: &Head) -> Option<Item> {
        if item.queue != Queue::Refresh || self.conditional(&item).is_none() {
            return Some(item);
        }
        let mut saved = false;
        self.update_and(item.id, Some(&item), |r| {
            saved = r.saved_path.is_some();
            r.state = if saved { State::Saved } else { State::Fetched };
            r.status = Some(304);
            r.fetched_ms = Some(now_ms());
            if head.etag.is_some() {
                r.etag = head.etag.clone();
            }
            if head.last_modified.is_some() {
                r.last_modified = head.last_modified.clone();
            }
            r.error = None;
            r.reason = match &r.saved_path {
                Some(path) => {
                    format!("not modified (304) on refresh: the saved copy {path} is kept")
                }
                None => "not modified (304) on refresh".into(),
            };
            let sent = describe(validators_of(r).as_ref());
            set_outcome(
                r,
                format!("not modified (304), {sent}: copy, record and links kept"),
            );
        });
        if saved {
            self.stats.saved += 1;
        } else {
            self.stats.fetched += 1;
        }
        None
    }

    /// A refresh that ended in an error: a permanent one, or temporary
    /// ones given up. For a URL that had a copy, a permanent error marks it
    /// deleted and removes its mirror file (the file first: a crash between
    /// the two leaves the URL to be refreshed again, never a record that
    /// says deleted beside a file that is not); temporary errors leave it as
    /// it was. Returns false, having done nothing, for a URL without a copy:
    /// the usual error handling applies.
    pub(super) fn refresh_failed(
        &mut self,
        item: &Item,
        error: ErrorInfo,
        status: Option<u16>,
    ) -> bool {
        let Ok(Some(record)) = self.current_record(item.id) else {
            return false;
        };
        let Some(before @ (State::Saved | State::Fetched)) = state_before(&record) else {
            return false;
        };
        let ErrorInfo { class, count, .. } = error;
        let message = error.message.clone();
        if class == ErrorClass::Temporary {
            self.update_and(item.id, Some(item), |r| {
                r.state = before;
                let errors =
                    crate::text::counted(u64::from(count), "temporary error", "temporary errors");
                r.reason =
                    format!("refresh failed: gave up after {errors}: {message}; the copy is kept");
                r.error = Some(error);
                r.fetched_ms = Some(now_ms());
                set_outcome(
                    r,
                    format!("temporary errors, given up: {message}; copy kept"),
                );
            });
            self.stats.unrefreshed += 1;
            return true;
        }
        // Inline: one unlink, far less than handing it to another thread.
        let removal = record
            .saved_path
            .as_deref()
            .map(|saved| mirror::remove(&self.plan.out, &item.url, Some(saved)));
        let (note, gone) = match &removal {
            None => (String::new(), true),
            Some(Ok(Removal::Removed(path))) => {
                (format!("; mirror file {} removed", path.display()), true)
            }
            Some(Ok(Removal::Missing(path))) => (
                format!("; no mirror file at {} to remove", path.display()),
                true,
            ),
            // Not this run's mirror: left as it is, and still named by
            // the record (a deleted URL is not refreshed again).
            Some(Ok(Removal::Elsewhere(path))) => (
                format!(
                    "; its mirror file {} lies outside this run's mirror {}: left in place",
                    path.display(),
                    self.plan.out.display()
                ),
                false,
            ),
            Some(Err(e)) => (
                format!("; the mirror file could not be removed: {e}"),
                false,
            ),
        };
        self.update_and(item.id, Some(item), |r| {
            r.state = State::Deleted;
            r.reason = format!("deleted: {message} on refresh{note}");
            r.status = status;
            r.error = Some(error);
            r.fetched_ms = Some(now_ms());
            if gone {
                // What described the copy goes with it: a deleted page
                // showing a size and an excerpt it no longer has misleads.
                r.saved_path = None;
                r.size = None;
                r.content_type = None;
                r.excerpt = None;
                r.etag = None;
                r.last_modified = None;
            }
            set_outcome(r, format!("gone: {message}; marked deleted{note}"));
        });
        // Not an error of the crawl's: the page is gone, and the log says
        // deleted, not error.
        self.stats.deleted += 1;
        if removal.is_some() {
            // The file is gone: the record says so now, not with the group
            // (a crash before it would leave a record of a missing copy).
            self.write_held_now();
        }
        true
    }
}
