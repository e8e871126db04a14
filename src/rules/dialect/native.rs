//! The `native` dialect importer (being written).

use super::Parsed;
use crate::rules::error::LineError;

/// Parses a `native` rule file.
pub fn parse(_text: &str) -> Result<Parsed, LineError> {
    Err(LineError::new(0, "the native importer is not built yet"))
}
