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
