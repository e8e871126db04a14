//! The URL index in hash buckets (`url_index.rs`): look-ups after many
//! splits, splits inside one batch, the hash key across reopening, damage
//! and its repair, and migrations into it.

use super::super::url_index::{FILL, MAX_ID, pack};
use super::*;

/// Discovers `urls` in batches of `batch`, queued; the ids given.
fn discover_all(log: &UrlLog, urls: &[String], batch: usize) -> Vec<Option<u64>> {
    let records: Vec<UrlRecord> = urls.iter().map(|u| rec(u, State::Queued)).collect();
    discover_records(log, &records, batch)
}

fn urls(prefix: &str, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| format!("http://{prefix}/page/{i}"))
        .collect()
}

/// The bucket whose range holds `url`'s fingerprint, and its index.
fn bucket_of(log: &UrlLog, url: &str) -> (usize, u64) {
    let t = top(log.url_hash().unwrap().fingerprint(url.as_bytes()));
    let buckets = url_buckets(log);
    let at = buckets.iter().rposition(|(key, _)| *key <= t).unwrap();
    (at, buckets[at].0)
}

#[test]
fn every_url_is_found_after_many_splits() {
    let (_dir, log) = fresh();
    let known = urls("split", 20_000);
    let ids = discover_all(&log, &known, 500);
    for (i, (url, id)) in known.iter().zip(&ids).enumerate() {
        assert_eq!(*id, Some(i as u64 + 1));
        assert_eq!(log.id_of(url).unwrap(), *id, "{url}");
    }
    for url in urls("unknown", 2_000) {
        assert_eq!(log.id_of(&url).unwrap(), None, "{url}");
    }
    // Split at 65 entries into halves: buckets hold 32 to 64, so about
    // N / 40 of them (`url_buckets` checks limits, order and ranges).
    let buckets = url_buckets(&log);
    let n = buckets.len();
    assert!((20_000 / 64..=20_000 / 30).contains(&n), "{n} buckets");
    let smallest = buckets.iter().map(|(_, b)| b.0.len()).min().unwrap();
    assert!(smallest >= 16, "smallest bucket {smallest}");
    // Known URLs discovered again add nothing and cost no transaction.
    let before = log.transactions();
    assert!(
        discover_all(&log, &known[..1000], 250)
            .iter()
            .all(Option::is_none)
    );
    assert_eq!(log.transactions(), before);
    check_consistent(&log);
}

/// One batch fills an empty index past several splits, repeats URLs
/// (one discovery each) and mixes known URLs in: every URL lands in the
/// bucket that covers it, whichever split made it.
#[test]
fn a_batch_splits_buckets_and_places_later_urls() {
    let (_dir, log) = fresh();
    let first = urls("one", 300);
    let mut batch: Vec<String> = first.clone();
    batch.extend(first[..50].iter().cloned());
    let ids = discover_all(&log, &batch, batch.len());
    assert_eq!(ids[..300], (1..=300).map(Some).collect::<Vec<_>>()[..]);
    assert!(ids[300..].iter().all(Option::is_none), "repeats are known");
    assert!(url_buckets(&log).len() >= 4, "split inside the batch");
    check_consistent(&log);
    // Known and new URLs mixed in one batch, a new one twice.
    let mut mixed: Vec<String> = first[100..120].to_vec();
    mixed.extend(urls("two", 200));
    mixed.push(format!("http://two/page/{}", 7));
    let ids = discover_all(&log, &mixed, mixed.len());
    assert!(ids[..20].iter().all(Option::is_none));
    assert_eq!(ids[20..220], (301..=500).map(Some).collect::<Vec<_>>()[..]);
    assert_eq!(ids[220], None);
    check_consistent(&log);
}

/// The hash key is made with the log and kept: after reopening, every
/// URL is found and new ones go to the same buckets.
#[test]
fn reopening_keeps_the_hash_key() {
    let dir = tempfile::tempdir().unwrap();
    let known = urls("keep", 3_000);
    let key = {
        let log = open(dir.path());
        discover_all(&log, &known, 300);
        log.meta.get(URL_HASH_KEY).unwrap().unwrap()
    };
    assert_eq!(key.len(), 16);
    let log = open(dir.path());
    assert_eq!(log.meta.get(URL_HASH_KEY).unwrap().unwrap(), key);
    for (i, url) in known.iter().enumerate() {
        assert_eq!(log.id_of(url).unwrap(), Some(i as u64 + 1));
    }
    assert!(discover_all(&log, &known, 1000).iter().all(Option::is_none));
    discover_all(&log, &urls("more", 1_000), 100);
    check_consistent(&log);
    // Two logs have two keys.
    let (_other_dir, other) = fresh();
    assert_ne!(other.meta.get(URL_HASH_KEY).unwrap().unwrap(), key);
}

/// A bucket whose value does not decode: a look-up through it is an
/// error naming the tree and key (the other buckets answer), and a write
/// that meets it rebuilds it from the records. A key that is not a
/// bucket key, met in place of the bucket below it, is removed and that
/// range rebuilt.
#[test]
fn a_damaged_bucket_is_an_error_and_a_write_repairs_it() {
    let (_dir, log) = fresh();
    let known = urls("damage", 5_000);
    discover_all(&log, &known, 500);
    let (at, key) = bucket_of(&log, &known[1234]);
    let buckets = url_buckets(&log);
    let (_, bucket) = &buckets[at];
    let elsewhere = known.iter().find(|u| bucket_of(&log, u).0 != at).unwrap();
    log.url_buckets
        .insert(bucket_key(key), &b"\x01junk"[..])
        .unwrap();
    // Those URLs were just written: look-ups would answer from memory.
    log.forget_known_urls();
    let err = log.id_of(&known[1234]).unwrap_err();
    assert!(
        matches!(&err, StoreError::BadEntry { tree: "url_buckets", key: k } if *k == bucket_key(key)),
        "{err:?}"
    );
    assert!(log.id_of(elsewhere).unwrap().is_some());
    // A write meeting it: known, as before the damage.
    assert_eq!(
        log.discover(&rec(&known[1234], State::Queued)).unwrap(),
        None
    );
    assert_eq!(log.id_of(&known[1234]).unwrap(), Some(1235));
    check_consistent(&log);
    let rebuilt: usize = url_buckets(&log)
        .iter()
        .filter(|(k, _)| *k >= key && buckets.get(at + 1).is_none_or(|(next, _)| k < next))
        .map(|(_, b)| b.0.len())
        .sum();
    assert_eq!(rebuilt, bucket.0.len(), "the range holds what it held");

    // A stray key just above a bucket's key: looked up in place of it.
    let (at, key) = bucket_of(&log, &known[77]);
    let stray: Vec<u8> = [&bucket_key(key)[..], &[0]].concat();
    let hidden = url_buckets_raw_entries(&log, at)
        .into_iter()
        .find(|(f, _)| top(*f) > key)
        .unwrap();
    log.url_buckets.insert(&stray, &b"x"[..]).unwrap();
    log.forget_known_urls();
    let url = known[hidden.1 as usize - 1].clone();
    assert!(matches!(
        log.id_of(&url),
        Err(StoreError::BadEntry { tree: "url_buckets", key: k }) if k == stray
    ));
    assert_eq!(log.discover(&rec(&url, State::Queued)).unwrap(), None);
    assert_eq!(log.id_of(&url).unwrap(), Some(hidden.1));
    assert!(!log.url_buckets.contains_key(&stray).unwrap());
    check_consistent(&log);
}

/// The entries of bucket number `at`, read past stray keys.
fn url_buckets_raw_entries(log: &UrlLog, at: usize) -> Vec<(u128, u64)> {
    let mut buckets = Vec::new();
    for entry in log.url_buckets.iter() {
        let (key, value) = entry.unwrap();
        if let Some(key) = parse_bucket_key(&key) {
            buckets.push(Bucket::decode(key, &value).unwrap().0);
        }
    }
    buckets.swap_remove(at)
}

/// An update whose stored record has a damaged body (it cannot name its
/// URL) is checked against the URL index instead: the same URL is
/// rewritten, another URL refused.
#[test]
fn an_update_over_a_damaged_body_asks_the_url_index() {
    let (_dir, log) = fresh();
    discover_all(&log, &urls("upd", 100), 100);
    let mut header = pack_slots(&log, pack_of(5))[slot_of(5)].clone().unwrap();
    header.truncate(2);
    damage_record(&log, 5, header);
    let mut record = rec("http://upd/page/4", State::Fetched);
    log.update(5, &record).unwrap();
    assert_eq!(log.get(5).unwrap().unwrap(), record);
    damage_record(&log, 6, vec![FORMAT, State::Queued.byte()]);
    record.url = "http://upd/page/6".into();
    assert!(matches!(
        log.update(6, &record),
        Err(StoreError::UrlChanged { id: 6, .. })
    ));
}

/// Ids must fit the 6 bytes of an entry: one above is refused, not
/// written cut short.
#[test]
fn ids_past_48_bits_are_refused() {
    let (_dir, log) = fresh();
    log.lock_writer().counters.next_id = MAX_ID + 1;
    assert!(matches!(
        log.discover(&rec("http://big/", State::Queued)),
        Err(StoreError::Encode { .. })
    ));
    assert_eq!(log.id_of("http://big/").unwrap(), None);
}

/// Random URLs, some differing only in their last byte, discovered in
/// batches of random sizes: each is found with its id, a URL never
/// discovered is not found, and the index stays within its invariants.
#[test]
fn random_urls_and_last_byte_neighbours_are_told_apart() {
    for seed in [1u64, 2, 3] {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (_dir, log) = fresh();
        let mut model: std::collections::HashMap<String, u64> = Default::default();
        let mut absent = Vec::new();
        let mut next_id = 1;
        for _ in 0..40 {
            let size = (next() % 200) as usize + 1;
            let mut batch = Vec::with_capacity(size);
            for _ in 0..size {
                let len = (next() % 40) as usize + 1;
                let mut url = String::from("http://r/");
                for _ in 0..len {
                    url.push(char::from(b'a' + (next() % 26) as u8));
                }
                if next() % 3 == 0 {
                    // Its last-byte neighbour: discovered or only looked up.
                    let mut neighbour = url.clone();
                    neighbour.pop();
                    neighbour.push(if url.ends_with('z') { 'y' } else { 'z' });
                    if next() % 2 == 0 {
                        batch.push(neighbour);
                    } else {
                        absent.push(neighbour);
                    }
                }
                if next() % 10 == 0
                    && let Some(old) = model.keys().next()
                {
                    batch.push(old.clone());
                }
                batch.push(url);
            }
            let ids = discover_all(&log, &batch, batch.len());
            for (url, id) in batch.iter().zip(ids) {
                match (model.get(url), id) {
                    (Some(_), None) => {}
                    (None, Some(id)) => {
                        assert_eq!(id, next_id, "seed {seed}");
                        next_id += 1;
                        model.insert(url.clone(), id);
                    }
                    other => panic!("seed {seed}: {url}: {other:?}"),
                }
            }
        }
        for (url, id) in &model {
            assert_eq!(log.id_of(url).unwrap(), Some(*id), "seed {seed}: {url}");
        }
        for url in absent.iter().filter(|u| !model.contains_key(*u)) {
            assert_eq!(log.id_of(url).unwrap(), None, "seed {seed}: {url}");
        }
        check_consistent(&log);
    }
}

/// A log of layout 4 (an entry per URL in `by_url`) gets the buckets on
/// open; a migration cut short (some buckets written, no key, layout
/// still 4) starts again from a cleared tree; one cut short after the
/// flip to layout 6 drops `by_url` on the next open; a layout 6 log
/// whose hash key was lost has its index rebuilt from the records.
#[test]
fn the_url_index_migration_is_complete_and_restartable() {
    let known = urls("mig", 4_000);
    let made = |layout: u8, change: &dyn Fn(&UrlLog)| {
        let dir = tempfile::tempdir().unwrap();
        {
            let log = open(dir.path());
            discover_all(&log, &known, 1000);
            if layout < LAYOUT_VERSION {
                downgrade(&log, layout);
            }
            change(&log);
            log.flush().unwrap();
        }
        dir
    };
    let all_found = |log: &UrlLog, case: &str, built: bool| {
        assert_eq!(
            log.meta.get(LAYOUT).unwrap().as_deref(),
            Some(&[LAYOUT_VERSION][..])
        );
        for (i, url) in known.iter().enumerate() {
            assert_eq!(log.id_of(url).unwrap(), Some(i as u64 + 1), "{case}: {url}");
        }
        let buckets = url_buckets(log);
        let filled = buckets.iter().filter(|(_, b)| b.0.len() == FILL).count();
        if built {
            assert!(
                filled + 1 >= buckets.len() / 2,
                "{case}: built {FILL} a bucket"
            );
        }
        check_consistent(log);
    };
    type Damage<'a> = &'a dyn Fn(&UrlLog);
    let cases: [(&str, u8, Damage<'_>); 5] = [
        ("layout 4", 4, &|_| {}),
        ("a damaged by_url value", 4, &|log| {
            // Layout 4 still held a record of it: it stays known.
            let by_url = log.db.open_tree(super::super::index::BY_URL).unwrap();
            by_url.insert(known[10].as_bytes(), &b"xx"[..]).unwrap();
        }),
        ("cut short", 4, &|log| {
            // Buckets of a migration under another key, and junk.
            log.url_buckets
                .insert(bucket_key(0), Bucket(vec![(7, 1)]).encode())
                .unwrap();
            log.url_buckets
                .insert(bucket_key(1 << 40), &b"junk"[..])
                .unwrap();
        }),
        ("after the flip", LAYOUT_VERSION, &|log| {
            let by_url = log.db.open_tree(super::super::index::BY_URL).unwrap();
            by_url.insert("http://stale/", &id_key(1)).unwrap();
        }),
        ("key lost", LAYOUT_VERSION, &|log| {
            log.meta.remove(URL_HASH_KEY).unwrap();
        }),
    ];
    for (case, layout, change) in cases {
        let dir = made(layout, change);
        let log = open(dir.path());
        all_found(&log, case, case != "after the flip");
        let new = log.discover(&rec("http://mig/new", State::Queued)).unwrap();
        assert_eq!(new, Some(known.len() as u64 + 1), "{case}");
        drop(log);
        let log = open(dir.path());
        assert_eq!(log.id_of("http://mig/new").unwrap(), new, "{case}");
        all_found(&log, case, false);
    }
}

/// `pack` cuts where top64 changes, keeps one top64 in one bucket
/// however many share it, and files each part under its first top64.
#[test]
fn pack_cuts_only_where_the_top_changes() {
    let f = |t: u64, low: u64| (u128::from(t) << 64 | u128::from(low), low);
    let entries: Vec<(u128, u64)> = (0..10).map(|i| f(5 + i / 4, i)).collect();
    let parts = pack(3, &entries, 3);
    let keys: Vec<u64> = parts.iter().map(|(k, _)| *k).collect();
    assert_eq!(keys, [3, 6, 7]);
    assert_eq!(parts.iter().map(|(_, b)| b.0.len()).sum::<usize>(), 10);
    let same: Vec<(u128, u64)> = (0..100).map(|i| f(9, i)).collect();
    assert_eq!(pack(0, &same, 10).len(), 1);
    assert!(pack::<(u128, u64)>(0, &[], 10).is_empty());
    // Damaged values decode to nothing, never a panic.
    let good = Bucket(entries.clone()).encode();
    for cut in 0..good.len() {
        let _ = Bucket::decode(0, &good[..cut]);
    }
    assert_eq!(Bucket::decode(5, &good), Some(Bucket(entries.clone())));
    assert_eq!(Bucket::decode(6, &good), None, "entries below the key");
    let mut swapped = good.clone();
    swapped[1..23].copy_from_slice(&good[23..45]);
    assert_eq!(Bucket::decode(0, &swapped), None, "out of order");
}

/// Reopens the log at `dir` without its hash key (lost, or of the wrong
/// length): the index is rebuilt from the records under a new key.
fn reopen_without_key(dir: &TempDir, log: UrlLog, key: Option<&[u8]>) -> UrlLog {
    match key {
        Some(bad) => log.meta.insert(URL_HASH_KEY, bad).map(drop).unwrap(),
        None => log.meta.remove(URL_HASH_KEY).map(drop).unwrap(),
    }
    log.flush().unwrap();
    drop(log);
    open(dir.path())
}

/// A rebuild of the index (a lost key) keeps the URLs of records whose
/// body is damaged past the URL, of records whose URL bytes are damaged,
/// and of a whole pack whose frame does not parse (from the briefs): each
/// stays known, and an update over it goes through.
#[test]
fn a_rebuild_keeps_damaged_records_urls() {
    let (dir, mut log) = fresh();
    let known = urls("rebuild", 100);
    discover_all(&log, &known, 100);
    // Id 5: the URL, then the body cut short.
    let mut cut = pack_slots(&log, pack_of(5))[slot_of(5)].clone().unwrap();
    cut.truncate(2 + 1 + known[4].len() + 1);
    damage_record(&log, 5, cut);
    assert!(log.get(5).is_err());
    // Id 7: no URL readable in it at all.
    damage_record(&log, 7, vec![FORMAT, State::Queued.byte(), 0xff]);
    // Ids 17..=24 (pack 2): the frame does not parse.
    damage_pack(&log, pack_of(20), b"\xffjunk".to_vec());
    for (key, label) in [(None, "lost"), (Some(&[1u8; 15][..]), "15 bytes")] {
        log = reopen_without_key(&dir, log, key);
        for (i, url) in known.iter().enumerate() {
            assert_eq!(
                log.id_of(url).unwrap(),
                Some(i as u64 + 1),
                "{label}: {url}"
            );
        }
        for id in [5, 7, 17, 20, 24] {
            let url = &known[id as usize - 1];
            assert_eq!(log.discover(&rec(url, State::Queued)).unwrap(), None);
        }
        assert_eq!(log.last_id().unwrap(), Some(100), "{label}");
    }
    drop(log);
    let log = open(dir.path());
    // An update over the damaged bodies: the index names them.
    log.update(5, &rec(&known[4], State::Fetched)).unwrap();
    log.update(7, &rec(&known[6], State::Fetched)).unwrap();
    assert_eq!(log.get(7).unwrap().unwrap(), rec(&known[6], State::Fetched));
}

/// A wrong-length hash key is treated as lost: a new key, the index
/// rebuilt, every URL found.
#[test]
fn a_hash_key_of_the_wrong_length_is_replaced() {
    let (dir, mut log) = fresh();
    let known = urls("keylen", 500);
    discover_all(&log, &known, 100);
    for bad in [&[0u8; 15][..], &[0u8; 17][..], &[][..]] {
        log = reopen_without_key(&dir, log, Some(bad));
        let key = log.meta.get(URL_HASH_KEY).unwrap().unwrap();
        assert_eq!(key.len(), 16);
        for (i, url) in known.iter().enumerate() {
            assert_eq!(log.id_of(url).unwrap(), Some(i as u64 + 1), "{url}");
        }
        check_consistent(&log);
    }
    drop(log);
}

/// A bucket holding entries at and past the next bucket's key (damage
/// its decoding does not see) is not split over that next bucket: the
/// split is refused as damage and the bucket's range rebuilt, so no URL
/// of the next bucket is lost.
#[test]
fn a_bucket_reaching_past_the_next_is_repaired_not_split() {
    let (_dir, log) = fresh();
    let known = urls("reach", 20_000);
    discover_all(&log, &known, 1000);
    let buckets = url_buckets(&log);
    // A bucket followed by one of more than 44 entries.
    let at = (0..buckets.len() - 1)
        .find(|&i| buckets[i + 1].1.0.len() > 44)
        .unwrap();
    let (ka, a) = &buckets[at];
    let (kb, b) = &buckets[at + 1];
    // 20 of its own, then the next bucket's first 44: 64 entries, of
    // which the upper half lies in the next bucket's range.
    let mut reach: Vec<(u128, u64)> = a.0.iter().take(20).copied().collect();
    reach.extend(b.0.iter().take(44).copied());
    log.url_buckets
        .insert(bucket_key(*ka), Bucket(reach).encode())
        .unwrap();
    log.forget_known_urls();
    // A new URL for that bucket makes it split.
    let hash = log.url_hash().unwrap();
    let new = (0..)
        .map(|i| format!("http://reach-new/{i}"))
        .find(|u| {
            let t = top(hash.fingerprint(u.as_bytes()));
            t >= *ka && t < *kb
        })
        .unwrap();
    assert_eq!(
        log.discover(&rec(&new, State::Queued)).unwrap(),
        Some(known.len() as u64 + 1)
    );
    for (i, url) in known.iter().enumerate() {
        assert_eq!(log.id_of(url).unwrap(), Some(i as u64 + 1), "{url}");
    }
    assert_eq!(log.id_of(&new).unwrap(), Some(known.len() as u64 + 1));
    check_consistent(&log);
}

/// Damage at the edges of the key space, and in two buckets one batch
/// meets: the first bucket, the last, a stray key sorting below bucket 0,
/// and two damaged buckets repaired in one `apply`.
#[test]
fn repairs_at_the_edges_and_two_in_one_batch() {
    let (_dir, log) = fresh();
    let known = urls("edges", 5_000);
    discover_all(&log, &known, 500);
    let hash = log.url_hash().unwrap();
    let bucket_index = |url: &str| {
        let t = top(hash.fingerprint(url.as_bytes()));
        url_buckets(&log)
            .iter()
            .rposition(|(k, _)| *k <= t)
            .unwrap()
    };
    let all_found = |case: &str| {
        for (i, url) in known.iter().enumerate() {
            assert_eq!(log.id_of(url).unwrap(), Some(i as u64 + 1), "{case}: {url}");
        }
        check_consistent(&log);
    };
    let n = url_buckets(&log).len();
    let in_bucket = |at: usize| {
        known
            .iter()
            .find(|u| bucket_index(u) == at)
            .unwrap()
            .clone()
    };
    // The first and the last bucket.
    for at in [0, n - 1] {
        let key = url_buckets(&log)[at].0;
        let url = in_bucket(at);
        log.url_buckets
            .insert(bucket_key(key), &b"\x01short"[..])
            .unwrap();
        log.forget_known_urls();
        assert!(log.id_of(&url).is_err());
        assert_eq!(log.discover(&rec(&url, State::Queued)).unwrap(), None);
        all_found(&format!("bucket {at}"));
    }
    // A stray key below bucket 0: no bucket reads it, a rebuild of bucket
    // 0 removes it.
    let url = in_bucket(0);
    let stray = [0u8; 7];
    log.url_buckets.insert(&stray[..], &b"x"[..]).unwrap();
    log.url_buckets
        .insert(bucket_key(0), &b"\x01short"[..])
        .unwrap();
    log.forget_known_urls();
    assert_eq!(log.discover(&rec(&url, State::Queued)).unwrap(), None);
    assert!(!log.url_buckets.contains_key(&stray[..]).unwrap());
    all_found("stray key below bucket 0");
    // Two damaged buckets, one batch.
    let (x, y) = (in_bucket(3), in_bucket(n / 2));
    let buckets = url_buckets(&log);
    // A third, which the batch does not meet: repaired in the same scan.
    for at in [3, n / 2, n - 2] {
        let key = buckets[at].0;
        log.url_buckets
            .insert(bucket_key(key), &b"\x01short"[..])
            .unwrap();
        log.forget_known_urls();
    }
    let batch = [
        rec(&x, State::Queued),
        rec(&y, State::Queued),
        rec("http://edges/new", State::Queued),
    ];
    assert_eq!(
        discover_records(&log, &batch, 3),
        vec![None, None, Some(known.len() as u64 + 1)]
    );
    all_found("two in one batch");
}

/// An update naming another URL than the stored (readable) body's is
/// refused at once: the URL index is not asked (here its bucket of that
/// URL is damaged, and stays so: nothing met it).
#[test]
fn an_update_to_another_url_does_not_ask_the_index() {
    let (_dir, log) = fresh();
    let known = urls("other", 2_000);
    discover_all(&log, &known, 500);
    // Another known URL in another bucket than id 1's (`known[0]`): the
    // hash is keyed per log, so which one is chance.
    let (_, key0) = bucket_of(&log, &known[0]);
    let (other, key) = known[1..]
        .iter()
        .map(|url| (url, bucket_of(&log, url).1))
        .find(|(_, key)| *key != key0)
        .expect("2,000 URLs fill more than one bucket");
    log.url_buckets
        .insert(bucket_key(key), &b"\x01junk"[..])
        .unwrap();
    log.forget_known_urls();
    assert!(matches!(
        log.update(1, &rec(other, State::Fetched)),
        Err(StoreError::UrlChanged { id: 1, .. })
    ));
    assert_eq!(
        log.url_buckets.get(bucket_key(key)).unwrap().as_deref(),
        Some(&b"\x01junk"[..])
    );
}

/// The URLs met last are answered from memory (`UrlLog::known_urls`),
/// those just written and those just read: with their bucket damaged they
/// still have their ids, and once forgotten a look-up reads the index and
/// meets the damage.
#[test]
fn urls_met_last_are_known_without_reading_the_index() {
    let (_dir, log) = fresh();
    let known = urls("recent", 300);
    discover_all(&log, &known, 100);
    let (_, key) = bucket_of(&log, &known[7]);
    let stored = log.url_buckets.get(bucket_key(key)).unwrap().unwrap();
    let stored = || stored.clone();
    let damage = || {
        log.url_buckets
            .insert(bucket_key(key), &b"\x01junk"[..])
            .unwrap();
    };
    damage();
    assert_eq!(log.id_of(&known[7]).unwrap(), Some(8), "written last");
    log.forget_known_urls();
    assert!(log.id_of(&known[7]).is_err());
    // Read from the index once: noted.
    log.url_buckets.insert(bucket_key(key), stored()).unwrap();
    assert_eq!(log.id_of(&known[7]).unwrap(), Some(8));
    damage();
    assert_eq!(log.id_of(&known[7]).unwrap(), Some(8), "read last");
    // A URL not in the log is not noted as absent: found once written.
    log.url_buckets.insert(bucket_key(key), stored()).unwrap();
    let later = "http://recent/later";
    assert_eq!(log.id_of(later).unwrap(), None);
    let id = log.discover(&rec(later, State::Queued)).unwrap();
    assert_eq!(id, Some(301));
    assert_eq!(log.id_of(later).unwrap(), id);
    // A bucket rebuilt after damage: what was noted is forgotten (a note
    // may have come from the damaged bucket). The bucket `known[7]` is in
    // now: writing `later` may have split the one above (the hash is keyed
    // per log, so only sometimes), and damage to the old key then missed.
    assert!(log.known_url_notes() > 0);
    let (_, key_now) = bucket_of(&log, &known[7]);
    log.url_buckets
        .insert(bucket_key(key_now), &b"\x01junk"[..])
        .unwrap();
    assert_eq!(log.discover(&rec(&known[7], State::Queued)).unwrap(), None);
    assert_eq!(log.known_url_notes(), 0);
    assert_eq!(log.id_of(&known[7]).unwrap(), Some(8));
}
