//! The `?` overlay: every key of the current view, from one table that the
//! README's key list is checked against (`src/tui/tests.rs`,
//! `the_readme_lists_every_key_of_the_help`).

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::Stylize;
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::hang::hang;
use super::layout::bands;
use crate::tui::app::{App, View};

/// Keys that work in every view.
pub const GLOBAL_KEYS: &[(&str, &str)] = &[
    ("1 2 3 4", "Rules, Queues, URL log, Explain"),
    ("Tab / Shift-Tab", "next / previous view"),
    ("p", "pause or resume the crawl"),
    ("?", "this help (Esc closes)"),
    (
        "q / Ctrl-C",
        "quit: stop the crawl cleanly and flush the log (either asks first while rule edits are not applied or not saved, Ctrl-C also while a rule form is open; pressed again, it quits)",
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
    ("0", "priority unset (the rule sets none)"),
    ("l", "cycle log: yes, no, unset"),
    ("f", "cycle filter: must-have, may-not-have, none"),
    ("K / J", "move the rule up / down"),
    (
        "> / <",
        "move the rule into the block above / out of its block",
    ),
    (
        "Enter / e",
        "edit name, field, matcher and pattern, or a combined `match` line (live validation)",
    ),
    ("n", "new rule after this one"),
    ("d", "duplicate the rule"),
    ("x / Delete", "delete the rule"),
    ("u / U (Ctrl-r)", "undo / redo"),
    (
        "c",
        "what-if, then apply the edits to the crawl (y) and save the file; after the crawl, what-if then save",
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
    ("e", "explain the selected URL under the rules as edited"),
    ("J / K", "scroll the detail pane"),
];

const EXPLAIN_KEYS: &[(&str, &str)] = &[
    ("type", "the URL; the verdict and trace follow every key"),
    ("Tab / ↑ ↓", "URL, content type, address inputs"),
    (
        "PgUp / PgDn",
        "scroll the verdict and trace a page (j / k a row, after Esc)",
    ),
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
    // A text input has the keys: the view's would be typed into it.
    if matches!(app.overlay, crate::tui::app::Overlay::Form(_)) {
        return "rule form: Tab/↑↓ next field · Enter keeps the rule · Esc closes it".into();
    }
    if app.view == View::Log && app.log.filter_input.is_some() {
        return "typing a text filter (regex): Enter applies · Esc cancels".into();
    }
    match app.view {
        View::Rules if app.rules.dirty() && app.crawl.finished && app.rules.unsaved() => {
            "edited: c what it would have changed · w save for the next run · u undo".into()
        }
        View::Rules if app.rules.dirty() && !app.crawl.finished => {
            "edited, not applied: c what-if and apply · u undo · ? all keys".into()
        }
        View::Rules if app.rules.unsaved() => {
            "the rules file holds other rules: w saves these · ? all keys".into()
        }
        // Once the crawl has ended there is nothing to apply edits to.
        View::Rules if app.crawl.finished => {
            "Space on/off · a action · s stop · Enter edit · n new · w save · ? keys".into()
        }
        View::Rules => {
            "Space on/off · a action · s stop · Enter edit · n new · c apply · ? keys".into()
        }
        View::Queues => "↑↓ select · +/- weight · ? keys".into(),
        View::Log => "s state · Q queue · / text · F follow · r referrer · ? keys".into(),
        View::Explain if app.explain.editing => {
            "typing: keys go into the input · Tab next input · Esc back to the view's keys".into()
        }
        View::Explain => "Enter to type · ? keys".into(),
    }
}

/// The help for `view`, wrapped as it is drawn in `columns` (its
/// frame added then), each key's text hanging under its first line.
fn help_text(view: View, columns: u16) -> Paragraph<'static> {
    let mut lines = vec![Line::from(format!("{} view", view.title())).bold()];
    let width = keys_for(view)
        .iter()
        .chain(GLOBAL_KEYS)
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(10);
    for (key, what) in keys_for(view) {
        lines.push(Line::from(format!("  {key:<width$}  {what}")));
    }
    lines.push(Line::from(""));
    lines.push(Line::from("Everywhere").bold());
    for (key, what) in GLOBAL_KEYS {
        lines.push(Line::from(format!("  {key:<width$}  {what}")));
    }
    Paragraph::new(hang(lines, columns)).wrap(Wrap { trim: false })
}

/// The overlay's place in the view's `area`, its text, and how many rows
/// of it do not fit inside its frame (how far it can scroll).
fn placed(area: Rect, view: View) -> (Rect, Paragraph<'static>, u16) {
    let width = area.width.saturating_mul(9) / 10;
    let text = help_text(view, width.saturating_sub(2));
    let rows = text.line_count(width.saturating_sub(2));
    let height = u16::try_from(rows + 2).unwrap_or(u16::MAX).min(area.height);
    let popup = area.centered(Constraint::Length(width), Constraint::Length(height));
    let shown = usize::from(popup.height.saturating_sub(2));
    let overflow = u16::try_from(rows.saturating_sub(shown)).unwrap_or(u16::MAX);
    (popup, text, overflow)
}

/// How far the help for `view` scrolls in a terminal of `size`: the rows
/// its text takes beyond those the overlay shows.
pub fn max_scroll(view: View, size: (u16, u16)) -> u16 {
    let [_, body, _] = bands(Rect::new(0, 0, size.0, size.1));
    placed(body, view).2
}

/// The overlay scrolled by `scroll` rows, or by as many as the text still
/// overflows when the terminal has grown since.
pub fn draw(frame: &mut Frame<'_>, area: Rect, view: View, scroll: u16) {
    let (popup, text, overflow) = placed(area, view);
    let title = if overflow > 0 {
        " keys · ↑↓ PgUp PgDn scroll · Esc closes "
    } else {
        " keys · Esc closes "
    };
    frame.render_widget(Clear, popup);
    frame.render_widget(
        text.scroll((scroll.min(overflow), 0))
            .block(Block::bordered().title(title)),
        popup,
    );
}
