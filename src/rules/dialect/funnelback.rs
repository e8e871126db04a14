//! The `funnelback` dialect importer (being written).

use super::Parsed;
use crate::rules::error::LineError;

/// Parses a `funnelback` rule file.
pub fn parse(_text: &str) -> Result<Parsed, LineError> {
    Err(LineError::new(0, "the funnelback importer is not built yet"))
}
