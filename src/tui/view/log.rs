//! The URL log view: a window of records with their id, state, HTTP
//! status, URL and reason, and the selected record in full — every field the log keeps,
//! the referrer chain and the stored trace, layer by layer.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Row, Table, TableState, Wrap};

use super::hang::{hang_with, value_column};
use super::layout::{bands, log_areas, max_scroll_in};
use super::{safe, selected_style, with_cursor};
use crate::store::{State, UrlRecord};
use crate::text::without_password;
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

/// The list's fixed columns (id, state, http), and the gaps between its
/// five columns (ratatui's default spacing of one).
const FIXED_COLUMNS: [u16; 3] = [6, 9, 4];
const COLUMN_GAPS: u16 = 4;

/// The URL column's width in a list `inner` columns wide (inside its
/// border), for URLs at most `longest` characters long: half of what the
/// fixed columns leave, and up to two thirds when the URLs need it (the
/// reason is shorter, and says the same for many rows). Within those
/// bounds, so that the columns move little as the rows change.
fn url_width(inner: u16, longest: usize) -> u16 {
    // In u32: two thirds of a wide terminal's width overflow u16 on the way.
    let fixed: u32 = FIXED_COLUMNS.iter().map(|&w| u32::from(w)).sum();
    let free = u32::from(inner).saturating_sub(fixed + u32::from(COLUMN_GAPS));
    let wanted = u32::try_from(longest).unwrap_or(u32::MAX);
    let width = wanted.clamp(free / 2, free * 2 / 3);
    u16::try_from(width).unwrap_or(u16::MAX)
}

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let [list, detail] = log_areas(area);
    let log = &app.log;
    let urls: Vec<String> = log
        .rows
        .iter()
        .map(|(_, r)| safe(&without_password(&r.url)))
        .collect();
    let longest = urls.iter().map(|u| u.chars().count()).max().unwrap_or(0);
    let url_columns = url_width(list.width.saturating_sub(2), longest);
    let rows: Vec<Row<'_>> = log
        .rows
        .iter()
        .zip(&urls)
        .map(|((id, r), url)| {
            Row::new(vec![
                Span::raw(id.to_string()),
                Span::styled(r.state.name(), Style::new().fg(state_color(r.state))),
                Span::raw(r.status.map(|s| s.to_string()).unwrap_or_default()),
                Span::raw(fit_url(url, usize::from(url_columns))),
                Span::raw(safe(&without_password(&r.reason))).dim(),
            ])
        })
        .collect();
    let follow = if log.follow { " · following" } else { "" };
    let shown = log.rows.len();
    let title = match (log.is_filtered(), log.matching) {
        (false, _) => format!(" {shown} shown of {} URLs · all URLs{follow} ", log.total),
        (true, Some(matching)) => format!(
            " {shown} shown of {matching} · {} · {} URLs in all{follow} ",
            log.filter_text(),
            log.total
        ),
        (true, None) => format!(
            " {shown} shown · {} · {} URLs in all{follow} ",
            log.filter_text(),
            log.total
        ),
    };
    let table = Table::new(
        rows,
        [
            Constraint::Length(FIXED_COLUMNS[0]),
            Constraint::Length(FIXED_COLUMNS[1]),
            Constraint::Length(FIXED_COLUMNS[2]),
            Constraint::Length(url_columns),
            Constraint::Fill(1),
        ],
    )
    .header(
        Row::new(["id", "state", "http", "url", "reason"]).style(Style::new().bold().underlined()),
    )
    .row_highlight_style(selected_style())
    .block(list_block(safe(&title), log.dir.as_deref(), list.width));
    let mut state =
        TableState::default().with_selected((!log.rows.is_empty()).then_some(log.selected));
    frame.render_stateful_widget(table, list, &mut state);

    // Never scrolled past its end, even when the terminal grew or the
    // record shrank since the scroll was set.
    let paragraph = detail_paragraph(app, detail.width.saturating_sub(2));
    let most = max_scroll_in(&paragraph, detail);
    frame.render_widget(paragraph.scroll((log.detail_scroll.min(most), 0)), detail);
}

/// The list's frame, `width` columns wide: its title, and under it the
/// command that lists the log from another terminal, when it fits whole (a
/// command cut short is one a user copies wrong).
fn list_block(title: String, dir: Option<&str>, width: u16) -> Block<'static> {
    let block = Block::bordered().title(title);
    let command = dir.map(|dir| Line::from(format!(" crawlspace log --db {} ", safe(dir))));
    match command {
        // Room for the corners and a stretch of border on the left; in
        // columns, as wide characters take two.
        Some(command) if command.width() + 4 <= usize::from(width) => {
            block.title_bottom(command.dim().right_aligned())
        }
        _ => block,
    }
}

/// How far the detail pane scrolls at the terminal's size (`J`).
pub fn detail_max_scroll(app: &App) -> u16 {
    let [_, body, _] = bands(Rect::new(0, 0, app.size.0, app.size.1));
    let [_, detail] = log_areas(body);
    max_scroll_in(
        &detail_paragraph(app, detail.width.saturating_sub(2)),
        detail,
    )
}

/// The detail pane, `width` columns inside its frame: the text filter
/// being typed, and everything the log holds for the selected URL, its
/// long lines hanging under their values.
fn detail_paragraph(app: &App, width: u16) -> Paragraph<'_> {
    let log = &app.log;
    let mut lines = Vec::new();
    if let Some(input) = &log.filter_input {
        lines.push(Line::from(vec![
            Span::raw("text filter (regex): ").bold(),
            Span::raw(with_cursor(input.value(), input.cursor())),
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
        (Some(view), Some(id)) if view.id == id => {
            // A label fills its column at most, with one space after it
            // (`validators`): its value starts at LABEL whatever follows.
            let column = |line: &Line<'_>| match line.spans.first() {
                Some(span) if !span.content.starts_with(' ') => LABEL,
                _ => value_column(line),
            };
            lines.extend(hang_with(record_lines(view), width, column));
        }
        (_, Some(_)) => match &log.record_error {
            Some(e) => {
                lines.push(Line::from(format!("cannot read this record: {}", safe(e))).red())
            }
            None => lines.push(Line::from("reading…").dim()),
        },
        (_, None) => {
            // A running crawl may still log one; a finished one will not.
            let none = if app.crawl.finished {
                "no URL matches the filters"
            } else {
                "no URL matches the filters yet"
            };
            lines.push(Line::from(none).dim());
        }
    }
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(Block::bordered().title(" why: everything the log holds for this URL "))
}

/// A URL made to fit `width` columns of the list: whole when it fits;
/// otherwise its end, where the URLs of one site differ, kept after its
/// origin (`https://host:port`) when that leaves at least half the width
/// for the rest, else after `…` alone (the whole path when even that
/// would cut into the origin), starting at a `/` when one is near. URLs
/// in the log are ASCII (the url crate percent-encodes and punycodes
/// them), but this counts characters, so any text is cut whole.
fn fit_url(url: &str, width: usize) -> String {
    let chars: Vec<char> = url.chars().collect();
    if chars.len() <= width {
        return url.to_string();
    }
    if width < 2 {
        return chars.iter().take(width).collect();
    }
    // The origin ends at the first `/` after `://`.
    let origin = url.find("://").map(|scheme| scheme + 3).and_then(|host| {
        url[host..]
            .find('/')
            .map(|path| url[..host + path].chars().count())
    });
    let (head, room) = match origin {
        Some(len) if len + 1 + width / 2 <= width => (len, width - len - 1),
        _ => (0, width - 1),
    };
    let mut start = chars.len() - room;
    match origin {
        // A cut inside the origin would show a wrong host (`…27.0.0.1`):
        // the path alone, then.
        Some(len) if start < len => start = len,
        // Start at a path segment rather than in the middle of one, unless
        // that would drop more than a third of the room.
        _ => {
            let near = chars[start..]
                .iter()
                .take(room / 3 + 1)
                .position(|&c| c == '/');
            if let Some(slash) = near {
                start += slash;
            }
        }
    }
    let mut fitted: String = chars[..head].iter().collect();
    fitted.push('…');
    fitted.extend(&chars[start..]);
    fitted
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

/// The why pane's label column: labels, then their values.
const LABEL: usize = 11;

fn field<'a>(name: &'a str, value: String) -> Line<'a> {
    Line::from(vec![
        Span::raw(format!("{name:<LABEL$}")).dim(),
        Span::raw(value),
    ])
}

/// The why pane's text for a record, without its colours: what
/// `crawlspace log --why` prints, line for line as the console shows it.
pub fn why_text(view: &RecordView) -> Vec<String> {
    record_lines(view)
        .into_iter()
        .map(|line| {
            line.spans
                .iter()
                .map(|span| span.content.as_ref())
                .collect()
        })
        .collect()
}

fn record_lines(view: &RecordView) -> Vec<Line<'static>> {
    let r: &UrlRecord = &view.record;
    let mut lines = vec![
        field("url", safe(&without_password(&r.url))),
        Line::from(vec![
            Span::raw(format!("{:<11}", "state")).dim(),
            Span::styled(
                r.state.name().to_string(),
                Style::new().fg(state_color(r.state)).bold(),
            ),
            Span::raw(format!(" — {}", safe(&without_password(&r.reason)))),
        ]),
    ];
    let flags: Vec<&str> = [(r.fetch, "fetch"), (r.save, "save"), (r.follow, "follow")]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
    // A filtered URL with flags on was filtered after the rules let it
    // through (robots.txt, a depth limit, rel=nofollow): "save + follow +
    // filtered" read as a contradiction.
    let verdict = match (r.filtered, flags.is_empty()) {
        (true, true) => "filtered".to_string(),
        (true, false) => format!("filtered (the rules alone: {})", flags.join(" + ")),
        (false, true) => "nothing".to_string(),
        (false, false) => flags.join(" + "),
    };
    lines.push(field(
        "verdict",
        format!(
            "{verdict} · queue {} · priority {} · link depth {}",
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
                format!(
                    "{} ×{}: {}",
                    e.class.name(),
                    e.count,
                    safe(&without_password(&e.message))
                ),
            )
            .red(),
        );
    }
    if let Some(address) = r.address {
        lines.push(field("address", address.to_string()));
    }
    if let Some(robots) = &r.robots {
        lines.push(field("robots", safe(robots)));
    }
    if let Some(to) = &r.redirect_to {
        lines.push(field(
            "redirect",
            format!("→ {}", safe(&without_password(to))),
        ));
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
            "none (a start URL, or found in a sitemap or robots.txt)".into(),
        ));
    }
    // Nearest first, each the referrer of the one above: one column, so
    // that a deep chain (a calendar trap is dozens of hops) does not push
    // its URLs off a narrow pane.
    for (i, (id, url)) in view.chain.iter().enumerate() {
        let label = if i == 0 { "referrer" } else { "" };
        lines.push(field(
            label,
            format!("← #{id} {}", safe(&without_password(url))),
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
        // A layer's id is its name ("live-rules"): said once, and an id
        // as long as its column still gets a space after it.
        let id = safe(&t.rule);
        let id = if id.chars().count() >= 8 {
            format!("  {id} ")
        } else {
            format!("  {id:<8}")
        };
        let name = if t.name == t.rule {
            String::new()
        } else {
            safe(&t.name)
        };
        // A layer named by its id alone has nothing between the id and
        // the step: no space either, or its step starts a column late.
        let named = format!("{name}{line}");
        let named = if named.is_empty() {
            named
        } else {
            format!("{named} ")
        };
        lines.push(Line::from(vec![
            Span::raw(id).cyan(),
            Span::raw(named),
            Span::raw(safe(&t.step)).bold(),
            // A detail may name a URL (a sitemap's, a linking page's).
            Span::raw(if t.detail.is_empty() {
                String::new()
            } else {
                format!(" — {}", safe(&without_password(&t.detail)))
            }),
        ]));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::{fit_url, url_width};

    #[test]
    fn a_url_that_fits_is_shown_whole() {
        let url = "http://127.0.0.1:8080/docs/";
        assert_eq!(fit_url(url, url.len()), url);
        assert_eq!(fit_url(url, 80), url);
    }

    #[test]
    fn a_long_url_keeps_its_origin_and_the_end_of_its_path() {
        let url = "https://example.com/blog/archive/2022/04/the-last-setting-wins.html";
        let fitted = fit_url(url, 50);
        assert_eq!(fitted, "https://example.com…/04/the-last-setting-wins.html");
        assert!(fitted.chars().count() <= 50);
    }

    #[test]
    fn a_long_origin_gives_way_to_the_path() {
        // The demo's URLs in an 80-column terminal: 27 columns, of which
        // the origin alone would take 22.
        let url = "http://127.0.0.1:38153/blog/archive/2022/04/";
        let fitted = fit_url(url, 27);
        assert_eq!(fitted, "…/blog/archive/2022/04/");
        assert!(fitted.chars().count() <= 27);
        // Never a piece of the host: it would name another one.
        let url = "http://127.0.0.1:8080/docs/install.html";
        assert_eq!(fit_url(url, 36), "…/docs/install.html");
    }

    #[test]
    fn a_cut_starts_at_a_segment_only_when_one_is_near() {
        // No `/` in the first third of the room: cut mid-segment.
        let url = "http://h/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
        assert_eq!(fit_url(url, 20), format!("http://h…{}", "a".repeat(11)));
        // One near: the cut starts there.
        let url = "http://h/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/bbbbbbbbb";
        assert_eq!(fit_url(url, 20), "http://h…/bbbbbbbbb");
    }

    #[test]
    fn any_width_and_any_text_give_at_most_that_many_characters() {
        for url in [
            "",
            "no scheme at all, just a long piece of text",
            "http://host-without-path.example",
            "http://h/é/ü/ñ/ça/va/très/bien",
            "http://h/\\u{1b}[2J/escaped",
        ] {
            for width in 0..60 {
                let fitted = fit_url(url, width);
                assert!(fitted.chars().count() <= width, "{url:?} at {width}");
            }
        }
    }

    #[test]
    fn the_url_column_takes_half_to_two_thirds_of_what_the_fixed_columns_leave() {
        // 116 - 19 - 4 = 93 columns for the URL and the reason.
        assert_eq!(url_width(116, 20), 46);
        assert_eq!(url_width(116, 50), 50);
        assert_eq!(url_width(116, 500), 62);
        assert_eq!(url_width(10, 50), 0);
        // The widest terminal: two thirds of it no longer overflow.
        assert_eq!(url_width(u16::MAX, 10), (u16::MAX - 23) / 2);
        assert_eq!(url_width(u16::MAX, usize::MAX), (u16::MAX - 23) / 3 * 2);
    }

    /// A URL filtered after the rules let it through (robots.txt, say)
    /// keeps the rules' flags: said as what the rules alone would do, not
    /// as "save + follow + filtered".
    #[test]
    fn a_url_filtered_past_the_rules_says_what_the_rules_alone_would_do() {
        let verdict = |record: crate::store::UrlRecord| {
            let view = crate::tui::log_reader::RecordView {
                id: 1,
                record,
                chain: Vec::new(),
            };
            super::why_text(&view)
                .into_iter()
                .find(|l| l.starts_with("verdict"))
                .expect("a verdict line")
        };
        let refused = crate::store::UrlRecord {
            url: "http://h/tmp/x".into(),
            save: true,
            follow: true,
            filtered: true,
            queue: "none".into(),
            ..Default::default()
        };
        assert!(
            verdict(refused.clone())
                .contains("filtered (the rules alone: save + follow) · queue none"),
            "{}",
            verdict(refused)
        );
        let by_rule = crate::store::UrlRecord {
            url: "http://h/x".into(),
            filtered: true,
            queue: "none".into(),
            ..Default::default()
        };
        assert!(verdict(by_rule).contains("verdict    filtered · queue none"));
        let fetched = crate::store::UrlRecord {
            url: "http://h/y".into(),
            fetch: true,
            follow: true,
            queue: "follow".into(),
            ..Default::default()
        };
        assert!(verdict(fetched).contains("fetch + follow · queue follow"));
    }
}
