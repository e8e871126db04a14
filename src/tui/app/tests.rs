//! `App::update` driven by actions, without a terminal: every key that
//! changes state, and what it asks the run loop to do.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::rules::dialect::native;
use crate::store::{State, UrlRecord};
use crate::tui::log_reader::LogPage;
use crate::tui::save::SaveTarget;

const RULES: &str = r#"
[[rules]]
name = "stay home"
match = { field = "host", exact = "h" }
filter = "must-have"
log = true

[[rules]]
name = "no pdf"
match = { field = "extension", exact = "pdf" }
action = "exclude"
"#;

pub(crate) fn app() -> App {
    app_with(RULES)
}

/// A console over the rules of the native `text`, in a 100x30 terminal.
fn app_with(text: &str) -> App {
    let rules = native::parse(text).expect("rules").rules;
    let save = SaveTarget::for_config(std::path::Path::new("crawl.toml"), text);
    let mut app = App::new("test".into(), rules, save, [10000, 2000, 1000, 100, 10, 1]);
    app.update(Action::Resize(100, 30));
    app
}

fn key(code: KeyCode) -> Action {
    Action::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn ch(c: char) -> Action {
    key(KeyCode::Char(c))
}

fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        app.update(ch(c));
    }
}

#[test]
fn number_keys_tab_and_help() {
    let mut app = app();
    assert_eq!(app.view, View::Rules);
    app.update(ch('3'));
    assert_eq!(app.view, View::Log);
    app.update(key(KeyCode::Tab));
    assert_eq!(app.view, View::Explain);
    app.update(key(KeyCode::Esc)); // stop typing in Explain
    app.update(key(KeyCode::Tab));
    assert_eq!(app.view, View::Rules);
    app.update(key(KeyCode::BackTab));
    assert_eq!(app.view, View::Explain);
    app.update(ch('2'));
    assert_eq!(app.view, View::Explain, "typing a 2 in the URL input");
    app.update(key(KeyCode::Esc));
    app.update(ch('2'));
    assert_eq!(app.view, View::Queues);
    app.update(ch('?'));
    assert!(matches!(app.overlay, Overlay::Help { .. }));
    app.update(ch('q'));
    assert!(matches!(app.overlay, Overlay::None), "q closes help first");
    assert!(!app.should_quit());
    app.update(ch('q'));
    assert!(app.should_quit());
}

#[test]
fn rule_keys_edit_and_undo() {
    let mut app = app();
    app.update(ch(' '));
    assert!(!app.rules.edited.rules[0].enabled);
    assert!(app.rules.dirty());
    app.update(ch('j'));
    app.update(ch('a')); // exclude → exclude-scan
    assert_eq!(
        app.rules.edited.rules[1].action.map(|a| a.name()),
        Some("exclude-scan")
    );
    app.update(ch('s'));
    assert!(app.rules.edited.rules[1].stop);
    app.update(ch('+'));
    assert_eq!(
        app.rules.edited.rules[1].priority.map(|p| p.name()),
        Some("high")
    );
    app.update(ch('K'));
    assert_eq!(app.rules.edited.rules[0].name, "no pdf", "moved up");
    assert_eq!(app.rules.selected, 0, "selection follows the rule");
    app.update(ch('>'));
    assert_eq!(
        app.message.as_deref(),
        Some("no rule above it in its list to take it into (> nests a rule in the one above)")
    );
    app.update(ch('K'));
    assert_eq!(
        app.message.as_deref(),
        Some("the rule is the first already")
    );
    app.update(ch('<'));
    assert_eq!(
        app.message.as_deref(),
        Some("the rule is in no block (< takes a nested rule out of its block)")
    );
    app.update(ch('j'));
    app.update(ch('>'));
    assert_eq!(
        app.rules.edited.rules[0].rules[0].name, "stay home",
        "moved into the block"
    );
    for _ in 0..6 {
        app.update(ch('u'));
    }
    assert!(!app.rules.dirty(), "six undos restore the original");
    app.update(Action::Key(KeyEvent::new(
        KeyCode::Char('r'),
        KeyModifiers::CONTROL,
    )));
    assert!(
        !app.rules.edited.rules[0].enabled,
        "redo brings the first edit back"
    );
}

/// Ctrl and Alt with a letter are not the letter: Ctrl-W does not save,
/// Ctrl-X does not delete, Alt-1 types nothing in Explain and switches no
/// view; the text inputs' own Ctrl keys still edit.
#[test]
fn keys_held_with_ctrl_or_alt_are_not_the_plain_keys() {
    let mut app = app();
    let with = |c: char, m: KeyModifiers| Action::Key(KeyEvent::new(KeyCode::Char(c), m));
    for (c, m) in [
        ('w', KeyModifiers::CONTROL),
        ('x', KeyModifiers::CONTROL),
        ('x', KeyModifiers::ALT),
        ('d', KeyModifiers::ALT),
        ('s', KeyModifiers::CONTROL),
        ('a', KeyModifiers::CONTROL),
        ('q', KeyModifiers::CONTROL),
        ('3', KeyModifiers::ALT),
        ('p', KeyModifiers::CONTROL),
    ] {
        app.update(with(c, m));
        assert!(!app.rules.dirty(), "{m:?}-{c} edited the rules");
        assert_eq!(app.view, View::Rules, "{m:?}-{c}");
        assert!(app.take_requests().is_empty(), "{m:?}-{c} asked for work");
        assert!(!app.should_quit() && app.message.is_none(), "{m:?}-{c}");
    }
    assert_eq!(app.rules.edited.rules.len(), 2);
    // Explain: Alt-1 types nothing; Ctrl-U still clears the input.
    app.update(ch('4'));
    typed(&mut app, "http://h/");
    app.update(with('1', KeyModifiers::ALT));
    assert_eq!(app.explain.input().value(), "http://h/");
    app.update(with('u', KeyModifiers::CONTROL));
    assert_eq!(app.explain.input().value(), "");
}

/// Undo and redo select the rule they change, where they put it, wherever
/// the selection went in between: a deleted rule comes back selected, a
/// move undone selects the rule at its old place, a redone move at its new.
#[test]
fn undo_and_redo_select_the_rule_they_change() {
    let mut app = app();
    let selected_name = |app: &App| app.rules.selected_rule().map(|r| r.name.clone());
    app.update(ch('j'));
    app.update(ch('K')); // "no pdf" up to the top
    assert_eq!(selected_name(&app).as_deref(), Some("no pdf"));
    app.update(ch('j'));
    app.update(ch('x')); // delete "stay home", now second
    assert_eq!(app.rules.edited.rules.len(), 1);
    assert_eq!(app.rules.selected, 0);
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.starts_with("deleted rule"))
    );
    app.update(ch('u'));
    assert_eq!(
        selected_name(&app).as_deref(),
        Some("stay home"),
        "the deleted rule comes back selected"
    );
    assert_eq!(
        app.message.as_deref(),
        Some("undone, at rule 2 \"stay home\" (U redoes)"),
        "not `deleted`, and where"
    );
    app.update(ch('k'));
    app.update(ch('u'));
    assert_eq!(app.rules.edited.rules[1].name, "no pdf", "the move undone");
    assert_eq!(
        (app.rules.selected, selected_name(&app).as_deref()),
        (1, Some("no pdf")),
        "selected at its old place"
    );
    app.update(ch('k'));
    app.update(ch('U'));
    assert_eq!(
        (app.rules.selected, selected_name(&app).as_deref()),
        (0, Some("no pdf")),
        "the redone move selects it at its new place"
    );
    app.update(ch('U'));
    assert_eq!(app.rules.edited.rules.len(), 1, "the deletion redone");
    assert_eq!(selected_name(&app).as_deref(), Some("no pdf"));
    assert_eq!(
        app.message.as_deref(),
        Some("redone, at rule 1 \"no pdf\" (u undoes)"),
        "a deletion redone selects the rule after it"
    );
    app.update(ch('U'));
    assert_eq!(app.message.as_deref(), Some("nothing to redo"));
    app.update(ch(' '));
    assert_eq!(app.message, None, "an edit clears what the last key said");
}

/// The same for moves into and out of a block, a duplicated rule and a
/// field changed on a rule other than the selected one at the time of
/// the undo.
#[test]
fn undo_selects_the_rule_after_a_block_move_a_copy_and_a_field_change() {
    let mut app = app();
    let selected_name = |app: &App| app.rules.selected_rule().map(|r| r.name.clone());
    app.update(ch('j'));
    app.update(ch('>')); // "no pdf" into the block of "stay home"
    assert_eq!(app.rules.selected_path(), Some(vec![0, 0]));
    app.update(ch('k'));
    app.update(ch('u'));
    assert_eq!(
        app.rules.selected_path(),
        Some(vec![1]),
        "back out, selected"
    );
    assert_eq!(selected_name(&app).as_deref(), Some("no pdf"));
    app.update(ch('k'));
    app.update(ch('U'));
    assert_eq!(
        app.rules.selected_path(),
        Some(vec![0, 0]),
        "in again, selected"
    );
    app.update(ch('<')); // out again, after its old block
    assert_eq!(app.rules.selected_path(), Some(vec![1]));
    app.update(ch('k'));
    app.update(ch('u'));
    assert_eq!(
        app.rules.selected_path(),
        Some(vec![0, 0]),
        "the outdent undone"
    );

    let mut app = self::app();
    app.update(ch('d')); // a copy of "stay home", after it, selected
    assert_eq!(selected_name(&app).as_deref(), Some("stay home (copy)"));
    app.update(ch('j'));
    app.update(ch('u'));
    assert_eq!(
        selected_name(&app).as_deref(),
        Some("stay home"),
        "the rule it was copied from"
    );
    app.update(ch('U'));
    assert_eq!(selected_name(&app).as_deref(), Some("stay home (copy)"));

    let mut app = self::app();
    app.update(ch('j'));
    app.update(ch('s')); // stop on "no pdf"
    app.update(ch('k'));
    app.update(ch('u'));
    assert!(!app.rules.edited.rules[1].stop);
    assert_eq!(selected_name(&app).as_deref(), Some("no pdf"));
}

#[test]
fn apply_goes_through_the_what_if_then_to_the_crawl_and_the_file() {
    let mut app = app();
    app.update(ch('c'));
    assert_eq!(app.message.as_deref(), Some("no edits to apply"));
    app.update(ch('x')); // delete "stay home"
    app.update(ch('c'));
    assert!(matches!(app.overlay, Overlay::WhatIf(_)));
    let requests = app.take_requests();
    assert!(requests.iter().any(|r| matches!(r, Request::WhatIf { .. })));
    app.update(ch('y'));
    let requests = app.take_requests();
    let rules = requests.iter().find_map(|r| match r {
        Request::Control(Control::Rules(rules)) => Some(rules.compiled.clone()),
        _ => None,
    });
    assert_eq!(rules.expect("rules sent").rule_info().len(), 1);
    let saved = requests.iter().find_map(|r| match r {
        Request::Save { text, .. } => Some(text.clone()),
        _ => None,
    });
    let saved = saved.expect("saved");
    assert!(
        saved.contains("no pdf") && !saved.contains("stay home"),
        "{saved}"
    );
    assert!(!app.rules.dirty());
}

/// On a short terminal the what-if scrolls, within its text: its samples
/// and its last line come into sight.
#[test]
fn the_what_if_scrolls_on_a_short_terminal() {
    let mut app = app();
    app.update(Action::Resize(80, 16));
    app.update(ch('x'));
    app.update(ch('c'));
    let tally = || crate::tui::whatif::Tally {
        seen: 9,
        queued: 1,
        fetched: 8,
        samples: (0..crate::tui::whatif::SAMPLES)
            .map(|i| format!("http://h/{i}"))
            .collect(),
    };
    let report = crate::tui::whatif::Report {
        scanned: 9,
        total: 9,
        done: true,
        tallies: [tally(), tally(), tally()],
    };
    app.update(Action::WhatIf(app.whatif_seq, Box::new(report)));
    app.update(ch('j'));
    assert_eq!(app.whatif_scroll, 1);
    app.update(ch('k'));
    app.update(ch('k'));
    assert_eq!(app.whatif_scroll, 0);
    for _ in 0..10 {
        app.update(key(KeyCode::PageDown));
    }
    let most = app.whatif_scroll;
    assert!(most > 1, "{most}");
    app.update(ch('j'));
    assert_eq!(app.whatif_scroll, most, "not past the end");
    assert!(matches!(app.overlay, Overlay::WhatIf(_)), "still open");
}

/// `y` in the what-if of a crawl that has ended: the rules are saved,
/// nothing is sent to a crawl.
fn y_saves_without_applying(app: &mut App) {
    app.update(ch('y'));
    let requests = app.take_requests();
    assert!(requests.iter().any(|r| matches!(r, Request::Save { .. })));
    assert!(
        !requests.iter().any(|r| matches!(r, Request::Control(_))),
        "{requests:?}"
    );
}

/// Once the crawl has ended there is nothing to apply edits or weights
/// to: `+` says so and sends nothing, `c` shows the what-if against the
/// crawl's log, whose `y` (like `w`) saves without applying, and the rules'
/// hits stay those of the crawl that ran. So does `y` in a what-if the end
/// of the crawl overtook.
#[test]
fn a_finished_crawl_takes_neither_rules_nor_weights() {
    let mut app = app();
    app.update(ch('x'));
    app.update(ch('c'));
    assert!(matches!(app.overlay, Overlay::WhatIf(_)));
    app.update(Action::Finished(crate::crawl::engine::Stats::default()));
    app.take_requests();
    y_saves_without_applying(&mut app);
    assert!(app.rules.dirty(), "not applied to any crawl");
    app.update(ch('c'));
    assert!(matches!(app.overlay, Overlay::WhatIf(_)));
    let requests = app.take_requests();
    assert!(
        requests.iter().any(|r| matches!(r, Request::WhatIf { .. })),
        "{requests:?}"
    );
    let shown = crate::tui::tests::screen(&app);
    assert!(
        shown.contains("what if the crawl had run these edits? · y save · n back"),
        "{shown}"
    );
    app.update(ch('n'));
    assert!(matches!(app.overlay, Overlay::None));
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.starts_with("not saved: the edits stay")),
        "{:?}",
        app.message
    );
    app.update(ch('c'));
    app.take_requests();
    y_saves_without_applying(&mut app);
    app.update(ch('w'));
    assert!(
        app.take_requests()
            .iter()
            .any(|r| matches!(r, Request::Save { .. }))
    );
    app.update(ch('2'));
    let before = app.queues.weights;
    app.update(ch('+'));
    assert_eq!(app.queues.weights, before);
    assert!(app.take_requests().is_empty());
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.starts_with("the crawl has ended: weights")),
        "{:?}",
        app.message
    );
}

/// Once the crawl has ended, the messages and the hint after an edit
/// point to `w` (the next run takes the rules from the file), not to `c`.
#[test]
fn after_the_crawl_an_edit_points_to_w_not_c() {
    let mut app = app();
    assert!(app.after_an_edit().starts_with("c shows what it changes"));
    app.update(Action::Finished(crate::crawl::engine::Stats::default()));
    let hint = crate::tui::view::hint(&app);
    assert!(hint.contains("n new · w save"), "no edits yet: {hint}");
    app.update(ch('x'));
    assert!(app.rules.dirty() && app.rules.unsaved());
    assert!(
        app.after_an_edit()
            .starts_with("c shows what it would have changed, w saves it for the next run")
    );
    let hint = crate::tui::view::hint(&app);
    assert!(
        hint.starts_with("edited: c what it would have changed · w save"),
        "{hint}"
    );
}

/// Pasted text is typed into the input in use, on one line; where no
/// input is in use it runs nothing (pasting "dd" in the Rules view must
/// not duplicate a rule twice).
#[test]
fn pasted_text_is_typed_into_an_input_and_never_read_as_keys() {
    let mut app = app();
    let rules_before = app.rules.edited.clone();
    app.update(Action::Paste("dd\nxx".into()));
    assert_eq!(app.rules.edited, rules_before);
    assert!(!app.rules.dirty());
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.starts_with("nothing to paste into")),
        "{:?}",
        app.message
    );
    app.update(ch('4'));
    app.update(Action::Paste("http://h/a\nhttp://second/\tTAB".into()));
    assert_eq!(app.explain.url.value(), "http://h/a http://second/ TAB");
    assert_eq!(
        app.explain.focus,
        ExplainFocus::Url,
        "a tab pasted moves nothing"
    );
    app.update(Action::Paste("x".repeat(MAX_PASTE + 10)));
    assert_eq!(
        app.explain.url.value().len(),
        "http://h/a http://second/ TAB".len() + MAX_PASTE
    );
    assert!(app.message.as_deref().is_some_and(|m| m.contains("cut at")));
    // At the cursor, not at the end; Explain evaluates what it holds.
    app.update(key(KeyCode::Home));
    app.update(Action::Paste("http://x/".into()));
    assert!(app.explain.url.value().starts_with("http://x/http://h/a "));
    assert_eq!(app.explain.url.cursor(), "http://x/".len());
    // The URL log's filter is checked as typed.
    app.update(key(KeyCode::Esc));
    app.update(ch('3'));
    app.update(ch('/'));
    app.update(Action::Paste("a(b".into()));
    assert_eq!(
        app.log.filter_input.as_ref().map(|i| i.value()),
        Some("a(b")
    );
    assert!(app.log.filter_error.is_some(), "an unclosed group is said");
    app.update(key(KeyCode::End));
    app.update(Action::Paste(")".into()));
    assert_eq!(app.log.filter_error, None);
}

/// The rule keys say what they did where it would not show: a priority
/// already at its end, a rule added (not "changed"); opening a form
/// clears what an earlier key said.
#[test]
fn rule_keys_say_what_they_did() {
    let mut app = app();
    for _ in 0..5 {
        app.update(ch('+'));
    }
    assert_eq!(
        app.message.as_deref(),
        Some("the priority is already highest")
    );
    app.update(ch('-'));
    assert_eq!(app.message, None);
    for _ in 0..5 {
        app.update(ch('-'));
    }
    assert_eq!(
        app.message.as_deref(),
        Some("the priority is already lowest")
    );
    // `0` unsets it, and says so when there is nothing to unset.
    app.update(ch('0'));
    assert_eq!(app.rules.edited.rules[0].priority, None);
    app.update(ch('0'));
    assert_eq!(
        app.message.as_deref(),
        Some("the rule sets no priority already")
    );
    app.update(ch('n'));
    assert_eq!(
        app.message, None,
        "a stale message does not stand over the form"
    );
    typed(&mut app, "/x");
    app.update(key(KeyCode::Enter));
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.starts_with("rule added")),
        "{:?}",
        app.message
    );
    app.update(key(KeyCode::Enter));
    app.update(key(KeyCode::Enter));
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.starts_with("rule changed")),
        "{:?}",
        app.message
    );
}

/// Explain says what the crawler itself would refuse once the rules let a
/// URL through, as the `explain` command does: another scheme, a path
/// deeper than the config allows.
#[test]
fn explain_names_the_crawlers_own_refusals() {
    let mut app = app();
    app.explain.limits = Some(crate::cli::DepthLimits { link: 5, path: 2 });
    app.update(ch('4'));
    typed(&mut app, "ftp://h/x");
    assert!(
        app.explain.result.contains("  crawler: scheme `ftp`"),
        "{}",
        app.explain.result
    );
    app.update(key(KeyCode::Esc));
    app.update(ch('4'));
    for _ in 0.."ftp://h/x".len() {
        app.update(key(KeyCode::Backspace));
    }
    typed(&mut app, "http://h/a/b/c/d");
    assert!(
        app.explain.result.contains("  crawler: ") && app.explain.result.contains("max_path_depth"),
        "{}",
        app.explain.result
    );
    let crawler = app.explain.result.find("  crawler: ").expect("said");
    let trace = app.explain.result.find("  trace:").expect("a trace");
    assert!(crawler < trace, "above the trace: {}", app.explain.result);
}

/// Deleting a block says how many rules went with it; a copy has no line
/// in the file until it is saved.
#[test]
fn a_deleted_block_counts_its_rules_and_a_copy_has_no_line() {
    let text = "[[rules]]\nname = \"block\"\n  [[rules.rules]]\n  name = \"a\"\n    \
                [[rules.rules.rules]]\n    name = \"deep\"\n  [[rules.rules]]\n  name = \"b\"\n\
                [[rules]]\nname = \"last\"\n";
    let rules = native::parse(text).expect("rules").rules;
    let save = SaveTarget::for_config(std::path::Path::new("crawl.toml"), text);
    let mut app = App::new("test".into(), rules, save, [1; 6]);
    app.update(Action::Resize(100, 30));
    app.update(ch('d'));
    let copy = app.rules.selected_rule().expect("the copy");
    assert_eq!(copy.name, "block (copy)");
    assert_eq!(copy.origin.line, 0);
    assert!(copy.rules.iter().all(|r| r.origin.line == 0));
    app.update(ch('x'));
    assert_eq!(
        app.message.as_deref(),
        Some("deleted rule \"block (copy)\" and the 3 rules nested in it (u undoes)")
    );
    app.update(ch('G'));
    app.update(ch('x'));
    assert_eq!(
        app.message.as_deref(),
        Some("deleted rule \"last\" (u undoes)")
    );
}

/// The form takes only what the rules file can read back: an address is
/// tested with `cidr`, `exact` or `regex`, and `cidr` tests only the
/// address.
#[test]
fn the_form_refuses_a_matcher_its_field_cannot_take() {
    use crate::rules::model::Field;
    let at = |key: &str| {
        MATCHER_KEYS
            .iter()
            .position(|k| *k == key)
            .expect("a matcher")
    };
    let address = Field::ALL
        .iter()
        .position(|f| *f == Field::Address)
        .expect("address");
    let path = Field::ALL
        .iter()
        .position(|f| *f == Field::Path)
        .expect("path");
    let mut form = Form::new_rule(None);
    form.name = "r".into();
    for (field, matcher, pattern, refused) in [
        (
            address,
            "prefix",
            "[a-",
            Some("the `address` field takes `cidr`, `exact` or `regex`, not `prefix`"),
        ),
        (address, "cidr", "10.0.0.0/8", None),
        (address, "exact", "10.0.0.1", None),
        (
            path,
            "cidr",
            "10.0.0.0/8",
            Some("`cidr` tests the `address` field, not `path`"),
        ),
        // Said so also when the text is no address (a path, typed first).
        (
            path,
            "cidr",
            "/tmp/",
            Some("`cidr` tests the `address` field, not `path`"),
        ),
        (path, "prefix", "/a", None),
    ] {
        form.field = field;
        form.matcher = at(matcher);
        form.pattern = pattern.into();
        form.validate();
        assert_eq!(form.error.as_deref(), refused, "{matcher} {pattern}");
    }
}

/// Applied rules carry the lines they have in the file as saved: a rule
/// added before others moves them down, and a new rule has no line until
/// it is written. The crawl, the Explain view and the traces use them.
#[test]
fn applied_rules_take_their_lines_in_the_saved_file() {
    let mut app = app();
    app.update(ch('n'));
    typed(&mut app, "/x");
    app.update(key(KeyCode::Enter));
    assert_eq!(app.rules.edited.rules[1].origin.line, 0, "new: no line yet");
    app.update(ch('c'));
    app.update(ch('y'));
    let requests = app.take_requests();
    let saved = requests
        .iter()
        .find_map(|r| match r {
            Request::Save { text, .. } => Some(text.clone()),
            _ => None,
        })
        .expect("saved");
    let sent = requests
        .iter()
        .find_map(|r| match r {
            Request::Control(Control::Rules(rules)) => Some(rules.compiled.clone()),
            _ => None,
        })
        .expect("rules sent");
    let lines: Vec<&str> = saved.lines().collect();
    let names: Vec<&str> = sent.rule_info().iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["stay home", "new rule", "no pdf"]);
    for info in sent.rule_info() {
        assert!(info.line > 0, "{} has a line", info.name);
        assert!(
            lines[info.line - 1] == "[[rules]]"
                && lines[info.line] == format!("name = {:?}", info.name),
            "line {} of the saved file starts {:?}:\n{saved}",
            info.line,
            info.name
        );
    }
    assert_eq!(
        app.rules.compiled.rule_info()[2].line,
        sent.rule_info()[2].line
    );
    assert!(!app.rules.dirty());
}

#[test]
fn the_form_validates_as_you_type_and_adds_the_rule() {
    let mut app = app();
    app.update(ch('n'));
    let Overlay::Form(form) = &app.overlay else {
        panic!("no form")
    };
    assert_eq!(form.focus, FormFocus::Pattern);
    // Back to the matcher, and choose regex.
    app.update(key(KeyCode::BackTab));
    for _ in 0..7 {
        app.update(key(KeyCode::Right)); // prefix → … → regex (wraps)
    }
    app.update(key(KeyCode::Tab));
    typed(&mut app, "/a(b");
    let Overlay::Form(form) = &app.overlay else {
        panic!("no form")
    };
    assert_eq!(form.matcher_key(), "regex");
    let error = form.error.clone().expect("a bad regex is an error");
    assert!(error.contains("unclosed group"), "{error}");
    app.update(key(KeyCode::Enter));
    assert!(
        matches!(app.overlay, Overlay::Form(_)),
        "not saved while invalid"
    );
    typed(&mut app, ")");
    app.update(key(KeyCode::Enter));
    assert!(matches!(app.overlay, Overlay::None));
    let added = &app.rules.edited.rules[1];
    assert_eq!(added.name, "new rule");
    assert_eq!(
        added.condition.as_ref().map(|c| c.to_string()).as_deref(),
        Some("path regex \"/a(b)\"")
    );
}

#[test]
fn the_form_shows_lints() {
    let mut app = app();
    app.update(key(KeyCode::Enter)); // edit "stay home": host exact h
    typed(&mut app, "\u{8}"); // a control character: the input does not take it
    for _ in 0..3 {
        app.update(key(KeyCode::BackTab)); // pattern → matcher → field → name
    }
    app.update(key(KeyCode::Tab));
    app.update(key(KeyCode::Tab));
    app.update(key(KeyCode::Left)); // exact → regex
    app.update(key(KeyCode::Tab));
    app.update(key(KeyCode::End));
    typed(&mut app, "ost.example.com");
    let Overlay::Form(form) = &app.overlay else {
        panic!("no form")
    };
    assert_eq!(form.matcher_key(), "regex");
    assert!(form.error.is_none(), "{:?}", form.error);
    assert!(
        form.lints.iter().any(|l| l.contains("`.`")),
        "an unescaped dot is linted: {:?}",
        form.lints
    );
    app.update(key(KeyCode::Esc));
    assert!(!app.rules.dirty(), "Esc keeps the rule as it was");
}

fn record(url: &str, state: State) -> UrlRecord {
    UrlRecord {
        url: url.into(),
        state,
        reason: "because".into(),
        ..UrlRecord::default()
    }
}

fn page(app: &App, rows: Vec<(u64, UrlRecord)>) -> Option<LogPage> {
    let _ = app;
    Some(LogPage {
        seq: 0,
        from: crate::tui::log_reader::PageFrom::End,
        rows,
        total: 100,
        matching: None,
        error: None,
    })
}

/// The last page request, answered with `rows`.
fn answer(app: &mut App, rows: Vec<(u64, UrlRecord)>) -> Request {
    let request = app
        .take_requests()
        .into_iter()
        .filter(|r| matches!(r, Request::LogPage { .. }))
        .last()
        .expect("a page request");
    let Request::LogPage { seq, from, .. } = &request else {
        unreachable!()
    };
    let mut p = page(app, rows).expect("page");
    p.seq = *seq;
    p.from = *from;
    app.update(Action::LogPage(p));
    request
}

/// A window that no longer fills a grown list is filled from the end of
/// what matches, the selected URL kept: it used to stay a few rows long
/// in an empty pane until the user moved.
#[test]
fn a_grown_list_is_filled_from_the_end_of_what_matches() {
    let mut app = app();
    app.update(Action::Resize(40, 12));
    app.update(ch('3'));
    let small = crate::tui::view::layout::log_list_rows(app.size) as u64;
    let rows = |from: u64, to: u64| -> Vec<(u64, UrlRecord)> {
        (from..=to)
            .map(|i| (i, record(&format!("http://h/{i}"), State::Fetched)))
            .collect()
    };
    // The last `small` of 30 matching URLs, the last but one selected.
    answer(&mut app, rows(31 - small, 30));
    app.update(ch('k'));
    assert_eq!(app.log.selected_id(), Some(29));
    app.update(Action::Resize(200, 60));
    let big = crate::tui::view::layout::log_list_rows(app.size) as u64;
    assert!(big > 30, "{big} rows");
    // The window re-read from its top brings the same few rows...
    let refresh = answer(&mut app, rows(31 - small, 30));
    assert!(
        matches!(
            refresh,
            Request::LogPage {
                from: PageFrom::After(_),
                ..
            }
        ),
        "{refresh:?}"
    );
    // ...so the last page of matches is asked for, and fills the list.
    let refill = answer(&mut app, rows(1, 30));
    assert!(
        matches!(
            refill,
            Request::LogPage {
                from: PageFrom::End,
                ..
            }
        ),
        "{refill:?}"
    );
    assert_eq!(app.log.rows.len(), 30);
    assert_eq!(app.log.selected_id(), Some(29), "the selection kept");
    // Shrunk again below the selected row: the window ends at it, still
    // selected (it used to jump to the newest row).
    for _ in 0..5 {
        app.update(ch('k'));
    }
    assert_eq!(app.log.selected_id(), Some(24));
    app.update(Action::Resize(40, 12));
    let shrink = answer(&mut app, rows(24 - small + 1, 24));
    assert!(
        matches!(
            shrink,
            Request::LogPage {
                from: PageFrom::Before(25),
                ..
            }
        ),
        "{shrink:?}"
    );
    assert_eq!(app.log.rows.len() as u64, small);
    assert_eq!(app.log.selected_id(), Some(24), "the selection kept");
}

/// Off the tail (a state filter, the first page), the list is still read
/// again as the crawl writes, the same window and selection, and once
/// more when the crawl ends: it used to keep the rows and counts of the
/// moment it was opened.
#[test]
fn a_list_off_the_tail_is_read_again_as_the_crawl_goes_on() {
    let mut app = app();
    app.update(ch('3'));
    let rows = |ids: &[u64]| -> Vec<(u64, UrlRecord)> {
        ids.iter()
            .map(|i| (*i, record(&format!("http://h/{i}"), State::Filtered)))
            .collect()
    };
    answer(&mut app, rows(&[3, 5]));
    app.update(key(KeyCode::Home));
    answer(&mut app, rows(&[3, 5]));
    assert!(!app.log.follow);
    app.update(ch('j'));
    assert_eq!(app.log.selected_id(), Some(5));
    let reread = |app: &mut App| {
        for _ in 0..5 {
            app.update(Action::Tick);
        }
        app.take_requests()
            .into_iter()
            .filter(|r| matches!(r, Request::LogPage { .. }))
            .last()
    };
    let request = reread(&mut app).expect("read again while off the tail");
    assert!(
        matches!(
            request,
            Request::LogPage {
                from: PageFrom::After(2),
                ..
            }
        ),
        "{request:?}"
    );
    // The answer's rows (a URL filtered meanwhile) and counts are shown,
    // the selection kept.
    let Request::LogPage { seq, from, .. } = request else {
        unreachable!()
    };
    let mut p = page(&app, rows(&[3, 4, 5])).expect("page");
    (p.seq, p.from, p.total) = (seq, from, 140);
    app.update(Action::LogPage(p));
    // Fewer than a screenful: the last page of what matches fills it.
    answer(&mut app, rows(&[3, 4, 5]));
    assert_eq!(app.log.rows.len(), 3);
    assert_eq!(app.log.total, 100, "the counts of the last answer");
    assert_eq!(app.log.selected_id(), Some(5), "the selection kept");
    // The end of the crawl reads it once more; then the ticks no longer do.
    app.update(Action::Finished(crate::crawl::engine::Stats::default()));
    assert!(
        app.take_requests()
            .iter()
            .any(|r| matches!(r, Request::LogPage { .. }))
    );
    assert!(
        reread(&mut app).is_none(),
        "a finished crawl writes nothing more"
    );
}

/// The ticks' refresh never drops a page the user asked for (it waits for
/// its answer), and its own answer keeps the row selected since.
#[test]
fn the_refresh_waits_for_a_page_asked_for_and_keeps_the_selection() {
    let mut app = app();
    app.update(ch('3'));
    let rows = |ids: std::ops::RangeInclusive<u64>| -> Vec<(u64, UrlRecord)> {
        ids.map(|i| (i, record(&format!("http://h/{i}"), State::Fetched)))
            .collect()
    };
    let n = crate::tui::view::layout::log_list_rows(app.size) as u64;
    answer(&mut app, rows(1..=n));
    app.update(key(KeyCode::Home)); // asked for; not answered yet
    let home = app
        .take_requests()
        .into_iter()
        .filter(|r| matches!(r, Request::LogPage { .. }))
        .last()
        .expect("Home asks for the first page");
    for _ in 0..10 {
        app.update(Action::Tick);
    }
    assert!(
        !app.take_requests()
            .iter()
            .any(|r| matches!(r, Request::LogPage { .. })),
        "no refresh while Home's page is on its way"
    );
    let Request::LogPage { seq, from, .. } = home else {
        unreachable!()
    };
    let mut p = page(&app, rows(1..=n)).expect("page");
    (p.seq, p.from) = (seq, from);
    app.update(Action::LogPage(p));
    // Now a refresh goes out; meanwhile the user moves down a row.
    for _ in 0..5 {
        app.update(Action::Tick);
    }
    let refresh = app
        .take_requests()
        .into_iter()
        .filter(|r| matches!(r, Request::LogPage { .. }))
        .last()
        .expect("a refresh");
    app.update(ch('j'));
    assert_eq!(app.log.selected_id(), Some(2));
    let Request::LogPage { seq, from, .. } = refresh else {
        unreachable!()
    };
    let mut p = page(&app, rows(1..=n)).expect("page");
    (p.seq, p.from) = (seq, from);
    app.update(Action::LogPage(p));
    assert_eq!(app.log.selected_id(), Some(2), "the row chosen since");
}

/// `r` goes to the referrer; filters it would not pass go, and it says so.
#[test]
fn the_referrer_key_says_when_it_clears_the_filters() {
    let mut app = app();
    app.update(ch('3'));
    let mut linked = record("http://h/b", State::Filtered);
    linked.referrer = Some(3);
    answer(&mut app, vec![(9, linked.clone())]);
    app.update(ch('r'));
    assert_eq!(app.message, None, "no filters, nothing to say");
    app.update(ch('s')); // a state filter
    answer(&mut app, vec![(9, linked)]);
    assert!(app.log.query.state.is_some());
    app.update(ch('r'));
    assert!(app.log.query.state.is_none());
    assert_eq!(
        app.message.as_deref(),
        Some("filters cleared to show the referrer #3 (s, Q, / set them again)")
    );
    // The next jump, with nothing to clear, leaves no stale number behind.
    let mut linked = record("http://h/c", State::Saved);
    linked.referrer = Some(1);
    answer(&mut app, vec![(3, linked)]);
    app.update(ch('r'));
    assert_eq!(app.message, None);
}

/// `r` to a referrer within a page of the log's end selects it: the page
/// from it is short, and the last page, which holds it, is read instead
/// (the window used to stay put with its last row selected).
#[test]
fn the_referrer_key_near_the_end_selects_the_referrer() {
    let mut app = app();
    app.update(ch('3'));
    let n = crate::tui::view::layout::log_list_rows(app.size) as u64;
    let rows = |ids: std::ops::RangeInclusive<u64>| -> Vec<(u64, UrlRecord)> {
        ids.map(|i| {
            let mut r = record(&format!("http://h/{i}"), State::Fetched);
            r.referrer = i.checked_sub(2).filter(|&p| p > 0);
            (i, r)
        })
        .collect()
    };
    answer(&mut app, rows(1..=n));
    app.update(key(KeyCode::End));
    answer(&mut app, rows(1..=n));
    assert_eq!(app.log.selected_id(), Some(n));
    app.update(ch('r'));
    let jump = answer(&mut app, rows(n - 2..=n));
    assert!(
        matches!(
            jump,
            Request::LogPage {
                from: PageFrom::After(_),
                ..
            }
        ),
        "{jump:?}"
    );
    let end = answer(&mut app, rows(1..=n));
    assert!(
        matches!(
            end,
            Request::LogPage {
                from: PageFrom::End,
                ..
            }
        ),
        "{end:?}"
    );
    assert_eq!(app.log.selected_id(), Some(n - 2), "the referrer");
    assert_eq!(app.log.rows.len(), n as usize, "a full window");
}

/// The selected URL's record is read again when the list shows it moved
/// on (a queued URL fetched meanwhile), and not on every tick.
#[test]
fn the_selected_record_is_read_again_when_it_changes() {
    let mut app = app();
    app.update(ch('3'));
    let row = |state: State| vec![(7, record("http://h/7", state))];
    answer(&mut app, row(State::Queued));
    let records = |app: &mut App| {
        app.update(Action::Tick);
        app.take_requests()
            .into_iter()
            .filter(|r| matches!(r, Request::Record(7)))
            .count()
    };
    assert_eq!(records(&mut app), 1, "read once selected");
    assert_eq!(records(&mut app), 0, "not again while unchanged");
    app.update(ch('G')); // follow: the tail is read again
    answer(&mut app, row(State::Error));
    assert_eq!(records(&mut app), 1, "read again: its state moved on");
    assert_eq!(records(&mut app), 0);
}

#[test]
fn the_log_pages_filters_and_follows() {
    let mut app = app();
    app.update(ch('3'));
    let n = crate::tui::view::layout::log_list_rows(app.size) as u64;
    let window = |from: u64| -> Vec<(u64, UrlRecord)> {
        (from..from + n)
            .map(|i| (i, record(&format!("http://h/{i}"), State::Fetched)))
            .collect()
    };
    let first = answer(&mut app, window(100));
    assert!(
        matches!(
            first,
            Request::LogPage {
                from: PageFrom::End,
                ..
            }
        ),
        "following the tail"
    );
    assert_eq!(app.log.selected_id(), Some(99 + n));
    // Up moves within the window; it stops following.
    app.update(ch('k'));
    assert_eq!(app.log.selected_id(), Some(98 + n));
    assert!(!app.log.follow);
    // Down past the bottom asks for the window one further on.
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Down));
    let next = answer(&mut app, window(101));
    assert!(
        matches!(
            next,
            Request::LogPage {
                from: PageFrom::After(100),
                ..
            }
        ),
        "{next:?}"
    );
    assert_eq!(app.log.selected_id(), Some(100 + n), "the new last row");
    // Up past the top asks for the window one before.
    app.update(key(KeyCode::Home));
    answer(&mut app, window(1));
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Up));
    app.update(key(KeyCode::Up));
    let back = answer(&mut app, Vec::new());
    assert!(
        matches!(back, Request::LogPage { from: PageFrom::Before(b), .. } if b == n),
        "{back:?}"
    );
    assert_eq!(
        app.log.selected_id(),
        Some(1),
        "nothing before the first: stays on it"
    );
    // The state filter cycles.
    app.update(ch('s'));
    let Request::LogPage { query, .. } = answer(&mut app, Vec::new()) else {
        unreachable!()
    };
    assert_eq!(query.state, Some(State::Queued));
    // A text filter that is not a regex is refused as typed.
    app.update(ch('/'));
    typed(&mut app, "a(");
    assert!(app.log.filter_error.is_some());
    app.update(key(KeyCode::Enter));
    assert!(app.log.filter_input.is_some(), "not applied");
    app.update(key(KeyCode::Backspace));
    app.update(key(KeyCode::Enter));
    let Request::LogPage { query, .. } = answer(&mut app, Vec::new()) else {
        unreachable!()
    };
    assert_eq!(
        query.text.map(|r| r.as_str().to_string()).as_deref(),
        Some("a")
    );
    // A long text filter is quoted shortened: the title keeps room for
    // the counts and `following` after it.
    // (The prompt opens on the filter in force, `a`.)
    app.update(ch('/'));
    typed(&mut app, &"x".repeat(80));
    app.update(key(KeyCode::Enter));
    answer(&mut app, Vec::new());
    let shown = app.log.filter_text();
    assert!(
        shown.contains(&format!("text `a{}…`", "x".repeat(30))),
        "{shown}"
    );
    assert!(!shown.contains(&"x".repeat(31)), "{shown}");
}

#[test]
fn an_old_page_answer_is_dropped() {
    let mut app = app();
    app.update(ch('3'));
    app.update(ch('s')); // a second request supersedes the first
    let mut p = page(&app, vec![(1, record("http://h/old", State::Fetched))]).expect("page");
    p.seq = 1;
    app.update(Action::LogPage(p));
    assert!(app.log.rows.is_empty());
}

#[test]
fn pause_and_weights_are_commands_to_the_crawl() {
    let mut app = app();
    app.update(ch('p'));
    assert!(app.crawl.stats.paused);
    assert!(matches!(
        app.take_requests()[..],
        [Request::Control(Control::Pause)]
    ));
    app.update(ch('p'));
    assert!(matches!(
        app.take_requests()[..],
        [Request::Control(Control::Resume)]
    ));
    app.update(ch('2'));
    app.update(ch('j'));
    app.update(ch('+'));
    let requests = app.take_requests();
    assert!(
        matches!(
            requests[..],
            [Request::Control(Control::Weights([
                10000, 4000, 1000, 100, 10, 1
            ]))]
        ),
        "{requests:?}"
    );
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.starts_with("weight of redirect: 2000 → 4000, for this crawl")),
        "{:?}",
        app.message
    );
    // At an end, the key says so and sends nothing.
    for _ in 0..5 {
        app.update(ch('j'));
    }
    app.update(ch('-'));
    assert!(app.take_requests().is_empty());
    assert_eq!(
        app.message.as_deref(),
        Some("weight of refresh is 1 already, the lowest the console sets")
    );
}

#[test]
fn a_trap_hint_becomes_a_rule_with_one_key() {
    let mut app = app();
    app.update(ch('t'));
    assert!(matches!(app.overlay, Overlay::None), "no hints yet");
    let urls: Vec<String> = (0..30)
        .map(|i| format!("http://h/cal/{}/01/", 2070 + i))
        .collect();
    app.update(Action::Traps(crate::tui::traps::hints(
        urls.iter().map(String::as_str),
    )));
    app.update(ch('t'));
    app.update(key(KeyCode::Enter));
    assert!(app.rules.dirty());
    assert!(
        app.rules
            .edited
            .rules
            .iter()
            .any(|r| r.name.starts_with("trap: calendar under /cal/, "))
    );
    // Added, the hint is offered no more, nor when the crawl sends it
    // again: a second Enter would add the same rule twice.
    assert!(app.trap_hints().is_empty());
    app.update(Action::Traps(crate::tui::traps::hints(
        urls.iter().map(String::as_str),
    )));
    assert!(app.trap_hints().is_empty(), "{:?}", app.trap_hints());
    app.update(ch('t'));
    assert!(matches!(app.overlay, Overlay::None));
    // Undone, it is offered again, with no new hints from the crawl (a
    // finished crawl sends none).
    app.update(ch('u'));
    assert_eq!(app.trap_hints().len(), 1);
}

#[test]
fn explain_follows_every_key() {
    let mut app = app();
    app.update(ch('4'));
    typed(&mut app, "http://h/a.pdf");
    assert!(
        app.explain.result.contains("not fetched"),
        "{}",
        app.explain.result
    );
    assert!(app.explain.result.contains("no pdf"));
    app.update(key(KeyCode::Backspace));
    assert!(
        app.explain.result.contains("fetch + save + follow"),
        "{}",
        app.explain.result
    );
    app.update(key(KeyCode::Tab));
    app.update(key(KeyCode::Tab));
    typed(&mut app, "not-an-ip");
    assert!(app.explain.result.contains("not an IP address"));
}

/// The content type is taken as `explain --content-type` takes it: a
/// header's parameters do not change the verdict.
#[test]
fn explain_strips_the_content_types_parameters() {
    let text = "[[rules]]\nname = \"html only\"\nmatch = { field = \"content_type\", exact = \"text/html\" }\nnegate = true\naction = \"exclude\"\n";
    let mut app = app_with(text);
    app.update(ch('4'));
    typed(&mut app, "http://h/a");
    // The pending field is set in the form, not with an option.
    assert!(
        app.explain.result.contains(
            "pending: rules on content_type are deferred until it is known (set the fields above)"
        ),
        "{}",
        app.explain.result
    );
    app.update(key(KeyCode::Tab));
    typed(&mut app, "Text/HTML; charset=utf-8");
    assert!(
        app.explain.result.contains("fetch + save + follow"),
        "{}",
        app.explain.result
    );
    for _ in "Text/HTML; charset=utf-8".chars() {
        app.update(key(KeyCode::Backspace));
    }
    typed(&mut app, "image/png; q=1");
    assert!(
        app.explain.result.contains("not fetched"),
        "{}",
        app.explain.result
    );
}

/// A URL typed in Explain is looked up in the crawl's log, once, and what
/// the crawl did with it (robots.txt, which the rules cannot see) is shown
/// under its verdict while the same URL stays typed.
#[test]
fn explain_shows_what_the_crawl_did_with_the_url() {
    use crate::store::{State, TraceLine, UrlRecord};
    let mut app = app();
    app.update(ch('4'));
    app.take_requests();
    typed(&mut app, "http://h/tmp/x");
    let asked: Vec<String> = app
        .take_requests()
        .into_iter()
        .filter_map(|r| match r {
            Request::Logged(url) => Some(url),
            _ => None,
        })
        .collect();
    // One request a URL as typed, the last for the whole URL.
    assert_eq!(asked.last().map(String::as_str), Some("http://h/tmp/x"));
    let record = UrlRecord {
        url: "http://h/tmp/x".into(),
        state: State::Filtered,
        reason: "disallowed by robots.txt line 3".into(),
        trace: vec![TraceLine {
            rule: "robots".into(),
            name: "robots.txt".into(),
            line: 3,
            step: "disallowed".into(),
            detail: "Disallow: /tmp/".into(),
        }],
        link_depth: 12,
        ..UrlRecord::default()
    };
    assert!(
        app.explain
            .result
            .contains("\n  at link depth 1 (a link from a start URL)"),
        "{}",
        app.explain.result
    );
    app.update(Action::Logged(
        "http://h/tmp/x".into(),
        Box::new(Ok(Some((7, record)))),
    ));
    // Judged again at the depth the crawl met it at.
    assert!(
        app.explain
            .result
            .contains("\n  at link depth 12, as the crawl's log has it"),
        "{}",
        app.explain.result
    );
    let shown = app.explain.logged_text().expect("answered");
    assert!(
        shown.contains("#7 filtered — disallowed by robots.txt line 3"),
        "{shown}"
    );
    assert!(
        shown.contains("robots disallowed: Disallow: /tmp/"),
        "{shown}"
    );
    // Another content type: the same URL, not asked again.
    app.update(key(KeyCode::Tab));
    typed(&mut app, "text/html");
    assert!(
        !app.take_requests()
            .iter()
            .any(|r| matches!(r, Request::Logged(_)))
    );
    assert!(app.explain.logged_text().is_some());
    // Another URL: nothing shown until the log answers for it.
    app.update(key(KeyCode::BackTab));
    typed(&mut app, "y");
    assert_eq!(app.explain.logged_text(), None);
    app.update(Action::Logged("http://h/tmp/xy".into(), Box::new(Ok(None))));
    // A late answer for the URL typed before (lookups answer in any
    // order) does not replace it.
    app.update(Action::Logged("http://h/tmp/x".into(), Box::new(Ok(None))));
    assert!(
        app.explain
            .logged_text()
            .is_some_and(|t| t.contains("not in the crawl's log"))
    );
    // The answer to the latest question, arriving while the input is
    // cleared, still shows once the URL is pasted again (it is not asked
    // twice).
    typed(&mut app, "z");
    app.take_requests();
    app.update(Action::Key(KeyEvent::new(
        KeyCode::Char('u'),
        KeyModifiers::CONTROL,
    )));
    app.update(Action::Logged(
        "http://h/tmp/xyz".into(),
        Box::new(Ok(None)),
    ));
    app.update(Action::Paste("http://h/tmp/xyz".into()));
    assert!(
        !app.take_requests()
            .iter()
            .any(|r| matches!(r, Request::Logged(_))),
        "asked once"
    );
    assert!(app.explain.logged_text().is_some(), "the answer shows");
    app.update(key(KeyCode::Backspace));
    app.update(Action::Logged("http://h/tmp/xy".into(), Box::new(Ok(None))));
    // Back to the view later: the log is asked again (the crawl may have
    // met the URL since).
    app.update(key(KeyCode::Esc));
    app.update(ch('1'));
    app.take_requests();
    app.update(ch('4'));
    assert!(
        app.take_requests()
            .iter()
            .any(|r| matches!(r, Request::Logged(u) if u == "http://h/tmp/xy"))
    );
    assert!(
        app.explain
            .logged_text()
            .is_some_and(|t| t.contains("not in the crawl's log"))
    );
}

/// PgDn moves the verdict a page and stops with its last row at the
/// bottom: the pane never scrolls past its text into blank rows.
#[test]
fn explain_pages_stop_at_the_end_of_the_verdict() {
    let mut app = app();
    app.update(Action::Resize(60, 14));
    app.update(ch('4'));
    typed(&mut app, "http://h/a.pdf");
    app.update(key(KeyCode::Esc));
    let (most, page) = crate::tui::view::explain_scroll_limits(&app);
    assert!(
        most > page,
        "a verdict taller than two pages: {most} {page}"
    );
    app.update(key(KeyCode::PageDown));
    assert_eq!(app.explain.scroll, page);
    for _ in 0..20 {
        app.update(key(KeyCode::PageDown));
    }
    assert_eq!(app.explain.scroll, most);
    app.update(key(KeyCode::PageUp));
    assert_eq!(app.explain.scroll, most - page);
    // A short verdict in a tall pane does not scroll at all.
    app.update(Action::Resize(120, 50));
    app.update(key(KeyCode::PageDown));
    assert_eq!(app.explain.scroll, 0);
}

#[test]
fn rule_hits_count_only_for_the_applied_list() {
    let mut app = app();
    let detail = Detail {
        rule_hits: vec![7, 0],
        ..Detail::default()
    };
    app.update(Action::Detail(Box::new(detail.clone())));
    assert_eq!(app.rules.hits_of(0), Some(7));
    app.update(ch(' '));
    assert_eq!(app.rules.hits_of(0), None, "edited: hits would mislead");
    assert_eq!(app.rules.hits_of(1), Some(0), "left as it is: its own");
    app.update(ch('c'));
    app.update(ch('y'));
    app.update(Action::Detail(Box::new(detail)));
    assert_eq!(
        app.rules.hits_of(0),
        None,
        "counts for the old list are dropped"
    );
}

/// An apply keeps the hits of every rule it leaves unchanged, and counts
/// an edited rule from 0.
#[test]
fn hits_of_unchanged_rules_survive_an_apply() {
    let mut app = app();
    let before = Detail {
        rule_hits: vec![7, 3],
        ..Detail::default()
    };
    app.update(Action::Detail(Box::new(before)));
    assert_eq!(
        (app.rules.hits_of(0), app.rules.hits_of(1)),
        (Some(7), Some(3))
    );
    app.update(ch('j'));
    app.update(ch(' ')); // "no pdf" disabled
    // Pending, the rule the edit left alone keeps showing its hits.
    assert_eq!(
        (app.rules.hits_of(0), app.rules.hits_of(1)),
        (Some(7), None)
    );
    app.update(ch('K')); // and moved: still the same rule
    assert_eq!(
        (app.rules.hits_of(0), app.rules.hits_of(1)),
        (None, Some(7))
    );
    app.update(ch('J'));
    app.update(ch('c'));
    app.update(ch('y'));
    let after = Detail {
        rule_hits: vec![2, 0],
        rules_version: 1,
        ..Detail::default()
    };
    app.update(Action::Detail(Box::new(after)));
    assert_eq!(app.rules.hits_of(0), Some(9), "7 before, 2 since");
    assert_eq!(app.rules.hits_of(1), Some(0), "edited: counted anew");
    // Applied once more, unchanged: the totals carry on.
    app.update(ch('k'));
    app.update(ch('x')); // "stay home" deleted: "no pdf" is first now
    app.update(ch('c'));
    app.update(ch('y'));
    let last = Detail {
        rule_hits: vec![1],
        rules_version: 2,
        ..Detail::default()
    };
    app.update(Action::Detail(Box::new(last)));
    assert_eq!(app.rules.hits_of(0), Some(1), "0 before, 1 since");
}

/// Saved (`w`) then undone: the list is the applied one, but the file
/// holds the edit, so `q` asks again; saving again settles it.
#[test]
fn quitting_with_the_file_holding_other_rules_asks_again() {
    let mut app = app();
    app.update(ch(' '));
    app.update(ch('w'));
    app.update(ch('u'));
    assert!(!app.rules.dirty());
    assert!(app.rules.unsaved());
    app.update(ch('q'));
    assert!(!app.should_quit());
    let said = app.message.clone().unwrap_or_default();
    assert!(said.contains("differs from this list (w saves)"), "{said}");
    app.update(ch('w'));
    assert!(!app.rules.unsaved());
    app.update(ch('q'));
    assert!(app.should_quit());
}

/// A resumed crawl's first counters come from its log: they are the
/// baselines of the rate graph and of "no hits yet", not this run's work.
#[test]
fn a_resumed_crawls_first_counters_are_baselines() {
    let mut app = app();
    for _ in 0..10 {
        app.update(Action::Tick);
    }
    assert!(app.crawl.rates.is_empty(), "no sample before any counters");
    let resumed = crate::crawl::engine::Stats {
        discovered: 500,
        fetched: 100,
        saved: 300,
        ..Default::default()
    };
    app.update(Action::Stats(resumed));
    for _ in 0..10 {
        app.update(Action::Tick);
    }
    assert_eq!(app.crawl.rates.back(), Some(&0), "no peak of 400");
    assert_eq!(app.rules.discovered_at_apply, 500);
    assert_eq!(app.message, None, "no rules changed");
}

/// A detail request the busy crawl refused says nothing, and leaves the
/// message on screen; a refused command says why.
#[test]
fn a_refused_detail_request_keeps_the_message() {
    let mut app = app();
    app.update(ch('c'));
    assert_eq!(app.message.as_deref(), Some("no edits to apply"));
    app.update(Action::Refused(String::new()));
    assert_eq!(app.message.as_deref(), Some("no edits to apply"));
    app.update(Action::Refused("the crawl did not take the pause".into()));
    assert_eq!(
        app.message.as_deref(),
        Some("the crawl did not take the pause")
    );
}

/// A finished crawl's rate graph stays as it ended: no zeros scroll in to
/// push its history and peak out of the window.
#[test]
fn a_finished_crawls_rate_graph_holds_still() {
    let mut app = app();
    let stats = |fetched| crate::crawl::engine::Stats {
        fetched,
        ..Default::default()
    };
    app.update(Action::Stats(stats(0)));
    for n in 1..=3 {
        app.update(Action::Stats(stats(n * 20)));
        for _ in 0..10 {
            app.update(Action::Tick);
        }
    }
    let graph = app.crawl.rates.clone();
    assert_eq!(graph.back(), Some(&20));
    app.crawl.pick_rates = [0, 0, 0, 13, 0, 0];
    app.update(Action::Finished(stats(60)));
    for _ in 0..100 {
        app.update(Action::Tick);
    }
    assert_eq!(app.crawl.rates, graph);
    // No rate is "now" once it has finished.
    assert_eq!(app.crawl.pick_rates, [0; 6]);
}

/// A crawl started with rules that differ from those its log was crawled
/// with says what the change did, once, with its first counters.
#[test]
fn rules_changed_since_the_last_run_are_said_at_the_start() {
    let mut app = app();
    let changed = crate::crawl::engine::Stats {
        queued_by_new_rules: 5,
        dropped_by_new_rules: 2,
        ..Default::default()
    };
    app.update(Action::Stats(changed.clone()));
    assert_eq!(
        app.message.as_deref(),
        Some(
            "the rules changed since this log's last run: 5 filtered URLs queued again, \
             2 queued URLs filtered (their traces say which rules)"
        )
    );
    app.message = None;
    app.update(Action::Stats(changed));
    assert_eq!(app.message, None, "said once");
}

/// A save that failed leaves what the file holds unknown: `q` asks.
#[test]
fn a_failed_save_makes_quitting_ask() {
    let mut app = app();
    app.update(ch(' '));
    app.update(ch('c'));
    app.update(ch('y')); // applied, and saved
    assert!(!app.rules.dirty() && !app.rules.unsaved());
    app.update(Action::Saved(Err("disk full".into())));
    assert!(app.rules.unsaved());
    app.update(ch('q'));
    assert!(!app.should_quit());
}

/// `q` with rule edits not applied says so and quits only when pressed
/// again; any other key in between starts over. Without edits it quits.
#[test]
fn quitting_with_edits_not_applied_asks_again() {
    let mut app = app();
    app.update(ch('x')); // delete "stay home"
    assert!(app.rules.dirty());
    app.update(ch('q'));
    assert!(!app.should_quit());
    let said = app.message.clone().unwrap_or_default();
    assert!(
        said.contains("quits without the rule edits") && said.contains("the same key again quits"),
        "{said}"
    );
    app.update(ch('j'));
    app.update(ch('q'));
    assert!(!app.should_quit(), "another key in between asks again");
    app.update(ch('q'));
    assert!(app.should_quit());
    // Once its question has left the status line, `q` asks again.
    let mut app = self::app();
    app.update(ch('x'));
    app.update(ch('q'));
    for _ in 0..MESSAGE_TICKS {
        app.update(Action::Tick);
    }
    assert_eq!(app.message, None);
    app.update(ch('q'));
    assert!(!app.should_quit(), "asked again");
    // Saved but not applied: the question says only what is left to do.
    let mut app = self::app();
    app.update(ch('x'));
    app.update(ch('w'));
    app.update(ch('q'));
    assert_eq!(
        app.message.as_deref(),
        Some("the same key again quits; the rule edits are saved, not applied (c applies)")
    );
    app.update(ch('q'));
    assert!(app.should_quit());
    let mut app = self::app();
    app.update(ch('q'));
    assert!(app.should_quit(), "nothing to lose: quits at once");
}

/// A question `q` asked that another message replaced (the crawl ending)
/// is no longer on screen: the next `q` asks again.
#[test]
fn a_quit_question_replaced_on_screen_is_asked_again() {
    let mut app = app();
    app.update(ch('x'));
    app.update(ch('q'));
    app.update(Action::Finished(crate::crawl::engine::Stats::default()));
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.contains("finished"))
    );
    app.update(ch('q'));
    assert!(!app.should_quit(), "asked again");
    app.update(ch('q'));
    assert!(app.should_quit());
}

/// Ctrl-C asks as `q` does when edits would be lost, from a form too, and
/// quits when pressed again; with nothing to lose it quits at once.
#[test]
fn ctrl_c_asks_before_losing_edits() {
    let ctrl_c = || Action::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    let mut app = app();
    app.update(ch('x'));
    app.update(ch('n')); // a form open
    app.update(ctrl_c());
    assert!(!app.should_quit());
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.contains("quits without the rule edits"))
    );
    app.update(ctrl_c());
    assert!(app.should_quit());
    let mut app = self::app();
    app.update(ctrl_c());
    assert!(app.should_quit(), "nothing to lose");
    // A form open, the list as the file has it: what is typed in the
    // form would be lost.
    let mut app = self::app();
    app.update(ch('n'));
    app.update(ctrl_c());
    assert!(!app.should_quit());
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.starts_with("Ctrl-C again quits without the rule in the form")),
        "{:?}",
        app.message
    );
    app.update(ctrl_c());
    assert!(app.should_quit());
}

/// A message leaves the status line after a few seconds, so that the
/// hints come back; another message starts its time over.
#[test]
fn messages_expire() {
    let mut app = app();
    app.update(ch('c'));
    assert_eq!(app.message.as_deref(), Some("no edits to apply"));
    for _ in 0..40 {
        app.update(Action::Tick);
    }
    app.update(ch('p')); // another message
    let paused = app.message.clone();
    assert!(paused.is_some());
    for _ in 0..MESSAGE_TICKS {
        assert_eq!(app.message, paused, "shown for its whole time");
        app.update(Action::Tick);
    }
    assert_eq!(app.message, None, "gone after {MESSAGE_TICKS} ticks");
}

/// A negated rule's form says so, and keeping the form keeps `negate`.
#[test]
fn the_form_shows_and_keeps_negate() {
    let text = "[[rules]]\nname = \"not https\"\nmatch = { field = \"scheme\", exact = \"https\" }\nnegate = true\naction = \"exclude\"\n";
    let mut app = app_with(text);
    app.update(key(KeyCode::Enter));
    let Overlay::Form(form) = &app.overlay else {
        panic!("no form")
    };
    assert!(form.negated);
    let screen = crate::tui::tests::screen(&app);
    assert!(screen.contains("negated  the rule holds when"), "{screen}");
    typed(&mut app, "x");
    app.update(key(KeyCode::Enter));
    let rule = &app.rules.edited.rules[0];
    assert!(rule.negate, "kept");
    assert_eq!(
        rule.condition.as_ref().map(|c| c.to_string()).as_deref(),
        Some("scheme exact \"httpsx\"")
    );
}

/// Right after rules are applied a new rule has 0 hits: it is not said to
/// have none until the crawl has met new URLs under it.
#[test]
fn no_hits_waits_for_urls_met_after_applying() {
    let mut app = app();
    let mut stats = crate::crawl::engine::Stats {
        discovered: 50,
        ..Default::default()
    };
    app.update(Action::Stats(stats.clone()));
    app.update(ch('x')); // delete "stay home"
    app.update(ch('c'));
    app.update(ch('y'));
    let detail = crate::crawl::detail::Detail {
        rule_hits: vec![0],
        rules_version: 1,
        ..Default::default()
    };
    app.update(Action::Detail(Box::new(detail.clone())));
    assert_eq!(app.rules.hits_of(0), Some(0));
    let shows = |app: &App| crate::tui::tests::screen(app).contains("no hits yet");
    assert!(!shows(&app), "no URL met since the rules were applied");
    stats.discovered = 51;
    app.update(Action::Stats(stats));
    app.update(Action::Detail(Box::new(detail)));
    assert!(
        shows(&app),
        "a URL met since, and the rule did not match it"
    );
}

/// A save that found the file changed on disk arms the next `w` to
/// overwrite it (and says so); an apply's save never overwrites.
#[test]
fn after_a_save_conflict_w_overwrites() {
    // Whether each save asked checks the file first.
    let expects = |app: &mut App| -> Vec<bool> {
        app.take_requests()
            .iter()
            .filter_map(|r| match r {
                Request::Save { overwrite, .. } => Some(!overwrite),
                _ => None,
            })
            .collect()
    };
    let mut app = app();
    app.update(ch(' '));
    app.update(ch('w'));
    assert_eq!(expects(&mut app), [true], "checked against the file");
    app.update(Action::SaveConflict(
        "not saved: changed on disk; w again puts the console's rules in it".into(),
        None,
    ));
    assert!(app.rules.unsaved());
    assert!(app.message.as_deref().unwrap_or("").contains("w again"));
    app.update(ch('w'));
    assert_eq!(expects(&mut app), [false], "overwrites");
    app.update(ch('w'));
    assert_eq!(expects(&mut app), [true], "armed once");
}

/// The form asks for a preview of its rule as it opens and as its test
/// changes (not its name), keeps only the answer to the latest, and
/// cancels the count when it closes.
#[test]
fn the_form_previews_its_rule_over_the_log() {
    let mut app = app();
    let previews = |app: &mut App| -> Vec<String> {
        app.take_requests()
            .into_iter()
            .filter_map(|r| match r {
                Request::Preview { seq, .. } => Some(format!("preview {seq}")),
                Request::CancelPreview => Some("cancel".into()),
                _ => None,
            })
            .collect()
    };
    app.update(key(KeyCode::Enter)); // "stay home": host exact h
    assert_eq!(previews(&mut app), ["preview 1"]);
    typed(&mut app, "x");
    assert_eq!(previews(&mut app), ["preview 2"], "the pattern changed");
    app.update(key(KeyCode::BackTab));
    app.update(key(KeyCode::BackTab));
    app.update(key(KeyCode::BackTab));
    typed(&mut app, "y");
    assert_eq!(
        previews(&mut app),
        Vec::<String>::new(),
        "only the name changed"
    );
    let shown = |app: &App| match &app.overlay {
        Overlay::Form(form) => form.preview.as_ref().map(|p| p.matched),
        _ => None,
    };
    let counted = |matched| {
        Box::new(crate::tui::preview::Preview {
            matched,
            ..Default::default()
        })
    };
    app.update(Action::Preview(1, counted(7)));
    assert_eq!(shown(&app), None, "an older count is dropped");
    app.update(Action::Preview(2, counted(3)));
    assert_eq!(shown(&app), Some(3));
    app.update(key(KeyCode::Esc));
    assert_eq!(previews(&mut app), ["cancel"]);
    app.update(key(KeyCode::Esc));
    assert_eq!(previews(&mut app), Vec::<String>::new(), "cancelled once");
}

/// The overwrite after a conflict writes the console's rules into the
/// file as it was found: a setting changed there by hand, and a comment
/// added at its end, stay.
#[test]
fn the_overwrite_keeps_what_changed_outside_the_rules() {
    let config = format!("[crawl]\nconcurrency = 4\n\n{RULES}");
    let save = SaveTarget::for_config(std::path::Path::new("crawl.toml"), &config);
    let rules = native::parse(&config).expect("rules").rules;
    let mut app = App::new("test".into(), rules, save, [1; 6]);
    app.update(Action::Resize(100, 30));
    app.update(ch('j'));
    app.update(ch('s')); // "no pdf" stops
    app.update(ch('w'));
    app.take_requests();
    let by_hand = config.replace("concurrency = 4", "concurrency = 3   # changed elsewhere")
        + "# edited elsewhere\n";
    app.update(Action::SaveConflict("not saved".into(), Some(by_hand)));
    app.update(ch('w'));
    let text = app
        .take_requests()
        .into_iter()
        .find_map(|r| match r {
            Request::Save {
                text, overwrite, ..
            } => Some((text, overwrite)),
            _ => None,
        })
        .expect("a save");
    assert!(text.1, "it overwrites");
    let text = text.0;
    assert!(
        text.contains("concurrency = 3   # changed elsewhere\n"),
        "{text}"
    );
    assert!(text.trim_end().ends_with("# edited elsewhere"), "{text}");
    let saved = native::parse(&text).expect("rules").rules;
    assert!(saved.rules[1].stop, "the console's rules: {text}");
}

/// `x` selects the rule that took the deleted one's place, or the one
/// before it when it was last, or its block when it was the block's only
/// rule.
#[test]
fn a_deletion_selects_the_rule_that_took_its_place() {
    let text = "[[rules]]\nname = \"a\"\n[[rules]]\nname = \"b\"\n[[rules]]\nname = \"c\"\n\
                [[rules]]\nname = \"block\"\n  [[rules.rules]]\n  name = \"inner\"\n";
    let rules = native::parse(text).expect("rules").rules;
    let save = SaveTarget::for_config(std::path::Path::new("crawl.toml"), text);
    let mut app = App::new("test".into(), rules, save, [1; 6]);
    app.update(Action::Resize(100, 30));
    let selected = |app: &App| app.rules.selected_rule().map(|r| r.name.clone());
    app.update(ch('j')); // b
    app.update(ch('x'));
    assert_eq!(selected(&app).as_deref(), Some("c"), "the next one");
    app.update(ch('j'));
    app.update(ch('j')); // inner
    assert_eq!(selected(&app).as_deref(), Some("inner"));
    app.update(ch('x'));
    assert_eq!(selected(&app).as_deref(), Some("block"), "its block");
    app.update(ch('x')); // the block, last
    assert_eq!(selected(&app).as_deref(), Some("c"), "the one before");
}

/// The questions asked before quitting fit an 80-column message line, so
/// that the key that answers them is never cut off.
#[test]
fn quit_questions_fit_80_columns() {
    for question in QUIT_QUESTIONS {
        assert!(question.chars().count() <= 80, "{question}");
    }
}

/// The what-if names the config's start URLs the edited rules refuse: the
/// next run of the config would not start (the counts do not show it).
#[test]
fn the_what_if_names_start_urls_the_edit_refuses() {
    let mut app = app();
    app.start_urls = vec!["http://h/a.pdf".into(), "http://h/".into()];
    app.update(ch('j'));
    app.update(ch('x')); // delete "no pdf"
    app.update(ch('c'));
    assert!(matches!(app.overlay, Overlay::WhatIf(_)));
    assert!(
        app.whatif_start_refused.is_empty(),
        "{:?}",
        app.whatif_start_refused
    );
    app.update(ch('n'));
    app.update(ch('u'));
    assert!(!app.rules.dirty());
    app.update(ch('k'));
    app.update(ch(' ')); // "stay home" off: "no pdf" still refuses a.pdf
    app.update(ch('c'));
    assert_eq!(
        app.whatif_start_refused.len(),
        1,
        "{:?}",
        app.whatif_start_refused
    );
    let refused = &app.whatif_start_refused[0];
    assert!(
        refused.contains("start URL http://h/a.pdf") && refused.contains("\"no pdf\""),
        "{refused}"
    );
}

/// The crawl's notices: each on the message line as it comes, counted, and
/// still counted in the message that says the crawl has finished.
#[test]
fn a_crawl_notice_goes_on_the_message_line() {
    let mut app = app();
    app.update(Action::Notice(
        "crawlspace: URL log: queued id 7: damaged; taken out of the queue".into(),
    ));
    assert_eq!(
        app.message.as_deref(),
        Some(
            "notice 1 (printed again on exit): URL log: queued id 7: damaged; taken out of \
             the queue"
        )
    );
    app.update(Action::Notice("crawlspace: refresh: stopped".into()));
    assert_eq!(
        app.message.as_deref(),
        Some("notice 2 (printed again on exit): refresh: stopped")
    );
    app.update(Action::Finished(crate::crawl::engine::Stats::default()));
    assert_eq!(
        app.message.as_deref(),
        Some(
            "the crawl has finished: browse the log, or q to quit (2 notices printed again \
             on exit)"
        )
    );
}

/// A combined condition is edited as its rules file's `match` line, read
/// with the rules file's parser and compiled as the crawl would: a typo
/// or a bad regex is said while typing and keeps the rule as it was; a
/// valid line replaces the condition, and an empty one leaves none.
#[test]
fn the_form_edits_a_combined_condition_as_its_match_line() {
    let text = "[[rules]]\nname = \"docs on h\"\nmatch = { all = [ { field = \"host\", exact = \"h\" }, { field = \"path\", prefix = \"/docs\" } ] }\naction = \"exclude\"\n";
    let mut app = app_with(text);
    app.update(key(KeyCode::Enter));
    let form = |app: &App| match &app.overlay {
        Overlay::Form(form) => (
            form.focus,
            form.pattern.value().to_string(),
            form.error.clone(),
            form.lints.clone(),
        ),
        _ => panic!("no form"),
    };
    let (focus, line, error, _) = form(&app);
    assert_eq!(focus, FormFocus::Name);
    assert_eq!(
        line,
        "{ all = [ { field = \"host\", exact = \"h\" }, { field = \"path\", prefix = \"/docs\" } ] }"
    );
    assert_eq!(error, None);
    // Tab goes between the name and the line only.
    app.update(key(KeyCode::Tab));
    assert_eq!(form(&app).0, FormFocus::Pattern);
    let screen = crate::tui::tests::screen(&app);
    // The line scrolls sideways to its cursor, at its end.
    assert!(
        screen.contains("when ") && screen.contains("prefix = \"/docs\" } ] }▏"),
        "{screen}"
    );
    assert!(screen.contains("as `match` in a rules file"), "{screen}");

    // A typo: said in the parser's words, and Enter keeps the form open.
    app.update(key(KeyCode::End));
    app.update(key(KeyCode::Backspace));
    let error = form(&app).2.expect("an unclosed table is an error");
    assert!(error.starts_with("bad TOML"), "{error}");
    app.update(key(KeyCode::Enter));
    assert!(
        matches!(app.overlay, Overlay::Form(_)),
        "not kept while invalid"
    );

    // A bad regex, as the crawl would compile it; then a valid `any`,
    // linted test by test.
    let set_line = |app: &mut App, line: &str| {
        if let Overlay::Form(form) = &mut app.overlay {
            form.pattern = tui_input::Input::new(String::new());
            form.validate();
        }
        typed(app, line);
    };
    set_line(
        &mut app,
        "{ any = [ { field = \"path\", regex = \"/a(b\" }, { field = \"host\", exact = \"h\" } ] }",
    );
    let error = form(&app).2.expect("a bad regex is an error");
    assert!(error.contains("unclosed group"), "{error}");
    set_line(
        &mut app,
        "{ any = [ { field = \"host\", regex = \"a.example.com\" }, { not = { field = \"path\", prefix = \"/docs\" } } ] }",
    );
    let (_, _, error, lints) = form(&app);
    assert_eq!(error, None);
    assert!(lints.iter().any(|l| l.contains("`.`")), "{lints:?}");
    app.update(key(KeyCode::Enter));
    assert!(matches!(app.overlay, Overlay::None));
    let rule = &app.rules.edited.rules[0];
    assert_eq!(rule.name, "docs on h");
    assert_eq!(
        rule.condition.as_ref().map(|c| c.to_string()).as_deref(),
        Some("any(host regex \"a.example.com\", not(path prefix \"/docs\"))")
    );

    // Emptied, the rule holds for every URL, as one with no `match` does.
    app.update(key(KeyCode::Enter));
    app.update(key(KeyCode::Tab));
    set_line(&mut app, "");
    assert_eq!(form(&app).2, None);
    app.update(key(KeyCode::Enter));
    assert_eq!(app.rules.edited.rules[0].condition, None);
}

/// What Explain shows of the crawl's record hides a password in a URL its
/// reason or trace quotes, as the URL log view does.
#[test]
fn explain_hides_a_password_the_record_quotes() {
    use crate::store::{State, TraceLine, UrlRecord};
    let mut app = app();
    app.update(ch('4'));
    typed(&mut app, "http://h/a");
    let record = UrlRecord {
        url: "http://h/a".into(),
        state: State::Saved,
        reason: "saved; redirected from http://ann:hunter2@h/old".into(),
        trace: vec![TraceLine {
            rule: "sitemap".into(),
            name: "sitemap".into(),
            line: 0,
            step: "met".into(),
            detail: "sitemap entry from http://ann:hunter2@h/sitemap.xml".into(),
        }],
        ..UrlRecord::default()
    };
    app.update(Action::Logged(
        "http://h/a".into(),
        Box::new(Ok(Some((3, record)))),
    ));
    let shown = app.explain.logged_text().expect("answered");
    assert!(
        shown.contains("redirected from http://ann:***@h/old"),
        "{shown}"
    );
    assert!(
        shown.contains("sitemap met: sitemap entry from http://ann:***@h/sitemap.xml"),
        "{shown}"
    );
    assert!(!shown.contains("hunter2"), "{shown}");
}

/// A combined rule opens as it is even when its condition would not read
/// back or compile here (an imported regex this engine refuses): it can
/// still be renamed, its condition kept. `{ any = [] }` is linted as
/// `crawlspace rules` lints it, and a line that is no table says what
/// `match` takes.
#[test]
fn a_combined_rule_the_engine_refuses_can_still_be_renamed() {
    let text = "[[rules]]\nname = \"lookbehind\"\nmatch = { any = [ { field = \"path\", regex = '(?<=a)b' }, { field = \"host\", exact = \"h\" } ] }\naction = \"exclude\"\n";
    let mut app = app_with(text);
    let before = app.rules.edited.rules[0].condition.clone();
    app.update(key(KeyCode::Enter));
    let checked = |app: &App| match &app.overlay {
        Overlay::Form(form) => (form.error.clone(), form.lints.clone()),
        _ => panic!("no form"),
    };
    let (error, lints) = checked(&app);
    assert_eq!(error, None, "opened as it is");
    assert!(
        lints[0].starts_with("kept as it is, and still off in the crawl: ")
            && lints[0].contains("look-around"),
        "{lints:?}"
    );
    typed(&mut app, " 2");
    app.update(key(KeyCode::Enter));
    assert!(matches!(app.overlay, Overlay::None));
    assert_eq!(app.rules.edited.rules[0].name, "lookbehind 2");
    assert_eq!(app.rules.edited.rules[0].condition, before);

    app.update(key(KeyCode::Enter));
    app.update(key(KeyCode::Tab));
    let set_line = |app: &mut App, line: &str| {
        if let Overlay::Form(form) = &mut app.overlay {
            form.pattern = tui_input::Input::new(line.into());
            form.validate();
        }
    };
    // Changed, it is read and compiled as typed.
    set_line(&mut app, "{ field = \"path\", regex = '(?<=a)b' }");
    let (error, _) = checked(&app);
    assert!(
        error.is_some_and(|e| e.contains("look-around")),
        "a refused regex is said"
    );
    set_line(&mut app, "{ any = [] }");
    let (error, lints) = checked(&app);
    assert_eq!(error, None);
    assert!(
        lints.iter().any(|l| l.contains("`any = []` lists no test")),
        "{lints:?}"
    );
    set_line(&mut app, "\"abc\"");
    let (error, _) = checked(&app);
    assert!(
        error.is_some_and(|e| e.contains("`match` takes a table")),
        "says what `match` takes"
    );
}

/// Ctrl-L turns the form's one test into a `match` line, which a rule of
/// several tests is then typed from.
#[test]
fn ctrl_l_turns_the_test_into_a_line_to_combine() {
    let mut app = app();
    app.update(key(KeyCode::Enter)); // "stay home": host exact h
    app.update(Action::Key(KeyEvent::new(
        KeyCode::Char('l'),
        KeyModifiers::CONTROL,
    )));
    let Overlay::Form(form) = &app.overlay else {
        panic!("no form")
    };
    assert!(form.combined);
    assert_eq!(form.focus, FormFocus::Pattern);
    assert_eq!(form.pattern.value(), "{ field = \"host\", exact = \"h\" }");
    app.update(key(KeyCode::Home));
    typed(&mut app, "{ any = [ ");
    app.update(key(KeyCode::End));
    typed(&mut app, ", { field = \"host\", suffix = \".h\" } ] }");
    app.update(key(KeyCode::Enter));
    assert!(matches!(app.overlay, Overlay::None));
    assert_eq!(
        app.rules.edited.rules[0]
            .condition
            .as_ref()
            .map(|c| c.to_string())
            .as_deref(),
        Some("any(host exact \"h\", host suffix \".h\")")
    );
}
