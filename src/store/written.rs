//! What this process last wrote for its recent records: the state, link
//! depth and URL each record holds on disk, so that an update need not
//! read the old record back inside its transaction.
//!
//! Why it can be trusted: sled lets one process open a log, and in that
//! process every write to `urls` goes through [`super::UrlLog::apply`],
//! which holds the writer lock from before its transaction until after it
//! has noted here what the committed transaction wrote. So an entry is
//! exactly what the record on disk holds. A transaction that fails notes
//! nothing and forgets everything (the log may be unusable then anyway).
//!
//! Bounded: two generations of at most [`GENERATION`] entries each; when
//! the newer fills up, the older is dropped. URLs have no length limit, so
//! a record whose URL is longer than [`MAX_URL_BYTES`] is not noted: the
//! entries stay small whatever the crawl meets. A URL is written three times
//! in a crawl (met, in flight, done) within a short span while its queue
//! is short; an entry that is gone just means the old record is read, as
//! before.

use super::generations::Generations;

use super::record::State;

/// Entries per generation: about 1 MB each with URLs of 60 bytes, enough
/// to cover the URLs in flight and the front of the queues.
const GENERATION: usize = 8192;

/// The longest URL noted: with it, two generations hold at most about
/// 17 MB of URLs however long the URLs met, and 1 KB is far above the
/// URLs a crawl mostly meets (the same `GENERATION` estimate assumes 60).
const MAX_URL_BYTES: usize = 1024;

/// What the stored record of an id holds, as far as an update needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Stored {
    pub(super) state: State,
    pub(super) link_depth: u32,
    pub(super) url: Box<str>,
}

/// The records this process wrote last (see the module docs).
#[derive(Debug)]
pub(super) struct Written(Generations<u64, Stored>);

impl Default for Written {
    fn default() -> Self {
        Written(Generations::new(GENERATION))
    }
}

impl Written {
    /// What record `id` holds on disk, if this process wrote it lately.
    pub(super) fn get(&self, id: u64) -> Option<&Stored> {
        self.0.get(&id)
    }

    /// Notes what a committed transaction wrote to record `id`. A record
    /// with a URL too long to note is forgotten instead, so that no older
    /// note of it outlives the write.
    pub(super) fn note(&mut self, id: u64, stored: Stored) {
        if stored.url.len() > MAX_URL_BYTES {
            self.0.remove(&id);
            return;
        }
        self.0.insert(id, stored);
    }

    /// Forgets everything: after a failed transaction, or in tests that
    /// damage records behind the log's back.
    pub(super) fn clear(&mut self) {
        self.0.clear();
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(state: State, url: &str) -> Stored {
        Stored {
            state,
            link_depth: 1,
            url: url.into(),
        }
    }

    #[test]
    fn the_latest_note_wins_and_old_generations_are_dropped() {
        let mut written = Written::default();
        written.note(1, stored(State::Queued, "http://a/"));
        written.note(1, stored(State::InFlight, "http://a/"));
        assert_eq!(written.get(1).map(|s| s.state), Some(State::InFlight));
        for id in 2..=GENERATION as u64 {
            written.note(id, stored(State::Queued, "http://b/"));
        }
        // The newer generation is full: the next new id starts another,
        // and the older one is still there.
        written.note(1_000_000, stored(State::Fetched, "http://c/"));
        assert_eq!(written.get(1).map(|s| s.state), Some(State::InFlight));
        // An id of the older generation noted again lands in the newer
        // one, where it is found first.
        written.note(1, stored(State::Fetched, "http://a/"));
        assert_eq!(written.get(1).map(|s| s.state), Some(State::Fetched));
        for id in 0..GENERATION as u64 {
            written.note(2_000_000 + id, stored(State::Queued, "http://d/"));
        }
        assert_eq!(written.get(5), None, "two generations back: dropped");
        assert!(written.len() <= 2 * GENERATION);
        written.clear();
        assert_eq!(written.get(1_000_000), None);
    }

    #[test]
    fn urls_too_long_to_note_are_not_kept() {
        let mut written = Written::default();
        let long = format!("http://a/{}", "x".repeat(MAX_URL_BYTES));
        let longest = &long[..MAX_URL_BYTES];
        written.note(1, stored(State::Queued, &long));
        assert_eq!(written.get(1), None);
        assert_eq!(written.len(), 0);
        written.note(2, stored(State::Queued, longest));
        assert_eq!(written.get(2).map(|s| s.url.len()), Some(MAX_URL_BYTES));
        // An older note of a record that cannot be noted again is dropped,
        // rather than left to say what the record no longer holds.
        written.note(3, stored(State::Queued, longest));
        written.note(3, stored(State::Fetched, &long));
        assert_eq!(written.get(3), None);
    }
}
