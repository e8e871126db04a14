//! Keys for single-line text inputs (tui-input), in one place so that every
//! input in the console edits the same way.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tui_input::InputRequest;

/// The edit a key asks of a text input, if any.
pub fn text_request(key: KeyEvent) -> Option<InputRequest> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    Some(match key.code {
        KeyCode::Char('a') if ctrl => InputRequest::GoToStart,
        KeyCode::Char('e') if ctrl => InputRequest::GoToEnd,
        KeyCode::Char('u') if ctrl => InputRequest::DeleteLine,
        KeyCode::Char('w') if ctrl => InputRequest::DeletePrevWord,
        KeyCode::Char('k') if ctrl => InputRequest::DeleteTillEnd,
        KeyCode::Char(_) if ctrl => return None,
        // A control character typed (or pasted) would end up in a pattern
        // or a name, invisible; it is not taken.
        KeyCode::Char(c) if c.is_control() => return None,
        KeyCode::Char(c) => InputRequest::InsertChar(c),
        KeyCode::Backspace => InputRequest::DeletePrevChar,
        KeyCode::Delete => InputRequest::DeleteNextChar,
        KeyCode::Left => InputRequest::GoToPrevChar,
        KeyCode::Right => InputRequest::GoToNextChar,
        KeyCode::Home => InputRequest::GoToStart,
        KeyCode::End => InputRequest::GoToEnd,
        _ => return None,
    })
}
