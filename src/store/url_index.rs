//! The URL index (layout 6): URL → id for deduplication and look-up by
//! URL, packed many URLs to a sled entry in hash buckets that split as
//! they fill.
//!
//! Why buckets: sled 0.34 keeps a page-table entry (and a 32-byte
//! `CacheInfo` per fragment) for every page of its trees and splits a leaf
//! past 16 entries, so its resident memory grows with the number of
//! entries, whatever its cache setting. An entry per URL (the `by_url`
//! tree of layouts 1 to 4) cost about 46 MB per million URLs. Here a
//! bucket holds up to [`MAX_ENTRIES`] URLs (about 40 on average), so the
//! entries grow as URLs / 40.
//!
//! Why they split: a fixed number of buckets (a layout 5 tried and
//! dropped before this one had 2^18) makes every bucket, and so every new
//! URL's write, grow with the log. Here a bucket that passes
//! [`MAX_ENTRIES`] is cut in two, so a write rewrites at most one bucket
//! of at most 64 entries (1.4 KB) however large the log is.
//!
//! Fingerprints: the 128-bit keyed SipHash-1-3 of the URL's bytes. The
//! 16-byte key is random, made with the index (`meta` key
//! [`URL_HASH_KEY`]), so a hostile site cannot aim URLs at one bucket or
//! at one fingerprint without it. Only fingerprints are stored: two URLs
//! with the same fingerprint count as the same URL. For n URLs the chance
//! of any such collision is about n² / 2^129 (below 10^-24 for 10^8 URLs).
//!
//! Layout of the `url_buckets` tree ([`URL_BUCKETS`]): a bucket holds the
//! fingerprints whose top 64 bits lie in `[its key, the next bucket's
//! key)`; its key is that lowest top-64 value as a u64 BE (8 bytes), the
//! first bucket's key is 0 (a log without buckets has an implicit empty
//! one there). The bucket of fingerprint `f` is the one with the greatest
//! key <= top64(f): one reverse range read. The value is [`FORMAT`], then
//! entries of 22 bytes sorted by fingerprint: fingerprint (16 bytes BE)
//! ++ id (6 bytes BE, so ids stay below 2^48), looked up by binary search.
//! A split cuts a bucket in the middle at a point where top64 changes
//! (fingerprints with one top64 must share a bucket, since the key is
//! only the top 64 bits) and files the upper part under its first
//! entry's top64.
//!
//! Writes: sled transactions have no range reads, so [`IndexBatch`] works
//! out, before [`super::UrlLog::apply`]'s transaction and under its writer
//! lock, which URLs of the batch are known and what each touched bucket
//! becomes (splits included); the transaction only writes the buckets.
//! A bucket that does not decode is [`StoreError::BadEntry`]; `apply`
//! rebuilds its range from the records ([`super::UrlLog::repair_url_bucket`])
//! and tries again.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{BuildHasher, Hasher};
use std::ops::Bound;

use rustc_hash::FxHashMap;
use siphasher::sip128::{Hasher128, SipHasher13};
use sled::{Batch, IVec, Tree};

use super::briefs::{RunReader, parse_run_key, run_key};
use super::generations::Generations;
use super::packs::Records;
use super::record::stored_url;
use super::{StoreError, UrlLog};

/// Tree name of the URL index of layout 6.
pub(crate) const URL_BUCKETS: &str = "url_buckets";
/// The `meta` key of the index's 16-byte hash key.
pub(crate) const URL_HASH_KEY: &[u8] = b"url_hash_key";
/// The first byte of a bucket's value.
const FORMAT: u8 = 1;
const FINGERPRINT_BYTES: usize = 16;
const ID_BYTES: usize = 6;
const ENTRY_BYTES: usize = FINGERPRINT_BYTES + ID_BYTES;
/// A bucket past this many entries is split.
pub(crate) const MAX_ENTRIES: usize = 64;
/// Entries per bucket when a whole range is built at once (migration,
/// repair): room for 16 more before the first split.
pub(crate) const FILL: usize = 48;
/// The highest id an entry can hold (6 bytes).
pub(crate) const MAX_ID: u64 = (1 << 48) - 1;
/// Buckets written per batch while building a whole index.
const BUILD_BATCH: usize = 256;

/// A URL's 128-bit fingerprint.
pub(crate) type Fingerprint = u128;

/// A (fingerprint, id) pair in 24 bytes, for the long lists of whole
/// index builds (migration, repair, a lost key): `(u128, u64)` takes 32
/// (a u128 is 16-byte aligned). Ordered as the pair is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Entry {
    hi: u64,
    lo: u64,
    id: u64,
}

const _: () = assert!(std::mem::size_of::<Entry>() == 24);

impl Entry {
    pub(crate) fn new(f: Fingerprint, id: u64) -> Entry {
        Entry {
            hi: (f >> 64) as u64,
            lo: f as u64,
            id,
        }
    }

    pub(crate) fn fingerprint(self) -> Fingerprint {
        (u128::from(self.hi) << 64) | u128::from(self.lo)
    }
}

impl From<Entry> for (Fingerprint, u64) {
    fn from(e: Entry) -> (Fingerprint, u64) {
        (e.fingerprint(), e.id)
    }
}

/// The top 64 bits of a fingerprint: what places it in a bucket.
pub(crate) fn top(f: Fingerprint) -> u64 {
    (f >> 64) as u64
}

pub(crate) fn bucket_key(top: u64) -> [u8; 8] {
    top.to_be_bytes()
}

/// A bucket's key as a u64; `None` for any other length (damage).
pub(crate) fn parse_bucket_key(bytes: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(bytes.try_into().ok()?))
}

/// The keyed hash of a log's URL index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UrlHash {
    k0: u64,
    k1: u64,
}

impl UrlHash {
    /// A new random key, from the standard library's OS-seeded
    /// `RandomState` (no extra crate): two of its hashers' outputs.
    pub(crate) fn random() -> UrlHash {
        let state = std::collections::hash_map::RandomState::new();
        let word = |n: u8| {
            let mut hasher = state.build_hasher();
            hasher.write_u8(n);
            hasher.finish()
        };
        UrlHash {
            k0: word(0),
            k1: word(1),
        }
    }

    /// The key as stored in `meta`; `None` when it is not 16 bytes.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<UrlHash> {
        let bytes: [u8; 16] = bytes.try_into().ok()?;
        let (k0, k1) = bytes.split_at(8);
        Some(UrlHash {
            k0: u64::from_be_bytes(k0.try_into().ok()?),
            k1: u64::from_be_bytes(k1.try_into().ok()?),
        })
    }

    pub(crate) fn to_bytes(self) -> [u8; 16] {
        let mut bytes = [0; 16];
        bytes[..8].copy_from_slice(&self.k0.to_be_bytes());
        bytes[8..].copy_from_slice(&self.k1.to_be_bytes());
        bytes
    }

    pub(crate) fn fingerprint(self, url: &[u8]) -> Fingerprint {
        let mut hasher = SipHasher13::new_with_keys(self.k0, self.k1);
        hasher.write(url);
        hasher.finish128().as_u128()
    }
}

/// One bucket's entries, sorted by fingerprint, no fingerprint twice.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Bucket(pub(crate) Vec<(Fingerprint, u64)>);

impl Bucket {
    /// The bucket filed under `key`; `None` when the bytes are not one
    /// (wrong format or length, entries out of order, or below `key`).
    pub(crate) fn decode(key: u64, bytes: &[u8]) -> Option<Bucket> {
        let (&format, body) = bytes.split_first()?;
        if format != FORMAT || body.len() % ENTRY_BYTES != 0 {
            return None;
        }
        let mut entries = Vec::with_capacity(body.len() / ENTRY_BYTES);
        for entry in body.chunks_exact(ENTRY_BYTES) {
            let (f, id) = entry.split_at(FINGERPRINT_BYTES);
            let f = u128::from_be_bytes(f.try_into().ok()?);
            let mut id_bytes = [0; 8];
            id_bytes[8 - ID_BYTES..].copy_from_slice(id);
            entries.push((f, u64::from_be_bytes(id_bytes)));
        }
        let ordered = entries.windows(2).all(|w| w[0].0 < w[1].0);
        let inside = entries.first().is_none_or(|(f, _)| top(*f) >= key);
        (ordered && inside).then_some(Bucket(entries))
    }

    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(1 + self.0.len() * ENTRY_BYTES);
        bytes.push(FORMAT);
        for (f, id) in &self.0 {
            bytes.extend_from_slice(&f.to_be_bytes());
            // Ids above MAX_ID are refused before they get here.
            bytes.extend_from_slice(&id.to_be_bytes()[8 - ID_BYTES..]);
        }
        bytes
    }

    pub(crate) fn get(&self, f: Fingerprint) -> Option<u64> {
        let at = self.0.binary_search_by_key(&f, |(g, _)| *g).ok()?;
        Some(self.0[at].1)
    }

    /// Adds `f` → `id` in order; false (and nothing changed) when `f` is
    /// there already.
    fn insert(&mut self, f: Fingerprint, id: u64) -> bool {
        match self.0.binary_search_by_key(&f, |(g, _)| *g) {
            Ok(_) => false,
            Err(at) => {
                self.0.insert(at, (f, id));
                true
            }
        }
    }
}

/// The id of `f` in a stored bucket's bytes, without copying its entries
/// out: the common look-up of a URL already known. `None` when the bytes
/// are not a bucket filed under `key`, checked as [`Bucket::decode`]
/// checks them, except that a hit does not check the whole bucket's
/// order (that would cost what the binary search saves).
///
/// Why a hit needs no full check: it is an exact match of all 128 bits,
/// so the id found is the one stored with `f`. Only a second entry of the
/// same fingerprint could name another id, and that takes the bucket out
/// of order: the hit's neighbours are checked (an adjacent twin), and any
/// damage that rewrites an id's own bytes is beyond any order check
/// anyway. What the order check does guard is a miss (a URL that is in a
/// damaged bucket reported absent, then added twice), and a miss checks
/// the whole bucket as `decode` does.
fn find_raw(key: u64, bytes: &[u8], f: Fingerprint) -> Option<Option<u64>> {
    let (&format, body) = bytes.split_first()?;
    if format != FORMAT || body.len() % ENTRY_BYTES != 0 {
        return None;
    }
    let n = body.len() / ENTRY_BYTES;
    // In bounds for i < n; the default never happens.
    let fingerprint = |i: usize| {
        let at = i * ENTRY_BYTES;
        u128::from_be_bytes(
            body[at..at + FINGERPRINT_BYTES]
                .try_into()
                .unwrap_or_default(),
        )
    };
    if n > 0 && top(fingerprint(0)) < key {
        return None;
    }
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match fingerprint(mid).cmp(&f) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => {
                let below = mid == 0 || fingerprint(mid - 1) < f;
                let above = mid + 1 == n || fingerprint(mid + 1) > f;
                if !(below && above) {
                    return None;
                }
                let at = mid * ENTRY_BYTES + FINGERPRINT_BYTES;
                let mut id = [0; 8];
                id[8 - ID_BYTES..].copy_from_slice(&body[at..at + ID_BYTES]);
                return Some(Some(u64::from_be_bytes(id)));
            }
        }
    }
    if (1..n).any(|i| fingerprint(i - 1) >= fingerprint(i)) {
        return None;
    }
    Some(None)
}

/// Cuts `entries` (sorted, all with top64 >= `key`) into buckets of about
/// `fill` entries, each cut where top64 changes: the first under `key`,
/// each other under its first entry's top64. Entries that all share one
/// top64 stay in one bucket, however many (with a keyed 128-bit hash,
/// not a case that happens).
pub(crate) fn pack<E: Copy + Into<(Fingerprint, u64)>>(
    key: u64,
    entries: &[E],
    fill: usize,
) -> Vec<(u64, Bucket)> {
    let fill = fill.max(1);
    let f = |i: usize| entries[i].into().0;
    let same = |i: usize| top(f(i - 1)) == top(f(i));
    let mut buckets = Vec::new();
    let mut start = 0;
    while start < entries.len() {
        let mut end = (start + fill).min(entries.len());
        if end < entries.len() {
            // Back to the nearest change of top64, else forward.
            let mut cut = end;
            while cut > start + 1 && same(cut) {
                cut -= 1;
            }
            if same(cut) {
                cut = end;
                while cut < entries.len() && same(cut) {
                    cut += 1;
                }
            }
            end = cut;
        }
        let bucket_key = if start == 0 { key } else { top(f(start)) };
        let part = entries[start..end].iter().map(|e| (*e).into()).collect();
        buckets.push((bucket_key, Bucket(part)));
        start = end;
    }
    buckets
}

/// The stored bucket whose range holds top64 `top`, as its raw key and
/// value; `None` when there is no bucket at or below it (a log without
/// buckets yet: the implicit empty first bucket). Every link a crawl meets
/// is looked up here: `get_le` (vendor/sled/CRAWLSPACE.md) reads the key's
/// leaf in place, where a reverse range read copied the whole leaf first
/// (6% of the engine thread's instructions in the crawl bench).
fn stored_raw(tree: &Tree, top: u64) -> Result<Option<(IVec, IVec)>, StoreError> {
    Ok(tree.get_le(bucket_key(top))?)
}

fn bad(key: &[u8]) -> StoreError {
    StoreError::BadEntry {
        tree: URL_BUCKETS,
        key: key.to_vec(),
    }
}

/// The id of fingerprint `f` in the stored index.
pub(crate) fn stored_id(tree: &Tree, f: Fingerprint) -> Result<Option<u64>, StoreError> {
    match stored_raw(tree, top(f))? {
        None => Ok(None),
        Some((key, value)) => {
            let k = parse_bucket_key(&key).ok_or_else(|| bad(&key))?;
            find_raw(k, &value, f).ok_or_else(|| bad(&key))
        }
    }
}

/// Where [`IndexBatch::locate`] found a fingerprint.
enum Found {
    /// In the log or the batch, with this id.
    Known(u64),
    /// Not there; its bucket, loaded into the batch, has this key.
    Absent(u64),
}

/// The buckets one write batch touches: looked up and changed in memory
/// before the transaction, so that the transaction only writes them (it
/// cannot read a range). Valid while the writer lock is held: nothing
/// else writes the tree meanwhile.
pub(crate) struct IndexBatch<'a> {
    tree: &'a Tree,
    hash: UrlHash,
    /// Every bucket the batch read or made, as the batch leaves it.
    buckets: BTreeMap<u64, Bucket>,
    changed: BTreeSet<u64>,
    /// The fingerprints the batch added, with their ids.
    added: Vec<(Fingerprint, u64)>,
    /// For a bucket of the batch, the highest top64 a read of the stored
    /// index has shown to have no stored bucket between it and that
    /// bucket's key: a fingerprint from there up to it belongs to that
    /// bucket, without another read (a batch of a group's new URLs meets
    /// each bucket several times).
    covered: FxHashMap<u64, u64>,
}

impl<'a> IndexBatch<'a> {
    pub(crate) fn new(tree: &'a Tree, hash: UrlHash) -> IndexBatch<'a> {
        IndexBatch {
            tree,
            hash,
            buckets: BTreeMap::new(),
            changed: BTreeSet::new(),
            added: Vec::new(),
            covered: FxHashMap::default(),
        }
    }

    /// The fingerprints the batch added, with their ids.
    pub(crate) fn added(&self) -> &[(Fingerprint, u64)] {
        &self.added
    }

    /// Finds `f` in the bucket that holds it now. Splits only add keys,
    /// so that bucket is the one of the greatest key <= top64 among the
    /// stored keys and those the batch added. A stored bucket is loaded
    /// into the batch only when `f` is not in it (a new URL will go
    /// there): a known URL is answered from the stored bytes.
    fn locate(&mut self, f: Fingerprint) -> Result<Found, StoreError> {
        let t = top(f);
        let in_batch = self.buckets.range(..=t).next_back().map(|(k, _)| *k);
        let key = match in_batch {
            // No stored bucket lies between it and `t`, nor one of the
            // batch (it is the greatest at or below `t`).
            Some(k) if self.covered.get(&k).is_some_and(|&upto| t <= upto) => k,
            _ => match self.locate_stored(f, in_batch)? {
                Ok(key) => key,
                Err(known) => return Ok(Found::Known(known)),
            },
        };
        Ok(match self.buckets.get(&key).and_then(|b| b.get(f)) {
            Some(id) => Found::Known(id),
            None => Found::Absent(key),
        })
    }

    /// [`IndexBatch::locate`] with a read of the stored index: the key of
    /// the bucket of the batch that holds `f` now (loaded when it is a
    /// stored one not loaded yet), or `Err` with `f`'s id when a stored
    /// bucket not loaded yet has it. Notes what the read showed
    /// ([`IndexBatch::covered`]).
    fn locate_stored(
        &mut self,
        f: Fingerprint,
        in_batch: Option<u64>,
    ) -> Result<Result<u64, u64>, StoreError> {
        let t = top(f);
        let stored = match stored_raw(self.tree, t)? {
            Some((key, value)) => {
                let k = parse_bucket_key(&key).ok_or_else(|| bad(&key))?;
                Some((k, key, value))
            }
            None => None,
        };
        let key = match (in_batch, stored) {
            (Some(k), s) if s.as_ref().is_none_or(|(s, _, _)| *s <= k) => k,
            (_, Some((k, key, value))) => {
                if let Some(id) = find_raw(k, &value, f).ok_or_else(|| bad(&key))? {
                    return Ok(Err(id));
                }
                let bucket = Bucket::decode(k, &value).ok_or_else(|| bad(&key))?;
                self.buckets.insert(k, bucket);
                k
            }
            // No bucket anywhere at or below: the implicit first one.
            (_, None) => {
                self.buckets.insert(0, Bucket::default());
                0
            }
        };
        // The read found no stored bucket in (key, t].
        let upto = self.covered.entry(key).or_insert(t);
        *upto = (*upto).max(t);
        Ok(Ok(key))
    }

    /// The id `url` has in the log or was given earlier in this batch.
    pub(crate) fn id_of(&mut self, url: &str) -> Result<Option<u64>, StoreError> {
        let f = self.hash.fingerprint(url.as_bytes());
        Ok(match self.locate(f)? {
            Found::Known(id) => Some(id),
            Found::Absent(_) => None,
        })
    }

    /// The id `url` has in the log or earlier in this batch; when it has
    /// none, adds it with `id` (splitting its bucket when that passes
    /// [`MAX_ENTRIES`]) and returns `None`. One read of the stored index.
    pub(crate) fn find_or_insert(&mut self, url: &str, id: u64) -> Result<Option<u64>, StoreError> {
        let f = self.hash.fingerprint(url.as_bytes());
        self.find_or_insert_fingerprint(f, id, url)
    }

    /// [`IndexBatch::find_or_insert`] of fingerprint `f` (of `url`, for
    /// errors): tests give fingerprints of their choosing here.
    fn find_or_insert_fingerprint(
        &mut self,
        f: Fingerprint,
        id: u64,
        url: &str,
    ) -> Result<Option<u64>, StoreError> {
        let key = match self.locate(f)? {
            Found::Known(known) => return Ok(Some(known)),
            Found::Absent(key) => key,
        };
        if id > MAX_ID {
            return Err(StoreError::Encode {
                url: url.to_string(),
                message: format!("id {id} is above the URL index's limit of {MAX_ID}"),
            });
        }
        let Some(bucket) = self.buckets.get_mut(&key) else {
            // `locate` loads the bucket it answers Absent with.
            return Err(StoreError::Internal(format!(
                "URL index bucket {key:#x} is not in the batch"
            )));
        };
        bucket.insert(f, id);
        self.changed.insert(key);
        self.added.push((f, id));
        if bucket.0.len() > MAX_ENTRIES {
            let last = bucket.0.last().map_or(key, |(g, _)| top(*g));
            self.check_below_next(key, last)?;
            let bucket = self.buckets.get_mut(&key).map(std::mem::take);
            let entries = bucket.unwrap_or_default().0;
            for (k, part) in pack(key, &entries, entries.len().div_ceil(2)) {
                self.buckets.insert(k, part);
                self.changed.insert(k);
            }
        }
        Ok(None)
    }

    /// Before the bucket under `key`, whose highest top64 is `last`, is
    /// split: no other bucket, stored or made by the batch, may have a
    /// key in `(key, last]`. A bucket holding entries at or past the next
    /// bucket's key is damage its decoding cannot see (it checks only the
    /// lower bound); splitting it would file a part under a key in that
    /// range, overwriting the bucket stored there and losing its URLs.
    /// It is reported as [`StoreError::BadEntry`] instead, so that `apply`
    /// rebuilds its range from the records. One range read, on a split
    /// only.
    fn check_below_next(&self, key: u64, last: u64) -> Result<(), StoreError> {
        if last <= key {
            return Ok(());
        }
        let inside = (Bound::Excluded(key), Bound::Included(last));
        let in_batch = self.buckets.range(inside).next().is_some();
        let from = bucket_key(key);
        let stored = match self
            .tree
            .range::<&[u8], _>((Bound::Excluded(&from[..]), Bound::Unbounded))
            .keys()
            .next()
        {
            // Any key there, a bucket's or a stray one, up to the last.
            Some(next) => next?.as_ref() <= &bucket_key(last)[..],
            None => false,
        };
        if in_batch || stored {
            return Err(bad(&bucket_key(key)));
        }
        Ok(())
    }

    /// The buckets to write, encoded once (sled may run a transaction's
    /// closure more than once).
    pub(crate) fn finish(&self) -> Vec<([u8; 8], Vec<u8>)> {
        self.changed
            .iter()
            .copied()
            .filter_map(|k| Some((bucket_key(k), self.buckets.get(&k)?.encode())))
            .collect()
    }
}

/// Writes a whole index into the empty `tree` from (fingerprint, id)
/// pairs in any order, [`FILL`] entries a bucket, in batches. A
/// fingerprint met twice keeps its lower id (the URL's first record).
pub(crate) fn build(tree: &Tree, mut entries: Vec<Entry>) -> Result<(), StoreError> {
    entries.sort_unstable();
    entries.dedup_by_key(|e| e.fingerprint());
    let mut batch = Batch::default();
    let mut in_batch = 0;
    for (k, bucket) in pack(0, &entries, FILL) {
        batch.insert(&bucket_key(k), bucket.encode());
        in_batch += 1;
        if in_batch >= BUILD_BATCH {
            tree.apply_batch(std::mem::take(&mut batch))?;
            in_batch = 0;
        }
    }
    tree.apply_batch(batch)?;
    Ok(())
}

impl UrlLog {
    /// The hash key of the URL index: an error before `open` has read it
    /// (nothing may look up or write the index under another key).
    pub(super) fn url_hash(&self) -> Result<UrlHash, StoreError> {
        self.url_hash
            .ok_or_else(|| StoreError::Internal("the URL index's hash key is not loaded".into()))
    }

    /// The id of `url` in the URL index: from the URLs met last
    /// ([`UrlLog::known_urls`]) when it is one of them.
    pub(super) fn indexed_id(&self, url: &str) -> Result<Option<u64>, StoreError> {
        let f = self.url_hash()?.fingerprint(url.as_bytes());
        if let Some(id) = self.known_urls().renewed(&f) {
            return Ok(Some(id));
        }
        let id = stored_id(&self.url_buckets, f)?;
        if let Some(id) = id {
            self.known_urls().insert(f, id);
        }
        Ok(id)
    }

    /// Notes URLs just written to the index with their ids.
    pub(super) fn note_known_urls(&self, written: &[(Fingerprint, u64)]) {
        let mut known = self.known_urls();
        for (f, id) in written {
            known.insert(*f, *id);
        }
    }

    /// Forgets the URLs noted, so that the next look-ups read the index
    /// (the tests of damage to it).
    #[cfg(test)]
    pub(super) fn forget_known_urls(&self) {
        self.known_urls().clear();
    }

    /// How many URLs are noted (the tests).
    #[cfg(test)]
    pub(super) fn known_url_notes(&self) -> usize {
        self.known_urls().len()
    }

    /// The notes of [`UrlLog::known_urls`]; a panic while they were held
    /// cannot have left a wrong note (an insert is whole or not done).
    fn known_urls(&self) -> std::sync::MutexGuard<'_, Generations<Fingerprint, u64>> {
        self.known_urls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Every record's (fingerprint, id) under `hash`, from the records
    /// (the truth the index is built from), for those whose top64
    /// `within` accepts.
    ///
    /// A record's URL is the leading URL of its stored bytes
    /// ([`stored_url`]): it survives damage to the rest of the body. Where
    /// that cannot be read (a pack whose frame does not parse hides its 8
    /// records; a record whose URL bytes themselves are damaged), the
    /// `briefs` tree, which keeps every record's URL in its runs, names
    /// the URL of that id. Left out only: an id whose record and brief
    /// are both unreadable, and records under a `record_packs` key that is
    /// not a pack's (no id to look for): nothing in the log names those
    /// URLs any more.
    pub(super) fn fingerprints_of_records(
        &self,
        hash: UrlHash,
        within: impl Fn(u64) -> bool,
    ) -> Result<Vec<Entry>, StoreError> {
        let mut entries = Vec::new();
        let mut push = |id: u64, url: &[u8]| {
            let f = hash.fingerprint(url);
            if id <= MAX_ID && within(top(f)) {
                entries.push(Entry::new(f, id));
            }
        };
        let mut unread = BTreeSet::new();
        for entry in Records::new(&self.packs, 1, u64::MAX, false) {
            match entry? {
                (id, Ok(Some(bytes))) => match stored_url(&bytes) {
                    Some(url) => push(id, url),
                    None => {
                        unread.insert(id);
                    }
                },
                (_, Ok(None)) => {}
                (id, Err(_)) => {
                    unread.insert(id);
                }
            }
        }
        if let (Some(&first), Some(&last)) = (unread.first(), unread.last()) {
            let start = self.brief_run_start(first)?;
            for entry in self.briefs.range(run_key(start)..=run_key(last)) {
                let (key, value) = entry?;
                let Some(run_first) = parse_run_key(&key) else {
                    continue;
                };
                let mut run = RunReader::new(run_first, &value);
                while let Some((id, _, url)) = run.next_entry() {
                    if unread.remove(&id) {
                        push(id, url.as_bytes());
                    }
                }
            }
        }
        Ok(entries)
    }

    /// The hash key of this log's URL index. A log that has none (a new
    /// one, or one whose key was lost: its buckets cannot be found again
    /// without it) gets a new key and its index rebuilt from the records
    /// under it; the key is written last, once the buckets are flushed,
    /// so a rebuild cut short is done again on the next open.
    pub(super) fn load_url_hash(&self) -> Result<UrlHash, StoreError> {
        if let Some(hash) = self
            .meta
            .get(URL_HASH_KEY)?
            .and_then(|v| UrlHash::from_bytes(&v))
        {
            return Ok(hash);
        }
        let hash = UrlHash::random();
        if !self.url_buckets.is_empty() || !self.packs.is_empty() {
            self.url_buckets.clear()?;
            build(
                &self.url_buckets,
                self.fingerprints_of_records(hash, |_| true)?,
            )?;
            self.db.flush()?;
        }
        self.meta.insert(URL_HASH_KEY, &hash.to_bytes()[..])?;
        Ok(hash)
    }

    /// Rebuilds the bucket filed under `key` (damaged: its key or value
    /// does not read, or it reaches past the next bucket) and every other
    /// damaged key of the tree, found in one scan of it, from one pass
    /// over the records: each damaged bucket's range gets every URL whose
    /// top64 lies in it, packed [`FILL`] to a bucket. A key that is not a
    /// bucket key is removed and the range around it (from the valid key
    /// below it to the valid key above it) rebuilt, since lookups met it
    /// in place of the bucket below. Each range is written outside the
    /// write transaction, in one atomic batch of its own, as the block
    /// repairs are (`repair.rs`): its content is what the records say,
    /// so writing it again is idempotent, and memory holds only the
    /// damaged ranges' entries. Callers hold the writer lock.
    pub(super) fn repair_url_bucket(&self, key: &[u8]) -> Result<(), StoreError> {
        let tree = &self.url_buckets;
        let mut damaged: BTreeSet<Vec<u8>> = BTreeSet::new();
        damaged.insert(key.to_vec());
        // The last valid bucket met: its key, raw key, and highest top64.
        let mut previous: Option<(u64, IVec, Option<u64>)> = None;
        for entry in tree.iter() {
            let (raw, value) = entry?;
            let Some(k) = parse_bucket_key(&raw) else {
                damaged.insert(raw.to_vec());
                continue;
            };
            if let Some((_, raw_prev, Some(last))) = &previous
                && *last >= k
            {
                damaged.insert(raw_prev.to_vec());
            }
            match Bucket::decode(k, &value) {
                Some(bucket) => {
                    let last = bucket.0.last().map(|(f, _)| top(*f));
                    previous = Some((k, raw, last));
                }
                None => {
                    damaged.insert(raw.to_vec());
                    previous = Some((k, raw, None));
                }
            }
        }
        // Each damaged key's range: [from, hi), and the keys it covers.
        let mut ranges: Vec<(u64, Option<u64>)> = Vec::new();
        for key in &damaged {
            let lo = match parse_bucket_key(key) {
                Some(k) => Some(k),
                None => {
                    let mut below = None;
                    for k in tree.range(..key.as_slice()).keys().rev() {
                        if let Some(k) = parse_bucket_key(&k?) {
                            below = Some(k);
                            break;
                        }
                    }
                    below
                }
            };
            let mut hi = None;
            for k in tree
                .range::<&[u8], _>((Bound::Excluded(key.as_slice()), Bound::Unbounded))
                .keys()
            {
                if let Some(k) = parse_bucket_key(&k?) {
                    hi = Some(k);
                    break;
                }
            }
            ranges.push((lo.unwrap_or(0), hi));
        }
        ranges.sort_unstable();
        ranges.dedup();
        let hash = self.url_hash()?;
        // Ranges are disjoint (each runs from a valid key to the next).
        let range_of = |t: u64| {
            let at = ranges
                .partition_point(|(from, _)| *from <= t)
                .checked_sub(1)?;
            let (from, hi) = ranges[at];
            (t >= from && hi.is_none_or(|h| t < h)).then_some(at)
        };
        let mut entries = self.fingerprints_of_records(hash, |t| range_of(t).is_some())?;
        entries.sort_unstable();
        entries.dedup_by_key(|e| e.fingerprint());
        for (at, &(from, hi)) in ranges.iter().enumerate() {
            // Bucket 0's range starts below every key: stray keys sorting
            // below it (shorter than 8 bytes) go with it.
            let lo_bound = match from {
                0 => Bound::Unbounded,
                k => Bound::Included(bucket_key(k)),
            };
            let hi_bound = hi.map_or(Bound::Unbounded, |k| Bound::Excluded(bucket_key(k)));
            let mine: Vec<Entry> = entries
                .iter()
                .copied()
                .filter(|e| range_of(top(e.fingerprint())) == Some(at))
                .collect();
            let mut batch = Batch::default();
            for old in tree.range((lo_bound, hi_bound)).keys() {
                batch.remove(old?);
            }
            for (k, bucket) in pack(from, &mine, FILL) {
                batch.insert(&bucket_key(k), bucket.encode());
            }
            tree.apply_batch(batch)?;
        }
        // A note may have come from the damaged bucket (a wrong id found
        // there), and a URL whose record and brief were both unreadable is
        // no longer in the index: what was noted is not trusted after this.
        self.known_urls().clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests;
