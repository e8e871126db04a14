//! Wrapping with a hanging indent: a line too long for its pane goes on
//! under its own value column, not under its label, so that the labels of
//! the why pane (`url`, `reason`, `referrer`…) and the keys of the help
//! stay a clean column however long a URL or a reason is.
//!
//! ratatui's `Wrap` starts every continuation at the pane's left edge;
//! here lines are broken before they reach a `Paragraph`, at spaces where
//! there are some and anywhere in a word too long for a row (URLs), in
//! display columns (a CJK character takes two), keeping each span's style.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// The column where a line's value starts: after the first run of two or
/// more spaces that follows its first word (`url        http://…`, a
/// help line `  q   quit`), else after its leading spaces. Continuation
/// rows start there.
pub fn value_column(line: &Line<'_>) -> usize {
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    let lead = text.len() - text.trim_start_matches(' ').len();
    let mut column = lead;
    let mut chars = text[lead..].chars().peekable();
    let mut seen_word = false;
    while let Some(c) = chars.next() {
        if c == ' ' && seen_word && chars.peek() == Some(&' ') {
            column += 1;
            while chars.next_if_eq(&' ').is_some() {
                column += 1;
            }
            return column;
        }
        seen_word |= c != ' ';
        column += c.width().unwrap_or(0);
    }
    lead
}

/// The spaces a line starts with.
fn leading_spaces(line: &Line<'_>) -> usize {
    line.spans
        .iter()
        .flat_map(|s| s.content.chars())
        .take_while(|c| *c == ' ')
        .count()
}

/// `lines` wrapped to `width` columns, each continuation row indented to
/// the line's [`value_column`], or, when that would leave less than half
/// the width for text, to its leading spaces (a trace line whose step
/// column is far right), or not at all.
pub fn hang(lines: Vec<Line<'static>>, width: u16) -> Vec<Line<'static>> {
    hang_with(lines, width, value_column)
}

/// [`hang`] with the value column given by `column_of` (a pane whose
/// labels may fill their column, leaving one space).
pub fn hang_with(
    lines: Vec<Line<'static>>,
    width: u16,
    column_of: impl Fn(&Line<'_>) -> usize,
) -> Vec<Line<'static>> {
    let width = usize::from(width).max(1);
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        if line.width() <= width {
            out.push(line);
            continue;
        }
        let indent = [column_of(&line), leading_spaces(&line)]
            .into_iter()
            .find(|i| *i <= width / 2)
            .unwrap_or(0);
        let cells: Vec<(char, Style)> = line
            .spans
            .iter()
            .flat_map(|s| s.content.chars().map(move |c| (c, s.style)))
            .collect();
        for (n, row) in rows(&cells, width, indent).into_iter().enumerate() {
            let mut spans = Vec::new();
            if n > 0 && indent > 0 {
                spans.push(Span::raw(" ".repeat(indent)));
            }
            spans.extend(runs(row));
            out.push(Line::from(spans).style(line.style));
        }
    }
    out
}

/// Breaks `cells` into rows: the first `width` columns wide, the others
/// `width - indent`. A row ends after its last space when it has one
/// (the spaces at a break are dropped, on both sides), else where the next character
/// would not fit.
fn rows(cells: &[(char, Style)], width: usize, indent: usize) -> Vec<&[(char, Style)]> {
    let mut rows = Vec::new();
    let mut start = 0;
    while start < cells.len() {
        let room = if rows.is_empty() {
            width
        } else {
            width - indent
        };
        let mut used = 0;
        let mut end = start;
        // Just after the last space seen in the row past its first text
        // (a break in the leading spaces would leave the row empty).
        let mut after_space = None;
        let mut text_seen = false;
        while end < cells.len() {
            let w = cells[end].0.width().unwrap_or(0);
            // At least one character a row, so that a character wider
            // than the room still moves on.
            if used + w > room && end > start {
                break;
            }
            used += w;
            if cells[end].0 == ' ' {
                if text_seen {
                    after_space = Some(end + 1);
                }
            } else {
                text_seen = true;
            }
            end += 1;
        }
        // Break at the last space, unless the word after it would not fit
        // a continuation row either: it would be cut anyway, a row later
        // (`saved as` over an empty row, then a path cut in two).
        if end < cells.len()
            && cells[end].0 != ' '
            && let Some(after) = after_space
            && word_width(&cells[after..]) <= width - indent
        {
            end = after;
        }
        let row = &cells[start..end];
        let trimmed = row.len() - row.iter().rev().take_while(|(c, _)| *c == ' ').count();
        rows.push(&row[..trimmed]);
        start = end;
        while start < cells.len() && cells[start].0 == ' ' {
            start += 1;
        }
    }
    rows
}

/// The display columns of the word `cells` start with.
fn word_width(cells: &[(char, Style)]) -> usize {
    cells
        .iter()
        .take_while(|(c, _)| *c != ' ')
        .map(|(c, _)| c.width().unwrap_or(0))
        .sum()
}

/// A row's characters as spans, one per run of the same style.
fn runs(row: &[(char, Style)]) -> Vec<Span<'static>> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut style = None;
    for &(c, s) in row {
        if style.is_some_and(|style| style != s) {
            spans.push(Span::styled(
                std::mem::take(&mut text),
                style.unwrap_or_default(),
            ));
        }
        style = Some(s);
        text.push(c);
    }
    if let Some(style) = style {
        spans.push(Span::styled(text, style));
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Stylize;

    fn texts(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn the_value_column_is_after_the_label_gap() {
        let col = |s: &str| value_column(&Line::from(s.to_string()));
        assert_eq!(col("url        http://h/"), 11);
        assert_eq!(col("  2       staff area line 9 matched"), 10);
        assert_eq!(col("  q  quit"), 5);
        assert_eq!(col("    just indented text"), 4);
        assert_eq!(col("one two"), 0);
        assert_eq!(col("中  value"), 4, "in display columns");
        assert_eq!(col(""), 0);
    }

    #[test]
    fn long_lines_hang_under_their_value_at_spaces() {
        let line = Line::from(vec![
            Span::raw("reason     ").dim(),
            Span::raw("fetched and saved with a rather long explanation"),
        ]);
        let wrapped = hang(vec![line, Line::from("short")], 30);
        assert_eq!(
            texts(&wrapped),
            [
                "reason     fetched and saved",
                "           with a rather long",
                "           explanation",
                "short",
            ]
        );
        assert!(wrapped.iter().all(|l| l.width() <= 30));
        // The label keeps its style; the value its own.
        assert_eq!(wrapped[0].spans[0].content, "reason     ");
        assert_eq!(wrapped[0].spans[0].style, Style::new().dim());
        assert_eq!(wrapped[1].spans[1].style, Style::new());
    }

    #[test]
    fn a_word_no_row_can_hold_goes_on_after_its_label() {
        let path = format!("/tmp/{}/index.html", "m".repeat(40));
        let line = Line::from(format!("saved as   {path}"));
        let rows = texts(&hang(vec![line], 40));
        assert!(
            rows[0].starts_with("saved as   /tmp/"),
            "no empty row: {rows:?}"
        );
        let joined: String = rows.iter().map(|r| r.replace(' ', "")).collect();
        assert_eq!(joined, format!("savedas{path}"));
    }

    #[test]
    fn leading_spaces_are_no_place_to_break() {
        let line = Line::from(format!("    {}", "w".repeat(30)));
        let rows = texts(&hang(vec![line], 20));
        assert!(rows.iter().all(|r| !r.trim().is_empty()), "{rows:?}");
        assert_eq!(rows[0], format!("    {}", "w".repeat(16)));
    }

    #[test]
    fn a_far_value_column_falls_back_to_the_leading_spaces() {
        let line = Line::from(format!(
            "    #1 \"stay here\" (line 2){}matched → filter must-have",
            " ".repeat(20)
        ));
        let rows = texts(&hang(vec![line], 50));
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!(rows[1], "    matched → filter must-have");
    }

    #[test]
    fn a_word_longer_than_a_row_is_cut_and_nothing_is_lost() {
        let url = format!("http://host/{}", "abcdef".repeat(10));
        let line = Line::from(format!("url        {url}"));
        let wrapped = hang(vec![line], 25);
        let rows = texts(&wrapped);
        assert!(rows.iter().all(|r| r.chars().count() <= 25), "{rows:?}");
        assert!(rows[1..].iter().all(|r| r.starts_with(&" ".repeat(11))));
        let joined: String = rows.iter().map(|r| r.replace(' ', "")).collect();
        assert_eq!(joined, format!("url{url}"));
    }

    #[test]
    fn narrow_panes_and_wide_characters_never_loop_or_overflow() {
        for width in 0..12 {
            let wrapped = hang(
                vec![Line::from("label      中中中 中中 x".to_string())],
                width,
            );
            let room = usize::from(width).max(2);
            assert!(
                wrapped.iter().all(|l| l.width() <= room),
                "{width}: {:?}",
                texts(&wrapped)
            );
            let chars: usize = texts(&wrapped)
                .iter()
                .map(|r| r.replace(' ', "").chars().count())
                .sum();
            assert_eq!(chars, "label中中中中中x".chars().count(), "{width}");
        }
    }
}
