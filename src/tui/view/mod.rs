//! Drawing: reads the [`App`] and paints one frame. Nothing here changes
//! state (STYLE habit 8). Every string a crawled site controls goes through
//! [`safe`] before it reaches the terminal.

mod explain;
mod hang;
mod help;
pub mod layout;
mod log;
mod overlays;
mod queues;
mod rules;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Tabs};

use super::app::{App, Overlay, View};
use crate::cli::escape_control;

pub use explain::explain_scroll_limits;
pub use help::{GLOBAL_KEYS, hint, keys_for, max_scroll as help_max_scroll};
pub use log::{detail_max_scroll as log_detail_max_scroll, why_text};
pub use overlays::{WhatIfAround, whatif_max_scroll};

/// Text from a crawled site (or anywhere outside), made safe to draw:
/// control characters become visible escapes.
pub fn safe(text: &str) -> String {
    escape_control(text)
}

/// The two sides of an input's text around its cursor (`cursor` counts
/// characters, as tui-input's does), each made safe to draw; the view
/// draws the text cursor `▏` between them, where typing goes.
pub fn around_cursor(text: &str, cursor: usize) -> (String, String) {
    let at = text
        .char_indices()
        .nth(cursor)
        .map_or(text.len(), |(i, _)| i);
    let (before, after) = text.split_at_checked(at).unwrap_or((text, ""));
    (safe(before), safe(after))
}

/// The part of an input's text that fits `room` columns, scrolled as
/// tui-input scrolls it to keep the cursor in sight, and the cursor's
/// place in that part (in characters, for [`around_cursor`]). Widths are
/// display columns: a CJK character takes two.
pub fn input_window(input: &tui_input::Input, room: usize) -> (String, usize) {
    let width = |c: char| ratatui::text::Span::raw(c.to_string()).width();
    let scroll = input.visual_scroll(room);
    let mut chars = input.value().chars().peekable();
    let (mut skipped, mut skipped_width) = (0, 0);
    while skipped_width < scroll {
        let Some(c) = chars.next() else { break };
        skipped_width += width(c);
        skipped += 1;
    }
    let mut shown = String::new();
    let mut used = 0;
    while let Some(&c) = chars.peek() {
        if used + width(c) > room {
            break;
        }
        used += width(c);
        shown.push(c);
        chars.next();
    }
    (shown, input.cursor().saturating_sub(skipped))
}

/// An input's text with the text cursor `▏` drawn where typing goes.
pub fn with_cursor(text: &str, cursor: usize) -> String {
    let (before, after) = around_cursor(text, cursor);
    format!("{before}▏{after}")
}

/// Highlight for the selected row.
pub(crate) fn selected_style() -> Style {
    Style::new()
        .bg(Color::Blue)
        .fg(Color::White)
        .add_modifier(Modifier::BOLD)
}

/// Paints the whole screen.
pub fn draw(frame: &mut Frame<'_>, app: &App) {
    let [tabs, body, status] = layout::bands(frame.area());
    draw_tabs(frame, tabs, app);
    match app.view {
        View::Rules => rules::draw(frame, body, app),
        View::Queues => queues::draw(frame, body, app),
        View::Log => log::draw(frame, body, app),
        View::Explain => explain::draw(frame, body, app),
    }
    draw_status(frame, status, app);
    match &app.overlay {
        Overlay::None => {}
        Overlay::Help { scroll } => help::draw(frame, body, app.view, *scroll),
        Overlay::Form(form) => overlays::form(frame, body, form),
        Overlay::WhatIf(report) => {
            overlays::whatif(frame, body, report, &app.whatif_around(), app.whatif_scroll)
        }
        Overlay::Traps { selected } => overlays::traps(frame, body, &app.trap_hints(), *selected),
    }
}

fn draw_tabs(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let titles: Vec<Line<'_>> = View::ALL
        .iter()
        .enumerate()
        .map(|(i, v)| Line::from(format!("{} {}", i + 1, v.title())))
        .collect();
    let selected = View::ALL.iter().position(|v| *v == app.view).unwrap_or(0);
    let tabs = Tabs::new(titles)
        .select(selected)
        .highlight_style(Style::new().reversed().bold())
        .divider("│");
    frame.render_widget(tabs, area);
    let title = format!("crawlspace · {} ", app.title);
    let width = u16::try_from(title.chars().count()).unwrap_or(u16::MAX);
    if u32::from(area.width) > u32::from(width) + 50 {
        let right = Rect::new(area.x + area.width - width, area.y, width, 1);
        frame.render_widget(Paragraph::new(safe(&title)).dim(), right);
    }
}

/// The terminal size the views are laid out for.
const MIN_SIZE: (u16, u16) = (80, 24);

fn draw_status(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let s = &app.crawl.stats;
    let state = if app.crawl.finished && s.log_error.is_some() {
        Span::styled(" STOPPED ", Style::new().bg(Color::Red).fg(Color::Black))
    } else if app.crawl.finished {
        Span::styled(" FINISHED ", Style::new().bg(Color::Green).fg(Color::Black))
    } else if s.paused {
        Span::styled(" PAUSED ", Style::new().bg(Color::Yellow).fg(Color::Black))
    } else {
        Span::styled(" CRAWLING ", Style::new().bg(Color::Cyan).fg(Color::Black))
    };
    let room = usize::from(area.width).saturating_sub(state.width());
    let line = Line::from(vec![state, Span::raw(status_figures(s, room))]);
    let width = usize::from(area.width);
    let message = match &app.message {
        // Cut at the edge with a mark, not silently.
        Some(m) => Line::from(ellipsized(safe(m), width)).yellow(),
        // The views are laid out for 80x24: smaller, they are cut short.
        None if app.size.0 < MIN_SIZE.0 || app.size.1 < MIN_SIZE.1 => Line::from(format!(
            "{}x{} cuts the views short: {}x{} or more shows them whole",
            app.size.0, app.size.1, MIN_SIZE.0, MIN_SIZE.1
        ))
        .yellow(),
        None => Line::from(help::hint(app)).dim(),
    };
    frame.render_widget(Paragraph::new(vec![line, message]), area);
}

/// The status bar's figures in `room` columns. Two spaces between them
/// where they fit, one where they do not (an 80-column terminal); then,
/// so that the counts and the elapsed time stay in sight, the rate goes,
/// then the labels are cut short (`filt 12+80`), then a refresh's counts;
/// only then is the line cut, at its end. No rate while paused:
/// the run's average would stand still, as if pages were still coming.
fn status_figures(s: &crate::crawl::engine::Stats, room: usize) -> String {
    let secs = s.elapsed.as_secs();
    // Each figure whole and cut short.
    let mut counts = vec![
        (
            format!("fetched {}", s.fetched),
            format!("fetch {}", s.fetched),
        ),
        // Pages the mirror could not write ride with `saved`, which the
        // bar never drops: a full disk must not go unseen.
        match s.unsaved {
            0 => (format!("saved {}", s.saved), format!("saved {}", s.saved)),
            n => (
                format!("saved {} ({n} NOT SAVED)", s.saved),
                format!("saved {} ({n} NOT SAVED)", s.saved),
            ),
        },
        (
            format!("filtered {}{}", s.filtered, s.unlogged_note()),
            match s.unlogged {
                0 => format!("filt {}", s.filtered),
                n => format!("filt {}+{n}", s.filtered),
            },
        ),
        (format!("errors {}", s.errors), format!("err {}", s.errors)),
    ];
    // A refresh's pages found gone, or not fetched again (their copies
    // kept): not errors, as the log has them.
    let mut refresh = Vec::new();
    if s.deleted > 0 {
        refresh.push(format!("deleted {}", s.deleted));
    }
    if s.unrefreshed > 0 {
        refresh.push(format!("not refreshed {}", s.unrefreshed));
    }
    counts.push((
        format!("queued {}", s.queued),
        format!("queue {}", s.queued),
    ));
    let rate = (!s.paused).then(|| format!("{:.1}/s", s.rate()));
    let time = format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    let line = |short: bool, with_refresh: bool, with_rate: bool, gap: &str| {
        let mut parts: Vec<&str> = counts
            .iter()
            .map(|(whole, cut)| if short { cut.as_str() } else { whole.as_str() })
            .collect();
        if with_refresh {
            // Before `queued`.
            let at = parts.len() - 1;
            parts.splice(at..at, refresh.iter().map(String::as_str));
        }
        if with_rate && let Some(rate) = &rate {
            parts.push(rate);
        }
        parts.push(&time);
        format!(" {}", parts.join(gap))
    };
    let fitting = [
        line(false, true, true, "  "),
        line(false, true, true, " "),
        line(false, true, false, " "),
        line(true, true, false, " "),
        line(false, false, false, " "),
        line(true, false, false, " "),
    ]
    .into_iter()
    .find(|text| text.chars().count() <= room);
    if let Some(text) = fitting {
        return text;
    }
    // Narrower than any of those (below 80 columns): figures go whole,
    // the least telling first, so that no number shows cut short (`queue 4`
    // for 412).
    let mut parts: Vec<&str> = counts.iter().map(|(_, cut)| cut.as_str()).collect();
    parts.push(&time);
    // Indexes into `parts`: fetch, filt, queue, time, err; saved stays.
    for drop in [0, 2, 4, 5, 3] {
        let kept: Vec<&str> = parts.iter().copied().filter(|p| !p.is_empty()).collect();
        if kept.join(" ").chars().count() < room {
            break;
        }
        parts[drop] = "";
    }
    let kept: Vec<&str> = parts.into_iter().filter(|p| !p.is_empty()).collect();
    let text = format!(" {}", kept.join(" "));
    // Not even `saved` fits: nothing rather than a number cut short.
    if text.chars().count() <= room {
        text
    } else {
        String::new()
    }
}

/// `text` in `width` display columns: whole when it fits, else cut short
/// with `…` as its last column.
fn ellipsized(text: String, width: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    if Span::raw(text.as_str()).width() <= width {
        return text;
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    if width > 0 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{ellipsized, status_figures};
    use crate::crawl::engine::Stats;

    /// At 80 columns the counts and the elapsed time stay whole: the rate
    /// goes first, then the labels are cut short; no rate while paused.
    #[test]
    fn the_status_bar_keeps_the_counts_and_the_time() {
        let mut s = Stats {
            fetched: 13,
            saved: 170,
            filtered: 12,
            unlogged: 80,
            errors: 7,
            queued: 61,
            elapsed: std::time::Duration::from_secs(246),
            ..Stats::default()
        };
        let wide = status_figures(&s, 200);
        assert_eq!(
            wide,
            " fetched 13  saved 170  filtered 12 (+80 not logged)  errors 7  queued 61  0.7/s  00:04:06"
        );
        // 80 columns, less " CRAWLING ".
        let narrow = status_figures(&s, 70);
        assert!(narrow.chars().count() <= 70, "{narrow}");
        assert!(narrow.ends_with(" 00:04:06"), "{narrow}");
        assert_eq!(
            narrow,
            " fetch 13 saved 170 filt 12+80 err 7 queue 61 00:04:06"
        );
        s.fetched = 1_234_567;
        s.saved = 2_345_678;
        s.queued = 9_876_543;
        let cut = status_figures(&s, 70);
        assert_eq!(
            cut,
            " fetch 1234567 saved 2345678 filt 12+80 err 7 queue 9876543 00:04:06"
        );
        // Narrower still: whole figures go, never a number cut short.
        for (room, want) in [
            (60, " saved 2345678 filt 12+80 err 7 queue 9876543 00:04:06"),
            (45, " saved 2345678 err 7 queue 9876543 00:04:06"),
            (35, " saved 2345678 err 7 00:04:06"),
            (20, " saved 2345678 err 7"),
            (14, " saved 2345678"),
            (10, ""),
        ] {
            assert_eq!(status_figures(&s, room), want, "{room} columns");
        }
        s.paused = true;
        assert!(!status_figures(&s, 200).contains("/s"));
    }

    #[test]
    fn a_long_message_ends_in_an_ellipsis_at_the_edge() {
        assert_eq!(ellipsized("short".into(), 10), "short");
        assert_eq!(ellipsized("exactly 10".into(), 10), "exactly 10");
        assert_eq!(ellipsized("one word too many".into(), 10), "one word …");
        // In display columns: a wide character is not split.
        assert_eq!(ellipsized("中中中中中中".into(), 6), "中中…");
        assert_eq!(ellipsized("abc".into(), 0), "");
    }
}
