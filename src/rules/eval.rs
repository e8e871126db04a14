//! Evaluating one URL against compiled rules (SPEC §1.3).
//!
//! Two ways in, one walk: [`CompiledRules::evaluate`] first runs every
//! per-field matcher once to learn which atoms match, then walks only the
//! rules those atoms belong to (plus the always-visited ones);
//! [`CompiledRules::evaluate_naive`] walks every rule and tests each atom on
//! its own — the reference the fast path is tested and benchmarked against.
//! Both share [`walk`], so the rule semantics (last setting wins, sticky
//! filters, `stop`, `first_match`, deferral) live in one place.

use url::Url;

use super::compile::{Atom, AtomKind, CompiledRules, Expr, Hot, Op};
use super::facts::{Known, UrlError, UrlFacts, normalize};
use super::index::{FieldScratch, LiteralOp, lower_cased, lower_cased_ascii};
use super::model::Disposition;
use super::verdict::{Pending, Step, TraceEntry, Verdict};

/// How much of the trace to record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceMode {
    /// No trace: the verdict alone (the crawler's hot path, benchmarks).
    Off,
    /// The rules that matched, filtered or were deferred: what decided.
    Decisive,
    /// Every rule visited, matched or not, skipped and disabled ones too.
    Full,
}

/// Per-thread working memory for [`CompiledRules::evaluate`], reused across
/// URLs so that evaluation does not allocate for its bookkeeping.
#[derive(Debug)]
pub struct Scratch {
    matched: Vec<u64>,
    touched: Vec<u32>,
    candidates: Vec<u32>,
    /// `active[node] == generation` ⇔ the node held in this evaluation.
    active: Vec<u32>,
    /// `block_done[node] == generation` ⇔ its first_match block has ended.
    block_done: Vec<u32>,
    /// Nodes with a quiet truth one of whose atoms matched, sorted (a
    /// handful per URL, so a list beats a per-node array the walk would
    /// miss in cache).
    stirred: Vec<u32>,
    generation: u32,
    /// One per indexed field.
    fields: Vec<FieldScratch>,
}

/// Three-valued truth: a test on a field not known yet is `Unknown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Truth {
    True,
    False,
    Unknown,
}

impl From<bool> for Truth {
    fn from(b: bool) -> Truth {
        if b { Truth::True } else { Truth::False }
    }
}

impl CompiledRules {
    /// Working memory sized for these rules.
    pub fn scratch(&self) -> Scratch {
        Scratch {
            matched: vec![0; self.atoms.len().div_ceil(64)],
            touched: Vec::new(),
            candidates: Vec::new(),
            active: vec![0; self.nodes.len()],
            block_done: vec![0; self.nodes.len()],
            stirred: Vec::new(),
            generation: 0,
            fields: self.fields.iter().map(|f| f.scratch()).collect(),
        }
    }

    /// Normalizes `url` and evaluates it with the decisive trace: the
    /// convenient entry point for tools and tests.
    pub fn verdict(&self, url: &str, known: &Known) -> Result<(Url, Verdict), UrlError> {
        let url = normalize(url)?;
        let facts = UrlFacts::new(&url, known);
        let verdict = self.evaluate(&facts, &mut self.scratch(), TraceMode::Decisive);
        Ok((url, verdict))
    }

    /// Evaluates one URL: one pass per field, then the rules whose atoms
    /// matched.
    pub fn evaluate(
        &self,
        facts: &UrlFacts<'_>,
        scratch: &mut Scratch,
        mode: TraceMode,
    ) -> Verdict {
        scratch.generation = scratch.generation.wrapping_add(1);
        if scratch.generation == 0 {
            // Wrapped: old stamps could collide with the new generation.
            scratch.active.fill(0);
            scratch.block_done.fill(0);
            scratch.generation = 1;
        }
        self.match_atoms(facts, scratch);
        scratch.stirred.clear();
        let mut candidates = std::mem::take(&mut scratch.candidates);
        candidates.clear();
        for &atom in &scratch.touched {
            let (triggers, watchers) = self.links_of(atom);
            candidates.extend_from_slice(triggers);
            scratch.stirred.extend_from_slice(watchers);
        }
        // Sorted for a binary search: an atom shared by many negated rules
        // can stir hundreds.
        scratch.stirred.sort_unstable();
        let matched = std::mem::take(&mut scratch.matched);
        // An atom's bit is set only when its field is known, so a set bit
        // needs no further look; a clear one is `Unknown` on a deferred
        // field not known yet.
        let truth = |a: u32| {
            let (word, bit) = (a as usize / 64, 1u64 << (a % 64));
            if matched[word] & bit != 0 {
                Truth::True
            } else if self.deferred_atoms[word] & bit != 0
                && !facts.is_known(self.atoms[a as usize].test.field)
            {
                Truth::Unknown
            } else {
                Truth::False
            }
        };
        let verdict = if mode == TraceMode::Full {
            // A full trace names every rule, so walk them all.
            walk(
                self,
                (0..self.nodes.len() as u32).map(Visit::Node),
                &truth,
                &mut Marks::new(scratch, true),
                mode,
            )
        } else {
            // The triggered nodes (a handful) merged into the always-visited
            // ones (sorted once, when compiling; never triggered).
            candidates.sort_unstable();
            candidates.dedup();
            let Scratch {
                active,
                block_done,
                stirred,
                generation,
                ..
            } = scratch;
            let order = Merge {
                always: &self.always,
                at: 0,
                triggered: &candidates,
                stirred,
                quiet: &self.quiet,
                runs: mode == TraceMode::Off,
                rank: (u32::MAX, 0),
            };
            let mut marks = Marks {
                active,
                block_done,
                stirred: Some(stirred),
                generation: *generation,
            };
            walk(self, order, &truth, &mut marks, mode)
        };
        scratch.candidates = candidates;
        scratch.matched = matched;
        for &atom in &scratch.touched {
            scratch.matched[atom as usize / 64] &= !(1 << (atom % 64));
        }
        scratch.touched.clear();
        verdict
    }

    /// The reference evaluation: every rule in order, every atom tested on
    /// its own, nothing precomputed beyond the compiled regexes.
    pub fn evaluate_naive(
        &self,
        facts: &UrlFacts<'_>,
        scratch: &mut Scratch,
        mode: TraceMode,
    ) -> Verdict {
        scratch.generation = scratch.generation.wrapping_add(1).max(1);
        scratch.active.fill(0);
        scratch.block_done.fill(0);
        let order = (0..self.nodes.len() as u32).map(Visit::Node);
        walk(
            self,
            order,
            &|a| atom_truth(&self.atoms[a as usize], facts),
            &mut Marks::new(scratch, false),
            mode,
        )
    }

    /// Sets the bit of every atom that matches `facts`.
    fn match_atoms(&self, facts: &UrlFacts<'_>, scratch: &mut Scratch) {
        let Scratch {
            matched,
            touched,
            fields,
            ..
        } = scratch;
        let mut hit = |atom: u32| {
            let (word, bit) = (atom as usize / 64, 1u64 << (atom % 64));
            if matched[word] & bit == 0 {
                matched[word] |= bit;
                touched.push(atom);
            }
        };
        // Every text field but a lower-cased extension and the content type
        // is a slice of the URL: lower-case the URL once (ASCII, as
        // serialized) and take each field's lower-cased text from it.
        let url = facts.url;
        let (lower_url, url_ascii) = lower_cased_ascii(url);
        for (index, field_scratch) in self.fields.iter().zip(fields.iter_mut()) {
            if let Some(text) = facts.text_slice(index.field) {
                // Where `text` lies in the URL's buffer, if it does.
                let start = (text.as_ptr() as usize).wrapping_sub(url.as_ptr() as usize);
                let (lower, ascii) = match start
                    .checked_add(text.len())
                    .filter(|&end| end <= url.len())
                    .and_then(|end| lower_url.get(start..end))
                {
                    Some(lower) => (std::borrow::Cow::Borrowed(lower), url_ascii),
                    None => lower_cased_ascii(text),
                };
                index.scan_known(text, &lower, ascii, field_scratch, &mut hit);
            }
        }
        for &atom in &self.direct {
            if atom_truth(&self.atoms[atom as usize], facts) == Truth::True {
                hit(atom);
            }
        }
    }
}

/// One step of a walk: a node, or a run of simple always-visited nodes
/// (positions `from..to` in [`CompiledRules::always`]) none of which was
/// stirred, applied at once from [`super::compile::QuietRuns`].
#[derive(Debug, Clone, Copy)]
enum Visit {
    Node(u32),
    Run { from: usize, to: usize },
}

/// The always-visited nodes merged with the triggered ones (ascending, and
/// no node is in both), with runs of quiet simple nodes folded when `runs`.
struct Merge<'a> {
    always: &'a [u32],
    /// Next position in `always`.
    at: usize,
    triggered: &'a [u32],
    stirred: &'a [u32],
    quiet: &'a super::compile::QuietRuns,
    runs: bool,
    /// The last run's limit node and its rank in `always` (the number of
    /// always nodes before it), reused while the limit stays the same.
    rank: (u32, usize),
}

impl Iterator for Merge<'_> {
    type Item = Visit;

    fn next(&mut self) -> Option<Visit> {
        let next_triggered = self.triggered.first().copied().unwrap_or(u32::MAX);
        let Some(&id) = self.always.get(self.at) else {
            let (&first, rest) = self.triggered.split_first()?;
            self.triggered = rest;
            return Some(Visit::Node(first));
        };
        if next_triggered < id {
            self.triggered = &self.triggered[1..];
            return Some(Visit::Node(next_triggered));
        }
        let from = self.at;
        if !(self.runs && self.quiet.simple[from]) {
            self.at += 1;
            return Some(Visit::Node(id));
        }
        // Stirred nodes are always-visited ones, met in order.
        while self.stirred.first().is_some_and(|&n| n < id) {
            self.stirred = &self.stirred[1..];
        }
        let next_stirred = self.stirred.first().copied().unwrap_or(u32::MAX);
        if next_stirred == id {
            self.at += 1;
            return Some(Visit::Node(id));
        }
        let limit = next_triggered.min(next_stirred);
        let rank = if limit == u32::MAX {
            self.always.len()
        } else if self.rank.0 == limit {
            self.rank.1
        } else {
            let rank = from + self.always[from..].partition_point(|&n| n < limit);
            self.rank = (limit, rank);
            rank
        };
        let to = (self.quiet.next_plain[from] as usize).min(rank);
        self.at = to;
        Some(Visit::Run { from, to })
    }
}

/// `a.b.c`, `b.c`, `c`: the values a `domain` test can equal.
fn domain_suffixes(host: &str) -> impl Iterator<Item = &str> {
    std::iter::once(host).chain(host.match_indices('.').map(move |(i, _)| &host[i + 1..]))
}

/// Tests one atom on its own (the direct and naive path).
fn atom_truth(atom: &Atom, facts: &UrlFacts<'_>) -> Truth {
    let field = atom.test.field;
    if !facts.is_known(field) {
        return Truth::Unknown;
    }
    let insensitive = atom.test.case == super::model::Case::Insensitive;
    Truth::from(match &atom.kind {
        AtomKind::Always => true,
        AtomKind::Broken(_) => false,
        AtomKind::Range(range) => facts.range_value(field).is_some_and(|v| range.contains(v)),
        AtomKind::Cidr(cidr) => facts
            .address
            .is_some_and(|ip| field == super::model::Field::Address && cidr.contains(ip)),
        AtomKind::Regex(regex) => facts.text(field).is_some_and(|t| regex.is_match(&t)),
        AtomKind::Literal { op, needle } => {
            let Some(text) = facts.text(field) else {
                return Truth::False;
            };
            let text = if insensitive || *op == LiteralOp::Domain {
                lower_cased(&text).into_owned()
            } else {
                text.into_owned()
            };
            match op {
                LiteralOp::Exact => text == *needle,
                LiteralOp::Prefix => text.starts_with(needle.as_str()),
                LiteralOp::Suffix => text.ends_with(needle.as_str()),
                LiteralOp::Contains => text.contains(needle.as_str()),
                LiteralOp::Domain => domain_suffixes(&text).any(|s| s == needle),
            }
        }
    })
}

/// The truth of the condition that starts `ops` (see [`Op`]): the same as
/// [`expr_truth`] of the condition it was flattened from.
fn ops_truth(ops: &[Op], atom: &impl Fn(u32) -> Truth) -> Truth {
    let (all, children) = match ops.first() {
        Some(&Op::Atom(a)) => return atom(a),
        Some(&Op::Not { .. }) => {
            return match ops.get(1..).map(|c| ops_truth(c, atom)) {
                Some(Truth::True) => Truth::False,
                Some(Truth::False) => Truth::True,
                _ => Truth::Unknown,
            };
        }
        Some(&Op::All { children, .. }) => (true, children),
        Some(&Op::Any { children, .. }) => (false, children),
        None => return Truth::Unknown, // never: a flattened condition has ops
    };
    // `all` stops at the first false operand, `any` at the first true one.
    let decisive = Truth::from(!all);
    let mut out = Truth::from(all);
    let mut at = 1;
    for _ in 0..children {
        let t = match ops.get(at) {
            Some(&Op::Atom(a)) => atom(a),
            Some(_) => ops_truth(&ops[at..], atom),
            None => break,
        };
        if t == decisive {
            return t;
        }
        if t == Truth::Unknown {
            out = Truth::Unknown;
        }
        at += ops.get(at).map_or(1, |op| op.span());
    }
    out
}

/// The truth of a condition as a tree: the reference [`ops_truth`] is
/// tested against.
#[cfg(test)]
fn expr_truth(expr: &Expr, atom: &impl Fn(u32) -> Truth) -> Truth {
    match expr {
        Expr::Atom(a) => atom(*a),
        Expr::All(cs) => {
            let mut out = Truth::True;
            for c in cs {
                match expr_truth(c, atom) {
                    Truth::False => return Truth::False,
                    Truth::Unknown => out = Truth::Unknown,
                    Truth::True => {}
                }
            }
            out
        }
        Expr::Any(cs) => {
            let mut out = Truth::False;
            for c in cs {
                match expr_truth(c, atom) {
                    Truth::True => return Truth::True,
                    Truth::Unknown => out = Truth::Unknown,
                    Truth::False => {}
                }
            }
            out
        }
        Expr::Not(c) => match expr_truth(c, atom) {
            Truth::True => Truth::False,
            Truth::False => Truth::True,
            Truth::Unknown => Truth::Unknown,
        },
    }
}

/// Which nodes held and which blocks ended, stamped with the generation so
/// that nothing needs clearing between URLs.
struct Marks<'s> {
    active: &'s mut [u32],
    block_done: &'s mut [u32],
    /// Present when the evaluation marked stirred nodes, so that the others
    /// may use their `quiet_truth` (the naive reference evaluates them all).
    stirred: Option<&'s [u32]>,
    generation: u32,
}

impl<'s> Marks<'s> {
    fn new(scratch: &'s mut Scratch, quiet: bool) -> Marks<'s> {
        Marks {
            active: &mut scratch.active,
            block_done: &mut scratch.block_done,
            stirred: quiet.then_some(&scratch.stirred[..]),
            generation: scratch.generation,
        }
    }
}

/// The running state of one evaluation.
struct Acc {
    fetch: bool,
    save: bool,
    follow: bool,
    priority: i8,
    filtered: bool,
    filter_logged: bool,
    filtered_by: Vec<u32>,
    fetch_set_by: Option<u32>,
    meta: Vec<(String, String)>,
    source: Option<String>,
    pending: Pending,
    /// The last deferred rule that may set `fetch` on, with no rule setting
    /// it after: whether the URL is fetched waits for that rule's field.
    fetch_waits: Option<u32>,
    /// `first_match` blocks ended by a deferred rule, with that rule: the
    /// rest of each waits for it (usually none, so no allocation).
    waiting_blocks: Vec<(u32, u32)>,
    trace: Vec<TraceEntry>,
}

/// Walks the rules in `order` (ascending document order) and builds the
/// verdict. Rules left out of `order` must be ones that cannot hold and are
/// not filters that act when not holding; skipping them changes nothing but
/// the trace.
fn walk(
    rules: &CompiledRules,
    order: impl Iterator<Item = Visit>,
    atom: &impl Fn(u32) -> Truth,
    marks: &mut Marks<'_>,
    mode: TraceMode,
) -> Verdict {
    let disposition = rules.disposition;
    let allowed = disposition == Disposition::Allow;
    // An unset `log` follows the global choice: only `disallow` keeps no record.
    let default_log = disposition != Disposition::Disallow;
    let mut acc = Acc {
        fetch: allowed,
        save: allowed,
        follow: allowed,
        priority: 0,
        filtered: false,
        filter_logged: false,
        filtered_by: Vec::new(),
        fetch_set_by: None,
        meta: Vec::new(),
        source: None,
        pending: Pending::default(),
        fetch_waits: None,
        waiting_blocks: Vec::new(),
        trace: Vec::new(),
    };
    let generation = marks.generation;
    let mut stopped = false;
    // A deferred rule that may `stop` was met: every rule after it waits
    // for it, and is only looked at for the fetch it may allow.
    let mut waiting: Option<u32> = None;
    let record = |acc: &mut Acc, rule: u32, step: Step, filtered: bool, priority_ignored: bool| {
        let keep = match mode {
            TraceMode::Off => false,
            TraceMode::Full => true,
            TraceMode::Decisive => filtered || matches!(step, Step::Matched | Step::Deferred),
        };
        if keep {
            acc.trace.push(TraceEntry {
                rule,
                step,
                filtered,
                priority_ignored,
            });
        }
    };

    for visit in order {
        let id = match visit {
            Visit::Node(id) => id,
            Visit::Run { from, to } => {
                // Only walks without a trace fold runs.
                if stopped {
                    break;
                }
                let q = &rules.quiet;
                if let Some(deferred) = waiting {
                    // Nothing applies; any of its rules that holds and sets
                    // fetch on may allow it, as in a rule-by-rule walk.
                    let allows = rules.always[from..to].iter().any(|&n| {
                        let h = rules.hot[n as usize];
                        h.has(Hot::QUIET_TRUE) != h.has(Hot::NEGATE) && h.flag(0) == Some(true)
                    });
                    if allows {
                        acc.fetch_waits = Some(deferred);
                    }
                    continue;
                }
                let stop = q.next_stop[from] as usize;
                let to = if stop < to {
                    stopped = true;
                    stop + 1
                } else {
                    to
                };
                let in_run = |last: &[u32]| {
                    let p = last[to];
                    (p != Hot::NONE && p as usize >= from).then(|| rules.always[p as usize])
                };
                if let Some(n) = in_run(&q.last_fetch) {
                    acc.fetch = rules.hot[n as usize].flag(0) == Some(true);
                    acc.fetch_set_by = Some(n);
                    acc.fetch_waits = None;
                }
                if let Some(n) = in_run(&q.last_save) {
                    acc.save = rules.hot[n as usize].flag(2) == Some(true);
                }
                if let Some(n) = in_run(&q.last_follow) {
                    acc.follow = rules.hot[n as usize].flag(4) == Some(true);
                }
                if let Some(n) = in_run(&q.last_priority) {
                    acc.priority = rules.hot[n as usize].priority;
                }
                let filters = q.filters_before[from] as usize..q.filters_before[to] as usize;
                for &p in &q.filters[filters] {
                    let n = rules.always[p as usize];
                    acc.filtered = true;
                    acc.filtered_by.push(n);
                    acc.filter_logged |= rules.hot[n as usize].log_or(default_log);
                }
                continue;
            }
        };
        let node = rules.hot[id as usize];
        // The deferred rule this one waits for, if any.
        let mut waits_for = waiting;
        if node.parent != Hot::NONE {
            let parent = node.parent as usize;
            if marks.active[parent] != generation {
                continue; // its block was not entered: not visited at all
            }
            if node.has(Hot::IN_FIRST_MATCH) && marks.block_done[parent] == generation {
                match acc.waiting_blocks.iter().find(|(b, _)| *b == node.parent) {
                    Some(&(_, deferred)) => waits_for = waits_for.or(Some(deferred)),
                    None => {
                        record(&mut acc, id, Step::SkippedByFirstMatch, false, false);
                        continue;
                    }
                }
            }
        }
        if stopped {
            if mode == TraceMode::Off {
                break;
            }
            record(&mut acc, id, Step::SkippedByStop, false, false);
            continue;
        }
        if !node.has(Hot::ENABLED) {
            record(&mut acc, id, Step::Disabled, false, false);
            continue;
        }
        let quiet = node.has(Hot::QUIET)
            && marks
                .stirred
                .is_some_and(|stirred| stirred.binary_search(&id).is_err());
        let truth = if quiet {
            Truth::from(node.has(Hot::QUIET_TRUE))
        } else if node.has(Hot::COMPOUND) {
            debug_assert!(
                (node.atom as usize) < rules.ops.len(),
                "rule {id}: its condition starts past the flattened ops"
            );
            rules
                .ops
                .get(node.atom as usize..)
                .map_or(Truth::Unknown, |ops| ops_truth(ops, atom))
        } else if node.atom != Hot::NONE {
            atom(node.atom)
        } else {
            Truth::True // no condition
        };
        if truth == Truth::Unknown {
            let mut fields = Pending::default();
            if let Some(c) = &rules.nodes[id as usize].cond {
                c_fields(c, rules, atom, &mut fields);
            }
            acc.pending = acc.pending.union(fields);
        }
        if let Some(deferred) = waits_for {
            // Applied with the rule it waits for, once that is settled;
            // until then, a fetch it may allow keeps the URL from being
            // refused (its nested rules are not entered: its own bit
            // covers them).
            let may_hold =
                truth == Truth::Unknown || (truth == Truth::True) != node.has(Hot::NEGATE);
            if may_hold && node.has(Hot::MAY_ALLOW_FETCH) {
                acc.fetch_waits = Some(deferred);
            }
            record(&mut acc, id, Step::WaitsForDeferred, false, false);
            continue;
        }
        let holds = match truth {
            Truth::Unknown => {
                record(&mut acc, id, Step::Deferred, false, false);
                // What may follow from the rule once its field is known
                // cannot be settled without it (SPEC 1.3 step 3): a later
                // filter or setting that its `stop` or its `first_match`
                // block would skip waits with it, and so does the fetch it
                // may allow or refuse. Phase 1 never refuses a URL that the
                // rule may let through.
                if node.has(Hot::MAY_ALLOW_FETCH) {
                    acc.fetch_waits = Some(id);
                }
                // A stop of its own, of a rule nested in it, or of a later
                // rule of its block (which it may keep from applying, or
                // not) may end processing: everything after waits.
                if node.has(Hot::MAY_STOP) || node.has(Hot::REST_MAY_STOP) {
                    waiting = Some(id);
                } else if node.has(Hot::IN_FIRST_MATCH) {
                    marks.block_done[node.parent as usize] = generation;
                    acc.waiting_blocks.push((node.parent, id));
                }
                continue;
            }
            t => (t == Truth::True) != node.has(Hot::NEGATE),
        };
        let filters = if holds {
            node.has(Hot::MAY_NOT_HAVE)
        } else {
            node.has(Hot::MUST_HAVE)
        };
        if filters {
            acc.filtered = true;
            acc.filtered_by.push(id);
            acc.filter_logged |= node.log_or(default_log);
        }
        if !holds {
            record(&mut acc, id, Step::NotMatched, filters, false);
            continue;
        }
        if let Some(fetch) = node.flag(0) {
            acc.fetch = fetch;
            acc.fetch_set_by = Some(id);
            acc.fetch_waits = None;
        }
        if let Some(save) = node.flag(2) {
            acc.save = save;
        }
        if let Some(follow) = node.flag(4) {
            acc.follow = follow;
        }
        let mut priority_ignored = false;
        if node.has(Hot::PRIORITY) {
            if node.has(Hot::USES_CONTENT_TYPE) {
                priority_ignored = true;
            } else {
                acc.priority = node.priority;
            }
        }
        if node.has(Hot::EXTRAS) {
            let extras = &rules.extras[id as usize];
            acc.meta.extend(extras.meta.iter().cloned());
            if extras.source.is_some() {
                acc.source.clone_from(&extras.source);
            }
        }
        marks.active[id as usize] = generation;
        if node.has(Hot::IN_FIRST_MATCH) {
            marks.block_done[node.parent as usize] = generation;
        }
        record(&mut acc, id, Step::Matched, filters, priority_ignored);
        if node.has(Hot::STOP) {
            stopped = true;
        }
    }

    // Not fetched, unless a deferred rule may allow it: then it is fetched
    // as far as learning the field (its address, its headers) and judged
    // again there, before anything else of it is fetched.
    if !acc.fetch
        && !acc.filtered
        && let Some(rule) = acc.fetch_waits
    {
        acc.fetch = true;
        acc.fetch_set_by = Some(rule);
    }
    let log = if acc.filtered {
        acc.filter_logged
    } else if acc.fetch {
        true
    } else if let Some(rule) = acc.fetch_set_by {
        rules.hot[rule as usize].log_or(default_log)
    } else {
        disposition == Disposition::DisallowLog
    };
    // The flags reported are the effective ones: nothing is saved or
    // followed from a URL that is not fetched.
    let fetch = acc.fetch && !acc.filtered;
    Verdict {
        fetch,
        save: fetch && acc.save,
        follow: fetch && acc.follow,
        filtered: acc.filtered,
        priority: acc.priority,
        log,
        meta: acc.meta,
        source: acc.source,
        pending: acc.pending,
        filtered_by: acc.filtered_by,
        fetch_set_by: acc.fetch_set_by,
        trace: acc.trace,
    }
}

/// The deferred fields an undecided condition is waiting for.
fn c_fields(expr: &Expr, rules: &CompiledRules, atom: &impl Fn(u32) -> Truth, out: &mut Pending) {
    match expr {
        Expr::Atom(a) => {
            if atom(*a) == Truth::Unknown {
                *out = out.union(Pending::of(rules.atoms[*a as usize].test.field));
            }
        }
        Expr::All(cs) | Expr::Any(cs) => cs.iter().for_each(|c| c_fields(c, rules, atom, out)),
        Expr::Not(c) => c_fields(c, rules, atom, out),
    }
}

#[cfg(test)]
mod tests;
