//! Which URLs an edit can change at all, so that the what-if evaluates
//! only those under both rule sets.
//!
//! A rule's condition depends on the URL alone, never on other rules. So
//! when a URL holds for none of the rules an edit touched (added, removed,
//! changed or moved, in their old and their new form), both rule sets visit
//! the same rules for it and every visited rule that holds is the same:
//! its verdict is the same. The probe is those touched rules' conditions,
//! flattened into one small rule set that marks a URL when any of them
//! holds, or when it cannot tell yet (a content-type or address test still
//! waiting: then the URL is evaluated in full, as before).
//!
//! Where that reasoning does not hold, there is no probe and every URL is
//! evaluated: a touched `must-have` filter acts on the URLs it does *not*
//! hold for, and a changed disposition decides for every URL no rule
//! decided.

use std::rc::Rc;

use crate::rules::model::{Disposition, Filter, Origin, Rule, RuleSet};
use crate::rules::{CompiledRules, Scratch, TraceMode, UrlFacts};

/// The touched rules' conditions, compiled.
#[derive(Debug)]
pub struct Probe {
    rules: CompiledRules,
    /// Touched rules, for the record (tests and the bench).
    pub touched: usize,
}

impl Probe {
    /// The probe of an edit from `old` to `new`; `None` when every URL
    /// must be evaluated.
    pub fn of_edit(old: &RuleSet, new: &RuleSet) -> Option<Probe> {
        if old.disposition != new.disposition {
            return None;
        }
        let (old, new) = (flatten(&old.rules), flatten(&new.rules));
        // The rules the edits left alone at the start and at the end; what
        // lies between, on either side, is touched. Edits from the console
        // are a few changes, so the middle is small. A rule counts as left
        // alone only under the same chain of enclosing rules: one that kept
        // its depth but moved to another block is visited for other URLs.
        let same = |a: &Placed, b: &Placed| a == b;
        let head = old.iter().zip(&new).take_while(|(a, b)| same(a, b)).count();
        let tail = old[head..]
            .iter()
            .rev()
            .zip(new[head..].iter().rev())
            .take_while(|(a, b)| same(a, b))
            .count();
        let mut touched: Vec<Rule> = old[head..old.len() - tail]
            .iter()
            .chain(&new[head..new.len() - tail])
            .map(|placed| (*placed.rule).clone())
            .collect();
        let waited_on = deferred_context(&old, head..old.len() - tail)
            .chain(deferred_context(&new, head..new.len() - tail));
        touched.extend(waited_on);
        if touched.iter().any(|r| r.filter == Some(Filter::MustHave)) {
            return None;
        }
        let rules = touched
            .iter()
            .map(|rule| Rule {
                name: rule.name.clone(),
                enabled: true,
                condition: rule.condition.clone(),
                negate: rule.negate,
                set: crate::rules::model::Flags {
                    fetch: Some(true),
                    ..Default::default()
                },
                origin: rule.origin,
                ..Rule::default()
            })
            .collect();
        Some(Probe {
            touched: touched.len(),
            rules: CompiledRules::new(&RuleSet {
                disposition: Disposition::Disallow,
                rules,
            }),
        })
    }

    pub fn scratch(&self) -> Scratch {
        self.rules.scratch()
    }

    /// Whether the edit can change this URL's verdict.
    pub fn may_change(&self, facts: &UrlFacts<'_>, scratch: &mut Scratch) -> bool {
        let marked = self.rules.evaluate(facts, scratch, TraceMode::Off);
        marked.fetch || !marked.pending.is_empty()
    }
}

/// The deferred rules whose waiting a touched rule can change, although
/// its own condition does not hold: a deferred rule's `stop` (its own or a
/// nested rule's) and what it may allow are read from its whole block, and
/// a `stop` later in a `first_match` block makes the rules after the block
/// wait for the deferred rules before it (SPEC 1.3 step 3). So the rules
/// enclosing a touched rule, and the earlier rules of each `first_match`
/// block it is in, are added to the probe when their condition waits for a
/// field: where that field is unknown the probe cannot tell and the URL is
/// evaluated in full, as for a touched deferred rule.
fn deferred_context(
    placed: &[Placed],
    touched: std::ops::Range<usize>,
) -> impl Iterator<Item = Rule> + '_ {
    let waits = |rule: &Rule| {
        let mut deferred = false;
        if let Some(condition) = &rule.condition {
            condition.for_each_test(&mut |t| deferred |= t.field.is_deferred());
        }
        deferred
    };
    let mut found: Vec<&Rc<Rule>> = Vec::new();
    for i in touched {
        let enclosing = &placed[i].enclosing;
        found.extend(enclosing.iter().filter(|r| waits(r)));
        // Back from the touched rule: each level's earlier siblings, up to
        // that level's parent.
        let mut level = enclosing.len();
        for earlier in placed[..i].iter().rev() {
            if level == 0 {
                break;
            }
            let depth = earlier.enclosing.len();
            if depth < level {
                level = depth;
            } else if depth == level && enclosing[level - 1].first_match && waits(&earlier.rule) {
                found.push(&earlier.rule);
            }
        }
    }
    found.into_iter().map(|rule| (**rule).clone())
}

/// A rule in a flattened list: itself and the rules that enclose it,
/// outermost first, each with its nested rules taken out and its source
/// line forgotten (a rule that only moved down a line because another was
/// added is the same rule).
#[derive(PartialEq)]
struct Placed {
    enclosing: Vec<Rc<Rule>>,
    rule: Rc<Rule>,
}

/// Every rule in document order, placed.
fn flatten(rules: &[Rule]) -> Vec<Placed> {
    fn walk(rules: &[Rule], enclosing: &mut Vec<Rc<Rule>>, out: &mut Vec<Placed>) {
        for rule in rules {
            let bare = Rc::new(Rule {
                rules: Vec::new(),
                origin: Origin::default(),
                ..rule.clone()
            });
            out.push(Placed {
                enclosing: enclosing.clone(),
                rule: bare.clone(),
            });
            enclosing.push(bare);
            walk(&rule.rules, enclosing, out);
            enclosing.pop();
        }
    }
    let mut out = Vec::new();
    walk(rules, &mut Vec::new(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::model::{Action, Condition, Field, Matcher, Test};
    use crate::rules::synth::{Rng, rule_set, urls};
    use crate::rules::{Known, Verdict};

    /// The rule at `path` (indexes into nested lists).
    fn rule_at<'a>(rules: &'a mut [Rule], path: &[usize]) -> &'a mut Rule {
        let (first, rest) = path.split_first().expect("a path");
        let rule = &mut rules[*first];
        if rest.is_empty() {
            rule
        } else {
            rule_at(&mut rule.rules, rest)
        }
    }

    fn paths(set: &RuleSet) -> Vec<Vec<usize>> {
        let mut out = Vec::new();
        set.walk(&mut |path, _| out.push(path.iter().map(|n| n - 1).collect()));
        out
    }

    /// One random edit of the kinds the console makes.
    fn edit(set: &RuleSet, rng: &mut Rng, donor: &RuleSet) -> (RuleSet, &'static str) {
        let mut new = set.clone();
        let all = paths(&new);
        let path = rng.pick(&all).clone();
        let kind = match rng.below(13) {
            0 => {
                let (last, parent) = path.split_last().expect("path");
                let list = if parent.is_empty() {
                    &mut new.rules
                } else {
                    &mut rule_at(&mut new.rules, parent).rules
                };
                list.remove(*last);
                "delete"
            }
            1 => {
                let at = rng.below(new.rules.len() + 1);
                new.rules.insert(at, rng.pick(&donor.rules).clone());
                "add"
            }
            2 if path.len() == 1 && path[0] + 1 < new.rules.len() => {
                new.rules.swap(path[0], path[0] + 1);
                "move down"
            }
            3 => {
                let rule = rule_at(&mut new.rules, &path);
                rule.enabled = !rule.enabled;
                "toggle enabled"
            }
            4 => {
                let rule = rule_at(&mut new.rules, &path);
                rule.negate = !rule.negate;
                "toggle negate"
            }
            5 => {
                let rule = rule_at(&mut new.rules, &path);
                rule.stop = !rule.stop;
                "toggle stop"
            }
            6 => {
                let rule = rule_at(&mut new.rules, &path);
                rule.action = Some(*rng.pick(&Action::ALL));
                "change action"
            }
            7 => {
                let rule = rule_at(&mut new.rules, &path);
                rule.condition = Some(Condition::Test(Test {
                    field: Field::Path,
                    matcher: Matcher::Contains(["/a", "e", "/docs", "2"][rng.below(4)].into()),
                    case: Default::default(),
                }));
                "change condition"
            }
            8 => {
                let rule = rule_at(&mut new.rules, &path);
                rule.first_match = !rule.first_match;
                "toggle first_match"
            }
            9 => {
                let rule = rule_at(&mut new.rules, &path);
                rule.filter = Some(Filter::MayNotHave);
                "may-not-have filter"
            }
            10 if path.len() > 1 => {
                let (last, parent) = path.split_last().expect("path");
                let moved = rule_at(&mut new.rules, parent).rules.remove(*last);
                new.rules.insert(parent[0] + 1, moved);
                "move out of its block"
            }
            11 if path.len() == 1 && path[0] > 0 => {
                let moved = new.rules.remove(path[0]);
                new.rules[path[0] - 1].rules.push(moved);
                "move into the block above"
            }
            _ => {
                let rule = rule_at(&mut new.rules, &path);
                rule.condition = Some(Condition::Test(Test {
                    field: Field::ContentType,
                    matcher: Matcher::Exact("application/pdf".into()),
                    case: Default::default(),
                }));
                "content-type condition"
            }
        };
        (new, kind)
    }

    /// What the what-if compares, and more: the whole decision.
    fn decision(v: &Verdict) -> impl PartialEq + std::fmt::Debug {
        (
            v.fetches(),
            v.save,
            v.follow,
            v.filtered,
            v.priority,
            v.log,
            v.queue(),
            v.meta.clone(),
            v.source.clone(),
            v.pending,
        )
    }

    /// The probe's promise, on random series of one to four edits of
    /// random rule lists (the what-if compares the applied rules with all
    /// the edits since): a URL it does not mark has the same verdict under
    /// both rule sets.
    #[test]
    fn unmarked_urls_keep_their_verdict() {
        let mut rng = Rng::new(11);
        let (mut probed, mut narrowed) = (0, 0);
        for seed in 0..300 {
            let set = rule_set(40, seed % 60);
            let donor = rule_set(40, seed + 1000);
            let urls = urls(300, seed, &set);
            let mut new = set.clone();
            let mut kinds = Vec::new();
            for _ in 0..1 + rng.below(4) {
                let (edited, kind) = edit(&new, &mut rng, &donor);
                new = edited;
                kinds.push(kind);
            }
            let kind = kinds.join(", then ");
            let (old_c, new_c) = (CompiledRules::new(&set), CompiledRules::new(&new));
            let (mut so, mut sn) = (old_c.scratch(), new_c.scratch());
            let Some(probe) = Probe::of_edit(&set, &new) else {
                continue;
            };
            probed += 1;
            let mut sp = probe.scratch();
            let mut unmarked = 0;
            for (i, url) in urls.iter().enumerate() {
                let parsed = url::Url::parse(url).expect("synth URL");
                let known = Known {
                    content_type: [
                        None,
                        Some("text/html".into()),
                        Some("application/pdf".into()),
                    ][i % 3]
                        .clone(),
                    link_depth: (i % 5) as u32,
                    ..Known::default()
                };
                let facts = UrlFacts::new(&parsed, &known);
                if probe.may_change(&facts, &mut sp) {
                    continue;
                }
                unmarked += 1;
                let a = old_c.evaluate(&facts, &mut so, TraceMode::Off);
                let b = new_c.evaluate(&facts, &mut sn, TraceMode::Off);
                assert_eq!(
                    decision(&a),
                    decision(&b),
                    "seed {seed}, edit {kind}, {url}"
                );
            }
            if unmarked > 0 {
                narrowed += 1;
            }
        }
        // The test means something only if most edits had a probe that
        // left URLs out.
        assert!(
            probed >= 150 && narrowed >= 120,
            "{probed} probed, {narrowed} narrowed"
        );
    }

    /// `P{X}, Q{Y}` edited into `P{X, Y}` (outdent Y, delete Q, indent Y):
    /// Y keeps its depth but is now visited wherever P holds.
    #[test]
    fn a_rule_moved_to_another_block_at_the_same_depth_is_touched() {
        let rule = |name: &str, prefix: &str, action: Option<Action>, rules: Vec<Rule>| Rule {
            condition: Some(Condition::Test(Test {
                field: Field::Path,
                matcher: Matcher::Prefix(prefix.into()),
                case: Default::default(),
            })),
            action,
            rules,
            ..Rule::new(name, 1)
        };
        let x = rule("X", "/a", None, Vec::new());
        let y = rule("Y", "/a/y", Some(Action::Exclude), Vec::new());
        let old = RuleSet {
            rules: vec![
                rule("P", "/a", None, vec![x.clone()]),
                rule("Q", "/q", None, vec![y.clone()]),
            ],
            ..RuleSet::default()
        };
        let new = RuleSet {
            rules: vec![rule("P", "/a", None, vec![x, y])],
            ..RuleSet::default()
        };
        let probe = Probe::of_edit(&old, &new).expect("a probe");
        assert_eq!(probe.touched, 3, "Q, and Y in both places");
        let url = url::Url::parse("http://h/a/y/1").expect("url");
        let known = Known::default();
        let facts = UrlFacts::new(&url, &known);
        assert!(probe.may_change(&facts, &mut probe.scratch()));
    }

    /// `P{X}, Y` with P on the content type: X gaining `stop` makes Y
    /// wait for P on every URL whose type is unknown, X's condition
    /// holding or not; so does a `stop` after a deferred rule in a
    /// `first_match` block. The probe marks such URLs.
    #[test]
    fn a_stop_under_a_deferred_rule_marks_what_waits_for_it() {
        let on = |name: &str, field: Field, text: &str, rules: Vec<Rule>| Rule {
            condition: Some(Condition::Test(Test {
                field,
                matcher: Matcher::Prefix(text.into()),
                case: Default::default(),
            })),
            rules,
            ..Rule::new(name, 1)
        };
        let x = on("X", Field::Path, "/x", Vec::new());
        let y = Rule {
            action: Some(Action::Exclude),
            ..on("Y", Field::Path, "/", Vec::new())
        };
        let nested = |x: Rule| RuleSet {
            rules: vec![on("P", Field::ContentType, "text/html", vec![x]), y.clone()],
            ..RuleSet::default()
        };
        let block = |x: Rule| RuleSet {
            rules: vec![
                Rule {
                    first_match: true,
                    ..on(
                        "B",
                        Field::Path,
                        "/",
                        vec![on("P", Field::ContentType, "text/html", Vec::new()), x],
                    )
                },
                y.clone(),
            ],
            ..RuleSet::default()
        };
        let stopping = Rule {
            stop: true,
            ..x.clone()
        };
        let url = url::Url::parse("http://h/y").expect("url");
        let known = Known::default();
        let facts = UrlFacts::new(&url, &known);
        for (old, new) in [
            (nested(x.clone()), nested(stopping.clone())),
            (block(x.clone()), block(stopping)),
        ] {
            let (a, b) = (CompiledRules::new(&old), CompiledRules::new(&new));
            let before = a.evaluate(&facts, &mut a.scratch(), TraceMode::Off);
            let after = b.evaluate(&facts, &mut b.scratch(), TraceMode::Off);
            assert_ne!(decision(&before), decision(&after), "the edit matters");
            let probe = Probe::of_edit(&old, &new).expect("a probe");
            assert!(probe.may_change(&facts, &mut probe.scratch()));
        }
    }

    #[test]
    fn what_the_probe_cannot_narrow() {
        let set = rule_set(20, 3);
        assert_eq!(Probe::of_edit(&set, &set).map(|p| p.touched), Some(0));
        let mut other = set.clone();
        other.disposition = Disposition::Allow;
        assert!(Probe::of_edit(&set, &other).is_none(), "disposition");
        let mut must = set.clone();
        must.rules[3].filter = Some(Filter::MustHave);
        assert!(Probe::of_edit(&set, &must).is_none(), "must-have filter");
        // A rule that moved one line down because one was added before it
        // is not touched: only the added one is.
        let mut added = set.clone();
        added.rules.insert(2, rule_set(5, 9).rules[1].clone());
        for rule in &mut added.rules[3..] {
            rule.origin.line += 1;
        }
        assert_eq!(Probe::of_edit(&set, &added).map(|p| p.touched), Some(1));
    }
}
