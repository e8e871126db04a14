//! The rules the log's verdicts were last reached by, kept in `meta` as
//! native TOML. A crawl started on a log whose rules differ from its own
//! (the config was edited between two runs) judges the log's filtered
//! URLs again with both, as a change during the crawl would
//! (`crawl::engine::unfilter`): without this record it could not tell
//! what the earlier rules refused.

use super::index::RULES_SEEN;
use super::{StoreError, UrlLog};

impl UrlLog {
    /// The rules last recorded with [`UrlLog::set_rules_seen`]; `None` for
    /// a log written before this record existed, or never crawled.
    pub fn rules_seen(&self) -> Result<Option<String>, StoreError> {
        match self.meta.get(RULES_SEEN)? {
            None => Ok(None),
            Some(v) => String::from_utf8(v.to_vec())
                .map(Some)
                .map_err(|_| StoreError::BadEntry {
                    tree: "meta",
                    key: RULES_SEEN.to_vec(),
                }),
        }
    }

    /// Records the rules in force, once what was written before (the
    /// URLs they queued again) is on disk: a crash can lose the record,
    /// and then the next run compares with the earlier rules again, which
    /// finds the same URLs already queued, but never keep the record
    /// without those URLs.
    pub fn set_rules_seen(&self, rules: &str) -> Result<(), StoreError> {
        self.flush()?;
        self.meta.insert(RULES_SEEN, rules.as_bytes())?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_seen_survive_reopening_and_a_damaged_value_is_an_error() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("db");
        {
            let log = UrlLog::open(&path, 1 << 20).expect("open");
            assert_eq!(log.rules_seen().expect("read"), None);
            log.set_rules_seen("[[rules]]\nname = \"a\"\n")
                .expect("write");
            log.flush().expect("flush");
        }
        let log = UrlLog::open(&path, 1 << 20).expect("reopen");
        assert_eq!(
            log.rules_seen().expect("read").as_deref(),
            Some("[[rules]]\nname = \"a\"\n")
        );
        log.meta
            .insert(RULES_SEEN, &[0xff, 0xfe][..])
            .expect("damage");
        assert!(matches!(
            log.rules_seen(),
            Err(StoreError::BadEntry { tree: "meta", .. })
        ));
    }
}
