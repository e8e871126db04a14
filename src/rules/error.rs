//! Errors and notes from reading rule files: every one names the file and,
//! where it has one, the line (ripgrep's `Error::WithLineNumber` habit).

use std::fmt;

/// A problem at one line of a rule file, before the file name is known.
/// Importers return these; [`super::dialect::load`] adds the file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    /// 1-based; 0 when the problem is not tied to a line.
    pub line: usize,
    pub message: String,
}

impl LineError {
    pub fn new(line: usize, message: impl Into<String>) -> LineError {
        LineError {
            line,
            message: message.into(),
        }
    }
}

/// A rule file that cannot be used: unreadable, malformed, or with a value
/// that is not allowed (bad netmask, bad range, unknown field or matcher).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct RuleFileError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

impl RuleFileError {
    pub fn at(file: &str, err: LineError) -> RuleFileError {
        RuleFileError {
            file: file.to_string(),
            line: err.line,
            message: err.message,
        }
    }
}

impl fmt::Display for RuleFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        } else {
            write!(f, "{}: {}", self.file, self.message)
        }
    }
}

/// Something an importer noticed but could carry on past (a setting it does
/// not translate, say). Shown on stderr by the commands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub line: usize,
    pub message: String,
}

/// Line numbers of byte offsets, for importers that ask often: built once
/// in one pass, then each question is a binary search.
#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Offset of the first byte of each line after the first.
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        LineIndex {
            starts: text
                .bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1)
                .collect(),
        }
    }

    /// 1-based line of `offset`.
    pub fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start <= offset) + 1
    }
}

/// 1-based line number of a byte offset in `text`.
pub fn line_of_offset(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_index_agrees_with_counting() {
        let text = "a\nbc\n\nd";
        let index = LineIndex::new(text);
        for offset in 0..=text.len() + 2 {
            assert_eq!(
                index.line(offset),
                line_of_offset(text, offset),
                "offset {offset}"
            );
        }
    }
}
