//! The Rules view's state and keys: the edited rule list with its undo
//! history, lints, shadowing and hit counts, and the apply flow (what-if,
//! then the new rules go to the crawl and to the rules file).

use std::sync::Arc;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{App, Form, Overlay, Request};
use crate::crawl::detail::Detail;
use crate::crawl::engine::{Control, NewRules};
use crate::rules::CompiledRules;
use crate::rules::health::shadowed;
use crate::rules::lint::{Lint, lint_rules};
use crate::rules::model::{Rule, RuleSet};
use crate::tui::edit::{self, History, Row};
use crate::tui::save::{SaveTarget, relined, same_rule, same_rules};
use crate::tui::whatif::Probe;

/// The rule list being edited and the one the crawl runs.
#[derive(Debug)]
pub struct RulesState {
    pub edited: RuleSet,
    pub applied: RuleSet,
    /// What the config file holds, as far as the console knows: the rules
    /// it was opened with, then each list saved in it; `None` once a save
    /// failed (unknown).
    saved: Option<RuleSet>,
    /// `edited`, compiled: what the Explain view and the what-if use.
    pub compiled: Arc<CompiledRules>,
    pub applied_compiled: Arc<CompiledRules>,
    pub history: History,
    /// Index into [`RulesState::rows`].
    pub selected: usize,
    pub rows: Vec<Row>,
    pub lints: Vec<Lint>,
    /// Per row: why the rule can never take effect.
    pub shadows: Vec<Option<String>>,
    /// Matches per rule of the applied list since it was applied, when
    /// known for it.
    pub hits: Option<Vec<u64>>,
    /// Matches per rule of the applied list before it was applied: those
    /// of each rule an apply left unchanged, carried over from the list
    /// before (by index in the applied list, as `hits`).
    carried: Vec<u64>,
    /// Per rule of the edited list (by index, as [`CompiledRules`] numbers
    /// them): the same rule's index in the applied list, if an edit left
    /// it as it is. While edits are pending, those rules show their hits.
    unchanged: Vec<Option<usize>>,
    /// URLs the crawl had discovered when the rules were applied: a rule
    /// is only said never to match once new URLs came after that.
    pub discovered_at_apply: u64,
    /// Rule sets applied during this crawl (the crawl counts the same way).
    applied_version: u64,
    pub save: SaveTarget,
    /// The last save found the file changed on disk and left it: the next
    /// `w` overwrites it, as the message said.
    pub overwrite_armed: bool,
    /// What that save found in the file: the overwrite writes the rules
    /// into it, keeping the rest (a setting changed by hand) as it is.
    pub found_on_disk: Option<String>,
}

impl RulesState {
    pub fn new(rules: RuleSet, save: SaveTarget) -> RulesState {
        let compiled = Arc::new(CompiledRules::new(&rules));
        let mut state = RulesState {
            applied: rules.clone(),
            saved: Some(rules.clone()),
            overwrite_armed: false,
            found_on_disk: None,
            applied_compiled: compiled.clone(),
            edited: rules,
            compiled,
            history: History::default(),
            selected: 0,
            rows: Vec::new(),
            lints: Vec::new(),
            shadows: Vec::new(),
            hits: None,
            carried: Vec::new(),
            unchanged: Vec::new(),
            discovered_at_apply: 0,
            applied_version: 0,
            save,
        };
        state.refresh();
        state
    }

    /// The rules file holds other rules than the edited ones: saved (`w`)
    /// and then undone, say.
    pub fn unsaved(&self) -> bool {
        self.saved.as_ref().is_none_or(|saved| {
            self.edited.disposition != saved.disposition
                || !same_rules(&self.edited.rules, &saved.rules)
        })
    }

    /// A save failed: what the file holds is not known.
    pub fn forget_saved(&mut self) {
        self.saved = None;
    }

    /// Edited but not applied yet.
    pub fn dirty(&self) -> bool {
        // Lines alone do not count: saving moves them (`relined`).
        self.edited.disposition != self.applied.disposition
            || !same_rules(&self.edited.rules, &self.applied.rules)
    }

    /// Recomputes everything derived from the edited list.
    fn refresh(&mut self) {
        self.rows = edit::rows(&self.edited);
        self.lints = lint_rules(&self.edited);
        self.shadows = shadowed(&self.edited);
        self.compiled = Arc::new(CompiledRules::new(&self.edited));
        self.unchanged = unchanged_rules(&self.applied, &self.edited);
        self.selected = self.selected.min(self.rows.len().saturating_sub(1));
    }

    pub fn selected_path(&self) -> Option<Vec<usize>> {
        self.rows.get(self.selected).map(|r| r.path.clone())
    }

    pub fn selected_rule(&self) -> Option<&Rule> {
        edit::get(&self.edited, &self.rows.get(self.selected)?.path)
    }

    pub fn select_step(&mut self, up: bool) {
        self.selected = if up {
            self.selected.saturating_sub(1)
        } else {
            (self.selected + 1).min(self.rows.len().saturating_sub(1))
        };
    }

    /// Selects the rule at `path` (after an edit moved it).
    fn select_path(&mut self, path: &[usize]) {
        if let Some(i) = self.rows.iter().position(|r| r.path == path) {
            self.selected = i;
        }
    }

    /// Applies `change` to the edited list as one undoable step; `change`
    /// returns the path to select afterwards, or `None` when nothing changed.
    pub fn edit(&mut self, change: impl FnOnce(&mut RuleSet) -> Option<Vec<usize>>) -> bool {
        let before = self.edited.clone();
        let selected = self.selected_path();
        let Some(select) = change(&mut self.edited) else {
            return false;
        };
        if self.edited == before {
            return false;
        }
        self.history.before_edit(&before, selected, select.clone());
        self.refresh();
        self.select_path(&select);
        true
    }

    /// Adds `rule` after the selected one and selects it.
    pub fn add_rule(&mut self, rule: Rule) {
        let at = self.selected_path();
        self.edit(|rules| Some(edit::insert_after(rules, at.as_deref(), rule)));
    }

    /// Takes the crawl's hit counts when they count for the applied list.
    pub fn take_hits(&mut self, detail: &Detail) {
        self.hits =
            (detail.rules_version == self.applied_version).then(|| detail.rule_hits.clone());
    }

    /// Hits of the rule in `row` since the console opened: of the applied
    /// rule it is, which while edits are pending only a rule they left as
    /// it is has (an edited or new rule has none yet).
    pub fn hits_of(&self, row: usize) -> Option<u64> {
        let index = self.rows.get(row)?.index;
        let applied = if self.dirty() {
            (*self.unchanged.get(index)?)?
        } else {
            index
        };
        let since = self.hits.as_ref()?.get(applied).copied()?;
        Some(since + self.carried.get(applied).copied().unwrap_or(0))
    }

    /// Lints of the rule in `row`.
    pub fn lints_of(&self, row: usize) -> impl Iterator<Item = &Lint> {
        let path: Vec<usize> = self
            .rows
            .get(row)
            .map(|r| r.path.iter().map(|i| i + 1).collect())
            .unwrap_or_default();
        self.lints.iter().filter(move |l| l.path == path)
    }

    /// Makes the edited list the applied one; its rules that were applied
    /// unchanged keep their hits.
    fn mark_applied(&mut self) {
        let totals: Vec<u64> = (0..self.applied_compiled.rule_info().len())
            .map(|i| {
                let since = self.hits.as_ref().and_then(|h| h.get(i)).copied();
                since.unwrap_or(0) + self.carried.get(i).copied().unwrap_or(0)
            })
            .collect();
        self.carried = carried_hits(&self.applied, &totals, &self.edited);
        self.applied = self.edited.clone();
        self.applied_compiled = self.compiled.clone();
        self.applied_version += 1;
        self.hits = None;
    }

    /// Undoes (`undo`) or redoes the last edit and selects the rule it
    /// was made on; whether there was one.
    fn step_history(&mut self, undo: bool) -> bool {
        let step = if undo {
            self.history.undo(&self.edited)
        } else {
            self.history.redo(&self.edited)
        };
        let Some((rules, select)) = step else {
            return false;
        };
        self.edited = rules;
        self.refresh();
        if let Some(path) = select {
            self.select_path(&path);
        }
        true
    }
}

impl App {
    pub(super) fn rules_key(&mut self, key: KeyEvent) {
        let path = self.rules.selected_path();
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        // Changes a field of the selected rule.
        let set = |app: &mut App, f: &dyn Fn(&mut Rule)| {
            let Some(path) = path.clone() else { return };
            app.rules.edit(|rules| {
                f(edit::get_mut(rules, &path)?);
                Some(path)
            });
        };
        // An edit key answers for itself: what an earlier key said
        // ("nothing to undo", "deleted rule ...") is no longer news.
        if matches!(
            key.code,
            KeyCode::Char(
                ' ' | 'a'
                    | 's'
                    | '+'
                    | '='
                    | '-'
                    | '0'
                    | 'l'
                    | 'f'
                    | 'K'
                    | 'J'
                    | '>'
                    | '<'
                    | 'd'
                    | 'x'
                    | 'n'
                    | 'e'
            ) | KeyCode::Delete
                | KeyCode::Enter
        ) {
            self.message = None;
        }
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => self.rules.select_step(true),
            KeyCode::Down | KeyCode::Char('j') => self.rules.select_step(false),
            KeyCode::Home | KeyCode::Char('g') => self.rules.selected = 0,
            KeyCode::End | KeyCode::Char('G') => {
                self.rules.selected = self.rules.rows.len().saturating_sub(1)
            }
            KeyCode::PageUp => (0..10).for_each(|_| self.rules.select_step(true)),
            KeyCode::PageDown => (0..10).for_each(|_| self.rules.select_step(false)),
            KeyCode::Char(' ') => set(self, &|r| r.enabled = !r.enabled),
            KeyCode::Char('a') => set(self, &|r| r.action = edit::next_action(r.action)),
            KeyCode::Char('s') => set(self, &|r| r.stop = !r.stop),
            KeyCode::Char(c @ ('+' | '=' | '-')) => {
                let up = c != '-';
                let now = self.rules.selected_rule().map(|r| r.priority);
                match now {
                    // At either end a step changes nothing: said, rather
                    // than a key that seems to do nothing.
                    Some(p) if edit::step_priority(p, up) == p => {
                        let end = if up { "highest" } else { "lowest" };
                        self.message = Some(format!("the priority is already {end}"));
                    }
                    _ => set(self, &|r| r.priority = edit::step_priority(r.priority, up)),
                }
            }
            KeyCode::Char('0') => match self.rules.selected_rule().map(|r| r.priority) {
                Some(None) => self.message = Some("the rule sets no priority already".into()),
                _ => set(self, &|r| r.priority = None),
            },
            KeyCode::Char('l') => set(self, &|r| r.log = edit::next_log(r.log)),
            KeyCode::Char('f') => set(self, &|r| r.filter = edit::next_filter(r.filter)),
            KeyCode::Char('K') => {
                self.move_selected(|r, p| edit::move_rule(r, p, true), Move::Up);
            }
            KeyCode::Char('J') => {
                self.move_selected(|r, p| edit::move_rule(r, p, false), Move::Down);
            }
            KeyCode::Char('>') => self.move_selected(edit::indent, Move::In),
            KeyCode::Char('<') => self.move_selected(edit::outdent, Move::Out),
            KeyCode::Char('n') => self.overlay = Overlay::Form(Box::new(Form::new_rule(path))),
            KeyCode::Char('d') => {
                if let Some(rule) = self.rules.selected_rule().cloned() {
                    let mut copy = rule;
                    copy.name = format!("{} (copy)", copy.name);
                    // Not in the file yet: no line of its own to show.
                    copy.forget_lines();
                    self.rules.add_rule(copy);
                }
            }
            KeyCode::Char('x') | KeyCode::Delete => {
                if let Some(path) = path {
                    let removed = self
                        .rules
                        .selected_rule()
                        .map(|r| (r.name.clone(), nested_count(r)));
                    self.rules.edit(|rules| {
                        edit::remove(rules, &path)?;
                        // The rule that took its place; else the one before
                        // it; else (a block emptied) the block.
                        let mut select = path.clone();
                        if edit::get(rules, &select).is_none() {
                            let depth = select.len();
                            match select.last_mut() {
                                Some(last) if *last > 0 => *last -= 1,
                                _ if depth > 1 => {
                                    select.pop();
                                }
                                _ => {}
                            }
                        }
                        Some(select)
                    });
                    self.message = removed.map(|(name, nested)| match nested {
                        0 => format!("deleted rule {name:?} (u undoes)"),
                        n => format!(
                            "deleted rule {name:?} and the {} nested in it (u undoes)",
                            crate::text::counted(n, "rule", "rules")
                        ),
                    });
                }
            }
            KeyCode::Enter | KeyCode::Char('e') => {
                if let (Some(path), Some(rule)) = (path, self.rules.selected_rule()) {
                    self.overlay = Overlay::Form(Box::new(Form::edit_rule(path, rule)));
                }
            }
            KeyCode::Char('u') => self.undo_redo(true),
            KeyCode::Char('r') if ctrl => self.undo_redo(false),
            KeyCode::Char('U') => self.undo_redo(false),
            KeyCode::Char('c') => self.start_apply(),
            KeyCode::Char('w') => {
                let overwrite = std::mem::take(&mut self.rules.overwrite_armed);
                self.save_rules(overwrite);
            }
            KeyCode::Char('t') => {
                if self.trap_hints().is_empty() {
                    self.message = Some("no trap hints yet: no URL pattern keeps growing".into());
                } else {
                    self.overlay = Overlay::Traps { selected: 0 };
                }
            }
            _ => {}
        }
    }

    fn undo_redo(&mut self, undo: bool) {
        let stepped = self.rules.step_history(undo);
        // The selection follows the step back to the rule it changed (a
        // rule deleted, the one after it): where to look.
        let at = self
            .rules
            .selected_path()
            .zip(self.rules.selected_rule())
            .map(|(path, rule)| {
                let number: Vec<String> = path.iter().map(|n| (n + 1).to_string()).collect();
                let name = crate::text::shortened(&crate::text::escape_control(&rule.name), 40);
                format!(", at rule {} \"{name}\"", number.join("."))
            })
            .unwrap_or_default();
        self.message = Some(match (stepped, undo) {
            (true, true) => format!("undone{at} (U redoes)"),
            (true, false) => format!("redone{at} (u undoes)"),
            (false, true) => "nothing to undo".into(),
            (false, false) => "nothing to redo".into(),
        });
    }

    /// Moves the selected rule as `op` does; when it cannot go that way,
    /// says why (and which key does what was meant, likely).
    fn move_selected(
        &mut self,
        op: impl FnOnce(&mut RuleSet, &[usize]) -> Option<Vec<usize>>,
        way: Move,
    ) {
        let Some(path) = self.rules.selected_path() else {
            return;
        };
        if self.rules.edit(|rules| op(rules, &path)) {
            return;
        }
        let nested = path.len() > 1;
        self.message = Some(
            match (way, nested) {
                (Move::Up, true) => "the rule is first in its block already (< takes it out)",
                (Move::Up, false) => "the rule is the first already",
                (Move::Down, true) => "the rule is last in its block already (< takes it out)",
                (Move::Down, false) => "the rule is the last already",
                (Move::In, _) => {
                    "no rule above it in its list to take it into (> nests a rule in the one above)"
                }
                (Move::Out, _) => {
                    "the rule is in no block (< takes a nested rule out of its block)"
                }
            }
            .into(),
        );
    }

    /// `c`: counts what the edit would change before it is applied; once
    /// the crawl has ended, what it would have changed in the crawl's log
    /// (`y` then saves the rules for the next run on this log).
    fn start_apply(&mut self) {
        if !self.rules.dirty() {
            self.message = Some("no edits to apply".into());
            return;
        }
        self.overlay = Overlay::WhatIf(Box::default());
        self.whatif_scroll = 0;
        // As the rule tools check them (an IP host at its address; a host
        // name's address rules wait for the crawl's DNS).
        self.whatif_start_refused = self
            .start_urls
            .iter()
            .filter_map(|url| {
                crate::crawl::engine::check_start_offline(
                    &self.rules.compiled,
                    std::slice::from_ref(url),
                )
                .err()
                .map(|e| e.to_string())
            })
            .collect();
        self.whatif_seq += 1;
        self.request(Request::WhatIf {
            old: self.rules.applied_compiled.clone(),
            new: self.rules.compiled.clone(),
            probe: Probe::of_edit(&self.rules.applied, &self.rules.edited).map(Arc::new),
            seq: self.whatif_seq,
        });
    }

    /// What the what-if says beside its report, from the console's state.
    pub(crate) fn whatif_around(&self) -> crate::tui::view::WhatIfAround<'_> {
        crate::tui::view::WhatIfAround {
            start_refused: &self.whatif_start_refused,
            ended: self.crawl.finished,
            unlogged: self.crawl.stats.unlogged,
        }
    }

    pub(super) fn whatif_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Char('y') | KeyCode::Enter => {
                self.overlay = Overlay::None;
                self.request(Request::CancelWhatIf);
                self.apply();
            }
            KeyCode::Char('n') | KeyCode::Esc | KeyCode::Char('q') => {
                self.overlay = Overlay::None;
                self.request(Request::CancelWhatIf);
                self.message = Some(if self.crawl.finished {
                    "not saved: the edits stay in the list (w saves them)".into()
                } else {
                    "not applied: the crawl keeps its rules".into()
                });
            }
            // A short terminal shows part of it: the samples scroll in.
            code => {
                let Overlay::WhatIf(report) = &self.overlay else {
                    return;
                };
                let [_, body, _] = crate::tui::view::layout::bands(ratatui::layout::Rect::new(
                    0,
                    0,
                    self.size.0,
                    self.size.1,
                ));
                let most = crate::tui::view::whatif_max_scroll(report, &self.whatif_around(), body);
                let page = body.height.saturating_sub(4).max(1);
                let now = self.whatif_scroll.min(most);
                self.whatif_scroll = match code {
                    KeyCode::Up | KeyCode::Char('k') => now.saturating_sub(1),
                    KeyCode::Down | KeyCode::Char('j') => now.saturating_add(1).min(most),
                    KeyCode::PageUp => now.saturating_sub(page),
                    KeyCode::PageDown => now.saturating_add(page).min(most),
                    _ => now,
                };
            }
        }
    }

    /// Sends the edited rules to the crawl and writes them to the file.
    fn apply(&mut self) {
        // First, so that the crawl gets the rules with their lines in the
        // file as saved.
        self.save_rules(false);
        if self.crawl.finished {
            // It ended while the what-if was open: the edits are saved,
            // and the hits stay those of the rules the crawl ran with.
            self.message = Some(
                "the crawl has ended: the edits are saved; the next run on this log judges its URLs by them"
                    .into(),
            );
            return;
        }
        let rules = NewRules::new(&self.rules.edited, self.rules.compiled.clone());
        self.rules.mark_applied();
        self.rules.discovered_at_apply = self.crawl.stats.discovered;
        self.request(Request::Control(Control::Rules(rules)));
        self.message = Some("applied to the crawl; saving the rules file".into());
    }

    /// `w`: writes the edited rules to the rules file; they take the lines
    /// they have in it. Unless `overwrite`, a file changed on disk since it
    /// was read or written is left as it is (and the message says so).
    fn save_rules(&mut self, overwrite: bool) {
        let found = self.rules.found_on_disk.take();
        if let (true, Some(found), SaveTarget::InPlace { path, .. }) =
            (overwrite, found, &self.rules.save)
        {
            // Read afresh from what is there now, so that only the rules
            // change; the comments of rules an undo may bring back go
            // along. A layout that cannot be rewritten in place now (a
            // table added after the rules) keeps the target as it was:
            // the overwrite then writes what the console knows.
            let mut fresh = SaveTarget::for_config(&path.clone(), &found);
            if let (SaveTarget::InPlace { past: new_past, .. }, SaveTarget::InPlace { past, .. }) =
                (&mut fresh, &self.rules.save)
            {
                *new_past = past.clone();
                self.rules.save = fresh;
            }
        }
        let read = self.rules.save.read().map(str::to_string);
        let (path, text, message) = self.rules.save.render(&self.rules.edited);
        if let Some(relined) = relined(&self.rules.edited, &text) {
            self.rules.edited = relined;
            self.rules.refresh();
        }
        // A file beside the config leaves the config's rules as they were
        // (and what the config held says nothing of that file).
        let in_config =
            matches!(&self.rules.save, SaveTarget::InPlace { path: config, .. } if *config == path);
        if in_config {
            self.rules.saved = Some(self.rules.edited.clone());
        }
        self.request(Request::Save {
            path,
            text,
            message,
            expect: read.filter(|_| in_config),
            overwrite,
        });
    }
}

/// Which way `K`, `J`, `>` or `<` moves a rule.
#[derive(Debug, Clone, Copy)]
enum Move {
    Up,
    Down,
    In,
    Out,
}

/// The rules nested in `rule`, at every depth.
fn nested_count(rule: &Rule) -> u64 {
    rule.rules.iter().map(|r| 1 + nested_count(r)).sum()
}

/// For each rule of `new`, in walk order, the index of the same rule (in
/// every field but where it stands in the file) in `old`, each rule of
/// `old` taken once. Candidates are found by name, so that a long list
/// costs no more than a few comparisons a rule.
fn unchanged_rules(old: &RuleSet, new: &RuleSet) -> Vec<Option<usize>> {
    let mut by_name: std::collections::HashMap<&str, Vec<(usize, &Rule)>> =
        std::collections::HashMap::new();
    let mut index = 0;
    old.walk(&mut |_, rule| {
        by_name
            .entry(rule.name.as_str())
            .or_default()
            .push((index, rule));
        index += 1;
    });
    let mut out = Vec::new();
    new.walk(&mut |_, rule| {
        let found = by_name.get_mut(rule.name.as_str()).and_then(|candidates| {
            let at = candidates
                .iter()
                .position(|(_, old)| same_rule(old, rule))?;
            Some(candidates.remove(at).0)
        });
        out.push(found);
    });
    out
}

/// The hits `old` (a rule list, its rules' `totals` in document order)
/// hands on to `new`: each rule of `new` that `old` had, the same in every
/// field, takes that rule's total (each rule of `old` once); the others
/// start at 0. A rule after an edited one may match other URLs from now
/// on, but what it matched so far it did match.
fn carried_hits(old: &RuleSet, totals: &[u64], new: &RuleSet) -> Vec<u64> {
    let mut before: Vec<(&Rule, u64)> = Vec::new();
    old.walk(&mut |_, rule| {
        let total = totals.get(before.len()).copied().unwrap_or(0);
        before.push((rule, total));
    });
    let mut taken = vec![false; before.len()];
    let mut carried = Vec::new();
    new.walk(&mut |_, rule| {
        let found = before
            .iter()
            .enumerate()
            .position(|(i, (old, _))| !taken[i] && same_rule(old, rule));
        carried.push(found.map_or(0, |i| {
            taken[i] = true;
            before[i].1
        }));
    });
    carried
}
