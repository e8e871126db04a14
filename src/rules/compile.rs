//! Compiling a [`RuleSet`] once into the form that evaluates a URL in one
//! pass per field (STYLE habit 3: compile once, match many).
//!
//! Every distinct test becomes an *atom*. Atoms on the text fields of the URL
//! are indexed per field: exact values and domains in hash maps, literal
//! prefixes/suffixes in anchored Aho-Corasick automata or lookups at each
//! `/` and `.`, substrings in one automaton per field, regexes (and
//! wildcards that are not plain literals) in multi-pattern regexes of at most [`MAX_REGEXES_PER_SET`] patterns (one set of 10,000
//! regexes collapses, see CRATES.md). Atoms on numbers and on the deferred
//! fields are few and are tested one by one.
//!
//! Evaluation ([`super::eval`]) then visits only the rules that one of the
//! matched atoms belongs to, plus the few rules that can hold without any
//! atom matching (`negate`, `not`, `must-have` filters, deferred fields).

mod builder;

use std::fmt::Write as _;

use regex::Regex;
use rustc_hash::FxHashMap;

use super::index::{Entry, FieldIndex, LiteralOp};
use builder::Builder;
pub(crate) use builder::one_line;

use super::model::{
    Case, Condition, Disposition, Field, Filter, Flags, Matcher, Priority, Rule, RuleSet, Test,
    rule_number,
};

/// A rule list ready to evaluate URLs. Cheap to share between threads;
/// per-thread working memory lives in a [`super::eval::Scratch`].
#[derive(Debug)]
pub struct CompiledRules {
    pub(crate) disposition: Disposition,
    pub(crate) nodes: Vec<Node>,
    pub(crate) info: Vec<RuleInfo>,
    pub(crate) atoms: Vec<Atom>,
    /// What the walk reads of each node, 16 bytes a node (index = node).
    pub(crate) hot: Vec<Hot>,
    /// Per atom, where its nodes start in `links`: first the nodes to visit
    /// when it matches (every enabled node that cannot hold unless one of
    /// its trigger atoms matched), then the nodes with a
    /// [`Node::quiet_truth`] whose condition uses it, which a matching atom
    /// marks for a real evaluation. One flat array rather than a `Vec` per
    /// atom: a matching atom costs one cache line of offsets and one of
    /// nodes, not two headers and two lists.
    pub(crate) atom_links: Vec<AtomLinks>,
    pub(crate) links: Vec<u32>,
    /// The conditions of enabled nodes other than a single test, flattened
    /// (see [`Op`]): a walk that evaluates one reads a line or two of this
    /// array instead of the node and then its `Expr` tree, a heap block per
    /// level.
    pub(crate) ops: Vec<Op>,
    /// Enabled nodes that can hold without any atom matching; visited always.
    pub(crate) always: Vec<u32>,
    /// What runs of `always` nodes do when none of their atoms matched.
    pub(crate) quiet: QuietRuns,
    /// One bit per atom on a deferred field (content type, address).
    pub(crate) deferred_atoms: Vec<u64>,
    pub(crate) fields: Vec<FieldIndex>,
    /// Meta and source per node (empty for most).
    pub(crate) extras: Vec<Extras>,
    /// Atoms tested one by one: numeric fields, deferred fields, empty literals.
    pub(crate) direct: Vec<u32>,
    /// Scratches lent by [`CompiledRules::lend_scratch`] and given back.
    pub(crate) spares: super::spare::Spares,
}

/// What a person needs to know about one rule: its number, name, line, and
/// whether it is in use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleInfo {
    /// `3.2` for the second rule nested in the third.
    pub number: String,
    pub name: String,
    pub line: usize,
    /// 0 for top-level rules.
    pub depth: usize,
    pub parent: Option<u32>,
    /// Why the rule is not evaluated, if it is not.
    pub disabled: Option<Disabled>,
    /// The condition as text (`always` when there is none).
    pub condition: String,
    /// What the rule does when it holds, as text (`exclude, stop`).
    pub effects: String,
}

/// Why a rule is not evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disabled {
    /// Written `enabled = false`.
    SwitchedOff,
    /// Nested in a rule that is disabled, for either reason.
    EnclosingOff,
    /// Its condition does not compile (a regex the engine refuses): the
    /// compiler's message.
    Broken(String),
}

impl Disabled {
    /// As the trace, `rules` and the console say it.
    pub fn text(&self) -> &str {
        match self {
            Disabled::SwitchedOff => "switched off (`enabled = false`)",
            Disabled::EnclosingOff => "its enclosing rule is disabled",
            Disabled::Broken(message) => message,
        }
    }

    /// Off because the rules say so, not because something is wrong:
    /// no warning is due on every run (the rule list shows it off).
    pub fn on_purpose(&self) -> bool {
        !matches!(self, Disabled::Broken(_))
    }
}

impl RuleInfo {
    /// Where the rule stands in its file: `line N`, or `not in the file`
    /// for a rule an importer adds (Nutch's final reject) or one made in
    /// the console and not saved yet.
    pub fn place(&self) -> String {
        if self.line == 0 {
            "not in the file".into()
        } else {
            format!("line {}", self.line)
        }
    }
}

/// The evaluation form of one rule.
#[derive(Debug)]
pub(crate) struct Node {
    pub parent: Option<u32>,
    pub enabled: bool,
    pub cond: Option<Expr>,
    pub negate: bool,
    pub flags: Flags,
    pub priority: Option<Priority>,
    pub log: Option<bool>,
    pub filter: Option<Filter>,
    pub stop: bool,
    pub first_match: bool,
    /// Whether `extras` holds meta or a source for this node; kept apart so
    /// that the nodes the walk reads stay small.
    pub has_extras: bool,
    /// Its condition looks at the content type, so its priority is ignored.
    pub uses_content_type: bool,
    /// For an always-visited node whose condition waits for no deferred
    /// field: whether it holds when none of its atoms matched. That is the
    /// usual case, and knowing it spares evaluating the condition (a list
    /// with many negated rules visits each of them for every URL).
    pub quiet_truth: Option<bool>,
}

/// The effect of runs of *simple* always-visited nodes, for walks without a
/// trace. A simple node is top-level, has no nested rules and no meta or
/// source, and has a quiet truth: while none of its atoms matched (it is
/// not stirred), what it does is known when compiling. A list with many
/// negated rules visits each of them for every URL; with these arrays a run
/// of them between two rules that matter costs a few lookups, whatever its
/// length. Indices are positions in [`CompiledRules::always`]; arrays of
/// length `always.len() + 1` are "last such position before `p`"
/// ([`Hot::NONE`] if none) or counts before `p`.
#[derive(Debug, Default)]
pub(crate) struct QuietRuns {
    pub simple: Vec<bool>,
    /// The first position at or after `p` that is not simple.
    pub next_plain: Vec<u32>,
    /// The first position at or after `p` whose quiet node holds and stops.
    pub next_stop: Vec<u32>,
    /// The last position before `p` whose quiet node holds and sets fetch,
    /// save, follow, priority.
    pub last_fetch: Vec<u32>,
    pub last_save: Vec<u32>,
    pub last_follow: Vec<u32>,
    pub last_priority: Vec<u32>,
    /// Quiet nodes that filter, in order, and how many come before `p`.
    pub filters: Vec<u32>,
    pub filters_before: Vec<u32>,
}

impl QuietRuns {
    fn new(always: &[u32], hot: &[Hot], has_children: &[bool]) -> QuietRuns {
        let n = always.len();
        let mut q = QuietRuns {
            simple: Vec::with_capacity(n),
            next_plain: vec![n as u32; n + 1],
            next_stop: vec![n as u32; n + 1],
            last_fetch: vec![Hot::NONE; n + 1],
            last_save: vec![Hot::NONE; n + 1],
            last_follow: vec![Hot::NONE; n + 1],
            last_priority: vec![Hot::NONE; n + 1],
            filters: Vec::new(),
            filters_before: vec![0; n + 1],
        };
        for (p, &id) in always.iter().enumerate() {
            let h = hot[id as usize];
            let simple = h.parent == Hot::NONE
                && h.has(Hot::QUIET)
                && !h.has(Hot::EXTRAS)
                && !has_children[id as usize];
            q.simple.push(simple);
            let holds = h.has(Hot::QUIET_TRUE) != h.has(Hot::NEGATE);
            let last = |v: &mut Vec<u32>, set: bool| {
                v[p + 1] = if simple && set { p as u32 } else { v[p] };
            };
            last(&mut q.last_fetch, holds && h.flag(0).is_some());
            last(&mut q.last_save, holds && h.flag(2).is_some());
            last(&mut q.last_follow, holds && h.flag(4).is_some());
            last(
                &mut q.last_priority,
                holds && h.has(Hot::PRIORITY) && !h.has(Hot::USES_CONTENT_TYPE),
            );
            let filters = if holds {
                h.has(Hot::MAY_NOT_HAVE)
            } else {
                h.has(Hot::MUST_HAVE)
            };
            if simple && filters {
                q.filters.push(p as u32);
            }
            q.filters_before[p + 1] = q.filters.len() as u32;
        }
        for p in (0..n).rev() {
            let h = hot[always[p] as usize];
            let holds = h.has(Hot::QUIET_TRUE) != h.has(Hot::NEGATE);
            q.next_plain[p] = if q.simple[p] {
                q.next_plain[p + 1]
            } else {
                p as u32
            };
            q.next_stop[p] = if q.simple[p] && holds && h.has(Hot::STOP) {
                p as u32
            } else {
                q.next_stop[p + 1]
            };
        }
        q
    }
}

/// Where one atom's nodes are in [`CompiledRules::links`].
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct AtomLinks {
    pub start: u32,
    /// Nodes it triggers, from `start`.
    pub triggers: u32,
    /// Quiet nodes it stirs, after the triggers.
    pub watchers: u32,
}

impl CompiledRules {
    /// The nodes `atom` triggers and the quiet nodes it stirs.
    pub(crate) fn links_of(&self, atom: u32) -> (&[u32], &[u32]) {
        let l = self.atom_links[atom as usize];
        let start = l.start as usize;
        let mid = start + l.triggers as usize;
        (
            &self.links[start..mid],
            &self.links[mid..mid + l.watchers as usize],
        )
    }
}

/// The part of a [`Node`] that the walk reads for every rule it visits,
/// packed so that the rules visited for every URL share a few cache lines.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hot {
    /// The enclosing node, or [`Hot::NONE`].
    pub parent: u32,
    /// The condition's only atom when it is a single test; with
    /// [`Hot::COMPOUND`], where the condition starts in
    /// [`CompiledRules::ops`]; else (no condition) [`Hot::NONE`].
    pub atom: u32,
    /// [`Hot::ENABLED`] and the other bits.
    pub bits: u32,
    /// Fetch, save, follow: two bits each, set and value.
    pub flags: u8,
    /// The priority shift, when [`Hot::PRIORITY`] is set.
    pub priority: i8,
}

impl Hot {
    pub const NONE: u32 = u32::MAX;
    pub const ENABLED: u32 = 1;
    pub const NEGATE: u32 = 1 << 1;
    pub const STOP: u32 = 1 << 2;
    pub const FIRST_MATCH: u32 = 1 << 3;
    /// Its parent is a `first_match` block.
    pub const IN_FIRST_MATCH: u32 = 1 << 4;
    pub const EXTRAS: u32 = 1 << 5;
    pub const PRIORITY: u32 = 1 << 6;
    pub const USES_CONTENT_TYPE: u32 = 1 << 7;
    /// `quiet_truth` is known; [`Hot::QUIET_TRUE`] gives it.
    pub const QUIET: u32 = 1 << 8;
    pub const QUIET_TRUE: u32 = 1 << 9;
    pub const MUST_HAVE: u32 = 1 << 10;
    pub const MAY_NOT_HAVE: u32 = 1 << 11;
    pub const LOG_SET: u32 = 1 << 12;
    pub const LOG: u32 = 1 << 13;
    /// The condition is other than a single test: [`Hot::atom`] is where it
    /// starts in [`CompiledRules::ops`].
    pub const COMPOUND: u32 = 1 << 15;
    /// The node, or a rule nested in it, has `stop`: deferred, it may end
    /// the processing of every rule after it.
    pub const MAY_STOP: u32 = 1 << 16;
    /// The node, or a rule nested in it, sets `fetch` on: deferred, it may
    /// allow a URL the rules before it refuse.
    pub const MAY_ALLOW_FETCH: u32 = 1 << 17;
    /// In a `first_match` block, a later rule of the block (or one nested
    /// in it) has `stop`: deferred, this rule may decide whether that one
    /// applies, so it too may end the processing of every rule after it.
    pub const REST_MAY_STOP: u32 = 1 << 18;

    fn of(node: &Node, in_first_match: bool) -> Hot {
        let mut bits = 0;
        let mut set = |on: bool, bit: u32| {
            if on {
                bits |= bit;
            }
        };
        set(node.enabled, Hot::ENABLED);
        set(node.negate, Hot::NEGATE);
        set(node.stop, Hot::STOP);
        set(node.first_match, Hot::FIRST_MATCH);
        set(in_first_match, Hot::IN_FIRST_MATCH);
        set(node.has_extras, Hot::EXTRAS);
        set(node.priority.is_some(), Hot::PRIORITY);
        set(node.uses_content_type, Hot::USES_CONTENT_TYPE);
        set(node.quiet_truth.is_some(), Hot::QUIET);
        set(node.quiet_truth == Some(true), Hot::QUIET_TRUE);
        set(node.filter == Some(Filter::MustHave), Hot::MUST_HAVE);
        set(node.filter == Some(Filter::MayNotHave), Hot::MAY_NOT_HAVE);
        set(node.log.is_some(), Hot::LOG_SET);
        set(node.log == Some(true), Hot::LOG);
        let flag = |f: Option<bool>| match f {
            None => 0,
            Some(false) => 1,
            Some(true) => 3,
        };
        Hot {
            parent: node.parent.unwrap_or(Hot::NONE),
            atom: match node.cond {
                Some(Expr::Atom(a)) => a,
                _ => Hot::NONE,
            },
            bits,
            flags: flag(node.flags.fetch)
                | flag(node.flags.save) << 2
                | flag(node.flags.follow) << 4,
            priority: node.priority.map_or(0, Priority::shift),
        }
    }

    pub fn has(self, bit: u32) -> bool {
        self.bits & bit != 0
    }

    /// Flag `shift` (0 fetch, 2 save, 4 follow), if the node sets it.
    pub fn flag(self, shift: u8) -> Option<bool> {
        let f = self.flags >> shift;
        (f & 1 != 0).then_some(f & 2 != 0)
    }

    /// The node's `log`, else `default`.
    pub fn log_or(self, default: bool) -> bool {
        if self.has(Hot::LOG_SET) {
            self.has(Hot::LOG)
        } else {
            default
        }
    }
}

/// What a rule records with the URL besides its flags.
#[derive(Debug, Default)]
pub(crate) struct Extras {
    pub meta: Vec<(String, String)>,
    pub source: Option<String>,
}

/// One step of a condition flattened in prefix order: each operator is
/// followed by its operands, and `span` counts the ops of its subtree (its
/// own included), so that a walk can step over an operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Atom(u32),
    All { children: u32, span: u32 },
    Any { children: u32, span: u32 },
    Not { span: u32 },
}

impl Op {
    pub fn span(self) -> usize {
        match self {
            Op::Atom(_) => 1,
            Op::All { span, .. } | Op::Any { span, .. } | Op::Not { span } => span as usize,
        }
    }
}

/// Appends `expr` to `ops` in prefix order (see [`Op`]).
pub(crate) fn flatten(expr: &Expr, ops: &mut Vec<Op>) {
    let at = ops.len();
    let span =
        |ops: &Vec<Op>| u32::try_from(ops.len() - at).expect("a condition of over 4 billion ops");
    match expr {
        Expr::Atom(a) => ops.push(Op::Atom(*a)),
        Expr::Not(c) => {
            ops.push(Op::Not { span: 0 });
            flatten(c, ops);
            ops[at] = Op::Not { span: span(ops) };
        }
        Expr::All(cs) | Expr::Any(cs) => {
            ops.push(Op::Atom(0)); // replaced below
            for c in cs {
                flatten(c, ops);
            }
            let (children, span) = (
                u32::try_from(cs.len()).expect("over 4 billion children in a condition"),
                span(ops),
            );
            ops[at] = match expr {
                Expr::All(_) => Op::All { children, span },
                _ => Op::Any { children, span },
            };
        }
    }
}

/// A condition over atom numbers.
#[derive(Debug)]
pub(crate) enum Expr {
    Atom(u32),
    All(Vec<Expr>),
    Any(Vec<Expr>),
    Not(Box<Expr>),
}

impl Expr {
    /// Atoms at least one of which must match for the expression to hold
    /// (`None` when it can hold with none matching, as under `not`). For
    /// `all`, the cheapest child's set will do; for `any`, every child's.
    /// A rule need only be visited when one of its trigger atoms matched.
    fn triggers(&self, cost: &impl Fn(u32) -> u64) -> Option<Vec<u32>> {
        match self {
            Expr::Atom(a) => Some(vec![*a]),
            Expr::All(cs) => cs
                .iter()
                .filter_map(|c| c.triggers(cost))
                .min_by_key(|t| t.iter().map(|&a| cost(a)).sum::<u64>()),
            Expr::Any(cs) => {
                let mut out = Vec::new();
                for c in cs {
                    out.extend(c.triggers(cost)?);
                }
                Some(out)
            }
            Expr::Not(_) => None,
        }
    }

    /// Whether the expression holds when none of its atoms matches.
    fn holds_when_quiet(&self) -> bool {
        match self {
            Expr::Atom(_) => false,
            Expr::All(cs) => cs.iter().all(Expr::holds_when_quiet),
            Expr::Any(cs) => cs.iter().any(Expr::holds_when_quiet),
            Expr::Not(c) => !c.holds_when_quiet(),
        }
    }

    fn each_atom(&self, f: &mut impl FnMut(u32)) {
        match self {
            Expr::Atom(a) => f(*a),
            Expr::All(cs) | Expr::Any(cs) => cs.iter().for_each(|c| c.each_atom(f)),
            Expr::Not(c) => c.each_atom(f),
        }
    }

    fn any_atom(&self, pred: &impl Fn(u32) -> bool) -> bool {
        match self {
            Expr::Atom(a) => pred(*a),
            Expr::All(cs) | Expr::Any(cs) => cs.iter().any(|c| c.any_atom(pred)),
            Expr::Not(c) => c.any_atom(pred),
        }
    }
}

/// One distinct test, ready to run on its own.
#[derive(Debug)]
pub(crate) struct Atom {
    pub test: Test,
    pub kind: AtomKind,
}

#[derive(Debug)]
pub(crate) enum AtomKind {
    /// A literal comparison; the needle is lower-cased when insensitive.
    Literal {
        op: LiteralOp,
        needle: String,
    },
    /// A regex, or a wildcard turned into one.
    Regex(Regex),
    /// The regex did not compile: the atom never matches and its rules are
    /// disabled with this message.
    Broken(String),
    Cidr(super::model::Cidr),
    Range(super::model::Range),
    /// A wildcard made only of `*`: matches any value.
    Always,
}

impl CompiledRules {
    /// Compiles a rule set. Never fails: a rule whose regex does not compile
    /// is disabled with the compiler's message (WebCopy) and evaluation goes
    /// on without it.
    pub fn new(rules: &RuleSet) -> CompiledRules {
        let mut builder = Builder::default();
        builder.add_rules(&rules.rules, None, 0, &mut Vec::new());
        builder.finish(rules.disposition)
    }

    /// The rules in document order (parents before their nested rules).
    pub fn rule_info(&self) -> &[RuleInfo] {
        &self.info
    }

    pub fn disposition(&self) -> Disposition {
        self.disposition
    }

    /// The rules that will not be evaluated, with the reason.
    pub fn disabled(&self) -> impl Iterator<Item = &RuleInfo> {
        self.info.iter().filter(|i| i.disabled.is_some())
    }
}
