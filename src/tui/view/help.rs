//! The `?` overlay: every key of the current view, from one table that the
//! README's key list is checked against (tests/console.rs).

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Stylize;
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use crate::tui::app::{App, View};

/// Keys that work in every view.
pub const GLOBAL_KEYS: &[(&str, &str)] = &[
    ("1 2 3 4", "Rules, Queues, URL log, Explain"),
    ("Tab / Shift-Tab", "next / previous view"),
    ("p", "pause or resume the crawl"),
    ("?", "this help (Esc closes)"),
    (
        "q / Ctrl-C",
        "quit: stop the crawl cleanly and flush the log",
    ),
    ("mouse wheel", "scroll the list"),
];

const RULES_KEYS: &[(&str, &str)] = &[
    ("↑ ↓ / j k", "select a rule (PgUp PgDn Home End too)"),
    ("Space", "enable / disable the rule"),
    (
        "a",
        "cycle the action: exclude, exclude-scan, download, download-no-scan, none",
    ),
    ("s", "toggle stop"),
    ("+ / -", "priority more / less urgent"),
    ("l", "cycle log: yes, no, unset"),
    ("f", "cycle filter: must-have, may-not-have, none"),
    ("K / J", "move the rule up / down"),
    (
        "> / <",
        "move the rule into the block above / out of its block",
    ),
    (
        "Enter / e",
        "edit name, field, matcher and pattern (live validation)",
    ),
    ("n", "new rule after this one"),
    ("d", "duplicate the rule"),
    ("x / Delete", "delete the rule"),
    ("u / U (Ctrl-r)", "undo / redo"),
    (
        "c",
        "what-if, then apply the edits to the crawl (y) and save the file",
    ),
    ("w", "save the rules file without applying"),
    ("t", "trap hints: growing URL patterns as ready-made rules"),
];

const QUEUES_KEYS: &[(&str, &str)] = &[
    ("↑ ↓ / j k", "select a queue"),
    ("+ / → ", "double the queue's weight (applied at once)"),
    ("- / ←", "halve the queue's weight"),
];

const LOG_KEYS: &[(&str, &str)] = &[
    ("↑ ↓ / j k", "select a URL (PgUp PgDn page)"),
    ("Home / g", "the oldest URLs"),
    ("End / G / F", "follow the newest URLs as they are logged"),
    ("s", "cycle the state filter"),
    ("Q", "cycle the queue filter"),
    (
        "/",
        "text filter: a regex on URL and reason (Enter applies, Esc cancels)",
    ),
    ("c", "clear the filters"),
    ("r", "jump to the referrer of the selected URL"),
    ("J / K", "scroll the detail pane"),
];

const EXPLAIN_KEYS: &[(&str, &str)] = &[
    ("type", "the URL; the verdict and trace follow every key"),
    ("Tab / ↑ ↓", "URL, content type, address inputs"),
    ("PgUp / PgDn", "scroll the trace"),
    (
        "Esc",
        "stop typing (then 1-4, q, ? work; Enter types again)",
    ),
];

/// The keys of one view (without the global ones).
pub fn keys_for(view: View) -> &'static [(&'static str, &'static str)] {
    match view {
        View::Rules => RULES_KEYS,
        View::Queues => QUEUES_KEYS,
        View::Log => LOG_KEYS,
        View::Explain => EXPLAIN_KEYS,
    }
}

/// The one-line reminder under the status bar.
pub fn hint(app: &App) -> String {
    match app.view {
        View::Rules if app.rules.dirty() => {
            "edited, not applied: c what-if and apply · u undo · ? all keys".into()
        }
        View::Rules => {
            "Space on/off · a action · s stop · Enter edit · n new · c apply · ? keys".into()
        }
        View::Queues => "↑↓ select · +/- weight · ? keys".into(),
        View::Log => "s state · Q queue · / text · F follow · r referrer · ? keys".into(),
        View::Explain if app.explain.editing => "type a URL · Tab next input · Esc done".into(),
        View::Explain => "Enter to type · ? keys".into(),
    }
}

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let mut lines = vec![Line::from(format!("{} view", app.view.title())).bold()];
    let width = keys_for(app.view)
        .iter()
        .chain(GLOBAL_KEYS)
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(10);
    for (key, what) in keys_for(app.view) {
        lines.push(Line::from(format!("  {key:<width$}  {what}")));
    }
    lines.push(Line::from(""));
    lines.push(Line::from("Everywhere").bold());
    for (key, what) in GLOBAL_KEYS {
        lines.push(Line::from(format!("  {key:<width$}  {what}")));
    }
    let height = (lines.len() as u16 + 2).min(area.height);
    let popup = area.centered(Constraint::Percentage(90), Constraint::Length(height));
    frame.render_widget(Clear, popup);
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::bordered().title(" keys · Esc closes ")),
        popup,
    );
}
