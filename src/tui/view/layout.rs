//! Screen geometry shared by drawing and by `update` (which needs to know
//! how many log rows fit to ask for a page of the right size).

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::Paragraph;

/// Width from which the Log view puts its detail pane beside the list.
pub const WIDE: u16 = 140;

/// The three bands of every screen: tabs, the view, status and message.
pub fn bands(area: Rect) -> [Rect; 3] {
    Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(2),
    ])
    .areas(area)
}

/// The Log view's list and detail areas.
pub fn log_areas(body: Rect) -> [Rect; 2] {
    if body.width >= WIDE {
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(body)
    } else {
        Layout::vertical([Constraint::Percentage(55), Constraint::Percentage(45)]).areas(body)
    }
}

/// Rows of records the Log list shows at this terminal size (inside its
/// border and header).
pub fn log_list_rows(size: (u16, u16)) -> usize {
    let [_, body, _] = bands(Rect::new(0, 0, size.0, size.1));
    let [list, _] = log_areas(body);
    usize::from(list.height.saturating_sub(3))
}

/// How far a bordered pane's text scrolls: its rows as wrapped inside
/// `pane`'s borders (`line_count` wraps at the width it is given and adds
/// the block's top and bottom rows), less the rows `pane` shows.
pub fn max_scroll_in(paragraph: &Paragraph<'_>, pane: Rect) -> u16 {
    let rows = paragraph.line_count(pane.width.saturating_sub(2));
    u16::try_from(rows.saturating_sub(usize::from(pane.height))).unwrap_or(u16::MAX)
}
