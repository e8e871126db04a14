//! The URL index since layout 5: URLs bucketed by a hash, many to a sled
//! entry (`url_buckets` tree), instead of an entry per URL (`by_url`).
//!
//! Why: sled's resident memory grows with its entries (`bitmap.rs`), and
//! the URL index was one of the two entries per URL left after layout 4.
//! Measured with a build that wrote no URL index at all, 1,000,000 queued
//! URLs took 42 MB resident instead of 88 MB and 0.3 GB on disk instead of
//! 1.1 GB.
//!
//! A bucket's key is the top [`BUCKET_BITS`] bits of the URL's FNV-1a
//! hash (u32 BE); its value is its URLs one after the other, each as id
//! (u64 BE), URL length (u32 BE), URL bytes. FNV-1a because it is fixed
//! by its definition (the key is on disk: a hash that could change with
//! the compiler, like std's, would lose every URL).

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use sled::IVec;
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use super::StoreError;

type TxResult<T> = Result<T, ConflictableTransactionError<StoreError>>;

/// 2^18 buckets: a million URLs are about four to a bucket (some 250
/// bytes), ten million about forty; at most 262,144 entries however many
/// URLs.
pub(crate) const BUCKET_BITS: u32 = 18;

/// The bucket key of `url`.
pub(crate) fn bucket_key(url: &str) -> [u8; 4] {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in url.as_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    ((hash >> (64 - BUCKET_BITS)) as u32).to_be_bytes()
}

/// The entries of a bucket value, in the order written; `Err` at the
/// first that does not read (damage).
pub(crate) fn entries(bytes: &[u8]) -> impl Iterator<Item = Result<(u64, &[u8]), ()>> + '_ {
    let mut rest = bytes;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let entry = (|| {
            let (id, after) = rest.split_first_chunk::<8>()?;
            let (len, after) = after.split_first_chunk::<4>()?;
            let len = usize::try_from(u32::from_be_bytes(*len)).ok()?;
            if after.len() < len {
                return None;
            }
            let (url, after) = after.split_at(len);
            Some(((u64::from_be_bytes(*id), url), after))
        })();
        match entry {
            Some((entry, after)) => {
                rest = after;
                Some(Ok(entry))
            }
            None => {
                rest = &[];
                Some(Err(()))
            }
        }
    })
}

/// The id of `url` in a bucket value; `Err` when the value is damaged
/// before the URL is found.
pub(crate) fn find(bytes: &[u8], url: &str) -> Result<Option<u64>, ()> {
    for entry in entries(bytes) {
        let (id, stored) = entry?;
        if stored == url.as_bytes() {
            return Ok(Some(id));
        }
    }
    Ok(None)
}

/// Appends `url` with `id` to a bucket value. A URL over 4 GiB cannot be
/// written (nor met: the fetcher limits bodies far below that).
pub(crate) fn push(bytes: &mut Vec<u8>, url: &str, id: u64) -> Result<(), ()> {
    let len = u32::try_from(url.len()).map_err(|_| ())?;
    bytes.extend_from_slice(&id.to_be_bytes());
    bytes.extend_from_slice(&len.to_be_bytes());
    bytes.extend_from_slice(url.as_bytes());
    Ok(())
}

/// The buckets one write transaction adds URLs to, each read once and
/// written once. Seeded with the buckets `apply` read before the
/// transaction to check its URLs were new (under the writer lock, they
/// are still what sled holds).
pub(crate) struct BucketWrites<'a> {
    seen: &'a HashMap<[u8; 4], Option<IVec>>,
    /// Bucket, its value as the batch left it, whether URLs were added.
    touched: HashMap<[u8; 4], (Vec<u8>, bool)>,
}

impl<'a> BucketWrites<'a> {
    pub(crate) fn new(seen: &'a HashMap<[u8; 4], Option<IVec>>) -> BucketWrites<'a> {
        BucketWrites {
            seen,
            touched: HashMap::new(),
        }
    }

    fn bucket(&mut self, tree: &TransactionalTree, key: [u8; 4]) -> TxResult<&mut (Vec<u8>, bool)> {
        match self.touched.entry(key) {
            Entry::Occupied(entry) => Ok(entry.into_mut()),
            Entry::Vacant(entry) => {
                let stored = match self.seen.get(&key) {
                    Some(stored) => stored.clone(),
                    None => tree.get(key)?,
                };
                let bucket = stored.map(|v| v.to_vec()).unwrap_or_default();
                Ok(entry.insert((bucket, false)))
            }
        }
    }

    /// Adds `url` with `id` (a URL the batch found new).
    pub(crate) fn insert(&mut self, tree: &TransactionalTree, url: &str, id: u64) -> TxResult<()> {
        let (bucket, changed) = self.bucket(tree, bucket_key(url))?;
        *changed = true;
        push(bucket, url, id).map_err(|()| {
            ConflictableTransactionError::Abort(StoreError::Encode {
                url: url.to_string(),
                message: "a URL over 4 GiB".into(),
            })
        })
    }

    /// The id of `url` as the batch has its bucket so far.
    pub(crate) fn id_of(&mut self, tree: &TransactionalTree, url: &str) -> TxResult<Option<u64>> {
        let key = bucket_key(url);
        let (bucket, _) = self.bucket(tree, key)?;
        find(bucket, url).map_err(|()| {
            ConflictableTransactionError::Abort(StoreError::BadEntry {
                tree: "url_buckets",
                key: key.to_vec(),
            })
        })
    }

    /// Writes the buckets URLs were added to.
    pub(crate) fn finish(self, tree: &TransactionalTree) -> TxResult<()> {
        for (key, (bucket, changed)) in self.touched {
            if changed {
                tree.insert(&key, bucket)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_find_what_was_pushed_and_refuse_damage() {
        // The hash is part of the layout: these keys must never change.
        assert_eq!(bucket_key(""), [0x00, 0x03, 0x2f, 0xca]);
        assert_eq!(bucket_key("http://a/"), bucket_key("http://a/"));
        let mut bucket = Vec::new();
        push(&mut bucket, "http://a/", 7).unwrap();
        push(&mut bucket, "http://b/x", u64::MAX).unwrap();
        push(&mut bucket, "", 1).unwrap();
        assert_eq!(find(&bucket, "http://a/"), Ok(Some(7)));
        assert_eq!(find(&bucket, "http://b/x"), Ok(Some(u64::MAX)));
        assert_eq!(find(&bucket, ""), Ok(Some(1)));
        assert_eq!(find(&bucket, "http://b/"), Ok(None));
        assert_eq!(entries(&bucket).count(), 3);
        // Cut anywhere but between two entries, a bucket does not read.
        let ends = [8 + 4 + 9, 8 + 4 + 9 + 8 + 4 + 10];
        for len in (1..bucket.len()).filter(|len| !ends.contains(len)) {
            let cut = &bucket[..len];
            assert!(
                entries(cut).any(|e| e.is_err()),
                "truncated to {len} is damage"
            );
        }
        // A length past the end: damage, found only past the good entries.
        let mut bad = bucket.clone();
        bad.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 9, 0xff, 0xff, 0xff, 0xff]);
        assert_eq!(find(&bad, "http://a/"), Ok(Some(7)));
        assert_eq!(find(&bad, "http://z/"), Err(()));
    }
}
