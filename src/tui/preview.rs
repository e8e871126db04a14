//! The rule form's live preview (SPEC §4): how many of the URLs in the log
//! the rule as typed holds for, and the first few of them. The rule is
//! compiled alone, as a `may-not-have` filter, so that its verdict says
//! whether it held; each logged URL is judged on what the log keeps of it
//! (link depth, content type, and the address when the rule needs one),
//! off the UI task, reporting as it goes, and a newer preview stops it.

use std::sync::Arc;

use crate::rules::model::{Condition, Filter, Rule, RuleSet};
use crate::rules::verdict::Pending;
use crate::rules::{CompiledRules, Known, Scratch, TraceMode, UrlFacts};
use crate::store::UrlLog;

/// Matching URLs kept as samples.
pub const SAMPLES: usize = 3;

/// Records between two progress reports (and two checks of whether a
/// newer preview replaced this one); small under test, so that a stop can
/// be seen.
const PROGRESS_EVERY: u64 = if cfg!(test) { 10 } else { 20_000 };

/// The preview so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Preview {
    /// Records looked at.
    pub scanned: u64,
    /// Records in the log when the count started.
    pub total: u64,
    /// URLs the rule holds for.
    pub matched: u64,
    /// URLs it may hold for once their content type is known (not fetched
    /// yet).
    pub undecided: u64,
    /// The first URLs it holds for, in discovery order.
    pub samples: Vec<String>,
    pub done: bool,
}

/// The rule to preview, as a filter whose verdict says whether it held:
/// its condition (negated when the rule is), under the conditions of the
/// blocks that hold it (`context`), which a URL must meet for the rule to
/// be looked at at all.
pub fn draft(condition: Condition, negate: bool, context: Vec<Condition>) -> Arc<CompiledRules> {
    let own = if negate {
        Condition::Not(Box::new(condition))
    } else {
        condition
    };
    let mut all = context;
    all.push(own);
    let mut rule = Rule::new("preview", 0);
    rule.condition = Some(Condition::All(all));
    rule.filter = Some(Filter::MayNotHave);
    Arc::new(CompiledRules::new(&RuleSet {
        rules: vec![rule],
        ..RuleSet::default()
    }))
}

/// Judges every logged URL by `rules` (from [`draft`]); `progress` gets
/// the counts every so often, and the walk ends early when `stop` says so.
pub fn count(
    log: &UrlLog,
    rules: &CompiledRules,
    progress: &dyn Fn(&Preview),
    stop: &dyn Fn() -> bool,
) -> Preview {
    let mut preview = Preview {
        total: log.len(),
        ..Preview::default()
    };
    // The URLs logged when the count started: a running crawl adds more
    // as it goes, which would count beyond the total.
    let last = log.last_id().ok().flatten().unwrap_or(0);
    let mut scratch: Scratch = rules.scratch();
    let mut stopped = false;
    let _ = log.scan_briefs(None, Some(last), |id, brief| {
        let mut known = Known {
            link_depth: brief.link_depth,
            content_type: None,
            address: None,
        };
        let mut holds = |known: &Known| {
            let mut parsed = None;
            let mut facts = UrlFacts::logged(brief.url, known, &mut parsed)?.with_host_address();
            facts.content_type = brief.content_type;
            let verdict = rules.evaluate(&facts, &mut scratch, TraceMode::Off);
            Some((!verdict.filtered_by.is_empty(), verdict.pending))
        };
        let mut judged = holds(&known);
        // An address rule: the record keeps the address the URL was
        // fetched from.
        if let Some((false, pending)) = judged
            && pending.contains(Pending::ADDRESS)
            && let Ok(Some(record)) = log.get(id)
            && record.address.is_some()
        {
            known.address = record.address;
            judged = holds(&known);
        }
        preview.scanned += 1;
        match judged {
            Some((true, _)) => {
                preview.matched += 1;
                if preview.samples.len() < SAMPLES {
                    preview.samples.push(brief.url.to_string());
                }
            }
            Some((false, pending)) if pending.contains(Pending::CONTENT_TYPE) => {
                preview.undecided += 1;
            }
            _ => {}
        }
        if preview.scanned.is_multiple_of(PROGRESS_EVERY) {
            if stop() {
                stopped = true;
                return false;
            }
            progress(&preview);
        }
        true
    });
    preview.done = !stopped;
    preview
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::model::{Case, Field, Matcher, Test};
    use crate::store::{Change, State, UrlRecord};

    fn test(field: Field, matcher: Matcher) -> Condition {
        Condition::Test(Test {
            field,
            matcher,
            case: Case::Insensitive,
        })
    }

    /// A log of 40 URLs: `/a/0` … `/a/19` and `/b/0` … `/b/19`, the even
    /// ones fetched as HTML from 127.0.0.1, the odd ones still queued.
    fn log(dir: &std::path::Path) -> UrlLog {
        let log = UrlLog::open(&dir.join("db"), 1 << 20).expect("log");
        let records: Vec<UrlRecord> = (0..40)
            .map(|i| {
                let fetched = i % 2 == 0;
                UrlRecord {
                    url: format!("http://h/{}/{}", if i < 20 { "a" } else { "b" }, i % 20),
                    state: if fetched { State::Saved } else { State::Queued },
                    content_type: fetched.then(|| "text/html".to_string()),
                    address: fetched.then(|| [127, 0, 0, 1].into()),
                    link_depth: 1,
                    ..UrlRecord::default()
                }
            })
            .collect();
        let changes: Vec<Change<'_>> = records
            .iter()
            .map(|record| Change::Discover {
                record,
                enqueue: None,
            })
            .collect();
        log.apply(&changes).expect("fill");
        log
    }

    #[test]
    fn counts_what_the_rule_holds_for_with_the_first_samples() {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = log(dir.path());
        let rules = draft(
            test(Field::Path, Matcher::Prefix("/a/".into())),
            false,
            Vec::new(),
        );
        let reports = std::cell::RefCell::new(Vec::new());
        let got = count(
            &log,
            &rules,
            &|p| reports.borrow_mut().push(p.clone()),
            &|| false,
        );
        assert_eq!((got.scanned, got.total, got.matched), (40, 40, 20));
        assert_eq!(
            got.samples,
            ["http://h/a/0", "http://h/a/1", "http://h/a/2"]
        );
        assert!(got.done);
        assert_eq!(reports.borrow().len(), 4, "one every 10 records");
        // Negated: the other half.
        let negated = count(
            &log,
            &draft(
                test(Field::Path, Matcher::Prefix("/a/".into())),
                true,
                Vec::new(),
            ),
            &|_| {},
            &|| false,
        );
        assert_eq!(negated.matched, 20);
        assert_eq!(negated.samples[0], "http://h/b/0");
        // A nested rule is looked at only inside its block: `/b/…0`.
        let nested = count(
            &log,
            &draft(
                test(Field::Path, Matcher::Suffix("0".into())),
                false,
                vec![test(Field::Path, Matcher::Prefix("/b/".into()))],
            ),
            &|_| {},
            &|| false,
        );
        assert_eq!(nested.samples, ["http://h/b/0", "http://h/b/10"]);
    }

    /// A content-type rule holds for the fetched URLs it names and cannot
    /// tell yet for the queued ones; an address rule reads the address the
    /// record keeps.
    #[test]
    fn deferred_fields_from_what_the_log_keeps() {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = log(dir.path());
        let html = count(
            &log,
            &draft(
                test(Field::ContentType, Matcher::Exact("text/html".into())),
                false,
                Vec::new(),
            ),
            &|_| {},
            &|| false,
        );
        assert_eq!((html.matched, html.undecided), (20, 20));
        let loopback = count(
            &log,
            &draft(
                test(
                    Field::Address,
                    Matcher::Cidr("127.0.0.0/8".parse().unwrap()),
                ),
                false,
                Vec::new(),
            ),
            &|_| {},
            &|| false,
        );
        assert_eq!(loopback.matched, 20, "{loopback:?}");
    }

    #[test]
    fn a_newer_preview_stops_this_one() {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = log(dir.path());
        let rules = draft(
            test(Field::Path, Matcher::Prefix("/".into())),
            false,
            Vec::new(),
        );
        let got = count(&log, &rules, &|_| {}, &|| true);
        assert!(!got.done);
        assert_eq!(got.scanned, PROGRESS_EVERY, "stops at its first check");
    }
}
