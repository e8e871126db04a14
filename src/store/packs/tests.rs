use proptest::prelude::*;

use super::*;

fn slots_of(value: &[u8]) -> Vec<Option<Vec<u8>>> {
    frame(value)
        .expect("frame")
        .iter()
        .map(|slot| slot.map(|(start, end)| value[start..end].to_vec()))
        .collect()
}

/// Empty slots, a record of zero bytes (damage carried over), one
/// long enough for a two-byte length, fewer than eight given.
#[test]
fn packs_round_trip_with_empty_slots() {
    let long = vec![7u8; 300];
    let cases: Vec<Vec<Option<&[u8]>>> = vec![
        vec![None; 8],
        vec![
            None,
            Some(b"ab"),
            None,
            Some(b""),
            Some(&long),
            None,
            None,
            Some(b"z"),
        ],
        vec![Some(b"first")],
        vec![Some(b"a"); 8],
    ];
    for records in cases {
        let value = encode(records.iter().copied());
        let mut expected: Vec<Option<Vec<u8>>> =
            records.iter().map(|r| r.map(<[u8]>::to_vec)).collect();
        expected.resize(8, None);
        assert_eq!(slots_of(&value), expected);
    }
    // Nine given: the ninth has no slot.
    let value = encode([Some(&b"x"[..]); 9]);
    assert_eq!(slots_of(&value).len(), 8);
    assert_eq!(value.len(), 1 + 8 * 2);
}

#[test]
fn damaged_frames_are_errors() {
    let good = encode([None, Some(&b"abc"[..]), Some(&b"de"[..])]);
    assert!(frame(&good).is_ok());
    for len in 0..good.len() {
        assert!(frame(&good[..len]).is_err(), "truncated to {len}");
    }
    let mut trailing = good.clone();
    trailing.push(0);
    assert!(frame(&trailing).is_err());
    let mut format = good.clone();
    format[0] = 2;
    assert!(frame(&format).is_err());
    // A length past the end, and one that overflows.
    assert!(frame(&[PACK_FORMAT, 0x7f]).is_err());
    let huge = [
        PACK_FORMAT,
        0xff,
        0xff,
        0xff,
        0xff,
        0xff,
        0xff,
        0xff,
        0xff,
        0xff,
        0x01,
    ];
    assert!(frame(&huge).is_err());
    assert!(frame(&[PACK_FORMAT, 0x80, 0x80, 0x80]).is_err());
}

/// Only the shortest encoding of a length reads: an overlong one and
/// a tenth byte past 64 bits are refused, not truncated.
#[test]
fn varints_read_only_their_shortest_encoding() {
    for value in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
        let mut out = Vec::new();
        push_varint(&mut out, value);
        assert_eq!(varint(&out, 0), Some((value, out.len())), "{value}");
    }
    // Overlong: 0 and 1 with a trailing zero byte.
    assert_eq!(varint(&[0x80, 0x00], 0), None);
    assert_eq!(varint(&[0x81, 0x80, 0x00], 0), None);
    // u64::MAX ends on a tenth byte of 1; 2 or more would be bits
    // past 64, and an eleventh byte is never read.
    let mut max = vec![0xff; 9];
    max.push(0x01);
    assert_eq!(varint(&max, 0), Some((u64::MAX, 10)));
    for tenth in [0x02, 0x7f, 0x81] {
        max[9] = tenth;
        assert_eq!(varint(&max, 0), None, "tenth byte {tenth:#x}");
    }
    max[9] = 0x81;
    max.push(0x00);
    assert_eq!(varint(&max, 0), None);
    // In a pack: an overlong length is a damaged frame.
    assert!(frame(&[PACK_FORMAT, 0x81, 0x00, 0, 0, 0, 0, 0, 0, 0]).is_err());
    assert!(frame(&[PACK_FORMAT, 0x01, 0, 0, 0, 0, 0, 0, 0]).is_ok());
}

/// The writer's cache of packs holds at most about 8 MB whatever
/// the packs weigh, and still keeps the pack noted last.
#[test]
fn the_pack_cache_is_bounded_by_bytes() {
    let mut cached = Cached::default();
    let big = IVec::from(vec![1u8; 64 << 10]);
    for pack in 0..1_000u64 {
        cached.note(vec![(pack, big.clone())]);
        assert!(cached.bytes() <= 2 * GENERATION_BYTES, "pack {pack}");
        assert!(cached.0.get(&pack).is_some());
    }
    // Small packs: bounded by count, as before.
    let mut cached = Cached::default();
    let small = IVec::from(vec![1u8; 100]);
    for pack in 0..10_000u64 {
        cached.note(vec![(pack, small.clone())]);
    }
    assert!(cached.0.len() <= 2 * GENERATION);
    // A pack noted again replaces its weight, not adds to it.
    let mut cached = Cached::default();
    for _ in 0..100 {
        cached.note(vec![(1, big.clone())]);
    }
    assert_eq!(cached.bytes(), big.len());
}

proptest! {
    /// Any bytes: an error or a frame whose slots lie inside the
    /// value, in order, never a panic.
    #[test]
    fn no_bytes_make_a_frame_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        if let Ok(frame) = frame(&bytes) {
            let mut at = 1;
            for (start, end) in frame.iter().flatten() {
                prop_assert!(at <= *start && start <= end && *end <= bytes.len());
                at = *end;
            }
        }
    }

    /// A good pack with one byte changed: never a panic, and what
    /// parses still lies inside the value.
    #[test]
    fn flipped_packs_never_panic(
        records in proptest::collection::vec(
            proptest::option::of(proptest::collection::vec(any::<u8>(), 0..40)), 0..9),
        at in any::<usize>(),
        flip in 1u8..,
    ) {
        let mut value = encode(records.iter().map(Option::as_deref));
        let mut expected = records.clone();
        expected.resize(8, None);
        expected.truncate(8);
        prop_assert_eq!(slots_of(&value), expected);
        let at = at % value.len();
        value[at] ^= flip;
        if let Ok(frame) = frame(&value) {
            for (start, end) in frame.iter().flatten() {
                prop_assert!(start <= end && *end <= value.len());
            }
        }
    }
}

/// A batch's records in one pack are one write of it; what it wrote is
/// handed back for the cache, and a batch finding the pack cached
/// reads nothing. A pack that does not parse takes no write.
#[test]
fn a_batch_writes_each_pack_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = sled::Config::new().path(dir.path()).open().unwrap();
    let tree = db.open_tree(RECORD_PACKS).unwrap();
    let mut cached = Cached::default();
    let records: Vec<Vec<u8>> = (0..20u8).map(|i| vec![i; 3]).collect();
    // Ids 1 to 19: packs 0, 1 and 2, none stored before (next id 1).
    let run = |cached: &Cached, next_id: u64, ids: &[u64]| {
        tree.transaction(|tree| {
            let mut writes = PackWrites::new(cached, tree, next_id);
            for &id in ids {
                writes.put(id, &records[id as usize])?;
            }
            let reads = writes.reads;
            Ok((writes.finish()?, reads))
        })
    };
    let ids: Vec<u64> = (1..20).collect();
    let (written, reads) = run(&cached, 1, &ids).unwrap();
    assert_eq!(reads, 0, "packs past the last id are not read");
    let mut packs: Vec<u64> = written.iter().map(|(pack, _)| *pack).collect();
    packs.sort_unstable();
    assert_eq!(packs, [0, 1, 2], "one write per pack");
    assert_eq!(tree.len(), 3);
    for (pack, value) in &written {
        assert_eq!(tree.get(pack_key(*pack)).unwrap().as_ref(), Some(value));
    }
    cached.note(written);
    // Rewrites in packs 1 (cached) and 2 (forgotten: read once).
    let mut partial = Cached::default();
    partial.note(vec![(1, tree.get(pack_key(1)).unwrap().unwrap())]);
    let (written, reads) = run(&partial, 20, &[8, 9, 15, 16, 17]).unwrap();
    assert_eq!(reads, 1);
    assert_eq!(written.len(), 2);
    let (_, reads) = run(&cached, 20, &[8, 16]).unwrap();
    assert_eq!(reads, 0, "cached packs are not read");
    // A damaged pack is not rewritten over the records it held.
    tree.insert(pack_key(1), &b"junk"[..]).unwrap();
    let failed = run(&Cached::default(), 20, &[9]);
    assert!(matches!(
        failed,
        Err(sled::transaction::TransactionError::Abort(
            StoreError::Corrupt { id: 9, .. }
        ))
    ));
    assert_eq!(
        tree.get(pack_key(1)).unwrap().as_deref(),
        Some(&b"junk"[..])
    );
}
