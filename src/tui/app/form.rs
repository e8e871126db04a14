//! The rule form: a rule's name, field, matcher and pattern, validated on
//! every key with the same compiler the crawl uses (a bad regex shows the
//! compiler's message as it is typed) and linted like `crawlspace rules`.
//! A rule whose condition is more than one test (`all`, `any`, `not`) is
//! edited as the line its `match` key holds in the rules file, read with
//! the rules file's own parser.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tui_input::Input;

use super::{App, Overlay, Request};
use crate::rules::CompiledRules;
use crate::rules::dialect::native::parse_condition;
use crate::rules::dialect::write::condition_text;
use crate::rules::lint::lint_condition;
use crate::rules::model::{Case, Condition, Field, Matcher, Rule, RuleSet, Test};
use crate::tui::edit;
use crate::tui::input::text_request;
use crate::tui::preview::Preview;

/// The matcher keys, in the order the form cycles through them.
pub const MATCHER_KEYS: [&str; 9] = [
    "regex", "exact", "prefix", "suffix", "contains", "wildcard", "domain", "cidr", "range",
];

/// Which part of the form has the keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormFocus {
    Name,
    Field,
    Matcher,
    Pattern,
    Case,
}

impl FormFocus {
    const ORDER: [FormFocus; 5] = [
        FormFocus::Name,
        FormFocus::Field,
        FormFocus::Matcher,
        FormFocus::Pattern,
        FormFocus::Case,
    ];

    /// The next part (`forward`) or the one before; a combined
    /// condition has its name and its line only.
    fn step(self, forward: bool, combined: bool) -> FormFocus {
        if combined {
            return match self {
                FormFocus::Name => FormFocus::Pattern,
                _ => FormFocus::Name,
            };
        }
        let at = Self::ORDER.iter().position(|f| *f == self).unwrap_or(0);
        let n = Self::ORDER.len();
        Self::ORDER[if forward {
            (at + 1) % n
        } else {
            (at + n - 1) % n
        }]
    }
}

/// Where the form's rule goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormTarget {
    /// Replaces the name and condition of the rule at this path.
    Edit(Vec<usize>),
    /// A new rule after this one (or first in an empty list).
    New(Option<Vec<usize>>),
}

/// The form's state.
#[derive(Debug)]
pub struct Form {
    pub target: FormTarget,
    pub name: Input,
    /// Index into `Field::ALL`.
    pub field: usize,
    /// Index into [`MATCHER_KEYS`].
    pub matcher: usize,
    /// The test's pattern; for a combined condition, its `match` line.
    pub pattern: Input,
    pub case: Case,
    pub focus: FormFocus,
    /// The rule's condition is more than one test, or none: `pattern`
    /// holds it as its rules file's `match` line (`{ all = [ ... ] }`;
    /// empty for none, "always").
    pub combined: bool,
    /// The rule holds when its condition does not (`negate`): kept as it
    /// is, and shown, since the test alone would read the other way.
    pub negated: bool,
    /// Why the test cannot be used as typed.
    pub error: Option<String>,
    /// Lint warnings for the test as typed.
    pub lints: Vec<String>,
    /// A combined condition as it reads (`None` while it does not, or for
    /// none at all).
    pub fixed: Option<Condition>,
    /// The rule's combined condition when the form opened, with its line:
    /// kept as it is while the line is, even when it would not read back
    /// (an imported regex this crawler's engine refuses), so that such a
    /// rule can still be renamed, as the rules file keeps it.
    opened_with: Option<(String, Condition)>,
    /// What the preview asked for last is of (condition, negated).
    pub previewed: Option<(Condition, bool)>,
    /// The logged URLs the rule holds for, as counted so far.
    pub preview: Option<Preview>,
}

impl Form {
    pub fn new_rule(after: Option<Vec<usize>>) -> Form {
        let mut form = Form {
            target: FormTarget::New(after),
            name: Input::new("new rule".into()),
            field: Field::ALL
                .iter()
                .position(|f| *f == Field::Path)
                .unwrap_or(0),
            matcher: 2, // prefix: the most common first rule
            pattern: Input::default(),
            case: Case::Insensitive,
            focus: FormFocus::Pattern,
            combined: false,
            negated: false,
            error: None,
            lints: Vec::new(),
            fixed: None,
            opened_with: None,
            previewed: None,
            preview: None,
        };
        form.validate();
        form
    }

    pub fn edit_rule(path: Vec<usize>, rule: &Rule) -> Form {
        let mut form = Form::new_rule(None);
        form.target = FormTarget::Edit(path);
        form.name = Input::new(rule.name.clone());
        form.negated = rule.negate;
        match &rule.condition {
            Some(Condition::Test(t)) => {
                form.field = Field::ALL.iter().position(|f| *f == t.field).unwrap_or(0);
                form.matcher = MATCHER_KEYS
                    .iter()
                    .position(|k| *k == t.matcher.key())
                    .unwrap_or(0);
                form.pattern = Input::new(t.matcher.value_text());
                form.case = t.case;
            }
            other => {
                form.combined = true;
                let line = other.as_ref().map(condition_text).unwrap_or_default();
                form.opened_with = other.clone().map(|c| (line.clone(), c));
                form.pattern = Input::new(line);
                form.focus = FormFocus::Name;
            }
        }
        form.validate();
        form
    }

    pub fn field(&self) -> Field {
        Field::ALL[self.field % Field::ALL.len()]
    }

    pub fn matcher_key(&self) -> &'static str {
        MATCHER_KEYS[self.matcher % MATCHER_KEYS.len()]
    }

    /// The test as typed, or why it cannot be used.
    pub fn test(&self) -> Result<Test, String> {
        let text = self.pattern.value().to_string();
        if text.is_empty() {
            return Err("type a pattern".into());
        }
        // A test on the wrong field says so before its text is read
        // (`/tmp/` under cidr on path is not a bad address, but a path).
        let kind_only = match self.matcher_key() {
            "cidr" => Some(Matcher::Cidr("0.0.0.0/0".parse()?)),
            "range" => Some(Matcher::Range("[0:1]".parse()?)),
            _ => None,
        };
        if let Some(kind) = kind_only {
            crate::rules::dialect::native::field_takes(self.field(), &kind)?;
        }
        let matcher = match self.matcher_key() {
            "regex" => Matcher::Regex(text),
            "exact" => Matcher::Exact(text),
            "prefix" => Matcher::Prefix(text),
            "suffix" => Matcher::Suffix(text),
            "contains" => Matcher::Contains(text),
            "wildcard" => Matcher::Wildcard(text),
            "domain" => Matcher::Domain(text),
            "cidr" => Matcher::Cidr(text.parse()?),
            _ => Matcher::Range(text.parse()?),
        };
        // The rules file must read it back.
        crate::rules::dialect::native::field_takes(self.field(), &matcher)?;
        let test = Test {
            field: self.field(),
            matcher,
            case: self.case,
        };
        compile(&Condition::Test(test.clone()))?;
        Ok(test)
    }

    /// The combined condition as typed (`None` for none), or why it
    /// cannot be used.
    fn combined_condition(&self) -> Result<Option<Condition>, String> {
        let text = self.pattern.value().trim();
        if text.is_empty() {
            return Ok(None);
        }
        if let Some((line, condition)) = &self.opened_with
            && line == text
        {
            return Ok(Some(condition.clone()));
        }
        let condition = parse_condition(text)?;
        compile(&condition)?;
        Ok(Some(condition))
    }

    /// The condition the rule would have, when it is one the rules can
    /// use (`None` for "always": every URL, nothing to count).
    pub fn condition(&self) -> Option<Condition> {
        if self.combined {
            self.fixed.clone()
        } else {
            self.test().ok().map(Condition::Test)
        }
    }

    /// Turns the form's one test into a `match` line, to be combined with
    /// others (`{ all = [ <the test>, ... ] }`): the test as typed when it
    /// reads, else an empty line.
    fn combine(&mut self) {
        let line = self
            .test()
            .map(|test| condition_text(&Condition::Test(test)))
            .unwrap_or_default();
        self.combined = true;
        self.opened_with = None;
        self.pattern = Input::new(line);
        self.focus = FormFocus::Pattern;
    }

    /// Re-checks the form after a change.
    pub fn validate(&mut self) {
        let checked = if self.combined {
            self.combined_condition()
        } else {
            self.test().map(|test| Some(Condition::Test(test)))
        };
        self.lints.clear();
        self.fixed = None;
        match checked {
            Ok(condition) => {
                self.error = None;
                if let Some(condition) = &condition {
                    self.lints = lint_condition(condition)
                        .into_iter()
                        .map(|(_, m)| m)
                        .collect();
                    // Kept unchanged without a compile (`combined_condition`):
                    // what switches it off is still said.
                    let unchanged = self.combined
                        && self
                            .opened_with
                            .as_ref()
                            .is_some_and(|(line, _)| line == self.pattern.value().trim());
                    if let Some(why) = unchanged.then(|| compile(condition).err()).flatten() {
                        self.lints.insert(
                            0,
                            format!("kept as it is, and still off in the crawl: {why}"),
                        );
                    }
                }
                if self.combined {
                    self.fixed = condition;
                }
            }
            Err(e) => self.error = Some(e),
        }
        if self.name.value().trim().is_empty() {
            self.error = Some("the rule needs a name".into());
        }
    }
}

impl App {
    pub(super) fn form_key(&mut self, key: KeyEvent) {
        let Overlay::Form(form) = &mut self.overlay else {
            return;
        };
        let combined = form.combined;
        match key.code {
            KeyCode::Esc => {
                self.overlay = Overlay::None;
                self.message = Some("edit cancelled".into());
                return;
            }
            KeyCode::Enter => return self.form_submit(),
            // The one test as a `match` line, to combine with others.
            KeyCode::Char('l') if key.modifiers.contains(KeyModifiers::CONTROL) && !combined => {
                form.combine();
            }
            KeyCode::Tab | KeyCode::Down => form.focus = form.focus.step(true, combined),
            KeyCode::BackTab | KeyCode::Up => form.focus = form.focus.step(false, combined),
            code => match form.focus {
                FormFocus::Field | FormFocus::Matcher => {
                    let forward = match code {
                        KeyCode::Right | KeyCode::Char(' ') => Some(true),
                        KeyCode::Left => Some(false),
                        _ => None,
                    };
                    if let Some(forward) = forward {
                        let (value, n) = if form.focus == FormFocus::Field {
                            (&mut form.field, Field::ALL.len())
                        } else {
                            (&mut form.matcher, MATCHER_KEYS.len())
                        };
                        *value = if forward {
                            (*value + 1) % n
                        } else {
                            (*value + n - 1) % n
                        };
                    }
                }
                FormFocus::Case => {
                    if matches!(code, KeyCode::Char(' ') | KeyCode::Left | KeyCode::Right) {
                        form.case = match form.case {
                            Case::Insensitive => Case::Sensitive,
                            Case::Sensitive => Case::Insensitive,
                        };
                    }
                }
                FormFocus::Name => {
                    if let Some(r) = text_request(key) {
                        form.name.handle(r);
                    }
                }
                FormFocus::Pattern => {
                    if let Some(r) = text_request(key) {
                        form.pattern.handle(r);
                    }
                }
            },
        }
        form.validate();
    }

    fn form_submit(&mut self) {
        let Overlay::Form(form) = &self.overlay else {
            return;
        };
        if let Some(e) = &form.error {
            self.message = Some(format!("cannot save the rule yet: {e}"));
            return;
        }
        let name = form.name.value().trim().to_string();
        // What `validate` found usable, `error` being none.
        let condition = form.condition();
        let target = form.target.clone();
        self.overlay = Overlay::None;
        let done = match target {
            FormTarget::Edit(_) => "rule changed",
            FormTarget::New(_) => "rule added",
        };
        self.message = Some(format!("{done}; {}", self.after_an_edit()));
        match target {
            FormTarget::Edit(path) => {
                self.rules.edit(|rules| {
                    let rule = edit::get_mut(rules, &path)?;
                    rule.name = name;
                    rule.condition = condition;
                    Some(path)
                });
            }
            FormTarget::New(after) => {
                let mut rule = Rule::new(name, 0);
                rule.condition = condition;
                rule.action = Some(crate::rules::model::Action::Exclude);
                rule.log = Some(true);
                let at = after.or_else(|| self.rules.selected_path());
                self.rules
                    .edit(|rules| Some(edit::insert_after(rules, at.as_deref(), rule)));
            }
        }
    }
}

impl App {
    /// The conditions of the blocks that hold the form's rule (where it is,
    /// or where it will be added): a URL meets them before the rule is
    /// looked at.
    fn form_context(&self) -> Vec<Condition> {
        let Overlay::Form(form) = &self.overlay else {
            return Vec::new();
        };
        let place = match &form.target {
            FormTarget::Edit(path) => Some(path.clone()),
            FormTarget::New(after) => after.clone().or_else(|| self.rules.selected_path()),
        };
        let Some(place) = place else {
            return Vec::new();
        };
        (1..place.len())
            .filter_map(|depth| edit::get(&self.rules.edited, &place[..depth]))
            .filter_map(|block| match (&block.condition, block.negate) {
                (None, false) => None,
                (None, true) => Some(Condition::Any(Vec::new())),
                (Some(c), false) => Some(c.clone()),
                (Some(c), true) => Some(Condition::Not(Box::new(c.clone()))),
            })
            .collect()
    }

    /// Asks for a preview of the form's rule when what it tests changed
    /// (not its name), and stops the one running when the form closed.
    pub(super) fn follow_form(&mut self) {
        let Overlay::Form(form) = &mut self.overlay else {
            if self.previewing {
                self.previewing = false;
                self.request(Request::CancelPreview);
            }
            return;
        };
        let wanted = form.condition().map(|c| (c, form.negated));
        if wanted == form.previewed {
            return;
        }
        form.previewed = wanted.clone();
        form.preview = None;
        match wanted {
            Some((condition, negate)) => {
                self.preview_seq += 1;
                self.previewing = true;
                let context = self.form_context();
                let seq = self.preview_seq;
                self.request(Request::Preview {
                    condition,
                    negate,
                    context,
                    seq,
                });
            }
            None if self.previewing => {
                self.previewing = false;
                self.request(Request::CancelPreview);
            }
            None => {}
        }
    }
}

/// Compiles `condition` as the crawl would, for what would switch its rule
/// off: a regex error or size limit, said as the rule's "disabled" reason.
fn compile(condition: &Condition) -> Result<(), String> {
    let mut probe = Rule::new("probe", 0);
    probe.condition = Some(condition.clone());
    let compiled = CompiledRules::new(&RuleSet {
        rules: vec![probe],
        ..RuleSet::default()
    });
    match compiled.disabled().next().and_then(|i| i.disabled.as_ref()) {
        Some(why) => Err(why.text().to_string()),
        None => Ok(()),
    }
}
