//! New rules that allow what earlier rules filtered (SPEC §2.6's other
//! half): a URL logged as filtered that the rules before the change refuse
//! and the new ones fetch, judged alike on what the log keeps of it (URL,
//! link depth, content type, the address its fetch resolved to), is met
//! again and queued like a URL met for the first time (depth limits and a
//! known robots.txt still apply). What the crawler refused itself
//! (robots.txt, a depth limit, `rel=nofollow`) is left as it is: the rules
//! before the change fetch those too. So is a URL an address rule refused
//! in a log written before records kept the address (format 2): the log
//! cannot tell. The what-if counts the same URLs as "filtered → fetched"
//! (`tui/whatif.rs`, which reads records where the address decides too).
//! Without this, unblocking an area in the console would
//! change nothing for the URLs of it already met: the log knows them, so
//! links to them are never judged again.
//!
//! Two steps: the briefs (packed many to an entry) give the candidates the
//! new rules fetch and the old ones refused, or left waiting for the
//! address; the records of those then settle it, with the address. With
//! an address rule that waits for every URL (`config/demo.toml`'s
//! "loopback addresses only"), the second step reads every filtered
//! record the new rules would fetch without it, those robots.txt or a
//! depth limit refused included, once a change.

use std::net::IpAddr;

use url::Url;

use super::Engine;
use super::rule_change::RulesChange;
use crate::crawl::report::{DEPTH_LAYER, NOFOLLOW_LAYER, ROBOTS_LAYER};
use crate::crawl::sitemaps::FILE_LAYER;
use crate::rules::verdict::Pending;
use crate::rules::{CompiledRules, Known, Scratch, TraceMode, UrlFacts};
use crate::store::{State, UrlRecord};

/// Candidates met again, then written, at a time.
const CHUNK: usize = 1024;

impl Engine {
    /// Queues the filtered URLs the rules now in force would fetch; their
    /// records are written as newly met (with the change's layer first in
    /// the trace), and the queues take them once written. Returns how
    /// many; a read that fails is said on stderr and counted in
    /// `log_failures`.
    pub(super) fn unfilter(&mut self, before: &CompiledRules, change: RulesChange) -> u64 {
        let rules = self.rules.clone();
        let mut scratch = rules.scratch();
        let mut before_scratch = before.scratch();
        // First the candidates, from the briefs packed many to an entry (a
        // log of a million URLs is walked without decoding its records):
        // filtered, and fetched by the rules now.
        let mut candidates = Vec::new();
        let walked = self.log.scan_briefs(None, None, |id, brief| {
            let judged = Judged {
                url: brief.url,
                link_depth: brief.link_depth,
                content_type: brief.content_type,
                address: None,
            };
            if brief.state == State::Filtered
                && judged.fetched_now(&rules, &mut scratch, before, &mut before_scratch)
                    != Change::No
            {
                candidates.push(id);
            }
            true
        });
        if let Err(e) = walked {
            self.say(&format!("URL log: {e}"));
            self.log_failures += 1;
        }
        // Then each candidate's record, met again unless something other
        // than the rules refused it.
        let mut queued = 0;
        let log = self.log.clone();
        for chunk in candidates.chunks(CHUNK) {
            let mut records = log.reader();
            for &id in chunk {
                let record = match records.get(id) {
                    Ok(Some(record)) => record,
                    Ok(None) => continue,
                    Err(e) => {
                        self.say(&format!("URL log: id {id}: {e}"));
                        self.log_failures += 1;
                        continue;
                    }
                };
                if record.state != State::Filtered
                    || !refused_by_rules(&record)
                    || Judged::of(&record).fetched_now(
                        &rules,
                        &mut scratch,
                        before,
                        &mut before_scratch,
                    ) != Change::Fetched
                {
                    continue;
                }
                let Ok(url) = Url::parse(&record.url) else {
                    continue;
                };
                if self.met_again(id, url, &record, change) {
                    queued += 1;
                }
            }
            // Written (then queued) a chunk at a time.
            self.commit(&[]);
        }
        queued
    }
}

/// What the log keeps of a URL that rules can judge again.
struct Judged<'a> {
    url: &'a str,
    link_depth: u32,
    content_type: Option<&'a str>,
    /// Where its fetch went, when it got as far as DNS.
    address: Option<IpAddr>,
}

/// What changed rules do for a filtered URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    /// `now` fetches it and `before` did not.
    Fetched,
    /// `now` fetches it as far as it can tell without the address, and
    /// `before` waited for the address too: its record may tell.
    AddressDecides,
    No,
}

impl<'a> Judged<'a> {
    fn of(record: &'a UrlRecord) -> Judged<'a> {
        Judged {
            url: &record.url,
            link_depth: record.link_depth,
            content_type: record.content_type.as_deref(),
            address: record.address,
        }
    }

    /// Whether `now` fetches it where `before` did not.
    fn fetched_now(
        &self,
        now: &CompiledRules,
        now_scratch: &mut Scratch,
        before: &CompiledRules,
        before_scratch: &mut Scratch,
    ) -> Change {
        let known = Known {
            link_depth: self.link_depth,
            address: self.address,
            ..Known::default()
        };
        let mut parsed = None;
        let Some(mut facts) = UrlFacts::logged(self.url, &known, &mut parsed) else {
            return Change::No;
        };
        facts.content_type = self.content_type;
        if !now.evaluate(&facts, now_scratch, TraceMode::Off).fetches() {
            return Change::No;
        }
        let was = before.evaluate(&facts, before_scratch, TraceMode::Off);
        if !was.fetches() {
            Change::Fetched
        } else if self.address.is_none() && was.pending.contains(Pending::ADDRESS) {
            Change::AddressDecides
        } else {
            Change::No
        }
    }
}

impl Engine {
    /// A fetch's refusal reached under rules since replaced (it was under
    /// way when they changed): logged as filtered after `unfilter` ran, so
    /// judged here the same way, and met again when the rules in force
    /// fetch what `before` refused. True when it was.
    pub(super) fn unfilter_late(&mut self, id: u64, before: &CompiledRules) -> bool {
        let record = match self.current_record(id) {
            Ok(Some(record)) => record,
            Ok(None) => return false,
            Err(e) => {
                self.say(&format!("URL log: id {id}: {e}"));
                return false;
            }
        };
        let rules = self.rules.clone();
        let fetched_now = Judged::of(&record).fetched_now(
            &rules,
            &mut rules.scratch(),
            before,
            &mut before.scratch(),
        ) == Change::Fetched;
        if !fetched_now || record.state != State::Filtered || !refused_by_rules(&record) {
            return false;
        }
        let Ok(url) = Url::parse(&record.url) else {
            return false;
        };
        // The refusal is written first (the group stays open): a batch
        // writes the URLs met again before the group's updates, which
        // would put the refusal back over it.
        self.write_held_now();
        let met = self.met_again(id, url, &record, RulesChange::DuringTheCrawl);
        if met {
            self.stats.queued_by_new_rules += 1;
            self.commit(&[]);
        }
        met
    }
}

/// Filtered by the rules alone: not a link the page said not to follow, a
/// sitemap file (met again as a page it would be read as one), a start
/// URL (the crawl refused those at startup), nor a URL robots.txt or a
/// depth limit refused (the rules do not decide those, whatever they say).
pub fn refused_by_rules(record: &UrlRecord) -> bool {
    !record.trace.iter().any(|t| {
        t.rule == NOFOLLOW_LAYER
            || t.rule == FILE_LAYER
            || t.rule == "start"
            || t.rule == DEPTH_LAYER
            || (t.rule == ROBOTS_LAYER && t.step == "disallowed")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::TraceLine;

    fn with_layer(rule: &str, step: &str) -> UrlRecord {
        UrlRecord {
            trace: vec![TraceLine {
                rule: rule.into(),
                step: step.into(),
                ..TraceLine::default()
            }],
            ..UrlRecord::default()
        }
    }

    /// What the crawler refused itself is never met again by new rules;
    /// a rule's refusal, or robots.txt's allowing, is no bar.
    #[test]
    fn only_refusals_by_the_rules_are_met_again() {
        for (rule, step) in [
            (ROBOTS_LAYER, "disallowed"),
            (DEPTH_LAYER, "beyond max_link_depth"),
            (NOFOLLOW_LAYER, "not followed"),
            (FILE_LAYER, "sitemap"),
            ("start", "start URL"),
        ] {
            assert!(!refused_by_rules(&with_layer(rule, step)), "{rule}");
        }
        assert!(refused_by_rules(&with_layer(ROBOTS_LAYER, "allowed")));
        assert!(refused_by_rules(&with_layer("3", "matched")));
    }
}
