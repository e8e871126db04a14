//! The outcome of evaluating one URL: the verdict flags, the queue they
//! imply, and the trace of what each visited rule did (SPEC §1.3 step 4).
//!
//! A trace entry names its rule by index into
//! [`super::compile::CompiledRules::rule_info`], so a trace is a small
//! vector of numbers; [`super::compile::CompiledRules::describe`] turns it
//! into words.

use super::model::Field;

/// The six fetch queues of SPEC §2.2, plus `none` for URLs not fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Queue {
    User,
    Redirect,
    Index,
    IndexFollow,
    Follow,
    Refresh,
    None,
}

impl Queue {
    pub fn name(self) -> &'static str {
        match self {
            Queue::User => "user",
            Queue::Redirect => "redirect",
            Queue::Index => "index",
            Queue::IndexFollow => "index_follow",
            Queue::Follow => "follow",
            Queue::Refresh => "refresh",
            Queue::None => "none",
        }
    }
}

/// A small set of the deferred fields, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Pending(u8);

impl Pending {
    pub const CONTENT_TYPE: Pending = Pending(1);
    pub const ADDRESS: Pending = Pending(2);

    pub fn of(field: Field) -> Pending {
        match field {
            Field::ContentType => Pending::CONTENT_TYPE,
            Field::Address => Pending::ADDRESS,
            _ => Pending(0),
        }
    }

    pub fn union(self, other: Pending) -> Pending {
        Pending(self.0 | other.0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn contains(self, other: Pending) -> bool {
        self.0 & other.0 == other.0 && other.0 != 0
    }

    /// The field names, for output.
    pub fn names(self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.contains(Pending::ADDRESS) {
            out.push("address");
        }
        if self.contains(Pending::CONTENT_TYPE) {
            out.push("content_type");
        }
        out
    }
}

/// What happened at one rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The condition (after `negate`) did not hold.
    NotMatched,
    /// The condition held and the rule applied what it sets.
    Matched,
    /// The condition needs a field not known yet; evaluated again later.
    Deferred,
    /// The rule is disabled (by the user, or its regex did not compile).
    Disabled,
    /// An earlier rule with `stop` ended processing.
    SkippedByStop,
    /// An earlier rule in the same `first_match` block took effect.
    SkippedByFirstMatch,
    /// An earlier rule that may end processing (`stop`, or the rest of
    /// its `first_match` block) was deferred: this one is evaluated with
    /// it, once the field it waits for is known.
    WaitsForDeferred,
}

impl Step {
    pub fn name(self) -> &'static str {
        match self {
            Step::NotMatched => "not-matched",
            Step::Matched => "matched",
            Step::Deferred => "deferred",
            Step::Disabled => "disabled",
            Step::SkippedByStop => "skipped-by-stop",
            Step::SkippedByFirstMatch => "skipped-by-first-match",
            Step::WaitsForDeferred => "waits-for-deferred",
        }
    }
}

/// One rule visited during evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceEntry {
    /// Index of the rule in document order (see `CompiledRules::rule_info`).
    pub rule: u32,
    pub step: Step,
    /// This rule's filter marked the URL filtered.
    pub filtered: bool,
    /// The rule set a priority that was ignored because its condition looks
    /// at the content type (WebCopy: priority only works on URL rules).
    pub priority_ignored: bool,
}

/// The decision for one URL, with its reasons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub fetch: bool,
    pub save: bool,
    pub follow: bool,
    /// A filter vetoed the URL: it is never fetched.
    pub filtered: bool,
    /// Exalead shift: −2 (highest) … 2 (lowest).
    pub priority: i8,
    /// Whether a URL that is not fetched is kept in the URL log.
    pub log: bool,
    pub meta: Vec<(String, String)>,
    pub source: Option<String>,
    /// Fields that deferred rules still wait for; empty when final.
    pub pending: Pending,
    /// The rules whose filters vetoed the URL.
    pub filtered_by: Vec<u32>,
    /// The last rule that set `fetch`, if any (else the disposition decided).
    pub fetch_set_by: Option<u32>,
    pub trace: Vec<TraceEntry>,
}

impl Verdict {
    /// Fetched at all: the flags say so and no filter vetoed it.
    pub fn fetches(&self) -> bool {
        self.fetch && !self.filtered
    }

    /// The queue a discovered link goes to (SPEC §1.3): save and follow →
    /// `index_follow`, save only → `index`, otherwise `follow`; `none` when
    /// not fetched.
    pub fn queue(&self) -> Queue {
        if !self.fetches() {
            Queue::None
        } else if self.save && self.follow {
            Queue::IndexFollow
        } else if self.save {
            Queue::Index
        } else {
            Queue::Follow
        }
    }
}
