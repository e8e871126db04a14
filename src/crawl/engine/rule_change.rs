//! Rules that change under a crawl (SPEC §2.6): new rules from the console
//! or a changed rules file during the crawl, or a config whose rules differ
//! from those the log recorded when a crawl starts on it (edited between
//! two runs). Either way, queued URLs the rules in force no longer fetch
//! leave the queues, logged as filtered by the rule that now refuses them;
//! filtered URLs they fetch are met again (`unfilter`); and the log records
//! the rules (`UrlLog::set_rules_seen`) for the next run to compare with.

use std::sync::Arc;

use super::{Engine, Item, NewRules};
use crate::crawl::report::{layer, refusal, retrace, trace_lines};
use crate::rules::dialect::{Dialect, DialectChoice, parse_text};
use crate::rules::{CompiledRules, Verdict};
use crate::store::State;

/// When the rules changed, as a URL's trace and reason say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RulesChange {
    /// Applied from the console, or a rules file changed on disk.
    DuringTheCrawl,
    /// The config's rules differ from those the log recorded.
    SinceTheLastRun,
}

impl RulesChange {
    /// The trace layer of a URL the change queued or dropped.
    pub(super) fn layer(self) -> &'static str {
        match self {
            RulesChange::DuringTheCrawl => "live-rules",
            RulesChange::SinceTheLastRun => "changed-rules",
        }
    }

    /// Added to the reason of a URL the change queued or dropped.
    pub(super) fn note(self) -> &'static str {
        match self {
            RulesChange::DuringTheCrawl => "new rules applied during the crawl",
            RulesChange::SinceTheLastRun => "rules changed since the last run",
        }
    }

    /// The trace layer's text for a queued URL the change dropped.
    fn dropped(self) -> &'static str {
        match self {
            RulesChange::DuringTheCrawl => "rules changed during the crawl",
            RulesChange::SinceTheLastRun => "the config's rules changed since the last run",
        }
    }

    /// The trace layer's text for a filtered URL the change queued.
    pub(super) fn queued(self) -> &'static str {
        match self {
            RulesChange::DuringTheCrawl => {
                "filtered under earlier rules; queued when new rules were applied during the crawl"
            }
            RulesChange::SinceTheLastRun => {
                "filtered under the rules of an earlier run; queued because the config's rules changed since"
            }
        }
    }
}

impl Engine {
    /// The rules as native TOML ([`super::native_text`]), for the log to
    /// record and to compare with when the crawl starts. Without it the
    /// engine does neither (benchmarks, most tests).
    pub fn with_rules_text(mut self, text: impl Into<Arc<str>>) -> Engine {
        self.rules_text = Some(text.into());
        self
    }

    /// New rules: queued URLs they no longer fetch leave the queues and are
    /// logged as filtered by the new rule (SPEC §2.6).
    pub(super) fn swap_rules(&mut self, new: NewRules) {
        let rules = new.compiled;
        self.scratch = rules.scratch();
        self.rule_hits = vec![0; rules.rule_info().len()];
        self.rules_version += 1;
        self.rules_text = Some(new.text);
        let before = std::mem::replace(&mut self.rules, rules);
        self.rules_changed(Some(&before), RulesChange::DuringTheCrawl);
    }

    /// What follows a change from the rules `before` to those in force:
    /// queued URLs they no longer fetch leave the queues, filtered URLs
    /// they fetch are met again (when `before` is known: only URLs it
    /// refused), and the log records the rules.
    fn rules_changed(&mut self, before: Option<&CompiledRules>, change: RulesChange) {
        let failures = self.log_failures;
        let rules = self.rules.clone();
        let mut scratch = rules.scratch();
        let mut dropped = Vec::new();
        self.frontier.retain(|item| {
            let verdict = item.verdict_now(&rules, &mut scratch);
            if verdict.fetch {
                true
            } else {
                dropped.push((item.clone(), verdict));
                false
            }
        });
        for (item, verdict) in dropped {
            self.drop_for_new_rules(item, verdict, change);
        }
        // And those waiting on disk only, a chunk at a time.
        self.filter_on_disk(|engine, item, verdict| {
            engine.drop_for_new_rules(item, verdict, change)
        });
        // Filtered URLs the new rules would fetch are met again.
        if let Some(before) = before {
            self.stats.queued_by_new_rules += self.unfilter(before, change);
        }
        // The group too, before the rules are recorded: its verdicts are
        // theirs.
        self.commit_deferred();
        if self.log_failures == failures {
            self.record_rules();
        } else {
            self.say(
                "URL log: the rules are not recorded as applied, since the log \
                 failed above; the next run on it compares its rules with those recorded before",
            );
        }
    }

    /// Records the rules in force in the log, after what they changed.
    fn record_rules(&mut self) {
        let Some(text) = self.rules_text.clone() else {
            return;
        };
        // A log that failed to write takes nothing more.
        if self.stats.log_error.is_some() {
            return;
        }
        if let Err(e) = self.log.set_rules_seen(&text) {
            self.say(&format!("URL log: recording the rules: {e}"));
        }
    }

    /// A crawl started on a log whose recorded rules differ from its own
    /// (the config edited between two runs) applies the change as if it
    /// were made during the crawl. With no rules to compare with (a new
    /// log, one from a build before this record, or rules that no longer
    /// read), queued URLs the rules refuse still leave the queues, but no
    /// filtered URL is met again: what refused it is not known.
    pub(super) fn compare_rules_with_the_log(&mut self) {
        let Some(text) = self.rules_text.clone() else {
            return;
        };
        let seen = match self.log.rules_seen() {
            Ok(seen) => seen,
            Err(e) => {
                self.say(&format!("URL log: the rules of the last run: {e}"));
                None
            }
        };
        let before = match seen {
            Some(seen) if *seen == *text => return,
            Some(seen) => self.before_rules(&seen),
            None => None,
        };
        self.rules_changed(before.as_ref(), RulesChange::SinceTheLastRun);
    }

    /// A queued URL the new rules no longer fetch: out of its queue, logged
    /// as filtered by the new rule.
    pub(super) fn drop_for_new_rules(&mut self, item: Item, verdict: Verdict, change: RulesChange) {
        let rules = self.rules.clone();
        // The new rules judged it: a hit for the rule that filtered it.
        self.count_hits(&verdict);
        self.stats.dropped_by_new_rules += 1;
        self.stats.filtered += 1;
        let reason = format!("{} ({})", refusal(&rules, &verdict), change.note());
        let trace = trace_lines(&rules, &verdict);
        self.update_and(item.id, Some(&item), |r| {
            r.state = State::Filtered;
            r.reason = reason;
            // The new verdict, as a URL these rules filter when it is met
            // is recorded: in no queue. It used to keep its old queue and
            // flags, which the filtered state contradicted.
            r.filtered = true;
            r.fetch = false;
            r.save = verdict.save;
            r.follow = verdict.follow;
            r.queue = "none".into();
            r.priority = verdict.priority;
            r.meta = verdict.meta.clone();
            r.source = verdict.source.clone();
            r.trace.push(layer(change.layer(), change.dropped().into()));
            retrace(&mut r.trace, trace);
        });
    }

    /// The rules a log recorded, compiled again; `None` (with a notice)
    /// when they no longer read, e.g. recorded by a build whose rules file
    /// said something this one does not: filtered URLs are then not met
    /// again, and the rules in force are recorded in their place.
    fn before_rules(&self, text: &str) -> Option<CompiledRules> {
        match parse_text(
            "the URL log's rules",
            text,
            DialectChoice::Given(Dialect::Native),
        ) {
            Ok(loaded) => Some(CompiledRules::new(&loaded.parsed.rules)),
            Err(e) => {
                self.say(&format!(
                    "the rules of the log's last run do not read ({e}); \
                     URLs they filtered are not judged again"
                ));
                None
            }
        }
    }
}
