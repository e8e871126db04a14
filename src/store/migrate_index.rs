//! Opening a log of layout 4 (layouts 1 to 3 pass through 4 first,
//! `migrate.rs`): its URL index, an entry per URL in `by_url`, is rebuilt
//! in layout 5's hash buckets (`url_index.rs`) under a new random key.
//!
//! Crash-safe by order, as `migrate.rs`: `by_url` is only read until the
//! very end, and the log says layout 4 (which an older build still
//! opens) until the buckets are complete and flushed:
//!
//! 1. Clear `url_buckets`: it holds what an interrupted migration left.
//! 2. Read the whole `by_url` as (fingerprint, id) under a new key, sort
//!    it in memory (24 bytes a URL) and write the buckets in key order,
//!    [`FILL`](super::url_index::FILL) entries each, in batches.
//! 3. Flush, then write the hash key and layout 5 in one atomic `meta`
//!    batch, and flush again.
//! 4. Drop `by_url`. A crash before that leaves it behind in a layout 5
//!    log; [`UrlLog::drop_old_url_index`] drops it on the next open.
//!
//! A `by_url` entry whose value is not an id (or an id too large for a
//! bucket entry) is passed over: its URL could not be looked up before
//! either.

use sled::Batch;

use super::index::{BY_URL, LAYOUT, LAYOUT_VERSION, parse_id};
use super::url_index::{self, MAX_ID, URL_HASH_KEY, UrlHash};
use super::{StoreError, UrlLog};

impl UrlLog {
    /// Rebuilds the URL index of a layout 4 log in buckets and makes it a
    /// layout 5 log; see the module docs for the order of the steps.
    pub(super) fn migrate_url_index(&self) -> Result<(), StoreError> {
        self.url_buckets.clear()?;
        let hash = UrlHash::random();
        let by_url = self.db.open_tree(BY_URL)?;
        let mut entries = Vec::with_capacity(by_url.len());
        for entry in by_url.iter() {
            let (url, id) = entry?;
            if let Some(id) = parse_id(&id).filter(|id| *id <= MAX_ID) {
                entries.push((hash.fingerprint(&url), id));
            }
        }
        drop(by_url);
        url_index::build(&self.url_buckets, entries)?;
        self.db.flush()?;
        let mut flip = Batch::default();
        flip.insert(URL_HASH_KEY, &hash.to_bytes()[..]);
        flip.insert(LAYOUT, &[LAYOUT_VERSION]);
        self.meta.apply_batch(flip)?;
        self.db.flush()?;
        self.drop_old_url_index()
    }

    /// Drops the `by_url` of layouts 1 to 4 left by a migration that
    /// stopped after it had written layout 5.
    pub(super) fn drop_old_url_index(&self) -> Result<(), StoreError> {
        if self
            .db
            .tree_names()
            .iter()
            .any(|name| name == BY_URL.as_bytes())
        {
            self.db.drop_tree(BY_URL)?;
        }
        Ok(())
    }
}
