//! The URL log view: a window of records with their state, status, queue
//! and reason, and the selected record in full — every field the log keeps,
//! the referrer chain and the stored trace, layer by layer.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Row, Table, TableState, Wrap};

use super::layout::log_areas;
use super::{safe, selected_style};
use crate::store::{State, UrlRecord};
use crate::tui::app::App;
use crate::tui::log_reader::RecordView;

fn state_color(state: State) -> Color {
    match state {
        State::Queued | State::InFlight => Color::Cyan,
        State::Fetched | State::Saved => Color::Green,
        State::Filtered => Color::Yellow,
        State::Error | State::Deleted => Color::Red,
    }
}

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let [list, detail] = log_areas(area);
    let log = &app.log;
    let rows: Vec<Row<'_>> = log
        .rows
        .iter()
        .map(|(id, r)| {
            Row::new(vec![
                Span::raw(id.to_string()),
                Span::styled(r.state.name(), Style::new().fg(state_color(r.state))),
                Span::raw(r.status.map(|s| s.to_string()).unwrap_or_default()),
                Span::raw(safe(&r.url)),
                Span::raw(safe(&r.reason)).dim(),
            ])
        })
        .collect();
    let follow = if log.follow { " · following" } else { "" };
    let title = format!(
        " {} of {} URLs · {}{follow} ",
        log.rows.len(),
        log.total,
        log.filter_text()
    );
    let table = Table::new(
        rows,
        [
            Constraint::Length(6),
            Constraint::Length(9),
            Constraint::Length(4),
            Constraint::Percentage(55),
            Constraint::Percentage(45),
        ],
    )
    .header(
        Row::new(["id", "state", "http", "url", "reason"]).style(Style::new().bold().underlined()),
    )
    .row_highlight_style(selected_style())
    .block(Block::bordered().title(safe(&title)));
    let mut state =
        TableState::default().with_selected((!log.rows.is_empty()).then_some(log.selected));
    frame.render_stateful_widget(table, list, &mut state);

    let mut lines = Vec::new();
    if let Some(input) = &log.filter_input {
        lines.push(Line::from(vec![
            Span::raw("text filter (regex): ").bold(),
            Span::raw(safe(input.value())),
            Span::raw("▏"),
        ]));
        match &log.filter_error {
            Some(e) => lines.push(Line::from(format!("  {}", safe(e))).red()),
            None => lines.push(Line::from("  Enter applies, Esc cancels").dim()),
        }
    }
    if let Some(e) = &log.error {
        lines.push(Line::from(format!("cannot read the log: {}", safe(e))).red());
    }
    match (&log.record, log.selected_id()) {
        (Some(view), Some(id)) if view.id == id => lines.extend(record_lines(view)),
        (_, Some(_)) => match &log.record_error {
            Some(e) => {
                lines.push(Line::from(format!("cannot read this record: {}", safe(e))).red())
            }
            None => lines.push(Line::from("reading…").dim()),
        },
        (_, None) => lines.push(Line::from("no URL matches the filters yet").dim()),
    }
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((log.detail_scroll, 0))
            .block(Block::bordered().title(" why: everything the log holds for this URL ")),
        detail,
    );
}

/// A log time (milliseconds since the epoch) as UTC `HH:MM:SS.mmm`; the
/// date is left out, since a crawl's times are close together.
fn clock(ms: u64) -> String {
    if ms == 0 {
        return "-".into();
    }
    let s = ms / 1000;
    format!(
        "{:02}:{:02}:{:02}.{:03} UTC",
        s / 3600 % 24,
        s / 60 % 60,
        s % 60,
        ms % 1000
    )
}

fn field<'a>(name: &'a str, value: String) -> Line<'a> {
    Line::from(vec![
        Span::raw(format!("{name:<11}")).dim(),
        Span::raw(value),
    ])
}

fn record_lines(view: &RecordView) -> Vec<Line<'static>> {
    let r: &UrlRecord = &view.record;
    let mut lines = vec![
        field("url", safe(&r.url)),
        Line::from(vec![
            Span::raw(format!("{:<11}", "state")).dim(),
            Span::styled(
                r.state.name().to_string(),
                Style::new().fg(state_color(r.state)).bold(),
            ),
            Span::raw(format!(" — {}", safe(&r.reason))),
        ]),
    ];
    let mut flags = Vec::new();
    for (on, name) in [
        (r.fetch, "fetch"),
        (r.save, "save"),
        (r.follow, "follow"),
        (r.filtered, "filtered"),
    ] {
        if on {
            flags.push(name);
        }
    }
    lines.push(field(
        "verdict",
        format!(
            "{} · queue {} · priority {} · link depth {}",
            if flags.is_empty() {
                "nothing".to_string()
            } else {
                flags.join(" + ")
            },
            safe(&r.queue),
            crate::cli::priority_name(r.priority),
            r.link_depth
        ),
    ));
    if r.status.is_some() || r.content_type.is_some() {
        lines.push(field(
            "http",
            format!(
                "{} · {} · {}",
                r.status.map_or("-".into(), |s| s.to_string()),
                r.content_type.as_deref().map_or("-".into(), safe),
                r.size.map_or("-".into(), |s| format!("{s} bytes"))
            ),
        ));
    }
    if let Some(title) = &r.title {
        lines.push(field("title", safe(title)));
    }
    if let Some(excerpt) = &r.excerpt {
        lines.push(field("excerpt", safe(excerpt)).dim());
    }
    let mut when = format!("discovered {}", clock(r.discovered_ms));
    if let Some(f) = r.fetched_ms {
        when.push_str(&format!(" · fetched {}", clock(f)));
    }
    lines.push(field("when", when));
    if r.etag.is_some() || r.last_modified.is_some() {
        lines.push(field(
            "validators",
            format!(
                "ETag {} · Last-Modified {}",
                r.etag.as_deref().map_or("-".into(), safe),
                r.last_modified.as_deref().map_or("-".into(), safe)
            ),
        ));
    }
    if let Some(e) = &r.error {
        lines.push(
            field(
                "error",
                format!("{} ×{}: {}", e.class.name(), e.count, safe(&e.message)),
            )
            .red(),
        );
    }
    if let Some(robots) = &r.robots {
        lines.push(field("robots", safe(robots)));
    }
    if let Some(to) = &r.redirect_to {
        lines.push(field("redirect", format!("→ {}", safe(to))));
    }
    if let Some(path) = &r.saved_path {
        lines.push(field("saved as", safe(path)));
    }
    for (k, v) in &r.meta {
        lines.push(field("meta", format!("{}={}", safe(k), safe(v))));
    }
    if let Some(s) = &r.source {
        lines.push(field("source", safe(s)));
    }
    if view.chain.is_empty() {
        lines.push(field(
            "referrer",
            "none (a start URL, or found in a sitemap)".into(),
        ));
    }
    for (i, (id, url)) in view.chain.iter().enumerate() {
        let label = if i == 0 { "referrer" } else { "" };
        lines.push(field(
            label,
            format!("{}← #{id} {}", "  ".repeat(i), safe(url)),
        ));
    }
    lines.push(Line::from("trace").bold());
    if r.trace.is_empty() {
        lines.push(Line::from("  (no rule matched: the disposition decided)").dim());
    }
    for t in &r.trace {
        let line = if t.line > 0 {
            format!(" line {}", t.line)
        } else {
            String::new()
        };
        lines.push(Line::from(vec![
            Span::raw(format!("  {:<8}", safe(&t.rule))).cyan(),
            Span::raw(format!("{}{line} ", safe(&t.name))),
            Span::raw(safe(&t.step)).bold(),
            Span::raw(if t.detail.is_empty() {
                String::new()
            } else {
                format!(" — {}", safe(&t.detail))
            }),
        ]));
    }
    lines
}
