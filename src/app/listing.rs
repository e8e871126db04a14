//! The `log` command's listing: which URLs it asks for ([`ListingRequest`])
//! and how it writes them ([`write_listing`]), as a table or JSON lines.
//! The same code writes a listing to this process's stdout and, for a
//! `log` run in another terminal, to the socket of the crawl that holds
//! the log open (`log_socket.rs`), so both print the same.

use std::io::Write;
use std::sync::Weak;

use serde::{Deserialize, Serialize};

use super::AppError;
use crate::cli::escape_control;
use crate::store::{Query, State, StoreError, UrlLog};

/// Records read from the log at a time.
const PAGE: usize = 1000;

/// What `log` lists, as its options gave it (checked by
/// [`ListingRequest::query`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListingRequest {
    pub state: Option<String>,
    pub grep: Option<String>,
    pub json: bool,
}

impl ListingRequest {
    /// The log query the options ask for, or the input error naming the
    /// option that is wrong.
    pub fn query(&self) -> Result<Query, AppError> {
        let state = self
            .state
            .as_deref()
            .map(|s| {
                s.parse::<State>()
                    .map_err(|e| AppError::Input(format!("--state: {e}")))
            })
            .transpose()?;
        let text = self
            .grep
            .as_deref()
            .map(|g| {
                regex::Regex::new(g).map_err(|e| {
                    let why = crate::rules::compile::one_line(&e.to_string());
                    AppError::Input(format!("--grep: {why}"))
                })
            })
            .transpose()?;
        Ok(Query {
            state,
            text,
            ..Query::default()
        })
    }
}

/// Writes every record `request` asks for, in discovery order: the
/// table's header first, or one JSON object per line. A damaged index
/// entry (a state block) is rebuilt from the records once and the page
/// read again, as a write would.
///
/// The log is held only while a page is read: a listing piped into a
/// pager that waits on its reader must not keep a crawl's log open after
/// the crawl has ended (it fails then, saying so).
pub fn write_listing(
    log: &Weak<UrlLog>,
    request: &ListingRequest,
    out: &mut impl Write,
) -> Result<(), AppError> {
    let query = request.query()?;
    let io = |e: std::io::Error| AppError::Runtime(format!("cannot write: {e}"));
    let runtime = |e: StoreError| AppError::Runtime(e.to_string());
    if !request.json {
        writeln!(
            out,
            "{:>8}  {:<9}  {:>6}  {:<60}  reason",
            "id", "state", "status", "url"
        )
        .map_err(io)?;
    }
    let mut repaired: Vec<Vec<u8>> = Vec::new();
    let mut after = None;
    loop {
        let log = log.upgrade().ok_or_else(|| {
            AppError::Runtime("the crawl holding the URL log ended during the listing".into())
        })?;
        let page = match log.page(&query, after, PAGE) {
            Err(StoreError::BadEntry { tree, key }) if !repaired.contains(&key) => {
                let e = StoreError::BadEntry { tree, key };
                if !log.repair_damaged(&e).map_err(runtime)? {
                    return Err(runtime(e));
                }
                eprintln!("crawlspace: {e}: rebuilt it from the records");
                if let StoreError::BadEntry { key, .. } = e {
                    repaired.push(key);
                }
                continue;
            }
            page => page.map_err(runtime)?,
        };
        drop(log);
        let Some((last, _)) = page.last() else { break };
        after = Some(*last);
        for (id, record) in &page {
            if request.json {
                crate::cli::write_json(out, &crate::store::export_json(record, *id)).map_err(io)?;
                writeln!(out).map_err(io)?;
            } else {
                writeln!(
                    out,
                    "{:>8}  {:<9}  {:>6}  {:<60}  {}",
                    id,
                    record.state.name(),
                    record
                        .status
                        .map(|s| s.to_string())
                        .unwrap_or_else(|| "-".into()),
                    escape_control(&record.url),
                    escape_control(&record.reason)
                )
                .map_err(io)?;
            }
        }
    }
    out.flush().map_err(io)
}
