//! Edits to an ordered rule list, addressed by rule path (`[2, 1]` is the
//! second rule nested in the third: 0-based here, unlike the 1-based paths
//! of `RuleSet::walk`), with undo and redo.
//! Pure: the Rules view turns keys into these calls and shows the result;
//! nothing reaches the crawl until the list is applied.

use crate::rules::model::{Action, Filter, Priority, Rule, RuleSet};

/// One row of the flattened rule list: where the rule is and how deep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// 0-based indexes from the top level down.
    pub path: Vec<usize>,
    /// Index in document order, as `CompiledRules::rule_info` counts rules.
    pub index: usize,
}

/// The rules in document order (parents before their nested rules).
pub fn rows(rules: &RuleSet) -> Vec<Row> {
    let mut rows = Vec::new();
    rules.walk(&mut |path, _| {
        rows.push(Row {
            path: path.iter().map(|n| n - 1).collect(),
            index: rows.len(),
        });
    });
    rows
}

/// The rule at `path`, if there is one.
pub fn get<'a>(rules: &'a RuleSet, path: &[usize]) -> Option<&'a Rule> {
    let (first, rest) = path.split_first()?;
    let mut rule = rules.rules.get(*first)?;
    for &i in rest {
        rule = rule.rules.get(i)?;
    }
    Some(rule)
}

/// The rule at `path`, mutably.
pub fn get_mut<'a>(rules: &'a mut RuleSet, path: &[usize]) -> Option<&'a mut Rule> {
    let (first, rest) = path.split_first()?;
    let mut rule = rules.rules.get_mut(*first)?;
    for &i in rest {
        rule = rule.rules.get_mut(i)?;
    }
    Some(rule)
}

/// The list that holds the rule at `path` (the top level or a block).
fn siblings_mut<'a>(rules: &'a mut RuleSet, path: &[usize]) -> Option<&'a mut Vec<Rule>> {
    match path.split_last()? {
        (_, []) => Some(&mut rules.rules),
        (_, parent) => get_mut(rules, parent).map(|r| &mut r.rules),
    }
}

/// The next preset in the cycle none → exclude → exclude-scan → download →
/// download-no-scan → none.
pub fn next_action(action: Option<Action>) -> Option<Action> {
    match action {
        None => Some(Action::Exclude),
        Some(Action::Exclude) => Some(Action::ExcludeScan),
        Some(Action::ExcludeScan) => Some(Action::Download),
        Some(Action::Download) => Some(Action::DownloadNoScan),
        Some(Action::DownloadNoScan) => None,
    }
}

/// One step more urgent (`up`) or less urgent, from highest to lowest; an
/// unset priority steps from normal.
pub fn step_priority(priority: Option<Priority>, up: bool) -> Option<Priority> {
    let order = Priority::ALL;
    let at = order.iter().position(|p| Some(*p) == priority).unwrap_or(2);
    let to = if up {
        at.saturating_sub(1)
    } else {
        (at + 1).min(order.len() - 1)
    };
    Some(order[to])
}

/// unset → log → no log → unset.
pub fn next_log(log: Option<bool>) -> Option<bool> {
    match log {
        None => Some(true),
        Some(true) => Some(false),
        Some(false) => None,
    }
}

/// none → must-have → may-not-have → none.
pub fn next_filter(filter: Option<Filter>) -> Option<Filter> {
    match filter {
        None => Some(Filter::MustHave),
        Some(Filter::MustHave) => Some(Filter::MayNotHave),
        Some(Filter::MayNotHave) => None,
    }
}

/// Moves the rule one place up (`up`) or down among its siblings; returns
/// its new path, or `None` when it is already at that end.
pub fn move_rule(rules: &mut RuleSet, path: &[usize], up: bool) -> Option<Vec<usize>> {
    let (&last, _) = path.split_last()?;
    let list = siblings_mut(rules, path)?;
    let to = if up {
        last.checked_sub(1)?
    } else {
        (last + 1 < list.len()).then_some(last + 1)?
    };
    list.swap(last, to);
    let mut new = path.to_vec();
    *new.last_mut()? = to;
    Some(new)
}

/// Moves the rule into the block of the sibling above it, as its last
/// nested rule; returns the new path.
pub fn indent(rules: &mut RuleSet, path: &[usize]) -> Option<Vec<usize>> {
    let (&last, parent) = path.split_last()?;
    let above = last.checked_sub(1)?;
    let list = siblings_mut(rules, path)?;
    let rule = list.remove(last);
    let host = &mut list[above];
    host.rules.push(rule);
    let mut new = parent.to_vec();
    new.push(above);
    new.push(host.rules.len() - 1);
    Some(new)
}

/// Moves the rule out of its block, to just after the rule that held it.
pub fn outdent(rules: &mut RuleSet, path: &[usize]) -> Option<Vec<usize>> {
    if path.len() < 2 {
        return None;
    }
    let (&last, parent) = path.split_last()?;
    let rule = siblings_mut(rules, path)?.remove(last);
    let (&parent_at, _) = parent.split_last()?;
    let outer = siblings_mut(rules, parent)?;
    outer.insert(parent_at + 1, rule);
    let mut new = parent.to_vec();
    *new.last_mut()? = parent_at + 1;
    Some(new)
}

/// Inserts `rule` just after `path` (at the same level), or at the top of an
/// empty list; returns its path.
pub fn insert_after(rules: &mut RuleSet, path: Option<&[usize]>, rule: Rule) -> Vec<usize> {
    match path.and_then(|p| Some((p, siblings_mut(rules, p)?))) {
        Some((p, list)) => {
            let at = (p[p.len() - 1] + 1).min(list.len());
            list.insert(at, rule);
            let mut new = p.to_vec();
            new[p.len() - 1] = at;
            new
        }
        None => {
            rules.rules.push(rule);
            vec![rules.rules.len() - 1]
        }
    }
}

/// Removes the rule (with its nested rules) and returns it.
pub fn remove(rules: &mut RuleSet, path: &[usize]) -> Option<Rule> {
    let (&last, _) = path.split_last()?;
    let list = siblings_mut(rules, path)?;
    (last < list.len()).then(|| list.remove(last))
}

/// Undo and redo over whole rule lists: rule sets are small, so a copy per
/// edit is simpler and safer than inverse operations. Each step keeps where
/// the edited rule was before and after the edit, so that undo and redo
/// select it where they put it back.
#[derive(Debug, Default)]
pub struct History {
    undo: Vec<Step>,
    redo: Vec<Step>,
}

/// One edit: a rule list (the one before the edit on the undo stack, the
/// one after it on the redo stack) and the edited rule's paths.
#[derive(Debug, Clone)]
struct Step {
    rules: RuleSet,
    /// The rule selected when the edit was made: the edited, moved or
    /// deleted rule, or the one a new rule was added after (none in an
    /// empty list).
    before: Option<Vec<usize>>,
    /// Where the edit left the selection.
    after: Vec<usize>,
}

/// How many edits can be undone.
const MAX_UNDO: usize = 200;

impl History {
    /// Records the list as it was before an edit, with the path selected
    /// then (`before`) and the one the edit selected (`after`).
    pub fn before_edit(&mut self, rules: &RuleSet, before: Option<Vec<usize>>, after: Vec<usize>) {
        self.undo.push(Step {
            rules: rules.clone(),
            before,
            after,
        });
        if self.undo.len() > MAX_UNDO {
            self.undo.remove(0);
        }
        self.redo.clear();
    }

    /// The list before the last edit, and the path to select in it (the
    /// edited rule's, as it was); `current` becomes redoable.
    pub fn undo(&mut self, current: &RuleSet) -> Option<(RuleSet, Option<Vec<usize>>)> {
        let step = self.undo.pop()?;
        let select = step.before.clone();
        self.redo.push(Step {
            rules: current.clone(),
            ..step.clone()
        });
        Some((step.rules, select))
    }

    /// The list after the last undone edit, and the path the edit selected.
    pub fn redo(&mut self, current: &RuleSet) -> Option<(RuleSet, Option<Vec<usize>>)> {
        let step = self.redo.pop()?;
        let select = Some(step.after.clone());
        self.undo.push(Step {
            rules: current.clone(),
            ..step.clone()
        });
        Some((step.rules, select))
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `a`, `b` (holding `b1`, `b2`), `c`.
    fn sample() -> RuleSet {
        let mut b = Rule::new("b", 2);
        b.rules = vec![Rule::new("b1", 3), Rule::new("b2", 4)];
        RuleSet {
            rules: vec![Rule::new("a", 1), b, Rule::new("c", 5)],
            ..RuleSet::default()
        }
    }

    fn names(rules: &RuleSet) -> Vec<String> {
        let mut out = Vec::new();
        rules.walk(&mut |path, rule| {
            out.push(format!("{}{}", ".".repeat(path.len() - 1), rule.name))
        });
        out
    }

    #[test]
    fn rows_follow_document_order() {
        let rows = rows(&sample());
        let paths: Vec<_> = rows.iter().map(|r| r.path.clone()).collect();
        assert_eq!(
            paths,
            vec![vec![0], vec![1], vec![1, 0], vec![1, 1], vec![2]]
        );
        assert_eq!(rows[3].index, 3);
    }

    #[test]
    fn moves_stay_among_siblings() {
        let mut r = sample();
        assert_eq!(move_rule(&mut r, &[1, 1], true), Some(vec![1, 0]));
        assert_eq!(names(&r), ["a", "b", ".b2", ".b1", "c"]);
        assert_eq!(move_rule(&mut r, &[1, 0], true), None, "first in its block");
        assert_eq!(move_rule(&mut r, &[2], false), None, "last at the top");
        assert_eq!(move_rule(&mut r, &[0], false), Some(vec![1]));
        assert_eq!(names(&r), ["b", ".b2", ".b1", "a", "c"]);
    }

    #[test]
    fn indent_and_outdent_move_in_and_out_of_blocks() {
        let mut r = sample();
        assert_eq!(indent(&mut r, &[2]), Some(vec![1, 2]));
        assert_eq!(names(&r), ["a", "b", ".b1", ".b2", ".c"]);
        assert_eq!(indent(&mut r, &[0]), None, "nothing above to hold it");
        assert_eq!(outdent(&mut r, &[1, 0]), Some(vec![2]));
        assert_eq!(names(&r), ["a", "b", ".b2", ".c", "b1"]);
        assert_eq!(outdent(&mut r, &[0]), None, "already at the top");
    }

    #[test]
    fn insert_and_remove() {
        let mut r = sample();
        let at = insert_after(&mut r, Some(&[1, 0]), Rule::new("new", 0));
        assert_eq!(at, vec![1, 1]);
        assert_eq!(names(&r), ["a", "b", ".b1", ".new", ".b2", "c"]);
        assert_eq!(remove(&mut r, &[1]).map(|x| x.rules.len()), Some(3));
        assert_eq!(names(&r), ["a", "c"]);
        let mut empty = RuleSet::default();
        assert_eq!(insert_after(&mut empty, None, Rule::new("x", 0)), vec![0]);
    }

    #[test]
    fn cycles_visit_every_value_and_come_back() {
        let mut a = None;
        let mut seen = Vec::new();
        for _ in 0..5 {
            a = next_action(a);
            seen.push(a);
        }
        assert_eq!(seen.last(), Some(&None));
        assert_eq!(seen.iter().flatten().count(), 4);
        assert_eq!(next_log(next_log(next_log(None))), None);
        assert_eq!(next_filter(next_filter(None)), Some(Filter::MayNotHave));
        assert_eq!(step_priority(None, true), Some(Priority::High));
        assert_eq!(step_priority(None, false), Some(Priority::Low));
        assert_eq!(
            step_priority(Some(Priority::Highest), true),
            Some(Priority::Highest)
        );
        assert_eq!(
            step_priority(Some(Priority::High), false),
            Some(Priority::Normal)
        );
        assert_eq!(
            step_priority(Some(Priority::Lowest), false),
            Some(Priority::Lowest)
        );
    }

    #[test]
    fn undo_and_redo_walk_the_edits() {
        let mut h = History::default();
        let v0 = sample();
        let mut v1 = v0.clone();
        h.before_edit(&v0, Some(vec![2]), vec![1]);
        v1.rules.pop();
        assert_eq!(h.undo(&v1), Some((v0.clone(), Some(vec![2]))));
        assert_eq!(h.redo(&v0), Some((v1.clone(), Some(vec![1]))));
        assert!(h.can_undo() && !h.can_redo());
        assert_eq!(h.undo(&v1), Some((v0, Some(vec![2]))), "again");
    }
}
