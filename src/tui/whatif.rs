//! What-if before applying a rule edit (SPEC §4): how many of the URLs
//! already in the log would change verdict under the edited rules, split by
//! what the crawl had done with them (seen, queued, fetched), with a few
//! sample URLs per kind of change. The count is folded record by record so
//! the console can run it off the UI task over millions of URLs and show
//! progress as it goes. Only URLs the edit can change at all (the
//! [`Probe`]) are evaluated under both rule sets. The walk reads the
//! briefs; a filtered URL's record is read only when an address rule may
//! have refused it, for the address it keeps.

mod probe;

use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::cli::priority_name;
use crate::rules::verdict::Pending;
use crate::rules::{CompiledRules, Known, Scratch, TraceMode, UrlFacts, Verdict};
use crate::store::{Brief, State, UrlLog, UrlRecord};

pub use probe::Probe;

/// Records between two progress reports of one worker (and two checks of
/// whether it should stop); small under test, so a stop can be seen.
const PROGRESS_EVERY: u64 = if cfg!(test) { 100 } else { 50_000 };

/// Ids in one range of a walk over the log (see [`count_log`]); small under
/// test, so that a test log has several.
const CHUNK_IDS: u64 = if cfg!(test) { 64 } else { 16_384 };

/// Ranges of one walk at most: past `MAX_RANGES * CHUNK_IDS` ids (a
/// billion), ranges grow instead.
const MAX_RANGES: u64 = 65_536;

/// Sample URLs kept per kind of change.
pub const SAMPLES: usize = 5;

/// What a count knows of a URL's address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Address {
    /// Given (`None`: the log keeps none).
    Known(Option<IpAddr>),
    /// In the URL's record, read only when the brief cannot decide.
    InTheRecord,
}

/// How a URL's verdict changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Fetched under the applied rules, refused under the edited ones.
    NowRefused,
    /// Refused under the applied rules, fetched under the edited ones.
    NowFetched,
    /// Fetched either way, but saved, followed, queued or prioritised
    /// differently.
    Treatment,
}

impl Change {
    pub const ALL: [Change; 3] = [Change::NowRefused, Change::NowFetched, Change::Treatment];

    pub fn label(self) -> &'static str {
        match self {
            Change::NowRefused => "fetched → filtered",
            Change::NowFetched => "filtered → fetched",
            Change::Treatment => "save/follow/priority changes",
        }
    }
}

/// Counts for one kind of change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Every URL in the log.
    pub seen: u64,
    /// Still waiting (queued or in flight).
    pub queued: u64,
    /// Already fetched or saved.
    pub fetched: u64,
    /// `url — why`, at most [`SAMPLES`].
    pub samples: Vec<String>,
}

/// The what-if so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// Records looked at.
    pub scanned: u64,
    /// Records in the log when the count started.
    pub total: u64,
    pub done: bool,
    /// One per [`Change::ALL`].
    pub tallies: [Tally; 3],
}

impl Report {
    pub fn tally(&self, change: Change) -> &Tally {
        &self.tallies[change as usize]
    }

    /// URLs whose verdict changes at all.
    pub fn changed(&self) -> u64 {
        self.tallies.iter().map(|t| t.seen).sum()
    }

    /// Adds another worker's counts (its samples fill what is left).
    pub fn merge(&mut self, other: &Report) {
        self.scanned += other.scanned;
        for (mine, theirs) in self.tallies.iter_mut().zip(&other.tallies) {
            mine.seen += theirs.seen;
            mine.queued += theirs.queued;
            mine.fetched += theirs.fetched;
            let room = SAMPLES.saturating_sub(mine.samples.len());
            mine.samples
                .extend(theirs.samples.iter().take(room).cloned());
        }
    }
}

/// Compares two rule sets record by record.
#[derive(Debug)]
pub struct WhatIf {
    old: Arc<CompiledRules>,
    new: Arc<CompiledRules>,
    old_scratch: Scratch,
    new_scratch: Scratch,
    /// `None`: every URL is evaluated under both.
    probe: Option<(Arc<Probe>, Scratch)>,
    pub report: Report,
}

impl WhatIf {
    pub fn new(old: Arc<CompiledRules>, new: Arc<CompiledRules>, total: u64) -> WhatIf {
        WhatIf {
            old_scratch: old.scratch(),
            new_scratch: new.scratch(),
            probe: None,
            old,
            new,
            report: Report {
                total,
                ..Report::default()
            },
        }
    }

    /// Evaluates under both rule sets only the URLs `probe` marks.
    pub fn with_probe(mut self, probe: Option<Arc<Probe>>) -> WhatIf {
        self.probe = probe.map(|p| {
            let scratch = p.scratch();
            (p, scratch)
        });
        self
    }

    /// Folds one logged URL into the report, judged with its address when
    /// the log kept one.
    pub fn add(&mut self, record: &UrlRecord) {
        let brief = Brief {
            url: &record.url,
            state: record.state,
            link_depth: record.link_depth,
            content_type: record.content_type.as_deref(),
        };
        let by_rules = crate::crawl::engine::refused_by_rules(record);
        self.add_judged(&brief, Address::Known(record.address), Some(by_rules));
    }

    /// Folds one logged URL, read as a [`Brief`], into the report.
    pub fn add_brief(&mut self, record: &Brief<'_>) {
        self.add_judged(record, Address::Known(None), None);
    }

    /// [`WhatIf::add_brief`], unless the brief is not enough: filtered, and
    /// the applied rules fetch it as far as they can tell without its
    /// address (an address rule may have refused it, and its record keeps
    /// the address), or the edited rules fetch it (the crawler may have
    /// refused it itself, by `rel=nofollow` say, which its record's trace
    /// tells): then nothing is counted, and false says to [`WhatIf::add`]
    /// the record.
    pub fn add_brief_or_ask(&mut self, record: &Brief<'_>) -> bool {
        self.add_judged(record, Address::InTheRecord, None)
    }

    /// Counts the URL; false when it waits for the record. `by_rules`:
    /// whether only rules refused it, when the record was read.
    fn add_judged(&mut self, record: &Brief<'_>, address: Address, by_rules: Option<bool>) -> bool {
        let known = Known {
            link_depth: record.link_depth,
            content_type: None,
            address: match address {
                Address::Known(address) => address,
                Address::InTheRecord => None,
            },
        };
        // Logged URLs are normalized: most are cut into fields without
        // parsing them again; the rest are parsed (and skipped if they
        // do not parse).
        let mut parsed = None;
        let Some(mut facts) = UrlFacts::logged(record.url, &known, &mut parsed) else {
            self.report.scanned += 1;
            return true;
        };
        // Borrowed from the record rather than copied into `known`.
        facts.content_type = record.content_type;
        if let Some((probe, scratch)) = &mut self.probe
            && !probe.may_change(&facts, scratch)
        {
            self.report.scanned += 1;
            return true;
        }
        // No traces: the sample's reason comes from `filtered_by` and
        // `fetch_set_by`, which every mode fills, and a trace is a vector
        // allocated per URL.
        let old = self
            .old
            .evaluate(&facts, &mut self.old_scratch, TraceMode::Off);
        if address == Address::InTheRecord
            && record.state == State::Filtered
            && old.fetches()
            && old.pending.contains(Pending::ADDRESS)
        {
            return false;
        }
        // Filtered although the applied rules fetch it, with nothing left
        // pending (an address rule waits for DNS, when the address is not
        // given): refused by the crawler itself (robots.txt, a depth limit,
        // rel=nofollow), which no edit changes (an apply queues again what
        // only the rules filtered).
        if record.state == State::Filtered && old.fetches() && old.pending.is_empty() {
            self.report.scanned += 1;
            return true;
        }
        let new = self
            .new
            .evaluate(&facts, &mut self.new_scratch, TraceMode::Off);
        let change = classify(&old, &new);
        // A filtered URL the edit would fetch is queued again only if the
        // rules alone refused it (the engine's `unfilter` reads the same
        // trace): a link the page said not to follow stays as it is.
        if change == Some(Change::NowFetched) && record.state == State::Filtered {
            match by_rules {
                None if address == Address::InTheRecord => return false,
                Some(false) => {
                    self.report.scanned += 1;
                    return true;
                }
                _ => {}
            }
        }
        self.report.scanned += 1;
        let Some(change) = change else {
            return true;
        };
        let tally = &mut self.report.tallies[change as usize];
        tally.seen += 1;
        match record.state {
            State::Queued | State::InFlight => tally.queued += 1,
            State::Fetched | State::Saved => tally.fetched += 1,
            _ => {}
        }
        if tally.samples.len() < SAMPLES {
            let why = match change {
                // The rule that decides fetching may not be the one whose
                // edit changed the rest: the change itself says more.
                Change::Treatment => treatment(&old, &new),
                _ => why(&self.new, &new),
            };
            tally.samples.push(format!("{} — {why}", record.url));
        }
        true
    }
}

/// Counts over the whole log, `workers` threads taking ranges of
/// [`CHUNK_IDS`] ids in turn. `progress` gets the combined report every so
/// often; the walk ends early when `stop` says so (a newer what-if replaced
/// this one).
///
/// Small ranges handed out one by one rather than one half per thread:
/// when the crawl or anything else takes CPU from one thread, the other
/// walks more of the log instead of waiting for it at the end. Each range
/// keeps its own report and the reports are merged in id order, so the
/// samples are the first changes in id order whichever thread found them.
pub fn count_log(
    log: &UrlLog,
    old: &Arc<CompiledRules>,
    new: &Arc<CompiledRules>,
    probe: Option<&Arc<Probe>>,
    workers: usize,
    progress: &(dyn Fn(Report) + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Report {
    let total = log.len();
    let last = log.last_id().ok().flatten().unwrap_or(0);
    // Ids are given out in discovery order from 1. Ranges grow past
    // CHUNK_IDS when there would be more than MAX_RANGES of them, so that
    // a damaged counter (an absurd last id) cannot ask for a huge table.
    let chunk = CHUNK_IDS.max(last.div_ceil(MAX_RANGES));
    let ranges = last.div_ceil(chunk);
    // The next range to walk, taken by whichever worker is free.
    let next = AtomicU64::new(0);
    // One report per range, in id order; written when a worker reports
    // progress or finishes a range.
    let slots = Mutex::new(vec![Report::default(); ranges as usize]);
    let combined = |slots: &[Report]| {
        let mut all = Report {
            total,
            ..Report::default()
        };
        slots.iter().for_each(|r| all.merge(r));
        all
    };
    let workers = (workers.max(1) as u64).min(ranges.max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let (slots, combined, next) = (&slots, &combined, &next);
            scope.spawn(move || {
                let mut count =
                    WhatIf::new(old.clone(), new.clone(), total).with_probe(probe.cloned());
                let mut since = 0;
                let publish = |range: u64, report: &Report| {
                    let mut s = slots.lock().unwrap_or_else(|p| p.into_inner());
                    s[range as usize] = report.clone();
                    progress(combined(&s));
                };
                let mut stopped = stop();
                while !stopped {
                    let range = next.fetch_add(1, Ordering::Relaxed);
                    if range >= ranges {
                        break;
                    }
                    count.report = Report::default();
                    let (lo, hi) = (range * chunk, (range + 1).saturating_mul(chunk).min(last));
                    let _ = log.scan_briefs(Some(lo), Some(hi), |id, brief| {
                        // The record, for the address, only where the
                        // brief cannot decide.
                        if !count.add_brief_or_ask(&brief) {
                            match log.get(id) {
                                Ok(Some(record)) => count.add(&record),
                                _ => count.add_brief(&brief),
                            }
                        }
                        since += 1;
                        if since >= PROGRESS_EVERY {
                            since = 0;
                            if stop() {
                                stopped = true;
                                return false;
                            }
                            publish(range, &count.report);
                        }
                        true
                    });
                    let mut s = slots.lock().unwrap_or_else(|p| p.into_inner());
                    s[range as usize] = std::mem::take(&mut count.report);
                }
            });
        }
    });
    let slots = slots.into_inner().unwrap_or_else(|p| p.into_inner());
    let mut report = combined(&slots);
    report.done = !stop();
    report
}

fn classify(old: &Verdict, new: &Verdict) -> Option<Change> {
    match (old.fetches(), new.fetches()) {
        (true, false) => Some(Change::NowRefused),
        (false, true) => Some(Change::NowFetched),
        (true, true)
            if (old.save, old.follow, old.priority, old.queue())
                != (new.save, new.follow, new.priority, new.queue()) =>
        {
            Some(Change::Treatment)
        }
        _ => None,
    }
}

/// What changes for a URL fetched either way: saving, following,
/// priority (the queue follows from the first two).
fn treatment(old: &Verdict, new: &Verdict) -> String {
    let flag = |on: bool, yes: &'static str, no: &'static str| if on { yes } else { no };
    let mut parts = Vec::new();
    if old.save != new.save {
        let (was, now) = (old.save, new.save);
        parts.push(format!(
            "{} → {}",
            flag(was, "saved", "not saved"),
            flag(now, "saved", "not saved")
        ));
    }
    if old.follow != new.follow {
        let (was, now) = (old.follow, new.follow);
        parts.push(format!(
            "{} → {}",
            flag(was, "followed", "not followed"),
            flag(now, "followed", "not followed")
        ));
    }
    if old.priority != new.priority {
        parts.push(format!(
            "priority {} → {}",
            priority_name(old.priority),
            priority_name(new.priority),
        ));
    }
    parts.join(", ")
}

/// The rule that decided the new verdict, by number and name.
fn why(rules: &CompiledRules, verdict: &Verdict) -> String {
    let info = rules.rule_info();
    let rule = verdict
        .filtered_by
        .first()
        .copied()
        .or(verdict.fetch_set_by)
        .and_then(|i| info.get(i as usize));
    match rule {
        Some(r) => format!("rule {} ({})", r.number, r.name),
        None => format!("disposition {}", rules.disposition().name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::dialect::native;

    fn compiled(toml: &str) -> Arc<CompiledRules> {
        Arc::new(CompiledRules::new(
            &native::parse(toml).expect("rules").rules,
        ))
    }

    /// Writes `records` to `log`, as met.
    fn fill(log: &UrlLog, records: &[UrlRecord]) {
        let changes: Vec<crate::store::Change<'_>> = records
            .iter()
            .map(|record| crate::store::Change::Discover {
                record,
                enqueue: None,
            })
            .collect();
        log.apply(&changes).expect("fill");
    }

    fn record(url: &str, state: State) -> UrlRecord {
        UrlRecord {
            url: url.into(),
            state,
            link_depth: 1,
            ..UrlRecord::default()
        }
    }

    #[test]
    fn counts_each_kind_of_change_by_state() {
        let old = compiled(
            "[[rules]]\nname='no pdf'\nmatch={field='extension',exact='pdf'}\naction='exclude'\n",
        );
        let new = compiled(
            "[[rules]]\nname='no docs'\nmatch={field='path',prefix='/docs/'}\naction='exclude'\n[[rules]]\nname='keep nothing from /a/'\nmatch={field='path',prefix='/a/'}\naction='exclude-scan'\n",
        );
        let mut w = WhatIf::new(old, new, 5);
        w.add(&record("http://h/docs/1.html", State::Fetched));
        w.add(&record("http://h/docs/2.html", State::Queued));
        w.add(&record("http://h/x.pdf", State::Filtered));
        w.add(&record("http://h/a/page", State::Saved));
        w.add(&record("http://h/other", State::Saved));
        // Refused by robots.txt (the rules fetch it): no edit changes that.
        w.add(&record("http://h/docs/private.html", State::Filtered));
        let r = &w.report;
        assert_eq!(r.scanned, 6);
        let refused = r.tally(Change::NowRefused);
        assert_eq!((refused.seen, refused.queued, refused.fetched), (2, 1, 1));
        assert_eq!(
            refused.samples[0],
            "http://h/docs/1.html — rule 1 (no docs)"
        );
        let fetched = r.tally(Change::NowFetched);
        assert_eq!((fetched.seen, fetched.queued, fetched.fetched), (1, 0, 0));
        assert_eq!(
            r.tally(Change::Treatment).seen,
            1,
            "/a/ is now scanned only"
        );
        assert_eq!(
            r.tally(Change::Treatment).samples[0],
            "http://h/a/page — saved → not saved",
            "the change itself, not the rule deciding the fetch"
        );
        assert_eq!(r.changed(), 4);
    }

    #[test]
    fn the_parallel_count_over_a_log_equals_the_plain_one() {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = UrlLog::open(&dir.path().join("db"), 1 << 20).expect("log");
        let records: Vec<UrlRecord> = (0..1000)
            .map(|i| {
                let state = [State::Queued, State::Fetched, State::Filtered][i % 3];
                record(
                    &format!("http://h/{}/{i}", ["docs", "a", "x"][i % 3]),
                    state,
                )
            })
            .collect();
        fill(&log, &records);
        let old = compiled("");
        let new = compiled(
            "[[rules]]\nname='no docs'\nmatch={field='path',prefix='/docs/'}\naction='exclude'\n",
        );
        let mut plain = WhatIf::new(old.clone(), new.clone(), 1000);
        records.iter().for_each(|r| plain.add(r));
        for workers in [1, 2, 3] {
            let got = count_log(&log, &old, &new, None, workers, &|_| {}, &|| false);
            assert!(got.done);
            assert_eq!(got.scanned, 1000, "{workers} workers");
            // Counts and samples alike: the samples are the first changes
            // in id order, whichever worker walked them.
            assert_eq!(got.tallies, plain.report.tallies, "{workers} workers");
            let refused = got.tally(Change::NowRefused);
            assert_eq!(refused.seen, 334);
            assert_eq!(refused.samples.len(), SAMPLES);
        }
        // Narrowed by the probe of the edit: the same counts and samples.
        let probe = Probe::of_edit(
            &native::parse("").expect("rules").rules,
            &native::parse(
                "[[rules]]\nname='no docs'\nmatch={field='path',prefix='/docs/'}\naction='exclude'\n",
            )
            .expect("rules")
            .rules,
        )
        .map(Arc::new);
        assert_eq!(probe.as_ref().map(|p| p.touched), Some(1));
        let narrowed = count_log(&log, &old, &new, probe.as_ref(), 2, &|_| {}, &|| false);
        assert_eq!(narrowed.tallies, plain.report.tallies);
        assert_eq!(narrowed.scanned, 1000, "every URL is still looked at");
        let stopped = count_log(&log, &old, &new, None, 2, &|_| {}, &|| true);
        assert!(!stopped.done, "a stopped count says it is not done");
        assert!(
            stopped.scanned <= 2 * PROGRESS_EVERY,
            "each worker stops at its first check: {}",
            stopped.scanned
        );
    }

    /// A URL an address rule refused is counted on the address its record
    /// keeps, as the apply judges it: the count reads that record, and
    /// only for filtered URLs the brief cannot decide.
    #[test]
    fn a_url_an_address_rule_refused_counts_on_its_address() {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = UrlLog::open(&dir.path().join("db"), 1 << 20).expect("log");
        let refused = UrlRecord {
            address: Some([127, 0, 0, 1].into()),
            ..record("http://h/odd/1", State::Filtered)
        };
        // Refused by robots.txt before DNS: no address, no change.
        let robots = record("http://h/odd/3", State::Filtered);
        let fetched = UrlRecord {
            address: Some([127, 0, 0, 1].into()),
            ..record("http://h/even/2", State::Saved)
        };
        let records = [refused, robots, fetched];
        fill(&log, &records);
        let old = compiled(
            "[[rules]]\nname='no odd on loopback'\nmatch={all=[{field='path',prefix='/odd/'},{field='address',cidr='127.0.0.0/8'}]}\nfilter='may-not-have'\n",
        );
        let new = compiled("");
        let got = count_log(&log, &old, &new, None, 2, &|_| {}, &|| false);
        let now_fetched = got.tally(Change::NowFetched);
        assert_eq!(now_fetched.seen, 1, "{got:?}");
        assert!(now_fetched.samples[0].starts_with("http://h/odd/1 "));
        assert_eq!(got.changed(), 1, "{got:?}");
        let mut plain = WhatIf::new(old, new, 3);
        records.iter().for_each(|r| plain.add(r));
        assert_eq!(plain.report.tallies, got.tallies);
    }

    /// The stored content type reaches content-type rules, and URLs that
    /// are not plainly normalized (parsed in full) or not URLs at all are
    /// still counted as scanned.
    /// A URL the edit would fetch that the crawler refused itself (a link
    /// the page said not to follow) is not counted: applying the edit
    /// leaves it filtered, as the engine's `unfilter` does.
    #[test]
    fn a_link_not_followed_is_not_counted_as_fetched_again() {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = UrlLog::open(&dir.path().join("db"), 1 << 20).expect("log");
        let by_the_rule = record("http://other/a", State::Filtered);
        let not_followed = UrlRecord {
            trace: vec![crate::store::TraceLine {
                rule: "rel-nofollow".into(),
                step: "not followed".into(),
                ..crate::store::TraceLine::default()
            }],
            ..record("http://other/sponsored", State::Filtered)
        };
        let records = [by_the_rule, not_followed];
        fill(&log, &records);
        let old = compiled(
            "[[rules]]\nname='home'\nmatch={field='host',exact='h'}\nfilter='must-have'\n",
        );
        let new = compiled("");
        let got = count_log(&log, &old, &new, None, 2, &|_| {}, &|| false);
        let now_fetched = got.tally(Change::NowFetched);
        assert_eq!(now_fetched.seen, 1, "{got:?}");
        assert!(now_fetched.samples[0].starts_with("http://other/a "));
        assert_eq!(got.scanned, 2);
        let mut plain = WhatIf::new(old, new, 2);
        records.iter().for_each(|r| plain.add(r));
        assert_eq!(plain.report.tallies, got.tallies);
    }

    #[test]
    fn content_types_and_unusual_urls() {
        let old = compiled("");
        let new = compiled(
            "[[rules]]\nname='no pdf'\nmatch={field='content_type',exact='application/pdf'}\naction='exclude'\n",
        );
        let mut w = WhatIf::new(old, new, 5);
        let typed = |url: &str, content_type: Option<&str>| UrlRecord {
            content_type: content_type.map(str::to_string),
            ..record(url, State::Saved)
        };
        w.add(&typed("http://h/a", Some("application/pdf")));
        w.add(&typed("http://h/b", Some("text/html")));
        w.add(&typed("http://h/c", None));
        w.add(&typed(
            "http://user@[::1]:81/%7e/d",
            Some("application/pdf"),
        ));
        w.add(&typed("not a url", Some("application/pdf")));
        assert_eq!(w.report.scanned, 5);
        let refused = w.report.tally(Change::NowRefused);
        assert_eq!(refused.seen, 2, "{:?}", refused.samples);
        assert_eq!(refused.samples[0], "http://h/a — rule 1 (no pdf)");
        assert_eq!(
            refused.samples[1],
            "http://user@[::1]:81/%7e/d — rule 1 (no pdf)"
        );
    }

    /// A URL fetched either way is sampled with what changes for it.
    #[test]
    fn a_treatment_sample_says_each_change() {
        let old = compiled(
            "[[rules]]\nname='docs first'\nmatch={field='path',prefix='/docs/'}\npriority='high'\n",
        );
        let new = compiled(
            "[[rules]]\nname='docs first'\nmatch={field='path',prefix='/docs/'}\nset={follow=false}\n",
        );
        let mut w = WhatIf::new(old, new, 1);
        w.add(&record("http://h/docs/", State::Saved));
        assert_eq!(
            w.report.tally(Change::Treatment).samples,
            ["http://h/docs/ — followed → not followed, priority high → normal"]
        );
    }

    #[test]
    fn samples_are_capped() {
        let old = compiled("");
        let new = compiled("[[rules]]\nname='none'\naction='exclude'\n");
        let mut w = WhatIf::new(old, new, 0);
        for i in 0..20 {
            w.add(&record(&format!("http://h/{i}"), State::Fetched));
        }
        assert_eq!(w.report.tally(Change::NowRefused).seen, 20);
        assert_eq!(w.report.tally(Change::NowRefused).samples.len(), SAMPLES);
    }
}
