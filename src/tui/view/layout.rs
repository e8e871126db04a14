//! Screen geometry shared by drawing and by `update` (which needs to know
//! how many log rows fit to ask for a page of the right size).

use ratatui::layout::{Constraint, Layout, Rect};

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
