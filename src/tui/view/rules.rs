//! The Rules view: the edited rule list with its columns and health
//! markers, and below it the selected rule in full (name, condition, effects,
//! lints, why it is disabled or shadowed).

use std::borrow::Cow;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Paragraph, Row, Table, TableState, Wrap};

use super::{safe, selected_style};
use crate::rules::model::{Filter, Rule};
use crate::tui::app::App;
use crate::tui::edit;

/// The list's columns; the last, the rule's name, takes what the others
/// leave.
const HEADERS: [&str; 9] = [
    "#", "on", "action", "stop", "prio", "log", "filter", "hits", "rule",
];

/// Rows of the box under the list at least (frame included), and the
/// share of the view it may grow to for a long name or many markers.
const DETAIL_ROWS: u16 = 7;

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) {
    // The selected rule in full: the box grows for what it holds (a long
    // name wraps over several rows), up to half the view, so that its
    // condition and the reasons for its markers stay in sight.
    let detail_box = detail_text(app);
    // (`line_count` counts the frame's rows too.)
    let needed =
        u16::try_from(detail_box.line_count(area.width.saturating_sub(2))).unwrap_or(u16::MAX);
    let height = needed.clamp(DETAIL_ROWS, (area.height / 2).max(DETAIL_ROWS));
    let [list, detail] =
        Layout::vertical([Constraint::Min(5), Constraint::Length(height)]).areas(area);
    let r = &app.rules;
    let header = Row::new(HEADERS).style(Style::new().bold().underlined());
    // Each row's cells are made once: measured for the column widths, then
    // drawn.
    let listed: Vec<(usize, &Rule, Leading<'_>)> = r
        .rows
        .iter()
        .enumerate()
        .filter_map(|(i, row)| {
            let rule = edit::get(&r.edited, &row.path)?;
            Some((i, rule, leading_cells(app, i, &row.path, rule)))
        })
        .collect();
    let leading_widths = column_widths(listed.iter().map(|(_, _, cells)| cells));
    let rows: Vec<Row<'_>> = listed
        .into_iter()
        .map(|(i, rule, cells)| rule_row(app, i, &r.rows[i].path, rule, cells))
        .collect();
    let dirty = if r.dirty() && app.crawl.finished {
        // Nothing to apply them to: the next run takes them from the file.
        if r.unsaved() {
            " · EDITED (w saves)"
        } else {
            " · EDITED, saved for the next run"
        }
    } else if r.dirty() {
        " · EDITED, not applied (c)"
    } else if r.unsaved() {
        " · not in the rules file (w)"
    } else {
        ""
    };
    let offered = app.trap_hints().len();
    let traps = if offered == 0 {
        String::new()
    } else {
        format!(
            " · {} (t)",
            crate::text::counted(offered as u64, "trap hint", "trap hints")
        )
    };
    let title = format!(
        " rules ({}), disposition {}{dirty}{traps} ",
        r.rows.len(),
        r.edited.disposition.name()
    );
    let mut widths: Vec<Constraint> = leading_widths.into_iter().map(Constraint::Length).collect();
    // The rule's name gets what the other columns leave: they are never
    // cut, so that `exclude-scan` cannot show as `exclude` on a narrow
    // terminal.
    widths.push(Constraint::Fill(1));
    let table = Table::new(rows, widths)
        .header(header)
        .row_highlight_style(selected_style())
        .block(Block::bordered().title(title));
    let mut state = TableState::default().with_selected(Some(r.selected));
    frame.render_stateful_widget(table, list, &mut state);
    frame.render_widget(detail_box, detail);
}

/// The texts of the columns before the rule's name.
type Leading<'a> = [Cow<'a, str>; 8];

fn leading_cells<'a>(app: &App, i: usize, path: &[usize], rule: &'a Rule) -> Leading<'a> {
    [
        rule_number(path).into(),
        (if rule.enabled { "✓" } else { "·" }).into(),
        rule.action.map_or("", |a| a.name()).into(),
        (if rule.stop { "stop" } else { "" }).into(),
        rule.priority.map_or("", |p| p.name()).into(),
        match rule.log {
            Some(true) => "yes",
            Some(false) => "no",
            None => "",
        }
        .into(),
        rule.filter.map_or("", Filter::name).into(),
        hits_text(app, i).into(),
    ]
}

/// The widths of the columns before the rule's name: each as wide as its
/// header or the widest of its cells.
fn column_widths<'a>(rows: impl Iterator<Item = &'a Leading<'a>>) -> [u16; 8] {
    let mut widths: [usize; 8] = std::array::from_fn(|i| Span::raw(HEADERS[i]).width());
    for cells in rows {
        for (width, cell) in widths.iter_mut().zip(cells) {
            *width = (*width).max(Span::raw(cell.as_ref()).width());
        }
    }
    widths.map(|w| u16::try_from(w).unwrap_or(u16::MAX))
}

/// `13.1`: a rule's place, its parents' first.
fn rule_number(path: &[usize]) -> String {
    let number: Vec<String> = path.iter().map(|n| (n + 1).to_string()).collect();
    number.join(".")
}

/// A rule's hits in this crawl, `·` before any are counted.
fn hits_text(app: &App, i: usize) -> String {
    match app.rules.hits_of(i) {
        Some(n) => n.to_string(),
        None => "·".into(),
    }
}

fn rule_row<'a>(
    app: &App,
    i: usize,
    path: &[usize],
    rule: &'a Rule,
    leading: Leading<'a>,
) -> Row<'a> {
    let r = &app.rules;
    let indent = "  ".repeat(path.len().saturating_sub(1));
    let mut marks = Vec::new();
    if r.shadows.get(i).is_some_and(Option::is_some) {
        marks.push(Span::styled(" ⊘shadowed", Style::new().fg(Color::Magenta)));
    }
    if r.lints_of(i).next().is_some() {
        marks.push(Span::styled(" ⚠lint", Style::new().fg(Color::Yellow)));
    }
    let disabled = r
        .compiled
        .rule_info()
        .get(r.rows[i].index)
        .and_then(|x| x.disabled.clone());
    // Off with its block is not broken: said, and shown dim below.
    let block_off = disabled == Some(crate::rules::compile::Disabled::EnclosingOff);
    if block_off && rule.enabled {
        marks.push(Span::styled(" off with its block", Style::new().dim()));
    } else if disabled.is_some() && rule.enabled {
        marks.push(Span::styled(" ✗broken", Style::new().fg(Color::Red)));
    }
    if rule.enabled && no_hits_yet(app, i) {
        marks.push(Span::styled(" no hits yet", Style::new().dim()));
    }
    let mut name = vec![Span::raw(format!("{indent}{}", safe(&rule.name)))];
    name.extend(marks);
    let mut cells: Vec<Cell<'a>> = leading.into_iter().map(Cell::from).collect();
    cells.push(Cell::from(Line::from(name)));
    let row = Row::new(cells);
    if rule.enabled && !block_off {
        row
    } else {
        row.dim()
    }
}

/// The rule in `row` has not matched a URL, and URLs were met since the
/// rules took effect (a resumed crawl's counters start at its log's: those
/// URLs were judged in an earlier run).
fn no_hits_yet(app: &App, row: usize) -> bool {
    let r = &app.rules;
    r.hits_of(row) == Some(0) && app.crawl.stats.discovered > r.discovered_at_apply
}

fn detail_text(app: &App) -> Paragraph<'static> {
    let r = &app.rules;
    let mut lines = Vec::new();
    let i = r.selected;
    if let Some(row) = r.rows.get(i)
        && let Some(info) = r.compiled.rule_info().get(row.index)
    {
        // In full: the list's column cuts long names.
        if let Some(rule) = r.selected_rule() {
            lines.push(Line::from(safe(&rule.name)).bold());
        }
        lines.push(Line::from(vec![
            Span::raw("when ").dim(),
            Span::raw(safe(&info.condition)),
            Span::raw(" → ").dim(),
            Span::raw(safe(&info.effects)),
        ]));
        if let Some(why) = &info.disabled {
            lines.push(Line::from(format!("disabled: {}", safe(why.text()))).red());
        }
        if let Some(Some(why)) = r.shadows.get(i) {
            lines.push(Line::from(safe(why)).magenta());
        }
        for lint in r.lints_of(i) {
            lines.push(Line::from(format!("lint: {}", safe(&lint.message))).yellow());
        }
        if no_hits_yet(app, i) {
            lines.push(Line::from("has matched none of the URLs met since it took effect").dim());
        }
    } else {
        lines.push(Line::from(
            "no rules: every URL gets the disposition. n adds one.",
        ));
    }
    let title = if info_line(app).is_empty() {
        " rule ".to_string()
    } else {
        format!(" rule · {} ", info_line(app))
    };
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(Block::bordered().title(safe(&title)))
}

/// `line 12 of the file`, when the rule came from one.
fn info_line(app: &App) -> String {
    app.rules
        .selected_rule()
        .filter(|r| r.origin.line > 0)
        .map(|r| format!("line {}", r.origin.line))
        .unwrap_or_default()
}
