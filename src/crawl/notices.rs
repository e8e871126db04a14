//! What the crawl has to tell its user beside its counts: a damaged
//! record skipped, a refresh that could not go past one, rules not
//! recorded after a failed write, a fetch task that panicked.
//!
//! Printed on stderr at once, these landed on the console's screen,
//! where ratatui does not know of them: the text stayed over the views
//! until the cells under it changed, and was lost when the console
//! closed. So a crawl with a display holds them here instead: the
//! headless progress line prints each above itself, and the console
//! shows the newest on its message line and prints them all once the
//! terminal is restored. Without a display (tests, benchmarks, the
//! library) they go to stderr as they come.

use std::io::Write as _;
use std::sync::Mutex;

/// How many are kept for a display; past that they are counted, so that
/// a log damaged throughout cannot fill memory with one line per record.
const KEPT: usize = 1_000;

/// The crawl's notices, shared by the engine and whatever shows them.
#[derive(Debug)]
pub struct Notices {
    /// Held for a display ([`Notices::held`]), or printed at once.
    held: bool,
    inner: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    lines: Vec<String>,
    /// Notices past [`KEPT`], not kept.
    more: u64,
}

impl Notices {
    /// Each notice printed on stderr as it comes (`crawlspace: …`).
    pub fn to_stderr() -> Notices {
        Notices {
            held: false,
            inner: Mutex::default(),
        }
    }

    /// Notices kept for a display, read with [`Notices::take_new`].
    pub fn held() -> Notices {
        Notices {
            held: true,
            inner: Mutex::default(),
        }
    }

    /// Tells the user `text`, printed as `crawlspace: {text}`.
    pub fn push(&self, text: &str) {
        self.push_line(format!("crawlspace: {text}"));
    }

    /// Tells the user `line`, printed as it is (a `warning: file:line:`
    /// line, say).
    pub fn push_line(&self, line: String) {
        if !self.held {
            // Not `eprintln!`, which panics once stderr is gone.
            let _ = writeln!(std::io::stderr(), "{line}");
            return;
        }
        let mut kept = self.lock();
        if kept.lines.len() < KEPT {
            kept.lines.push(line);
        } else {
            kept.more += 1;
        }
    }

    /// The lines after the first `*seen`, which then counts them too.
    pub fn take_new(&self, seen: &mut usize) -> Vec<String> {
        let kept = self.lock();
        let new = kept.lines.get(*seen..).unwrap_or_default().to_vec();
        *seen = kept.lines.len();
        new
    }

    /// How many notices came past the kept ones, said as a line when
    /// there were any.
    pub fn more_line(&self) -> Option<String> {
        let more = self.lock().more;
        let noun = if more == 1 { "notice" } else { "notices" };
        (more > 0).then(|| {
            format!("crawlspace: {more} more {noun} not shown (the first {KEPT} are above)")
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        // A push cannot panic midway, so a poisoned lock still holds
        // whole notices.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_display_takes_each_notice_once_in_order() {
        let notices = Notices::held();
        let mut seen = 0;
        assert!(notices.take_new(&mut seen).is_empty());
        notices.push("one");
        notices.push("two");
        assert_eq!(
            notices.take_new(&mut seen),
            ["crawlspace: one", "crawlspace: two"]
        );
        assert!(notices.take_new(&mut seen).is_empty());
        notices.push("three");
        assert_eq!(notices.take_new(&mut seen), ["crawlspace: three"]);
        // Read again from the start, as once a console has closed.
        assert_eq!(
            notices.take_new(&mut 0),
            ["crawlspace: one", "crawlspace: two", "crawlspace: three"]
        );
        assert_eq!(notices.more_line(), None);
    }

    #[test]
    fn past_the_kept_ones_notices_are_counted() {
        let notices = Notices::held();
        for n in 0..KEPT + 5 {
            notices.push(&format!("record {n} is damaged"));
        }
        let mut seen = 0;
        assert_eq!(notices.take_new(&mut seen).len(), KEPT);
        assert!(notices.take_new(&mut seen).is_empty());
        assert_eq!(
            notices.more_line().as_deref(),
            Some("crawlspace: 5 more notices not shown (the first 1000 are above)")
        );
    }
}
