//! The rule engine: model, dialects, compilation, evaluation, trace, lint.
//!
//! Pure library code with no I/O beyond reading a rules file in
//! [`dialect::load`]. The flow is: a dialect importer builds a
//! [`model::RuleSet`]; [`compile::CompiledRules`] turns it into per-field
//! matchers (hash sets, Aho-Corasick, bounded `RegexSet`s) once; evaluation
//! then costs one pass per field plus the rules whose atoms matched, and
//! returns a [`verdict::Verdict`] whose trace says which rule did what.

pub mod compile;
pub mod dialect;
pub mod error;
pub mod eval;
pub mod facts;
#[cfg(test)]
pub(crate) mod fuzz;
pub mod health;
pub(crate) mod index;
pub mod lint;
pub mod model;
pub mod spare;
pub mod synth;
pub mod verdict;

pub use compile::{CompiledRules, RuleInfo};
pub use eval::{Scratch, TraceMode};
pub use facts::{Known, UrlError, UrlFacts, normalize};
pub use spare::LentScratch;
pub use verdict::{Queue, Step, TraceEntry, Verdict};

/// Characters that draw nothing yet change how the text around them
/// shows: bidirectional overrides, embeddings, isolates and marks (a title
/// `\u{202e}gnp.exe` shows as `exe.png`), zero-width spaces and joiners,
/// the line and paragraph separators, the byte-order mark, and the tag
/// characters that can hide text. What prints rules or crawled text for
/// people escapes them (the native writer, the command line, the console).
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{061c}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{e0000}'..='\u{e007f}'
    )
}
