//! Keys for single-line text inputs (tui-input), in one place so that every
//! input in the console edits the same way.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tui_input::{Input, InputRequest};

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
        // Alt-1 is not a `1` (nor Alt-x an `x`).
        KeyCode::Char(_) if key.modifiers.contains(KeyModifiers::ALT) => return None,
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

/// Types `text` at the cursor in one edit, as typing it a character at a
/// time would (control characters are not taken, as [`text_request`]
/// drops them), with the cursor after it. One edit, not one per
/// character: each of those copies the whole value, so a long paste cost
/// the square of its length.
pub fn insert_text(input: &mut Input, text: &str) {
    let at = input.cursor();
    let value = input.value();
    // The input's cursor counts characters.
    let byte = value.char_indices().nth(at).map_or(value.len(), |(i, _)| i);
    let typed: String = text.chars().filter(|c| !c.is_control()).collect();
    let cursor = at + typed.chars().count();
    let new = [&value[..byte], &typed, &value[byte..]].concat();
    *input = std::mem::take(input).with_value(new).with_cursor(cursor);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_goes_in_at_the_cursor_in_one_edit() {
        let mut input = Input::new("héllo".into()).with_cursor(2);
        insert_text(&mut input, "中\u{7}x");
        assert_eq!(input.value(), "hé中xllo", "the bell is not taken");
        assert_eq!(input.cursor(), 4, "after the inserted text, in characters");
        insert_text(&mut input, "");
        assert_eq!((input.value(), input.cursor()), ("hé中xllo", 4));
        let mut end = Input::new("ab".into());
        insert_text(&mut end, "c");
        assert_eq!((end.value(), end.cursor()), ("abc", 3));
    }
}
