//! The `briefs` tree: every URL's [`Brief`](super::Brief) packed many to a
//! sled entry, so that a walk over every URL in the log (the console's
//! what-if) reads a few thousand entries instead of one per URL.
//!
//! Why a tree of its own: sled's cost of walking a tree it must bring back
//! from disk is about 1 µs per entry whatever the entry's size (measured
//! on a 1,000,000-URL log: 0.9 s of CPU for the state index's 9-byte keys,
//! 1.1 s for the whole records), so only fewer entries make the walk
//! cheaper. It holds two kinds of entry, written in the same transaction
//! as the records they mirror:
//!
//! - **Runs** (`b'r'` ++ first id, u64 BE): the URLs transactions
//!   discovered, in id order, each as its id (a delta), link depth and URL
//!   front-coded against the URL before it. A transaction appends to the
//!   last run while that is under [`RUN_BYTES`] (`meta` [`LAST_RUN`] names
//!   it), so that a crawl committing a few URLs at a time still packs many
//!   to an entry.
//! - **Status blocks** (`b's'` ++ id / 256, u64 BE): two bytes per id for
//!   the part of a brief that changes, the state byte and a code for the
//!   content type. [`NO_ENTRY`] marks an id with no record.
//!
//! Content types are coded through a table kept in `meta` under
//! [`CONTENT_TYPES`] (one type per line, code = line number + 1); code 0
//! is no content type. [`CODE_IN_RECORD`] says the run and the code do not
//! tell the whole brief, which is read from the record itself: a content
//! type the table cannot hold (254 types, an empty type, one with a line
//! break), or a link depth that changed after the URL was discovered (a
//! URL revived from a `nofollow` link at a new depth). That code stays.

use sled::transaction::{TransactionalTree, UnabortableTransactionError};

use std::sync::Arc;

use sled::IVec;

use super::brief::{Brief, decode_brief};
use super::index::parse_id;
use super::record::{State, UrlRecord};
use super::{StoreError, UrlLog};

/// Ids per status block.
pub(crate) const BLOCK_IDS: u64 = 256;
/// A status slot's state byte when the id has no record.
pub(crate) const NO_ENTRY: u8 = 0xff;
/// The content-type code read from the record instead of the table.
pub(crate) const CODE_IN_RECORD: u8 = 0xff;
/// The `meta` key of the content-type table.
pub(crate) const CONTENT_TYPES: &[u8] = b"content_types";
/// Types the table holds at most (codes 1 to 254).
const TABLE_MAX: usize = 254;
/// The `meta` key of the first id of the run transactions append to.
pub(crate) const LAST_RUN: &[u8] = b"briefs_last_run";
/// A run takes more URLs while it is shorter than this: rewriting it costs
/// a transaction at most this much, and a million URLs make about ten
/// thousand runs.
const RUN_BYTES: usize = 2048;

const RUN: u8 = b'r';
const STATUS: u8 = b's';

/// The key of the run whose first id is `id`.
pub(crate) fn run_key(id: u64) -> [u8; 9] {
    prefixed(RUN, id)
}

/// The key of the status block holding `id`.
pub(crate) fn status_key(id: u64) -> [u8; 9] {
    prefixed(STATUS, id / BLOCK_IDS)
}

/// The id a run key starts at; `None` for any other key.
pub(crate) fn parse_run_key(key: &[u8]) -> Option<u64> {
    match key {
        [RUN, id @ ..] => Some(u64::from_be_bytes(id.try_into().ok()?)),
        _ => None,
    }
}

/// The block number of a status key; `None` for any other key.
pub(crate) fn parse_status_key(key: &[u8]) -> Option<u64> {
    match key {
        [STATUS, block @ ..] => Some(u64::from_be_bytes(block.try_into().ok()?)),
        _ => None,
    }
}

fn prefixed(kind: u8, n: u64) -> [u8; 9] {
    let mut key = [kind; 9];
    key[1..].copy_from_slice(&n.to_be_bytes());
    key
}

/// A status block with every slot empty.
pub(crate) fn empty_block() -> Vec<u8> {
    vec![NO_ENTRY; 2 * BLOCK_IDS as usize]
}

/// Writes `id`'s state and content-type code into its block; true when
/// that changed the block. [`CODE_IN_RECORD`] stays once set. A block of
/// the wrong size (damage) is made whole first.
pub(crate) fn set_status(block: &mut Vec<u8>, id: u64, state: State, code: u8) -> bool {
    if block.len() != 2 * BLOCK_IDS as usize {
        *block = empty_block();
    }
    let slot = 2 * (id % BLOCK_IDS) as usize;
    let code = match block[slot..slot + 2] {
        [state, CODE_IN_RECORD] if state != NO_ENTRY => CODE_IN_RECORD,
        _ => code,
    };
    let new = [state.byte(), code];
    if block[slot..slot + 2] == new {
        return false;
    }
    block[slot..slot + 2].copy_from_slice(&new);
    true
}

/// `id`'s state and content-type code in its block; `None` when the slot
/// is empty or does not hold a state.
pub(crate) fn get_status(block: &[u8], id: u64) -> Option<(State, u8)> {
    let slot = 2 * (id % BLOCK_IDS) as usize;
    match block.get(slot..slot + 2)? {
        [state, code] => Some((State::from_byte(*state)?, *code)),
        _ => None,
    }
}

/// The content-type table as stored (one type per line).
pub(crate) fn parse_table(bytes: &[u8]) -> Vec<String> {
    if bytes.is_empty() {
        return Vec::new();
    }
    String::from_utf8_lossy(bytes)
        .split('\n')
        .map(str::to_string)
        .collect()
}

pub(crate) fn encode_table(table: &[String]) -> Vec<u8> {
    table.join("\n").into_bytes()
}

/// The code of `content_type` in `table`, when it is there (or needs no
/// table: none at all, or one the table can never hold).
pub(crate) fn known_code(table: &[String], content_type: Option<&str>) -> Option<u8> {
    let Some(ct) = content_type else {
        return Some(0);
    };
    // An empty type would be an empty line, which the stored table
    // cannot tell from no line.
    if ct.is_empty() || ct.contains('\n') {
        return Some(CODE_IN_RECORD);
    }
    // Only the table's first TABLE_MAX lines have codes: a damaged table
    // read back longer must not wrap into 0 or CODE_IN_RECORD.
    table
        .iter()
        .take(TABLE_MAX)
        .position(|t| t == ct)
        .and_then(|i| u8::try_from(i + 1).ok())
}

/// The code of `content_type`, adding it to `table` when there is room;
/// true in the second place when the table grew.
pub(crate) fn code_adding(table: &mut Vec<String>, content_type: Option<&str>) -> (u8, bool) {
    if let Some(code) = known_code(table, content_type) {
        return (code, false);
    }
    match content_type {
        Some(ct) if table.len() < TABLE_MAX => {
            table.push(ct.to_string());
            (table.len() as u8, true)
        }
        _ => (CODE_IN_RECORD, false),
    }
}

/// The content type of a code: `Ok(None)` for none, `Err(())` when it
/// must be read from the record (or the code is past the table).
pub(crate) fn type_of(table: &[String], code: u8) -> Result<Option<&str>, ()> {
    match code {
        0 => Ok(None),
        CODE_IN_RECORD => Err(()),
        n => table
            .get(usize::from(n) - 1)
            .map(|t| Some(t.as_str()))
            .ok_or(()),
    }
}

fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn take_varint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut n = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*pos)?;
        *pos += 1;
        n |= u64::from(byte & 0x7f).checked_shl(shift)?;
        if byte < 0x80 {
            return Some(n);
        }
    }
    None
}

/// Builds one run from URLs discovered in id order.
#[derive(Default)]
pub(crate) struct RunWriter {
    first: Option<u64>,
    last: u64,
    previous: Vec<u8>,
    bytes: Vec<u8>,
}

impl RunWriter {
    /// A writer that appends to the stored run `bytes` starting at
    /// `first`; `None` when that run cannot be read to its end (damage).
    pub(crate) fn resume(first: u64, bytes: &[u8]) -> Option<RunWriter> {
        let mut reader = RunReader::new(first, bytes);
        let mut last = None;
        while let Some((id, ..)) = reader.next_entry() {
            last = Some(id);
        }
        if reader.damaged {
            return None;
        }
        Some(RunWriter {
            first: Some(first),
            last: last?,
            previous: reader.url,
            bytes: bytes.to_vec(),
        })
    }

    pub(crate) fn push(&mut self, id: u64, link_depth: u32, url: &str) {
        let first = *self.first.get_or_insert(id);
        let delta = if self.bytes.is_empty() {
            id - first
        } else {
            id.saturating_sub(self.last)
        };
        self.last = id;
        let url = url.as_bytes();
        let shared = self
            .previous
            .iter()
            .zip(url)
            .take_while(|(a, b)| a == b)
            .count();
        put_varint(&mut self.bytes, delta);
        put_varint(&mut self.bytes, u64::from(link_depth));
        put_varint(&mut self.bytes, shared as u64);
        put_varint(&mut self.bytes, (url.len() - shared) as u64);
        self.bytes.extend_from_slice(&url[shared..]);
        self.previous.clear();
        self.previous.extend_from_slice(url);
    }

    /// The run's key and value; `None` when nothing was pushed.
    pub(crate) fn finish(self) -> Option<([u8; 9], Vec<u8>)> {
        Some((run_key(self.first?), self.bytes))
    }
}

/// Reads a run back, entry by entry. Damage ends the run early rather
/// than failing: a walk over millions of URLs passes over what it cannot
/// read.
pub(crate) struct RunReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    id: u64,
    started: bool,
    url: Vec<u8>,
    /// The run ended early at bytes that do not read.
    damaged: bool,
}

impl<'a> RunReader<'a> {
    pub(crate) fn new(first: u64, bytes: &'a [u8]) -> RunReader<'a> {
        RunReader {
            bytes,
            pos: 0,
            id: first,
            started: false,
            url: Vec::with_capacity(128),
            damaged: false,
        }
    }

    /// The next entry: id, link depth, URL.
    pub(crate) fn next_entry(&mut self) -> Option<(u64, u32, &str)> {
        if self.pos >= self.bytes.len() {
            return None;
        }
        let read = (|| {
            let delta = take_varint(self.bytes, &mut self.pos)?;
            let depth = u32::try_from(take_varint(self.bytes, &mut self.pos)?).ok()?;
            let shared = usize::try_from(take_varint(self.bytes, &mut self.pos)?).ok()?;
            let len = usize::try_from(take_varint(self.bytes, &mut self.pos)?).ok()?;
            let end = self.pos.checked_add(len)?;
            let suffix = self.bytes.get(self.pos..end)?;
            if shared > self.url.len() || (self.started && delta == 0) {
                return None;
            }
            self.pos = end;
            self.id = self.id.checked_add(delta)?;
            self.started = true;
            self.url.truncate(shared);
            self.url.extend_from_slice(suffix);
            Some(depth)
        })();
        let Some(depth) = read else {
            // Damaged: nothing more is read from this run.
            self.pos = self.bytes.len();
            self.damaged = true;
            return None;
        };
        match std::str::from_utf8(&self.url) {
            Ok(url) => Some((self.id, depth, url)),
            Err(_) => {
                self.pos = self.bytes.len();
                self.damaged = true;
                None
            }
        }
    }
}

type TxResult<T> = Result<T, UnabortableTransactionError>;

/// What one transaction writes to the `briefs` tree, gathered as its
/// changes are applied and written by [`BriefWrites::finish`]: one run for
/// the URLs it discovered, each status block it touched once.
pub(crate) struct BriefWrites<'a> {
    /// The content-type table as this process last knew it.
    known: &'a [String],
    /// The table as stored, read only when a type is not in `known`.
    table: Option<Vec<String>>,
    grew: bool,
    /// Discovered URLs: id, link depth, URL.
    discovered: Vec<(u64, u32, &'a str)>,
    /// Touched blocks: number, bytes, changed.
    blocks: Vec<(u64, Vec<u8>, bool)>,
}

impl<'a> BriefWrites<'a> {
    pub(crate) fn new(known: &'a [String]) -> BriefWrites<'a> {
        BriefWrites {
            known,
            table: None,
            grew: false,
            discovered: Vec::new(),
            blocks: Vec::new(),
        }
    }

    /// A newly discovered record (ids in increasing order).
    pub(crate) fn discovered(
        &mut self,
        briefs: &TransactionalTree,
        meta: &TransactionalTree,
        id: u64,
        record: &'a UrlRecord,
    ) -> TxResult<()> {
        self.discovered.push((id, record.link_depth, &record.url));
        self.updated(briefs, meta, id, record, false)
    }

    /// A record written again: its state and content type may have moved;
    /// `depth_moved` when its link depth is not the one it was discovered
    /// at (or that cannot be told).
    pub(crate) fn updated(
        &mut self,
        briefs: &TransactionalTree,
        meta: &TransactionalTree,
        id: u64,
        record: &UrlRecord,
        depth_moved: bool,
    ) -> TxResult<()> {
        let code = if depth_moved {
            CODE_IN_RECORD
        } else {
            self.code(meta, record.content_type.as_deref())?
        };
        let number = id / BLOCK_IDS;
        let at = match self.blocks.iter().position(|(n, ..)| *n == number) {
            Some(at) => at,
            None => {
                let block = match briefs.get(status_key(id))? {
                    Some(bytes) => bytes.to_vec(),
                    None => empty_block(),
                };
                self.blocks.push((number, block, false));
                self.blocks.len() - 1
            }
        };
        let (_, block, changed) = &mut self.blocks[at];
        *changed |= set_status(block, id, record.state, code);
        Ok(())
    }

    fn code(&mut self, meta: &TransactionalTree, content_type: Option<&str>) -> TxResult<u8> {
        if let Some(code) = known_code(self.known, content_type) {
            return Ok(code);
        }
        let table = match &mut self.table {
            Some(table) => table,
            None => {
                let stored = meta.get(CONTENT_TYPES)?;
                self.table
                    .insert(parse_table(stored.as_deref().unwrap_or_default()))
            }
        };
        let (code, grew) = code_adding(table, content_type);
        self.grew |= grew;
        Ok(code)
    }

    /// Writes the run, the changed blocks and a grown table; returns the
    /// table when it grew, for the process to know it from now on.
    pub(crate) fn finish(
        self,
        briefs: &TransactionalTree,
        meta: &TransactionalTree,
    ) -> TxResult<Option<Vec<String>>> {
        if !self.discovered.is_empty() {
            let last = meta.get(LAST_RUN)?.as_deref().and_then(parse_id);
            let resumed = match last {
                Some(first) => briefs
                    .get(run_key(first))?
                    .filter(|run| run.len() < RUN_BYTES)
                    .and_then(|run| RunWriter::resume(first, &run)),
                None => None,
            };
            let mut run = resumed.unwrap_or_default();
            for (id, depth, url) in self.discovered {
                run.push(id, depth, url);
            }
            if let Some((key, value)) = run.finish() {
                briefs.insert(&key, value)?;
                meta.insert(LAST_RUN, &key[1..])?;
            }
        }
        for (number, block, changed) in self.blocks {
            if changed {
                briefs.insert(&prefixed(STATUS, number), block)?;
            }
        }
        match self.table {
            Some(table) if self.grew => {
                meta.insert(CONTENT_TYPES, encode_table(&table))?;
                Ok(Some(table))
            }
            _ => Ok(None),
        }
    }
}

impl UrlLog {
    /// The first id of the brief run that holds `id`, which may start
    /// before it; `id` itself when no run starts at or before it.
    pub(super) fn brief_run_start(&self, id: u64) -> Result<u64, StoreError> {
        Ok(
            match self.briefs.range(run_key(0)..=run_key(id)).next_back() {
                Some(entry) => parse_run_key(&entry?.0).unwrap_or(id),
                None => id,
            },
        )
    }

    /// The content-type table as this process knows it.
    pub(super) fn content_types_known(&self) -> Arc<Vec<String>> {
        self.content_types
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Takes a table read from or written to `meta`; the longer one wins,
    /// since tables only grow.
    pub(super) fn learn_content_types(&self, table: Vec<String>) {
        let mut known = self.content_types.lock().unwrap_or_else(|p| p.into_inner());
        if table.len() > known.len() {
            *known = Arc::new(table);
        }
    }

    /// [`UrlLog::scan_briefs`] through the `briefs` tree: the runs in id
    /// order, each URL's state and content type from its status block
    /// (blocks are walked alongside, since both follow id order).
    pub(super) fn walk_packed_briefs(
        &self,
        after: Option<u64>,
        upto: Option<u64>,
        mut visit: impl FnMut(u64, Brief<'_>) -> bool,
    ) -> Result<u64, StoreError> {
        let from = after.map_or(1, |id| id.saturating_add(1));
        let upto = upto.unwrap_or(u64::MAX);
        if from > upto {
            return Ok(0);
        }
        let table = parse_table(self.meta.get(CONTENT_TYPES)?.as_deref().unwrap_or_default());
        let start = self.brief_run_start(from)?;
        let mut blocks = self
            .briefs
            .range(status_key(from)..=prefixed(STATUS, upto / BLOCK_IDS));
        let mut block: Option<(u64, IVec)> = None;
        let mut blocks_left = true;
        let mut visited = 0;
        for entry in self.briefs.range(run_key(start)..=run_key(upto)) {
            let (key, value) = entry?;
            let Some(first) = parse_run_key(&key) else {
                continue;
            };
            let mut run = RunReader::new(first, &value);
            while let Some((id, link_depth, url)) = run.next_entry() {
                if id < from {
                    continue;
                }
                if id > upto {
                    return Ok(visited);
                }
                let number = id / BLOCK_IDS;
                while blocks_left && block.as_ref().is_none_or(|(n, _)| *n < number) {
                    match blocks.next() {
                        Some(entry) => {
                            let (key, bytes) = entry?;
                            if let Some(n) = parse_status_key(&key) {
                                block = Some((n, bytes));
                            }
                        }
                        None => blocks_left = false,
                    }
                }
                // No status for this id: damage, passed over.
                let Some((state, code)) = block
                    .as_ref()
                    .filter(|(n, _)| *n == number)
                    .and_then(|(_, bytes)| get_status(bytes, id))
                else {
                    continue;
                };
                let from_record;
                let (link_depth, content_type) = match type_of(&table, code) {
                    Ok(content_type) => (link_depth, content_type),
                    Err(()) => {
                        // Rare: the brief is the record's.
                        let Ok(Some(bytes)) = self.record_bytes(id)? else {
                            continue;
                        };
                        let Ok(brief) = decode_brief(&bytes) else {
                            continue;
                        };
                        from_record = brief.content_type.map(str::to_string);
                        (brief.link_depth, from_record.as_deref())
                    }
                };
                visited += 1;
                let brief = Brief {
                    url,
                    state,
                    link_depth,
                    content_type,
                };
                if !visit(id, brief) {
                    return Ok(visited);
                }
            }
        }
        Ok(visited)
    }
}

#[cfg(test)]
mod tests;
