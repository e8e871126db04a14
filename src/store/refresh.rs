//! The one piece of crawl state the log keeps outside the records: when the
//! refresh crawl under way started (SPEC §2.4). A refresh re-queues the
//! URLs fetched before that moment; a refresh resumed after a crash or a
//! stop finds the same moment here, so a URL it already re-fetched (fetched
//! since) or already re-queued (queued, in flight) is not queued twice.

use super::index::{REFRESH_SINCE, parse_id};
use super::{StoreError, UrlLog};

impl UrlLog {
    /// When the refresh under way in this log started, in milliseconds
    /// since the Unix epoch; `None` when no refresh is under way.
    pub fn refresh_since(&self) -> Result<Option<u64>, StoreError> {
        match self.meta.get(REFRESH_SINCE)? {
            None => Ok(None),
            Some(v) => parse_id(&v).map(Some).ok_or_else(|| StoreError::BadEntry {
                tree: "meta",
                key: REFRESH_SINCE.to_vec(),
            }),
        }
    }

    /// Records that a refresh started at `since` is under way (`Some`) or
    /// that none is (`None`), and flushes: the mark must be on disk before
    /// the first URL it re-queues, or a crash could make a resumed refresh
    /// take a later start and re-fetch what was already refreshed.
    pub fn set_refresh_since(&self, since: Option<u64>) -> Result<(), StoreError> {
        match since {
            Some(ms) => self.meta.insert(REFRESH_SINCE, &ms.to_be_bytes())?,
            None => self.meta.remove(REFRESH_SINCE)?,
        };
        self.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refresh_mark_survives_reopening_and_can_be_cleared() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("db");
        {
            let log = UrlLog::open(&path, 1 << 20).expect("open");
            assert_eq!(log.refresh_since().expect("read"), None);
            log.set_refresh_since(Some(1_700_000_000_123))
                .expect("write");
        }
        let log = UrlLog::open(&path, 1 << 20).expect("reopen");
        assert_eq!(log.refresh_since().expect("read"), Some(1_700_000_000_123));
        log.set_refresh_since(None).expect("clear");
        assert_eq!(log.refresh_since().expect("read"), None);
        // A damaged value is an error naming the key, not a panic.
        log.meta
            .insert(REFRESH_SINCE, &[1u8, 2][..])
            .expect("damage");
        assert!(matches!(
            log.refresh_since(),
            Err(StoreError::BadEntry { tree: "meta", .. })
        ));
    }
}
