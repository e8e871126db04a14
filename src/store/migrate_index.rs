//! Layout 4 → 6, the URL index: an entry per URL in `by_url` rebuilt in
//! layout 6's hash buckets (`url_index.rs`) under a new random key.
//!
//! It only writes `url_buckets`: the hash key and the layout are written
//! by [`UrlLog::migrate`] in its one flip, once everything of the new
//! layout is built and flushed, and `by_url` dropped after it
//! ([`UrlLog::drop_old_trees`]). A migration cut short leaves `by_url`
//! as it was and starts over on the next open, clearing what it had
//! built (without the key, the buckets could not be found again anyway).
//!
//! The URLs come from `by_url` when it holds any (the index the log
//! answered from); a log without one (its records only: a `layout` key
//! lost) gets them from its records, read through the packs the
//! migration has built just before. A `by_url` entry whose value is not
//! an id (or an id too large for a bucket entry) cannot be filed as it
//! stands; the URLs of the records are then added too (those `by_url`
//! did not name), so that a URL the log holds a record of is never
//! forgotten (rediscovering it would make a second record).
//!
//! Memory: 24 bytes per URL ([`url_index::Entry`]), sorted in place.

use super::index::{BY_URL, parse_id};
use super::url_index::{self, Entry, MAX_ID, UrlHash};
use super::{StoreError, UrlLog};

impl UrlLog {
    /// Builds `url_buckets` from `by_url` (or the records) under a new
    /// key, clearing it first, and returns the key; see the module docs.
    pub(super) fn migrate_url_index(&self) -> Result<UrlHash, StoreError> {
        self.url_buckets.clear()?;
        let hash = UrlHash::random();
        let has_by_url = self
            .db
            .tree_names()
            .iter()
            .any(|name| name == BY_URL.as_bytes());
        let by_url = if has_by_url {
            Some(self.db.open_tree(BY_URL)?)
        } else {
            None
        };
        let entries = match by_url.filter(|tree| !tree.is_empty()) {
            Some(by_url) => {
                // No `len()` to size it: a full scan in sled 0.34.
                let mut entries = Vec::new();
                let mut skipped = false;
                for entry in by_url.iter() {
                    let (url, id) = entry?;
                    match parse_id(&id).filter(|id| *id <= MAX_ID) {
                        Some(id) => entries.push(Entry::new(hash.fingerprint(&url), id)),
                        None => skipped = true,
                    }
                }
                if skipped {
                    entries.sort_unstable();
                    let mut missing = self.fingerprints_of_records(hash, |_| true)?;
                    missing.retain(|e| {
                        entries
                            .binary_search_by_key(&e.fingerprint(), |x| x.fingerprint())
                            .is_err()
                    });
                    entries.append(&mut missing);
                }
                entries
            }
            None => self.fingerprints_of_records(hash, |_| true)?,
        };
        url_index::build(&self.url_buckets, entries)?;
        Ok(hash)
    }
}
