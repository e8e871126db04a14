//! Building [`CompiledRules`] from the rule tree: each rule becomes a node
//! (its parent, its condition flattened into ops, its effects), each
//! distinct test an atom shared by the nodes that use it, and the atoms on
//! text fields are indexed per field ([`index_atoms`]). Regexes compile
//! here; one that does not disables its rule with the compiler's message.

use super::*;

/// Gathers nodes, rule infos and atoms while walking the rule tree;
/// [`Builder::finish`] turns them into [`CompiledRules`].
#[derive(Default)]
pub(super) struct Builder {
    nodes: Vec<Node>,
    info: Vec<RuleInfo>,
    atoms: Vec<Atom>,
    atom_ids: FxHashMap<Test, u32>,
    atom_nodes: Vec<Vec<u32>>,
    extras: Vec<Extras>,
}

impl Builder {
    pub(super) fn add_rules(
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
                Some(Disabled::SwitchedOff)
            } else if let Some(message) = broken {
                Some(Disabled::Broken(message))
            } else if parent_disabled {
                Some(Disabled::EnclosingOff)
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
                has_extras: !rule.meta.is_empty() || rule.source.is_some(),
                uses_content_type,
                quiet_truth: None,
            });
            self.extras.push(Extras {
                meta: rule.meta.clone(),
                source: rule.source.clone(),
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

    pub(super) fn finish(self, disposition: Disposition) -> CompiledRules {
        let Builder {
            mut nodes,
            info,
            atoms,
            atom_nodes,
            extras,
            ..
        } = self;
        // Atoms used by enabled rules; the others need no matcher.
        let atom_users: Vec<Vec<u32>> = atom_nodes
            .into_iter()
            .map(|users| {
                users
                    .into_iter()
                    .filter(|&n| nodes[n as usize].enabled)
                    .collect()
            })
            .collect();
        let (fields, direct) = index_atoms(&atoms, &atom_users);
        // How costly an atom is as a trigger: how many rules use it (a rough
        // measure of how often it matches), and far more when it is tested
        // one by one or waits for a deferred field.
        let indexed: Vec<bool> = {
            let mut v = vec![true; atoms.len()];
            direct.iter().for_each(|&a| v[a as usize] = false);
            v
        };
        let cost = |a: u32| -> u64 {
            let popularity = atom_users[a as usize].len() as u64;
            if indexed[a as usize] {
                popularity
            } else {
                popularity + 1_000_000
            }
        };
        let mut always = Vec::new();
        let mut atom_triggers: Vec<Vec<u32>> = vec![Vec::new(); atoms.len()];
        let mut atom_watchers: Vec<Vec<u32>> = vec![Vec::new(); atoms.len()];
        for (id, node) in nodes.iter_mut().enumerate().filter(|(_, n)| n.enabled) {
            let id = id as u32;
            let triggers = match &node.cond {
                _ if node.negate || node.filter == Some(Filter::MustHave) => None,
                None => None,
                Some(cond) => cond.triggers(&cost),
            };
            match triggers {
                // A deferred atom cannot trigger: while its field is unknown
                // the rule must still be visited to be marked deferred.
                Some(t)
                    if !t
                        .iter()
                        .any(|&a| atoms[a as usize].test.field.is_deferred()) =>
                {
                    for a in t {
                        if atom_triggers[a as usize].last() != Some(&id) {
                            atom_triggers[a as usize].push(id);
                        }
                    }
                }
                _ => {
                    always.push(id);
                    if let Some(cond) = &node.cond
                        && !cond.any_atom(&|a| atoms[a as usize].test.field.is_deferred())
                    {
                        node.quiet_truth = Some(cond.holds_when_quiet());
                        cond.each_atom(&mut |a| {
                            if atom_watchers[a as usize].last() != Some(&id) {
                                atom_watchers[a as usize].push(id);
                            }
                        });
                    }
                }
            }
        }
        let mut hot: Vec<Hot> = nodes
            .iter()
            .map(|n| Hot::of(n, n.parent.is_some_and(|p| nodes[p as usize].first_match)))
            .collect();
        // What a node's block may do, for a deferred node: nested rules
        // come after their parent, so one pass backwards carries it up.
        for id in (0..hot.len()).rev() {
            let h = hot[id];
            if !h.has(Hot::ENABLED) {
                continue; // never evaluated, nor are the rules nested in it
            }
            let mut may = h.bits & (Hot::MAY_STOP | Hot::MAY_ALLOW_FETCH);
            if h.has(Hot::STOP) {
                may |= Hot::MAY_STOP;
            }
            if h.flag(0) == Some(true) {
                may |= Hot::MAY_ALLOW_FETCH;
            }
            hot[id].bits |= may;
            if h.parent != Hot::NONE {
                hot[h.parent as usize].bits |= may;
            }
        }
        // Then, backwards through each first_match block, whether a rule
        // after this one in it may stop.
        let mut later_stops = vec![false; hot.len()];
        for id in (0..hot.len()).rev() {
            let h = hot[id];
            if !h.has(Hot::IN_FIRST_MATCH) || !h.has(Hot::ENABLED) {
                continue;
            }
            let block = h.parent as usize;
            if later_stops[block] {
                hot[id].bits |= Hot::REST_MAY_STOP;
            }
            later_stops[block] |= h.has(Hot::MAY_STOP);
        }
        let mut ops = Vec::new();
        // Disabled nodes are never evaluated: their conditions need no ops.
        for (h, node) in hot.iter_mut().zip(&nodes).filter(|(_, n)| n.enabled) {
            if let Some(cond) = &node.cond
                && !matches!(cond, Expr::Atom(_))
            {
                h.atom = u32::try_from(ops.len())
                    .ok()
                    .filter(|&at| at != Hot::NONE)
                    .expect("over 4 billion flattened condition ops");
                h.bits |= Hot::COMPOUND;
                flatten(cond, &mut ops);
            }
        }
        let mut has_children = vec![false; nodes.len()];
        for node in &nodes {
            if let Some(p) = node.parent {
                has_children[p as usize] = true;
            }
        }
        let quiet = QuietRuns::new(&always, &hot, &has_children);
        let mut atom_links = Vec::with_capacity(atoms.len());
        let mut links = Vec::new();
        for (triggers, watchers) in atom_triggers.iter().zip(&atom_watchers) {
            atom_links.push(AtomLinks {
                start: links.len() as u32,
                triggers: triggers.len() as u32,
                watchers: watchers.len() as u32,
            });
            links.extend_from_slice(triggers);
            links.extend_from_slice(watchers);
        }
        let mut deferred_atoms = vec![0u64; atoms.len().div_ceil(64)];
        for (a, atom) in atoms.iter().enumerate() {
            if atom.test.field.is_deferred() {
                deferred_atoms[a / 64] |= 1 << (a % 64);
            }
        }
        CompiledRules {
            disposition,
            hot,
            nodes,
            info,
            atoms,
            atom_links,
            links,
            ops,
            extras,
            always,
            quiet,
            deferred_atoms,
            fields,
            direct,
            spares: Default::default(),
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
        // The pattern shortened, so that a long one leaves the reason in
        // sight (the edit form and the rule's own line show it whole).
        Err(regex::Error::CompiledTooBig(limit)) => AtomKind::Broken(format!(
            "regex `{}` is too costly to compile: it exceeds the regex size limit of {limit} bytes; \
             simplify it (fewer repetitions like {{1000}}, smaller classes)",
            crate::text::shortened(pattern, 60)
        )),
        Err(e) => AtomKind::Broken(format!(
            "regex `{}` does not compile: {}",
            crate::text::shortened(pattern, 60),
            crate::text::regex_error(&e)
        )),
    }
}

/// The regex crate's multi-line messages squeezed onto one line.
pub(crate) fn one_line(message: &str) -> String {
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

/// Builds the per-field matchers; returns them and the atoms left to test
/// one by one (numbers, deferred fields, empty needles, the rare atom an
/// automaton could not take).
fn index_atoms(atoms: &[Atom], atom_nodes: &[Vec<u32>]) -> (Vec<FieldIndex>, Vec<u32>) {
    let mut direct = Vec::new();
    let mut by_field: FxHashMap<Field, Vec<Entry<'_>>> = FxHashMap::default();
    for (id, atom) in atoms.iter().enumerate() {
        let id = id as u32;
        if atom_nodes[id as usize].is_empty() {
            continue; // only used by disabled rules
        }
        let field = atom.test.field;
        let insensitive = atom.test.case == Case::Insensitive;
        let entry = match &atom.kind {
            _ if !is_indexed_field(field) => None,
            AtomKind::Literal { op, needle } if !needle.is_empty() => Some(Entry::Literal {
                atom: id,
                op: *op,
                needle,
                insensitive,
            }),
            AtomKind::Regex(regex) => Some(Entry::Regex {
                atom: id,
                regex,
                insensitive,
            }),
            AtomKind::Broken(_) => continue,
            _ => None,
        };
        match entry {
            Some(entry) => by_field.entry(field).or_default().push(entry),
            None => direct.push(id),
        }
    }
    let mut fields = Vec::new();
    for (field, entries) in by_field {
        let (index, left) = FieldIndex::build(field, &entries);
        fields.push(index);
        direct.extend(left);
    }
    fields.sort_by_key(|f| f.field);
    direct.sort_unstable();
    (fields, direct)
}
