//! The Explain view: three inputs (URL, content type, address) and the
//! verdict with its full trace under the edited rules.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use tui_input::Input;

use super::hang::hang;
use super::layout::max_scroll_in;
use super::{around_cursor, input_window, safe};
use crate::tui::app::{App, ExplainFocus};

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let e = &app.explain;
    let [inputs, result] = areas(area);
    let width = usize::from(inputs.width.saturating_sub(20));
    let line = |label: &'static str, input: &Input, focus: ExplainFocus| {
        let active = e.editing && e.focus == focus;
        let (shown, cursor) = input_window(input, width);
        let mut spans = vec![Span::raw(format!("{label:<15}")).bold()];
        if active {
            let (before, after) = around_cursor(&shown, cursor);
            spans.push(Span::raw(before));
            spans.push(Span::raw("▏").style(Style::new().slow_blink()));
            spans.push(Span::raw(after));
        } else {
            spans.push(Span::raw(safe(&shown)));
        }
        let l = Line::from(spans);
        if active { l } else { l.dim() }
    };
    let text = vec![
        line("URL", &e.url, ExplainFocus::Url),
        line("content type", &e.content_type, ExplainFocus::ContentType),
        line("address", &e.address, ExplainFocus::Address),
    ];
    let title = if e.editing {
        " explain under the edited rules · Tab next input · Esc done "
    } else {
        " explain under the edited rules · Enter to type "
    };
    frame.render_widget(
        Paragraph::new(text).block(Block::bordered().title(title)),
        inputs,
    );
    // Built once: its scroll limit and its drawing.
    let verdict = result_paragraph(app, result.width.saturating_sub(2));
    let scroll = e.scroll.min(max_scroll_in(&verdict, result));
    frame.render_widget(verdict.scroll((scroll, 0)), result);
}

/// The inputs, and the verdict under them.
fn areas(area: Rect) -> [Rect; 2] {
    Layout::vertical([Constraint::Length(5), Constraint::Min(3)]).areas(area)
}

/// The verdict and its trace, then what the crawl did with the URL, in
/// `width` columns.
fn result_paragraph(app: &App, width: u16) -> Paragraph<'static> {
    let e = &app.explain;
    let mut lines: Vec<Line<'static>> = e.result.lines().map(|l| Line::from(safe(l))).collect();
    // What the crawl did with it, which the rules alone cannot say.
    if let Some(logged) = e.logged_text() {
        lines.push(Line::default());
        lines.extend(logged.lines().map(|l| Line::from(safe(l)).cyan()));
    }
    // Wrapped, not cut: a rule's name and its step can be longer than a
    // narrow terminal, and the end of the line is the verdict. A trace
    // line goes on under its step, a verdict under its text.
    Paragraph::new(hang(lines, width))
        .wrap(Wrap { trim: false })
        .block(Block::bordered().title(" verdict and trace "))
}

/// How far the verdict pane scrolls (its last row at the bottom), and the
/// rows it shows: a page.
pub fn explain_scroll_limits(app: &App) -> (u16, u16) {
    let [_, body, _] = super::layout::bands(Rect::new(0, 0, app.size.0, app.size.1));
    let [_, result] = areas(body);
    (
        max_scroll_in(
            &result_paragraph(app, result.width.saturating_sub(2)),
            result,
        ),
        result.height.saturating_sub(2).max(1),
    )
}
