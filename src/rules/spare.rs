//! Scratch memory lent to evaluations that have none of their own.
//!
//! A [`Scratch`] is sized for its rule list: a word per node twice, a bit
//! per atom, and a regex cache per multi-pattern regex. Making one takes
//! about 10 µs at 1,000 rules and 69 µs at 10,000, more than an evaluation,
//! and its regex caches start cold. The crawler's fetch tasks come and go
//! with every URL and evaluate it once or twice (when the address and when
//! the content type is known), so each kept a fresh one per evaluation;
//! they now borrow one kept with the rules and give it back when done.

use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, PoisonError};

use super::compile::CompiledRules;
use super::eval::Scratch;

/// Spares kept at most: one per fetch in flight is enough (the crawler's
/// concurrency is usually far lower); beyond it, a returned scratch is
/// dropped, so a burst does not hold its memory for good.
const MAX_SPARES: usize = 64;

/// The scratches returned by finished evaluations, for the next ones.
#[derive(Default)]
pub(crate) struct Spares(Mutex<Vec<Scratch>>);

impl std::fmt::Debug for Spares {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Spares({})", self.count())
    }
}

impl Spares {
    fn take(&self) -> Option<Scratch> {
        // A panic elsewhere while the lock was held leaves a plain vector
        // of scratches, each whole: still fine to lend.
        self.0.lock().unwrap_or_else(PoisonError::into_inner).pop()
    }

    fn give_back(&self, scratch: Scratch) {
        let mut spares = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if spares.len() < MAX_SPARES {
            spares.push(scratch);
        }
    }

    /// Scratches waiting to be lent.
    pub(crate) fn count(&self) -> usize {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}

/// A scratch borrowed from its rules, returned when dropped. Use it as a
/// `&mut Scratch`.
#[derive(Debug)]
pub struct LentScratch<'a> {
    rules: &'a CompiledRules,
    scratch: Option<Scratch>,
}

impl CompiledRules {
    /// A scratch for these rules: a spare one when there is one (warm regex
    /// caches, no allocation), else a new one. For code that evaluates a
    /// URL or two and ends; a loop over many URLs keeps its own
    /// [`CompiledRules::scratch`].
    pub fn lend_scratch(&self) -> LentScratch<'_> {
        let scratch = self.spares.take().unwrap_or_else(|| self.scratch());
        LentScratch {
            rules: self,
            scratch: Some(scratch),
        }
    }
}

impl Deref for LentScratch<'_> {
    type Target = Scratch;

    fn deref(&self) -> &Scratch {
        // Present from `lend_scratch` until `drop` takes it.
        self.scratch.as_ref().expect("a lent scratch")
    }
}

impl DerefMut for LentScratch<'_> {
    fn deref_mut(&mut self) -> &mut Scratch {
        self.scratch.as_mut().expect("a lent scratch")
    }
}

impl Drop for LentScratch<'_> {
    fn drop(&mut self) {
        if let Some(scratch) = self.scratch.take() {
            self.rules.spares.give_back(scratch);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::dialect::{Dialect, DialectChoice, parse_text};
    use crate::rules::{Known, TraceMode, UrlFacts};
    use url::Url;

    fn rules(text: &str) -> CompiledRules {
        let parsed =
            parse_text("t.toml", text, DialectChoice::Given(Dialect::Native)).expect("rules parse");
        CompiledRules::new(&parsed.parsed.rules)
    }

    const RULES: &str = r#"
[[rules]]
name = "pdf"
match = { field = "path", regex = '\.pdf$' }
action = "exclude"

[[rules]]
name = "docs"
match = { field = "path", prefix = "/docs/" }
action = "download"
"#;

    #[test]
    fn a_returned_scratch_is_lent_again() {
        let rules = rules(RULES);
        assert_eq!(rules.spares.count(), 0);
        let first = rules.lend_scratch();
        let second = rules.lend_scratch();
        assert_eq!(rules.spares.count(), 0, "both lent, none spare");
        drop(first);
        drop(second);
        assert_eq!(rules.spares.count(), 2);
        let _again = rules.lend_scratch();
        assert_eq!(rules.spares.count(), 1, "taken from the spares");
    }

    #[test]
    fn spares_are_capped() {
        let rules = rules(RULES);
        let lent: Vec<_> = (0..MAX_SPARES + 5).map(|_| rules.lend_scratch()).collect();
        drop(lent);
        assert_eq!(rules.spares.count(), MAX_SPARES);
    }

    #[test]
    fn a_lent_scratch_gives_the_verdicts_of_a_fresh_one() {
        let rules = rules(RULES);
        let known = Known::default();
        for text in [
            "http://a.example/docs/x.pdf",
            "http://a.example/docs/",
            "http://a.example/other",
            "http://a.example/y.pdf",
        ] {
            let url = Url::parse(text).expect("url");
            let facts = UrlFacts::new(&url, &known);
            let fresh = rules.evaluate(&facts, &mut rules.scratch(), TraceMode::Full);
            // Lent twice over: the second time it comes back used.
            for _ in 0..2 {
                let lent = rules.evaluate(&facts, &mut rules.lend_scratch(), TraceMode::Full);
                assert_eq!(lent, fresh, "{text}");
            }
        }
    }
}
