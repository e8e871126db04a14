//! Compiling a [`RuleSet`] once into the form that evaluates a URL in one
//! pass per field (STYLE habit 3: compile once, match many).
//!
//! Every distinct test becomes an *atom*. Atoms on the text fields of the URL
//! are indexed per field: exact values and domains in hash maps, literal
//! prefixes/suffixes/substrings in one Aho-Corasick automaton per field and
//! case, regexes (and wildcards that are not plain literals) in multi-pattern
//! regexes of at most [`MAX_REGEXES_PER_SET`] patterns (one set of 10,000
//! regexes collapses, see CRATES.md). Atoms on numbers and on the deferred
//! fields are few and are tested one by one.
//!
//! Evaluation ([`super::eval`]) then visits only the rules that one of the
//! matched atoms belongs to, plus the few rules that can hold without any
//! atom matching (`negate`, `not`, `must-have` filters, deferred fields).

use std::fmt::Write as _;

use regex::Regex;
use regex_automata::meta;
use rustc_hash::FxHashMap;

use super::model::{
    Case, Condition, Disposition, Field, Filter, Flags, Matcher, Priority, Rule, RuleSet, Test,
    rule_number,
};

/// Patterns per multi-pattern regex: large enough that a few sets cover
/// thousands of rules, small enough that the lazy DFA cache does not thrash.
pub const MAX_REGEXES_PER_SET: usize = 256;

/// Room for each multi-pattern regex (the default limits suit one pattern,
/// not hundreds).
const SET_SIZE_LIMIT: usize = 64 << 20;

/// A rule list ready to evaluate URLs. Cheap to share between threads;
/// per-thread working memory lives in a [`super::eval::Scratch`].
#[derive(Debug)]
pub struct CompiledRules {
    pub(crate) disposition: Disposition,
    pub(crate) nodes: Vec<Node>,
    pub(crate) info: Vec<RuleInfo>,
    pub(crate) atoms: Vec<Atom>,
    /// For each atom, the nodes whose condition mentions it.
    pub(crate) atom_nodes: Vec<Vec<u32>>,
    /// Enabled nodes that can hold without any atom matching; visited always.
    pub(crate) always: Vec<u32>,
    pub(crate) fields: Vec<FieldIndex>,
    /// Atoms tested one by one: numeric fields, deferred fields, empty literals.
    pub(crate) direct: Vec<u32>,
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
    /// Why the rule is not evaluated: switched off, or its regex failed.
    pub disabled: Option<String>,
    /// The condition as text (`always` when there is none).
    pub condition: String,
    /// What the rule does when it holds, as text (`exclude, stop`).
    pub effects: String,
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
    pub meta: Vec<(String, String)>,
    pub source: Option<String>,
    /// Its condition looks at the content type, so its priority is ignored.
    pub uses_content_type: bool,
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
    /// True when the expression can only hold if at least one of its atoms
    /// matches, so a rule with it need only be visited when one did.
    fn needs_an_atom(&self) -> bool {
        match self {
            Expr::Atom(_) => true,
            Expr::All(cs) => cs.iter().any(Expr::needs_an_atom),
            Expr::Any(cs) => cs.iter().all(Expr::needs_an_atom),
            Expr::Not(_) => false,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LiteralOp {
    Exact,
    Prefix,
    Suffix,
    Contains,
    Domain,
}

/// The fast matchers for one text field.
#[derive(Debug)]
pub(crate) struct FieldIndex {
    pub field: Field,
    /// Exact values compared as written.
    pub exact_sensitive: FxHashMap<Box<str>, Vec<u32>>,
    /// Exact values compared lower-cased.
    pub exact_insensitive: FxHashMap<Box<str>, Vec<u32>>,
    /// Domains (lower-cased): the value or any `.`-suffix of it.
    pub domains: FxHashMap<Box<str>, Vec<u32>>,
    /// Prefixes, suffixes and substrings, one automaton per case mode.
    pub literals: Vec<LiteralScan>,
    pub regexes: Vec<RegexChunk>,
}

#[derive(Debug)]
pub(crate) struct LiteralScan {
    pub automaton: aho_corasick::AhoCorasick,
    /// For each pattern, the atoms that use it and how.
    pub uses: Vec<Vec<(u32, LiteralOp)>>,
}

#[derive(Debug)]
pub(crate) struct RegexChunk {
    pub regex: meta::Regex,
    /// Pattern index → atom.
    pub atoms: Vec<u32>,
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

#[derive(Default)]
struct Builder {
    nodes: Vec<Node>,
    info: Vec<RuleInfo>,
    atoms: Vec<Atom>,
    atom_ids: FxHashMap<Test, u32>,
    atom_nodes: Vec<Vec<u32>>,
}

impl Builder {
    fn add_rules(
        &mut self,
        rules: &[Rule],
        parent: Option<u32>,
        depth: usize,
        path: &mut Vec<usize>,
    ) {
        for (i, rule) in rules.iter().enumerate() {
            path.push(i + 1);
            let id = self.nodes.len() as u32;
            let parent_disabled = parent.is_some_and(|p| !self.nodes[p as usize].enabled);
            let mut broken = None;
            let cond = rule
                .condition
                .as_ref()
                .map(|c| self.expr(c, id, &mut broken));
            let disabled = if !rule.enabled {
                Some("disabled in the rules file".to_string())
            } else if let Some(message) = broken {
                Some(message)
            } else if parent_disabled {
                Some("its enclosing rule is disabled".to_string())
            } else {
                None
            };
            let uses_content_type = cond.as_ref().is_some_and(|c| {
                c.any_atom(&|a| self.atoms[a as usize].test.field == Field::ContentType)
            });
            self.info.push(RuleInfo {
                number: rule_number(path),
                name: rule.name.clone(),
                line: rule.origin.line,
                depth,
                parent,
                disabled: disabled.clone(),
                condition: rule.condition.as_ref().map_or_else(
                    || "always".to_string(),
                    |c| {
                        if rule.negate {
                            format!("not({c})")
                        } else {
                            c.to_string()
                        }
                    },
                ),
                effects: effects_text(
                    rule,
                    parent.is_some_and(|p| self.nodes[p as usize].first_match),
                ),
            });
            self.nodes.push(Node {
                parent,
                enabled: disabled.is_none(),
                cond,
                negate: rule.negate,
                flags: rule.flags(),
                priority: rule.priority,
                log: rule.log,
                filter: rule.filter,
                stop: rule.stop,
                first_match: rule.first_match,
                meta: rule.meta.clone(),
                source: rule.source.clone(),
                uses_content_type,
            });
            self.add_rules(&rule.rules, Some(id), depth + 1, path);
            path.pop();
        }
    }

    fn expr(&mut self, cond: &Condition, node: u32, broken: &mut Option<String>) -> Expr {
        match cond {
            Condition::Test(test) => {
                let atom = self.atom(test);
                if let AtomKind::Broken(message) = &self.atoms[atom as usize].kind {
                    broken.get_or_insert_with(|| message.clone());
                }
                let users = &mut self.atom_nodes[atom as usize];
                if users.last() != Some(&node) {
                    users.push(node);
                }
                Expr::Atom(atom)
            }
            Condition::All(cs) => {
                Expr::All(cs.iter().map(|c| self.expr(c, node, broken)).collect())
            }
            Condition::Any(cs) => {
                Expr::Any(cs.iter().map(|c| self.expr(c, node, broken)).collect())
            }
            Condition::Not(c) => Expr::Not(Box::new(self.expr(c, node, broken))),
        }
    }

    fn atom(&mut self, test: &Test) -> u32 {
        if let Some(&id) = self.atom_ids.get(test) {
            return id;
        }
        let id = self.atoms.len() as u32;
        self.atoms.push(Atom {
            test: test.clone(),
            kind: atom_kind(test),
        });
        self.atom_nodes.push(Vec::new());
        self.atom_ids.insert(test.clone(), id);
        id
    }

    fn finish(self, disposition: Disposition) -> CompiledRules {
        let Builder {
            nodes,
            info,
            atoms,
            atom_nodes,
            ..
        } = self;
        let atom_nodes: Vec<Vec<u32>> = atom_nodes
            .into_iter()
            .map(|users| {
                users
                    .into_iter()
                    .filter(|&n| nodes[n as usize].enabled)
                    .collect()
            })
            .collect();
        let always = nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.enabled)
            .filter(|(_, n)| {
                n.negate
                    || n.filter == Some(Filter::MustHave)
                    || n.cond.as_ref().is_none_or(|c| {
                        !c.needs_an_atom()
                            || c.any_atom(&|a| atoms[a as usize].test.field.is_deferred())
                    })
            })
            .map(|(i, _)| i as u32)
            .collect();
        let (fields, direct) = index_atoms(&atoms, &atom_nodes);
        CompiledRules {
            disposition,
            nodes,
            info,
            atoms,
            atom_nodes,
            always,
            fields,
            direct,
        }
    }
}

/// Describes what a rule does when it holds, for `rules` and traces.
fn effects_text(rule: &Rule, in_first_match_block: bool) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(action) = rule.action {
        parts.push(action.name().to_string());
    }
    for (name, value) in [
        ("fetch", rule.set.fetch),
        ("save", rule.set.save),
        ("follow", rule.set.follow),
    ] {
        if let Some(v) = value {
            parts.push(format!("{name}={v}"));
        }
    }
    if let Some(filter) = rule.filter {
        parts.push(format!("filter {}", filter.name()));
    }
    if let Some(p) = rule.priority {
        parts.push(format!("priority {}", p.name()));
    }
    if let Some(log) = rule.log {
        parts.push(if log { "log" } else { "no log" }.to_string());
    }
    for (name, value) in &rule.meta {
        parts.push(format!("meta {name}={value:?}"));
    }
    if let Some(source) = &rule.source {
        parts.push(format!("source {source:?}"));
    }
    if rule.stop {
        parts.push("stop".to_string());
    }
    if rule.first_match {
        parts.push("first-match block".to_string());
    }
    if parts.is_empty() {
        parts.push(
            if in_first_match_block {
                "nothing set; a match ends the block"
            } else {
                "nothing set"
            }
            .to_string(),
        );
    }
    parts.join(", ")
}

/// Turns a test into its runnable form. Wildcards that are plain literals
/// become literal comparisons so that the fast index can take them.
fn atom_kind(test: &Test) -> AtomKind {
    let insensitive = test.case == Case::Insensitive;
    let literal = |op: LiteralOp, text: &str| AtomKind::Literal {
        op,
        needle: if insensitive || op == LiteralOp::Domain {
            text.to_ascii_lowercase()
        } else {
            text.to_string()
        },
    };
    match &test.matcher {
        Matcher::Exact(s) => literal(LiteralOp::Exact, s),
        Matcher::Prefix(s) => literal(LiteralOp::Prefix, s),
        Matcher::Suffix(s) => literal(LiteralOp::Suffix, s),
        Matcher::Contains(s) => literal(LiteralOp::Contains, s),
        Matcher::Domain(s) => literal(LiteralOp::Domain, s.trim_start_matches('.')),
        Matcher::Cidr(c) => AtomKind::Cidr(*c),
        Matcher::Range(r) => AtomKind::Range(*r),
        Matcher::Regex(pattern) => compile_regex(pattern, insensitive),
        Matcher::Wildcard(pattern) => {
            let parts: Vec<&str> = pattern.split('*').collect();
            let inner_stars =
                parts.len() > 2 && parts[1..parts.len() - 1].iter().any(|p| !p.is_empty());
            let (first, last) = (parts[0], parts[parts.len() - 1]);
            match parts.len() {
                1 => literal(LiteralOp::Exact, pattern),
                _ if parts.iter().all(|p| p.is_empty()) => AtomKind::Always,
                2 if first.is_empty() => literal(LiteralOp::Suffix, last),
                2 if last.is_empty() => literal(LiteralOp::Prefix, first),
                3 if first.is_empty() && last.is_empty() && !inner_stars => {
                    literal(LiteralOp::Contains, parts[1])
                }
                _ => {
                    let body: Vec<String> = parts.iter().map(|p| regex::escape(p)).collect();
                    // `(?s)`: a `*` runs across any character, newlines included.
                    compile_regex(&format!("(?s)^{}$", body.join(".*")), insensitive)
                }
            }
        }
    }
}

/// Compiles one regex; a failure becomes [`AtomKind::Broken`] with the
/// compiler's message, naming the size limit when that is the cause.
fn compile_regex(pattern: &str, insensitive: bool) -> AtomKind {
    match regex::RegexBuilder::new(pattern)
        .case_insensitive(insensitive)
        .build()
    {
        Ok(r) => AtomKind::Regex(r),
        Err(regex::Error::CompiledTooBig(limit)) => AtomKind::Broken(format!(
            "regex `{pattern}` is too costly to compile: it exceeds the regex size limit of {limit} bytes; \
             simplify it (fewer repetitions like {{1000}}, smaller classes)"
        )),
        Err(e) => AtomKind::Broken(format!(
            "regex `{pattern}` does not compile: {}",
            one_line(&e.to_string())
        )),
    }
}

/// The regex crate's multi-line messages squeezed onto one line.
fn one_line(message: &str) -> String {
    let mut out = String::new();
    for line in message.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        let _ = write!(out, "{line}");
    }
    out
}

/// Fields whose atoms go through the per-field index.
fn is_indexed_field(field: Field) -> bool {
    !field.is_numeric() && !field.is_deferred()
}

/// Literal patterns of one field and case: the distinct needles, the atoms
/// using each, and each needle's slot.
#[derive(Default)]
struct LiteralPatterns {
    needles: Vec<String>,
    uses: Vec<Vec<(u32, LiteralOp)>>,
    slots: FxHashMap<String, usize>,
}

/// Builds the per-field matchers; returns them and the atoms left to test
/// one by one.
fn index_atoms(atoms: &[Atom], atom_nodes: &[Vec<u32>]) -> (Vec<FieldIndex>, Vec<u32>) {
    let mut direct = Vec::new();
    let mut by_field: FxHashMap<Field, FieldIndex> = FxHashMap::default();
    // (field, insensitive) → literal patterns and their users
    let mut literal_patterns: FxHashMap<(Field, bool), LiteralPatterns> = FxHashMap::default();
    let mut regex_patterns: FxHashMap<Field, Vec<(String, u32)>> = FxHashMap::default();

    for (id, atom) in atoms.iter().enumerate() {
        let id = id as u32;
        if atom_nodes[id as usize].is_empty() {
            continue; // only used by disabled rules
        }
        let field = atom.test.field;
        let insensitive = atom.test.case == Case::Insensitive;
        let indexable = is_indexed_field(field);
        let entry = || FieldIndex {
            field,
            exact_sensitive: FxHashMap::default(),
            exact_insensitive: FxHashMap::default(),
            domains: FxHashMap::default(),
            literals: Vec::new(),
            regexes: Vec::new(),
        };
        match &atom.kind {
            AtomKind::Literal { op, needle } if indexable && !needle.is_empty() => match op {
                LiteralOp::Exact => {
                    let index = by_field.entry(field).or_insert_with(entry);
                    let map = if insensitive {
                        &mut index.exact_insensitive
                    } else {
                        &mut index.exact_sensitive
                    };
                    map.entry(needle.as_str().into()).or_default().push(id);
                }
                LiteralOp::Domain => {
                    let index = by_field.entry(field).or_insert_with(entry);
                    index
                        .domains
                        .entry(needle.as_str().into())
                        .or_default()
                        .push(id);
                }
                op => {
                    by_field.entry(field).or_insert_with(entry);
                    let group = literal_patterns.entry((field, insensitive)).or_default();
                    let slot = *group.slots.entry(needle.clone()).or_insert_with(|| {
                        group.needles.push(needle.clone());
                        group.uses.push(Vec::new());
                        group.needles.len() - 1
                    });
                    group.uses[slot].push((id, *op));
                }
            },
            AtomKind::Regex(regex) if indexable => {
                by_field.entry(field).or_insert_with(entry);
                let wrapped = if insensitive {
                    format!("(?i:{})", regex.as_str())
                } else {
                    format!("(?:{})", regex.as_str())
                };
                regex_patterns.entry(field).or_default().push((wrapped, id));
            }
            AtomKind::Broken(_) => {}
            _ => direct.push(id),
        }
    }

    for ((field, insensitive), LiteralPatterns { needles, uses, .. }) in literal_patterns {
        let built = aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(insensitive)
            .match_kind(aho_corasick::MatchKind::Standard)
            .build(&needles);
        match built {
            Ok(automaton) => {
                if let Some(index) = by_field.get_mut(&field) {
                    index.literals.push(LiteralScan { automaton, uses });
                }
            }
            // Too many patterns for one automaton: test them one by one
            // rather than fail (never seen in practice).
            Err(_) => direct.extend(uses.iter().flatten().map(|(id, _)| *id)),
        }
    }
    for (field, patterns) in regex_patterns {
        let Some(index) = by_field.get_mut(&field) else {
            continue;
        };
        for chunk in patterns.chunks(MAX_REGEXES_PER_SET) {
            build_chunks(chunk, &mut index.regexes, &mut direct);
        }
    }
    let mut fields: Vec<FieldIndex> = by_field.into_values().collect();
    fields.sort_by_key(|f| f.field);
    direct.sort_unstable();
    (fields, direct)
}

/// Builds one multi-pattern regex for `chunk`, halving it when the
/// combination is too big; single patterns that still fail are tested alone.
fn build_chunks(chunk: &[(String, u32)], out: &mut Vec<RegexChunk>, direct: &mut Vec<u32>) {
    let config = meta::Regex::config()
        .match_kind(regex_automata::MatchKind::All)
        .nfa_size_limit(Some(SET_SIZE_LIMIT))
        .dfa_size_limit(Some(SET_SIZE_LIMIT))
        .hybrid_cache_capacity(SET_SIZE_LIMIT / 4);
    let patterns: Vec<&str> = chunk.iter().map(|(p, _)| p.as_str()).collect();
    match meta::Regex::builder()
        .configure(config)
        .build_many(&patterns)
    {
        Ok(regex) => out.push(RegexChunk {
            regex,
            atoms: chunk.iter().map(|(_, id)| *id).collect(),
        }),
        Err(_) if chunk.len() > 1 => {
            let (a, b) = chunk.split_at(chunk.len() / 2);
            build_chunks(a, out, direct);
            build_chunks(b, out, direct);
        }
        Err(_) => direct.push(chunk[0].1),
    }
}
