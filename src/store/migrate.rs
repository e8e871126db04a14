//! Opening a log of layout 1 to 4: everything of layout 6 is built
//! beside the old trees, then the log says 6 in one write. Its records
//! are packed eight to an entry (`migrate_packs.rs`, first, since
//! everything after reads the records through the packs); for layouts 1
//! to 3 its state index and frontier (an entry per URL, in `by_state` and
//! `frontier`) are rebuilt as bitmaps per block in layout 4's trees
//! (`index.rs`), its counters packed, and for layout 1 its briefs built
//! from the records; its URL index, an entry per URL in `by_url`, is
//! rebuilt in hash buckets under a new key (`migrate_index.rs`).
//!
//! Crash-safe by order. The old trees are only read until the very end,
//! and the log stays in its old layout (which an older build still opens)
//! until everything new is complete and flushed:
//!
//! 1. Clear the new trees: they hold what an interrupted migration left.
//! 2. Build them from the old ones, in batches.
//! 3. Flush, then write the packed counters and the layout in one atomic
//!    `meta` batch, and flush again.
//! 4. Drop the old trees. A crash before that leaves them behind in a
//!    log of this layout; [`UrlLog::drop_old_trees`] drops them on the
//!    next open.
//!
//! A damaged entry in an old tree is passed over: it could not be listed
//! before either, and one bad key must not keep the log from opening.

use sled::transaction::{ConflictableTransactionError, TransactionError};
use sled::{Batch, Transactional, Tree};

use super::bitmap::{Bitmap, block_of};
use super::briefs::{self, BriefWrites};
use super::counters::{COUNTERS, Counters};
use super::index::{
    BY_URL, FRONTIER_LEN, LAYOUT, LAYOUT_BITMAPS, LAYOUT_VERSION, LAYOUT_WITHOUT_BRIEFS, NEXT_ID,
    OLD_BY_STATE, OLD_FRONTIER, OLD_URLS, count_key, frontier_key, parse_frontier_key, parse_id,
    parse_state_key, state_key,
};
use super::record::{State, UrlRecord};
use super::url_index::{MAX_ID, URL_HASH_KEY, UrlHash};
use super::{StoreError, UrlLog};

/// Blocks written per batch while building a new tree.
const BLOCK_BATCH: usize = 256;

/// Records whose briefs are built per transaction (layout 1).
const BRIEF_BATCH: usize = 1_000;

impl UrlLog {
    /// Rebuilds a log of layout `from` (1 to 4) in this layout; see the
    /// module docs for why each step is where it is. There is one flip,
    /// after everything new is built and flushed: a crash anywhere before
    /// it leaves the old log as it was (the next open starts over from
    /// its trees), and anywhere after it a log of this layout.
    pub(super) fn migrate(&self, from: u8) -> Result<(), StoreError> {
        let hash = self.build_new_trees(from)?;
        self.flip_layout(hash)?;
        self.drop_old_trees()
    }

    /// Steps 1 and 2 for every new tree: the records packed first, since
    /// everything after reads them through the packs; the key of the new
    /// URL index, not written yet.
    pub(super) fn build_new_trees(&self, from: u8) -> Result<UrlHash, StoreError> {
        self.migrate_record_packs()?;
        if from < LAYOUT_BITMAPS {
            self.migrate_indexes(from)?;
        }
        self.migrate_url_index()
    }

    /// Step 3, the one flip: the counters, the URL index's key `hash` and
    /// layout 6 in one atomic `meta` batch, between two flushes.
    pub(super) fn flip_layout(&self, hash: UrlHash) -> Result<(), StoreError> {
        // The counters from what was just built: the old ones, a key each
        // in layouts 1 and 2, are not trusted further than the open check
        // trusts them. The next id is the one the log stored when that
        // reads and is higher: ids it gave out to records since lost must
        // not be given out again.
        // Records past the URL index's limit: refused (`UrlLog::checked`).
        let after_last = self.id_after_last()?;
        if after_last > MAX_ID + 1 {
            return Err(self.past_max_id(after_last));
        }
        let counters = Counters::rebuilt(
            after_last.max(self.stored_next_id()?),
            self.count_frontier()?,
            self.recount()?,
        );
        self.db.flush()?;
        let mut flip = Batch::default();
        flip.insert(COUNTERS, &counters.pack()[..]);
        flip.insert(URL_HASH_KEY, &hash.to_bytes()[..]);
        flip.insert(LAYOUT, &[LAYOUT_VERSION]);
        for key in [NEXT_ID, FRONTIER_LEN] {
            flip.remove(key);
        }
        for state in State::ALL {
            flip.remove(count_key(state));
        }
        self.meta.apply_batch(flip)?;
        self.db.flush()?;
        Ok(())
    }

    /// The next id an old layout stored (a key of its own in layouts 1
    /// and 2, packed with the counters in 3), or 0 when none reads. One
    /// past the URL index's limit ([`MAX_ID`]) is damage, as on open
    /// (`UrlLog::checked`), and does not read.
    fn stored_next_id(&self) -> Result<u64, StoreError> {
        let usable = |id: &u64| *id <= MAX_ID + 1;
        let separate = self
            .meta
            .get(NEXT_ID)?
            .and_then(|v| parse_id(&v))
            .filter(usable);
        let packed = self
            .meta
            .get(COUNTERS)?
            .and_then(|v| Counters::unpack(&v))
            .map(|c| c.next_id)
            .filter(usable);
        Ok(separate.max(packed).unwrap_or(0))
    }

    /// The state index, frontier and (layout 1) briefs of layouts 1 to 3.
    /// Refused when the log has no `by_state`: opening it would create it
    /// empty and leave the log with an empty state index (a log of these
    /// layouts always has one; one without is more likely of this layout,
    /// its layout key lost, and its old trees partly dropped).
    fn migrate_indexes(&self, from: u8) -> Result<(), StoreError> {
        if !self
            .db
            .tree_names()
            .iter()
            .any(|name| name == OLD_BY_STATE.as_bytes())
        {
            return Err(StoreError::Open {
                path: self.dir.clone(),
                message: format!(
                    "migrating from key layout {from}, but the log has no `{OLD_BY_STATE}` \
                     tree (its state index); not rebuilding it empty"
                ),
            });
        }
        self.by_state.clear()?;
        self.frontier.clear()?;
        if from == LAYOUT_WITHOUT_BRIEFS {
            // Nothing of layout 1 writes `briefs`: whatever is there is
            // an interrupted migration's.
            self.briefs.clear()?;
            self.meta.remove(briefs::LAST_RUN)?;
            self.meta.remove(briefs::CONTENT_TYPES)?;
        }
        let old_by_state = self.db.open_tree(OLD_BY_STATE)?;
        let old_frontier = self.db.open_tree(OLD_FRONTIER)?;
        build_blocks(&old_by_state, &self.by_state, |key| {
            let (state, id) = parse_state_key(key)?;
            Some((state_key(state, block_of(id)).to_vec(), id))
        })?;
        build_blocks(&old_frontier, &self.frontier, |key| {
            let (level, queue, id) = parse_frontier_key(key)?;
            Some((frontier_key(level, queue, block_of(id)).to_vec(), id))
        })?;
        if from == LAYOUT_WITHOUT_BRIEFS {
            self.build_briefs()?;
        }
        Ok(())
    }

    /// Drops the trees of older layouts left by a migration that
    /// stopped after it had written this layout. Records in `urls` with
    /// none in `record_packs` cannot come from a migration (the packs are
    /// flushed before the flip): the log is refused rather than its only
    /// records dropped.
    pub(super) fn drop_old_trees(&self) -> Result<(), StoreError> {
        let names = self.db.tree_names();
        let has = |tree: &str| names.iter().any(|name| name == tree.as_bytes());
        if has(OLD_URLS) && self.packs.is_empty() && !self.db.open_tree(OLD_URLS)?.is_empty() {
            return Err(StoreError::Open {
                path: self.dir.clone(),
                message: format!(
                    "the log says layout {LAYOUT_VERSION} but its records are only in the \
                     `{OLD_URLS}` tree of layouts 1 to 4 (`record_packs` is empty); not \
                     dropping them"
                ),
            });
        }
        for old in [OLD_BY_STATE, OLD_FRONTIER, OLD_URLS, BY_URL] {
            if has(old) {
                self.db.drop_tree(old)?;
            }
        }
        Ok(())
    }

    /// Builds the `briefs` of a layout 1 log from its records, a batch of
    /// records per transaction. A record too damaged to name its URL and
    /// state gets no brief, as the walk over records passed it over.
    fn build_briefs(&self) -> Result<(), StoreError> {
        let mut after = None;
        loop {
            let mut batch: Vec<(u64, UrlRecord)> = Vec::with_capacity(BRIEF_BATCH);
            self.walk_record_briefs(after, None, |id, brief| {
                batch.push((
                    id,
                    UrlRecord {
                        url: brief.url.to_string(),
                        state: brief.state,
                        link_depth: brief.link_depth,
                        content_type: brief.content_type.map(str::to_string),
                        ..UrlRecord::default()
                    },
                ));
                batch.len() < BRIEF_BATCH
            })?;
            let Some(&(last, _)) = batch.last() else {
                return Ok(());
            };
            let known = self.content_types_known();
            let grown = (&self.briefs, &self.meta)
                .transaction(|(briefs, meta)| {
                    let mut writes = BriefWrites::new(&known);
                    for (id, record) in &batch {
                        writes.discovered(briefs, meta, *id, record)?;
                    }
                    Ok::<_, ConflictableTransactionError<StoreError>>(writes.finish(briefs, meta)?)
                })
                .map_err(|e| match e {
                    TransactionError::Abort(e) => e,
                    TransactionError::Storage(e) => e.into(),
                })?;
            if let Some(table) = grown {
                self.learn_content_types(table);
            }
            after = Some(last);
        }
    }
}

/// Fills `new` with a bitmap per block from the per-id keys of `old`;
/// `block` names the new key and the id of an old key (`None`: damaged,
/// passed over). Old keys come in order, so each block is complete when
/// the next one starts.
fn build_blocks(
    old: &Tree,
    new: &Tree,
    block: impl Fn(&[u8]) -> Option<(Vec<u8>, u64)>,
) -> Result<(), StoreError> {
    let mut batch = Batch::default();
    let mut in_batch = 0;
    let mut current: Option<(Vec<u8>, Bitmap)> = None;
    for key in old.iter().keys() {
        let key = key?;
        let Some((new_key, id)) = block(&key) else {
            continue;
        };
        // Keys of one old prefix are in id order; a damaged key between
        // two good ones cannot split a block, since a block is only
        // written when its key changes and ids only grow within a prefix.
        let same = matches!(&current, Some((k, _)) if *k == new_key);
        if !same {
            if let Some((done, bits)) = current.take()
                && let Some(value) = bits.encode()
            {
                batch.insert(done, value);
                in_batch += 1;
                if in_batch >= BLOCK_BATCH {
                    new.apply_batch(std::mem::take(&mut batch))?;
                    in_batch = 0;
                }
            }
            current = Some((new_key, Bitmap::default()));
        }
        if let Some((_, bits)) = &mut current {
            bits.insert(id);
        }
    }
    if let Some((done, bits)) = current.take()
        && let Some(value) = bits.encode()
    {
        batch.insert(done, value);
    }
    new.apply_batch(batch)?;
    Ok(())
}
