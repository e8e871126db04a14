//! Meeting a URL (SPEC §2.1): a start URL, a link, a redirect target, a
//! sitemap or a sitemap entry goes through the rules (phase 1), the depth
//! limits and, when its host's robots.txt is already known, robots.txt;
//! it is deduplicated against the log, and written with the next update in
//! one transaction, then queued in memory.

use rustc_hash::FxHashMap;
use std::time::Instant;

use url::Url;

use super::{Engine, Item, ItemKind};
use crate::crawl::frontier::level_of;
use crate::crawl::report::{
    DEPTH_LAYER, NOFOLLOW_LAYER, beyond_depth, layer, refusal, robots_line, trace_lines,
};
use crate::crawl::sitemaps::{ENTRY_LAYER, FILE_LAYER};
use crate::rules::{Known, Queue, TraceMode, UrlFacts};
use crate::store::{Change, State, StoreError, UrlRecord};

/// How the reason of a URL logged as filtered only for rel=nofollow
/// begins: a resumed crawl finds them by it (`Engine::recall_nofollowed`).
pub(super) const NOT_FOLLOWED: &str = "not followed: rel=nofollow";

/// Where a URL came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Origin {
    Start,
    Link,
    /// A redirect target, `hops` from the first URL; the target of a
    /// sitemap is read as a sitemap.
    Redirect {
        hops: u8,
        kind: ItemKind,
    },
    /// A sitemap file at nesting `level`; `why` says who named it.
    Sitemap {
        level: u8,
        why: String,
    },
    /// A page entry of the sitemap at this URL.
    SitemapEntry(String),
    /// A link that says rel=nofollow everywhere on the page at this URL:
    /// logged with that reason, not fetched.
    Nofollow(String),
}

/// How the trace says a redirect target's hop (`redirect hop 2`) and a
/// sitemap entry's sitemap (`sitemap entry from URL`): written when a URL
/// is met, read back when it is met again ([`Origin::of_logged`]).
const HOP: &str = "redirect hop ";
const ENTRY_FROM: &str = "sitemap entry from ";

impl Origin {
    /// How a logged URL was met, as its trace says: a redirect target (with
    /// its hop), a sitemap's page entry, or else a link. A URL met again
    /// (`met_again`) keeps it, and so its queue and the trace's first layers.
    fn of_logged(record: &UrlRecord) -> Origin {
        for line in &record.trace {
            if line.rule == "redirect"
                && let Some(hops) = line.detail.strip_prefix(HOP).and_then(|n| n.parse().ok())
            {
                return Origin::Redirect {
                    hops,
                    kind: ItemKind::Page,
                };
            }
            if line.rule == ENTRY_LAYER
                && let Some(from) = line.detail.strip_prefix(ENTRY_FROM)
            {
                return Origin::SitemapEntry(from.to_string());
            }
        }
        Origin::Link
    }

    fn kind(&self) -> ItemKind {
        match self {
            Origin::Redirect { kind, .. } => *kind,
            Origin::Sitemap { level, .. } => ItemKind::Sitemap { level: *level },
            _ => ItemKind::Page,
        }
    }
}

/// A newly met URL waiting to be written, and queued once it has an id.
#[derive(Debug)]
pub(super) struct Discovered {
    record: UrlRecord,
    enqueue: Option<(u8, u8)>,
    /// The frontier item to queue (without its id yet); `None` when the URL
    /// is only logged, not fetched.
    draft: Option<Item>,
    /// The id of the draft's host in `Engine::hosts`.
    host: Option<u32>,
    /// Logged only because of rel=nofollow (see `Engine::nofollowed`).
    nofollowed: bool,
}

impl Engine {
    /// A URL met during the crawl: through the rules, deduplicated against
    /// the log, queued if fetched. A URL logged only because its links
    /// said rel=nofollow is queued after all when met any other way.
    pub(super) fn met(&mut self, url: Url, referrer: Option<u64>, link_depth: u32, origin: Origin) {
        let known = match self.log.id_of(url.as_str()) {
            Ok(known) => known,
            Err(e) => {
                self.say(&format!("URL log: {e}"));
                return;
            }
        };
        let plain = !matches!(origin, Origin::Nofollow(_));
        if let Some(id) = known {
            let revivable = plain && self.nofollowed.contains(&id);
            if !revivable {
                return; // known: deduplicated
            }
        }
        // Met earlier in this group, not written yet: the same rule as for
        // a logged URL, applied to the held-back discovery.
        let waiting = known
            .is_none()
            .then(|| self.pending_at.get(url.as_str()).copied())
            .flatten();
        if let Some(at) = waiting
            && !(plain && self.pending[at].nofollowed)
        {
            return;
        }
        let key = url.as_str().to_owned();
        let Some(discovered) = self.assess(url, referrer, link_depth, origin) else {
            return;
        };
        // So that the loop can tell whether it could be fetched at once
        // (`Engine::group_stalls`).
        self.pending_hosts.extend(discovered.host);
        match (known, waiting) {
            (Some(id), _) => self.revive(id, discovered),
            (None, Some(at)) => self.pending[at] = discovered,
            (None, None) => {
                self.pending_at.insert(key, self.pending.len());
                self.pending.push(discovered);
            }
        }
    }

    /// The record (and frontier item) for a URL met for the first time;
    /// `None` when the rules refuse it without a record.
    fn assess(
        &mut self,
        url: Url,
        referrer: Option<u64>,
        link_depth: u32,
        origin: Origin,
    ) -> Option<Discovered> {
        let known = Known {
            link_depth,
            ..Known::default()
        };
        let verdict = self.rules.evaluate(
            &UrlFacts::new(&url, &known),
            &mut self.scratch,
            TraceMode::Decisive,
        );
        let mut trace = Vec::new();
        match &origin {
            Origin::Start => trace.push(layer("start", "a start URL".into())),
            Origin::Redirect { hops, kind } => {
                trace.push(layer("redirect", format!("{HOP}{hops}")));
                if let ItemKind::Sitemap { level } = kind {
                    let why = format!("sitemap (level {level}) reached by a redirect");
                    trace.push(layer(FILE_LAYER, why));
                }
            }
            Origin::Sitemap { why, .. } => trace.push(layer(FILE_LAYER, why.clone())),
            Origin::SitemapEntry(from) => {
                trace.push(layer(ENTRY_LAYER, format!("{ENTRY_FROM}{from}")));
            }
            Origin::Nofollow(page) => {
                let why = format!("rel=nofollow on link from {page}");
                trace.push(layer(NOFOLLOW_LAYER, why));
            }
            Origin::Link => {}
        }
        trace.extend(trace_lines(&self.rules, &verdict));
        let s = &self.plan.settings;
        let mut refused = (!verdict.fetch).then(|| refusal(&self.rules, &verdict));
        // The crawler's own vetoes (depth, rel=nofollow, robots.txt) are
        // always logged, whatever the rules' `log` says.
        let mut veto = false;
        if refused.is_none() && origin != Origin::Start {
            if let Some((why, detail)) =
                beyond_depth(&url, link_depth, s.max_link_depth, s.max_path_depth)
            {
                refused = Some(why);
                trace.push(layer(DEPTH_LAYER, detail));
            }
            veto = refused.is_some();
        }
        // robots.txt and rel=nofollow also turn the verdict's `fetch` off
        // in the record (depth limits leave the rules' verdict as it was).
        let mut no_fetch = false;
        let mut nofollowed = false;
        if refused.is_none()
            && let Origin::Nofollow(page) = &origin
        {
            refused = Some(format!("{NOT_FOLLOWED} on link from {page}"));
            (veto, nofollowed, no_fetch) = (true, true, true);
        }
        // robots.txt now when it is known for the host; otherwise (and
        // always for what is queued) at dispatch.
        let mut robots = None;
        if refused.is_none()
            && let Some(check) = self.robots_known(&url)
            && !check.allowed
        {
            refused = Some(check.refusal());
            (veto, no_fetch) = (true, true);
            trace.push(robots_line(&check));
            robots = Some(check.text);
        }
        // A URL to be fetched is evaluated again with its address and
        // headers; its hits are counted then, from the complete verdict.
        if refused.is_some() {
            self.count_hits(&verdict);
        }
        if refused.is_some() && !verdict.log && !veto {
            // No record, so no dedupe either: counted apart, per link met.
            self.stats.unlogged += 1;
            return None; // the rules say: no record kept
        }
        let queue = match origin {
            Origin::Start | Origin::Sitemap { .. } => Queue::User,
            Origin::Redirect { .. } => Queue::Redirect,
            Origin::Link | Origin::SitemapEntry(_) | Origin::Nofollow(_) => verdict.queue(),
        };
        let record = UrlRecord {
            url: url.to_string(),
            state: if refused.is_some() {
                State::Filtered
            } else {
                State::Queued
            },
            reason: refused
                .clone()
                .unwrap_or_else(|| format!("queued in {}", queue.name())),
            fetch: verdict.fetch && !no_fetch,
            save: verdict.save,
            follow: verdict.follow,
            filtered: verdict.filtered || refused.is_some(),
            queue: if refused.is_some() {
                "none".into()
            } else {
                queue.name().into()
            },
            priority: verdict.priority,
            link_depth,
            referrer,
            discovered_ms: crate::crawl::report::now_ms(),
            robots,
            meta: verdict.meta.clone(),
            source: verdict.source.clone(),
            trace,
            ..UrlRecord::default()
        };
        let level = level_of(verdict.priority);
        let q = crate::crawl::frontier::slot(queue).unwrap_or(0) as u8;
        let hops = match origin {
            Origin::Redirect { hops, .. } => hops,
            _ => 0,
        };
        let kind = origin.kind();
        let draft = refused.is_none().then_some(Item {
            id: 0,
            url,
            link_depth,
            hops,
            level,
            queue,
            attempts: 0,
            kind,
        });
        // Written with the next update (or `commit`), in one transaction:
        // each costs about 0.1 ms in sled however small, and a crash then
        // never separates a page from the links found on it (but for a
        // page of more links than a group holds, written in groups as met,
        // `write_if_many_met`: a crash between two fetches it again).
        let host = draft
            .as_ref()
            .map(|item| self.hosts.id(&item.url, Instant::now()));
        Some(Discovered {
            record,
            enqueue: draft.as_ref().map(|_| (level as u8, q)),
            draft,
            host,
            nofollowed,
        })
    }

    /// A URL logged as not followed (rel=nofollow) met through a followed
    /// link: rewritten as newly met, and queued if it is to be fetched.
    /// Written like any other change ([`Engine::commit`]): after the
    /// in-flight marks held back, and with the open group if there is one
    /// (written early when a slot is free for it, `Engine::group_stalls`);
    /// queued only once that write is in ([`Engine::write`]).
    fn revive(&mut self, id: u64, discovered: Discovered) {
        if discovered.draft.is_none() {
            return; // refused on other grounds too: the first reason stands
        }
        self.nofollowed.remove(&id);
        self.revived.push((id, discovered));
        self.commit(&[]);
    }

    /// A URL logged as filtered, met again because new rules would fetch
    /// it (`unfilter.rs`): judged as a link met for the first time (depth
    /// limits, a known robots.txt), and if it is to be fetched, rewritten
    /// as newly met, with the change's layer (`live-rules`,
    /// `changed-rules`) first in its trace, and queued once written. False
    /// when it stays filtered.
    pub(super) fn met_again(
        &mut self,
        id: u64,
        url: Url,
        old: &UrlRecord,
        change: super::rule_change::RulesChange,
    ) -> bool {
        // Judged again, not met: its hits were counted when it was met, and
        // are counted from its final verdict if it is fetched now.
        let hits = std::mem::take(&mut self.rule_hits);
        let assessed = self.assess(url, old.referrer, old.link_depth, Origin::of_logged(old));
        self.rule_hits = hits;
        let Some(mut discovered) = assessed else {
            return false;
        };
        if discovered.draft.is_none() {
            return false;
        }
        let record = &mut discovered.record;
        record
            .trace
            .insert(0, layer(change.layer(), change.queued().into()));
        record.reason = format!("{} ({})", record.reason, change.note());
        record.discovered_ms = old.discovered_ms;
        self.pending_hosts.extend(discovered.host);
        self.nofollowed.remove(&id);
        self.revived.push((id, discovered));
        true
    }

    /// Queues the URLs of [`Engine::revive`] whose write is in.
    fn queue_revived(&mut self, revived: Vec<(u64, Discovered)>, now: Instant) {
        for (id, discovered) in revived {
            let Some(mut item) = discovered.draft else {
                continue;
            };
            self.stats.filtered = self.stats.filtered.saturating_sub(1);
            item.id = id;
            let host = self.hosts.id(&item.url, now);
            // Its id may lie beyond the window's cursor: through the
            // window, so that a refill cannot load it a second time.
            self.queue_known(host, item);
        }
    }

    /// [`Engine::commit`] of changes that own their records: held back
    /// as they are when a group is open, so that nothing is cloned.
    pub(super) fn commit_held(&mut self, held: Vec<Held>) {
        match &mut self.deferred {
            None => self.write_held(held),
            Some(deferred) => {
                for change in held {
                    deferred.hold(change);
                }
                // Writes the group once it holds too much.
                self.commit(&[]);
            }
        }
    }

    /// Writes the pending discoveries and `extra` changes in one transaction,
    /// then queues the new URLs in memory. While a group of outcomes is
    /// open ([`Engine::deferred`] set), holds them back instead, up to
    /// [`DEFER_AT_MOST`] changes, for [`Engine::commit_deferred`].
    pub(super) fn commit(&mut self, extra: &[Change<'_>]) {
        let Some(deferred) = &mut self.deferred else {
            return self.write(extra);
        };
        for change in extra {
            deferred.hold(Held::from(change));
        }
        if self.pending.len() + self.revived.len() + deferred.changes.len() >= DEFER_AT_MOST {
            let held = deferred.take();
            self.write_held(held);
        }
    }

    /// Writes the URLs met so far once a group's worth wait: a page of
    /// 100,000 links would otherwise hold all their records, and then one
    /// transaction of them all, in memory at once (about 300 MB). Written
    /// before the page's own outcome is safe: a crash in between fetches
    /// the page again, and its links are known then.
    pub(super) fn write_if_many_met(&mut self) {
        // The open group's changes count too: written with them, the batch
        // stays within a group's size.
        if self.group_size() >= DEFER_AT_MOST {
            self.write_held_now();
        }
    }

    /// [`Engine::write`] of changes held back.
    fn write_held(&mut self, held: Vec<Held>) {
        self.write(&held.iter().map(Held::change).collect::<Vec<_>>());
    }

    /// Closes the group: writes what [`Engine::commit`] held back, with the
    /// in-flight marks and pending discoveries. With no group open, writes
    /// those alone (when there are any): "write everything now".
    pub(super) fn commit_deferred(&mut self) {
        let held = self
            .deferred
            .take()
            .map(|mut d| d.take())
            .unwrap_or_default();
        self.write_held(held);
    }

    /// Writes everything held now, like [`Engine::commit_deferred`], but
    /// leaves the group open (empty) for the rest of the burst: for a
    /// change that must not wait, such as a deletion whose mirror file is
    /// already gone.
    pub(super) fn write_held_now(&mut self) {
        let held = self
            .deferred
            .as_mut()
            .map(Deferred::take)
            .unwrap_or_default();
        self.write_held(held);
    }

    /// Changes waiting to be written: the pending discoveries, the URLs
    /// revived, and the open group's.
    pub(super) fn group_size(&self) -> usize {
        let held = self.deferred.as_ref().map_or(0, |d| d.changes.len());
        self.pending.len() + self.revived.len() + held
    }

    /// [`Engine::commit`] now, after the in-flight marks held back.
    fn write(&mut self, extra: &[Change<'_>]) {
        let pending = std::mem::take(&mut self.pending);
        self.pending_at.clear();
        self.pending_hosts.clear();
        let marks = std::mem::take(&mut self.marks);
        self.marks_since = None;
        let mut changes: Vec<Change<'_>> = Change::updates(&marks).collect();
        changes.extend(pending.iter().map(|d| Change::Discover {
            record: &d.record,
            enqueue: d.enqueue,
        }));
        let revived = std::mem::take(&mut self.revived);
        let revived_at = changes.len();
        changes.extend(revived.iter().map(|(id, d)| Change::Update {
            id: *id,
            record: &d.record,
            enqueue: d.enqueue,
        }));
        changes.extend(extra.iter().cloned());
        if changes.is_empty() {
            return;
        }
        // Once the log failed, nothing more is written: a page's outcome
        // written after its lost links would be a page logged fetched whose
        // links the log never got.
        let applied = match self.stats.log_error {
            Some(_) => None,
            None => Some(self.log.apply(&changes)),
        };
        let ids: Vec<Result<Option<u64>, ()>> = match applied {
            None => vec![Err(()); changes.len()],
            Some(Ok(ids)) => ids.into_iter().map(Ok).collect(),
            // The database itself failing (a full disk, an I/O error) would
            // fail each change alike: the crawl stops (the summary and the
            // console say why); what was in flight is fetched again on resume.
            Some(Err(StoreError::Db(e))) => {
                self.log_failed(&e);
                vec![Err(()); changes.len()]
            }
            Some(Err(e)) => {
                self.say(&format!(
                    "URL log: {e}; writing its {} changes one at a time",
                    changes.len()
                ));
                self.write_one_by_one(&changes)
            }
        };
        self.log_failures += ids.iter().filter(|id| id.is_err()).count() as u64;
        // The records the batch updated after its marks: a copy kept from
        // before is stale now (`Engine::recent`).
        let updated: Vec<u64> = changes[marks.len()..]
            .iter()
            .filter_map(|change| match change {
                Change::Update { id, .. } => Some(*id),
                _ => None,
            })
            .collect();
        drop(changes);
        let marked = marks.len();
        // The marks as written: their outcomes, when they come, start
        // from these (unless the batch changed them again, below).
        for ((id, record), written) in marks.into_iter().zip(&ids) {
            if written.is_ok() {
                self.recent.insert(id, record);
            }
        }
        for id in &updated {
            self.recent.remove(id);
        }
        let now = Instant::now();
        let (written, refused): (Vec<_>, Vec<_>) = revived
            .into_iter()
            .zip(&ids[revived_at..])
            .partition(|(_, id)| id.is_ok());
        self.queue_revived(written.into_iter().map(|(r, _)| r).collect(), now);
        // Still logged as not followed: a later followed link revives them.
        self.nofollowed
            .extend(refused.iter().map(|((id, _), _)| *id));
        for (discovered, id) in pending.into_iter().zip(ids.into_iter().skip(marked)) {
            // Already known, twice in the batch, or refused by the log.
            let Ok(Some(id)) = id else { continue };
            self.stats.discovered += 1;
            if discovered.nofollowed {
                self.nofollowed.insert(id);
            }
            match discovered.draft {
                None => self.stats.filtered += 1,
                Some(mut item) => {
                    item.id = id;
                    let host = match discovered.host {
                        Some(host) => host,
                        None => self.hosts.id(&item.url, now),
                    };
                    // Queued in memory: read again when it is marked in
                    // flight. One left on disk is read back with its
                    // record when the window reaches it (`fill_slot`),
                    // long after this copy would have made way.
                    if self.queue_new(host, item) {
                        self.recent.insert(id, discovered.record);
                    }
                }
            }
        }
    }

    /// After a batch the log refused for one of its changes (a record in a
    /// damaged pack, one that does not encode): each change in its own
    /// transaction, in order, so that the bad one loses only itself, not
    /// the whole group of pages with it. A change refused alone is reported
    /// and dropped: an in-flight mark then leaves its URL queued in the log
    /// until its outcome is written; a lost outcome leaves it queued or in
    /// flight there (fetched again on resume); a lost discovery is missing
    /// from this crawl unless another page links to it (its page's outcome
    /// may be written, so that page is not fetched again).
    fn write_one_by_one(&mut self, changes: &[Change<'_>]) -> Vec<Result<Option<u64>, ()>> {
        let mut ids = Vec::with_capacity(changes.len());
        for change in changes {
            if self.stats.log_error.is_some() {
                ids.push(Err(()));
                continue;
            }
            ids.push(match self.log.apply(std::slice::from_ref(change)) {
                Ok(written) => Ok(written.into_iter().next().flatten()),
                Err(StoreError::Db(e)) => {
                    self.log_failed(&e);
                    Err(())
                }
                Err(e) => {
                    self.say(&format!("URL log: {e}; this change is not written"));
                    Err(())
                }
            });
        }
        ids
    }

    /// The log's database failed to write (a full disk, a file size limit,
    /// an I/O error): the crawl stops, and says why in its summary and the
    /// console ([`Stats::log_error`]); nothing more is written.
    pub(super) fn log_failed(&mut self, error: &crate::store::DbError) {
        if self.stats.log_error.is_none() {
            self.stats.log_error = Some(error.to_string());
        }
        self.stopping = true;
    }
}

/// Changes held back in one group at most, pending discoveries included:
/// bounds the transaction (a sitemap can discover thousands).
const DEFER_AT_MOST: usize = 4096;

/// Writes held back while a group of outcomes is open, so that all of them
/// are one transaction (`[crawl] commit_ms`). Atomic like any batch: after
/// a crash, either every page of the group is recorded with its links, or
/// none is and all are fetched again, as when the crash comes before they
/// are handled.
#[derive(Debug)]
pub(super) struct Deferred {
    /// In the order they were made: a later change to a record wins.
    changes: Vec<Held>,
    /// Per record: where its latest update is in `changes`, so that reading
    /// it back costs the same however large the group, and where its
    /// latest change of any kind is.
    latest: FxHashMap<u64, Latest>,
    /// When the group was opened: it is written once `commit_ms` old.
    pub(super) since: Instant,
}

impl Deferred {
    /// An empty group, opened at `since`.
    pub(super) fn opened(since: Instant) -> Deferred {
        Deferred {
            changes: Vec::new(),
            latest: FxHashMap::default(),
            since,
        }
    }

    /// Holds one more change, after those held already. An update that
    /// follows an update of the same record with nothing else about that
    /// record in between replaces it (keeping its enqueue): the log ends
    /// the same (records, state and frontier indexes, counts; only the
    /// content-type codebook may miss a type no written record has), and
    /// the group writes the record once instead of twice. That is the
    /// common case, a page's outcome after its in-flight mark. Should the
    /// log refuse the later record, the earlier one is lost with it.
    pub(super) fn hold(&mut self, held: Held) {
        let at = self.changes.len();
        let id = match &held {
            Held::Discover { .. } => return self.changes.push(held),
            Held::Update { id, .. } | Held::Enqueue { id, .. } | Held::Dequeue { id, .. } => *id,
        };
        let latest = self.latest.get(&id).copied();
        if let Held::Update {
            record,
            enqueue: None,
            ..
        } = held
        {
            if let Some(Latest {
                update: Some(i),
                any,
            }) = latest
                && i == any
                && let Some(Held::Update { record: held, .. }) = self.changes.get_mut(i)
            {
                *held = record;
                return;
            }
            self.latest.insert(
                id,
                Latest {
                    update: Some(at),
                    any: at,
                },
            );
            return self.changes.push(Held::Update {
                id,
                record,
                enqueue: None,
            });
        }
        let update = match held {
            Held::Update { .. } => Some(at),
            _ => latest.and_then(|l| l.update),
        };
        self.latest.insert(id, Latest { update, any: at });
        self.changes.push(held);
    }

    /// The record of `id`'s latest update, to be changed where it is held,
    /// when that update is also `id`'s latest change of any kind: then
    /// [`Deferred::hold`] would put a changed copy in its place, so
    /// changing it in place ends the same, without the copy. `None` when
    /// a later enqueue or dequeue of `id` (or no update) is held.
    pub(super) fn latest_update_mut(&mut self, id: u64) -> Option<&mut UrlRecord> {
        let Latest { update, any } = *self.latest.get(&id)?;
        match self.changes.get_mut(update.filter(|&at| at == any)?)? {
            Held::Update { record, .. } => Some(record),
            _ => None,
        }
    }

    /// The changes held so far, in order; the group stays open, empty.
    fn take(&mut self) -> Vec<Held> {
        self.latest.clear();
        std::mem::take(&mut self.changes)
    }

    /// The latest record held back for `id`: what the log will hold, for
    /// a second change to the same URL in the group.
    pub(super) fn record(&self, id: u64) -> Option<UrlRecord> {
        self.record_ref(id).cloned()
    }

    /// [`Deferred::record`] without the copy.
    pub(super) fn record_ref(&self, id: u64) -> Option<&UrlRecord> {
        match self.changes.get(self.latest.get(&id)?.update?)? {
            Held::Update { record, .. } => Some(record),
            _ => None,
        }
    }
}

/// Where a record's latest changes are in a [`Deferred`] group.
#[derive(Debug, Clone, Copy)]
struct Latest {
    /// Its latest update, if any.
    update: Option<usize>,
    /// Its latest change of any kind (update, enqueue, dequeue).
    any: usize,
}

/// A [`Change`] that owns its record.
#[derive(Debug)]
pub(super) enum Held {
    Discover {
        record: UrlRecord,
        enqueue: Option<(u8, u8)>,
    },
    Update {
        id: u64,
        record: UrlRecord,
        enqueue: Option<(u8, u8)>,
    },
    Enqueue {
        id: u64,
        level: u8,
        queue: u8,
    },
    Dequeue {
        id: u64,
        level: u8,
        queue: u8,
    },
}

impl Held {
    pub(super) fn from(change: &Change<'_>) -> Held {
        match *change {
            Change::Discover { record, enqueue } => Held::Discover {
                record: record.clone(),
                enqueue,
            },
            Change::Update {
                id,
                record,
                enqueue,
            } => Held::Update {
                id,
                record: record.clone(),
                enqueue,
            },
            Change::Enqueue { id, level, queue } => Held::Enqueue { id, level, queue },
            Change::Dequeue { id, level, queue } => Held::Dequeue { id, level, queue },
        }
    }

    fn change(&self) -> Change<'_> {
        match self {
            Held::Discover { record, enqueue } => Change::Discover {
                record,
                enqueue: *enqueue,
            },
            Held::Update {
                id,
                record,
                enqueue,
            } => Change::Update {
                id: *id,
                record,
                enqueue: *enqueue,
            },
            Held::Enqueue { id, level, queue } => Change::Enqueue {
                id: *id,
                level: *level,
                queue: *queue,
            },
            Held::Dequeue { id, level, queue } => Change::Dequeue {
                id: *id,
                level: *level,
                queue: *queue,
            },
        }
    }
}

#[cfg(test)]
mod tests;
