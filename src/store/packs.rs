//! The records of the URL log, packed [`PACK_IDS`] consecutive ids to a
//! sled entry (the `record_packs` tree, layout 6).
//!
//! Why packs: sled 0.34 keeps a page-table entry and a cache descriptor
//! per page of every tree, and leaves split at 16 entries, so its resident
//! memory grows with the number of ENTRIES, whatever the cache size; each
//! key written also costs its own share of a transaction. One entry per
//! record made the records most of a large log's memory. Eight records
//! to an entry divide that by eight while a pack stays small (about a
//! kilobyte with fetched records): reading one record reads its pack,
//! and a crawl writes the records of a pack close together in time (ids
//! follow discovery), so a batch or the writer's cache of recent packs
//! usually has the pack at hand.
//!
//! A pack's value:
//!
//! ```text
//! [PACK_FORMAT] then for each of the 8 slots: varint(len + 1) record bytes
//! ```
//!
//! A length of 0 is an empty slot (no record with that id yet); `len + 1`
//! so that a record of zero bytes, damage carried over by the migration,
//! stays a (damaged) record. Each record's bytes are the record codec's
//! (`record.rs`) unchanged, so one record is found by skipping the
//! lengths before it, without decoding the others. The key is id / 8 as
//! u64 big-endian, so a range over keys is discovery order. Ids start
//! at 1: slot 0 of pack 0 stays empty.
//!
//! Damage: a value whose frame does not parse (unknown format, a length
//! past the end, bytes left over) hides its eight records, each read as
//! [`DecodeError::Pack`]; a frame that parses with a damaged record in a
//! slot hides only that record, as a damaged entry did before layout 6.
//! Nothing here panics on any bytes.
//!
//! Writes go through [`PackWrites`]: a batch reads each pack it touches
//! at most once and writes it once. The writer keeps the packs it
//! committed lately ([`Cached`], two generations as `blocks.rs` does for
//! bitmaps, trusted for the same reason), so the next write to a pack
//! reads nothing, and the old state, URL and link depth an update needs
//! come from the cached pack's slot.

use rustc_hash::FxHashMap;
use std::collections::hash_map::Entry;
use std::ops::Deref;

use sled::IVec;
use sled::transaction::{ConflictableTransactionError, TransactionalTree};

use super::StoreError;
use super::generations::Generations;
use super::record::DecodeError;

/// Tree name of layout 6's records.
pub(crate) const RECORD_PACKS: &str = "record_packs";

/// Ids per pack.
pub(crate) const PACK_IDS: u64 = 8;

/// The first byte of every pack: a later frame must be refused, not
/// misread.
const PACK_FORMAT: u8 = 1;

/// Packs per generation of the writer's cache: about a kilobyte each
/// with fetched records, so two generations hold about a megabyte. A
/// crawl writes at a few places of the id space (the tail it discovers
/// into, the fronts of its queues it fetches from).
const GENERATION: usize = 512;

/// Bytes of packs per generation of the writer's cache: records with a
/// long trace, title and excerpt can make a pack tens of kilobytes, and
/// the count alone would then let the cache grow to tens of megabytes.
/// Two generations hold at most about 8 MB (plus the one pack noted
/// last).
const GENERATION_BYTES: usize = 4 << 20;

/// Where each slot's record lies in a pack value: `(start, end)`.
pub(crate) type Frame = [Option<(usize, usize)>; PACK_IDS as usize];

type TxResult<T> = Result<T, ConflictableTransactionError<StoreError>>;

/// The pack of `id`.
pub(crate) fn pack_of(id: u64) -> u64 {
    id / PACK_IDS
}

/// The slot of `id` in its pack.
pub(crate) fn slot_of(id: u64) -> usize {
    (id % PACK_IDS) as usize
}

/// The first id of pack `pack`.
pub(crate) fn first_id(pack: u64) -> u64 {
    pack * PACK_IDS
}

pub(crate) fn pack_key(pack: u64) -> [u8; 8] {
    pack.to_be_bytes()
}

/// The pack number of a key; `None` for a key that is not one (damage),
/// or a pack whose ids would not fit a u64.
pub(crate) fn parse_pack_key(key: &[u8]) -> Option<u64> {
    let pack = u64::from_be_bytes(key.try_into().ok()?);
    (pack <= u64::MAX / PACK_IDS).then_some(pack)
}

/// Reads a varint at `at`; the value and the position after it. Only
/// the shortest encoding of a value reads (`push_varint` writes no
/// other), so a byte changed by damage is less likely to read as a
/// length: an overlong one (a last byte of 0 after the first) and a
/// tenth byte above 1 (bits past 64) are refused, not truncated.
fn varint(bytes: &[u8], mut at: usize) -> Option<(u64, usize)> {
    let mut value: u64 = 0;
    for i in 0..10 {
        let byte = *bytes.get(at)?;
        at += 1;
        if i == 9 && byte > 1 {
            return None;
        }
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            if i > 0 && byte == 0 {
                return None;
            }
            return Some((value, at));
        }
    }
    None
}

fn push_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Where the records of a pack value lie; [`DecodeError::Pack`] when the
/// frame does not parse.
pub(crate) fn frame(value: &[u8]) -> Result<Frame, DecodeError> {
    let mut slots: Frame = [None; PACK_IDS as usize];
    match value.first() {
        Some(&PACK_FORMAT) => {}
        Some(_) => return Err(DecodeError::Pack("unknown pack format")),
        None => return Err(DecodeError::Pack("empty pack")),
    }
    let mut at = 1;
    for slot in &mut slots {
        let (len, start) = varint(value, at).ok_or(DecodeError::Pack("truncated length"))?;
        at = start;
        if len == 0 {
            continue;
        }
        let end = usize::try_from(len - 1)
            .ok()
            .and_then(|len| start.checked_add(len))
            .filter(|end| *end <= value.len())
            .ok_or(DecodeError::Pack("record past the end"))?;
        *slot = Some((start, end));
        at = end;
    }
    if at != value.len() {
        return Err(DecodeError::Pack("trailing bytes"));
    }
    Ok(slots)
}

/// A pack value holding `records` (slot order; `None`: empty slot).
pub(crate) fn encode<'a>(records: impl IntoIterator<Item = Option<&'a [u8]>>) -> Vec<u8> {
    let mut out = vec![PACK_FORMAT];
    let mut slots = 0;
    for record in records.into_iter().take(PACK_IDS as usize) {
        slots += 1;
        match record {
            None => out.push(0),
            Some(bytes) => {
                push_varint(&mut out, bytes.len() as u64 + 1);
                out.extend_from_slice(bytes);
            }
        }
    }
    // Fewer than 8 given: the rest are empty.
    out.resize(out.len() + (PACK_IDS as usize - slots), 0);
    out
}

/// The stored bytes of one record, inside its pack's value (shared, not
/// copied).
#[derive(Clone, Debug)]
pub(crate) struct RecordBytes {
    pack: IVec,
    start: usize,
    end: usize,
}

impl Deref for RecordBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.pack[self.start..self.end]
    }
}

/// What a pack holds for one id.
pub(crate) type Slot = Result<Option<RecordBytes>, DecodeError>;

/// Reads records one id at a time, keeping the last pack read with its
/// frame: ids met in order (paging a state) read and parse each pack
/// once.
#[derive(Default)]
pub(crate) struct PackReader {
    /// The last pack read: its number, and its value with its frame
    /// (`None`: no such pack).
    last: Option<(u64, Option<Parsed>)>,
}

/// A pack value with its frame, parsed once.
type Parsed = (IVec, Result<Frame, DecodeError>);

impl PackReader {
    /// Record `id`: `Ok(None)` when there is none.
    pub(crate) fn get(&mut self, tree: &sled::Tree, id: u64) -> Result<Slot, StoreError> {
        let pack = pack_of(id);
        if self.last.as_ref().is_none_or(|(p, _)| *p != pack) {
            let value = tree.get(pack_key(pack))?.map(|value| {
                let frame = frame(&value);
                (value, frame)
            });
            self.last = Some((pack, value));
        }
        let Some((_, Some((value, frame)))) = &self.last else {
            return Ok(Ok(None));
        };
        Ok(frame.clone().map(|frame| {
            frame[slot_of(id)].map(|(start, end)| RecordBytes {
                pack: value.clone(),
                start,
                end,
            })
        }))
    }
}

/// The records of the ids `first..=last` stored in a range of packs, in
/// id order or newest first: `(id, its slot)` for each id with a record,
/// and each id of a pack whose frame does not parse (with the error).
/// A key that is not a pack's (damage) is passed over: it names no id,
/// so no page could resume past it, and the walks over every URL pass
/// it over too.
pub(crate) struct Records {
    packs: Box<dyn Iterator<Item = sled::Result<(IVec, IVec)>>>,
    first: u64,
    last: u64,
    back: bool,
    pending: std::vec::IntoIter<(u64, Slot)>,
}

impl Records {
    pub(crate) fn new(tree: &sled::Tree, first: u64, last: u64, back: bool) -> Records {
        let range = tree.range(pack_key(pack_of(first))..=pack_key(pack_of(last)));
        let packs: Box<dyn Iterator<Item = _>> = if back {
            Box::new(range.rev())
        } else {
            Box::new(range)
        };
        Records {
            packs,
            first,
            last,
            back,
            pending: Vec::new().into_iter(),
        }
    }

    /// The items of one pack, in the walk's direction.
    fn items(&self, pack: u64, value: &IVec) -> Vec<(u64, Slot)> {
        let base = first_id(pack);
        let ids = (0..PACK_IDS)
            .map(|i| base + i)
            .filter(|id| (self.first..=self.last).contains(id));
        let mut items: Vec<(u64, Slot)> = match frame(value) {
            Ok(frame) => ids
                .filter_map(|id| {
                    frame[slot_of(id)].map(|(start, end)| {
                        let bytes = RecordBytes {
                            pack: value.clone(),
                            start,
                            end,
                        };
                        (id, Ok(Some(bytes)))
                    })
                })
                .collect(),
            // Id 0 is never given out: not one of the hidden records.
            Err(e) => ids
                .filter(|id| *id != 0)
                .map(|id| (id, Err(e.clone())))
                .collect(),
        };
        if self.back {
            items.reverse();
        }
        items
    }
}

impl Iterator for Records {
    type Item = Result<(u64, Slot), StoreError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.pending.next() {
                return Some(Ok(item));
            }
            let (key, value) = match self.packs.next()? {
                Ok(entry) => entry,
                Err(e) => return Some(Err(e.into())),
            };
            let Some(pack) = parse_pack_key(&key) else {
                continue;
            };
            self.pending = self.items(pack, &value).into_iter();
        }
    }
}

/// The packs the writer last committed, exactly as sled holds them (see
/// the module docs and `blocks.rs` for why that can be trusted).
#[derive(Debug)]
pub(crate) struct Cached(Generations<u64, IVec>);

impl Default for Cached {
    fn default() -> Self {
        Cached(Generations::weighted(
            GENERATION,
            GENERATION_BYTES,
            |value: &IVec| value.len(),
        ))
    }
}

impl Cached {
    /// Notes what a committed transaction wrote to its packs.
    pub(crate) fn note(&mut self, written: Vec<(u64, IVec)>) {
        for (pack, value) in written {
            self.0.insert(pack, value);
        }
    }

    /// Forgets everything: after a failed transaction, a repair, a test
    /// that writes behind the log's back.
    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }

    /// Bytes of packs held: for the tests' check of the bound.
    #[cfg(test)]
    pub(crate) fn bytes(&self) -> usize {
        self.0.weight()
    }

    /// Every pack noted with its value: for the tests' check against sled.
    #[cfg(test)]
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u64, &IVec)> + '_ {
        self.0.iter().map(|(pack, value)| (*pack, value))
    }
}

/// One pack as a batch has it: the stored value with its frame, and the
/// records the batch wrote into it.
struct Touched<'a> {
    old: Option<IVec>,
    frame: Result<Frame, DecodeError>,
    new: [Option<&'a [u8]>; PACK_IDS as usize],
}

impl Touched<'_> {
    /// What slot `slot` holds at this point of the batch.
    fn get(&self, slot: usize) -> Result<Option<&[u8]>, DecodeError> {
        if let Some(bytes) = self.new[slot] {
            return Ok(Some(bytes));
        }
        let frame = self.frame.as_ref().map_err(Clone::clone)?;
        Ok(match (&self.old, frame[slot]) {
            (Some(old), Some((start, end))) => Some(&old[start..end]),
            _ => None,
        })
    }
}

/// The packs one transaction touches, read at most once and written once.
pub(crate) struct PackWrites<'a> {
    cached: &'a Cached,
    tree: &'a TransactionalTree,
    /// The first id not given out before the batch: a pack whose ids are
    /// all at or above it holds nothing yet, and is not read.
    next_id: u64,
    touched: FxHashMap<u64, Touched<'a>>,
    /// Packs read from the tree (for the tests' count of reads).
    pub(crate) reads: usize,
}

impl<'a> PackWrites<'a> {
    pub(crate) fn new(cached: &'a Cached, tree: &'a TransactionalTree, next_id: u64) -> Self {
        PackWrites {
            cached,
            tree,
            next_id,
            touched: FxHashMap::default(),
            reads: 0,
        }
    }

    fn pack(&mut self, pack: u64) -> TxResult<&mut Touched<'a>> {
        match self.touched.entry(pack) {
            Entry::Occupied(entry) => Ok(entry.into_mut()),
            Entry::Vacant(entry) => {
                // Id 0 is never given out: pack 0 is new at next id 1.
                let old = if first_id(pack).max(1) >= self.next_id {
                    None
                } else if let Some(value) = self.cached.0.get(&pack) {
                    Some(value.clone())
                } else {
                    self.reads += 1;
                    self.tree.get(pack_key(pack))?
                };
                let frame = match &old {
                    Some(value) => frame(value),
                    None => Ok([None; PACK_IDS as usize]),
                };
                Ok(entry.insert(Touched {
                    old,
                    frame,
                    new: [None; PACK_IDS as usize],
                }))
            }
        }
    }

    /// The bytes record `id` holds at this point of the batch (`None`: no
    /// record). A pack that does not parse is [`StoreError::Corrupt`].
    pub(crate) fn stored(&mut self, id: u64) -> TxResult<Option<&[u8]>> {
        let touched = self.pack(pack_of(id))?;
        touched.get(slot_of(id)).map_err(|source| {
            ConflictableTransactionError::Abort(StoreError::Corrupt { id, source })
        })
    }

    /// Writes `bytes` as record `id`. A pack that does not parse is
    /// [`StoreError::Corrupt`]: rewriting it would lose the other records
    /// it holds.
    pub(crate) fn put(&mut self, id: u64, bytes: &'a [u8]) -> TxResult<()> {
        let touched = self.pack(pack_of(id))?;
        if let Err(source) = &touched.frame {
            return Err(ConflictableTransactionError::Abort(StoreError::Corrupt {
                id,
                source: source.clone(),
            }));
        }
        touched.new[slot_of(id)] = Some(bytes);
        Ok(())
    }

    /// Writes each pack the batch wrote into, once, and returns them for
    /// the writer's cache.
    pub(crate) fn finish(self) -> TxResult<Vec<(u64, IVec)>> {
        let mut written = Vec::with_capacity(self.touched.len());
        for (pack, touched) in self.touched {
            if touched.new.iter().all(Option::is_none) {
                continue;
            }
            let records: Vec<Option<&[u8]>> = (0..PACK_IDS as usize)
                .map(|slot| touched.get(slot).ok().flatten())
                .collect();
            let value = IVec::from(encode(records));
            self.tree.insert(&pack_key(pack), value.clone())?;
            written.push((pack, value));
        }
        Ok(written)
    }
}

#[cfg(test)]
mod tests;
