//! What-if before applying a rule edit (SPEC §4): how many of the URLs
//! already in the log would change verdict under the edited rules, split by
//! what the crawl had done with them (seen, queued, fetched), with a few
//! sample URLs per kind of change. The count is folded record by record so
//! the console can run it off the UI task over millions of URLs and show
//! progress as it goes.

use std::sync::Arc;

use crate::rules::{CompiledRules, Known, Scratch, TraceMode, UrlFacts, Verdict};
use crate::store::{State, UrlRecord};

/// Sample URLs kept per kind of change.
pub const SAMPLES: usize = 5;

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
}

/// Compares two rule sets record by record.
#[derive(Debug)]
pub struct WhatIf {
    old: Arc<CompiledRules>,
    new: Arc<CompiledRules>,
    old_scratch: Scratch,
    new_scratch: Scratch,
    pub report: Report,
}

impl WhatIf {
    pub fn new(old: Arc<CompiledRules>, new: Arc<CompiledRules>, total: u64) -> WhatIf {
        WhatIf {
            old_scratch: old.scratch(),
            new_scratch: new.scratch(),
            old,
            new,
            report: Report {
                total,
                ..Report::default()
            },
        }
    }

    /// Folds one logged URL into the report.
    pub fn add(&mut self, record: &UrlRecord) {
        self.report.scanned += 1;
        let Ok(url) = url::Url::parse(&record.url) else {
            return;
        };
        let known = Known {
            link_depth: record.link_depth,
            content_type: record.content_type.clone(),
            address: None,
        };
        let facts = UrlFacts::new(&url, &known);
        let old = self
            .old
            .evaluate(&facts, &mut self.old_scratch, TraceMode::Off);
        let new = self
            .new
            .evaluate(&facts, &mut self.new_scratch, TraceMode::Decisive);
        let Some(change) = classify(&old, &new) else {
            return;
        };
        let tally = &mut self.report.tallies[change as usize];
        tally.seen += 1;
        match record.state {
            State::Queued | State::InFlight => tally.queued += 1,
            State::Fetched | State::Saved => tally.fetched += 1,
            _ => {}
        }
        if tally.samples.len() < SAMPLES {
            let why = why(&self.new, &new);
            tally.samples.push(format!("{} — {why}", record.url));
        }
    }
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
        let r = &w.report;
        assert_eq!(r.scanned, 5);
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
        assert_eq!(r.changed(), 4);
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
