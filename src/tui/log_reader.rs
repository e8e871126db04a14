//! Reads the URL log for the console, off the UI task: a page of records
//! for the Log view, one record with its referrer chain for the detail
//! pane, and the latest discoveries for the trap hints. The UI sends a
//! request and gets an [`super::action::Action`] back; it never waits.

use regex::Regex;

use crate::store::{Query, State, StoreError, UrlLog, UrlRecord};

/// Longest referrer chain shown (start URL ← … ← this URL).
pub const MAX_CHAIN: usize = 12;

/// What the Log view lists.
#[derive(Debug, Clone, Default)]
pub struct LogQuery {
    pub state: Option<State>,
    pub queue: Option<String>,
    /// Searched in each URL and reason (a regex).
    pub text: Option<Regex>,
}

impl LogQuery {
    fn store_query(&self) -> Query {
        Query {
            state: self.state,
            queue: self.queue.clone(),
            text: self.text.clone(),
        }
    }
}

/// Where a page starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageFrom {
    /// The oldest records.
    Start,
    /// Records after this id, oldest first.
    After(u64),
    /// Records before this id, newest first (then shown oldest first).
    Before(u64),
    /// The newest records: following the tail.
    End,
}

/// A page of the log, oldest first.
#[derive(Debug, Clone)]
pub struct LogPage {
    /// Matches the request that asked for it; older answers are dropped.
    pub seq: u64,
    pub from: PageFrom,
    pub rows: Vec<(u64, UrlRecord)>,
    /// Records in the log.
    pub total: u64,
    /// Records the query lists, when the log counts them (no filter, or
    /// a state alone); a queue or text filter is not counted.
    pub matching: Option<u64>,
    pub error: Option<String>,
}

/// One record with the URLs that led to it.
#[derive(Debug, Clone)]
pub struct RecordView {
    pub id: u64,
    pub record: UrlRecord,
    /// Referrers, nearest first: (id, URL).
    pub chain: Vec<(u64, String)>,
}

/// Reads one page.
pub fn read_page(
    log: &UrlLog,
    query: &LogQuery,
    from: PageFrom,
    limit: usize,
    seq: u64,
) -> LogPage {
    let q = query.store_query();
    let result = match from {
        PageFrom::Start => log.page(&q, None, limit),
        PageFrom::After(id) => log.page(&q, Some(id), limit),
        PageFrom::Before(id) => log.page_back(&q, Some(id), limit).map(reversed),
        PageFrom::End => log.page_back(&q, None, limit).map(reversed),
    };
    let (rows, error) = match result {
        Ok(rows) => (rows, None),
        Err(e) => (Vec::new(), Some(e.to_string())),
    };
    let total = log.len();
    let matching = match (query.state, &query.queue, &query.text) {
        (None, None, None) => Some(total),
        (Some(state), None, None) => Some(log.counts().get(state)),
        _ => None,
    };
    LogPage {
        seq,
        from,
        rows,
        total,
        matching,
        error,
    }
}

fn reversed(mut rows: Vec<(u64, UrlRecord)>) -> Vec<(u64, UrlRecord)> {
    rows.reverse();
    rows
}

/// Reads a record and follows its referrers up to [`MAX_CHAIN`] hops.
pub fn read_record(log: &UrlLog, id: u64) -> Result<Option<RecordView>, StoreError> {
    let Some(record) = log.get(id)? else {
        return Ok(None);
    };
    let mut chain = Vec::new();
    let mut next = record.referrer;
    while let Some(rid) = next {
        if chain.len() >= MAX_CHAIN || chain.iter().any(|(c, _)| *c == rid) {
            break;
        }
        match log.get(rid)? {
            Some(r) => {
                next = r.referrer;
                chain.push((rid, r.url));
            }
            None => break,
        }
    }
    Ok(Some(RecordView { id, record, chain }))
}

/// The URLs of the latest `n` records, newest first (for trap hints).
pub fn latest_urls(log: &UrlLog, n: usize) -> Vec<String> {
    log.page_back(&Query::default(), None, n)
        .map(|rows| rows.into_iter().map(|(_, r)| r.url).collect())
        .unwrap_or_default()
}
