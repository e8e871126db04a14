//! Layout 4 → 6, the records: the records of `urls` (an entry per
//! record) packed eight to an entry in `record_packs` (`packs.rs`).
//! Layouts 1 to 3 go through it too, first, since the rest of their
//! migration reads the records through the packs.
//!
//! A log whose `record_packs` holds records and whose `urls` is gone or
//! empty is refused, not migrated: clearing the packs would lose its
//! only records.
//!
//! It only writes the new tree: the layout key is written and `urls`
//! dropped by [`UrlLog::migrate`] once everything of the new layout is
//! built and flushed, so a migration cut short leaves `urls` as it was
//! and starts over on the next open, clearing what it had packed.
//!
//! A record's bytes are carried over as they are, damaged or not: a
//! damaged record stays a damaged record in its slot (the same error
//! when read), not lost. Keys that are not ids (damage) are passed
//! over: no read could list them before either.

use sled::{Batch, IVec};

use super::index::{OLD_URLS, parse_id};
use super::packs::{PACK_IDS, RECORD_PACKS, encode, pack_key, pack_of, slot_of};
use super::{StoreError, UrlLog};

/// Packs written per batch.
const PACK_BATCH: usize = 1_024;

/// One pack being filled: its number and the records of its slots.
type Filling = (u64, [Option<IVec>; PACK_IDS as usize]);

impl UrlLog {
    /// Builds `record_packs` from `urls`, clearing it first; see the
    /// module docs.
    pub(super) fn migrate_record_packs(&self) -> Result<(), StoreError> {
        let has_urls = self
            .db
            .tree_names()
            .iter()
            .any(|name| name == OLD_URLS.as_bytes());
        // Packs with no `urls` to rebuild them from are this log's only
        // records (a layout 6 log that lost its `layout` key and kept a
        // `by_url`, say): clearing them would lose every record.
        if !self.packs.is_empty() && (!has_urls || self.db.open_tree(OLD_URLS)?.is_empty()) {
            return Err(StoreError::Open {
                path: self.dir.clone(),
                message: format!(
                    "a migration would rebuild `{RECORD_PACKS}` from `{OLD_URLS}`, but \
                     `{OLD_URLS}` is gone or empty and `{RECORD_PACKS}` holds records: \
                     not clearing them (the log's trees disagree with its layout)"
                ),
            });
        }
        self.packs.clear()?;
        let urls = self.db.open_tree(OLD_URLS)?;
        let mut batch = Batch::default();
        let mut in_batch = 0;
        let mut current: Option<Filling> = None;
        // Keys of ids come in id order, so a pack is complete when an id
        // of the next one comes.
        for entry in urls.iter() {
            let (key, value) = entry?;
            let Some(id) = parse_id(&key) else {
                continue;
            };
            let pack = pack_of(id);
            if current.as_ref().is_some_and(|(p, _)| *p != pack)
                && let Some(done) = current.take()
            {
                add(&mut batch, done);
                in_batch += 1;
                if in_batch >= PACK_BATCH {
                    self.packs.apply_batch(std::mem::take(&mut batch))?;
                    in_batch = 0;
                }
            }
            current.get_or_insert_with(|| (pack, Default::default())).1[slot_of(id)] = Some(value);
        }
        if let Some(done) = current.take() {
            add(&mut batch, done);
        }
        self.packs.apply_batch(batch)?;
        Ok(())
    }
}

fn add(batch: &mut Batch, (pack, slots): Filling) {
    let value = encode(slots.iter().map(Option::as_deref));
    batch.insert(&pack_key(pack), value);
}
